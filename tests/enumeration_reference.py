"""The exact search's vectorised decisions as they were before issue 37's 6×6 fixed-cost work
(lpgame at 567b48a), kept verbatim as the reference that
:mod:`lpgame.equilibria.general_sum.enumeration_integer` must reproduce exactly
(tests/test_enumeration_identity.py): :func:`integer_decisions` and :func:`lexicographic_ties` of
enumeration_integer.py, and :func:`_complete_pairs` of enumeration.py (its label matching was a
float32 matrix product).
"""

from __future__ import annotations

import time

import numpy as np

from lpgame.equilibria.general_sum.enumeration import (
    BimatrixEquilibria,
    VertexSet,
    maximal_nash_subsets,
)

#: Vertices of P per block of the label-matching product (a block × |Q| float32 matrix).
PAIR_BLOCK = 4096


def integer_decisions(x: np.ndarray, small: np.ndarray, bases: np.ndarray, cols: int,
                      keys: list[int]):
    """The exact search's decisions at a batch of bases from verified tableaux X̂ (N × k × (cols+1),
    the last column β): the leaving row for every column (−1: a basic column or no positive
    entry) and ``ok``. The first key by float ratios of the exact integers (a strict float
    inequality is exact, module docstring); ties by :func:`lexicographic_ties` where the basis is
    ``small``, else ``ok`` is False."""
    n_bases, k = bases.shape
    xt = np.ascontiguousarray(x.transpose(0, 2, 1))                   # (N, cols + 1, k): rows last
    alpha = xt[:, :cols]
    live = alpha > 0
    live[np.arange(n_bases)[:, None], bases] = False                  # basic columns
    with np.errstate(all="ignore"):
        ratio = np.where(live, xt[:, cols:] / alpha, np.inf)
    least = ratio.min(axis=2)
    tie = ratio == least[:, :, None]
    leave = np.where(least < np.inf, tie.argmax(axis=2), -1)
    ok = np.ones(n_bases, dtype=bool)
    tied_n, tied_c = np.nonzero((tie.sum(axis=2) > 1) & (least < np.inf))
    if len(tied_n):
        fits = small[tied_n]
        ok[tied_n[~fits]] = False
        tied_n, tied_c = tied_n[fits], tied_c[fits]
    if len(tied_n):
        leave[tied_n, tied_c] = lexicographic_ties(x[tied_n][:, :, keys], alpha[tied_n, tied_c],
                                                   tie[tied_n, tied_c])
    return leave, ok


def lexicographic_ties(nums: np.ndarray, a: np.ndarray, live: np.ndarray) -> np.ndarray:
    """The row minimising (nums_i / a_i) lexicographically among the ``live`` rows of each problem
    (nums P × k × keys, a > 0 on live rows, entries below 2²⁶), exactly: a tournament, the
    current best against the next live row, by the sign of the first nonzero cross-product
    difference nums_best·a_other − nums_other·a_best (module docstring)."""
    pairs = len(nums)
    at = np.arange(pairs)
    order = np.argsort(~live, axis=1, kind="stable")                  # the live rows first
    count = live.sum(axis=1)
    best = order[:, 0].copy()
    for m in range(1, int(count.max())):
        other = np.where(m < count, order[:, m], best)
        diff = nums[at, best] * a[at, other][:, None] - nums[at, other] * a[at, best][:, None]
        first = (diff != 0).argmax(axis=1)
        best = np.where(diff[at, first] > 0, other, best)
    return best


def _complete_pairs(sets: list[VertexSet], shape: tuple[int, int], start: float) -> BimatrixEquilibria:
    """The completely labelled pairs of nonzero vertices of P (``sets[0]``) and Q (``sets[1]``)."""
    m, n = shape
    p_set, q_set = sets
    # labels 0..m-1 (player 1's strategies), m..m+n-1 (player 2's): P's variables (x, s) are in
    # that order already, Q's (y, r) are not
    p_index = np.flatnonzero(~p_set.zero[:, :m].all(axis=1))         # the vertex 0 left out
    q_index = np.flatnonzero(~q_set.zero[:, :n].all(axis=1))
    missing_p = ~p_set.zero[p_index]
    missing_q = ~np.concatenate([q_set.zero[q_index, n:], q_set.zero[q_index, :n]], axis=1)
    missing_q_t = missing_q.T.astype(np.float32)
    pairs = []
    for lo in range(0, len(p_index), PAIR_BLOCK):                     # no label missing on both sides
        block = missing_p[lo:lo + PAIR_BLOCK].astype(np.float32) @ missing_q_t
        pairs.extend((lo + i, j) for i, j in np.argwhere(block == 0).tolist())
    used_p = sorted({i for i, _ in pairs})
    used_q = sorted({j for _, j in pairs})
    index_p = {v: k for k, v in enumerate(used_p)}
    index_q = {v: k for k, v in enumerate(used_q)}
    strategies = [p_set.normalised(p_index[used_p].tolist()), q_set.normalised(q_index[used_q].tolist())]
    equilibria = sorted((index_p[i], index_q[j]) for i, j in pairs)
    return BimatrixEquilibria(strategies, equilibria, maximal_nash_subsets(equilibria),
                              (len(p_index) + 1, len(q_index) + 1),
                              time.perf_counter() - start,
                              method=" and ".join(sorted({p_set.method, q_set.method})),
                              exact_bases=(p_set.exact_bases, q_set.exact_bases),
                              bases=(p_set.bases_visited, q_set.bases_visited))
