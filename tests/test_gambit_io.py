"""Gambit .efg/.nfg files: the models/ catalog, round trips, faults with line numbers, interop.

Sources of truth: the known values in models/catalog.toml (literature: Kuhn 1950, Chvátal, Rojas
Linárez 2020, Farina 2023; derivations written out there), OpenSpiel's own .efg parser and LP on
the written files, and pygambit (Gambit's reader, writer and rational lp_solve) where installed.
"""

from __future__ import annotations

import re
import tomllib
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import lpgame
from lpgame.errors import GameFileError, InvalidGameError
from lpgame.game import Game, NormalFormGame
from lpgame.io.files import read_game_file, write_game_file
from lpgame.io.gambit import efg_text, nfg_text, parse_efg, parse_nfg, parse_number, tokenize

MODELS = Path(__file__).resolve().parent.parent / "models"
CATALOG = tomllib.loads((MODELS / "catalog.toml").read_text(encoding="utf-8"))["model"]


# ---------------------------------------------------------------------------------------------
# the models/ catalog

def test_catalog_lists_every_model_file_once():
    listed = [entry["file"] for entry in CATALOG]
    assert len(listed) == len(set(listed))
    on_disk = {p.name for p in MODELS.iterdir() if p.suffix in (".efg", ".nfg")}
    assert set(listed) == on_disk
    for entry in CATALOG:
        assert entry["value_source"] and "lpgame" not in entry["value_source"]


@pytest.mark.parametrize("entry", CATALOG, ids=[e["file"] for e in CATALOG])
def test_model_solves_to_its_catalog_value(entry):
    path = MODELS / entry["file"]
    game = lpgame.games.load(str(path))
    assert isinstance(game, Game if path.suffix == ".efg" else NormalFormGame)
    result = lpgame.solve(str(path), concept=entry["concept"], exact=True)
    if entry["concept"] == "nash":
        assert result.value == Fraction(entry["value"])
        assert result.certificate.nash_conv == 0
    else:
        assert list(result.values) == [Fraction(v) for v in entry["values"]]


def test_models_keep_gambit_labels():
    kuhn = read_game_file(MODELS / "kuhn_poker.efg")
    assert kuhn.sizes()["infosets"] == [6, 6]
    assert set(kuhn.infosets(0)) == {"J", "Q", "K", "J check bet", "Q check bet", "K check bet"}
    assert kuhn.actions(1, "Q bet") == ("fold", "call")
    rojas = read_game_file(MODELS / "rojas_ex_2_2.efg")
    assert rojas.player_names == ["Player 1", "Player 2"]
    assert rojas.graph.nodes[0]["label"] == "root"
    assert rojas.graph.graph["comment"].startswith("Written by hand")
    leaves = {d["label"]: d for _, d in rojas.graph.nodes(data=True) if d["kind"] == "terminal"}
    assert leaves["L B l"]["payoffs"] == (2, 4) and leaves["L B l"]["outcome"] == "(L,r) vs A"
    assert rojas.infosets(0) == ["P1 first move", "P1 after L (A or B unseen)"]
    blotto = read_game_file(MODELS / "colonel_blotto_5_3.nfg")
    assert blotto.shape == (21, 21) and blotto.actions[0][:2] == ["(0,0,5)", "(0,1,4)"]


def test_openspiel_reads_the_written_efg_files_and_agrees_on_the_value():
    """An independent parser and LP (OpenSpiel's efg_game + sequence_form_lp) on our files."""
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import sequence_form_lp
    for entry in CATALOG:
        if entry["file"].endswith(".efg") and entry["concept"] == "nash":
            game = pyspiel.load_efg_game((MODELS / entry["file"]).read_text())
            value = sequence_form_lp.solve_zero_sum_game(game)[0]
            assert value == pytest.approx(float(Fraction(entry["value"])), abs=1e-7)


# ---------------------------------------------------------------------------------------------
# round trips

