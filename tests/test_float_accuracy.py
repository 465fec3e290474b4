"""Float answers as accurate as the solver can make them (issue 40; issue 34, item 6).

HiGHS stops at a basis whose infeasibilities are within absolute tolerances (1e-7); the concepts
hand it payoffs in unit range, so 1e-7 there is 1e-7 of the payoff range. The HiGHS backend
therefore polishes a basic optimum (the simplex goes on from it with tolerances 1e-10). These tests
judge the answers by the games' own best responses (lpgame.analysis, never the LP) and by
rescaling a game by powers of ten, which leaves its equilibria unchanged.
"""

from __future__ import annotations

import copy
import time

import numpy as np
import pytest

import lpgame
from lpgame.lp.highs_backend import (
    POLISH_TOLERANCE,
    basic_solution,
    build_highs,
    polish_basis,
    set_starting_basis,
    solve_highs,
)
from lpgame.lp.linear_program import LinearProgram


def scaled_game(game, factor: float):
    """``game`` with every payoff multiplied by ``factor`` (float mode reads only the index's float
    payoffs; the exact data is not scaled, so the copy is for float solves)."""
    out = copy.copy(game)
    out.index = copy.copy(game.index)
    out.index.terminal_payoffs = game.index.terminal_payoffs * factor
    out.name = f"{game.name} × {factor:g}"
    return out


GAMES = [("kuhn_poker", {}), ("leduc_poker", {}), ("one_card_poker", {"N": 12, "structured": False}),
         ("domino", {"M": 2, "N": 2})]


@pytest.mark.parametrize("name, params", GAMES, ids=[name for name, _ in GAMES])
@pytest.mark.parametrize("k", [-9, 0, 9])
def test_float_nash_reaches_relative_nash_conv_1e9_at_every_scale(name, params, k):
    base = lpgame.games.make(name, **params)
    factor = 10.0 ** k
    game = scaled_game(base, factor)
    result = lpgame.solve(game)
    spread = game.payoff_range()
    assert spread == pytest.approx(base.payoff_range() * factor, rel=1e-12)
    # the certificate is the game's own best responses; recompute it from the strategies
    independent = lpgame.evaluate(game, result.strategies)
    assert independent.nash_conv <= 1e-9 * spread
    assert result.certificate.extra["relative_nash_conv"] <= 1e-9
    unscaled = lpgame.solve(base)
    assert result.value / factor == pytest.approx(unscaled.value, abs=1e-9 * base.payoff_range())


def random_lp(seed: int, rows: int = 30, cols: int = 40) -> LinearProgram:
    """max cᵀx s.t. Ax ≤ b, 0 ≤ x ≤ 1 with A, b, c drawn at random (bounded and feasible: x = 0)."""
    rng = np.random.default_rng(seed)
    lp = LinearProgram(name=f"random LP {seed}")
    x = lp.add_variables("x", cols, lower=0.0, upper=1.0)
    lp.add_constraints("rows", [(x, rng.uniform(-1, 1, (rows, cols)))], "<=",
                       rng.uniform(0.1, 1, rows))
    lp.set_objective([(x, rng.uniform(-1, 1, cols))], "max")
    return lp


@pytest.mark.parametrize("gap", [1e-5, 1e-8])
def test_the_polish_goes_on_from_a_basis_optimal_only_within_the_tolerance(gap):
    """max x1 + (1 + gap)·x2 s.t. x1 + x2 ≤ 1, 0 ≤ x ≤ 1, started from the basis {x1}: its reduced
    cost for x2 is ``gap``, within a dual tolerance of 1e-3 (and 1e-8 within HiGHS's default 1e-7),
    so HiGHS stops there with objective 1. The polish pivots x2 in: the optimum 1 + gap."""
    lp = LinearProgram(name="nearly tied")
    x = lp.add_variables("x", 2, lower=0.0, upper=1.0)
    lp.add_constraints("budget", [(x, np.array([[1.0, 1.0]]))], "<=", np.array([1.0]))
    lp.set_objective([(x, np.array([1.0, 1.0 + gap]))], "max")
    tolerance = max(10 * gap, 1e-7)
    h = build_highs(lp, {"presolve": "off", "solver": "simplex",
                         "primal_feasibility_tolerance": tolerance,
                         "dual_feasibility_tolerance": tolerance})
    set_starting_basis(h, np.array([1, 0]), np.array([2]))     # x1 basic, x2 at 0, row at 1
    start = time.perf_counter()
    h.run()
    first = basic_solution(h, lp, None, start)
    assert first.objective == 1.0
    polished = polish_basis(h, lp, first, None, start)
    assert polished.objective == pytest.approx(1 + gap, abs=1e-14)
    assert polished.values("x").tolist() == pytest.approx([0.0, 1.0], abs=1e-14)
    assert h.getInfo().max_dual_infeasibility <= POLISH_TOLERANCE


def test_named_tolerances_are_not_polished_and_the_default_is():
    lp = random_lp(0)
    plain = solve_highs(lp)
    assert plain.info["polish"]["tolerance"] == POLISH_TOLERANCE
    assert plain.info["solver"]["tolerance"] == POLISH_TOLERANCE
    named = solve_highs(lp, highs_options={"primal_feasibility_tolerance": 1e-7})
    assert "polish" not in named.info
    off = solve_highs(lp, polish=False)
    assert "polish" not in off.info and off.info["solver"]["tolerance"] == 1e-7


@pytest.mark.slow
def test_rhode_island_12_cards_through_gameshrink_is_accurate():
    """Issue 34, item 6: 12-card Rhode Island through GameShrink certified NashConv 5.6e-6 (1.8e-8
    of its range of 310) with the unit-range scaling and HiGHS's default tolerances."""
    result = lpgame.solve(lpgame.games.make("rhode_island_holdem", ranks=3, suits=4),
                          abstraction="gameshrink")
    assert result.certificate.extra["payoff_range"] == pytest.approx(310)
    assert result.certificate.extra["relative_nash_conv"] <= 1e-9


def test_the_benchmark_guard_flags_issue_40s_domino_figures():
    """The reference file holds 45be4cf's figures; main's Domino(3,3) of issue 40 (value 5.2e-8 off,
    NashConv 1.8e-6 = 4.6e-8 of the range, measured at twice the reference's time) is flagged on
    all three counts, and the reference's own figures on none."""
    from benchmarks.bench_tables import load_reference, reference_check

    reference = load_reference()
    assert reference["commit"] == "45be4cf"
    domino = reference["instances"]["Domino(3,3)"]
    same = {"status": "solved", "seconds": domino["seconds"], "payoff_range": 38.0,
            "value": domino["value"], "nash_conv": domino["relative_nash_conv"] * 38.0}
    assert reference_check(same, domino) == (1.0, [])
    issue = {**same, "seconds": 2 * domino["seconds"], "value": 2.1531824980392273,
             "nash_conv": 1.7588245384558832e-06}
    assert reference_check(issue, domino)[1] == ["slower", "less accurate", "value"]
    assert reference_check({**same, "status": "time_limit"}, domino) == (None, [])
