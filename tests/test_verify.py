"""Verification reports and strategy files: the seed notebook's Kuhn strategy, worked examples of
the thesis, OpenSpiel policies, and every loading error."""

import json
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

import lpgame
from lpgame.analysis.best_response import best_response
from lpgame.analysis.verify import infoset_losses, verify
from lpgame.errors import StrategyError
from lpgame.games.kuhn_family import kuhn_equilibrium
from lpgame.io.strategy_files import (
    StrategyNormalisationWarning,
    kuhn_label_from_openspiel,
    load_strategies,
    write_strategies_csv,
)
from lpgame.learning import run

# Notebook 004's printed average strategy, P(bet or call) (notes/rojas-linarez-and-notebook.md §4.3)
NOTEBOOK_P1_FIRST = {"J": 0.4925, "Q": 0.4336, "K": 0.5000}
NOTEBOOK_P2_AFTER_CHECK = {"J": 0.4144, "Q": 0.0202, "K": 0.00006}
NOTEBOOK_P2_FACING_BET = {"J": 0.0001, "Q": 0.9996, "K": 1.0000}
NOTEBOOK_P1_FACING_CHECK_BET = {"J": 0.0058, "Q": 0.9990, "K": 0.9994}


def notebook_strategy():
    p1, p2 = {}, {}
    for c in "JQK":
        p1[c] = {"check": 1 - NOTEBOOK_P1_FIRST[c], "bet": NOTEBOOK_P1_FIRST[c]}
        p1[f"{c} check bet"] = {"fold": 1 - NOTEBOOK_P1_FACING_CHECK_BET[c],
                                "call": NOTEBOOK_P1_FACING_CHECK_BET[c]}
        p2[f"{c} check"] = {"check": 1 - NOTEBOOK_P2_AFTER_CHECK[c],
                            "bet": NOTEBOOK_P2_AFTER_CHECK[c]}
        p2[f"{c} bet"] = {"fold": 1 - NOTEBOOK_P2_FACING_BET[c], "call": NOTEBOOK_P2_FACING_BET[c]}
    return [p1, p2]


@pytest.fixture(scope="module")
def kuhn():
    return lpgame.games.make("kuhn_poker")


@pytest.fixture(scope="module")
def notebook_report(kuhn):
    return verify(kuhn, notebook_strategy(), exact=True)


def test_notebook_strategy_numbers(notebook_report):
    """notes §4.3: u1 = −0.0779, BR values 0.2357 / 0.2479, NashConv (thesis convention v1 + v2)
    0.4836, NashConv/2 = 0.2418, concessions 0.192 (P1) and 0.291 (P2); value −1/18."""
    r = notebook_report
    assert r.nash_conv == pytest.approx(0.4836, abs=5e-5)
    assert r.exploitability == pytest.approx(0.2418, abs=5e-5)
    assert r.value == pytest.approx(-0.0779, abs=5e-5)
    assert r.best_response_value == pytest.approx([0.2357, 0.2479], abs=5e-5)
    assert r.equilibrium_value == Fraction(-1, 18)
    assert r.concession == pytest.approx([0.192, 0.291], abs=5e-4)
    assert sum(r.concession) == pytest.approx(r.nash_conv, abs=1e-12)
    assert r.value_gap == pytest.approx(r.value + 1 / 18, abs=1e-12)
    data = r.to_dict()
    for key in ("value", "best_response_gain", "nash_conv", "exploitability",
                "equilibrium_value", "worst_infosets"):
        assert key in data
    assert len(data["best_response_gain"]) == 2 and data["equilibrium_value"] == "-1/18"
    json.dumps(data)


def test_notebook_strategy_worst_information_sets(notebook_report):
    """The symptoms of notes §4.3 are the top losses: P2 never bets K after a check, P2 always
    calls a bet with Q, P1 bets J about half the time."""
    top = [(w.player, w.infoset, w.best_action) for w in notebook_report.worst_infosets[:3]]
    assert set(top) == {(1, "K check", "bet"), (1, "Q bet", "fold"), (0, "J", "check")}
    losses = [w.loss for w in notebook_report.worst_infosets]
    assert losses == sorted(losses, reverse=True) and min(losses) >= 0


