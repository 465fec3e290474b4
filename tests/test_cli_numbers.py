"""The numbers the lpgame command prints (issue 35): one format for solve, evaluate, verify, cfr,
sweep tables and the CFR plot's legend; --decimals; headers that name the entry that ran; and
the small items of the issue's list 9 (teams, the concepts that apply)."""

import json
import re
from fractions import Fraction

import pytest

import lpgame
from lpgame.cli import main
from lpgame.number_format import MAX_DECIMALS

SEVENTEEN_DIGITS = re.compile(r"\d\.?\d{12,}")     # a float printed to full precision


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def kuhn_result(tmp_path, capsys):
    path = tmp_path / "kuhn.json"
    assert main(["solve", "kuhn_poker", "--json", str(path), "--quiet"]) == 0
    capsys.readouterr()
    return path


# ------------------------------------------------------------------------------------- solve
def test_solve_prints_rounding_noise_as_zero_with_the_tolerance(capsys):
    code, out, _ = run(capsys, "solve", "kuhn_poker", "--quiet")
    assert code == 0
    # Kuhn's payoffs range over 4: the float certificate's tolerance is 4e-12
    assert "nash_conv (sum of best-response gains) = 0 (< 4e-12)" in out
    assert "e-17" not in out and "e-16" not in out and not SEVENTEEN_DIGITS.search(out)


def test_solve_decimals(capsys):
    code, out, _ = run(capsys, "solve", "kuhn_poker", "--decimals", "3", "--quiet")
    assert code == 0
    assert "value for player 1: -0.056" in out
    assert "J bet    fold=1.000  call=0.000" in out          # strategies too
    code, out, _ = run(capsys, "solve", "kuhn_poker", "--exact", "--decimals", "3", "--quiet")
    assert code == 0 and "value for player 1: -1/18" in out   # short fractions stay exact


@pytest.mark.parametrize("command", [["solve", "kuhn_poker"], ["cfr", "kuhn_poker"],
                                     ["evaluate", "kuhn_poker", "x.json"],
                                     ["verify", "kuhn_poker", "x.json"]])
@pytest.mark.parametrize("bad", ["-1", "2.5", "many", str(MAX_DECIMALS + 1), "100000"])
def test_bad_decimals_are_one_line_errors(capsys, command, bad):
    code, out, err = run(capsys, *command, "--decimals", bad, "--quiet")
    assert code == 2 and out == ""
    assert err.startswith("lpgame: error: argument --decimals:") and bad in err
    assert err.count("\n") == 1


def test_headers_name_the_variant_and_the_refinement(capsys):
    _, out, _ = run(capsys, "solve", "kuhn_poker", "--quiet")
    assert out.splitlines()[0] == "kuhn_poker(players=2, cards=3): nash [lp]"
    _, out, _ = run(capsys, "solve", "kuhn_poker", "--refinement", "qpe", "--quiet")
    assert out.splitlines()[0].startswith("kuhn_poker(players=2, cards=3): nash [refinement: qpe]")
    _, out, _ = run(capsys, "solve", "chicken", "--objective", "welfare", "--quiet")
    assert out.splitlines()[0].startswith("chicken: nash [optimal]")
    _, out, _ = run(capsys, "solve", "kuhn_poker", "--algorithm", "double_oracle", "--quiet")
    assert out.splitlines()[0] == "kuhn_poker(players=2, cards=3): nash [double_oracle]"
    _, out, _ = run(capsys, "solve", "kuhn_poker", "--abstraction", "gameshrink", "--quiet")
    assert out.splitlines()[0] == "kuhn_poker(players=2, cards=3): nash [lp, abstraction gameshrink]"


def test_stackelberg_by_multiple_lps_says_what_it_solved(capsys):
    code, out, _ = run(capsys, "solve", "battle_of_the_sexes", "--concept", "stackelberg",
                       "--quiet")
    assert code == 0 and "None" not in out
    assert out.splitlines()[0] == "battle_of_the_sexes: stackelberg [strong]"
    assert re.search(r"^LPs: \d+ solved \(method multiple_lps\)$", out, re.M)


