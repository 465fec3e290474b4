"""The faster builders of the correlation DAG and the team belief DAG against the builders they
replaced, and the correlation DAG's size count against the built DAG.

The references (tests/dag_builders_reference.py, tests/team_belief_dag_reference.py) are the
constructions as they were at cc59adf, kept verbatim: the new builders must give the same DAG,
array for array, on catalog games and random games (timeable three-player games, random team
games); :func:`count_correlation_dag` must give the built DAG's sizes exactly.
"""

from __future__ import annotations

import numpy as np
import pytest
from correlated_reference import timeable_trees
from dag_builders_reference import build_correlation_dag_reference
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from random_team_games import team_games
from team_belief_dag_reference import build_team_belief_dag_reference

import lpgame
from lpgame.equilibria.correlated.correlation_dag import (
    build_correlation_dag,
    count_correlation_dag,
)
from lpgame.equilibria.teams.team_belief_dag import build_team_belief_dag, team_tree_game

FIELDS = ("edge_belief", "child_edge", "child_belief", "leaf_edge", "leaf_id", "root_beliefs",
          "root_leaves", "leaf_tag", "leaf_terminal", "tag_player", "tag_infoset", "tag_action")


def assert_same_dag(new, old) -> None:
    assert new.belief_keys == old.belief_keys
    assert new.edge_actions == old.edge_actions
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(new, name), getattr(old, name), err_msg=name)
    assert new.stats == old.stats


def assert_count_is_the_size(game, concept, dag) -> None:
    count = count_correlation_dag(game, concept)
    assert count["complete"]
    assert (count["beliefs"], count["edges"], count["children"], count["leaf_pairs"]) == (
        dag.num_beliefs, dag.num_edges, dag.child_edge.size, dag.leaf_edge.size)


CATALOG = [("kuhn_poker", {"players": 3, "cards": 3}), ("kuhn_poker", {"players": 3, "cards": 4}),
           ("kuhn_poker", {"players": 2, "cards": 3}),
           ("leduc_poker", {"players": 2, "bets": 1, "ranks": 2, "suits": 2}),
           ("liars_dice", {"players": 3, "faces": 2})]


@pytest.mark.parametrize("concept", ["efce", "efcce", "nfcce"])
@pytest.mark.parametrize("name, params", CATALOG[:4])
def test_new_builder_and_count_equal_the_reference_on_catalog_games(name, params, concept):
    game = team_tree_game(lpgame.games.make(name, **params))
    dag = build_correlation_dag(game, concept)
    assert_same_dag(dag, build_correlation_dag_reference(game, concept))
    assert_count_is_the_size(game, concept, dag)


@pytest.mark.slow
def test_new_builder_equals_the_reference_on_d32():
    game = team_tree_game(lpgame.games.make(*CATALOG[4][:1], **CATALOG[4][1]))
    dag = build_correlation_dag(game, "efce")
    assert_same_dag(dag, build_correlation_dag_reference(game, "efce"))
    assert_count_is_the_size(game, "efce", dag)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=timeable_trees(), concept=st.sampled_from(["efce", "efcce", "nfcce"]))
def test_new_builder_and_count_equal_the_reference_on_random_three_player_games(game, concept):
    dag = build_correlation_dag(game, concept)
    assert_same_dag(dag, build_correlation_dag_reference(game, concept))
    assert_count_is_the_size(game, concept, dag)


def test_the_count_stops_past_the_cap_with_a_lower_bound():
    game = team_tree_game(lpgame.games.make("kuhn_poker", players=3, cards=4))
    full = count_correlation_dag(game, "efce")
    partial = count_correlation_dag(game, "efce", max_edges=1000)
    assert not partial["complete"] and 1000 < partial["edges"] <= full["edges"]


