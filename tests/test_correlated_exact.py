"""Exact mode and optimality certificates of the correlated concepts (issue 34, build items 1 and 3).

References, none of them lpgame's formulation:

* a brute-force LP over the joint pure profiles written here from the payoff tensor with plain
  loops, solved by scipy's ``linprog``; its duals, turned into fractions, give an exact
  weak-duality bound max_s [c(s) + Σ_k λ_k A_k(s)] (λ ≥ 0), computed here in Fractions;
* exact primal feasibility of lpgame's distribution, checked here in Fractions: with the bound,
  primal feasibility + dual feasibility + equal objectives prove the optimum exactly;
* the literature: chicken's welfare-optimal CE (Aumann 1974's construction; payoffs
  CC 6,6, CD 2,7, DC 7,2, DD 0,0 give ½ CC, ¼ CD, ¼ DC and welfare 21/2) and Kuhn poker's value
  −1/18 (Kuhn 1950): in a two-player zero-sum game every CE, EFCE, EFCCE and NFCCE pays the value;
* the inclusions NFCE ⊆ EFCE ⊆ EFCCE ⊆ NFCCE (von Stengel & Forges 2008): the optima are ordered
  the same way, and in a one-shot game EFCE = CE and EFCCE = NFCCE = CCE.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from random_games import two_player_trees
from scipy.optimize import linprog

import lpgame
from lpgame.game import NormalFormGame

SCALES = (-12, -6, 0, 6, 12)


# ------------------------------------------------------------------------------ brute force
def incentive_rows(payoffs: np.ndarray, coarse: bool) -> list[dict]:
    """The CE (CCE) rows Σ_s ψ(s) A(s) ≥ 0 as {profile: coefficient}, by plain loops."""
    n, shape = payoffs.shape[0], payoffs.shape[1:]
    rows = []
    for i in range(n):
        for x, y in itertools.product(range(shape[i]), repeat=2):
            if coarse and x > 0:
                break
            if not coarse and x == y:
                continue
            row = {}
            for s in itertools.product(*map(range, shape)):
                if not coarse and s[i] != x:
                    continue
                dev = s[:i] + (y,) + s[i + 1:]
                row[s] = payoffs[(i,) + s] - payoffs[(i,) + dev]
            rows.append(row)
    return rows


def brute_force(payoffs: np.ndarray, weights, coarse: bool) -> tuple[float, Fraction]:
    """(float optimum by scipy, exact weak-duality bound from its rationalised duals)."""
    shape = payoffs.shape[1:]
    profiles = list(itertools.product(*map(range, shape)))
    c = [sum(w * payoffs[(i,) + s] for i, w in enumerate(weights)) for s in profiles]
    rows = incentive_rows(payoffs, coarse)
    scale = max(abs(float(v)) for v in payoffs.ravel()) or 1.0
    a_ub = [[-float(r.get(s, 0)) / scale for s in profiles] for r in rows]
    res = linprog([-float(v) / scale for v in c], A_ub=a_ub or None,
                  b_ub=[0.0] * len(rows) or None, A_eq=[[1.0] * len(profiles)], b_eq=[1.0],
                  bounds=(0, None), method="highs")
    assert res.status == 0
    lam = [max(Fraction(-float(m)).limit_denominator(10 ** 6), Fraction(0))
           for m in (res.ineqlin.marginals if rows else [])]
    bound = max(Fraction(cs) + sum((lk * r.get(s, 0) for lk, r in zip(lam, rows)), Fraction(0))
                for s, cs in zip(profiles, c))
    return -res.fun * scale, bound


def assert_exactly_feasible(payoffs: np.ndarray, distribution, coarse: bool) -> None:
    psi = {s: Fraction(v) for s, v in np.ndenumerate(distribution)}
    assert all(v >= 0 for v in psi.values()) and sum(psi.values()) == 1
    for row in incentive_rows(payoffs, coarse):
        assert sum(psi[s] * a for s, a in row.items()) >= 0


def scaled(payoffs: np.ndarray, k: int) -> np.ndarray:
    factor = Fraction(10) ** k
    out = np.empty(payoffs.shape, dtype=object)
    for idx, v in np.ndenumerate(payoffs):
        out[idx] = Fraction(v) * factor
    return out


# ------------------------------------------------------------------------------ must show
def test_chicken_welfare_ce_is_exactly_21_over_2():
    game = lpgame.games.make("chicken")
    payoffs = np.array(game.payoffs, dtype=object)
    r = lpgame.solve(game, concept="ce", objective="welfare", exact=True)
    assert r.objective == Fraction(21, 2) and r.payoffs == [Fraction(21, 4)] * 2
    assert r.gap == 0 and r.certificate.exact and r.optimal
    assert r.certificate.extra["objective_bound"] == Fraction(21, 2)
    assert r.certificate.extra["optimality_proven"] is True
    assert {tuple(e["profile"]): e["probability"] for e in r.distribution} == {
        ("C", "C"): Fraction(1, 2), ("C", "D"): Fraction(1, 4), ("D", "C"): Fraction(1, 4)}
    optimum, bound = brute_force(payoffs, (1, 1), coarse=False)
    assert optimum == pytest.approx(10.5, abs=1e-9) and bound == Fraction(21, 2)


def test_chicken_cli_prints_21_over_2(capsys):
    from lpgame.cli import main
    assert main(["solve", "chicken", "--concept", "ce", "--objective", "welfare", "--exact"]) == 0
    out = capsys.readouterr().out
    assert "objective: 21/2" in out and "optimality_proven = True" in out


def test_kuhn_optimal_efce_is_exact_and_equals_the_value():
    """Kuhn poker is zero-sum: every EFCE pays player 1 the value −1/18 (Kuhn 1950), which is also
    the optimal normal-form CE of the reduced normal form (NFCE ⊆ EFCE gives ≥; zero-sum gives =)."""
    kuhn = lpgame.games.make("kuhn_poker")
    efce = lpgame.solve(kuhn, concept="efce", objective="player1", exact=True)
    ce = lpgame.solve(kuhn, concept="ce", objective="player1", exact=True)
    assert efce.objective == ce.objective == Fraction(-1, 18)
    assert efce.payoffs == [Fraction(-1, 18), Fraction(1, 18)]
    assert efce.gap == 0 and efce.gap_detail["plan_residual"] == 0
    assert efce.realisable and efce.optimal and efce.triangle_free is False
    assert efce.certificate.extra["objective_bound"] == Fraction(-1, 18)
    assert all(isinstance(e["value"], Fraction) for e in efce.correlation_plan)
    assert sum(e["probability"] for e in efce.distribution) == 1


# ------------------------------------------------------------------------------ random normal forms
@st.composite
def small_games(draw):
    shape = draw(st.sampled_from([(2, 2), (2, 3), (3, 2), (3, 3), (2, 2, 2)]))
    n = len(shape)
    values = draw(st.lists(st.integers(-4, 4), min_size=n * math.prod(shape),
                           max_size=n * math.prod(shape)))
    return np.array(values, dtype=object).reshape((n,) + shape)


OBJECTIVES = st.sampled_from(["welfare", "player1", "player2"])


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(small_games(), st.sampled_from(["ce", "cce"]), OBJECTIVES)
def test_exact_ce_cce_against_brute_force(payoffs, concept, objective):
    n = payoffs.shape[0]
    weights = {"welfare": [1] * n, "player1": [1] + [0] * (n - 1),
               "player2": [0, 1] + [0] * (n - 2)}[objective]
    r = lpgame.solve(NormalFormGame(payoffs), concept=concept, objective=objective, exact=True)
    coarse = concept == "cce"
    assert isinstance(r.objective, Fraction) and r.gap == 0
    assert_exactly_feasible(payoffs, r.raw, coarse)
    assert r.objective == sum(w * p for w, p in zip(weights, r.payoffs))
    optimum, bound = brute_force(payoffs, weights, coarse)
    assert bound == r.objective                    # dual bound meets the primal value: optimal
    assert float(r.objective) == pytest.approx(optimum, abs=1e-9 * 8 * max(weights))
    assert r.optimal and r.certificate.extra["objective_bound"] == r.objective
    floats = lpgame.solve(NormalFormGame(payoffs.astype(float)), concept=concept,
                          objective=objective)
    assert floats.objective == pytest.approx(float(r.objective), abs=1e-9 * 16)
    assert floats.optimal and floats.certificate.extra["relative_bound_gap"] <= 1e-9


@settings(max_examples=12, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(small_games().filter(lambda p: p.shape[0] == 2), OBJECTIVES)
def test_plan_concepts_on_one_shot_games_equal_ce_and_cce(payoffs, objective):
    """In a one-shot game a trigger is a recommended action (EFCE = CE) or the decision to deviate
    before hearing it (EFCCE = NFCCE = CCE)."""
    game = NormalFormGame(payoffs)
    ce = lpgame.solve(game, concept="ce", objective=objective, exact=True).objective
    cce = lpgame.solve(game, concept="cce", objective=objective, exact=True).objective
    for concept, expected in (("efce", ce), ("efcce", cce), ("nfcce", cce)):
        r = lpgame.solve(game, concept=concept, objective=objective, exact=True)
        assert r.objective == expected and r.gap == 0 and r.optimal


@pytest.mark.parametrize("k", SCALES)
@pytest.mark.parametrize("concept", ["ce", "cce", "efce"])
def test_payoff_scales(concept, k):
    """Payoffs × 10^k: the same optimum × 10^k exactly (exact mode), within 1e-9 of the range
    (floats), and the float answer is still proven optimal."""
    base = np.array(lpgame.games.make("chicken").payoffs, dtype=object)
    reference = lpgame.solve(NormalFormGame(base), concept=concept, exact=True)
    exact = lpgame.solve(NormalFormGame(scaled(base, k)), concept=concept, exact=True)
    assert exact.objective == reference.objective * Fraction(10) ** k
    assert exact.gap == 0 and exact.optimal
    floats = lpgame.solve(NormalFormGame(scaled(base, k).astype(float)), concept=concept)
    spread = 14 * 10.0 ** k
    assert abs(floats.objective - float(exact.objective)) <= 1e-9 * spread
    assert floats.gap <= 1e-9 * spread and floats.optimal
    # the same strategies: chicken's optima are unique, so the distributions (plans) coincide
    same = "distribution" if concept != "efce" else "correlation_plan"
    key = "probability" if same == "distribution" else "value"
    assert [e[key] for e in getattr(exact, same)] == [e[key] for e in getattr(reference, same)]
    reference_float = lpgame.solve(NormalFormGame(base.astype(float)), concept=concept)
    assert np.allclose([e[key] for e in getattr(floats, same)],
                       [e[key] for e in getattr(reference_float, same)], atol=1e-9)


# ------------------------------------------------------------------------------ random trees
@settings(max_examples=10, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(two_player_trees(max_depth=3, max_chance_nodes=1))
def test_plan_concepts_are_ordered_on_random_trees(game):
    """NFCE ⊆ EFCE ⊆ EFCCE ⊆ NFCCE: the exact optima are ordered; an NFCCE proven optimal over
    the realisable plans equals the CCE of the reduced normal form (NFCCE is that CCE)."""
    results = {c: lpgame.solve(game, concept=c, objective="welfare", exact=True)
               for c in ("ce", "efce", "efcce", "nfcce", "cce")}
    for r in results.values():
        assert r.gap == 0 and isinstance(r.objective, Fraction)
        assert r.certificate.extra["optimality_proven"]
    obj = {c: r.objective for c, r in results.items()}
    assert obj["ce"] <= obj["efce"] <= obj["efcce"] <= obj["nfcce"]
    assert obj["cce"] <= obj["nfcce"]
    if results["nfcce"].optimal:
        assert obj["nfcce"] == obj["cce"]
    if results["efce"].optimal:
        assert obj["ce"] <= obj["efce"]


def reduced_normal_form_here(game) -> np.ndarray:
    """The reduced normal form's payoffs in Fractions, built here: plans by brute force over pure
    behaviour strategies (random_team_games.reduced_plans), u_i(π) = Σ_z p_c(z) u_i(z) Π_k π_k[σ_k(z)]
    summed leaf by leaf from the exact leaves."""
    from random_team_games import reduced_plans

    from lpgame.compile import compile_game
    sf = compile_game(game)
    plans = [reduced_plans(sf, i) for i in range(2)]
    assume(len(plans[0]) * len(plans[1]) <= 36)      # the brute force below is plain loops
    chance, leaf_payoffs = sf.exact_terminal_data()
    seqs = sf.terminal_sequences
    out = np.empty((2, len(plans[0]), len(plans[1])), dtype=object)
    for a, b in itertools.product(range(len(plans[0])), range(len(plans[1]))):
        reach = [p for z, p in enumerate(chance)
                 if plans[0][a][seqs[z, 0]] and plans[1][b][seqs[z, 1]]]
        zs = [z for z in range(len(chance)) if plans[0][a][seqs[z, 0]] and plans[1][b][seqs[z, 1]]]
        for i in range(2):
            out[i, a, b] = sum((p * leaf_payoffs[z][i] for p, z in zip(reach, zs)), Fraction(0))
    return out


@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(two_player_trees(max_depth=3, max_chance_nodes=1))
def test_tree_ce_cce_nfcce_against_a_brute_force_lp_over_joint_plans(game):
    """CE and CCE of a tree are those of its reduced normal form, and NFCCE is the CCE of the
    reduced normal form: the brute-force LP over joint reduced plans (built here) has an exact
    dual bound equal to lpgame's exact objective."""
    payoffs = reduced_normal_form_here(game)
    for concept, coarse in (("ce", False), ("cce", True), ("nfcce", True)):
        r = lpgame.solve(game, concept=concept, objective="welfare", exact=True)
        optimum, bound = brute_force(payoffs, (1, 1), coarse)
        if concept != "nfcce" or r.optimal:
            assert r.objective == bound, concept
        else:                       # the relaxation over V bounds the optimum over Ξ from above
            assert r.objective >= bound
        assert float(bound) == pytest.approx(optimum, abs=1e-9 * 16)


