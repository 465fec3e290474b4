"""Optimal extensive-form correlated equilibria of two-player games: EFCE, EFCCE and NFCCE by LP.

Formulations from Farina (2023), chapters 8–9, as summarised in notes/farina-thesis.md §1.6–1.9.

**Relevant sequence pairs** (Farina 2023, Table 9.1, L3820–3831). Decision nodes j1 ∈ J_1, j2 ∈ J_2
are *connected*, j1 ⇌ j2, when some node of one lies on the root path of a node of the other;
equivalently, when some leaf's path passes through both. A pair (σ1, σ2) is relevant, σ1 ⋈ σ2,
when either is ∅ or their decision nodes are connected. Here the connected pairs are read off the
leaves: every pair (ancestor decision node of σ1(z), ancestor decision node of σ2(z)) of a leaf z.

**Correlation plan** ξ ∈ R^{Σ1⋈Σ2}: ξ[σ1, σ2] = P(both sequences recommended) (Def. 9.1). The plans
of all distributions form Ξ, contained in the **von Stengel–Forges polytope** V (Def. 9.3):

    ξ[∅, ∅] = 1,   Σ_{a ∈ A_{j1}} ξ[j1 a, σ2] = ξ[p_{j1}, σ2]   (j1 ⋈ σ2),
                   Σ_{a ∈ A_{j2}} ξ[σ1, j2 a] = ξ[σ1, p_{j2}]   (σ1 ⋈ j2),       ξ ≥ 0.

Ξ = V exactly when V has integral vertices (Thm 9.1), which holds for **triangle-free** games
(Def. 9.5; Thms 9.4–9.5), in particular every game without chance or with public chance only
(Thm 9.2). The game is *not* triangle-free when there are distinct j1, j1' with p_{j1} = p_{j1'}
and distinct j2, j2' with p_{j2} = p_{j2'} such that j1 ⇌ j2, j1' ⇌ j2', j1 ⇌ j2'. Within one
pair of sibling groups this says that the bipartite "connected" graph contains a path of three
edges, i.e. an edge whose two ends both have another neighbour in the groups; the test counts,
for every connected pair (j1, j2), the neighbours of j1 among the siblings of j2 and vice versa.
Elsewhere (Kuhn, Leduc: private cards) an LP over V is a **relaxation**: its optimum is an upper
bound and its ξ may not come from any distribution.

**Optimal EFCE LP** (Lemma 9.2, Prop. 9.1, App. 9.B with the chance probabilities p_c(z) that the
thesis omits, erratum 9; ready-to-code form of notes §1.8). For each trigger t of player i, with
scope information set j, conditioning sequence c_t and the deviator's continuation y ∈ Q_{i,⪰j},
the deviation gain is linear in y and its maximum is dualised into free variables v[t, j'] (one
per decision node j' ⪰ j, the best continuation value from j' on):

    v[t, j'] ≥ Σ_{z: σ_i(z) = j'a'} p_c(z) u_i(z) ξ[c_t ⊕ σ_{-i}(z)] + Σ_{j'' ∈ C_{j'a'}} v[t, j'']
                                                                       (every a' ∈ A_{j'})
    v[t, j]  ≤ Σ_{z obeying t} p_c(z) u_i(z) ξ[σ_1(z), σ_2(z)]

(⊕ puts c_t in player i's slot). The concepts differ only in their triggers:

* **EFCE** (Def. 8.2): t = σ̂ = (j, a), c_t = σ̂, obeying leaves σ_i(z) ⪰ σ̂ (the deviator has
  been told a at j);
* **EFCCE** (Farina, Bianchi & Sandholm, AAAI 2020; notes §1.9): t = j, c_t = p_j, obeying leaves
  those through j (the player decides on reaching j, before hearing the recommendation);
* **NFCCE** (notes §1.9): one trigger per player with the whole treeplex as scope and c_t = ∅
  (the deviator ignores every recommendation); written with a virtual root decision node whose
  single "action" is ∅.

Summing a decision node's EFCE rows over its actions gives its EFCCE row, and the NFCCE row is
the sum of the EFCCE rows of the root decision nodes, so over V the optima are ordered
EFCE ≤ EFCCE ≤ NFCCE for every objective (and NFCE ≤ EFCE for the normal-form CE of
:mod:`lpgame.equilibria.correlated.ce_cce`). The objective is Σ_z p_c(z) Σ_i w_i u_i(z) ξ[σ_1(z), σ_2(z)].
All matrices are assembled as sparse COO by joins on sorted integer keys, without per-entry loops.

**Optimality.** The LP's duals give a weak-duality bound, checked against the LP's data with
implied bounds on ξ and v (:mod:`lpgame.equilibria.correlated.plan_optimality`); the answer is
optimal only where it meets the value. Exact mode (rational coefficients, certified basis, exact
trigger gains and dual bound) is :mod:`lpgame.equilibria.correlated.efce_exact`.

**Realisability.** On small games a plan is decomposed into a distribution μ over pairs of reduced
plans with f(μ) = ξ by the LP min ‖f(μ) − ξ‖₁ over μ ≥ 0 (f is linear: the Kronecker product of the
plan matrices restricted to the relevant pairs); a zero residual proves ξ ∈ Ξ.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from lpgame.equilibria.correlated.ce_cce import (
    DEVIATIONS,
    SUPPORT_TOLERANCE,
    CorrelatedResult,
    objective_name,
    objective_report,
    objective_weights,
)
from lpgame.equilibria.correlated.plan_decomposition import (
    REALISABLE_TOLERANCE,
    Decomposition,
    decompose_on_pairs,
)
from lpgame.equilibria.correlated.plan_optimality import plan_optimality
from lpgame.equilibria.correlated.reduced_plans import count_reduced_plans, plan_label
from lpgame.errors import InvalidGameError, LpgameError, ModelTooLargeError
from lpgame.lp import LinearProgram, solve_lp
from lpgame.lp.scaling import check_float_payoffs, float_bounds, unit_range_scaling
from lpgame.lp.solution import solver_report
from lpgame.lp.sorted_keys import find_keys, join_keys, unique
from lpgame.rational import RationalMatrix
from lpgame.result import Certificate
from lpgame.sequence_form import SequenceForm

PLAN_CONCEPTS = ("efce", "efcce", "nfcce")
DEFAULT_MAX_DECOMPOSE_PROFILES = 50_000
"""Largest |Π_1|·|Π_2| for which ``decompose="auto"`` checks realisability."""
DEFAULT_MAX_DECOMPOSE_NONZEROS = 5_000_000
"""Largest number of nonzeros of f (one per relevant pair and pair of plans holding it)."""


def connected_node_keys(nodes_a: np.ndarray, real_a: int, nodes_b: np.ndarray,
                        real_b: int) -> np.ndarray:
    """The connected pairs of real decision nodes of two players, as sorted keys
    j_a·(real_b + 1) + j_b. ``nodes_a``/``nodes_b``: (leaves, depth) arrays of the decision nodes
    on each leaf's way (−1 padded, virtual root = ``real_a``/``real_b``): two nodes are connected
    when one leaf's path passes through both (module docstring)."""
    ra, ca = np.nonzero((nodes_a >= 0) & (nodes_a < real_a))
    rb, cb = np.nonzero((nodes_b >= 0) & (nodes_b < real_b))
    li, ri = join_keys(ra, rb)
    return unique(nodes_a[ra[li], ca[li]] * (real_b + 1) + nodes_b[rb[ri], cb[ri]])


