"""Options of the MILP concepts (optimal Nash, Stackelberg) checked against their meaning.

* ``mip_gap`` is a fraction of the objective's payoff range at which HiGHS's branch and bound may
  stop (the MILPs see unit-range payoffs, so it is passed as an absolute gap on that scale): it
  must lie in [0, 1), since a gap of the whole range or more accepts any feasible point.
* ``solver`` chooses the LP method of the concepts' LPs (the support LP, the commitment LPs); they
  need a vertex (a basis) to read a support and to certify it in rationals, so only the simplex,
  the interior-point method with crossover, or HiGHS's choice are accepted.
* ``time_limit`` must be a positive, finite number of seconds.
"""

from __future__ import annotations

from fractions import Fraction

from lpgame.errors import OptionError


def check_mip_gap(mip_gap) -> float | None:
    """``mip_gap`` as a float in [0, 1) (None kept): the gap is a fraction of the objective's range,
    so 1 or more would accept any point."""
    if mip_gap is None:
        return None
    if isinstance(mip_gap, bool) or not isinstance(mip_gap, (int, float, Fraction)):
        raise OptionError(f"option 'mip_gap' must be a number in [0, 1); got {mip_gap!r}")
    gap = float(mip_gap)
    if not 0 <= gap < 1:
        raise OptionError(f"option 'mip_gap' must lie in [0, 1) (a fraction of the objective's "
                          f"payoff range; 0 proves the optimum); got {mip_gap!r}")
    return gap


LP_SOLVERS = ("choose", "simplex", "ipm")
"""Values of ``solver`` that the MILP concepts' LPs accept: they need a vertex (a basis) to read a
support and to certify it exactly."""


def check_solver_options(options: dict, what: str) -> None:
    """Refuse solver options these concepts do not use: a ``solver`` that gives no vertex (PDLP,
    Clarabel) and a negative or non-finite ``time_limit``. Through :func:`lpgame.solve` the
    registry refuses such a ``solver`` first (the concepts declare ``solvers=LP_SOLVERS``); this
    check serves the public functions called directly."""
    solver = options.get("solver")
    if solver is not None and solver not in LP_SOLVERS:
        raise OptionError(f"{what}: option 'solver' must be one of {', '.join(LP_SOLVERS)} (its "
                          f"MILP is HiGHS's branch and bound and its LPs need a vertex); got "
                          f"{solver!r}")
    limit = options.get("time_limit")
    if limit is not None:
        if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not limit > 0 \
                or limit == float("inf"):
            raise OptionError(f"option 'time_limit' must be a positive number of seconds; got "
                              f"{limit!r}")
