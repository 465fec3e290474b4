"""Independent checks of trembling-hand refinements, on the tree, in exact rational arithmetic.

The refinement solvers (:mod:`lpgame.equilibria.refinements.refined_equilibrium`) return a limit profile and,
as a witness, each player's perturbed strategy as a power series in ε (exact polynomials for QPE and
one-sided QPE, truncated Taylor series for EFPE). These checks read only the game's leaves (chance,
payoffs, the players' last sequences), the limit behaviour and the witness; they never read the LP.

**Lexicographic (quasi-perfect) optimality** (van Damme 1984; Farina 2023, Defs. 13.3–13.5,
L5416–5428): player i's limit strategy is quasi-perfect against the opponent's perturbed strategy
y(ε) when, at every information set j of player i, every action played with positive limit
probability is optimal for all small ε > 0, the player assuming optimal play of its own afterwards.
With the sequence payoffs g[σ](ε) = Σ_{z: σ_i(z) = σ} p_c(z) u_i(z) y(ε)[σ_{−i}(z)] (a power series)
the best continuation values are computed bottom-up as in the best-response recursion
(:mod:`lpgame.analysis.best_response`),

    T[ja](ε) = g[ja](ε) + Σ_{j': p_{j'} = ja} max_{a'} T[j'a'](ε),

with the maximum taken in the lexicographic order of the coefficients (the order of power series as
ε → 0⁺). The check: b[ja] > 0 ⇒ T[ja] equals the lexicographic maximum at j. T[ja] is the sum over
the nodes of j of their opponent-and-chance reach times the continuation value, so comparing it
across the actions of j compares the I-local purifications of Def. 13.3.

**Perfect (EFPE) optimality** (Selten 1975; Def. 12.1): in an ε-perfect equilibrium every action
that gets more than the minimum probability ε is a best response given everybody's perturbed play,
the player's own later play included. With the player's own perturbed plan x(ε) the continuation
values weighted by the player's own reach are sums, S[σ] = g[σ]·x[σ] + Σ_{j': p_{j'} = σ} Σ_{a'} S[j'a'],
and the value of ja is S[ja]/x[ja]; actions a, a' of j compare by the sign of
S[ja]·x[ja'] − S[ja']·x[ja] (x > 0). The check: b[ja] > 0 ⇒ ja is lexicographically best, to the
order of the truncated series (stated in the result).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from lpgame.sequence_form import SequenceForm

Series = list[list[Fraction]]
"""A vector-valued power series: ``series[n][k]`` is the coefficient of ε^n of entry k."""


@dataclass
class RefinementCheck:
    """Outcome of one check: whether it passed, where it failed, what was checked."""

    player: int
    property: str
    passed: bool
    infosets_checked: int
    order: int                       # series terms compared (exact when the series are polynomials)
    failures: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"player": self.player + 1, "property": self.property, "passed": self.passed,
                "infosets_checked": self.infosets_checked, "order": self.order,
                "failures": self.failures[:10]}


def sequence_payoff_series(sf: SequenceForm, player: int, opponent_series: Series) -> Series:
    """g[σ](ε) for every sequence σ of ``player`` and every power of the opponent's series."""
    chance, payoffs = sf.exact_terminal_data()
    seqs = sf.terminal_sequences
    own, opp = seqs[:, player], seqs[:, 1 - player]
    weight = np.array([c * u[player] for c, u in zip(chance, payoffs)], dtype=object)
    out = []
    for coefficients in opponent_series:
        y = np.array(coefficients, dtype=object)
        g = np.array([Fraction(0)] * sf.num_sequences(player), dtype=object)
        np.add.at(g, own, weight * y[opp])
        out.append(g.tolist())
    return out


def _at(series: Series, k: int) -> tuple[Fraction, ...]:
    return tuple(s[k] for s in series)


def _add(a: tuple, b: tuple) -> tuple:
    return tuple(x + y for x, y in zip(a, b))


def _mul(a: tuple, b: tuple) -> tuple:
    """Product of two truncated series (the same number of terms)."""
    n = len(a)
    return tuple(sum((a[i] * b[t - i] for i in range(t + 1)), Fraction(0)) for t in range(n))


def _pad(series: Series, terms: int, size: int) -> Series:
    return [series[n] if n < len(series) else [Fraction(0)] * size for n in range(terms)]


