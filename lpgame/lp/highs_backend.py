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
reports status "Unknown" even on Kuhn poker. A status
other than optimal raises :class:`~lpgame.errors.SolverError` with HiGHS's status text and the model
size; a time limit raises :class:`~lpgame.errors.SolverTimeLimitError` carrying the objective
value HiGHS had reached.
"""

from __future__ import annotations

import ctypes
import os
import sys
import time

import highspy
import numpy as np

from lpgame.errors import SolverError, SolverTimeLimitError
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


def _to_highs_lp(lp: LinearProgram, assembled: Assembled | None = None) -> highspy.HighsLp:
    m = lp.assemble() if assembled is None else assembled
    model = highspy.HighsLp()
    model.num_col_ = m.A.shape[1]
    model.num_row_ = m.A.shape[0]
    inf = highspy.kHighsInf
    model.col_cost_ = m.c
    model.col_lower_ = np.where(np.isneginf(m.col_lower), -inf, m.col_lower)
    model.col_upper_ = np.where(np.isposinf(m.col_upper), inf, m.col_upper)
    model.row_lower_ = np.where(np.isneginf(m.row_lower), -inf, m.row_lower)
    model.row_upper_ = np.where(np.isposinf(m.row_upper), inf, m.row_upper)
    model.offset_ = m.objective_constant
    model.sense_ = highspy.ObjSense.kMaximize if m.sense == "max" else highspy.ObjSense.kMinimize
    model.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    model.a_matrix_.start_ = m.A.indptr.astype(np.int32)
    model.a_matrix_.index_ = m.A.indices.astype(np.int32)
    model.a_matrix_.value_ = m.A.data
    return model


def _dual_objective(h: highspy.Highs) -> float | None:
    """HiGHS's dual objective value, or None where this highspy cannot report it."""
    try:
        status, value = h.getDualObjectiveValue()
    except (TypeError, ValueError):   # highspy 1.15 binds it with a by-value output argument
        return None
    return float(value) if status == highspy.HighsStatus.kOk else None


def _restart_thread_scheduler() -> None:
    """Let the next HiGHS run start its thread pool with the requested ``threads``.

    HiGHS keeps one thread scheduler per process, sized by the first run; from HiGHS 1.16 a later
    run asking for another thread count stops with an error (model status "Not Set") unless the
    scheduler is reset first. lpgame runs one solve at a time, so resetting here is safe.
    """
    reset = getattr(highspy.Highs, "resetGlobalScheduler", None)
    if reset is not None:
        reset(True)


def highs_settings(solver: str | None = None, threads: int | None = None,
                   time_limit: float | None = None, presolve: bool | None = None,
                   highs_options: dict | None = None) -> dict:
    """HiGHS option values for the common keyword options, shared by the three backends.

    ``presolve=None`` presolves unless the solution will not be basic (module docstring). Naming
    ``threads`` also resets HiGHS's per-process thread scheduler (:func:`_restart_thread_scheduler`).
    """
    if solver is not None and solver not in SOLVERS:
        raise SolverError(f"unknown HiGHS solver {solver!r}; choose one of {SOLVERS}")
    if presolve is None:
        crossover_off = (highs_options or {}).get("run_crossover") in ("off", False)
        presolve = not (solver == "pdlp" or (solver == "ipm" and crossover_off))
    settings: dict = {"presolve": "on" if presolve else "off"}
    if solver is not None:
        settings["solver"] = solver
    if threads is not None:
        settings["threads"] = int(threads)
        _restart_thread_scheduler()
    if time_limit is not None:
        settings["time_limit"] = float(time_limit)
    settings.update(highs_options or {})
    return settings