@pytest.mark.parametrize("make", [
    lambda: lpgame.games.make("kuhn_poker"),
    lambda: lpgame.games.make("one_card_poker", N=4, structured=False),
], ids=["kuhn", "ocp4"])
def test_efg_round_trip_keeps_sizes_labels_and_exact_value(make, tmp_path):
    game = make()
    path = tmp_path / "game.efg"
    write_game_file(game, path)
    back = read_game_file(path)
    assert back.sizes() == game.sizes()
    for i in range(2):
        assert sorted(back.infosets(i)) == sorted(game.infosets(i))
    assert lpgame.solve(back, exact=True).value == lpgame.solve(game, exact=True).value
    assert efg_text(back) == path.read_text()        # writing again gives the same file


def test_kuhn_round_trip_value_is_kuhns():
    assert lpgame.solve(parse_efg(efg_text(lpgame.games.make("kuhn_poker"))),
                        exact=True).value == Fraction(-1, 18)


NORMAL_FORM = ["matching_pennies", "rock_paper_scissors", "ficha_vs_domino", "colonel_blotto",
               "sm2", "battle_of_the_sexes", "chicken"]


@pytest.mark.parametrize("name", NORMAL_FORM)
@pytest.mark.parametrize("form", ["outcome", "payoff"])
def test_nfg_round_trip_keeps_payoffs_sizes_and_value(name, form, tmp_path):
    game = lpgame.games.make(name)
    path = tmp_path / "game.nfg"
    write_game_file(game, path, form=form)
    back = read_game_file(path)
    assert back.shape == game.shape and back.player_names == game.player_names
    assert np.array_equal(back.payoffs, game.payoffs.astype(object))
    if form == "outcome":
        assert back.actions == game.actions
    sizes = lpgame.compile_game(game).game.sizes()
    assert lpgame.compile_game(back).game.sizes() == sizes
    concept = "nash" if game.is_zero_sum() else "maximin"
    mine, theirs = (lpgame.solve(g, concept=concept, exact=True) for g in (back, game))
    assert list(mine.values) == list(theirs.values)


def test_nfg_payoff_order_is_player_one_fastest():
    # profile order (1,1), (2,1), (1,2), (2,2): Gambit's payoff-version convention
    game = parse_nfg('NFG 1 R "t" { "A" "B" } { 2 2 }\n1 5 2 6 3 7 4 8\n')
    assert game.payoffs[0].tolist() == [[1, 3], [2, 4]]
    assert game.payoffs[1].tolist() == [[5, 7], [6, 8]]
    assert game.actions == [["1", "2"], ["1", "2"]]
    three = parse_nfg('NFG 1 R "t" { "A" "B" "C" } { 2 1 2 }\n' + " ".join(
        f"{k} {k} {k}" for k in range(4)))
    assert three.payoffs[0][1, 0, 0] == 1 and three.payoffs[0][0, 0, 1] == 2


def test_float_and_rational_payoffs_are_written_exactly():
    game = NormalFormGame([[[0.1, Fraction(1, 3)], [1e-5, -2]], [[1, 1], [1, 1]]])
    back = parse_nfg(nfg_text(game))
    assert back.payoffs[0].tolist() == [[Fraction(1, 10), Fraction(1, 3)],
                                        [Fraction(1, 100000), -2]]
    assert "1/3" in nfg_text(game) and "0.00001" in nfg_text(game)


# ---------------------------------------------------------------------------------------------
# reading details

SEQUENTIAL = '''EFG 2 R "stages \\"quoted\\"" { "Ann" "Bob" }
"a comment"
c "root" 1 "nature" { "x" 1/3 "y" .6666666666666666666666666666666666666666666666667 } 0
p "" 1 1 "" { "a" "b" } 1 "entry fee" { -1/2, 0.5 }
t "" 2 "w" { 2, -2 }
t "" 3 "l" { -1.5e0, 3/2 }
p "" 2 1 "Bob's" { "a" "b" } 0
t "" 2
t "" 0
'''


