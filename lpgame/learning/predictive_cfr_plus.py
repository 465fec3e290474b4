"""Predictive CFR+, PCFR+ (Farina, Kroer & Sandholm 2021; Farina 2023, L1527–1545,
notes/farina-thesis.md §4 item 3).

Regret-matching⁺ with a prediction at every information set: the regrets are accumulated and
clipped as in CFR+, R^t = [R^{t−1} + r^t]⁺, but the next strategy matches the *predicted* regrets,

    σ^{t+1}(j) ∝ [R^t[j·] + m^{t+1}[j·]]⁺,     m^{t+1} = r^t

(the prediction of the next instantaneous counterfactual regret is the last one observed), uniform
when the bracket is zero everywhere. Updates alternate between the players and the average uses
quadratic weights w_t = t² (Farina 2023's quadratic averaging). State of the art on many non-poker
games (Farina 2023, §4).
"""

from __future__ import annotations

import numpy as np

from lpgame.learning.base import CFRSkeleton


class PredictiveCFRPlus(CFRSkeleton):
    """PCFR+ (see module docstring)."""

    name = "pcfr+"

    def average_weight(self, t: int) -> float:
        return float(t) ** 2

    def update_regrets(self, player, regrets, instantaneous, t):
        return np.maximum(regrets + instantaneous, 0.0)

    def next_behaviour(self, player, instantaneous, t):
        predicted = np.maximum(self.regrets[player] + instantaneous, 0.0)
        return self.treeplexes[player].regret_matching(predicted, nonnegative=True)