def build_highs(lp: LinearProgram, settings: dict,
                assembled: Assembled | None = None) -> highspy.Highs:
    """A HiGHS instance with ``settings`` applied (``output_flag`` off unless named) and ``lp``
    passed in (from ``assembled``, ``lp.assemble()``, where the caller has it already)."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", bool(settings.get("output_flag", False)))
    for key, value in settings.items():
        if h.setOptionValue(key, value) == highspy.HighsStatus.kError:
            raise SolverError(f"HiGHS refused option {key}={value!r} (unknown option or bad value)")
    h.passModel(_to_highs_lp(lp, assembled))
    return h


def basic_solution(h: highspy.Highs, lp: LinearProgram, time_limit: float | None, start: float,
                   what: str = "HiGHS", run_status=None, settings: dict | None = None
                   ) -> LPSolution:
    """The :class:`LPSolution` of a HiGHS instance that has run, or the error its status calls
    for (time limit, refusal, anything not optimal); ``start`` is the run's perf_counter start."""
    seconds = time.perf_counter() - start
    status = h.getModelStatus()
    text = h.modelStatusToString(status)
    size = lp.size()
    if status == highspy.HighsModelStatus.kTimeLimit:
        info = h.getInfo()
        raise SolverTimeLimitError(
            f"{what} stopped at its time limit ({time_limit} s) on LP {lp.name!r} with "
            f"{size['rows']} rows, {size['cols']} columns, {size['nnz']} nonzeros; "
            f"objective reached {info.objective_function_value:g}",
            status=text, size=size, objective=info.objective_function_value,
            best_bound=_dual_objective(h))
    if status == highspy.HighsModelStatus.kNotset and run_status == highspy.HighsStatus.kError:
        raise SolverError(
            f"{what} refused to solve LP {lp.name!r} ({size['rows']} rows, {size['cols']} "
            f"columns, {size['nnz']} nonzeros) before starting: an inconsistent option? "
            f"Options: {settings}", status=text, size=size)
    if status != highspy.HighsModelStatus.kOptimal:
        raise SolverError(
            f"{what} returned status {text!r} on LP {lp.name!r} with {size['rows']} rows, "
            f"{size['cols']} columns, {size['nnz']} nonzeros", status=text, size=size)
    sol = h.getSolution()
    info = h.getInfo()
    col_basis = row_basis = None
    basis = h.getBasis()
    if basis.valid:
        col_basis = np.fromiter(map(int, basis.col_status), dtype=np.int8,
                                count=len(basis.col_status))
        row_basis = np.fromiter(map(int, basis.row_status), dtype=np.int8,
                                count=len(basis.row_status))
    return LPSolution(
        lp=lp, backend="highs", status="optimal",
        objective=float(info.objective_function_value),
        col_values=np.asarray(sol.col_value, dtype=float),
        row_duals=np.asarray(sol.row_dual, dtype=float),
        col_basis=col_basis, row_basis=row_basis, seconds=seconds,
        info={"simplex_iterations": int(info.simplex_iteration_count),
              "ipm_iterations": int(info.ipm_iteration_count),
              "solver": ran_solver(h, col_basis is not None)},
    )


def ran_solver(h: highspy.Highs, basic: bool) -> dict:
    """Which of HiGHS's solvers ran (read from its iteration counts, not from the options asked
    for), whether the answer is a basic solution (crossover ran after an interior point), and the
    feasibility tolerance it was solved to."""
    info = h.getInfo()
    pdlp = int(getattr(info, "pdlp_iteration_count", 0) or 0)
    ipm = int(info.ipm_iteration_count)
    crossover = int(getattr(info, "crossover_iteration_count", 0) or 0)
    if pdlp > 0:
        name, cross = "HiGHS PDLP (first-order)", None
    elif ipm > 0:
        name, cross = "HiGHS interior point (IPX)", bool(basic or crossover > 0)
    else:
        name, cross = "HiGHS simplex", None
    tolerance = h.getOptionValue("primal_feasibility_tolerance")
    tolerance = tolerance[1] if isinstance(tolerance, tuple) else tolerance
    return {"name": name, "crossover": cross, "tolerance": float(tolerance)}


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


def solve_highs(lp: LinearProgram, solver: str = "choose", threads: int | None = None,
                time_limit: float | None = None, presolve: bool | None = None,
                highs_options: dict | None = None, verbose: bool = False,
                starting_basis: tuple[np.ndarray, np.ndarray] | None = None) -> LPSolution:
    """Solve ``lp`` with HiGHS and return an :class:`~lpgame.lp.solution.LPSolution`.

    ``starting_basis`` (column statuses, row statuses) warm-starts the simplex; presolve is then
    off unless asked for, since HiGHS would discard the basis.
    """
    if starting_basis is not None and presolve is None:
        presolve = False
    settings = highs_settings(solver, threads, time_limit, presolve, highs_options)
    start = time.perf_counter()
    h = build_highs(lp, {"output_flag": bool(verbose), **settings})
    if starting_basis is not None:
        set_starting_basis(h, *starting_basis)
    build_seconds = time.perf_counter() - start
    run_status = h.run()
    solution = basic_solution(h, lp, time_limit, start, run_status=run_status, settings=settings)
    solution.info.update({"build_seconds": build_seconds,
                          "solve_seconds": solution.seconds - build_seconds})
    return solution
