"""Exact integer tableaux of a batch of bases, from floats, verified; the exact search's decisions
on them, vectorised.

Used by :mod:`lpgame.equilibria.general_sum.enumeration_float` (vertex enumeration of the
best-response polytopes, Avis, Rosenberg, Savani & von Stengel, Economic Theory 42, 2010). For an
integer tableau M (k × c) and a basis B (k of its columns, integers), X = D·B⁻¹M with D = |det B|
is an integer matrix (Cramer's rule: its entries are ± minors of M; Edmonds 1967, Bareiss 1968).
From a float inverse R ≈ B⁻¹ the candidates are

    D̂ = round(|det fl(B)|),        X̂ = round(D̂ · fl(R M)),

and a candidate is **verified** by the identity B X̂ = D̂ M evaluated in float64: every product
and partial sum is an integer, and when k·max|M|·max(D̂, max|X̂|) < 2⁵² (a bound on |B||X̂| and
on D̂|M|) every one of them is below 2⁵³, so the float evaluation is exact (in any summation
order, with or without FMA). If the identity holds
and D̂ ≥ 1, then B is invertible (M contains the identity columns, so B X̂_I = D̂ I) and
X̂ = D̂·B⁻¹M exactly, whatever the rounding of R was; D̂ need not be |det B|, only a positive scale.
A candidate that fails is not used (the caller decides that basis another way).

On a verified X̂ the decisions of the exact search are exact in float64: a sign is an integer's
sign, and the ratios p/q of the minimum-ratio test are divisions of exact integers, correctly
rounded, so monotone: fl(p/q) < fl(p'/q') implies p/q < p'/q'. The first key of the lexicographic
minimum-ratio test (Dantzig, Orden & Wolfe 1955: the leaving row minimises (β_i, (B⁻¹)_i)/α_i
lexicographically over α_i > 0) is therefore decided wherever one row has the least float ratio.
Rows tied in floats are compared exactly, on all keys at once, by cross products p q' and p' q
when |X̂| < 2²⁶ (each below 2⁵², their difference below 2⁵³): the sign of the first nonzero
difference orders two rows, and a tournament over the tied rows finds the minimum (unique, as the
rows of B⁻¹ are independent). A tie in a larger tableau leaves that basis to Python integers
(X̂ as Python ints).

Along the search no inverse is needed where a parent's exact tableau X = s·B⁻¹M is known: a
child's is one fraction-free pivot away (Edmonds 1967; Bareiss 1968), X' = (p X − X_e X_r)/s off
the pivot row r, X'_r = X_r, scale p = X_re (:func:`pivot_children`). When |X| < 2²⁶ every
product is below 2⁵² and every difference below 2⁵³, so X' is exact in float64 wherever the
quotient is an integer; from a larger X the rounded X' is a candidate, verified as above
(:func:`verify_tableaux`).
"""

from __future__ import annotations

import numpy as np

#: Integers of a verified tableau below this bound make every cross product exact in float64.
CROSS_LIMIT = 2.0 ** 26

#: Products and partial sums below this bound are exact in float64 (with a factor 2 to spare).
EXACT_LIMIT = 2.0 ** 52

#: Tie problems up to this many per batch are settled in Python (numpy's fixed cost per call
#: exceeds the work below it).
SMALL_TIES = 16


def integer_tableaux(t: np.ndarray, b: np.ndarray, m: np.ndarray, bound: float):
    """(X̂, D̂, verified, small) for a batch: ``t`` the float tableaux fl(R M) (N × k × c), ``b``
    the float basis matrices (N × k × k, integers), ``m`` the tableaux M (N × k × c, integers below
    2⁵²) and ``bound`` ≥ k·max|M| (so that k·max|B|·max|X̂| ≥ (|B||X̂|)_ic); ``verified`` where
    B X̂ = D̂ M holds exactly, ``small`` where also |X̂| < 2²⁶ (module docstring)."""
    with np.errstate(all="ignore"):
        det = np.abs(np.rint(np.linalg.det(b)))
        x = np.rint(t * det[:, None, None])
        x_max = np.abs(x).max(axis=(1, 2))
        verified = (det >= 1) & (np.maximum(det, x_max) * bound < EXACT_LIMIT)
        verified &= (b @ x == det[:, None, None] * m).all(axis=(1, 2))
    return x, det, verified, verified & (x_max < CROSS_LIMIT)


