"""Gaps of two-player correlation plans: the largest gain of any trigger deviation (EFCE, EFCCE, NFCCE).

The checker reads only the leaves of the sequence form (payoffs, chance, sequences) and the
candidate plan ξ[σ1, σ2] (Farina 2023, Def. 9.1), never an LP. For a trigger of player i the
deviator follows the recommendations until the trigger fires and then plays any continuation y
from the trigger's information set on; its payoff against the opponent's recommendations is
linear in y, so the best continuation is found bottom-up (as in
:mod:`lpgame.analysis.best_response`):

    g_t[σ]  = Σ_{z : σ_i(z) = σ} p_c(z) u_i(z) ξ[c_t ⊕ σ_{-i}(z)]          for σ below the scope,
    V_t(j') = max_{a'} ( g_t[j'a'] + Σ_{j'' ∈ C_{j'a'}} V_t(j'') ),
    gain_t  = V_t(scope) − Σ_{z obeying t} p_c(z) u_i(z) ξ[σ_1(z), σ_2(z)].

* EFCE (Farina 2023, Def. 8.2; App. 9.B with chance, erratum 9 of the notes): triggers are the
  sequences σ̂ = (j, a); scope j; c_t = σ̂; obeying leaves: σ_i(z) ⪰ σ̂.
* EFCCE (Farina, Bianchi & Sandholm 2020; notes §1.9): triggers are information sets j, the player
  deciding to deviate on reaching j before hearing the recommendation; scope j; c_t = p_j; obeying
  leaves: those through j.
* NFCCE: one trigger per player at the root; scope the whole tree, c_t = ∅ (the deviator ignores
  every recommendation).

Each gap is max(0, largest gain). The per-trigger values are computed for all triggers at once,
one vectorised step per depth of the player's tree; :class:`TriggerGains` keeps the game's part of
that computation to measure many plans (a learner's checkpoints). :func:`plan_residual` reports how
far a plan is from the von Stengel–Forges polytope (Farina 2023, Def. 9.3: Σ_a ξ[ja, τ] = ξ[p_j, τ],
ξ[∅, ∅] = 1, ξ ≥ 0), since a gap alone does not say that ξ is a correlation plan.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp

from lpgame.analysis.normal_form_correlated_gaps import CorrelatedGap
from lpgame.errors import InvalidGameError, StrategyError
from lpgame.lp.sorted_keys import as_index, unique
from lpgame.sequence_form import SequenceForm


# ---------------------------------------------------------------------------------------- plans
def plan_matrix(sf: SequenceForm, plan) -> sp.csr_array:
    """A correlation plan as a sparse |Σ_1| × |Σ_2| array.

    Accepts a scipy sparse or dense array of that shape, or a mapping
    ``{(sequence label of player 1, sequence label of player 2): value}`` with the labels of
    :meth:`SequenceForm.sequence_labels` (``"∅"``, ``"infoset:action"``).
    """
    shape = (sf.num_sequences(0), sf.num_sequences(1))
    if isinstance(plan, Mapping):
        index = [{label: k for k, label in enumerate(sf.sequence_labels(i))} for i in range(2)]
        rows, cols, vals = [], [], []
        for key, value in plan.items():
            if not isinstance(key, tuple) or len(key) != 2:
                raise StrategyError(f"correlation-plan key {key!r} is not a pair of sequences")
            for i in range(2):
                if key[i] not in index[i]:
                    raise StrategyError(f"player {i + 1} has no sequence {key[i]!r}")
            rows.append(index[0][key[0]])
            cols.append(index[1][key[1]])
            vals.append(float(value))
        return sp.csr_array((vals, (rows, cols)), shape=shape)
    matrix = sp.csr_array(plan) if sp.issparse(plan) else sp.csr_array(np.asarray(plan, float))
    if matrix.shape != shape:
        raise StrategyError(f"a correlation plan of this game has shape {shape}, got {matrix.shape}")
    return matrix


class _PlanLookup:
    """ξ[σ1, σ2] for arrays of pairs (0 where the plan has no entry)."""

    def __init__(self, matrix: sp.csr_array):
        self.n2 = matrix.shape[1]
        if sp.issparse(matrix) and matrix.format == "csr" and matrix.has_canonical_format:
            # rows in order, sorted unique columns: the keys are sorted already
            counts = np.diff(matrix.indptr)
            rows = np.repeat(np.arange(matrix.shape[0], dtype=np.int64), counts)
            self.keys = rows * self.n2 + matrix.indices
            self.values = np.asarray(matrix.data, dtype=float)
            return
        coo = sp.coo_array(matrix)
        coo.sum_duplicates()
        keys = coo.row.astype(np.int64) * self.n2 + coo.col
        order = np.argsort(keys)
        self.keys, self.values = keys[order], coo.data[order].astype(float)

    def positions(self, s1: np.ndarray, s2: np.ndarray) -> np.ndarray:
        """Where each pair's value is in ``values`` (−1: not in the plan)."""
        keys = np.asarray(s1, dtype=np.int64) * self.n2 + np.asarray(s2, dtype=np.int64)
        if self.keys.size == 0:
            return np.full(keys.shape, -1, np.int64)
        pos = np.minimum(np.searchsorted(self.keys, keys), self.keys.size - 1)
        return np.where(self.keys[pos] == keys, pos, -1)

    def at(self, pos: np.ndarray) -> np.ndarray:
        return np.where(pos >= 0, self.values[np.maximum(pos, 0)] if self.values.size else 0.0,
                        0.0)

    def __call__(self, s1: np.ndarray, s2: np.ndarray) -> np.ndarray:
        return self.at(self.positions(s1, s2))


