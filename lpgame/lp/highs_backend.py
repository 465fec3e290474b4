"""HiGHS rendering (the default backend): the LP goes to HiGHS as CSC arrays through highspy.

HiGHS (Huangfu & Hall 2018) solves ``min/max cᵀz s.t. L ≤ A z ≤ U, l ≤ z ≤ u``; the assembled
:class:`~lpgame.lp.linear_program.LinearProgram` is already in that form, so the model is passed in
one call (``Highs.passModel`` with ``a_matrix_`` column-wise), with no per-entry Python work.

Options: ``solver`` (``"choose"``, ``"simplex"``, ``"ipm"``, ``"pdlp"``), ``threads``,
``time_limit`` (seconds), ``presolve``, ``starting_basis`` (column and row status codes, numbered
as in :mod:`lpgame.lp.solution`, to warm-start the simplex) and any raw HiGHS option through
``highs_options``.
HiGHS can postsolve only a basic solution, so presolve is off by default where the answer is not
basic (PDLP, and the interior-point method with ``run_crossover`` off): with presolve on, HiGHS
reports status "Unknown" even on Kuhn poker. It is off by default on small LPs too
(:data:`SMALL_LP_NONZEROS`), where it costs more than it saves. A status
other than optimal raises :class:`~lpgame.errors.SolverError` with HiGHS's status text and the model
size; "Memory limit reached" (one of HiGHS's allocations failed, as under an address-space cap)
raises :class:`~lpgame.errors.SolverMemoryError` (also a ``ModelTooLargeError``) naming the
address-space cap and peak memory; a time limit raises
:class:`~lpgame.errors.SolverTimeLimitError` carrying the objective value HiGHS had reached. At a
time or iteration limit of PDLP the error also carries PDLP's last iterate (``iterate``: status
``"limit reached"``, never optimal), which a caller may project and certify. The error for each
status and the limit iterate are :mod:`lpgame.lp.highs_status`'s.

**MILP.** A model with binary or integer blocks goes to HiGHS with its column integrality
(``HighsLp.integrality_``) and is solved by HiGHS's branch and bound. The solution's ``info`` holds
``mip_gap`` (HiGHS's relative gap |primal − dual bound| / |primal|), ``mip_dual_bound`` (the best
bound on the optimum), ``mip_node_count`` and ``primal_bound`` (the incumbent's objective).
The relative gap at which HiGHS stops is its ``mip_rel_gap`` option (``mip_gap=`` here). At a time
limit with an incumbent the solution comes back with ``status="time_limit"`` (a partial answer:
the incumbent and the bound; likewise ``"solution_limit"`` at a node, leaf or solution limit, see
:data:`MIP_LIMITS`); without one :class:`~lpgame.errors.SolverTimeLimitError` is raised with the
dual bound. A MILP has no duals or basis: ``row_duals`` are NaN.
"""

from __future__ import annotations

import ctypes
import os
import sys
import time
import weakref

import highspy
import numpy as np

from lpgame import progress
from lpgame.errors import OptionError, SolverError, SolverTimeLimitError
from lpgame.lp.highs_status import raise_for_status, ran_solver
from lpgame.lp.linear_program import Assembled, LinearProgram
from lpgame.lp.solution import LPSolution

SOLVERS = ("choose", "simplex", "ipm", "pdlp")


def _swallow_highs_banner() -> None:
    """Create the process's first HiGHS instance with file descriptor 1 pointed at the null device.

    From highspy 1.16 the first ``Highs()`` of a process writes a two-line banner to the C-level
    standard output before any option can be set, which would corrupt ``lpgame solve --json -``.
    The banner is written once per process, so constructing one instance quietly here silences it
    for this backend and for Pyomo's and CVXPY's HiGHS interfaces alike.
    """
    try:
        sys.stdout.flush()
        saved = os.dup(1)
    except (OSError, ValueError):       # no usable descriptor 1 (embedded interpreters)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    try:
        highspy.Highs()
    finally:
        try:
            ctypes.CDLL(None).fflush(None)   # the banner may sit in C's stdout buffer
        except (OSError, AttributeError, TypeError):
            pass
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