def test_numbers_labels_and_incremental_outcomes():
    assert parse_number(".80") == Fraction(4, 5) and parse_number("-2/3") == Fraction(-2, 3)
    assert parse_number("1.5e-3") == Fraction(3, 2000) and parse_number("1/0") is None
    assert parse_number("1e999999999") is None and parse_number("1.2.3") is None
    tokens = tokenize('"a \\" b" { 1, 2 }\n "two\nlines" x')
    assert tokens[0].text == 'a " b' and [t.line for t in tokens] == [1, 1, 1, 1, 1, 1, 2, 3]
    text = SEQUENTIAL.replace(".6666666666666666666666666666666666666666666666667", "2/3")
    game = parse_efg(text)
    assert game.name == 'stages "quoted"' and game.graph.graph["comment"] == "a comment"
    payoffs = [d["payoffs"] for _, d in game.graph.nodes(data=True) if d["kind"] == "terminal"]
    # the interior outcome (-1/2, 1/2) adds to both leaves below it
    assert payoffs == [(Fraction(3, 2), Fraction(-3, 2)), (-2, 2), (2, -2), (0, 0)]
    assert all(isinstance(u, Fraction) for p in payoffs for u in p)
    assert game.infosets(0) == ["P1:1"] and game.infosets(1) == ["Bob's"]
    assert game.graph.edges[0, 1]["prob"] == Fraction(1, 3)


def test_repeated_chance_event_in_short_form_reuses_its_probabilities():
    text = '''EFG 2 R "two coins" { "1" "2" }
c "" 1 "coin" { "h" 1/4 "t" 3/4 } 0
c "" 2 "die" { "one" 0.1 "two" 0.9 } 0
t "" 1 "a" { 1 -1 }
t "" 2 "b" { 0 0 }
c "" 2 0
t "" 1
t "" 2
'''
    game = parse_efg(text)
    assert game.graph.edges[0, 1]["prob"] == Fraction(1, 4)
    assert [game.graph.edges[4, c]["prob"] for c in game.graph.successors(4)] == [
        Fraction(1, 10), Fraction(9, 10)]
    assert [game.graph.edges[4, c]["action"] for c in game.graph.successors(4)] == ["one", "two"]
    _fault(text.replace('c "" 2 0', 'c "" 3 0'), 6, "chance event 3 is used before")
    _fault(text.replace('c "" 2 0', 'c "" 2 "die" { "one" 0.2 "two" 0.8 } 0'), 6,
           "chance event 2 is declared again", "line 3")


def test_infoset_names_used_only_when_unique():
    text = '''EFG 2 R "t" { "1" "2" }
c "" 1 "" { "a" 1/2 "b" 1/2 } 0
p "" 1 1 "same" { "l" "r" } 0
t "" 1 "o" { 1, -1 }
t "" 2 "p" { -1, 1 }
p "" 1 2 "same" { "l" "r" } 0
t "" 1
p "" 2 7 "P1:1" { "l" "l" } 0
t "" 1
t "" 2
'''
    game = parse_efg(text)
    assert game.infosets(0) == ["P1:1", "P1:2"]
    assert game.infosets(1) == ["P2:7"]              # the name collides with a fallback label
    assert game.actions(1, "P2:7") == ("1:l", "2:l")  # repeated action labels made unique


# ---------------------------------------------------------------------------------------------
# faults: GameFileError with the path and the line

KUHN = efg_text(lpgame.games.make("kuhn_poker"))


def _fault(text: str, line: int, *words: str, reader=parse_efg):
    with pytest.raises(GameFileError) as info:
        reader(text, "bad.file")
    message = str(info.value)
    assert info.value.line == line, message
    assert message.startswith(f"bad.file:line {line}: "), message
    for word in words:
        assert word in message, message
    return message


def _replace_line(text: str, number: int, new: str) -> str:
    lines = text.split("\n")
    lines[number - 1] = new
    return "\n".join(lines)


def test_truncated_efg_names_the_last_line():
    lines = KUHN.split("\n")
    _fault("\n".join(lines[:20]) + "\n", 20, "ends early", "more child")
    _fault("\n".join(lines[:20]) + "\n\n\n", 20, "ends early")
    _fault('EFG 2 R "t" { "1" "2" }\n""\np "" 1 1 "" { "a" "b" } 0\nt "" 1 "o" {', 4,
           "ends early")
    _fault('EFG 2 R "t" { "1" "2" }\n"never closed\n\n', 2, "never closed")