def plan_from_distribution(plans: list[np.ndarray], distribution) -> np.ndarray:
    """ξ = f(μ) (Farina 2023, Def. 9.1): ξ[σ1, σ2] = Σ μ[π1, π2] π1[σ1] π2[σ2], dense.

    ``plans[i]`` are 0/1 rows (one per pure plan) over player i's sequences; ``distribution`` has
    shape (|Π_1|, |Π_2|).
    """
    p1, p2 = (np.asarray(p, dtype=float) for p in plans)
    mu = np.asarray(distribution, dtype=float).reshape(p1.shape[0], p2.shape[0])
    return p1.T @ mu @ p2


def _own_tree(sf: SequenceForm, player: int):
    """Per sequence: its infoset (∅ → virtual root m), depth, and ancestors (n × (D+1), −1 pad)."""
    p = sf.players[player]
    n, m = p.num_sequences, p.num_infosets
    seq_infoset = p.seq_infoset.copy()
    seq_infoset[0] = m
    parent = np.full(n, -1, dtype=np.int64)
    depth = np.zeros(n, dtype=np.int64)
    if n > 1:
        parent[1:] = p.infoset_parent_seq[p.seq_infoset[1:]]
        depth[1:] = p.infoset_depth[p.seq_infoset[1:]] + 1
    ancestors = np.full((n, int(depth.max()) + 1), -1, dtype=np.int64)
    current = np.arange(n)
    while True:
        live = current >= 0
        if not live.any():
            break
        ancestors[np.flatnonzero(live), depth[current[live]]] = current[live]
        current = np.where(live, parent[np.maximum(current, 0)], -1)
        current[~live] = -1
    infoset_parent = np.concatenate([p.infoset_parent_seq, [-1]])
    infoset_depth = np.concatenate([p.infoset_depth, [-1]])
    return seq_infoset, ancestors, infoset_parent, infoset_depth