_swallow_highs_banner()


def quiet_highs() -> highspy.Highs:
    """A HiGHS instance that writes nothing (no banner: this module swallowed it on import; no log:
    ``output_flag`` off), for code that drives highspy directly (column-generation masters)."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    return h


PROGRESS_SECONDS = 0.5
"""How often :func:`report_progress` passes HiGHS's figures on (its callbacks come every iteration)."""


def report_progress(h: highspy.Highs, what: str, verbose: bool = False) -> None:
    """Pass HiGHS's progress to the installed reporter (:mod:`lpgame.progress`), if one listens:
    from HiGHS's callbacks, every :data:`PROGRESS_SECONDS`, the simplex's iteration (and the
    objective of its latest log line: HiGHS logs the simplex every few seconds), the interior
    point's iteration, branch and bound's nodes, bounds and gap; and where the reporter asks for
    the solver's log (``--verbose``), every line of it. The log stays off the console unless
    ``verbose`` asked for it there. The callbacks cost about 10 µs an iteration."""
    reporter = progress.listening()
    if reporter is None or not hasattr(h, "cbSimplexInterrupt"):     # highspy 1.8 and later
        return
    due = [0.0]
    logged: dict = {}               # figures read from the log's iteration lines

    def figures_of(read):
        def on_event(event) -> None:
            now = time.monotonic()
            if now >= due[0]:
                due[0] = now + PROGRESS_SECONDS
                figures = {k: v for k, v in read(event.data_out).items()
                           if not isinstance(v, float) or np.isfinite(v)}
                reporter.update(what, {**figures, **{k: v for k, v in logged.items()
                                                     if k not in figures}})
        return on_event

    def on_log(event) -> None:
        if reporter.solver_log:
            reporter.log(event.message)
        tokens = event.message.split()      # "  1701  -3.4394277027e+02 Pr: 0(0); Du: 1478(..) 1.0s"
        if len(tokens) >= 3 and tokens[0].isdigit() and ("Pr:" in tokens or "Du:" in tokens):
            try:
                logged["objective"] = float(tokens[1])
            except ValueError:
                pass

    h.cbSimplexInterrupt.subscribe(figures_of(lambda d: {
        "iteration": int(d.simplex_iteration_count), "objective": float(d.objective_function_value)}))
    h.cbIpmInterrupt.subscribe(figures_of(lambda d: {
        "interior point iteration": int(d.ipm_iteration_count)}))
    h.cbMipInterrupt.subscribe(figures_of(lambda d: {
        "nodes": int(d.mip_node_count), "incumbent": float(d.mip_primal_bound),
        "bound": float(d.mip_dual_bound),
        **({"gap": f"{100 * d.mip_gap:.2f}%"} if np.isfinite(d.mip_gap) else {})}))
    h.setOptionValue("output_flag", True)
    h.setOptionValue("log_to_console", bool(verbose))
    h.cbLogging.subscribe(on_log)


def _to_highs_lp(lp: LinearProgram, assembled: Assembled | None = None) -> highspy.HighsLp:
    """The model in HiGHS's form (column-wise CSC arrays). Without ``assembled`` it is made once per
    model and kept (:meth:`LinearProgram.memo`): ``passModel`` copies it into each instance."""
    if assembled is None:
        return lp.memo("highs_lp", lambda: _highs_lp_of(lp.assemble()))
    return _highs_lp_of(assembled)


