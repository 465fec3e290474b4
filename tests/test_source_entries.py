"""Entries that read a game's source (``reads_source``, :func:`lpgame.registry.source_entry`):
``lpgame.solve`` and ``lpgame solve`` hand such an entry the game as the user gave it (a rules
object, a catalog name), never expanded, and dispatch by the entry's own flag and ``requires``;
neither names a concept or a method. The throwaway entries here are registered by the tests and
removed after them."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

import lpgame
from lpgame import registry
from lpgame.cli import main
from lpgame.errors import InvalidGameError, OptionError
from lpgame.registry import Concept, Option, register, unregister
from lpgame.result import Certificate, Result


class MatrixRules:
    """A 2×2 zero-sum matrix game given by its rows: a source lpgame cannot expand by itself."""

    def __init__(self, name, rows):
        self.name = name
        self.rows = rows


RECEIVED: list = []


def mixed_2x2(game, *, exact=False, backend="highs", method=None, **solver_options):
    """The toy source reader: the row player's mixed strategy and the value of a 2×2 zero-sum
    matrix game without a saddle point by the closed form (von Neumann & Morgenstern 1944, §17;
    p = (d − c)/(a + d − b − c), v = (ad − bc)/(a + d − b − c)), certified by the columns' and
    rows' pure deviations."""
    RECEIVED.append(game)
    if not isinstance(game, MatrixRules):
        raise InvalidGameError(f"the toy reads MatrixRules, not {type(game).__name__}")
    (a, b), (c, d) = [[Fraction(x) for x in row] for row in game.rows]
    den = a + d - b - c
    p, q, value = (d - c) / den, (d - b) / den, (a * d - b * c) / den
    row_gain = max(a * q + b * (1 - q), c * q + d * (1 - q)) - value
    col_gain = value - min(a * p + c * (1 - p), b * p + d * (1 - p))
    return Result(game=game.name, concept="nash", variant="source_toy", value=value,
                  values=[value, -value],
                  strategies=[{"row": {"top": p, "bottom": 1 - p}},
                              {"column": {"left": q, "right": 1 - q}}],
                  certificate=Certificate(row_gain + col_gain, (row_gain + col_gain) / 2,
                                          [row_gain, col_gain], deviations="pure rows and columns"),
                  exact=True)


def _unexpandable(monkeypatch):
    """Loading or expanding a game in the API or the command line fails the test."""
    def refuse(game, *args, **kwargs):
        raise AssertionError(f"the game was loaded or expanded: {game!r}")
    monkeypatch.setattr(lpgame.api, "load_game", refuse)
    monkeypatch.setattr(lpgame.api, "as_game", refuse)


@pytest.fixture
def source_toy():
    """``nash`` gets a variant selected by method="source_toy" that reads the source."""
    RECEIVED.clear()
    register(Concept(name="nash", variant="source_toy", games=("zero_sum",), solve=mixed_2x2,
                     requires=("method=source_toy",), reads_source=True, exact=True,
                     summary="a test's toy: 2×2 matrix games from their rows",
                     certificate="pure rows and columns", source="a test of lpgame",
                     options=(Option("method", str, None, "source_toy: the test's toy",
                                     choices=("source_toy",)),)))
    yield
    unregister("nash", "source_toy")


@pytest.fixture
def reader_concept():
    """A concept of its own whose only entry reads the source (no option selects it)."""
    RECEIVED.clear()
    register(Concept(name="source_reader", games=("zero_sum",), solve=mixed_2x2,
                     reads_source=True, exact=True, summary="a test's toy source reader",
                     certificate="pure rows and columns", source="a test of lpgame"))
    yield
    unregister("source_reader")