def test_infoset_loss_is_the_gain_of_a_one_set_deviation(kuhn):
    """L(j) = u_i(σ_i with j → best action, y*) − u_i(σ_i, y*), recomputed by plain evaluation."""
    sf = lpgame.compile_game(kuhn)
    strategies = notebook_strategy()
    behaviours = [sf.behaviour_from_dict(i, s) for i, s in enumerate(strategies)]
    plans = [sf.plan_from_behaviour(i, b) for i, b in enumerate(behaviours)]
    for i in range(2):
        losses, _, best = infoset_losses(sf, i, plans, behaviours[i])
        o = 1 - i
        y = best_response(sf, o, plans).behaviour
        exploiter = sf.strategy_to_dict(o, y.tolist())
        base = [None, None]
        base[i], base[o] = strategies[i], exploiter
        base_value = lpgame.evaluate(kuhn, base).values[i]
        for j, label in enumerate(sf.infoset_labels(i)):
            actions = kuhn.actions(i, label)
            deviated = dict(strategies[i])
            deviated[label] = {a: float(k == best[j]) for k, a in enumerate(actions)}
            profile = [None, None]
            profile[i], profile[o] = deviated, exploiter
            gain = lpgame.evaluate(kuhn, profile).values[i] - base_value
            assert gain == pytest.approx(losses[j], abs=1e-12)


def test_equilibrium_family_verifies_exactly(kuhn):
    """Every member of Kuhn's family is an equilibrium: NashConv 0, value −1/18, and no single
    information set can raise its guarantee. (The loss L against the pure exploiter is not 0:
    e.g. the J bluff is right only while player 2 is indifferent; see the module docstring.)"""
    for alpha in (0, Fraction(1, 6), Fraction(1, 3)):
        report = verify(kuhn, kuhn_equilibrium(alpha), rank_by="guarantee_gain", top=6)
        assert report.nash_conv == pytest.approx(0, abs=1e-12)
        assert report.value == pytest.approx(-1 / 18, abs=1e-12)
        assert len(report.worst_infosets) == 12
        assert all(w.guarantee_gain == pytest.approx(0, abs=1e-9) for w in report.worst_infosets)


def test_guarantee_gains_are_bounded_by_the_concession(kuhn, notebook_report):
    """Δ(j) ≤ v* − g(σ_i): no single change can lift a strategy above the value; near an
    equilibrium (CFR+) the gains shrink with the concession while the losses L need not."""
    for report in (notebook_report,
                   verify(kuhn, run(kuhn, "cfr+", iterations=300, checkpoints=[]), top=6)):
        for w in report.worst_infosets:
            assert 0 <= w.guarantee_gain <= report.concession[w.player] + 1e-9
    k_check = next(w for w in notebook_report.worst_infosets if w.infoset == "K check")
    assert k_check.guarantee_gain == pytest.approx(1 / 6, abs=1e-3)   # always bet K: +1/6


def test_rps_exploitability_example_of_the_thesis():
    """Rojas Linárez l. 792–802: σ1 = (.33, .33, .34), σ2 = (.34, .33, .33): v1 = v2 = 0.01,
    ε = v1 + v2 = 0.02."""
    game = lpgame.games.make("rock_paper_scissors")
    label = game.player_names
    strategies = [{label[0]: {"R": .33, "P": .33, "S": .34}},
                  {label[1]: {"R": .34, "P": .33, "S": .33}}]
    report = verify(game, strategies)
    assert report.best_response_value == pytest.approx([0.01, 0.01], abs=1e-12)
    assert report.nash_conv == pytest.approx(0.02, abs=1e-12)
    assert report.exploitability == pytest.approx(0.01, abs=1e-12)
    assert report.equilibrium_value == pytest.approx(0, abs=1e-12)


def test_verify_a_learning_result(kuhn):
    result = run(kuhn, "cfr+", iterations=200, checkpoints=[])
    report = verify(kuhn, result)
    assert report.nash_conv == pytest.approx(result.nash_conv, abs=1e-12)
    assert "nash_conv" in report.summary()


