"""Outcome-sampling Monte Carlo CFR (Lanctot, Waugh, Zinkevich & Bowling 2009; Lanctot 2013,
§3.4.2; Rojas Linárez 2020, §5.4).

When player i updates, a single leaf z is sampled: chance draws at every chance node, the other
players play their current strategies and i plays the exploring strategy
σ'_i = ε·uniform + (1 − ε)·σ_i (ε = 0.6 by default, as in OpenSpiel). Then
q(z) = p_c(z) π'_i(z) Π_{k≠i} π_k(z), and the sampled sequence payoffs are one-hot,

    g̃_i[σ_i(z)] = u_i(z) π_{−i}(z) / q(z) = u_i(z) / π'_i(z),     g̃_i = 0 elsewhere,

an unbiased estimate of g_i. Passing g̃_i through the counterfactual-value recursion of
:mod:`lpgame.learning.treeplex` gives exactly Lanctot's outcome-sampling regrets: on i's information
sets j along z's path, with a* the action taken, W = u_i(z)/π'_i(z) and π_i^σ(z | ·) the tail reach of
σ_i, r[ja*] = W (π(z | ja*) − π(z | j)) and r[jb] = −W π(z | j) for b ≠ a*; zero elsewhere.
Regret matching as in vanilla CFR; the average accumulates i's exact own-reach plan.
"""

from __future__ import annotations

import numpy as np

from lpgame.errors import LpgameError
from lpgame.learning.base import CFRSkeleton
from lpgame.learning.treeplex import ChanceSampler


class OutcomeSamplingMCCFR(CFRSkeleton):
    """Outcome-sampling MCCFR (see module docstring)."""

    name = "os-mccfr"

    def __init__(self, sf, rng, alternating: bool = True, exploration: float = 0.6):
        super().__init__(sf, rng, alternating=alternating)
        if not 0.0 <= exploration <= 1.0:
            raise LpgameError(f"exploration ε must lie in [0, 1], got {exploration}")
        self.exploration = float(exploration)
        self.chance = ChanceSampler(sf)

    def sequence_payoffs(self, player, plans, t):
        sf = self.sf
        leaves = self.chance.sample_leaves(self.rng)
        keep = np.ones(len(leaves))
        exploring_plan = None
        for k, tp in enumerate(self.treeplexes):
            behaviour = self.behaviours[k]
            if k == player:
                behaviour = self.exploration * tp.uniform + (1.0 - self.exploration) * behaviour
                exploring_plan = tp.plan(behaviour)
            pure_plan = tp.plan(tp.sample_pure(behaviour, self.rng))
            keep *= pure_plan[sf.terminal_sequences[leaves, k]]
        (hit,) = np.flatnonzero(keep)  # a pure profile and a chance draw reach exactly one leaf
        z = leaves[hit]
        sequence = sf.terminal_sequences[z, player]
        g = np.zeros(sf.num_sequences(player))
        g[sequence] = sf.terminal_payoffs[z, player] / exploring_plan[sequence]
        return g
