"""The memory-lean layout of optimal EFCE by learning (docs/explanation/benchmarks.md, "The big rows").

int32 positions in the chain, the trigger forests and the independent gap evaluators while they
fit (int64 otherwise), float32 accumulated regrets with float64 sums and behaviours. Checked
against references that do not use the lean layout: the same computations with the int64 fallback
forced, the float64 learner, the HiGHS LP optimum, and tracemalloc's count of the learner's
allocations.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import lpgame
import lpgame.analysis.correlation_plan_gaps as cg
import lpgame.equilibria.correlated.scaled_extension as se
from lpgame.equilibria.correlated.correlation_decomposition import correlation_chain
from lpgame.equilibria.correlated.efce import CorrelationPlanSpace, solve_correlation_plan
from lpgame.equilibria.correlated.efce_learning import solve_efce_learning, trigger_forest
from lpgame.lp.sorted_keys import INT32_LIMIT, as_index, index_dtype

TARGET = 0.001


@pytest.fixture(scope="module")
def s2122():
    return lpgame.compile_game(lpgame.games.make("sheriff", N=10, B=2, rounds=2))


@pytest.fixture(scope="module")
def b2222():
    return lpgame.compile_game(lpgame.games.make("battleship", rows=2, cols=2, shots=2))


def _int64_only(n):
    return np.int64


def test_index_dtype_is_int32_while_it_fits_and_int64_beyond():
    assert index_dtype(0) is np.int32
    assert index_dtype(INT32_LIMIT) is np.int32
    assert index_dtype(INT32_LIMIT + 1) is np.int64
    assert as_index([1, 2], 10).dtype == np.int32
    assert as_index([1, 2], 2**40).dtype == np.int64


def test_chain_forest_and_checker_indices_are_int32(s2122):
    space = CorrelationPlanSpace(s2122)
    chain = correlation_chain(space)
    arrays = [chain.roots, chain.split_parent, chain.slot_split, chain.slot_entry,
              chain.sum_target, chain.split_first, chain.split_size]
    for lv in chain.level_steps:
        arrays += [lv.slot, lv.split, lv.split_start, lv.sum_target, lv.sum_cols, lv.sum_rows,
                   lv.slot_entries, lv.slot_parents, lv.split_parents]
    assert all(a.dtype == np.int32 for a in arrays)
    forest = trigger_forest(s2122, space, 0, 1.0)
    assert forest.chain.slot_entry.dtype == np.int32
    gains = cg.TriggerGains(s2122, 1, "efce")
    for a in (gains.leaf_t, gains.leaf_z, gains.leaf_node, *gains.query, gains.obey_t,
              gains.obey_z):
        assert a.dtype == np.int32


def test_int64_fallback_chain_gives_the_same_points_and_values(s2122, monkeypatch):
    space = CorrelationPlanSpace(s2122)
    lean = correlation_chain(space)
    monkeypatch.setattr(se, "index_dtype", _int64_only)
    wide = correlation_chain(space)
    assert wide.slot_entry.dtype == np.int64
    assert all(lv.slot_entries.dtype == np.int64 for lv in wide.level_steps)
    rng = np.random.default_rng(3)
    b = rng.random(lean.slot_entry.size)
    b /= lean.per_split_sum(b)[lean.slot_split]
    g = rng.normal(size=lean.num_entries)
    np.testing.assert_array_equal(lean.point(b), wide.point(b))
    np.testing.assert_array_equal(lean.slot_values(g, b), wide.slot_values(g, b))
    assert lean.best_value(g) == wide.best_value(g)
    # the points are in 𝒱: the polytope's own rows hold (checked independently of the chain)
    matrix, rhs, _ = space.polytope()
    np.testing.assert_allclose(matrix @ lean.point(b)[:space.num_pairs], rhs, atol=1e-12)


def test_int32_gap_evaluator_equals_the_int64_one(b2222, monkeypatch):
    space = CorrelationPlanSpace(b2222)
    chain = correlation_chain(space)
    rng = np.random.default_rng(5)
    b = rng.random(chain.slot_entry.size)
    b /= chain.per_split_sum(b)[chain.slot_split]
    plan = space.as_matrix(chain.point(b)[:space.num_pairs])
    lean = [cg.TriggerGains(b2222, i, "efce")(plan) for i in range(2)]
    monkeypatch.setattr(cg, "as_index", lambda values, n: np.asarray(values, np.int64))
    wide_gains = [cg.TriggerGains(b2222, i, "efce") for i in range(2)]
    assert wide_gains[0].leaf_t.dtype == np.int64
    for i in range(2):
        np.testing.assert_array_equal(lean[i], wide_gains[i](plan))


@pytest.mark.parametrize("game, objective", [("s2122", "welfare"), ("s2122", "player1"),
                                             ("b2222", "welfare")])
@pytest.mark.slow
def test_float32_regrets_learn_the_same_optimum_as_float64(game, objective, request):
    sf = request.getfixturevalue(game)
    lp = solve_correlation_plan(sf, "efce", objective, decompose=False).objective
    runs = {dt: solve_efce_learning(sf, objective=objective, target_gap=TARGET, time_limit=60,
                                    regret_dtype=dt)
            for dt in (np.float32, np.float64)}
    scale = runs[np.float64].extra["payoff_range"]
    for r in runs.values():
        assert r.extra["status"] == "converged"
        assert r.extra["relative_gap"] <= TARGET
        assert r.extra["certified_upper_bound"] >= lp - 1e-9 * scale
        assert abs(r.objective - lp) <= 2 * TARGET * scale
    a, b = runs[np.float32], runs[np.float64]
    assert abs(a.objective - b.objective) <= 2 * TARGET * scale


def test_regrets_are_float32_and_behaviours_float64(s2122):
    space = CorrelationPlanSpace(s2122)
    chain = correlation_chain(space)
    for kind in ("drm", "prm+"):
        m = se.LocalRegretMinimisers(chain, kind)
        m.observe(np.linspace(-1.0, 1.0, chain.slot_entry.size), 1)
        assert m.regret.dtype == np.float32 and m.behaviour.dtype == np.float64
        assert m.prediction.size == (chain.slot_entry.size if kind == "prm+" else 0)
        np.testing.assert_allclose(chain.per_split_sum(m.behaviour), 1.0, rtol=1e-12)


def test_learner_allocations_per_relevant_pair_stay_below_the_old_layout():
    """tracemalloc's peak of the learner's own allocations (build, 40 iterations, checkpoints and
    the certificate) on S2133: 822 B per relevant pair with int64 indices, float64 regrets and the
    transposed trigger maps (commit a400698), 385 B now."""
    sf = lpgame.compile_game(lpgame.games.make("sheriff", N=10, B=3, rounds=3))
    tracemalloc.start()
    try:
        r = solve_efce_learning(sf, objective="welfare", iterations=40, check_every=10,
                                target_gap=1e-6)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak / r.extra["relevant_pairs"] < 600
