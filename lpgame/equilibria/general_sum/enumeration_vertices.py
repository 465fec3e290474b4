"""Every vertex of a best-response polytope { v ∈ R^d : v ≥ 0, C v ≤ 1 }: exact, or float-first.

Used by :mod:`lpgame.equilibria.general_sum.enumeration` (Mangasarian 1964; Avis, Rosenberg, Savani
& von Stengel, "Enumeration of Nash equilibria for two-player games", Economic Theory 42, 2010).
C is a positive integer matrix (k × d); the tableau is M = [C | I | 1] (k × (d + k + 1)): the d
structural columns, the k slack columns s = 1 − Cv, the right-hand side. A basis is k columns of
[C | I]; its tableau is B⁻¹M, its basic solution β = B⁻¹1.

**Exact search** (:func:`polytope_vertices`). Breadth-first search over the lexicographically
feasible bases, the right-hand side perturbed to 1 + (ε, ε², …): that polytope is simple, its
bases are the lexicographically feasible bases of the original, every vertex has one, and the graph
of a simple polytope is connected, so the search from the slack basis (the vertex 0) with the
lexicographic minimum-ratio test (:func:`lpgame.lp.pivoting.lexmin_row`: the leaving row minimises
(β_i, (B⁻¹)_i)/α_i lexicographically over α_i > 0, α the entering column of B⁻¹M) visits them all.
Fraction-free integer pivots (:func:`lpgame.lp.pivoting.integer_pivot`).

**Float-first search** (:func:`certified_vertices`). The same search, the same order, each
frontier of the breadth-first search taken as one batch: for every basis the float inverse R of
B̃ = fl(B) and T̂ = fl(R M̃) (batched numpy), with an a posteriori bound E on every entry
(Rump-style, as in Higham, *Accuracy and Stability of Numerical Algorithms*, §14.1 and §3.5):

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
instead: its integer tableau det·B⁻¹M from a rational solve (python-flint), then the exact step
above, and its vertex is named by its exact coordinates (a degenerate vertex has several bases, all
of them decided exactly, so it is counted once). Each basis is decided from its own tableau, not
from its parent's, so no error accumulates along the search.

**Completeness.** Every decision equals the exact search's, so the set of bases visited (the
closure of the slack basis under the exact pivot map), the vertices, their order of discovery and
their labels are those of :func:`polytope_vertices`; the vertex set is complete by the
connectedness argument above. The exact coordinates of a vertex named by its basis are computed on
demand (:meth:`VertexSet.point`) by a rational solve of B v_B = 1, and its labels are checked there
exactly (every basic value > 0 and every value ≥ 0, i.e. v ∈ P with exactly the labels claimed);
a failed check raises :class:`~lpgame.errors.ExactCheckError` (the caller falls back to the exact
search). A matrix too large for floats (an entry beyond 10³⁰⁸) returns ``None``: exact search.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from lpgame.errors import ExactCheckError, SolverTimeLimitError
from lpgame.limits import check_prediction
from lpgame.lp.pivoting import integer_pivot, lexmin_row

#: Bytes per entry of a tableau waiting in the search queue (a Python int of a few machine words
#: and its pointer in the object array); the open tableaux are checked against the memory limit.
BYTES_PER_TABLE_ENTRY = 80

#: The unit roundoff of IEEE doubles.
UNIT_ROUNDOFF = 2.0 ** -53

#: Bases per float batch; each batch holds about a dozen float arrays of k × (d + k + 1) per basis.
BATCH = 2048

#: Bytes per batch entry (the float arrays of one batch: tableau, bounds, ratios and their masks).
BYTES_PER_BATCH_ENTRY = 8 * 16


# ------------------------------------------------------------------------------------ results
@dataclass
class PolytopeVertex:
    """A vertex v of {v ≥ 0, Cv ≤ 1}: coordinates (Fractions) and which constraints are tight:
    ``zero[k]`` for v_k = 0, ``tight[j]`` for (Cv)_j = 1."""

    point: tuple
    zero: np.ndarray
    tight: np.ndarray


@dataclass
class VertexSet:
    """The vertices of {v ≥ 0, Cv ≤ 1} in the exact search's order of discovery: ``zero[v]`` is
    the vertex's zero pattern over the d + k variables (v, s); ``bases[v]`` one basis of it;
    ``points[v]`` its exact coordinates (Fractions), ``None`` until :meth:`point` computes them."""

    matrix: np.ndarray
    zero: np.ndarray
    bases: np.ndarray
    points: list[tuple | None]
    bases_visited: int = 0
    exact_bases: int = 0
    method: str = "exact"
    _flint_matrix: object = field(default=None, repr=False)

    def point(self, index: int) -> tuple:
        """The exact coordinates of vertex ``index``, its labels checked exactly (module docstring)."""
        if self.points[index] is None:
            values = _exact_basic_solution(self, tuple(self.bases[index].tolist()))
            zero = np.array([v == 0 for v in values])
            if any(v < 0 for v in values) or not np.array_equal(zero, self.zero[index]):
                raise ExactCheckError(
                    f"float vertex enumeration: the vertex of basis {self.bases[index].tolist()} is not "
                    "the exact vertex its float bounds claimed (an error bound failed)")
            self.points[index] = tuple(values[:self.matrix.shape[1]])
        return self.points[index]


def vertex_set(matrix: np.ndarray, vertices: list[PolytopeVertex]) -> VertexSet:
    """A :class:`VertexSet` of the exact search's vertices."""
    cols = sum(matrix.shape)
    zero = np.array([np.concatenate([v.zero, v.tight]) for v in vertices], dtype=bool)
    return VertexSet(matrix, zero.reshape(len(vertices), cols), np.zeros((len(vertices), 0), int),
                     [v.point for v in vertices], len(vertices), len(vertices), "exact")


