"""Game construction refuses every malformed game with InvalidGameError naming the fault's place.

The faults are those of the game model (Kuhn 1953 / Farina 2023 §2.1, notes/farina-thesis.md §1.1):
the graph must be a rooted tree, nodes must be chance/decision/terminal, chance must be a
probability distribution, payoffs finite with one per player, information sets belong to one
player and share one action set, and every player has perfect recall (Farina 2023, Def. 2.1),
which also rules out absent-mindedness. Each test builds the smallest game with one fault and
checks both the exception class and that the message names the node or information set.
"""

from __future__ import annotations

import math
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest

from lpgame import Game, GameBuilder, InvalidGameError, NormalFormGame, expand
from lpgame.game.rules import TERMINAL_PLAYER


def small_tree() -> nx.DiGraph:
    """A valid two-player tree: player 1 at "root" chooses L or R; both end the game."""
    g = nx.DiGraph()
    g.add_node("root", kind="decision", player=0, infoset="P1 root")
    g.add_node("left", kind="terminal", payoffs=(1, -1))
    g.add_node("right", kind="terminal", payoffs=(-1, 1))
    g.add_edge("root", "left", action="L")
    g.add_edge("root", "right", action="R")
    return g


def chance_tree(probs) -> nx.DiGraph:
    """A chance root "deal" with one leaf per probability."""
    g = nx.DiGraph()
    g.add_node("deal", kind="chance")
    for k, p in enumerate(probs):
        g.add_node(f"leaf{k}", kind="terminal", payoffs=(k, -k))
        g.add_edge("deal", f"leaf{k}", action=f"outcome{k}", prob=p)
    return g


def refuses(graph: nx.DiGraph, *names: str, num_players: int = 2, root=None) -> str:
    """Assert that Game(graph) raises InvalidGameError whose message contains every name."""
    with pytest.raises(InvalidGameError) as info:
        Game(graph, num_players, root=root)
    message = str(info.value)
    for name in names:
        assert name in message, f"{name!r} not named in {message!r}"
    return message


def test_the_valid_base_tree_is_accepted():
    game = Game(small_tree(), 2)
    assert game.sizes()["infosets"] == [1, 0]


# ---------------------------------------------------------------------------- not a tree
def test_node_with_two_parents():
    g = small_tree()
    g.add_node("p2", kind="decision", player=1, infoset="P2 middle")
    g.add_edge("root", "p2", action="M")
    g.add_edge("p2", "left", action="x")     # "left" now has parents root and p2
    g.add_node("own", kind="terminal", payoffs=(0, 0))
    g.add_edge("p2", "own", action="y")
    refuses(g, "'left'", "not a tree")


def test_cycle_below_the_root():
    g = small_tree()
    g.add_node("a", kind="decision", player=1, infoset="A")
    g.add_node("b", kind="decision", player=1, infoset="B")
    g.add_edge("root", "a", action="M")
    g.add_edge("a", "b", action="down")
    g.add_edge("b", "a", action="up")
    refuses(g, "'a'", "not a tree")


def test_cycle_through_every_node_has_no_root():
    g = nx.DiGraph()
    g.add_node("u", kind="decision", player=0, infoset="U")
    g.add_node("w", kind="decision", player=0, infoset="W")
    g.add_edge("u", "w", action="go")
    g.add_edge("w", "u", action="back")
    message = refuses(g, "cycle", num_players=1)
    assert "'u'" in message or "'w'" in message


def test_unreachable_node():
    g = small_tree()
    g.add_node("island", kind="terminal", payoffs=(0, 0))
    refuses(g, "'island'", "not reachable", root="root")


def test_unreachable_cycle_is_reported_as_unreachable():
    g = small_tree()
    g.add_node("c1", kind="decision", player=1, infoset="C1")
    g.add_node("c2", kind="decision", player=1, infoset="C2")
    g.add_edge("c1", "c2", action="a")
    g.add_edge("c2", "c1", action="b")
    refuses(g, "'c1'", "'c2'", "not reachable")


def test_two_roots():
    g = small_tree()
    g.add_node("second root", kind="terminal", payoffs=(0, 0))
    refuses(g, "'root'", "'second root'", "one root")


def test_given_root_with_a_parent_or_missing():
    g = small_tree()
    refuses(g, "'left'", root="left")
    refuses(g, "'nowhere'", root="nowhere")


# ---------------------------------------------------------------------------- node kinds
def test_unknown_node_kind():
    g = small_tree()
    g.nodes["left"]["kind"] = "leaf"
    refuses(g, "'left'", "'leaf'")


def test_missing_node_kind():
    g = small_tree()
    del g.nodes["right"]["kind"]
    refuses(g, "'right'", "kind")