def _highs_lp_of(m: Assembled) -> highspy.HighsLp:
    model = highspy.HighsLp()
    model.num_col_ = m.A.shape[1]
    model.num_row_ = m.A.shape[0]
    model.col_cost_ = m.c
    model.col_lower_ = _highs_bounds(m.col_lower)
    model.col_upper_ = _highs_bounds(m.col_upper)
    model.row_lower_ = _highs_bounds(m.row_lower)
    model.row_upper_ = _highs_bounds(m.row_upper)
    model.offset_ = m.objective_constant
    model.sense_ = highspy.ObjSense.kMaximize if m.sense == "max" else highspy.ObjSense.kMinimize
    model.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    model.a_matrix_.start_ = m.A.indptr.astype(np.int32)
    model.a_matrix_.index_ = m.A.indices.astype(np.int32)
    model.a_matrix_.value_ = m.A.data
    if m.integrality is not None:
        kinds = (highspy.HighsVarType.kContinuous, highspy.HighsVarType.kInteger)
        model.integrality_ = [kinds[k] for k in m.integrality.tolist()]
    return model


def _highs_bounds(values: np.ndarray) -> np.ndarray:
    """Bounds with ±inf as HiGHS's infinity (the same floats where ``kHighsInf`` is inf, as it
    is in every highspy so far: then nothing is rewritten)."""
    inf = highspy.kHighsInf
    if inf == np.inf:
        return values
    return np.where(np.isneginf(values), -inf, np.where(np.isposinf(values), inf, values))


def _restart_thread_scheduler() -> None:
    """Let the next HiGHS run start its thread pool with the requested ``threads``.

    HiGHS keeps one thread scheduler per process, sized by the first run; from HiGHS 1.16 a later
    run asking for another thread count stops with an error (model status "Not Set") unless the
    scheduler is reset first. lpgame runs one solve at a time, so resetting here is safe.
    """
    reset = getattr(highspy.Highs, "resetGlobalScheduler", None)
    if reset is not None:
        reset(True)


THREADS_PER_CORE = 4
"""``threads`` may be at most this many times ``os.cpu_count()`` (the bound :func:`lpgame.solve`
checks too): HiGHS aborts the whole process, in C++, when asked for far more threads than it can
start (``--threads 100000`` ended with ``terminate called`` after two minutes)."""


def check_threads(threads) -> int:
    """``threads`` as an int from 1 to :data:`THREADS_PER_CORE` × the machine's CPU count, else
    :class:`~lpgame.errors.OptionError` naming the bound."""
    cores = os.cpu_count() or 1
    limit = THREADS_PER_CORE * cores
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)):
        try:
            if isinstance(threads, bool) or float(threads) != int(threads):
                raise ValueError
            threads = int(threads)
        except (TypeError, ValueError, OverflowError):
            raise OptionError(f"threads={threads!r} is not a whole number; give 1 to {limit} "
                              f"(this machine has {cores} cores)") from None
    threads = int(threads)
    if not 1 <= threads <= limit:
        raise OptionError(f"threads={threads} is out of range: give 1 to {limit} (this machine has "
                          f"{cores} cores)")
    return threads


def highs_settings(solver: str | None = None, threads: int | None = None,
                   time_limit: float | None = None, presolve: bool | None = None,
                   highs_options: dict | None = None) -> dict:
    """HiGHS option values for the common keyword options, shared by the three backends.

    ``presolve=None`` presolves unless the solution will not be basic (module docstring). Naming
    ``threads`` also resets HiGHS's per-process thread scheduler (:func:`_restart_thread_scheduler`).
    """
    if solver is not None and solver not in SOLVERS:
        raise SolverError(f"unknown HiGHS solver {solver}; choose one of {', '.join(SOLVERS)}, or "
                          "clarabel (Clarabel's interior point, through the same backend)")
    if presolve is None:
        crossover_off = (highs_options or {}).get("run_crossover") in ("off", False)
        presolve = not (solver == "pdlp" or (solver == "ipm" and crossover_off))
    settings: dict = {"presolve": "on" if presolve else "off"}
    if solver is not None:
        settings["solver"] = solver
    if threads is not None:
        settings["threads"] = check_threads(threads)
        _restart_thread_scheduler()
    if time_limit is not None:
        settings["time_limit"] = float(time_limit)
    settings.update(highs_options or {})
    return settings