# ---------------------------------------------------------------------- strategy files
def test_json_and_csv_round_trips(kuhn, tmp_path):
    strategies = notebook_strategy()
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"game": "kuhn_poker", "strategies": strategies}))
    assert load_strategies(path, kuhn) == strategies
    csv_path = tmp_path / "s.csv"
    write_strategies_csv(strategies, csv_path)
    loaded = load_strategies(csv_path, kuhn)
    assert verify(kuhn, loaded).nash_conv == pytest.approx(0.4836, abs=5e-5)
    # a CSV without the player column: labels are matched to players by the game
    lines = csv_path.read_text().splitlines()
    no_player = ["infoset,action,probability"] + [",".join(line.split(",")[1:])
                                                   for line in lines[1:]]
    (tmp_path / "np.csv").write_text("\n".join(no_player) + "\n")
    assert load_strategies(tmp_path / "np.csv", kuhn) == loaded


def test_solve_and_learning_results_load_back(kuhn, tmp_path):
    solved = lpgame.solve(kuhn, exact=True)
    solved.save(tmp_path / "solve.json")
    strategies = load_strategies(tmp_path / "solve.json", kuhn)
    assert lpgame.evaluate(kuhn, strategies, exact=True).nash_conv == 0
    learned = run(kuhn, "cfr", iterations=30, checkpoints=[])
    learned.save(tmp_path / "cfr.json")
    assert verify(kuhn, load_strategies(tmp_path / "cfr.json", kuhn)).nash_conv == \
        pytest.approx(learned.nash_conv, abs=1e-12)


def _csv(tmp_path, body: str):
    path = tmp_path / "bad.csv"
    path.write_text("infoset,action,probability\n" + body)
    return path


def _full_rows(override=None):
    rows = []
    for p in notebook_strategy():
        for label, row in p.items():
            for action, prob in row.items():
                rows.append([label, action, prob])
    for (label, action), value in (override or {}).items():
        for r in rows:
            if r[0] == label and r[1] == action:
                r[2] = value
    return "\n".join(f"{a},{b},{c}" for a, b, c in rows) + "\n"


def test_unknown_and_missing_information_sets_are_listed(kuhn, tmp_path):
    body = _full_rows() + "X check,check,1\nA,bet,1\n"
    with pytest.raises(StrategyError, match=r"2 information set\(s\) not in .*'X check'.*'A'"):
        load_strategies(_csv(tmp_path, body), kuhn)
    partial = "\n".join(line for line in _full_rows().splitlines()
                        if not line.startswith("K check,") and not line.startswith("J,")) + "\n"
    with pytest.raises(StrategyError, match=r"have no probabilities: .*'player 1: J'.*K check"):
        load_strategies(_csv(tmp_path, partial), kuhn)
    with pytest.warns(StrategyNormalisationWarning, match="uniformly"):
        filled = load_strategies(_csv(tmp_path, partial), kuhn, missing="uniform")
    assert filled[1]["K check"] == {"check": Fraction(1, 2), "bet": Fraction(1, 2)}


def test_bad_probabilities_are_rejected(kuhn, tmp_path):
    with pytest.raises(StrategyError, match="line .*finite and non-negative"):
        load_strategies(_csv(tmp_path, _full_rows({("J", "bet"): -0.1})), kuhn)
    with pytest.raises(StrategyError, match="finite and non-negative"):
        load_strategies(_csv(tmp_path, _full_rows({("Q bet", "call"): "nan"})), kuhn)
    with pytest.raises(StrategyError, match="no action 'raise'"):
        load_strategies(_csv(tmp_path, _full_rows() + "J,raise,0\n"), kuhn)
    with pytest.raises(StrategyError, match="second probability"):
        load_strategies(_csv(tmp_path, _full_rows() + "J,bet,0.5\n"), kuhn)
    with pytest.raises(StrategyError, match="not a number"):
        load_strategies(_csv(tmp_path, _full_rows({("J", "bet"): "often"})), kuhn)
    with pytest.raises(StrategyError, match="all probabilities are zero"):
        load_strategies(_csv(tmp_path, _full_rows({("J", "bet"): 0, ("J", "check"): 0})), kuhn)
    data = {"strategies": notebook_strategy()}
    data["strategies"][0]["K"]["bet"] = float("nan")
    with pytest.raises(StrategyError, match="information set 'K'.*finite"):
        load_strategies(data, kuhn)


