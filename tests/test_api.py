"""The public API's Result as JSON: the keys of the documented schema and exact numbers as text.

The schema is the one of lpgame/result.py's module docstring and README ("JSON schema"): value,
strategies, certificate {nash_conv, exploitability, exact}, size {rows, cols, nnz}, seconds
{total, solve}. Exact values are written as strings so nothing is rounded: Kuhn poker's value
−1/18 (Kuhn 1950) is "-1/18".
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

import lpgame
from lpgame import Result


@pytest.fixture(scope="module")
def kuhn():
    return lpgame.games.make("kuhn_poker")


@pytest.mark.parametrize("exact", [False, True])
def test_result_json_keys(kuhn, exact):
    data = json.loads(json.dumps(lpgame.solve(kuhn, exact=exact).to_dict()))
    assert {"value", "values", "strategies", "certificate", "size", "seconds", "unreached",
            "game", "concept", "backend", "exact"} <= set(data)
    assert {"nash_conv", "exploitability", "exact", "best_response_gain"} <= set(data["certificate"])
    assert set(data["size"]) == {"rows", "cols", "nnz"}
    assert all(isinstance(v, int) and v > 0 for v in data["size"].values())
    assert {"total", "solve"} <= set(data["seconds"])
    assert all(isinstance(v, float) and v >= 0 for v in data["seconds"].values())
    assert data["seconds"]["total"] >= data["seconds"]["solve"]
    assert data["certificate"]["exact"] is exact and data["exact"] is exact
    assert data["concept"] == "nash" and data["backend"] == "highs"
    assert isinstance(data["strategies"], list) and len(data["strategies"]) == 2
    # every information set of the game appears, with its actions
    for i, strategy in enumerate(data["strategies"]):
        assert set(strategy) == set(kuhn.infosets(i))
        for infoset, row in strategy.items():
            assert tuple(row) == kuhn.actions(i, infoset)


def test_exact_value_is_written_as_a_fraction_string(kuhn):
    data = lpgame.solve(kuhn, exact=True).to_dict()
    assert data["value"] == "-1/18"
    assert data["values"] == ["-1/18", "1/18"]
    assert data["certificate"]["nash_conv"] == "0"
    assert data["certificate"]["exploitability"] == "0"
    assert data["strategies"][1]["Q bet"] == {"fold": "2/3", "call": "1/3"}


def test_float_value_is_a_json_number(kuhn):
    data = lpgame.solve(kuhn).to_dict()
    assert isinstance(data["value"], float)
    assert data["value"] == pytest.approx(-1 / 18, abs=1e-9)
    assert isinstance(data["certificate"]["nash_conv"], float)


def test_exact_result_reads_back_as_fractions(kuhn, tmp_path):
    path = tmp_path / "kuhn.json"
    lpgame.solve(kuhn, exact=True).save(path)
    loaded = Result.load(path)
    assert loaded.value == Fraction(-1, 18) and isinstance(loaded.value, Fraction)
    assert loaded.certificate.nash_conv == 0 and loaded.exact
    assert loaded.strategies[1]["Q bet"]["call"] == Fraction(1, 3)
    assert lpgame.evaluate(kuhn, loaded, exact=True).nash_conv == 0


def test_maximin_result_json_keeps_minimax_strategies_and_security_data(tmp_path):
    game = lpgame.games.make("battle_of_the_sexes")
    result = lpgame.solve(game, concept="maximin", exact=True)
    data = result.to_dict()
    assert data["concept"] == "maximin"
    # battle of the sexes (Tabla 1.2), by hand: min(2p, 1 − p) and min(q, 2 − 2q) peak at 2/3
    assert data["values"] == ["2/3", "2/3"]
    assert {"guaranteed", "security_gap"} <= set(data["certificate"])
    assert len(data["minimax_strategies"]) == 2
    path = tmp_path / "bos.json"
    result.save(path)
    loaded = Result.load(path)
    assert loaded.to_dict() == data
    assert loaded.certificate.extra["guaranteed"] == [Fraction(2, 3), Fraction(2, 3)]


def test_evaluation_json(kuhn):
    ev = lpgame.evaluate(kuhn, lpgame.solve(kuhn, exact=True), exact=True)
    data = ev.to_dict()
    assert data["value"] == "-1/18" and data["nash_conv"] == "0" and data["exact"] is True


def test_summary_of_a_large_game_shows_the_reached_information_sets_first():
    """Dudo(3,1,2) has 2304 information sets: the summary shows a bounded number, reached ones
    only, and counts the rest; every one stays in the JSON."""
    game = lpgame.games.make("dudo", K=3, D1=1, D2=2)
    result = lpgame.solve(game)
    text = result.summary(max_infosets=5)
    for i, strat in enumerate(result.strategies):
        block = text.split(f"player {i + 1} strategy:\n")[1].split("\n\n")[0].splitlines()
        assert len(block) == 6 and "not shown" in block[-1]
        unreached = set(result.unreached[i])
        assert all(line.split("  ")[1].strip() not in unreached for line in block[:-1])
        assert str(len(strat) - 5) in block[-1]
    full = result.summary(max_infosets=None)
    assert "not shown" not in full
    sf = lpgame.compile_game(game)
    assert [len(s) for s in result.to_dict()["strategies"]] == [sf.num_infosets(0),
                                                                 sf.num_infosets(1)]
