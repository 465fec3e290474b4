"""The lpgame command: tables, JSON objects scripts rely on, and one-line errors."""

import json
import subprocess
import sys

import pytest

from lpgame.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_solve_kuhn_prints_value_and_both_strategies(capsys):
    code, out, _ = run(capsys, "solve", "kuhn_poker", "--quiet")
    assert code == 0
    assert "value for player 1: -0.0555556" in out
    assert "player 1 strategy" in out and "player 2 strategy" in out
    assert "J check" in out


def test_solve_exact_kuhn_prints_minus_one_eighteenth(capsys):
    code, out, _ = run(capsys, "solve", "kuhn_poker", "--exact", "--quiet")
    assert code == 0 and "value for player 1: -1/18" in out
    assert "nash_conv (sum of best-response gains) = 0" in out


def test_solve_json_schema(capsys):
    code, out, _ = run(capsys, "solve", "kuhn_poker", "--exact", "--json", "-", "--quiet")
    obj = json.loads(out)
    assert code == 0
    assert obj["value"] == "-1/18"
    assert set(obj["certificate"]) >= {"nash_conv", "exploitability", "exact"}
    assert obj["certificate"]["nash_conv"] == "0" and obj["certificate"]["exact"] is True
    assert set(obj["size"]) == {"rows", "cols", "nnz"}
    assert set(obj["seconds"]) >= {"total", "solve"}
    assert len(obj["strategies"]) == 2
    assert obj["strategies"][1]["J check"] == {"check": "2/3", "bet": "1/3"}


def test_game_parameters_and_json_file(capsys, tmp_path):
    path = tmp_path / "ocp.json"
    code, _, _ = run(capsys, "solve", "one_card_poker", "N=5", "--json", str(path), "--quiet")
    obj = json.loads(path.read_text())
    assert code == 0 and obj["game"] == "one_card_poker(N=5)"
    assert obj["certificate"]["nash_conv"] <= 1e-9


def test_evaluate_a_saved_result(capsys, tmp_path):
    path = tmp_path / "kuhn.json"
    run(capsys, "solve", "kuhn_poker", "--json", str(path), "--quiet")
    code, out, _ = run(capsys, "evaluate", "kuhn_poker", str(path), "--json", "-", "--quiet")
    obj = json.loads(out)
    assert code == 0
    assert abs(obj["value"] + 1 / 18) < 1e-9
    assert len(obj["best_response_gain"]) == 2
    assert obj["nash_conv"] <= 1e-9 and obj["exploitability"] == pytest.approx(obj["nash_conv"] / 2)


def test_evaluate_a_bad_strategy_file_is_a_one_line_error(capsys, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"strategies": [{"nonexistent": {"a": 1}}, {}]}))
    code, _, err = run(capsys, "evaluate", "kuhn_poker", str(path), "--quiet")
    assert code == 2
    assert err.startswith("lpgame: error:") and "nonexistent" in err


def test_info_json_keys(capsys):
    code, out, _ = run(capsys, "info", "kuhn_poker", "--json", "-", "--quiet")
    obj = json.loads(out)
    assert code == 0
    assert obj["infosets"] == [6, 6] and obj["sequences"] == [13, 13] and obj["terminals"] == 30
    assert obj["lp"] == {"rows": 20, "cols": 20, "nnz": 68}


def test_games_lists_the_catalog(capsys):
    code, out, _ = run(capsys, "games")
    assert code == 0
    for name in ("kuhn_poker", "one_card_poker", "colonel_blotto", "sm2", "chicken"):
        assert name in out


def test_unknown_game_and_parameter(capsys):
    code, _, err = run(capsys, "solve", "no_such_game", "--quiet")
    assert code == 2 and "unknown game 'no_such_game'" in err
    code, _, err = run(capsys, "solve", "kuhn_poker", "decks=4", "--quiet")
    assert code == 2 and "no parameter" in err


def test_maximin_on_a_general_sum_game(capsys):
    code, out, _ = run(capsys, "solve", "battle_of_the_sexes", "--concept", "maximin", "--exact",
                       "--json", "-", "--quiet")
    obj = json.loads(out)
    assert code == 0
    # battle of the sexes: each player's security value is 2/3 (textbook; rojas §1.3's mixed NE)
    assert obj["values"] == ["2/3", "2/3"]
    assert obj["certificate"]["security_gap"] == ["0", "0"]


