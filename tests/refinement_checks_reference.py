"""Reference for ``tests/test_refinement_checks_exact.py``: the refinement checks of
:mod:`lpgame.analysis.refinement_checks` as first written, in Python ``Fraction`` arithmetic on
lists of coefficients (every series product written out term by term, every sum entry by entry).

The module in ``lpgame`` now runs the same checks on integer numerators over one common
denominator with python-flint's polynomials; this slower, literal version is kept here only so that
the tests can show that both give the same pass/fail, the same failures in the same order and the
same witness problems. The checks themselves (lexicographic optimality for QPE after van Damme 1984
and Farina 2023 Defs. 13.3–13.5; ε-perfect optimality for EFPE after Selten 1975) are described in
the lpgame module's docstring.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from lpgame.analysis.refinement_checks import RefinementCheck
from lpgame.sequence_form import SequenceForm

Series = list[list[Fraction]]
"""A vector-valued power series: ``series[n][k]`` is the coefficient of ε^n of entry k."""


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