def test_rows_not_summing_to_one_are_normalised_with_a_warning(kuhn, tmp_path):
    body = _full_rows({("J", "bet"): 2, ("J", "check"): 2})
    with pytest.warns(StrategyNormalisationWarning, match="player 1: J"):
        strategies = load_strategies(_csv(tmp_path, body), kuhn)
    assert strategies[0]["J"] == {"check": 0.5, "bet": 0.5}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_strategies(_csv(tmp_path, _full_rows()), kuhn)    # sums to 1: no warning
    exact = {"strategies": [{k: {a: "1/3" for a in v} for k, v in s.items()}
                            for s in kuhn_equilibrium(0)]}
    with pytest.warns(StrategyNormalisationWarning):
        rows = load_strategies(exact, kuhn)
    assert rows[0]["J"] == {"check": Fraction(1, 2), "bet": Fraction(1, 2)}


def test_ambiguous_labels_need_a_player(tmp_path):
    game = lpgame.NormalFormGame([[[1, -1], [-1, 1]], [[-1, 1], [1, -1]]],
                                 actions=[["a", "b"], ["a", "b"]], name="mp",
                                 player_names=["me", "me2"])
    path = tmp_path / "s.csv"
    path.write_text("player,infoset,action,probability\n1,me,a,0.5\n1,me,b,0.5\n"
                    "2,me2,a,1\n2,me2,b,0\n")
    assert load_strategies(path, game)[1] == {"me2": {"a": 1.0, "b": 0.0}}
    path.write_text("player,infoset,action,probability\n2,me,a,0.5\n")
    with pytest.raises(StrategyError, match="player 2: me"):
        load_strategies(path, game)


def test_kuhn_labels_of_openspiel_information_states():
    assert kuhn_label_from_openspiel("0") == "J"
    assert kuhn_label_from_openspiel("1p") == "Q check"
    assert kuhn_label_from_openspiel("2b") == "K bet"
    assert kuhn_label_from_openspiel("0pb") == "J check bet"
    with pytest.raises(StrategyError):
        kuhn_label_from_openspiel("[Observer: 0]")


def test_openspiel_tabular_policy_matches_openspiels_nash_conv(kuhn):
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import cfr, exploitability
    game = pyspiel.load_game("kuhn_poker")
    solver = cfr.CFRPlusSolver(game)
    for _ in range(40):
        solver.evaluate_and_update_policy()
    policy = solver.average_policy()
    # every OpenSpiel information state of Kuhn maps to an lpgame label (all 12 are used)
    assert {kuhn_label_from_openspiel(k) for k in policy.state_lookup} == \
        set(kuhn.infosets(0)) | set(kuhn.infosets(1))
    strategies = load_strategies(policy, kuhn)
    os_nash_conv = exploitability.nash_conv(game, policy)
    assert verify(kuhn, strategies).nash_conv == pytest.approx(os_nash_conv, abs=1e-12)
    # a game imported from OpenSpiel keeps OpenSpiel's strings: the identity mapping
    from lpgame.io.openspiel import game_from_openspiel
    imported = game_from_openspiel("kuhn_poker")
    assert lpgame.evaluate(imported, load_strategies(policy, imported)).nash_conv == \
        pytest.approx(os_nash_conv, abs=1e-12)
    # a mapping that cannot place every state is reported
    with pytest.raises(StrategyError, match="no lpgame label for 9"):
        load_strategies(policy, kuhn, mapping=lambda key: None if "p" in key or "b" in key
                        else kuhn_label_from_openspiel(key))


def test_loss_report_is_finite_for_normal_form_games():
    game = lpgame.games.make("ficha_vs_domino")
    names = game.player_names
    strategies = [{names[0]: {a: 1 / 7 for a in "ABCDEFG"}},
                  {names[1]: {str(c): 1 / 6 for c in range(1, 7)}}]
    report = verify(game, strategies)
    assert all(math.isfinite(w.loss) for w in report.worst_infosets)
    assert report.equilibrium_value == pytest.approx(1 / 3)      # Chvátal / thesis eq. D.15
    # one information set per player: L = max_a u_i(a, y*) − u_i(x_i, y*) with y* the opponent's
    # first best pure reply, computed here on the matrix directly
    A = game.payoff_array(0)
    x, y = np.full(7, 1 / 7), np.full(6, 1 / 6)
    cell = int(np.argmin(x @ A))                  # player 2's reply to x
    row = int(np.argmax(A @ y))                   # player 1's reply to y
    expected = {0: A[:, cell].max() - x @ A[:, cell], 1: (-A[row]).max() + A[row] @ y}
    for w in report.worst_infosets:
        assert w.loss == pytest.approx(expected[w.player], abs=1e-12)