def test_bad_numbers():
    _fault(_replace_line(KUHN, 7, 't "" 1 "Outcome 1" { -1, 1x }'), 7, "bad number", "1x")
    _fault(_replace_line(KUHN, 4, KUHN.split("\n")[3].replace("1/6", "1/0", 1)), 4,
           "bad number", "1/0")
    _fault(_replace_line(KUHN, 5, 'p "" one 1 "J" { "check" "bet" } 0'), 5, "player number")


def test_wrong_counts():
    _fault(_replace_line(KUHN, 7, 't "" 1 "Outcome 1" { -1, 1, 0 }'), 7,
           "3 payoffs", "2 players")
    chance = 'c "" 1 "" { "J-Q" 1/6 "J-K" 1/6 "Q-J" 1/6 "Q-K" 1/6 "K-J" 1/3 "K-Q" } 0'
    _fault(_replace_line(KUHN, 4, chance), 4, "'K-Q' has no probability",
           "6 action labels but 5 probabilities")
    nfg = 'NFG 1 R "t" { "1" "2" } { 2 2 }\n""\n1 2 3 4\n5 6 7\n'
    _fault(nfg, 4, "ends early", "7 of the 8 payoffs", reader=parse_nfg)
    _fault(nfg.replace("5 6 7", "5 6 7 8\n9"), 5, "unexpected '9'", reader=parse_nfg)
    _fault('NFG 1 R "t" { "1" "2" }\n{ 2 2 2 }\n', 2, "3 strategy lists/counts for 2 players",
           reader=parse_nfg)
    outcome = 'NFG 1 R "t" { "1" "2" } { { "a" } { "b" "c" } }\n{ { "o" 1 } }\n1 1\n'
    _fault(outcome, 2, "outcome 1 has 1 payoffs", reader=parse_nfg)
    outcome = 'NFG 1 R "t" { "1" "2" } { { "a" } { "b" "c" } }\n{ { "o" 1 2 } }\n1\n3\n'
    _fault(outcome, 4, "outcome 3 does not exist", reader=parse_nfg)


def test_unknown_node_type():
    _fault(_replace_line(KUHN, 8, 'q "" 1 2 "J check bet" { "fold" "call" } 0'), 8,
           "unknown node type 'q'")


def test_duplicate_outcome_with_different_payoffs():
    lines = KUHN.split("\n")
    assert lines[6] == lines[8] == 't "" 1 "Outcome 1" { -1, 1 }'
    _fault(_replace_line(KUHN, 9, 't "" 1 "Outcome 1" { -1, 2 }'), 9,
           "outcome 1 is declared again", "line 7")
    _fault(_replace_line(KUHN, 9, 't "" 1 "Outcome one" { -1, 1 }'), 9,
           "outcome 1 is declared again", "line 7")
    _fault(_replace_line(KUHN, 9, 't "" 9'), 9, "outcome 9 is used before")


def test_redeclared_infoset_and_other_structure_faults():
    lines = KUHN.split("\n")
    assert lines[13] == 'p "" 1 1 "J" { "check" "bet" } 0'
    _fault(_replace_line(KUHN, 14, 'p "" 1 1 "J" { "check" "raise" } 0'), 14,
           "information set 1 of player 1 is declared again", "line 5")
    _fault(_replace_line(KUHN, 14, 'p "" 3 1 "J" { "check" "bet" } 0'), 14,
           "player 3 does not exist")
    _fault(KUHN + 't "" 1\n', len(lines), "after the last node")
    _fault(KUHN.replace("EFG 2 R", "EFG 3 R"), 1, "format version")


def test_chance_probabilities_must_sum_to_one():
    message = _fault(_replace_line(KUHN, 4, KUHN.split("\n")[3].replace("1/6", "1/7", 1)), 4,
                     "chance event 1", "sum to 41/42, not 1")
    assert isinstance(GameFileError(message), InvalidGameError)
    _fault(SEQUENTIAL, 3, "sum to", "not 1")     # 1/3 + a rounded 2/3 is not exactly 1
    _fault(SEQUENTIAL.replace("1/3", "-1/3"), 3, "negative")