def verify_tableaux(x: np.ndarray, mf: np.ndarray, bases: np.ndarray, owner: np.ndarray,
                    det: np.ndarray, bound: float) -> np.ndarray:
    """Where candidate integer tableaux ``x`` (N × k × c) of ``bases`` (of the tableaux
    ``mf[owner]``) with scales ``det`` satisfy B X̂ = D̂ M exactly (module docstring)."""
    k = bases.shape[1]
    b = mf[owner[:, None, None], np.arange(k)[None, :, None], bases[:, None, :]]
    with np.errstate(all="ignore"):
        x_max = np.abs(x).max(axis=(1, 2), initial=0)
        ok = (det >= 1) & (np.maximum(det, x_max) * bound < EXACT_LIMIT)
        ok &= (b @ x == det[:, None, None] * mf[owner]).all(axis=(1, 2))
    return ok


def integer_decisions(x: np.ndarray, small: np.ndarray, bases: np.ndarray, cols: int,
                      keys: list[int]):
    """The exact search's decisions at a batch of bases from verified tableaux X̂ (N × k × (cols+1),
    the last column β): the leaving row for every column (−1: a basic column or no positive
    entry) and ``ok``. The first key by float ratios of the exact integers (a strict float
    inequality is exact, module docstring); ties by :func:`lexicographic_ties` where the basis is
    ``small``, else ``ok`` is False."""
    n_bases, k = bases.shape
    alpha = x[:, :, :cols]                                            # (N, k, cols); reductions
    live = alpha > 0                                                  # over the rows (axis 1)
    live[np.arange(n_bases)[:, None], :, bases] = False               # basic columns
    with np.errstate(all="ignore"):
        ratio = np.where(live, x[:, :, cols:] / alpha, np.inf)
    least = ratio.min(axis=1)                                         # (N, cols)
    tie = ratio == least[:, None, :]
    bounded = least < np.inf
    leave = np.where(bounded, tie.argmax(axis=1), -1)
    ok = np.ones(n_bases, dtype=bool)
    tied_n, tied_c = np.nonzero((tie.sum(axis=1) > 1) & bounded)
    if len(tied_n):
        fits = small[tied_n]
        ok[tied_n[~fits]] = False
        tied_n, tied_c = tied_n[fits], tied_c[fits]
    if len(tied_n):
        leave[tied_n, tied_c] = lexicographic_ties(x[tied_n][:, :, keys], alpha[tied_n, :, tied_c],
                                                   tie[tied_n, :, tied_c])
    return leave, ok


def lexicographic_ties(nums: np.ndarray, a: np.ndarray, live: np.ndarray) -> np.ndarray:
    """The row minimising (nums_i / a_i) lexicographically among the ``live`` rows of each problem
    (nums P × k × keys, a > 0 on live rows, entries below 2²⁶), exactly: a tournament, the
    current best against the next live row, by the sign of the first nonzero cross-product
    difference nums_best·a_other − nums_other·a_best (module docstring)."""
    pairs = len(nums)
    if pairs <= SMALL_TIES:
        return _python_ties(nums, a, live)
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


