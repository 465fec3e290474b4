"""Every vertex of a best-response polytope { v ∈ R^d : v ≥ 0, C v ≤ 1 }, exactly.

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

The float-first search with its exact decisions, which finds the same vertices in the same order,
is :mod:`lpgame.equilibria.general_sum.enumeration_float`; its :class:`VertexSet` (the vertices
found, their exact coordinates computed and checked on demand) is defined here.
"""

from __future__ import annotations

import math
import time
from collections import deque
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from lpgame.equilibria.general_sum.enumeration_integer import EXACT_LIMIT, integer_basic_solutions
from lpgame.errors import ExactCheckError, SolverTimeLimitError
from lpgame.limits import check_prediction
from lpgame.lp.pivoting import integer_pivot, lexmin_row

#: Bytes per entry of a tableau waiting in the search queue (a Python int of a few machine words
#: and its pointer in the object array); the open tableaux are checked against the memory limit.
BYTES_PER_TABLE_ENTRY = 80

#: One shared exact 0 for the unplayed strategies of mixed strategies (Fractions are immutable).
ZERO = Fraction(0)


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
        """The exact coordinates of vertex ``index``, its labels checked exactly (as the
        float-first search's completeness argument requires:
        :mod:`~lpgame.equilibria.general_sum.enumeration_float`)."""
        if self.points[index] is None and self.scaled and self.scaled[index] is not None:
            den, nums = _scaled(self.scaled[index])
            self.points[index] = tuple(Fraction(v, den) for v in nums)
        if self.points[index] is None:
            values = exact_basic_solution(self, tuple(self.bases[index].tolist()))
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
        float64 (route 2 of :mod:`~lpgame.equilibria.general_sum.enumeration_float`) where they fit, else from
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
            out.append(tuple(Fraction(v, total) if v else ZERO for v in values))
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
def initial_tableau(matrix: np.ndarray) -> np.ndarray:
    """M = [C | I | 1] (object array of Python integers): the tableau of the slack basis."""
    k, d = matrix.shape
    table = np.zeros((k, d + k + 1), dtype=object)
    table[:, :] = 0
    table[:, :d] = matrix
    table[np.arange(k), d + np.arange(k)] = 1
    table[:, d + k] = 1
    return table


def exact_values(table: np.ndarray, det: int, basis: tuple) -> list[Fraction]:
    """The values (Fractions) of all d + k variables at a basis, from its integer tableau."""
    cols = table.shape[1] - 1
    values = [Fraction(0)] * cols
    for row, var in enumerate(basis):
        values[var] = Fraction(table[row, cols], det)
    return values


def exact_moves(table: np.ndarray, basis: tuple, keys: list[int], columns=None) -> list[tuple]:
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
    table = initial_tableau(matrix)
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
        check_deadline(deadline, len(seen), len(vertices), k, d)
        table, det, basis = queue.popleft()
        popped += 1
        values, moves = exact_values(table, det, basis), exact_moves(table, basis, keys)
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


def check_deadline(deadline, bases: int, vertices: int, k: int, d: int) -> None:
    """Past ``deadline`` (``time.perf_counter()``): :class:`~lpgame.errors.SolverTimeLimitError`."""
    if deadline is not None and time.perf_counter() > deadline:
        raise SolverTimeLimitError(
            f"vertex enumeration hit the time limit after {bases:,} bases and "
            f"{vertices:,} vertices of a polytope in R^{d} with {k} inequalities (plus "
            f"{d} signs); no equilibrium is certified before both polytopes are complete",
            status="time limit", size={"rows": k, "cols": d, "nnz": k * d})


def tableau_rows(vs: VertexSet) -> list[list[int]]:
    """The rows of M = [C | I | 1] as lists of Python integers (kept on ``vs``)."""
    if vs._flint_matrix is None:
        vs._flint_matrix = initial_tableau(vs.matrix).tolist()
    return vs._flint_matrix


def _basis_matrix(vs: VertexSet, basis: tuple):
    import flint
    return flint.fmpz_mat([[row[j] for j in basis] for row in tableau_rows(vs)])


def exact_basis_tableau(vs: VertexSet, basis: tuple) -> tuple[np.ndarray, int]:
    """The integer tableau D·B⁻¹M with D = |det B| (as integer pivoting keeps it), by a rational
    solve; D·B⁻¹M is integral since B⁻¹ = adj(B)/det(B)."""
    import flint
    b = _basis_matrix(vs, basis)
    det = abs(int(b.det()))
    if det == 0:
        raise ExactCheckError(f"vertex enumeration: basis {basis} is singular")
    num, den = b.solve(flint.fmpz_mat(tableau_rows(vs))).numer_denom()
    scale = det // int(den)
    return np.array([[int(v) * scale for v in row] for row in num.tolist()], dtype=object), det


def exact_basic_solution(vs: VertexSet, basis: tuple) -> list[Fraction]:
    """The exact values of all d + k variables at ``basis``: with S its structural columns and L
    the rows whose slack is not basic (|L| = |S|), C_LS v_S = 1, then s = 1 − C v."""
    import flint
    k, d = vs.matrix.shape
    rows = tableau_rows(vs)
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


def _integer_solutions(vs: VertexSet, indices: list[int]) -> dict[int, list[int]]:
    """For the vertices ``indices`` (named by bases), D·v over the structural variables with
    B β = D·1 verified exactly (:func:`~lpgame.equilibria.general_sum.enumeration_integer.
    integer_basic_solutions`); each checked against the vertex's zero pattern (a failure raises
    :class:`~lpgame.errors.ExactCheckError`)."""
    k, d = vs.matrix.shape
    if vs._float_matrix is None:
        try:
            vs._float_matrix = np.array(tableau_rows(vs), dtype=float)
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
