"""What a HiGHS run that did not end optimal means: the error to raise, and what it leaves.

HiGHS (Huangfu & Hall 2018) reports a model status after each run. For a status other than
optimal, :func:`raise_for_status` raises lpgame's error for it: at the time limit
:class:`~lpgame.errors.SolverTimeLimitError` carrying the objective reached and HiGHS's dual
bound; "Memory limit reached" (an allocation failed, as under an address-space cap)
:class:`~lpgame.errors.SolverMemoryError` with :func:`memory_situation` (the ``RLIMIT_AS`` cap and
the peak resident memory); a run refused before it started (status "Not set" with an error
return) a :class:`~lpgame.errors.SolverError` listing the options; anything else a
:class:`~lpgame.errors.SolverError` with HiGHS's status text and the model size. At a time or
iteration limit of PDLP (the primal-dual hybrid gradient; Applegate et al., NeurIPS 2021) the
error carries :func:`limit_iterate`: PDLP's last primal values and row duals, status
``"limit reached"``, never optimal, for the caller to project and certify.
:func:`ran_solver` says which of HiGHS's solvers ran, read from its iteration counts.

Split from :mod:`lpgame.lp.highs_backend`, which calls these after every solve.
"""

from __future__ import annotations

import sys

import highspy
import numpy as np

from lpgame.errors import SolverError, SolverMemoryError, SolverTimeLimitError
from lpgame.lp.linear_program import LinearProgram
from lpgame.lp.solution import LPSolution


def dual_objective(h: highspy.Highs) -> float | None:
    """HiGHS's dual objective value, or None where this highspy cannot report it."""
    try:
        status, value = h.getDualObjectiveValue()
    except (TypeError, ValueError):   # highspy 1.15 binds it with a by-value output argument
        return None
    return float(value) if status == highspy.HighsStatus.kOk else None


def limit_iterate(h: highspy.Highs, lp: LinearProgram, text: str) -> LPSolution | None:
    """The first-order solver's last iterate at a limit (HiGHS PDLP: its primal values and row
    duals, neither feasible nor optimal), as an :class:`LPSolution` whose ``status`` is
    ``"limit reached"``, never ``"optimal"``; None for the other solvers or where HiGHS has no
    valid solution. The caller must certify it (e.g. project it and compute its NashConv)."""
    info = h.getInfo()
    if int(getattr(info, "pdlp_iteration_count", 0) or 0) <= 0:
        return None
    sol = h.getSolution()
    if not (sol.value_valid and sol.dual_valid):
        return None
    return LPSolution(lp=lp, backend="highs", status="limit reached",
                      objective=float(info.objective_function_value),
                      col_values=np.asarray(sol.col_value, dtype=float),
                      row_duals=np.asarray(sol.row_dual, dtype=float),
                      info={"pdlp_iterations": int(info.pdlp_iteration_count),
                            "highs_status": text, "solver": ran_solver(h, False, info)})


def memory_situation() -> str:
    """The process's address-space cap (``RLIMIT_AS``, as a benchmark or sweep sets) and peak
    resident memory, in words, for an out-of-memory error."""
    import resource
    soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    cap = "no cap" if soft == resource.RLIM_INFINITY else f"a cap of {soft / 2**30:.1f} GiB"
    return f"address space: {cap}; peak resident {peak / 2**30:.1f} GiB (raise the cap or free memory)"


def raise_for_status(h: highspy.Highs, lp: LinearProgram, status, time_limit: float | None,
                     what: str, run_status, settings: dict | None) -> None:
    """Raise the error that a model status other than optimal calls for (module docstring);
    ``what`` names the solver in the message, ``run_status`` is what ``Highs.run`` returned."""
    text = h.modelStatusToString(status)
    size = lp.size()
    if status == highspy.HighsModelStatus.kTimeLimit:
        info = h.getInfo()
        raise SolverTimeLimitError(
            f"{what} stopped at its time limit ({time_limit} s) on LP {lp.name!r} with "
            f"{size['rows']} rows, {size['cols']} columns, {size['nnz']} nonzeros; "
            f"objective reached {info.objective_function_value:g}",
            status=text, size=size, objective=info.objective_function_value,
            best_bound=dual_objective(h), iterate=limit_iterate(h, lp, text))
    if status == highspy.HighsModelStatus.kMemoryLimit:
        raise SolverMemoryError(
            f"{what} ran out of memory (status {text!r}) on LP {lp.name!r} with {size['rows']} "
            f"rows, {size['cols']} columns, {size['nnz']} nonzeros; {memory_situation()}",
            status=text, size=size)
    if status == highspy.HighsModelStatus.kNotset and run_status == highspy.HighsStatus.kError:
        raise SolverError(
            f"{what} refused to solve LP {lp.name!r} ({size['rows']} rows, {size['cols']} "
            f"columns, {size['nnz']} nonzeros) before starting: an inconsistent option? "
            f"Options: {settings}", status=text, size=size)
    error = SolverError(
        f"{what} returned status {text!r} on LP {lp.name!r} with {size['rows']} rows, "
        f"{size['cols']} columns, {size['nnz']} nonzeros", status=text, size=size)
    if status == highspy.HighsModelStatus.kIterationLimit:
        error.iterate = limit_iterate(h, lp, text)
    raise error


def ran_solver(h: highspy.Highs, basic: bool, info=None) -> dict:
    """Which of HiGHS's solvers ran (read from its iteration counts, not from the options asked
    for), whether the answer is a basic solution (crossover ran after an interior point), and the
    feasibility tolerance it was solved to (``info``: HiGHS's info, read again when not given)."""
    info = h.getInfo() if info is None else info
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


__all__ = ["dual_objective", "limit_iterate", "memory_situation", "raise_for_status",
           "ran_solver"]
