"""The catalog's table-driven Kuhn rules (issue 37) build the games built before, record by record.

References: (1) the rules as they were before the change, kept verbatim in
tests/kuhn_rules_reference.py, expanded by the expansion as it was (tests/catalog_rules_reference.py):
every node record (parent, position, kind, action labels, probabilities or payoffs with their
Python types, player, information set) and every array of the index must be equal; (2) the
literature: two-player Kuhn poker's value is −1/18 for player 1 (Kuhn 1950), exactly; (3) the
sizes of Farina 2023 §2.1 (|J| = 4r, |Σ| = 8r + 2 with two players; |J| = 12r, |Σ| = 24r + 3 with
three), and a scorer written here that re-reads every leaf's payoffs from the deal and the bets.
"""

from __future__ import annotations

from fractions import Fraction

import catalog_rules_reference as ref
import kuhn_rules_reference as kuhn_ref
import numpy as np
import pytest
from test_catalog_build_identity import assert_same_game, typed

import lpgame
from lpgame.game.private_signals import compile_private_signals
from lpgame.game.rules import expand
from lpgame.games.kuhn_rake import RakedKuhnRules
from lpgame.games.poker import KuhnRules

SHAPES = [(2, 2), (2, 3), (2, 4), (2, 7), (3, 3), (3, 4), (3, 5), (4, 4), (4, 5)]


@pytest.mark.parametrize("players,cards", SHAPES)
def test_kuhn_tree_equals_the_reference(players, cards):
    assert_same_game(expand(KuhnRules(players, cards)),
                     ref.expand(kuhn_ref.KuhnRules(players, cards)))


@pytest.mark.parametrize("players,cards", SHAPES)
def test_kuhn_built_twice_is_the_same(players, cards):
    # the second build reads the per-process tables the first one made
    assert_same_game(expand(KuhnRules(players, cards)), expand(KuhnRules(players, cards)))


def test_catalog_entries_equal_the_reference():
    assert_same_game(lpgame.games.make("kuhn_poker"), ref.expand(kuhn_ref.KuhnRules()))
    assert_same_game(lpgame.games.make("one_card_poker", N=5, structured=False),
                     ref.expand(kuhn_ref.KuhnRules(2, 5, name="one_card_poker(N=5)")))


@pytest.mark.parametrize("players,cards", [(2, 3), (2, 5), (3, 4)])
def test_callbacks_answer_as_the_reference(players, cards):
    """Every callback on every state of the tree, including the private-signal ones."""
    new, old = KuhnRules(players, cards), kuhn_ref.KuhnRules(players, cards)
    root = new.initial_state()
    assert root == old.initial_state()
    assert new.current_player(root) == old.current_player(root)
    outcomes = new.chance_outcomes(root)
    assert [typed(tuple(o)) for o in outcomes] == [typed(tuple(o)) for o in
                                                  old.chance_outcomes(root)]
    stack = [new.apply(root, label) for label, _ in outcomes]
    assert stack == [old.apply(root, label) for label, _ in outcomes]
    seen = 0
    while stack:
        state = stack.pop()
        seen += 1
        who = new.current_player(state)
        assert who == old.current_player(state)
        if who < 0:
            assert typed(new.payoffs(state)) == typed(old.payoffs(state))
            continue
        assert list(new.legal_actions(state)) == old.legal_actions(state)
        assert new.infoset_key(state) == old.infoset_key(state)
        for action in new.legal_actions(state):
            child = new.apply(state, action)
            assert child == old.apply(state, action)
            stack.append(child)
    assert seen + 1 == ref.expand(old).sizes()["nodes"]
    history = new.public_initial_state()
    assert new.public_player(history) == old.public_player(history)
    assert list(new.public_actions(history)) == old.public_actions(history)


@pytest.mark.parametrize("players,cards", [(2, 3), (2, 6), (3, 4)])
def test_compiled_kuhn_equals_the_reference(players, cards):
    new = compile_private_signals(KuhnRules(players, cards))
    old = compile_private_signals(kuhn_ref.KuhnRules(players, cards))
    assert_equal_data(new.index._data(), old.index._data())
    assert new.sizes() == old.sizes()


def assert_equal_data(a, b) -> None:
    assert type(a) is type(b)
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            assert_equal_data(a[key], b[key])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert_equal_data(x, y)
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    else:
        assert typed(a) == typed(b)


