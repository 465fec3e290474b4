"""The restricted master LP of the n-player EFCE column generation
(:mod:`lpgame.equilibria.correlated.efce_n_player` runs it,
:mod:`lpgame.equilibria.correlated.efce_pricing` prices its duals).

**Master LP** over the current columns (joint pure plans π^k = (π_1^k, …, π_n^k)), with the
trigger constraints of Lemma 9.2 dualised as in Prop. 9.1 (L3865–3881; notes §1.8): for each
player i and trigger σ̂ = (j, a) ∈ Σ_i*, v[i, σ̂, j'] (free, one per own information set j' ⪰ j) is
the value of the best continuation from j' of a deviator triggered at σ̂, and with
h_i^k[s] = Σ_{z: σ_i(z) = s} p_c(z) u_i(z) Π_{l≠i} π_l^k[σ_l(z)]:

    max   Σ_k μ_k c^k − [phase 1] Σ e[i,σ̂]        c^k = Σ_z p_c(z) (w·u(z)) Π_l π_l^k[σ_l(z)]
    s.t.  v[i,σ̂,j'] − Σ_{j'' ∈ C_{j'a'}} v[i,σ̂,j''] − Σ_k μ_k π_i^k[σ̂] h_i^k[j'a'] ≥ 0
                                                       for every j' ⪰ j and a' ∈ A_{j'}
          Σ_k μ_k Σ_{s ⪰ σ̂} π_i^k[s] h_i^k[s] − v[i,σ̂,j] + e[i,σ̂] ≥ 0
          Σ_k μ_k = 1,   μ ≥ 0,   e ≥ 0 (phase 1), e = 0 (phase 2).

Phase 1 maximises −Σ e (the total trigger violation; one slack per trigger converged about twice
as fast as a single largest-violation slack on GL33) until the columns hold an EFCE; phase 2
maximises the objective Σ_i w_i u_i with e = 0. With every joint pure plan as a column this is the
exact optimal-EFCE LP (for fixed μ, the v-rows are the dual of the deviator's best continuation on
𝒬_{i,⪰j}, so they hold iff no trigger deviation gains).

**The master as solved: trigger cuts.** The LP above is what is priced, but the master that
HiGHS solves does not carry the v-variables (on GL33 and L3223 the compact master has 19 000 and
37 000 rows, and solving it took 94 % of the run). It eliminates v: for a pure continuation q of
player i below j (a pure plan of i's subtree at j), the obedience row of σ̂ plus q·(the
deviation rows of σ̂) is the cut

    Σ_k μ_k π_i^k[σ̂] (O_i^k[σ̂] − Σ_s q[s] h_i^k[s]) + e[i,σ̂] ≥ 0,    O_i^k[σ̂] = Σ_{s⪰σ̂} π_i^k[s] h_i^k[s],

and the v-rows hold iff every such cut holds. After each master solve the cuts are separated
against μ: for every trigger recommended by some column, and with a choice (an information set
of two or more actions) at or below j, the deviator's best continuation is found bottom-up (all
triggers at once, as in the independent check) and its cut is added when it gains more than
``CUT_TOLERANCE``·``column_tolerance``·R over the slack. A cut's dual d maps to the compact LP's
duals as y_obey[σ̂] += d, y_dev[σ̂, s] += d·q[s]; since q is a treeplex plan, these satisfy every
v-column's dual constraint exactly, so everything below (pricing, Lagrangian bounds) works in the
compact LP's dual space whatever cuts the master holds. Nothing is concluded (phase switch,
optimality, target) from a master to which the round added cuts, but its duals are priced.

:class:`OwnTree` holds one player's rows of the compact LP (one per trigger σ̂ and sequence s
below σ̂'s information set, one v per trigger and information set at or below it);
:class:`MasterLP` holds the master as solved (highspy), the column data π^k, h^k and O^k, the
cuts, and the map of the cut duals into the compact LP's dual space.
"""

from __future__ import annotations

from dataclasses import dataclass

import highspy
import numpy as np
import scipy.sparse as sp

from lpgame.errors import SolverError
from lpgame.lp.highs_backend import quiet_highs
from lpgame.sequence_form import SequenceForm

CUT_TOLERANCE = 0.1
"""A trigger cut is added when its deviation gains more than this fraction of the column
tolerance (times R) over the trigger's slack."""


