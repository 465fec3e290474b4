"""Solver failures surface as lpgame's own errors with the status and the model size.

The LPs here are written by hand so that their status is known without any solver: x ≥ 0 with
x1 + x2 = −1 is infeasible; max x1 + x2 with only x1 − x2 ≤ 1 is unbounded. A solve stopped by a
(tiny) time limit or an iteration limit of HiGHS must not be mistaken for an answer.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import lpgame
from lpgame import ExactCheckError, SolverError, SolverTimeLimitError
from lpgame.lp import LinearProgram, solve_lp


def infeasible_lp() -> LinearProgram:
    lp = LinearProgram("infeasible by hand")
    x = lp.add_variables("x", 2)                              # x ≥ 0
    lp.add_constraints("sum", [(x, sp.csr_array(np.ones((1, 2))))], "==", -1.0)
    lp.set_objective([(x, np.ones(2))], "max")
    return lp


def unbounded_lp() -> LinearProgram:
    lp = LinearProgram("unbounded by hand")
    x = lp.add_variables("x", 2)
    lp.add_constraints("difference", [(x, sp.csr_array(np.array([[1.0, -1.0]])))], "<=", 1.0)
    lp.set_objective([(x, np.ones(2))], "max")
    return lp


@pytest.mark.parametrize("solver", ["choose", "simplex", "ipm"])
def test_infeasible_lp(solver):
    with pytest.raises(SolverError) as info:
        solve_lp(infeasible_lp(), solver=solver)
    error = info.value
    assert not isinstance(error, SolverTimeLimitError)
    assert "infeasible" in error.status.lower()
    message = str(error)
    assert error.status in message and "'infeasible by hand'" in message
    assert "1 rows, 2 columns, 2 nonzeros" in message
    assert error.size == {"rows": 1, "cols": 2, "nnz": 2}


@pytest.mark.parametrize("solver", ["choose", "simplex"])
def test_unbounded_lp(solver):
    with pytest.raises(SolverError) as info:
        solve_lp(unbounded_lp(), solver=solver)
    error = info.value
    assert "unbounded" in error.status.lower()
    assert error.status in str(error) and "1 rows, 2 columns, 2 nonzeros" in str(error)
    assert error.size == {"rows": 1, "cols": 2, "nnz": 2}


@pytest.fixture(scope="module")
def ocp200():
    return lpgame.games.make("one_card_poker", N=200)


@pytest.mark.parametrize("limit", [1e-9, 0.0])
def test_time_limit(ocp200, limit):
    with pytest.raises(SolverTimeLimitError) as info:
        lpgame.solve(ocp200, time_limit=limit)
    error = info.value
    assert error.status == "Time limit reached"
    assert "time limit" in str(error) and _size_text(error) in str(error)
    assert "algorithm='double_oracle'" in str(error)      # the hint for large trees
    _check_ocp200_size(error.size)
    assert isinstance(error, SolverError)


def _size_text(error: SolverError) -> str:
    return f"{error.size['rows']} rows, {error.size['cols']} columns, {error.size['nnz']} nonzeros"


def _check_ocp200_size(size: dict) -> None:
    # OCP(200) has 4·200 + 1 sequences per player (Rojas l. 1191) and 2·200 information sets per
    # player: the LP holds at least player 1's plan x and player 2's values v as columns, and at
    # least one row per player 1 information set (+ ∅) and per player 2 sequence
    assert set(size) == {"rows", "cols", "nnz"}
    assert size["cols"] >= 801 + 401 and size["rows"] >= 401 + 801 and size["nnz"] > 0


def test_simplex_iteration_limit_is_an_error_naming_the_status(ocp200):
    with pytest.raises(SolverError) as info:
        lpgame.solve(ocp200, solver="simplex", highs_options={"simplex_iteration_limit": 1})
    error = info.value
    assert not isinstance(error, SolverTimeLimitError)
    assert "iteration limit" in error.status.lower()
    assert error.status in str(error) and _size_text(error) in str(error)
    _check_ocp200_size(error.size)


def test_unknown_highs_option_is_refused():
    with pytest.raises(SolverError, match="no_such_option"):
        lpgame.solve("matching_pennies", highs_options={"no_such_option": 1})
    with pytest.raises(SolverError, match="time_limit"):
        lpgame.solve("matching_pennies", highs_options={"time_limit": "soon"})


def test_unknown_backend_and_solver():
    with pytest.raises(SolverError, match="unknown backend 'gurobi'"):
        lpgame.solve("matching_pennies", backend="gurobi")
    with pytest.raises(SolverError, match="unknown HiGHS solver 'magic'"):
        lpgame.solve("matching_pennies", solver="magic")


@pytest.mark.parametrize("concept", ["nash", "maximin"])
@pytest.mark.parametrize("backend", ["cvxpy", "pyomo"])
def test_exact_mode_needs_highs(concept, backend):
    with pytest.raises(ExactCheckError, match="backend='highs'"):
        lpgame.solve("matching_pennies", concept=concept, exact=True, backend=backend)


def test_unknown_concept():
    with pytest.raises(lpgame.LpgameError, match="unknown concept 'magic'"):
        lpgame.solve("matching_pennies", concept="magic")


def test_changing_threads_between_solves_works_and_a_refused_run_is_named(monkeypatch):
    """HiGHS sizes one thread scheduler per process; from highspy 1.16 a run asking for another
    thread count is refused before solving (model status "Not Set") unless lpgame resets the
    scheduler. With the reset every count solves; without it the refusal is a SolverError that
    says so, never a silent "Not Set"."""
    import highspy

    import lpgame.lp.highs_backend as backend
    from lpgame.equilibria.zero_sum.security import security_lp

    lp = security_lp(lpgame.compile_game(lpgame.games.make("kuhn_poker")), 0).lp
    # threads are bounded by the CPU count (check_threads); this test is about HiGHS's scheduler,
    # so it runs as on a machine with 4 cores whatever this one has
    monkeypatch.setattr(backend.os, "cpu_count", lambda: 4)
    for threads in (1, 2, 1):
        assert solve_lp(lp, threads=threads).objective == pytest.approx(-1 / 18, abs=1e-9)
    monkeypatch.setattr(backend, "_restart_thread_scheduler", lambda: None)
    version = tuple(int(p) for p in highspy.Highs().version().split(".")[:2])
    outcomes = []
    for threads in (2, 1, 3):
        try:
            outcomes.append(solve_lp(lp, threads=threads).objective)
        except SolverError as error:
            assert "refused to solve" in str(error) and "threads" in str(error)
            outcomes.append("refused")
    if version >= (1, 16):
        assert "refused" in outcomes
    assert all(o == "refused" or o == pytest.approx(-1 / 18, abs=1e-9) for o in outcomes)
