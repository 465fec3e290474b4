"""Lemke–Howson on bimatrix games (issue 37, item 3): against Gambit's and nashpy's equilibria,
on degenerate games, at payoff scales 10^-12..10^12, and on bad input."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from random_games import bimatrix_games

import lpgame
from lpgame.cli import main
from lpgame.equilibria.general_sum.lemke_howson import (
    lemke_howson,
    lemke_howson_all,
    nash_conv_bimatrix,
)
from lpgame.errors import ConceptMismatchError, InvalidGameError, OptionError
from lpgame.game import NormalFormGame

gbt = pytest.importorskip("pygambit")
nashpy = pytest.importorskip("nashpy")


def random_game(seed: int, low: int = 2, high: int = 6, integers: bool = False):
    rng = np.random.default_rng(seed)
    m, n = (int(v) for v in rng.integers(low, high, 2))
    if integers:        # wide integer range: nondegenerate with probability ~1, exact in Gambit
        return rng.integers(0, 10**6, (m, n)), rng.integers(0, 10**6, (m, n))
    return rng.random((m, n)), rng.random((m, n))


def gambit_points(a, b, how: str) -> set:
    """Gambit's equilibria as tuples of Fractions: ``enummixed`` (every extreme equilibrium) or
    ``lcp`` (those its Lemke–Howson search reaches), in rational arithmetic."""
    game = gbt.Game.from_arrays(np.asarray(a, dtype=object).tolist(),
                                np.asarray(b, dtype=object).tolist())
    solver = gbt.nash.enummixed_solve if how == "enummixed" else gbt.nash.lcp_solve
    found = solver(game, rational=True).equilibria
    players = list(game.players)
    return {tuple(tuple(Fraction(str(p[s])) for s in pl.strategies) for pl in players)
            for p in found}


def point(eq) -> tuple:
    return tuple(tuple(s) for s in eq.strategies)


def close_to_one_of(eq, points: list, tol: float = 1e-7) -> bool:
    x, y = (np.asarray(s, dtype=float) for s in eq.strategies)
    return any(np.allclose(x, px, atol=tol) and np.allclose(y, py, atol=tol) for px, py in points)


# ---------------------------------------------------------------- against Gambit and nashpy
@pytest.mark.parametrize("seed", range(12))
def test_every_label_ends_at_an_extreme_equilibrium_of_gambit_enummixed(seed):
    a, b = random_game(seed, integers=True)
    extreme = gambit_points(a, b, "enummixed")
    m, n = a.shape
    for label in range(1, m + n + 1):
        exact = lemke_howson(a, b, label, exact=True)
        assert point(exact) in extreme
        floating = lemke_howson(a, b, label, exact=False)
        assert close_to_one_of(floating, [tuple(np.array(s, dtype=float) for s in p)
                                          for p in extreme])


@pytest.mark.parametrize("seed", range(12))
def test_each_equilibrium_is_among_nashpy_vertex_enumeration(seed):
    a, b = random_game(seed)
    vertices = [tuple(v) for v in nashpy.Game(a, b).vertex_enumeration()]
    m, n = a.shape
    for label in range(1, m + n + 1):
        assert close_to_one_of(lemke_howson(a, b, label, exact=False), vertices)
        assert close_to_one_of(lemke_howson(a, b, label, exact=True), vertices)


@pytest.mark.parametrize("seed", range(12))
def test_all_labels_finds_what_gambit_lcp_finds(seed):
    a, b = random_game(seed, integers=True)
    reached = gambit_points(a, b, "lcp")
    exact = {point(eq) for eq in lemke_howson_all(a, b, exact=True)}
    assert exact == reached
    floating = lemke_howson_all(a, b, exact=False)
    assert len(floating) == len(reached)
    assert all(close_to_one_of(eq, [tuple(np.array(s, dtype=float) for s in p) for p in reached])
               for eq in floating)


def test_a_label_that_nashpy_follows_gives_nashpys_answer():
    # a square nondegenerate game where nashpy's lemke_howson ends (it can cycle on others)
    a = np.array([[3, 1, 6], [5, 9, 2], [4, 0, 7]])
    b = np.array([[2, 8, 1], [6, 0, 5], [3, 7, 4]])
    for label in range(6):
        x, y = nashpy.Game(a, b).lemke_howson(initial_dropped_label=label)
        ours = lemke_howson(a, b, label + 1, exact=True)
        assert np.allclose(x, np.array(ours.strategies[0], dtype=float))
        assert np.allclose(y, np.array(ours.strategies[1], dtype=float))


# ---------------------------------------------------------------- degenerate games
DEGENERATE = {
    # von Stengel (2002), Fig. 3-style: player 2's best responses tie against a pure strategy
    "tie_3x2": ([[3, 3], [2, 5], [0, 6]], [[3, 3], [2, 6], [3, 1]]),
    "constant": ([[0, 0, 0], [0, 0, 0]], [[0, 0, 0], [0, 0, 0]]),
    "identity_ties": ([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0]],
                      [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 1, 1]]),
    "binary": ([[1, 1, 0, 0], [0, 1, 1, 0], [1, 0, 1, 1]], [[0, 1, 1, 0], [1, 1, 0, 0], [0, 0, 1, 1]]),
}


@pytest.mark.parametrize("name", sorted(DEGENERATE))
def test_degenerate_games_end_at_certified_extreme_equilibria(name):
    a, b = (np.array(x) for x in DEGENERATE[name])
    extreme = gambit_points(a, b, "enummixed")
    game = NormalFormGame(np.stack([a, b]), name=name)
    m, n = a.shape
    for label in range(1, m + n + 1):
        exact = lpgame.solve(game, method="lemke_howson", label=label, exact=True)
        assert exact.certificate.nash_conv == 0 and exact.exact
        eq = lemke_howson(a, b, label, exact=True)
        assert point(eq) in extreme
        floating = lpgame.solve(game, method="lemke_howson", label=label)
        assert floating.certificate.nash_conv <= 1e-9
    found = lpgame.solve(game, method="lemke_howson", all_labels=True, exact=True)
    assert 1 <= len(found.extra["equilibria"]) <= len(extreme)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bimatrix_games(max_size=4, low=-2, high=2), st.data())
def test_random_small_games_with_many_ties_are_certified(game, data):
    m, n = game.shape
    label = data.draw(st.integers(1, m + n))
    exact = lpgame.solve(game, method="lemke_howson", label=label, exact=True)
    assert exact.certificate.nash_conv == 0
    floating = lpgame.solve(game, method="lemke_howson", label=label)
    assert floating.certificate.nash_conv <= 1e-6 * max(floating.certificate.extra["payoff_range"], 1)


# ---------------------------------------------------------------- payoff scales
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bimatrix_games(max_size=4, low=-9, high=9), st.integers(-12, 12), st.data())
def test_scaled_payoffs_give_the_same_equilibrium(game, power, data):
    m, n = game.shape
    label = data.draw(st.integers(1, m + n))
    scale = Fraction(10) ** power
    scaled = NormalFormGame(np.vectorize(lambda v: v * scale, otypes=[object])(game.payoffs),
                            name="scaled")
    base = lemke_howson(game.payoffs[0], game.payoffs[1], label, exact=True)
    exact = lpgame.solve(scaled, method="lemke_howson", label=label, exact=True)
    assert exact.certificate.nash_conv == 0
    assert point(lemke_howson(scaled.payoffs[0], scaled.payoffs[1], label, exact=True)) == point(base)
    as_floats = NormalFormGame(np.vectorize(float, otypes=[object])(scaled.payoffs), name="floats")
    floating = lpgame.solve(as_floats, method="lemke_howson", label=label)
    spread = float(floating.certificate.extra["payoff_range"])
    assert floating.certificate.nash_conv <= 1e-6 * spread if spread else \
        floating.certificate.nash_conv == 0


def test_exact_mode_takes_payoffs_beyond_the_double_range():
    a = np.array([[10**400, 0], [0, 10**400]], dtype=object)
    b = np.array([[0, 10**400], [10**400, 0]], dtype=object)
    game = NormalFormGame(np.stack([a, b]), name="huge")
    result = lpgame.solve(game, method="lemke_howson", exact=True)
    assert result.certificate.nash_conv == 0
    assert result.strategies[0]["player 1"] == {"0": Fraction(1, 2), "1": Fraction(1, 2)}


# ---------------------------------------------------------------- the concept
def test_the_default_for_bimatrix_games_is_unchanged():
    game = lpgame.games.load("battle_of_the_sexes")
    assert lpgame.solve(game, concept="nash").variant == "lemke"
    result = lpgame.solve(game, concept="nash", method="lemke_howson", label=2, exact=True)
    assert result.variant == "lemke_howson" and result.certificate.nash_conv == 0
    assert result.extra["lemke_howson"]["labels"] == [2]


def test_all_labels_lists_battle_of_the_sexes_three_equilibria():
    game = lpgame.games.load("battle_of_the_sexes")
    result = lpgame.solve(game, method="lemke_howson", all_labels=True, exact=True)
    assert len(result.extra["equilibria"]) == 3       # two pure, one mixed
    assert all(Fraction(str(e["nash_conv"])) == 0 for e in result.extra["equilibria"])
    again = lpgame.SolveResult.from_dict(result.to_dict())
    assert type(again) is type(result) and len(again.extra["equilibria"]) == 3
    assert "3 equilibria" in result.summary()


def test_non_integer_float_payoffs_in_exact_mode_follow_their_decimal_value():
    game = NormalFormGame([[[0.1, 0.3], [0.2, 0.1]], [[0.3, 0.1], [0.1, 0.2]]], name="decimals")
    result = lpgame.solve(game, method="lemke_howson", exact=True)
    assert result.certificate.nash_conv == 0


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("label", [0, 5, -1, 100])
def test_a_label_out_of_range_is_an_option_error(label):
    game = lpgame.games.load("battle_of_the_sexes")
    with pytest.raises(OptionError, match="label must be from 1 to 4"):
        lpgame.solve(game, method="lemke_howson", label=label)


@pytest.mark.parametrize("label", [1.5, "1", True, "a"])
def test_a_label_that_is_not_an_integer_is_an_option_error(label):
    game = lpgame.games.load("battle_of_the_sexes")
    with pytest.raises(OptionError, match="integer"):
        lpgame.solve(game, method="lemke_howson", label=label)
    with pytest.raises(OptionError, match="integer"):
        lemke_howson([[1, 0], [0, 1]], [[0, 1], [1, 0]], label)


def test_an_extensive_or_three_player_game_is_a_concept_mismatch():
    with pytest.raises(ConceptMismatchError):
        lpgame.solve("kuhn_poker", method="lemke_howson")
    three = NormalFormGame(np.zeros((3, 2, 2, 2), dtype=int), name="three")
    with pytest.raises(ConceptMismatchError):
        lpgame.solve(three, method="lemke_howson")


def test_label_without_the_method_says_where_it_belongs():
    with pytest.raises(OptionError, match="lemke_howson"):
        lpgame.solve(lpgame.games.load("battle_of_the_sexes"), label=2)


@pytest.mark.parametrize("a, b", [([[1, 2]], [[1], [2]]), ([1, 2], [1, 2]), ([[]], [[]]),
                                  ([["x", 1]], [[1, 1]]), ([[float("nan"), 1]], [[1, 1]]),
                                  ([[10**400, 1]], [[1, 1]])])
def test_bad_matrices_are_invalid_games(a, b):
    with pytest.raises(InvalidGameError):
        lemke_howson(a, b, 1, exact=False)


def test_cli_prints_one_error_line_and_exits_2(capsys):
    code = main(["solve", "battle_of_the_sexes", "--method", "lemke_howson", "--label", "9",
                 "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("lpgame: error:")
    code = main(["solve", "battle_of_the_sexes", "--method", "lemke_howson", "--label", "x",
                 "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("lpgame: error:")


def test_cli_solves_with_a_label_and_all_labels(capsys):
    code = main(["solve", "battle_of_the_sexes", "--method", "lemke_howson", "--label", "3",
                 "--exact", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0 and "nash_conv (sum of best-response gains) = 0" in out
    code = main(["solve", "battle_of_the_sexes", "--method", "lemke_howson", "--all-labels",
                 "--exact", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0 and "3 equilibria" in out


def test_the_independent_check_agrees_with_the_certificate():
    a, b = random_game(3, integers=True)
    eq = lemke_howson(a, b, 2, exact=True)
    fa, fb = (np.vectorize(Fraction, otypes=[object])(x) for x in (a, b))
    assert nash_conv_bimatrix(fa, fb, *eq.strategies) == 0
    coordination = np.array([[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1)]], dtype=object)
    mismatched = ([Fraction(1), Fraction(0)], [Fraction(0), Fraction(1)])
    assert nash_conv_bimatrix(coordination, coordination, *mismatched) == 2