def _scored(deal: tuple, history: tuple, players: int) -> tuple:
    """Payoffs re-read from the deal and the bets (module docstring of lpgame.games.poker)."""
    paid = [1] * players
    live = set(range(players))
    if "bet" in history:
        bettor = history.index("bet")
        paid[bettor] = 2
        for k, action in enumerate(history[bettor + 1:]):
            seat = (bettor + 1 + k) % players
            if action == "call":
                paid[seat] = 2
            else:
                live.discard(seat)
    best = max(live, key=lambda i: deal[i])
    return tuple((sum(paid) if i == best else 0) - paid[i] for i in range(players))


@pytest.mark.parametrize("players,cards", [(2, 3), (3, 4), (4, 5)])
def test_leaves_pay_what_the_bets_say(players, cards):
    rules = KuhnRules(players, cards)
    game = expand(rules)
    records = game._flat_tree.nodes
    names = rules.names
    for i, record in enumerate(records):
        if record[2] != "terminal":
            continue
        path, node = [], i
        while records[node][0] >= 0:
            parent, position = records[node][0], records[node][1]
            path.append(records[parent][3][position])
            node = parent
        path.reverse()
        deal = tuple(names.index(c) for c in path[0].split("-"))
        assert record[4] == _scored(deal, tuple(path[1:]), players)
        assert all(type(u) is int for u in record[4])


def test_kuhn_value_is_minus_one_eighteenth():
    assert lpgame.solve(lpgame.games.make("kuhn_poker"), exact=True).value == Fraction(-1, 18)
    result = lpgame.solve(lpgame.games.make("kuhn_poker"))
    assert result.value == pytest.approx(-1 / 18, abs=1e-12)
    assert result.certificate.nash_conv < 1e-9


def test_sizes_follow_farina():
    for cards in (3, 4, 6):
        sizes = expand(KuhnRules(2, cards)).sizes()
        assert sum(sizes["infosets"]) == 4 * cards
        assert sum(sizes["sequences"]) == 8 * cards + 2
        assert sizes["terminals"] == 5 * cards * (cards - 1)
        assert sizes["nodes"] == 9 * cards * (cards - 1) + 1
    sizes = expand(KuhnRules(3, 4)).sizes()
    assert sum(sizes["infosets"]) == 12 * 4 and sum(sizes["sequences"]) == 24 * 4 + 3


class _OldRaked(kuhn_ref.KuhnRules):
    """lpgame.games.kuhn_rake's rules on top of the reference Kuhn rules."""

    def __init__(self, rake, cards=3):
        super().__init__(2, cards, name=f"kuhn_poker_rake(rake={rake}, cards={cards})")
        self.rake = rake

    payoffs = RakedKuhnRules.payoffs


def test_raked_kuhn_still_uses_the_stakes():
    for cards in (3, 4):
        assert_same_game(expand(RakedKuhnRules(Fraction(1, 10), cards)),
                         ref.expand(_OldRaked(Fraction(1, 10), cards)))


@pytest.mark.parametrize("players,cards", [(2, 3), (3, 4)])
def test_unshared_tables_give_the_same_game(monkeypatch, players, cards):
    """Past the per-process bounds each rules object fills its own tables: the same game."""
    from lpgame.games import poker
    monkeypatch.setattr(poker, "SHARED_PLAYERS", 1)
    monkeypatch.setattr(poker, "SHARED_DEALS", 0)
    monkeypatch.setattr(poker, "_PUBLIC", {})
    monkeypatch.setattr(poker, "_DEALS", {})
    assert_same_game(expand(KuhnRules(players, cards)),
                     ref.expand(kuhn_ref.KuhnRules(players, cards)))
    assert poker._PUBLIC == {} and poker._DEALS == {}


def test_many_players_cost_nothing_until_walked():
    """The tables fill as histories are met: 30 seats (2^29 betting lines) build no table, and the
    public callbacks answer as the reference's."""
    new, old = KuhnRules(30, 30), kuhn_ref.KuhnRules(30, 30)
    history = ("check",) * 29 + ("bet",)
    assert new.public_player(history) == old.public_player(history) == 0
    assert list(new.public_actions(history)) == old.public_actions(history) == ["fold", "call"]
    assert new._stakes(history + ("fold",) * 29) == old._stakes(history + ("fold",) * 29)
