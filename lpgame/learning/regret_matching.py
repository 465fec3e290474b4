"""Regret matching in repeated two-player normal-form games (Hart & Mas-Colell 2000), as in
Rojas Linárez 2020, Ch. IV (notes/rojas-linarez-and-notebook.md §3.5).

The game Γ is played repeatedly; s^τ = (s_1^τ, s_2^τ) is the pure profile actually played at τ.
Three procedures ("procedimientos") are implemented, as in the thesis:

* **C, unconditional regret** (eq. 4.8–4.10; ``algorithm="rm"``): with
  D_i^t(k) = (1/t) Σ_{τ≤t} [u_i(k, s_{−i}^τ) − u_i(s^τ)] and R = [D]⁺, play
  p_{t+1}(k) = R(k)/Σ_{k'} R(k') (uniform when the sum is 0). Universally consistent (Thm 4.6).
* **A, conditional regret with inertia** (eq. 4.1–4.4; ``algorithm="rm_conditional"``): with
  D_i^t(j, k) = (1/t) Σ_{τ≤t: s_i^τ=j} [u_i(k, s_{−i}^τ) − u_i(s^τ)], R = [D]⁺ and j = s_i^t the last
  action, p_{t+1}(k) = R(j, k)/μ for k ≠ j and p_{t+1}(j) = 1 − Σ_{k≠j} p_{t+1}(k). μ must make
  p(j) ≥ 0; this module uses μ_i = 2·max|u_i|·(|S_i| − 1) + 0.001 (the thesis author's code uses the
  same expression for zero-sum games). The empirical joint play converges to the correlated
  equilibria (Thm 4.1).
* **B, invariant probability vector** (eq. 4.5–4.6; ``algorithm="rm_invariant"``): play the
  stationary distribution q of the stochastic matrix with off-diagonal entries R(j, k)/μ, i.e. the
  solution of q(j) Σ_k R(j, k) = Σ_k q(k) R(k, j), Σ q = 1 (Thm 4.3; μ cancels); computed by least
  squares, which returns a non-negative q (the minimum-norm point of the stationary distributions).

All three are sampled play. The output strategies are the empirical frequencies of the actions
played, σ̄_i^T(s_i) = |{t ≤ T : s_i^t = s_i}| / T (eq. 4.12); ``average="mixed"`` averages the
mixed strategies p_t instead (what the thesis author's code does). ``sampled=False`` (procedure C
only) gives the deterministic, full-information regret matching of Farina 2023, Alg. 3.2:
r += u − ⟨u, p⟩1 with u = A p_{−i}, averaging p_t uniformly.

**Stopping rule** (thesis §4.2, "finalizando cada ejecución al obtener un regret máximo menor a
0,005"; the author's code tests the unconditional regret for every procedure): stop as soon as
max_i max_k D_i^t(k) < ``stop_regret`` (0.005 by default; ``None`` runs all iterations).
In a two-player zero-sum game with the empirical average, Σ_i max_k D_i^t(k) *is* the NashConv of
the empirical marginals (the realised payoffs cancel), so the rule guarantees NashConv < 0.01,
the 2ε-equilibrium of Thm 4.7.
"""

from __future__ import annotations

import numpy as np

from lpgame.errors import InvalidGameError, LpgameError
from lpgame.game.normal_form import NormalFormGame
from lpgame.learning.base import Learner
from lpgame.sequence_form import SequenceForm

PROCEDURES = ("A", "B", "C")
RANDOM_BLOCK = 4096


def two_player_matrices(game: NormalFormGame) -> tuple[np.ndarray, np.ndarray]:
    """(U_1, U_2) as float matrices, rows player 1's actions; refuses other than two players."""
    if not isinstance(game, NormalFormGame):
        raise InvalidGameError(
            f"regret matching here runs on normal-form games; got {type(game).__name__} "
            "(use the CFR family for extensive-form games)")
    if game.num_players != 2:
        raise InvalidGameError(f"{game.name}: regret matching needs two players, the game has "
                               f"{game.num_players}")
    return game.payoff_array(0), game.payoff_array(1)


def plan_of_mixed(p: np.ndarray) -> np.ndarray:
    """Realization plan of a mixed strategy in the one-level extensive form: [1, p_1, ..., p_m]."""
    return np.concatenate([[1.0], p])


def invariant_vector(regrets: np.ndarray) -> np.ndarray:
    """q ≥ 0, Σ q = 1 with q(j) Σ_k R(j, k) = Σ_k q(k) R(k, j) (thesis eq. 4.6), R = ``regrets``."""
    m = regrets.shape[0]
    R = regrets.copy()
    np.fill_diagonal(R, 0.0)
    generator = R.T - np.diag(R.sum(axis=1))      # (M − I)ᵀ up to the factor 1/μ
    system = np.vstack([generator, np.ones((1, m))])
    rhs = np.zeros(m + 1)
    rhs[-1] = 1.0
    q = np.linalg.lstsq(system, rhs, rcond=None)[0]
    q = np.clip(q, 0.0, None)
    total = q.sum()
    return q / total if total > 0 else np.full(m, 1.0 / m)


