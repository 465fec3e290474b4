"""The explicit extensive-form game: a tree on a :class:`networkx.DiGraph`.

Node attributes
    ``kind``     ``"chance"``, ``"decision"`` or ``"terminal"``
    ``player``   decision nodes: the acting player, 0-based
    ``infoset``  decision nodes: the information-set label (a string, unique to one player)
    ``payoffs``  terminal nodes: one payoff per player (ints, Fractions or floats)
Edge attributes
    ``action``   the action label (unique among a node's children)
    ``prob``     chance edges: the probability (Fraction, int or float)

The model is Kuhn's (1953) extensive form as used by Farina (2023, §2.1): histories form a rooted
tree, chance plays with known probabilities, each player's decision nodes are partitioned into
information sets sharing one action set. Validation runs once, on construction
(:func:`lpgame.game.tree_index.build_tree_index`); a fault raises
:class:`~lpgame.errors.InvalidGameError` naming the node or information set. Games read or expanded
depth first (rules, OpenSpiel, Gambit files) are built from node records instead
(:meth:`Game.from_flat_tree`, :mod:`lpgame.game.flat_tree`): the same checks in one pass, and the
graph made from the records only when :attr:`Game.graph` is first read.

Example
-------
>>> from lpgame.game import GameBuilder
>>> b = GameBuilder(num_players=2, name="matching pennies (sequential)")
>>> root = b.decision(player=0, infoset="P1")
>>> for a in ("H", "T"):
...     n = b.decision(player=1, infoset="P2", parent=root, action=a)
...     for c in ("H", "T"):
...         u = 1 if a == c else -1
...         _ = b.terminal((u, -u), parent=n, action=c)
>>> game = b.build()
>>> game.sizes()["infosets"]
[1, 1]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from lpgame.errors import InvalidGameError
from lpgame.game.flat_tree import FlatTree, index_flat_tree, paused_gc
from lpgame.game.tree_index import CHANCE, DECISION, TERMINAL, TreeIndex, build_tree_index
from lpgame.rational import to_fraction

if TYPE_CHECKING:     # networkx is imported where a graph is made, not at start-up
    import networkx as nx


class IndexedGame:
    """A game known through its flat index (:class:`~lpgame.game.tree_index.TreeIndex`).

    Everything after the game model (sequence form, LP, best response) reads only ``index``,
    ``name``, ``player_names`` and ``num_players``. :class:`Game` builds the index from an explicit
    networkx tree; structured games (signal games) build it directly, without a tree.
    """

    index: TreeIndex
    name: str
    num_players: int
    player_names: list[str]

    def infosets(self, player: int) -> list[str]:
        """Information-set labels of ``player`` in depth-first order."""
        return list(self.index.players[player].infoset_labels)

    def actions(self, player: int, infoset: str) -> tuple[str, ...]:
        """Action labels at an information set of ``player``."""
        p = self.index.players[player]
        return p.infoset_actions[p.infoset_of_label[infoset]]

    payoff_structure = None   # ShowdownPayoffs or SignalPayoffs when the payoffs are structured

    def _payoff_bounds(self) -> tuple[float, float]:
        """Smallest and largest payoff over all players and leaves."""
        if self.payoff_structure is not None:
            return self.payoff_structure.payoff_bounds()
        u = self.index.terminal_payoffs
        return float(u.min()), float(u.max())

    def _payoff_total_bounds(self) -> tuple[float, float]:
        """Smallest and largest sum of the players' payoffs over the leaves."""
        if self.payoff_structure is not None:
            return self.payoff_structure.payoff_total_bounds()
        with np.errstate(invalid="ignore"):    # inf − inf of payoffs beyond the double range
            totals = self.index.terminal_payoffs.sum(axis=1)
        return float(totals.min()), float(totals.max())

    def is_zero_sum(self, tol: float = 1e-12) -> bool:
        """True when every leaf's payoffs sum to zero."""
        lo, hi = self._payoff_total_bounds()
        return max(abs(lo), abs(hi)) <= tol

    def is_constant_sum(self, tol: float = 1e-12) -> bool:
        """True when every leaf's payoffs sum to the same constant.

        Exact payoffs beyond the double range (e.g. 10**400, infinite as floats) are summed exactly.
        """
        lo, hi = self._payoff_total_bounds()
        if not (math.isfinite(lo) and math.isfinite(hi)) and self.payoff_structure is None:
            totals = {sum(to_fraction(u) for u in row) for row in self.index.terminal_payoffs_exact}
            return len(totals) <= 1
        return hi - lo <= tol

    def payoff_range(self) -> float:
        """Largest payoff minus smallest, over all players and leaves (at least 1e-300)."""
        lo, hi = self._payoff_bounds()
        return max(hi - lo, 1e-300)

    def sizes(self) -> dict:
        """Counts of the tree and its sequence form (per player lists; sequences include ∅)."""
        idx = self.index
        return {
            "nodes": idx.num_nodes,
            "terminals": idx.num_terminals,
            "chance_nodes": idx.num_chance_nodes,
            "decision_nodes": [p.num_decision_nodes for p in idx.players],
            "infosets": [p.num_infosets for p in idx.players],
            "sequences": [p.num_sequences for p in idx.players],
        }

