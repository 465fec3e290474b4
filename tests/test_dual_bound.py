"""lpgame.lp.dual_bound.weak_duality_bound against scipy's HiGHS optimum on random LPs: the bound
at the optimal duals is the optimum, and at any other dual vector it is still a bound."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from lpgame.lp import LinearProgram, solve_lp
from lpgame.lp.dual_bound import weak_duality_bound

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def random_lp(seed: int, sense: str) -> tuple[LinearProgram, float]:
    """A feasible, bounded random LP (box 0 ≤ z ≤ 2, rows of every sense around a known
    feasible point) and its optimum by scipy's linprog (written independently)."""
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(2, 7)), int(rng.integers(1, 6))
    a = rng.integers(-3, 4, size=(m, n)).astype(float)
    point = rng.uniform(0.0, 2.0, size=n)
    kinds = rng.choice(["<=", ">=", "=="], size=m)
    slack = rng.uniform(0.0, 1.0, size=m)
    rhs = a @ point + np.where(kinds == "<=", slack, np.where(kinds == ">=", -slack, 0.0))
    c = rng.integers(-3, 4, size=n).astype(float)
    lp = LinearProgram(name="random")
    z = lp.add_variables("z", n, lower=0.0, upper=2.0)
    for k in range(m):
        lp.add_constraints(f"r{k}", [(z, a[k:k + 1])], str(kinds[k]), rhs[k:k + 1])
    lp.set_objective([(z, c)], sense=sense)
    sign = -1.0 if sense == "max" else 1.0
    le = kinds == "<="
    ge = kinds == ">="
    eq = kinds == "=="
    a_ub = np.vstack([a[le], -a[ge]])
    b_ub = np.concatenate([rhs[le], -rhs[ge]])
    res = linprog(sign * c, A_ub=a_ub if a_ub.size else None, b_ub=b_ub if a_ub.size else None,
                  A_eq=a[eq] if eq.any() else None, b_eq=rhs[eq] if eq.any() else None,
                  bounds=(0.0, 2.0), method="highs")
    assert res.status == 0
    return lp, sign * res.fun


@SETTINGS
@given(seed=st.integers(0, 2**31 - 1), sense=st.sampled_from(["max", "min"]),
       noise=st.floats(0.0, 5.0))
def test_the_bound_is_the_optimum_at_the_optimal_duals_and_a_bound_elsewhere(seed, sense, noise):
    lp, optimum = random_lp(seed, sense)
    solution = solve_lp(lp, solver="simplex")
    exact = weak_duality_bound(lp, solution.row_duals)
    assert abs(exact - optimum) <= 1e-7 * max(1.0, abs(optimum))
    y = solution.row_duals + noise * np.random.default_rng(seed + 1).standard_normal(lp.num_rows)
    moved = weak_duality_bound(lp, y)
    if sense == "max":
        assert moved >= optimum - 1e-9
    else:
        assert moved <= optimum + 1e-9


def test_implied_bounds_make_a_free_column_finite():
    """max x + y s.t. x + y ≤ 1 with y free: at y* = 1 the free column has reduced cost 0 and the
    bound is the optimum; at y = 0.5 it is infinite without an implied box and finite with one."""
    lp = LinearProgram(name="free")
    x = lp.add_variables("x", 2, lower=np.array([0.0, -np.inf]))
    lp.add_constraints("cap", [(x, np.array([[1.0, 1.0]]))], "<=", np.array([1.0]))
    lp.set_objective([(x, np.array([1.0, 1.0]))], sense="max")
    assert weak_duality_bound(lp, np.array([1.0])) == 1.0
    assert weak_duality_bound(lp, np.array([0.5])) == np.inf
    bounded = weak_duality_bound(lp, np.array([0.5]), np.array([0.0, -3.0]), np.array([4.0, 4.0]))
    assert bounded == 0.5 + 0.5 * 4.0 + 0.5 * 4.0
