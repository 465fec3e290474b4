"""External-sampling Monte Carlo CFR (Lanctot, Waugh, Zinkevich & Bowling 2009; Lanctot 2013,
§3.4; Rojas Linárez 2020, §5.4).

When player i updates, everything *external* to i is sampled: one outcome at every chance node and
one action at every information set of every other player, drawn from that player's current
strategy; i's own actions are all explored. With the block Q = {leaves consistent with the draw},
q(z) = p_c(z) Π_{k≠i} π_k^σ(z), so the sampled counterfactual value (eq. 5.12 of the thesis) weights
each kept leaf by u_i(z) alone:

    g̃_i[σ] = Σ_{z kept, σ_i(z) = σ} u_i(z),

an unbiased estimate of g_i (perfect recall: a path meets each information set at most once, so
drawing per information set gives every history the right action distribution). Counterfactual
values, regrets and regret matching then follow vanilla CFR on g̃_i (:mod:`lpgame.learning.treeplex`).
The average strategy accumulates the updating player's exact own-reach plan at each of its updates
(instead of Lanctot's "simple averaging" at sampled opponent nodes; both are consistent).
"""

from __future__ import annotations

from lpgame.learning.base import CFRSkeleton
from lpgame.learning.treeplex import ChanceSampler, sequence_payoffs_on


class ExternalSamplingMCCFR(CFRSkeleton):
    """External-sampling MCCFR (see module docstring)."""

    name = "es-mccfr"

    def __init__(self, sf, rng, alternating: bool = True):
        super().__init__(sf, rng, alternating=alternating)
        self.chance = ChanceSampler(sf)

    def sequence_payoffs(self, player, plans, t):
        leaves = self.chance.sample_leaves(self.rng)
        sampled = []
        for k, tp in enumerate(self.treeplexes):
            if k == player:
                sampled.append(plans[k])
            else:
                sampled.append(tp.plan(tp.sample_pure(self.behaviours[k], self.rng)))
        return sequence_payoffs_on(self.sf, player, sampled, leaves, chance=False)