# ------------------------------------------------------------------------------------ exact
def _tableau(matrix: np.ndarray) -> np.ndarray:
    k, d = matrix.shape
    table = np.zeros((k, d + k + 1), dtype=object)
    table[:, :] = 0
    table[:, :d] = matrix
    table[np.arange(k), d + np.arange(k)] = 1
    table[:, d + k] = 1
    return table


def _exact_values(table: np.ndarray, det: int, basis: tuple) -> list[Fraction]:
    """The values (Fractions) of all d + k variables at a basis, from its integer tableau."""
    cols = table.shape[1] - 1
    values = [Fraction(0)] * cols
    for row, var in enumerate(basis):
        values[var] = Fraction(table[row, cols], det)
    return values


def _exact_moves(table: np.ndarray, basis: tuple, keys: list[int], columns=None) -> list[tuple]:
    """For each nonbasic column (of ``columns``, default all) in increasing order: (entering
    column, leaving row, the column) of the exact lexicographic minimum-ratio test."""
    cols = table.shape[1] - 1
    basic = set(basis)
    moves = []
    for entering in range(cols) if columns is None else columns:
        if entering in basic:
            continue
        column = table[:, entering]
        candidates = np.flatnonzero(column > 0)
        if len(candidates) == 0:
            continue
        moves.append((entering, lexmin_row(table, candidates, column[candidates], keys, exact=True),
                      column))
    return moves


