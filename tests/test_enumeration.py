"""All extreme equilibria of bimatrix games (lpgame.equilibria.general_sum.enumeration).

Checked against sources other than lpgame:

* Gambit's ``enummixed_solve(rational=True)`` (pygambit): the same set of extreme equilibria on
  random games, degenerate ones included (small integer payoffs with many ties);
* nashpy's vertex enumeration on nondegenerate games (distinct random payoffs), in floats;
* the literature: battle of the sexes has exactly three equilibria (Osborne & Rubinstein 1994,
  §2.3; Gambit's own tutorial), matching pennies one;
* best responses computed directly with numpy on the payoff matrices.
"""

from __future__ import annotations

import tempfile
from fractions import Fraction

import nashpy
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from random_games import payoff_matrices

from lpgame.compile import compile_game
from lpgame.equilibria.general_sum.enumeration import (
    bimatrix_extreme_equilibria,
    maximal_nash_subsets,
    solve_enumeration,
)
from lpgame.errors import ConceptMismatchError, ModelTooLargeError, SolverTimeLimitError
from lpgame.game import NormalFormGame
from lpgame.games.registry import make
from lpgame.io.gambit import efg_text

gbt = pytest.importorskip("pygambit")  # the gambit extra (CI installs it)

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def payoff_pairs(max_size: int = 4, low: int = -2, high: int = 2):
    return payoff_matrices(max_size, low, high)


def gambit_extreme_equilibria(a, b) -> set:
    game = gbt.Game.from_arrays(a.astype(int), b.astype(int))
    found = gbt.nash.enummixed_solve(game, rational=True).equilibria
    return {tuple(tuple(Fraction(str(e[s])) for s in player.strategies) for player in game.players)
            for e in found}


def lpgame_extreme_equilibria(a, b) -> set:
    found = bimatrix_extreme_equilibria(a, b)
    return {(found.strategies[0][i], found.strategies[1][j]) for i, j in found.equilibria}


def gains(a, b, x, y) -> list:
    x, y = np.array(x, dtype=object), np.array(y, dtype=object)
    ay, xb = a.dot(y), x.dot(b)
    return [max(ay.tolist()) - x.dot(ay), max(xb.tolist()) - xb.dot(y)]


# --------------------------------------------------------------------------------------- tests
def test_battle_of_the_sexes_has_exactly_its_three_equilibria():
    result = solve_enumeration(make("battle_of_the_sexes"), enumerate=True)
    found = {tuple(tuple(row.values()) for s in e["strategies"] for row in s.values())
             for e in result.extra["equilibria"]}
    assert found == {(("1", "0"),) * 2, (("0", "1"),) * 2, (("2/3", "1/3"), ("1/3", "2/3"))}
    assert all(e["nash_conv"] == "0" for e in result.extra["equilibria"])
    assert len(result.extra["nash_subsets"]) == 3       # three isolated equilibria
    assert result.certificate.nash_conv == 0 and result.exact


@SETTINGS
@given(payoff_pairs())
def test_degenerate_random_games_give_gambits_extreme_equilibria(pair):
    a, b = pair
    assert lpgame_extreme_equilibria(a, b) == gambit_extreme_equilibria(a, b)


@settings(max_examples=15, deadline=None)
@given(payoff_pairs(max_size=5, low=-20, high=20))
def test_wider_random_games_give_gambits_extreme_equilibria(pair):
    a, b = pair
    assert lpgame_extreme_equilibria(a, b) == gambit_extreme_equilibria(a, b)


@settings(max_examples=15, deadline=None)
@given(st.integers(2, 5), st.integers(2, 5), st.integers(0, 10_000))
def test_nondegenerate_games_agree_with_nashpy_vertex_enumeration(m, n, seed):
    rng = np.random.default_rng(seed)
    a = rng.permutation(m * n).reshape(m, n).astype(object)   # distinct payoffs: generic
    b = rng.permutation(m * n).reshape(m, n).astype(object)
    def rounded(profile):
        return tuple(tuple(round(float(p), 9) + 0.0 for p in s) for s in profile)

    ours = sorted(rounded(e) for e in lpgame_extreme_equilibria(a, b))
    theirs = sorted(rounded(e) for e in
                    nashpy.Game(a.astype(float), b.astype(float)).vertex_enumeration())
    assert ours == theirs


@SETTINGS
@given(payoff_pairs(max_size=4, low=0, high=1))
def test_every_pair_of_a_nash_subset_is_an_equilibrium(pair):
    """Winkels: in a maximal Nash subset every (x, y) of X' × Y' is an equilibrium; and every
    extreme equilibrium lies in one."""
    a, b = pair
    found = bimatrix_extreme_equilibria(a, b)
    covered = set()
    for left, right in found.nash_subsets:
        for i in left:
            for j in right:
                assert (i, j) in found.equilibria
                covered.add((i, j))
                assert gains(a, b, found.strategies[0][i], found.strategies[1][j]) == [0, 0]
    assert covered == set(found.equilibria)


def test_a_continuum_gives_one_nash_subset_with_its_extreme_points():
    # player 2 is indifferent everywhere: player 1's dominant T with any y is an equilibrium
    a = np.array([[2, 2], [1, 1]], dtype=object)
    b = np.array([[0, 0], [0, 0]], dtype=object)
    found = bimatrix_extreme_equilibria(a, b)
    assert len(found.equilibria) == 2
    assert found.nash_subsets == [([0], [0, 1])]


def test_maximal_nash_subsets_are_the_maximal_bicliques():
    edges = [(0, 0), (0, 1), (1, 1), (1, 2), (2, 1)]
    assert maximal_nash_subsets(edges) == [([0], [0, 1]), ([0, 1, 2], [1]), ([1], [1, 2])]


def test_an_extensive_game_goes_through_its_reduced_normal_form_and_gambit_agrees():
    game = make("battle_of_the_sexes").to_extensive()
    result = solve_enumeration(game, enumerate=True)
    assert result.extra["enumeration"]["count"] == 3
    # Gambit's enummixed on the same tree (its own reduced strategic form)
    with tempfile.NamedTemporaryFile("w", suffix=".efg", delete=False) as fh:
        fh.write(efg_text(game))
    g = gbt.read_efg(fh.name)
    assert len(gbt.nash.enummixed_solve(g, rational=True).equilibria) == 3


def test_three_players_is_a_concept_mismatch():
    three = NormalFormGame(np.zeros((3, 2, 2, 2), dtype=object), name="three")
    with pytest.raises(ConceptMismatchError, match="two-player"):
        solve_enumeration(three, enumerate=True)


def test_too_large_for_enumeration_is_refused_before_enumerating():
    sf = compile_game(make("kuhn_poker"))       # 27 × 64 reduced plans
    with pytest.raises(ModelTooLargeError, match="27 × 64"):
        solve_enumeration(sf, enumerate=True, max_profiles=1000)


def test_a_time_limit_stops_enumeration_with_a_labelled_error():
    sf = compile_game(make("kuhn_poker"))       # its reduced normal form is highly degenerate
    with pytest.raises(SolverTimeLimitError, match="time limit after"):
        solve_enumeration(sf, enumerate=True, time_limit=0.5)


def test_the_open_bases_are_held_to_the_memory_limit(monkeypatch):
    a = np.array([[3, 1, 0, 2], [0, 2, 3, 1], [1, 0, 2, 3], [2, 3, 1, 0]], dtype=object)
    monkeypatch.setenv("LPGAME_MEMORY_LIMIT", "1")
    with pytest.raises(ModelTooLargeError, match="open bases"):
        bimatrix_extreme_equilibria(a, a.T.copy())