def test_price_of_anarchy_is_an_exact_fraction_in_exact_mode(capsys):
    # Chicken (notes/farina-thesis.md §3.1): worst Nash welfare 9, best 28/3, pure optimum 12
    result = lpgame.solve("chicken", objective="welfare", worst=True, exact=True)
    assert result.extra["price_of_anarchy"] == Fraction(4, 3)
    assert result.extra["price_of_stability"] == Fraction(9, 7)
    assert result.extra["social_optimum"] == 12
    code, out, _ = run(capsys, "solve", "chicken", "--objective", "welfare", "--worst", "--exact",
                       "--quiet")
    assert code == 0
    assert "price of anarchy 4/3, price of stability 9/7" in out
    assert "best Nash equilibrium for the same objective: 28/3" in out
    floating = lpgame.solve("chicken", objective="welfare", worst=True)
    assert floating.extra["price_of_anarchy"] == pytest.approx(4 / 3)


# ---------------------------------------------------------------------- evaluate and verify
def test_evaluate_prints_readable_numbers(capsys, kuhn_result):
    code, out, _ = run(capsys, "evaluate", "kuhn_poker", str(kuhn_result), "--quiet")
    assert code == 0
    assert "player 1: value -0.0555556, best response -0.0555556, gain 0 (< 4e-12)" in out
    assert not SEVENTEEN_DIGITS.search(out)
    code, out, _ = run(capsys, "evaluate", "kuhn_poker", str(kuhn_result), "--decimals", "2",
                       "--quiet")
    assert code == 0 and "player 1: value -0.06, best response -0.06" in out


def test_evaluate_exact_puts_a_decimal_beside_long_fractions(capsys, kuhn_result):
    code, out, _ = run(capsys, "evaluate", "kuhn_poker", str(kuhn_result), "--exact", "--quiet")
    assert code == 0
    value = re.search(r"player 1: value (\S+)( ≈ (\S+))?,", out)
    fraction = Fraction(value.group(1))
    assert len(value.group(1)) > 12 and value.group(3) is not None
    assert float(value.group(3)) == pytest.approx(float(fraction), rel=1e-5)
    # the JSON object keeps the exact number whole
    code, out, _ = run(capsys, "evaluate", "kuhn_poker", str(kuhn_result), "--exact", "--json",
                       "-", "--quiet")
    assert Fraction(json.loads(out)["value"]) == fraction


def test_verify_prints_readable_numbers(capsys, kuhn_result):
    code, out, _ = run(capsys, "verify", "kuhn_poker", str(kuhn_result), "--quiet")
    assert code == 0
    assert "equilibrium value (exact LP): -0.0555556   gap: 0 (< 4e-12)" in out
    assert not SEVENTEEN_DIGITS.search(out)
    code, out, _ = run(capsys, "verify", "kuhn_poker", str(kuhn_result), "--exact", "--decimals",
                       "3", "--quiet")
    assert code == 0
    assert "value for player 1: -0.056" in out and "equilibrium value (exact LP): -1/18" in out


# ------------------------------------------------------------------------------ cfr and plot
def test_cfr_text_and_the_plot_legend(capsys, tmp_path):
    code, out, _ = run(capsys, "cfr", "kuhn_poker", "--iterations", "40", "--decimals", "4",
                       "--quiet")
    assert code == 0
    assert "LP value for player 1 = -0.0556" in out
    assert re.search(r"nash_conv of the average strategy = \d+\.\d{4} after", out)

    from lpgame.learning import run as learn
    from lpgame.learning.plot import plot_learning_curve

    result = learn(lpgame.games.make("kuhn_poker"), algorithm="cfr+", iterations=20)
    figure = plot_learning_curve(result, equilibrium_value=-0.05555555555555555)
    labels = [t.get_text() for ax in figure.axes if ax.get_legend()
              for t in ax.get_legend().get_texts()]
    assert "LP value -0.0555556" in labels
    figure = plot_learning_curve(result, equilibrium_value=Fraction(-1, 18), decimals=3)
    labels = [t.get_text() for ax in figure.axes if ax.get_legend()
              for t in ax.get_legend().get_texts()]
    assert "LP value -1/18" in labels
    import matplotlib.pyplot as plt
    plt.close("all")


