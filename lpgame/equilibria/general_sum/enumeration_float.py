"""Every vertex of a best-response polytope { v ≥ 0, C v ≤ 1 }: float-first, every decision exact.

The float-first route of :mod:`lpgame.equilibria.general_sum.enumeration_vertices` (whose
docstring sets out the tableau M = [C | I | 1], its bases and the exact breadth-first search
with the lexicographic minimum-ratio test that this search reproduces decision by decision); used
by :mod:`lpgame.equilibria.general_sum.enumeration` (Avis, Rosenberg, Savani & von Stengel,
"Enumeration of Nash equilibria for two-player games", Economic Theory 42, 2010).

**Float-first search** (:func:`certified_vertices`). The same search, the same order, each
frontier of the breadth-first search taken as one batch, every basis decided by one of three
routes, each of them exact (:func:`_joint_search`):

1. **Integer tableaux, pivoted** (small numbers: degenerate and small games). A basis whose parent
   had an exact integer tableau X = s·B⁻¹M (float64 integers; the slack basis: X = M, s = 1)
   gets its own by one fraction-free pivot, X' = (p X − X_e X_r)/s, exact in float64 where
   |X| < 2²⁶, else rounded and verified as in route 2
   (:func:`~lpgame.equilibria.general_sum.enumeration_integer.pivot_children`); no inverse.
2. **Integer tableaux, verified** (numbers below 2⁵²). From the float inverse R of B̃ = fl(B):
   D̂ = round|det B̃|, X̂ = round(D̂·fl(R M̃)), proven equal to D̂·B⁻¹M by checking B X̂ = D̂ M
   exactly in float64. This route is tried first at every level after one where most of the
   bases tried verified, else only where route 3 is unsure.

   On the exact integer tableau of routes 1 and 2 every decision is the exact search's: the
   minimum-ratio test by float ratios of exact integers (correctly rounded, so a strict float
   inequality is exact) and, for rows tied in floats, by exact cross products
   (:mod:`~lpgame.equilibria.general_sum.enumeration_integer`); a degenerate vertex is named by its
   exact coordinates, a nondegenerate one by its basis.
3. **Floats with error bounds** (any numbers). T̂ = fl(R M̃) (batched numpy), with an a
   posteriori bound E on every entry (Rump-style, as in Higham, *Accuracy and Stability of
   Numerical Algorithms*, §14.1 and §3.5):

    G = I − R B̃,  δ = ‖ |G| + (γ_{k+2} + 3u)(|R||B̃| + I) ‖_∞ < 1
    ⇒ ‖B⁻¹ − R‖_∞ ≤ ρ = δ‖R‖_∞ / (1 − δ)      (B⁻¹ = (I − (I − RB))⁻¹R, a Neumann series),
    |B⁻¹M − T̂|_ic ≤ E_ic = 2 (ρ ‖M_c‖₁ + (γ_k + u)(|R||M̃|)_ic),

u = 2⁻⁵³ and γ_n = nu/(1 − nu) the rounding of inner products (any summation order, FMA or not);
M̃ = fl(M) may round huge integers (|M − M̃| ≤ u|M̃| is in the bound), and the factor 2 covers
the rounding of the bound itself. Every decision of the exact search is taken in floats only where
these intervals decide it:

* the basis is **surely nondegenerate**: β_i > E_i for every row, so every basic variable is > 0,
  the vertex has exactly d zero variables and exactly one basis (it is then named by its basis, its
  labels are its nonbasic columns);
* for each nonbasic entering column α: every row is surely positive (α_i > E_i), or may be positive
  (|α_i| ≤ E_i), or is surely not; the surely positive row i* of least ratio β_i/α_i has its
  ratio's upper bound (β_i + E_i)/(α_i − E_i) below the lower bound of every other row that may be
  positive, (β_j − E_j)/(|α_j| + E_j). Then i* is the unique minimum of the first key of the
  lexicographic test, hence its answer.

A basis where anything is undecided (near-degenerate: a basic value near 0; a tie or near-tie of
ratios; a near-zero pivot; a near-singular or non-finite float basis) is decided **exactly**
instead: its integer tableau (route 2's where it verified, else det·B⁻¹M from a rational solve,
python-flint), then the exact step above in Python integers, and its vertex is named by its exact
coordinates (a degenerate vertex has several bases, all of them decided exactly, so it is counted
once). Floats are never carried from a parent to a child: a child gets an exact tableau (route 1)
or is decided from its own float tableau, so no rounding error accumulates along the search.

**Completeness.** Every decision equals the exact search's, so the set of bases visited (the
closure of the slack basis under the exact pivot map), the vertices, their order of discovery and
their labels are those of :func:`~lpgame.equilibria.general_sum.enumeration_vertices.
polytope_vertices`; the vertex set is complete by the connectedness argument given there. The exact
coordinates of a vertex named by its basis are computed on demand
(:meth:`~lpgame.equilibria.general_sum.enumeration_vertices.VertexSet.point`) by a rational solve of
B v_B = 1, and its labels are checked there exactly (every basic value > 0 and every value ≥ 0,
i.e. v ∈ P with exactly the labels claimed); a failed check raises
:class:`~lpgame.errors.ExactCheckError` (the caller falls back to the exact search). A matrix too large
for floats (an entry beyond 10³⁰⁸) returns ``None``: exact search.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from lpgame.equilibria.general_sum.enumeration_integer import (
    CROSS_LIMIT,
    EXACT_LIMIT,
    integer_apply,
    integer_batch,
    integer_tableaux,
    pivot_children,
    verify_tableaux,
)
from lpgame.equilibria.general_sum.enumeration_vertices import (
    VertexSet,
    check_deadline,
    exact_basic_solution,
    exact_basis_tableau,
    exact_moves,
    exact_values,
    initial_tableau,
    tableau_rows,
)
from lpgame.limits import check_prediction
from lpgame.lp.pivoting import integer_pivot

#: The unit roundoff of IEEE doubles.
UNIT_ROUNDOFF = 2.0 ** -53

#: Bases per float batch; each batch holds about a dozen float arrays of k × (d + k + 1) per basis.
BATCH = 2048

#: Most float entries of exact integer tableaux carried from one search level to the next (d per
#: basis counted, as a basis has up to d children; 32 MiB); past it, children are decided from
#: their own float tableaux.
MAX_CARRIED = 2 ** 22

#: Bytes per batch entry (the float arrays of one batch: tableau, bounds, ratios and their masks).
BYTES_PER_BATCH_ENTRY = 8 * 16


# ------------------------------------------------------------------------------------ float first
def _float_inverse(mf: np.ndarray, bases: np.ndarray, owner: np.ndarray):
    """(B̃, R, T̂ = fl(R M̃)) for a batch of bases (N × k), basis n of the polytope ``owner[n]``
    (``mf`` stacks the polytopes' float tableaux M̃, all k × (d+k+1))."""
    n_bases, k = bases.shape
    b = mf[owner[:, None, None], np.arange(k)[None, :, None], bases[:, None, :]]   # b[n] = M[:, basis]
    with np.errstate(all="ignore"):
        try:
            r = np.linalg.inv(b)
        except np.linalg.LinAlgError:                                 # a singular float basis
            r = np.stack([_inverse_or_nan(x) for x in b])
        if len(mf) == 1:                                              # one product, not N
            t = (r.reshape(n_bases * k, k) @ mf[0]).reshape(n_bases, k, -1)
        else:
            t = r @ mf[owner]
    return b, r, t


def _float_bounds(b: np.ndarray, r: np.ndarray, abs_mf: np.ndarray, colsum: np.ndarray,
                  owner: np.ndarray) -> np.ndarray:
    """The bound E of the module docstring on |B⁻¹M − T̂| for a batch (:func:`_float_inverse`)."""
    n_bases, k = r.shape[:2]
    u = UNIT_ROUNDOFF
    with np.errstate(all="ignore"):
        abs_r = np.abs(r)
        if len(abs_mf) == 1:
            err = (abs_r.reshape(n_bases * k, k) @ abs_mf[0]).reshape(n_bases, k, -1)
        else:
            err = abs_r @ abs_mf[owner]
        gamma_k, gamma_k2 = (k * u / (1 - k * u)), ((k + 2) * u / (1 - (k + 2) * u))
        eye = np.eye(k)
        h = np.abs(eye - r @ b)
        h += (gamma_k2 + 3 * u) * ((abs_r @ np.abs(b)) + eye)
        delta = h.sum(axis=2).max(axis=1) * (1 + 8 * (k + 2) * u)
        norm_r = abs_r.sum(axis=2).max(axis=1)
        rho = np.where(delta < 1, delta / (1 - delta) * norm_r, np.inf)
        err *= gamma_k + u
        err += rho[:, None, None] * colsum[owner][:, None, :]
        err *= 2
    return err


def _inverse_or_nan(x: np.ndarray) -> np.ndarray:
    try:
        return np.linalg.inv(x)
    except np.linalg.LinAlgError:
        return np.full_like(x, np.nan)


def _point_key(owner: int, values: list[Fraction]) -> tuple:
    """A vertex's exact coordinates as (polytope, L, L·v) with L the least common denominator."""
    den = math.lcm(*(v.denominator for v in values))
    return (owner, den) + tuple(v.numerator * (den // v.denominator) for v in values)


def _float_decisions(t: np.ndarray, err: np.ndarray, bases: np.ndarray, cols: int):
    """For a batch: which bases are decided in floats (surely nondegenerate, every column decided),
    which entering columns are decided (a basic column counts as decided), and for those the
    leaving row (−1: a basic column, or no positive entry: no pivot). A column's decision is valid
    at any lexicographically feasible basis (β ≥ 0), degenerate or not (module docstring)."""
    n_bases, k = bases.shape
    u = UNIT_ROUNDOFF
    beta, e_beta = t[:, :, cols:], err[:, :, cols:]                   # (N, k, 1)
    alpha, e_alpha = t[:, :, :cols], err[:, :, :cols]
    basic = np.zeros((n_bases, 1, cols), dtype=bool)
    basic[np.arange(n_bases)[:, None], 0, bases] = True
    with np.errstate(all="ignore"):
        positive = alpha > e_alpha
        positive &= ~basic
        maybe = np.abs(alpha) <= e_alpha
        maybe &= ~basic
        b_lo = beta - e_beta
        mid = np.where(positive, beta / alpha, np.inf)
        star = mid.argmin(axis=1)                                     # (N, cols)
        pick = (np.arange(n_bases)[:, None], star, np.arange(cols)[None, :])
        hi = (beta[:, :, 0][pick[:2]] + e_beta[:, :, 0][pick[:2]]) / (alpha[pick] - e_alpha[pick])
        lo = np.where(positive, b_lo / (alpha + e_alpha),
                      np.where(maybe, b_lo / (np.abs(alpha) + e_alpha), np.inf))
        lo[pick] = np.inf
        decided = hi * (1 + 4 * u) < lo.min(axis=1) * (1 - 4 * u)
    has_pivot = positive.any(axis=1)
    decided = np.where(has_pivot, decided, ~maybe.any(axis=1))
    decided &= np.isfinite(t.reshape(n_bases, -1).sum(axis=1)
                           + err.reshape(n_bases, -1).sum(axis=1))[:, None]
    sure = decided.all(axis=1) & (b_lo[:, :, 0] > 0).all(axis=1)
    return sure, decided, np.where(has_pivot, star, -1)


def certified_vertices(matrix: np.ndarray, deadline: float | None = None) -> VertexSet | None:
    """Every vertex of { v ≥ 0, Cv ≤ 1 } (C > 0 integer, k × d) by the float-first search with
    exact decisions where the floats are unsure (module docstring): the same vertices, in the same
    order, with the same labels as :func:`polytope_vertices`. ``None`` when C does not fit in
    floats. Exact coordinates come from :meth:`VertexSet.point`."""
    return certified_vertex_sets([matrix], deadline)[0]


def certified_vertex_sets(matrices: list[np.ndarray], deadline: float | None = None
                          ) -> list[VertexSet | None]:
    """:func:`certified_vertices` of several matrices; those of one shape are searched together,
    their frontiers in one batch (fewer, larger numpy calls: the two polytopes of a square game)."""
    out: list[VertexSet | None] = [None] * len(matrices)
    floats = {}
    for i, matrix in enumerate(matrices):
        try:
            mf = initial_tableau(matrix).astype(float)
        except OverflowError:
            continue
        if np.isfinite(mf).all():
            floats.setdefault(matrix.shape, []).append((i, mf))
    for group in floats.values():
        found = _joint_search([matrices[i] for i, _ in group], np.stack([mf for _, mf in group]),
                              deadline)
        for (i, _), vs in zip(group, found):
            out[i] = vs
    return out


def _joint_search(matrices: list[np.ndarray], mf: np.ndarray, deadline) -> list[VertexSet]:
    """The float-first breadth-first search of the module docstring, on polytopes of one shape at
    once: a basis carries its polytope (``owner``), and its key includes it; and, where known, its
    exact integer tableau X = D·B⁻¹M (float64 integers below 2²⁶) and scale D, from its parent's
    by one fraction-free pivot (:func:`~lpgame.equilibria.general_sum.enumeration_integer.pivot_children`)."""
    k, d = matrices[0].shape
    cols = d + k
    abs_mf = np.abs(mf)
    colsum = abs_mf.sum(axis=1) * (1 + 2 * (k + 1) * UNIT_ROUNDOFF)
    keys = [cols] + list(range(d, cols))
    sets = [VertexSet(c, np.zeros((0, cols), dtype=bool), np.zeros((0, k), dtype=np.intp), [],
                      method="float, certified") for c in matrices]
    found_bases, found_zero, found_owner, found_points = [], [], [], []
    exact_vertex: set[tuple] = set()             # exactly decided vertices, by _point_key
    exact_floats = bool(abs_mf.max() < EXACT_LIMIT)   # M̃ = M, in integers exact in float64
    bound = k * float(abs_mf.max())
    # integer tableaux first, at every level after one where most of those tried verified
    integer_first = exact_floats
    frontier = np.tile(np.arange(d, cols, dtype=np.intp), (len(sets), 1))   # the vertices 0
    owner = np.arange(len(sets), dtype=np.intp)
    frontier_keys = _keys(frontier, owner, cols)
    pivots = bool(abs_mf.max() < CROSS_LIMIT)         # the slack bases' X = M, pivoted exactly
    frontier_x, frontier_s = mf.copy(), np.full(len(sets), 1.0 if pivots else 0.0)
    frontier_c = np.full(len(sets), pivots)          # X exact as pivoted (else: to verify)
    seen = set(frontier_keys)
    pending: dict = {}          # child key → an exactly decided parent's (table, det, basis, row, column)
    seen_any = False
    while len(frontier):
        parts, next_pending = [], {}
        level_tried = level_verified = 0
        carry = exact_floats and len(frontier) * d * k * (cols + 1) <= MAX_CARRIED
        for lo in range(0, len(frontier), BATCH):
            check_deadline(deadline, len(seen), sum(map(len, found_bases)), k, d)
            chunk, chunk_owner = frontier[lo:lo + BATCH], owner[lo:lo + BATCH]
            chunk_keys = frontier_keys[lo:lo + BATCH]
            n_chunk = len(chunk)
            if n_chunk >= 256 or not seen_any:        # /proc is read: not at every small batch
                check_prediction(f"float vertex enumeration's open bases (a batch of "
                                 f"{n_chunk:,} bases of {k} × {cols + 1} floats)",
                                 max(n_chunk, 64) * k * (cols + 1) * BYTES_PER_BATCH_ENTRY
                                 * (1 + d * (carry and seen_any)))   # the children's tableaux
            sure = np.zeros(n_chunk, dtype=bool)
            decided = None                               # by the float route, where it runs
            leave = np.full((n_chunk, cols), -1, dtype=np.intp)
            zero = np.ones((n_chunk, cols), dtype=bool)
            zero[np.arange(n_chunk)[:, None], chunk] = False
            integer = np.zeros(n_chunk, dtype=bool)
            scaled: dict[int, tuple] = {}
            verified_tables: dict[int, tuple] = {}
            chunk_s, chunk_x = frontier_s[lo:lo + BATCH], frontier_x[lo:lo + BATCH]
            if frontier_c[lo:lo + BATCH].all():           # every tableau exact, pivoted
                small = np.abs(chunk_x).max(axis=(1, 2)) < CROSS_LIMIT
                exact = [(np.arange(n_chunk), chunk_x, chunk_s, small)]
                unknown = np.zeros(0, dtype=np.intp)
                xs, scales, small_rows = chunk_x, chunk_s, small      # every one a parent
            else:
                exact, unknown = _known_tableaux(chunk_x, chunk_s, frontier_c[lo:lo + BATCH], mf,
                                                 chunk, chunk_owner, bound)
                xs, scales = np.zeros((n_chunk, k, cols + 1)), np.zeros(n_chunk)
                small_rows = np.zeros(n_chunk, dtype=bool)
            state = (leave, zero, integer, sure, scaled, verified_tables, xs, scales, small_rows)
            if len(unknown):
                b, r, t = _float_inverse(mf, chunk[unknown], chunk_owner[unknown])
                if integer_first:                         # (only when exact_floats)
                    x, det, verified, small = integer_tableaux(t, b, mf[chunk_owner[unknown]], bound)
                    exact.append((unknown[verified], x[verified], det[verified], small[verified]))
                    level_tried += len(unknown)
                    level_verified += int(np.count_nonzero(verified))
            integer_apply(*(exact[0] if len(exact) == 1 else
                            (np.concatenate(part) for part in zip(*exact))),
                          chunk, chunk_owner, keys, state)
            if len(unknown):
                local = np.flatnonzero(~integer[unknown])
                if len(local):
                    rest = unknown[local]
                    err = _float_bounds(b[local], r[local], abs_mf, colsum, chunk_owner[rest])
                    rest_sure, rest_decided, rest_leave = _float_decisions(t[local], err, chunk[rest],
                                                                           cols)
                    rest_leave[~rest_decided] = -1
                    decided = np.ones((n_chunk, cols), dtype=bool)
                    sure[rest], decided[rest], leave[rest] = rest_sure, rest_decided, rest_leave
                    if exact_floats and not integer_first:
                        got, tried = integer_batch(rest[~rest_sure], local[~rest_sure], t, b, mf,
                                                    bound, chunk, chunk_owner, keys, state)
                        level_tried, level_verified = level_tried + tried, level_verified + got
            new = sure.copy()
            points: list = [scaled.get(n) for n in range(n_chunk)] if scaled else [None] * n_chunk
            tables: dict[int, tuple] = {}
            if not seen_any:            # the slack bases: their tableaux are M, det 1, for free
                tables = {n: (np.array(tableau_rows(sets[o]), dtype=object), 1, tuple(chunk[n].tolist()))
                          for n, o in enumerate(chunk_owner.tolist()) if not integer[n]}
                seen_any = True
            unsure = np.flatnonzero(~sure)
            exactly = chunk_owner[~sure | integer]
            for o, count in enumerate(np.bincount(exactly, minlength=len(sets)).tolist()):
                sets[o].exact_bases += count
            for n in unsure.tolist():                                 # decided exactly
                if n in scaled:
                    if scaled[n] not in exact_vertex:
                        exact_vertex.add(scaled[n])
                        new[n], points[n] = True, scaled[n]
                    continue
                vs, basis = sets[chunk_owner[n]], tuple(chunk[n].tolist())
                undecided = [] if decided is None else np.flatnonzero(~decided[n]).tolist()
                if n in tables:
                    pass
                elif chunk_keys[n] in pending:                        # one integer pivot
                    table, det, parent_basis, row, column = pending[chunk_keys[n]]
                    table, det = integer_pivot(table, det, row, table[:, column].copy())
                    order = parent_basis[:row] + (column,) + parent_basis[row + 1:]
                    at = {var: i for i, var in enumerate(order)}
                    tables[n] = table[[at[var] for var in basis]], det
                elif n in verified_tables:
                    undecided = None                                  # every column, exactly
                elif undecided:
                    tables[n] = exact_basis_tableau(vs, basis)
                if n in tables or n in verified_tables:
                    if n in tables:
                        table, det = tables[n][:2]
                        tables[n] = (table, det, basis)
                    else:
                        table, det = verified_tables[n]
                    values = exact_values(table, det, basis)
                    for entering, row, _ in exact_moves(table, basis, keys, undecided):
                        leave[n, entering] = row
                else:
                    values = exact_basic_solution(vs, basis)
                point = _point_key(int(chunk_owner[n]), values[:d])
                if point not in exact_vertex:
                    exact_vertex.add(point)
                    new[n], points[n] = True, point
                    zero[n] = [v == 0 for v in values]
            found_bases.append(chunk[new])
            found_zero.append(zero[new])
            found_owner.append(chunk_owner[new])
            found_points.extend(p for p, keep in zip(points, new.tolist()) if keep)
            parent, entering = np.nonzero(leave >= 0)                 # in the exact search's order
            rows = leave[parent, entering]
            child_keys = _child_keys(chunk, chunk_keys, chunk_owner, parent, rows, entering, cols)
            for i in (np.flatnonzero(np.isin(parent, list(tables))).tolist() if tables else ()):
                next_pending.setdefault(child_keys[i],
                                        tables[parent[i]] + (int(rows[i]), int(entering[i])))
            keep = []
            for i, key in enumerate(child_keys):
                if key not in seen:
                    seen.add(key)
                    keep.append(i)
            keep = np.array(keep, dtype=np.intp)
            parent, rows, entering = parent[keep], rows[keep], entering[keep]
            child = chunk[parent]
            child[np.arange(len(parent)), rows] = entering
            child_x, child_s, child_c = pivot_children(xs, scales, small_rows, parent, rows,
                                                       entering, carry)
            parts.append((child, chunk_owner[parent], [child_keys[i] for i in keep],
                          child_x, child_s, child_c))
        for vs, count in zip(sets, np.bincount(owner, minlength=len(sets)).tolist()):
            vs.bases_visited += count
        if level_tried:                                # integer first while most verify
            integer_first = exact_floats and 2 * level_verified >= level_tried
        if len(parts) == 1:
            frontier, owner, frontier_keys, frontier_x, frontier_s, frontier_c = parts[0]
        else:
            frontier, owner, frontier_x, frontier_s, frontier_c = (
                np.concatenate([p[i] for p in parts]) for i in (0, 1, 3, 4, 5))
            frontier_keys = [key for p in parts for key in p[2]]
        pending = next_pending
    all_bases, all_zero = np.concatenate(found_bases), np.concatenate(found_zero)
    all_owner = np.concatenate(found_owner)
    for i, vs in enumerate(sets):
        mine = all_owner == i
        vs.bases, vs.zero = all_bases[mine], all_zero[mine]
        vs.scaled = [p for p, o in zip(found_points, all_owner.tolist()) if o == i]
        vs.points = [None] * len(vs.scaled)
    return sets


def _known_tableaux(chunk_x, chunk_s, checked, mf, chunk, chunk_owner, bound):
    """The bases of a batch with tableaux pivoted from their parents, exact or verified now
    (:func:`~lpgame.equilibria.general_sum.enumeration_integer.verify_tableaux`), as
    [(bases, X, scales, small)], and the others (scale 0 or failing the check)."""
    known = np.flatnonzero(chunk_s > 0)
    known_x, known_s, ok = chunk_x[known], chunk_s[known], checked[known]
    if not ok.all():
        ok[~ok] = verify_tableaux(known_x[~ok], mf, chunk[known[~ok]], chunk_owner[known[~ok]],
                                  known_s[~ok], bound)
    exact = [(known[ok], known_x[ok], known_s[ok],
              np.abs(known_x[ok]).max(axis=(1, 2), initial=0) < CROSS_LIMIT)]
    unknown = np.flatnonzero(chunk_s == 0)
    if not ok.all():
        unknown = np.sort(np.concatenate([unknown, known[~ok]]))
    return exact, unknown


def _child_keys(chunk: np.ndarray, chunk_keys: list, chunk_owner: np.ndarray,
                parent: np.ndarray, rows: np.ndarray, entering: np.ndarray, cols: int) -> list:
    """:func:`_keys` of the children (the parent's basis, ``rows`` replaced by ``entering``): a
    bit mask's arithmetic from the parent's key where the masks fit, else from the bases."""
    if cols <= 56:
        masks = np.array(chunk_keys, dtype=np.int64)[parent]
        masks -= np.left_shift(np.int64(1), chunk[parent, rows].astype(np.int64))
        masks += np.left_shift(np.int64(1), entering.astype(np.int64))
        return masks.tolist()
    child = chunk[parent]
    child[np.arange(len(parent)), rows] = entering
    return _keys(child, chunk_owner[parent], cols)


def _keys(bases: np.ndarray, owner: np.ndarray, cols: int) -> list:
    """One hashable key per basis (its polytope and its set of columns): a bit mask, or bytes."""
    if cols <= 56:
        masks = np.left_shift(np.int64(1), bases.astype(np.int64)).sum(axis=1)
        return (masks + (owner.astype(np.int64) << cols)).tolist()
    ordered = np.sort(bases, axis=1).astype(np.int32)
    return [row.tobytes() for row in np.ascontiguousarray(np.column_stack([owner, ordered]))]
