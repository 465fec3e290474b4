"""The readers of whole trees (CFR's chance sampler, the team belief DAG, the Gambit writer) read a
game's node arrays (lpgame.game.tree_arrays), never its networkx view, and give exactly what the
graph-based code gave.

References: ``tests/cases/tree_arrays_reference.json`` holds SHA-256 digests of the outputs of the
graph-based code of commit a772d4b ("Trees built flat": ``_chance_structure_of_tree`` walking
``game.graph``, ``build_team_belief_dag`` walking ``game.graph``, ``efg_text`` walking
``game.graph``), computed on the games below with the digest functions of this file. Besides, a
copy of every game built from its networkx graph (``Game(graph)``, the fallback path, which numbers
nodes by a walk of the graph) gives the same outputs as the game built from records, and pygambit
reads the written files back with the same tree sizes.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

import lpgame.games
from lpgame.compile import as_game, compile_game
from lpgame.equilibria.teams.team_belief_dag import build_team_belief_dag, team_tree_game
from lpgame.game.tree import Game
from lpgame.io.gambit import efg_text, parse_efg
from lpgame.learning import run
from lpgame.learning.treeplex import ChanceSampler, _chance_structure_of_tree

REFERENCE = json.loads((Path(__file__).parent / "cases" / "tree_arrays_reference.json").read_text())
MODELS = Path(__file__).parent.parent / "models"

GAMES = {
    "kuhn": ("kuhn_poker", {}),
    "leduc_cards": ("leduc_poker", {"deal": "cards"}),
    "goofspiel_limited_3": ("goofspiel_limited", {"cards": 3}),
    "kuhn3": ("kuhn_poker", {"players": 3}),
    "kuhn3_4": ("kuhn_poker", {"players": 3, "cards": 4}),
    "sheriff": ("sheriff", {"structured": False}),
    "L3133": ("leduc_poker", {"players": 3, "bets": 1, "ranks": 3, "suits": 3}),
}
TEAMS = [("kuhn3", (1, 2)), ("kuhn3", (0, 2)), ("kuhn3", (0, 1)), ("kuhn3_4", (1, 2)),
         ("kuhn", (0,)), ("kuhn", (1,)), ("sheriff", (0,)), ("sheriff", (1,)),
         ("goofspiel_limited_3", (0,)), ("L3133", (1, 2))]
CHANCE_GAMES = ["kuhn", "leduc_cards", "goofspiel_limited_3", "kuhn3", "L3133"]
EFG_GAMES = ["kuhn", "leduc_cards", "goofspiel_limited_3", "kuhn3", "sheriff"]
EFG_MODELS = ["kuhn_poker.efg", "one_card_poker_4.efg", "rojas_ex_2_2.efg"]


def make(key: str) -> Game:
    name, params = GAMES[key]
    return team_tree_game(as_game(lpgame.games.make(name, **params)))


def graph_copy(game: Game) -> Game:
    """The same game built from its networkx graph (no node records)."""
    return Game(game.graph, game.num_players, root=game.root, name=game.name,
                player_names=game.player_names)


def digest(*parts) -> str:
    """SHA-256 of arrays (as little-endian int64 or float64 bytes, with their shapes) and of the
    repr of everything else."""
    h = hashlib.sha256()
    for part in parts:
        if isinstance(part, np.ndarray):
            dtype = "<f8" if part.dtype.kind == "f" else "<i8"
            h.update(repr(part.shape).encode())
            h.update(np.ascontiguousarray(part, dtype=dtype).tobytes())
        else:
            h.update(repr(part).encode())
        h.update(b"|")
    return h.hexdigest()


def chance_digest(structure) -> str:
    return digest(*structure)


def dag_digest(dag) -> str:
    return digest(dag.members, dag.num_leaves, dag.belief_infosets, dag.belief_histories,
                  dag.edge_belief, dag.edge_actions, dag.child_edge, dag.child_belief,
                  dag.leaf_edge, dag.leaf_index, dag.root_beliefs, dag.root_leaves,
                  sorted(dag.stats.items()))


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _same_structure(a, b) -> None:
    for x, y in zip(a, b, strict=True):
        assert x.dtype == y.dtype and x.shape == y.shape and np.array_equal(x, y)


@pytest.mark.parametrize("key", CHANCE_GAMES)
def test_chance_structure_is_the_graph_walks(key):
    game = make(key)
    structure = _chance_structure_of_tree(game)
    assert game._graph is None                         # no networkx view was built
    assert chance_digest(structure) == REFERENCE["chance"][key]
    _same_structure(structure, _chance_structure_of_tree(graph_copy(game)))
    probs, starts, counts, leaf_edges = structure
    # every chance node's probabilities sum to 1 and every leaf's path multiplies to its reach
    assert np.allclose(np.add.reduceat(probs, starts), 1.0)
    padded = np.append(probs, 1.0)
    assert np.allclose(padded[leaf_edges].prod(axis=1), game.index.terminal_chance)
    assert counts.sum() == probs.size


@pytest.mark.parametrize("algorithm", ["cs-cfr", "es-mccfr", "os-mccfr", "cfr+"])
def test_cfr_builds_no_graph(algorithm):
    game = make("leduc_cards")
    run(game, algorithm, iterations=2, seed=0)
    assert game._graph is None


@pytest.mark.parametrize("key,team", TEAMS)
def test_belief_dag_is_the_graph_walks(key, team):
    game = make(key)
    dag = build_team_belief_dag(game, team)
    assert game._graph is None
    assert dag_digest(dag) == REFERENCE["dag"][f"{key}:{','.join(map(str, team))}"]
    assert dag_digest(build_team_belief_dag(graph_copy(game), team)) == dag_digest(dag)
    # the flows project onto realization vectors: ω of a pure flow is 0/1 at every leaf
    R, r = dag.leaf_matrix()
    assert R.shape == (game.index.num_terminals, dag.num_edges)


@pytest.mark.parametrize("key", EFG_GAMES)
def test_efg_text_is_the_graph_walks(key):
    game = make(key)
    text = efg_text(game)
    assert game._graph is None
    assert text_digest(text) == REFERENCE["efg"][key]
    assert efg_text(graph_copy(game)) == text
    # read back: the same tree, and the same text again
    again = parse_efg(text)
    assert again.sizes() == game.sizes()
    assert efg_text(again) == text


@pytest.mark.parametrize("model", EFG_MODELS)
def test_efg_text_of_model_files(model):
    game = parse_efg((MODELS / model).read_text())
    text = efg_text(game)
    assert game._graph is None
    assert text_digest(text) == REFERENCE["efg"][model]
    assert efg_text(graph_copy(game)) == text


def test_pygambit_reads_the_written_tree(tmp_path):
    pygambit = pytest.importorskip("pygambit")
    for key in ("kuhn", "kuhn3", "goofspiel_limited_3"):
        game = make(key)
        path = tmp_path / f"{key}.efg"
        path.write_text(efg_text(game))
        g = pygambit.read_efg(str(path))
        assert len(g.players) == game.num_players
        assert [len(p.infosets) for p in g.players] == game.sizes()["infosets"]
        assert len(g.players.chance.infosets) == game.sizes()["chance_nodes"]


def test_chance_sampler_draws_consistent_leaves():
    game = make("leduc_cards")
    sampler = ChanceSampler(compile_game(game))
    leaves = sampler.sample_leaves(np.random.default_rng(0))
    assert game._graph is None
    # one deal and one board card: the sampled leaves are all the betting outcomes of one deal
    assert 0 < leaves.size < game.index.num_terminals
