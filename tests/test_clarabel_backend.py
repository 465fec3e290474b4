"""Clarabel's interior point (then, on request, HiGHS's crossover) against HiGHS and exact values."""

from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import lpgame
from lpgame.equilibria.zero_sum.nash import solve_zero_sum
from lpgame.equilibria.zero_sum.security import compressed_security_lp, security_lp
from lpgame.errors import ExactCheckError, SolverError, SolverTimeLimitError
from lpgame.lp import LinearProgram, solve_lp


def _mixed_lp(sense: str) -> LinearProgram:
    """An LP with every kind of row and bound: ==, <=, >= rows, a fixed column, bounded columns.

    Its optimum is unique and non-degenerate, so its duals are unique too."""
    lp = LinearProgram(name=f"mixed {sense}", sense=sense)
    x = lp.add_variables("x", 3, lower=[0.0, -1.0, 0.5], upper=[4.0, np.inf, 0.5])
    lp.add_constraints("eq", [(x, sp.csr_array(np.array([[1.0, 1.0, 1.0]])))], "==", [3.0])
    lp.add_constraints("le", [(x, sp.csr_array(np.array([[1.0, -1.0, 0.0]])))], "<=", [1.0])
    lp.add_constraints("ge", [(x, sp.csr_array(np.array([[1.0, 2.0, 0.0]])))], ">=", [2.0])
    lp.set_objective([(x, np.array([2.0, 1.0, 3.0]) * (1 if sense == "max" else -1))], sense)
    return lp


@pytest.mark.parametrize("sense", ["max", "min"])
def test_objective_and_duals_agree_with_highs(sense):
    lp = _mixed_lp(sense)
    highs = solve_lp(lp)
    clar = solve_lp(lp, solver="clarabel")
    assert clar.backend == "clarabel" and clar.info["ipm_iterations"] > 0
    assert clar.objective == pytest.approx(highs.objective, abs=1e-9)
    assert np.allclose(clar.col_values, highs.col_values, atol=1e-7)
    # duals in lpgame's convention, ∂objective/∂rhs, the same as HiGHS's
    assert np.allclose(clar.row_duals, highs.row_duals, atol=1e-7)
    # and by finite differences on the le row
    shifted = _mixed_lp(sense)
    shifted.constraints[1].rhs = np.array([1.0 + 1e-3])
    moved = solve_lp(shifted, solver="clarabel").objective - clar.objective
    assert moved / 1e-3 == pytest.approx(clar.duals("le")[0], abs=1e-5)


def test_kuhn_by_clarabel_is_an_equilibrium_by_the_independent_best_response():
    result = lpgame.solve("kuhn_poker", solver="clarabel")
    assert result.value == pytest.approx(-1 / 18, abs=1e-10)
    assert result.certificate.nash_conv <= 1e-9


def test_crossover_gives_a_basis_that_certifies_exactly():
    sf = lpgame.compile_game(lpgame.games.make("kuhn_poker"))
    exact = solve_zero_sum(sf, exact=True, solver="clarabel", crossover=True)
    assert exact.value == Fraction(-1, 18)
    assert exact.lp_solution.has_basis and "crossover_seconds" in exact.lp_solution.info
    with pytest.raises(ExactCheckError, match="optimal basis"):
        solve_zero_sum(sf, exact=True, solver="clarabel")   # no crossover: no basis


def test_crossover_on_the_compressed_lp_matches_the_simplex_vertex_value():
    sf = lpgame.compile_game(lpgame.games.make("one_card_poker", N=60))
    built = security_lp(sf, 0)
    by_crossover = solve_lp(built.lp, solver="clarabel", crossover=True)
    by_simplex = solve_lp(built.lp, solver="simplex")
    assert by_crossover.has_basis
    assert by_crossover.objective == pytest.approx(by_simplex.objective, abs=1e-12)


def test_clarabel_refuses_an_infeasible_lp_and_reports_its_time_limit():
    lp = LinearProgram(name="infeasible")
    x = lp.add_variables("x", 1)
    lp.add_constraints("low", [(x, sp.csr_array(np.array([[1.0]])))], ">=", [2.0])
    lp.add_constraints("high", [(x, sp.csr_array(np.array([[1.0]])))], "<=", [1.0])
    lp.set_objective([(x, np.array([1.0]))], "max")
    with pytest.raises(SolverError, match="Clarabel returned status 'PrimalInfeasible'.*infeasible"):
        solve_lp(lp, solver="clarabel")
    big = security_lp(lpgame.compile_game(lpgame.games.make("one_card_poker", N=3000)), 0).lp
    with pytest.raises(SolverTimeLimitError, match="time limit") as caught:
        solve_lp(big, solver="clarabel", time_limit=1e-6)
    assert caught.value.status == "MaxTime"
    with pytest.raises(SolverError, match="no setting 'not_a_setting'"):
        solve_lp(lp, solver="clarabel", clarabel_options={"not_a_setting": 1})


@settings(max_examples=25, deadline=None)
@given(cards=st.integers(min_value=2, max_value=30), block=st.integers(min_value=1, max_value=31),
       player=st.integers(min_value=0, max_value=1))
def test_blocked_cumulative_sums_keep_the_lps_value(cards, block, player):
    """Two-level cumulative sums (blocks of b signals) are the same LP as one chain (issue 6)."""
    sf = lpgame.compile_game(lpgame.games.make("one_card_poker", N=cards))
    chain = compressed_security_lp(sf, player, player, block=cards)
    blocked = compressed_security_lp(sf, player, player, block=block)
    plain = security_lp(sf, player, compress=False)
    assert ("block_cumulative" in [c.name for c in blocked.lp.constraints]) == (block < cards)
    a, b = solve_lp(chain.lp), solve_lp(blocked.lp)
    reference = solve_lp(plain.lp).objective
    assert a.objective * chain.value_scale == pytest.approx(reference, abs=1e-10)
    assert b.objective * blocked.value_scale == pytest.approx(reference, abs=1e-10)
    # the duals of best_response are still the opponent's realization plan
    y = np.clip(b.duals("best_response"), 0, None)
    F = sf.treeplex_matrix(1 - player)
    assert np.allclose(F @ y, sf.treeplex_rhs(1 - player), atol=1e-8)


def test_many_signals_use_blocks_of_about_sqrt_n():
    from lpgame.equilibria.zero_sum.security import BLOCKED_SIGNALS_THRESHOLD

    n = BLOCKED_SIGNALS_THRESHOLD
    built = security_lp(lpgame.compile_game(lpgame.games.make("one_card_poker", N=n)), 0)
    assert built.preferred_solver == "clarabel"
    blocks = built.lp.block("P").size // (built.lp.block("C").size // n)
    assert blocks == -(-n // (int(np.sqrt(n - 1)) + 1))
    below = security_lp(lpgame.compile_game(lpgame.games.make("one_card_poker", N=n - 1)), 0)
    assert "block_cumulative" not in [c.name for c in below.lp.constraints]
