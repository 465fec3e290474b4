"""Pricing of the n-player EFCE column generation
(:mod:`lpgame.equilibria.correlated.efce_n_player`): the reduced cost of a joint pure plan at a
point of the compact LP's dual space (:mod:`lpgame.equilibria.correlated.efce_master`), the dual
points it is priced at, and the oracles that look for an improving column.

**Pricing.** With the master's row duals y, the reduced cost of a joint pure plan π is

    rc(π) = −y_conv + Σ_z Π_l π_l[σ_l(z)] p_c(z) [ w·u(z) − Σ_i u_i(z) Σ_{t ⪯ σ_i(z)} y_obey[i,t] ]
            + Σ_i Σ_{(σ̂, s) rows} y_dev[i,σ̂,s] π_i[σ̂] Σ_{z: σ_i(z) = s} p_c(z) u_i(z) Π_{l≠i} π_l[σ_l(z)],

a sum of monomials, each a product of one sequence per player. Two oracles:
(1) alternation: with the others' plans fixed rc is linear in π_i, so each player in turn plays a
best pure plan (bottom-up on its own tree), from several starts (the master's support); (2) when
alternation finds no improving column, an exact MILP on HiGHS (``scipy.optimize.milp``): binary
sequence-form plans x_l (F_l x_l = f_l) and one variable w_m ∈ [0, 1] per monomial of two or more
non-empty sequences, with w_m ≤ x_l[σ_l] for positive coefficients and
w_m ≥ Σ_l x_l[σ_l] − (d − 1) for negative ones (the standard product linearisation, as in the
TMECor oracle of Farina et al. 2018/2021).

The MILP is the product linearisation above, or, when it has at most ``MAX_CLOSURE`` variables,
a tighter one (:meth:`Model.milp_oracle`): a variable w[τ] for every tuple τ of sequences in the
closure of the leaves' and the monomials' tuples under "replace a coordinate by an action on its
path", with the treeplex rows Σ_{a'} w[τ with τ_l = (j, a')] = w[τ with τ_l = p_j] of every
coordinate (valid for products of pure plans).

**Dual points.** Pricing works in the compact LP's dual space, where the master's simplex duals
are mapped by :meth:`~lpgame.equilibria.correlated.efce_master.MasterLP.compact_duals`. It also
prices at the master's optimal duals of smallest Σ|y| (:meth:`Model.small_duals`, an LP over the
cut duals; the bounding rounds of :mod:`lpgame.equilibria.correlated.efce_bounds` go halfway to
them), and at the tuple relaxation's trigger duals rebuilt into exact treeplex flows
(:meth:`Model.relaxation_duals`, :meth:`Model.flow_feasible`;
:mod:`lpgame.equilibria.correlated.efce_bounds`, "Relaxation-guided pricing"). With a Wentges
centre, alternation first runs at the master's duals moved ``GUIDE_SMOOTHING`` of the way to it
and keeps a plan only when it improves at the master's own duals (:func:`price_by_alternation`).
"""

from __future__ import annotations

import highspy
import numpy as np
import scipy.sparse as sp

from lpgame.equilibria.correlated.ce_cce import SUPPORT_TOLERANCE
from lpgame.equilibria.correlated.efce_master import (
    MasterLP,
    OwnTree,
    concatenated_ranges,
    highs_matrix,
)
from lpgame.errors import LpgameError
from lpgame.lp.highs_backend import quiet_highs

COLUMNS_PER_ROUND = 16
"""Alternation starts from at most this many of the largest-μ columns (and the last one)."""
GUIDE_SMOOTHING = 0.5
"""Alternation first prices at the master's duals moved this far towards the Wentges centre."""
MAX_CLOSURE = 3_000_000
"""Largest closure (tuples of sequences) of the tight pricing MILP; above it, the product form."""


