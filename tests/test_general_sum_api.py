"""General-sum Nash through lpgame.solve and the command line: dispatch by the registry (Lemke for
one equilibrium, enumeration with ``enumerate=True`` / ``--all``), JSON round trips, bad input."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

import lpgame
from lpgame.cli import main
from lpgame.equilibria.general_sum.enumeration import EquilibriaResult
from lpgame.errors import ConceptMismatchError, ModelTooLargeError
from lpgame.game import NormalFormGame
from lpgame.result import SolveResult


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_all_exact_lists_the_three_equilibria_of_battle_of_the_sexes(capsys):
    code, out, _ = run(capsys, "solve", "battle_of_the_sexes", "--all", "--exact", "--quiet")
    assert code == 0
    assert "all 3 extreme equilibria" in out
    assert "ballet=2/3  baseball=1/3" in out and "ballet=1/3  baseball=2/3" in out
    assert out.count("NashConv 0") == 3


def test_cli_all_json_has_equilibria_and_nash_subsets(capsys):
    code, out, _ = run(capsys, "solve", "von_stengel_degenerate", "--all", "--json", "-",
                       "--quiet")
    obj = json.loads(out)
    assert code == 0 and obj["kind"] == "equilibria" and obj["variant"] == "enumeration"
    assert len(obj["equilibria"]) == 3
    assert sorted(len(s["equilibria"]) for s in obj["nash_subsets"]) == [1, 2]   # a segment


def test_general_sum_dispatches_to_lemke_and_zero_sum_to_the_lp():
    assert lpgame.solve("stag_hunt").variant == "lemke"
    assert lpgame.solve("kuhn_poker").variant == "lp"


def test_enumeration_result_survives_json(tmp_path):
    result = lpgame.solve("outside_option_3x3", enumerate=True, exact=True)
    assert isinstance(result, EquilibriaResult)
    path = tmp_path / "all.json"
    result.save(path)
    loaded = SolveResult.load(path)
    assert isinstance(loaded, EquilibriaResult)
    assert loaded.to_dict() == result.to_dict()
    assert loaded.value == result.value and isinstance(loaded.value, Fraction)


def test_lemke_profile_is_certified_again_by_evaluate():
    game = lpgame.games.make("von_stengel_3x2")
    result = lpgame.solve(game, exact=True)
    assert lpgame.evaluate(game, result, exact=True).nash_conv == 0


def test_three_players_names_the_concepts_that_apply():
    three = NormalFormGame(np.zeros((3, 2, 2, 2), dtype=object), name="three")
    with pytest.raises(ConceptMismatchError, match="concepts that apply: .*ce"):
        lpgame.solve(three, enumerate=True)
    with pytest.raises(ConceptMismatchError, match="concepts that apply"):
        lpgame.solve(three)


def test_enumeration_of_a_too_large_tree_is_refused():
    with pytest.raises(ModelTooLargeError, match="max_profiles"):
        lpgame.solve("leduc_poker", enumerate=True)
