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
        flow, take the smallest remaining flow λ on the chosen edges, subtract it, repeat (each
        round empties an edge). Fractions in, Fractions out (exactly, until nothing remains);
        floats stop below ``tolerance``. Returns (weights, decisions): each decision maps an
        information-set key to the action index the pure flow prescribes there. Raises
        InvalidGameError if a pure flow decides a key twice differently (the DAG's invariant)."""
        exact = any(isinstance(v, Fraction) for v in x)
        x = [Fraction(v) for v in x] if exact else [max(0.0, float(v)) for v in x]
        out_edges: list[list[int]] = [[] for _ in range(self.num_beliefs)]
        for e, b in enumerate(self.edge_belief.tolist()):
            out_edges[b].append(e)
        children: list[list[int]] = [[] for _ in range(self.num_edges)]
        for e, c in zip(self.child_edge.tolist(), self.child_belief.tolist()):
            children[e].append(c)
        remaining = Fraction(1) if exact else 1.0
        weights, decisions = [], []
        while remaining > (0 if exact else tolerance):
            chosen, stack = [], list(self.root_beliefs.tolist())
            while stack:
                b = stack.pop()
                e = max(out_edges[b], key=lambda k: x[k])
                chosen.append(e)
                stack.extend(children[e])
            lam = min((x[e] for e in chosen), default=remaining)
            if lam <= (0 if exact else tolerance * 1e-3):
                if exact:
                    raise InvalidGameError("correlation DAG: the flow does not decompose exactly "
                                           "(it violates flow conservation)")
                break
            lam = min(lam, remaining)
            for e in chosen:
                x[e] -= lam
            remaining -= lam
            decided: dict[int, int] = {}
            for e in chosen:
                for k, a in zip(self.belief_keys[int(self.edge_belief[e])], self.edge_actions[e]):
                    if decided.setdefault(k, a) != a:
                        raise InvalidGameError(
                            f"correlation DAG: information set {k} is decided twice in one pure "
                            "flow; the game is not timeable for its players")
            weights.append(lam)
            decisions.append(decided)
        if not exact and weights:
            total = sum(weights)
            weights = [w / total for w in weights]
        return weights, decisions


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


def reduced_plans(sf, dag: CorrelationDag, decisions: list[dict[int, int]]) -> list[np.ndarray]:
    """The joint reduced pure plans of pure flows: per player a (K × |Σ_p|) 0/1 array, sequence
    s = (j, a) on when its parent sequence is and the flow prescribes a at j. An information set
    the flow never decides is one no leaf probability depends on (module docstring); it gets its
    first action."""
    n = dag.num_players
    offsets = np.concatenate([[0], np.cumsum([sf.players[p].num_infosets for p in range(n)])])
    out = []
    for p in range(n):
        pl = sf.players[p]
        plans = np.zeros((len(decisions), pl.num_sequences), dtype=np.int8)
        plans[:, 0] = 1
        for q, decided in enumerate(decisions):
            row = plans[q]
            for s in range(1, pl.num_sequences):       # parents come before children
                j = int(pl.seq_infoset[s])
                chosen = decided.get(int(offsets[p]) + j, 0)
                row[s] = row[int(pl.infoset_parent_seq[j])] and chosen == int(pl.seq_action[s])
        out.append(plans)
    return out