def test_solve_hands_the_source_to_the_entry_unexpanded(source_toy, monkeypatch):
    rules = MatrixRules("toy matrix", ((3, -1), (-2, 1)))
    _unexpandable(monkeypatch)
    result = lpgame.solve(rules, method="source_toy")
    assert RECEIVED == [rules] and RECEIVED[0] is rules
    assert result.variant == "source_toy" and result.seconds["total"] >= 0
    # by hand: the rows mix 3/7, 4/7, the columns 2/7, 5/7; either column gives the row 1/7
    assert result.value == Fraction(1, 7)
    assert result.strategies[0]["row"] == {"top": Fraction(3, 7), "bottom": Fraction(4, 7)}
    assert result.strategies[1]["column"] == {"left": Fraction(2, 7), "right": Fraction(5, 7)}
    assert result.certificate.nash_conv == 0
    assert registry.source_entry("nash", {"method": "source_toy", "time_limit": 5}).variant \
        == "source_toy"


def test_without_its_option_the_game_takes_the_usual_path(source_toy):
    assert registry.source_entry("nash", {}) is None
    assert registry.source_entry("nash", {"method": "lemke_howson"}) is None
    result = lpgame.solve("kuhn_poker", exact=True)
    assert RECEIVED == [] and result.variant == "lp"
    assert result.value == Fraction(-1, 18)     # Kuhn 1950


def test_a_catalog_name_is_handed_over_as_given(reader_concept, monkeypatch):
    _unexpandable(monkeypatch)
    with pytest.raises(InvalidGameError, match="reads MatrixRules, not str"):
        lpgame.solve("kuhn_poker", concept="source_reader")
    assert RECEIVED == ["kuhn_poker"]
    result = lpgame.solve(MatrixRules("pennies", ((1, -1), (-1, 1))), concept="source_reader")
    assert result.value == 0 and result.strategies[0]["row"]["top"] == Fraction(1, 2)


def test_options_and_abstraction_are_refused_before_any_work(source_toy, monkeypatch):
    _unexpandable(monkeypatch)
    rules = MatrixRules("toy matrix", ((3, -1), (-2, 1)))
    with pytest.raises(OptionError, match="option 'enumerate' of concept 'nash' belongs to "
                                          "enumeration.*toy matrix"):
        lpgame.solve(rules, method="source_toy", enumerate=True)
    with pytest.raises(OptionError, match=r"nash \[source_toy\], selected by method=source_toy, "
                                          "solves the game from its source itself; "
                                          "abstraction='gameshrink'"):
        lpgame.solve(rules, method="source_toy", abstraction="gameshrink")
    assert RECEIVED == []


def test_the_command_line_reads_the_rules_without_building_the_tree(reader_concept, monkeypatch,
                                                                    capsys):
    from lpgame.abstraction.ordered_game import OrderedSignalGame

    _unexpandable(monkeypatch)
    # Rhode Island Hold'em's catalog entry is its rules (an ordered-signal game, never expanded)
    assert main(["solve", "rhode_island_holdem", "ranks=3", "suits=3", "--concept",
                 "source_reader", "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("lpgame: error: the toy reads MatrixRules, not "
                                               "OrderedSignalGame")
    assert len(RECEIVED) == 1 and isinstance(RECEIVED[0], OrderedSignalGame)


def test_the_signal_operator_is_selected_by_its_flag(monkeypatch, capsys):
    entry = registry.source_entry("nash", {"method": "signal_operator", "threads": 1})
    assert entry.variant == "signal_operator" and entry.reads_source
    # every other source-reading nash entry is selected by a method of its own, never by default
    others = [c for c in registry.entries("nash") if c is not entry and c.reads_source]
    assert all(c.requires and "method=signal_operator" not in c.requires for c in others)
    assert registry.source_entry("nash", {}) is None
    monkeypatch.setattr(lpgame.api, "as_game", lambda game: pytest.fail("expanded"))
    result = lpgame.solve("kuhn_poker", method="signal_operator", operator_filter="none")
    assert result.value == pytest.approx(-1 / 18, abs=1e-12)       # Kuhn 1950
    assert main(["solve", "matching_pennies", "--method", "signal_operator", "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("lpgame: error:"), err


def test_api_and_cli_name_no_method_in_dispatch():
    root = Path(lpgame.__file__).parent
    for module in ("api.py", "cli.py"):
        text = (root / module).read_text()
        assert "signal_operator" not in text and 'get("method")' not in text, module