def _python_ties(nums: np.ndarray, a: np.ndarray, live: np.ndarray) -> np.ndarray:
    """:func:`lexicographic_ties` for a few problems, in Python floats (the same exact products
    and differences, one problem at a time: cheaper than numpy's fixed cost per call)."""
    out = []
    for row_nums, row_a, row_live in zip(nums.tolist(), a.tolist(), live.tolist()):
        best = -1
        for i, here in enumerate(row_live):
            if not here:
                continue
            if best < 0:
                best, best_nums, best_a = i, row_nums[i], row_a[i]
                continue
            other_nums, other_a = row_nums[i], row_a[i]
            for u, v in zip(best_nums, other_nums):
                diff = u * other_a - v * best_a
                if diff:
                    if diff > 0:
                        best, best_nums, best_a = i, other_nums, other_a
                    break
        out.append(best)
    return np.array(out, dtype=np.intp)


def integer_basic_solutions(mf: np.ndarray, bases: np.ndarray):
    """(D̂β, D̂, ok) for bases (N × k) of one tableau ``mf`` (floats, integers below 2⁵²):
    B (D̂β) = D̂·1 verified exactly as in the module docstring (only the right-hand side)."""
    k = bases.shape[1]
    b = mf[np.arange(k)[None, :, None], bases[:, None, :]]
    with np.errstate(all="ignore"):
        try:
            r = np.linalg.inv(b)
        except np.linalg.LinAlgError:                                 # a singular basis: NaN
            r = np.stack([np.linalg.pinv(one) if np.linalg.matrix_rank(one) == k
                          else np.full((k, k), np.nan) for one in b])
        det = np.abs(np.rint(np.linalg.det(b)))
        beta = np.rint(r.sum(axis=2) * det[:, None])
        ok = (det >= 1) & (det < EXACT_LIMIT) & np.isfinite(beta).all(axis=1)
        ok &= (np.abs(b) @ np.abs(beta)[:, :, None]).max(axis=(1, 2)) < EXACT_LIMIT
        ok &= ((b @ beta[:, :, None])[:, :, 0] == det[:, None]).all(axis=1)
    return beta, det, ok


# ------------------------------------------------------------ a batch of the search
def integer_batch(at: np.ndarray, local: np.ndarray, t, b, mf, bound: float, chunk, chunk_owner,
                  keys, state) -> tuple[int, int]:
    """Exact decisions at the bases ``at`` of a batch (``local``: their rows of ``t`` and ``b``)
    whose integer tableaux verify (:func:`~lpgame.equilibria.general_sum.enumeration_integer.
    integer_tableaux`); returns how many verified and how many were tried."""
    if not len(at):
        return 0, 0
    x, det, verified, small = integer_tableaux(t[local], b[local], mf[chunk_owner[at]], bound)
    integer_apply(at[verified], x[verified], det[verified], small[verified], chunk, chunk_owner,
                  keys, state)
    return int(np.count_nonzero(verified)), len(at)


def integer_apply(at, x, det, small, chunk, chunk_owner, keys, state) -> None:
    """The exact search's decisions at the bases ``at`` from their exact integer tableaux ``x``
    (scales ``det``), written into ``state`` = (leave, zero, integer, sure, scaled, verified
    tables, tableaux, scales, small) of the search; a basis left undecided goes to Python
    integers."""
    if not len(at):
        return
    leave, zero, integer, sure, scaled, tables, xs, scales, small_rows = state
    cols, own = keys[0], xs is x                        # own: X is the batch's, in place
    x_leave, x_ok = integer_decisions(x, small, chunk[at], cols, keys)
    if not x_ok.all():
        for n, i in zip(at[~x_ok].tolist(), np.flatnonzero(~x_ok).tolist()):    # left to Python
            tables[n] = (x[i].astype(np.int64).astype(object), int(det[i]))
        at, x, det, small, x_leave = at[x_ok], x[x_ok], det[x_ok], small[x_ok], x_leave[x_ok]
    leave[at], integer[at] = x_leave, True
    basic_zero = x[:, :, cols] == 0
    zero[at[:, None], chunk[at]] = basic_zero
    if not own:
        xs[at], scales[at], small_rows[at] = x, det, small
    # a nondegenerate vertex has one basis: named by it, like the float route's sure bases, its
    # coordinates kept as a row of integers; a degenerate one by its exact coordinates' key
    values = integer_point_values(x, det, chunk[at], cols, cols - chunk.shape[1])
    degenerate = basic_zero.any(axis=1)
    sure[at[~degenerate]] = True
    scaled.update(zip(at[~degenerate].tolist(), values[~degenerate]))
    scaled.update(zip(at[degenerate].tolist(), integer_point_keys(values[degenerate],
                                                                  chunk_owner[at[degenerate]])))


