"""CFR+ (Tammelin 2014; Tammelin, Burch, Johanson & Bowling 2015; Farina 2023, Alg. 3.3 for RM+).

Three changes to vanilla CFR (:mod:`lpgame.learning.cfr`):

* regret-matching⁺: the cumulative regrets are clipped at zero after every update,
  R^t[ja] = max(R^{t−1}[ja] + r^t[ja], 0), and σ^{t+1}(j) ∝ R^t[j·] (uniform when all are 0);
* alternating updates: player 2's update at iteration t already sees player 1's new strategy;
* linear averaging: iteration t enters the average strategy with weight w_t = max(t − d, 0)
  (``delay`` d = 0 by default, as in OpenSpiel's ``CFRPlusSolver``).
"""

from __future__ import annotations

import numpy as np

from lpgame.learning.base import CFRSkeleton


class CFRPlus(CFRSkeleton):
    """CFR+ (see module docstring)."""

    name = "cfr+"

    def __init__(self, sf, rng, alternating: bool = True, delay: int = 0):
        super().__init__(sf, rng, alternating=alternating)
        self.delay = int(delay)

    def average_weight(self, t: int) -> float:
        return float(max(t - self.delay, 0))

    def update_regrets(self, player, regrets, instantaneous, t):
        updated = regrets + instantaneous
        return np.maximum(updated, 0.0, out=updated)

    def next_behaviour(self, player, instantaneous, t):
        return self.treeplexes[player].regret_matching(self.regrets[player], nonnegative=True)