def best_pure_plan(tree: OwnTree, coef: np.ndarray) -> tuple[np.ndarray, float]:
    """argmax over the player's reduced pure plans of Σ_s coef[s] π[s] (bottom-up, the first best
    action at ties), and its value."""
    q = np.array(coef, dtype=float)
    choice = np.zeros(tree.parent.size, dtype=np.int64)
    for js, seqs, starts in tree.levels:
        vals = q[seqs]
        best = np.maximum.reduceat(vals, starts)
        counts = np.diff(np.append(starts, vals.size))
        rep = np.repeat(best, counts)
        hit = vals >= rep - 1e-12 * (1 + np.abs(rep))
        pos = np.flatnonzero(hit)
        seg = np.searchsorted(starts, pos, side="right") - 1
        firsts = pos[np.unique(seg, return_index=True)[1]]
        choice[js] = seqs[firsts]
        np.add.at(q, tree.parent[js], best)
    plan = np.zeros(tree.num_sequences, dtype=np.int8)
    plan[0] = 1
    for js, _seqs, _starts in reversed(tree.levels):
        reached = js[plan[tree.parent[js]] == 1]
        plan[choice[reached]] = 1
    return plan, float(q[0])


class Model(MasterLP):
    """The master LP (:class:`~lpgame.equilibria.correlated.efce_master.MasterLP`) with its
    pricing: the dual points of the compact LP it is priced at and the oracles (module
    docstring)."""

    # -------------------------------------------------------------- dual points
    def relaxation_duals(self, found) -> np.ndarray:
        """The tuple relaxation's trigger duals (``found.trigger_duals``,
        :class:`~lpgame.equilibria.correlated.efce_tuple_relaxation.TriggerDuals`) as a point of
        the compact LP's dual space (:mod:`lpgame.equilibria.correlated.efce_bounds`,
        "Relaxation-guided pricing"): the same rows, made exactly dual feasible by
        :meth:`flow_feasible`, with y_conv = the relaxation's bound U (in the master's units:
        the trigger duals are unit-free, U is divided by ``payoff_unit``)."""
        y = np.zeros(self.num_rows)
        for i, (tr, d) in enumerate(zip(self.trees, found.trigger_duals)):
            sorted_key, order = self.dev_key[i]
            pos = np.searchsorted(sorted_key, d.keys)
            if (d.keys.size != sorted_key.size or d.obedience.size != tr.num_triggers
                    or np.any(sorted_key[np.minimum(pos, sorted_key.size - 1)] != d.keys)):
                raise LpgameError(f"{self.sf.game.name}: the tuple relaxation's trigger rows of "
                                  f"player {i + 1} do not match the master's")
            y[self.dev_offset[i] + order[pos]] = d.deviation
            y[self.obey_offset[i]:self.obey_offset[i] + tr.num_triggers] = d.obedience
        y = self.flow_feasible(y)
        y[self.conv_row] = found.upper_bound / self.payoff_unit
        return y

    def flow_feasible(self, y: np.ndarray) -> np.ndarray:
        """``y`` with every trigger dual ≤ 0 and each trigger σ̂'s deviation duals rebuilt top-down
        as y_obey[σ̂] times a sequence-form plan of the subtree at σ̂'s decision node (each
        information set keeps the ratios of its actions' duals, uniform where none is negative).
        Such a y satisfies every v-column's dual constraint exactly (Σ_{a'} y_dev[σ̂, j'a'] equals
        the dual of j''s parent row, or y_obey[σ̂] at σ̂'s own decision node), so its Lagrangian
        bound is valid; a solver's duals satisfy them only to its tolerance."""
        y = y.copy()
        for i, tr in enumerate(self.trees):
            if tr.row_trigger.size == 0:
                continue
            obey_rows = slice(self.obey_offset[i], self.obey_offset[i] + tr.num_triggers)
            dev_rows = slice(self.dev_offset[i], self.dev_offset[i] + tr.row_trigger.size)
            obey = np.minimum(y[obey_rows], 0.0)
            dev = np.minimum(y[dev_rows], 0.0)
            node = tr.seq_infoset[tr.row_seq]
            depth = np.asarray(self.sf.players[i].infoset_depth)[node]
            top = node == tr.seq_infoset[tr.row_trigger]
            sorted_key, order = self.dev_key[i]
            for d in np.unique(depth):                       # shallow first: parents are done
                rows = np.flatnonzero(depth == d)
                t, j = tr.row_trigger[rows], node[rows]
                first = np.flatnonzero(np.r_[True, (t[1:] != t[:-1]) | (j[1:] != j[:-1])])
                size = np.diff(np.append(first, rows.size))
                head = rows[first]
                parent = np.where(top[head], obey[np.maximum(tr.row_trigger[head] - 1, 0)], 0.0)
                below = ~top[head]
                if below.any():
                    pkey = tr.row_trigger[head[below]] * tr.num_sequences + tr.parent[j[first[below]]]
                    parent[below] = dev[order[np.searchsorted(sorted_key, pkey)]]
                mass = -dev[rows]
                total = np.add.reduceat(mass, first)
                share = np.where(np.repeat(total, size) > 0,
                                 mass / np.repeat(np.where(total > 0, total, 1.0), size),
                                 1.0 / np.repeat(size, size))
                dev[rows] = np.repeat(parent, size) * share
            y[obey_rows], y[dev_rows] = obey, dev
        return y

    def small_duals(self, z: float, time_limit: float | None,
                    penalty: float | None = None) -> np.ndarray | None:
        """Among the optimal duals of the current phase-2 master (objective z), ones of smallest
        total size Σ_c |y_c| (an LP over the cut duals), mapped to the compact LP; None when
        that LP fails. Every such y is dual feasible, so it gives a valid Lagrangian bound.
        With ``penalty`` (the elastic master) the slack columns' dual constraints
        Σ_{cuts of σ̂} y_c ≥ −penalty are kept too, so y is an optimal dual of that master."""
        lp = self._highs.getLp()
        a = highs_matrix(lp)
        first = 0 if penalty is not None else self.mu_offset
        at = sp.csc_array(a[:, first:].T)                   # columns × rows: y·a_k ≥ c_k
        costs = np.asarray(self.costs, dtype=float)
        if penalty is not None:
            costs = np.r_[np.full(self.num_e, -float(penalty)), costs]
        nr = a.shape[0]
        inf = highspy.kHighsInf
        d = highspy.HighsLp()
        d.num_col_, d.num_row_ = nr, at.shape[0]
        d.col_cost_ = np.r_[0.0, -np.ones(nr - 1)]
        d.col_lower_ = np.full(nr, -inf)
        d.col_upper_ = np.r_[z + 1e-9 * max(1.0, abs(z)), np.zeros(nr - 1)]
        d.row_lower_ = costs
        d.row_upper_ = np.full(at.shape[0], inf)
        d.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        d.a_matrix_.start_ = at.indptr.astype(np.int32)
        d.a_matrix_.index_ = at.indices.astype(np.int32)
        d.a_matrix_.value_ = at.data.astype(float)
        h = quiet_highs()
        if time_limit is not None:
            h.setOptionValue("time_limit", max(float(time_limit), 0.1))
        h.passModel(d)
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None
        return self.compact_duals(np.asarray(h.getSolution().col_value))

    # -------------------------------------------------------------- pricing
    def monomials(self, duals: np.ndarray, phase: int) -> tuple[np.ndarray, np.ndarray, float]:
        """The reduced cost as (tuples of sequences (M × n), coefficients, constant)."""
        seqs = self.leaf_seqs
        leaf_coef = self.leaf_obj.copy() if phase == 2 else np.zeros(seqs.shape[0])
        tuples, coefs = [seqs], []
        for i, tr in enumerate(self.trees):
            y_obey = np.zeros(tr.num_sequences)
            y_obey[1:] = duals[self.obey_offset[i]:self.obey_offset[i] + tr.num_triggers]
            cum = y_obey.copy()                                    # Σ over own ancestors-or-self
            for js, s_lv, starts in reversed(tr.levels):           # shallow first
                cum[s_lv] += np.repeat(cum[tr.parent[js]], np.diff(np.append(starts, s_lv.size)))
            leaf_coef -= self.leaf_w[:, i] * cum[seqs[:, i]]
        coefs.append(leaf_coef)
        for i, tr in enumerate(self.trees):
            y = duals[self.dev_offset[i]:self.dev_offset[i] + tr.row_trigger.size]
            nz = np.flatnonzero(np.abs(y) > 1e-13)
            if nz.size == 0:
                continue
            leaf_order = np.argsort(seqs[:, i], kind="stable")
            own_sorted = seqs[leaf_order, i]
            lo = np.searchsorted(own_sorted, tr.row_seq[nz], side="left")
            hi = np.searchsorted(own_sorted, tr.row_seq[nz], side="right")
            cnt = hi - lo
            leaves = leaf_order[np.repeat(lo, cnt) + concatenated_ranges(cnt)]
            tup = seqs[leaves].copy()
            tup[:, i] = np.repeat(tr.row_trigger[nz], cnt)
            tuples.append(tup)
            coefs.append(np.repeat(y[nz], cnt) * self.leaf_w[leaves, i])
        allt = np.concatenate(tuples)
        allc = np.concatenate(coefs)
        keep = allc != 0
        uniq, inv = np.unique(allt[keep], axis=0, return_inverse=True)
        c = np.bincount(inv.ravel(), weights=allc[keep], minlength=uniq.shape[0])
        keep = np.abs(c) > 1e-15
        return uniq[keep], c[keep], -float(duals[self.conv_row])

    def evaluate(self, tuples, coefs, const, plans) -> float:
        prod = np.ones(tuples.shape[0], dtype=bool)
        for ell in range(self.n):
            prod &= plans[ell][tuples[:, ell]].astype(bool)
        return const + float(coefs[prod].sum())

    def alternate(self, tuples, coefs, const, plans, max_sweeps: int = 30):
        plans = [np.array(p, np.int8) for p in plans]
        value = self.evaluate(tuples, coefs, const, plans)
        for _ in range(max_sweeps):
            improved = False
            for i, tr in enumerate(self.trees):
                others = np.ones(tuples.shape[0], dtype=bool)
                for ell in range(self.n):
                    if ell != i:
                        others &= plans[ell][tuples[:, ell]].astype(bool)
                lin = np.bincount(tuples[others, i], weights=coefs[others],
                                  minlength=tr.num_sequences)
                plan, v = best_pure_plan(tr, lin)
                v += const
                if v > value + 1e-12 * (1 + abs(value)) and not np.array_equal(plan, plans[i]):
                    plans[i], value, improved = plan, v, True
            if not improved:
                break
        return plans, value

    def _path_sequences(self) -> list[list[np.ndarray]]:
        """Per player and own sequence s: ∅ and every action of every information set on the
        path to s (s's own information set included)."""
        if getattr(self, "_paths", None) is None:
            out = []
            for tr in self.trees:
                p = self.sf.players[tr.player]
                first = np.asarray(p.infoset_first_seq)
                counts = np.asarray(p.infoset_num_actions)
                lists = [np.zeros(1, np.int64)]
                for seq in range(1, tr.num_sequences):
                    j = int(tr.seq_infoset[seq])
                    par = int(tr.parent[j])
                    lists.append(np.concatenate([lists[par], first[j] + np.arange(counts[j])]))
                out.append(lists)
            self._paths = out
        return self._paths

    def milp_oracle(self, tuples, coefs, const, time_limit: float | None):
        """max rc by MILP: the tight formulation when its closure is small enough, otherwise the
        product linearisation (module docstring). (plans, value, upper bound, proved)."""
        tight = self._tight_model(tuples, coefs)
        if tight is not None:
            return self._tight_oracle(tight, tuples, coefs, const, time_limit)
        return self._product_oracle(tuples, coefs, const, time_limit)

    def _tight_model(self, tuples, coefs):
        """Variables w[τ] for every tuple τ of sequences in the closure of the leaves' and the
        monomials' tuples under "replace a coordinate by ∅ or by any action of an information
        set on its path", with w[∅,…,∅] = 1 and, for every τ and player l with τ_l = (j, a),
        Σ_{a'} w[τ with τ_l = (j, a')] = w[τ with τ_l = p_j] (valid for products of pure plans;
        with τ's other coordinates ∅ these are the treeplex constraints of the plans, whose
        entries are the binaries). None when the closure exceeds MAX_CLOSURE."""
        paths = self._path_sequences()
        base = np.unique(np.concatenate([self.leaf_seqs, tuples]), axis=0)
        lens = np.ones(base.shape[0])
        for ell in range(self.n):
            lens *= np.array([paths[ell][s].size for s in range(len(paths[ell]))])[base[:, ell]]
        if lens.sum() > MAX_CLOSURE:
            return None
        cur = base
        for ell in range(self.n):
            sizes = np.array([paths[ell][s].size for s in range(len(paths[ell]))])[cur[:, ell]]
            rep = np.repeat(cur, sizes, axis=0)
            rep[:, ell] = np.concatenate([paths[ell][s] for s in cur[:, ell].tolist()])
            cur = np.unique(rep, axis=0)
        sizes = [tr.num_sequences for tr in self.trees]
        mult = np.ones(self.n, np.int64)
        for ell in range(self.n - 2, -1, -1):
            mult[ell] = mult[ell + 1] * sizes[ell + 1]
        keys = cur @ mult                                   # sorted, as cur is sorted
        return cur, keys, mult

    def _tight_oracle(self, tight, tuples, coefs, const, time_limit):
        from scipy.optimize import Bounds, LinearConstraint, milp
        cur, keys, mult = tight
        nw = cur.shape[0]
        rows, cols, vals = [], [], []
        r = 0
        for ell, tr in enumerate(self.trees):
            nz = np.flatnonzero(cur[:, ell] != 0)
            j = tr.seq_infoset[cur[nz, ell]]
            parent_keys = keys[nz] - (cur[nz, ell] - tr.parent[j]) * mult[ell]
            group_key = parent_keys * (tr.parent.size + 1) + j
            groups, gid = np.unique(group_key, return_inverse=True)
            gid = gid.ravel()
            rows.append(r + gid)
            cols.append(nz)
            vals.append(np.ones(nz.size))
            first_member = np.unique(gid, return_index=True)[1]
            parent_pos = np.searchsorted(keys, parent_keys[first_member])
            rows.append(r + np.arange(groups.size))
            cols.append(parent_pos)
            vals.append(-np.ones(groups.size))
            r += groups.size
        a_eq = sp.csr_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                            shape=(r, nw))
        obj = np.zeros(nw)
        np.add.at(obj, np.searchsorted(keys, tuples @ mult), coefs)
        lower = np.zeros(nw)
        lower[0] = 1.0                                      # w[∅, …, ∅] = 1 (the smallest key)
        nonempty = (cur != 0).sum(axis=1)
        integrality = (nonempty == 1).astype(float)
        options = {"disp": False, "mip_rel_gap": 1e-9}
        if time_limit is not None:
            options["time_limit"] = max(float(time_limit), 1.0)
        res = milp(-obj, integrality=integrality, bounds=Bounds(lower, 1.0),
                   constraints=[LinearConstraint(a_eq, 0.0, 0.0)], options=options)
        if res.x is None:
            return None, -np.inf, np.inf, False
        w = np.round(res.x)
        plans = []
        for ell, tr in enumerate(self.trees):
            x = np.zeros(tr.num_sequences, np.int8)
            single = np.flatnonzero((nonempty <= 1) & ((cur != 0).sum(axis=1) == (cur[:, ell] != 0)))
            x[cur[single, ell]] = w[single].astype(np.int8)
            x[0] = 1
            plans.append(x)
        return self._oracle_answer(res, plans, tuples, coefs, const, const)

    def _oracle_answer(self, res, plans, tuples, coefs, const, bound_const):
        value = self.evaluate(tuples, coefs, const, plans)
        bound = getattr(res, "mip_dual_bound", None)
        upper = np.inf if bound is None or not np.isfinite(bound) else bound_const - float(bound)
        proved = res.status == 0
        if proved:
            upper = max(value, min(upper, value + 1e-9 * (1 + abs(value))))
        return plans, value, max(upper, value), proved

    def _product_oracle(self, tuples, coefs, const, time_limit: float | None):
        """max rc by the product linearisation of the module docstring."""
        from scipy.optimize import Bounds, LinearConstraint, milp
        sf = self.sf
        sizes = [sf.num_sequences(i) for i in range(self.n)]
        off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        nx_ = int(off[-1])
        glob = np.stack([off[ell] + tuples[:, ell] for ell in range(self.n)], axis=1)
        nonempty = tuples != 0
        degree = nonempty.sum(axis=1)
        lin = np.zeros(nx_)
        const2 = const + float(coefs[degree == 0].sum())
        one = np.flatnonzero(degree == 1)
        if one.size:
            which = np.argmax(nonempty[one], axis=1)
            np.add.at(lin, glob[one, which], coefs[one])
        multi = np.flatnonzero(degree >= 2)
        nw = multi.size
        c = np.concatenate([-lin, -coefs[multi]])
        a_eq = sp.hstack([sp.block_diag([sf.treeplex_matrix(i) for i in range(self.n)]),
                          sp.csr_array((sum(sf.num_infosets(i) + 1 for i in range(self.n)), nw))],
                         format="csr")
        b_eq = np.concatenate([sf.treeplex_rhs(i) for i in range(self.n)])
        rows, cols, vals, rhs = [], [], [], []
        r = 0
        pos = multi[coefs[multi] > 0]
        wpos = np.flatnonzero(coefs[multi] > 0)
        for ell in range(self.n):          # w ≤ x_l[σ_l] for non-empty σ_l
            sel = nonempty[pos, ell]
            k = int(sel.sum())
            rr = r + np.arange(k)
            rows += [rr, rr]
            cols += [nx_ + wpos[sel], glob[pos[sel], ell]]
            vals += [np.ones(k), -np.ones(k)]
            rhs.append(np.zeros(k))
            r += k
        neg = multi[coefs[multi] < 0]
        wneg = np.flatnonzero(coefs[multi] < 0)
        if neg.size:                       # Σ x − w ≤ d − 1
            rr = r + np.arange(neg.size)
            rows.append(rr)
            cols.append(nx_ + wneg)
            vals.append(-np.ones(neg.size))
            for ell in range(self.n):
                sel = nonempty[neg, ell]
                rows.append(rr[sel])
                cols.append(glob[neg[sel], ell])
                vals.append(np.ones(int(sel.sum())))
            rhs.append(degree[neg] - 1.0)
            r += neg.size
        a_ub = sp.csr_array((np.concatenate(vals) if vals else np.zeros(0),
                             (np.concatenate(rows) if rows else np.zeros(0, int),
                              np.concatenate(cols) if cols else np.zeros(0, int))),
                            shape=(r, nx_ + nw))
        constraints = [LinearConstraint(a_eq, b_eq, b_eq)]
        if r:
            constraints.append(LinearConstraint(a_ub, -np.inf, np.concatenate(rhs)))
        options = {"disp": False, "mip_rel_gap": 1e-9}
        if time_limit is not None:
            options["time_limit"] = max(float(time_limit), 1.0)
        res = milp(c, integrality=np.concatenate([np.ones(nx_), np.zeros(nw)]),
                   bounds=Bounds(0.0, 1.0), constraints=constraints, options=options)
        if res.x is None:
            return None, -np.inf, np.inf, False
        x = np.round(res.x[:nx_]).astype(np.int8)
        plans = [x[off[ell]:off[ell + 1]] for ell in range(self.n)]
        return self._oracle_answer(res, plans, tuples, coefs, const, const2)