# ---------------------------------------------------------------------------------------- trees
@dataclass
class OwnTree:
    """One player's tree: information-set levels, the information sets below each one, and the
    trigger rows of the master LP (one per (trigger σ̂, sequence s below σ̂'s information set))."""

    player: int
    num_sequences: int
    parent: np.ndarray            # infoset -> parent sequence
    seq_infoset: np.ndarray       # sequence -> infoset (-1 for ∅)
    levels: list
    # rows: (trigger, sequence) pairs; v: (trigger, infoset) pairs
    row_trigger: np.ndarray
    row_seq: np.ndarray
    v_trigger: np.ndarray
    v_infoset: np.ndarray

    @classmethod
    def build(cls, sf: SequenceForm, player: int) -> OwnTree:
        p = sf.players[player]
        m = p.num_infosets
        parent = np.asarray(p.infoset_parent_seq, dtype=np.int64)
        seq_infoset = np.asarray(p.seq_infoset, dtype=np.int64)
        # ancestors-or-self of each infoset (own tree)
        anc_j, desc_j = [], []
        for j in range(m):
            k = j
            while k >= 0:
                anc_j.append(k)
                desc_j.append(j)
                s = int(parent[k])
                k = int(seq_infoset[s]) if s > 0 else -1
        anc_j = np.asarray(anc_j, dtype=np.int64)
        desc_j = np.asarray(desc_j, dtype=np.int64)
        order = np.lexsort((desc_j, anc_j))
        anc_j, desc_j = anc_j[order], desc_j[order]             # grouped by the top infoset
        starts = np.searchsorted(anc_j, np.arange(m + 1))
        counts = np.asarray(p.infoset_num_actions, dtype=np.int64)
        first = np.asarray(p.infoset_first_seq, dtype=np.int64)
        v_trig, v_inf, r_trig, r_seq = [], [], [], []
        for t in range(1, p.num_sequences):
            j = int(seq_infoset[t])
            below = desc_j[starts[j]:starts[j + 1]]
            v_trig.append(np.full(below.size, t))
            v_inf.append(below)
            n_rows = counts[below]
            r_trig.append(np.full(int(n_rows.sum()), t))
            r_seq.append(np.repeat(first[below], n_rows) + concatenated_ranges(n_rows))
        return cls(player, p.num_sequences, parent, seq_infoset, sf.infoset_levels(player),
                   _cat(r_trig), _cat(r_seq), _cat(v_trig), _cat(v_inf))

    @property
    def num_triggers(self) -> int:
        return self.num_sequences - 1


def highs_matrix(lp: highspy.HighsLp) -> sp.csc_array:
    """The constraint matrix of a HiGHS LP as a scipy array. HiGHS may hold it row-wise (it
    can switch after rows are added: L3133's master came back with 44 row starts for 1 372
    columns), so the format is read, not assumed."""
    m = lp.a_matrix_
    parts = (np.asarray(m.value_), np.asarray(m.index_), np.asarray(m.start_))
    if m.format_ == highspy.MatrixFormat.kRowwise:
        return sp.csr_array(parts, shape=(lp.num_row_, lp.num_col_)).tocsc()
    return sp.csc_array(parts, shape=(lp.num_row_, lp.num_col_))


def _cat(parts: list) -> np.ndarray:
    return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)


def concatenated_ranges(counts: np.ndarray) -> np.ndarray:
    """[0..c0-1, 0..c1-1, ...]."""
    if counts.size == 0:
        return np.zeros(0, np.int64)
    ends = np.cumsum(counts)
    return np.arange(ends[-1]) - np.repeat(ends - counts, counts)


# ---------------------------------------------------------------------------------------- model
def _column_key(plans) -> bytes:
    """A joint pure plan's identity: its players' int8 plans, joined (the master's column set)."""
    return b"|".join(np.asarray(p, np.int8).tobytes() for p in plans)


class MasterTimeLimitError(Exception):
    """The restricted master LP reached the run's time limit."""


class _Grow:
    """A K × width array that grows by rows (capacity doubling)."""

    def __init__(self, width: int, dtype):
        self.data = np.zeros((16, width), dtype=dtype)
        self.size = 0

    def append(self, row: np.ndarray) -> None:
        if self.size == self.data.shape[0]:
            self.data = np.concatenate([self.data, np.zeros_like(self.data)])
        self.data[self.size] = row
        self.size += 1

    @property
    def view(self) -> np.ndarray:
        return self.data[:self.size]