def test_terminal_with_children():
    g = small_tree()
    g.add_node("after", kind="terminal", payoffs=(0, 0))
    g.add_edge("left", "after", action="more")
    refuses(g, "terminal node 'left'", "children")


@pytest.mark.parametrize("kind", ["decision", "chance"])
def test_non_terminal_without_children(kind):
    g = small_tree()
    attrs = {"kind": kind}
    if kind == "decision":
        attrs.update(player=1, infoset="P2 dead end")
    g.add_node("dead end", **attrs)
    g.add_edge("root", "dead end", action="M")
    refuses(g, "'dead end'", "no children")


# ---------------------------------------------------------------------------- actions
def test_missing_action_label():
    g = small_tree()
    del g.edges["root", "left"]["action"]
    refuses(g, "'root'", "'left'", "no action label")


def test_repeated_action_label():
    g = small_tree()
    g.edges["root", "left"]["action"] = "R"
    refuses(g, "'root'", "repeated action labels")


def test_repeated_action_label_after_conversion_to_text():
    # labels are stored as text: 1 and "1" are the same action label
    g = small_tree()
    g.edges["root", "left"]["action"] = 1
    g.edges["root", "right"]["action"] = "1"
    refuses(g, "'root'", "repeated action labels")


# ---------------------------------------------------------------------------- chance
@pytest.mark.parametrize("probs", [[Fraction(3, 2), Fraction(-1, 2)], [1.5, -0.5], [2, -1]])
def test_negative_probability(probs):
    refuses(chance_tree(probs), "'deal'", "'outcome1'", "non-negative")


@pytest.mark.parametrize("probs,total", [
    ([Fraction(1, 3), Fraction(1, 3)], "2/3"),
    ([Fraction(1, 3), Fraction(2, 3) + Fraction(1, 10 ** 15)], "1000000000000001/1000000000000000"),
    ([Fraction(1, 2), Fraction(1, 2), Fraction(1, 7)], "8/7"),
])
def test_exact_probabilities_must_sum_to_exactly_one(probs, total):
    refuses(chance_tree(probs), "'deal'", total, "not 1")


def test_float_probabilities_must_sum_to_one():
    refuses(chance_tree([0.3, 0.3]), "'deal'", "0.6", "not 1")
    refuses(chance_tree([0.5, 0.5 + 1e-6]), "'deal'", "not 1")


def test_float_probabilities_within_tolerance_are_accepted():
    game = Game(chance_tree([0.1, 0.2, 0.7]), 2)
    assert math.isclose(game.index.terminal_chance.sum(), 1.0)
    # 0.1, 0.2, 0.7 read as the decimals they print as: exact data is available
    assert game.index.terminal_chance_exact == [Fraction(1, 10), Fraction(1, 5), Fraction(7, 10)]


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "half"])
def test_probability_that_is_not_a_finite_number(bad):
    refuses(chance_tree([bad, 0.5, 0.5]), "'deal'", "'outcome0'")


def test_chance_edge_without_probability():
    g = chance_tree([Fraction(1, 2), Fraction(1, 2)])
    del g.edges["deal", "leaf1"]["prob"]
    refuses(g, "'deal'", "'leaf1'", "no prob")


# ---------------------------------------------------------------------------- payoffs
@pytest.mark.parametrize("payoffs", [(float("nan"), 0.0), (0, float("inf")), (-np.inf, 1)])
def test_payoff_not_finite(payoffs):
    g = small_tree()
    g.nodes["left"]["payoffs"] = payoffs
    refuses(g, "'left'", "not finite")


@pytest.mark.parametrize("payoffs", [(1, 2, 3), (1,), None, 5, "12"])
def test_wrong_number_of_payoffs(payoffs):
    g = small_tree()
    if payoffs is None:
        del g.nodes["left"]["payoffs"]
    else:
        g.nodes["left"]["payoffs"] = payoffs
    refuses(g, "'left'", "needs 2 payoffs")


def test_payoff_that_is_not_a_number():
    g = small_tree()
    g.nodes["left"]["payoffs"] = ("win", 0)
    refuses(g, "'left'", "not a number")


# ---------------------------------------------------------------------------- decision nodes
def test_decision_node_without_infoset():
    g = small_tree()
    del g.nodes["root"]["infoset"]
    refuses(g, "'root'", "no information set")


@pytest.mark.parametrize("player", [2, -1, None, "0", 1.0, True])
def test_decision_node_with_bad_player(player):
    g = small_tree()
    g.nodes["root"]["player"] = player
    refuses(g, "'root'", repr(player))


