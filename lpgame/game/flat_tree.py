"""A game tree as one list of node records in depth-first preorder, indexed in one pass.

The readers and walkers that produce a tree in depth-first order (rules expansion, the OpenSpiel
importer, the Gambit ``.efg`` reader) record it here instead of in a :class:`networkx.DiGraph`:
one record per node, in preorder (the root is node 0, a node's children follow it in action
order), each naming its parent and its position among the parent's children::

    (parent, position, "terminal", (),     payoffs, None,   None)
    (parent, position, "chance",   labels, probs,   None,   None)
    (parent, position, "decision", labels, None,    player, infoset label)

``labels`` are the action labels of the node's children (text), ``probs`` their chance
probabilities. :func:`index_flat_tree` validates the records and builds the flat index
(:class:`~lpgame.game.tree_index.TreeIndex`) in a single loop over the list, without a graph: a
child's sequences and chance reach follow from its parent's, which precede it. The checks and
their messages are those of :func:`~lpgame.game.tree_index.build_tree_index` (Kuhn's extensive
form with perfect recall, Farina 2023 §2.1, Def. 2.1: every node of an information set has the
same parent sequence), less the ones a preorder list rules out by construction (cycles, two
parents, unreachable nodes). Float payoffs and probabilities are checked once per distinct tuple
(a cache; up to :data:`CHECKED_PROBABILITIES` checked chance distributions are kept per process),
and the exact chance reach (Fractions, needed only in exact mode) is computed when first asked for
(:class:`FlatTreeIndex`). The networkx graph is made from the records only when
someone asks for it (:meth:`FlatTree.to_graph`, used by ``Game.graph``).
"""

from __future__ import annotations

import contextlib
import gc
import math
from fractions import Fraction
from numbers import Rational
from typing import TYPE_CHECKING

import numpy as np

from lpgame.errors import InvalidGameError
from lpgame.game.tree_index import (
    CHANCE,
    DECISION,
    FLOAT_PROBABILITY_TOLERANCE,
    KINDS,
    TERMINAL,
    PlayerIndex,
    TreeIndex,
    checked_payoffs,
)
from lpgame.rational import to_fraction

if TYPE_CHECKING:     # networkx is imported where a graph is made, not at start-up
    import networkx as nx


