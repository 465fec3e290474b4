"""The correlation DAG: a mediator's recommendations and every single trigger deviation from them,
as the flows of one team belief DAG, for any number of players.

**Sources.** Zhang, Farina, Celli & Sandholm, "Optimal correlated equilibria in general-sum
extensive-form games: fixed-parameter algorithms, hardness, and two-sided column-generation"
(EC 2022; Mathematics of Operations Research, 2025) show that the set Ξ of correlation plans is a
projection of the flow polytope of a team belief DAG built for the mediator; the team belief DAG
(TB-DAG) is that of Zhang, Farina & Sandholm (ICML 2023), built for teams in
:mod:`lpgame.equilibria.teams.team_belief_dag`. The construction below is derived here from those
definitions and from Farina 2023, Def. 8.1–8.2 (notes/farina-thesis.md §1.6); it is lpgame's own.

**What the LP needs** (Farina 2023, Lemma 9.2 and App. 9.B, written for n players). For μ over
joint pure plans π = (π_1, …, π_n) and a trigger of player i with conditioning sequence c at
decision point j (EFCE: c = σ̂ = (j, a); EFCCE: c = p_j; NFCCE: c = ∅ at the first decision points),
the deviator's payoff below j is linear in the *trigger tuple* probabilities

    ξ[c ⊕_i σ_{-i}(z)] = P_μ(π_i[c] = 1 and π_l[σ_l(z)] = 1 for every l ≠ i),   z below j,

and the obedient payoff in the leaf probabilities ω(z) = ξ[σ(z)] = P_μ(every π_l[σ_l(z)] = 1).

**Augmented game G′.** The tree of the game, where all players form one team (the mediator), with
at every *gate* (a decision node h of player i, at information set j) a second way on: after the
team's prescription r at h, either the game follows r, or (a move of no one, like chance) player i
*deviates*: any action b at h is taken and every later node of player i on that path is a
non-team node (the deviator's, branching over all actions); the other players stay in the team
and keep their information sets, which are shared by all copies (the recommender cannot tell the
copies apart). There is at most one deviation per path. A leaf of G′ is (tag, z): tag −1 for the
follow copy, else the gate (h, r) (EFCE) or h (EFCCE, NFCCE: r is not remembered). The team's pure
plans in G′ are exactly the joint pure plans of the game, and the team realisation of a leaf is

    follow z:        Π_l π_l[σ_l(z)]                               = ω(z) for pure π,
    (h, r), z ≥ h:   π_i[σ_i(h) r] · Π_{l≠i} π_l[σ_l(z)]            = the EFCE trigger tuple (j, r),
    h, z ≥ h:        Σ_r of the above = π_i[σ_i(h)] · Π_{l≠i} …     = the EFCCE tuple (p_j),

and with gates only at each player's first decision points the last one is the NFCCE tuple
(c = ∅). So Ξ's needed entries are linear images of G′'s team realisation vectors, and the
convex hull of those is the flow polytope of G′'s TB-DAG (Zhang, Farina & Sandholm 2023).

**The DAG of G′** (the TB-DAG construction with all players as the team). A *stop* is a decision
node of G′: a team node, or a deviator's node (not a team decision: it stands where the TB-DAG of
G′ padded with one-action team nodes would put a trivial decision, so that every information set
is met after the same number of steps, the TB-DAG's timeability condition). From a stop, the game
runs through chance (and the deviation choice) to the next stops and leaves: its frontier. Two
stops of one frontier are *connected* when some team member has a common next information set
below both (for a follow-copy stop: every player's; for a deviation copy: every player's but the
deviator's). A *belief* is a connected component; at a belief the mediator picks a *prescription*,
one action at every team information set meeting it; the reached stops (through the
prescription, the gates' deviation branches and the deviator's nodes' every child) split into
components again, memoised by their set of stops (a DAG). With one flow variable x[e] ≥ 0 per
edge e = (belief, prescription):

    Σ_{e out of B} x[e] = [B is a root] + Σ_{e: B is a child of e} x[e],
    realisation(leaf) = [leaf before any stop] + Σ_{e: the leaf hangs off e} x[e].

**Condition.** The game must be timeable for the whole set of players: every information set's
nodes have the same number of decision nodes (of any player) above them (true where actions are
public, e.g. Kuhn, Leduc, Goofspiel); otherwise :class:`~lpgame.errors.InvalidGameError`.

**Size.** The DAG is exponential in the private information of the players (a belief holds the
histories all players' recommendations still allow). ``max_edges`` stops the construction with
:class:`~lpgame.errors.ModelTooLargeError` as soon as the beliefs *found* (queued, not yet
expanded) have more prescriptions than ``max_edges``: every belief found is in the DAG, so that
sum is a sound lower bound on its size, and breadth first it runs well ahead of the prescriptions
built (K35 at 150,000: refused after about 1 s instead of 11–19 s).
:func:`count_correlation_dag` counts the DAG exactly without building its prescriptions (exact,
not a bound; about as long as the construction, because the children of joined parts must still
be enumerated).

**Construction.** :mod:`lpgame.equilibria.correlated.correlation_dag_search` (breadth first over
beliefs). Its output is identical to the construction it replaced (tests/test_dag_builders.py
keeps that one as the reference).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from lpgame.equilibria.correlated.correlation_dag_search import (  # noqa: F401 (re-exported)
    FALLBACK,
    REPORT_SECONDS,
    search_correlation_dag,
)
from lpgame.equilibria.teams.team_belief_dag import dag_flow_rows, dag_leaf_rows
from lpgame.errors import InvalidGameError
from lpgame.game.tree import Game

DAG_CONCEPTS = ("efce", "efcce", "nfcce")
DEFAULT_MAX_EDGES = 2_000_000
"""Most prescriptions (edges) built before the construction stops with ModelTooLargeError."""


@dataclass
class CorrelationDag:
    """The correlation DAG of a game for one concept (module docstring). Keys number the players'
    information sets globally (player by player); tags number the gates (deviation copies)."""

    concept: str
    num_players: int
    key_player: np.ndarray                    # (K,) owner of each information-set key
    key_infoset: np.ndarray                   # (K,) its information set within the player
    belief_keys: list[tuple[int, ...]]        # per belief: the team keys it decides
    edge_belief: np.ndarray                   # (E,)
    edge_actions: list[tuple[int, ...]]       # per edge: the action index per belief key
    child_edge: np.ndarray
    child_belief: np.ndarray
    leaf_edge: np.ndarray                     # (edge, G′ leaf) pairs
    leaf_id: np.ndarray
    root_beliefs: np.ndarray
    root_leaves: np.ndarray                   # G′ leaves met before any stop
    leaf_tag: np.ndarray                      # per G′ leaf: −1 (follow) or its gate tag
    leaf_terminal: np.ndarray                 # per G′ leaf: the game's leaf (sequence-form order)
    tag_player: np.ndarray                    # per tag: the deviator
    tag_infoset: np.ndarray                   # per tag: the deviator's information set (gate's)
    tag_action: np.ndarray                    # per tag: the recommended action (EFCE), else −1
    seconds: float = 0.0
    stats: dict = field(default_factory=dict)
    _walk: dict | None = field(default=None, repr=False, compare=False)

    @property
    def num_beliefs(self) -> int:
        return len(self.belief_keys)

    @property
    def num_edges(self) -> int:
        return int(self.edge_belief.size)

    @property
    def num_leaves(self) -> int:
        return int(self.leaf_tag.size)

    def size(self) -> dict:
        return {"beliefs": self.num_beliefs, "edges": self.num_edges,
                "augmented_leaves": self.num_leaves, **self.stats}

    def flow_matrix(self) -> tuple[sp.csr_array, np.ndarray]:
        """(A, b): the flow rows A x = b, one per belief."""
        return dag_flow_rows(self.edge_belief, self.child_belief, self.child_edge,
                             self.root_beliefs, self.num_beliefs)

    def leaf_matrix(self) -> tuple[sp.csr_array, np.ndarray]:
        """(R, r): the G′ leaves' realisation R x + r."""
        return dag_leaf_rows(self.leaf_id, self.leaf_edge, self.root_leaves, self.num_leaves,
                             self.num_edges)

    def decompose(self, x, tolerance: float = 1e-12) -> tuple[list, list[dict[int, int]]]:
        """A flow as a convex combination of pure flows (one prescription at every reached
        belief): from the roots, follow at each reached belief the edge with the most remaining
        flow (the first such edge on ties), take the smallest remaining flow λ on the chosen
        edges, subtract it, repeat (each round empties an edge). Fractions in, Fractions out
        (exactly, until nothing remains); floats stop below ``tolerance``. Returns (weights,
        decisions): each decision maps an information-set key to the action index the pure flow
        prescribes there. Raises InvalidGameError if a pure flow decides a key twice differently
        (the DAG's invariant). :meth:`decompose_decisions` is the same with the decisions as one
        array."""
        weights, table = self.decompose_decisions(x, tolerance)
        return weights, [{int(k): int(row[k]) for k in np.flatnonzero(row >= 0)} for row in table]

    def decompose_decisions(self, x, tolerance: float = 1e-12) -> tuple[list, np.ndarray]:
        """:meth:`decompose`, its decisions as a (rounds × keys) integer array (−1: the pure flow
        does not decide that key). The walk's adjacency is built once per DAG and kept; each
        belief's best edge is kept between rounds and recomputed only where a round took flow
        from it (the only beliefs whose edges changed), so the rounds, the weights and the
        decisions are those of the plain greedy walk, to the bit (and exactly for Fractions)."""
        if isinstance(x, np.ndarray) and x.dtype != object:
            exact = False
        else:
            exact = any(isinstance(v, Fraction) for v in x)
        if exact:
            x = [Fraction(v) for v in x]
        else:
            a = np.asarray(x, dtype=float)
            x = np.where(a > 0.0, a, 0.0).tolist()         # max(0, v), NaN → 0 as before
        walk = self._walk_index()
        out_edges, owner = walk["out_edges"], walk["owner"]
        child, child_start = walk["child"], walk["child_start"]
        children: list = walk["children"]
        best = list(walk["single"])                        # −1: recompute from the edges
        roots = self.root_beliefs.tolist()
        value = x.__getitem__
        remaining = Fraction(1) if exact else 1.0
        weights: list = []
        rounds: list[list[int]] = []
        while remaining > (0 if exact else tolerance):
            chosen, stack = [], list(roots)
            while stack:
                b = stack.pop()
                e = best[b]
                if e < 0:
                    e = best[b] = max(out_edges[b], key=value)
                chosen.append(e)
                below = children[e]
                if below is None:
                    below = children[e] = child[child_start[e]:child_start[e + 1]].tolist()
                stack.extend(below)
            lam = min(map(value, chosen)) if chosen else remaining
            if lam <= (0 if exact else tolerance * 1e-3):
                if exact:
                    self._decision_table(rounds)     # a double decision is reported first
                    raise InvalidGameError("correlation DAG: the flow does not decompose exactly "
                                           "(it violates flow conservation)")
                break
            lam = min(lam, remaining)
            for e in chosen:
                x[e] -= lam
                b = owner[e]
                if b >= 0:
                    best[b] = -1
            remaining -= lam
            weights.append(lam)
            rounds.append(chosen)
        table = self._decision_table(rounds)
        if not exact and weights:
            total = sum(weights)
            weights = [w / total for w in weights]
        return weights, table

    def _walk_index(self) -> dict:
        """The decomposition's adjacency, built once: out-edges per belief (in edge order), the
        children of each edge in CSR form (in the DAG's order; listed on first use), the belief of
        each edge whose belief has several edges (−1 otherwise) and the one edge of single-edge
        beliefs."""
        if self._walk is not None:
            return self._walk
        eb = self.edge_belief.astype(np.int64)
        B, E = self.num_beliefs, self.num_edges
        if np.all(eb[1:] >= eb[:-1]):                       # the builder's order
            starts, flat = np.searchsorted(eb, np.arange(B + 1)), list(range(E))
        else:
            order = np.argsort(eb, kind="stable")
            starts, flat = np.searchsorted(eb[order], np.arange(B + 1)), order.tolist()
        bounds = starts.tolist()
        out_edges = [flat[bounds[b]:bounds[b + 1]] for b in range(B)]
        count = np.diff(starts)
        first = np.asarray(flat + [-1], dtype=np.int64)[np.minimum(starts[:-1], E)]
        ce = self.child_edge.astype(np.int64)
        if np.all(ce[1:] >= ce[:-1]):
            child = self.child_belief
        else:
            corder = np.argsort(ce, kind="stable")
            ce, child = ce[corder], self.child_belief[corder]
        self._walk = {"out_edges": out_edges, "child": np.asarray(child, dtype=np.int64),
                      "children": [None] * E,              # listed on first use
                      "child_start": np.searchsorted(ce, np.arange(E + 1)).tolist(),
                      "owner": np.where(count[eb] > 1, eb, -1).tolist(),
                      "single": np.where(count == 1, first, -1).tolist()}
        return self._walk

    def _decision_table(self, rounds: list[list[int]]) -> np.ndarray:
        """(rounds × keys) actions of the chosen edges' (key, action) pairs, −1 where undecided.
        Raises InvalidGameError, naming the first key in the walk's order, at the first round that
        decides a key twice differently (as the plain walk does)."""
        table = np.full((len(rounds), int(self.key_player.size)), -1, dtype=np.int32)
        if not rounds:
            return table
        edges = np.fromiter(itertools.chain.from_iterable(rounds), dtype=np.int64)
        used, where = np.unique(edges, return_inverse=True)
        keys = [self.belief_keys[b] for b in self.edge_belief[used].tolist()]
        acts = [self.edge_actions[e] for e in used.tolist()]
        length = np.fromiter(map(len, acts), dtype=np.int64, count=len(acts))
        if np.array_equal(length, np.fromiter(map(len, keys), dtype=np.int64, count=len(keys))):
            flat = np.stack([np.fromiter(itertools.chain.from_iterable(v), dtype=np.int64,
                                         count=int(length.sum())) for v in (keys, acts)], axis=1)
        else:                                               # zip's pairs (the shorter length)
            pairs = [list(zip(k, a)) for k, a in zip(keys, acts)]
            length = np.fromiter(map(len, pairs), dtype=np.int64, count=len(pairs))
            flat = np.array([v for pr in pairs for v in pr], dtype=np.int64).reshape(-1, 2)
        start = np.concatenate([[0], np.cumsum(length)])
        round_of = np.repeat(np.arange(len(rounds)), [len(c) for c in rounds])
        lo, n = start[where], length[where]
        pos = np.repeat(lo - np.cumsum(n) + n, n) + np.arange(int(n.sum()))
        r, k, a = np.repeat(round_of, n), flat[pos, 0], flat[pos, 1]
        table[r, k] = a
        bad = table[r, k] != a                              # a key decided twice differently
        if bad.any():
            q = int(r[np.argmax(bad)])
            decided: dict[int, int] = {}
            for e in rounds[q]:
                for key, act in zip(self.belief_keys[int(self.edge_belief[e])],
                                    self.edge_actions[e]):
                    if decided.setdefault(key, act) != act:
                        raise InvalidGameError(
                            f"correlation DAG: information set {key} is decided twice in one "
                            "pure flow; the game is not timeable for its players")
        return table