def test_infoset_shared_by_two_players():
    g = small_tree()
    g.add_node("p2", kind="decision", player=1, infoset="P1 root")
    g.add_edge("root", "p2", action="M")
    g.add_node("end", kind="terminal", payoffs=(0, 0))
    g.add_edge("p2", "end", action="x")
    refuses(g, "'P1 root'", "'p2'", "player 1", "player 2")


def _chance_then_one_infoset(actions_after_heads, actions_after_tails) -> nx.DiGraph:
    """Chance picks heads/tails; player 1 moves without seeing it, in information set "guess"."""
    g = nx.DiGraph()
    g.add_node("coin", kind="chance")
    for outcome, actions in (("heads", actions_after_heads), ("tails", actions_after_tails)):
        g.add_node(outcome, kind="decision", player=0, infoset="guess")
        g.add_edge("coin", outcome, action=outcome, prob=Fraction(1, 2))
        for a in actions:
            g.add_node(f"{outcome}-{a}", kind="terminal", payoffs=(0, 0))
            g.add_edge(outcome, f"{outcome}-{a}", action=a)
    return g


def test_information_set_with_the_same_actions_is_accepted():
    game = Game(_chance_then_one_infoset("xy", "yx"), 2)
    assert game.actions(0, "guess") == ("x", "y")


@pytest.mark.parametrize("tails_actions", ["xz", "xyz", "x"])
def test_different_action_sets_in_one_information_set(tails_actions):
    refuses(_chance_then_one_infoset("xy", tails_actions), "'guess'", "'tails'", "actions")


# ---------------------------------------------------------------------------- perfect recall
def test_player_forgets_own_earlier_action():
    b = GameBuilder(2)
    root = b.decision(0, "first")
    for a in ("L", "R"):
        n = b.decision(0, "second", parent=root, action=a)
        for c in ("x", "y"):
            b.terminal((0, 0), parent=n, action=c)
    with pytest.raises(InvalidGameError, match="'second'.*perfect recall") as info:
        b.build()
    assert "first:L" in str(info.value) and "first:R" in str(info.value)


def test_player_forgets_own_action_across_an_opponent_move():
    b = GameBuilder(2)
    root = b.decision(0, "first")
    for a in ("L", "R"):
        opp = b.decision(1, "opponent", parent=root, action=a)
        for o in ("u", "v"):
            n = b.decision(0, "second", parent=opp, action=o)
            for c in ("x", "y"):
                b.terminal((0, 0), parent=n, action=c)
    with pytest.raises(InvalidGameError, match="'second' of player 1 violates perfect recall"):
        b.build()


def test_player_forgets_what_it_observed():
    b = GameBuilder(2)
    coin = b.chance()
    for o in ("H", "T"):
        seen = b.decision(0, f"saw {o}", parent=coin, action=o, prob=Fraction(1, 2))
        for a in ("a", "b"):
            later = b.decision(0, "later", parent=seen, action=a)
            for c in ("x", "y"):
                b.terminal((0, 0), parent=later, action=c)
    with pytest.raises(InvalidGameError, match="'later'.*perfect recall"):
        b.build()


@pytest.mark.parametrize("descendant_first", [False, True])
def test_absent_minded_information_set(descendant_first):
    # the absent-minded driver: a node and its descendant share the information set "I"
    b = GameBuilder(1)
    root = b.decision(0, "I")
    if not descendant_first:
        b.terminal((0,), parent=root, action="exit")
    child = b.decision(0, "I", parent=root, action="continue")
    b.terminal((4,), parent=child, action="exit")
    b.terminal((1,), parent=child, action="continue")
    if descendant_first:
        b.terminal((0,), parent=root, action="exit")
    with pytest.raises(InvalidGameError, match="'I' of player 1 violates perfect recall"):
        b.build()


class _Rules:
    """Base rules object: player 1 moves twice ("a" or "b"), nothing else happens."""

    num_players = 1
    name = "two moves"

    def initial_state(self):
        return ()

    def current_player(self, state):
        return 0 if len(state) < 2 else TERMINAL_PLAYER

    def legal_actions(self, state):
        return ["a", "b"]

    def chance_outcomes(self, state):
        return []

    def apply(self, state, action):
        return state + (action,)

    def infoset_key(self, state):
        return "move " + " ".join(state)

    def payoffs(self, state):
        return (1 if state == ("a", "b") else 0,)


class _ForgetfulRules(_Rules):
    def infoset_key(self, state):
        return f"move {len(state)}"   # the second move forgets the first


class _SharedKeyRules(_Rules):
    num_players = 2

    def current_player(self, state):
        return len(state) if len(state) < 2 else TERMINAL_PLAYER

    def infoset_key(self, state):
        return "everyone"

    def payoffs(self, state):
        return (0, 0)


