"""Chains of scaled extensions and their regret circuit: the learnable form of a correlation-plan
polytope (and of any treeplex).

**Scaled extension** (Farina 2023, Def. 4.1, L1345): for a nonnegative affine h,
𝒳 ◁^h 𝒴 = {(x, y) : x ∈ 𝒳, y ∈ h(x)·𝒴}. A *chain* {1} ◁^{h_1} 𝒴_1 ◁^{h_2} … ◁^{h_K} 𝒴_K with every
𝒴_k a simplex Δ^{A_k} or the point {1} describes, in triangle-free two-player games, the
von Stengel–Forges polytope 𝒱 = Ξ (Thm 9.3, L4274); a treeplex is the special case where every
h_k reads one coordinate. Here a chain is stored as *entries* (the coordinates), some fixed to 1,
and two kinds of steps:

* a **split** (𝒴_k = Δ^{A_k}, h_k = one entry p): the entries c_1..c_A are p·b_k with b_k ∈ Δ^{A_k};
* a **sum** (𝒴_k = {1}, h_k = Σ of some entries): the entry t equals the sum of its summands.

Every step reads only entries filled by earlier steps, so entries get a *level* (1 + the largest
level they read) and the forward pass (behaviours b → point) and the backward passes run one numpy
step per level, never entry by entry.

**Regret circuit** (Farina 2023, Thm 4.4 with the proof's form, erratum 6 of the notes; Algs
4.3/4.4). For a linear utility ⟨g, ·⟩ on the chain, the value of an entry under the current
behaviours is, in reverse level order,

    V(e) = g[e] + Σ_{splits k with h_k = e} Σ_a b_k[a] V(c_{k,a}) + Σ_{sums t ∋ e} V(t),

and the simplex of split k receives the utility vector (V(c_{k,a}))_a. A regret minimiser on each
simplex then gives a regret minimiser on the chain whose regret is at most Σ_k (max h_k)·Reg_k
(the scaled-extension rule applied K times); on a treeplex this is CFR. With max instead of the
b-weighted sum the same recursion is the best response (linear maximisation) over the chain.

**Local regret minimisers** (one per simplex, all updated in one vectorised step):

* discounted regret matching, DRM (Brown & Sandholm 2019; notes §4 item 3, DCFR with α = 1.5,
  β = 0, γ = 2): accumulated positive regrets are multiplied by t^α/(t^α + 1), negative ones by
  t^β/(t^β + 1), before adding the instantaneous regret; averages weigh iterate t by t^γ;
* predictive regret matching plus, PRM⁺ (Farina, Kroer & Sandholm 2021; Farina 2023 L1527–1545):
  R ← [R + r]⁺, next b ∝ [R + m]⁺ with the prediction m = the last instantaneous regret r;
  quadratic averaging.

b = R⁺ / Σ R⁺ on each simplex, uniform where Σ R⁺ = 0 (Hart & Mas-Colell 2000).

**Storage** (the chains of the big Table 10.1 rows have 10⁷–10⁸ entries). Every position array
(roots, splits, slots, sums and each level's index arrays) is int32 while the entries and slots
fit in int32 (:func:`lpgame.lp.sorted_keys.index_dtype`), int64 otherwise; the entries' levels are a
build intermediate and are not kept. The accumulated regrets (and PRM⁺'s prediction) are stored
in float32 by default (``LocalRegretMinimisers(dtype=...)``; float64 on request); the per-split
sums, the behaviours, the points and the values are float64, and the updates are done in place.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from lpgame.errors import LpgameError
from lpgame.lp.sorted_keys import index_dtype, unique

REGRET_MINIMISERS = ("drm", "prm+")


@dataclass
class _Level:
    """The steps of one level as index arrays: the slots it fills (whole splits, contiguous per
    split), those splits, and its sums (summand entries and, per summand, its target's position)."""

    slot: np.ndarray
    split: np.ndarray
    split_start: np.ndarray     # where each split's slots start within ``slot``
    sum_target: np.ndarray
    sum_cols: np.ndarray
    sum_rows: np.ndarray
    unique_cols: bool
    slot_entries: np.ndarray    # slot_entry[slot]: the entries the level's slots fill
    slot_parents: np.ndarray    # split_parent[slot_split[slot]]: the entry each slot scales
    split_parents: np.ndarray   # split_parent[split]


class ScaledExtensionChain:
    """A chain of splits and sums over ``num_entries`` coordinates (module docstring).

    ``roots``: entries fixed to 1. ``split_parent[k]``: the entry that split k scales;
    ``slot_split``/``slot_entry``: for each slot (one per action of a split), its split and the
    entry it fills; slots of a split must be contiguous. ``sum_target[m]`` and ``sum_matrix``
    (a sparse (number of sums × num_entries) 0/1 matrix): the sums. Every non-root entry must be
    filled by exactly one slot or one sum.
    """

    def __init__(self, num_entries: int, roots: np.ndarray, split_parent: np.ndarray,
                 slot_split: np.ndarray, slot_entry: np.ndarray, sum_target: np.ndarray,
                 sum_matrix: sp.csr_array):
        self.num_entries = int(num_entries)
        slot_count = np.asarray(slot_entry).size
        # positions are int32 while the entries and slots fit (int64 otherwise): half the memory
        self.index_dtype = index_dtype(max(self.num_entries, slot_count,
                                           np.asarray(split_parent).size))
        ix = self.index_dtype
        self.roots = np.asarray(roots, dtype=ix)
        self.split_parent = np.asarray(split_parent, dtype=ix)
        self.slot_split = np.asarray(slot_split, dtype=ix)
        self.slot_entry = np.asarray(slot_entry, dtype=ix)
        self.sum_target = np.asarray(sum_target, dtype=ix)
        self.sum_matrix = sp.csr_array(sum_matrix, shape=(self.sum_target.size, self.num_entries))
        self.num_splits = self.split_parent.size
        filled = np.concatenate([self.roots, self.slot_entry, self.sum_target])
        counts = np.bincount(filled, minlength=self.num_entries)
        del filled
        if counts.size and (counts.max() > 1 or counts.min() < 1):
            raise LpgameError(f"internal error: a chain must fill every entry exactly once "
                              f"({int((counts == 0).sum())} unfilled, {int((counts > 1).sum())} twice)")
        del counts
        if np.any(np.diff(self.slot_split) < 0):
            raise LpgameError("internal error: the slots of a split must be contiguous and ordered")
        self.split_first = np.searchsorted(self.slot_split, np.arange(self.num_splits, dtype=ix)
                                           ).astype(ix)
        self.split_size = np.bincount(self.slot_split, minlength=self.num_splits).astype(ix)
        self._levels()

    def _levels(self) -> None:
        """Level of every entry: roots 0; a slot 1 + its parent's level; a sum 1 + its summands'.
        The levels are a build intermediate (not kept); each level's index arrays are."""
        ix = self.index_dtype
        level = np.full(self.num_entries, -1, dtype=np.int32)
        level[self.roots] = 0
        sums = self.sum_matrix.tocsr()
        pending_splits = np.ones(self.num_splits, bool)
        pending_sums = np.ones(self.sum_target.size, bool)
        slot_level = np.full(self.slot_entry.size, -1, dtype=np.int32)
        sum_level = np.full(self.sum_target.size, -1, dtype=np.int32)
        while pending_splits.any() or pending_sums.any():
            progressed = False
            ready = pending_splits & (level[self.split_parent] >= 0)
            if ready.any():
                k = np.flatnonzero(ready)
                slots = np.flatnonzero(ready[self.slot_split])
                slot_level[slots] = level[self.split_parent[self.slot_split[slots]]] + 1
                level[self.slot_entry[slots]] = slot_level[slots]
                pending_splits[k] = False
                progressed = True
            del ready
            if pending_sums.any():
                idx = np.flatnonzero(pending_sums)
                sub = sums[idx]
                known = (level[sub.indices] >= 0).astype(np.int32)
                n_known = np.add.reduceat(known, sub.indptr[:-1]) if sub.nnz else np.zeros(idx.size)
                n_all = np.diff(sub.indptr)
                n_known = np.where(n_all > 0, n_known, 0)
                done = n_known == n_all
                if done.any():
                    lv = np.zeros(idx.size, dtype=np.int32)
                    has = n_all > 0
                    lv[has] = np.maximum.reduceat(level[sub.indices], sub.indptr[:-1][has]) \
                        if sub.nnz else 0
                    ready_idx = idx[done]
                    sum_level[ready_idx] = lv[done] + 1
                    level[self.sum_target[ready_idx]] = sum_level[ready_idx]
                    pending_sums[ready_idx] = False
                    progressed = True
                del idx, sub, known, n_known, n_all, done
            if not progressed:
                raise LpgameError("internal error: the chain has a step that reads an entry never "
                                  "filled before it")
        self.num_levels = int(level.max()) + 1 if level.size else 1
        del level
        # slots and sums grouped by level with one stable sort each (not one scan per level)
        slot_order = np.argsort(slot_level, kind="stable").astype(ix)
        slot_bounds = np.searchsorted(slot_level[slot_order], np.arange(self.num_levels + 1))
        del slot_level
        sum_order = np.argsort(sum_level, kind="stable").astype(ix)
        sum_bounds = np.searchsorted(sum_level[sum_order], np.arange(self.num_levels + 1))
        del sum_level
        self.level_steps = []
        for d in range(self.num_levels):
            slot = slot_order[slot_bounds[d]:slot_bounds[d + 1]].copy()
            split = unique(self.slot_split[slot])
            start = np.searchsorted(slot, self.split_first[split]).astype(ix)
            sidx = sum_order[sum_bounds[d]:sum_bounds[d + 1]]
            part = sp.coo_array(sums[sidx]) if sidx.size else None
            cols = part.col.astype(ix) if part is not None else np.zeros(0, ix)
            rows = part.row.astype(ix) if part is not None else np.zeros(0, ix)
            del part
            self.level_steps.append(_Level(slot, split, start, self.sum_target[sidx], cols, rows,
                                           unique(cols).size == cols.size,
                                           self.slot_entry[slot],
                                           self.split_parent[self.slot_split[slot]],
                                           self.split_parent[split]))

    # ------------------------------------------------------------------ passes
    def uniform(self, slots: np.ndarray | None = None) -> np.ndarray:
        """The behaviour that is uniform on every simplex (per slot; only at ``slots`` when
        given). Computed on demand, not kept (one float per slot)."""
        split = self.slot_split if slots is None else self.slot_split[slots]
        return 1.0 / self.split_size[split]

    def per_split_sum(self, per_slot: np.ndarray) -> np.ndarray:
        """Σ over each split's slots (the slots of a split are contiguous)."""
        if per_slot.size == 0:
            return np.zeros(self.num_splits)
        return np.add.reduceat(per_slot, self.split_first)

    def point(self, behaviour: np.ndarray) -> np.ndarray:
        """The chain's point for per-slot behaviours b (each split's b sums to 1)."""
        x = np.zeros(self.num_entries)
        x[self.roots] = 1.0
        for lv in self.level_steps[1:]:
            if lv.slot.size:
                x[lv.slot_entries] = x[lv.slot_parents] * behaviour[lv.slot]
            if lv.sum_target.size:
                x[lv.sum_target] = np.bincount(lv.sum_rows, weights=x[lv.sum_cols],
                                               minlength=lv.sum_target.size)
        return x

    def slot_values(self, gradient: np.ndarray, behaviour: np.ndarray | None,
                    overwrite: bool = False) -> np.ndarray:
        """V(c) of every slot's entry under ``behaviour`` (None: the best response, max).
        ``overwrite``: the values are computed in ``gradient`` itself (a float64 array the caller
        no longer needs) instead of in a copy."""
        return self.entry_values(gradient, behaviour, overwrite)[self.slot_entry]

    def entry_values(self, gradient: np.ndarray, behaviour: np.ndarray | None,
                     overwrite: bool = False) -> np.ndarray:
        """V(e) of every entry; see :meth:`slot_values`."""
        value = np.asarray(gradient, dtype=float)
        if not (overwrite and value is gradient):
            value = value.copy()
        for lv in self.level_steps[:0:-1]:
            if lv.sum_target.size:
                add = value[lv.sum_target][lv.sum_rows]
                if lv.unique_cols:
                    value[lv.sum_cols] += add
                else:
                    np.add.at(value, lv.sum_cols, add)
            if lv.slot.size:
                v = value[lv.slot_entries]
                if behaviour is None:
                    per_split = np.maximum.reduceat(v, lv.split_start)
                else:
                    per_split = np.add.reduceat(behaviour[lv.slot] * v, lv.split_start)
                np.add.at(value, lv.split_parents, per_split)
        return value

    def best_value(self, gradient: np.ndarray, overwrite: bool = False) -> float:
        """max over the chain of ⟨gradient, x⟩ (the roots are fixed to 1); ``overwrite`` as in
        :meth:`slot_values`."""
        return float(self.entry_values(gradient, None, overwrite)[self.roots].sum())


class LocalRegretMinimisers:
    """One regret minimiser per simplex of a chain, all updated at once (module docstring)."""

    def __init__(self, chain: ScaledExtensionChain, kind: str = "drm", alpha: float = 1.5,
                 beta: float = 0.0, gamma: float = 2.0, dtype=np.float32):
        if kind not in REGRET_MINIMISERS:
            raise LpgameError(f"unknown regret minimiser {kind!r}; choose one of "
                              f"{', '.join(REGRET_MINIMISERS)}")
        self.chain = chain
        self.kind = kind
        self.alpha, self.beta, self.gamma = alpha, beta, gamma
        # accumulated regrets (and PRM⁺'s prediction) are stored in ``dtype`` (float32 by
        # default: half the memory); every sum and every behaviour is computed in float64
        self.dtype = np.dtype(dtype)
        self.regret = np.zeros(chain.slot_entry.size, self.dtype)
        self.prediction = np.zeros(chain.slot_entry.size if kind == "prm+" else 0, self.dtype)
        self.behaviour = chain.uniform()

    def average_weight(self, t: int) -> float:
        """Weight of iterate t (1-based) in the average: t^γ (DRM) or t² (PRM⁺)."""
        return float(t) ** (self.gamma if self.kind == "drm" else 2.0)

    def observe(self, slot_utility: np.ndarray, t: int) -> None:
        """Take the utilities of every slot at iterate t and move to the next behaviour (in place,
        so that the iteration holds few slot-sized temporaries)."""
        c = self.chain
        expected = c.per_split_sum(self.behaviour * slot_utility)
        instant = np.subtract(slot_utility, expected[c.slot_split])
        del expected
        regret = self.regret
        if self.kind == "drm":
            ta, tb = float(t) ** self.alpha, float(t) ** self.beta
            pos = regret > 0
            np.multiply(regret, ta / (ta + 1.0), out=regret, where=pos)
            np.logical_not(pos, out=pos)
            np.multiply(regret, tb / (tb + 1.0), out=regret, where=pos)
            del pos
            np.add(regret, instant, out=regret, casting="same_kind")
            del instant
            positive = np.maximum(regret, 0.0, dtype=np.float64)
        else:
            np.add(regret, instant, out=regret, casting="same_kind")
            np.maximum(regret, 0.0, out=regret)
            self.prediction[:] = instant
            positive = np.add(regret, instant, dtype=np.float64)
            del instant
            np.maximum(positive, 0.0, out=positive)
        self.behaviour = _matching(c, positive)


def _matching(chain: ScaledExtensionChain, positive: np.ndarray) -> np.ndarray:
    """Regret matching on every simplex: b ∝ positive, uniform where the sum is 0 (float64;
    ``positive`` is overwritten)."""
    per = chain.per_split_sum(positive)[chain.slot_split]
    zero = per <= 0
    per[zero] = 1.0
    np.divide(positive, per, out=positive)
    del per
    zero = np.flatnonzero(zero)
    positive[zero] = chain.uniform(zero)
    return positive
