"""Issue 19, library side: every input gets a clear answer.

Checked against sources other than lpgame's own answers: Python's Fraction parsing for parameter
values, math.comb/math.perm and the built trees' node counts for the size predictions, exact
rational sums for the float-to-exact rule, an independent float evaluation for exact evaluation
of float files, and matplotlib's renderer for label overlaps.
"""

from __future__ import annotations

import itertools
import json
import math
import time
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lpgame
from lpgame.analysis.exploitability import evaluate_strategies
from lpgame.compile import compile_game
from lpgame.errors import (
    ConceptMismatchError,
    LpgameError,
    ModelTooLargeError,
    OptionError,
    SolverError,
    StrategyError,
    UnknownGameError,
)
from lpgame.exact_probabilities import FLOAT_SUM_TOLERANCE, ExactConversion, exact_row
from lpgame.games import make, parse_params
from lpgame.games.normal_form_games import compositions
from lpgame.games.registry import predicted_bytes
from lpgame.io.json_io import read_json, strategies_from_json
from lpgame.io.strategy_files import load_strategies
from lpgame.limits import BYTES_PER_TREE_NODE

# ------------------------------------------------------------------ 1. parameters: kinds, ranges


@pytest.mark.parametrize("name,params,named", [
    ("one_card_poker", {"N": "abc"}, "N=abc"),
    ("one_card_poker", {"N": 3.5}, "N=3.5"),
    ("one_card_poker", {"N": "3.5"}, "N=3.5"),
    ("kuhn_poker", {"structured": "maybe"}, "structured=maybe"),
    ("guess_the_ace", {"modified": "abc"}, "modified=abc"),
    ("one_card_poker", {"N": 1}, "N=1"),
    ("leduc_poker", {"deal": "suits"}, "deal=suits"),
    ("sheriff", {"N": -1}, "N=-1"),
    ("kuhn_poker", {"cards": True}, "cards=true"),
    ("guess_the_ace", {"prize": float("nan")}, "prize=nan"),
    ("rhode_island_holdem", {"max_bets": 10 ** 9}, "max_bets=1000000000"),
])
def test_bad_parameter_values_are_refused_by_name(name, params, named):
    with pytest.raises(OptionError) as info:
        make(name, **params)
    message = str(info.value)
    assert named in message and name in message and "expected" in message


def test_unknown_game_and_parameter():
    with pytest.raises(UnknownGameError, match="unknown game 'nosuch'; known games: .*kuhn_poker"):
        make("nosuch")
    with pytest.raises(UnknownGameError, match="no parameter foo; its parameters are players=2"):
        make("kuhn_poker", foo=1)


def test_parse_params_parses_to_the_declared_kinds():
    assert parse_params(["N=1e3", "structured=false"], "one_card_poker") == \
        {"N": 1000, "structured": False}
    assert parse_params(["prize=3/2"], "guess_the_ace") == {"prize": Fraction(3, 2)}
    assert parse_params(["deal=cards"], "leduc_poker") == {"deal": "cards"}
    with pytest.raises(OptionError, match="N=3.5 is not an integer"):
        parse_params(["N=3.5"], "one_card_poker")
    with pytest.raises(OptionError, match="not of the form key=value"):
        parse_params(["N"], "one_card_poker")


def test_a_game_file_takes_no_parameters():
    with pytest.raises(OptionError, match="game file"):
        lpgame.games.load("models/sm2.nfg", N=3)


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.text(max_size=12), st.integers(-10 ** 6, 10 ** 6).map(str),
                 st.fractions(max_denominator=50).map(str),
                 st.floats(allow_nan=True, allow_infinity=True).map(repr)))
@pytest.mark.slow
def test_integer_parameters_follow_exact_parsing(text):
    """An integer parameter given as text is the integer the text denotes exactly (Python's
    Fraction reading is the reference), or an OptionError naming it; never another error."""
    try:
        reference = Fraction(text.strip().replace("_", ""))
    except (ValueError, ZeroDivisionError):
        reference = None
    try:
        got = parse_params([f"N={text}"], "one_card_poker")["N"]
    except OptionError as exc:
        assert "one_card_poker" in str(exc) and "N=" in str(exc)
        assert reference is None or reference.denominator != 1 or reference < 2
        return
    assert reference is not None and reference.denominator == 1 and got == reference >= 2


# ------------------------------------------------------------------ 2. size predictions


ABSURD = [("kuhn_poker", {"cards": 100000000}), ("liars_dice", {"faces": 1000}),
          ("dudo", {"K": 10 ** 9}), ("dudo", {"K": 100, "D1": 100, "D2": 100}),
          ("one_card_poker", {"N": 1000000000}), ("goofspiel", {"cards": 100}),
          ("one_card_poker", {"N": 99999999999999999999999}),
          ("colonel_blotto", {"S": 1000, "N": 1000}), ("domino", {"M": 100, "N": 100}),
          ("leduc_poker", {"players": 20, "ranks": 13, "suits": 4}),
          ("battleship", {"rows": 10, "cols": 10}), ("sheriff", {"N": 10, "B": 10, "rounds": 30}),
          ("kuhn_poker", {"players": 60, "cards": 60, "structured": True})]


