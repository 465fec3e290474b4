"""Strong Stackelberg equilibria (lpgame.equilibria.general_sum.stackelberg).

Checked against: the textbook example of commitment (Conitzer & Sandholm 2006: 3.5 against the
Nash payoff 2), von Neumann's minimax theorem on zero-sum Kuhn poker (commitment is worth the
value, −1/18), the derived persuasion value of von Stengel–Forges' signalling game (4), Gambit's
enumeration of all extreme Nash equilibria (the leader's Stackelberg value is at least its payoff in
every one; von Stengel & Zamir 2010), the agreement of two independent formulations (one LP per
follower strategy on the reduced normal form, the sequence-form MILP on the tree), and the
independent best-response certificate (the follower gains nothing by deviating).
"""

from __future__ import annotations

import importlib.util
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from random_games import bimatrix_games as random_bimatrix_games

from lpgame.compile import compile_game
from lpgame.equilibria.general_sum.stackelberg import solve_stackelberg, stackelberg_milp
from lpgame.errors import ConceptMismatchError, OptionError
from lpgame.game import NormalFormGame
from lpgame.games import make

# the random general-sum games of test_optimal_nash (pytest's importlib mode: loaded by path)
_spec = importlib.util.spec_from_file_location("optimal_nash_tests",
                                               Path(__file__).with_name("test_optimal_nash.py"))
_shared = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_shared)
CHANCE_DENOMINATOR = _shared.CHANCE_DENOMINATOR
general_sum_games = _shared.general_sum_games
small_reduced_normal_form = _shared.small_reduced_normal_form

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def bimatrix_games():
    return random_bimatrix_games(4, -4, 4, name="random bimatrix")


def gambit_nash_payoffs(game: NormalFormGame) -> list[tuple[Fraction, Fraction]]:
    gbt = pytest.importorskip("pygambit")
    g = gbt.Game.from_arrays(game.payoffs[0].astype(int), game.payoffs[1].astype(int))
    players = list(g.players)
    return [tuple(Fraction(str(eq.payoff(p))) for p in players)
            for eq in gbt.nash.enummixed_solve(g, rational=True).equilibria]


@SETTINGS
@given(bimatrix_games(), st.sampled_from([1, 2]))
def test_multiple_lps_and_milp_agree_and_beat_every_nash_equilibrium(game, leader):
    lps = solve_stackelberg(game, leader=leader, method="multiple_lps")
    milp = solve_stackelberg(game, leader=leader, method="milp")
    assert lps.extra["leader_value"] == pytest.approx(milp.extra["leader_value"], abs=1e-9)
    for r in (lps, milp):
        assert r.certificate.extra["follower_best_response_gain"] <= 1e-9
        assert r.values[leader - 1] == pytest.approx(r.extra["leader_value"], abs=1e-9)
    best_nash = max(p[leader - 1] for p in gambit_nash_payoffs(game))
    assert lps.extra["leader_value"] >= float(best_nash) - 1e-9


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(general_sum_games(), st.sampled_from([1, 2]))
@pytest.mark.slow
def test_sequence_form_milp_equals_the_lps_on_the_reduced_normal_form(game, leader):
    """Committing to a realization plan is committing to a mixed reduced plan (Kuhn's theorem):
    the MILP on the tree and Conitzer–Sandholm's LPs on the reduced normal form agree, exactly."""
    sf = compile_game(game)
    scaled = small_reduced_normal_form(sf)      # × 36: exact integers
    normal = NormalFormGame(np.array(scaled, dtype=object), name="reduced normal form")
    tree = solve_stackelberg(sf, leader=leader, exact=True)
    lps = solve_stackelberg(normal, leader=leader, exact=True)
    assert tree.certificate.exact and tree.certificate.extra["follower_best_response_gain"] == 0
    assert lps.certificate.extra["follower_best_response_gain"] == 0
    assert Fraction(tree.extra["leader_value"]) * CHANCE_DENOMINATOR == Fraction(
        lps.extra["leader_value"])


def test_textbook_commitment_example():
    """Leader (2,1) (4,0) / (1,0) (3,1): Up dominates, so the only Nash equilibrium pays the leader 2;
    committing to Up with probability 1/2 makes the follower indifferent (ties go to the leader,
    Right) and pays 3.5 (Conitzer & Sandholm 2006)."""
    game = NormalFormGame([[[2, 4], [1, 3]], [[1, 0], [0, 1]]], actions=[["U", "D"], ["L", "R"]])
    for method in ("multiple_lps", "milp"):
        r = solve_stackelberg(game, leader=1, method=method, exact=True)
        assert r.values == [Fraction(7, 2), Fraction(1, 2)]
        assert r.strategies[0]["player 1"] == {"U": Fraction(1, 2), "D": Fraction(1, 2)}
        assert r.strategies[1]["player 2"]["R"] == 1
    assert [p[0] for p in gambit_nash_payoffs(game)] == [2]


