"""Rigorous float enclosures of exact reduced costs d = c − Mᵀπ
(lpgame/equilibria/refinements/reduced_cost_bounds.py) and the exact simplex's pricing built on them
(lpgame/equilibria/refinements/exact_limit.py, ``_pricing``), checked against d computed here in
exact rationals (Python's Fraction), on random sparse data at scales 10⁻¹²…10¹², with reduced
costs that are exactly 0 (where no float enclosure may decide a sign) and near-ties (where the
float values cannot tell which |d_j| is the largest).
"""

from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lpgame.equilibria.refinements import exact_limit
from lpgame.equilibria.refinements.reduced_cost_bounds import ReducedCostBounds, decided_signs

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _rationals(scale: int):
    top = 10 ** 6
    return st.builds(lambda p, q, e: Fraction(p, q) * Fraction(10) ** e,
                     st.integers(-top, top), st.integers(1, top), st.integers(-scale, scale))


@st.composite
def data(draw):
    """(M as {(i, j): Fraction}, c, π) with m rows, N variables; some d_j forced to exactly 0 or
    to a tiny exact value."""
    m = draw(st.integers(1, 6))
    N = draw(st.integers(1, 10))
    entries = {}
    for j in range(N):
        for i in draw(st.sets(st.integers(0, m - 1), max_size=m)):
            entries[(i, j)] = draw(_rationals(12).filter(bool))
    pi = [draw(st.one_of(st.just(Fraction(0)), _rationals(12))) for _ in range(m)]
    c = []
    for j in range(N):
        dot = sum((v * pi[i] for (i, jj), v in entries.items() if jj == j), Fraction(0))
        kind = draw(st.sampled_from(["zero", "tiny", "free"]))
        if kind == "zero":
            c.append(dot)                               # d_j = 0 exactly
        elif kind == "tiny":
            c.append(dot + draw(_rationals(3)) * Fraction(1, 10 ** 30))
        else:
            c.append(draw(_rationals(12)))
    return m, N, entries, c, pi


def _exact_d(entries, c, pi):
    d = list(c)
    for (i, j), v in entries.items():
        d[j] -= v * pi[i]
    return d


def _bounds(m, size, entries, c):
    keys = list(entries)
    mt = sp.csr_array(([float(entries[k]) for k in keys],
                       ([k[1] for k in keys], [k[0] for k in keys])), shape=(size, m))
    return ReducedCostBounds(mt, np.array([float(v) for v in c]))


@SETTINGS
@given(data())
def test_enclosure_contains_the_exact_reduced_cost_and_decided_signs_are_right(case):
    m, N, entries, c, pi = case
    d = _exact_d(entries, c, pi)
    pi_q = np.array([flint.fmpq(v.numerator, v.denominator) for v in pi] + [None], dtype=object)[:-1]
    value, radius = _bounds(m, N, entries, c).enclose(pi_q)
    sign = decided_signs(value, radius)
    for j in range(N):
        if np.isfinite(radius[j]):
            assert abs(Fraction(float(value[j])) - d[j]) <= Fraction(float(radius[j]))
        if d[j] == 0:
            assert sign[j] == 0                         # no enclosure may exclude an exact 0
        elif sign[j]:
            assert sign[j] == (1 if d[j] > 0 else -1)


def test_huge_pi_decides_nothing():
    bounds = _bounds(1, 1, {(0, 0): Fraction(1)}, [Fraction(0)])
    pi = np.array([flint.fmpq(10 ** 400)], dtype=object)
    assert bounds.enclose(pi) is None


@st.composite
def pricing_cases(draw):
    """A small [A D] (equality rows, D = +1 slacks) with kinds, a basis mask, π and costs chosen so
    that some reduced costs are exactly 0 and some tie or nearly tie in magnitude."""
    m = draw(st.integers(1, 4))
    n = draw(st.integers(1, 8))
    entries = {}
    for j in range(n):
        for i in draw(st.sets(st.integers(0, m - 1), min_size=1, max_size=m)):
            entries[(i, j)] = draw(st.integers(-5, 5).filter(bool)) * Fraction(10) ** draw(
                st.integers(-12, 12))
    pi = [draw(_rationals(6)) for _ in range(m)]
    cost = []
    base = draw(_rationals(6))
    for j in range(n):
        dot = sum((v * pi[i] for (i, jj), v in entries.items() if jj == j), Fraction(0))
        shift = draw(st.sampled_from([0, 1, -1, 2]))
        if shift == 0:
            cost.append(dot)
        elif shift == 2:
            cost.append(dot - base - Fraction(1, 10 ** 25) * draw(st.integers(-2, 2)))
        else:
            cost.append(dot + shift * base)
    kinds = [draw(st.sampled_from([exact_limit.NONNEG, exact_limit.FREE])) for _ in range(n)] + \
        [draw(st.sampled_from([exact_limit.NONNEG, exact_limit.FIXED])) for _ in range(m)]
    in_basis = np.array([draw(st.booleans()) for _ in range(n + m)])
    return m, n, entries, pi, cost, kinds, in_basis, draw(st.booleans()), draw(st.booleans())


