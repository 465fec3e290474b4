"""The catalog's rules games built fast (issue 37) are the games built before, record by record.

The references are (1) the rules and the expansion as they were before the change, kept verbatim
in tests/catalog_rules_reference.py: every node record (parent, position, kind, action labels,
probabilities or payoffs with their Python types, player, information set) and every array of the
index must be equal; (2) sources that are not lpgame: OpenSpiel's own sequence-form LP on its
``liars_dice`` (the wild game), and a scorer written here that re-reads Goofspiel's leaves from
their action labels.
"""

from __future__ import annotations

import math
from fractions import Fraction

import catalog_rules_reference as ref
import numpy as np
import pytest

import lpgame
from lpgame.game.private_signals import compile_private_signals
from lpgame.game.rules import expand
from lpgame.games.dudo import DudoRules
from lpgame.games.goofspiel import GoofspielRules
from lpgame.games.liars_dice import LiarsDiceRules

CALLBACKS = ("initial_state", "current_player", "chance_outcomes", "legal_actions", "apply",
             "infoset_key", "payoffs")


def typed(value):
    """A value with the type of every number in it: 1 and Fraction(1) differ here."""
    if isinstance(value, tuple):
        return tuple(typed(v) for v in value)
    return (type(value).__name__, value)


def assert_same_index(a, b) -> None:
    assert (a.num_nodes, a.num_chance_nodes, a.num_terminals) == (
        b.num_nodes, b.num_chance_nodes, b.num_terminals)
    for field in ("terminal_sequences", "terminal_chance", "terminal_payoffs"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    chance_a, payoffs_a = a.exact_terminal_data()
    chance_b, payoffs_b = b.exact_terminal_data()
    assert chance_a == chance_b
    assert [typed(tuple(u)) for u in payoffs_a] == [typed(tuple(u)) for u in payoffs_b]
    for p, q in zip(a.players, b.players, strict=True):
        for field in ("infoset_labels", "infoset_actions", "num_sequences", "num_decision_nodes"):
            assert getattr(p, field) == getattr(q, field), field
        for field in ("infoset_parent_seq", "infoset_first_seq", "infoset_depth", "seq_infoset",
                      "seq_action"):
            assert np.array_equal(getattr(p, field), getattr(q, field)), field


def assert_same_game(new, old) -> None:
    """Record by record (node order, labels, typed numbers, players, information sets), then the
    index array by array."""
    assert (new.name, new.num_players, new.player_names) == (
        old.name, old.num_players, old.player_names)
    records_new, records_old = new._flat_tree.nodes, old._flat_tree.nodes
    assert len(records_new) == len(records_old)
    for i, (x, y) in enumerate(zip(records_new, records_old)):
        assert typed(x) == typed(y), (i, x, y)
    assert_same_index(new.index, old.index)


# ---------------------------------------------------------------- Goofspiel
GOOFSPIEL = [(2, 1), (2, 2), (2, 3), (3, 2), (3, 3), (4, 2)]


@pytest.mark.parametrize("limited", [True, False])
@pytest.mark.parametrize("players,cards", GOOFSPIEL)
def test_goofspiel_equals_the_reference(players, cards, limited):
    assert_same_game(expand(GoofspielRules(players, cards, limited)),
                     ref.expand(ref.GoofspielRules(players, cards, limited)))


@pytest.mark.slow
def test_goofspiel_limited_g24_equals_the_reference():
    # the benchmark's row (68,245 nodes; about 4 s with the comparison)
    assert_same_game(lpgame.games.make("goofspiel_limited", cards=4),
                     ref.expand(ref.GoofspielRules(2, 4, limited=True)))


@pytest.mark.slow
def test_goofspiel_g24_equals_the_reference():
    assert_same_game(lpgame.games.make("goofspiel", cards=4),
                     ref.expand(ref.GoofspielRules(2, 4, limited=False)))


def goofspiel_scores(labels: list[str], players: int) -> tuple:
    """Each player's prizes won, from the labels on a leaf's path ("prize 3", then one bid per
    player): the highest bid takes the prize, tied highest bids share it."""
    score = [Fraction(0)] * players
    turn: list[int] = []
    prize = None
    for label in labels:
        if label.startswith("prize "):
            prize, turn = int(label.split()[1]), []
            continue
        turn.append(int(label))
        if len(turn) == players:
            top = max(turn)
            winners = [i for i, b in enumerate(turn) if b == top]
            for i in winners:
                score[i] += Fraction(prize, len(winners))
    return tuple(score)


@pytest.mark.parametrize("name,players,cards", [("goofspiel", 2, 3), ("goofspiel_limited", 3, 2),
                                                ("goofspiel_limited", 2, 3)])
def test_goofspiel_leaves_pay_what_the_labels_say(name, players, cards):
    game = lpgame.games.make(name, players=players, cards=cards)
    records = game._flat_tree.nodes
    path: list[list[str]] = [[] for _ in records]
    leaves = 0
    for i, (parent, position, kind, _, values, _, _) in enumerate(records):
        if parent >= 0:
            path[i] = path[parent] + [records[parent][3][position]]
        if kind == "terminal":
            leaves += 1
            assert tuple(values) == goofspiel_scores(path[i], players), path[i]
            assert all(type(u) is int or Fraction(u).denominator > 1 for u in values)
    assert leaves == math.factorial(cards) ** (players + 1)


# ---------------------------------------------------------------- liar's dice and Dudo
LIARS_DICE = [(2, 1, False), (2, 2, False), (2, 3, False), (2, 3, True), (2, 4, False),
              (2, 4, True), (3, 2, False), (3, 2, True)]


@pytest.mark.parametrize("players,faces,wild", LIARS_DICE)
def test_liars_dice_tree_equals_the_reference(players, faces, wild):
    assert_same_game(expand(LiarsDiceRules(players, faces, wild)),
                     ref.expand(ref.LiarsDiceRules(players, faces, wild)))


@pytest.mark.parametrize("players,faces,wild", LIARS_DICE)
def test_liars_dice_compiled_equals_the_reference(players, faces, wild):
    new = compile_private_signals(LiarsDiceRules(players, faces, wild))
    old = compile_private_signals(ref.LiarsDiceRules(players, faces, wild))
    assert new.name == old.name
    assert_same_index(new.index, old.index)


def test_catalog_liars_dice_is_the_reference():
    assert_same_game(lpgame.games.make("liars_dice", faces=4, structured=False),
                     ref.expand(ref.LiarsDiceRules(2, 4, False)))


@pytest.mark.parametrize("K,D1,D2", [(2, 1, 1), (3, 1, 1), (2, 2, 1)])
def test_dudo_tree_equals_the_reference(K, D1, D2):  # noqa: N803
    # Dudo's round shares the dice-bidding callbacks: the same Dudo rules with the reference's
    # callbacks put back must expand to the same game
    old_rules = type("ReferenceDudo", (DudoRules,),
                     {name: getattr(ref.DiceBiddingRules, name) for name in CALLBACKS})
    assert_same_game(expand(DudoRules(K, D1, D2)), ref.expand(old_rules(K, D1, D2)))


def test_shared_tables_do_not_leak_between_calls():
    rules = LiarsDiceRules(2, 3)
    actions = rules.legal_actions(((0, 1), ()))
    assert isinstance(actions, tuple) and actions == tuple(rules.bid_labels)
    # payoffs of one (deal, claim, challenger) are computed once and the same afterwards
    first = rules.payoffs(((2, 0), (1, 3, rules.CALL)))
    # dice 3 and 1; player 1 calls player 2's "2x1" (false): the challenger wins
    assert first == (1, -1) and rules.payoffs(((2, 0), (0, 3, rules.CALL))) is first
    # player 2 calls player 1's "2x2" (false)
    assert rules.payoffs(((2, 0), (4, rules.CALL))) == (-1, 1)


@pytest.mark.parametrize("faces", [2, 3])
def test_explicit_wild_liars_dice_value_is_openspiels(faces):
    pyspiel = pytest.importorskip("pyspiel")
    from test_liars_dice_openspiel import openspiel_value

    spiel = pyspiel.load_game("liars_dice", {"players": 2, "numdice": 1, "dice_sides": faces})
    tree = lpgame.games.make("liars_dice", faces=faces, wild=True, structured=False)
    assert float(lpgame.solve(tree).value) == pytest.approx(openspiel_value(spiel), abs=1e-8)
