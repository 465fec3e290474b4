"""The certified upper bound of the learned EFCE objective, and the vectorised builds behind the
big rows of Table 10.1 (issue 23).

The bound (lpgame.analysis.correlated_gaps.LagrangianBound, weak duality of Farina 2023 (10.3)) is
checked against the optimal-EFCE LP solved by HiGHS, which no part of the bound uses. The
vectorised Algorithm 9.3 is checked against the recursive one, the trigger-gain evaluator against
a fresh evaluation, and the sort-based unique against numpy's.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import lpgame
from lpgame.analysis.correlated_gaps import LagrangianBound, TriggerGains, trigger_gains
from lpgame.equilibria.correlated.correlation_decomposition import (
    correlation_chain,
    correlation_chain_recursive,
)
from lpgame.equilibria.correlated.efce import CorrelationPlanSpace, solve_correlation_plan
from lpgame.equilibria.correlated.efce_learning import solve_efce_learning, trigger_forest
from lpgame.equilibria.correlated.efce_learning_bound import chain_dual
from lpgame.lp.sorted_keys import unique
from tests.test_efce_learning import payoff_range, staged_game


def lp_optimum(sf, objective) -> float:
    return solve_correlation_plan(sf, "efce", objective, decompose=False).objective


def canonical(chain):
    splits = {(int(chain.split_parent[k]),
               tuple(sorted(chain.slot_entry[chain.split_first[k]:chain.split_first[k]
                                             + chain.split_size[k]].tolist())))
              for k in range(chain.num_splits)}
    m = chain.sum_matrix.tocsr()
    sums = {(int(chain.sum_target[r]), tuple(sorted(m.indices[m.indptr[r]:m.indptr[r + 1]].tolist())))
            for r in range(chain.sum_target.size)}
    return splits, sums


def random_deviators(forests, rng):
    """A random point of every trigger's deviation set (random behaviours on the forest)."""
    xs = []
    for f in forests:
        b = rng.random(f.chain.slot_entry.size)
        b /= f.chain.per_split_sum(b)[f.chain.slot_split]
        xs.append(f.chain.point(b))
    return xs


def lagrangian_setup(sf, weights, lam, seed):
    """The learner's chain and forests at random deviator points: (bound, deviators, dual, g)."""
    space = CorrelationPlanSpace(sf)
    chain = correlation_chain(space)
    scale = max(payoff_range(sf), 1e-12)
    forests = [trigger_forest(sf, space, i, scale) for i in range(2)]
    xs = random_deviators(forests, np.random.default_rng(seed))
    leaf = space.index(sf.terminal_sequences[:, 0], sf.terminal_sequences[:, 1])
    c = np.bincount(leaf, weights=sf.terminal_chance * (sf.terminal_payoffs @ weights),
                    minlength=space.num_pairs)
    grad = np.zeros(chain.num_entries)
    grad[:space.num_pairs] = c / scale - lam * sum(f.penalty(x) for f, x in zip(forests, xs))
    return (LagrangianBound(sf), [f.deviators(x) for f, x in zip(forests, xs)],
            chain_dual(space, chain, grad, scale), chain.best_value(grad) * scale)


# ---------------------------------------------------------------------------------------- the bound
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), lam=st.floats(0.0, 50.0),
       objective=st.sampled_from(["welfare", "player1", "player2"]))
def test_the_bound_at_any_multiplier_and_deviators_is_above_the_lp_optimum(seed, lam, objective):
    """Weak duality: for any λ ≥ 0 and any deviator points, the certified value is ≥ the optimal
    EFCE (HiGHS); the chain's dynamic programme (as a dual vector) and HiGHS over 𝒱 agree, and
    the dual vector covers every column (no correction) in these triangle-free games."""
    sf = lpgame.compile_game(staged_game(seed, stages=3, public_coin=seed % 3 == 0))
    w = {"welfare": [1.0, 1.0], "player1": [1.0, 0.0], "player2": [0.0, 1.0]}[objective]
    bound, deviators, dual, chain_max = lagrangian_setup(sf, np.array(w), lam, seed)
    by_dual = bound.bound(w, lam, deviators, dual)
    by_lp = bound.bound(w, lam, deviators)
    scale = max(payoff_range(sf), 1.0)
    assert by_dual.value == pytest.approx(chain_max, abs=1e-9 * scale)
    assert by_dual.correction <= 1e-9 * scale
    assert by_dual.ignored_rows == 0
    assert by_lp.value == pytest.approx(by_dual.value, abs=1e-7 * scale)
    assert by_dual.value >= lp_optimum(sf, objective) - 1e-9 * scale


def test_the_bound_does_not_trust_its_inputs():
    """A wrong dual vector only loosens the bound; a deviator point outside its set is rebuilt
    into it (the same bound as the point it normalises to)."""
    sf = lpgame.compile_game(lpgame.games.make("sheriff", N=3, B=2, rounds=2))
    w = np.array([1.0, 1.0])
    bound, deviators, dual, _ = lagrangian_setup(sf, w, 5.0, 0)
    opt = lp_optimum(sf, "welfare")
    good = bound.bound(w, 5.0, deviators, dual).value
    rng = np.random.default_rng(0)
    for noise in (1e-3, 1.0, 100.0):
        rows = [(j, tau, v + noise * rng.normal(size=v.size)) for j, tau, v in dual[1]]
        bad = bound.bound(w, 5.0, deviators, (dual[0] - noise, rows))
        assert bad.value >= opt - 1e-9
        assert bad.value >= good - 1e-9            # the dual programme's bound is the best one
    zero = bound.bound(w, 5.0, deviators, (0.0, [(np.zeros(0, int),) * 2 + (np.zeros(0),)] * 2))
    assert zero.value >= opt and zero.correction > 0
    # continuation scaled by 3 (not in 𝒬): the rebuilt point is the original
    scaled = [(e, y * 3.0) for e, y in deviators]
    assert bound.bound(w, 5.0, scaled, dual).value == pytest.approx(good, rel=1e-12, abs=1e-12)
    with pytest.raises(lpgame.errors.StrategyError, match="λ must be ≥ 0"):
        bound.bound(w, -1.0, deviators, dual)