@pytest.mark.parametrize("name,params", ABSURD, ids=[f"{n} {p}" for n, p in ABSURD])
def test_absurd_sizes_are_refused_before_building(name, params):
    start = time.perf_counter()
    with pytest.raises(ModelTooLargeError, match="would need about"):
        make(name, **params)
    assert time.perf_counter() - start < 1.0


SMALL = [("kuhn_poker", {"cards": c}) for c in (2, 3, 5)] + \
    [("kuhn_poker", {"players": 3, "cards": 4})] + \
    [("liars_dice", {"faces": k, "structured": False}) for k in (2, 3)] + \
    [("dudo", {"K": 3, "D1": 1, "D2": 1, "structured": False})] + \
    [("goofspiel", {"cards": k}) for k in (2, 3)] + [("goofspiel_limited", {"cards": 3})] + \
    [("battleship", {"rows": 1, "cols": 3, "shots": 2}), ("battleship", {})] + \
    [("sheriff", {"N": 2, "B": 2, "rounds": 2}), ("sheriff", {"N": 1, "B": 3, "rounds": 3})] + \
    [("leduc_poker", {}), ("leduc_poker", {"bets": 1, "deal": "cards"})] + \
    [("domino", {"M": 2, "N": 2, "structured": False})]


@pytest.mark.parametrize("name,params", SMALL, ids=[f"{n} {p}" for n, p in SMALL])
def test_size_predictions_are_lower_bounds_of_the_built_trees(name, params):
    """The prediction never refuses a game that fits: it is at most what the built tree holds."""
    game = make(name, **params)
    nodes = game.sizes()["nodes"]
    assert predicted_bytes(name, **params) <= nodes * BYTES_PER_TREE_NODE


def test_kuhn_prediction_is_the_published_node_count():
    # OCP(N)/Kuhn: 9N(N − 1) + 1 nodes (notes/rojas-linarez-and-notebook.md §1.7); the prediction
    # counts the 5 leaves of each of the N(N − 1) deals
    for cards in (3, 7, 50):
        assert predicted_bytes("kuhn_poker", cards=cards) == \
            5 * math.perm(cards, 2) * BYTES_PER_TREE_NODE


@pytest.mark.parametrize("soldiers,fields", [(5, 3), (4, 4), (1, 6), (3, 1)])
def test_blotto_compositions_against_stars_and_bars(soldiers, fields):
    got = compositions(soldiers, fields)
    brute = sorted(c for c in itertools.product(range(soldiers + 1), repeat=fields)
                   if sum(c) == soldiers)
    assert got == brute and len(got) == math.comb(soldiers + fields - 1, fields - 1)


def test_blotto_with_many_fields_has_no_recursion_limit():
    assert len(compositions(1, 1500)) == 1500


# ------------------------------------------------------------------ 3. strategy files


@pytest.fixture
def kuhn():
    return make("kuhn_poker")


def test_strategy_file_errors_name_the_file(tmp_path, kuhn):
    cases = {"missing.json": None, "folder": "dir", "binary.csv": bytes(range(256)),
             "binary.json": bytes(range(256)), "long.json": '{"a": 1' + "0" * 5000 + "}",
             "bad.json": "{", "nested.json": "[" * 100000 + "]" * 100000}
    for name, content in cases.items():
        path = tmp_path / name
        if content == "dir":
            path.mkdir()
        elif isinstance(content, bytes):
            path.write_bytes(content)
        elif content is not None:
            path.write_text(content)
        for load in (lambda p: read_json(p), lambda p: load_strategies(p, kuhn)):
            with pytest.raises(StrategyError, match=name):
                load(path)


def test_result_shapes_are_checked(tmp_path):
    path = tmp_path / "list.json"
    path.write_text("[1, 2]")
    with pytest.raises(StrategyError, match="list.json: the solve result must be an object"):
        read_json(path, expect=dict, what="solve result")
    with pytest.raises(StrategyError, match="must be a list"):
        strategies_from_json(read_json(path) and {"strategies": 3})


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.001, 1.0), min_size=2, max_size=6))
def test_float_rows_become_exact_and_sum_to_one(weights):
    """A normalised float row (what solvers and CFR write) becomes rationals summing to exactly 1,
    each within the tolerance of its float; the renormalisation is recorded."""
    total = sum(weights)
    row = [w / total for w in weights]
    conversion = ExactConversion()
    exact = exact_row(row, "test", conversion)
    assert sum(exact) == 1
    assert all(abs(float(q) - p) <= 2 * FLOAT_SUM_TOLERANCE for q, p in zip(exact, row))
    assert conversion.float_rows == 1
    if sum(Fraction(p) for p in row) != 1:
        assert conversion.renormalised == ["test"] and conversion.notes()


