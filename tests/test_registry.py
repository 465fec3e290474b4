"""The concept registry: a concept registered from outside lpgame (here, this test module) is found
by lpgame.solve, ``lpgame concepts`` and ``lpgame solve --concept`` with no edit elsewhere; options
are typed; a game that does not fit names the concepts that do."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

import lpgame
from lpgame.cli import main
from lpgame.errors import ConceptMismatchError, InvalidGameError, OptionError
from lpgame.game import NormalFormGame
from lpgame.registry import Concept, Option, register, unregister
from lpgame.result import Certificate, Result


def pure_maximin(game, *, exact=False, backend="highs", player=1, **solver_options):
    """A toy concept: the best pure strategy's guarantee for one player of a normal-form game,
    max_s min_t u(s, t), by enumeration (no LP)."""
    if not isinstance(game, NormalFormGame):
        raise InvalidGameError("pure_maximin takes normal-form games")
    i = player - 1
    payoffs = np.asarray(game.payoffs, dtype=float)[i]          # (|S1|, |S2|)
    worst = payoffs.min(axis=1 - i)
    best = int(np.argmax(worst))
    labels = game.actions[i]
    strategy = {f"{game.player_names[i]}": {s: (1.0 if k == best else 0.0)
                                            for k, s in enumerate(labels)}}
    # certificate: no other pure strategy guarantees more (recomputed independently, by loops)
    guarantees = [min(game_payoff(game, i, s, t) for t in range(len(game.actions[1 - i])))
                  for s in range(len(labels))]
    gain = max(guarantees) - float(worst[best])
    return Result(game=game.name, concept="pure_maximin", values=[float(worst[best])],
                  strategies=[strategy], certificate=Certificate(gain=gain, deviations="other "
                                                                 "pure strategies"),
                  extra={"player": player})


def game_payoff(game, i, s, t):
    idx = (s, t) if i == 0 else (t, s)
    return float(np.asarray(game.payoffs, dtype=float)[(i, *idx)])


@pytest.fixture
def toy_concept():
    register(Concept(name="pure_maximin", games=("normal_form",), solve=pure_maximin,
                     summary="the best pure strategy's guarantee (a test's toy concept)",
                     certificate="other pure strategies", source="a test of lpgame",
                     exact=False, options=(Option("player", int, 1, "whose guarantee (1 or 2)"),)))
    yield
    unregister("pure_maximin")


def test_toy_concept_in_solve(toy_concept):
    game = lpgame.games.make("battle_of_the_sexes")
    r = lpgame.solve(game, concept="pure_maximin", player=2)
    # independent: brute force over the pure strategies of player 2
    matrix = np.asarray(game.payoffs, dtype=float)[1]
    expected = max(min(matrix[s, t] for s in range(matrix.shape[0])) for t in range(matrix.shape[1]))
    assert r.value == expected and r.certificate.gain == 0
    with pytest.raises(OptionError, match="option 'player' of concept 'pure_maximin' must be an "
                                          "integer"):
        lpgame.solve(game, concept="pure_maximin", player="two")
    with pytest.raises(OptionError, match="unknown option 'rounds'"):
        lpgame.solve(game, concept="pure_maximin", rounds=3)
    with pytest.raises(ConceptMismatchError, match="concepts that apply: .*maximin"):
        lpgame.solve("kuhn_poker", concept="pure_maximin")


def test_toy_concept_in_cli(toy_concept, capsys):
    assert main(["concepts", "--json", "-"]) == 0
    listed = json.loads(capsys.readouterr().out)["concepts"]
    toy = [c for c in listed if c["name"] == "pure_maximin"]
    assert toy and toy[0]["games"] == ["normal_form"] and toy[0]["options"][0]["flag"] == "--player"
    assert main(["concepts"]) == 0
    assert "pure_maximin: the best pure strategy" in capsys.readouterr().out
    assert main(["solve", "chicken", "--concept", "pure_maximin", "--player", "1", "--json", "-",
                 "--quiet"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["concept"] == "pure_maximin" and obj["certificate"]["gain"] == 0
    assert main(["solve", "chicken", "--concept", "pure_maximin", "--player", "x", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("lpgame: error:") == 1 and "--player" in err


def test_unregistered_concept_is_gone(capsys):
    with pytest.raises(OptionError, match="unknown concept 'pure_maximin'"):
        lpgame.solve("chicken", concept="pure_maximin")
    assert main(["solve", "chicken", "--concept", "pure_maximin"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_every_builtin_concept_declares_what_the_issue_asks():
    entries = lpgame.api.concepts()
    names = {c.name for c in entries}
    assert {"nash", "maximin", "ce", "cce", "efce", "efcce", "nfcce"} <= names
    for c in entries:
        assert c.summary and c.certificate and c.source and c.games


def test_general_sum_game_names_concepts_that_apply():
    with pytest.raises(ConceptMismatchError) as info:
        lpgame.solve(lpgame.games.make("kuhn_poker", players=3), concept="maximin")
    assert "concepts that apply" in str(info.value) and "cce" in str(info.value)


def test_option_types_are_checked():
    with pytest.raises(OptionError, match="algorithm"):
        lpgame.solve("kuhn_poker", algorithm="simplex-ish")
    with pytest.raises(OptionError, match="time_limit"):
        lpgame.solve("kuhn_poker", time_limit="abc")
    with pytest.raises(OptionError, match="threads"):
        lpgame.solve("kuhn_poker", threads=100000)
    with pytest.raises(OptionError, match="exact must be True or False"):
        lpgame.solve("kuhn_poker", exact="yes")
    # (objective= now selects nash [optimal], the MILP of lpgame.equilibria.general_sum.optimal_nash)
    with pytest.raises(OptionError, match="option 'decompose' .*concept 'efce'"):
        lpgame.solve("kuhn_poker", decompose=True)
    with pytest.raises(OptionError, match="option 'max_profiles' of concept 'nash' belongs to "
                                          "enumeration .*selected by enumerate"):
        lpgame.solve("kuhn_poker", max_profiles=5)


@pytest.mark.parametrize("concept,backend", list(itertools.product(
    ["nash", "maximin"], ["highs", "pyomo", "cvxpy"])) + [("ce", "highs"), ("efce", "highs")])
def test_json_names_the_solver_that_ran(concept, backend, capsys):
    game = "kuhn_poker" if concept != "ce" else "chicken"
    assert main(["solve", game, "--concept", concept, "--backend", backend, "--json", "-",
                 "--quiet"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["solver"]["name"] and obj["solver"]["backend"] in (backend, "clarabel")
    assert {"kind", "game", "concept", "values", "certificate", "size", "seconds"} <= set(obj)
    assert "gain" in obj["certificate"]


def test_result_round_trip_keeps_the_kind(tmp_path):
    for concept in ("nash", "ce"):
        r = lpgame.solve("chicken" if concept == "ce" else "kuhn_poker", concept=concept)
        path = tmp_path / f"{concept}.json"
        r.save(path)
        back = lpgame.result.SolveResult.load(path)
        assert type(back) is type(r) and back.to_dict() == r.to_dict()
