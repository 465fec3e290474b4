"""Optimal and worst Nash equilibria by the sequence-form MILP (lpgame.equilibria.general_sum.optimal_nash).

Checked against sources that are not lpgame: Gambit's enumeration of all extreme equilibria
(``enummixed_solve(rational=True)``) of the reduced normal form, nashpy's support enumeration,
the literature (Aumann's chicken: max-welfare CE 10.5; von Stengel–Forges' signalling game: every
equilibrium pays (0, 6)), Gambit's sequence-form Lemke (``lcp_solve``) on Kuhn poker with a rake,
and the independent best-response certificate in exact arithmetic.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from random_games import integer_payoffs, two_player_trees, uniform_chance

from lpgame.compile import compile_game
from lpgame.equilibria.correlated.ce_cce import solve_normal_form
from lpgame.equilibria.correlated.reduced_plans import count_reduced_plans, reduced_normal_form
from lpgame.equilibria.general_sum.optimal_nash import nash_milp, solve_optimal_nash
from lpgame.errors import ConceptMismatchError, OptionError, SolverTimeLimitError
from lpgame.game import Game, NormalFormGame
from lpgame.games import make


def gambit():
    """pygambit (the ``gambit`` extra); only the tests that compare with Gambit skip without it."""
    return pytest.importorskip("pygambit")


SETTINGS = settings(max_examples=20, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
CHANCE_DENOMINATOR = 36     # chance nodes split 1/2 or 1/3, at most two on a path


def general_sum_games(max_depth: int = 3):
    """A random small two-player general-sum game with chance and perfect recall; integer payoffs
    and at most two chance nodes of probabilities 1/2 or 1/3, so that 36 × every reduced-normal-form
    payoff is an integer (Gambit then gets the exact game)."""
    return two_player_trees(max_depth, payoffs=integer_payoffs(-5, 5), chance=uniform_chance,
                            max_chance_nodes=2, name="random general-sum game")


MAX_PROFILES = 64
"""Largest reduced normal form (joint pure profiles) handed to Gambit's enumeration in a test."""


def small_reduced_normal_form(sf):
    """The reduced normal form with its payoffs × 36 (integers), or a skipped example when it has
    more than :data:`MAX_PROFILES` profiles."""
    assume(count_reduced_plans(sf, 0) * count_reduced_plans(sf, 1) <= MAX_PROFILES)
    form = reduced_normal_form(sf, max_profiles=MAX_PROFILES)
    scaled = np.rint(form.payoffs * CHANCE_DENOMINATOR)
    assert np.allclose(scaled, form.payoffs * CHANCE_DENOMINATOR, atol=1e-9)
    return scaled.astype(int)


def gambit_extreme_equilibrium_payoffs(row: np.ndarray, column: np.ndarray
                                       ) -> list[tuple[Fraction, ...]]:
    """Both players' payoffs at every extreme equilibrium, by Gambit's enummixed (rational);
    ``row``/``column``: the two players' integer payoff matrices."""
    gbt = gambit()
    game = gbt.Game.from_arrays(row.astype(int), column.astype(int))
    players = list(game.players)
    result = gbt.nash.enummixed_solve(game, rational=True)
    return [tuple(Fraction(str(eq.payoff(p))) for p in players) for eq in result.equilibria]