def test_nash_on_a_general_sum_game_is_solved_by_lemke(capsys):
    code, out, _ = run(capsys, "solve", "chicken", "--exact", "--json", "-", "--quiet")
    obj = json.loads(out)
    assert code == 0 and obj["variant"] == "lemke" and obj["certificate"]["nash_conv"] == "0"


def test_console_entry_point_runs():
    proc = subprocess.run([sys.executable, "-m", "lpgame", "solve", "rock_paper_scissors",
                           "--exact", "--quiet"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0
    assert "value for player 1: 0" in proc.stdout


@pytest.mark.slow
def test_json_on_standard_output_is_only_json():
    """In a fresh process, the first HiGHS instance of highspy >= 1.16 prints a banner on the C
    level's standard output; ``--json -`` must still be parseable, for each backend."""
    for backend in ("highs", "pyomo", "cvxpy"):
        proc = subprocess.run([sys.executable, "-m", "lpgame", "solve", "kuhn_poker", "--backend",
                               backend, "--json", "-", "--quiet"],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["value"] == pytest.approx(-1 / 18, abs=1e-9), backend


def test_draw_writes_a_picture_and_heatmaps(capsys, tmp_path):
    out = tmp_path / "kuhn.png"
    code, text, _ = run(capsys, "draw", "kuhn_poker", "--exact", "--heatmap", "--out", str(out),
                        "--quiet")
    assert code == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 20_000
    assert (tmp_path / "kuhn_player2_heatmap.png").exists()


def test_draw_refuses_a_tree_too_large_to_read(capsys, tmp_path):
    code, _, err = run(capsys, "draw", "kuhn_poker", "cards=8", "--out", str(tmp_path / "x.png"),
                       "--quiet")
    assert code == 2 and "not readable" in err


def test_draw_refuses_a_compiled_game_before_solving(capsys, tmp_path):
    out = tmp_path / "ocp.png"
    code, _, err = run(capsys, "draw", "one_card_poker", "N=3", "--out", str(out))
    assert code == 2 and "has no tree to draw" in err
    assert "solving" not in err and not out.exists()


def test_export_latex_row_by_row(capsys, tmp_path):
    path = tmp_path / "mp.tex"
    code, _, _ = run(capsys, "export", "matching_pennies", "--latex", str(path), "--quiet")
    tex = path.read_text()
    assert code == 0 and tex.startswith(r"\begin{aligned}")
    # matching pennies: the best_response rows read -x_H + x_T + v <= 0 and x_H - x_T + v <= 0
    assert r"- \text{x[player 1:heads]} + \text{x[player 1:tails]} + \text{v[player 2]} \le 0" \
        in tex


def test_verify_json_keys_and_an_equilibrium(capsys, tmp_path):
    path = tmp_path / "kuhn.json"
    run(capsys, "solve", "kuhn_poker", "--json", str(path), "--quiet")
    code, out, _ = run(capsys, "verify", "kuhn_poker", str(path), "--json", "-", "--quiet")
    obj = json.loads(out)
    assert code == 0
    assert {"value", "best_response_gain", "nash_conv", "exploitability", "equilibrium_value",
            "worst_infosets"} <= set(obj)
    assert obj["nash_conv"] <= 1e-9 and abs(obj["equilibrium_value"] + 1 / 18) < 1e-9
    # at an equilibrium no single information set can raise a guarantee
    assert all(row["guarantee_gain"] <= 1e-9 for row in obj["worst_infosets"])


def test_verify_a_csv_strategy_off_equilibrium(capsys, tmp_path):
    # player 1 always bets, player 2 always calls: player 2 gains by folding J, player 1 by checking J
    rows = ["player,infoset,action,probability"]
    for card in "JQK":
        rows += [f"1,{card},bet,1", f"1,{card},check,0", f"1,{card} check bet,call,1",
                 f"1,{card} check bet,fold,0", f"2,{card} bet,call,1", f"2,{card} bet,fold,0",
                 f"2,{card} check,bet,1", f"2,{card} check,check,0"]
    path = tmp_path / "s.csv"
    path.write_text("\n".join(rows) + "\n")
    code, out, _ = run(capsys, "verify", "kuhn_poker", str(path), "--json", "-", "--quiet")
    obj = json.loads(out)
    # hand computation: the profile's value is 0 (every hand is a ±2 showdown); player 2's best
    # response folds J, calls Q and K: (−1 + 0 + 2)/3 = 1/3; player 1's checks and folds J, bets K:
    # (−1 + 0 + 2)/3 = 1/3; so nash_conv = 2/3
    assert code == 0 and abs(obj["nash_conv"] - 2 / 3) < 1e-9
    worst = obj["worst_infosets"][0]
    assert worst["loss"] == max(row["loss"] for row in obj["worst_infosets"]) and worst["loss"] > 0.3


def test_cfr_command_writes_curve_plot_and_json(capsys, tmp_path):
    plot = tmp_path / "curve.png"
    code, out, _ = run(capsys, "cfr", "kuhn_poker", "--algo", "cfr+", "--iterations", "300",
                       "--plot", str(plot), "--json", "-", "--quiet")
    obj = json.loads(out)
    assert code == 0
    assert {"iterations", "nash_conv", "curve", "strategies"} <= set(obj)
    assert obj["iterations"] == 300 and obj["nash_conv"] < 0.01
    assert obj["curve"][-1][0] == 300 and abs(obj["equilibrium_value"] + 1 / 18) < 1e-9
    assert plot.read_bytes()[:4] == b"\x89PNG"


def test_correlated_concepts_json(capsys):
    code, out, _ = run(capsys, "solve", "chicken", "--concept", "ce", "--json", "-", "--quiet")
    obj = json.loads(out)
    assert code == 0
    # Aumann's Chicken: the welfare-maximising CE is 10.5 (notes/farina-thesis.md §3.1)
    assert obj["objective"] == pytest.approx(10.5, abs=1e-9)
    assert {"objective", "payoffs", "gap", "optimal", "triangle_free"} <= set(obj)
    # optimal, but solved in floating point: "exact" means rational arithmetic for every result
    assert obj["gap"] <= 1e-9 and obj["optimal"] is True and obj["exact"] is False
    assert "distribution" in obj and obj["solver"]["name"].startswith("HiGHS")
    code, out, _ = run(capsys, "solve", "kuhn_poker", "--concept", "efce", "--objective", "player1",
                       "--json", "-", "--quiet")
    obj = json.loads(out)
    # Kuhn is not triangle-free (Farina 2023, §9.3): the EFCE LP is only a relaxation bound
    # its plan decomposes into a distribution (realisable), which proves the bound attained
    assert code == 0 and obj["triangle_free"] is False and obj["exact"] is False
    assert obj["realisable"] is True and obj["optimal"] is True
    assert "correlation_plan" in obj


def test_weighted_objective_parsing(capsys):
    code, out, _ = run(capsys, "solve", "battle_of_the_sexes", "--concept", "cce", "--objective",
                       "1,0", "--json", "-", "--quiet")
    obj = json.loads(out)
    # the best CCE for player 1 alone gives it its favourite outcome: 2 (rojas §1.3's matrix)
    assert code == 0 and obj["payoffs"][0] == pytest.approx(2, abs=1e-9)
    code, _, err = run(capsys, "solve", "chicken", "--concept", "ce", "--objective", "1,x",
                       "--quiet")
    assert code == 2 and "objective" in err


def test_draw_marks_information_sets_the_profile_never_reaches():
    """Player 1 who always bets the king never reaches 'K check bet': its probabilities are
    arbitrary, and the picture says so (grey, "(unreached)")."""
    import matplotlib.pyplot as plt

    import lpgame
    from lpgame.draw import draw_tree

    game = lpgame.games.make("kuhn_poker")
    result = lpgame.solve(game)
    fig = draw_tree(game, result.strategies, unreached=[["K check bet"], []])
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts.count("K check bet (unreached)") == 2
    assert "K check bet" not in texts and texts.count("J check bet") == 2
    plt.close(fig)