@dataclass
class PlayerTree:
    """One player's sequences with a virtual root decision node ``m`` (= number of infosets)
    whose single action is ∅; ``ancestors[s]`` lists the sequences on the way to s (−1 padded)."""

    num_sequences: int
    num_infosets: int
    seq_infoset: np.ndarray         # (n,) decision node of each sequence, ∅ -> m
    infoset_parent: np.ndarray      # (m+1,) parent sequence, virtual -> −1
    infoset_depth: np.ndarray       # (m+1,) virtual -> −1
    infoset_first: np.ndarray       # (m+1,) first sequence, virtual -> 0
    infoset_size: np.ndarray        # (m+1,) number of actions, virtual -> 1
    ancestors: np.ndarray           # (n, D+1)
    labels: list[str]
    infoset_labels: list[str]

    @classmethod
    def build(cls, sf: SequenceForm, player: int) -> PlayerTree:
        p = sf.players[player]
        n, m = p.num_sequences, p.num_infosets
        seq_infoset = np.concatenate([[m], p.seq_infoset[1:]]).astype(np.int64)
        infoset_parent = np.concatenate([p.infoset_parent_seq, [-1]]).astype(np.int64)
        infoset_depth = np.concatenate([p.infoset_depth, [-1]]).astype(np.int64)
        seq_parent = infoset_parent[seq_infoset]
        seq_depth = infoset_depth[seq_infoset] + 1
        ancestors = np.full((n, int(seq_depth.max()) + 1), -1, dtype=np.int64)
        ancestors[np.arange(n), seq_depth] = np.arange(n)
        current = seq_parent.copy()
        rows = np.arange(n)
        while True:
            live = current >= 0
            if not live.any():
                break
            ancestors[rows[live], seq_depth[current[live]]] = current[live]
            current = np.where(live, seq_parent[np.maximum(current, 0)], -1)
        return cls(n, m, seq_infoset, infoset_parent, infoset_depth,
                   np.concatenate([p.infoset_first_seq, [0]]).astype(np.int64),
                   np.concatenate([p.infoset_num_actions, [1]]).astype(np.int64),
                   ancestors, sf.sequence_labels(player),
                   list(p.infoset_labels) + ["(root)"])

    @property
    def ancestor_infosets(self) -> np.ndarray:
        """(n, D+1): the decision nodes on the way to each sequence (virtual root first)."""
        a = self.ancestors
        return np.where(a >= 0, self.seq_infoset[np.maximum(a, 0)], -1)

    def scope_members(self) -> tuple[np.ndarray, np.ndarray]:
        """All (decision node j, sequence s) with s at or below j (virtual root: every s)."""
        inf = self.ancestor_infosets
        s = np.repeat(np.arange(self.num_sequences), inf.shape[1])
        j = inf.ravel()
        keep = j >= 0
        return j[keep], s[keep]

    def infoset_scope_members(self) -> tuple[np.ndarray, np.ndarray]:
        """All (decision node j, decision node j') with j' at or below j."""
        rep = self.infoset_first.copy()           # a sequence of each decision node (virtual: ∅)
        inf = self.ancestor_infosets[rep]
        jp = np.repeat(np.arange(self.num_infosets + 1), inf.shape[1])
        j = inf.ravel()
        keep = j >= 0
        return j[keep], jp[keep]