@SETTINGS
@given(general_sum_games())
@pytest.mark.slow
def test_milp_optimum_is_the_best_welfare_over_gambits_extreme_equilibria(game):
    """Best and worst welfare of the MILP = max and min welfare over all extreme equilibria of the
    reduced normal form (Gambit), to 1e-9; the returned profile is certified an equilibrium."""
    sf = compile_game(game)
    scaled = small_reduced_normal_form(sf)
    welfare = [Fraction(sum(p), CHANCE_DENOMINATOR)
               for p in gambit_extreme_equilibrium_payoffs(scaled[0], scaled[1])]
    best = solve_optimal_nash(sf, "welfare", beside_ce=False)
    worst = solve_optimal_nash(sf, "welfare", worst=True, beside_ce=False)
    assert abs(sum(best.values) - float(max(welfare))) <= 1e-9
    assert abs(sum(worst.values) - float(min(welfare))) <= 1e-9
    for r in (best, worst):
        assert r.certificate.nash_conv <= 1e-9
        assert r.extra["milp"]["status"] == "optimal"


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(general_sum_games(max_depth=3), st.sampled_from(["player1", "player2", "1,2"]))
@pytest.mark.slow
def test_exact_mode_certifies_nashconv_zero_and_agrees_with_floats(game, objective):
    sf = compile_game(game)
    exact = solve_optimal_nash(sf, objective, exact=True, beside_ce=False)
    floats = solve_optimal_nash(sf, objective, beside_ce=False)
    assert exact.certificate.exact and exact.certificate.nash_conv == 0
    assert all(isinstance(v, Fraction) for v in exact.values)
    w = exact.extra["weights"]
    value = sum(Fraction(wi) * v for wi, v in zip(w, exact.values))
    assert value == Fraction(exact.extra["objective_value"])
    assert abs(float(value) - sum(wi * v for wi, v in zip(w, floats.values))) <= 1e-9


def nashpy_equilibria(row, column) -> list[tuple[float, float]]:
    nashpy = pytest.importorskip("nashpy")
    game = nashpy.Game(np.asarray(row, dtype=float), np.asarray(column, dtype=float))
    return [(float(x @ game.payoff_matrices[0] @ y), float(x @ game.payoff_matrices[1] @ y))
            for x, y in game.support_enumeration()]


def test_chicken_best_nash_welfare_beside_the_max_welfare_ce():
    """Chicken (Aumann 1974): the best Nash welfare is 28/3 (the symmetric mixed equilibrium; by
    nashpy), below the max-welfare correlated equilibrium's 10.5 (Aumann's example)."""
    game = make("chicken")
    best = solve_optimal_nash(compile_game(game), "welfare", exact=True)
    peers = nashpy_equilibria(game.payoffs[0], game.payoffs[1])
    assert sum(best.values) == Fraction(28, 3)
    assert float(sum(best.values)) == pytest.approx(max(u + v for u, v in peers), abs=1e-9)
    ce = solve_normal_form(game, "ce", objective="welfare")
    assert ce.objective == pytest.approx(10.5, abs=1e-9)
    assert sum(best.values) < ce.objective
    assert best.extra["correlated_beside"]["objective_value"] == pytest.approx(10.5, abs=1e-9)
    worst = solve_optimal_nash(compile_game(game), "welfare", worst=True, exact=True)
    assert sum(worst.values) == 9 == min(u + v for u, v in peers)
    # the pair: the worst run reports the best too, the social optimum and the two prices
    assert worst.extra["best_objective_value"] == "28/3"
    optimum = float((game.payoffs[0] + game.payoffs[1]).max())       # (C, C): 12
    assert worst.extra["social_optimum"] == optimum == 12
    assert worst.extra["price_of_anarchy"] == pytest.approx(optimum / 9)
    assert worst.extra["price_of_stability"] == pytest.approx(optimum / (28 / 3))


@SETTINGS
@given(st.integers(1, 4), st.integers(1, 4), st.data())
@pytest.mark.slow
def test_bimatrix_objectives_against_nashpy_vertex_enumeration(m, n, data):
    """Each player's best and worst equilibrium payoff equal the extremes over nashpy's vertex
    enumeration (nondegenerate or not: Gambit's enummixed covers the degenerate ones above)."""
    A = np.array(data.draw(st.lists(st.integers(-5, 5), min_size=m * n, max_size=m * n))).reshape(m, n)
    B = np.array(data.draw(st.lists(st.integers(-5, 5), min_size=m * n, max_size=m * n))).reshape(m, n)
    payoffs = gambit_extreme_equilibrium_payoffs(A, B)
    sf = compile_game(NormalFormGame(np.stack([A, B])))
    for k in range(2):
        best = solve_optimal_nash(sf, f"player{k + 1}", beside_ce=False)
        worst = solve_optimal_nash(sf, f"player{k + 1}", worst=True, beside_ce=False)
        assert best.values[k] == pytest.approx(float(max(p[k] for p in payoffs)), abs=1e-9)
        assert worst.values[k] == pytest.approx(float(min(p[k] for p in payoffs)), abs=1e-9)


