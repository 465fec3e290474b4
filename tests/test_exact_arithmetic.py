"""The integer-scaled exact arithmetic agrees with plain Fraction computations written here.

Exact mode computes best responses, profile values, matrix products, behaviour strategies and the
basis solution on integers over common denominators (:mod:`lpgame.rational`). Each is checked
against the straightforward Fraction computation (the previous implementation, kept here as the
reference) on random data: hypothesis draws the numbers, games come from the catalog (two and three
players, chance, private signals) and from random matrix games, and plans from random exact
behaviour strategies.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import lpgame
from lpgame import NormalFormGame
from lpgame.analysis.best_response import best_response_value_exact, profile_values_exact
from lpgame.game.private_signals import compile_private_signals
from lpgame.games.poker import KuhnRules
from lpgame.lp.exact import SparseRational, _solve_directly, solve_sparse_rational
from lpgame.rational import (
    RationalMatrix,
    common_denominator,
    limit_denominator,
    scaled_to_float,
    to_fraction,
)

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

fractions = st.builds(Fraction, st.integers(-10**12, 10**12), st.integers(1, 10**9))


# ---------------------------------------------------------------------------- rational helpers
@SETTINGS
@given(st.integers(-10**40, 10**40), st.integers(1, 10**40).flatmap(
    lambda d: st.sampled_from([d, -d])), st.integers(1, 10**20))
def test_limit_denominator_is_fractions(n, d, bound):
    p, q = limit_denominator(n, d, bound)
    expected = Fraction(n, d).limit_denominator(bound)
    assert (p, q) == (expected.numerator, expected.denominator)


def test_limit_denominator_is_fractions_on_all_small_cases():
    # exhaustive on small numbers, so that ties between the two candidates occur
    for d in range(1, 41):
        for n in range(-2 * d, 2 * d + 1):
            for bound in range(1, 10):
                expected = Fraction(n, d).limit_denominator(bound)
                assert limit_denominator(n, d, bound) == (expected.numerator, expected.denominator)


@SETTINGS
@given(st.lists(st.one_of(fractions, st.integers(-10**30, 10**30)), max_size=30))
def test_common_denominator_is_exact_and_least(values):
    values = values + values[:3]                       # repeated objects
    nums, den = common_denominator(values)
    assert [Fraction(n, den) for n in nums.tolist()] == [Fraction(v) for v in values]
    assert den == math.lcm(*(Fraction(v).denominator for v in values), 1)
    assert all(type(n) is int for n in nums.tolist())


@SETTINGS
@given(st.lists(st.one_of(fractions, st.builds(Fraction, st.integers(-2**80, 2**80),
                                                st.integers(1, 2**70))), max_size=20))
def test_scaled_to_float_is_the_correctly_rounded_float(values):
    nums, den = common_denominator(values)
    assert scaled_to_float(nums, den).tolist() == [float(v) for v in values]


def _reference_matrix(rows, cols, data):
    """The dict construction of RationalMatrix: summed, zeros dropped, first-occurrence order."""
    acc: dict = {}
    for r, c, v in zip(rows, cols, data):
        v = to_fraction(v)
        if v:
            acc[(int(r), int(c))] = acc.get((int(r), int(c)), Fraction(0)) + v
    items = [(k, v) for k, v in acc.items() if v != 0]
    return [k[0] for k, _ in items], [k[1] for k, _ in items], [v for _, v in items]


@st.composite
def triplets(draw, max_rows=5, max_cols=5):
    m, n = draw(st.integers(1, max_rows)), draw(st.integers(1, max_cols))
    k = draw(st.integers(0, 25))
    rows = draw(st.lists(st.integers(0, m - 1), min_size=k, max_size=k))
    cols = draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k))
    small = st.builds(Fraction, st.integers(-3, 3), st.integers(1, 4))
    data = draw(st.lists(st.one_of(small, st.integers(-2, 2)), min_size=k, max_size=k))
    return (m, n), rows, cols, data


@SETTINGS
@given(triplets(), st.data())
def test_rational_matrix_matches_the_dict_construction(args, data):
    shape, rows, cols, values = args
    A = RationalMatrix(shape, rows, cols, values)
    assert (A.rows.tolist(), A.cols.tolist(), A.data) == _reference_matrix(rows, cols, values)
    x = data.draw(st.lists(fractions, min_size=shape[1], max_size=shape[1]))
    y = data.draw(st.lists(fractions, min_size=shape[0], max_size=shape[0]))
    dense = np.zeros(shape, dtype=object)
    dense[:] = Fraction(0)
    for r, c, v in zip(A.rows.tolist(), A.cols.tolist(), A.data):
        dense[r, c] += v
    assert A.matvec(x) == [sum((dense[i, j] * x[j] for j in range(shape[1])), Fraction(0))
                           for i in range(shape[0])]
    assert A.rmatvec(y) == [sum((dense[i, j] * y[i] for i in range(shape[0])), Fraction(0))
                            for j in range(shape[1])]
    assert (-A).matvec(x) == [-v for v in A.matvec(x)]
    assert A.T.matvec(y) == A.rmatvec(y)
    assert A.to_scipy().toarray().tolist() == [[float(v) for v in row] for row in dense.tolist()]


@SETTINGS
@given(st.lists(st.tuples(triplets(3, 3), st.integers(0, 4), st.integers(0, 4)), max_size=4))
def test_from_blocks_is_the_constructor_on_the_concatenation(blocks):
    shape = (8, 8)
    parts = [(RationalMatrix(*args), r, c) for args, r, c in blocks]
    A = RationalMatrix.from_blocks(shape, parts)
    rows = [r + dr for M, dr, _ in parts for r in M.rows.tolist()]
    cols = [c + dc for M, _, dc in parts for c in M.cols.tolist()]
    B = RationalMatrix(shape, rows, cols, [v for M, _, _ in parts for v in M.data])
    assert (A.rows.tolist(), A.cols.tolist(), A.data) == (B.rows.tolist(), B.cols.tolist(), B.data)
    nums, den = A.scaled()
    assert [Fraction(n, den) for n in nums.tolist()] == A.data


# ---------------------------------------------------------------------------- basis systems
def _gauss(matrix: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction] | None:
    n = len(rhs)
    a = [row[:] + [b] for row, b in zip(matrix, rhs)]
    for col in range(n):
        pivot = next((r for r in range(col, n) if a[r][col] != 0), None)
        if pivot is None:
            return None
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(n):
            if r != col and a[r][col] != 0:
                f = a[r][col] / a[col][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col])]
    return [a[i][n] / a[i][i] for i in range(n)]


@SETTINGS
@given(st.integers(1, 7), st.integers(1, 10**6), st.data())
def test_solve_exactly_is_gaussian_elimination(n, size, data):
    entries = st.builds(Fraction, st.integers(-size, size), st.sampled_from([1, 2, 3, 7]))
    matrix = [data.draw(st.lists(entries, min_size=n, max_size=n)) for _ in range(n)]
    rhs = data.draw(st.lists(entries, min_size=n, max_size=n))
    expected = _gauss(matrix, rhs)
    assume(expected is not None and np.linalg.cond(np.array(matrix, dtype=float)) < 1e8)
    triples = [(i, j, v) for i, row in enumerate(matrix) for j, v in enumerate(row) if v]
    system = SparseRational([t[0] for t in triples], [t[1] for t in triples],
                             [t[2] for t in triples], (n, n))
    assert solve_sparse_rational(system, rhs, "a test system")[0] == expected
    assert _solve_directly(system, rhs, "a test system") == expected     # python-flint's fmpq_mat
    transposed = [[matrix[j][i] for j in range(n)] for i in range(n)]
    expected_t = _gauss(transposed, rhs)
    assert solve_sparse_rational(system.T, rhs, "its transpose")[0] == expected_t


# ---------------------------------------------------------------------------- game computations
def _reference_best_response_value(sf, player, plans, payoff_of=None, sign=1):
    payoff_of = player if payoff_of is None else payoff_of
    chance, payoffs = sf.game.index.exact_terminal_data()
    p = sf.players[player]
    g = [Fraction(0)] * p.num_sequences
    for z, row in enumerate(sf.terminal_sequences.tolist()):
        w = sign * chance[z] * payoffs[z][payoff_of]
        for k, plan in enumerate(plans):
            if k != player:
                w *= plan[row[k]]
        g[row[player]] += w
    for js, _, _ in sf.infoset_levels(player):
        for j in js.tolist():
            first, k = int(p.infoset_first_seq[j]), int(p.infoset_num_actions[j])
            g[int(p.infoset_parent_seq[j])] += max(g[first:first + k])
    return g[0]


def _reference_profile_values(sf, plans):
    chance, payoffs = sf.game.index.exact_terminal_data()
    out = [Fraction(0)] * sf.num_players
    for z, row in enumerate(sf.terminal_sequences.tolist()):
        w = chance[z]
        for k, plan in enumerate(plans):
            w *= plan[row[k]]
        for i in range(sf.num_players):
            out[i] += w * payoffs[z][i]
    return out


def _reference_behaviour(sf, player, plan):
    p = sf.players[player]
    b = [Fraction(1)] * p.num_sequences
    unreached = []
    for j in range(p.num_infosets):
        first, k = int(p.infoset_first_seq[j]), int(p.infoset_num_actions[j])
        total = sum(plan[first:first + k], Fraction(0))
        unreached.append(total == 0)
        for s in range(first, first + k):
            b[s] = Fraction(1, k) if total == 0 else plan[s] / total
    return b, unreached


def _random_exact_behaviour(sf, player, rng):
    p = sf.players[player]
    b = [Fraction(1)] * p.num_sequences
    for j in range(p.num_infosets):
        first, k = int(p.infoset_first_seq[j]), int(p.infoset_num_actions[j])
        w = rng.integers(0, 4, size=k)
        if rng.random() < 0.3:             # pure choices, as in equilibria
            w = np.zeros(k, dtype=np.int64)
        w[rng.integers(k)] += 1
        for a in range(k):
            b[first + a] = Fraction(int(w[a]), int(w.sum()))
    return b


def _check_game(sf, seed):
    rng = np.random.default_rng(seed)
    plans = [sf.plan_from_behaviour_exact(i, _random_exact_behaviour(sf, i, rng))
             for i in range(sf.num_players)]
    assert profile_values_exact(sf, plans) == _reference_profile_values(sf, plans)
    for i in range(sf.num_players):
        assert best_response_value_exact(sf, i, plans) == \
            _reference_best_response_value(sf, i, plans)
        o = (i + 1) % sf.num_players
        assert best_response_value_exact(sf, i, plans, payoff_of=o, sign=-1) == \
            _reference_best_response_value(sf, i, plans, payoff_of=o, sign=-1)
        assert sf.behaviour_from_plan_exact(i, plans[i]) == _reference_behaviour(sf, i, plans[i])
        # a plan that leaves information sets unreached
        partial = [Fraction(0)] * len(plans[i])
        partial[0] = Fraction(1)
        assert sf.behaviour_from_plan_exact(i, partial) == _reference_behaviour(sf, i, partial)


CATALOG = ["kuhn_poker", "leduc_poker", "dudo", "one_card_poker", "team_matching_pennies",
           "sheriff", "battleship", "guess_the_ace"]


@pytest.mark.parametrize("name", CATALOG)
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_exact_best_responses_and_values_on_catalog_games(name, seed):
    _check_game(lpgame.compile_game(name), seed)


@SETTINGS
@given(st.integers(1, 4), st.integers(1, 4), st.data())
def test_exact_best_responses_and_values_on_matrix_games(m, n, data):
    entries = st.lists(st.builds(Fraction, st.integers(-9, 9), st.integers(1, 5)),
                       min_size=m * n, max_size=m * n)
    payoffs = np.stack([np.array(data.draw(entries), dtype=object).reshape(m, n)
                        for _ in range(2)])
    sf = lpgame.compile_game(NormalFormGame(payoffs, name="random"))
    _check_game(sf, data.draw(st.integers(0, 2**32 - 1)))


class _MixedPayoffs(KuhnRules):
    """Kuhn rules whose leaves return int, float and Fraction arrays (and no showdown form)."""

    def showdown(self):
        return None

    def leaf_payoffs(self, state, deals):
        u = np.asarray(super().leaf_payoffs(state, deals))
        kind = len(str(state)) % 3
        if kind == 0:
            return u.astype(np.int64) * 3
        if kind == 1:
            return u.astype(float) / 4
        return np.vectorize(lambda v: Fraction(int(v), 3), otypes=[object])(u)


@pytest.mark.parametrize("players,cards", [(2, 3), (3, 4)])
def test_private_signal_exact_leaves_match_per_entry_conversion(players, cards):
    game = compile_private_signals(_MixedPayoffs(players, cards))
    data = game.index._data()
    chance, payoffs = game.index.exact_terminal_data()
    total = data["total_weight"]
    assert chance == [Fraction(int(w), total) for w in data["weights"]
                      for _ in data["payoffs_exact"]]
    assert payoffs == [tuple(to_fraction(v) for v in leaf[d])
                       for d in range(len(data["weights"])) for leaf in data["payoffs_exact"]]
    assert game.index.exact_terminal_data() is game.index.exact_terminal_data()   # cached
    result = lpgame.solve(game, exact=True) if players == 2 else None
    if result is not None:
        assert result.certificate.nash_conv == 0