def test_game_validation_errors_point_at_the_node_line():
    # player 1's information set 1 reached again after player 1's own earlier move: no perfect
    # recall; lpgame's validation names the node, the reader adds the file line
    text = '''EFG 2 R "forgetful" { "1" "2" }
p "" 1 1 "first" { "a" "b" } 0
p "" 1 2 "second" { "c" "d" } 0
t "" 1 "o" { 1, -1 }
t "" 2 "p" { -1, 1 }
p "" 1 2 "second" { "c" "d" } 0
t "" 1
t "" 2
'''
    with pytest.raises(GameFileError, match=r"perfect recall.*\(nodes are numbered") as info:
        parse_efg(text, "forgetful.efg")
    assert info.value.line in (3, 6)


def test_missing_file_and_unknown_extension(tmp_path):
    with pytest.raises(GameFileError, match="no such file"):
        read_game_file(tmp_path / "nothing.efg")
    (tmp_path / "x.txt").write_text("hello")
    with pytest.raises(GameFileError, match=re.escape("unknown game file type '.txt'")):
        read_game_file(tmp_path / "x.txt")


def test_structured_game_cannot_be_written_without_its_tree():
    with pytest.raises(InvalidGameError, match="structured=False"):
        efg_text(lpgame.games.make("one_card_poker", N=4))


# ---------------------------------------------------------------------------------------------
# pygambit

def test_pygambit_written_efg_loads_and_solves_to_gambits_lp_value(tmp_path):
    """Gambit writes the files (a game built in pygambit; our OCP(4) file after Gambit read it);
    lpgame reads them and gets Gambit's rational lp_solve value. Gambit also reads every model
    file of the catalog and its lp_solve gives the catalog value of the zero-sum ones."""
    gbt = pytest.importorskip("pygambit")
    # built in pygambit: chance 1/3-2/3, an outcome with a decimal payoff on an interior node,
    # Ann not seeing chance, Bob seeing the deal
    g = gbt.Game.new_tree(players=["Ann", "Bob"], title="built in pygambit")
    g.append_move(g.root, g.players.chance, ["x", "y"])
    g.set_chance_probs(g.root.infoset, [gbt.Rational(1, 3), gbt.Rational(2, 3)])
    deals = list(g.root.children)
    g.append_move(deals, "Ann", ["a", "b"])
    g.set_outcome(deals[0], g.add_outcome(label="fee",
                                          payoffs=[gbt.Rational(-1, 2), gbt.Decimal("0.5")]))
    payoffs = {("x", "a"): (2, -2), ("x", "b"): (-1, 1), ("y", "a"): (-3, 3), ("y", "b"): (1, -1)}
    for deal, d in zip(deals, "xy"):
        a_node, b_node = list(deal.children)
        g.append_move(a_node, "Bob", ["c", "d"])
        u = payoffs[(d, "a")]
        for j, leaf in enumerate(a_node.children):
            g.set_outcome(leaf, g.add_outcome(label=f"{d}a{j}", payoffs=[u[0] + j, u[1] - j]))
        g.set_outcome(b_node, g.add_outcome(label=f"{d}b", payoffs=list(payoffs[(d, "b")])))
    built = tmp_path / "built.efg"
    built.write_text(g.to_efg())
    ocp = gbt.read_efg(str(MODELS / "one_card_poker_4.efg"))
    rewritten = tmp_path / "ocp4_by_gambit.efg"
    rewritten.write_text(ocp.to_efg())

    def gambit_value(game):
        result = gbt.nash.lp_solve(game, rational=True)
        return Fraction(str(result.equilibria[0].payoff(list(game.players)[0])))

    for game, path in ((g, built), (ocp, rewritten)):
        ours = lpgame.solve(str(path), exact=True)
        assert ours.value == gambit_value(game)
        assert read_game_file(path).sizes()["sequences"] == [
            1 + sum(len(i.actions) for i in p.infosets) for p in game.players]
    assert gambit_value(ocp) == Fraction(-1, 24)
    for entry in CATALOG:
        path = MODELS / entry["file"]
        game = gbt.read_efg(str(path)) if path.suffix == ".efg" else gbt.read_nfg(str(path))
        if entry["concept"] == "nash":
            assert gambit_value(game) == Fraction(entry["value"])
