"""A quantity shown beside an answer never sinks it (issue 34, item 5 and build item 4).

``optnash_p2_constant.efg`` (tests/cases/turn3): player 2 never moves and gets 1 at every leaf, so
its reduced-normal-form payoffs, summed in floats over products of chance probabilities, differed
in the last bit and the float CE LP refused them as unresolvable; the optimal Nash answer failed
with it, and no mode solved the CE. By hand (as in tests/test_turn3_cases.py): player 1's best
payoff is 1733/3696 (type t0, 1/4: a0 pays 689/924 > 4/9; type t1, 3/4: a0 pays 29/77 > 1/3), so
every Nash equilibrium and every correlated equilibrium that maximises welfare is worth
1 + 1733/3696 = 5429/3696 (player 2's payoff is constant, player 1 maximises its own).

The failure paths are exercised by making the side computation raise: the answer comes back with
a note that says why.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

import lpgame
from lpgame.cli import main
from lpgame.compile import compile_game
from lpgame.equilibria.correlated import efce as efce_module
from lpgame.equilibria.general_sum import optimal_nash
from lpgame.equilibria.general_sum.optimal_nash import solve_optimal_nash
from lpgame.errors import ModelTooLargeError, SolverError
from lpgame.io.files import read_game_file

CASE = Path(__file__).with_name("cases") / "turn3" / "optnash_p2_constant.efg"
WELFARE = 1 + Fraction(1733, 3696)


def test_optimal_nash_exact_shows_the_exact_ce_beside_it():
    sf = compile_game(read_game_file(CASE))
    r = solve_optimal_nash(sf, "welfare", exact=True)
    assert Fraction(r.extra["objective_value"]) == WELFARE
    assert r.extra["correlated_beside"]["objective_value"] == WELFARE
    assert "correlated_beside_failed" not in r.extra
    worst = solve_optimal_nash(sf, "welfare", worst=True, exact=True)
    assert worst.extra["correlated_beside"]["objective_value"] == WELFARE
    assert worst.extra["social_optimum"] == WELFARE


@pytest.mark.parametrize("concept", ["ce", "cce"])
def test_ce_solves_the_constant_player_game_in_both_modes(concept):
    game = read_game_file(CASE)
    exact = lpgame.solve(game, concept=concept, exact=True)
    assert exact.objective == WELFARE and exact.payoffs == [Fraction(1733, 3696), 1]
    assert exact.gap == 0 and exact.optimal
    floats = lpgame.solve(game, concept=concept)
    assert floats.objective == pytest.approx(float(WELFARE), abs=1e-9)
    assert floats.payoffs[1] == 1.0 and floats.optimal


def test_cli_prints_the_answers(capsys):
    assert main(["solve", str(CASE), "--objective", "welfare", "--exact"]) == 0
    out = capsys.readouterr().out
    assert "5429/3696" in out and "correlated equilibrium (ce) for the same objective: 5429/3696" in out
    assert main(["solve", str(CASE), "--concept", "ce", "--exact"]) == 0
    assert "objective: 5429/3696" in capsys.readouterr().out
    assert main(["solve", str(CASE), "--concept", "ce"]) == 0


def test_a_failing_ce_beside_becomes_a_note(monkeypatch):
    def refuse(*args, **kwargs):
        raise ModelTooLargeError("the reduced normal form is too large (test)")
    monkeypatch.setattr(optimal_nash, "correlated_beside", refuse)
    r = solve_optimal_nash(compile_game(read_game_file(CASE)), "welfare", exact=True)
    assert Fraction(r.extra["objective_value"]) == WELFARE
    assert "correlated_beside" not in r.extra
    assert any("not computed" in note and "too large (test)" in note for note in r.extra["notes"])


def test_a_failing_price_of_anarchy_becomes_a_note(monkeypatch):
    def refuse(*args, **kwargs):
        raise SolverError("no social optimum (test)")
    monkeypatch.setattr(optimal_nash, "price_of_anarchy", refuse)
    r = solve_optimal_nash(compile_game(read_game_file(CASE)), "welfare", worst=True, exact=True)
    assert Fraction(r.extra["objective_value"]) == WELFARE
    assert "social_optimum" not in r.extra
    assert any("no social optimum (test)" in note for note in r.extra["notes"])


@pytest.mark.parametrize("exact", [False, True])
def test_a_failing_decomposition_becomes_a_note(monkeypatch, exact):
    """Kuhn poker is not triangle-free: realisability is a side check; when it fails, the EFCE
    is still returned, labelled not optimal over the realisable plans, with the reason."""
    from lpgame.equilibria.correlated import efce_exact

    def refuse(*args, **kwargs):
        raise SolverError("decomposition refused (test)")
    monkeypatch.setattr(efce_module, "decompose_on_pairs", refuse)
    monkeypatch.setattr(efce_exact, "decompose_on_pairs", refuse)
    r = lpgame.solve("kuhn_poker", concept="efce", objective="player1", exact=exact)
    assert r.realisable is None and not r.optimal
    assert any("decomposition refused (test)" in note for note in r.extra["notes"])
    assert float(r.objective) == pytest.approx(-1 / 18, abs=1e-9)
