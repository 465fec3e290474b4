"""Property tests on random games, each checked against a computation written here, not lpgame's.

Random two-player zero-sum extensive-form games are drawn with chance nodes and several
information sets. Perfect recall holds by construction: each player's information set is labelled
by the player's *view* of the history (Farina 2023, Def. 2.1; notes/farina-thesis.md §1.1): every
own action is appended to the view, and each chance outcome or opponent action is appended or not
(drawn per node), so two nodes share a label only when the player's own action sequences agree,
and a node never shares one with its descendant (the player's own action lies between them).

The independent reference is a recursive walk over the networkx tree in this file:
* the value of a behavioural profile is the expectation u(h) = Σ_a π(h, a) u(h·a);
* a best response, for perfect-recall games, picks at each own information set (deepest first)
  the action maximising Σ_{h ∈ I} π_{−i}(h) W(h·a), where W continues with the choices already
  made below (the classical backward induction on information sets).

Checked properties: (a) the LP value equals the value of the returned profile and both players'
best-response gains are ≤ 1e-7, and the same for the double oracle's profile, whose value must
also equal the exact LP's; (b) exact mode gives a Fraction equal to the float value (1e-9)
with exact NashConv 0; (c) results and strategies survive JSON; (d) evaluate() agrees with the
tree walk for random behaviour strategies; (e) maximin strategies of random general-sum games
guarantee their values.
"""

from __future__ import annotations

import json
import tempfile
from fractions import Fraction
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from random_games import bimatrix_games, fraction_payoffs, two_player_trees, weighted_chance

import lpgame
from lpgame import Game, Result
from lpgame.io.json_io import strategies_from_json, strategies_to_json

MAX_DEPTH = 4
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ---------------------------------------------------------------------------- random games
def extensive_games(zero_sum: bool = True):
    return two_player_trees(MAX_DEPTH, zero_sum=zero_sum,
                            payoffs=fraction_payoffs(-6, 6, (1, 2, 3)),
                            chance=lambda k: weighted_chance(k, 0, 4))


def matrix_games(zero_sum: bool = True):
    return bimatrix_games(4, -5, 5, zero_sum=zero_sum, name="random matrix game")


def games(zero_sum: bool = True):
    return st.one_of(extensive_games(zero_sum), matrix_games(zero_sum).map(
        lambda g: g.to_extensive()))


# ---------------------------------------------------------------------------- tree walk
def tree_values(game: Game, strategies) -> list:
    """Expected payoffs of a behavioural profile, by recursion over the tree."""
    g = game.graph

    def walk(node):
        data = g.nodes[node]
        if data["kind"] == "terminal":
            return list(data["payoffs"])
        total = [0, 0]
        for child in g.successors(node):
            edge = g.edges[node, child]
            if data["kind"] == "chance":
                p = edge["prob"]
            else:
                p = strategies[data["player"]][data["infoset"]][edge["action"]]
            if p:
                total = [t + p * v for t, v in zip(total, walk(child))]
        return total

    return walk(game.root)


def tree_best_response_value(game: Game, player: int, strategies, payoff_of: int | None = None,
                             sign: int = 1):
    """max over the player's strategies of sign · u_{payoff_of}, by backward induction on infosets."""
    g = game.graph
    payoff_of = player if payoff_of is None else payoff_of
    members: dict[str, list] = {}     # infoset -> [(node, opponent-and-chance reach)]
    own_depth: dict[str, int] = {}

    def collect(node, reach, depth):
        data = g.nodes[node]
        if data["kind"] == "terminal":
            return
        for child in g.successors(node):
            edge = g.edges[node, child]
            if data["kind"] == "chance":
                collect(child, reach * edge["prob"], depth)
            elif data["player"] == player:
                collect(child, reach, depth + 1)
            else:
                collect(child, reach * strategies[data["player"]][data["infoset"]][edge["action"]],
                        depth)
        if data["kind"] == "decision" and data["player"] == player:
            members.setdefault(data["infoset"], []).append((node, reach))
            own_depth[data["infoset"]] = depth

    collect(game.root, 1, 0)
    choice: dict[str, object] = {}

    def worth(node):
        data = g.nodes[node]
        if data["kind"] == "terminal":
            return sign * data["payoffs"][payoff_of]
        if data["kind"] == "decision" and data["player"] == player:
            return worth(next(c for c in g.successors(node)
                              if g.edges[node, c]["action"] == choice[data["infoset"]]))
        total = 0
        for child in g.successors(node):
            edge = g.edges[node, child]
            p = edge["prob"] if data["kind"] == "chance" else \
                strategies[data["player"]][data["infoset"]][edge["action"]]
            if p:
                total += p * worth(child)
        return total

    for infoset in sorted(members, key=lambda j: -own_depth[j]):
        scores = {}
        for node, reach in members[infoset]:
            for child in g.successors(node):
                action = g.edges[node, child]["action"]
                scores[action] = scores.get(action, 0) + (reach * worth(child) if reach else 0)
        choice[infoset] = max(scores, key=scores.get)
    return worth(game.root)


def random_behaviours(game: Game, rng: np.random.Generator, exact: bool):
    out = []
    for i in range(2):
        row = {}
        for label in game.infosets(i):
            actions = game.actions(i, label)
            if exact:
                w = rng.integers(0, 4, size=len(actions))
                w[rng.integers(len(actions))] += 1
                probs = [Fraction(int(v), int(w.sum())) for v in w]
            else:
                probs = rng.dirichlet(np.ones(len(actions))).tolist()
            row[label] = dict(zip(actions, probs))
        out.append(row)
    return out