def build_correlation_dag(game: Game, concept: str = "efce",
                          max_edges: int = DEFAULT_MAX_EDGES) -> CorrelationDag:
    """The correlation DAG of ``concept`` (``efce``, ``efcce`` or ``nfcce``) for the explicit
    ``game`` (module docstring). Raises ModelTooLargeError past ``max_edges`` prescriptions and
    InvalidGameError where the game is not timeable."""
    _check_concept(concept)
    return CorrelationDag(**search_correlation_dag(game, concept, max_edges, count_only=False))


def count_correlation_dag(game: Game, concept: str = "efce",
                          max_edges: int | None = None) -> dict:
    """The size of the correlation DAG of ``concept`` for ``game``, counted without building it:
    ``beliefs``, ``edges`` (prescriptions), ``children`` ((edge, child) pairs) and
    ``leaf_pairs`` ((edge, G′ leaf) pairs), and ``complete``.

    **Exact, not a bound.** The count runs the construction's search over beliefs (each belief's
    set of stops, memoised) but materialises no prescription: the leaves, and the child beliefs
    that join no other part, come in closed form per (information set, action) (a part reached by
    action a at information set k is met by the count / |A_k| prescriptions choosing a); only the
    information sets whose parts can join another part are enumerated. So with ``complete`` True
    every figure equals the built DAG's (tests/test_dag_builders.py). Past ``max_edges``
    prescriptions it stops with ``complete`` False: ``edges`` is then a lower bound (the
    prescriptions of the beliefs found so far), which is enough to refuse the build soundly."""
    _check_concept(concept)
    return search_correlation_dag(game, concept, math.inf if max_edges is None else max_edges,
                                  count_only=True)