class Game(IndexedGame):
    """A validated extensive-form game with ``num_players`` players.

    Built from a networkx graph (this constructor) or, by the readers and walkers that produce
    nodes in depth-first order, from node records (:meth:`from_flat_tree`, no graph until asked).

    Parameters
    ----------
    graph:
        The tree, with the node and edge attributes of the module docstring.
    num_players:
        Number of players (numbered 0..n-1, printed as "player 1".."player n").
    root:
        The root node; found as the unique node without a parent when omitted.
    name:
        A readable name, used in reports.
    player_names:
        Optional names of the players.
    """

    def __init__(self, graph: nx.DiGraph, num_players: int, root: Any = None, name: str = "game",
                 player_names: Sequence[str] | None = None):
        import networkx as nx

        if not isinstance(graph, nx.DiGraph):
            raise InvalidGameError(f"a game tree must be a networkx.DiGraph, got {type(graph)}")
        if graph.number_of_nodes() == 0:
            raise InvalidGameError("the game tree is empty")
        if root is None:
            roots = [n for n, d in graph.in_degree() if d == 0]
            if len(roots) != 1:
                raise InvalidGameError(
                    f"a game tree has exactly one root (node without parent); found {len(roots)}"
                    + (f": {', '.join(map(repr, roots[:5]))}" if roots else
                       f" (the graph has a cycle through node {nx.find_cycle(graph)[0][0]!r})"))
            root = roots[0]
        self.graph = graph
        self.root = root
        self.num_players = int(num_players)
        self.name = name
        self.player_names = list(player_names) if player_names else [
            f"player {i + 1}" for i in range(self.num_players)]
        self.index: TreeIndex = build_tree_index(graph, root, self.num_players)

    @classmethod
    def from_flat_tree(cls, tree: FlatTree, num_players: int, name: str = "game",
                       player_names: Sequence[str] | None = None,
                       index: TreeIndex | None = None) -> Game:
        """A validated game from node records in depth-first preorder
        (:class:`~lpgame.game.flat_tree.FlatTree`), indexed in one pass without a graph; the
        networkx graph (:attr:`graph`) is made from the records when first asked for. ``index``:
        the records' index when the caller built it already (:mod:`lpgame.game.flat_bulk`)."""
        game = cls.__new__(cls)
        game._graph = None
        game._flat_tree = tree
        game.root = 0
        game.num_players = int(num_players)
        game.name = name
        game.player_names = list(player_names) if player_names else [
            f"player {i + 1}" for i in range(game.num_players)]
        game.index = index_flat_tree(tree, game.num_players) if index is None else index
        return game

    @property
    def graph(self) -> nx.DiGraph:
        """The tree as a :class:`networkx.DiGraph` (module docstring); a game built from a
        :class:`~lpgame.game.flat_tree.FlatTree` makes it on first use."""
        if self._graph is None:
            with paused_gc():
                self._graph = self._flat_tree.to_graph()
        return self._graph

    @graph.setter
    def graph(self, value: nx.DiGraph) -> None:
        self._graph = value

    def __repr__(self) -> str:
        s = self.sizes()
        return (f"Game({self.name!r}, players={self.num_players}, nodes={s['nodes']}, "
                f"infosets={s['infosets']}, sequences={s['sequences']})")


class GameBuilder:
    """Write a game by hand, node by node; :meth:`build` validates it.

    Each method adds one node and, when ``parent`` is given, the edge from the parent labelled
    ``action`` (with ``prob`` for a chance parent). Nodes are numbered 0, 1, 2, ... in creation
    order; the first node created is the root.
    """

    def __init__(self, num_players: int = 2, name: str = "game",
                 player_names: Sequence[str] | None = None):
        import networkx as nx

        self.graph = nx.DiGraph()
        self.num_players = num_players
        self.name = name
        self.player_names = player_names

    def _add(self, parent, action, prob, **attrs) -> int:
        # every check comes before the graph is touched, so a refused call leaves it unchanged
        node = self.graph.number_of_nodes()
        edge = None
        if parent is not None:
            if parent not in self.graph:
                raise InvalidGameError(f"parent node {parent!r} does not exist")
            if action is None:
                raise InvalidGameError(f"the edge from {parent!r} to new node {node} needs an action")
            edge = {"action": str(action)}
            if self.graph.nodes[parent].get("kind") == CHANCE:
                if prob is None:
                    raise InvalidGameError(
                        f"the chance edge {parent!r} -> {node} ({action}) needs a prob")
                edge["prob"] = prob
            elif prob is not None:
                raise InvalidGameError(f"edge {parent!r} -> {node}: only chance edges have a prob")
        elif node != 0:
            raise InvalidGameError(f"node {node} has no parent; only the first node is the root")
        self.graph.add_node(node, **attrs)
        if edge is not None:
            self.graph.add_edge(parent, node, **edge)
        return node

    def chance(self, parent: int | None = None, action: str | None = None, prob=None) -> int:
        """Add a chance node."""
        return self._add(parent, action, prob, kind=CHANCE)

    def decision(self, player: int, infoset: str, parent: int | None = None,
                 action: str | None = None, prob=None) -> int:
        """Add a decision node of ``player`` in information set ``infoset``."""
        return self._add(parent, action, prob, kind=DECISION, player=player, infoset=str(infoset))

    def terminal(self, payoffs: Sequence, parent: int | None = None, action: str | None = None,
                 prob=None) -> int:
        """Add a leaf with one payoff per player."""
        return self._add(parent, action, prob, kind=TERMINAL, payoffs=tuple(payoffs))

    def build(self) -> Game:
        """Validate and return the :class:`Game`."""
        return Game(self.graph, self.num_players, root=0, name=self.name,
                    player_names=self.player_names)


__all__ = ["Game", "IndexedGame", "GameBuilder", "CHANCE", "DECISION", "TERMINAL"]
