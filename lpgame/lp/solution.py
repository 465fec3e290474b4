"""What a backend returns: primal values and duals per named block, status, basis, timings.

Dual convention, the same for every backend: the dual of a row is the sensitivity of the optimal
objective to that row's right-hand side, ∂z*/∂b_i (so a binding ``<=`` row of a maximisation has a
non-negative dual). Backends convert their own conventions to this one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from lpgame.lp.linear_program import LinearProgram

# Basis status codes (HiGHS's numbering): a basic variable or row, or a nonbasic one at its bound.
BASIS_LOWER, BASIS_BASIC, BASIS_UPPER, BASIS_ZERO, BASIS_NONBASIC = 0, 1, 2, 3, 4


@dataclass
class LPSolution:
    """Optimal solution of a :class:`~lpgame.lp.linear_program.LinearProgram`."""

    lp: LinearProgram
    backend: str
    status: str
    objective: float
    col_values: np.ndarray
    row_duals: np.ndarray
    col_basis: np.ndarray | None = None
    row_basis: np.ndarray | None = None
    seconds: float = 0.0
    info: dict = field(default_factory=dict)

    def values(self, block: str) -> np.ndarray:
        """Primal values of a variable block."""
        b = self.lp.block(block)
        return self.col_values[b.offset:b.offset + b.size]

    def duals(self, block: str) -> np.ndarray:
        """Duals (∂objective/∂rhs) of a constraint block."""
        b = self.lp.block(block)
        return self.row_duals[b.offset:b.offset + b.size]

    @property
    def has_basis(self) -> bool:
        return self.col_basis is not None and self.row_basis is not None


def solver_report(solution: LPSolution | None, exact: bool = False, **more) -> dict:
    """Which solver actually ran for ``solution``, in the form every result's ``solver`` field
    has: ``{"name", "backend", "crossover", "tolerance", "exact_certification"}`` (``crossover``
    is None where it does not apply; ``exact_certification`` says whether the basis was then
    certified in rational arithmetic). ``more`` adds or overrides keys."""
    if solution is None:
        out = {"name": None, "backend": None, "crossover": None, "tolerance": None}
    else:
        ran = dict(solution.info.get("solver") or {"name": solution.backend})
        out = {"name": ran.get("name"), "backend": solution.backend,
               "crossover": ran.get("crossover"), "tolerance": ran.get("tolerance")}
        first = solution.info.get("first_attempt")
        if first:
            out["second_attempt"] = "simplex from the first basis at HiGHS's tightest tolerances"
    out["exact_certification"] = bool(exact)
    out.update(more)
    return out
