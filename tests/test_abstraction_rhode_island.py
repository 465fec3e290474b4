"""Rhode Island Hold'em: the paper's sizes (Gilpin & Sandholm EC'06; notes §A.8, §A.11, §A.12).

The cheap tests check the formulas against the public betting tree the code builds; the slow test
runs GameShrink on the full game (about 30 s and 1.6 GB) and compares the sizes with the paper's
and with counts derived by hand (suit symmetry).
"""

from __future__ import annotations

import numpy as np
import pytest

import lpgame
from lpgame.abstraction import gameshrink
from lpgame.errors import ModelTooLargeError
from lpgame.games.rhode_island import rhode_island_ordered

PAPER_ROWS_BEFORE = 91_224_226          # A@15834
PAPER_ROWS_AFTER = 1_237_238            # A@16110
PAPER_NNZ_AFTER = 50_428_638            # A@16142
SIGNAL_TREE_NODES = 6_632_705           # A@41263


def test_catalog_entry_is_the_signal_form():
    game = lpgame.games.make("rhode_island_holdem")
    assert game.name == "rhode_island_holdem" and len(game.signals) == 52 and game.depth == 4
    assert game.signal_tree_size() == SIGNAL_TREE_NODES
    assert 1 + 52 + 52 * 51 + 52 * 51 * 50 + 52 * 51 * 50 * 49 == SIGNAL_TREE_NODES
    assert "rhode_island_holdem" in lpgame.games.catalog()


def test_unabstracted_lp_rows_from_the_sequence_counts():
    """notes §A.11: per round and player 4 decision nodes and 10 actions, 7 continue leaves; the
    sequence counts of the code's betting tree give the paper's 91,224,226 rows exactly."""
    tree = rhode_island_ordered().tree
    starts = [len(tree.starts[j]) for j in range(3)]
    assert starts == [1, 7, 49]
    for j in range(3):
        for i in range(2):
            assert len(tree.decisions[j][i]) == 4 * starts[j]
            assert tree.num_local[j][i] == 10 * starts[j]
    views = [52, 52 * 51, 52 * 51 * 50]          # hole; hole, flop; hole, flop, turn
    sequences = 1 + sum(v * tree.num_local[j][0] for j, v in enumerate(views))
    infosets = sum(v * len(tree.decisions[j][0]) for j, v in enumerate(views))
    assert sequences == 1 + 10 * (52 + 52 * 51 * 7 + 52 * 51 * 50 * 7 ** 2) == 65_160_161
    assert infosets == 26_064_064
    assert sequences + infosets + 1 == PAPER_ROWS_BEFORE


@pytest.mark.slow
def test_small_rhode_island_shrinks_losslessly():
    result = lpgame.solve(rhode_island_ordered(3, 3, 1), abstraction="gameshrink")
    report = result.extra["abstraction"]
    assert report["after"]["lp"]["rows"] < report["before"]["lp"]["rows"]
    assert result.certificate.nash_conv <= 1e-9
    assert report["certificate_game"].startswith("original game")
    assert result.value == pytest.approx(lpgame.solve(rhode_island_ordered(3, 3, 1)).value, abs=1e-9)


@pytest.mark.slow
def test_rhode_island_gameshrink_sizes():
    shrunk = gameshrink(lpgame.games.make("rhode_island_holdem"))
    report = shrunk.report()
    assert report["before"]["signal_tree_nodes"] == SIGNAL_TREE_NODES
    assert report["before"]["lp"]["rows"] == report["before"]["lp"]["cols"] == PAPER_ROWS_BEFORE
    C = shrunk.partition.counts()
    assert C[0] == C[1]
    c1, c2, c3 = C[0]
    # suit symmetry, counted by hand: 13 ranks; (hole, flop) suited with distinct ranks or offsuit
    assert c1 == 13 and c2 == 13 * 12 + 13 * 13 == 325
    # (hole, flop, turn): at most the suit orbits, 13·12·11 + 3·13·12·13 + 13³ = 9,997
    assert c3 <= 13 * 12 * 11 + 3 * 13 * 12 * 13 + 13 ** 3
    # every class is a union of suit orbits: permuting suits keeps each view in its class
    views = shrunk.game._view_index
    rows, keys = views.rows[0][2], views.keys[0][2]
    rng = np.random.default_rng(0)
    for _ in range(3):
        perm = rng.permutation(4)
        moved = (rows // 4) * 4 + perm[rows % 4]
        key = (moved[:, 0].astype(np.int64) * 52 + moved[:, 1]) * 52 + moved[:, 2]
        image = np.searchsorted(keys, key)
        assert (shrunk.partition.view_class[0][2][image] == shrunk.partition.view_class[0][2]).all()
    # the LP rows from the class counts: 4 decision nodes, 10 actions per player and round state
    rows_after = 2 + 14 * (13 + 7 * c2 + 49 * c3)
    assert report["after"]["lp"]["rows"] == rows_after == 5_498_768
    # GameShrink's proposal without the soundness refinement reproduces the paper exactly
    proposal = report["signal_tree"]["proposal_without_refinement"]
    assert proposal["lp"]["rows"] == PAPER_ROWS_AFTER
    # nonzeros: F_1 and F_2ᵀ (|H_i| + |Σ_i| each) and the payoff entries that are not zero
    nonzeros = sum(proposal["infosets"]) + sum(proposal["sequences"]) + proposal["payoff_nonzeros"]
    assert nonzeros == PAPER_NNZ_AFTER
    assert report["seconds"] < 300
    # the sound abstract game has 1.2·10⁸ leaves: compiling it is refused before anything is built
    with pytest.raises(ModelTooLargeError, match="122472181 leaves"):
        shrunk.compile(memory_limit=8 << 30)
