"""Values and rules of the catalog games against sources outside lpgame.

Sources: Rojas Linárez (2020) Tablas 5.2/5.3 (CFR values u(σ) of strategies with exploitability
ε_σ, so the true value lies within ε_σ of u(σ), up to the printed rounding); Farina (2023) Lemmas
11.1/11.2 (team matching pennies); OpenSpiel's independent implementations of Sheriff and Battleship
(Farina, Ling, Fang & Sandholm 2019a wrote both); and symmetry arguments stated in each test.
"""

from fractions import Fraction
from functools import cache

import numpy as np
import pytest

import lpgame
from lpgame.games import make as make_game


@cache
def _make_cached(name, params):
    return make_game(name, **dict(params))


def make(name, **params):
    """The catalog game, built once per test session (several tests read the same instance)."""
    return _make_cached(name, tuple(sorted(params.items())))


# ---------------------------------------------------------------- Dudo (Tabla 5.2)
# (K, D1, D2): (u(σ), ε_σ in %) as printed; ε_σ is the thesis's NashConv, in % of the minimum
# positive utility 1
TABLE_5_2_VALUES = {
    (3, 1, 1): (-0.111, 0.0098), (3, 1, 2): (-0.465, 0.0211), (3, 2, 1): (0.506, 0.0111),
    (4, 1, 1): (-0.125, 0.0259), (5, 1, 1): (-0.120, 0.1186),
}


def close_to_thesis(value, printed, eps_percent):
    return abs(float(value) - printed) <= 0.0005 + eps_percent / 100 + 1e-12


@pytest.mark.parametrize("K,D1,D2", list(TABLE_5_2_VALUES))
def test_dudo_exact_values_match_table_5_2(K, D1, D2):  # noqa: N803
    result = lpgame.solve(make("dudo", K=K, D1=D1, D2=D2), exact=True)
    assert result.certificate.nash_conv == 0
    assert isinstance(result.value, Fraction)
    assert close_to_thesis(result.value, *TABLE_5_2_VALUES[(K, D1, D2)])


@pytest.mark.slow
@pytest.mark.parametrize("K,D1,D2,printed,eps", [
    (3, 2, 2, 0.0054, 0.2887), (4, 1, 2, -0.508, 0.0971), (4, 2, 1, 0.552, 0.3701)])
def test_dudo_exact_values_match_table_5_2_larger(K, D1, D2, printed, eps):  # noqa: N803
    # about 8 s each (exact certification of 10^4-sequence LPs)
    result = lpgame.solve(make("dudo", K=K, D1=D1, D2=D2), exact=True)
    assert result.certificate.nash_conv == 0
    assert close_to_thesis(result.value, printed, eps)


@pytest.mark.parametrize("K", [3, 4])
def test_dudo_one_die_each_is_liars_dice(K):  # noqa: N803
    # Dudo(K,1,1) pays ±1 (the loser of the round loses the game): it is 2-player liar's dice
    dudo = make("dudo", K=K, D1=1, D2=1)
    assert set(np.unique(dudo.index.terminal_payoffs)) == {-1.0, 1.0}
    liars = make("liars_dice", players=2, faces=K)
    assert lpgame.solve(dudo, exact=True).value == lpgame.solve(liars, exact=True).value


def test_dudo_leaf_values_use_the_smaller_games():
    # Dudo(3,1,2): P1 losing ends the game (−1); P2 losing leads to Dudo(3,1,1) started by P2
    v11 = lpgame.solve(make("dudo", K=3, D1=1, D2=1), exact=True).value
    game = make("dudo", K=3, D1=1, D2=2)
    leaves = {row[0] for row in game.index.exact_terminal_data()[1]}
    assert leaves == {Fraction(-1), -v11}


def test_dudo_explicit_and_compiled_values_agree():
    a = lpgame.solve(make("dudo", K=3, D1=2, D2=1, structured=False), exact=True)
    b = lpgame.solve(make("dudo", K=3, D1=2, D2=1), exact=True)
    assert a.value == b.value
    assert close_to_thesis(a.value, *TABLE_5_2_VALUES[(3, 2, 1)])


def test_dudo_six_faces_one_die_float():
    # Tabla 5.2: Dudo(6,1,1) u(σ) = −0.111 with ε_σ = 0.0975 %
    result = lpgame.solve(make("dudo", K=6, D1=1, D2=1))
    assert close_to_thesis(result.value, -0.111, 0.0975)


# ---------------------------------------------------------------- Goofspiel
@pytest.mark.parametrize("name", ["goofspiel", "goofspiel_limited"])
@pytest.mark.slow
def test_goofspiel_value_is_half_the_prizes(name):
    # the two-player game is symmetric and constant-sum (every leaf pays 1 + ... + k in all), so
    # its value is k(k+1)/4
    exact = lpgame.solve(make(name, players=2, cards=3), exact=True)
    assert exact.value == Fraction(3) and exact.certificate.nash_conv == 0
    assert lpgame.solve(make(name, players=2, cards=4)).value == pytest.approx(5, abs=1e-9)


def test_goofspiel_ties_split_the_prize():
    game = make("goofspiel", players=2, cards=2)
    rows = {tuple(r) for r in game.index.exact_terminal_data()[1]}
    # bids (1,1),(2,2): both prizes split; (1,2),(2,1): each wins one prize
    assert rows == {(Fraction(3, 2), Fraction(3, 2)), (1, 2), (2, 1)}


