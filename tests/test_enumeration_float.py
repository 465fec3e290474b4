"""Float-first, exactly certified enumeration of bimatrix equilibria
(lpgame.equilibria.general_sum.enumeration_float).

The float-first search must give exactly what the exact integer-pivoting search gives (the same
vertices in the same order, the same extreme equilibria as Fractions, the same maximal Nash
subsets), and the same set as Gambit's ``enummixed_solve(rational=True)`` (a source other than
lpgame), on generic and degenerate games and at payoff scales 1e-12..1e12 (equilibria do not
change when both payoff matrices are multiplied by a positive number, so Gambit solves the
unscaled integer game).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lpgame.equilibria.general_sum.enumeration import bimatrix_extreme_equilibria
from lpgame.equilibria.general_sum.enumeration_float import certified_vertices
from lpgame.equilibria.general_sum.enumeration_vertices import polytope_vertices
from lpgame.errors import OptionError
from lpgame.rational import to_fraction

gbt = pytest.importorskip("pygambit")

SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def games(max_size: int = 5, high: int = 3):
    """(A, B) integer object arrays, m × n with 2 ≤ m, n ≤ max_size, payoffs 0..high."""
    return st.tuples(st.integers(2, max_size), st.integers(2, max_size), st.integers(0, 2**32 - 1)) \
        .map(lambda t: tuple(np.random.default_rng(t[2]).integers(0, high + 1, (2, t[0], t[1]))
                             .astype(object)))


def gambit_set(a, b) -> set:
    game = gbt.Game.from_arrays(np.asarray(a, dtype=int), np.asarray(b, dtype=int))
    found = gbt.nash.enummixed_solve(game, rational=True).equilibria
    return {tuple(tuple(Fraction(str(e[s])) for s in p.strategies) for p in game.players)
            for e in found}


def as_set(found) -> set:
    return {(found.strategies[0][i], found.strategies[1][j]) for i, j in found.equilibria}


def same(x, y) -> bool:
    return (x.strategies, x.equilibria, x.nash_subsets, x.vertices) == \
        (y.strategies, y.equilibria, y.nash_subsets, y.vertices)


# --------------------------------------------------------------------------------------- tests
@SETTINGS
@given(games(high=2))
def test_degenerate_games_float_first_is_the_exact_enumeration_and_gambits(pair):
    a, b = pair
    ours, exact = bimatrix_extreme_equilibria(a, b), bimatrix_extreme_equilibria(a, b, method="exact")
    assert same(ours, exact)
    assert as_set(ours) == gambit_set(a, b)


@SETTINGS
@given(games(max_size=6, high=99))
def test_random_games_float_first_is_the_exact_enumeration_and_gambits(pair):
    a, b = pair
    ours = bimatrix_extreme_equilibria(a, b)
    assert same(ours, bimatrix_extreme_equilibria(a, b, method="exact"))
    assert as_set(ours) == gambit_set(a, b)


@settings(max_examples=20, deadline=None)
@given(games(max_size=4, high=5), st.sampled_from([1e-12, 1e-6, 1.0, 1e6, 1e12]),
       st.floats(1.0, 2.0))
def test_payoff_scales_1e_12_to_1e12_give_the_same_equilibria(pair, scale, jitter):
    """Payoffs s·A, s·B with s = scale·jitter a float (so the Fractions have large numerators
    or denominators): the same equilibria as the unscaled game, by Gambit and exactly."""
    a, b = pair
    s = to_fraction(scale * jitter)
    sa, sb = (np.vectorize(lambda v: s * v, otypes=[object])(m) for m in (a, b))
    ours = bimatrix_extreme_equilibria(sa, sb)
    assert same(ours, bimatrix_extreme_equilibria(sa, sb, method="exact"))
    assert as_set(ours) == gambit_set(a, b)


@SETTINGS
@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_certified_vertices_are_the_exact_searchs_in_order_with_their_labels(k, d, high, seed):
    """Also non-square polytopes and tied entries (near-degenerate and degenerate vertices)."""
    c = np.random.default_rng(seed).integers(1, high + 1, (k, d)).astype(object)
    exact = polytope_vertices(c)
    found = certified_vertices(c)
    assert found.zero.shape == (len(exact), d + k)
    for i, v in enumerate(exact):
        assert found.point(i) == v.point
        assert found.zero[i].tolist() == np.concatenate([v.zero, v.tight]).tolist()
    # every vertex is in the polytope, with the labels claimed (checked here without lpgame)
    for i in range(len(exact)):
        x = np.array(found.point(i), dtype=object)
        slack = 1 - c.dot(x)
        assert all(v >= 0 for v in x) and all(v >= 0 for v in slack)
        assert [v == 0 for v in list(x) + list(slack)] == found.zero[i].tolist()


def test_ties_are_decided_exactly_and_generic_bases_in_floats():
    tied = np.array([[2, 1, 1], [2, 3, 1], [1, 1, 3]], dtype=object)     # x_1: rows 1, 2 tie
    found = certified_vertices(tied)
    assert found.exact_bases > 0
    generic = np.array([[3, 7, 2], [5, 1, 8], [4, 6, 9]], dtype=object)
    assert len(certified_vertices(generic).zero) == len(polytope_vertices(generic))


def test_payoffs_beyond_floats_fall_back_to_the_exact_search():
    big = 10 ** 400
    a = np.array([[big, 0], [0, 1]], dtype=object)
    b = np.array([[1, 0], [0, big]], dtype=object)
    ours = bimatrix_extreme_equilibria(a, b)
    assert same(ours, bimatrix_extreme_equilibria(a, b, method="exact"))
    assert ours.method == "exact"
    assert len(ours.equilibria) == 3         # a coordination game: two pure, one mixed


def test_a_failed_exact_check_falls_back_to_the_exact_search(monkeypatch):
    """If a float-first vertex failed its exact check, the exact search answers instead."""
    from lpgame.equilibria.general_sum import enumeration_vertices as ev
    from lpgame.errors import ExactCheckError

    original = ev.VertexSet.normalised

    def checked(self, indices):
        if self.method != "exact":
            raise ExactCheckError("forced")
        return original(self, indices)
    a = np.array([[3, 0], [0, 2]], dtype=object)
    expected = bimatrix_extreme_equilibria(a, a.T.copy(), method="exact")
    monkeypatch.setattr(ev.VertexSet, "normalised", checked)
    found = bimatrix_extreme_equilibria(a, a.T.copy())
    assert same(found, expected) and found.method == "exact"


def test_an_unknown_method_is_an_option_error():
    a = np.array([[1, 0], [0, 1]], dtype=object)
    with pytest.raises(OptionError, match="'float' or 'exact'"):
        bimatrix_extreme_equilibria(a, a, method="fast")


# ------------------------------------------------------------ each route of the search, forced
def _no_integer_tableaux(monkeypatch):
    """The float route of the search only: no tableau verifies and none is pivoted from a parent."""
    from lpgame.equilibria.general_sum import enumeration_float as ef

    def unverified(t, b, m, bound):
        x, det, verified, small = original(t, b, m, bound)
        return x, det, verified & False, small & False
    original = ef.integer_tableaux
    monkeypatch.setattr(ef, "integer_tableaux", unverified)
    monkeypatch.setattr(ef, "MAX_CARRIED", 0)


@settings(max_examples=15, deadline=None)
@given(games(max_size=5, high=2))
def test_the_float_route_alone_gives_the_same_answer(pair):
    a, b = pair
    expected = bimatrix_extreme_equilibria(a, b, method="exact")
    with pytest.MonkeyPatch.context() as patch:
        _no_integer_tableaux(patch)
        found = bimatrix_extreme_equilibria(a, b)
    assert same(found, expected)
    assert as_set(found) == gambit_set(a, b)


@settings(max_examples=15, deadline=None)
@given(games(max_size=5, high=2))
def test_ties_in_large_integer_tableaux_go_to_python_integers_with_the_same_answer(pair):
    """With the cross-product limit lowered, tied ratios in verified tableaux are decided by
    Python integers on the verified tableau (not by a rational solve)."""
    from lpgame.equilibria.general_sum import enumeration_integer as ei
    a, b = pair
    expected = bimatrix_extreme_equilibria(a, b, method="exact")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ei, "CROSS_LIMIT", 2.0)
        found = bimatrix_extreme_equilibria(a, b)
    assert same(found, expected)
    assert as_set(found) == gambit_set(a, b)


def test_the_integer_route_decides_degenerate_games_without_rational_solves(monkeypatch):
    """A degenerate 6 × 6 game: every basis decided on exact integer tableaux, none by flint."""
    from lpgame.equilibria.general_sum import enumeration_float as ef
    from lpgame.equilibria.general_sum import enumeration_vertices as ev

    def refused(*args):
        raise AssertionError("a rational solve was not expected")
    rng = np.random.default_rng(1)
    a, b = (rng.integers(0, 4, (6, 6)).astype(object) for _ in range(2))
    expected = bimatrix_extreme_equilibria(a, b, method="exact")
    for module in (ev, ef):
        monkeypatch.setattr(module, "exact_basis_tableau", refused)
        monkeypatch.setattr(module, "exact_basic_solution", refused)
    found = bimatrix_extreme_equilibria(a, b)
    assert same(found, expected)
    assert found.exact_bases == found.bases          # all exact, all in integers


@pytest.mark.slow
@settings(max_examples=10, deadline=None)
@given(games(max_size=7, high=2))
def test_larger_degenerate_games_match_gambit(pair):
    a, b = pair
    ours = bimatrix_extreme_equilibria(a, b)
    assert same(ours, bimatrix_extreme_equilibria(a, b, method="exact"))
    assert as_set(ours) == gambit_set(a, b)
