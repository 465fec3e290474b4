"""Payoffs of a two-player private-signal game kept as deals × public leaves, never as product leaves.

In a private-signal game (:mod:`lpgame.game.private_signals`) a leaf of the full tree is a pair
(deal d, public leaf ℓ). Deal d gives player i the signal t_i(d) with probability p(d); public leaf
ℓ ends player i's public play with the public sequence π_i(ℓ) (0 = ∅). Player i's sequence for
signal t and public sequence π ≥ 1 is ``1 + t·S_i + π − 1`` and π = 0 is the empty sequence, so
the payoff matrix of player k is

    U_k[σ_1, σ_2] = Σ_{d, ℓ : (t_1(d), π_1(ℓ)) = σ_1, (t_2(d), π_2(ℓ)) = σ_2}  p(d) u_k(d, ℓ)

(Koller, Megiddo & von Stengel 1996; notes/farina-thesis.md §1.4). Write a realization plan x_i as
a table X_i[t, π] (signals × public sequences, with X_i[t, 0] = x_i[∅]). The best-response products
of :mod:`lpgame.analysis.best_response` then factor through the public tree:

    g_r[t_r, π] = Σ_{ℓ : π_r(ℓ) = π}  Σ_{d : t_r(d) = t_r}  p(d) u_k(d, ℓ) X_o[t_o(d), π_o(ℓ)],

one gather of the opponent's table by public leaf, one elementwise product with the D × L payoff
table and one sum over deals by the responder's signal, a block of public leaves at a time. Only
the D × L table of p(d)·u_k(d, ℓ) is stored (one table when the game is zero-sum, u_2 = −u_1), which is what
Dudo(5,2,2) needs: 225 deals × 2^20 public leaves is 1.9 GB, where its 236 million product leaves,
with their sequence indices, need about 15 GB before any payoff matrix is built.

:meth:`SignalPayoffs.payoff_submatrix` builds U_1 on given sets of sequences only (the restricted
games of :mod:`lpgame.equilibria.zero_sum.double_oracle`), visiting only the public leaves where both
players keep a sequence.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

BLOCK_ENTRIES = 1 << 22
"""Deals × public leaves handled at a time by the products (bounds their transient memory)."""


@dataclass
class SignalPayoffs:
    """The payoff table of a two-player private-signal game (see module docstring).

    ``deal_signals[d] = (t_1, t_2)``; ``leaf_sequences[ℓ] = (π_1, π_2)`` (0 = ∅); ``weighted[k]``
    is the D × L table of p(d)·u_k(d, ℓ), with one table (``weighted.shape[0] == 1``) when the game
    is zero-sum and u_2 = −u_1; ``num_signals[i]`` and ``num_public_sequences[i]`` (S_i, excluding
    ∅) fix the sequence numbering; ``payoff_extremes`` and ``total_extremes`` are the smallest and
    largest u_k and u_1 + u_2 over all (d, ℓ). When the deals are every pair of signals once, in
    the order (t_1, t_2) = (0, 0), (0, 1), …, the table is read as R_1 × R_2 × L and each product
    is one contraction over the opponent's signal (``grid``).
    """

    deal_signals: np.ndarray        # (D, 2) int
    leaf_sequences: np.ndarray      # (L, 2) int
    weighted: np.ndarray            # (1 or 2, D, L) float
    num_signals: tuple[int, int]
    num_public_sequences: tuple[int, int]
    payoff_extremes: tuple[float, float]
    total_extremes: tuple[float, float]

    def __post_init__(self):
        m1, m2 = self.num_signals
        grid = np.stack(np.meshgrid(np.arange(m1), np.arange(m2), indexing="ij"), -1).reshape(-1, 2)
        self.grid = bool(self.deal_signals.shape == grid.shape
                         and np.array_equal(self.deal_signals, grid))

    @property
    def num_deals(self) -> int:
        return len(self.deal_signals)

    @property
    def num_leaves(self) -> int:
        return len(self.leaf_sequences)

    @property
    def zero_sum(self) -> bool:
        return self.weighted.shape[0] == 1

    def weighted_table(self, payoff_of: int, leaves=slice(None)) -> tuple[np.ndarray, float]:
        """(T, s): p(d)·u_k(d, ℓ) = s·T[d, ℓ] on the public leaves ``leaves`` (T a view for
        slices; s = −1 for player 2 of a zero-sum table)."""
        if self.zero_sum:
            return self.weighted[0][:, leaves], (-1.0 if payoff_of == 1 else 1.0)
        return self.weighted[payoff_of][:, leaves], 1.0

    def _block(self) -> int:
        return max(1, BLOCK_ENTRIES // max(1, self.num_deals))

    # ------------------------------------------------------------------ sequences as tables
    def plan_table(self, player: int, plan: np.ndarray) -> np.ndarray:
        """X_i[t, π]: the plan as signals × (1 + S_i), column 0 holding x_i[∅] for every signal."""
        plan = np.asarray(plan, dtype=float)
        m, S = self.num_signals[player], self.num_public_sequences[player]
        table = np.empty((m, S + 1))
        table[:, 0] = plan[0]
        table[:, 1:] = plan[1:].reshape(m, S)
        return table

    def sequence_index(self, player: int, signals: np.ndarray, public: np.ndarray) -> np.ndarray:
        """Index of the player's sequence (signal, public sequence); public sequence 0 is ∅ (0)."""
        return np.where(public == 0, 0, 1 + signals * self.num_public_sequences[player] + public - 1)

    # ------------------------------------------------------------------ products
    def sequence_payoffs(self, responder: int, plans: list[np.ndarray], payoff_of: int,
                         sign: float = 1.0) -> np.ndarray:
        """g_r[σ]: ``sign`` × ``payoff_of``'s payoff per sequence of ``responder`` against the
        other player's plan (module docstring; :func:`lpgame.analysis.best_response.sequence_payoffs`)."""
        other = 1 - responder
        opponent = self.plan_table(other, plans[other])
        m, S = self.num_signals[responder], self.num_public_sequences[responder]
        m1, m2 = self.num_signals
        own_signal = self.deal_signals[:, responder]
        other_signal = self.deal_signals[:, other]
        contraction = "abl,bl->al" if responder == 0 else "abl,al->bl"
        by_signal = None
        if not self.grid:      # sums over deals by the responder's signal: one (m × D) product
            by_signal = np.zeros((m, self.num_deals))
            by_signal[own_signal, np.arange(self.num_deals)] = 1.0
        per_leaf = np.empty((m, self.num_leaves))        # responder's signal × public leaf
        step = self._block()
        for lo in range(0, self.num_leaves, step):
            leaves = slice(lo, lo + step)
            weights, factor = self.weighted_table(payoff_of, leaves)
            reach = opponent[:, self.leaf_sequences[leaves, other]]                 # m_o × B
            if self.grid:        # Σ over the opponent's signal of W[t_1, t_2, ℓ]·reach[t_o, ℓ]
                summed = np.einsum(contraction, weights.reshape(m1, m2, -1), reach)
            else:
                summed = by_signal @ (reach[other_signal] * weights)
            per_leaf[:, leaves] = summed if sign * factor == 1.0 else (sign * factor) * summed
        # one scatter of the leaves onto the responder's public sequences, for every signal
        columns = np.arange(m)[:, None] * (S + 1) + self.leaf_sequences[:, responder][None, :]
        table = np.bincount(columns.ravel(), weights=per_leaf.ravel(),
                            minlength=m * (S + 1)).reshape(m, S + 1)
        g = np.empty(1 + m * S)
        g[0] = table[:, 0].sum()
        g[1:] = table[:, 1:].ravel()
        return g

    def expected_payoffs(self, plans: list[np.ndarray]) -> np.ndarray:
        """u_i(x_1, x_2) for both players."""
        x = np.asarray(plans[0], dtype=float)
        return np.array([float(self.sequence_payoffs(0, plans, payoff_of=k) @ x) for k in range(2)])

    def payoff_submatrix(self, payoff_of: int, kept: list[np.ndarray] | None = None) -> sp.csr_array:
        """U_k restricted to the sorted sequence sets ``kept[0]`` × ``kept[1]`` (all when None),
        as CSR; only public leaves where both players keep a sequence of some signal are read."""
        if kept is None:
            kept = [np.arange(1 + self.num_signals[i] * self.num_public_sequences[i])
                    for i in range(2)]
        masks = []
        for i in range(2):
            mask = np.zeros(1 + self.num_signals[i] * self.num_public_sequences[i], dtype=bool)
            mask[kept[i]] = True
            masks.append(self.plan_table(i, mask).astype(bool))
        public = self.leaf_sequences
        candidates = np.flatnonzero(masks[0].any(axis=0)[public[:, 0]]
                                    & masks[1].any(axis=0)[public[:, 1]])
        signals = self.deal_signals
        rows, cols, vals = [], [], []
        step = self._block()
        for lo in range(0, len(candidates), step):
            leaves = candidates[lo:lo + step]
            both = (masks[0][:, public[leaves, 0]][signals[:, 0]]
                    & masks[1][:, public[leaves, 1]][signals[:, 1]])            # D × B
            deal, at = np.nonzero(both)
            leaf = leaves[at]
            rows.append(self.sequence_index(0, signals[deal, 0], public[leaf, 0]))
            cols.append(self.sequence_index(1, signals[deal, 1], public[leaf, 1]))
            weights, factor = self.weighted_table(payoff_of, leaves)
            vals.append(factor * weights[deal, at])
        rows = np.searchsorted(kept[0], np.concatenate(rows)) if rows else np.zeros(0, int)
        cols = np.searchsorted(kept[1], np.concatenate(cols)) if cols else np.zeros(0, int)
        vals = np.concatenate(vals) if vals else np.zeros(0)
        return sp.csr_array((vals, (rows, cols)), shape=(len(kept[0]), len(kept[1])))

    # ------------------------------------------------------------------ summaries
    def payoff_bounds(self) -> tuple[float, float]:
        """Smallest and largest payoff over both players, deals and public leaves."""
        return self.payoff_extremes

    def payoff_total_bounds(self) -> tuple[float, float]:
        """Smallest and largest u_1 + u_2 (exactly 0 for a zero-sum table)."""
        return self.total_extremes


__all__ = ["SignalPayoffs", "BLOCK_ENTRIES"]