def polytope_vertices(matrix: np.ndarray, deadline: float | None = None) -> list[PolytopeVertex]:
    """Every vertex of { v ∈ R^d : v ≥ 0, C v ≤ 1 } for an integer matrix C > 0 (k × d), exactly.

    Breadth-first search over lexicographically feasible bases of Cv + s = 1 (module docstring).
    ``matrix`` is a numpy object array of Python integers. Past ``deadline`` (a
    ``time.perf_counter()`` value) raises :class:`~lpgame.errors.SolverTimeLimitError`.
    """
    k, d = matrix.shape
    table = _tableau(matrix)
    keys = [d + k] + list(range(d, d + k))          # β, then B⁻¹ (the slack columns)
    basis = tuple(range(d, d + k))                  # the slacks: the vertex v = 0
    seen = {frozenset(basis)}
    queue = deque([(table, 1, basis)])
    vertices: dict[tuple, PolytopeVertex] = {}
    bytes_per_table = BYTES_PER_TABLE_ENTRY * k * (d + k + 1)
    popped = 0
    while queue:
        if popped % 256 == 0:
            check_prediction(f"vertex enumeration's open bases ({len(queue):,} tableaux of "
                             f"{k} × {d + k + 1} integers)", len(queue) * bytes_per_table)
        _check_deadline(deadline, len(seen), len(vertices), k, d)
        table, det, basis = queue.popleft()
        popped += 1
        values, moves = _exact_values(table, det, basis), _exact_moves(table, basis, keys)
        point = tuple(values[:d])
        if point not in vertices:
            zero = np.array([v == 0 for v in values])
            vertices[point] = PolytopeVertex(point, zero[:d], zero[d:])
        for entering, row, column in moves:
            new_basis = basis[:row] + (entering,) + basis[row + 1:]
            key = frozenset(new_basis)
            if key in seen:
                continue
            seen.add(key)
            new_table, new_det = integer_pivot(table, det, row, column.copy())
            queue.append((new_table, new_det, new_basis))
    return list(vertices.values())


def _check_deadline(deadline, bases: int, vertices: int, k: int, d: int) -> None:
    if deadline is not None and time.perf_counter() > deadline:
        raise SolverTimeLimitError(
            f"vertex enumeration hit the time limit after {bases:,} bases and "
            f"{vertices:,} vertices of a polytope in R^{d} with {k} inequalities (plus "
            f"{d} signs); no equilibrium is certified before both polytopes are complete",
            status="time limit", size={"rows": k, "cols": d, "nnz": k * d})


def _rows(vs: VertexSet) -> list[list[int]]:
    if vs._flint_matrix is None:
        vs._flint_matrix = _tableau(vs.matrix).tolist()
    return vs._flint_matrix


def _basis_matrix(vs: VertexSet, basis: tuple):
    import flint
    return flint.fmpz_mat([[row[j] for j in basis] for row in _rows(vs)])


def _exact_basis_tableau(vs: VertexSet, basis: tuple) -> tuple[np.ndarray, int]:
    """The integer tableau D·B⁻¹M with D = |det B| (as integer pivoting keeps it), by a rational
    solve; D·B⁻¹M is integral since B⁻¹ = adj(B)/det(B)."""
    import flint
    b = _basis_matrix(vs, basis)
    det = abs(int(b.det()))
    if det == 0:
        raise ExactCheckError(f"vertex enumeration: basis {basis} is singular")
    num, den = b.solve(flint.fmpz_mat(_rows(vs))).numer_denom()
    scale = det // int(den)
    return np.array([[int(v) * scale for v in row] for row in num.tolist()], dtype=object), det


def _exact_basic_solution(vs: VertexSet, basis: tuple) -> list[Fraction]:
    """The exact values of all d + k variables at ``basis``: with S its structural columns and L
    the rows whose slack is not basic (|L| = |S|), C_LS v_S = 1, then s = 1 − C v."""
    import flint
    k, d = vs.matrix.shape
    rows = _rows(vs)
    basic_slacks = {j - d for j in basis if j >= d}
    tight = [i for i in range(k) if i not in basic_slacks]
    support = sorted(j for j in basis if j < d)
    values = [Fraction(0)] * (d + k)
    if support:
        try:
            x = flint.fmpz_mat([[rows[i][j] for j in support] for i in tight]).solve(
                flint.fmpz_mat([[1]] * len(tight)))
        except ZeroDivisionError as exc:
            raise ExactCheckError(f"vertex enumeration: basis {basis} is singular") from exc
        for row, var in enumerate(support):
            q = x[row, 0]
            values[var] = Fraction(int(q.p), int(q.q))
    for i in range(k):
        values[d + i] = 1 - sum((rows[i][j] * values[j] for j in support), Fraction(0))
    return values