def test_signalling_game_every_equilibrium_pays_zero_and_six():
    """von Stengel & Forges 2008, Fig. 1: every Nash equilibrium pays (0, 6) (derivation in
    lpgame.games.signaling_game); the best and worst equilibria for each objective agree."""
    sf = compile_game(make("signaling_game"))
    form = reduced_normal_form(sf)                   # 4 × 4 sender and receiver plans
    scaled = np.rint(2 * form.payoffs).astype(int)   # chance 1/2: twice the payoffs are integers
    gambit_payoffs = gambit_extreme_equilibrium_payoffs(scaled[0], scaled[1])
    assert {(u / 2, v / 2) for u, v in gambit_payoffs} == {(0, 6)}
    for objective in ("welfare", "player1", "player2"):
        for worst in (False, True):
            r = solve_optimal_nash(sf, objective, worst=worst, exact=True)
            assert r.values == [0, 6]


@pytest.mark.slow
def test_kuhn_with_rake_brackets_gambits_lemke_equilibrium():
    """Kuhn poker with a 10% rake: Gambit's sequence-form Lemke equilibrium (lcp_solve, rational)
    has a welfare between lpgame's worst and best; rake 0 is Kuhn poker, value −1/18 (Kuhn 1950)."""
    from lpgame.io.gambit import write_efg

    game = make("kuhn_poker_rake", rake=0.1)
    sf = compile_game(game)
    best = solve_optimal_nash(sf, "welfare", exact=True)
    worst = solve_optimal_nash(sf, "welfare", worst=True, exact=True)
    assert best.certificate.nash_conv == 0 and worst.certificate.nash_conv == 0
    import tempfile
    from pathlib import Path
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "kuhn_rake.efg"
        write_efg(game, path)
        g = gambit().read_efg(str(path))
    eq = gambit().nash.lcp_solve(g, rational=True).equilibria[0]
    welfare = sum(Fraction(str(eq.payoff(p))) for p in list(g.players))
    assert sum(worst.values) <= welfare <= sum(best.values)
    plain = solve_optimal_nash(compile_game(make("kuhn_poker_rake", rake=0)), "player1", exact=True)
    assert plain.values == [Fraction(-1, 18), Fraction(1, 18)]


def test_milp_prints_its_binaries_and_big_m():
    sf = compile_game(make("battle_of_the_sexes"))
    lp = nash_milp(sf, [1.0, 1.0]).lp
    text = lp.describe()
    assert text.startswith("MILP") and "binary {0,1}" in text and "big-M = payoff ranges 2, 2" in text
    assert r"b1 \in \{0,1\}^{3}" in lp.to_latex()
    result = solve_optimal_nash(sf, "welfare")
    assert result.extra["big_m"] == [2.0, 2.0] and "payoff range" in result.extra["big_m_rule"]
    assert result.size["integers"] == 6


# ------------------------------------------------------------------------------------ bad input
def test_three_player_game_is_refused():
    with pytest.raises(ConceptMismatchError, match="3 players"):
        solve_optimal_nash(compile_game(make("kuhn_poker", players=3)), "welfare")


@pytest.mark.parametrize("objective", [3, None, True, "player3", "1,2,3", "happiness", {"a": 1}])
def test_bad_objectives_are_option_errors(objective):
    with pytest.raises(OptionError, match="objective"):
        solve_optimal_nash(compile_game(make("chicken")), objective)


def test_worst_must_be_a_bool():
    with pytest.raises(OptionError, match="worst"):
        solve_optimal_nash(compile_game(make("chicken")), "welfare", worst="yes")


def _hard_game() -> Game:
    rng = np.random.default_rng(0)
    for n in (8, 12, 16, 20):
        payoffs = rng.integers(-9, 10, size=(2, n, n))
    return NormalFormGame(payoffs, name="random 20x20")     # 6 s to optimality in HiGHS 1.16


def test_time_limit_without_incumbent_raises_with_the_bound():
    with pytest.raises(SolverTimeLimitError, match="before finding a feasible point"):
        solve_optimal_nash(compile_game(_hard_game()), "welfare", time_limit=1e-4)