class RegretMatching(Learner):
    """Procedures A, B and C of the thesis (module docstring) for a two-player normal-form game."""

    name = "rm"

    def __init__(self, sf: SequenceForm, rng: np.random.Generator, game: NormalFormGame,
                 procedure: str = "C", sampled: bool = True, average: str = "empirical",
                 stop_regret: float | None = 0.005, mu: tuple[float, float] | None = None):
        super().__init__(sf, rng)
        if procedure not in PROCEDURES:
            raise LpgameError(f"unknown regret-matching procedure {procedure!r}; choose A, B or C")
        if average not in ("empirical", "mixed"):
            raise LpgameError(f"average must be 'empirical' or 'mixed', got {average!r}")
        if not sampled and procedure != "C":
            raise LpgameError("procedures A and B are defined for sampled play only")
        if not sampled and average == "empirical":
            average = "mixed"     # nothing is sampled: the average of the p_t is the only one
        self.U = two_player_matrices(game)
        self.procedure = procedure
        self.sampled = bool(sampled)
        self.average = average
        self.stop_regret = stop_regret
        sizes = self.U[0].shape
        self.sizes = sizes
        if mu is None:
            mu = tuple(2.0 * float(np.abs(self.U[i]).max()) * (sizes[i] - 1) + 0.001
                       for i in range(2))
        self.mu = tuple(float(m) for m in mu)
        # cumulative payoff of every own action against the other's play, and of the actual play
        self.cumulative_payoffs = [np.zeros(s) for s in sizes]
        self.realised = [0.0, 0.0]
        self.conditional = [np.zeros((s, s)) for s in sizes]
        self.mixed = [np.full(s, 1.0 / s) for s in sizes]
        self.sum_mixed = [np.zeros(s) for s in sizes]
        self.counts = [np.zeros(s) for s in sizes]
        self.last = [None, None]
        self.t = 0
        self._randoms = np.empty(0)
        self._next_random = 0

    # ------------------------------------------------------------------ sampling
    def _uniform(self) -> float:
        if self._next_random >= len(self._randoms):
            self._randoms = self.rng.random(RANDOM_BLOCK)
            self._next_random = 0
        u = self._randoms[self._next_random]
        self._next_random += 1
        return float(u)

    def _draw(self, p: np.ndarray) -> int:
        cumulative = np.cumsum(p)
        k = int(np.searchsorted(cumulative, self._uniform() * cumulative[-1], side="right"))
        return min(k, len(p) - 1)

    # ------------------------------------------------------------------ strategies
    def _next_mixed(self, i: int) -> np.ndarray:
        m = self.sizes[i]
        if self.t == 0:
            return np.full(m, 1.0 / m)
        if self.procedure == "C":
            positive = np.maximum(self.cumulative_payoffs[i] - self.realised[i], 0.0)
            total = positive.sum()
            return positive / total if total > 0 else np.full(m, 1.0 / m)
        R = np.maximum(self.conditional[i], 0.0) / self.t
        if self.procedure == "A":
            j = self.last[i]
            p = R[j] / self.mu[i]
            p[j] = 0.0
            p[j] = 1.0 - p.sum()
            return p
        return invariant_vector(R)

    def _payoff_vectors(self, actions_or_mixed) -> tuple[np.ndarray, np.ndarray]:
        """u_1(·, s_2) and u_2(s_1, ·): each player's payoff of every own action."""
        A, B = self.U
        if self.sampled:
            i, j = actions_or_mixed
            return A[:, j], B[i, :]
        p1, p2 = actions_or_mixed
        return A @ p2, p1 @ B

    # ------------------------------------------------------------------ loop
    def iterate(self, t: int) -> None:
        p = [self._next_mixed(0), self._next_mixed(1)]
        self.mixed = p
        if self.sampled:
            s = (self._draw(p[0]), self._draw(p[1]))
            u = self._payoff_vectors(s)
            realised = [u[0][s[0]], u[1][s[1]]]
            for i in range(2):
                self.counts[i][s[i]] += 1.0
                if self.procedure != "C":
                    row = self.conditional[i][s[i]]
                    row += u[i] - realised[i]
                self.last[i] = s[i]
        else:
            u = self._payoff_vectors(p)
            realised = [float(p[0] @ u[0]), float(p[1] @ u[1])]
        for i in range(2):
            self.cumulative_payoffs[i] += u[i]
            self.realised[i] += realised[i]
            self.sum_mixed[i] += p[i]
        self.t = t

    def max_regrets(self) -> list[float]:
        """max_k D_i^t(k) per player (the unconditional average regret, unclipped)."""
        return [float((self.cumulative_payoffs[i] - self.realised[i]).max()) / max(self.t, 1)
                for i in range(2)]

    def should_stop(self) -> bool:
        if self.stop_regret is None or self.t == 0:
            return False
        return max(max(r, 0.0) for r in self.max_regrets()) < self.stop_regret

    def average_mixed(self) -> list[np.ndarray]:
        source = self.counts if self.average == "empirical" else self.sum_mixed
        return [s / s.sum() if s.sum() > 0 else np.full(len(s), 1.0 / len(s)) for s in source]

    def average_plans(self) -> list[np.ndarray]:
        return [plan_of_mixed(p) for p in self.average_mixed()]

    def extra(self) -> dict:
        return {"procedure": self.procedure, "max_regret": self.max_regrets(),
                "stop_regret": self.stop_regret, "stopped_by_rule": self.should_stop(),
                "average": self.average}