def pivot_children(xs: np.ndarray, scales: np.ndarray, small: np.ndarray, parent: np.ndarray,
                   rows: np.ndarray, entering: np.ndarray, carry: bool):
    """Children's integer tableaux by one fraction-free pivot (Edmonds 1967, Bareiss 1968) on a
    parent's exact X = s·B⁻¹M (s > 0): X' = (p X − X_e X_r)/s except row r, which stays, scale
    p = X_re > 0 (the leaving row has α_r > 0). Returns (X', p, checked). Where the parent is
    ``small`` (|X| < 2²⁶) every product is below 2⁵² and every difference below 2⁵³, so X' is
    exact where the quotient is an integer (a non-integer quotient below 2⁵³/s differs from
    every integer by more than its rounding): ``checked``. Elsewhere X' is rounded to integers, a
    candidate for :func:`verify_tableaux`. Scale 0: unknown (decided from floats)."""
    n_children, k, width = len(parent), xs.shape[1], xs.shape[2]
    out_s, out_c = np.zeros(n_children), np.zeros(n_children, dtype=bool)
    if not (carry and n_children and scales.any()):
        return np.empty((n_children, k, width)), out_s, out_c
    scale = scales[parent]
    idx = np.flatnonzero(scale > 0)
    if len(idx) < n_children:
        parent, rows, entering, scale = parent[idx], rows[idx], entering[idx], scale[idx]
    at = np.arange(len(idx))
    x = xs[parent]
    col = x[at, :, entering]
    row = x[at, rows, :]
    pivot = col[at, rows]
    new = x * pivot[:, None, None]         # finite: |X| < 2⁵² / k (verified or pivoted)
    new -= col[:, :, None] * row[:, None, :]
    new /= scale[:, None, None]
    new[at, rows, :] = row
    whole = np.rint(new)
    checked = small[parent] & (new == whole).all(axis=(1, 2))
    if len(idx) == n_children:
        return whole, pivot, checked
    out_x = np.empty((n_children, k, width))
    out_x[idx], out_s[idx], out_c[idx] = whole, pivot, checked
    return out_x, out_s, out_c


def integer_point_values(x: np.ndarray, det: np.ndarray, bases: np.ndarray, cols: int,
                         d: int) -> np.ndarray:
    """Each vertex's exact coordinates from its integer tableau X̂ = D̂·B⁻¹M, as the int64 row
    (D̂v_1, …, D̂v_d, D̂): v = those over the last entry."""
    n_bases = len(bases)
    values = np.zeros((n_bases, cols + 1), dtype=np.int64)       # column cols: the denominator
    values[np.arange(n_bases)[:, None], bases] = x[:, :, cols].astype(np.int64)
    values[:, cols] = det.astype(np.int64)
    return values[:, list(range(d)) + [cols]]


def integer_point_keys(values: np.ndarray, owner: np.ndarray) -> list[tuple]:
    """:func:`integer_point_values` as (polytope, L, L·v) with L the least common denominator
    (``enumeration_float._point_key``'s form): the row divided by its greatest common divisor."""
    values = values // np.gcd.reduce(values, axis=1)[:, None]
    return [(o, row[-1]) + tuple(row[:-1]) for o, row in zip(owner.tolist(), values.tolist())]
