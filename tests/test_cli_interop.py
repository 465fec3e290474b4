"""What Gambit and OpenSpiel users reach for on the command line (issue 35, item 8): a game from
standard input (``-``), ``solve --format csv`` (Gambit's ``NE,...`` lines), ``lpgame convert``,
``openspiel:NAME(params)`` games and OpenSpiel policy files, bundled models found by name, and
"did you mean" for misspelt names.

Sources of truth that are not lpgame: Gambit (pygambit: its readers and its rational solvers) and
OpenSpiel (its games, CFR+ policies and NashConv) where installed; the textbook equilibria of
matching pennies and the battle of the sexes; Kuhn's value -1/18 (Kuhn 1950).
"""

import io
import json
import subprocess
import sys
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest

import lpgame
from lpgame.cli import main
from lpgame.errors import GameFileError, InvalidGameError, OptionError, UnknownGameError
from lpgame.io.files import bundled_models, bundled_models_folder, read_game_file

REPO = Path(__file__).resolve().parent.parent
MODELS = REPO / "models"
KUHN_VALUE = Fraction(-1, 18)


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lpgame: error: "), err
    return lines[0]


def exact_value(capsys, *argv) -> Fraction:
    code, out, err = run(capsys, "solve", *argv, "--exact", "--json", "-", "--quiet")
    assert code == 0, err
    return Fraction(json.loads(out)["value"])


# ------------------------------------------------------------------------------ standard input
def test_dash_reads_an_efg_from_standard_input(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO((MODELS / "kuhn_poker.efg").read_text()))
    assert exact_value(capsys, "-") == KUHN_VALUE


def test_dash_reads_an_nfg_from_standard_input_told_by_its_header(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO((MODELS / "matching_pennies.nfg").read_text()))
    code, out, _ = run(capsys, "info", "-", "--json", "-", "--quiet")
    assert code == 0 and json.loads(out)["infosets"] == [1, 1]


