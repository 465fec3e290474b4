"""An upper bound on the optimal EFCE of an n-player game: the von Stengel–Forges relaxation over
relevant sequence *tuples*.

**Why.** With three or more players lpgame states the optimal EFCE exactly as column generation
over joint pure plans (:mod:`lpgame.equilibria.correlated.efce_n_player`). Its columns give EFCE (lower
bounds); its upper bounds are Lagrangian bounds at the restricted master's duals, which on GL33,
D32 and the Leduc rows stay far above the optimum (docs/explanation/benchmarks.md). This module gives
the column generation a second, independent upper bound: the optimum of an LP over a polytope
that contains every distribution's correlation plan.

**Formulation** (the two-player LP of Farina 2023, Prop. 9.1 and Def. 9.3, notes §1.7–1.8,
written for n players; notes §1.8 "n players": "ξ would be indexed by relevant n-tuples; the
𝒱-analogue is again only a relaxation unless a structural result applies"). For a distribution μ
over joint pure plans, ξ[σ_1, …, σ_n] = P_μ(every σ_l recommended). With decision nodes connected
as in the two-player case (j ⇌ j' when a leaf's path passes through both), a tuple is *relevant*
when its sequences' decision nodes are pairwise connected (∅ is connected to everything). The
n-player von Stengel–Forges polytope 𝒱_n is

    ξ[∅, …, ∅] = 1,   Σ_{a ∈ A_j} ξ[ja ⊕_i σ_{-i}] = ξ[p_j ⊕_i σ_{-i}]   (j ∈ 𝒥_i, j ⇌ σ_{-i}),
    ξ ≥ 0,

(⊕_i puts player i's sequence in slot i). The tuples it uses are closed: if j is connected to
the decision node of σ_l, so is the decision node of p_j (both lie on one root path). Every row
holds for the tuple marginals of any μ (each plan that recommends p_j and reaches j recommends
exactly one a ∈ A_j), so Ξ_n ⊆ 𝒱_n. The trigger rows are those of Prop. 9.1 with σ_{-i}(z) the
other players' sequences at z: for player i, trigger σ̂ = (j, a), j' ⪰ j, a' ∈ A_{j'},

    v[i,σ̂,j'] ≥ Σ_{z: σ_i(z) = j'a'} p_c(z) u_i(z) ξ[σ̂ ⊕_i σ_{-i}(z)] + Σ_{j'' ∈ C_{j'a'}} v[i,σ̂,j'']
    v[i,σ̂,j]  ≤ Σ_{z: σ_i(z) ⪰ σ̂} p_c(z) u_i(z) ξ[σ(z)],

which for the tuple marginals of μ say exactly that no trigger agent of μ gains (Lemma 9.2: the
deviator's continuation reaches z with probability ξ[σ̂ ⊕_i σ_{-i}(z)]·y[σ_i(z)]). So

    U = max {Σ_z p_c(z) (w·u(z)) ξ[σ(z)] : ξ ∈ 𝒱_n, trigger rows}  ≥  the optimal EFCE value.

With two players 𝒱_2 is Def. 9.3 itself and U is the LP of :mod:`lpgame.equilibria.correlated.efce` (tested:
same relevant pairs, same optimum). With three players nothing makes 𝒱_n = Ξ_n in general, so U
is a bound, not a solution; column generation's feasible plan within ``target_gap``·R of U
certifies both.

**Bound** (weak duality, :mod:`lpgame.lp.dual_bound`). U is not read from the solver's
objective: it is U(y) = Σ_r max_{row range} y_r a_r z + Σ_j max_{box} (c − Aᵀy)_j z_j at the
solver's row duals y, over a box that holds an optimal solution: 0 ≤ ξ ≤ 1 (every tuple's
consistency rows lead down to ξ[∅…∅] = 1 through non-negative entries) and
|v[i,σ̂,j']| ≤ Σ_{z: σ_i(z) ⪰ j'} p_c(z)|u_i(z)| (v only has to exceed the best continuation
value, itself a sum of such terms times entries of ξ ≤ 1, and an optimal solution may take
v equal to it). So U bounds the optimum at any y; at HiGHS's optimal duals it exceeds the
LP's optimum by 10⁻¹⁵–10⁻¹¹ on K35, D32 and GL33.

**Duals.** The result also carries the trigger rows' duals (:class:`TriggerDuals`, in payoff
units), which :mod:`lpgame.equilibria.correlated.efce_n_player` uses to price joint plans and as its first
stabilisation centre ("Relaxation-guided pricing" there).

The tuples are built as infoset tuples by joins on sorted integer keys (one numpy pass per
player), then expanded to action tuples; nothing is built entry by entry.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from lpgame.equilibria.correlated.ce_cce import objective_weights
from lpgame.equilibria.correlated.efce import (
    PlayerTree,
    add_trigger_rows,
    connected_node_keys,
    triggers,
)
from lpgame.errors import ModelTooLargeError
from lpgame.lp import LinearProgram, solve_lp
from lpgame.lp.dual_bound import weak_duality_bound
from lpgame.lp.scaling import check_float_payoffs, float_bounds, unit_range_scaling
from lpgame.lp.sorted_keys import find_keys, join_keys, unique
from lpgame.sequence_form import SequenceForm

DEFAULT_MAX_TUPLES = 250_000
"""The largest number of relevant tuples for which the relaxation is built by default. HiGHS's
interior point solves K35 (7 161 tuples) in under 1 s, D32 (31 125) and GL33 (125 182) in 2–3 s,
L3132 (182 425 tuples, 266 197 rows; 63 interior-point iterations) in about 270 s with crossover
and L3133 (230 k) in about 420 s (2 cores, one other job beside it). L3223 (797 k) is above it:
pass ``max_tuples`` to try. Until 2026-11-25 the default was 150 000, because L3132 had not
finished within 200 s; the column generation gives the relaxation ``TUPLE_BOUND_SHARE`` of its
time limit by default, so the Leduc rows need a limit of about 20 minutes, or ``tuple_seconds``
(docs/explanation/benchmarks.md, "Tuple relaxation"). Crossover stays on: without it
(``run_crossover`` "choose") L3132 took 249 s, but the bound on a Battleship was 2·10⁻⁷·R above
the LP's optimum instead of 10⁻¹², too loose for the exact run's optimality test
(``column_tolerance``·R, 10⁻⁷·R)."""


@dataclass
class _Connections:
    """Connected (real) decision nodes of two players a < b, as sorted keys j_a·(m_b+1) + j_b."""

    keys: np.ndarray
    width: int          # m_b + 1


class TupleSpace:
    """Relevant sequence tuples of an n-player game and the polytope 𝒱_n (module docstring).

    A tuple (s_1, …, s_n) is stored as the key Σ_l s_l·stride_l (mixed radix over the numbers of
    sequences), the tuples sorted by key.
    """

    def __init__(self, sf: SequenceForm, max_tuples: int = DEFAULT_MAX_TUPLES):
        self.sf = sf
        n = sf.num_players
        self.trees = [PlayerTree.build(sf, i) for i in range(n)]
        sizes = [t.num_sequences for t in self.trees]
        if math.prod(sizes) >= 2 ** 62:
            raise ModelTooLargeError(f"{sf.game.name}: the sequence tuples do not fit 64-bit keys")
        self.strides = np.array([math.prod(sizes[i + 1:]) for i in range(n)], dtype=np.int64)
        leaves = sf.terminal_sequences
        leaf_nodes = [t.ancestor_infosets[leaves[:, i]] for i, t in enumerate(self.trees)]
        links = {}
        for a in range(n):
            for b in range(a + 1, n):
                links[a, b] = self._connections(a, b, leaf_nodes)
        infoset_tuples = self._infoset_tuples(links, max_tuples)
        self.keys = self._expand(infoset_tuples, max_tuples)

    # ------------------------------------------------------------------ building
    def _connections(self, a: int, b: int, leaf_nodes: list) -> _Connections:
        ta, tb = self.trees[a], self.trees[b]
        return _Connections(connected_node_keys(leaf_nodes[a], ta.num_infosets, leaf_nodes[b],
                                                tb.num_infosets), tb.num_infosets + 1)

    def _infoset_tuples(self, links: dict, max_tuples: int) -> np.ndarray:
        """(T, n) decision-node tuples, pairwise connected; the virtual root m_i stands for ∅."""
        first = self.trees[0]
        rows = np.arange(first.num_infosets + 1, dtype=np.int64)[:, None]
        for k in range(1, len(self.trees)):
            tk = self.trees[k]
            virtual = tk.num_infosets
            real = rows < np.array([t.num_infosets for t in self.trees[:k]])[None, :]
            has_real = real.any(axis=1)
            # rows with no real node: every node of player k (virtual included)
            free = np.flatnonzero(~has_real)
            parts = [np.column_stack([np.repeat(rows[free], virtual + 1, axis=0),
                                      np.tile(np.arange(virtual + 1), free.size)])]
            # other rows: the virtual node, and the neighbours of their first real node that are
            # connected to every other real node of the row
            fixed = np.flatnonzero(has_real)
            parts.append(np.column_stack([rows[fixed], np.full(fixed.size, virtual)]))
            pivot = real[fixed].argmax(axis=1)
            for p in range(k):
                sel = fixed[pivot == p]
                if sel.size == 0:
                    continue
                con = links[p, k]
                left = rows[sel, p]
                lo = np.searchsorted(con.keys, left * con.width)
                hi = np.searchsorted(con.keys, (left + 1) * con.width)
                counts = hi - lo
                li = np.repeat(np.arange(sel.size), counts)
                offsets = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts,
                                                                     counts)
                cand = con.keys[np.repeat(lo, counts) + offsets] % con.width
                keep = np.ones(cand.size, bool)
                for q in range(k):
                    if q == p:
                        continue
                    other = rows[sel[li], q]
                    check = other < self.trees[q].num_infosets
                    c2 = links[q, k]
                    found = np.isin(other[check] * c2.width + cand[check], c2.keys,
                                    assume_unique=False)
                    keep[np.flatnonzero(check)[~found]] = False
                parts.append(np.column_stack([rows[sel[li[keep]]], cand[keep]]))
            rows = np.concatenate(parts)
            if rows.shape[0] > max_tuples:
                raise ModelTooLargeError(
                    f"{self.sf.game.name}: more than {max_tuples} relevant decision-node tuples "
                    f"(max_tuples); the tuple relaxation is not built")
        return rows

    def _expand(self, nodes: np.ndarray, max_tuples: int) -> np.ndarray:
        """Every action tuple of each decision-node tuple, as sorted keys."""
        sizes = np.column_stack([t.infoset_size[nodes[:, i]] for i, t in enumerate(self.trees)])
        per = sizes.prod(axis=1)
        total = int(per.sum())
        if total > max_tuples:
            raise ModelTooLargeError(
                f"{self.sf.game.name}: {total} relevant sequence tuples exceed max_tuples = "
                f"{max_tuples}; the tuple relaxation is not built")
        e = np.repeat(np.arange(nodes.shape[0]), per)
        local = np.arange(total) - np.repeat(np.cumsum(per) - per, per)
        keys = np.zeros(total, dtype=np.int64)
        for i in reversed(range(len(self.trees))):
            t = self.trees[i]
            k = sizes[e, i]
            seq = np.where(nodes[e, i] == t.num_infosets, 0, t.infoset_first[nodes[e, i]] + local % k)
            keys += seq * self.strides[i]
            local //= k
        return unique(keys)

    # ------------------------------------------------------------------ access
    @property
    def num_tuples(self) -> int:
        return int(self.keys.size)

    def key(self, sequences: np.ndarray) -> np.ndarray:
        """Keys of (T, n) sequence tuples."""
        return np.asarray(sequences, dtype=np.int64) @ self.strides

    def position(self, keys: np.ndarray) -> np.ndarray:
        """Positions of tuple keys among the relevant tuples (all must be relevant)."""
        return find_keys(self.keys, np.asarray(keys, dtype=np.int64), "sequence tuples")

    def component(self, i: int, keys: np.ndarray | None = None) -> np.ndarray:
        keys = self.keys if keys is None else keys
        return (keys // self.strides[i]) % self.trees[i].num_sequences

    def polytope(self) -> tuple[sp.csr_array, np.ndarray]:
        """The equality rows of 𝒱_n: ξ[∅…∅] = 1, then per player i one row per (j, σ_{-i})."""
        rows, cols, vals = [np.zeros(1, np.int64)], [self.position(np.zeros(1, np.int64))], \
            [np.ones(1)]
        offset = 1
        for i, tree in enumerate(self.trees):
            own = self.component(i)
            has = np.flatnonzero(own > 0)
            node = tree.seq_infoset[own[has]]
            # the row's key: the tuple with player i's sequence replaced by the node's first one
            base = self.keys[has] - own[has] * self.strides[i]
            row_keys, row_of = unique(base + tree.infoset_first[node] * self.strides[i],
                                      return_inverse=True)
            row_node = tree.seq_infoset[self.component(i, row_keys)]
            parent = (row_keys - self.component(i, row_keys) * self.strides[i]
                      + tree.infoset_parent[row_node] * self.strides[i])
            rows += [offset + row_of, offset + np.arange(row_keys.size)]
            cols += [has, self.position(parent)]
            vals += [np.ones(has.size), -np.ones(row_keys.size)]
            offset += row_keys.size
        matrix = sp.csr_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                              shape=(offset, self.num_tuples))
        rhs = np.zeros(offset)
        rhs[0] = 1.0
        return matrix, rhs


def _own_payoff_entries(sf: SequenceForm, space: TupleSpace, player: int):
    """(own sequence, the others' tuple key with ∅ in slot i, Σ p_c u_i / 2^k) per leaf, scaled
    like the two-player LP's (:func:`lpgame.equilibria.correlated.efce._own_payoff_entries`)."""
    lo, hi = sf.game._payoff_bounds()
    check_float_payoffs(lo, hi, f"{sf.game.name}, payoffs")
    scaling = unit_range_scaling(lo, hi, shift=False)
    leaves = sf.terminal_sequences
    value = np.ldexp(sf.terminal_chance * sf.terminal_payoffs[:, player], -scaling.exponent)
    keep = value != 0
    own = leaves[keep, player].astype(np.int64)
    others = space.key(leaves[keep]) - own * space.strides[player]
    return own, others, value[keep]


@dataclass
class TupleRelaxationLP:
    """The relaxation's LP and column bounds that one of its optimal solutions satisfies (module
    docstring, "Bound"): 0 ≤ ξ ≤ 1 and |v[i, σ̂, j']| ≤ Σ_{z: σ_i(z) ⪰ j'} p_c(z)|u_i(z)| (scaled
    as the rows). They are not given to the solver (bounding v slowed HiGHS's interior point
    from 2.0 to 4.3 s on GL33), only to :func:`lpgame.lp.dual_bound.weak_duality_bound`."""

    lp: LinearProgram
    implied_lower: np.ndarray
    implied_upper: np.ndarray


def tuple_relaxation_lp(sf: SequenceForm, objective="welfare",
                        space: TupleSpace | None = None) -> TupleRelaxationLP:
    """The optimal-EFCE LP over 𝒱_n (module docstring); its optimum bounds the optimal EFCE."""
    space = space or TupleSpace(sf)
    n = sf.num_players
    w = objective_weights(objective, n)
    lp = LinearProgram(name=f"efce-tuple-relaxation:{sf.game.name}", description=(
        f"optimal EFCE over the n-player von Stengel–Forges polytope (Farina 2023, Prop. 9.1 "
        f"over relevant sequence tuples; an upper bound), objective weights {w.tolist()}"))
    xi = lp.add_variables("xi", space.num_tuples, lower=0.0)
    bounds = [(0.0, 1.0, xi.size)]
    matrix, rhs = space.polytope()
    lp.add_constraints("von_stengel_forges", [(xi, matrix)], "==", rhs)
    for i in range(n):
        own, others, value = _own_payoff_entries(sf, space, i)
        stride = space.strides[i]

        def tuple_pos(own_seq, other_key, stride=stride):
            return space.position(np.asarray(other_key) + np.asarray(own_seq) * stride)

        tree = space.trees[i]
        v_nodes = add_trigger_rows(lp, tree, xi, space.num_tuples, i, triggers(tree, "efce"),
                                   (own, others, value), tuple_pos)
        # the payoff mass at or below each decision node bounds |v| there
        scope, member = tree.scope_members()
        mass = np.bincount(own, weights=np.abs(value), minlength=tree.num_sequences)
        below = np.bincount(scope, weights=mass[member], minlength=tree.num_infosets + 1)
        bounds.append((-below[v_nodes], below[v_nodes], v_nodes.size))
    leaf_pos = space.position(space.key(sf.terminal_sequences))
    coef = np.bincount(leaf_pos, weights=sf.terminal_chance * (sf.terminal_payoffs @ w),
                       minlength=space.num_tuples)
    lp.objective_scaling = unit_range_scaling(*float_bounds(coef), shift=False)
    lp.set_objective([(xi, lp.objective_scaling.to_unit_array(coef))], sense="max")
    lower = np.concatenate([np.broadcast_to(lo, (k,)) for lo, _, k in bounds])
    upper = np.concatenate([np.broadcast_to(hi, (k,)) for _, hi, k in bounds])
    return TupleRelaxationLP(lp, lower, upper)


@dataclass
class TriggerDuals:
    """One player's trigger-row duals of the relaxation, in the game's payoff units and with
    every row read as g ≥ 0 (deviation rows as written; obedience rows as
    Σ_{z: σ_i(z) ⪰ σ̂} p_c u_i ξ − v[i, σ̂, j] ≥ 0), in lpgame's sign convention (∂optimum/∂rhs,
    so ≤ 0 at an optimum): ``deviation`` per (trigger σ̂, sequence s below σ̂'s decision node),
    keyed σ̂·|Σ_i| + s (σ̂ numbered as its sequence, 1 …), and ``obedience`` per trigger σ̂ = 1 ….

    Since every joint pure plan's tuple indicator lies in 𝒱_n, these duals price joint plans
    (:mod:`lpgame.equilibria.correlated.efce_n_player`): max_π c(π) − Σ y·g(π) is a Lagrangian bound on the
    optimal EFCE value, at most the relaxation's U when y is optimal."""

    keys: np.ndarray
    deviation: np.ndarray
    obedience: np.ndarray


@dataclass
class TupleRelaxationBound:
    """The bound U (≥ the optimal EFCE value) by weak duality at the solver's duals, the solver's
    optimum ``lp_optimum`` (U minus it is what the solver's tolerance costs), size and time, and
    the trigger rows' duals (:class:`TriggerDuals`, one per player)."""

    upper_bound: float
    tuples: int
    seconds: float
    status: str
    lp_optimum: float
    trigger_duals: list[TriggerDuals] | None = None


def trigger_duals(sf: SequenceForm, space: TupleSpace, lp: LinearProgram,
                  row_duals: np.ndarray) -> list[TriggerDuals]:
    """The relaxation's trigger-row duals as :class:`TriggerDuals`. The LP's rows hold payoffs
    divided by 2^e (:func:`_own_payoff_entries`) and its objective divided by 2^f, so in payoff
    units a row's dual is multiplied by 2^(f − e); obedience rows are written ≤ 0 in the LP, so
    their duals change sign."""
    lo, hi = sf.game._payoff_bounds()
    factor = math.ldexp(1.0, lp.objective_scaling.exponent
                        - unit_range_scaling(lo, hi, shift=False).exponent)
    out = []
    for i, tree in enumerate(space.trees):
        n = tree.num_sequences
        trig = triggers(tree, "efce")
        scope_s_j, scope_s = tree.scope_members()
        ti, ri = join_keys(trig.scope, scope_s_j)
        row_key = np.sort(ti * n + scope_s[ri])          # the order of add_trigger_rows's rows
        if trig.scope.size == 0:
            out.append(TriggerDuals(np.zeros(0, np.int64), np.zeros(0), np.zeros(0)))
            continue
        dev = lp.block(f"deviation_p{i + 1}")
        obey = lp.block(f"obedience_p{i + 1}")
        out.append(TriggerDuals(
            (row_key // n + 1) * n + row_key % n,
            factor * row_duals[dev.offset:dev.offset + dev.size],
            -factor * row_duals[obey.offset:obey.offset + obey.size]))
    return out


def tuple_relaxation_bound(sf: SequenceForm, objective="welfare",
                           time_limit: float | None = None,
                           max_tuples: int = DEFAULT_MAX_TUPLES) -> TupleRelaxationBound:
    """Solve the relaxation with HiGHS's interior-point method; U (by weak duality at its duals,
    :mod:`lpgame.lp.dual_bound`) in the game's payoff units.
    Raises :class:`~lpgame.errors.ModelTooLargeError` over ``max_tuples`` tuples and
    :class:`~lpgame.errors.SolverTimeLimitError` past ``time_limit``."""
    start = time.perf_counter()
    space = TupleSpace(sf, max_tuples)
    relaxation = tuple_relaxation_lp(sf, objective, space)
    lp = relaxation.lp
    options = {"solver": "ipm"}
    if time_limit is not None:
        options["time_limit"] = max(time_limit - (time.perf_counter() - start), 1.0)
    solution = solve_lp(lp, **options)
    safe = weak_duality_bound(lp, solution.row_duals, relaxation.implied_lower,
                              relaxation.implied_upper)
    return TupleRelaxationBound(float(lp.objective_scaling.from_unit(safe)), space.num_tuples,
                                time.perf_counter() - start, solution.status,
                                float(lp.objective_scaling.from_unit(solution.objective)),
                                trigger_duals(sf, space, lp, solution.row_duals))
