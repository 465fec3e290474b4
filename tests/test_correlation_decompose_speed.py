"""The faster greedy decomposition of correlation-DAG flows, its reduced plans and the EFCE gap's
trigger gains (s19, issue 38) against verbatim copies of the code they replaced
(tests/correlation_decompose_reference.py), to the bit for floats and exactly for Fractions:

* random flows (mixtures of random pure flows, exact and rounded to floats, and the learner's own
  kind of flow from a random local policy, with ties) on the DAGs of random timeable three-player
  games at payoff scales 1e-12..1e12, and of K34 and GL33 (slow);
* the same errors on a flow that violates flow conservation.

The reference is not lpgame's current code; the greedy walk's definition (largest remaining edge at
each reached belief, first on ties; λ the smallest chosen edge) is the specification both follow.
"""

from __future__ import annotations

from fractions import Fraction

import correlation_decompose_reference as ref
import numpy as np
import pytest
from correlated_reference import timeable_trees
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lpgame
from lpgame.analysis.n_player_correlated_gaps import (
    check_support,
    n_player_efce_gap,
    player_trigger_gains,
)
from lpgame.equilibria.correlated.correlation_dag import build_correlation_dag, reduced_plans
from lpgame.equilibria.correlated.efce_correlation_dag import team_tree_and_weights
from lpgame.equilibria.correlated.efce_dag_learning import _adapter
from lpgame.equilibria.teams.tmecor_learning import DagPasses
from lpgame.errors import InvalidGameError

SCALES = st.sampled_from([Fraction(1, 10**12), Fraction(1), Fraction(10**12)])


def _scaled(game, scale: Fraction):
    graph = game.graph.copy()
    for node, data in graph.nodes(data=True):
        if data["kind"] == "terminal":
            graph.nodes[node]["payoffs"] = tuple(Fraction(u) * scale for u in data["payoffs"])
    return lpgame.Game(graph, game.num_players, root=game.root, name=game.name)


def _pure_flow(dag, rng) -> list[int]:
    """A random pure flow: a random prescription at every belief reached from the roots."""
    out = [[] for _ in range(dag.num_beliefs)]
    for e, b in enumerate(dag.edge_belief.tolist()):
        out[b].append(e)
    children = [[] for _ in range(dag.num_edges)]
    for e, c in zip(dag.child_edge.tolist(), dag.child_belief.tolist()):
        children[e].append(c)
    x, stack = [0] * dag.num_edges, list(dag.root_beliefs.tolist())
    while stack:
        b = stack.pop()
        e = out[b][int(rng.integers(len(out[b])))]
        x[e] += 1
        stack.extend(children[e])
    return x


def _exact_mixture(dag, rng, count: int) -> list[Fraction]:
    weights = [Fraction(int(rng.integers(1, 9))) for _ in range(count)]
    total = sum(weights)
    x = [Fraction(0)] * dag.num_edges
    for w in weights:
        for e, v in enumerate(_pure_flow(dag, rng)):
            if v:
                x[e] += w / total * v
    return x


def _policy_flow(dag, rng, ties: bool) -> np.ndarray:
    """The learner's kind of flow: a random local policy pushed down the DAG (in edge order)."""
    passes = DagPasses(_adapter(dag))
    w = rng.random(passes.num_edges)
    if ties:
        w = np.floor(w * 3) / 2                      # zeros and equal weights
    pi = passes.normalise(w)
    return passes.flow(pi)[passes.new_of_edge]


def _same_decomposition(sf, dag, x, tolerance=1e-12, exact=False):
    w0, d0 = ref.decompose(dag, x, tolerance)
    w1, d1 = dag.decompose(x, tolerance)
    w2, table = dag.decompose_decisions(x, tolerance)
    assert w0 == w1 == w2
    assert all(type(a) is type(b) for a, b in zip(w0, w2))
    assert d0 == d1
    if exact:
        assert sum(w2) == 1
    p0 = ref.reduced_plans(sf, dag, d0)
    for plans in (reduced_plans(sf, dag, d1), reduced_plans(sf, dag, table)):
        for a, b in zip(p0, plans):
            assert a.dtype == b.dtype and np.array_equal(a, b)
    return w2, p0


def _same_gains(sf, plans, weights, exact: bool):
    total = sum(weights)
    probs = [p / total for p in weights] if exact else [float(p) / total for p in weights]
    checked, pr = check_support(sf, plans, probs)
    for i in range(sf.num_players):
        old = ref.player_trigger_gains(sf, checked, pr, i, exact)
        new = player_trigger_gains(sf, checked, pr, i, exact)
        assert old.dtype == new.dtype
        assert list(old) == list(new)
    n_player_efce_gap(sf, plans, probs, exact=exact)      # runs end to end


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(game=timeable_trees(), scale=SCALES, seed=st.integers(0, 2**31), mixes=st.integers(1, 6))
def test_decomposition_and_gains_equal_the_reference_on_random_three_player_games(
        game, scale, seed, mixes):
    tree, sf, _ = team_tree_and_weights(_scaled(game, scale), "efce", "welfare")
    dag = build_correlation_dag(tree, "efce")
    rng = np.random.default_rng(seed)
    x = _exact_mixture(dag, rng, mixes)
    weights, plans = _same_decomposition(sf, dag, x, exact=True)
    _same_gains(sf, plans, weights, exact=True)
    floats = np.array([float(v) for v in x])
    weights, plans = _same_decomposition(sf, dag, floats, tolerance=1e-3)
    _same_gains(sf, plans, weights, exact=False)
    weights, plans = _same_decomposition(sf, dag, _policy_flow(dag, rng, ties=seed % 2 == 0),
                                         tolerance=1e-4)
    _same_gains(sf, plans, weights, exact=False)


def test_a_flow_that_violates_conservation_is_refused_as_before():
    g = lpgame.games.make("kuhn_poker", players=3, cards=3)
    tree, sf, _ = team_tree_and_weights(g, "efce", "welfare")
    dag = build_correlation_dag(tree, "efce")
    x = _exact_mixture(dag, np.random.default_rng(3), 3)
    x[int(np.flatnonzero([v > 0 for v in x])[-1])] /= 2
    with pytest.raises(InvalidGameError, match="does not decompose exactly") as old:
        ref.decompose(dag, x)
    with pytest.raises(InvalidGameError, match="does not decompose exactly") as new:
        dag.decompose(x)
    assert str(old.value) == str(new.value)


@pytest.mark.slow
@pytest.mark.parametrize("name, params, exact", [
    ("kuhn_poker", {"players": 3, "cards": 4}, True),
    ("goofspiel_limited", {"players": 3, "cards": 3}, False),
])
def test_decomposition_and_gains_equal_the_reference_on_k34_and_gl33(name, params, exact):
    tree, sf, _ = team_tree_and_weights(lpgame.games.make(name, **params), "efce", "player1")
    dag = build_correlation_dag(tree, "efce")
    rng = np.random.default_rng(7)
    for ties in (False, True):
        x = _policy_flow(dag, rng, ties)
        weights, plans = _same_decomposition(sf, dag, x, 2.5e-3)
        _same_gains(sf, plans, weights, exact=False)
    if not exact:
        return
    x = _exact_mixture(dag, rng, 4)
    weights, plans = _same_decomposition(sf, dag, x, exact=True)
    _same_gains(sf, plans, weights, exact=True)
