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

**Arithmetic.** Every comparison above is a sign (of a coefficient of a difference of series,
the lowest nonzero one), every combination is a sum or a product, and both survive multiplying a
whole series by a positive constant. So each perturbed strategy is read once as integer
numerators over one common denominator D (the lcm of its coefficients' denominators), the
leaves' chance times payoff as integers over C·U (:meth:`SequenceForm.exact_terminal_scaled`),
and the checks run on those integers: S, g and x above are D_y·C·U·g, D_x·x, … with the same signs
and equalities as the rationals. Truncated products are python-flint's ``fmpz_poly.mul_low``
(FLINT's exact integer polynomials in C); the results equal those of the Fraction arithmetic
term by term (``tests/test_refinement_checks_exact.py`` compares them with the earlier, Fraction
implementation).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from lpgame.sequence_form import SequenceForm

if TYPE_CHECKING:
    import flint

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


def _ratios(series: Series, terms: int) -> list[list[tuple[int, int]]]:
    """The first ``terms`` terms of ``series`` as (numerator, denominator) pairs, read once."""
    return [[(c.numerator, c.denominator) for c in term] for term in series[:terms]]


def _denominator(*ratios: list[list[tuple[int, int]]]) -> int:
    """The lcm of the denominators of every coefficient (1 when there are none)."""
    dens = {d for r in ratios for term in r for _, d in term}
    return math.lcm(*dens) if dens else 1


def _integer_series(ratios: list[list[tuple[int, int]]], terms: int, size: int,
                    den: int) -> np.ndarray:
    """``den``·series (given by :func:`_ratios`) as a (size × terms) object array of Python
    integers; missing terms are 0."""
    out = np.zeros((size, terms), dtype=object)
    factor: dict[int, int] = {}
    for n, term in enumerate(ratios[:terms]):
        column = [0] * size
        for k, (a, d) in enumerate(term):
            if a:
                f = factor.get(d)
                if f is None:
                    f = factor[d] = den // d
                column[k] = a * f
        out[:, n] = column
    return out


def _read(series: Series, terms: int, size: int) -> np.ndarray:
    """One series, scaled by the lcm of its denominators, as :func:`_integer_series`."""
    ratios = _ratios(series, terms)
    return _integer_series(ratios, terms, size, _denominator(ratios))


def _payoff_numerators(sf: SequenceForm, player: int, opponent: np.ndarray) -> np.ndarray:
    """C·U·g for the opponent's integer series ``opponent`` (sequences × terms): per own sequence
    σ, Σ_{z: σ_i(z) = σ} c[z] u[z, i] opponent[σ_{−i}(z)] (integers, exact)."""
    chance, _, payoffs, _ = sf.exact_terminal_scaled()
    seqs = sf.terminal_sequences
    weight = chance * payoffs[:, player]
    keep = np.flatnonzero(weight != 0)
    own = seqs[keep, player]
    order = np.argsort(own, kind="stable")
    keep, own = keep[order], own[order]
    out = np.zeros((sf.num_sequences(player), opponent.shape[1]), dtype=object)
    if not len(keep):
        return out
    products = weight[keep][:, None] * opponent[seqs[keep, 1 - player]]
    starts = np.flatnonzero(np.concatenate([[True], own[1:] != own[:-1]]))
    out[own[starts]] = np.add.reduceat(products, starts, axis=0)
    return out


def sequence_payoff_series(sf: SequenceForm, player: int, opponent_series: Series) -> Series:
    """g[σ](ε) for every sequence σ of ``player`` and every power of the opponent's series."""
    _, chance_den, _, payoff_den = sf.exact_terminal_scaled()
    ratios = _ratios(opponent_series, len(opponent_series))
    den = _denominator(ratios)
    y = _integer_series(ratios, len(ratios), sf.num_sequences(1 - player), den)
    g = _payoff_numerators(sf, player, y)
    scale = den * chance_den * payoff_den
    return [[Fraction(v, scale) for v in g[:, n].tolist()] for n in range(g.shape[1])]


def _positive(series: flint.fmpz_poly) -> bool:
    """Whether a truncated series is > 0 as ε → 0⁺ (its lowest nonzero coefficient is)."""
    for c in series.coeffs():
        if c:
            return c > 0
    return False


def quasi_perfect_check(sf: SequenceForm, player: int, behaviour: list[Fraction],
                        opponent_series: Series, reached_only: list[bool] | None = None,
                        against: str = "the opponent's perturbed strategy") -> RefinementCheck:
    """Lexicographic optimality of ``player``'s limit ``behaviour`` against the opponent's perturbed
    strategy, own later play optimal (module docstring). ``reached_only``: check only the
    information sets marked True; ``against`` names the opponent's strategy in the report."""
    p = sf.players[player]
    terms = len(opponent_series)
    y = _read(opponent_series, terms, sf.num_sequences(1 - player))
    # tuples of integers compare lexicographically, which is the order of series as ε → 0⁺
    total = list(map(tuple, _payoff_numerators(sf, player, y).tolist()))
    failures: list[str] = []
    checked = 0
    parents = p.infoset_parent_seq.tolist()
    for js, seqs, starts in sf.infoset_levels(player):
        ends = list(starts[1:]) + [len(seqs)]
        seqs = seqs.tolist()
        for j, a, b in zip(js.tolist(), starts.tolist(), ends):
            actions = seqs[a:b]
            best = max(total[s] for s in actions)
            if reached_only is None or reached_only[j]:
                checked += 1
                for s in actions:
                    if behaviour[s] > 0 and total[s] != best:
                        failures.append(f"{p.infoset_labels[j]}: {p.sequence_label(s)} has limit "
                                        f"probability {behaviour[s]} but is not lexicographically "
                                        "optimal against the perturbed opponent")
            parent = parents[j]
            total[parent] = tuple(u + v for u, v in zip(total[parent], best))
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
    own, opp = own_series[:terms], opponent_series[:terms]
    g = _payoff_numerators(sf, player, _read(opp, terms, sf.num_sequences(1 - player))).tolist()
    xs = _read(own, terms, p.num_sequences).tolist()
    import flint

    x = [flint.fmpz_poly(row) for row in xs]
    S = [flint.fmpz_poly(gs).mul_low(xs_, terms) for gs, xs_ in zip(g, x)]
    failures: list[str] = []
    checked = 0
    parents = p.infoset_parent_seq.tolist()
    for js, seqs, starts in sf.infoset_levels(player):
        ends = list(starts[1:]) + [len(seqs)]
        seqs = seqs.tolist()
        for j, a, b in zip(js.tolist(), starts.tolist(), ends):
            actions = seqs[a:b]
            checked += 1
            for s in actions:
                if behaviour[s] <= 0:
                    continue
                for t in actions:
                    # value(t) > value(s)  ⇔  S[t]·x[s] − S[s]·x[t] > 0 lexicographically
                    if t != s and _positive(S[t].mul_low(x[s], terms) - S[s].mul_low(x[t], terms)):
                        failures.append(f"{p.infoset_labels[j]}: {p.sequence_label(s)} has limit "
                                        f"probability {behaviour[s]} but {p.sequence_label(t)} is "
                                        "better against the perturbed play")
                        break
            parent = parents[j]
            S[parent] = S[parent] + sum((S[s] for s in actions), flint.fmpz_poly())
    return RefinementCheck(player, "perfect: every played action is optimal to order "
                           f"ε^{terms - 1} given both players' perturbed strategies",
                           not failures, checked, terms, failures)


def witness_check(sf: SequenceForm, player: int, series: Series, lower: Series | None) -> list[str]:
    """Problems with a perturbed plan: F x(ε) = f coefficient by coefficient, and x(ε) ≥ the lower
    bounds (``lower``, a series) lexicographically, or x(ε) ≥ 0 without them."""
    F = sf.treeplex_matrix(player)
    terms = len(series)
    size = sf.num_sequences(player)
    ratios = _ratios(series, terms)
    bound = [] if lower is None else _ratios(lower, terms)
    den = _denominator(ratios, bound)
    x = _integer_series(ratios, terms, size, den)
    coo = F.tocoo()
    residual = np.zeros((F.shape[0], terms), dtype=object)
    np.add.at(residual, coo.row, np.array([int(v) for v in coo.data.tolist()], dtype=object)[:, None]
              * x[coo.col])
    rhs = sf.treeplex_rhs(player)
    problems = []
    for n in range(terms):
        target = [Fraction(v) * den if v else 0 for v in rhs.tolist()] if n == 0 else [0] * F.shape[0]
        bad = [r for r, (v, w) in enumerate(zip(residual[:, n].tolist(), target)) if v != w]
        if bad:
            problems.append(f"treeplex row {bad[0]} fails at ε^{n}")
    gap = x - _integer_series(bound, terms, size, den)
    for s, row in enumerate(gap.tolist()):
        if tuple(row) < (0,) * terms:
            problems.append(f"{sf.players[player].sequence_label(s)} is below its lower bound")
    return problems