def _check_concept(concept: str) -> None:
    if concept not in DAG_CONCEPTS:
        raise InvalidGameError(f"correlation DAG: unknown concept {concept!r}; choose one of "
                               f"{', '.join(DAG_CONCEPTS)}")


def reduced_plans(sf, dag: CorrelationDag, decisions) -> list[np.ndarray]:
    """The joint reduced pure plans of pure flows: per player a (K × |Σ_p|) 0/1 array, sequence
    s = (j, a) on when its parent sequence is and the flow prescribes a at j. An information set
    the flow never decides is one no leaf probability depends on (module docstring); it gets its
    first action. ``decisions``: a list of key → action dicts (:meth:`CorrelationDag.decompose`)
    or the (K × keys) array of :meth:`CorrelationDag.decompose_decisions` (−1: undecided)."""
    n = dag.num_players
    offsets = np.concatenate([[0], np.cumsum([sf.players[p].num_infosets for p in range(n)])])
    if isinstance(decisions, np.ndarray):
        table = decisions
    else:
        table = np.full((len(decisions), int(offsets[-1])), -1, dtype=np.int64)
        for q, decided in enumerate(decisions):
            for k, a in decided.items():
                if 0 <= k < table.shape[1]:
                    table[q, k] = a
    out = []
    for p in range(n):
        pl = sf.players[p]
        chosen = np.maximum(table[:, int(offsets[p]):int(offsets[p + 1])], 0)
        plans = np.zeros((table.shape[0], pl.num_sequences), dtype=np.int8)
        plans[:, 0] = 1
        for s in range(1, pl.num_sequences):           # parents come before children
            j = int(pl.seq_infoset[s])
            plans[:, s] = plans[:, int(pl.infoset_parent_seq[j])] & (
                chosen[:, j] == int(pl.seq_action[s]))
        out.append(plans)
    return out
