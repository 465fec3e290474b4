"""TMECor by learning on the team belief DAG (lpgame.equilibria.teams.tmecor_learning,
method="learning") against references that do not use the learner: team matching pennies
(Farina 2023, Lemma 11.2: the value is 1/2), the exact DAG LP and column generation on three-player
Kuhn poker (K33: 0, K34: −1/24), the brute-force matrix game over joint reduced plans (scipy's
linprog, tests/random_team_games.py) and the certificate of lpgame.analysis.team_gaps, which never
reads the DAG (the team's best joint plan by enumeration).
"""

from __future__ import annotations

import copy
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from random_team_games import matrix_game_value, team_games

import lpgame
import lpgame.games
from lpgame.analysis.team_gaps import team_best_response
from lpgame.compile import as_game, compile_game
from lpgame.equilibria.teams.team_belief_dag import build_team_belief_dag, team_tree_game
from lpgame.equilibria.teams.tmecor import solve_tmecor
from lpgame.equilibria.teams.tmecor_learning import (
    DagPasses,
    build_learning_dag,
    flow_marginals,
    learn_tmecor,
)
from lpgame.equilibria.teams.tmecor_team import make_team
from lpgame.errors import ModelTooLargeError, OptionError

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _span(result_or_sf, opponent: int) -> float:
    u = result_or_sf.terminal_payoffs[:, opponent]
    return float(u.max() - u.min())


def _assert_certified(result, reference: float, span: float, target: float) -> None:
    """The certificate's interval [lower, upper] (team_gaps) contains the reference value and is
    at most target × span wide; the gains are its two halves around the reported value."""
    lower, upper = result.extra["bounds"]
    slack = 1e-9 * span
    assert lower - slack <= reference <= upper + slack
    assert upper - lower <= target * span + slack
    team_gain, opponent_gain = result.certificate.best_response_gain
    assert -slack <= team_gain and -slack <= opponent_gain
    assert team_gain + opponent_gain <= target * span + slack
    assert abs(result.value - reference) <= target * span + slack


def test_team_matching_pennies_learns_one_half():
    game = lpgame.games.make("team_matching_pennies")
    result = solve_tmecor(game, team=(2, 3), method="learning", target_gap=1e-4)
    assert result.extra["method"] == "learning" and result.extra["status"] == "converged"
    _assert_certified(result, 0.5, 1.0, 1e-4)
    # the mixture puts (almost) everything on HH and TT, half each
    dist = {tuple(d["plans"]): d["probability"] for d in result.extra["team_distribution"]}
    assert dist[("team member 1:H", "team member 2:H")] == pytest.approx(0.5, abs=1e-3)
    assert dist[("team member 1:T", "team member 2:T")] == pytest.approx(0.5, abs=1e-3)


@pytest.mark.parametrize("cards, exact", [(3, Fraction(0)), (4, Fraction(-1, 24))])
@pytest.mark.parametrize("minimiser", ["pcfr+", "cfr+"])
def test_three_player_kuhn_within_the_target_of_the_exact_lp(cards, exact, minimiser):
    game = lpgame.games.make("kuhn_poker", players=3, cards=cards)
    lp = solve_tmecor(game, team=(1, 2), method="belief_dag")
    assert lp.value == pytest.approx(float(exact), abs=1e-9)   # the LP, checked in other tests
    target = 1e-3
    result = solve_tmecor(game, team=(1, 2), method="learning", target_gap=target,
                          regret_minimiser=minimiser)
    assert result.extra["status"] == "converged"
    assert result.extra["team_deviation"]["method"] == "enumeration"
    _assert_certified(result, float(exact), 6.0, target)      # payoff range 6 (thesis L3059)
    assert result.extra["learning"]["relative_gap"] <= target


def test_the_learners_stopping_measure_is_the_independent_team_best_response():
    """The upper side the learner stops on (the best pure flow of the DAG against ȳ) equals the
    team's best joint plan found by enumeration in lpgame.analysis.team_gaps."""
    tree = team_tree_game(as_game(lpgame.games.make("kuhn_poker", players=3, cards=4)))
    sf = compile_game(tree)
    team = make_team(sf, (1, 2))
    dag = build_learning_dag(tree, team.members, 100_000)
    for iterations in (1, 7, 40):
        run = learn_tmecor(team, dag, target_gap=1e-9, iterations=iterations)
        assert run.status == "iteration_limit" and run.iterations == iterations
        response = team_best_response(sf, team.members, team.opponent, run.opponent_plan,
                                      method="enumeration")
        assert run.upper == pytest.approx(response.value, abs=1e-12)
        # ω̄ is the averaged flow's realization vector, the value u(x̄, ȳ) between the bounds
        assert np.allclose(run.team_reach, dag.realization(run.flow), atol=1e-12)
        assert run.lower - 1e-12 <= run.value <= run.upper + 1e-12


