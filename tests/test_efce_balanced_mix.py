"""The balanced mix of the target-gap column generation (lpgame.equilibria.correlated.efce_balanced_mix).

The reference is scipy's ``linprog`` over ALL joint reduced plans with every trigger deviation
written out from the definition (``brute_force`` of tests/test_efce_n_player.py): it minimises
s subject to every deviation gain ≤ R·s and |U − objective| ≤ R·s. The balanced LP, given every
joint plan as a column and no cut (it separates its own), must reach the same s, and the
returned μ must meet it when measured by the independent n-player gap.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.optimize import linprog

import lpgame
from lpgame.analysis.n_player_correlated_gaps import n_player_efce_gap
from lpgame.compile import compile_game
from lpgame.equilibria.correlated.efce_balanced_mix import balanced_mix, best_within_violation
from lpgame.equilibria.correlated.efce_n_player import solve_efce_column_generation
from lpgame.equilibria.correlated.efce_pricing import Model
from tests.test_efce_n_player import ELASTIC_CASES, SETTINGS, brute_force


def weights_of(objective: str) -> np.ndarray:
    return np.ones(3) if objective == "welfare" else np.eye(3)[int(objective[-1]) - 1]


def brute_force_score(sf, weights, upper: float, scale: float, lower: float | None = None):
    """min s over every distribution μ of the joint plans: each deviation gain ≤ R·s,
    U − R·s ≤ Σ μ c ≤ U and, with a lower bound L, Σ μ c ≤ L + R·s (the criterion of Farina
    2023 §10.4, as one LP)."""
    _, plans, a_ub = brute_force(sf, weights)
    seqs = sf.terminal_sequences
    reach = np.ones((plans[0].shape[0], seqs.shape[0]))
    for ell, pl in enumerate(plans):
        reach *= pl[:, seqs[:, ell]]
    c = (reach * sf.terminal_chance) @ sf.terminal_payoffs @ weights
    k = c.size
    rows = [np.c_[a_ub, -scale * np.ones(a_ub.shape[0])]] if a_ub.shape[0] else []
    rows += [np.r_[c, 0.0][None, :], np.r_[-c, -scale][None, :]]
    rhs = [upper, -upper]
    if lower is not None:
        rows.append(np.r_[c, -scale][None, :])
        rhs.append(lower)
    res = linprog(np.r_[np.zeros(k), 1.0], A_ub=np.vstack(rows),
                  b_ub=np.r_[np.zeros(a_ub.shape[0]), rhs],
                  A_eq=np.r_[np.ones(k), 0.0][None, :], b_eq=[1.0], bounds=(0, None),
                  method="highs")
    assert res.status == 0, res.message
    return float(res.fun), plans


@SETTINGS
@given(game=ELASTIC_CASES, objective=st.sampled_from(["welfare", "player1", "player2", "player3"]),
       shift=st.sampled_from([0.0, 0.02, 0.3]), below=st.sampled_from([None, 0.0, 0.05]))
def test_the_balanced_mix_is_the_best_score_over_all_joint_plans(game, objective, shift, below):
    """Every joint plan as a column: the balanced LP's s is scipy's over all distributions, with
    U = optimum + shift·R and, when ``below`` is given, L = optimum − below·R."""
    sf = compile_game(game)
    w = weights_of(objective)
    scale = float(np.ptp(sf.terminal_payoffs)) or 1.0
    optimum, _, _ = brute_force(sf, w)
    upper = optimum + shift * scale
    lower = None if below is None else optimum - below * scale
    expected, plans = brute_force_score(sf, w, upper, scale, lower)
    model = Model(sf, w)
    for k in range(plans[0].shape[0]):
        model.add([plans[i][k] for i in range(3)], 2)
    found = balanced_mix(model, upper, scale, 1e-9 * scale, None, lower)
    assert found is not None and found.closed
    assert found.score == pytest.approx(expected, abs=1e-7)
    # the score holds when μ is measured independently
    support = np.flatnonzero(found.mu > 1e-12)
    probs = found.mu[support] / found.mu[support].sum()
    chosen = [np.stack([model.columns[k][i] for k in support]) for i in range(3)]
    gap = n_player_efce_gap(sf, chosen, probs).gap
    objective_value = float(np.dot(probs, np.asarray(model.costs)[support]))
    assert gap <= found.score * scale + 1e-7 * scale
    assert -1e-9 * scale <= upper - objective_value <= found.score * scale + 1e-7 * scale
    if lower is not None:
        assert objective_value - lower <= found.score * scale + 1e-7 * scale
    # the master keeps the cuts the balanced LP separated (they are valid at every penalty)
    assert model.num_cuts == found.cuts_added
    # a bound below every column's objective leaves no μ: no answer, not a wrong one
    lowest = float(np.min(model.costs))
    assert balanced_mix(model, lowest - 0.1 * scale, scale, 1e-9 * scale, None) is None


@SETTINGS
@given(game=ELASTIC_CASES, objective=st.sampled_from(["welfare", "player1", "player2"]),
       two_sided=st.booleans())
def test_balanced_mixes_in_a_target_gap_run_meet_their_own_score(game, objective, two_sided):
    """In a target-gap run started at a small penalty (so the elastic master's μ violates the
    triggers), every balanced mix whose separation closed has an independently measured gap and
    distance to the bound within its LP's score (with ``two_sided``, its distance above the
    lower bound L too), every L is at most the brute-force optimum, and the run's answer still
    meets the target against the brute-force optimum."""
    sf = compile_game(game)
    optimum, _, _ = brute_force(sf, weights_of(objective))
    r = solve_efce_column_generation(game, objective=objective, target_gap=0.001, penalty=0.01,
                                     two_sided=two_sided)
    scale = r.extra["payoff_range"]
    for h in r.extra["history"]:
        if h.get("event") == "balance" and h.get("lower_bound") is not None:
            assert h["lower_bound"] <= optimum + 1e-7 * scale
        if h.get("event") == "balance" and h.get("closed"):
            assert h["measured_gap"] <= h["lp_score"] + 1e-7 * scale
            assert abs(h["upper_bound"] - h["objective"]) <= h["lp_score"] + 1e-7 * scale
            if two_sided:
                assert h["objective"] - h["lower_bound"] <= h["lp_score"] + 1e-7 * scale
        if h.get("event") == "balance" and "exact_objective" in h:
            assert h["exact_gap"] <= 1e-7 * scale
            assert h["exact_objective"] <= optimum + 1e-7 * scale
    if r.extra["lower_bound"] is not None:
        assert r.extra["lower_bound"] <= optimum + 1e-7 * scale
        assert r.extra["two_sided_gap"] >= abs(r.objective - optimum) - 1e-7 * scale
    assert r.extra["two_sided_target"] == two_sided
    if two_sided:
        assert r.extra["two_sided"] and r.extra["two_sided_gap"] <= 0.001 * scale
    assert r.extra["status"] == "target_gap" and r.gap <= 0.001 * scale
    assert abs(r.objective - optimum) <= 0.001 * scale + 1e-9


def test_the_balanced_mix_ends_a_kuhn_run_and_its_mu_is_the_answer(monkeypatch):
    """Three-player Kuhn, max P1, target 0.1 %: the run ends at a balanced mix that met the
    target, and the answer is that μ (the event's objective and independently measured gap).
    With BALANCE off no balanced mix is tried. Both answers are within the target of the exact
    run's certified optimum."""
    import lpgame.equilibria.correlated.efce_elastic_run as module

    game = lpgame.games.make("kuhn_poker", players=3)
    exact = solve_efce_column_generation(game, objective="player1")
    assert exact.extra["status"] == "optimal"
    r = solve_efce_column_generation(game, objective="player1", target_gap=0.001,
                                     tuple_bound=False)
    scale = r.extra["payoff_range"]
    met = [h for h in r.extra["history"] if h.get("event") == "balance" and h["met"]]
    assert r.extra["status"] == "target_gap" and met
    assert r.objective == pytest.approx(met[-1]["objective"], abs=1e-12)
    assert r.gap == pytest.approx(met[-1]["measured_gap"], abs=1e-12)
    monkeypatch.setattr(module, "BALANCE", False)
    plain = solve_efce_column_generation(game, objective="player1", target_gap=0.001,
                                         tuple_bound=False)
    assert not [h for h in plain.extra["history"] if h.get("event") == "balance"]
    for answer in (r, plain):
        assert answer.extra["status"] == "target_gap" and answer.gap <= 0.001 * scale
        assert abs(answer.objective - exact.objective) <= 0.001 * scale + 1e-9


@SETTINGS
@given(game=ELASTIC_CASES, objective=st.sampled_from(["welfare", "player1", "player2", "player3"]),
       violation=st.sampled_from([0.0, 0.001, 0.05]))
def test_the_violation_frontier_is_the_best_objective_of_the_epsilon_efces(game, objective,
                                                                          violation):
    """best_within_violation over every joint plan equals scipy's max Σ μ c subject to every
    deviation gain ≤ v (at v = 0 the brute-force optimal EFCE), and its μ is an ε-EFCE with
    ε ≤ v by the independent gap."""
    sf = compile_game(game)
    w = weights_of(objective)
    scale = float(np.ptp(sf.terminal_payoffs)) or 1.0
    optimum, plans, a_ub = brute_force(sf, w)
    model = Model(sf, w)
    for k in range(plans[0].shape[0]):
        model.add([plans[i][k] for i in range(3)], 2)
    c = np.asarray(model.costs)
    res = linprog(-c, A_ub=a_ub if a_ub.shape[0] else None,
                  b_ub=np.full(a_ub.shape[0], violation * scale) if a_ub.shape[0] else None,
                  A_eq=np.ones((1, c.size)), b_eq=[1.0], bounds=(0, None), method="highs")
    assert res.status == 0
    mu, value, closed = best_within_violation(model, violation * scale, 1e-9 * scale, None)
    assert closed and value == pytest.approx(-res.fun, abs=1e-7 * scale)
    if violation == 0.0:
        assert value == pytest.approx(optimum, abs=1e-7 * scale)
    support = np.flatnonzero(mu > 1e-12)
    chosen = [np.stack([model.columns[k][i] for k in support]) for i in range(3)]
    gap = n_player_efce_gap(sf, chosen, mu[support] / mu[support].sum()).gap
    assert gap <= violation * scale + 1e-7 * scale


@pytest.mark.parametrize("options,names", [({"two_sided": 1}, "two_sided"),
                                           ({"two_sided": "yes"}, "two_sided"),
                                           ({"two_sided": None}, "two_sided"),
                                           ({"two_sided": True}, "target_gap")])
def test_bad_two_sided_options_are_refused(options, names):
    """two_sided must be a bool, and it is a rule of the target-gap run (refused without
    target_gap, naming it), from the function and from lpgame.solve."""
    from lpgame.errors import OptionError

    game = lpgame.games.make("kuhn_poker", players=3, cards=3)
    with pytest.raises(OptionError, match=names):
        solve_efce_column_generation(game, **options)
    with pytest.raises(OptionError, match=names):
        lpgame.solve(game, concept="efce", **options)


def test_cli_two_sided_run_and_its_refusal(capsys):
    """--two-sided with --target-gap runs and reports the two-sided certificate in the JSON;
    without --target-gap it is one 'lpgame: error:' line and exit 2."""
    import json

    from lpgame.cli import main

    base = ["solve", "kuhn_poker", "players=3", "cards=3", "--concept", "efce",
            "--objective", "player1", "--quiet"]
    assert main(base + ["--target-gap", "0.01", "--two-sided", "--json", "-"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["two_sided_target"] is True and obj["status"] == "target_gap"
    assert obj["two_sided"] is True and obj["two_sided_gap"] <= 0.01 * obj["payoff_range"]
    assert obj["lower_bound"] <= obj["upper_bound"]
    assert main(base + ["--two-sided"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("lpgame: error:") and "target_gap" in err[0]


def test_a_two_sided_result_written_and_read_back_is_the_same(tmp_path):
    from lpgame.result import SolveResult

    game = lpgame.games.make("kuhn_poker", players=3)
    r = lpgame.solve(game, concept="efce", objective="player1", target_gap=0.01, two_sided=True)
    path = tmp_path / "two_sided.json"
    r.save(path)
    back = SolveResult.load(path)
    assert back.to_json() == r.to_json()
    assert back.extra["two_sided"] is True and back.extra["lower_bound"] == r.extra["lower_bound"]