_PLAIN_HIGHS = getattr(getattr(highspy, "_core", None), "_Highs", highspy.Highs)
"""highspy's compiled HiGHS class without the Python layer over it: ``highspy.Highs`` adds
callbacks (enabled at construction, called from the solver) and the modelling language, neither
of which a solve without a progress reporter uses; on a tiny LP that layer is a tenth of the run."""


def build_highs(lp: LinearProgram, settings: dict,
                assembled: Assembled | None = None, plain: bool = False) -> highspy.Highs:
    """A HiGHS instance with ``settings`` applied (``output_flag`` off unless named) and ``lp``
    passed in (from ``assembled``, ``lp.assemble()``, where the caller has it already).
    ``plain`` builds highspy's compiled class alone (:data:`_PLAIN_HIGHS`: no callbacks, so no
    progress reports)."""
    h = _PLAIN_HIGHS() if plain else highspy.Highs()
    _apply_settings(h, settings)
    h.passModel(_to_highs_lp(lp, assembled))
    return h


def _apply_settings(h: highspy.Highs, settings: dict) -> None:
    h.setOptionValue("output_flag", bool(settings.get("output_flag", False)))
    for key, value in settings.items():
        if h.setOptionValue(key, value) == highspy.HighsStatus.kError:
            raise SolverError(f"HiGHS refused option {key}={value!r} (unknown option or bad value)")


IDLE_INSTANCES = 2
"""How many solved HiGHS instances a small LP keeps for its next solves (:func:`_reused_highs`)."""

SPARE_INSTANCES = 8
"""How many instances of freed small LPs (under 1 MB each) the process keeps for new small LPs; a
game and its sequence form refer to each other, so the garbage collector frees several at once."""
_SPARE: list = []


def _idle_instances(lp: LinearProgram) -> list:
    """The model's list of idle instances; when the model is freed, they become spares."""
    def new_list() -> list:
        idle: list = []
        weakref.finalize(lp, _retire, idle).atexit = False
        return idle
    return lp.memo("highs_instances", new_list)


def _retire(idle: list) -> None:
    """The instances of a freed model become spares (:func:`_reused_highs`)."""
    while idle and len(_SPARE) < SPARE_INSTANCES:
        _SPARE.append(idle.pop())


def _reused_highs(lp: LinearProgram, settings: dict) -> highspy.Highs:
    """A plain HiGHS instance holding ``lp`` with ``settings``: one kept from an earlier solve of
    the same model, its solution and basis cleared (``clearSolver``, so the run starts cold, as a
    new instance would) and its options reset; else a spare of a freed small model, cleared the
    same way and given this model (``passModel``); else a new one. On Kuhn poker a kept instance
    halves HiGHS's share (no construction, no model copy, buffers already allocated), and a spare
    saves a fresh game most of that. HiGHS's answer depends on the model and options only: the
    values, duals, basis and iterations of a new instance (tests/test_fixed_cost.py). Instances
    are taken from and given back to the model's list (:func:`_give_back`) one at a time, so
    threads that solve the same model never share one. Not under a time limit (HiGHS's clock is
    the instance's)."""
    try:
        h, spare = _idle_instances(lp).pop(), False
    except IndexError:
        try:
            h, spare = _SPARE.pop(), True
        except IndexError:
            return build_highs(lp, settings, plain=True)
    h.clearSolver()
    h.resetOptions()
    _apply_settings(h, settings)
    if spare:
        h.passModel(_to_highs_lp(lp))
    return h


def _give_back(lp: LinearProgram, h: highspy.Highs) -> None:
    idle = _idle_instances(lp)
    if len(idle) < IDLE_INSTANCES:
        idle.append(h)