# ---------------------------------------------------------------- Battleship vs OpenSpiel
@pytest.mark.parametrize("rows,cols,shots", [(2, 2, 2), (2, 3, 2)])
@pytest.mark.slow
def test_battleship_matches_openspiel(rows, cols, shots):
    # OpenSpiel's battleship (by the benchmark's authors) with one unit ship, no repeated shots
    pyspiel = pytest.importorskip("pyspiel")
    from lpgame.io.openspiel import game_from_openspiel

    reference = game_from_openspiel(pyspiel.load_game("battleship", {
        "board_width": cols, "board_height": rows, "ship_sizes": "[1]", "ship_values": "[3.0]",
        "num_shots": shots, "allow_repeated_shots": False, "loss_multiplier": 2.0}))
    ours = make("battleship", rows=rows, cols=cols, shots=shots, ship_value=3, loss_multiplier=2)
    assert ours.sizes() == reference.sizes()
    a = lpgame.solve(ours, concept="maximin")
    b = lpgame.solve(reference, concept="maximin")
    assert a.values == pytest.approx(b.values, abs=1e-9)


# ---------------------------------------------------------------- Sheriff vs OpenSpiel
@pytest.mark.parametrize("N,B,rounds", [(3, 2, 2), (10, 2, 2)])
def test_sheriff_matches_openspiel(N, B, rounds):  # noqa: N803
    # OpenSpiel's sheriff (the benchmark authors' implementation): item_value = v,
    # item_penalty = p, sheriff_penalty = s; the thesis's v = 5, p = 1, s = 1
    pyspiel = pytest.importorskip("pyspiel")
    from lpgame.io.openspiel import game_from_openspiel

    reference = game_from_openspiel(pyspiel.load_game("sheriff", {
        "max_items": N, "max_bribe": B, "num_rounds": rounds, "item_value": 5.0,
        "item_penalty": 1.0, "sheriff_penalty": 1.0}))
    ours = make("sheriff", N=N, B=B, rounds=rounds)
    assert ours.sizes() == reference.sizes()
    payoffs = sorted(map(tuple, ours.index.terminal_payoffs.tolist()))
    assert payoffs == sorted(map(tuple, reference.index.terminal_payoffs.tolist()))
    a = lpgame.solve(ours, concept="maximin")
    b = lpgame.solve(reference, concept="maximin")
    assert a.values == pytest.approx(b.values, abs=1e-9)


# ---------------------------------------------------------------- team matching pennies (Farina §11.2)
def test_team_matching_pennies_minmax_is_one_half():
    # Lemma 11.2: minmax value 1/2 at z_H = 1/2; with the team as one player (ex-ante correlation,
    # TMECor) the two-player zero-sum value is the same 1/2
    game = make("team_matching_pennies", merge_team=True)
    result = lpgame.solve(game, exact=True)
    assert result.values == [Fraction(-1, 2), Fraction(1, 2)]
    assert result.certificate.nash_conv == 0
    assert result.strategies[0]["opponent"] == {"H": Fraction(1, 2), "T": Fraction(1, 2)}
    maximin = lpgame.solve(game, concept="maximin", exact=True)
    assert maximin.values == [Fraction(-1, 2), Fraction(1, 2)]


def team_guarantee(x_heads, y_heads):
    """What independent team strategies guarantee against the opponent's best response."""
    game = make("team_matching_pennies")
    ev = lpgame.evaluate(game, [
        {"opponent": {"H": Fraction(1), "T": Fraction(0)}},
        {"team member 1": {"H": x_heads, "T": 1 - x_heads}},
        {"team member 2": {"H": y_heads, "T": 1 - y_heads}}], exact=True)
    return -ev.best_response_values[0]


def test_team_matching_pennies_maxmin_is_one_quarter():
    # Lemma 11.1: the team maxmin (TME) value is 1/4, at x_H = y_H = 1/2
    assert team_guarantee(Fraction(1, 2), Fraction(1, 2)) == Fraction(1, 4)
    grid = [Fraction(k, 10) for k in range(11)]
    assert max(team_guarantee(x, y) for x in grid for y in grid) == Fraction(1, 4)


# ---------------------------------------------------------------- Guess-the-Ace (Farina §12.A)
@pytest.mark.parametrize("modified", [False, True])
def test_guess_the_ace_player_one_ends_the_game(modified):
    # offering loses 1000 · P(correct guess) > 0 against either guess, so in every equilibrium
    # player 1 ends the game and the value is 0 (Miltersen & Sørensen 2006)
    result = lpgame.solve(make("guess_the_ace", modified=modified), exact=True)
    assert result.value == 0 and result.certificate.nash_conv == 0
    assert result.strategies[0]["P1"]["end"] == 1


def test_guess_the_ace_payoffs():
    game = make("guess_the_ace")
    chance, payoffs = game.index.exact_terminal_data()
    # expected loss of offering against "not ace of spades": 1000 · 51/52
    loss = sum(c * u[0] for c, u, seqs in zip(chance, payoffs, game.index.terminal_sequences)
               if game.index.players[1].sequence_label(int(seqs[1])) == "P2:not ace of spades")
    assert loss == Fraction(-51000, 52)


# ---------------------------------------------------------------- Domino (Tabla 5.3)
def test_domino_2_2_exact_value():
    # Tabla 5.3: Domino(2,2) u(σ) = 2.4000 with ε_σ = 0.0000 %
    result = lpgame.solve(make("domino", M=2, N=2), exact=True)
    assert result.certificate.nash_conv == 0
    assert abs(float(result.value) - 2.4) <= 0.00005


@pytest.mark.slow
def test_domino_3_2_value():
    # Tabla 5.3: Domino(3,2) u(σ) = 2.8767 with ε_σ = 0.0292 %; HiGHS takes about 20 s
    result = lpgame.solve(make("domino", M=3, N=2))
    assert abs(result.value - 2.8767) <= 0.00005 + 0.000292
