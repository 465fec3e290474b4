"""The bulk path of the ``.efg`` reader (lpgame/io/gambit_efg_fast.py) gives the careful token
parser's game exactly, declines what it cannot read with certainty, and leaves every fault message
to the careful parser (issue 37, "trees at C speed").

References: the careful parser (itself checked against Gambit and OpenSpiel in test_gambit_io.py and
test_leduc_efg.py), Kuhn's value -1/18 (Kuhn 1950), and a plain stack walk for the tree shape.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from random_games import two_player_trees, weighted_chance

import lpgame
from lpgame.errors import GameFileError
from lpgame.game.flat_bulk import preorder_parents
from lpgame.io.gambit import efg_text, parse_efg
from lpgame.io.gambit_efg_fast import bulk_parse_efg
from lpgame.io.gambit_efg_reader import BULK_MIN_CHARS, _EfgParser

MODELS = Path(__file__).resolve().parent.parent / "models"


def careful(text: str, path: str | None = None):
    return _EfgParser(text, path).parse()


def assert_same_game(a, b) -> None:
    """Every field of the two games: records, node and graph attributes, names, and every array
    of the flat index (dtype, shape and value; floats bit for bit, payoffs as exact objects)."""
    assert a.name == b.name and a.player_names == b.player_names
    assert a.num_players == b.num_players and a.root == b.root == 0
    ta, tb = a._flat_tree, b._flat_tree
    assert ta.nodes == tb.nodes
    assert [type(v) for r in ta.nodes for v in (r[4] or ())] == \
        [type(v) for r in tb.nodes for v in (r[4] or ())]
    assert ta.node_attrs == tb.node_attrs and ta.graph_attrs == tb.graph_attrs
    ia, ib = a.index, b.index
    for field in ("num_players", "num_nodes", "num_chance_nodes", "terminal_nodes",
                  "terminal_payoffs_exact", "terminal_chance_exact"):
        assert getattr(ia, field) == getattr(ib, field), field
    for field in ("terminal_sequences", "terminal_chance", "terminal_payoffs"):
        x, y = getattr(ia, field), getattr(ib, field)
        assert x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y), field
    assert len(ia.players) == len(ib.players)
    for pa, pb in zip(ia.players, ib.players):
        for key, value in vars(pb).items():
            other = getattr(pa, key)
            if isinstance(value, np.ndarray):
                assert other.dtype == value.dtype and np.array_equal(other, value), key
            else:
                assert other == value, key
    assert a.sizes() == b.sizes()


def check_bulk(text: str):
    fast = bulk_parse_efg(text)
    assert fast is not None, "the bulk path declined a well-formed text"
    assert_same_game(fast, careful(text))
    assert_same_game(parse_efg(text), fast)
    return fast


@pytest.mark.parametrize("path", sorted(MODELS.glob("*.efg")), ids=lambda p: p.name)
def test_model_files(path):
    check_bulk(path.read_text(encoding="utf-8"))


CATALOG = [("kuhn_poker", {}), ("kuhn_poker", {"players": 3}), ("leduc_poker", {"deal": "cards"}),
           ("goofspiel_limited", {"cards": 3})]


@pytest.mark.parametrize("name,params", CATALOG, ids=[f"{n}{p}" for n, p in CATALOG])
def test_catalog_games_written_by_efg_text(name, params):
    game = lpgame.games.make(name, **params)
    back = check_bulk(efg_text(game))
    assert back.sizes() == game.sizes()
    if name == "kuhn_poker" and not params:
        assert lpgame.solve(back, exact=True).value == Fraction(-1, 18)    # Kuhn (1950)


SCALED = st.builds(lambda a, d, e: Fraction(a, d) * Fraction(10) ** e, st.integers(-9, 9),
                   st.sampled_from([1, 2, 3, 7]), st.integers(-12, 12))
FLOATS = st.builds(lambda a, e: a * 10.0 ** e, st.integers(-9, 9), st.integers(-12, 12))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(two_player_trees(max_depth=4, payoffs=st.one_of(SCALED, FLOATS),
                        chance=lambda k: weighted_chance(k, 0, 5)))
def test_random_trees_written_by_efg_text(game):
    text = efg_text(game)
    fast = check_bulk(text)
    assert fast.sizes() == game.sizes()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=60))
def test_preorder_parents_is_the_stack_walk(arity):
    """The shape from children counts equals a plain stack walk (or both say 'not one tree')."""
    parent, position, stack = [], [], []
    complete = None
    for i, a in enumerate(arity):
        if i and not stack:
            complete = False
            break
        if stack:
            p, k = stack[-1]
            parent.append(p)
            position.append(arity[p] - k)
            stack[-1] = (p, k - 1)
            if k == 1:
                stack.pop()
        else:
            parent.append(-1)
            position.append(0)
        if a:
            stack.append((i, a))
    if complete is None:
        complete = not stack
    got = preorder_parents(np.array(arity, dtype=np.int64))
    if not complete:
        assert got is None
    else:
        assert got is not None
        assert got[0].tolist() == parent and got[1].tolist() == position


# ----------------------------------------------------------------------------------------------
# declined texts: valid but unusual spellings are read by the other paths, with the same game

BIG = efg_text(lpgame.games.make("leduc_poker", deal="cards", ranks=2))    # 1,800 nodes
assert len(BIG) >= BULK_MIN_CHARS


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _replace_line(text: str, number: int, new: str) -> str:
    lines = _lines(text)
    lines[number - 1] = new
    return "\n".join(lines)


def _first_line(text: str, start: str) -> int:
    return next(k + 1 for k, line in enumerate(_lines(text)) if line.startswith(start))


@pytest.mark.parametrize("change", ["escape", "interior outcome", "leading zero", "respelled",
                                    "no newlines"])
def test_unusual_valid_spellings_fall_back_with_the_same_game(change):
    text = BIG
    if change == "escape":
        text = text.replace('"1s"', '"1\\"s"')
    elif change == "interior outcome":
        k = _first_line(text, "p ")
        line = _lines(text)[k - 1]
        text = _replace_line(text, k, line[:-1] + '99 "fee" { 1/2, -1/2 }')
    elif change == "leading zero":
        k = _first_line(text, "t ")
        text = _replace_line(text, k, _lines(text)[k - 1].replace('t "" 1', 't "" 01', 1))
    elif change == "respelled":
        k = [i + 1 for i, line in enumerate(_lines(text)) if line.startswith('t "" 1 ')][1]
        text = _replace_line(text, k, 't "" 1 "Outcome 1" { 0.0, 0 }')
    else:
        text = text.replace("\n", " ")
    expected = careful(text)
    if change != "no newlines":
        assert bulk_parse_efg(text) is None
    assert_same_game(parse_efg(text), expected)


def test_infoset_names_shared_empty_or_like_fallback_labels():
    """The labelling rule (a name used by one set only, not some set's P<player>:<number>)."""
    text = '''EFG 2 R "names" { "A" "B" }
""
c "" 1 "" { "x" 1/2 "y" 1/2 } 0
p "" 1 1 "same" { "a" "b" } 0
p "" 2 1 "P1:2" { "c" "d" } 0
t "" 1 "o" { 1, -1 }
t "" 2 "p" { -1, 1 }
p "" 2 2 "" { "c" "d" } 0
t "" 1
t "" 2
p "" 1 2 "same" { "a" "a" } 0
p "" 2 3 "P2:3" { "" "" } 0
t "" 1
t "" 2
p "" 2 4 "P9:9" { "e" "f" } 0
t "" 2
t "" 1
'''
    game = check_bulk(text)
    labels = [game.index.players[i].infoset_labels for i in range(2)]
    assert labels == [["P1:1", "P1:2"], ["P2:1", "P2:2", "P2:3", "P9:9"]]


# ----------------------------------------------------------------------------------------------
# faults: the bulk path declines, and the message is the careful parser's

def _faults() -> dict[str, str]:
    lines = _lines(BIG)
    chance = _first_line(BIG, "c ")
    terminal = _first_line(BIG, "t ")
    personal = [k + 1 for k, line in enumerate(lines) if line.startswith('p "" 1 1 ')]
    return {
        "truncated": "\n".join(lines[:400]) + "\n",
        "bad number": _replace_line(BIG, terminal, 't "" 1 "Outcome 1" { 0, 1x }'),
        "zero denominator": BIG.replace("1/12", "1/0", 1),
        "payoff count": _replace_line(BIG, terminal, 't "" 1 "Outcome 1" { 0, 0, 0 }'),
        "unknown node type": _replace_line(BIG, terminal, 'q "" 1 "Outcome 1" { 0, 0 }'),
        "outcome redeclared": BIG.replace('t "" 2 "Outcome 2" { -1, 1 }',
                                          't "" 2 "Outcome 2" { -1, 2 }', 2).replace(
            't "" 2 "Outcome 2" { -1, 2 }', 't "" 2 "Outcome 2" { -1, 1 }', 1),
        "outcome used before": _replace_line(BIG, terminal, 't "" 999'),
        "infoset redeclared": _replace_line(BIG, personal[1],
                                            'p "" 1 1 "1s" { "check" "raise" } 0'),
        "no such player": _replace_line(BIG, personal[1], 'p "" 3 1 "1s" { "check" "bet" } 0'),
        "after the last node": BIG + 't "" 1\n',
        "chance sum": BIG.replace("1/12", "1/13", 1),
        "negative probability": BIG.replace(
            '"1s-1h" 1/12 "1s-2s" 1/12', '"1s-1h" -1/12 "1s-2s" 3/12', 1),
        "outcome 0 named": _replace_line(BIG, terminal, 't "" 0 "none" { 0, 0 }'),
        "perfect recall": _replace_line(BIG, personal[1], 'p "" 1 2 "1s | check check | 2s" '
                                        '{ "check" "bet" } 0'),
        "unclosed string": BIG + 't "never closed\n',
        "chance used before": _replace_line(BIG, chance, 'c "" 1 0'),
    }


FAULTS = _faults()


@pytest.mark.parametrize("name", sorted(FAULTS))
def test_faults_give_the_careful_message(name):
    text = FAULTS[name]
    assert len(text) >= BULK_MIN_CHARS
    assert bulk_parse_efg(text) is None
    with pytest.raises(GameFileError) as expected:
        careful(text, "bad.efg")
    with pytest.raises(GameFileError) as got:
        parse_efg(text, "bad.efg")
    assert str(got.value) == str(expected.value)
    assert got.value.line == expected.value.line is not None


@pytest.mark.parametrize("text", [
    'EFG 2 R "one leaf" { "a" "b" }\nt "" 1 "o" { 1, 2 }\n',
    'EFG 2 R "chance only" { "a" "b" } "a comment"\nc "n" 1 "e" { "h" 1/3 "t" 2/3 } 0\n'
    't "" 1 "o" { 1, 2 }\nt "z" 0\n',
    'EFG 2 D "one player" { "a" }\np "" 1 1 "" { "h" "t" } 0\nt "" 1 "o" { 1e-12 }\nt "z" 0\n',
    'EFG 2 R "spacing" { "a", "b" }\r\n\r\n  p "" 1 1 "x" {"h","t"} 0\r\n\tt "" 1 "o" {1,-1}\r\n'
    't "" 2 "q" { 1/3 -1/3 }   \r\n\r\n',
    'EFG 2 R "split entries" { "a" "b" }\np "" 1 1 "x" {\n"h" "t" } 0 t "" 1 "o"\n{ 1, -1 }\n'
    't "" 2 "q" { 1/3 -1/3 }\n',
], ids=["one leaf", "chance only", "one player", "spacing", "split entries"])
def test_small_shapes_and_spellings(text):
    check_bulk(text)