@pytest.mark.slow
def test_zero_sum_commitment_is_worth_the_value():
    sf = compile_game(make("kuhn_poker"))
    assert solve_stackelberg(sf, leader=1, exact=True).extra["leader_value"] == "-1/18"
    assert solve_stackelberg(sf, leader=2, exact=True).extra["leader_value"] == "1/18"


def test_signalling_game_persuasion_value():
    """von Stengel–Forges' signalling game: the sender's commitment is worth 4 (every Nash
    equilibrium pays it 0); the receiver as leader gets 6 (derivations in the game's module)."""
    game = make("signaling_game")
    sender = solve_stackelberg(game, leader=1, exact=True)
    assert sender.values == [4, 6]
    receiver = solve_stackelberg(game, leader=2, exact=True)
    assert receiver.values[1] == 6


def test_milp_prints_the_follower_binaries():
    lp = stackelberg_milp(compile_game(make("signaling_game")), leader=0)
    assert "binary {0,1}" in lp.describe() and "big-M = follower's payoff range 10" in lp.describe()


def test_result_json_names_the_leader_and_both_values():
    r = solve_stackelberg(make("battle_of_the_sexes"), leader=2, exact=True)
    data = r.to_dict()
    assert data["concept"] == "stackelberg" and data["leader"] == 2
    assert data["leader_value"] == "2" and data["follower_value"] == "1"
    assert data["certificate"]["follower_best_response_gain"] == "0"


# ------------------------------------------------------------------------------------ bad input
def test_three_players_refused():
    with pytest.raises(ConceptMismatchError, match="3 players"):
        solve_stackelberg(make("kuhn_poker", players=3))


@pytest.mark.parametrize("options", [{"leader": 3}, {"leader": 0}, {"leader": True}, {"leader": "1"},
                                     {"method": "simplex"}, {"method": "multiple_lps"}])
def test_bad_options(options):
    with pytest.raises(OptionError):
        solve_stackelberg(make("kuhn_poker"), **options)


def test_solve_dispatches_stackelberg():
    import lpgame
    r = lpgame.solve("chicken", concept="stackelberg", leader=1, exact=True)
    assert r.concept == "stackelberg" and r.extra["leader"] == 1 and r.certificate.gain == 0
    assert r.values[0] >= 7      # at least the leader's best pure Nash payoff (D, C)
    with pytest.raises(OptionError):
        lpgame.solve("chicken", concept="stackelberg", leader="first")
    with pytest.raises(ConceptMismatchError):
        lpgame.solve(make("kuhn_poker", players=3), concept="stackelberg")


def test_results_survive_json():
    import json

    from lpgame.result import SolveResult
    for game, leader in (("chicken", 2), ("signaling_game", 1)):
        r = solve_stackelberg(make(game), leader=leader, exact=True)
        data = json.loads(json.dumps(r.to_dict()))
        back = SolveResult.from_dict(data)
        assert back.values == r.values and back.to_dict() == data


def test_stopped_milp_gives_a_labelled_partial_commitment():
    """Stopped at its first incumbent, the MILP's commitment is labelled partial, is still obeyed by
    the follower, and is worth at most the full answer (multiple LPs) and the reported bound."""
    game = NormalFormGame(np.random.default_rng(0).integers(-9, 10, size=(2, 12, 12)))
    partial = solve_stackelberg(game, method="milp", highs_options={"mip_max_improving_sols": 1})
    full = solve_stackelberg(game, method="multiple_lps")
    assert partial.extra["milp"]["partial"] and partial.extra["status"].startswith("partial")
    assert partial.certificate.extra["follower_best_response_gain"] <= 1e-9
    assert partial.extra["leader_value"] <= full.extra["leader_value"] + 1e-9
    assert full.extra["leader_value"] <= partial.extra["milp"]["dual_bound"] + 1e-9


def test_command_line_leader_flag(capsys):
    from lpgame.cli import main
    assert main(["solve", "signaling_game", "--concept", "stackelberg", "--leader", "1", "--exact",
                 "--quiet"]) == 0
    assert "leader's value 4, follower's value 6" in capsys.readouterr().out


def test_floating_point_check_proves_kuhn_commitment():
    """Issue 34: the MILP's commitment is checked by one LP per follower reduced plan (64 for
    Kuhn's player 2); the LPs HiGHS calls infeasible are proven so by their least-gain LP, so the
    bound is the value (−1/18, von Neumann's value of Kuhn poker) and the answer is optimal."""
    r = solve_stackelberg(make("kuhn_poker"), leader=1)
    check, optimality = r.extra["check"], r.extra["optimality"]
    assert check["lps"] == 64 and check["unresolved"] == 0 and check["proven_infeasible"] > 0
    assert optimality["proven"] and optimality["bound"] == pytest.approx(-1 / 18, abs=1e-9)
    assert r.extra["leader_value"] == pytest.approx(-1 / 18, abs=1e-9)
