"""``lpgame solve ... --method lemke_howson`` end to end (issue 37): a Gambit .nfg file solved from
each label and from all labels, checked against Gambit's own equilibria; the help texts; and bad
input answered by one ``lpgame: error:`` line and exit status 2."""

import json
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

from lpgame.cli import main

gbt = pytest.importorskip("pygambit")


def random_nfg(tmp_path, seed: int, m: int = 3, n: int = 4):
    """A random m × n game with integer payoffs, as a Gambit-written .nfg file, and its Gambit game."""
    rng = np.random.default_rng(seed)
    game = gbt.Game.from_arrays(rng.integers(0, 100, (m, n)), rng.integers(0, 100, (m, n)))
    path = tmp_path / f"random_{seed}.nfg"
    path.write_text(game.to_nfg())
    return path, game


def gambit_points(game, solver) -> set:
    """Gambit's equilibria in rational arithmetic, as tuples of Fractions."""
    players = list(game.players)
    return {tuple(tuple(Fraction(str(p[s])) for s in pl.strategies) for pl in players)
            for p in solver(game, rational=True).equilibria}


def json_point(strategies: list) -> tuple:
    """A profile of lpgame's --json output (one information set per player) as Fractions."""
    return tuple(tuple(Fraction(str(p)) for p in next(iter(s.values())).values())
                 for s in strategies)


def solve_json(tmp_path, capsys, *args) -> dict:
    out = tmp_path / "out.json"
    code = main(["solve", *map(str, args), "--method", "lemke_howson", "--quiet", "--json",
                 str(out)])
    capsys.readouterr()
    assert code == 0
    return json.loads(out.read_text())


@pytest.mark.parametrize("seed", range(3))
def test_every_label_of_an_nfg_file_ends_at_a_gambit_equilibrium(tmp_path, capsys, seed):
    path, game = random_nfg(tmp_path, seed)
    extreme = gambit_points(game, gbt.nash.enummixed_solve)
    for label in range(1, 3 + 4 + 1):
        data = solve_json(tmp_path, capsys, path, "--label", label, "--exact")
        assert json_point(data["strategies"]) in extreme
        assert data["certificate"]["nash_conv"] in (0, "0")
        assert data["lemke_howson"]["labels"] == [label]


@pytest.mark.parametrize("seed", range(3))
def test_label_one_is_where_gambit_lcp_stops(tmp_path, capsys, seed):
    path, game = random_nfg(tmp_path, seed)
    players = list(game.players)
    first = gbt.nash.lcp_solve(game, rational=True, stop_after=1).equilibria[0]
    theirs = tuple(tuple(Fraction(str(first[s])) for s in pl.strategies) for pl in players)
    data = solve_json(tmp_path, capsys, path, "--exact")
    assert json_point(data["strategies"]) == theirs


@pytest.mark.parametrize("seed", range(3))
def test_all_labels_of_an_nfg_file_lists_what_gambit_lcp_lists(tmp_path, capsys, seed):
    path, game = random_nfg(tmp_path, seed)
    data = solve_json(tmp_path, capsys, path, "--all-labels", "--exact")
    listed = data["equilibria"]
    assert {json_point(e["strategies"]) for e in listed} == gambit_points(game,
                                                                          gbt.nash.lcp_solve)
    assert all(e["nash_conv"] in (0, "0") for e in listed)
    floating = solve_json(tmp_path, capsys, path, "--all-labels")
    assert len(floating["equilibria"]) == len(listed)


def test_all_labels_prints_each_equilibrium_rounded(capsys):
    assert main(["solve", "battle_of_the_sexes", "--method", "lemke_howson", "--all-labels",
                 "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "3 equilibria" in out
    assert "ballet=0.6667  baseball=0.3333" in out and "0.6666666" not in out


def test_a_game_on_standard_input(monkeypatch, capsys):
    import io
    game = gbt.Game.from_arrays(np.array([[3, 0], [5, 1]]), np.array([[3, 5], [0, 1]]))
    monkeypatch.setattr(sys, "stdin", io.StringIO(game.to_nfg()))
    assert main(["solve", "-", "--method", "lemke_howson", "--label", "3", "--exact",
                 "--quiet"]) == 0
    # the prisoner's dilemma: (2, 2) is the only equilibrium, whatever the label
    out = capsys.readouterr().out
    assert "values: 1 1, 2 1" in out and "1  1=0  2=1" in out


@pytest.mark.parametrize("argv", [["solve", "--help"], ["--help"], ["concepts", "--help"]])
def test_help_exits_0(argv, capsys):
    assert main(argv) == 0
    out = capsys.readouterr().out
    if argv[0] == "solve":
        assert "--label" in out and "--all-labels" in out and "lemke_howson" in out


def test_concepts_lists_the_method_and_its_options(capsys):
    assert main(["concepts"]) == 0
    out = capsys.readouterr().out
    assert "nash [lemke_howson]" in out and "--all-labels" in out and "--label" in out


BAD = [
    (["battle_of_the_sexes", "--method", "lemke_howson", "--label", "0"], "from 1 to 4"),
    (["battle_of_the_sexes", "--method", "lemke_howson", "--label", "5"], "from 1 to 4"),
    (["battle_of_the_sexes", "--method", "lemke_howson", "--label", "x"], "integer"),
    (["battle_of_the_sexes", "--method", "lemke_howson", "--all-labels", "--label", "3"],
     "exclude each other"),
    (["battle_of_the_sexes", "--method", "lemke_howson", "--max-pivots", "0"], "positive"),
    (["battle_of_the_sexes", "--method", "lemke_howson", "--max-pivots", "1"], "pivots"),
    (["battle_of_the_sexes", "--label", "2"], "lemke_howson"),
    (["battle_of_the_sexes", "--all-labels"], "lemke_howson"),
    (["kuhn_poker", "--method", "lemke_howson"], "normal form"),
    (["rojas_ex_2_2.efg", "--method", "lemke_howson", "--label", "2"], "normal form"),
    (["no_such_file.nfg", "--method", "lemke_howson"], "no such file"),
]


@pytest.mark.parametrize("args, words", BAD)
def test_bad_input_is_one_error_line_and_exit_2(args, words, capsys):
    code = main(["solve", *args, "--quiet"])
    captured = capsys.readouterr()
    err = captured.err.strip().splitlines()
    assert code == 2 and len(err) == 1, captured.err
    assert err[0].startswith("lpgame: error:") and words in err[0]
    assert captured.out == ""


def test_the_installed_command_exits_2_on_a_label_out_of_range():
    done = subprocess.run([sys.executable, "-c", "from lpgame.cli import run; run()", "solve",
                           "chicken", "--method", "lemke_howson", "--label", "7", "--quiet"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "lpgame: error: label must be from 1 to 4 for this 2 × 2 game (1..2 player 1's "
        "strategies, 3..4 player 2's); got 7"]
