"""Optimal EFCE by learning on the correlation DAG (lpgame.equilibria.correlated.efce_dag_learning),
checked against values that do not come from the learner:

* a brute-force LP over all joint reduced pure plans with the trigger deviations of the definition
  (tests/correlated_reference.py) on random timeable three-player games at payoff scales
  1e-12..1e12: the claimed upper bound is above the optimum, and a converged answer is within
  the target of it;
* the returned distribution's EFCE gap recomputed by the independent checker from the
  distribution's labels.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from correlated_reference import brute_force_float, timeable_trees
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lpgame
from lpgame.analysis.n_player_correlated_gaps import n_player_efce_gap
from lpgame.compile import compile_game
from lpgame.equilibria.correlated.efce_dag_learning import solve_efce_dag_learning
from lpgame.errors import OptionError

SCALES = st.sampled_from([Fraction(1, 10**12), Fraction(1), Fraction(10**12)])


def _scaled(game, scale: Fraction):
    graph = game.graph.copy()
    for node, data in graph.nodes(data=True):
        if data["kind"] == "terminal":
            graph.nodes[node]["payoffs"] = tuple(Fraction(u) * scale for u in data["payoffs"])
    return lpgame.Game(graph, game.num_players, root=game.root, name=game.name)


def _weights(objective: str, n: int = 3) -> np.ndarray:
    return np.ones(n) if objective == "welfare" else np.eye(n)[int(objective[-1]) - 1]


@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(game=timeable_trees(), scale=SCALES,
       objective=st.sampled_from(["welfare", "player1", "player3"]))
def test_learning_brackets_the_brute_force_optimum_on_random_three_player_games(
        game, scale, objective):
    game = _scaled(game, scale)
    sf = compile_game(game)
    span = max(float(np.ptp(sf.terminal_payoffs)), 1e-300)
    optimum = brute_force_float(sf, "efce", _weights(objective))
    target = 0.01
    r = solve_efce_dag_learning(game, objective, target_gap=target, iterations=3000)
    extra = r.extra
    assert extra["upper_bound"] >= optimum - 1e-7 * span
    assert r.gap == pytest.approx(extra["relative_gap"] * extra["payoff_range"])
    if extra["status"] == "converged":
        assert r.gap <= target * span * (1 + 1e-9)
        assert r.objective >= optimum - (target + 1e-7) * span
    assert sum(e["probability"] for e in r.distribution) == pytest.approx(1.0)


def test_three_player_kuhn_to_one_percent_through_the_registry():
    """K33, max P1 (optimum 0: the exact DAG LP and column generation, tests of their own): the
    learner converges to 1 % of the payoff range, its bound above the optimum, and its gap is the
    independent checker's on the returned distribution."""
    game = lpgame.games.make("kuhn_poker", players=3, cards=3)
    r = lpgame.solve(game, concept="efce", method="dag_learning", objective="player1",
                     target_gap=0.01)
    assert r.variant == "dag_learning" and r.extra["status"] == "converged"
    span = r.extra["payoff_range"]
    assert r.gap <= 0.01 * span and r.objective >= -0.01 * span
    assert r.extra["upper_bound"] >= -1e-9
    sf = compile_game(game)
    labels = [sf.sequence_labels(i) for i in range(3)]
    plans = [np.array([[1 if s == 0 or labels[i][s] in
                        (set() if e["profile"][i] == "(no move)" else
                         set(e["profile"][i].split("; "))) else 0
                        for s in range(len(labels[i]))] for e in r.distribution])
             for i in range(3)]
    probs = [e["probability"] for e in r.distribution]
    assert n_player_efce_gap(sf, plans, probs).gap == pytest.approx(r.gap, abs=1e-9 * span)


def test_bad_options_are_refused():
    game = lpgame.games.make("kuhn_poker", players=3, cards=3)
    with pytest.raises(OptionError, match="exact"):
        lpgame.solve(game, concept="efce", method="dag_learning", exact=True)
    with pytest.raises(OptionError, match="target_gap"):
        solve_efce_dag_learning(game, target_gap=0.0)
    with pytest.raises(OptionError, match="multiplier"):
        solve_efce_dag_learning(game, multiplier=-1.0)


def test_new_options_are_refused_when_bad():
    game = lpgame.games.make("kuhn_poker", players=3, cards=3)
    for bad in ({"deviators": "greedy"}, {"averaging": "cubic"}, {"adaptive": "yes"},
                {"multiplier": float("nan")}, {"multiplier": 0.0}):
        with pytest.raises(OptionError):
            solve_efce_dag_learning(game, **bad)
    with pytest.raises(OptionError):
        lpgame.solve(game, concept="efce", method="dag_learning", deviators="greedy")


@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(game=timeable_trees(), scale=SCALES,
       objective=st.sampled_from(["welfare", "player2", "player3"]),
       options=st.sampled_from([{"deviators": "regret"}, {"deviators": "best_response"},
                                {"averaging": "linear"}]))
def test_adaptive_lambda_from_a_tiny_start_reaches_the_brute_force_optimum(
        game, scale, objective, options):
    """λ starts at 1/64 of the payoff range, far below the critical λ* of most games: the
    adaptive rule must raise it until the measured gap meets the target, and the converged answer
    is within the target of the brute-force LP optimum over all joint reduced pure plans."""
    game = _scaled(game, scale)
    sf = compile_game(game)
    span = max(float(np.ptp(sf.terminal_payoffs)), 1e-300)
    optimum = brute_force_float(sf, "efce", _weights(objective))
    target = 0.01
    r = solve_efce_dag_learning(game, objective, target_gap=target, multiplier=1 / 64,
                                adaptive=True, iterations=20_000, **options)
    extra = r.extra
    assert extra["status"] == "converged"
    assert extra["upper_bound"] >= optimum - 1e-7 * span
    assert r.gap <= target * span * (1 + 1e-9)
    assert r.objective >= optimum - (target + 1e-7) * span
    assert extra["upper_bound"] - r.objective <= target * span * (1 + 1e-9)
    assert extra["lambda"] >= 1 / 64


@pytest.mark.parametrize("options", [{"deviators": "best_response", "multiplier": 8.0,
                                      "adaptive": False},
                                     {"multiplier": 1 / 32, "averaging": "uniform"}])
def test_the_certificate_is_the_independent_checkers_for_every_option(options):
    """K33 max P1 (optimum 0): whatever the options, the returned gap is the one the independent
    checker computes from the returned distribution, and a converged run is within 1 %."""
    game = lpgame.games.make("kuhn_poker", players=3, cards=3)
    r = solve_efce_dag_learning(game, "player1", target_gap=0.01, iterations=20_000, **options)
    sf = compile_game(game)
    labels = [sf.sequence_labels(i) for i in range(3)]
    plans = [np.array([[1 if s == 0 or labels[i][s] in
                        (set() if e["profile"][i] == "(no move)" else
                         set(e["profile"][i].split("; "))) else 0
                        for s in range(len(labels[i]))] for e in r.distribution])
             for i in range(3)]
    probs = [e["probability"] for e in r.distribution]
    span = r.extra["payoff_range"]
    assert n_player_efce_gap(sf, plans, probs).gap == pytest.approx(r.gap, abs=1e-9 * span)
    assert r.extra["status"] == "converged"
    assert r.gap <= 0.01 * span and r.objective >= -0.01 * span
    assert set(r.extra["profile_seconds"]) == {"mediator", "deviators", "bounds", "measure"}
    if options.get("adaptive", True):      # K33's gap stalls at λ = 1/32: λ must have doubled
        assert r.extra["lambda"] > options["multiplier"]
