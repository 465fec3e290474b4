"""One pass over an extensive-form game tree: validation and flat indexing.

The explicit game lives on a :class:`networkx.DiGraph` (see :mod:`lpgame.game.tree`). Everything
later in the pipeline (sequence form, best response, LP) reads the flat arrays built here, in one
iterative depth-first pass, so that no later stage walks the graph again.

What is checked (each fault raises :class:`~lpgame.errors.InvalidGameError` naming the node or
information set):

* the graph is a tree rooted at the given root (every other node has exactly one parent, all nodes
  reachable, no cycles);
* every node has a valid ``kind`` (``chance``, ``decision`` or ``terminal``); terminals have no
  children and the others have at least one;
* chance probabilities are non-negative and sum to one (exactly for rational inputs, within 1e-9
  for floats);
* payoffs are finite and there is one per player;
* every decision node carries a player and an information set; an information set belongs to one
  player and shows the same action labels at every one of its nodes;
* perfect recall (Farina 2023, Def. 2.1): all nodes of an information set have the same sequence
  of the player's own earlier actions. With consistent information sets this holds exactly when
  every node of the set has the same *parent sequence* (the player's last information set and
  action on the path), which is what is checked.

The numbering produced is the sequence form's: player ``i``'s sequence 0 is the empty sequence
and the sequences of an information set are contiguous, ``first_seq[j] .. first_seq[j] + |A_j| - 1``,
in the action order of the first node of the set met in depth-first order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from numbers import Rational
from typing import TYPE_CHECKING

import numpy as np

from lpgame.errors import InvalidGameError
from lpgame.rational import float_or_infinity, to_fraction

if TYPE_CHECKING:     # networkx is imported where a graph is made, not at start-up
    import networkx as nx

CHANCE = "chance"
DECISION = "decision"
TERMINAL = "terminal"
KINDS = (CHANCE, DECISION, TERMINAL)

FLOAT_PROBABILITY_TOLERANCE = 1e-9
SMALL_PLAYER_INDEX = 512
"""Sequences up to which :meth:`PlayerIndex.finalize` makes its arrays from Python lists."""


@dataclass
class PlayerIndex:
    """Information sets and sequences of one player, numbered as in the sequence form."""

    infoset_labels: list[str] = field(default_factory=list)
    infoset_actions: list[tuple[str, ...]] = field(default_factory=list)
    infoset_parent_seq: list[int] = field(default_factory=list)
    infoset_first_seq: list[int] = field(default_factory=list)
    infoset_depth: list[int] = field(default_factory=list)
    num_sequences: int = 1
    num_decision_nodes: int = 0

    def finalize(self) -> None:
        counts = [len(a) for a in self.infoset_actions]
        if self.num_sequences <= SMALL_PLAYER_INDEX:
            self._finalize_small(counts)
            return
        self.infoset_parent_seq = np.asarray(self.infoset_parent_seq, dtype=np.int64)
        self.infoset_first_seq = np.asarray(self.infoset_first_seq, dtype=np.int64)
        self.infoset_depth = np.asarray(self.infoset_depth, dtype=np.int64)
        self.infoset_num_actions = np.array(counts, dtype=np.int64)
        self.seq_infoset = np.repeat(np.arange(len(self.infoset_labels)), self.infoset_num_actions)
        self.seq_infoset = np.concatenate([[-1], self.seq_infoset]).astype(np.int64)
        offsets = np.arange(self.num_sequences - 1) - np.repeat(
            self.infoset_first_seq - 1, self.infoset_num_actions)
        self.seq_action = np.concatenate([[-1], offsets]).astype(np.int64)
        self.infoset_of_label = {label: j for j, label in enumerate(self.infoset_labels)}

    def _finalize_small(self, counts: list[int]) -> None:
        """:meth:`finalize` for a few sequences: the same int64 arrays, made from lists in
        Python (a numpy call on a tiny array costs more than the loop)."""
        firsts = [int(f) for f in self.infoset_first_seq]
        seq_infoset, seq_action = [-1], [-1]
        seq = 0
        for j, (count, first) in enumerate(zip(counts, firsts)):
            seq_infoset += [j] * count
            seq_action += range(seq - first + 1, seq - first + 1 + count)
            seq += count
        if seq != self.num_sequences - 1:       # the arrays numpy would make disagree in length
            raise ValueError(f"{self.num_sequences - 1} sequences but the information sets "
                             f"have {seq} actions")
        array = np.array
        self.infoset_parent_seq = array(self.infoset_parent_seq, dtype=np.int64)
        self.infoset_first_seq = array(firsts, dtype=np.int64)
        self.infoset_depth = array(self.infoset_depth, dtype=np.int64)
        self.infoset_num_actions = array(counts, dtype=np.int64)
        self.seq_infoset = array(seq_infoset, dtype=np.int64)
        self.seq_action = array(seq_action, dtype=np.int64)
        self.infoset_of_label = {label: j for j, label in enumerate(self.infoset_labels)}

    @property
    def num_infosets(self) -> int:
        return len(self.infoset_labels)

    def sequence_label(self, seq: int) -> str:
        """Readable label of a sequence: ``∅`` or ``infoset:action``."""
        if seq == 0:
            return "∅"
        j = int(self.seq_infoset[seq])
        return f"{self.infoset_labels[j]}:{self.infoset_actions[j][int(self.seq_action[seq])]}"


@dataclass
class TreeIndex:
    """Flat arrays describing a validated game tree (see module docstring)."""

    num_players: int
    players: list[PlayerIndex]
    num_nodes: int
    num_chance_nodes: int
    terminal_nodes: list
    terminal_sequences: np.ndarray      # (T, n) int: each player's last sequence before the leaf
    terminal_chance: np.ndarray         # (T,) float: product of chance probabilities to the leaf
    terminal_payoffs: np.ndarray        # (T, n) float
    terminal_chance_exact: list         # (T,) Fraction, or None when a float probability is inexact
    terminal_payoffs_exact: list        # T tuples of the payoffs as given (ints, Fractions, floats)

    @property
    def num_terminals(self) -> int:
        return len(self.terminal_chance)

    def exact_terminal_data(self) -> tuple[list[Fraction], list[tuple[Fraction, ...]]]:
        """Chance reach and payoffs of every leaf as :class:`fractions.Fraction`."""
        if any(p is None for p in self.terminal_chance_exact):
            raise InvalidGameError(
                "chance probabilities are floats that do not sum to 1 exactly; give them as "
                "Fractions (or decimal strings) for exact mode")
        chance = [to_fraction(p) for p in self.terminal_chance_exact]
        payoffs = [tuple(to_fraction(u) for u in row) for row in self.terminal_payoffs_exact]
        return chance, payoffs


class CompiledTreeIndex(TreeIndex):
    """A :class:`TreeIndex` that a compiler filled from arrays, without a tree to walk.

    The leaves come as arrays; their exact data (Fractions, needed only in exact mode and costly for
    millions of leaves) is made by ``exact_builder`` when first asked for, then kept.
    """

    def __init__(self, *, players, num_nodes, num_chance_nodes, sequences, chance, payoffs,
                 exact_builder, num_players: int = 2):
        self.num_players = num_players
        self.players = players
        self.num_nodes = num_nodes
        self.num_chance_nodes = num_chance_nodes
        self.terminal_nodes = None
        self.terminal_sequences = sequences
        self.terminal_chance = chance
        self.terminal_payoffs = payoffs
        self._exact_builder = exact_builder
        self._exact = None

    @property
    def terminal_chance_exact(self):
        return self.exact_terminal_data()[0]

    @property
    def terminal_payoffs_exact(self):
        return self.exact_terminal_data()[1]

    def exact_terminal_data(self):
        if self._exact is None:
            self._exact = self._exact_builder()
        return self._exact


def _is_rational(value) -> bool:
    return isinstance(value, (Rational, Fraction)) and not isinstance(value, bool)


def checked_payoffs(payoffs, num_players: int, where: str) -> tuple:
    """A leaf's payoffs as floats, after checking that there are ``num_players`` of them and that
    each is a number, finite unless exact (an exact payoff beyond the double range, 10**400, is
    ±inf here and stays exact in the exact data); otherwise :class:`InvalidGameError` naming
    ``where`` (e.g. "terminal node 'z3'")."""
    if (not hasattr(payoffs, "__len__") or isinstance(payoffs, str)
            or len(payoffs) != num_players):
        raise InvalidGameError(f"{where} needs {num_players} payoffs, got {payoffs!r}")
    try:
        floats = tuple(float_or_infinity(u) for u in payoffs)
    except (TypeError, ValueError) as exc:
        raise InvalidGameError(f"{where} has a payoff that is not a number: {payoffs!r}") from exc
    if not all(math.isfinite(u) or _is_rational(p) for u, p in zip(floats, payoffs)):
        raise InvalidGameError(f"{where} has a payoff that is not finite: {payoffs!r}")
    return floats


def build_tree_index(graph: nx.DiGraph, root, num_players: int) -> TreeIndex:
    """Validate ``graph`` as a game tree rooted at ``root`` and index it (one pass)."""
    if num_players < 1:
        raise InvalidGameError(f"a game needs at least one player, got num_players={num_players}")
    if root not in graph:
        raise InvalidGameError(f"root node {root!r} is not in the graph")
    if graph.in_degree(root) != 0:
        raise InvalidGameError(f"root node {root!r} has a parent; a game tree's root has none")

    players = [PlayerIndex() for _ in range(num_players)]
    infoset_owner: dict[str, int] = {}
    label_to_infoset: list[dict[str, int]] = [{} for _ in range(num_players)]
    terminal_nodes: list = []
    terminal_seqs: list[tuple[int, ...]] = []
    terminal_chance: list[float] = []
    terminal_chance_exact: list = []
    terminal_payoffs: list[tuple[float, ...]] = []
    terminal_payoffs_exact: list = []
    num_chance = 0
    seen = 0

    empty = tuple([0] * num_players)
    # stack entries: (node, own-sequence tuple, chance reach float, chance reach exact)
    stack = [(root, empty, 1.0, Fraction(1))]
    visited: set = set()
    while stack:
        node, seqs, reach, reach_exact = stack.pop()
        if node in visited:
            raise InvalidGameError(f"node {node!r} is reached twice: the graph is not a tree")
        visited.add(node)
        seen += 1
        data = graph.nodes[node]
        kind = data.get("kind")
        children = list(graph.successors(node))
        if kind not in KINDS:
            raise InvalidGameError(
                f"node {node!r} has kind {kind!r}; expected one of {', '.join(KINDS)}")
        if kind == TERMINAL:
            if children:
                raise InvalidGameError(f"terminal node {node!r} has {len(children)} children")
            payoffs = data.get("payoffs")
            floats = checked_payoffs(payoffs, num_players, f"terminal node {node!r}")
            terminal_nodes.append(node)
            terminal_seqs.append(seqs)
            terminal_chance.append(reach)
            terminal_chance_exact.append(reach_exact)
            terminal_payoffs.append(floats)
            terminal_payoffs_exact.append(tuple(payoffs))
            continue
        if not children:
            raise InvalidGameError(f"{kind} node {node!r} has no children")
        labels = [graph.edges[node, c].get("action") for c in children]
        for c, lab in zip(children, labels):
            if lab is None:
                raise InvalidGameError(f"edge {node!r} -> {c!r} has no action label")
        labels = [str(lab) for lab in labels]   # labels are compared and stored as text
        if len(set(labels)) != len(labels):
            raise InvalidGameError(f"node {node!r} has repeated action labels "
                                   f"{', '.join(labels)}")
        if kind == CHANCE:
            num_chance += 1
            probs = [graph.edges[node, c].get("prob") for c in children]
            total_float = 0.0
            exact_ok = reach_exact is not None
            exact_probs = []
            for c, lab, p in zip(children, labels, probs):
                if p is None:
                    raise InvalidGameError(f"chance edge {node!r} -> {c!r} ({lab}) has no prob")
                try:
                    pf = float(p)
                except (TypeError, ValueError) as exc:
                    raise InvalidGameError(
                        f"chance node {node!r}: probability {p} of {lab!r} is not a number"
                    ) from exc
                if not math.isfinite(pf) or pf < 0:
                    raise InvalidGameError(
                        f"chance node {node!r}: probability of {lab!r} is {p}; "
                        "probabilities must be finite and non-negative")
                total_float += pf
                if exact_ok:
                    exact_probs.append(to_fraction(p))
            if all(_is_rational(p) or isinstance(p, str) for p in probs):
                total = sum(Fraction(p) for p in probs)
                if total != 1:
                    raise InvalidGameError(
                        f"chance node {node!r}: probabilities sum to {total}, not 1")
            elif abs(total_float - 1.0) > FLOAT_PROBABILITY_TOLERANCE:
                raise InvalidGameError(
                    f"chance node {node!r}: probabilities sum to {total_float!r}, not 1")
            if exact_ok and sum(exact_probs) != 1:
                exact_probs = None  # floats that are not exactly rational-summing: no exact data
            for idx in range(len(children) - 1, -1, -1):
                child_exact = (reach_exact * exact_probs[idx]) if exact_probs is not None else None
                stack.append((children[idx], seqs, reach * float(probs[idx]), child_exact))
            continue
        # decision node
        player = data.get("player")
        if (not isinstance(player, (int, np.integer)) or isinstance(player, bool)
                or not 0 <= int(player) < num_players):
            raise InvalidGameError(
                f"decision node {node!r} has player {player!r}; expected 0..{num_players - 1}")
        player = int(player)
        label = data.get("infoset")
        if label is None:
            raise InvalidGameError(f"decision node {node!r} has no information set")
        label = str(label)
        owner = infoset_owner.setdefault(label, player)
        if owner != player:
            raise InvalidGameError(
                f"information set {label!r} holds nodes of player {owner + 1} and of player "
                f"{player + 1} (node {node!r}); an information set belongs to one player")
        pidx = players[player]
        pidx.num_decision_nodes += 1
        j = label_to_infoset[player].get(label)
        parent_seq = seqs[player]
        if j is None:
            j = len(pidx.infoset_labels)
            label_to_infoset[player][label] = j
            pidx.infoset_labels.append(label)
            pidx.infoset_actions.append(tuple(str(lab) for lab in labels))
            pidx.infoset_parent_seq.append(parent_seq)
            pidx.infoset_first_seq.append(pidx.num_sequences)
            parent_depth = 0 if parent_seq == 0 else None
            if parent_depth is None:
                # depth of the infoset that owns the parent sequence, plus one
                owner_j = _infoset_of_sequence(pidx, parent_seq)
                parent_depth = pidx.infoset_depth[owner_j] + 1
            pidx.infoset_depth.append(parent_depth)
            pidx.num_sequences += len(labels)
            action_position = range(len(labels))
        else:
            expected = pidx.infoset_actions[j]
            if set(map(str, labels)) != set(expected) or len(labels) != len(expected):
                raise InvalidGameError(
                    f"information set {label!r}: node {node!r} has actions "
                    f"{', '.join(sorted(map(str, labels)))} but another node of the set has "
                    f"{', '.join(sorted(expected))}")
            if pidx.infoset_parent_seq[j] != parent_seq:
                raise InvalidGameError(
                    f"information set {label!r} of player {player + 1} violates perfect recall: "
                    f"node {node!r} is reached after the player's own sequence "
                    f"{_seq_text(pidx, parent_seq)} but another node of the set after "
                    f"{_seq_text(pidx, pidx.infoset_parent_seq[j])}")
            position = {a: k for k, a in enumerate(expected)}
            action_position = [position[str(lab)] for lab in labels]
        first = pidx.infoset_first_seq[j]
        for idx in range(len(children) - 1, -1, -1):
            child_seqs = seqs[:player] + (first + action_position[idx],) + seqs[player + 1:]
            stack.append((children[idx], child_seqs, reach, reach_exact))

    if seen != graph.number_of_nodes():
        unreached = [n for n in graph.nodes if n not in visited][:5]
        raise InvalidGameError(
            f"{graph.number_of_nodes() - seen} node(s) are not reachable from the root "
            f"{root!r}, e.g. {unreached}")
    if not terminal_nodes:
        raise InvalidGameError("the game has no terminal node")
    for pidx in players:
        pidx.finalize()
    n = num_players
    return TreeIndex(
        num_players=n,
        players=players,
        num_nodes=seen,
        num_chance_nodes=num_chance,
        terminal_nodes=terminal_nodes,
        terminal_sequences=np.asarray(terminal_seqs, dtype=np.int64).reshape(-1, n),
        terminal_chance=np.asarray(terminal_chance, dtype=float),
        terminal_payoffs=np.asarray(terminal_payoffs, dtype=float).reshape(-1, n),
        terminal_chance_exact=terminal_chance_exact,
        terminal_payoffs_exact=terminal_payoffs_exact,
    )


def _infoset_of_sequence(pidx: PlayerIndex, seq: int) -> int:
    """The information set owning sequence ``seq`` while the index is being built."""
    # first_seq is increasing in discovery order: binary search
    firsts = pidx.infoset_first_seq
    lo, hi = 0, len(firsts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if firsts[mid] <= seq:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _seq_text(pidx: PlayerIndex, seq: int) -> str:
    if seq == 0:
        return "∅ (no earlier action)"
    j = _infoset_of_sequence(pidx, seq)
    return f"{pidx.infoset_labels[j]}:{pidx.infoset_actions[j][seq - pidx.infoset_first_seq[j]]}"