def price_by_alternation(model: Model, duals, mu: np.ndarray, phase: int,
                         tol: float, center: np.ndarray | None = None) -> tuple[tuple, int]:
    """The reduced cost's monomials at ``duals``, and the columns alternation adds from the
    ``COLUMNS_PER_ROUND`` largest-μ columns and the last one (module docstring, "Pricing" 1.);
    with a ``center``, alternation first runs at duals smoothed towards it by
    ``GUIDE_SMOOTHING`` (a column is added only when it improves at ``duals``)."""
    monomials = model.monomials(duals, phase)
    support = np.argsort(-mu)[:COLUMNS_PER_ROUND]
    starts = [model.columns[k] for k in support if mu[k] > SUPPORT_TOLERANCE]
    starts.append(model.columns[-1])
    added = 0
    if center is not None and GUIDE_SMOOTHING > 0:
        smooth = model.monomials(GUIDE_SMOOTHING * center + (1 - GUIDE_SMOOTHING) * duals, phase)
        for s in starts:
            plans, _ = model.alternate(*smooth, s)
            if model.evaluate(*monomials, plans) > tol and model.add(plans, phase):
                added += 1
    for s in starts:
        plans, value = model.alternate(*monomials, s)
        if value > tol and model.add(plans, phase):
            added += 1
    return monomials, added
