"""The exact stage of the trembling-LP limit loop: an exact simplex at a fixed rational ξ
(lpgame/equilibria/refinements/exact_limit.py; issue 22), checked against references outside that module:

* strong duality in exact rationals, recomputed here from the data of P(ξ): the basis the exact
  simplex returns must be primal feasible, dual feasible and have equal primal and dual objectives
  (LP duality; Chvátal 1983, ch. 5), at ξ = 2⁻⁶⁰ where HiGHS's tolerances cannot see ε² or smaller;
* the exact Nash value of the plain sequence-form LP (lpgame.solve(..., exact=True), a different
  LP and code path): the refinement's value must equal it;
* the independent refinement checks of lpgame/analysis/refinement_checks.py (lexicographic
  optimality at every information set, on the tree) and NashConv exactly 0;
* Leduc L2232 (Farina 2023, Table 13.1): its QPE was only a partial answer before the exact stage.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, event, given, settings
from random_games import imperfect_information_games

import lpgame
from lpgame.compile import compile_game
from lpgame.equilibria.refinements.exact_limit import (
    FIXED,
    FREE,
    exact_instance,
    exact_simplex_at,
    exact_solution,
)
from lpgame.equilibria.refinements.limit import EXACT_HOW, certify_stable_basis, solve_limit
from lpgame.equilibria.refinements.perturbed_lp import refinement_lp
from lpgame.equilibria.refinements.refined_equilibrium import solve_refinement
from lpgame.errors import LpgameError

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _strong_duality(inst, basis, x, pi) -> None:
    """Independent optimality check of a basis of min c̄ᵀw s.t. [A D] w = b (module docstring of
    lpgame.equilibria.refinements.exact_limit), from the data alone: Aw = b, bounds, reduced costs, equal
    objectives."""
    w = [Fraction(0)] * (inst.n + inst.m)
    for k, j in enumerate(basis):
        w[j] = x[k]
    activity = inst.A.matvec(w[:inst.n])
    for i in range(inst.m):
        assert activity[i] + inst.slack[i] * w[inst.n + i] == inst.rhs[i]
    for j, value in enumerate(w):
        if inst.kinds[j] == FIXED:
            assert value == 0
        elif inst.kinds[j] != FREE:
            assert value >= 0
    at = inst.A.rmatvec(pi)
    for j in range(inst.n + inst.m):
        d = inst.cost[j] - (at[j] if j < inst.n else inst.slack[j - inst.n] * pi[j - inst.n])
        if inst.kinds[j] == FREE:
            assert d == 0
        elif inst.kinds[j] != FIXED:
            assert d >= 0                     # minimisation: no improving direction
    primal = sum((c * v for c, v in zip(inst.cost, w)), Fraction(0))
    dual = sum((b * p for b, p in zip(inst.rhs, pi)), Fraction(0))
    assert primal == dual


@settings(parent=SETTINGS, max_examples=10)
@given(imperfect_information_games())
def test_exact_simplex_from_the_slack_basis_at_tiny_xi_matches_the_highs_path(game):
    """Force the exact path where floats are useless (ξ = 2⁻⁶⁰, ξ⁴ = 2⁻²⁴⁰), from the worst start
    (every slack basic, phase 1 needed): the optimum is exact (strong duality), and when its basis
    is stable its limit has the value of the plain Nash LP, as the HiGHS path's does."""
    sf = compile_game(game)
    value = lpgame.solve(game, exact=True).value
    for refinement in ("qpe", "os-qpe", "efpe"):
        tlp = refinement_lp(sf, refinement, 1).tlp
        xi = Fraction(1, 2 ** 60)
        inst = exact_instance(tlp, xi)
        basis, x, pi, pivots = exact_simplex_at(inst, [inst.n + i for i in range(inst.m)])
        _strong_duality(inst, basis, x, pi)
        try:
            stable = certify_stable_basis(tlp, exact_solution(inst, tlp.at(xi), basis, x, pi,
                                                              pivots, 0.0))
        except Exception:           # noqa: BLE001 - not stable at this ξ: nothing to compare
            continue
        c0 = tlp.exact_powers()[0][0]
        limit_objective = sum((c * z for c, z in zip(c0, stable.primal[0])), Fraction(0))
        if refinement != "os-qpe":
            assert limit_objective == value          # the LP's objective is player 1's value
        highs = solve_limit(tlp, exact_fallback=False)
        if highs.stable:
            assert sum((c * z for c, z in zip(c0, highs.basis.primal[0])), Fraction(0)) \
                == limit_objective


