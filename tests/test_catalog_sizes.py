"""Sizes of the catalog games against the published tables and formulas.

Farina (2023) Table A.1 (notes/farina-thesis.md §2.14, with the errata of §6) counts decision nodes
summed over players, sequences summed over players *including one empty sequence per player*, and
terminal nodes. Rojas Linárez (2020) Tables 5.2/5.3 count all nodes N (terminals and the chance root
included) and the information sets with more than one action I (notes/rojas-linarez-and-notebook.md
§1.8–1.9).
"""

from functools import cache
from math import comb, factorial, perm

import numpy as np
import pytest

from lpgame.games import make as make_game


@cache
def _make_cached(name, params):
    return make_game(name, **dict(params))


def make(name, **params):
    """The catalog game, built once per test session (several tests read the same instance)."""
    return _make_cached(name, tuple(sorted(params.items())))


def farina_counts(game) -> tuple[int, int, int]:
    """Farina's Table A.1 columns: "decision nodes" (the decision points of the tree-form decision
    processes, i.e. information sets) and sequences summed over players, and terminal nodes."""
    s = game.sizes()
    return sum(s["infosets"]), sum(s["sequences"]), s["terminals"]


def multi_action_infosets(game) -> int:
    """Information sets with more than one action (Rojas Linárez's I)."""
    return int(sum((p.infoset_num_actions > 1).sum() for p in game.index.players))


# ---------------------------------------------------------------- Liar's dice (farina §2.5)
@pytest.mark.parametrize("players,faces,expected", [
    (3, 2, (128, 255, 504)),          # D32, Table A.1
    (3, 3, (1536, 3069, 13797)),      # D33, Table A.1
    (2, 6, (24576, 49142, 147420)),   # D26, Table 5.1
    (4, 3, (12288, 24574, 331695)),   # Table A.1's "D42" row is D43 (erratum §6.2)
])
def test_liars_dice_table_a1(players, faces, expected):
    assert farina_counts(make("liars_dice", players=players, faces=faces)) == expected


@pytest.mark.parametrize("players,faces", [(2, 2), (2, 4), (3, 2), (4, 2)])
def test_liars_dice_formulas(players, faces):
    # farina §2.5: |J| = k 2^m, |Σ| = n + k (m + Σ_b 2^(b-1) (m - b + 1)), |Z| = k^n (2^m - 1)
    m = players * faces
    s = make("liars_dice", players=players, faces=faces).sizes()
    assert sum(s["infosets"]) == faces * 2 ** m
    assert sum(s["sequences"]) == players + faces * (
        m + sum(2 ** (b - 1) * (m - b + 1) for b in range(1, m + 1)))
    assert s["terminals"] == faces ** players * (2 ** m - 1)


def test_liars_dice_true_d42_per_erratum():
    # erratum §6.2: the true D42 (4 players, 2 faces) would be 512 / 1024 / 4080
    assert farina_counts(make("liars_dice", players=4, faces=2)) == (512, 1024, 4080)


@pytest.mark.parametrize("players,faces", [(2, 3), (3, 2)])
def test_liars_dice_explicit_tree_matches_compiled(players, faces):
    compiled = make("liars_dice", players=players, faces=faces)
    tree = make("liars_dice", players=players, faces=faces, structured=False)
    assert tree.sizes() == compiled.sizes()
    for i in range(players):
        assert sorted(tree.infosets(i)) == sorted(compiled.infosets(i))


# ---------------------------------------------------------------- Dudo (rojas §1.8, Table 5.2)
def dudo_formulas(K, D1, D2):  # noqa: N803
    """Rojas Linárez l. 1225–1229: N = R1 R2 (2^(n+1) − 1) + 1, I = (R1 + R2) 2^(n−2)."""
    r1, r2 = comb(D1 + K - 1, K - 1), comb(D2 + K - 1, K - 1)
    n = K * (D1 + D2)
    return r1 * r2 * (2 ** (n + 1) - 1) + 1, (r1 + r2) * 2 ** (n - 2)


