"""Issue 34, build 2 for the MILP and multiple-LP concepts: payoffs × 10^k (k from −12 to 12) give
the same answers with values × 10^k, labelled optimal, in floating point and exactly.

The reference for the value is the brute-force Stackelberg solver of tests/test_turn3_cases.py
(every vertex of every commitment LP, in Fractions) and Gambit's extreme equilibria for optimal
Nash, on the unscaled game; scaling by 10^k multiplies every equilibrium value by 10^k.
"""

from __future__ import annotations

import importlib.util
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lpgame.compile import compile_game
from lpgame.equilibria.general_sum.optimal_nash import solve_optimal_nash
from lpgame.equilibria.general_sum.stackelberg import solve_stackelberg
from lpgame.game import NormalFormGame

_spec = importlib.util.spec_from_file_location("turn3_cases",
                                               Path(__file__).with_name("test_turn3_cases.py"))
_cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_cases)
brute_force_stackelberg = _cases.brute_force_stackelberg
gambit_objective_range = _cases.gambit_objective_range

SETTINGS = settings(max_examples=12, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
TOLERANCE = 1e-9


@st.composite
def scaled_bimatrix(draw):
    m, n = draw(st.integers(2, 3)), draw(st.integers(2, 3))
    ints = np.array(draw(st.lists(st.integers(-4, 4), min_size=2 * m * n, max_size=2 * m * n)),
                    dtype=object).reshape(2, m, n)
    if len({int(v) for v in ints[0].flat}) < 2 or len({int(v) for v in ints[1].flat}) < 2:
        ints[0, 0, 0], ints[1, 0, 0] = 5, -5            # every player's payoffs have a range
    k = draw(st.integers(-12, 12))
    return ints, k


def games(ints, k):
    factor = Fraction(10) ** k
    exact = np.vectorize(lambda v: Fraction(int(v)) * factor, otypes=[object])(ints)
    return (NormalFormGame(exact, name=f"10^{k} exact"),
            NormalFormGame(exact.astype(float), name=f"10^{k} float"), factor)


@SETTINGS
@given(scaled_bimatrix(), st.sampled_from([1, 2]), st.sampled_from(["multiple_lps", "milp"]))
def test_stackelberg_value_scales_with_the_payoffs(case, leader, method):
    ints, k = case
    exact_game, float_game, factor = games(ints, k)
    a, b = (np.vectorize(Fraction, otypes=[object])(u) for u in ints)
    truth = brute_force_stackelberg(a, b, leader) * factor
    spread = float(np.ptp(ints[leader - 1].astype(float))) * float(factor)
    floats = solve_stackelberg(float_game, leader=leader, method=method)
    assert abs(float(floats.extra["leader_value"]) - float(truth)) <= TOLERANCE * spread
    assert floats.extra["optimality"]["proven"]
    assert floats.certificate.extra["relative_follower_gain"] <= TOLERANCE
    exact = solve_stackelberg(exact_game, leader=leader, method=method, exact=True)
    assert Fraction(exact.extra["leader_value"]) == truth and exact.extra["optimality"]["proven"]


@SETTINGS
@given(scaled_bimatrix(), st.sampled_from([(1, 1), (1, 0), (0, 1)]), st.booleans())
def test_optimal_nash_value_scales_with_the_payoffs(case, weights, worst):
    ints, k = case
    exact_game, float_game, factor = games(ints, k)
    a, b = (np.vectorize(Fraction, otypes=[object])(u) for u in ints)
    lo, hi = gambit_objective_range(a, b, weights)
    truth = (lo if worst else hi) * factor
    spread = sum(w * float(np.ptp(u.astype(float))) for w, u in zip(weights, ints)) * float(factor)
    objective = ",".join(str(w) for w in weights)
    floats = solve_optimal_nash(compile_game(float_game), objective, worst=worst, pair=False,
                                beside_ce=False)
    assert abs(float(floats.extra["objective_value"]) - float(truth)) <= TOLERANCE * spread
    assert floats.extra["optimality"]["proven"]
    assert floats.certificate.extra["relative_nash_conv"] <= TOLERANCE
    exact = solve_optimal_nash(compile_game(exact_game), objective, worst=worst, exact=True,
                               pair=False, beside_ce=False)
    assert Fraction(exact.extra["objective_value"]) == truth and exact.extra["optimality"]["proven"]


def test_the_issue_examples_of_scale(capsys):
    """A scale far beyond HiGHS's own limits (1e-12 drops every entry, 1e12 gives "Unbounded")."""
    ints = np.array([[[3, 0], [5, 1]], [[3, 5], [0, 1]]], dtype=object)   # prisoner's dilemma
    for k in (-12, 12):
        _, float_game, factor = games(ints, k)
        r = solve_optimal_nash(compile_game(float_game), "welfare", beside_ce=False, pair=False)
        assert r.extra["objective_value"] == pytest.approx(2 * float(factor), rel=1e-9)
        assert r.extra["optimality"]["proven"]