# ------------------------------------------------------------------------------ sweep table
def test_sweep_table_numbers():
    from lpgame.sweep.runner import SweepResult

    rows = [{"point": "g N=2", "status": "solved", "value": -0.05555555555555555,
             "nash_conv": 5.551115123125783e-17, "payoff_range": 4.0, "rows": 3, "cols": 3,
             "seconds": 0.1, "peak_mib": 100.0},
            {"point": "g N=3", "status": "solved", "value": 0.1,
             "value_exact": str(Fraction(10**20 + 1, 3 * 10**20)), "nash_conv": 0.0,
             "rows": 3, "cols": 3, "seconds": 0.1, "peak_mib": 100.0}]
    text = SweepResult(rows=rows, columns=list(rows[0])).summary()
    first, second = text.splitlines()[1:3]
    assert "-0.0555556" in first and "5.55e-17" not in first and " 0 " in first
    assert "≈ 0.333333" in second
    assert "figures below 1e-12 × the game's payoff range print as 0" in text


# --------------------------------------------------------------------------------- list 9
def test_a_team_with_the_games_only_opponent_is_refused(capsys):
    # team matching pennies: player 1 is the opponent; players 2 and 3 share the team's payoff
    code, out, err = run(capsys, "solve", "team_matching_pennies", "--concept", "tmecor",
                         "--team", "1,2", "--quiet")
    assert code == 2 and out == ""
    assert err.startswith("lpgame: error: team 1, 2 of team_matching_pennies")
    assert "includes player 1 (opponent), the game's only opponent" in err
    assert "--team 2,3" in err
    code, out, _ = run(capsys, "solve", "team_matching_pennies", "--concept", "tmecor", "--team",
                       "2,3", "--quiet")
    # the TMECor value 1/2 (Farina 2023, Lemma 11.2)
    assert code == 0 and "team value (the opponent's loss): 0.5" in out


def test_games_opponent():
    from lpgame.compile import compile_game
    from lpgame.equilibria.teams.tmecor_team import games_opponent

    assert games_opponent(compile_game(lpgame.games.make("team_matching_pennies"))) == 1
    # zero-sum three-player Kuhn: every player has its own payoff, no team is implied
    assert games_opponent(compile_game(lpgame.games.make("kuhn_poker", players=3))) is None
    # two players: each is the other's opponent, nothing to refuse
    assert games_opponent(compile_game(lpgame.games.make("kuhn_poker"))) is None


def test_concepts_that_apply_list_every_fitting_concept(capsys):
    code, _, err = run(capsys, "solve", "kuhn_poker", "players=3", "--quiet")
    assert code == 2
    applies = err.split("concepts that apply: ")[1].split(" (see")[0].strip()
    assert applies.split(", ") == ["cce", "ce", "efcce (method=correlation_dag)", "efce",
                                   "nfcce (method=correlation_dag)", "tmecor"]


def test_a_quiet_sweep_is_quiet_when_port_8787_is_taken(tmp_path):
    # Dask's scheduler starts an HTTP server even without a dashboard; on its default port a
    # second cluster used to print "Port 8787 is already in use" through --quiet
    import socket
    import subprocess
    import sys

    holder = socket.socket()
    try:
        holder.bind(("127.0.0.1", 8787))
        holder.listen()
    except OSError:
        pass                    # taken already: the situation the test needs
    try:
        done = subprocess.run([sys.executable, "-m", "lpgame", "sweep", "one_card_poker", "N=2",
                               "--workers", "1", "--in-worker", "--quiet"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=300)
    finally:
        holder.close()
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert "one_card_poker N=2" in done.stdout