@SETTINGS
@given(imperfect_information_games())
def test_forced_exact_stage_gives_the_refinement_of_the_highs_path(game):
    """The whole chain with the floating-point loop made useless (one ξ = 2⁻⁶⁰ for HiGHS), against
    the default path: both certified answers are exact Nash equilibria with the plain LP's value
    that pass the independent refinement checks."""
    value = lpgame.solve(game, exact=True).value
    for refinement in ("qpe", "os-qpe"):
        forced = solve_refinement(game, refinement, schedule=[Fraction(1, 2 ** 60)],
                                  exact_fallback="simplex",
                                  exact_schedule=[Fraction(1, 2 ** 60), Fraction(1, 2 ** 100)])
        info = forced.extra["refinement"]
        event(f"{refinement}: {info['status']} by {info['epsilon'].get('basis_by')}")
        if info["status"] != "certified":
            assert "partial" in info["message"]
            continue
        assert forced.value == value and forced.certificate.nash_conv == 0
        assert all(c["passed"] for c in info["checks"]) and not info["witness_problems"]


@pytest.mark.parametrize("refinement", ["qpe", "os-qpe"])
def test_kuhn_unstable_highs_basis_is_repaired_by_the_exact_simplex(refinement):
    """HiGHS's basis at ξ = 1/8 is not stable for Kuhn; the exact stage certifies a basis at
    ξ = 2⁻¹⁰ and the answer is the one of the plain ξ loop (Kuhn's value −1/18, "K check bet":
    call)."""
    repaired = solve_refinement("kuhn_poker", refinement, schedule=[Fraction(1, 8)])
    info = repaired.extra["refinement"]
    assert info["status"] == "certified" and info["epsilon"]["basis_by"] == EXACT_HOW
    assert info["epsilon"]["found_at"] == "1/1024"
    plain = solve_refinement("kuhn_poker", refinement)
    assert repaired.certificate.nash_conv == 0 and repaired.value == Fraction(-1, 18)
    assert all(c["passed"] for c in info["checks"])
    assert repaired.strategies == plain.strategies


def test_exact_stage_that_never_stabilises_gives_a_labelled_partial_answer():
    """Only ξ = 1/8 allowed, for HiGHS and for the exact stage: the exact optimum at 1/8 is not
    stable, so the answer is partial, says so, and names the smallest ξ reached."""
    result = solve_refinement("kuhn_poker", "qpe", schedule=[Fraction(1, 8)],
                              exact_fallback="simplex", exact_schedule=[Fraction(1, 8)])
    info = result.extra["refinement"]
    assert info["status"] == "partial" and not result.exact
    assert info["epsilon"]["smallest_reached"] == "1/8"
    assert "no exact optimal basis was certified stable down to ξ = 1/8" in info["message"]
    assert info["attempts"][-1]["how"] == EXACT_HOW and not info["attempts"][-1]["stable"]


def test_unknown_fallback_is_refused():
    with pytest.raises(LpgameError, match="exact_fallback"):
        solve_refinement("kuhn_poker", "qpe", exact_fallback="mpfr")


def test_leduc_l2232_qpe_is_exact_and_certified():
    """Leduc L2232 (Table 13.1): no HiGHS basis is stable (the default loop down to ξ = 2⁻⁶⁰ is in
    benchmarks/bench_refinements.py; three of its ξ here, to keep the test short); the exact stage
    certifies one at ξ = 2⁻²⁰ (the thesis: 10⁻⁶). NashConv exactly 0, the quasi-perfect check on
    the tree passes for both players, and the value is the plain exact Nash LP's."""
    game = lpgame.games.make("leduc_poker", bets=2, ranks=3, suits=2)
    result = solve_refinement(game, "qpe", schedule=[Fraction(1, 2 ** k) for k in (7, 20, 60)])
    info = result.extra["refinement"]
    assert info["status"] == "certified" and result.exact
    assert info["epsilon"]["basis_by"] == EXACT_HOW
    assert Fraction(info["epsilon"]["certified_on"]) > 0
    assert result.certificate.nash_conv == 0
    assert [c["passed"] for c in info["checks"]] == [True, True]
    assert all(c["property"].startswith("quasi-perfect") for c in info["checks"])
    assert not info["witness_problems"]
    assert result.value == lpgame.solve(game, concept="nash", exact=True).value