def as_floats(strategies):
    return [{j: {a: float(p) for a, p in row.items()} for j, row in s.items()} for s in strategies]


# ---------------------------------------------------------------------------- properties
def assert_equilibrium_by_tree_walk(game, result) -> None:
    """The result's value is its profile's value and no player gains more than 1e-7 by deviating
    (both by the tree walk of this file)."""
    strategies = result.strategies
    values = tree_values(game, strategies)
    assert abs(result.value - values[0]) <= 1e-7
    for i in range(2):
        gain = tree_best_response_value(game, i, strategies) - values[i]
        assert gain <= 1e-7, (i, gain)


@SETTINGS
@given(games())
def test_a_lp_value_is_the_value_of_an_equilibrium_profile(game):
    assert_equilibrium_by_tree_walk(game, lpgame.solve(game))


@SETTINGS
@given(games())
def test_a2_double_oracle_reaches_the_lp_value_with_an_equilibrium_profile(game):
    """The double oracle's profile, checked by the tree walk, and its value against the exact LP's."""
    result = lpgame.solve(game, algorithm="double_oracle")
    assert abs(result.value - float(lpgame.solve(game, exact=True).value)) <= 1e-9
    assert_equilibrium_by_tree_walk(game, result)


@SETTINGS
@given(games())
def test_a3_exact_double_oracle_is_an_exact_equilibrium_by_the_tree_walk(game):
    """Exact double oracle: the exact LP's value, and no deviation gains anything, by the tree walk
    in rational arithmetic."""
    result = lpgame.solve(game, algorithm="double_oracle", exact=True)
    assert isinstance(result.value, Fraction)
    assert result.value == lpgame.solve(game, exact=True).value
    values = tree_values(game, result.strategies)
    assert values[0] == result.value
    for i in range(2):
        assert tree_best_response_value(game, i, result.strategies) == values[i]


@SETTINGS
@given(games())
def test_b_exact_value_matches_float_value_and_is_an_exact_equilibrium(game):
    floating = lpgame.solve(game)
    exact = lpgame.solve(game, exact=True)
    assert isinstance(exact.value, Fraction)
    assert abs(float(exact.value) - floating.value) <= 1e-9
    assert exact.certificate.nash_conv == 0
    # the same, by the tree walk in rational arithmetic
    values = tree_values(game, exact.strategies)
    assert values[0] == exact.value
    for i in range(2):
        assert tree_best_response_value(game, i, exact.strategies) == values[i]


@SETTINGS
@given(games(), st.booleans())
def test_c_results_and_strategies_survive_json(game, exact):
    result = lpgame.solve(game, exact=exact)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "result.json"
        result.save(path)
        loaded = Result.load(path)
    assert loaded.to_dict() == result.to_dict()
    assert loaded.value == result.value and type(loaded.value) is type(result.value)
    assert loaded.strategies == result.strategies
    assert loaded.certificate.nash_conv == result.certificate.nash_conv
    text = json.dumps(strategies_to_json(result.strategies))
    assert strategies_from_json(json.loads(text)) == result.strategies
    # what was read back is still an equilibrium
    ev = lpgame.evaluate(game, loaded, exact=exact)
    assert ev.nash_conv == 0 if exact else ev.nash_conv <= 1e-7


@SETTINGS
@given(games(), st.integers(0, 2 ** 32 - 1))
def test_d_evaluate_agrees_with_the_tree_walk(game, seed):
    rng = np.random.default_rng(seed)
    strategies = random_behaviours(game, rng, exact=False)
    ev = lpgame.evaluate(game, strategies)
    values = [float(v) for v in tree_values(game, strategies)]
    br = [float(tree_best_response_value(game, i, strategies)) for i in range(2)]
    np.testing.assert_allclose(ev.values, values, atol=1e-10)
    np.testing.assert_allclose(ev.best_response_values, br, atol=1e-10)
    assert abs(ev.nash_conv - sum(b - v for b, v in zip(br, values))) <= 1e-10

    exact_strategies = random_behaviours(game, rng, exact=True)
    ev = lpgame.evaluate(game, exact_strategies, exact=True)
    values = tree_values(game, exact_strategies)
    br = [tree_best_response_value(game, i, exact_strategies) for i in range(2)]
    assert ev.values == values and ev.best_response_values == br
    assert ev.nash_conv == sum(b - v for b, v in zip(br, values))
    assert ev.exploitability == ev.nash_conv / 2
    # floats of the same strategies give the same numbers
    ev_float = lpgame.evaluate(game, as_floats(exact_strategies))
    np.testing.assert_allclose(ev_float.values, [float(v) for v in values], atol=1e-10)


@SETTINGS
@given(games(zero_sum=False))
def test_e_maximin_strategies_guarantee_their_values(game):
    result = lpgame.solve(game, concept="maximin", exact=True)
    for i in range(2):
        # the worst the opponent can do to player i's maximin strategy, by the tree walk
        guaranteed = -tree_best_response_value(game, 1 - i, result.strategies, payoff_of=i, sign=-1)
        assert guaranteed == result.values[i]
        # and the opponent's minimax strategy holds player i down to that value
        minimax = result.extra["minimax_strategies"]
        assert tree_best_response_value(game, i, minimax) == result.values[i]
    floating = lpgame.solve(game, concept="maximin")
    np.testing.assert_allclose(floating.values, [float(v) for v in result.values], atol=1e-9)