# (K, D1, D2, N, I) rows of Tabla 5.2; (4,1,2) and (4,2,1) print I = 14 366, the formula and the
# notes' erratum give 14 336
TABLE_5_2 = [
    (3, 1, 1, 1144, 96), (3, 1, 2, 18415, 1152), (3, 2, 1, 18415, 1152),
    (3, 2, 2, 294877, 12288), (4, 1, 1, 8177, 512), (4, 1, 2, 327641, 14336),
    (4, 2, 1, 327641, 14336), (5, 1, 1, 51176, 2560), (6, 1, 1, 294877, 12288),
]


@pytest.mark.parametrize("K,D1,D2,N,I", TABLE_5_2)
def test_dudo_table_5_2(K, D1, D2, N, I):  # noqa: N803
    assert dudo_formulas(K, D1, D2) == (N, I)
    game = make("dudo", K=K, D1=D1, D2=D2)
    assert game.sizes()["nodes"] == N
    assert multi_action_infosets(game) == I
    r1, r2 = comb(D1 + K - 1, K - 1), comb(D2 + K - 1, K - 1)
    n = K * (D1 + D2)
    # notes §1.8: player i has R_i (2^n − 1) + 1 sequences
    assert game.sizes()["sequences"] == [r1 * (2 ** n - 1) + 1, r2 * (2 ** n - 1) + 1]


@pytest.mark.slow
@pytest.mark.parametrize("K,D1,D2,N,I", [(5, 1, 2, 4915126, 163840), (5, 2, 1, 4915126, 163840)])
def test_dudo_table_5_2_larger_rows(K, D1, D2, N, I):  # noqa: N803
    game = make("dudo", K=K, D1=D1, D2=D2)
    assert (game.sizes()["nodes"], multi_action_infosets(game)) == (N, I)


def test_dudo_explicit_tree_matches_compiled():
    compiled = make("dudo", K=3, D1=1, D2=2)
    tree = make("dudo", K=3, D1=1, D2=2, structured=False)
    assert tree.sizes() == compiled.sizes()
    assert tree.sizes()["nodes"] == 18415
    for i in range(2):
        assert sorted(tree.infosets(i)) == sorted(compiled.infosets(i))
    assert np.allclose(np.sort(tree.index.terminal_payoffs[:, 0]),
                       np.sort(compiled.index.terminal_payoffs[:, 0]))


# ---------------------------------------------------------------- Goofspiel (farina §2.3–2.4)
@pytest.mark.parametrize("name,players,cards,expected", [
    ("goofspiel", 2, 4, (34952, 42658, 13824)),           # G24
    ("goofspiel", 3, 3, (4383, 4890, 1296)),              # G33
    ("goofspiel_limited", 2, 4, (17432, 21298, 13824)),   # GL24
    ("goofspiel_limited", 3, 3, (2511, 2802, 1296)),      # GL33
    ("goofspiel_limited", 4, 3, (13236, 14008, 7776)),    # printed "GL44" (erratum §6.3)
])
@pytest.mark.slow
def test_goofspiel_table_a1(name, players, cards, expected):
    game = make(name, players=players, cards=cards)
    assert farina_counts(game) == expected
    assert game.is_constant_sum()


@pytest.mark.slow
def test_goofspiel_limited_five_players_table_a1():
    # printed "GL55" = 5 players, 3 cards (erratum §6.3); about 7 s to expand
    assert farina_counts(make("goofspiel_limited", players=5, cards=3)) == (65385, 67310, 46656)


@pytest.mark.parametrize("cards", [2, 3, 4])
def test_goofspiel_information_sets_per_turn(cards):
    # farina §2.3: P(k, t+1) · P(k, t)^2 information sets per player at turn t; |Z| = (k!)^3
    game = make("goofspiel", players=2, cards=cards)
    expected = sum(perm(cards, t + 1) * perm(cards, t) ** 2 for t in range(cards))
    assert game.sizes()["infosets"] == [expected, expected]
    assert game.sizes()["terminals"] == factorial(cards) ** 3