def basic_solution(h: highspy.Highs, lp: LinearProgram, time_limit: float | None, start: float,
                   what: str = "HiGHS", run_status=None, settings: dict | None = None
                   ) -> LPSolution:
    """The :class:`LPSolution` of a HiGHS instance that has run, or the error its status calls
    for (time limit, refusal, anything not optimal); ``start`` is the run's perf_counter start."""
    seconds = time.perf_counter() - start
    status = h.getModelStatus()
    if status != highspy.HighsModelStatus.kOptimal:
        raise_for_status(h, lp, status, time_limit, what, run_status, settings)
    sol = h.getSolution()
    info = h.getInfo()
    col_basis = row_basis = None
    basis = h.getBasis()
    if basis.valid:
        col_basis = np.array([s.value for s in basis.col_status], dtype=np.int8)
        row_basis = np.array([s.value for s in basis.row_status], dtype=np.int8)
    return LPSolution(
        lp=lp, backend="highs", status="optimal",
        objective=float(info.objective_function_value),
        col_values=np.asarray(sol.col_value, dtype=float),
        row_duals=np.asarray(sol.row_dual, dtype=float),
        col_basis=col_basis, row_basis=row_basis, seconds=seconds,
        info={"simplex_iterations": int(info.simplex_iteration_count),
              "ipm_iterations": int(info.ipm_iteration_count),
              "solver": ran_solver(h, col_basis is not None, info)},
    )


def set_starting_basis(h: highspy.Highs, col_status: np.ndarray, row_status: np.ndarray) -> None:
    """Give HiGHS a starting basis (status codes as in :mod:`lpgame.lp.solution`)."""
    codes = [highspy.HighsBasisStatus(k) for k in range(5)]
    basis = highspy.HighsBasis()
    basis.col_status = [codes[k] for k in np.asarray(col_status).tolist()]
    basis.row_status = [codes[k] for k in np.asarray(row_status).tolist()]
    basis.valid = True
    if h.setBasis(basis) == highspy.HighsStatus.kError:
        raise SolverError(f"HiGHS refused the starting basis ({len(basis.col_status)} column and "
                          f"{len(basis.row_status)} row statuses)")


MIP_LIMITS = {"time_limit": "kTimeLimit", "solution_limit": "kSolutionLimit",
              "iteration_limit": "kIterationLimit", "interrupted": "kInterrupt"}
"""A MILP stopped by one of these (HiGHS's model statuses; ``solution_limit`` also covers its node
and leaf limits ``mip_max_nodes``, ``mip_max_leaves``) returns its incumbent with that status."""


def mip_solution(h: highspy.Highs, lp: LinearProgram, time_limit: float | None,
                 start: float) -> LPSolution:
    """The :class:`LPSolution` of a MILP that HiGHS has run (module docstring, **MILP**): optimal,
    or ``status="time_limit"`` with the incumbent; otherwise the error its status calls for."""
    seconds = time.perf_counter() - start
    status = h.getModelStatus()
    text = h.modelStatusToString(status)
    size = lp.size()
    info = h.getInfo()
    has_incumbent = info.primal_solution_status == 2      # kSolutionStatusFeasible
    details = {"mip_gap": float(info.mip_gap), "mip_dual_bound": float(info.mip_dual_bound),
               "mip_node_count": int(info.mip_node_count),
               "primal_bound": float(info.objective_function_value) if has_incumbent else None}
    where = (f"MILP {lp.name!r} with {size['rows']} rows, {size['cols']} columns "
             f"({size.get('integers', 0)} integer), {size['nnz']} nonzeros")
    if status == highspy.HighsModelStatus.kTimeLimit and not has_incumbent:
        raise SolverTimeLimitError(
            f"HiGHS stopped at its time limit ({time_limit} s) on {where} before finding a feasible "
            f"point; best bound on the optimum {info.mip_dual_bound:g}",
            status=text, size=size, best_bound=float(info.mip_dual_bound))
    state = "optimal" if status == highspy.HighsModelStatus.kOptimal else None
    for name, limit in MIP_LIMITS.items():
        if status == getattr(highspy.HighsModelStatus, limit) and has_incumbent:
            state = name
    if state is None:
        raise SolverError(f"HiGHS returned status {text!r} on {where}; best bound on the optimum "
                          f"{info.mip_dual_bound:g}", status=text, size=size)
    sol = h.getSolution()
    return LPSolution(
        lp=lp, backend="highs", status=state, objective=float(info.objective_function_value),
        col_values=np.asarray(sol.col_value, dtype=float),
        row_duals=np.full(lp.num_rows, np.nan), seconds=seconds,
        info={**details, "simplex_iterations": int(info.simplex_iteration_count)})