# ---------------------------------------------------------------- the team belief DAG
def assert_same_team_dag(new, old) -> None:
    assert (new.members, new.num_leaves) == (old.members, old.num_leaves)
    assert new.belief_infosets == old.belief_infosets
    assert new.belief_histories == old.belief_histories
    assert new.edge_actions == old.edge_actions
    for name in ("edge_belief", "child_edge", "child_belief", "leaf_edge", "leaf_index",
                 "root_beliefs", "root_leaves"):
        np.testing.assert_array_equal(getattr(new, name), getattr(old, name), err_msg=name)
    assert new.stats == old.stats


TEAM_CATALOG = [("kuhn_poker", {"players": 3, "cards": 3}, (0, 1)),
                ("kuhn_poker", {"players": 3, "cards": 4}, (0, 2)),
                ("kuhn_poker", {"players": 3, "cards": 5}, (1, 2)),
                ("leduc_poker", {"players": 3, "bets": 1, "ranks": 2, "suits": 2}, (0, 1)),
                ("liars_dice", {"players": 3, "faces": 2}, (0, 1)),
                ("kuhn_poker", {"players": 2, "cards": 3}, (1,))]


@pytest.mark.parametrize("name, params, team", TEAM_CATALOG)
def test_team_belief_dag_builder_equals_the_reference(name, params, team):
    game = team_tree_game(lpgame.games.make(name, **params))
    assert_same_team_dag(build_team_belief_dag(game, team),
                         build_team_belief_dag_reference(game, team))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=team_games())
def test_team_belief_dag_builder_equals_the_reference_on_random_team_games(game):
    tree = team_tree_game(game)
    assert_same_team_dag(build_team_belief_dag(tree, (0, 1)),
                         build_team_belief_dag_reference(tree, (0, 1)))


@pytest.mark.slow
@pytest.mark.parametrize("name, params", [("liars_dice", {"players": 3, "faces": 3}),
                                          ("kuhn_poker", {"players": 3, "cards": 6})])
def test_team_belief_dag_builder_equals_the_reference_on_d33_and_k36(name, params):
    game = team_tree_game(lpgame.games.make(name, **params))
    assert_same_team_dag(build_team_belief_dag(game, (0, 1)),
                         build_team_belief_dag_reference(game, (0, 1)))


def test_team_belief_dag_builder_is_exact_when_every_hash_collides(monkeypatch):
    """The builder groups child beliefs by random sums over their histories; with all sums zero
    every group collides, and the fallbacks must still give the reference DAG."""
    import lpgame.equilibria.teams.team_belief_dag as tbd

    init = tbd._TeamTree.__init__

    def zero_hashes(self, *args):
        init(self, *args)
        self.node_hash[:] = 0
    monkeypatch.setattr(tbd._TeamTree, "__init__", zero_hashes)
    game = team_tree_game(lpgame.games.make("kuhn_poker", players=3, cards=4))
    assert_same_team_dag(build_team_belief_dag(game, (0, 2)),
                         build_team_belief_dag_reference(game, (0, 2)))


# ---------------------------------------------------------------- refusal past the cap
def _figures(message: str) -> list[int]:
    import re
    return [int(x.replace(",", "")) for x in re.findall(r"\d[\d,]*", message)]


@pytest.mark.parametrize("cap", [1, 500, 5_000, 27_355])
def test_the_correlation_dag_is_refused_past_the_cap_with_a_sound_lower_bound(cap):
    """The refusal comes from the beliefs found so far (all in the DAG), so the figure it gives
    is a lower bound on the size counted by count_correlation_dag, above the cap; and the
    concepts that still apply are named. K34's DAG has 27,356 prescriptions."""
    from lpgame.errors import ModelTooLargeError

    game = team_tree_game(lpgame.games.make("kuhn_poker", players=3, cards=4))
    with pytest.raises(ModelTooLargeError) as info:
        build_correlation_dag(game, "efce", max_edges=cap)
    message = str(info.value)
    assert f"more than {cap:,} prescriptions" in message
    assert "column_generation" in message and "ce / cce" in message
    *_, found, expanded, lower = _figures(message.split("the cap")[1])
    assert cap < lower <= 27_356 and expanded <= found <= 5_708
    partial = count_correlation_dag(game, "efce", max_edges=cap)
    assert not partial["complete"] and partial["edges"] == lower
    assert build_correlation_dag(game, "efce", max_edges=27_356).num_edges == 27_356


