"""Showdown payoffs of two-player private-signal games, as an operator linear in the number of signals.

In One-Card Poker, Kuhn poker and every game where two players hold one ranked private signal each
and the payoff at a public leaf ℓ depends only on whether player 1's signal is higher, lower or equal
(a fold ignores the signals: the three cases pay the same), the payoff matrix restricted to the
sequences (·, σ_1(ℓ)) × (·, σ_2(ℓ)) is

    W_ℓ[s_1, s_2] = p · ( h_ℓ·[s_1 > s_2] + l_ℓ·[s_1 < s_2] + e_ℓ·[s_1 = s_2] ),

with p the probability of each deal (deals are uniform over ordered pairs of signals, either all
pairs or distinct ones; for distinct deals the equal case has probability 0). A dense W_ℓ has N²
entries; its products with a vector need only the cumulative sums of that vector:

    Σ_{s_2 < s_1} y[s_2] = cumsum(y)[s_1] − y[s_1],     Σ_{s_2 > s_1} y[s_2] = Σ y − cumsum(y)[s_1].

This is the "sparsification" of structured payoff matrices, U = Û + S K⁻¹ Vᵀ with few nonzeros,
of Farina (2023, §13.2.4, eq. (13.6); Farina & Sandholm, AAAI 2022), specialised to comparisons:
K is the bidiagonal cumulative-sum operator. :class:`ShowdownPayoffs` provides the products
(for best responses, in O(N) per leaf) and the data for the compressed LP of
:mod:`lpgame.equilibria.zero_sum.security`, whose auxiliary variables C[s] = Σ_{s' ≤ s} x[s'] keep the LP's
nonzeros linear in N.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

CASES = ("first_higher", "first_lower", "equal")


@dataclass
class ShowdownPayoffs:
    """Payoffs of a two-player private-signal game by signal comparison (see module docstring).

    ``leaf_sequences[ℓ] = (σ_1, σ_2)`` are the players' last *public* sequences (0 = ∅) before
    public leaf ℓ; ``payoffs[ℓ, case, player]`` the payoff in each comparison case; ``num_signals``
    N (both players); ``num_public_sequences[i]`` S_i (excluding ∅), so that player i's sequence for
    signal s and public sequence σ ≥ 1 is ``1 + s·S_i + σ − 1`` (as in
    :mod:`lpgame.game.private_signals`); ``distinct`` tells whether deals exclude equal signals.
    """

    leaf_sequences: np.ndarray      # (L, 2) int
    payoffs: np.ndarray             # (L, 3, 2) object or float: per leaf, case, player
    num_signals: int
    num_public_sequences: tuple[int, int]
    distinct: bool

    @property
    def num_deals(self) -> int:
        n = self.num_signals
        return n * (n - 1) if self.distinct else n * n

    @property
    def deal_probability(self) -> Fraction:
        return Fraction(1, self.num_deals)

    def payoff_floats(self) -> np.ndarray:
        return np.asarray(self.payoffs, dtype=float)

    def sequence_block(self, player: int, public_sequence: int) -> np.ndarray:
        """Indices of player ``player``'s sequences (s, σ) for s = 0..N−1 (σ ≥ 1)."""
        return 1 + np.arange(self.num_signals) * self.num_public_sequences[player] + public_sequence - 1

    def coefficients(self, leaf: int, responder: int, payoff_of: int) -> tuple[float, float, float]:
        """Payoff of ``payoff_of`` when the responder's signal is higher, lower, equal."""
        u = self.payoff_floats()[leaf, :, payoff_of]
        if responder == 0:
            return u[0], u[1], u[2]
        return u[1], u[0], u[2]

    def count_below(self) -> np.ndarray:
        """#{s_o : s_o < s} for each s (same for distinct and independent deals)."""
        return np.arange(self.num_signals, dtype=float)

    def responder_payoffs(self, leaf: int, responder: int, payoff_of: int,
                          opponent_block: np.ndarray) -> np.ndarray:
        """Σ_{s_o} W[s_r, s_o] y[s_o] for every responder signal s_r (O(N) by cumulative sums)."""
        high, low, equal = self.coefficients(leaf, responder, payoff_of)
        y = np.broadcast_to(np.asarray(opponent_block, dtype=float), (self.num_signals,))
        inclusive = np.cumsum(y)
        below = inclusive - y
        above = inclusive[-1] - inclusive
        out = high * below + low * above
        if not self.distinct:
            out = out + equal * y
        return out / self.num_deals

    def sequence_payoffs(self, responder: int, plans: list[np.ndarray], payoff_of: int,
                         sign: float = 1.0) -> np.ndarray:
        """g_r[σ] = Σ over leaves of the responder's payoff per own sequence (cf. best_response)."""
        opponent = 1 - responder
        y = np.asarray(plans[opponent], dtype=float)
        g = np.zeros(1 + self.num_signals * self.num_public_sequences[responder])
        for leaf, (s0, s1) in enumerate(self.leaf_sequences.tolist()):
            own, other = (s0, s1) if responder == 0 else (s1, s0)
            block = y[self.sequence_block(opponent, other)] if other else y[0]
            contrib = sign * self.responder_payoffs(leaf, responder, payoff_of, block)
            if own:
                g[self.sequence_block(responder, own)] += contrib
            else:
                g[0] += contrib.sum()
        return g

    def expected_payoffs(self, plans: list[np.ndarray]) -> np.ndarray:
        """u_i(x_1, x_2) for both players."""
        x = np.asarray(plans[0], dtype=float)
        out = np.zeros(2)
        for k in range(2):
            g = self.sequence_payoffs(0, plans, payoff_of=k)
            out[k] = float(g @ x)
        return out

    def payoff_totals(self) -> np.ndarray:
        """u_1 + u_2 at every leaf and case (for the constant-sum test)."""
        return self.payoff_floats().sum(axis=2)

    def payoff_bounds(self) -> tuple[float, float]:
        """Smallest and largest payoff over leaves, cases and players."""
        u = self.payoff_floats()
        return float(u.min()), float(u.max())

    def payoff_total_bounds(self) -> tuple[float, float]:
        """Smallest and largest u_1 + u_2 over leaves and cases."""
        totals = self.payoff_totals()
        return float(totals.min()), float(totals.max())