def _join(left: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All index pairs (l, r) with left[l] == right[r]."""
    order = np.argsort(right, kind="stable")
    ordered = right[order]
    lo = np.searchsorted(ordered, left, "left")
    counts = np.searchsorted(ordered, left, "right") - lo
    total = int(counts.sum())
    li = np.repeat(np.arange(left.size), counts)
    offsets = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
    return li, order[np.repeat(lo, counts) + offsets]


def trigger_gains(sf: SequenceForm, plan, player: int, kind: str) -> tuple[np.ndarray, list[str]]:
    """Gain of every trigger of ``player`` (``kind`` ``"efce"``, ``"efcce"`` or ``"nfcce"``).

    Returns the gains and the triggers' labels (see module docstring for the recursion). To
    measure many plans of one game, build a :class:`TriggerGains` once.
    """
    gains = TriggerGains(sf, player, kind)
    return gains(plan), gains.names


class TriggerGains:
    """The trigger gains of one player as a reusable evaluator: everything that depends only on
    the game (the (trigger, leaf) incidences, the bottom-up order) is computed once, and each
    call reads the plan's values (module docstring). The positions of the queried pairs are
    kept while successive plans have the same sparsity pattern. Positions (triggers, leaves,
    nodes, sequences, plan entries) are stored as int32 while they fit, int64 otherwise; the
    gains are float64."""

    def __init__(self, sf: SequenceForm, player: int, kind: str):
        if sf.num_players != 2:
            raise InvalidGameError(f"{sf.game.name}: correlation plans are defined here for two "
                                   f"players, the game has {sf.num_players}")
        self.sf, self.player, self.kind = sf, player, kind
        p = sf.players[player]
        n, m = p.num_sequences, p.num_infosets
        seq_infoset, anc, infoset_parent, infoset_depth = _own_tree(sf, player)
        anc_infoset = np.where(anc >= 0, seq_infoset[np.maximum(anc, 0)], -1)
        labels_seq = sf.sequence_labels(player)
        if kind == "efce":
            trig_seq = np.arange(1, n)
            scope, cond = p.seq_infoset[1:].astype(np.int64), trig_seq
            self.names = [labels_seq[s] for s in trig_seq]
        elif kind == "efcce":
            scope = np.arange(m)
            cond = p.infoset_parent_seq.astype(np.int64)
            self.names = list(p.infoset_labels)
        elif kind == "nfcce":
            scope, cond = np.array([m]), np.array([0])
            self.names = ["(whole game)"]
        else:
            raise InvalidGameError(f"unknown trigger kind {kind!r}")
        self.scope, self.cond = scope, cond
        T = self.num_triggers = scope.size
        if T == 0:
            return
        own = sf.terminal_sequences[:, player].astype(np.int64)
        opp = sf.terminal_sequences[:, 1 - player].astype(np.int64)
        self.weight = sf.terminal_chance * sf.terminal_payoffs[:, player]
        # every (trigger, own sequence in its scope): the nodes of the bottom-up recursion
        s_all = np.repeat(np.arange(n), anc.shape[1])
        j_all = anc_infoset.ravel()
        keep = j_all >= 0
        ti, ri = _join(scope, j_all[keep])
        node_key = np.sort(ti * n + s_all[keep][ri])
        node_t, node_s = node_key // n, node_key % n
        self.num_nodes = node_key.size
        # leaves: g_t[σ_i(z)] += w_z ξ[c_t ⊕ σ_{-i}(z)] for every trigger whose scope z passes
        z_all = np.repeat(np.arange(own.size), anc.shape[1])
        jz = anc_infoset[own].ravel()
        keep = jz >= 0
        z_all, jz = z_all[keep], jz[keep]
        ti, ri = _join(scope, jz)
        zz = z_all[ri]
        # the (trigger, leaf) incidences are the evaluator's bulk: stored as int32 positions
        # while they fit (index_dtype), int64 otherwise; keys are formed in int64
        self.leaf_t, self.leaf_z = as_index(ti, T), as_index(zz, own.size)
        self.leaf_node = as_index(np.searchsorted(node_key, ti * n + own[zz]), node_key.size)
        n_opp = sf.num_sequences(1 - player)
        self.query = ((as_index(cond[ti], n), as_index(opp[zz], n_opp)) if player == 0
                      else (as_index(opp[zz], n_opp), as_index(cond[ti], n)))
        del ti, zz, ri
        # bottom-up: best[t, j'] = max over the sequences of j'; added to the parent sequence's node
        node_j = seq_infoset[node_s]
        groups, group_of_node = unique(node_t * (m + 1) + node_j, return_inverse=True)
        group_t, group_j = groups // (m + 1), groups % (m + 1)
        node_depth = infoset_depth[node_j]
        group_depth = infoset_depth[group_j]
        self.num_groups = groups.size
        self.steps = []
        for d in range(int(node_depth.max()), -2, -1):
            nodes = np.flatnonzero(node_depth == d)
            nodes = nodes[np.argsort(group_of_node[nodes], kind="stable")]
            g = group_of_node[nodes]
            starts = np.flatnonzero(np.concatenate([[True], g[1:] != g[:-1]])) if g.size \
                else np.zeros(0, np.int64)
            up = np.flatnonzero((group_depth == d) & (group_j != scope[group_t]))
            parent = np.searchsorted(node_key, group_t[up] * n + infoset_parent[group_j[up]])
            self.steps.append((nodes, starts, g[starts] if g.size else g, up, parent))
        self.deviation_group = np.searchsorted(groups, np.arange(T) * (m + 1) + scope)
        self.group_t = group_t
        self.group_parent = np.full(groups.size, -1, np.int64)      # scope groups: −1
        for _, _, _, up, parent in self.steps:
            self.group_parent[up] = parent
        self.node_key = node_key
        # obedience: the leaves where obeying the trigger's recommendation reaches
        if kind == "efce":
            za = np.repeat(np.arange(own.size), anc.shape[1])
            sa = anc[own].ravel()
            keep = sa >= 1
            self.obey_t, self.obey_z = as_index(sa[keep] - 1, T), as_index(za[keep], own.size)
        else:
            self.obey_t, self.obey_z = self.leaf_t, self.leaf_z
        self.leaf_pairs = (sf.terminal_sequences[:, 0], sf.terminal_sequences[:, 1])
        self._pattern = None

    def forget_plan_positions(self) -> None:
        """Drop the cached positions of the last plan's sparsity pattern (memory; the next call
        rebuilds them)."""
        self._pattern = None

    def _lookup(self, plan) -> tuple[np.ndarray, np.ndarray]:
        xi = _PlanLookup(plan_matrix(self.sf, plan))
        cached = self._pattern
        if cached is None or cached[0].size != xi.keys.size \
                or not np.array_equal(cached[0], xi.keys):
            cached = (xi.keys, as_index(xi.positions(*self.query), xi.keys.size),
                      as_index(xi.positions(*self.leaf_pairs), xi.keys.size))
            self._pattern = cached
        return xi.at(cached[1]), xi.at(cached[2])

    def __call__(self, plan) -> np.ndarray:
        """The gain of every trigger against ``plan`` (any form :func:`plan_matrix` takes)."""
        if self.num_triggers == 0:
            return np.zeros(0)
        recommended, at_leaves = self._lookup(plan)
        total = np.bincount(self.leaf_node, weights=self.weight[self.leaf_z] * recommended,
                            minlength=self.num_nodes)
        best = np.full(self.num_groups, -np.inf)
        for nodes, starts, groups, up, parent in self.steps:
            if nodes.size:
                best[groups] = np.maximum.reduceat(total[nodes], starts)
            if up.size:
                total += np.bincount(parent, weights=best[up], minlength=self.num_nodes)
        deviation = best[self.deviation_group]
        obey = np.bincount(self.obey_t, weights=(self.weight * at_leaves)[self.obey_z],
                           minlength=self.num_triggers)
        return deviation - obey

    def deviator_point(self, deviate, continuation) -> tuple[np.ndarray, np.ndarray]:
        """A point e·(1, y) of every trigger's deviation set co{0, 𝒬_{⪰j}} (Farina 2023, (10.2))
        rebuilt from any candidate, so that a bound computed from it does not rest on the
        candidate's feasibility: e = max(``deviate``, 0) per trigger; at every decision node at
        or below the scope the local behaviour is ``continuation``'s [t, j'a] / Σ_a [t, j'a]
        (uniform where that sum is not positive), and y is rebuilt from the top: y[t, ja] =
        e_t·b(ja) at the scope j, y[t, j'a] = y[t, p_{j'}]·b(j'a) below. ``continuation``: a
        (triggers × sequences) array, dense or sparse. Returns (e, y on the (trigger, sequence)
        nodes)."""
        T, n = self.num_triggers, self.sf.num_sequences(self.player)
        e = np.maximum(np.asarray(deviate, dtype=float).ravel(), 0.0)
        if e.size != T:
            raise StrategyError(f"player {self.player + 1}: {e.size} deviation weights for "
                                f"{T} triggers")
        y_in = _PlanLookup(sp.csr_array(continuation) if sp.issparse(continuation)
                           else sp.csr_array(np.asarray(continuation, dtype=float)))
        if y_in.n2 != n:
            raise StrategyError(f"player {self.player + 1}: continuations over {y_in.n2} "
                                f"sequences, the player has {n}")
        raw = np.maximum(y_in(self.node_key // n, self.node_key % n), 0.0)
        y = np.zeros(self.num_nodes)
        for nodes, starts, groups, _, _ in reversed(self.steps):
            if nodes.size == 0:
                continue
            vals = raw[nodes]
            total = np.add.reduceat(vals, starts)
            count = np.diff(np.append(starts, nodes.size))
            rep = np.repeat(np.arange(starts.size), count)
            b = np.where(total[rep] > 0, vals / np.where(total[rep] > 0, total[rep], 1.0),
                         1.0 / count[rep])
            parent = self.group_parent[groups]
            mass = np.where(parent >= 0, y[np.maximum(parent, 0)], e[self.group_t[groups]])
            y[nodes] = mass[rep] * b
        return e, y

    def transpose(self, deviate: np.ndarray, y: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Σ_t A_t x_t as entries (σ1, σ2, value) (duplicates to be summed): the coefficient of
        each pair in Σ_t gain_t for the deviator points (e, y) of :meth:`deviator_point`,
        i.e. Σ_t (y_t · g_t(ξ) − e_t · obey_t(ξ)) = Σ value·ξ[σ1, σ2]."""
        dev = self.weight[self.leaf_z] * y[self.leaf_node]
        obey = -deviate[self.obey_t] * self.weight[self.obey_z]
        s1 = np.concatenate([self.query[0], self.leaf_pairs[0][self.obey_z]])
        s2 = np.concatenate([self.query[1], self.leaf_pairs[1][self.obey_z]])
        return s1, s2, np.concatenate([dev, obey])


def _plan_gap(sf: SequenceForm, plan, kind: str) -> CorrelatedGap:
    matrix = plan_matrix(sf, plan)
    gains, worst, best_all = [], {}, -np.inf
    for i in range(2):
        g, names = trigger_gains(sf, matrix, i, kind)
        if g.size == 0:
            gains.append(0.0)
            continue
        k = int(np.argmax(g))
        gains.append(float(g[k]))
        if g[k] > best_all:
            best_all = float(g[k])
            worst = {"player": i + 1, "trigger": names[k]}
    best = max(gains)
    return CorrelatedGap(kind, max(0.0, best), best, gains, worst, plan_residual(sf, matrix))


def efce_gap(sf: SequenceForm, plan) -> CorrelatedGap:
    """EFCE gap of a two-player correlation plan (see module docstring)."""
    return _plan_gap(sf, plan, "efce")


def efcce_gap(sf: SequenceForm, plan) -> CorrelatedGap:
    """EFCCE gap of a two-player correlation plan (see module docstring)."""
    return _plan_gap(sf, plan, "efcce")


def nfcce_gap(sf: SequenceForm, plan) -> CorrelatedGap:
    """NFCCE gap of a two-player correlation plan (see module docstring)."""
    return _plan_gap(sf, plan, "nfcce")


def vsf_rows(sf: SequenceForm, player: int) -> tuple[np.ndarray, np.ndarray]:
    """The von Stengel–Forges rows Σ_a ξ[ja, τ] = ξ[p_j, τ] of ``player``'s information sets j
    (Farina 2023, Def. 9.3): every (j, τ) with τ = ∅, or τ's information set and j both on the
    path to some leaf. Returns (j, τ), sorted by j·|Σ_other| + τ."""
    i, o = player, 1 - player
    p, q = sf.players[i], sf.players[o]
    seq_inf_i, anc_i, _, _ = _own_tree(sf, i)
    seq_inf_o, anc_o, _, _ = _own_tree(sf, o)
    mi, mo = p.num_infosets, q.num_infosets
    if mi == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    own = sf.terminal_sequences[:, i]
    opp = sf.terminal_sequences[:, o]
    nn = q.num_sequences
    pk = unique(own.astype(np.int64) * nn + opp)
    pairs = np.stack([pk // nn, pk % nn], axis=1)
    inf_i = np.where(anc_i >= 0, seq_inf_i[np.maximum(anc_i, 0)], -1)[pairs[:, 0]]
    inf_o = np.where(anc_o >= 0, seq_inf_o[np.maximum(anc_o, 0)], -1)[pairs[:, 1]]
    # (leaf pair, own real infoset j) × (opponent infoset on the path, each of its actions)
    zi, di = np.nonzero((inf_i >= 0) & (inf_i < mi))
    zo, do = np.nonzero(inf_o >= 0)
    li, ro = _join(zi, zo)
    j = inf_i[zi[li], di[li]]
    jo = inf_o[zo[ro], do[ro]]
    keys = unique(j.astype(np.int64) * (mo + 1) + jo)
    j, jo = keys // (mo + 1), keys % (mo + 1)
    counts = np.where(jo == mo, 1, np.concatenate([q.infoset_num_actions, [1]])[jo])
    first = np.where(jo == mo, 0, np.concatenate([q.infoset_first_seq, [0]])[jo])
    jr = np.repeat(j, counts)
    tau = np.repeat(first, counts) + (np.arange(counts.sum())
                                       - np.repeat(np.cumsum(counts) - counts, counts))
    rows = unique(jr * nn + tau)
    return rows // nn, rows % nn


def plan_residual(sf: SequenceForm, plan) -> float:
    """Largest violation of the von Stengel–Forges constraints (Farina 2023, Def. 9.3) by ξ.

    Checked on every pair (information set j of one player, sequence τ of the other) that lies on
    a common path (τ = ∅, or τ's information set and j both on the path to some leaf; see
    :func:`vsf_rows`): |Σ_a ξ[ja, τ] − ξ[p_j, τ]|, plus |ξ[∅, ∅] − 1| and negative entries.
    """
    matrix = plan_matrix(sf, plan)
    xi = _PlanLookup(matrix)
    worst = abs(float(xi(np.array([0]), np.array([0]))[0]) - 1.0)
    if matrix.nnz:
        worst = max(worst, -float(min(matrix.data.min(), 0.0)))
    for i in range(2):
        p = sf.players[i]
        jr, tau = vsf_rows(sf, i)
        if jr.size == 0:
            continue
        na = p.infoset_num_actions[jr]
        seqs = np.repeat(p.infoset_first_seq[jr], na) + (
            np.arange(na.sum()) - np.repeat(np.cumsum(na) - na, na))
        taus = np.repeat(tau, na)
        vals = xi(seqs, taus) if i == 0 else xi(taus, seqs)
        sums = np.add.reduceat(vals, np.concatenate([[0], np.cumsum(na)[:-1]]))
        parent = p.infoset_parent_seq[jr]
        parents = xi(parent, tau) if i == 0 else xi(tau, parent)
        worst = max(worst, float(np.abs(sums - parents).max()))
    return worst
