"""Optimal EFCE, EFCCE and NFCCE over the correlation DAG
(lpgame.equilibria.correlated.efce_correlation_dag), checked against values that do not come
from the DAG:

* a brute-force LP over all joint reduced pure plans with the deviations of the definitions
  (tests/correlated_reference.py), exactly in rationals and in floats, on random timeable
  three-player games at payoff scales 1e-12..1e12;
* lpgame's von Stengel–Forges LP on two-player triangle-free games (Sheriff S2122, S2123,
  random two-player games), where it is exact (Farina 2023, Thm 9.5), and the signalling game;
* the independent EFCCE/NFCCE gap (lpgame.analysis.n_player_coarse_gaps) against the brute-force
  deviation rows on random distributions.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from correlated_reference import (
    brute_force_exact,
    brute_force_float,
    deviation_rows,
    timeable_trees,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lpgame
from lpgame.analysis.n_player_coarse_gaps import n_player_coarse_gap
from lpgame.analysis.n_player_correlated_gaps import n_player_efce_gap
from lpgame.compile import compile_game
from lpgame.equilibria.correlated.correlation_dag import build_correlation_dag
from lpgame.equilibria.correlated.efce import solve_correlation_plan
from lpgame.equilibria.correlated.efce_correlation_dag import solve_correlation_dag
from lpgame.errors import InvalidGameError, ModelTooLargeError

SETTINGS = settings(max_examples=20, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
CONCEPTS = st.sampled_from(["efce", "efcce", "nfcce"])
SCALES = st.sampled_from([Fraction(1, 10**12), Fraction(1), Fraction(10**12)])


def weights(objective: str, n: int = 3) -> np.ndarray:
    return np.ones(n) if objective == "welfare" else np.eye(n)[int(objective[-1]) - 1]


@SETTINGS
@given(game=timeable_trees(), concept=CONCEPTS, scale=SCALES,
       objective=st.sampled_from(["welfare", "player1", "player2", "player3"]))
def test_exact_optimum_equals_the_brute_force_lp_on_random_three_player_games(
        game, concept, scale, objective):
    game = _scaled(game, scale)
    sf = compile_game(game)
    expected = brute_force_exact(sf, concept, weights(objective))
    result = solve_correlation_dag(game, concept, objective, exact=True)
    assert result.objective == expected
    assert result.gap == 0 and isinstance(result.gap, Fraction)
    assert result.certificate.extra["objective_bound"] == expected
    assert result.optimal
    assert sum(e["probability"] for e in result.distribution) == 1


@SETTINGS
@given(game=timeable_trees(), concept=CONCEPTS, scale=SCALES,
       objective=st.sampled_from(["welfare", "player1", "player3"]))
def test_float_optimum_equals_the_brute_force_lp_on_random_three_player_games(
        game, concept, scale, objective):
    game = _scaled(game, scale)
    sf = compile_game(game)
    span = max(float(np.ptp(sf.terminal_payoffs)), float(scale))
    expected = brute_force_float(sf, concept, weights(objective))
    result = solve_correlation_dag(game, concept, objective)
    assert result.objective == pytest.approx(expected, abs=1e-7 * span)
    assert result.gap <= 1e-7 * span
    assert result.certificate.extra["objective_bound"] >= expected - 1e-7 * span
    assert result.optimal


def _scaled(game, scale: Fraction):
    """A copy of ``game`` with every payoff multiplied by ``scale``."""
    graph = game.graph.copy()
    for node, data in graph.nodes(data=True):
        if data["kind"] == "terminal":
            graph.nodes[node]["payoffs"] = tuple(Fraction(u) * scale for u in data["payoffs"])
    return lpgame.Game(graph, game.num_players, root=game.root, name=game.name)


@SETTINGS
@given(game=timeable_trees(players=2, max_depth=4), concept=CONCEPTS,
       objective=st.sampled_from(["welfare", "player1", "player2"]))
def test_two_player_random_games_match_the_von_stengel_forges_lp_where_it_is_exact(
        game, concept, objective):
    lp = solve_correlation_plan(game, concept, objective)
    dag = solve_correlation_dag(game, concept, objective)
    span = max(1.0, float(np.ptp(compile_game(game).terminal_payoffs)))
    if lp.triangle_free or lp.optimal:
        assert dag.objective == pytest.approx(lp.objective, abs=1e-7 * span)
    else:                          # the relaxation's value is an upper bound
        assert dag.objective <= lp.objective + 1e-7 * span
    assert dag.optimal and dag.gap <= 1e-7 * span


@pytest.mark.parametrize("name,params", [("sheriff", {"N": 1, "B": 2, "rounds": 2}),
                                         ("signaling_game", {})])
@pytest.mark.parametrize("concept", ["efce", "efcce", "nfcce"])
@pytest.mark.parametrize("objective", ["welfare", "player1", "player2"])
def test_two_player_catalog_games_match_the_von_stengel_forges_lp(name, params, concept,
                                                                  objective):
    game = lpgame.games.make(name, **params)
    lp = solve_correlation_plan(game, concept, objective)
    dag = solve_correlation_dag(game, concept, objective)
    assert dag.optimal
    # Sheriff is triangle-free (the LP is exact); the signalling game is not, and the LP's
    # relaxation bound happens to be attained there (the DAG proves it)
    assert lp.triangle_free == (name == "sheriff")
    assert dag.objective == pytest.approx(lp.objective, abs=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("objective", ["welfare", "player1", "player2"])
def test_sheriff_s2123_matches_the_von_stengel_forges_lp(objective):
    game = lpgame.games.make("sheriff", N=1, B=2, rounds=3)
    lp = solve_correlation_plan(game, "efce", objective)
    dag = solve_correlation_dag(game, "efce", objective)
    assert lp.triangle_free and dag.optimal
    assert dag.objective == pytest.approx(lp.objective, abs=1e-9)


def test_exact_sheriff_s2122():
    game = lpgame.games.make("sheriff", N=1, B=2, rounds=2)
    dag = solve_correlation_dag(game, "efce", "welfare", exact=True)
    assert dag.objective == 5 and dag.gap == 0 and dag.optimal          # the LP's 5.0 in floats


def test_three_player_kuhn_exact_and_through_the_registry():
    game = lpgame.games.make("kuhn_poker", players=3, cards=3)
    result = lpgame.solve(game, concept="efce", method="correlation_dag", objective="player1",
                          exact=True)
    assert result.variant == "correlation_dag" and result.exact
    assert result.gap == 0 and result.optimal
    assert result.certificate.extra["objective_bound"] == result.objective
    sf = compile_game(game)
    plans = [np.array([_plan(sf, i, e["profile"][i]) for e in result.distribution])
             for i in range(3)]
    probs = [e["probability"] for e in result.distribution]
    assert n_player_efce_gap(sf, plans, probs, exact=True).gap == 0
    # EFCCE and NFCCE of three players have only this entry: the default there
    coarse = lpgame.solve(game, concept="nfcce", objective="player2")
    assert coarse.variant == "correlation_dag" and coarse.optimal


def _plan(sf, player: int, label: str) -> np.ndarray:
    labels = sf.sequence_labels(player)
    chosen = set() if label == "(no move)" else set(label.split("; "))
    return np.array([1 if s == 0 or labels[s] in chosen else 0 for s in range(len(labels))])


def test_a_dag_past_the_cap_is_refused_with_its_size_and_the_fallback():
    game = lpgame.games.make("kuhn_poker", players=3, cards=3)
    with pytest.raises(ModelTooLargeError, match="column_generation") as info:
        solve_correlation_dag(game, "efce", max_dag_edges=50)
    assert "prescriptions" in str(info.value) and "beliefs" in str(info.value)


def test_a_game_that_is_not_timeable_is_refused():
    # player 2's information set "b" is met after one decision (o0) or none (o1)
    g = lpgame.GameBuilder(num_players=2, name="untimeable")
    root = g.chance()
    first = g.decision(player=0, infoset="a", parent=root, action="o0", prob=Fraction(1, 2))
    for act in ("x", "y"):
        node = g.decision(player=1, infoset="b", parent=first, action=act)
        for a in ("u", "v"):
            g.terminal((1, 0), parent=node, action=a)
    node = g.decision(player=1, infoset="b", parent=root, action="o1", prob=Fraction(1, 2))
    for a in ("u", "v"):
        g.terminal((0, 1), parent=node, action=a)
    with pytest.raises(InvalidGameError, match="timeable"):
        build_correlation_dag(g.build(), "efce")


@SETTINGS
@given(game=timeable_trees(), concept=st.sampled_from(["efcce", "nfcce"]),
       seed=st.integers(0, 2**31 - 1))
def test_coarse_gap_equals_the_definition_on_random_distributions(game, concept, seed):
    sf = compile_game(game)
    plans, _, rows = deviation_rows(sf, concept)
    rng = np.random.default_rng(seed)
    k = plans[0].shape[0]
    support = rng.choice(k, size=min(k, 4), replace=False)
    mu = [Fraction(int(v)) for v in rng.integers(1, 5, size=support.size)]
    mu = [m / sum(mu) for m in mu]
    expected = max([Fraction(0)] + [sum(row[s] * m for s, m in zip(support, mu)) for row in rows])
    exact = n_player_coarse_gap(sf, [p[support] for p in plans], mu, concept, exact=True)
    assert exact.gap == expected
    floats = n_player_coarse_gap(sf, [p[support] for p in plans], [float(m) for m in mu], concept)
    assert floats.gap == pytest.approx(float(expected), abs=1e-9)


# ---------------------------------------------------------------- the default rule, progress
def test_three_player_efce_defaults_to_the_dag_and_falls_back_past_the_cap():
    """Without a method, three-player efce takes the DAG LP where the DAG fits the default cap
    and column generation past it (or with a column-generation option); both are optimal, so
    their objectives agree, and the column generation is the independent method here."""
    from lpgame.errors import OptionError

    game = lpgame.games.make("kuhn_poker", players=3, cards=3)
    dag = lpgame.solve(game, concept="efce", objective="player2")
    assert dag.variant == "correlation_dag" and dag.optimal
    assert "correlation DAG" in dag.extra["default_rule"]
    cg = lpgame.solve(game, concept="efce", objective="player2", method="column_generation")
    assert cg.variant == "column_generation" and cg.extra["status"] == "optimal"
    assert dag.objective == pytest.approx(cg.objective, abs=1e-7)
    small = lpgame.solve(game, concept="efce", objective="player2", max_dag_edges=100)
    assert small.variant == "column_generation" and "100" in small.extra["default_rule"]
    assert small.objective == pytest.approx(cg.objective, abs=1e-7)
    assert lpgame.solve(game, concept="efce", objective="player2",
                        target_gap=0.01).variant == "column_generation"
    with pytest.raises(OptionError, match="target_gap"):
        lpgame.solve(game, concept="efce", method="correlation_dag", target_gap=0.01)
    with pytest.raises(OptionError, match="correlation_dag"):
        lpgame.solve(game, concept="efce", method="learning")
    # two players keep the correlation-plan LP, and refuse the n-player options
    assert lpgame.solve("chicken", concept="efce").variant == "default"
    with pytest.raises(OptionError, match="target_gap"):
        lpgame.solve("chicken", concept="efce", target_gap=0.01)


def test_the_construction_and_the_lp_report_progress(monkeypatch):
    """The DAG's construction reports its figures (with the predicted prescriptions) and the run
    announces its stages; a time limit the construction used up is refused as a time limit."""
    from lpgame import progress
    from lpgame.equilibria.correlated import correlation_dag_search
    from lpgame.errors import SolverTimeLimitError

    monkeypatch.setattr(correlation_dag_search, "REPORT_SECONDS", 0.0)
    seen = []
    game = lpgame.games.make("kuhn_poker", players=3, cards=3)
    with progress.reporting(lambda what, figures: seen.append((what, figures))):
        solve_correlation_dag(game, "efce", "player1")
    stages = [what for what, figures in seen if not figures]
    assert any(s.startswith("building the EFCE correlation DAG") for s in stages)
    assert any(s.startswith("solving the EFCE correlation-DAG LP") for s in stages)
    figures = [f for what, f in seen if what == "EFCE correlation DAG"]
    assert figures and figures[-1]["edges"] == 2481 and figures[-1]["predicted_edges"] == 2481
    with pytest.raises(SolverTimeLimitError, match="time limit"):
        solve_correlation_dag(game, "efce", "player1", time_limit=1e-9)


# ---------------------------------------------------------------- HiGHS out of memory (issue 38)
class _OutOfMemory:
    """A HiGHS instance whose run ends as an allocation failure does: run status kError, model
    status "Memory limit reached" (what HiGHS 1.16 reports when presolve or IPX cannot allocate
    under an address-space cap; L3132's DAG LP under the benchmark's 6 GiB)."""

    def __init__(self, h):
        self._h = h

    def __getattr__(self, name):
        return getattr(self._h, name)

    def run(self):
        import highspy
        return highspy.HighsStatus.kError

    def getModelStatus(self):  # noqa: N802 (HiGHS's name)
        import highspy
        return highspy.HighsModelStatus.kMemoryLimit


def test_highs_out_of_memory_is_a_memory_error_and_the_default_falls_back(monkeypatch):
    """HiGHS's "Memory limit reached" on the DAG LP is raised as SolverMemoryError (a SolverError
    and a ModelTooLargeError, naming the address-space cap), not as a bare SolverError; the
    default EFCE entry then falls back to column generation, whose optimum the DAG LP's own
    (unpatched) optimum confirms."""
    from lpgame.errors import SolverError, SolverMemoryError
    from lpgame.lp import highs_backend

    game = lpgame.games.make("kuhn_poker", players=3, cards=3)
    expected = solve_correlation_dag(game, "efce", "player2").objective
    real = highs_backend.build_highs

    def failing(lp, *args, **kwargs):
        h = real(lp, *args, **kwargs)
        return _OutOfMemory(h) if lp.name.startswith("efce-correlation-dag") else h

    monkeypatch.setattr(highs_backend, "build_highs", failing)
    with pytest.raises(SolverMemoryError, match="ran out of memory") as info:
        solve_correlation_dag(game, "efce", "player2")
    error = info.value
    assert isinstance(error, SolverError) and isinstance(error, ModelTooLargeError)
    assert error.status == "Memory limit reached" and "address space" in str(error)
    assert error.size["rows"] > 0
    fallback = lpgame.solve(game, concept="efce", objective="player2")
    assert fallback.variant == "column_generation"
    assert "ran out of memory" in fallback.extra["default_rule"]
    assert fallback.objective == pytest.approx(expected, abs=1e-7)