@pytest.mark.parametrize("game, params, objective", [
    ("sheriff", {"N": 10, "B": 2, "rounds": 2}, "welfare"),
    ("sheriff", {"N": 10, "B": 2, "rounds": 2}, "player2"),
    ("battleship", {"rows": 2, "cols": 2, "shots": 2}, "player1"),
])
@pytest.mark.slow
def test_small_rows_interval_brackets_the_lp_optimum(game, params, objective):
    """S2122 and B2222 (Table 10.1): HiGHS's optimum is at most the certified bound, which is
    within the target of the learned objective at convergence."""
    sf = lpgame.compile_game(lpgame.games.make(game, **params))
    r = solve_efce_learning(sf, objective, target_gap=0.01, time_limit=60)
    assert r.extra["status"] == "converged"
    lo, hi = r.extra["bound_interval"]
    opt = lp_optimum(sf, objective)
    scale = payoff_range(sf)
    assert lo == r.objective
    assert opt <= hi + 1e-9 * scale
    assert r.extra["relative_interval_width"] <= 0.01 + 1e-12
    assert r.extra["bound_certificate"]["method"] == "dual"
    assert r.extra["bound_certificate"]["correction"] <= 1e-9 * scale


def test_the_bound_closes_toward_the_optimum_as_iterations_grow():
    sf = lpgame.compile_game(lpgame.games.make("sheriff", N=10, B=2, rounds=2))
    opt = lp_optimum(sf, "welfare")
    scale = payoff_range(sf)
    excess = []
    for iterations in (10, 100, 1000):
        r = solve_efce_learning(sf, "welfare", target_gap=1e-6, iterations=iterations)
        assert r.extra["certified_upper_bound"] >= opt - 1e-9 * scale
        excess.append((r.extra["certified_upper_bound"] - opt) / scale)
    assert excess[0] > excess[1] > excess[2]
    assert excess[2] < 2e-3


def test_games_with_a_triangle_are_bounded_over_the_polytope_by_highs():
    """Kuhn (private cards): the bound is over 𝒱 ⊇ Ξ by HiGHS, still ≥ the realisable optimum."""
    sf = lpgame.compile_game(lpgame.games.make("kuhn_poker"))
    r = solve_efce_learning(sf, "welfare", target_gap=0.01, iterations=5000)
    cert = r.extra["bound_certificate"]
    assert cert["method"] == "lp" and "triangle" in cert["over"]
    realisable = solve_correlation_plan(sf, "efce", "welfare")
    assert realisable.realisable
    assert r.extra["certified_upper_bound"] >= realisable.objective - 1e-9


# ---------------------------------------------------------------------------------------- vectorised builds
@pytest.mark.parametrize("game", [
    ("battleship", {"rows": 2, "cols": 2, "shots": 2}), ("sheriff", {"N": 3, "B": 2, "rounds": 2}),
    ("sheriff", {"N": 10, "B": 2, "rounds": 3}),
    ("staged", {"seed": 5}), ("staged", {"seed": 6, "public_coin": True})])
def test_breadth_first_algorithm_9_3_is_the_recursive_one(game):
    name, params = game
    g = (staged_game(params["seed"], stages=4, public_coin=params.get("public_coin", False))
         if name == "staged" else lpgame.games.make(name, **params))
    space = CorrelationPlanSpace(lpgame.compile_game(g))
    assert canonical(correlation_chain(space)) == canonical(correlation_chain_recursive(space))


def test_trigger_gain_evaluator_reused_on_new_plans_matches_a_fresh_one():
    sf = lpgame.compile_game(lpgame.games.make("battleship", rows=2, cols=2, shots=2))
    space = CorrelationPlanSpace(sf)
    rng = np.random.default_rng(3)
    evaluators = [TriggerGains(sf, i, "efce") for i in range(2)]
    for trial in range(3):
        xi = rng.random(space.num_pairs)
        if trial == 2:
            xi[rng.random(xi.size) < 0.3] = 0.0        # another sparsity pattern
        plan = sp.csr_array(space.as_matrix(xi))
        plan.eliminate_zeros()
        for i in range(2):
            fresh = trigger_gains(sf, sp.coo_array(plan), i, "efce")[0]
            assert np.allclose(evaluators[i](plan), fresh, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-2**40, 2**40), max_size=60))
def test_sort_based_unique_is_numpys(values):
    a = np.asarray(values, dtype=np.int64)
    expected = np.unique(a, return_inverse=True, return_counts=True)
    got = unique(a, return_inverse=True, return_counts=True)
    for x, y in zip(expected, got):
        assert np.array_equal(x.ravel(), y.ravel())
    assert np.array_equal(unique(a), np.unique(a))
