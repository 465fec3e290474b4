"""Exact proof of the optimal (or worst) Nash equilibrium's objective, by enumerating the extreme
equilibria: the independent check of :mod:`lpgame.equilibria.general_sum.optimal_nash`'s MILP in
exact mode.

**Formulation.** The Nash equilibria of a bimatrix game (A_1, A_2) — for an extensive game, of its
reduced normal form, whose mixed strategies are the realization plans (Kuhn 1953; Koller, Megiddo &
von Stengel 1996) — are the union of finitely many maximal Nash subsets conv(X') × conv(Y'), where
X' and Y' are sets of extreme equilibrium strategies and every pair in X' × Y' is an extreme
equilibrium (Avis, Rosenberg, Savani & von Stengel, "Enumeration of Nash equilibria for two-player
games", Economic Theory 42, 2010). The objective

    f(x, y) = Σ_i w_i xᵀ A_i y

is bilinear, so on a product of polytopes it attains its maximum and its minimum at a pair of
vertices (for fixed y it is linear in x, so a vertex x of conv(X') does as well; then, for that x,
a vertex y of conv(Y')). Hence

    max { f(x, y) : (x, y) a Nash equilibrium } = max { f(x, y) : (x, y) an extreme equilibrium },

and likewise for the minimum. :func:`lpgame.equilibria.general_sum.enumeration.
bimatrix_extreme_equilibria` lists every extreme equilibrium in rational arithmetic by vertex
enumeration of the best-response polytopes, a computation that shares nothing with the MILP's
formulation (no regrets, binaries or big-M), so its optimum proves or refutes the MILP's.

The enumeration grows exponentially with the game; it runs only on reduced normal forms with at
most :data:`PROOF_MAX_PROFILES` pure profiles and for at most :data:`PROOF_TIME_LIMIT` seconds.
Beyond those, exact mode says that optimality is not proven exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from lpgame.equilibria.profiles import relative
from lpgame.errors import ModelTooLargeError, SolverTimeLimitError
from lpgame.sequence_form import SequenceForm

PROOF_MAX_PROFILES = 121
"""Largest reduced normal form (pure profiles) whose extreme equilibria are enumerated as proof
(11 × 11; measured with ``python -m benchmarks.bench_general_sum --only all``: 10 × 10 random games
take 2.3 s, 12 × 12 more than 10 s)."""
PROOF_TIME_LIMIT = 10.0
"""Seconds the enumeration may take before the proof is given up."""
OPTIMALITY_TOLERANCE = 1e-9
"""A floating-point answer is labelled optimal when the MILP's proven bound meets its objective
within this fraction of the objective's range Σ_i |w_i| R_i (R_i: player i's payoff range)."""


@dataclass
class EnumeratedOptimum:
    """The objective's exact optimum over all equilibria, an equilibrium attaining it (realization
    plans), and how many extreme equilibria were compared."""

    value: Fraction
    plans: list
    extreme_equilibria: int
    seconds: float


def enumerated_optimum(sf: SequenceForm, weights, worst: bool = False,
                       max_profiles: int = PROOF_MAX_PROFILES,
                       time_limit: float = PROOF_TIME_LIMIT) -> tuple[EnumeratedOptimum | None, str]:
    """(optimum, "") by enumeration (module docstring), or (None, why) where the game is beyond
    the limits."""
    from lpgame.equilibria.correlated.reduced_plans import enumerate_reduced_plans
    from lpgame.equilibria.general_sum.enumeration import (
        bimatrix_extreme_equilibria,
        check_enumeration_size,
        exact_reduced_payoffs,
    )

    try:
        check_enumeration_size(sf, max_profiles)
    except ModelTooLargeError:
        return None, (f"the reduced normal form has more than {max_profiles:,} pure profiles, "
                      "beyond the exact enumeration's limit")
    plans = [enumerate_reduced_plans(sf, i, max_plans=max_profiles) for i in range(2)]
    a, b = exact_reduced_payoffs(sf, plans)
    try:
        found = bimatrix_extreme_equilibria(a, b, time_limit=time_limit)
    except SolverTimeLimitError:
        return None, f"enumerating the extreme equilibria took more than {time_limit:g} s"
    w = [Fraction(float(v)) for v in weights]
    payoff = [w[0] * a[i, j] + w[1] * b[i, j] for i in range(a.shape[0]) for j in range(a.shape[1])]
    f = np.asarray(payoff, dtype=object).reshape(a.shape)
    rows = [np.asarray(x, dtype=object) @ f for x in found.strategies[0]]     # xᵀ F per x
    best, where = None, None
    for i, j in found.equilibria:
        value = sum((p * q for p, q in zip(rows[i], found.strategies[1][j])), Fraction(0))
        if best is None or (value < best if worst else value > best):
            best, where = value, (i, j)
    if where is None:
        return None, "the enumeration found no equilibrium (impossible)"
    matrices = [p.astype(int).astype(object) for p in plans]
    realization = [list(np.asarray(found.strategies[k][where[k]], dtype=object) @ matrices[k])
                   for k in range(2)]
    return EnumeratedOptimum(best, realization, len(found.equilibria), found.seconds), ""


def float_optimality(value, bound, worst: bool, span: float, solved: bool) -> dict:
    """The MILP's proven bound against the value: optimal when they meet within
    OPTIMALITY_TOLERANCE × the objective's range Σ_i |w_i| R_i."""
    if bound is None or not np.isfinite(bound):
        return {"proven": False, "bound": None, "method": "the MILP's dual bound (none)"}
    gap = (float(value) - bound) if worst else (bound - float(value))
    rel = relative(gap, span)
    return {"proven": bool(solved and rel <= OPTIMALITY_TOLERANCE), "bound": bound,
            "gap": gap, "relative_gap": rel,
            "method": "the MILP's proven dual bound (HiGHS, on unit-range payoffs)",
            "tolerance": f"{OPTIMALITY_TOLERANCE:g} of the objective's range {span:.6g}"}


def exact_optimality(sf: SequenceForm, weights, worst: bool, plans, value, bound):
    """Exact mode: the support LP's optimum against every extreme equilibrium
    (:mod:`~lpgame.equilibria.general_sum.optimal_nash_proof`); a better equilibrium found there
    replaces the MILP's. (optimality, plans, value)."""
    found, why = enumerated_optimum(sf, weights, worst)
    if found is None:
        return ({"proven": False, "bound": bound,
                 "method": f"the MILP's floating-point dual bound only; not proven exactly: {why}"},
                plans, value)
    out = {"proven": True, "bound": str(found.value),
           "method": f"exact enumeration of all {found.extreme_equilibria} extreme equilibria "
                     "(vertex enumeration; the objective is bilinear, so its optimum over the "
                     "equilibria is at an extreme one)",
           "seconds": found.seconds}
    better = found.value < Fraction(value) if worst else found.value > Fraction(value)
    if better:
        out["replaced"] = (f"the MILP's support LP gave {value}; the enumeration's equilibrium "
                           "is returned instead")
        return out, found.plans, found.value
    if found.value != Fraction(value):
        out["proven"] = False
        out["method"] += f"; the MILP's value {value} is beyond the enumerated optimum"
    return out, plans, value


__all__ = ["EnumeratedOptimum", "enumerated_optimum", "exact_optimality", "float_optimality",
           "OPTIMALITY_TOLERANCE", "PROOF_MAX_PROFILES", "PROOF_TIME_LIMIT"]
