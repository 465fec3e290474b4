"""Exact mode: certified rationals on games whose exact values are not nice fractions."""

from fractions import Fraction

import pytest

import lpgame


def test_leduc_exact_value_is_the_same_for_rank_and_card_deals():
    ranks = lpgame.solve(lpgame.games.make("leduc_poker"), exact=True)
    cards = lpgame.solve(lpgame.games.make("leduc_poker", deal="cards"), exact=True)
    assert isinstance(ranks.value, Fraction) and ranks.value == cards.value
    assert ranks.certificate.nash_conv == 0 and cards.certificate.nash_conv == 0
    # OpenSpiel's sequence-form LP on leduc_poker (notes/peers.md): -0.0856064240780
    assert float(cards.value) == pytest.approx(-0.0856064240780, abs=1e-12)


def test_exact_strategies_are_probability_vectors_of_fractions():
    result = lpgame.solve(lpgame.games.make("leduc_poker"), exact=True)
    for strategy in result.strategies:
        for row in strategy.values():
            assert all(isinstance(p, Fraction) and p >= 0 for p in row.values())
            assert sum(row.values()) == 1
    # and they evaluate exactly to the value with zero gains, through the public API
    ev = lpgame.evaluate(lpgame.games.make("leduc_poker"), result.strategies, exact=True)
    assert ev.values[0] == result.value and ev.nash_conv == 0


def test_exact_ocp_through_the_structured_game():
    # exact mode uses the plain LP and the leaf table of the compiled game
    result = lpgame.solve(lpgame.games.make("one_card_poker", N=12), exact=True)
    tree = lpgame.solve(lpgame.games.make("one_card_poker", N=12, structured=False), exact=True)
    assert result.value == tree.value and result.certificate.nash_conv == 0


def test_numpy_integers_become_python_rationals():
    import numpy as np

    from lpgame.rational import to_fraction

    big = to_fraction(np.int64(3)) * (10**30)   # a fixed-width numerator would overflow here
    assert big == 3 * 10**30 and type(to_fraction(np.int64(3)).numerator) is int
    assert to_fraction(0.1) == Fraction(1, 10) and to_fraction("2/3") == Fraction(2, 3)


def test_exact_mode_on_compiled_games_with_numpy_payoffs():
    # the compiled leaf payoffs are numpy arrays; exact certification must not overflow
    result = lpgame.solve(lpgame.games.make("kuhn_poker", cards=9, structured=True), exact=True)
    tree = lpgame.solve(lpgame.games.make("kuhn_poker", cards=9), exact=True)
    assert result.value == tree.value and result.certificate.nash_conv == 0


def test_a_basis_that_fails_certification_is_improved_with_tight_tolerances(monkeypatch):
    """HiGHS's basis is optimal within 1e-7; where exact arithmetic finds it infeasible (Domino(3,3):
    a row violated by 7e-10), the simplex goes on from it with the tightest tolerances and the new
    basis is certified. Here the first certification is made to fail."""
    import lpgame.lp.exact as exact_module
    from lpgame.errors import ExactCheckError

    real = exact_module.certify_basis
    solves = []
    calls = {"n": 0}

    def failing_once(lp, solution):
        calls["n"] += 1
        if calls["n"] == 1:
            raise ExactCheckError("exact mode: row 3 has activity 1/10**9 outside its bounds")
        return real(lp, solution)

    import lpgame.lp.highs_backend as highs_backend
    real_solve = highs_backend.solve_highs

    def recording_solve(lp, **options):
        solves.append(options)
        return real_solve(lp, **options)

    monkeypatch.setattr(exact_module, "certify_basis", failing_once)
    monkeypatch.setattr(highs_backend, "solve_highs", recording_solve)
    result = lpgame.solve("kuhn_poker", exact=True)
    assert result.value == Fraction(-1, 18) and result.certificate.nash_conv == 0
    assert len(solves) == 2 and "starting_basis" not in solves[0]
    assert solves[1]["starting_basis"] is not None
    assert solves[1]["highs_options"]["primal_feasibility_tolerance"] == 1e-10
    # the solution records the first attempt, and its time counts
    from lpgame.equilibria.zero_sum.nash import solve_zero_sum
    calls["n"] = 0
    sol = solve_zero_sum(lpgame.compile_game("kuhn_poker"), exact=True)
    first = sol.lp_solution.info["first_attempt"]
    assert "row 3" in first["certification"] and sol.lp_solution.seconds >= first["seconds"] > 0

    # every basis failing (HiGHS's, the tight one, the exact simplex's): the error names all three
    def always_failing(lp, solution):
        raise ExactCheckError("exact mode: row 3 has activity 1/10**9 outside its bounds")

    monkeypatch.setattr(exact_module, "certify_basis", always_failing)
    with pytest.raises(ExactCheckError, match="HiGHS's basis.*tightest tolerances.*exact simplex"):
        lpgame.solve("kuhn_poker", exact=True)