def test_rules_with_perfect_recall_expand():
    assert expand(_Rules()).sizes()["infosets"] == [3]


def test_rules_whose_keys_violate_perfect_recall_are_refused_on_expansion():
    with pytest.raises(InvalidGameError, match="'move 1' of player 1 violates perfect recall"):
        expand(_ForgetfulRules())


def test_rules_whose_key_is_shared_by_two_players_are_refused_on_expansion():
    with pytest.raises(InvalidGameError, match="'everyone'.*player 1.*player 2"):
        expand(_SharedKeyRules())


# ---------------------------------------------------------------------------- whole-game faults
def test_empty_graph_zero_players_and_wrong_graph_type():
    with pytest.raises(InvalidGameError, match="empty"):
        Game(nx.DiGraph(), 2)
    with pytest.raises(InvalidGameError, match="num_players=0"):
        Game(small_tree(), 0)
    with pytest.raises(InvalidGameError, match="DiGraph"):
        Game(nx.Graph(small_tree()), 2)


# ---------------------------------------------------------------------------- normal form
@pytest.mark.parametrize("payoffs,message", [
    ([[1, 2], [3, 4]], "need 3 dimensions"),
    (np.zeros((3, 2, 2)), "3 players need 4 dimensions"),
    (np.zeros((2, 2, 2, 2)), "2 players need 3 dimensions"),
    (5, "shape"),
    ([[[1, 2], [3]], [[1, 2], [3, 4]]], "dimensions"),
    (np.zeros((2, 0, 3)), "player 1 has no strategy"),
    (np.zeros((2, 3, 0)), "player 2 has no strategy"),
])
def test_normal_form_bad_shapes(payoffs, message):
    with pytest.raises(InvalidGameError, match=message):
        NormalFormGame(payoffs, name="bad game")


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "x", None])
def test_normal_form_payoff_not_a_finite_number(bad):
    payoffs = np.zeros((2, 2, 3), dtype=object)
    payoffs[1, 1, 2] = bad
    with pytest.raises(InvalidGameError, match=r"bad game: payoff of player 2 at profile \(1, 2\)"):
        NormalFormGame(payoffs, name="bad game")


def test_normal_form_bad_action_labels():
    with pytest.raises(InvalidGameError, match="do not match"):
        NormalFormGame(np.zeros((2, 2, 3)), actions=[["a", "b"], ["c", "d"]])
    with pytest.raises(InvalidGameError, match="player 1 has repeated action labels"):
        NormalFormGame(np.zeros((2, 2, 2)), actions=[["a", "a"], ["c", "d"]])


# ---------------------------------------------------------------------------- GameBuilder misuse
def test_builder_unknown_parent():
    b = GameBuilder(2)
    b.decision(0, "I")
    with pytest.raises(InvalidGameError, match="parent node 7 does not exist"):
        b.terminal((0, 0), parent=7, action="a")


def test_builder_edge_without_action():
    b = GameBuilder(2)
    root = b.decision(0, "I")
    with pytest.raises(InvalidGameError, match="from 0 to new node 1 needs an action"):
        b.terminal((0, 0), parent=root)


def test_builder_chance_edge_without_probability():
    b = GameBuilder(2)
    root = b.chance()
    with pytest.raises(InvalidGameError, match=r"chance edge 0 -> 1 \(heads\) needs a prob"):
        b.terminal((0, 0), parent=root, action="heads")


def test_builder_probability_on_a_decision_edge():
    b = GameBuilder(2)
    root = b.decision(0, "I")
    with pytest.raises(InvalidGameError, match="only chance edges have a prob"):
        b.terminal((0, 0), parent=root, action="a", prob=Fraction(1, 2))


def test_builder_second_root():
    b = GameBuilder(2)
    b.decision(0, "I")
    with pytest.raises(InvalidGameError, match="node 1 has no parent"):
        b.terminal((0, 0))


def test_builder_refused_call_leaves_the_game_unchanged():
    b = GameBuilder(2)
    root = b.decision(0, "I")
    for misuse in (lambda: b.terminal((0, 0)), lambda: b.terminal((0, 0), parent=root),
                   lambda: b.terminal((0, 0), parent=root, action="a", prob=1)):
        with pytest.raises(InvalidGameError):
            misuse()
    b.terminal((1, -1), parent=root, action="a")
    b.terminal((-1, 1), parent=root, action="b")
    game = b.build()
    assert game.sizes()["nodes"] == 3


def test_builder_empty_and_dangling_decision():
    with pytest.raises(InvalidGameError, match="empty"):
        GameBuilder(2).build()
    b = GameBuilder(2)
    b.decision(0, "I")
    with pytest.raises(InvalidGameError, match="decision node 0 has no children"):
        b.build()
