"""Discounted CFR, DCFR(α, β, γ) (Brown & Sandholm 2019; Farina 2023, §3 "discounted RM",
notes/farina-thesis.md §4 item 1, with the [supplement] on strategy averaging).

After the regret update of iteration t = 1, 2, ... (alternating updates),

    R[ja] ← R[ja] · t^α / (t^α + 1)   where R[ja] > 0,
    R[ja] ← R[ja] · t^β / (t^β + 1)   where R[ja] ≤ 0,
    S_i  ← S_i · (t / (t + 1))^γ      (the cumulative plan, after adding x_i^t),

so iterate k ends up with weight ∝ (k / (T+1))^γ in the average strategy. The defaults α = 3/2,
β = 0, γ = 2 are the ones Brown & Sandholm recommend (β = 0 halves negative regrets every
iteration). Regret matching on R gives the next strategy, as in vanilla CFR.
"""

from __future__ import annotations

import numpy as np

from lpgame.learning.base import CFRSkeleton


class DiscountedCFR(CFRSkeleton):
    """DCFR(α, β, γ) (see module docstring)."""

    name = "dcfr"

    def __init__(self, sf, rng, alternating: bool = True, alpha: float = 1.5, beta: float = 0.0,
                 gamma: float = 2.0):
        super().__init__(sf, rng, alternating=alternating)
        self.alpha, self.beta, self.gamma = float(alpha), float(beta), float(gamma)

    def accumulate_average(self, player: int, t: int) -> None:
        S = self.cumulative[player]
        S += self.plans[player]
        S *= (t / (t + 1.0)) ** self.gamma

    def update_regrets(self, player, regrets, instantaneous, t):
        R = regrets + instantaneous
        positive = t ** self.alpha / (t ** self.alpha + 1.0)
        negative = t ** self.beta / (t ** self.beta + 1.0)
        return R * np.where(R > 0, positive, negative)
