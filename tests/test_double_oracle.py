"""The sequence-form double oracle (lpgame/equilibria/zero_sum/double_oracle.py).

Sources that are not the double oracle: Kuhn poker's value −1/18 and player 2's unique equilibrium
strategy (Kuhn 1950; Rojas Linárez 2020 Tabla 2.5, notes/gameshrink-and-hoehn.md §B.3); Leduc's
value −0.0856064240780 (notes/peers.md); the independent best responses of
lpgame.analysis.exploitability (a different computation from the restricted LPs); liar's dice and
Dudo values from the whole sequence-form LP.
"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

import lpgame
from lpgame.analysis.best_response import best_response_to_payoffs
from lpgame.analysis.exploitability import evaluate_plans, evaluate_plans_exact
from lpgame.equilibria.zero_sum.double_oracle import (
    check_closed_sequence_set,
    exact_payoff_submatrix,
    load_checkpoint,
    own_subtree_sizes,
    restricted_security_lp,
    solve_zero_sum_double_oracle,
)
from lpgame.equilibria.zero_sum.nash import solve_zero_sum
from lpgame.errors import ExactCheckError, InvalidGameError, LpgameError, SolverTimeLimitError
from lpgame.games import make
from lpgame.lp import solve_lp

KUHN_P2_BET_WHEN = {"J check": 1 / 3, "Q check": 0.0, "K check": 1.0}
KUHN_P2_CALL_WHEN = {"J bet": 0.0, "Q bet": 1 / 3, "K bet": 1.0}
LEDUC_VALUE = -0.0856064240780


@pytest.fixture(scope="module")
def kuhn():
    return lpgame.compile_game(make("kuhn_poker"))


def test_kuhn_value_and_player_2s_unique_strategy(kuhn):
    sol = solve_zero_sum_double_oracle(kuhn)
    assert sol.value == pytest.approx(-1 / 18, abs=1e-12)
    ev = evaluate_plans(kuhn, sol.plans)
    assert ev.nash_conv <= 1e-12
    behaviour, _ = kuhn.behaviour_from_plan(1, sol.plans[1])
    strategy = kuhn.strategy_to_dict(1, behaviour.tolist())
    for infoset, p in KUHN_P2_BET_WHEN.items():
        assert strategy[infoset]["bet"] == pytest.approx(p, abs=1e-9)
    for infoset, p in KUHN_P2_CALL_WHEN.items():
        assert strategy[infoset]["call"] == pytest.approx(p, abs=1e-9)
    assert sol.rounds[-1].gap <= 1e-10
    assert all(r.lower <= -1 / 18 + 1e-12 and r.upper >= -1 / 18 - 1e-12 for r in sol.rounds)


def test_leduc_value_from_the_literature():
    sf = lpgame.compile_game(make("leduc_poker"))
    sol = solve_zero_sum_double_oracle(sf)
    assert sol.value == pytest.approx(LEDUC_VALUE, abs=1e-10)
    assert evaluate_plans(sf, sol.plans).nash_conv <= 1e-9


@pytest.mark.parametrize("name, params", [
    ("dudo", {"K": 3, "D1": 1, "D2": 2}),
    ("dudo", {"K": 2, "D1": 2, "D2": 2}),
    ("liars_dice", {"faces": 4}),
])
def test_dice_games_match_the_whole_lp(name, params):
    """The restricted game ends far smaller than the game, with the whole LP's value."""
    sf = lpgame.compile_game(make(name, **params))
    sol = solve_zero_sum_double_oracle(sf)
    whole = solve_zero_sum(sf, solver="simplex")
    assert sol.value == pytest.approx(whole.value, abs=1e-10)
    assert evaluate_plans(sf, sol.plans).nash_conv <= 1e-10 * sf.game.payoff_range()
    kept = sol.rounds[-1].kept_sequences
    assert kept[0] < sf.num_sequences(0) and kept[1] < sf.num_sequences(1)


@pytest.mark.parametrize("name, params", [
    ("kuhn_poker", {}),
    ("dudo", {"K": 3, "D1": 1, "D2": 2}),
    ("liars_dice", {"faces": 4}),
])
def test_exact_mode_matches_the_exact_whole_lp(name, params):
    """Exact mode: rational plans whose NashConv, recomputed exactly by the independent best
    responses, is 0, and the exact whole LP's value (Kuhn: −1/18, the literature)."""
    sf = lpgame.compile_game(make(name, **params))
    sol = solve_zero_sum_double_oracle(sf, exact=True)
    whole = solve_zero_sum(sf, exact=True)
    assert isinstance(sol.value, Fraction) and sol.value == whole.value
    if name == "kuhn_poker":
        assert sol.value == Fraction(-1, 18)
    assert all(isinstance(v, Fraction) for plan in sol.plans for v in plan)
    ev = evaluate_plans_exact(sf, sol.plans)
    assert ev.nash_conv == 0 and ev.values[0] == sol.value
    assert sol.rounds[-1].lower == sol.rounds[-1].upper == float(sol.value)