def test_the_team_belief_dag_is_refused_past_the_cap_with_a_sound_lower_bound():
    from lpgame.errors import ModelTooLargeError

    game = team_tree_game(lpgame.games.make("kuhn_poker", players=3, cards=5))
    size = build_team_belief_dag(game, (0, 1)).num_edges
    for cap in (10, size // 3, size - 1):
        with pytest.raises(ModelTooLargeError, match="column_generation") as info:
            build_team_belief_dag(game, (0, 1), max_edges=cap)
        lower = _figures(str(info.value))[-1]
        assert f"more than {cap:,} prescriptions" in str(info.value)
        assert cap < lower <= size
    assert build_team_belief_dag(game, (0, 1), max_edges=size).num_edges == size


# ---------------------------------------------------------------- the team's best response on the DAG
def _random_opponent_plan(sf, player: int, rng) -> np.ndarray:
    p = sf.players[player]
    behaviour = np.zeros(p.num_sequences)
    behaviour[0] = 1.0
    for j in range(p.num_infosets):
        first, k = int(p.infoset_first_seq[j]), int(p.infoset_num_actions[j])
        behaviour[first:first + k] = rng.dirichlet(np.ones(k))
    return sf.plan_from_behaviour(player, behaviour)


@pytest.mark.parametrize("name, params, team", [
    ("kuhn_poker", {"players": 3, "cards": 3}, (1, 2)),
    ("kuhn_poker", {"players": 3, "cards": 4}, (1, 3)),
    ("leduc_poker", {"players": 3, "bets": 1, "ranks": 2, "suits": 2}, (1, 2))])
def test_the_dag_best_response_equals_the_milp_certificate(name, params, team):
    """The team's best response by the maximum over the DAG equals the one the independent
    certificate computes with its MILP (lpgame.analysis.team_gaps), against random opponent
    plans."""
    from lpgame.analysis.team_gaps import team_best_response
    from lpgame.compile import compile_game
    from lpgame.equilibria.teams.tmecor_learning import DagPasses, dag_team_best_response
    from lpgame.equilibria.teams.tmecor_team import make_team

    tree = team_tree_game(lpgame.games.make(name, **params))
    sf = compile_game(tree)
    t = make_team(sf, team)
    dag = build_team_belief_dag(tree, t.members)
    passes = DagPasses(dag)
    rng = np.random.default_rng(7)
    span = float(np.abs(t.leaf_weight).sum())
    for _ in range(3):
        y = _random_opponent_plan(sf, t.opponent, rng)
        milp = team_best_response(sf, t.members, t.opponent, y, method="milp")
        assert milp.optimal
        assert dag_team_best_response(t, dag, y, passes) == pytest.approx(milp.value,
                                                                          abs=1e-9 * span)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=team_games(), seed=st.integers(0, 2**31 - 1))
def test_the_dag_best_response_equals_enumeration_on_random_team_games(game, seed):
    from lpgame.analysis.team_gaps import team_best_response
    from lpgame.compile import compile_game
    from lpgame.equilibria.teams.tmecor_learning import dag_team_best_response
    from lpgame.equilibria.teams.tmecor_team import make_team

    tree = team_tree_game(game)
    sf = compile_game(tree)
    t = make_team(sf, (1, 2))
    y = _random_opponent_plan(sf, t.opponent, np.random.default_rng(seed))
    reference = team_best_response(sf, t.members, t.opponent, y, method="enumeration")
    dag = build_team_belief_dag(tree, t.members)
    assert dag_team_best_response(t, dag, y) == pytest.approx(reference.value, abs=1e-9)