POLISH_TOLERANCE = 1e-10
"""Primal and dual feasibility tolerance of :func:`polish_basis` (the smallest HiGHS accepts)."""

TOLERANCE_OPTIONS = frozenset({"primal_feasibility_tolerance", "dual_feasibility_tolerance"})
"""HiGHS options that, named by the caller, leave the solution unpolished."""


def polish_basis(h: highspy.Highs, lp: LinearProgram, solution: LPSolution,
                 time_limit: float | None, start: float) -> LPSolution:
    """The optimum of ``h`` (which has run) after the simplex goes on from its optimal basis with
    primal and dual feasibility tolerances :data:`POLISH_TOLERANCE` instead of 1e-7.

    HiGHS stops at a basis whose infeasibilities are within its absolute tolerances (1e-7). The
    concepts hand it payoffs in unit range (:mod:`lpgame.lp.scaling`), so 1e-7 there is 1e-7 of the
    payoff range: 12-card Rhode Island through GameShrink certified a NashConv of 1.8e-8 of its
    range. With the basis kept, HiGHS re-solves without presolve (a valid basis skips it), usually
    in no or a few pivots. Should that run not end optimal, ``solution`` (the first optimum) is
    returned as it was. ``info["polish"]`` records the pivots and seconds, or why it was skipped.
    A solution already within :data:`POLISH_TOLERANCE` (HiGHS's own largest infeasibilities) is
    not run again: a second run costs a tiny LP about as much as the first.
    """
    info = h.getInfo()
    if max(info.max_primal_infeasibility, info.max_dual_infeasibility) <= POLISH_TOLERANCE:
        solution.info["polish"] = {"iterations": 0, "seconds": 0.0, "tolerance": POLISH_TOLERANCE}
        solution.info["solver"] = {**solution.info["solver"], "tolerance": POLISH_TOLERANCE}
        return solution
    if time_limit is not None:
        left = float(time_limit) - (time.perf_counter() - start)
        if left <= 0:
            solution.info["polish"] = {"skipped": "no time left"}
            return solution
        h.setOptionValue("time_limit", left)
    h.setOptionValue("primal_feasibility_tolerance", POLISH_TOLERANCE)
    h.setOptionValue("dual_feasibility_tolerance", POLISH_TOLERANCE)
    h.setOptionValue("solver", "simplex")       # from the basis, not the interior point again
    began = time.perf_counter()
    h.run()
    seconds = time.perf_counter() - began
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        solution.info["polish"] = {"skipped": f"HiGHS {h.modelStatusToString(h.getModelStatus())}"
                                              " from the optimal basis", "seconds": seconds}
        solution.seconds += seconds
        return solution
    polished = basic_solution(h, lp, time_limit, start)
    polished.info["simplex_iterations"] += solution.info["simplex_iterations"]
    polished.info["ipm_iterations"] = solution.info["ipm_iterations"]
    polished.info["solver"] = {**solution.info["solver"], "tolerance": POLISH_TOLERANCE}
    polished.info["polish"] = {"iterations": int(h.getInfo().simplex_iteration_count),
                               "seconds": seconds, "tolerance": POLISH_TOLERANCE}
    return polished