# ------------------------------------------------------------------------------------ float first
def _float_tableaux(mf: np.ndarray, abs_mf: np.ndarray, colsum: np.ndarray, bases: np.ndarray,
                    owner: np.ndarray):
    """T̂ = fl(R M̃) and the bound E of the module docstring, for a batch of bases (N × k), basis n
    of the polytope ``owner[n]`` (``mf`` stacks the polytopes' float tableaux M̃, all k × (d+k+1))."""
    n_bases, k = bases.shape
    u = UNIT_ROUNDOFF
    b = mf[owner[:, None, None], np.arange(k)[None, :, None], bases[:, None, :]]   # b[n] = M[:, basis]
    with np.errstate(all="ignore"):
        try:
            r = np.linalg.inv(b)
        except np.linalg.LinAlgError:                                 # a singular float basis
            r = np.stack([_inverse_or_nan(x) for x in b])
        abs_r = np.abs(r)
        if len(mf) == 1:                                              # one product, not N
            t = (r.reshape(n_bases * k, k) @ mf[0]).reshape(n_bases, k, -1)
            err = (abs_r.reshape(n_bases * k, k) @ abs_mf[0]).reshape(n_bases, k, -1)
        else:
            t, err = r @ mf[owner], abs_r @ abs_mf[owner]
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
    return t, err


