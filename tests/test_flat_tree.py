"""Trees built from preorder node records (lpgame.game.flat_tree) against the networkx path.

The reference is the graph builder that came before (``build_tree_index`` on a networkx graph), a
brute-force recursive expansion of the rules written here, and the careful token parser of the
``.efg`` reader: the one-pass index, the graph made on demand and the fast ``.efg`` path must
reproduce them exactly, faults included.
"""

from __future__ import annotations

import math
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from random_games import fraction_payoffs, two_player_trees

import lpgame
from lpgame.errors import GameFileError, InvalidGameError
from lpgame.game.flat_tree import FlatTree, index_flat_tree
from lpgame.game.rules import CHANCE_PLAYER, TERMINAL_PLAYER, expand
from lpgame.game.tree_index import build_tree_index
from lpgame.io.gambit import efg_text, parse_efg
from lpgame.io.gambit_efg_reader import _EfgParser, _fast_parse

CATALOG = [("kuhn_poker", {}), ("kuhn_poker", {"players": 3}), ("leduc_poker", {}),
           ("liars_dice", {"faces": 3, "structured": False}), ("goofspiel", {"cards": 3}),
           ("goofspiel_limited", {"cards": 3}), ("one_card_poker", {"N": 4, "structured": False})]


def assert_same_index(a, b) -> None:
    assert (a.num_nodes, a.num_chance_nodes) == (b.num_nodes, b.num_chance_nodes)
    assert list(a.terminal_nodes) == list(b.terminal_nodes)
    for field in ("terminal_sequences", "terminal_chance", "terminal_payoffs"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    assert a.terminal_chance_exact == b.terminal_chance_exact
    assert a.terminal_payoffs_exact == b.terminal_payoffs_exact
    for p, q in zip(a.players, b.players, strict=True):
        for field in ("infoset_labels", "infoset_actions", "num_sequences", "num_decision_nodes"):
            assert getattr(p, field) == getattr(q, field), field
        for field in ("infoset_parent_seq", "infoset_first_seq", "infoset_depth", "seq_infoset",
                      "seq_action"):
            assert np.array_equal(getattr(p, field), getattr(q, field)), field


def records_of(graph: nx.DiGraph, root=0) -> FlatTree:
    """Preorder records of a networkx game tree (children in edge order)."""
    records, stack = [], [(root, -1, 0)]
    while stack:
        node, parent, position = stack.pop()
        index = len(records)
        data = graph.nodes[node]
        children = list(graph.successors(node))
        labels = tuple(str(graph.edges[node, c]["action"]) for c in children)
        if data["kind"] == "terminal":
            records.append((parent, position, "terminal", (), data["payoffs"], None, None))
        elif data["kind"] == "chance":
            probs = tuple(graph.edges[node, c]["prob"] for c in children)
            records.append((parent, position, "chance", labels, probs, None, None))
        else:
            records.append((parent, position, "decision", labels, None, data["player"],
                            data["infoset"]))
        stack.extend((c, index, k) for k, c in reversed(list(enumerate(children))))
    return FlatTree(records)


def brute_force_graph(rules) -> nx.DiGraph:
    """The rules expanded recursively into a networkx tree, nodes numbered in preorder."""
    graph = nx.DiGraph()

    def grow(state) -> int:
        node = graph.number_of_nodes()
        who = rules.current_player(state)
        if who == TERMINAL_PLAYER:
            graph.add_node(node, kind="terminal", payoffs=tuple(rules.payoffs(state)))
            return node
        if who == CHANCE_PLAYER:
            graph.add_node(node, kind="chance")
            for action, prob in rules.chance_outcomes(state):
                graph.add_edge(node, grow(rules.apply(state, action)), action=str(action),
                               prob=prob)
            return node
        graph.add_node(node, kind="decision", player=who, infoset=str(rules.infoset_key(state)))
        for action in rules.legal_actions(state):
            graph.add_edge(node, grow(rules.apply(state, action)), action=str(action))
        return node

    grow(rules.initial_state())
    return graph


@pytest.mark.parametrize("name,params", CATALOG, ids=[f"{n}{p}" for n, p in CATALOG])
def test_catalog_index_equals_the_graph_builders(name, params):
    game = lpgame.games.make(name, **params)
    assert game._graph is None                       # no graph until asked for
    assert_same_index(game.index, build_tree_index(game.graph, 0, game.num_players))


def test_lazy_graph_equals_a_brute_force_expansion_of_the_rules():
    from lpgame.games.leduc import LeducRules
    from lpgame.games.poker import KuhnRules

    for rules in (KuhnRules(2, 3), KuhnRules(3, 4), LeducRules(2, 1, 3, 2, "cards")):
        game = expand(rules)
        assert nx.utils.graphs_equal(game.graph, brute_force_graph(rules))
        assert game.graph is game.graph                  # made once


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(two_player_trees(payoffs=fraction_payoffs(-10**12, 10**12, (1, 3, 10**12))))
def test_random_trees_index_the_same_both_ways(game):
    tree = records_of(game.graph)
    assert_same_index(index_flat_tree(tree, 2), game.index)
    assert nx.utils.graphs_equal(tree.to_graph(), game.graph)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(two_player_trees(payoffs=fraction_payoffs(-3, 3)))
def test_random_trees_round_trip_through_the_fast_efg_path(game):
    text = efg_text(game)
    fast, careful = _fast_parse(text), _EfgParser(text, None).parse()
    assert nx.utils.graphs_equal(fast.graph, careful.graph)
    assert_same_index(fast.index, careful.index)
    assert_same_index(fast.index, build_tree_index(fast.graph, 0, 2))


def test_efg_fast_path_reads_the_models_as_the_careful_parser(tmp_path):
    from pathlib import Path

    models = sorted((Path(__file__).parent.parent / "models").glob("*.efg"))
    assert models
    for path in models:
        text = path.read_text(encoding="utf-8")
        fast, careful = _fast_parse(text), _EfgParser(text, str(path)).parse()
        assert nx.utils.graphs_equal(fast.graph, careful.graph)
        assert fast.graph.graph == careful.graph.graph
        assert (fast.name, fast.player_names) == (careful.name, careful.player_names)
        assert_same_index(fast.index, careful.index)


def test_efg_faults_are_still_reported_with_their_line():
    text = efg_text(lpgame.games.make("kuhn_poker"))
    bad_sum = text.replace('"K-Q" 1/6', '"K-Q" 1/5', 1)
    with pytest.raises(GameFileError, match=r"sum to 31/30, not 1") as info:
        parse_efg(bad_sum, "kuhn.efg")
    assert "line 4" in str(info.value)
    lines = text.splitlines()
    assert lines[6].startswith('t "" 1 "Outcome 1"')
    lines[6] = 't "" 9'                                  # an outcome never declared
    with pytest.raises(GameFileError, match="outcome 9 is used before") as info:
        parse_efg("\n".join(lines) + "\n", "kuhn.efg")
    assert "line 7" in str(info.value)


class _Rules:
    """One chance move then one move of player 1; each fault is switched on by a keyword."""

    num_players = 1
    name = "faulty"

    def __init__(self, **fault):
        self.fault = fault

    def initial_state(self):
        return ()

    def current_player(self, s):
        if not s:
            return CHANCE_PLAYER
        return self.fault.get("player", 0) if len(s) == 1 else TERMINAL_PLAYER

    def chance_outcomes(self, s):
        return self.fault.get("chance", [("h", Fraction(1, 2)), ("t", Fraction(1, 2))])

    def legal_actions(self, s):
        return self.fault.get("actions", ["a", "b"])

    def apply(self, s, a):
        return s + (a,)

    def infoset_key(self, s):
        return "I" if not self.fault.get("peek") else f"I{s[0]}"

    def payoffs(self, s):
        return self.fault.get("payoffs", (1 if s[1] == "a" else 0,))


@pytest.mark.parametrize("fault,message", [
    ({"chance": [("h", Fraction(1, 2)), ("t", Fraction(1, 3))]}, "sum to 5/6, not 1"),
    ({"chance": [("h", 0.5), ("t", 0.4)]}, "sum to 0.9, not 1"),
    ({"chance": [("h", -0.5), ("t", 1.5)]}, "finite and non-negative"),
    ({"chance": [("h", 0.5), ("h", 0.5)]}, "repeated action labels"),
    ({"actions": ["a", "a"]}, "repeated action labels"),
    ({"actions": []}, "decision node 1 has no children"),
    ({"player": 3}, "has player 3; expected 0..0"),
    ({"payoffs": (1, 2)}, "needs 1 payoffs"),
    ({"payoffs": (math.inf,)}, "not finite"),
    ({"payoffs": ("x",)}, "not a number"),
])
def test_faults_of_rules_are_refused_as_before(fault, message):
    with pytest.raises(InvalidGameError, match=message):
        expand(_Rules(**fault))
    # the graph path refuses the same fault with the same words
    with pytest.raises(InvalidGameError, match=message):
        lpgame.Game(brute_force_graph(_Rules(**fault)), 1, root=0)


def test_exact_reach_is_made_on_demand_and_none_below_inexact_floats():
    exact = expand(_Rules(chance=[("h", Fraction(1, 3)), ("t", Fraction(2, 3))]))
    assert exact.index._chance_exact is None
    assert exact.index.terminal_chance_exact == [Fraction(1, 3)] * 2 + [Fraction(2, 3)] * 2
    thirds = expand(_Rules(chance=[("h", 1 / 3), ("t", 2 / 3)]))
    reference = build_tree_index(thirds.graph, 0, 1)
    assert thirds.index.terminal_chance_exact == reference.terminal_chance_exact
    decimals = expand(_Rules(chance=[("h", 0.1), ("t", 0.9)]))
    assert decimals.index.terminal_chance_exact == [Fraction(1, 10)] * 2 + [Fraction(9, 10)] * 2


@pytest.mark.parametrize("spec", ["kuhn_poker", "kuhn_poker(players=3)", "leduc_poker"])
def test_openspiel_import_indexes_as_the_graph_builder(spec):
    pytest.importorskip("pyspiel")
    from lpgame.io.openspiel import game_from_openspiel

    game = game_from_openspiel(spec)
    assert game._graph is None
    assert_same_index(game.index, build_tree_index(game.graph, 0, game.num_players))
    # OpenSpiel's own count of histories, chance and terminal included
    import pyspiel

    def count(state) -> int:
        if state.is_terminal():
            return 1
        actions = ([a for a, _ in state.chance_outcomes()] if state.is_chance_node()
                   else state.legal_actions())
        return 1 + sum(count(state.child(a)) for a in actions)

    assert game.index.num_nodes == count(pyspiel.load_game(spec).new_initial_state())