def quasi_perfect_check(sf: SequenceForm, player: int, behaviour: list[Fraction],
                        opponent_series: Series, reached_only: list[bool] | None = None,
                        against: str = "the opponent's perturbed strategy") -> RefinementCheck:
    """Lexicographic optimality of ``player``'s limit ``behaviour`` against the opponent's perturbed
    strategy, own later play optimal (module docstring). ``reached_only``: check only the
    information sets marked True; ``against`` names the opponent's strategy in the report."""
    g = sequence_payoff_series(sf, player, opponent_series)
    p = sf.players[player]
    terms = len(g)
    total = [_at(g, s) for s in range(p.num_sequences)]
    failures: list[str] = []
    checked = 0
    for js, seqs, starts in sf.infoset_levels(player):
        ends = list(starts[1:]) + [len(seqs)]
        for j, a, b in zip(js.tolist(), starts.tolist(), ends):
            actions = seqs[a:b].tolist()
            best = max(total[s] for s in actions)
            if reached_only is None or reached_only[j]:
                checked += 1
                for s in actions:
                    if behaviour[s] > 0 and total[s] != best:
                        failures.append(f"{p.infoset_labels[j]}: {p.sequence_label(s)} has limit "
                                        f"probability {behaviour[s]} but is not lexicographically "
                                        "optimal against the perturbed opponent")
            parent = int(p.infoset_parent_seq[j])
            total[parent] = _add(total[parent], best)
    where = "" if reached_only is None else " (at the information sets its own strategy reaches)"
    return RefinementCheck(player, "quasi-perfect: every played action is lexicographically optimal"
                           f" against {against}, own later play optimal{where}",
                           not failures, checked, terms, failures)


def perfect_check(sf: SequenceForm, player: int, behaviour: list[Fraction], own_series: Series,
                  opponent_series: Series) -> RefinementCheck:
    """Perfect (EFPE) optimality of ``player``'s limit ``behaviour`` given both players' perturbed
    plans (module docstring)."""
    terms = min(len(own_series), len(opponent_series))
    p = sf.players[player]
    g = sequence_payoff_series(sf, player, opponent_series[:terms])
    x = [_at(own_series[:terms], s) for s in range(p.num_sequences)]
    S = [_mul(_at(g, s), x[s]) for s in range(p.num_sequences)]
    failures: list[str] = []
    checked = 0
    for js, seqs, starts in sf.infoset_levels(player):
        ends = list(starts[1:]) + [len(seqs)]
        for j, a, b in zip(js.tolist(), starts.tolist(), ends):
            actions = seqs[a:b].tolist()
            checked += 1
            for s in actions:
                if behaviour[s] <= 0:
                    continue
                for t in actions:
                    # value(t) > value(s)  ⇔  S[t]·x[s] − S[s]·x[t] > 0 lexicographically
                    diff = tuple(u - w for u, w in zip(_mul(S[t], x[s]), _mul(S[s], x[t])))
                    if diff > (Fraction(0),) * terms:
                        failures.append(f"{p.infoset_labels[j]}: {p.sequence_label(s)} has limit "
                                        f"probability {behaviour[s]} but {p.sequence_label(t)} is "
                                        "better against the perturbed play")
                        break
            parent = int(p.infoset_parent_seq[j])
            for s in actions:
                S[parent] = _add(S[parent], S[s])
    return RefinementCheck(player, "perfect: every played action is optimal to order "
                           f"ε^{terms - 1} given both players' perturbed strategies",
                           not failures, checked, terms, failures)


def witness_check(sf: SequenceForm, player: int, series: Series, lower: Series | None) -> list[str]:
    """Problems with a perturbed plan: F x(ε) = f coefficient by coefficient, and x(ε) ≥ the lower
    bounds (``lower``, a series) lexicographically, or x(ε) ≥ 0 without them."""
    F = sf.treeplex_matrix(player)
    problems = []
    for n, coefficients in enumerate(series):
        target = sf.treeplex_rhs(player) if n == 0 else np.zeros(F.shape[0])
        residual = _exact_rows(F, coefficients)
        bad = [r for r, v in enumerate(residual) if v != Fraction(target[r])]
        if bad:
            problems.append(f"treeplex row {bad[0]} fails at ε^{n}")
    terms = len(series)
    size = sf.num_sequences(player)
    bound = _pad(lower, terms, size) if lower is not None else _pad([], terms, size)
    for s in range(size):
        gap = tuple(series[n][s] - bound[n][s] for n in range(terms))
        if gap < (Fraction(0),) * terms:
            problems.append(f"{sf.players[player].sequence_label(s)} is below its lower bound")
    return problems


def _exact_rows(treeplex, coefficients: list[Fraction]) -> list[Fraction]:
    coo = treeplex.tocoo()
    out = [Fraction(0)] * treeplex.shape[0]
    for r, c, v in zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist()):
        out[r] += int(v) * coefficients[c]
    return out