def _inverse_or_nan(x: np.ndarray) -> np.ndarray:
    try:
        return np.linalg.inv(x)
    except np.linalg.LinAlgError:
        return np.full_like(x, np.nan)


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
            mf = _tableau(matrix).astype(float)
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
    once: a basis carries its polytope (``owner``), and its key includes it."""
    k, d = matrices[0].shape
    cols = d + k
    abs_mf = np.abs(mf)
    colsum = abs_mf.sum(axis=1) * (1 + 2 * (k + 1) * UNIT_ROUNDOFF)
    keys = [cols] + list(range(d, cols))
    sets = [VertexSet(c, np.zeros((0, cols), dtype=bool), np.zeros((0, k), dtype=np.intp), [],
                      method="float, certified") for c in matrices]
    found_bases, found_zero, found_owner, found_points = [], [], [], []
    exact_vertex: set[tuple] = set()
    frontier = np.tile(np.arange(d, cols, dtype=np.intp), (len(sets), 1))   # the vertices 0
    owner = np.arange(len(sets), dtype=np.intp)
    frontier_keys = _keys(frontier, owner, cols)
    seen = set(frontier_keys)
    pending: dict = {}          # child key → an exactly decided parent's (table, det, basis, row, column)
    seen_any = False
    while len(frontier):
        children, children_owner, children_keys, next_pending = [], [], [], {}
        for lo in range(0, len(frontier), BATCH):
            _check_deadline(deadline, len(seen), sum(map(len, found_bases)), k, d)
            chunk, chunk_owner = frontier[lo:lo + BATCH], owner[lo:lo + BATCH]
            chunk_keys = frontier_keys[lo:lo + BATCH]
            if len(chunk) >= 256 or not seen_any:        # /proc is read: not at every small batch
                check_prediction(f"float vertex enumeration's open bases (a batch of "
                                 f"{len(chunk):,} bases of {k} × {cols + 1} floats)",
                                 max(len(chunk), 64) * k * (cols + 1) * BYTES_PER_BATCH_ENTRY)
            t, err = _float_tableaux(mf, abs_mf, colsum, chunk, chunk_owner)
            sure, decided, leave = _float_decisions(t, err, chunk, cols)
            new = sure.copy()
            zero = np.ones((len(chunk), cols), dtype=bool)
            zero[np.arange(len(chunk))[:, None], chunk] = False
            points: list = [None] * len(chunk)
            tables: dict[int, tuple] = {}
            if not seen_any:            # the slack bases: their tableaux are M, det 1, for free
                tables = {n: (np.array(_rows(sets[o]), dtype=object), 1, tuple(chunk[n].tolist()))
                          for n, o in enumerate(chunk_owner.tolist())}
                seen_any = True
            leave[~decided] = -1
            for n in np.flatnonzero(~sure).tolist():                  # decided exactly
                vs, basis = sets[chunk_owner[n]], tuple(chunk[n].tolist())
                vs.exact_bases += 1
                undecided = np.flatnonzero(~decided[n]).tolist()
                if n in tables:
                    pass
                elif chunk_keys[n] in pending:                        # one integer pivot
                    table, det, parent_basis, row, column = pending[chunk_keys[n]]
                    table, det = integer_pivot(table, det, row, table[:, column].copy())
                    order = parent_basis[:row] + (column,) + parent_basis[row + 1:]
                    at = {var: i for i, var in enumerate(order)}
                    tables[n] = table[[at[var] for var in basis]], det
                elif undecided:
                    tables[n] = _exact_basis_tableau(vs, basis)
                if n in tables:
                    table, det = tables[n][:2]
                    tables[n] = (table, det, basis)
                    values = _exact_values(table, det, basis)
                    for entering, row, _ in _exact_moves(table, basis, keys, undecided):
                        leave[n, entering] = row
                else:
                    values = _exact_basic_solution(vs, basis)
                point = (int(chunk_owner[n]),) + tuple(values[:d])
                if point not in exact_vertex:
                    exact_vertex.add(point)
                    new[n], points[n] = True, point[1:]
                    zero[n] = [v == 0 for v in values]
            found_bases.append(chunk[new])
            found_zero.append(zero[new])
            found_owner.append(chunk_owner[new])
            found_points.extend(p for p, keep in zip(points, new.tolist()) if keep)
            parent, entering = np.nonzero(leave >= 0)                 # in the exact search's order
            rows = leave[parent, entering]
            child = chunk[parent]
            child[np.arange(len(parent)), rows] = entering
            child_keys = _keys(child, chunk_owner[parent], cols)
            for i in (np.flatnonzero(np.isin(parent, list(tables))).tolist() if tables else ()):
                next_pending.setdefault(child_keys[i],
                                        tables[parent[i]] + (int(rows[i]), int(entering[i])))
            children.append(child)
            children_owner.append(chunk_owner[parent])
            children_keys.extend(child_keys)
        for i, vs in enumerate(sets):
            vs.bases_visited += int(np.count_nonzero(owner == i))
        keep = []
        for i, key in enumerate(children_keys):
            if key not in seen:
                seen.add(key)
                keep.append(i)
        frontier = np.concatenate(children)[keep]
        owner = np.concatenate(children_owner)[keep]
        frontier_keys = [children_keys[i] for i in keep]
        pending = next_pending
    all_bases, all_zero = np.concatenate(found_bases), np.concatenate(found_zero)
    all_owner = np.concatenate(found_owner)
    for i, vs in enumerate(sets):
        mine = all_owner == i
        vs.bases, vs.zero = all_bases[mine], all_zero[mine]
        vs.points = [p for p, o in zip(found_points, all_owner.tolist()) if o == i]
    return sets


def _keys(bases: np.ndarray, owner: np.ndarray, cols: int) -> list:
    """One hashable key per basis (its polytope and its set of columns): a bit mask, or bytes."""
    if cols <= 56:
        masks = np.left_shift(np.int64(1), bases.astype(np.int64)).sum(axis=1)
        return (masks + (owner.astype(np.int64) << cols)).tolist()
    ordered = np.sort(bases, axis=1).astype(np.int32)
    return [row.tobytes() for row in np.ascontiguousarray(np.column_stack([owner, ordered]))]
