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

from lpgame.errors import ModelTooLargeError, SolverTimeLimitError
from lpgame.sequence_form import SequenceForm

PROOF_MAX_PROFILES = 2_500
"""Largest reduced normal form (pure profiles) whose extreme equilibria are enumerated as proof."""
PROOF_TIME_LIMIT = 20.0
"""Seconds the enumeration may take before the proof is given up."""


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
    from lpgame.equilibria.correlated.ce_cce import enumerate_reduced_plans
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


__all__ = ["EnumeratedOptimum", "enumerated_optimum", "PROOF_MAX_PROFILES", "PROOF_TIME_LIMIT"]
