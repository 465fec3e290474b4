"""Integer variables in the LP layer (lpgame.lp.linear_program, lpgame.lp.highs_backend).

The MILP's optimum is checked against brute force over every 0/1 vector (random knapsacks), its
printing shows the binaries, and the solver's reports (gap, bound) are read back.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from lpgame.errors import LpgameError, SolverError
from lpgame.lp import LinearProgram, solve_lp


def knapsack(values, weights, capacity, name="knapsack") -> LinearProgram:
    lp = LinearProgram(name)
    x = lp.add_variables("x", len(values), kind="binary")
    lp.add_constraints("capacity", [(x, sp.csr_array(np.atleast_2d(weights).astype(float)))], "<=",
                       capacity)
    lp.set_objective([(x, np.asarray(values, dtype=float))], "max")
    return lp


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 8).flatmap(lambda n: st.tuples(
    st.lists(st.integers(-5, 9), min_size=n, max_size=n),
    st.lists(st.integers(0, 9), min_size=n, max_size=n),
    st.integers(0, 20))))
def test_binary_knapsack_optimum_equals_brute_force(data):
    values, weights, capacity = data
    brute = max(np.dot(values, z) for z in itertools.product((0, 1), repeat=len(values))
                if np.dot(weights, z) <= capacity)
    solution = solve_lp(knapsack(values, weights, capacity))
    assert solution.status == "optimal"
    assert solution.objective == pytest.approx(brute, abs=1e-9)
    z = solution.values("x")
    assert np.allclose(z, np.round(z), atol=1e-6) and np.dot(weights, np.round(z)) <= capacity
    assert solution.info["mip_dual_bound"] == pytest.approx(brute, abs=1e-6)


def test_integer_block_and_relaxation():
    lp = LinearProgram("integer")
    n = lp.add_variables("n", 2, 0, 10, kind="integer")
    lp.add_constraints("row", [(n, sp.csr_array(np.array([[2.0, 2.0]])))], "<=", 7)
    lp.set_objective([(n, np.array([1.0, 1.0]))], "max")
    assert lp.is_mip and lp.size()["integers"] == 2
    assert solve_lp(lp).objective == pytest.approx(3.0)
    relaxed = lp.relaxed()
    assert not relaxed.is_mip and lp.is_mip        # the original keeps its integrality
    assert solve_lp(relaxed).objective == pytest.approx(3.5)


def test_printing_shows_binaries():
    lp = knapsack([3, 4], [1, 2], 2)
    assert lp.describe().startswith("MILP") and "binary {0,1}" in lp.describe()
    assert r"x \in \{0,1\}^{2}" in lp.to_latex()
    assert r"\text{x} \in \{0,1\}^{2}" in lp.to_latex(rows=True)
    assert "total: 1 rows, 2 columns, 2 of them integer" in lp.describe()


def test_milp_refused_by_other_backends_and_bad_kind():
    with pytest.raises(SolverError, match="branch and bound"):
        solve_lp(knapsack([1], [1], 1), backend="pyomo")
    with pytest.raises(LpgameError, match="kind"):
        LinearProgram("x").add_variables("z", 2, kind="boolean")
    lp = LinearProgram("lp")
    z = lp.add_variables("z", 1, 0, 1)
    lp.set_objective([(z, np.ones(1))])
    lp.add_constraints("row", [(z, sp.csr_array(np.ones((1, 1))))], "<=", 1)
    with pytest.raises(SolverError, match="mip_gap"):
        solve_lp(lp, mip_gap=0.0)
