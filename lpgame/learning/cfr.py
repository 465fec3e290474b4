"""Vanilla counterfactual regret minimisation (CFR).

Zinkevich, Johanson, Bowling & Piccione (2007); Rojas Linárez 2020, Ch. V, eq. 5.9–5.10 and
Appendix E, Alg. 1–2 (notes/rojas-linarez-and-notebook.md §3.6); Farina 2023, Alg. 4.3/4.4.

Every iteration walks the whole game, as a vectorised pass over the sequence form
(:mod:`lpgame.learning.treeplex`): for each player i, with the counterfactual values q, V of the
current strategies,

    R_i^T[ja] = Σ_{t ≤ T} (q^t[ja] − V^t(j)),       σ_i^{T+1}(j)(a) = R⁺[ja] / Σ_b R⁺[jb]

(uniform when no regret is positive), and the output is the average strategy with uniform weights
w_t = 1 (eq. 5.2). Thm 5.2/5.8: the average is a 2ε-equilibrium with ε = O(|I| Δ √(|A|/T)).
Updates alternate between the players (``alternating=True``, the thesis's Algorithm 1 and
OpenSpiel's ``CFRSolver``); ``alternating=False`` gives Zinkevich's simultaneous updates.
"""

from __future__ import annotations

from lpgame.learning.base import CFRSkeleton


class CFR(CFRSkeleton):
    """Vanilla CFR (see module docstring): the skeleton's default hooks."""

    name = "cfr"