@contextlib.contextmanager
def paused_gc():
    """Python's cyclic garbage collector paused for the duration: a walk that records a million
    acyclic tuples would otherwise trigger full collections that scan them all again and again
    (about a fifth of a build's time)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class FlatTree:
    """Node records in depth-first preorder (module docstring), plus optional extra node
    attributes (``node_attrs``: node → dict, e.g. Gambit node names) and graph attributes."""

    __slots__ = ("nodes", "node_attrs", "graph_attrs")

    def __init__(self, nodes: list | None = None, node_attrs: dict | None = None,
                 graph_attrs: dict | None = None):
        self.nodes: list[tuple] = [] if nodes is None else nodes
        self.node_attrs: dict[int, dict] = {} if node_attrs is None else node_attrs
        self.graph_attrs: dict = {} if graph_attrs is None else graph_attrs

    def to_graph(self) -> nx.DiGraph:
        """The tree as the :class:`networkx.DiGraph` of :mod:`lpgame.game.tree` (node ids =
        preorder numbers; the same attributes a hand-built graph has)."""
        node_list = []
        edge_list = []
        extra = self.node_attrs
        for i, (parent, position, kind, _, values, player, infoset) in enumerate(self.nodes):
            if kind == TERMINAL:
                attrs = {"kind": TERMINAL, "payoffs": values}
            elif kind == CHANCE:
                attrs = {"kind": CHANCE}
            else:
                attrs = {"kind": DECISION, "player": player, "infoset": infoset}
            if i in extra:
                attrs.update(extra[i])
            node_list.append((i, attrs))
            if parent >= 0:
                record = self.nodes[parent]
                edge = {"action": record[3][position]}
                if record[2] == CHANCE:
                    edge["prob"] = record[4][position]
                edge_list.append((parent, i, edge))
        import networkx as nx

        graph = nx.DiGraph()
        graph.add_nodes_from(node_list)
        graph.add_edges_from(edge_list)
        graph.graph.update(self.graph_attrs)
        return graph


class FlatTreeIndex(TreeIndex):
    """The :class:`TreeIndex` of a :class:`FlatTree`; the leaves' exact chance reach (a product
    of Fractions along the path) is computed from the records when first asked for."""

    def __init__(self, tree: FlatTree, **fields):
        for key, value in fields.items():
            setattr(self, key, value)
        self._tree = tree
        self._chance_exact = None

    @property
    def terminal_chance_exact(self) -> list:
        if self._chance_exact is None:
            self._chance_exact = exact_chance_reach(self._tree, self.terminal_nodes)
        return self._chance_exact


def exact_chance_reach(tree: FlatTree, leaves: list[int]) -> list:
    """Each leaf's chance reach as a Fraction: the product of the exact probabilities on its path,
    or None below a chance node whose float probabilities do not sum to exactly 1."""
    nodes = tree.nodes
    reach: list = [None] * len(nodes)
    reach[0] = Fraction(1)
    exact: dict = {}            # id of a chance node's probs tuple -> Fractions or None
    for i in range(1, len(nodes)):
        parent, position = nodes[i][0], nodes[i][1]
        above = reach[parent]
        record = nodes[parent]
        if above is None or record[2] != CHANCE:
            reach[i] = above
            continue
        probs = record[4]
        key = id(probs)
        fractions = exact.get(key, False)
        if fractions is False:
            fractions = [to_fraction(p) for p in probs]
            if sum(fractions) != 1:
                fractions = None
            exact[key] = fractions
        reach[i] = None if fractions is None else above * fractions[position]
    return [reach[i] for i in leaves]


CHECKED_PROBABILITIES = 1 << 10
"""How many checked chance distributions (exact, typed values -> floats) a process keeps: the check
does not depend on the game, so a fresh build of the same game checks its distributions once."""
_CHECKED_PROBABILITIES: dict = {}


def _probabilities(node: int, labels: tuple, probs) -> tuple:
    """The chance probabilities of ``node`` as floats, after the checks of build_tree_index."""
    if probs is None or len(probs) != len(labels):
        raise InvalidGameError(f"chance node {node!r}: {len(labels)} actions but "
                               f"{0 if probs is None else len(probs)} probabilities")
    floats = []
    for lab, p in zip(labels, probs):
        if p is None:
            raise InvalidGameError(f"chance node {node!r}: action {lab} has no prob")
        try:
            pf = float(p)
        except (TypeError, ValueError) as exc:
            raise InvalidGameError(
                f"chance node {node!r}: probability {p} of {lab!r} is not a number") from exc
        if not math.isfinite(pf) or pf < 0:
            raise InvalidGameError(f"chance node {node!r}: probability of {lab!r} is {p}; "
                                   "probabilities must be finite and non-negative")
        floats.append(pf)
    if all(isinstance(p, str) or _is_rational(p) for p in probs):
        total = sum(Fraction(p) for p in probs)
        if total != 1:
            raise InvalidGameError(f"chance node {node!r}: probabilities sum to {total}, not 1")
    else:
        total_float = 0.0
        for pf in floats:
            total_float += pf
        if abs(total_float - 1.0) > FLOAT_PROBABILITY_TOLERANCE:
            raise InvalidGameError(
                f"chance node {node!r}: probabilities sum to {total_float!r}, not 1")
    return tuple(floats)


def _is_rational(value) -> bool:
    return isinstance(value, Rational) and not isinstance(value, bool)


def _check_labels(node: int, kind: str, labels) -> None:
    if not labels:
        raise InvalidGameError(f"{kind} node {node!r} has no children")
    if len(set(labels)) != len(labels):
        raise InvalidGameError(f"node {node!r} has repeated action labels {', '.join(labels)}")


def index_flat_tree(tree: FlatTree, num_players: int) -> FlatTreeIndex:
    """Validate the records of ``tree`` and build its flat index in one pass (module docstring).

    The numbering is that of :func:`~lpgame.game.tree_index.build_tree_index` on the same tree:
    player ``i``'s sequence 0 is ∅, an information set's sequences are contiguous in the action
    order of its first node met in preorder.
    """
    if num_players < 1:
        raise InvalidGameError(f"a game needs at least one player, got num_players={num_players}")
    nodes = tree.nodes
    n = len(nodes)
    if n == 0:
        raise InvalidGameError("the game tree is empty")
    players = [PlayerIndex() for _ in range(num_players)]
    # per player: infoset label -> (j, actions, first sequence, parent sequence)
    known: list[dict] = [{} for _ in range(num_players)]
    owner: dict[str, int] = {}
    seq_owner: list[list[int]] = [[-1] for _ in range(num_players)]   # sequence -> infoset
    decision_count = [0] * num_players
    node_seqs: list = [None] * n
    node_reach: list = [0.0] * n
    child_info: list = [None] * n          # chance: floats; decision: (player, first, perm)
    # checked tuples, by value and (for the very objects, which the records keep alive) by id
    prob_cache: dict = {}
    shared_probs = _CHECKED_PROBABILITIES
    prob_ids: dict = {}
    payoff_ids: dict = {}
    label_ids: dict = {}
    leaves: list[tuple] = []               # (node, sequences, chance reach, floats, payoffs)
    num_chance = 0
    empty = (0,) * num_players
    two = num_players == 2
    isfinite = math.isfinite
    valid_players = range(num_players)

    for i in range(n):
        parent, position, kind, labels, values, player, infoset = nodes[i]
        if parent < 0:
            seqs, reach = empty, 1.0
        else:
            info = child_info[parent]
            seqs = node_seqs[parent]
            if info[0] is None:                                     # chance parent
                reach = node_reach[parent] * info[1][position]
            else:
                pl, first, perm = info
                q = first + (position if perm is None else perm[position])
                if two:
                    seqs = (q, seqs[1]) if pl == 0 else (seqs[0], q)
                else:
                    seqs = seqs[:pl] + (q,) + seqs[pl + 1:]
                reach = node_reach[parent]
        if kind == TERMINAL:
            if labels:
                raise InvalidGameError(f"terminal node {i!r} has {len(labels)} children")
            floats = payoff_ids.get(id(values))
            if floats is None:
                # finite floats of a tuple of numbers are what checked_payoffs would return
                floats = None
                if values.__class__ is tuple and len(values) == num_players:
                    try:
                        floats = tuple(map(float, values))
                    except (TypeError, ValueError, OverflowError):
                        floats = None
                    if floats is not None and not all(map(isfinite, floats)):
                        floats = None
                if floats is None:
                    floats = checked_payoffs(values, num_players, f"terminal node {i!r}")
                    values = tuple(values)
                else:
                    payoff_ids[id(values)] = floats
            leaves.append((i, seqs, reach, floats, values))
            continue
        node_seqs[i] = seqs
        node_reach[i] = reach
        if kind == CHANCE:
            num_chance += 1
            floats = prob_ids.get(id(values))
            if floats is None:
                try:
                    key = tuple([(v.__class__, v.numerator, v.denominator)
                                 if v.__class__ is Fraction else (v.__class__, v)
                                 for v in values])      # exact, typed, and cheap to hash
                    floats = prob_cache.get(key) or shared_probs.get(key)
                except TypeError:
                    key, floats = None, None
                if floats is None:
                    _check_labels(i, kind, labels)
                    floats = _probabilities(i, labels, values)
                    if key is not None:
                        prob_cache[key] = floats
                        if len(shared_probs) < CHECKED_PROBABILITIES:
                            shared_probs[key] = floats
                if key is not None and values.__class__ is tuple:
                    prob_ids[id(values)] = floats
            if label_ids.get(id(labels)) != len(floats):
                _check_labels(i, kind, labels)
                if len(labels) != len(floats):
                    _probabilities(i, labels, values)       # raises: the counts differ
                if labels.__class__ is tuple:
                    label_ids[id(labels)] = len(labels)
            child_info[i] = (None, floats)
            continue
        if kind != DECISION:
            raise InvalidGameError(
                f"node {i!r} has kind {kind!r}; expected one of {', '.join(KINDS)}")
        entry = known[player].get(infoset) if player.__class__ is int and player in valid_players \
            else None
        if entry is not None and labels == entry[1]:
            j, actions, first, parent_seq = entry
            perm = None
        else:
            _check_labels(i, kind, labels)
            if (not isinstance(player, (int, np.integer)) or isinstance(player, bool)
                    or not 0 <= int(player) < num_players):
                raise InvalidGameError(
                    f"decision node {i!r} has player {player!r}; expected 0..{num_players - 1}")
            player = int(player)
            if infoset is None:
                raise InvalidGameError(f"decision node {i!r} has no information set")
            infoset = str(infoset)
            entry = known[player].get(infoset)
            if entry is None:
                own = owner.setdefault(infoset, player)
                if own != player:
                    raise InvalidGameError(
                        f"information set {infoset!r} holds nodes of player {own + 1} and of "
                        f"player {player + 1} (node {i!r}); an information set belongs to one "
                        "player")
                pidx = players[player]
                j = len(pidx.infoset_labels)
                parent_seq = seqs[player]
                first = pidx.num_sequences
                actions = tuple(labels)
                known[player][infoset] = (j, actions, first, parent_seq)
                pidx.infoset_labels.append(infoset)
                pidx.infoset_actions.append(actions)
                pidx.infoset_parent_seq.append(parent_seq)
                pidx.infoset_first_seq.append(first)
                pidx.infoset_depth.append(
                    0 if parent_seq == 0 else pidx.infoset_depth[seq_owner[player][parent_seq]] + 1)
                pidx.num_sequences += len(actions)
                seq_owner[player].extend([j] * len(actions))
                perm = None
            else:
                j, actions, first, parent_seq = entry
                if set(labels) != set(actions) or len(labels) != len(actions):
                    raise InvalidGameError(
                        f"information set {infoset!r}: node {i!r} has actions "
                        f"{', '.join(sorted(labels))} but another node of the set has "
                        f"{', '.join(sorted(actions))}")
                where = {a: k for k, a in enumerate(actions)}
                perm = [where[lab] for lab in labels]
        if seqs[player] != parent_seq:
            pidx = players[player]
            raise InvalidGameError(
                f"information set {infoset!r} of player {player + 1} violates perfect recall: "
                f"node {i!r} is reached after the player's own sequence "
                f"{_seq_text(pidx, seq_owner[player], seqs[player])} but another node of the set "
                f"after {_seq_text(pidx, seq_owner[player], parent_seq)}")
        decision_count[player] += 1
        child_info[i] = (player, first, perm)

    if not leaves:
        raise InvalidGameError("the game has no terminal node")
    terminal_nodes, terminal_seqs, terminal_reach, terminal_floats, terminal_exact = (
        list(column) for column in zip(*leaves))
    for pidx, count in zip(players, decision_count):
        pidx.num_decision_nodes = count
        pidx.finalize()
    return FlatTreeIndex(
        tree,
        num_players=num_players,
        players=players,
        num_nodes=n,
        num_chance_nodes=num_chance,
        terminal_nodes=terminal_nodes,
        terminal_sequences=np.asarray(terminal_seqs, dtype=np.int64).reshape(-1, num_players),
        terminal_chance=np.asarray(terminal_reach, dtype=float),
        terminal_payoffs=np.asarray(terminal_floats, dtype=float).reshape(-1, num_players),
        terminal_payoffs_exact=terminal_exact,
    )


def _seq_text(pidx: PlayerIndex, seq_owner: list[int], seq: int) -> str:
    if seq == 0:
        return "∅ (no earlier action)"
    j = seq_owner[seq]
    return f"{pidx.infoset_labels[j]}:{pidx.infoset_actions[j][seq - pidx.infoset_first_seq[j]]}"


__all__ = ["FlatTree", "FlatTreeIndex", "index_flat_tree", "exact_chance_reach", "paused_gc"]