def test_rows_too_far_from_one_and_bad_numbers_are_refused():
    with pytest.raises(StrategyError, match="sum to 0.5, not 1"):
        exact_row([0.25, 0.25], "here")
    with pytest.raises(StrategyError, match="exact probabilities sum to 2/3"):
        exact_row(["1/3", "1/3"], "here")
    for bad in (True, None, "abc", float("nan"), -0.5):
        with pytest.raises(StrategyError, match="here"):
            exact_row([bad, 1], "here")


def test_exact_evaluation_of_float_output_matches_the_float_evaluation(tmp_path, kuhn):
    """lpgame's own float solve, evaluated exactly: the exact NashConv of the rationals the floats
    stand for agrees with the independent float evaluation (it was refused before, issue 19)."""
    result = lpgame.solve(kuhn)
    path = tmp_path / "kuhn.json"
    path.write_text(json.dumps({"strategies": [{k: {a: float(p) for a, p in row.items()}
                                                for k, row in s.items()} for s in result.strategies]}))
    strategies = strategies_from_json(read_json(path))
    sf = compile_game(kuhn)
    exact = evaluate_strategies(sf, strategies, exact=True)
    floats = evaluate_strategies(sf, strategies, exact=False)
    assert exact.exact and isinstance(exact.nash_conv, Fraction)
    assert abs(float(exact.nash_conv) - floats.nash_conv) < 1e-12
    assert abs(float(exact.values[0]) + 1 / 18) < 1e-9        # Kuhn's value −1/18 (Kuhn 1950)
    assert all("exact binary values" in note for note in exact.notes)


def test_verify_exact_applies_the_same_rule(tmp_path, kuhn):
    from lpgame.analysis.verify import verify
    strategies = [{k: {a: float(p) for a, p in row.items()} for k, row in s.items()}
                  for s in lpgame.solve(kuhn).strategies]
    strategies[0]["J"] = {"check": 0.5, "bet": 0.25}
    with pytest.raises(StrategyError, match="J: floating-point probabilities sum to 0.75"):
        verify(kuhn, strategies, exact=True)
    with pytest.raises(StrategyError, match="J: floating-point probabilities sum to 0.75"):
        evaluate_strategies(compile_game(kuhn), strategies, exact=True)


# ------------------------------------------------------------------ 4. messages without reprs


def test_messages_show_plain_numbers(kuhn):
    sf = compile_game(kuhn)
    strategy = {label: {a: 0.25 for a in sf.game.actions(0, label)} for label in sf.game.infosets(0)}
    with pytest.raises(StrategyError) as info:
        sf.behaviour_from_dict(0, strategy)
    assert "sum to 0.5, not 1" in str(info.value) and "np." not in str(info.value)
    from lpgame.lp.highs_backend import highs_settings
    with pytest.raises(SolverError) as info:
        highs_settings(solver="gurobi")
    assert "clarabel" in str(info.value) and "('" not in str(info.value)


# ------------------------------------------------------------------ 5. pictures


def test_draw_refusals_name_the_fix():
    from lpgame.draw import check_drawable, check_picture_path
    with pytest.raises(OptionError, match="x.xyz"):
        check_picture_path("x.xyz")
    check_picture_path("x.svg")
    with pytest.raises(LpgameError, match="structured=False"):
        check_drawable(make("one_card_poker"))
    with pytest.raises(ConceptMismatchError, match="--no-solve"):
        check_drawable(lpgame.compile.as_game(make("battle_of_the_sexes")), solve=True)
    check_drawable(make("kuhn_poker"), solve=True)


def test_titles_print_short_values():
    from lpgame.draw import format_value
    assert format_value(Fraction(-1, 18)) == "-1/18"
    assert format_value(-0.05555555555555565) == "-0.0556"
    assert format_value(Fraction(1, 3) ** 30) == "4.857e-15"
    assert format_value(0.0) == "0"


def _label_overlaps(fig) -> tuple[int, int]:
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in fig.axes[0].texts if t.get_gid() == "edge-label"]
    return len(boxes), sum(a.overlaps(b) for a, b in itertools.combinations(boxes, 2))


def test_edge_labels_do_not_collide():
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from lpgame.draw import draw_tree
    game = make("kuhn_poker")
    result = lpgame.solve(game)
    fig = draw_tree(game, result.strategies, value=result.value)
    count, overlaps = _label_overlaps(fig)
    assert count == 54 and overlaps == 0
    assert fig.axes[0].get_title().endswith("value -0.0556")
    plt.close(fig)
    # the measure does see collisions: squeezed into 4 inches, the labels overlap
    fig = draw_tree(game, result.strategies, width=4.0)
    assert _label_overlaps(fig)[1] > 0
    plt.close(fig)
