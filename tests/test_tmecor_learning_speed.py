"""The faster passes of lpgame.equilibria.teams.tmecor_learning against the learner as it was before
them (tests/tmecor_learning_reference.py, kept verbatim): the same iterates, run beside each other,
on three-player Kuhn (K33) and Leduc (L3133), for PCFR⁺ and CFR⁺; the pieces (SciPy's CSR kernel
called directly, the unmasked normalisation, DCFR's update) against plain numpy/SciPy formulas; and
the DCFR option against the exact TMECor value of K34 (−1/24, the belief-DAG LP, checked against
column generation in tests/test_tmecor.py).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import tmecor_learning_reference as reference

import lpgame.games
from lpgame.compile import as_game, compile_game
from lpgame.equilibria.teams.team_belief_dag import team_tree_game
from lpgame.equilibria.teams.tmecor import solve_tmecor
from lpgame.equilibria.teams.tmecor_learning import (
    DagPasses,
    _Csr,
    _discounted,
    build_learning_dag,
    learn_tmecor,
)
from lpgame.equilibria.teams.tmecor_team import make_team

GAMES = {"K33": ("kuhn_poker", {"players": 3, "cards": 3}),
         "L3133": ("leduc_poker", {"players": 3, "bets": 1, "ranks": 3, "suits": 3})}


def _team_and_dag(label):
    name, params = GAMES[label]
    tree = team_tree_game(as_game(lpgame.games.make(name, **params)))
    team = make_team(compile_game(tree), (1, 2))
    return team, build_learning_dag(tree, team.members, 1_000_000)


@pytest.mark.parametrize("label, iterations", [("K33", 120), ("L3133", 60)])
@pytest.mark.parametrize("minimiser", ["pcfr+", "cfr+"])
def test_same_iterates_as_the_reference_learner(label, iterations, minimiser):
    """After the same number of iterations the averages, the bounds and every checkpoint's gap
    are those of the earlier learner (L3133 has beliefs whose prescriptions tie, where a change of
    rounding alone sends the flow elsewhere: equal flows mean equal iterates)."""
    team, dag = _team_and_dag(label)
    new = learn_tmecor(team, dag, target_gap=1e-9, iterations=iterations,
                       regret_minimiser=minimiser)
    old = reference.learn_tmecor(team, dag, target_gap=1e-9, iterations=iterations,
                                 regret_minimiser=minimiser)
    assert new.iterations == old.iterations == iterations
    assert np.abs(new.flow - old.flow).max() <= 1e-12
    assert np.abs(new.opponent_plan - old.opponent_plan).max() <= 1e-12
    assert np.abs(new.team_reach - old.team_reach).max() <= 1e-12
    assert new.lower == pytest.approx(old.lower, abs=1e-12)
    assert new.upper == pytest.approx(old.upper, abs=1e-12)
    assert [t for t, _, _ in new.history] == [t for t, _, _ in old.history]
    assert np.allclose([g for *_, g in new.history], [g for *_, g in old.history],
                       rtol=0, atol=1e-12)


def test_passes_equal_the_reference_passes_on_random_inputs():
    team, dag = _team_and_dag("L3133")
    new, old = DagPasses(dag), reference.DagPasses(dag)
    rng = np.random.default_rng(7)
    weights = rng.random(dag.num_edges) * (rng.random(dag.num_edges) < 0.3)
    weights[new.starts[5]:new.starts[5] + new.counts[5]] = 0.0        # one all-zero block
    pi = new.normalise(weights)
    assert np.array_equal(pi, old.normalise(weights))
    # against the masked division by hand: uniform on the zero blocks
    sums = np.add.reduceat(weights, new.starts)[new.edge_belief]
    by_hand = np.where(sums > 0, weights / np.where(sums > 0, sums, 1.0), new.uniform)
    assert np.array_equal(pi, by_hand)
    assert np.array_equal(new.flow(pi), old.flow(pi))
    ell = rng.standard_normal(dag.num_edges)
    for policy in (pi, None):
        (q, V), (q0, V0) = new.values(ell, policy), old.values(ell, policy)
        assert np.array_equal(q, q0) and np.array_equal(V, V0)
    assert np.array_equal(new.spread(V), V[new.edge_belief])
    leaves = rng.standard_normal(dag.num_leaves)
    assert np.array_equal(new.leaf_to_edge @ leaves, old.leaf_to_edge @ leaves)
    x = new.flow(pi)
    assert np.array_equal(new.realization(x), old.realization(x))


def test_csr_kernel_equals_scipys_product():
    rng = np.random.default_rng(1)
    m = sp.random_array((40, 30), density=0.2, random_state=2, format="csr")
    fast = _Csr(m)
    v = rng.standard_normal(30)
    assert np.array_equal(fast @ v, m @ v)
    assert np.allclose(fast @ v, m.toarray() @ v, rtol=0, atol=1e-12)
    block = rng.standard_normal((30, 3))                 # not a vector: SciPy's own product
    assert np.allclose(fast @ block, m.toarray() @ block, rtol=0, atol=1e-12)


def test_discounted_update_is_dcfr():
    """Brown & Sandholm's DCFR(3/2, 0, ·) at t = 4: positive regrets times 8/9, the rest halved,
    then the new instantaneous regret added; regret matching reads [R]⁺."""
    R = np.array([3.0, -2.0, 0.0, 1.0])
    r = np.array([1.0, 1.0, -1.0, -2.0])
    plus = _discounted(R, r, 4)
    expected = np.array([3.0 * 8 / 9 + 1, -1.0 + 1, -1.0, 8 / 9 - 2])
    assert np.allclose(R, expected, rtol=0, atol=1e-15)
    assert np.array_equal(plus, np.maximum(expected, 0.0))


def test_dcfr_learns_k34_within_the_target_of_the_exact_value():
    game = lpgame.games.make("kuhn_poker", players=3, cards=4)
    target = 1e-3
    result = solve_tmecor(game, team=(1, 2), method="learning", target_gap=target,
                          regret_minimiser="dcfr")
    assert result.extra["status"] == "converged"
    assert result.extra["learning"]["regret_minimiser"] == "dcfr"
    lower, upper = result.extra["bounds"]                # the certificate (enumeration)
    assert lower - 1e-12 <= -1 / 24 <= upper + 1e-12
    assert upper - lower <= target * 6.0 + 1e-12           # payoff range 6
