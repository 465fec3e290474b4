"""Lemke's algorithm on the sequence-form LCP (lpgame.equilibria.general_sum.lemke).

Checked against sources other than lpgame's own formulation:

* Gambit (pygambit): Lemke's profile, written into Gambit's game, has ``max_regret() == 0`` by
  Gambit's own computation; Gambit's ``lcp_solve`` profile, read into lpgame, is certified an
  equilibrium by lpgame's independent best-response path (``lpgame.analysis``).
* On bimatrix games, best responses computed directly with numpy on the payoff matrices.
* Battle of the sexes: the answer is one of its three equilibria (Osborne & Rubinstein 1994, §2.3).
"""

from __future__ import annotations

import tempfile
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from random_games import bimatrix_games, two_player_trees

import lpgame
from lpgame.compile import compile_game
from lpgame.equilibria.general_sum.lemke import lemke, sequence_form_lcp, solve_lemke
from lpgame.errors import ConceptMismatchError, ModelTooLargeError, OptionError, SolverError
from lpgame.game import Game, NormalFormGame
from lpgame.games.registry import make
from lpgame.io.gambit import efg_text

gbt = pytest.importorskip("pygambit")  # the gambit extra (CI installs it)

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def general_sum_trees(max_depth: int = 4):
    """A random two-player general-sum game with chance, imperfect information, perfect recall."""
    return two_player_trees(max_depth, name="random general-sum game")


def gambit_game(game: Game):
    with tempfile.NamedTemporaryFile("w", suffix=".efg", delete=False) as fh:
        fh.write(efg_text(game))
    return gbt.read_efg(fh.name)


def gambit_max_regret(game: Game, strategies) -> Fraction:
    """Gambit's own max regret of an lpgame behaviour profile (exact)."""
    g = gambit_game(game)
    profile = g.mixed_behavior_profile(rational=True)
    for player, strategy in zip(g.players, strategies):
        for infoset in player.infosets:
            for action in infoset.actions:
                profile[action] = gbt.Rational(str(Fraction(strategy[infoset.label][action.label])))
    return Fraction(str(profile.max_regret()))


def bimatrix_gains(game: NormalFormGame, strategies) -> list[Fraction]:
    """Each player's best-response gain, directly on the payoff matrices (exact)."""
    a, b = game.payoff_array(0, exact=True), game.payoff_array(1, exact=True)
    x = np.array([Fraction(strategies[0][game.player_names[0]][s]) for s in game.actions[0]],
                 dtype=object)
    y = np.array([Fraction(strategies[1][game.player_names[1]][s]) for s in game.actions[1]],
                 dtype=object)
    ay, bx = a.dot(y), x.dot(b)
    return [max(ay.tolist()) - x.dot(ay), max(bx.tolist()) - bx.dot(y)]


# --------------------------------------------------------------------------------------- tests
def test_battle_of_the_sexes_gives_one_of_its_three_equilibria():
    game = make("battle_of_the_sexes")
    result = solve_lemke(game, exact=True)
    x = tuple(result.strategies[0]["player 1"].values())
    y = tuple(result.strategies[1]["player 2"].values())
    known = {((1, 0), (1, 0)), ((0, 1), (0, 1)), ((Fraction(2, 3), Fraction(1, 3)),
                                                  (Fraction(1, 3), Fraction(2, 3)))}
    assert (x, y) in known
    assert result.certificate.nash_conv == 0 and result.certificate.exact
    assert bimatrix_gains(game, result.strategies) == [0, 0]


def test_kuhn_poker_value_minus_one_eighteenth_and_gambit_agrees_it_is_an_equilibrium():
    game = make("kuhn_poker")
    result = solve_lemke(game, exact=True)
    assert result.values == [Fraction(-1, 18), Fraction(1, 18)]     # Kuhn 1950
    assert gambit_max_regret(game, result.strategies) == 0


@SETTINGS
@given(general_sum_trees())
def test_exact_lemke_on_random_extensive_games_is_an_equilibrium_for_lpgame_and_gambit(game):
    result = solve_lemke(game, exact=True)
    assert result.certificate.nash_conv == 0
    assert all(g == 0 for g in result.certificate.best_response_gain)
    assert gambit_max_regret(game, result.strategies) == 0


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(general_sum_trees(max_depth=3))
def test_gambit_lcp_equilibrium_is_certified_by_lpgame(game):
    g = gambit_game(game)
    profile = gbt.nash.lcp_solve(g, rational=True).equilibria[0]
    strategies = [{infoset.label: {a.label: Fraction(str(profile[a])) for a in infoset.actions}
                   for infoset in player.infosets} for player in g.players]
    assert lpgame.evaluate(game, strategies, exact=True).nash_conv == 0


