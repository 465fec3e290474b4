"""The trigger deviators of optimal EFCE on the correlation DAG: each player's trigger deviations
as sparse maps from the mediator's tuple vector ξ, answered by a best response or learned by
predictive regret matching⁺ over their own subtrees.

**Formulation.** For player i and trigger t = (j, a) (Farina 2023, ch. 10, (10.2); App. 9.B), the
deviator picks z_{i,t} ∈ co{0, Q_{i,⪰j}} and gains

    g_t(ξ, z) = Σ_{s ⪰ j} z[s] Σ_τ U_i[s, τ] ξ[c_t ⊕ τ]  −  α · Σ_{s ⪰ a} Σ_τ U_i[s, τ] ξ[(s) ⊕ τ],

where α = z's weight on Q_{i,⪰j} (the obedient value is paid only when deviating). A *best
response* (:func:`best_deviations`) maximises every g_t by one bottom-up pass (z_t = 0 where no
deviation gains). A *regret minimiser* (:class:`DeviatorRegrets`) is the scaled extension
co{0, Q_{⪰j}} = {α q : α ∈ [0, 1], q ∈ Q_{⪰j}} (Farina 2023, Def. 4.1): regret matching⁺ on
{0, enter} at the top and counterfactual regret matching⁺ at every decision node of the subtree,
all triggers of a player at once (one vector of rows (t, s) and one of decision nodes (t, j')),
with the last utility as the prediction (PRM⁺, Farina, Kroer & Sandholm 2021). Against a
learning mediator both sides then have sublinear regret, and the average (x̄, z̄) approaches a
saddle point of the Lagrangian (Farina 2023, Thm. 10.1).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from lpgame.equilibria.correlated.efce import PlayerTree, triggers
from lpgame.lp.sorted_keys import find_keys, join_keys


@dataclass
class Deviations:
    """One player's trigger deviations as sparse maps from ξ (module docstring): ``dev`` rows are
    (trigger t, sequence s in t's scope) with value Σ_τ U_i[s, τ] ξ[c_t ⊕ τ]; ``obey`` rows are
    triggers with the obedient value; the best-response pass works level by level."""

    dev: sp.csr_array
    obey: sp.csr_array
    row_v: np.ndarray           # per dev row: its v entry (trigger, node of s)
    child_v: np.ndarray         # v entries strictly below their scope ...
    child_row: np.ndarray       # ... and the dev row (t, parent sequence) they add to
    v_depth: np.ndarray         # per v entry: depth of its node
    v_top: np.ndarray           # per trigger: its scope's v entry
    num_v: int
    levels: list = field(default_factory=list)   # (depth, its rows, its child entries)

    def __post_init__(self):
        row_depth = self.v_depth[self.row_v]
        child_depth = self.v_depth[self.child_v]
        self.levels = [(int(k), np.flatnonzero(row_depth == k), np.flatnonzero(child_depth == k),
                        np.flatnonzero(self.v_depth == k))
                       for k in np.unique(self.v_depth)[::-1]]
        self.devT = self.dev.T.tocsr()
        self.obeyT = self.obey.T.tocsr()
        self.rows_per_v = np.bincount(self.row_v, minlength=self.num_v).astype(float)


def player_deviations(sf, player: int, keys: np.ndarray, strides: np.ndarray,
                      scale: float) -> Deviations:
    """The trigger deviations of ``player`` over the tuple vector with sorted ``keys``, payoffs
    divided by ``scale`` (the structure of :func:`~lpgame.equilibria.correlated.efce.add_trigger_rows`,
    Farina 2023 App. 9.B, read as a best-response pass instead of LP rows)."""
    tree = PlayerTree.build(sf, player)
    trig = triggers(tree, "efce")
    n, m = tree.num_sequences, tree.num_infosets
    seqs = sf.terminal_sequences.astype(np.int64)
    value = sf.terminal_chance * sf.terminal_payoffs[:, player] / scale
    keep = value != 0
    own = seqs[keep, player]
    others = (seqs[keep] @ strides) - own * strides[player]
    val = value[keep]
    K = keys.size
    scope_j, below_j = tree.infoset_scope_members()
    ti, ri = join_keys(trig.scope, scope_j)
    v_key = np.sort(ti * (m + 1) + below_j[ri])
    v_t, v_j = v_key // (m + 1), v_key % (m + 1)
    scope_s_j, scope_s = tree.scope_members()
    ti, ri = join_keys(trig.scope, scope_s_j)
    row_key = np.sort(ti * n + scope_s[ri])
    row_t, row_s = row_key // n, row_key % n
    row_v = find_keys(v_key, row_t * (m + 1) + tree.seq_infoset[row_s], "v entries")
    strict = np.flatnonzero(v_j != trig.scope[v_t])
    child_row = find_keys(row_key, v_t[strict] * n + tree.infoset_parent[v_j[strict]], "rows")
    ri, ei = join_keys(row_s, own)
    cols = find_keys(keys, others[ei] + trig.cond[row_t[ri]] * strides[player], "tuples")
    dev = sp.csr_array((val[ei], (ri, cols)), shape=(row_key.size, K))
    anc = tree.ancestors
    s_rep = np.repeat(np.arange(n), anc.shape[1])
    a = anc.ravel()
    ok = a >= 1
    ti, ri = join_keys(trig.cond, a[ok])
    ob_seq = s_rep[ok][ri]
    oi, ei = join_keys(ob_seq, own)
    cols = find_keys(keys, others[ei] + own[ei] * strides[player], "tuples")
    obey = sp.csr_array((val[ei], (ti[oi], cols)), shape=(trig.scope.size, K))
    v_top = find_keys(v_key, np.arange(trig.scope.size) * (m + 1) + trig.scope, "v entries")
    return Deviations(dev, obey, row_v, strict, child_row, tree.infoset_depth[v_j], v_top,
                      v_key.size)


def best_deviations(d: Deviations, xi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(gain per trigger, the gradient Σ_t [gain_t > 0] ∂gain_t/∂ξ) of the best deviations at
    ``xi``: bottom-up v[t, j'] = max_{s at j'} (dev[t, s] + Σ_{j'' below s} v[t, j'']), then the
    argmax plan top-down."""
    total = d.dev @ xi
    v = np.full(d.num_v, -np.inf)
    for _, rows, kids, _ in d.levels:
        np.maximum.at(v, d.row_v[rows], total[rows])
        np.add.at(total, d.child_row[kids], v[d.child_v[kids]])
    # the argmax row of every v entry (the first row reaching its max)
    best_row = np.full(d.num_v, -1, dtype=np.int64)
    hit = np.flatnonzero(total >= v[d.row_v])
    best_row[d.row_v[hit[::-1]]] = hit[::-1]
    gain = v[d.v_top] - d.obey @ xi
    active = gain > 0
    reach = np.zeros(d.num_v)
    reach[d.v_top[active]] = 1.0
    chosen = np.zeros(total.size)
    for _, _, kids, vs in d.levels[::-1]:          # top-down: a level's entries, then its rows
        reach[d.child_v[kids]] = np.maximum(reach[d.child_v[kids]], chosen[d.child_row[kids]])
        vs = vs[reach[vs] > 0]
        chosen[best_row[vs]] = reach[vs]
    grad = d.devT @ chosen - d.obeyT @ active.astype(float)
    return np.maximum(gain, 0.0), grad


class DeviatorRegrets:
    """One player's trigger deviators as predictive regret matching⁺ on co{0, Q_{⪰j}} (module
    docstring), every trigger at once. :meth:`observe` takes the current ξ, updates the regrets
    and returns the gradient Σ_t ∂g_t/∂ξ at the deviators' next strategy."""

    def __init__(self, d: Deviations):
        self.d = d
        rows, triggers_ = d.dev.shape[0], d.v_top.size
        self.regret = np.zeros(rows)
        self.top = np.zeros((triggers_, 2))           # regrets of (out, enter)
        self.policy = 1.0 / d.rows_per_v[d.row_v]
        self.alpha = np.full(triggers_, 0.5)

    def observe(self, xi: np.ndarray) -> np.ndarray:
        d = self.d
        total = d.dev @ xi
        V = np.zeros(d.num_v)
        for _, rows, kids, _ in d.levels:
            V += np.bincount(d.row_v[rows], weights=self.policy[rows] * total[rows],
                             minlength=d.num_v)
            np.add.at(total, d.child_row[kids], V[d.child_v[kids]])
        inst = total - V[d.row_v]
        np.add(self.regret, inst, out=self.regret)
        np.maximum(self.regret, 0.0, out=self.regret)
        self.policy = _normalise(np.maximum(self.regret + inst, 0.0), d.row_v, d.num_v,
                                 d.rows_per_v)
        gain = V[d.v_top] - d.obey @ xi
        top_inst = np.stack([-self.alpha * gain, (1.0 - self.alpha) * gain], axis=1)
        np.add(self.top, top_inst, out=self.top)
        np.maximum(self.top, 0.0, out=self.top)
        w = np.maximum(self.top + top_inst, 0.0)
        s = w.sum(axis=1)
        self.alpha = np.divide(w[:, 1], s, out=np.full(s.size, 0.5), where=s > 0)
        z = self._sequence_plan()
        return d.devT @ z - d.obeyT @ self.alpha

    def _sequence_plan(self) -> np.ndarray:
        d = self.d
        reach = np.zeros(d.num_v)
        reach[d.v_top] = self.alpha
        z = np.zeros(self.policy.size)
        for _, rows, kids, _ in d.levels[::-1]:      # top-down: a level's entries, then its rows
            reach[d.child_v[kids]] = z[d.child_row[kids]]
            z[rows] = reach[d.row_v[rows]] * self.policy[rows]
        return z


def _normalise(weights: np.ndarray, group: np.ndarray, groups: int, sizes: np.ndarray):
    sums = np.bincount(group, weights=weights, minlength=groups)[group]
    return np.divide(weights, sums, out=1.0 / sizes[group], where=sums > 0.0)
