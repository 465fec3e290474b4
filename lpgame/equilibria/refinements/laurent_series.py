"""Taylor and Laurent series of a basis system: z(ε) = B(ε)⁻¹ b(ε), π(ε) = B(ε)⁻ᵀ c(ε), exactly.

Farina 2023, §13.3–13.4 (notes/farina-thesis.md §1.13), for a basis matrix B(ε) = Σ_k ε^k B_k of
a trembling LP; the stability verdict that reads these series is
:mod:`lpgame.equilibria.refinements.basis_stability`.

**Taylor case** (B(0) nonsingular; Lemma 13.1, L5707). z(ε) = Σ_{n≥0} z_n εⁿ with
B_0 z_n = b_n − Σ_{k≥1} B_k z_{n−k}, and the same for π with B_kᵀ. One exact factorisation of
B_0 (:class:`~lpgame.equilibria.refinements.exact_sparse_factor.ExactFactor`) serves all n.

**Laurent case** (B(0) singular; Lemma 13.3, L5766, and Example 13.1). Lemma 13.3 writes
B(ε) = ε^k T⁻¹(ε) B̃(ε) with B̃(0) nonsingular. We build T by row reduction, one step at a time
(the reduction technique for singularly perturbed linear systems; e.g. Avrachenkov, Filar &
Howlett, *Analytic Perturbation Theory and Its Applications*, SIAM 2013, ch. 2): if B_0 is
singular, let N (r × m) be a basis of its left null space in reduced row echelon form, with pivot
columns i_1, ..., i_r (N[j, i_j] = 1, N[j, i_l] = 0 for l ≠ j). Then N B(ε) = ε (N B_1 + ε N B_2 + …),
and the step

    S(ε) = D(ε)⁻¹ P,   P = I with row i_j replaced by N_j,   D(ε) = diag(ε at the rows i_j, 1 else)

gives B'(ε) = S(ε) B(ε), again a matrix polynomial (rows i_j become N_j B_{k+1} at power k), with
det B' = ε^{−r} det B (det P = 1). The rows of B_0 that are not pivots span its row space, so the
order of the zero of det at ε = 0 drops by r ≥ 1 at each step; after at most ord₀ det B(ε) steps
B̃(0) = (S_s ⋯ S_1 B)(0) is nonsingular. (For Example 13.1, B = [[2, 2], [1−ε², 1+ε−ε²]]: N = (−1/2, 1),
i_1 = 2, B̃ = [[2, 2], [−ε, 1−ε]], the thesis's M̃, with k = 1.) Then

    z(ε) = B̃(ε)⁻¹ (S_s ⋯ S_1 b)(ε),        π(ε) = S_1ᵀ ⋯ S_sᵀ B̃(ε)⁻ᵀ c_B(ε),

where S b is a Laurent polynomial (division by ε at the rows i_j), B̃⁻¹ expands as in the Taylor
case, and Sᵀ = Pᵀ D⁻¹ shifts the pivot entries down one power and adds N_jᵀ times them. The
series of z and π may start at ε^{−s}.

The left null space of a singular B_0 is taken after removing column singletons (their rows have
zero weight in every left null vector), on the remaining core, up to :data:`MAX_NULLSPACE` rows:
a rank profile from ``nmod_mat`` echelon forms modulo a prime names independent rows P and
columns C, and each other row f gives the null vector with y_f = 1 solved exactly from K[P, C],
checked exactly against every column (``fmpz_mat.nullspace`` when a check fails);
``fmpq_mat.rref`` then gives the echelon form, which depends only on the null space. A pencil
that is singular for every ε is not a basis: :class:`NotStableError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import lcm
from typing import TYPE_CHECKING

import numpy as np

from lpgame.equilibria.refinements.exact_sparse_factor import (
    ExactFactor,
    SingularMatrixError,
    SparseQ,
    fmpq_vector,
    fmpq_zeros,
    to_fmpq,
    to_fractions,
)
from lpgame.errors import LpgameError

if TYPE_CHECKING:
    import flint

MAX_NULLSPACE = 5000
"""Largest core (after column-singleton removal) of a singular B(0) whose left null space is
computed (dense)."""


class NotStableError(LpgameError):
    """The basis is not stable (or its stability could not be decided); the message says why and
    ``violations`` counts the entries of t_B(ε) of the wrong sign near ε = 0. Raised here when
    B(ε) is singular for every ε (not a basis) or its singular core is too large, and by the
    verdict of :func:`lpgame.equilibria.refinements.basis_stability.certify_stable_basis`."""

    partial_count = False
    """True when the test stopped at the first wrong sign (``violations`` is then a lower bound)."""

    def __init__(self, message: str, violations: int = 0):
        super().__init__(message)
        self.violations = violations


# ----------------------------------------------------------------------------- Laurent reduction
def left_null_space(matrix: SparseQ) -> tuple[list[dict[int, flint.fmpq]], list[int]]:
    """A basis N of {y : yᵀ M = 0} in reduced row echelon form, as sparse rows {row: value}, and
    the pivot of each (N[j][pivot_j] = 1, N[j][pivot_l] = 0; pivots as late as possible).
    Column singletons are removed first (the row of a column's only nonzero has weight 0 in every
    left null vector)."""
    import flint

    m, n = matrix.shape
    row_alive = np.ones(m, dtype=bool)
    col_alive = np.ones(n, dtype=bool)
    by_col: list[list[int]] = [[] for _ in range(n)]
    by_row: list[list[int]] = [[] for _ in range(m)]
    for r, c in zip(matrix.rows.tolist(), matrix.cols.tolist()):
        by_col[c].append(r)
        by_row[r].append(c)
    count = [len(rs) for rs in by_col]
    stack = [c for c in range(n) if count[c] <= 1]
    while stack:
        c = stack.pop()
        if not col_alive[c]:
            continue
        col_alive[c] = False
        if count[c] == 0:
            continue
        r = next(r for r in by_col[c] if row_alive[r])
        row_alive[r] = False
        for c2 in by_row[r]:
            if col_alive[c2]:
                count[c2] -= 1
                if count[c2] <= 1:
                    stack.append(c2)
    core_rows = np.flatnonzero(row_alive)
    core_cols = np.flatnonzero(col_alive)
    if len(core_rows) == 0:
        return [], []
    if len(core_rows) > MAX_NULLSPACE:
        raise NotStableError(f"B(0) is singular and its core after removing column singletons has "
                             f"{len(core_rows)} rows, over the {MAX_NULLSPACE} of the dense "
                             "left-null-space computation of the Laurent expansion")
    rpos = -np.ones(m, dtype=np.int64)
    rpos[core_rows] = np.arange(len(core_rows))
    cpos = -np.ones(n, dtype=np.int64)
    cpos[core_cols] = np.arange(len(core_cols))
    # Kᵀ (core columns × core rows) scaled to integers row by row (a row scaling of Kᵀ keeps its
    # null space)
    entries: list[dict[int, flint.fmpq]] = [dict() for _ in range(len(core_cols))]
    for r, c, v in zip(matrix.rows.tolist(), matrix.cols.tolist(), matrix.vals.tolist()):
        if rpos[r] >= 0 and cpos[c] >= 0:
            entries[cpos[c]][int(rpos[r])] = v
    size = len(core_rows)
    found = _modular_null_basis(entries, size)
    if found is None:
        kt = flint.fmpz_mat(max(len(core_cols), 1), len(core_rows))
        for i, row in enumerate(entries):
            scale = lcm(*(int(v.q) for v in row.values())) if row else 1
            for j, v in row.items():
                kt[i, j] = v.p * (scale // int(v.q))
        basis, nullity = kt.nullspace()
        found = [[basis[i, j] for i in range(size)] for j in range(nullity)]
    if not found:
        return [], []
    # echelon form over the rows in reverse order: the pivots are the last rows possible (for
    # Example 13.1 the second row, as in the thesis's M̃); the reduced echelon form of the null
    # space does not depend on the basis it starts from
    nullity = len(found)
    vectors = flint.fmpq_mat(nullity, size)
    for j, vec in enumerate(found):
        for i in range(size):
            vectors[j, size - 1 - i] = vec[i]
    echelon, rank = vectors.rref()
    rows_out, pivots = [], []
    for j in range(rank):
        row = {int(core_rows[size - 1 - i]): echelon[j, i] for i in range(size) if echelon[j, i]}
        pivots.append(max(row))
        rows_out.append(row)
    return rows_out, pivots


NULL_PRIME = 2 ** 61 - 1
"""The prime of the modular rank computation in :func:`_modular_null_basis`."""


def _pivots(matrix, rank: int) -> list[int]:
    """The pivot columns of the first ``rank`` rows of a matrix in reduced row echelon form."""
    out, j = [], 0
    for i in range(rank):
        while not int(matrix[i, j]):
            j += 1
        out.append(j)
        j += 1
    return out


def _modular_null_basis(columns: list[dict[int, flint.fmpq]], size: int) -> list[list] | None:
    """A basis of {y : yᵀ K = 0} for K (``size`` rows, given by its columns {row: value}), or None
    when this route does not apply: a rank profile of K (independent rows P, columns C) from
    echelon forms modulo :data:`NULL_PRIME` (FLINT's nmod_mat, :func:`_modular_profile`), then the
    vectors computed and checked exactly (:func:`_null_from_profile`). (LAPACK's pivoted QR as
    the profile was tried: slower here than FLINT's modular echelon form.)"""
    if not columns or not size:
        return None
    found = _modular_profile(columns, size)
    return None if found is None else _null_from_profile(columns, size, *found)


def _modular_profile(columns, size) -> tuple[list[int], list[int]] | None:
    """(independent rows, columns) of K from echelon forms modulo :data:`NULL_PRIME`: K[P, C] is
    nonsingular modulo p, hence over ℚ."""
    import flint

    p = NULL_PRIME
    b = len(columns)
    inverse: dict = {}

    def mod(v):
        q = int(v.q)
        inv = inverse.get(q)
        if inv is None:
            if q % p == 0:
                raise ZeroDivisionError
            inv = inverse[q] = pow(q, -1, p)
        return int(v.p) % p * inv % p

    try:
        kt = flint.nmod_mat(b, size, p)
        for c, col in enumerate(columns):
            for r, v in col.items():
                kt[c, r] = mod(v)
    except ZeroDivisionError:        # pragma: no cover - denominators are small
        return None
    echelon, rank = kt.rref()
    independent = _pivots(echelon, rank)           # rows of K
    if rank == size:
        return None
    pos = {r: i for i, r in enumerate(independent)}
    sub = flint.nmod_mat(rank, b, p)
    for c, col in enumerate(columns):
        for r, v in col.items():
            if r in pos:
                sub[pos[r], c] = mod(v)
    echelon, sub_rank = sub.rref()
    if sub_rank != rank:             # pragma: no cover - the rows were chosen independent
        return None
    return independent, _pivots(echelon, rank)      # columns of K


def _null_from_profile(columns, size, independent, chosen) -> list[list] | None:
    """Null vectors from a rank profile: each row f outside P gives y with y_f = 1, zero on the
    other free rows and y_P from K[P, C]ᵀ y_P = −K[f, C]ᵀ, solved exactly (:class:`ExactFactor`);
    every yᵀK = 0 is checked exactly. They are independent, and K[P, C] nonsingular bounds the
    nullity by their count, so they are a basis. None when K[P, C] is singular or a check fails
    (the profile was wrong)."""
    import flint

    rank = len(independent)
    free = sorted(set(range(size)) - set(independent))
    pos = {r: i for i, r in enumerate(independent)}
    entries = {(pos[r], j): v for j, c in enumerate(chosen) for r, v in columns[c].items()
               if r in pos}
    try:
        factor = ExactFactor(SparseQ.from_dict((rank, rank), entries))
    except SingularMatrixError:
        return None
    zero = flint.fmpq(0)
    out = []
    for f in free:
        rhs = fmpq_zeros(rank)
        for j, c in enumerate(chosen):
            v = columns[c].get(f)
            if v:
                rhs[j] = -v
        y = [zero] * size
        y[f] = flint.fmpq(1)
        if rhs.astype(bool).any():
            for r, v in zip(independent, factor.solve_t(rhs).tolist()):
                y[r] = v
        for col in columns:
            if sum((v * y[r] for r, v in col.items() if y[r]), zero):
                return None
        out.append(y)
    return out


@dataclass
class _Step:
    pivots: list[int]
    null: list[dict[int, flint.fmpq]]

    def combine(self, x: np.ndarray, j: int):
        import flint

        return sum((v * x[i] for i, v in self.null[j].items() if x[i]), flint.fmpq(0))


def _rows_of(matrix: SparseQ) -> list[dict[int, flint.fmpq]]:
    out: list[dict] = [dict() for _ in range(matrix.shape[0])]
    for r, c, v in zip(matrix.rows.tolist(), matrix.cols.tolist(), matrix.vals.tolist()):
        out[r][c] = v
    return out


def _reduce_step(parts: dict[int, SparseQ], step: _Step) -> dict[int, SparseQ]:
    """B'(ε) = D⁻¹ P B(ε): rows i_j of part k become N_j · part k+1 (module docstring)."""
    import flint

    Q0 = flint.fmpq(0)
    size = next(iter(parts.values())).shape
    rows = {k: _rows_of(p) for k, p in parts.items()}
    top = max(parts)
    out = {}
    for k in range(top + 1):
        entries = parts[k].to_dict() if k in parts else {}
        for i in step.pivots:
            for c in rows[k][i] if k in rows else ():
                del entries[(i, c)]
        if k + 1 in rows:
            nxt = rows[k + 1]
            for i, null in zip(step.pivots, step.null):
                acc: dict[int, flint.fmpq] = {}
                for t, w in null.items():
                    for c, v in nxt[t].items():
                        acc[c] = acc.get(c, Q0) + w * v
                for c, v in acc.items():
                    if v:
                        entries[(i, c)] = v
        out[k] = SparseQ.from_dict(size, entries)
    return {k: p for k, p in out.items() if p.nnz or k == 0}


def reduce_pencil(parts: dict[int, SparseQ], max_steps: int | None = None
                  ) -> tuple[dict[int, SparseQ], list[_Step], ExactFactor]:
    """Lemma 13.3 by row reduction (module docstring): (B̃ parts, the steps S_1..S_s, a factor of
    B̃(0)). Raises :class:`NotStableError` if B(ε) is singular for every ε (a singular pencil)."""
    n = parts[0].shape[0]
    degree = max(parts)
    max_steps = n * max(degree, 1) if max_steps is None else max_steps
    steps: list[_Step] = []
    while True:
        try:
            return parts, steps, ExactFactor(parts[0])
        except SingularMatrixError:
            pass
        if len(steps) >= max_steps:
            raise NotStableError(f"B(ε) is singular for every ε: {len(steps)} Laurent reduction "
                                 "steps did not give a nonsingular B̃(0)")
        null, pivots = left_null_space(parts[0])
        if not null:   # pragma: no cover - a singular matrix has a left null vector
            raise NotStableError("B(0) is singular but no left null vector was found")
        step = _Step(pivots, null)
        new = _reduce_step(parts, step)
        for i in pivots:
            if not any(np.any(p.rows == i) for p in new.values()):
                raise NotStableError("B(ε) is singular for every ε (a combination of its rows "
                                     "vanishes identically): not a basis")
        parts = new
        steps.append(step)


class LaurentSolver:
    """z(ε) = B(ε)⁻¹ b(ε) and π(ε) = B(ε)⁻ᵀ c(ε) as Laurent series (module docstring)."""

    def __init__(self, parts: dict[int, SparseQ]):
        self.original = parts
        self.parts, self.steps, self.factor = reduce_pencil(parts)
        self.varying = sorted(k for k in self.parts if k > 0)

    @property
    def pole_order(self) -> int:
        return len(self.steps)

    def primal(self, b: dict[int, np.ndarray], top: int) -> dict[int, np.ndarray]:
        """{n: z_n} for n from −(pole order) to ``top``; b: {power: vector} (a polynomial)."""
        import flint

        Q0 = flint.fmpq(0)
        n = self.factor.n
        series = {k: v.copy() for k, v in b.items()}
        for step in self.steps:                         # b ← D⁻¹ P b
            low = min(series) if series else 0
            new = {}
            for k in range(low - 1, max(series, default=0) + 1):
                vec = series[k].copy() if k in series else fmpq_zeros(n)
                nxt = series.get(k + 1)
                for j, i in enumerate(step.pivots):
                    vec[i] = step.combine(nxt, j) if nxt is not None else Q0
                new[k] = vec
            series = new
        low = -len(self.steps)
        z: dict[int, np.ndarray] = {}
        for k in range(low, top + 1):
            rhs = series[k].copy() if k in series else fmpq_zeros(n)
            for j in self.varying:
                if k - j >= low:
                    rhs = rhs - self.parts[j].matvec(z[k - j])
            z[k] = self.factor.solve(rhs) if rhs.astype(bool).any() else fmpq_zeros(n)
        return z

    def dual(self, c: dict[int, np.ndarray], top: int) -> dict[int, np.ndarray]:
        """{n: π_n} for n from −(pole order) to ``top``; c: {power: vector} (a polynomial)."""
        import flint

        Q0 = flint.fmpq(0)
        n = self.factor.n
        s = len(self.steps)
        u: dict[int, np.ndarray] = {}
        for k in range(0, top + s + 1):
            rhs = c[k].copy() if k in c else fmpq_zeros(n)
            for j in self.varying:
                if k - j >= 0:
                    rhs = rhs - self.parts[j].T.matvec(u[k - j])
            u[k] = self.factor.solve_t(rhs) if rhs.astype(bool).any() else fmpq_zeros(n)
        for step in reversed(self.steps):               # u ← Pᵀ D⁻¹ u
            low, high = min(u), max(u)
            new = {}
            for k in range(low - 1, high):
                w = u[k].copy() if k in u else fmpq_zeros(n)
                nxt = u.get(k + 1)
                shifted = [nxt[i] if nxt is not None else Q0 for i in step.pivots]
                for i in step.pivots:
                    w[i] = Q0
                for value, null in zip(shifted, step.null):
                    if value:
                        for t, v in null.items():
                            w[t] += v * value
                new[k] = w
            u = new
        return u


def laurent_solve(rows: list[list], rhs: list[list]) -> dict[int, list[Fraction]]:
    """The Laurent series of B(ε)⁻¹ b(ε) for a small dense pencil (tests, examples): ``rows[k]``
    is B_k as a list of rows, ``rhs[k]`` is b_k; returns {n: z_n} for n from −(pole order) to
    ``len(rows) + len(rhs)`` (a convenience wrapper of :class:`LaurentSolver`)."""
    n = len(rows[0])
    parts = {}
    for k, dense in enumerate(rows):
        entries = {(i, j): to_fmpq(v) for i, row in enumerate(dense) for j, v in enumerate(row) if v}
        if entries or k == 0:
            parts[k] = SparseQ.from_dict((n, n), entries)
    solver = LaurentSolver(parts)
    b = {k: fmpq_vector(v) for k, v in enumerate(rhs)}
    z = solver.primal(b, len(rows) + len(rhs))
    return {k: to_fractions(v) for k, v in z.items()}