class _Inst:
    """The fields of ExactInstance that the pricing reads."""


def _instance(m, n, entries, cost, kinds):
    from lpgame.equilibria.refinements.exact_sparse_factor import SparseQ, fmpq_vector
    from lpgame.rational import RationalMatrix
    keys = sorted(entries, key=lambda k: (k[1], k[0]))
    A = RationalMatrix((m, n), np.array([k[0] for k in keys]), np.array([k[1] for k in keys]),
                       [entries[k] for k in keys])
    inst = _Inst()
    inst.m, inst.n, inst.A, inst.kinds = m, n, A, kinds
    inst.cost = list(cost) + [Fraction(0)] * m
    inst.slack = [1] * m
    inst.nums, inst.den = A.scaled()
    inst.kind_array = np.asarray(kinds)
    inst.fixed_mask = inst.kind_array != exact_limit.FIXED
    inst.bounds = None
    At = SparseQ.from_rational(A).T
    starts = np.searchsorted(At.rows, np.arange(n + 1))
    inst.q = (At, starts, fmpq_vector(inst.cost), None,
              np.array([flint.fmpq(1)] * m, dtype=object))
    return inst


@SETTINGS
@given(pricing_cases())
def test_pricing_chooses_what_the_exact_reduced_costs_choose(case):
    m, n, entries, pi, cost, kinds, in_basis, phase1, bland = case
    inst = _instance(m, n, entries, cost, kinds)
    full_cost = [Fraction(0)] * (n + m) if phase1 else list(cost) + [Fraction(0)] * m
    d = _exact_d({**entries, **{(i, n + i): Fraction(1) for i in range(m)}}, full_cost, pi)
    eligible = [j for j in range(n + m) if not in_basis[j] and kinds[j] != exact_limit.FIXED
                and d[j] != 0 and (d[j] < 0 or kinds[j] == exact_limit.FREE)]
    pi_q = np.array([flint.fmpq(v.numerator, v.denominator) for v in pi] + [None], dtype=object)[:-1]
    count, q, d_q = exact_limit._pricing(inst, pi_q, phase1, in_basis, bland)
    assert count == len(eligible)
    if not eligible:
        assert q is None
        return
    want = min(eligible) if bland else max(eligible, key=lambda j: (abs(d[j]), -j))
    assert q == want
    assert Fraction(int(d_q.p), int(d_q.q)) == d[q]


def test_repeated_matrix_entries_are_added_exactly_before_rounding():
    """[A D] given with a repeated (row, column) entry whose parts nearly cancel: 10¹² and
    −10¹² + 7·10⁻⁵ in the same place (d = −7·10⁻⁵·π₀ exactly). Rounded separately, the parts would
    sum to 2⁻¹³ (the spacing of doubles at 10¹²), not 7·10⁻⁵, with an error bound computed from
    that double; the entry must be added exactly first (RationalMatrix does) and rounded once."""
    from lpgame.equilibria.refinements.exact_sparse_factor import SparseQ, fmpq_vector
    from lpgame.rational import RationalMatrix
    big, tiny = Fraction(10 ** 12), Fraction(7, 10 ** 5)
    A = RationalMatrix((1, 1), np.array([0, 0]), np.array([0, 0]), [big, -big + tiny])
    inst = _Inst()
    inst.m, inst.n, inst.A, inst.kinds = 1, 1, A, [exact_limit.NONNEG, exact_limit.NONNEG]
    inst.cost, inst.slack = [Fraction(0)] * 2, [1]
    inst.nums, inst.den = A.scaled()
    inst.kind_array = np.asarray(inst.kinds)
    inst.fixed_mask = np.array([True, True])
    inst.bounds = None
    At = SparseQ.from_rational(A).T
    inst.q = (At, np.searchsorted(At.rows, np.arange(2)), fmpq_vector(inst.cost), None,
              np.array([flint.fmpq(1)], dtype=object))
    value, radius = exact_limit._bounds(inst).enclose(np.array([flint.fmpq(1)], dtype=object))
    assert abs(Fraction(float(value[0])) + tiny) <= Fraction(float(radius[0]))
    count, q, d_q = exact_limit._pricing(inst, np.array([flint.fmpq(1)], dtype=object), False,
                                         np.array([False, True]), False)
    assert (count, q, d_q) == (1, 0, flint.fmpq(-7, 10 ** 5))
