"""The rules protocol and its expansion to the explicit tree.

A game given by its rules (the way OpenSpiel and the seeds' C++ code describe games) implements
:class:`GameRules`: an initial state, whose turn it is, the legal actions, how an action changes the
state, the chance outcomes with their probabilities, the information-set key of the player to move,
and the payoffs at the end. :func:`expand` walks the rules depth first and writes the tree of
:mod:`lpgame.game.tree`; the resulting :class:`~lpgame.game.tree.Game` is validated as any other
(so a rules object whose keys break perfect recall is refused with the information set named).

The walk costs a few Python calls per node besides the callbacks; rules that answer from tables
made once, returning the same tuple object for equal actions or chance outcomes, let it make each
tuple's labels and probabilities once, shared by the records and checked once by the flat index
(:func:`_expand`; the catalog's Goofspiel and liar's dice build in about 3 µs a node this way,
``python -m benchmarks.bench_build_rate``).

Example
-------
>>> class Coin:
...     num_players = 1
...     name = "guess a coin"
...     def initial_state(self): return ()
...     def current_player(self, s):
...         return CHANCE_PLAYER if len(s) == 0 else (0 if len(s) == 1 else TERMINAL_PLAYER)
...     def chance_outcomes(self, s): return [("heads", Fraction(1, 2)), ("tails", Fraction(1, 2))]
...     def legal_actions(self, s): return ["heads", "tails"]
...     def apply(self, s, a): return s + (a,)
...     def infoset_key(self, s): return "guess"
...     def payoffs(self, s): return (1 if s[0] == s[1] else 0,)
>>> expand(Coin()).sizes()["terminals"]
4
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from fractions import Fraction  # noqa: F401  (used by the doctest)
from typing import Any, Protocol, runtime_checkable

from lpgame import progress
from lpgame.game.flat_tree import FlatTree, paused_gc
from lpgame.game.tree import CHANCE, DECISION, TERMINAL, Game
from lpgame.limits import (
    BYTES_PER_TREE_NODE,
    check_prediction,
    first_tree_node_check,
    tree_node_limit,
)

CHANCE_PLAYER = -1
TERMINAL_PLAYER = -2


@runtime_checkable
class GameRules(Protocol):
    """What a rules object provides. States are any Python objects the rules understand."""

    num_players: int

    def initial_state(self) -> Any:
        """The state before anything happens."""

    def current_player(self, state: Any) -> int:
        """0..n-1 for a player, :data:`CHANCE_PLAYER` or :data:`TERMINAL_PLAYER`."""

    def legal_actions(self, state: Any) -> Sequence[Hashable]:
        """Action labels available to the player to move."""

    def chance_outcomes(self, state: Any) -> Sequence[tuple[Hashable, Any]]:
        """(outcome label, probability) pairs at a chance state."""

    def apply(self, state: Any, action: Hashable) -> Any:
        """The state after ``action`` (a new object; ``state`` is not changed)."""

    def infoset_key(self, state: Any) -> str:
        """Label of the information set of the player to move; equal keys = same set."""

    def payoffs(self, state: Any) -> Sequence:
        """One payoff per player at a terminal state."""


PROGRESS_EVERY = (1 << 15) - 1
"""The walk reports its node count (:mod:`lpgame.progress`) every 32768 nodes."""


def expand(rules: GameRules, name: str | None = None, memory_limit: int | None = None) -> Game:
    """Expand ``rules`` into the explicit :class:`~lpgame.game.tree.Game` (depth first).

    Nodes are numbered in depth-first preorder, the root being 0. The walk records one node per
    visit (:class:`~lpgame.game.flat_tree.FlatTree`) and the flat index is built from the records
    in one pass; the networkx graph (``game.graph``) is made only when asked for. The walk stops
    with :class:`~lpgame.errors.ModelTooLargeError` as soon as the tree would not fit in the memory
    limit (:mod:`lpgame.limits`).
    """
    with paused_gc():
        return _expand(rules, name, memory_limit)


SHARED_RESULTS = 1 << 12
"""The most distinct tuples of actions or outcomes the walk remembers (:func:`_expand`)."""


def _expand(rules: GameRules, name: str | None, memory_limit: int | None) -> Game:
    """The walk of :func:`expand`.

    A rules object that returns the very same tuple object for equal actions or chance outcomes
    (a table made once, as the catalog's rules do) has its text labels and probabilities made once
    per tuple and shared by the records, which the flat index then checks once per tuple too; the
    walk remembers up to :data:`SHARED_RESULTS` tuples by identity (a rules object that makes a new
    tuple each time fills that and gains nothing). Returned tuples must not change afterwards.
    """
    max_nodes, final = first_tree_node_check(memory_limit)
    records: list[tuple] = []
    record = records.append
    current_player, legal_actions, apply = rules.current_player, rules.legal_actions, rules.apply
    chance_outcomes, infoset_key = rules.chance_outcomes, rules.infoset_key
    # id of a returned tuple -> (the tuple, its actions, their labels, the probabilities)
    shared: dict[int, tuple] = {}
    # stack of (state, parent id, position among the parent's children)
    stack: list[tuple[Any, int, int]] = [(rules.initial_state(), -1, 0)]
    push, pop = stack.append, stack.pop
    num_players = int(rules.num_players)
    while stack:
        state, parent, position = pop()
        node = len(records)
        if not node & PROGRESS_EVERY:
            progress.report("expanding the game tree", nodes=node)
        if node >= max_nodes and not final:
            max_nodes, final = tree_node_limit(memory_limit), True
        if node >= max_nodes:
            check_prediction(f"expanding {getattr(rules, 'name', type(rules).__name__)} "
                             f"(more than {max_nodes} nodes)", (node + 1) * BYTES_PER_TREE_NODE,
                             memory_limit)
        who = current_player(state)
        if who == TERMINAL_PLAYER:
            record((parent, position, TERMINAL, (), tuple(rules.payoffs(state)), None, None))
            continue
        if who == CHANCE_PLAYER:
            outcomes = chance_outcomes(state)
            entry = shared.get(id(outcomes))
            if entry is None or entry[0] is not outcomes:
                pairs = list(outcomes)
                entry = (outcomes, [a for a, _ in pairs], tuple([str(a) for a, _ in pairs]),
                         tuple([p for _, p in pairs]))
                if outcomes.__class__ is tuple and len(shared) < SHARED_RESULTS:
                    shared[id(outcomes)] = entry
            _, actions, labels, probs = entry
            record((parent, position, CHANCE, labels, probs, None, None))
        else:
            actions = legal_actions(state)
            entry = shared.get(id(actions))
            if entry is None or entry[0] is not actions:
                listed = list(actions)
                entry = (actions, listed, tuple(map(str, listed)), None)
                if actions.__class__ is tuple and len(shared) < SHARED_RESULTS:
                    shared[id(actions)] = entry
            _, actions, labels, _ = entry
            key = infoset_key(state)
            record((parent, position, DECISION, labels, None, int(who),
                    key if key.__class__ is str else str(key)))
        for k in range(len(actions) - 1, -1, -1):
            push((apply(state, actions[k]), node, k))
    progress.report("expanding the game tree", nodes=len(records))
    return Game.from_flat_tree(FlatTree(records), num_players,
                               name=name or getattr(rules, "name", type(rules).__name__),
                               player_names=getattr(rules, "player_names", None))


__all__ = ["GameRules", "expand", "CHANCE_PLAYER", "TERMINAL_PLAYER"]