def test_dash_through_a_real_pipe():
    done = subprocess.run([sys.executable, "-m", "lpgame", "solve", "-", "--exact", "--quiet"],
                          input=(MODELS / "kuhn_poker.efg").read_bytes(), capture_output=True,
                          timeout=120, cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert b"value for player 1: -1/18" in done.stdout


class _Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("stdin, message", [
    (io.StringIO("garbage\n"), "not a Gambit game file: it starts with 'garbage'"),
    (io.StringIO(""), "the input is empty"),
    (io.StringIO("   \n"), "the input is empty"),
    (io.StringIO('EFG 2 R "cut" { "A" "B" }\n""\np "" 1 1 "" { "a" '), "line"),
    (_Terminal(""), "standard input is a terminal"),
    (None, "there is no standard input"),
])
def test_bad_standard_input_is_one_error_line(capsys, monkeypatch, stdin, message):
    monkeypatch.setattr(sys, "stdin", stdin)
    code, _, err = run(capsys, "solve", "-", "--quiet")
    assert code == 2 and message in one_error_line(err)


def test_game_parameters_with_standard_input_are_refused(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO((MODELS / "sm2.nfg").read_text()))
    code, _, err = run(capsys, "solve", "-", "N=3", "--quiet")
    assert code == 2 and "game parameters (N) apply to catalog and OpenSpiel games" in err


# ------------------------------------------------------------------------------ --format csv
def csv_rows(capsys, *argv) -> list[list[str]]:
    code, out, err = run(capsys, "solve", *argv, "--format", "csv", "--quiet")
    assert code == 0, err
    rows = [line.split(",") for line in out.strip().splitlines()]
    assert all(row[0] == "NE" for row in rows)
    return [row[1:] for row in rows]


def test_csv_of_matching_pennies_is_the_textbook_equilibrium(capsys):
    assert csv_rows(capsys, "matching_pennies.nfg", "--exact") == [["1/2"] * 4]
    assert csv_rows(capsys, "matching_pennies.nfg") == [["0.500000"] * 4]
    assert csv_rows(capsys, "matching_pennies.nfg", "--decimals", "2") == [["0.50"] * 4]


def test_csv_all_lists_the_three_equilibria_of_the_battle_of_the_sexes(capsys):
    rows = csv_rows(capsys, "battle_of_the_sexes.nfg", "--all")
    as_numbers = sorted(tuple(Fraction(p) for p in row) for row in rows)
    third = Fraction(1, 3)
    assert as_numbers == sorted([(1, 0, 1, 0), (0, 1, 0, 1), (2 * third, third, third, 2 * third)])


def test_csv_of_kuhn_lists_every_action_player_by_player(capsys):
    (row,) = csv_rows(capsys, "kuhn_poker.efg", "--exact")
    game = read_game_file(MODELS / "kuhn_poker.efg")
    assert len(row) == sum(len(a) for p in game.index.players for a in p.infoset_actions) == 24
    sums = [sum(Fraction(p) for p in row[k:k + 2]) for k in range(0, 24, 2)]
    assert sums == [1] * 12


def _gambit_reader(gbt, path: Path):
    return gbt.read_efg(str(path)) if path.suffix == ".efg" else gbt.read_nfg(str(path))


@pytest.mark.parametrize("model", ["rock_paper_scissors.nfg", "one_card_poker_4.efg",
                                   "kuhn_poker.efg"])
def test_csv_matches_gambits_order_and_probabilities(capsys, model):
    """Gambit lists the same actions in the same order; where the equilibrium is unique
    (rock-paper-scissors, player 2 of Kuhn poker) its probabilities are Gambit's too."""
    gbt = pytest.importorskip("pygambit")
    game = _gambit_reader(gbt, MODELS / model)
    (row,) = csv_rows(capsys, model, "--exact")
    if model.endswith(".nfg"):
        labels = [s.label for p in game.players for s in p.strategies]
        profile = gbt.nash.enummixed_solve(game, rational=True).equilibria
        assert len(profile) == 1
        gambit = [Fraction(str(profile[0][s])) for p in game.players for s in p.strategies]
    else:
        labels = [a.label for p in game.players for i in p.infosets for a in i.actions]
        equilibrium = gbt.nash.lcp_solve(game, rational=True).equilibria[0]
        gambit = [Fraction(str(equilibrium[a])) for p in game.players for i in p.infosets
                  for a in i.actions]
    ours_game = read_game_file(MODELS / model)
    ours_labels = ([a for acts in ours_game.actions for a in acts] if model.endswith(".nfg")
                   else [a for p in lpgame.compile.as_game(ours_game).index.players
                         for acts in p.infoset_actions for a in acts])
    assert ours_labels == labels
    ours = [Fraction(p) for p in row]
    if model == "kuhn_poker.efg":      # player 1 has a family of equilibria, player 2 one
        ours, gambit = ours[12:], gambit[12:]
    if model != "one_card_poker_4.efg":
        assert ours == gambit


@pytest.mark.parametrize("argv, message", [
    (["kuhn_poker", "--format", "csv", "--concept", "ce"], "for concept nash only"),
    (["kuhn_poker", "--format", "csv", "--json", "-"], "both write to standard output"),
    (["kuhn_poker", "--format", "xml"], "invalid choice: 'xml'"),
    (["kuhn_poker", "--format", "cvs"], "did you mean 'csv'"),
])
def test_bad_csv_requests_are_one_error_line(capsys, argv, message):
    code, _, err = run(capsys, "solve", *argv, "--quiet")
    assert code == 2 and message in one_error_line(err)


# ------------------------------------------------------------------------------ convert
@pytest.mark.parametrize("suffix", [".efg", ".nfg"])
def test_convert_round_trip_keeps_kuhns_value(capsys, tmp_path, suffix):
    path = tmp_path / f"kuhn{suffix}"
    code, out, err = run(capsys, "convert", "kuhn_poker", str(path), "--quiet")
    assert code == 0 and "written" in out, err
    assert exact_value(capsys, str(path)) == KUHN_VALUE
    if suffix == ".nfg":      # the reduced normal form: 3 information sets of 2 actions, no
        assert read_game_file(path).shape == (27, 64)   # nesting for player 2: 2^6 plans


def test_convert_writes_a_structured_catalog_game_as_its_tree(capsys, tmp_path):
    path = tmp_path / "ocp.efg"
    assert run(capsys, "convert", "one_card_poker", str(path), "N=5", "--quiet")[0] == 0
    catalog_game = lpgame.games.make("one_card_poker", N=5)
    assert lpgame.solve(str(path), exact=True).value == lpgame.solve(catalog_game, exact=True).value


def test_convert_from_standard_input(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO((MODELS / "sm2.nfg").read_text()))
    path = tmp_path / "sm2.efg"
    assert run(capsys, "convert", "-", str(path), "--quiet")[0] == 0
    assert lpgame.solve(str(path), exact=True).value == Fraction(5, 7)


def test_gambit_reads_what_convert_writes(capsys, tmp_path):
    gbt = pytest.importorskip("pygambit")
    for name, suffix in (("kuhn_poker", ".efg"), ("kuhn_poker", ".nfg"), ("sm2", ".nfg")):
        path = tmp_path / f"{name}{suffix}"
        assert run(capsys, "convert", name, str(path), "--quiet")[0] == 0
        game = _gambit_reader(gbt, path)
        value = Fraction(str(gbt.nash.lp_solve(game, rational=True).equilibria[0]
                             .payoff(list(game.players)[0])))
        assert value == lpgame.solve(name, exact=True).value


MULTI_LINE = '''EFG 2 R "labels over lines" { "Ann" "Bob" }
""
p "" 1 1 "Ann sees\nnothing" { "a  " "b ∅é" } 0
p "" 2 1 "Bob sees\nnothing\neither" { "c" "d" } 0
t "" 1 "" { 1, -1 }
t "" 2 "" { -1, 1 }
p "" 2 1 "Bob sees\nnothing\neither" { "c" "d" } 0
t "" 3 "" { -1, 1 }
t "" 4 "" { 1, -1 }
'''


def test_written_labels_are_on_one_line_and_read_back(tmp_path):
    from lpgame.io.gambit import parse_efg, write_efg
    game = parse_efg(MULTI_LINE)
    assert "Ann sees\nnothing" in game.infosets(0)
    path = tmp_path / "one_line.efg"
    write_efg(game, path)
    text = path.read_text()
    assert '"Ann sees nothing"' in text and '"Bob sees nothing either"' in text
    assert all(line.count('"') % 2 == 0 for line in text.splitlines())
    assert '{ "a" "b <U+2205>e" }' in text and text.isascii()
    assert read_game_file(path).infosets(0) == ["Ann sees nothing"]
    assert lpgame.solve(str(path), exact=True).value == lpgame.solve(game, exact=True).value == 0
    gbt = pytest.importorskip("pygambit")
    labels = [i.label for p in gbt.read_efg(str(path)).players for i in p.infosets]
    assert labels == ["Ann sees nothing", "Bob sees nothing either"]


def test_gambit_reads_an_openspiel_game_with_multi_line_information_states(capsys, tmp_path):
    pytest.importorskip("pyspiel")
    gbt = pytest.importorskip("pygambit")
    spec, path = "openspiel:dark_hex(board_size=2)", tmp_path / "dark_hex.efg"
    game = lpgame.games.load(spec)
    assert any("\n" in label for label in game.infosets(0))
    assert run(capsys, "convert", spec, str(path), "--quiet")[0] == 0
    gambit = gbt.read_efg(str(path))
    assert [len(p.infosets) for p in gambit.players] == [len(game.infosets(i)) for i in range(2)]
    assert lpgame.solve(str(path), exact=True).value == lpgame.solve(game, exact=True).value


@pytest.mark.parametrize("target, message", [
    ("missing_folder/k.efg", "the folder"),
    (".", "is a folder"),
    ("k.txt", "unknown game file type '.txt'"),
    ("k", "unknown game file type '(no extension)'"),
])
def test_convert_refuses_outputs_it_cannot_write(capsys, tmp_path, target, message):
    code, _, err = run(capsys, "convert", "kuhn_poker", str(tmp_path / target), "--quiet")
    assert code == 2 and message in one_error_line(err)
    assert not (tmp_path / "missing_folder").exists()


def test_convert_refuses_a_read_only_folder(capsys, tmp_path, monkeypatch):
    import os
    monkeypatch.setattr(os, "access", lambda path, mode: False)   # root may write anywhere
    code, _, err = run(capsys, "convert", "kuhn_poker", str(tmp_path / "k.efg"), "--quiet")
    assert code == 2 and "is not writable" in one_error_line(err)


def test_convert_refuses_a_normal_form_past_max_profiles(capsys, tmp_path):
    code, _, err = run(capsys, "convert", "kuhn_poker", str(tmp_path / "k.nfg"),
                       "--max-profiles", "100", "--quiet")
    assert code == 2 and "27 × 64 = 1,728 pure profiles" in one_error_line(err)
    assert "--max-profiles 100" in err and not (tmp_path / "k.nfg").exists()
    code, _, err = run(capsys, "convert", "kuhn_poker", str(tmp_path / "k.nfg"),
                       "--max-profiles", "0", "--quiet")
    assert code == 2 and "positive whole number" in one_error_line(err)


# ------------------------------------------------------------------------------ OpenSpiel
def test_openspiel_games_are_named_wherever_a_game_is(capsys):
    pytest.importorskip("pyspiel")
    assert exact_value(capsys, "openspiel:kuhn_poker") == KUHN_VALUE
    code, out, err = run(capsys, "info", "openspiel:kuhn_poker(players=3)", "--json", "-", "--quiet")
    assert code == 0 and len(json.loads(out)["infosets"]) == 3, err
    code, out, _ = run(capsys, "info", "openspiel:kuhn_poker", "players=3", "--json", "-", "--quiet")
    assert code == 0 and len(json.loads(out)["infosets"]) == 3


@pytest.mark.parametrize("spec, params, message", [
    ("openspiel:kuhn_pokr", [], "did you mean 'kuhn_poker'"),
    ("openspiel:", [], "OpenSpiel game name is empty"),
    ("openspiel:kuhn_poker(players=2", [], "Missing closing bracket"),
    ("openspiel:kuhn_poker(players=x)", [], "Wrong type for parameter players"),
    ("openspiel:kuhn_poker(players=2)", ["cards=3"], "either in parentheses or as key=value"),
    ("openspiel:matching_pennies_3p", [], "not turn-based"),
])
def test_bad_openspiel_specs_are_one_error_line(capsys, spec, params, message):
    pytest.importorskip("pyspiel")
    code, _, err = run(capsys, "info", spec, *params, "--quiet")
    assert code == 2 and message in one_error_line(err)


def test_openspiel_spec_without_openspiel_says_how_to_install(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)      # import pyspiel fails
    code, _, err = run(capsys, "info", "openspiel:kuhn_poker", "--quiet")
    assert code == 2 and "OpenSpiel is not installed" in one_error_line(err)
    with pytest.raises(InvalidGameError, match="OpenSpiel is not installed"):
        lpgame.solve("openspiel:kuhn_poker")


@pytest.fixture(scope="module")
def openspiel_cfr_policy():
    """A CFR+ average policy of OpenSpiel's Kuhn poker after 30 iterations, and its NashConv by
    OpenSpiel."""
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import cfr, exploitability
    game = pyspiel.load_game("kuhn_poker")
    solver = cfr.CFRPlusSolver(game)
    for _ in range(30):
        solver.evaluate_and_update_policy()
    policy = solver.average_policy()
    return json.loads(json.dumps(policy.to_dict())), exploitability.nash_conv(game, policy)


def verified_nash_conv(capsys, game: str, path: Path) -> float:
    code, out, err = run(capsys, "verify", game, str(path), "--json", "-", "--quiet")
    assert code == 0, err
    return float(json.loads(out)["nash_conv"])


def test_verify_reads_an_openspiel_policy_file(capsys, tmp_path, openspiel_cfr_policy):
    pytest.importorskip("pyspiel")
    table, nash_conv = openspiel_cfr_policy
    bare, wrapped = tmp_path / "bare.json", tmp_path / "wrapped.json"
    bare.write_text(json.dumps(table))
    wrapped.write_text(json.dumps({"openspiel_game": "kuhn_poker", "policy": table}))
    assert nash_conv > 1e-4
    assert verified_nash_conv(capsys, "openspiel:kuhn_poker", bare) == pytest.approx(nash_conv,
                                                                                     abs=1e-9)
    # the wrapper names OpenSpiel's game, so the policy also fits lpgame's own Kuhn poker
    assert verified_nash_conv(capsys, "kuhn_poker", wrapped) == pytest.approx(nash_conv, abs=1e-9)


def _edited(table: dict, change) -> dict:
    table = json.loads(json.dumps(table))
    change(table)
    return table


@pytest.mark.parametrize("game, change, message", [
    ("kuhn_poker", lambda t: None, "cannot tell its OpenSpiel game"),
    ("openspiel:kuhn_poker", lambda t: t.update({"9pq": [[0, 1.0]]}), "has no information state '9pq'"),
    ("openspiel:kuhn_poker", lambda t: t.update({"0": [[7, 1.0]]}), "action id 7 is not one of"),
    ("openspiel:kuhn_poker", lambda t: t.update({"0": [[0, "x"]]}), "is not a number"),
    ("openspiel:kuhn_poker", lambda t: t.pop("0"), "have no probabilities"),
])
def test_bad_openspiel_policy_files_are_one_error_line(capsys, tmp_path, openspiel_cfr_policy,
                                                       game, change, message):
    pytest.importorskip("pyspiel")
    path = tmp_path / "policy.json"
    path.write_text(json.dumps(_edited(openspiel_cfr_policy[0], change)))
    code, _, err = run(capsys, "verify", game, str(path), "--quiet")
    assert code == 2 and message in one_error_line(err)


def test_an_illegal_action_with_probability_is_refused(tmp_path):
    pytest.importorskip("pyspiel")
    from lpgame.errors import StrategyError
    from lpgame.io.strategy_files import load_strategies
    game = lpgame.games.load("openspiel:leduc_poker")
    # leduc's first decision: call (1) or raise (2) are legal, fold (0) is not
    first = next(key for key in game.infosets(0) if "[Round1: ]" in key)
    with pytest.raises(StrategyError, match="action 0 is not legal there"):
        load_strategies({first: [[0, 1.0]]}, game)


# ------------------------------------------------------------------------------ bundled models
def test_bundled_models_are_found_by_name_from_any_folder(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert exact_value(capsys, "kuhn_poker.efg") == KUHN_VALUE
    from lpgame.io.files import write_game_file
    write_game_file(lpgame.games.make("matching_pennies"), tmp_path / "kuhn_poker.efg")
    assert exact_value(capsys, "kuhn_poker.efg") == 0      # a file in the folder comes first


def test_a_missing_game_file_says_no_such_file_with_close_names(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "solve", "kuhn_pokr.efg", "--quiet")
    line = one_error_line(err)
    assert code == 2 and "kuhn_pokr.efg: no such file (did you mean 'kuhn_poker.efg'" in line
    assert "bundled models: " in line
    code, _, err = run(capsys, "solve", "sub/kuhn_poker.efg", "--quiet")
    assert code == 2 and one_error_line(err).endswith("sub/kuhn_poker.efg: no such file")


def test_the_bundled_models_are_the_repositorys_models_and_ship_as_package_data():
    on_disk = sorted(p.name for p in MODELS.iterdir() if p.suffix in (".efg", ".nfg"))
    assert bundled_models() == on_disk and len(on_disk) >= 10
    assert bundled_models_folder().resolve() == MODELS.resolve()
    data = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert {"models/*.efg", "models/*.nfg"} <= set(data["package-data"]["lpgame"])


# ------------------------------------------------------------------------------ did you mean
@pytest.mark.parametrize("argv, message", [
    (["solve", "kuhn_pokr"], "unknown game 'kuhn_pokr' (did you mean 'kuhn_poker'"),
    (["solve", "kuhn_poker", "card=4"], "no parameter card (did you mean 'cards'?)"),
    (["solve", "kuhn_poker", "--concept", "nsh"], "(did you mean 'nash'?)"),
    (["slove", "kuhn_poker"], "(did you mean 'solve'?)"),
    (["solve", "kuhn_poker", "--algorithm", "doble_oracle"], "(did you mean 'double_oracle'?)"),
])
def test_misspelt_names_get_did_you_mean(capsys, argv, message):
    code, _, err = run(capsys, *argv, "--quiet")
    assert code == 2 and message in one_error_line(err)


def test_did_you_mean_in_the_library():
    with pytest.raises(UnknownGameError, match=r"did you mean 'leduc_poker'"):
        lpgame.games.make("leduc_pker")
    with pytest.raises(OptionError, match=r"unknown concept 'maximn' \(did you mean 'maximin'\?\)"):
        lpgame.solve("kuhn_poker", concept="maximn")
    with pytest.raises(OptionError, match=r"unknown option 'algoritm'.*did you mean 'algorithm'"):
        lpgame.solve("kuhn_poker", algoritm="lp")
    with pytest.raises(UnknownGameError) as far:
        lpgame.games.make("zzzz")
    assert "did you mean" not in str(far.value)
    with pytest.raises(GameFileError, match="no such file"):
        lpgame.games.load("/no/such/folder/kuhn_poker.efg")