def test_exact_rounds_grow_the_restricted_game_themselves():
    """With a tolerance as wide as the payoff range the floating-point loop stops after its first
    round; the exact rounds then add best-response sequences until the bounds meet exactly."""
    sf = lpgame.compile_game(make("dudo", K=3, D1=1, D2=2))
    sol = solve_zero_sum_double_oracle(sf, exact=True, tolerance=1.0)
    assert sol.value == solve_zero_sum(sf, exact=True).value
    assert len(sol.rounds) > 2
    assert sol.rounds[0].upper > sol.rounds[0].lower       # the first round was not exact
    assert evaluate_plans_exact(sf, sol.plans).nash_conv == 0
    with pytest.raises(SolverTimeLimitError, match="no exact equilibrium after 2 rounds") as info:
        solve_zero_sum_double_oracle(sf, exact=True, tolerance=1.0, max_rounds=2)
    assert len(info.value.kept_sequences) == 2


def test_exact_restricted_payoffs_are_the_whole_matrix_restricted():
    sf = lpgame.compile_game(make("dudo", K=3, D1=1, D2=1))
    rng = np.random.default_rng(3)
    kept = [np.sort(rng.choice(sf.num_sequences(i), size=sf.num_sequences(i) // 2, replace=False))
            for i in range(2)]
    sub = exact_payoff_submatrix(sf, kept)
    whole = sf.payoff_matrix_exact(0)
    entries = {(int(r), int(c)): v for r, c, v in zip(whole.rows, whole.cols, whole.data)}
    expected = {}
    for a, r in enumerate(kept[0].tolist()):
        for b, c in enumerate(kept[1].tolist()):
            if (r, c) in entries:
                expected[a, b] = entries[r, c]
    assert {(int(r), int(c)): v for r, c, v in zip(sub.rows, sub.cols, sub.data)} == expected
    assert expected and all(isinstance(v, Fraction) for v in expected.values())


def test_restricted_sets_stay_closed_and_every_round_brackets_the_value():
    sf = lpgame.compile_game(make("dudo", K=3, D1=1, D2=1))
    value = solve_zero_sum(sf).value
    sol = solve_zero_sum_double_oracle(sf)
    for r in sol.rounds:
        assert r.lower <= value + 1e-12 <= r.upper + 2e-12
        assert r.lower - 1e-12 <= r.restricted_value or r.upper + 1e-12 >= r.restricted_value
    # the last restricted plans: every information set the player's kept sequences reach is
    # played with total probability equal to its parent's
    for i, plan in enumerate(sol.plans):
        p = sf.players[i]
        sums = np.add.reduceat(plan[1:], p.infoset_first_seq - 1)
        assert np.allclose(sums, plan[p.infoset_parent_seq], atol=1e-12)


def test_restricted_lp_on_everything_is_the_whole_lp(kuhn):
    kept = [np.arange(kuhn.num_sequences(i)) for i in range(2)]
    restricted = restricted_security_lp(kuhn, kuhn.payoff_matrix(0).tocsr(), kept)
    assert restricted.size() == solve_zero_sum(kuhn).lp.size()
    assert solve_lp(restricted).objective == pytest.approx(-1 / 18, abs=1e-12)


def test_subtree_sizes_and_preferred_best_response(kuhn):
    sizes = own_subtree_sizes(kuhn, 0)
    assert sizes[0] == kuhn.num_sequences(0)
    # with all payoffs zero every action ties; preferring the smallest subtree picks, at Kuhn's
    # opening, "bet" (a leaf for player 1) over "check" (followed by fold/call)
    br = best_response_to_payoffs(kuhn, 0, np.zeros(kuhn.num_sequences(0)),
                                  preference=sizes * kuhn.num_sequences(0)
                                  + np.arange(kuhn.num_sequences(0)))
    chosen = {kuhn.players[0].sequence_label(s) for s in np.flatnonzero(br.behaviour)} - {"∅"}
    assert {label.split(":")[1] for label in chosen if ":" in label} <= {"bet", "fold"}
    first = best_response_to_payoffs(kuhn, 0, np.zeros(kuhn.num_sequences(0)))
    assert not np.array_equal(first.behaviour, br.behaviour)
    # rounding noise below the tie tolerance does not override the preference, and the value is
    # still the exact maximum; without the tolerance the noise decides
    noise = np.random.default_rng(1).uniform(0, 1e-15, kuhn.num_sequences(0))
    preference = sizes * kuhn.num_sequences(0) + np.arange(kuhn.num_sequences(0))
    noisy = best_response_to_payoffs(kuhn, 0, noise, preference)
    assert not np.array_equal(noisy.behaviour, br.behaviour)
    tolerant = best_response_to_payoffs(kuhn, 0, noise, preference, tie_tolerance=1e-13)
    assert np.array_equal(tolerant.behaviour, br.behaviour)
    exact_max = best_response_to_payoffs(kuhn, 0, noise)
    assert tolerant.value == exact_max.value


def test_round_limit_raises_with_bounds_around_the_value():
    sf = lpgame.compile_game(make("dudo", K=3, D1=1, D2=2))
    value = solve_zero_sum(sf).value
    with pytest.raises(SolverTimeLimitError, match="stopped after 1 rounds") as info:
        solve_zero_sum_double_oracle(sf, max_rounds=1)
    assert info.value.objective <= value + 1e-12 <= info.value.best_bound + 2e-12
    # the strategies behind the bounds, checked by best responses over the product leaves
    x, y = info.value.plans
    data = sf.game.index._data()
    seqs, weight = data["sequences"], data["chance"] * data["payoffs"][:, 0]
    against_x = np.bincount(seqs[:, 1], weights=-weight * x[seqs[:, 0]],
                            minlength=sf.num_sequences(1))
    against_y = np.bincount(seqs[:, 0], weights=weight * y[seqs[:, 1]],
                            minlength=sf.num_sequences(0))
    assert -best_response_to_payoffs(sf, 1, against_x).value == pytest.approx(
        info.value.objective, abs=1e-12)
    assert best_response_to_payoffs(sf, 0, against_y).value == pytest.approx(
        info.value.best_bound, abs=1e-12)
    assert np.allclose(sf.treeplex_matrix(0) @ x, sf.treeplex_rhs(0), atol=1e-9)
    assert np.allclose(sf.treeplex_matrix(1) @ y, sf.treeplex_rhs(1), atol=1e-9)
    with pytest.raises(SolverTimeLimitError, match="stopped after 3 rounds") as info:
        solve_zero_sum_double_oracle(sf, max_rounds=3)
    assert info.value.plans[0] is not None and info.value.plans[1] is not None
    with pytest.raises(SolverTimeLimitError):
        solve_zero_sum_double_oracle(sf, time_limit=0.0)


def test_checkpoint_resumes_a_stopped_run(tmp_path):
    """A run stopped after 4 rounds and resumed from its checkpoint reaches the whole LP's value, in
    the rounds the unbroken run needs (the resumed run's first restricted game is the stopped
    run's next one)."""
    sf = lpgame.compile_game(make("dudo", K=4, D1=1, D2=1))
    value = solve_zero_sum(sf).value
    unbroken = solve_zero_sum_double_oracle(sf)
    path = tmp_path / "dudo.npz"
    with pytest.raises(SolverTimeLimitError) as info:
        solve_zero_sum_double_oracle(sf, max_rounds=4, checkpoint=path)
    saved = load_checkpoint(path, sf)
    assert [s.tolist() for s in saved] == [s.tolist() for s in info.value.kept_sequences]
    assert [len(s) for s in saved] == list(unbroken.rounds[4].kept_sequences)
    for i in range(2):
        assert np.all(np.diff(saved[i]) > 0) and saved[i][0] == 0
    resumed = solve_zero_sum_double_oracle(sf, initial_sequences=path, checkpoint=path)
    assert resumed.value == pytest.approx(value, abs=1e-10)
    assert evaluate_plans(sf, resumed.plans).nash_conv <= 1e-10
    assert len(resumed.rounds) + 4 == len(unbroken.rounds)
    # the supports of any plans (here the stopped run's) are a valid start too
    supports = [np.flatnonzero(p > 0) for p in info.value.plans]
    again = solve_zero_sum_double_oracle(sf, initial_sequences=supports)
    assert again.value == pytest.approx(value, abs=1e-10)


def test_initial_sequences_are_checked(tmp_path):
    sf = lpgame.compile_game(make("dudo", K=3, D1=1, D2=1))
    p = sf.players[0]
    first_set = 0                           # its parent is the empty sequence
    assert p.infoset_parent_seq[first_set] == 0
    with pytest.raises(LpgameError, match="not closed under the player's own play"):
        solve_zero_sum_double_oracle(sf, initial_sequences=[[0], [0]])
    mask = np.zeros(sf.num_sequences(0), dtype=bool)
    mask[0] = True
    with pytest.raises(LpgameError, match="1 information set|information set"):
        check_closed_sequence_set(sf, 0, mask)
    with pytest.raises(LpgameError, match="empty sequence"):
        check_closed_sequence_set(sf, 0, ~mask)
    with pytest.raises(LpgameError, match="indices must lie"):
        solve_zero_sum_double_oracle(sf, initial_sequences=[[0, 10**6], [0]])
    with pytest.raises(LpgameError, match="one array of sequence indices per player"):
        solve_zero_sum_double_oracle(sf, initial_sequences=[[0]])
    # a checkpoint of another game, and a file that is not one
    path = tmp_path / "other.npz"
    other = lpgame.compile_game(make("kuhn_poker"))
    with pytest.raises(SolverTimeLimitError):
        solve_zero_sum_double_oracle(other, max_rounds=1, checkpoint=path)
    with pytest.raises(LpgameError, match="is for .*kuhn.*not"):
        solve_zero_sum_double_oracle(sf, initial_sequences=path)
    junk = tmp_path / "junk.npz"
    junk.write_text("not a checkpoint")
    with pytest.raises(LpgameError, match="cannot read it"):
        solve_zero_sum_double_oracle(sf, initial_sequences=junk)


def test_refusals(kuhn):
    with pytest.raises(ExactCheckError, match="backend='highs'"):
        solve_zero_sum_double_oracle(kuhn, exact=True, backend="pyomo")
    general_sum = lpgame.games.make("battle_of_the_sexes")
    with pytest.raises(InvalidGameError, match="not zero-sum"):
        solve_zero_sum_double_oracle(lpgame.compile_game(general_sum))
    with pytest.raises(LpgameError, match="unknown algorithm"):
        lpgame.solve("kuhn_poker", algorithm="oracle")
    with pytest.raises(LpgameError, match="concept 'nash'"):
        lpgame.solve("kuhn_poker", concept="maximin", algorithm="double_oracle")


def test_api_exact(capsys):
    result = lpgame.solve(make("dudo", K=3, D1=1, D2=1), algorithm="double_oracle", exact=True)
    assert result.value == Fraction(-1, 9) and result.certificate.nash_conv == 0
    from lpgame.cli import main
    assert main(["solve", "kuhn_poker", "--algorithm", "double_oracle", "--exact", "--json", "-",
                 "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["value"] == "-1/18"


def test_api_and_cli(capsys):
    result = lpgame.solve("kuhn_poker", algorithm="double_oracle")
    assert result.value == pytest.approx(-1 / 18, abs=1e-12)
    assert result.certificate.nash_conv <= 1e-12
    assert result.extra["double_oracle"]["rounds"] >= 1
    assert 0 < result.seconds["lp"] <= result.seconds["solve"] <= result.seconds["total"]
    from lpgame.cli import main
    assert main(["solve", "kuhn_poker", "--algorithm", "double_oracle", "--json", "-",
                 "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["value"] == pytest.approx(-1 / 18, abs=1e-12)
    assert out["double_oracle"]["sequences"] == [13, 13]


def test_cli_checkpoint_resumes(tmp_path, capsys):
    """``--checkpoint``: a run stopped by its time limit leaves the file, the next run goes on."""
    from lpgame.cli import main
    path = tmp_path / "dudo.npz"
    args = ["solve", "dudo", "K=4", "D1=1", "D2=1", "--algorithm", "double_oracle", "--quiet",
            "--checkpoint", str(path)]
    assert main(args + ["--time-limit", "0"]) == 2
    assert "stopped after" in capsys.readouterr().err and path.exists()
    stopped = np.load(path)["rounds"]
    assert main(args + ["--json", "-"]) == 0
    out = json.loads(capsys.readouterr().out)
    sf = lpgame.compile_game(make("dudo", K=4, D1=1, D2=1))
    assert out["value"] == pytest.approx(solve_zero_sum(sf).value, abs=1e-10)
    assert int(np.load(path)["rounds"]) >= 1 and int(stopped) == 1
    assert main(["solve", "kuhn_poker", "--checkpoint", str(path), "--quiet"]) == 2
    assert "--checkpoint is for --algorithm double_oracle" in capsys.readouterr().err


def test_highs_starting_basis(kuhn):
    """An optimal basis handed back to HiGHS needs no simplex iteration; a wrong one is refused."""
    from lpgame.errors import SolverError
    lp = solve_zero_sum(kuhn).lp
    first = solve_lp(lp, solver="simplex")
    again = solve_lp(lp, solver="simplex", starting_basis=(first.col_basis, first.row_basis))
    assert again.info["simplex_iterations"] == 0
    assert again.objective == pytest.approx(-1 / 18, abs=1e-12)
    with pytest.raises(SolverError, match="starting basis"):
        solve_lp(lp, starting_basis=(first.col_basis[:-1], first.row_basis))