def test_time_limit_with_incumbent_returns_a_labelled_partial_equilibrium():
    """HiGHS finds a first equilibrium at its root (about 0.3 s of CPU here) and proves the optimum
    after about 6 s; the limits double from 0.5 s until one falls between (a loaded machine needs
    more wall-clock seconds for the same work)."""
    sf = compile_game(_hard_game())
    for limit in (0.5, 1.0, 2.0, 4.0, 8.0):
        try:
            r = solve_optimal_nash(sf, "welfare", time_limit=limit, beside_ce=False)
        except SolverTimeLimitError:
            continue                       # no incumbent yet: a longer limit
        break
    else:
        pytest.fail("HiGHS found no equilibrium within 8 s")
    milp = r.extra["milp"]
    assert milp["status"] == "time_limit" and milp["partial"], "optimal before any time limit"
    assert r.extra["status"].startswith("partial")
    assert milp["primal_bound"] <= milp["dual_bound"] and milp["mip_gap"] > 0
    assert r.certificate.nash_conv <= 1e-9          # the incumbent is still an equilibrium
    assert sum(r.values) == pytest.approx(milp["primal_bound"], abs=1e-6)
    assert any("PARTIAL" in note for note in r.extra["notes"])


def test_results_survive_json():
    import json

    from lpgame.result import SolveResult
    r = solve_optimal_nash(compile_game(make("chicken")), "welfare", worst=True, exact=True)
    data = json.loads(json.dumps(r.to_dict()))
    back = SolveResult.from_dict(data)
    assert back.values == r.values and back.to_dict() == data


def test_node_limit_returns_a_labelled_partial_equilibrium():
    """HiGHS's node limit (deterministic, unlike a time limit) stops the MILP with an incumbent."""
    r = solve_optimal_nash(compile_game(_hard_game()), "welfare", beside_ce=False,
                           highs_options={"mip_max_nodes": 5})
    milp = r.extra["milp"]
    assert milp["status"] == "solution_limit" and milp["partial"]
    assert r.extra["status"].startswith("partial: HiGHS stopped (solution_limit)")
    assert sum(r.values) <= milp["dual_bound"] + 1e-9 and r.certificate.nash_conv <= 1e-9


def test_command_line_best_nash_welfare_beside_the_ce(capsys):
    """The issue's example: ``lpgame solve chicken --objective welfare --exact``."""
    import json

    from lpgame.cli import main
    assert main(["solve", "chicken", "--objective", "welfare", "--exact", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "best Nash equilibrium for objective welfare (weights 1, 1): 28/3" in out
    # exact mode: the CE beside it is exact too (issue 34: 21/2, not 10.499999999)
    assert "best correlated equilibrium (ce) for the same objective: 21/2" in out
    assert main(["solve", "chicken", "--objective", "1,2", "--worst", "--json", "-", "--quiet"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["variant"] == "optimal" and data["weights"] == [1.0, 2.0] and data["worst"] is True


def test_exact_mode_says_plainly_when_optimality_is_not_proven():
    """Issue 34: beyond the enumeration's size (13 × 13 = 169 profiles > 121) exact mode certifies
    the equilibrium exactly but cannot prove the optimum exactly, and says so."""
    payoffs = np.random.default_rng(3).integers(-9, 10, size=(2, 13, 13))
    sf = compile_game(NormalFormGame(payoffs, name="random 13x13"))
    r = solve_optimal_nash(sf, "welfare", exact=True, beside_ce=False)
    assert r.certificate.nash_conv == 0 and not r.extra["optimality"]["proven"]
    assert "not proven exactly" in r.extra["optimality"]["method"]
    assert any(note.startswith("NOT PROVEN OPTIMAL") for note in r.extra["notes"])
    floats = solve_optimal_nash(sf, "welfare", beside_ce=False)
    assert floats.extra["optimality"]["proven"]               # the MILP's bound, in floats
    assert float(Fraction(r.extra["objective_value"])) == pytest.approx(
        floats.extra["objective_value"], abs=1e-9 * 36)
