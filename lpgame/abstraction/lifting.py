"""Lifting an abstract strategy to the original game (Gilpin & Sandholm, Theorem 2).

Theorem 2 (notes §A.6): with σ' a strategy profile of the filtered game Γ_{F'}, define σ in the
original game by σ^j_{i,v}(z̃, F^j(α̃^j, β̃^j_i)) = σ'^j_{i,v}(z̃, F'^j(α̃^j, β̃^j_i)): every original
information set (view w, public node q) plays what the abstract information set (class of w, q)
plays. If σ' is a Nash equilibrium of Γ_{F'}, σ is one of Γ (for the filter of
:mod:`lpgame.abstraction.gameshrink`, the lifted profile has exactly the abstract profile's values
and best-response gains).

In sequence-form indices (:mod:`lpgame.abstraction.compile`) the original sequence
``1 + off_{i,j} + w·P_{i,j} + s`` takes the behaviour of the abstract sequence
``1 + off'_{i,j} + class(w)·P_{i,j} + s``: one integer map per player, applied by numpy indexing.

>>> from lpgame.abstraction import compile_ordered_game, gameshrink, toy_ordered
>>> shrunk = gameshrink(toy_ordered())
>>> original, abstract = compile_ordered_game(toy_ordered()), shrunk.compile()
>>> import lpgame
>>> lifted = lift_strategies(original, abstract, lpgame.solve(abstract).strategies)
>>> lifted[0]["J1"] == lifted[0]["J2"], sorted(lifted[0])[:3]
(True, ['J1', 'J1 check bet', 'J2'])
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from lpgame.abstraction.compile import OrderedIndexedGame
from lpgame.abstraction.views import ViewPartition


def sequence_map(original: OrderedIndexedGame, abstract: OrderedIndexedGame, player: int
                 ) -> np.ndarray:
    """For every sequence of ``player`` in ``original``, the abstract sequence it plays as."""
    game = original.ordered
    tree = game.tree
    r = len(game.rounds)
    P = [tree.num_local[j][player] for j in range(r)]
    part_o: ViewPartition = original.partition
    part_a: ViewPartition = abstract.partition
    views = original.views
    out = np.zeros(original.index.players[player].num_sequences, dtype=np.int64)
    off_o = off_a = 0
    for j in range(r):
        V = views.num_views(player, j)
        Co, Ca = part_o.num_classes(player, j), part_a.num_classes(player, j)
        # original classes are views here when the original is unfiltered; in general map each
        # original class through one of its views
        rep = np.zeros(Co, dtype=np.int64)
        rep[part_o.view_class[player][j]] = np.arange(V)
        target = part_a.view_class[player][j][rep]
        c = np.repeat(np.arange(Co), P[j])
        s = np.tile(np.arange(P[j]), Co)
        out[1 + off_o + c * P[j] + s] = 1 + off_a + target[c] * P[j] + s
        off_o += Co * P[j]
        off_a += Ca * P[j]
    return out


def lift_behaviour(original: OrderedIndexedGame, abstract: OrderedIndexedGame, player: int,
                   behaviour: Sequence) -> np.ndarray | list:
    """The original behaviour vector of ``player`` (floats, or a list of Fractions if given one)."""
    mapping = sequence_map(original, abstract, player)
    if isinstance(behaviour, np.ndarray):
        return np.asarray(behaviour)[mapping]
    return [behaviour[k] for k in mapping.tolist()]


def lift_strategies(original: OrderedIndexedGame, abstract: OrderedIndexedGame,
                    strategies: Sequence[dict], exact: bool = False) -> list[dict]:
    """``{information set: {action: probability}}`` per player of the abstract game, lifted to the
    original game's information-set labels (Theorem 2)."""
    from lpgame.sequence_form import SequenceForm

    sf_a, sf_o = SequenceForm(abstract), SequenceForm(original)
    out = []
    for i, strategy in enumerate(strategies):
        b = (sf_a.behaviour_from_dict_exact(i, strategy) if exact
             else sf_a.behaviour_from_dict(i, strategy))
        lifted = lift_behaviour(original, abstract, i, b)
        out.append(sf_o.strategy_to_dict(i, lifted if exact else lifted.tolist()))
    return out


__all__ = ["sequence_map", "lift_behaviour", "lift_strategies"]
