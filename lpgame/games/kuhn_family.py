"""Kuhn poker's equilibrium family and Hoehn's parametrised strategies, in lpgame's labels.

Labels are those of :func:`lpgame.games.poker.kuhn_poker` (two players, J < Q < K): player 1 has
``"J"``, ``"Q"``, ``"K"`` (first move: check or bet) and ``"J check bet"`` … (facing a bet after
checking: fold or call); player 2 has ``"J check"`` … (after a check: check or bet) and ``"J bet"`` …
(facing a bet: fold or call).

**Hoehn's parameters** (Hoehn 2006, §2.4; notes/gameshrink-and-hoehn.md §B.2, with the List-of-Symbols
convention that the tables use): with dominated choices removed (never call with J, always call
with K, P2 checks Q after a check, P1 never bets Q first),

* player 1: α = P(bet J first) (bluff), β = P(call with Q after check–bet), γ = P(bet K first);
* player 2: η = P(call with Q facing a bet), ξ = P(bet J after a check) (bluff); P2 always bets and
  calls with K.

Expected value for player 1 (Hoehn eq. 2.1): (1/6)[η(−3α + γ) + ξ(−1 + 3β − γ) + α − β].

**Kuhn's equilibria** (Kuhn 1950; Hoehn B:468; Rojas Linárez 2020, Tabla 2.5): player 1 plays
(α, β, γ) = (α, α + 1/3, 3α) for α ∈ [0, 1/3]; player 2's equilibrium is unique, (η, ξ) = (1/3, 1/3);
the value is −1/18 for player 1.

Hoehn's pure strategies S_k = (α, β, γ) with k = 4α + 2β + γ in binary (B:479–488), his test
opponents (B:968, at the exact fractions that reproduce his Table 4.1, notes §B.6) and his
exploratory strategies (B:949–951) are given as data. Probabilities stay exact
(:class:`fractions.Fraction`) when the parameters are ints or Fractions.
"""

from __future__ import annotations

from fractions import Fraction

from lpgame.errors import StrategyError

CARDS = ("J", "Q", "K")

# (η, ξ) of player 2, Hoehn B:968; the printed decimals are rounded, these fractions reproduce Table 4.1
HOEHN_P2_TEST_OPPONENTS = {
    "O1": (Fraction(4, 5), Fraction(2, 7)),
    "O2": (Fraction(3, 4), Fraction(4, 5)),
    "O3": (Fraction(2, 3), Fraction(2, 5)),
    "O4": (Fraction(1, 6), Fraction(1, 5)),
    "O5": (Fraction(1, 4), Fraction(1, 6)),
    "O6": (Fraction(1, 4), Fraction(2, 3)),
}
# (α, β, γ) of player 1, Hoehn B:1398–1412 (P2 modelling P1)
HOEHN_P1_TEST_OPPONENTS = {
    "O'1": (Fraction(1, 5), Fraction(1, 2), Fraction(9, 10)),
    "O'2": (Fraction(3, 25), Fraction(13, 20), Fraction(3, 5)),
    "O'3": (Fraction(1, 4), Fraction(7, 20), Fraction(3, 10)),
    "O'4": (Fraction(7, 20), Fraction(13, 20), Fraction(7, 10)),
}
# Hoehn's data-collection strategies for player 1 (B:949–951)
HOEHN_EXPLORATORY = {
    "ExploreEta": (1, 1, 1),
    "ExploreXi": (1, 1, 0),
    "BalancedExplore": (1, 1, Fraction(1, 2)),
}


def _probability(name: str, value):
    if not 0 <= value <= 1:
        raise StrategyError(f"Kuhn parameter {name} = {value} is not a probability")
    return Fraction(value) if isinstance(value, int) else value


def _row(p_second, first: str, second: str) -> dict:
    return {first: 1 - p_second, second: p_second}


def kuhn_p1_strategy(alpha, beta, gamma) -> dict:
    """Player 1's strategy with Hoehn's parameters (bluff J α, call Q β, bet K γ)."""
    alpha, beta, gamma = (_probability(n, v) for n, v in
                          (("α", alpha), ("β", beta), ("γ", gamma)))
    zero, one = alpha * 0, alpha * 0 + 1
    return {
        "J": _row(alpha, "check", "bet"),
        "J check bet": _row(zero, "fold", "call"),
        "Q": _row(zero, "check", "bet"),
        "Q check bet": _row(beta, "fold", "call"),
        "K": _row(gamma, "check", "bet"),
        "K check bet": _row(one, "fold", "call"),
    }


def kuhn_p2_strategy(eta, xi) -> dict:
    """Player 2's strategy with Hoehn's parameters (call Q η, bluff J ξ)."""
    eta, xi = _probability("η", eta), _probability("ξ", xi)
    zero, one = eta * 0, eta * 0 + 1
    return {
        "Q check": _row(zero, "check", "bet"),
        "Q bet": _row(eta, "fold", "call"),
        "K check": _row(one, "check", "bet"),
        "K bet": _row(one, "fold", "call"),
        "J check": _row(xi, "check", "bet"),
        "J bet": _row(zero, "fold", "call"),
    }


def kuhn_equilibrium(alpha=0) -> list[dict]:
    """Kuhn's equilibrium with bluff frequency α ∈ [0, 1/3]: player 1 (α, α + 1/3, 3α), player 2
    (1/3, 1/3) (module docstring). Exact when α is an int or a Fraction."""
    if not 0 <= alpha <= Fraction(1, 3):
        raise StrategyError(f"Kuhn's equilibria have α in [0, 1/3]; got α = {alpha}")
    alpha = Fraction(alpha) if isinstance(alpha, int) else alpha
    third = Fraction(1, 3) if isinstance(alpha, Fraction) else 1.0 / 3.0
    return [kuhn_p1_strategy(alpha, alpha + third, 3 * alpha), kuhn_p2_strategy(third, third)]


def hoehn_pure_strategy(k: int) -> dict:
    """Hoehn's pure strategy S_k of player 1: (α, β, γ) = the bits of k (k = 4α + 2β + γ)."""
    if not 0 <= k <= 7:
        raise StrategyError(f"Hoehn's pure strategies are S0..S7; got S{k}")
    return kuhn_p1_strategy((k >> 2) & 1, (k >> 1) & 1, k & 1)


def hoehn_expected_value(alpha, beta, gamma, eta, xi):
    """Hoehn's closed form (eq. 2.1) of player 1's expected value, for cross-checks."""
    return (eta * (-3 * alpha + gamma) + xi * (-1 + 3 * beta - gamma) + alpha - beta) / 6


__all__ = ["kuhn_p1_strategy", "kuhn_p2_strategy", "kuhn_equilibrium", "hoehn_pure_strategy",
           "hoehn_expected_value", "HOEHN_P2_TEST_OPPONENTS", "HOEHN_P1_TEST_OPPONENTS",
           "HOEHN_EXPLORATORY"]
