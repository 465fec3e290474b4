"""The TP3 counting search (benchmarks/bridge_endgame_search.py, docs/explanation/benchmarks.md).

No reading of Farina's bridge endgame reproduces Table A.1's TP3 row, so the game is not in the
catalog; these tests keep the counter that established this honest: its counts satisfy the tree
identity of Table A.1's columns, and it reproduces the notes' own attempt (notes §7)."""

import importlib.util
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "bridge_endgame_search.py"
_SPEC = importlib.util.spec_from_file_location("bridge_endgame_search", _PATH)
search = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(search)


def test_table_a1_row_is_a_tree_with_1680_deals():
    # decision nodes + terminals = (sequences − 3 empty ones) + 1680 chance outcomes
    d, s, t = search.TABLE_A1
    assert d + t == (s - 3) + 1680


@pytest.mark.parametrize("hand,seat,expected", [
    # notes §7: West leads, dummy North holds 2♠2♥3♥ → 446,400 terminals (not 379,008)
    ("2S,2H,3H", 1, (616340, 1061063, 446400)),
    # the closest reading found: dummy 2♠3♠2♥ leads the first trick
    ("2S,3S,2H", 0, (533552, 908579, 376704)),
])
def test_counts_of_two_readings(hand, seat, expected):
    fixed = tuple(search.card(c) for c in hand.split(","))
    d, s, t = search.sizes(fixed, seat)
    assert (d, s, t) == expected
    assert d + t == (s - 3) + 1680
    assert t != search.TABLE_A1[2]


def test_side_suit_classes():
    assert len(search.classes()) == 57
