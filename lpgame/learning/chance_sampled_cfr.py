"""Chance-sampled CFR (Zinkevich et al. 2007; Lanctot et al. 2009; Rojas Linárez 2020, §5.4 and
Appendix E, Alg. 1–2: the variant the thesis uses in all its experiments; notes §3.6).

MCCFR with one block per joint chance outcome: every player's update at iteration t draws one
outcome at every chance node (independently for each player's update, as the thesis's code does
with alternating updates: one iteration = n sampled deals) and evaluates the counterfactual values
on the leaves consistent with that draw only. A leaf z is kept with probability q(z) = p_c(z), so the
sampled counterfactual value (thesis eq. 5.12)

    ũ_i(σ, I) = Σ_{z kept} π_{−i}^σ(h) π^σ(h, z) u_i(z) / q(z)

uses u_i(z) times the *players'* reach only (π_{−i} without chance, as in the thesis's code); it is
an unbiased estimate of the counterfactual value (thesis Thm 5.9). Regret matching and uniform
averaging as in vanilla CFR; the average accumulates each player's exact own-reach plan.
"""

from __future__ import annotations

from lpgame.learning.base import CFRSkeleton
from lpgame.learning.treeplex import ChanceSampler, sequence_payoffs_on


class ChanceSampledCFR(CFRSkeleton):
    """Chance-sampled CFR (see module docstring)."""

    name = "cs-cfr"

    def __init__(self, sf, rng, alternating: bool = True):
        super().__init__(sf, rng, alternating=alternating)
        self.chance = ChanceSampler(sf)

    def sequence_payoffs(self, player, plans, t):
        leaves = self.chance.sample_leaves(self.rng)
        return sequence_payoffs_on(self.sf, player, plans, leaves, chance=False)