class CorrelationPlanSpace:
    """Relevant sequence pairs, the von Stengel–Forges polytope and triangle-freeness of a
    two-player game (see module docstring)."""

    def __init__(self, sf: SequenceForm):
        if sf.num_players != 2:
            raise InvalidGameError(
                f"{sf.game.name}: correlation plans (EFCE, EFCCE, NFCCE) are implemented for two "
                f"players, the game has {sf.num_players}; use concept 'ce' or 'cce' (normal form)")
        self.sf = sf
        self.trees = [PlayerTree.build(sf, i) for i in range(2)]
        t1, t2 = self.trees
        m1, m2 = t1.num_infosets, t2.num_infosets
        n1, n2 = t1.num_sequences, t2.num_sequences
        self.n2 = n2
        # connected decision nodes: pairs of real ancestor nodes of the leaves' sequence pairs
        leaf_pairs = unique(sf.terminal_sequences[:, 0] * n2 + sf.terminal_sequences[:, 1])
        keys = connected_node_keys(t1.ancestor_infosets[leaf_pairs // n2], m1,
                                   t2.ancestor_infosets[leaf_pairs % n2], m2)
        self.connected = np.stack([keys // (m2 + 1), keys % (m2 + 1)], axis=1)
        # relevant pairs: (∅, ·), (·, ∅), and every action pair of connected decision nodes
        j1, j2 = self.connected[:, 0], self.connected[:, 1]
        k1, k2 = t1.infoset_size[j1], t2.infoset_size[j2]
        per = k1 * k2
        e = np.repeat(np.arange(j1.size), per)
        local = np.arange(int(per.sum())) - np.repeat(np.cumsum(per) - per, per)
        s1 = t1.infoset_first[j1][e] + local // k2[e]
        s2 = t2.infoset_first[j2][e] + local % k2[e]
        keys = np.concatenate([np.arange(n2), np.arange(1, n1) * n2, s1 * n2 + s2])
        self.keys = unique(keys)
        self.pairs = np.stack([self.keys // n2, self.keys % n2], axis=1)
        self._triangle: tuple | None | bool = False

    # ------------------------------------------------------------------ pairs
    @property
    def num_pairs(self) -> int:
        return int(self.keys.size)

    def index(self, s1, s2) -> np.ndarray:
        """Positions of the pairs (s1, s2) among the relevant pairs (all must be relevant)."""
        keys = np.asarray(s1, dtype=np.int64) * self.n2 + np.asarray(s2, dtype=np.int64)
        return find_keys(self.keys, keys, "sequence pairs")

    def pair_labels(self, positions=None) -> list[tuple[str, str]]:
        pos = np.arange(self.num_pairs) if positions is None else np.asarray(positions)
        l1, l2 = self.trees[0].labels, self.trees[1].labels
        return [(l1[a], l2[b]) for a, b in self.pairs[pos]]

    def as_matrix(self, xi: np.ndarray) -> sp.csr_array:
        """ξ as a sparse |Σ_1| × |Σ_2| array. The pairs are sorted by (σ1, σ2), so the CSR
        arrays are read off directly (no COO conversion and its sort-sized temporaries)."""
        n1 = self.trees[0].num_sequences
        indptr = np.searchsorted(self.pairs[:, 0], np.arange(n1 + 1))
        return sp.csr_array((np.asarray(xi, float), self.pairs[:, 1], indptr),
                            shape=(n1, self.n2))

    # ------------------------------------------------------------------ polytope
    def polytope(self) -> tuple[sp.csr_array, np.ndarray, list[str]]:
        """The equality rows of V (Def. 9.3) over the relevant pairs: (matrix, rhs, row names).

        Row 0 is ξ[∅, ∅] = 1; then one row per (j1, σ2) with j1 ⋈ σ2, then per (σ1, j2).
        """
        rows, cols, vals = [np.zeros(1, np.int64)], [self.index([0], [0])], [np.ones(1)]
        names = ["ξ[∅,∅]=1"]
        offset = 1
        for i in range(2):
            tree = self.trees[i]
            own, opp = self.pairs[:, i], self.pairs[:, 1 - i]
            has = own > 0
            j = tree.seq_infoset[own[has]]
            other = opp[has]
            row_keys, row_of = unique(j * self.trees[1 - i].num_sequences + other,
                                         return_inverse=True)
            n_rows = row_keys.size
            rj = row_keys // self.trees[1 - i].num_sequences
            ro = row_keys % self.trees[1 - i].num_sequences
            parent = tree.infoset_parent[rj]
            parent_pos = self.index(parent, ro) if i == 0 else self.index(ro, parent)
            rows += [offset + row_of, offset + np.arange(n_rows)]
            cols += [np.flatnonzero(has), parent_pos]
            vals += [np.ones(row_of.size), -np.ones(n_rows)]
            names += [f"P{i + 1} {tree.infoset_labels[a]} | {self.trees[1 - i].labels[b]}"
                      for a, b in zip(rj, ro)] if n_rows <= 5000 else [""] * n_rows
            offset += n_rows
        matrix = sp.csr_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                              shape=(offset, self.num_pairs))
        rhs = np.zeros(offset)
        rhs[0] = 1.0
        return matrix, rhs, names

    # ------------------------------------------------------------------ triangle-freeness
    def triangle(self) -> tuple[str, str, str, str] | None:
        """A witness (j1, j2, j1', j2') of Def. 9.5 — j1⇌j2, j1⇌j2', j1'⇌j2' with p_{j1} = p_{j1'},
        p_{j2} = p_{j2'} — or None when the game is triangle-free."""
        if self._triangle is not False:
            return self._triangle
        t1, t2 = self.trees
        j1, j2 = self.connected[:, 0], self.connected[:, 1]
        p1, p2 = t1.infoset_parent[j1], t2.infoset_parent[j2]
        big = max(t1.num_sequences, t2.num_sequences, t1.num_infosets, t2.num_infosets) + 1
        # neighbours of j1 among the siblings of j2, and of j2 among the siblings of j1
        _, inv1, cnt1 = unique(j1 * big + p2, return_inverse=True, return_counts=True)
        _, inv2, cnt2 = unique(j2 * big + p1, return_inverse=True, return_counts=True)
        bad = np.flatnonzero((cnt1[inv1] >= 2) & (cnt2[inv2] >= 2))
        if bad.size == 0:
            self._triangle = None
            return None
        e = bad[0]
        a, b = j1[e], j2[e]
        other_b = j2[(j1 == a) & (p2 == p2[e]) & (j2 != b)][0]     # j1 ⇌ j2'
        other_a = j1[(j2 == b) & (p1 == p1[e]) & (j1 != a)][0]     # j1' ⇌ j2
        # the path other_b — a — b — other_a is the definition's j2 — j1 — j2' — j1'
        self._triangle = (t1.infoset_labels[a], t2.infoset_labels[other_b],
                          t1.infoset_labels[other_a], t2.infoset_labels[b])
        return self._triangle

    @property
    def triangle_free(self) -> bool:
        return self.triangle() is None


# ---------------------------------------------------------------------------------------- LP
@dataclass
class Triggers:
    """The triggers of one player: scope decision node, conditioning sequence, labels, and
    whether obedience is "below the trigger sequence" (EFCE) or "through the scope"."""

    scope: np.ndarray
    cond: np.ndarray
    by_sequence: bool
    labels: list[str]


def triggers(tree: PlayerTree, concept: str) -> Triggers:
    """Triggers of ``concept`` (``efce``, ``efcce``, ``nfcce``) for one player (module docstring)."""
    n, m = tree.num_sequences, tree.num_infosets
    if concept == "efce":
        seqs = np.arange(1, n)
        return Triggers(tree.seq_infoset[seqs], seqs, True, [tree.labels[s] for s in seqs])
    if concept == "efcce":
        return Triggers(np.arange(m), tree.infoset_parent[:m], False, tree.infoset_labels[:m])
    if concept == "nfcce":
        return Triggers(np.array([m]), np.array([0]), False, ["(whole game)"])
    raise LpgameError(f"unknown correlation-plan concept {concept}; choose one of "
                      f"{', '.join(PLAN_CONCEPTS)}")


def _own_payoff_entries(sf: SequenceForm, player: int, exact: bool = False
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Nonzero entries (own sequence, opponent sequence, Σ p_c u_i / 2^k) of player i's payoff
    matrix, divided by the power of two that puts the player's payoffs in unit range
    (:mod:`lpgame.lp.scaling`; the trigger rows are homogeneous in U and v, so v scales alike).
    ``exact``: the values as Fractions (an object array), from the exact leaves."""
    if exact:
        _, payoffs = sf.exact_terminal_data()
        values = [v for row in payoffs for v in row]
        scaling = unit_range_scaling(min(values), max(values), exact=True, shift=False)
        U = sf.payoff_matrix_exact(player)
        inverse = 1 / Fraction(scaling.scale)
        data = np.empty(len(U.data), dtype=object)
        data[:] = [v * inverse for v in U.data]
        return (U.rows, U.cols, data) if player == 0 else (U.cols, U.rows, data)
    lo, hi = sf.game._payoff_bounds()
    check_float_payoffs(lo, hi, f"{sf.game.name}, payoffs")
    scaling = unit_range_scaling(lo, hi, shift=False)
    coo = sp.coo_array(sf.payoff_matrix(player))
    coo.sum_duplicates()
    keep = coo.data != 0
    rows, cols = coo.row[keep], coo.col[keep]
    data = np.ldexp(coo.data[keep], -scaling.exponent)
    return (rows, cols, data) if player == 0 else (cols, rows, data)


def correlation_plan_lp(sf: SequenceForm, concept: str = "efce", objective="welfare",
                        space: CorrelationPlanSpace | None = None,
                        exact: bool = False) -> LinearProgram:
    """The optimal EFCE / EFCCE / NFCCE LP over V (see module docstring); ``exact``: the payoff
    coefficients as rationals (:mod:`lpgame.equilibria.correlated.efce_exact`)."""
    space = space or CorrelationPlanSpace(sf)
    w = objective_weights(objective, 2)
    lp = LinearProgram(name=f"{concept}:{sf.game.name}", description=(
        f"optimal {concept.upper()} over the von Stengel–Forges polytope (Farina 2023, Prop. 9.1; "
        f"notes §1.8–1.9), objective weights {w.tolist()}"))
    labels = [f"{a}|{b}" for a, b in space.pair_labels()] if space.num_pairs <= 20_000 else None
    xi = lp.add_variables("xi", space.num_pairs, lower=0.0, labels=labels)
    matrix, rhs, names = space.polytope()
    lp.add_constraints("von_stengel_forges", [(xi, matrix)], "==", rhs,
                       labels=names if matrix.shape[0] <= 20_000 else None)
    for i in range(2):
        def pair_pos(own_seq, opp_seq, i=i):
            return space.index(own_seq, opp_seq) if i == 0 else space.index(opp_seq, own_seq)

        add_trigger_rows(lp, space.trees[i], xi, space.num_pairs, i,
                         triggers(space.trees[i], concept), _own_payoff_entries(sf, i, exact),
                         pair_pos)
    # objective Σ_z p_c(z) (w·u(z)) ξ[σ(z)]
    leaf_pos = space.index(sf.terminal_sequences[:, 0], sf.terminal_sequences[:, 1])
    if exact:
        chance, payoffs = sf.exact_terminal_data()
        coef = np.zeros(space.num_pairs, dtype=object)
        leaf = np.empty(len(chance), dtype=object)
        leaf[:] = [p * sum((Fraction(float(a)) * b for a, b in zip(w, row)), Fraction(0))
                   for p, row in zip(chance, payoffs)]
        np.add.at(coef, leaf_pos, leaf)
        values = coef.tolist()
        lp.objective_scaling = unit_range_scaling(min(values), max(values), exact=True,
                                                  shift=False)
        lp.set_objective([(xi, [lp.objective_scaling.to_unit(Fraction(v)) for v in values])],
                         sense="max")
        return lp
    coef = np.bincount(leaf_pos, weights=sf.terminal_chance * (sf.terminal_payoffs @ w),
                       minlength=space.num_pairs)
    # scaled only (lpgame.lp.scaling): Σ ξ over the leaves is one only for consistent plans
    lp.objective_scaling = unit_range_scaling(*float_bounds(coef), shift=False)
    lp.set_objective([(xi, lp.objective_scaling.to_unit_array(coef))], sense="max")
    return lp


def add_trigger_rows(lp: LinearProgram, tree: PlayerTree, xi, num_plan_entries: int, player: int,
                     trig: Triggers, payoff_entries: tuple, plan_pos) -> np.ndarray:
    """Player ``player``'s deviation and obedience rows (module docstring) over the plan variables
    ``xi``. ``payoff_entries`` = (own sequence, the others' part, Σ p_c u_i) per nonzero payoff;
    ``plan_pos(own_sequences, others)`` gives the plan entry of each combination (a relevant
    pair here, a relevant tuple in :mod:`lpgame.equilibria.correlated.efce_tuple_relaxation`).
    Returns the decision node j' of each v[t, j'] variable (in the block's order)."""
    n, m = tree.num_sequences, tree.num_infosets
    T = trig.scope.size
    if T == 0:
        return np.zeros(0, dtype=np.int64)
    # v variables: (trigger, decision node at or below its scope)
    scope_j, below_j = tree.infoset_scope_members()
    ti, ri = join_keys(trig.scope, scope_j)
    v_key = np.sort(ti * (m + 1) + below_j[ri])
    v_t, v_j = v_key // (m + 1), v_key % (m + 1)
    v = lp.add_variables(f"v_p{player + 1}", v_key.size, lower=-np.inf)
    # deviation rows: (trigger, sequence in its scope)
    scope_s_j, scope_s = tree.scope_members()
    ti, ri = join_keys(trig.scope, scope_s_j)
    row_key = np.sort(ti * n + scope_s[ri])
    row_t, row_s = row_key // n, row_key % n
    R = row_key.size
    # +v[t, node of s]
    r_plus = np.arange(R)
    c_plus = find_keys(v_key, row_t * (m + 1) + tree.seq_infoset[row_s], "v variables")
    # −v[t, j''] in the row of (t, p_{j''}) for every node strictly below the scope
    strict = np.flatnonzero(v_j != trig.scope[v_t])
    r_minus = find_keys(row_key, v_t[strict] * n + tree.infoset_parent[v_j[strict]], "rows")
    v_matrix = sp.csr_array((np.concatenate([np.ones(R), -np.ones(strict.size)]),
                             (np.concatenate([r_plus, r_minus]), np.concatenate([c_plus, strict]))),
                            shape=(R, v_key.size))
    # −Σ_τ U_i[s, τ] ξ[c_t ⊕ τ]
    own, opp, val = payoff_entries
    ri, ei = join_keys(row_s, own)
    xi_dev = _sparse(-val[ei], ri, plan_pos(trig.cond[row_t[ri]], opp[ei]), (R, num_plan_entries))
    lp.add_constraints(f"deviation_p{player + 1}", [(v, v_matrix), (xi, xi_dev)], ">=", 0.0)
    # obedience rows: v[t, scope] − Σ_{obeying s} Σ_τ U_i[s, τ] ξ[s ⊕ τ] ≤ 0
    top = find_keys(v_key, np.arange(T) * (m + 1) + trig.scope, "v variables")
    v_top = sp.csr_array((np.ones(T), (np.arange(T), top)), shape=(T, v_key.size))
    if trig.by_sequence:
        anc = tree.ancestors
        s_rep = np.repeat(np.arange(n), anc.shape[1])
        a = anc.ravel()
        keep = a >= 1
        ob_key, ob_s = a[keep], s_rep[keep]                     # trigger sequence σ̂ ⪯ s
        ti, ri = join_keys(trig.cond, ob_key)
    else:
        ti, ri = join_keys(trig.scope, scope_s_j)
        ob_s = scope_s
    ob_t, ob_seq = ti, ob_s[ri]
    oi, ei = join_keys(ob_seq, own)
    xi_obey = _sparse(-val[ei], ob_t[oi], plan_pos(own[ei], opp[ei]), (T, num_plan_entries))
    lp.add_constraints(f"obedience_p{player + 1}", [(v, v_top), (xi, xi_obey)], "<=", 0.0,
                       labels=[f"P{player + 1} {lab}" for lab in trig.labels] if T <= 20_000
                       else None)
    return v_j


def _sparse(data: np.ndarray, rows, cols, shape):
    """A CSR array, or a RationalMatrix for Fraction data (exact mode); duplicates summed."""
    if data.dtype == object:
        return RationalMatrix(shape, rows, cols, data.tolist())
    return sp.csr_array((data, (rows, cols)), shape=shape)


# ---------------------------------------------------------------------------------------- realisability
def decompose_plan(sf: SequenceForm, xi, space: CorrelationPlanSpace | None = None,
                   max_profiles: int = DEFAULT_MAX_DECOMPOSE_PROFILES,
                   max_nonzeros: int = DEFAULT_MAX_DECOMPOSE_NONZEROS, backend: str = "highs",
                   tolerance: float = REALISABLE_TOLERANCE, exact: bool = False,
                   **options) -> Decomposition:
    """Find μ ∈ Δ(Π_1 × Π_2) minimising ‖f(μ) − ξ‖₁ over the relevant pairs
    (:func:`lpgame.equilibria.correlated.plan_decomposition.decompose_on_pairs`)."""
    return decompose_on_pairs(sf, xi, space or CorrelationPlanSpace(sf), max_profiles,
                              max_nonzeros, backend, tolerance, exact, **options)


# ---------------------------------------------------------------------------------------- solve
def solve_correlation_plan(game, concept: str = "efce", objective="welfare",
                           backend: str = "highs", decompose="auto",
                           max_decompose_profiles: int = DEFAULT_MAX_DECOMPOSE_PROFILES,
                           crossover: bool = True, **options) -> CorrelatedResult:
    """An optimal EFCE / EFCCE / NFCCE of a two-player game as a correlation plan.

    ``game``: anything :func:`lpgame.compile_game` accepts (a normal-form game is played as a
    one-level extensive form). ``objective``: ``"welfare"``, ``"player1"``, ``"player2"`` or two
    weights. ``decompose``: ``"auto"`` (check realisability when |Π_1|·|Π_2| ≤
    ``max_decompose_profiles``), True (always; may raise ModelTooLargeError) or False.
    ``crossover=False`` (HiGHS) stops at the interior-point solution: much faster on large games
    (crossover dominates from B2322 on), the plan then satisfies the constraints to the IPM
    tolerance (~1e-9) and the reported ``gap`` says how good it is.
    The result is ``exact`` when the game is triangle-free (then V = Ξ), otherwise an upper bound.
    """
    from lpgame.analysis.correlated_gaps import efcce_gap, efce_gap, nfcce_gap
    from lpgame.compile import compile_game

    if concept not in PLAN_CONCEPTS:
        raise LpgameError(f"unknown correlation-plan concept {concept!r}; choose one of "
                          f"{', '.join(PLAN_CONCEPTS)}")
    start = time.perf_counter()
    # these LPs are very degenerate: dual simplex needs ~10^5 iterations on B2222 where the
    # interior-point method with crossover takes ~2 s, so IPM is the default here
    options.setdefault("solver", "ipm")
    if not crossover:
        if backend != "highs":
            raise LpgameError("crossover=False is an option of the HiGHS backend")
        # HiGHS can postsolve only a basic solution: without crossover, solve without presolve
        options["presolve"] = False
        options["highs_options"] = {**options.get("highs_options", {}), "run_crossover": "off"}
    sf = compile_game(game)
    space = CorrelationPlanSpace(sf)
    triangle = space.triangle()
    lp = correlation_plan_lp(sf, concept, objective, space)
    built = time.perf_counter()
    solution = solve_lp(lp, backend=backend, **options)
    xi = np.clip(solution.values("xi"), 0.0, None)
    matrix = space.as_matrix(xi)
    leaf_pos = space.index(sf.terminal_sequences[:, 0], sf.terminal_sequences[:, 1])
    reach = sf.terminal_chance * xi[leaf_pos]
    payoffs = (reach @ sf.terminal_payoffs).tolist()
    check = {"efce": efce_gap, "efcce": efcce_gap, "nfcce": nfcce_gap}[concept](sf, matrix)
    support = np.flatnonzero(xi > SUPPORT_TOLERANCE)
    plan_entries = [{"sequences": list(lab), "value": float(xi[k])}
                    for k, lab in zip(support, space.pair_labels(support))]
    realisable = True if triangle is None else None
    distribution = None
    extra: dict = {"relevant_pairs": space.num_pairs}
    if triangle is not None:
        extra["triangle"] = list(triangle)
    decomposed = time.perf_counter()
    do_it = decompose is True or (
        decompose == "auto"
        and math.prod(count_reduced_plans(sf, i) for i in range(2)) <= max_decompose_profiles)
    dec = None
    if do_it:
        try:
            dec = decompose_plan(sf, xi, space, max_profiles=max_decompose_profiles,
                                 backend=backend)
        except ModelTooLargeError:
            if decompose is True:
                raise
        except LpgameError as error:       # realisability is a side check: a failure is a note
            extra["notes"] = [f"realisability not checked: the decomposition LP failed "
                              f"({type(error).__name__}: {error})"]
    if dec is not None:
        realisable = dec.realisable
        extra["decomposition_residual"] = dec.residual
        if dec.realisable:
            flat = dec.distribution.ravel()
            k2 = dec.distribution.shape[1]
            keep = np.flatnonzero(flat > SUPPORT_TOLERANCE)
            keep = keep[np.argsort(-flat[keep], kind="stable")]
            distribution = [{"profile": [plan_label(sf, 0, dec.plans[0][q // k2]),
                                         plan_label(sf, 1, dec.plans[1][q % k2])],
                             "probability": float(flat[q])} for q in keep]
    if triangle is not None and realisable:
        extra["bound_attained"] = True     # a realisable optimum of the relaxation is optimal
    w = objective_weights(objective, 2)
    end = time.perf_counter()
    report = objective_report(lp, solution.objective, w, payoffs, sf.terminal_payoffs, check.gap)
    extra.update(report)
    value = float(np.dot(w, payoffs))
    proof = plan_optimality(lp, solution.row_duals, value, report["payoff_range"])
    certificate = Certificate(gain=check.gap, exact=False, deviations=DEVIATIONS[concept],
                              extra=proof)
    return CorrelatedResult(
        game=sf.game.name, concept=concept, objective=value,
        objective_spec=objective_name(objective), weights=w.tolist(), payoffs=payoffs,
        gap=check.gap, optimal=(triangle is None or bool(realisable))
        and proof["optimality_proven"], triangle_free=triangle is None, certificate=certificate,
        size=lp.size(), solver=solver_report(solution),
        seconds={"build": built - start, "solve": solution.seconds,
                 "decompose": end - decomposed, "total": end - start},
        backend=backend, distribution=distribution, correlation_plan=plan_entries,
        realisable=realisable, gap_detail=check.to_dict(), extra=extra, raw=xi, model=space,
        lp=lp)