class MasterLP:
    """The master LP (highspy; joint-plan columns and trigger cuts added in place), the column
    data, and the dual space of the compact (v-form) LP in which pricing works (the run's
    :class:`~lpgame.equilibria.correlated.efce_pricing.Model` adds the pricing to this class).

    The master holds the trigger constraints as cuts (module docstring): for player i, trigger
    t = σ̂ and a pure continuation q below j (t's information set),
    Σ_k μ_k π_i^k[t] (O_i^k[t] − Σ_s q[s] h_i^k[s]) + e[i,t] ≥ 0, with
    O_i^k[t] = Σ_{s ⪰ t} π_i^k[s] h_i^k[s]. Row 0 is the convexity row. A cut is the obedience
    row of trigger t plus q·(the deviation rows of t) of the compact LP, the v-variables
    cancelling; so a cut's dual d maps to compact duals y_obey[t] += d, y_dev[t, s] += d q[s],
    which satisfy the v-columns' dual constraints exactly (q is a treeplex plan).

    ``payoff_unit``: the master works in payoffs divided by it (the run passes a power of two
    that brings the payoff range into the unit band, so that HiGHS's tolerances and the absolute
    ones here are relative to the range whatever the payoffs' scale)."""

    def __init__(self, sf: SequenceForm, weights: np.ndarray, payoff_unit: float = 1.0):
        self.sf = sf
        self.n = sf.num_players
        self.weights = weights
        # every payoff figure of the master and its pricing (costs, h, O, duals, bounds) is in
        # payoffs divided by ``payoff_unit`` (a power of two, so the division is exact)
        self.payoff_unit = float(payoff_unit)
        self.trees = [OwnTree.build(sf, i) for i in range(self.n)]
        seqs = sf.terminal_sequences
        self.leaf_seqs = seqs
        self.leaf_w = sf.terminal_chance[:, None] * sf.terminal_payoffs / self.payoff_unit  # p_c u_i
        self.leaf_obj = self.leaf_w @ weights
        # compact (v-form) dual space: deviation rows of each player, obedience rows, convexity
        self.dev_offset, self.obey_offset, self.e_offset, self.dev_key = [], [], [], []
        nr = ne = 0
        for tr in self.trees:
            self.dev_offset.append(nr)
            nr += tr.row_trigger.size
            key = tr.row_trigger * tr.num_sequences + tr.row_seq
            self.dev_key.append((np.sort(key), np.argsort(key)))
        for tr in self.trees:
            self.obey_offset.append(nr)
            self.e_offset.append(ne)
            nr += tr.num_triggers
            ne += tr.num_triggers
        self.conv_row = nr
        self.num_rows = nr + 1
        self.num_e = ne                                          # one slack per trigger
        self.mu_offset = ne
        self.columns: list[list[np.ndarray]] = []
        self.keys: set[bytes] = set()
        self.dropped_keys: set[bytes] = set()           # columns dropped once (elastic runs)
        self.costs: list[float] = []
        # per player: π^k (K × Σ_i), h^k, O^k
        self.pi = [_Grow(tr.num_sequences, np.int8) for tr in self.trees]
        self.h = [_Grow(tr.num_sequences, float) for tr in self.trees]
        self.obey = [_Grow(tr.num_sequences, float) for tr in self.trees]
        # cuts: global order = master rows 1, 2, ...
        self.num_cuts = 0
        self.cut_keys: set[bytes] = set()
        self.cut_rows = [np.zeros(0, np.int64) for _ in self.trees]     # master rows per player
        self.cut_trigger = [np.zeros(0, np.int64) for _ in self.trees]
        self.cut_q: list[sp.csr_array] = [sp.csr_array((0, tr.num_sequences))
                                          for tr in self.trees]
        self.cut_dev_rows: list[np.ndarray] = [np.zeros(0, np.int64) for _ in self.trees]
        self.e = np.zeros(ne)
        self._highs = self._build_master()

    # -------------------------------------------------------------- master
    def _build_master(self) -> highspy.Highs:
        h = quiet_highs()
        inf = highspy.kHighsInf
        lp = highspy.HighsLp()
        lp.num_col_ = self.num_e
        lp.num_row_ = 1
        lp.col_cost_ = -np.ones(self.num_e)
        lp.col_lower_ = np.zeros(self.num_e)
        lp.col_upper_ = np.full(self.num_e, inf)
        lp.row_lower_ = np.ones(1)
        lp.row_upper_ = np.ones(1)
        lp.sense_ = highspy.ObjSense.kMaximize
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = np.zeros(self.num_e + 1, dtype=np.int32)
        lp.a_matrix_.index_ = np.zeros(0, dtype=np.int32)
        lp.a_matrix_.value_ = np.zeros(0)
        h.passModel(lp)
        return h

    def column(self, plans: list[np.ndarray]) -> tuple[float, list, list]:
        """The objective coefficient of a joint pure plan and, per player, h^k and O^k."""
        seqs = self.leaf_seqs
        reach = np.ones(seqs.shape[0], dtype=bool)
        for ell in range(self.n):
            reach &= plans[ell][seqs[:, ell]].astype(bool)
        cost = float(self.leaf_obj[reach].sum())
        hs, obeys = [], []
        for i, tr in enumerate(self.trees):
            others = np.ones(seqs.shape[0], dtype=bool)
            for ell in range(self.n):
                if ell != i:
                    others &= plans[ell][seqs[:, ell]].astype(bool)
            h = np.bincount(seqs[others, i], weights=self.leaf_w[others, i],
                            minlength=tr.num_sequences)
            obey = plans[i] * h
            for js, s_lv, starts in tr.levels:
                np.add.at(obey, tr.parent[js], np.add.reduceat(obey[s_lv], starts))
            hs.append(h)
            obeys.append(obey)
        return cost, hs, obeys

    def add(self, plans: list[np.ndarray], phase: int) -> bool:
        key = _column_key(plans)
        if key in self.keys:
            return False
        self.keys.add(key)
        plans = [np.asarray(p, np.int8) for p in plans]
        cost, hs, obeys = self.column(plans)
        rows, vals = [np.zeros(1, np.int64)], [np.ones(1)]
        for i in range(self.n):
            self.pi[i].append(plans[i])
            self.h[i].append(hs[i])
            self.obey[i].append(obeys[i])
            t = self.cut_trigger[i]
            if t.size:
                a = plans[i][t] * (obeys[i][t] - self.cut_q[i] @ hs[i])
                nz = np.flatnonzero(a)
                rows.append(self.cut_rows[i][nz])
                vals.append(a[nz])
        self.columns.append(plans)
        self.costs.append(cost)
        rows, vals = np.concatenate(rows).astype(np.int32), np.concatenate(vals)
        self._highs.addCol(cost if phase == 2 else 0.0, 0.0, highspy.kHighsInf, rows.size, rows,
                           vals)
        return True

    def start_phase_two(self) -> None:
        h = self._highs
        e = np.arange(self.num_e, dtype=np.int32)
        h.changeColsCost(e.size, e, np.zeros(e.size))
        h.changeColsBounds(e.size, e, np.zeros(e.size), np.zeros(e.size))
        self.e = np.zeros(self.num_e)
        k = len(self.columns)
        if k:
            idx = self.mu_offset + np.arange(k, dtype=np.int32)
            h.changeColsCost(k, idx, np.asarray(self.costs, dtype=float))

    def start_elastic(self, penalty: float) -> None:
        """The elastic master of a target_gap run: every μ column at its objective coefficient
        c^k and every trigger slack e ≥ 0 at cost −``penalty``
        (:mod:`lpgame.equilibria.correlated.efce_elastic_run`)."""
        h = self._highs
        self.set_penalty(penalty)
        k = len(self.columns)
        if k:
            idx = self.mu_offset + np.arange(k, dtype=np.int32)
            h.changeColsCost(k, idx, np.asarray(self.costs, dtype=float))

    def set_penalty(self, penalty: float) -> None:
        """Cost −``penalty`` on every trigger slack e (elastic master)."""
        e = np.arange(self.num_e, dtype=np.int32)
        self._highs.changeColsCost(e.size, e, np.full(e.size, -float(penalty)))

    def droppable(self) -> np.ndarray:
        """Mask over the columns: never dropped before."""
        return np.array([_column_key(c) not in self.dropped_keys for c in self.columns],
                        dtype=bool)

    def drop_columns(self, drop: np.ndarray) -> np.ndarray:
        """Remove the μ columns where ``drop`` (a mask over the columns) from the master and the
        column data; their keys are forgotten, so pricing may bring them back, but remembered as
        dropped: a column is dropped at most once (``droppable``), so dropping cannot cycle. The
        mask of the columns kept."""
        idx = (self.mu_offset + np.flatnonzero(drop)).astype(np.int32)
        self._highs.deleteCols(idx.size, idx)
        keep = ~drop
        for i in range(self.n):
            for grow in (self.pi[i], self.h[i], self.obey[i]):
                kept = grow.view[keep]
                grow.data[:kept.shape[0]] = kept
                grow.size = kept.shape[0]
        for k in np.flatnonzero(drop):
            key = _column_key(self.columns[k])
            self.keys.discard(key)
            self.dropped_keys.add(key)
        self.columns = [c for c, k in zip(self.columns, keep) if k]
        self.costs = [c for c, k in zip(self.costs, keep) if k]
        return keep

    def _levels(self, i: int) -> list:
        """Player i's levels (deepest first) with each level's information sets grouped by
        parent sequence: (js, seqs, starts, order, parents, group starts)."""
        if not hasattr(self, "_level_cache"):
            self._level_cache = {}
        if i not in self._level_cache:
            tr = self.trees[i]
            out = []
            for js, seqs, starts in tr.levels:
                order = np.argsort(tr.parent[js], kind="stable")
                par = tr.parent[js][order]
                first = np.flatnonzero(np.r_[True, par[1:] != par[:-1]])
                counts = np.diff(np.append(starts, seqs.size))
                width = int(counts[0]) if np.all(counts == counts[0]) else 0
                out.append((js, seqs, starts, order, par[first], first, width))
            self._level_cache[i] = out
        return self._level_cache[i]

    def _deviable(self, i: int) -> np.ndarray:
        """Per trigger t (index t − 1): whether some information set at or below t's has two or
        more actions. Otherwise every continuation is the recommendation and t never gains."""
        if not hasattr(self, "_deviable_cache"):
            self._deviable_cache = {}
        if i not in self._deviable_cache:
            tr = self.trees[i]
            p = self.sf.players[i]
            choice = np.asarray(p.infoset_num_actions) >= 2
            for js, _seqs, _starts in tr.levels:                  # deepest first
                par = tr.parent[js]
                up = par > 0
                np.logical_or.at(choice, tr.seq_infoset[par[up]], choice[js[up]])
            self._deviable_cache[i] = choice[tr.seq_infoset[1:]]
        return self._deviable_cache[i]

    def _best_continuations(self, i: int, g: np.ndarray, choose: bool):
        """Bottom-up on player i's tree for every column of g (rows: sequences, columns:
        triggers; g is overwritten): the value V[j, col] of every information set and, with
        ``choose``, the first best action's sequence at every information set."""
        tr = self.trees[i]
        values = np.zeros((tr.parent.size, g.shape[1]))
        choice = np.zeros((tr.parent.size, g.shape[1]), dtype=np.int64) if choose else None
        for js, seqs, starts, order, parents, gstarts, width in self._levels(i):
            vals = g[seqs]
            if width == 1:
                best = vals
            elif width:
                best = vals.reshape(js.size, width, -1).max(axis=1)
            else:
                best = np.maximum.reduceat(vals, starts, axis=0)
            values[js] = best
            if choose:
                counts = np.diff(np.append(starts, seqs.size))
                rep = np.repeat(best, counts, axis=0)
                pos = np.where(vals >= rep - 1e-12 * (1 + np.abs(rep)),
                               np.arange(seqs.size)[:, None], seqs.size)
                choice[js] = seqs[np.minimum.reduceat(pos, starts, axis=0)]
            g[parents] += np.add.reduceat(best[order], gstarts, axis=0)
        return values, choice

    def separate(self, mu: np.ndarray, tol: float) -> int:
        """Add, for every trigger whose best deviation against μ gains more than its slack + tol,
        the cut of that best continuation (when not already in the master). The number added."""
        added = 0
        ks = np.flatnonzero(mu > 0)
        for i, tr in enumerate(self.trees):
            if tr.num_triggers == 0:
                continue
            nseq = tr.num_sequences
            weighted = self.pi[i].view[ks] * mu[ks, None]           # μ_k π^k[t]
            active = np.flatnonzero((weighted[:, 1:].sum(axis=0) > 0) & self._deviable(i)) + 1
            if active.size == 0:
                continue
            hk = self.h[i].view[ks]
            obey = (weighted[:, active] * self.obey[i].view[ks][:, active]).sum(axis=0)
            values, _ = self._best_continuations(i, hk.T @ weighted[:, active], False)
            gain = values[tr.seq_infoset[active], np.arange(active.size)] - obey
            slack = self.e[self.e_offset[i] + active - 1]
            viol = active[gain - slack > tol]
            if viol.size == 0:
                continue
            _, choice = self._best_continuations(i, hk.T @ weighted[:, viol], True)
            # the best continuations below each violated trigger's information set, top-down
            q = np.zeros((viol.size, nseq), dtype=np.int8)
            top = tr.seq_infoset[viol]
            for js, _seqs, _starts in reversed(tr.levels):          # shallowest first
                reached = (js[None, :] == top[:, None]) | (q[:, tr.parent[js]] == 1)
                r, c = np.nonzero(reached)
                q[r, choice[js[c], r]] = 1
            new = []
            for r in range(viol.size):                              # dedup (one per trigger)
                key = np.int64(i).tobytes() + np.int64(viol[r]).tobytes() + q[r].tobytes()
                if key not in self.cut_keys:
                    self.cut_keys.add(key)
                    new.append(r)
            if not new:
                continue
            new = np.asarray(new)
            trig, qn = viol[new], sp.csr_array(q[new].astype(float))
            all_pi = self.pi[i].view
            coef = all_pi[:, trig] * (self.obey[i].view[:, trig] - self.h[i].view @ qn.T)
            coef = sp.csr_array(np.asarray(coef).T)                 # cuts × K
            e_col = self.e_offset[i] + trig - 1
            mat = sp.hstack([sp.csr_array((np.ones(trig.size), (np.arange(trig.size), e_col)),
                                          shape=(trig.size, self.num_e)), coef], format="csr")
            inf = highspy.kHighsInf
            self._highs.addRows(trig.size, np.zeros(trig.size), np.full(trig.size, inf),
                                mat.nnz, mat.indptr.astype(np.int32),
                                mat.indices.astype(np.int32), mat.data.astype(float))
            rows = 1 + self.num_cuts + np.arange(trig.size)
            self.num_cuts += trig.size
            self.cut_rows[i] = np.concatenate([self.cut_rows[i], rows])
            self.cut_trigger[i] = np.concatenate([self.cut_trigger[i], trig])
            self.cut_q[i] = sp.vstack([self.cut_q[i], qn], format="csr")
            # each cut nonzero's compact deviation row (for the dual map)
            qc = qn.tocoo()
            sorted_key, order = self.dev_key[i]
            dev = order[np.searchsorted(sorted_key, trig[qc.row] * nseq + qc.col)]
            self.cut_dev_rows[i] = np.concatenate([self.cut_dev_rows[i],
                                                   self.dev_offset[i] + dev])
            added += trig.size
        return added

    def compact_duals(self, row_dual: np.ndarray) -> np.ndarray:
        """The master's row duals mapped to the compact LP's rows (class docstring); a cut's
        dual of the wrong sign (rounding) is taken as 0, which keeps the map dual feasible."""
        y = np.zeros(self.num_rows)
        y[self.conv_row] = row_dual[0]
        for i, tr in enumerate(self.trees):
            if self.cut_rows[i].size == 0:
                continue
            d = np.minimum(row_dual[self.cut_rows[i]], 0.0)
            y[self.obey_offset[i]:self.obey_offset[i] + tr.num_triggers] = np.bincount(
                self.cut_trigger[i] - 1, weights=d, minlength=tr.num_triggers)
            per_nz = np.repeat(d, np.diff(self.cut_q[i].indptr))
            y += np.bincount(self.cut_dev_rows[i], weights=per_nz, minlength=self.num_rows)
        return y

    def solve_master(self, time_limit: float | None) -> tuple[float, np.ndarray, np.ndarray, float]:
        """(objective, μ, row duals mapped to the compact LP, largest slack e)."""
        h = self._highs
        # HiGHS measures its time limit on the instance's clock, which runs across solves
        h.setOptionValue("time_limit", h.getRunTime() + float(time_limit) if time_limit
                         else highspy.kHighsInf)
        h.run()
        status = h.getModelStatus()
        if status == highspy.HighsModelStatus.kTimeLimit:
            raise MasterTimeLimitError()
        if status != highspy.HighsModelStatus.kOptimal:
            raise SolverError(f"{self.sf.game.name}: the restricted master LP ended with status "
                              f"{h.modelStatusToString(status)}", status=str(status))
        sol = h.getSolution()
        x = np.asarray(sol.col_value)
        self.column_duals = np.asarray(sol.col_dual)[self.mu_offset:]    # reduced costs of μ
        mu = np.clip(x[self.mu_offset:], 0.0, None)
        self.e = np.clip(x[:self.num_e], 0.0, None)
        return (float(h.getInfo().objective_function_value), mu,
                self.compact_duals(np.asarray(sol.row_dual)), float(self.e.max(initial=0.0)))
