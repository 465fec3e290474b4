"""Regret matching⁺ (RM+) in a two-player normal-form game (Tammelin 2014; Farina 2023, Alg. 3.3,
notes/farina-thesis.md §4 item 1).

Full-information self-play. Each player i keeps a clipped regret vector and plays

    p_i^t = R_i⁺ / ‖R_i⁺‖₁ (uniform when R_i = 0),   u_i^t = U_i p_{−i}^t,
    R_i ← [R_i + u_i^t − ⟨u_i^t, p_i^t⟩ 1]⁺,

with simultaneous updates and linear averaging p̄_i = Σ_t t p_i^t / Σ_t t. The stopping rule is the
one of :mod:`lpgame.learning.regret_matching` applied to the true (unclipped) regret of the weighted
sequence, D_i(k) = Σ_t t (u_i^t(k) − ⟨u_i^t, p_i^t⟩) / Σ_t t: in a zero-sum game
Σ_i max_k D_i(k) equals the NashConv of the averages (the ⟨·⟩ terms cancel because the updates are
simultaneous), so stopping at max_i max_k D_i(k) < ``stop_regret`` guarantees NashConv < 2·stop_regret.
"""

from __future__ import annotations

import numpy as np

from lpgame.game.normal_form import NormalFormGame
from lpgame.learning.base import Learner
from lpgame.learning.regret_matching import plan_of_mixed, two_player_matrices
from lpgame.sequence_form import SequenceForm


class RegretMatchingPlus(Learner):
    """RM+ with linear averaging (see module docstring)."""

    name = "rm+"

    def __init__(self, sf: SequenceForm, rng: np.random.Generator, game: NormalFormGame,
                 stop_regret: float | None = 0.005):
        super().__init__(sf, rng)
        self.U = two_player_matrices(game)
        sizes = self.U[0].shape
        self.regrets = [np.zeros(s) for s in sizes]
        self.weighted_payoffs = [np.zeros(s) for s in sizes]
        self.weighted_realised = [0.0, 0.0]
        self.sum_mixed = [np.zeros(s) for s in sizes]
        self.total_weight = 0.0
        self.stop_regret = stop_regret

    @staticmethod
    def _match(regrets: np.ndarray) -> np.ndarray:
        total = regrets.sum()
        return regrets / total if total > 0 else np.full(len(regrets), 1.0 / len(regrets))

    def iterate(self, t: int) -> None:
        A, B = self.U
        p = [self._match(self.regrets[0]), self._match(self.regrets[1])]
        u = [A @ p[1], p[0] @ B]
        for i in range(2):
            realised = float(p[i] @ u[i])
            self.regrets[i] = np.maximum(self.regrets[i] + u[i] - realised, 0.0)
            self.weighted_payoffs[i] += t * u[i]
            self.weighted_realised[i] += t * realised
            self.sum_mixed[i] += t * p[i]
        self.total_weight += t

    def max_regrets(self) -> list[float]:
        if self.total_weight == 0:
            return [0.0, 0.0]
        return [float((self.weighted_payoffs[i] - self.weighted_realised[i]).max())
                / self.total_weight for i in range(2)]

    def should_stop(self) -> bool:
        if self.stop_regret is None or self.total_weight == 0:
            return False
        return max(max(r, 0.0) for r in self.max_regrets()) < self.stop_regret

    def average_plans(self) -> list[np.ndarray]:
        return [plan_of_mixed(s / s.sum()) if s.sum() > 0 else plan_of_mixed(np.full(len(s), 1 / len(s)))
                for s in self.sum_mixed]

    def extra(self) -> dict:
        return {"max_regret": self.max_regrets(), "stop_regret": self.stop_regret,
                "stopped_by_rule": self.should_stop()}