def test_maximin_exact_optimality_certificate():
    r = lpgame.solve("kuhn_poker", concept="maximin", exact=True)
    assert r.certificate.extra["objective_bound"] == [Fraction(-1, 18), Fraction(1, 18)]
    assert r.certificate.extra["optimality_proven"] is True
    floats = lpgame.solve("kuhn_poker", concept="maximin")
    assert floats.certificate.extra["optimality_proven"] is True
    assert max(floats.certificate.extra["relative_bound_gap"]) <= 1e-9


# ------------------------------------------------------------------------------ TMECor
def test_tmecor_exact_team_matching_pennies_is_one_half():
    """Farina 2023, Lemma 11.2: TMECor of team matching pennies is 1/2."""
    from lpgame.equilibria.teams.tmecor import solve_tmecor
    r = solve_tmecor(lpgame.games.make("team_matching_pennies"), team=(2, 3), exact=True)
    assert r.value == Fraction(1, 2) and r.exact
    assert r.extra["bounds"] == [Fraction(1, 2), Fraction(1, 2)]
    assert r.certificate.extra["optimality_proven"] is True and r.certificate.gain == 0
    floats = solve_tmecor(lpgame.games.make("team_matching_pennies"), team=(2, 3))
    assert floats.certificate.extra["optimality_proven"] is True


@settings(max_examples=10, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_tmecor_exact_against_the_matrix_game(data):
    """Opponent moves public: the team is triangle-free (Farina 2023, Thm 9.2), so the LP is exact;
    the reference is the LP over distributions of joint team plans (random_team_games)."""
    from random_team_games import matrix_game_value, team_games

    from lpgame.compile import compile_game
    from lpgame.equilibria.teams.tmecor import solve_tmecor
    sf = compile_game(data.draw(team_games(private=False)))
    r = solve_tmecor(sf, team=(1, 2), exact=True)
    assert isinstance(r.value, Fraction)
    assert r.extra["bounds"] == [r.value, r.value] and r.certificate.extra["optimality_proven"]
    spread = float(np.ptp(sf.terminal_payoffs[:, 2])) or 1.0
    assert float(r.value) == pytest.approx(matrix_game_value(sf, (0, 1), 2), abs=1e-9 * spread)