SMALL_LP_NONZEROS = 2000
"""An LP with at most this many nonzeros is solved without presolve unless ``presolve`` or a
``time_limit`` is named: on a small model presolve and postsolve cost more than they save (on Kuhn
poker, 20 × 20 with 68 nonzeros, they take 40 % of HiGHS's run). Under a time limit presolve stays
on: it often solves a small LP outright, before the simplex's first check of the clock (a
restricted double-oracle LP of Dudo given 1 ms: never stopped with presolve, 15 % of the runs
without it on a loaded machine)."""


def solve_highs(lp: LinearProgram, solver: str = "choose", threads: int | None = None,
                time_limit: float | None = None, presolve: bool | None = None,
                highs_options: dict | None = None, verbose: bool = False,
                starting_basis: tuple[np.ndarray, np.ndarray] | None = None,
                mip_gap: float | None = None, polish: bool = True) -> LPSolution:
    """Solve ``lp`` with HiGHS and return an :class:`~lpgame.lp.solution.LPSolution`.

    A basic optimum is polished (:func:`polish_basis`) unless ``polish`` is False or
    ``highs_options`` names a feasibility tolerance.

    ``starting_basis`` (column statuses, row statuses) warm-starts the simplex; presolve is then
    off unless asked for, since HiGHS would discard the basis. A MILP (``lp.is_mip``) is solved by
    branch and bound to the relative gap ``mip_gap`` (HiGHS's ``mip_rel_gap``, default 1e-4 there;
    pass 0 to prove optimality) and read by :func:`mip_solution`.
    """
    if lp.is_mip:
        if starting_basis is not None:
            raise SolverError(f"MILP {lp.name!r}: a starting basis applies to LPs only")
        options = dict(highs_options or {})
        if mip_gap is not None:
            options["mip_rel_gap"] = float(mip_gap)
        settings = highs_settings(None if solver == "choose" else solver, threads, time_limit,
                                  True if presolve is None else presolve, options)
        start = time.perf_counter()
        h = build_highs(lp, {"output_flag": bool(verbose), **settings})
        report_progress(h, "HiGHS branch and bound", verbose)
        build_seconds = time.perf_counter() - start
        h.run()
        solution = mip_solution(h, lp, time_limit, start)
        solution.info.update({"build_seconds": build_seconds,
                              "solve_seconds": solution.seconds - build_seconds})
        return solution
    if mip_gap is not None:
        raise SolverError(f"LP {lp.name!r}: mip_gap applies to models with integer variables only")
    if presolve is None and (starting_basis is not None
                             or (time_limit is None and lp.size()["nnz"] <= SMALL_LP_NONZEROS)):
        presolve = False
    settings = highs_settings(solver, threads, time_limit, presolve, highs_options)
    start = time.perf_counter()
    listening = verbose or progress.listening() is not None
    reuse = (not listening and starting_basis is None and threads is None and time_limit is None
             and lp.size()["nnz"] <= SMALL_LP_NONZEROS)
    if reuse:
        h = _reused_highs(lp, {"output_flag": False, **settings})
    else:
        h = build_highs(lp, {"output_flag": bool(verbose), **settings}, plain=not listening)
    if listening:
        chosen = settings.get("solver", "choose")
        report_progress(h, "HiGHS" if chosen == "choose" else f"HiGHS {chosen}", verbose)
    if starting_basis is not None:
        set_starting_basis(h, *starting_basis)
    build_seconds = time.perf_counter() - start
    run_status = h.run()
    solution = basic_solution(h, lp, time_limit, start, run_status=run_status, settings=settings)
    if polish and solution.has_basis and not TOLERANCE_OPTIONS & set(highs_options or {}):
        solution = polish_basis(h, lp, solution, time_limit, start)
    if reuse:           # everything is read out of h: another solve of lp may have it
        _give_back(lp, h)
    solution.info.update({"build_seconds": build_seconds,
                          "solve_seconds": solution.seconds - build_seconds})
    return solution