def test_passes_equal_the_dags_own_matrices():
    """The level-ordered passes reproduce BeliefDag.flow_matrix (conservation) and leaf_matrix."""
    tree = team_tree_game(as_game(lpgame.games.make("kuhn_poker", players=3, cards=4)))
    dag = build_team_belief_dag(tree, (0, 1))
    passes = DagPasses(dag)
    assert passes.factored
    rng = np.random.default_rng(3)
    pi = passes.normalise(rng.random(dag.num_edges))
    x = passes.flow(pi)[passes.new_of_edge]
    A, b = dag.flow_matrix()
    assert np.abs(A @ x - b).max() <= 1e-12 and x.min() >= 0
    assert np.allclose(passes.realization(passes.flow(pi)), dag.realization(x), atol=1e-12)
    ell = rng.standard_normal(dag.num_leaves)
    R, _ = dag.leaf_matrix()
    assert np.allclose((passes.leaf_to_edge @ ell)[passes.new_of_edge], R.T @ ell, atol=1e-12)


def test_flow_marginals_equal_the_decompositions():
    tree = team_tree_game(as_game(lpgame.games.make("kuhn_poker", players=3, cards=3)))
    sf = compile_game(tree)
    team = make_team(sf, (1, 2))
    dag = build_team_belief_dag(tree, team.members)
    run = learn_tmecor(team, dag, iterations=30, target_gap=1e-9)
    lam, strategies = dag.decompose(run.flow, max_strategies=100_000)
    marginals = flow_marginals(dag, run.flow, sf, team.members)
    for m, i in enumerate(team.members):
        p = sf.players[i]
        expected = np.zeros(p.num_sequences)
        for weight, decided in zip(lam, strategies):
            b = np.zeros(p.num_sequences)
            b[0] = 1.0
            b[p.infoset_first_seq] = 1.0
            for (member, j), a in decided.items():
                if member == i:
                    first = int(p.infoset_first_seq[j])
                    b[first:first + int(p.infoset_num_actions[j])] = 0.0
                    b[first + a] = 1.0
            expected += weight * sf.plan_from_behaviour(i, b)
        assert np.allclose(marginals[m], expected, atol=1e-9)


def test_iteration_limit_is_labelled_and_still_certified():
    game = lpgame.games.make("kuhn_poker", players=3, cards=4)
    result = solve_tmecor(game, team=(1, 2), method="learning", target_gap=1e-6, iterations=5)
    assert result.extra["status"] == "iteration_limit"
    lower, upper = result.extra["bounds"]
    assert lower <= -1 / 24 <= upper and upper - lower > 1e-6 * 6
    assert "learned" not in result.body_lines(["p1", "p2", "p3"])[0]


def test_through_lpgame_solve_with_registered_options():
    game = lpgame.games.make("team_matching_pennies")
    result = lpgame.solve(game, "tmecor", team=(2, 3), method="learning", target_gap=0.01,
                          iterations=10_000, regret_minimiser="cfr+")
    assert result.extra["method"] == "learning"
    assert result.extra["learning"]["regret_minimiser"] == "cfr+"
    lower, upper = result.extra["bounds"]
    assert lower <= 0.5 <= upper and upper - lower <= 0.01


@pytest.mark.parametrize("options, match", [
    ({"target_gap": 0.0}, "target_gap"), ({"target_gap": 1.5}, "target_gap"),
    ({"target_gap": "x"}, "target_gap"), ({"iterations": 0}, "iterations"),
    ({"iterations": 2.5}, "iterations"), ({"regret_minimiser": "rm"}, "regret_minimiser"),
    ({"time_limit": -1.0}, "time_limit")])
def test_bad_options_are_refused_by_name(options, match):
    game = lpgame.games.make("team_matching_pennies")
    with pytest.raises(OptionError, match=match):
        solve_tmecor(game, team=(2, 3), method="learning", **options)


def test_node_cap_refuses_with_the_size_and_what_still_applies():
    game = lpgame.games.make("kuhn_poker", players=3, cards=4)
    with pytest.raises(ModelTooLargeError, match=r"more than 100 prescriptions.*column_generation"):
        solve_tmecor(game, team=(1, 2), method="learning", max_dag_edges=100)
    tree = team_tree_game(as_game(game))
    with pytest.raises(ModelTooLargeError, match=r"1,408 prescriptions.*predicted to need"):
        build_learning_dag(tree, (0, 1), 100_000, memory=1000)


def _scaled(game, factor: Fraction):
    out = copy.deepcopy(game.graph)
    for node in out.nodes:
        data = out.nodes[node]
        if data["kind"] == "terminal":
            data["payoffs"] = tuple(Fraction(u) * factor for u in data["payoffs"])
    return lpgame.Game(out, game.num_players, root=game.root, name=game.name)


@SETTINGS
@given(game=team_games(), k=st.sampled_from([-12, -6, 0, 6, 12]))
def test_random_team_games_certified_gap_at_every_scale(game, k):
    """At payoff scales 1e-12..1e12 the gap certified by team_gaps is at most the target times
    the payoff range, and the brute-force TMECor value lies in the certified interval."""
    scaled = _scaled(game, Fraction(10) ** k)
    sf = compile_game(scaled)
    # linprog's tolerances are absolute: the reference is solved at scale 1 and scaled
    reference = matrix_game_value(compile_game(game), (0, 1), 2) * 10.0 ** k
    span = _span(sf, 2)
    target = 1e-3
    result = solve_tmecor(scaled, team=(1, 2), method="learning", target_gap=target)
    assert result.extra["status"] == "converged"
    if span == 0:
        assert result.extra["bounds"][1] - result.extra["bounds"][0] <= 1e-12 * abs(reference)
        return
    _assert_certified(result, reference, span, target)