@SETTINGS
@given(bimatrix_games(), st.booleans())
def test_lemke_on_bimatrix_games_has_no_profitable_deviation(game, exact):
    try:
        result = solve_lemke(game, exact=exact)
    except SolverError:             # floating point may refuse a degenerate game, never mislead
        assert not exact
        return
    gains = bimatrix_gains(game, result.strategies) if exact else None
    if exact:
        assert gains == [0, 0]
    else:
        a, b = game.payoff_array(0), game.payoff_array(1)
        x = np.array(list(result.strategies[0][game.player_names[0]].values()), dtype=float)
        y = np.array(list(result.strategies[1][game.player_names[1]].values()), dtype=float)
        assert (a @ y).max() - x @ a @ y <= 1e-6 * max(1, np.ptp(a))
        assert (x @ b).max() - x @ b @ y <= 1e-6 * max(1, np.ptp(b))


@settings(max_examples=20, deadline=None)
@given(bimatrix_games(max_size=5, low=0, high=1))
def test_degenerate_games_in_floating_point_give_an_equilibrium_or_a_clear_error(game):
    """0/1 payoffs: many ties, so degenerate pivots; the float answer is right or refused."""
    try:
        result = solve_lemke(game, exact=False)
    except SolverError as error:
        assert "exact=True" in str(error)
        return
    x = np.array(list(result.strategies[0][game.player_names[0]].values()), dtype=float)
    y = np.array(list(result.strategies[1][game.player_names[1]].values()), dtype=float)
    a, b = game.payoff_array(0), game.payoff_array(1)
    assert (a @ y).max() - x @ a @ y <= 1e-6
    assert (x @ b).max() - x @ b @ y <= 1e-6


def test_float_and_exact_agree_on_kuhn():
    game = make("kuhn_poker")
    exact, approximate = solve_lemke(game, exact=True), solve_lemke(game, exact=False)
    assert abs(float(exact.value) - approximate.value) < 1e-9
    assert approximate.certificate.nash_conv < 1e-9


def test_a_user_covering_vector_also_ends_at_an_equilibrium():
    game = make("battle_of_the_sexes")
    n = sequence_form_lcp(compile_game(game)).size
    start = tuple(range(1, n + 1))
    result = solve_lemke(game, exact=True, lemke_start=start)
    assert result.certificate.nash_conv == 0
    assert result.extra["lemke"]["covering_vector"] == "lemke_start"


def test_the_lcp_is_sparse_and_satisfied_by_the_solution():
    sf = compile_game(make("kuhn_poker"))
    lcp = sequence_form_lcp(sf, exact=True)
    assert lcp.nnz < 0.1 * lcp.size ** 2
    z = lemke(lcp).z
    m = lcp.to_scipy()
    w = lcp.b.astype(float) + m @ z.astype(float)
    assert np.all(w >= -1e-12) and abs(float(z.astype(float) @ w)) < 1e-12


def test_bad_covering_vectors_are_refused():
    game = make("chicken")
    with pytest.raises(OptionError, match="positive numbers"):
        solve_lemke(game, lemke_start=(1, 2))
    n = sequence_form_lcp(compile_game(game)).size
    with pytest.raises(OptionError, match="positive"):
        solve_lemke(game, lemke_start=(0,) * n)


def test_three_players_is_a_concept_mismatch():
    three = NormalFormGame(np.zeros((3, 2, 2, 2), dtype=object), name="three")
    with pytest.raises(ConceptMismatchError, match="two-player"):
        solve_lemke(three)


def test_a_tableau_beyond_the_memory_limit_is_refused(monkeypatch):
    sf = compile_game(make("kuhn_poker"))            # 54 LCP rows: about 0.7 MB of integers
    monkeypatch.setenv("LPGAME_MEMORY_LIMIT", "100K")
    with pytest.raises(ModelTooLargeError, match="basis inverse"):
        solve_lemke(sf, exact=True)


def test_the_recorded_path_alternates_complements_and_ends_when_z0_leaves():
    lcp = sequence_form_lcp(compile_game(make("von_stengel_3x2")), exact=True)
    solution = lemke(lcp, record_path=True)
    path = solution.extra["path"]
    assert len(path) == solution.pivots and path[0]["entering"] == "z0"
    assert path[-1]["leaving"] == "z0" and path[-1]["z0"] == 0
    def complement(name):
        return name[2:] if name.startswith("w:") else "w:" + name

    for before, after in zip(path, path[1:]):     # the complement of what left enters next
        assert after["entering"] == complement(before["leaving"])