# ---------------------------------------------------------------- Battleship (farina §2.6)
@pytest.mark.parametrize("rows,cols,shots,expected", [
    (2, 2, 2, (162, 506, 1072)),         # B2222
    (2, 3, 2, (938, 4730, 19116)),       # B2322
    (2, 3, 3, (15338, 62330, 191916)),   # B2323 (about 3 s)
])
@pytest.mark.slow
def test_battleship_table_a1(rows, cols, shots, expected):
    game = make("battleship", rows=rows, cols=cols, shots=shots)
    assert farina_counts(game) == expected
    assert not game.is_constant_sum()


@pytest.mark.slow
def test_battleship_b2324_table_a1():
    # about 1.2 M nodes
    assert farina_counts(make("battleship", rows=2, cols=3, shots=4)) == (144938, 451130, 969516)


# ---------------------------------------------------------------- Sheriff (farina §2.7)
# the rows printed S21Br have N = 10 and S22Br N = 20 (notes §2.7, erratum §6.4)
@pytest.mark.parametrize("N,B,rounds,expected", [
    (10, 2, 2, (99, 286, 396)),        # S2122
    (10, 2, 3, (603, 1690, 2376)),     # S2123
    (10, 3, 3, (1096, 3809, 5632)),    # S2133
])
def test_sheriff_table_a1(N, B, rounds, expected):  # noqa: N803
    game = make("sheriff", N=N, B=B, rounds=rounds)
    assert farina_counts(game) == expected
    assert game.sizes()["terminals"] == (N + 1) * (2 * (B + 1)) ** rounds
    assert not game.is_constant_sum()


@pytest.mark.parametrize("N,B,rounds,expected", [
    (20, 5, 4, (50896, 260153, 435456)),   # S2254, compiled in about 0.2 s (expanded: about 20 s)
    (20, 6, 4, (82741, 475778, 806736)),   # S2264, compiled in about 0.2 s (expanded: about 34 s)
])
def test_sheriff_table_a1_large(N, B, rounds, expected):  # noqa: N803
    # lpgame/games/sheriff_compiled.py; tests/test_sheriff_compiled.py checks it is the expansion
    game = make("sheriff", N=N, B=B, rounds=rounds)
    assert farina_counts(game) == expected
    assert game.sizes()["terminals"] == (N + 1) * (2 * (B + 1)) ** rounds


# ---------------------------------------------------------------- Domino (rojas §1.9, Tabla 5.3)
# (M, N, thesis N, thesis I): N counts the nodes of all T! permutation trees plus the root, I the
# information sets with more than one action
TABLE_5_3 = [(2, 2, 7321, 102), (3, 2, 46534657, 88947), (3, 3, 246760993, 107854),
             (3, 4, 1547645185, 104050)]


@pytest.mark.parametrize("M,N,nodes,infosets", TABLE_5_3[:2])
@pytest.mark.slow
def test_domino_table_5_3(M, N, nodes, infosets):  # noqa: N803
    from lpgame.games.domino import permutation_tree_counts

    assert permutation_tree_counts(M, N) == (nodes, infosets)


@pytest.mark.slow
@pytest.mark.parametrize("M,N,nodes,infosets", TABLE_5_3[2:])
def test_domino_table_5_3_larger(M, N, nodes, infosets):  # noqa: N803
    # about 8 s each
    from lpgame.games.domino import permutation_tree_counts

    assert permutation_tree_counts(M, N) == (nodes, infosets)


def test_domino_game_has_the_thesis_information_sets():
    # forced moves are applied automatically, so every information set of the game has two or more
    # actions, and they are exactly the thesis's I
    game = make("domino", M=2, N=2)
    assert multi_action_infosets(game) == sum(game.sizes()["infosets"]) == 102
    assert game.is_zero_sum()


@pytest.mark.slow
def test_domino_3_2_game_has_the_thesis_information_sets():
    # about 1.05 M nodes, compiled in a few seconds (lpgame/games/domino_compiled.py)
    assert multi_action_infosets(make("domino", M=3, N=2)) == 88947
