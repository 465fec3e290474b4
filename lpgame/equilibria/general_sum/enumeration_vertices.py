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
their labels are those of :func:`polytope_vertices`; the vertex set is complete by the
connectedness argument above. The exact coordinates of a vertex named by its basis are computed on
demand (:meth:`VertexSet.point`) by a rational solve of B v_B = 1, and its labels are checked there
exactly (every basic value > 0 and every value ≥ 0, i.e. v ∈ P with exactly the labels claimed);
a failed check raises :class:`~lpgame.errors.ExactCheckError` (the caller falls back to the exact
search). A matrix too large for floats (an entry beyond 10³⁰⁸) returns ``None``: exact search.
"""

from __future__ import annotations

import math
import time
from collections import deque
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from lpgame.equilibria.general_sum.enumeration_integer import (
    CROSS_LIMIT,
    EXACT_LIMIT,
    integer_apply,
    integer_basic_solutions,
    integer_batch,
    integer_tableaux,
    pivot_children,
    verify_tableaux,
)
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

#: Most float entries of exact integer tableaux carried from one search level to the next (d per
#: basis counted, as a basis has up to d children; 32 MiB); past it, children are decided from
#: their own float tableaux.
MAX_CARRIED = 2 ** 22

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
    scaled: list = field(default_factory=list)        # exact coordinates (:func:`_scaled`)
    exact_bases: int = 0
    method: str = "exact"
    _flint_matrix: object = field(default=None, repr=False)
    _float_matrix: object = field(default=None, repr=False)

    def point(self, index: int) -> tuple:
        """The exact coordinates of vertex ``index``, its labels checked exactly (module docstring)."""
        if self.points[index] is None and self.scaled and self.scaled[index] is not None:
            den, nums = _scaled(self.scaled[index])
            self.points[index] = tuple(Fraction(v, den) for v in nums)
        if self.points[index] is None:
            values = _exact_basic_solution(self, tuple(self.bases[index].tolist()))
            zero = np.array([v == 0 for v in values])
            if any(v < 0 for v in values) or not np.array_equal(zero, self.zero[index]):
                raise ExactCheckError(
                    f"float vertex enumeration: the vertex of basis {self.bases[index].tolist()} is not "
                    "the exact vertex its float bounds claimed (an error bound failed)")
            self.points[index] = tuple(values[:self.matrix.shape[1]])
        return self.points[index]

    def normalised(self, indices: list[int]) -> list[tuple]:
        """The vertices ``indices`` scaled to sum 1 (mixed strategies), exactly, each checked as
        :meth:`point` checks it: from basic solutions β with D·β an integer vector verified in
        float64 (module docstring, *integer tableaux from floats*) where they fit, else from
        :meth:`point`."""
        scaled = {}
        todo = [i for i in indices if self.points[i] is None
                and not (self.scaled and self.scaled[i] is not None)]
        if todo:
            scaled = _integer_solutions(self, todo)
        out = []
        for i in indices:
            if i in scaled:
                values = scaled[i]
            elif self.points[i] is None and self.scaled and self.scaled[i] is not None:
                values = _scaled(self.scaled[i])[1]
            else:
                point = self.point(i)
                den = math.lcm(*(v.denominator for v in point))
                values = [v.numerator * (den // v.denominator) for v in point]
            total = sum(values)
            out.append(tuple(Fraction(v, total) for v in values))
        return out


def _scaled(entry) -> tuple[int, list[int]]:
    """(L, L·v) of a vertex's exact coordinates as the integer route keeps them: a key
    (polytope, L, L·v…) or an int64 row (L·v…, L)."""
    if isinstance(entry, np.ndarray):
        row = entry.tolist()
        return row[-1], row[:-1]
    return entry[1], list(entry[2:])


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


def _integer_solutions(vs: VertexSet, indices: list[int]) -> dict[int, list[int]]:
    """For the vertices ``indices`` (named by bases), D·v over the structural variables with
    B β = D·1 verified exactly (:func:`~lpgame.equilibria.general_sum.enumeration_integer.
    integer_basic_solutions`); each checked against the vertex's zero pattern (a failure raises
    :class:`~lpgame.errors.ExactCheckError`)."""
    k, d = vs.matrix.shape
    if vs._float_matrix is None:
        try:
            vs._float_matrix = np.array(_rows(vs), dtype=float)
        except OverflowError:
            vs._float_matrix = np.full((k, d + k + 1), np.inf)
    if not np.abs(vs._float_matrix).max() < EXACT_LIMIT:
        return {}
    bases = vs.bases[indices]
    beta, _, ok = integer_basic_solutions(vs._float_matrix, bases)
    out = {}
    for n in np.flatnonzero(ok).tolist():
        index, basis, values = indices[n], bases[n].tolist(), beta[n].astype(np.int64).tolist()
        zero = vs.zero[index]
        if min(values) < 0 or [v == 0 for v in values] != zero[basis].tolist() \
                or zero.sum() != d + values.count(0):
            raise ExactCheckError(
                f"float vertex enumeration: the vertex of basis {basis} is not the exact vertex its "
                "float bounds claimed (an error bound failed)")
        point = [0] * d
        for var, v in zip(basis, values):
            if var < d:
                point[var] = v
        out[index] = point
    return out


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
            _check_deadline(deadline, len(seen), sum(map(len, found_bases)), k, d)
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
                tables = {n: (np.array(_rows(sets[o]), dtype=object), 1, tuple(chunk[n].tolist()))
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
                    tables[n] = _exact_basis_tableau(vs, basis)
                if n in tables or n in verified_tables:
                    if n in tables:
                        table, det = tables[n][:2]
                        tables[n] = (table, det, basis)
                    else:
                        table, det = verified_tables[n]
                    values = _exact_values(table, det, basis)
                    for entering, row, _ in _exact_moves(table, basis, keys, undecided):
                        leave[n, entering] = row
                else:
                    values = _exact_basic_solution(vs, basis)
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
