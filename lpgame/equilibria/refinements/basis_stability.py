"""The exact stability test of a trembling LP's basis: Taylor and Laurent series in rationals.

Farina 2023, §13.3–13.4 (notes/farina-thesis.md §1.13). For the trembling LP
P(ε): opt c(ε)ᵀz s.t. A(ε)z (≤, =, ≥) b(ε), z ≥ 0 or free, and a basis ℬ (basic columns, tight
rows) with basis matrix B(ε) = Σ_k ε^k B_k, the basis is *stable* when it is optimal on some
(0, ε̄] (Def. 13.7), i.e. when every entry of the certificate of Thm. 13.3 (L5567),

    t_ℬ(ε) = ( z_B(ε) = B(ε)⁻¹ b(ε) ;  slacks of the rows that are not tight ;
               signs of the row duals π(ε) = B(ε)⁻ᵀ c_B(ε) ;  reduced costs c(ε) − A(ε)ᵀ π(ε) ),

is ≥ 0 (or = 0 for an equality row that is not tight, or a free nonbasic column) for every small
ε > 0. Every entry is a rational function of ε; near 0 its sign is the sign of the first nonzero
coefficient of its Laurent series.

**Taylor case** (B(0) nonsingular; Lemma 13.1, L5707). z(ε) = Σ_{n≥0} z_n εⁿ with
B_0 z_n = b_n − Σ_{k≥1} B_k z_{n−k}, and the same for π with B_kᵀ. One exact factorisation of
B_0 serves all n.

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
series of z and π may start at ε^{−s}. **The limit is the ε⁰ coefficient (§13.4.4), and it must
be finite**: a nonzero coefficient of a negative power in z or π means the basic solution has
no limit, and the basis is reported as not stable.

**Sign test and stopping rule.** The first ``terms`` coefficients of every entry are computed; an
entry whose coefficients all vanish so far is tested by an exact evaluation of the basis system at
a random rational ε̃ (the random-evaluation alternative to the 2nm + 1 derivatives of Lemma 13.2,
L5744–5746): zero there means identically zero (a nonzero rational function has finitely many
roots), nonzero means more coefficients are computed (the count doubles). When ε enters only b and
c, B is constant and every entry is a polynomial; then a positive polynomial Σ_{k≥m} a_k ε^k is
positive on (0, a_m/(a_m + μ)], μ = max_{k>m} |a_k| (as in Lemma 12.5, L5155), and the answer states
that ε*.

**Arithmetic.** Everything is exact, in python-flint's ``fmpq`` (GMP/FLINT rationals; the thesis
used GMP too, L5813). Solves with B_0 use its block triangular form: a maximum matching puts a
nonzero on the diagonal (scipy's ``maximum_bipartite_matching``), the strongly connected
components of the permuted matrix are its diagonal blocks (Duff & Reid's block triangularisation),
solved in topological order; each block of size 1 by a division, larger blocks by an exact sparse
LU factorisation (Markowitz-like pivots; their dense inverses would be full rows of long
rationals), computed once. Sequence-form bases split into many blocks of size 1 and a few of hundreds
(G24: 23,100 blocks, the largest 730 of 41,076 rows). The left null space of a singular B_0 is
taken after removing column singletons (their rows have zero weight in every left null vector), on
the remaining core by ``fmpz_mat.nullspace`` and ``fmpq_mat.rref``, dense, up to
:data:`MAX_NULLSPACE` rows. Results are returned as :class:`fractions.Fraction`.
"""

from __future__ import annotations

import heapq
import random
from dataclasses import dataclass
from fractions import Fraction
from math import lcm

import flint
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components, maximum_bipartite_matching

from lpgame.errors import LpgameError
from lpgame.lp.linear_program import LinearProgram
from lpgame.lp.solution import BASIS_BASIC, LPSolution

Q = flint.fmpq
Q0 = Q(0)
MAX_NULLSPACE = 5000
"""Largest core (after column-singleton removal) of a singular B(0) whose left null space is
computed (dense)."""


# ----------------------------------------------------------------------------- results
@dataclass
class StableBasis:
    """A basis certified stable, with the Taylor (or polynomial) coefficients of its solution.

    ``primal[n]`` and ``duals[n]`` are the coefficients of ε^n of every column value and row dual
    (the full vectors); the limit is ``primal[0]``, ``duals[0]``. ``polynomial``: the expansions
    are exact polynomials (ε only in b and c), and then ``certified_epsilon`` ε* is a rational such
    that the basis is optimal for every ε in (0, ε*]. Otherwise they are Taylor series truncated
    after ``len(primal)`` terms and ``certified_epsilon`` is None (optimal on some (0, ε̄]).
    ``pole_order``: the number of Laurent reduction steps (Lemma 13.3) that B(ε) needed, 0 when
    B(0) is nonsingular; the negative powers of z(ε) and π(ε) are checked to vanish.
    """

    primal: list[list[Fraction]]
    duals: list[list[Fraction]]
    polynomial: bool
    certified_epsilon: Fraction | None
    checked_entries: int
    how: str
    pole_order: int = 0

    def values(self, lp: LinearProgram, block: str, n: int = 0) -> list[Fraction]:
        b = lp.block(block)
        return self.primal[n][b.offset:b.offset + b.size] if n < len(self.primal) \
            else [Fraction(0)] * b.size

    def row_duals(self, lp: LinearProgram, block: str, n: int = 0) -> list[Fraction]:
        b = lp.block(block)
        return self.duals[n][b.offset:b.offset + b.size] if n < len(self.duals) \
            else [Fraction(0)] * b.size

    def series(self, lp: LinearProgram, block: str, kind: str = "primal") -> list[list[Fraction]]:
        """The coefficients [ε⁰, ε¹, ...] of a variable block (``primal``) or a row block's duals."""
        get = self.values if kind == "primal" else self.row_duals
        terms = self.primal if kind == "primal" else self.duals
        return [get(lp, block, n) for n in range(len(terms))]


class NotStableError(LpgameError):
    """The basis is not stable (or its stability could not be decided); the message says why and
    ``violations`` counts the entries of t_B(ε) of the wrong sign near ε = 0."""

    def __init__(self, message: str, violations: int = 0):
        super().__init__(message)
        self.violations = violations


class SingularMatrixError(LpgameError):
    """A square matrix given to :class:`ExactFactor` is singular (structurally or exactly)."""


# ----------------------------------------------------------------------------- sparse over Q
def _q(value) -> flint.fmpq:
    if type(value) is Fraction:
        return Q(value.numerator, value.denominator)
    return Q(value)


def _zeros(n: int) -> np.ndarray:
    out = np.empty(n, dtype=object)
    out.fill(Q0)
    return out


def _vector(values) -> np.ndarray:
    cache: dict = {}
    out = _zeros(len(values))
    for i, v in enumerate(values):
        if v:
            q = cache.get(v)
            if q is None:
                q = cache[v] = _q(v)
            out[i] = q
    return out


def to_fractions(values) -> list[Fraction]:
    """fmpq (or Fraction) values as Fractions, converting each distinct value once."""
    cache: dict = {}
    zero = Fraction(0)
    out = []
    for v in values:
        if not v:
            out.append(zero)
            continue
        f = cache.get(v)
        if f is None:
            f = cache[v] = v if type(v) is Fraction else Fraction(int(v.p), int(v.q))
        out.append(f)
    return out


class SparseQ:
    """A sparse m × n matrix with ``fmpq`` entries (COO, sorted by row; no duplicates, no zeros)."""

    def __init__(self, shape, rows, cols, vals):
        self.shape = (int(shape[0]), int(shape[1]))
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        vals = np.asarray(vals, dtype=object) if len(vals) else np.empty(0, dtype=object)
        keep = np.fromiter((bool(v) for v in vals), dtype=bool, count=len(vals))
        rows, cols, vals = rows[keep], cols[keep], vals[keep]
        order = np.lexsort((cols, rows))
        self.rows, self.cols, self.vals = rows[order], cols[order], vals[order]
        change = np.flatnonzero(np.diff(self.rows)) + 1 if len(self.rows) else np.zeros(0, np.int64)
        self._starts = np.concatenate([[0], change]).astype(np.int64) if len(self.rows) else change
        self._row_ids = self.rows[self._starts] if len(self.rows) else change
        self._t = None

    @classmethod
    def from_rational(cls, matrix, row_pos=None, col_pos=None, shape=None) -> SparseQ:
        """From a :class:`~lpgame.rational.RationalMatrix`, optionally restricted to rows/columns
        (``row_pos``/``col_pos``: new position of each row/column, −1 to drop)."""
        rows, cols = matrix.rows, matrix.cols
        keep = np.ones(len(rows), dtype=bool)
        if row_pos is not None:
            rows = row_pos[rows]
            keep &= rows >= 0
        if col_pos is not None:
            cols = col_pos[cols]
            keep &= cols >= 0
        idx = np.flatnonzero(keep)
        nums, den = matrix.scaled()          # integers over one denominator: cheap to hash
        cache: dict = {}
        vals = []
        for num in nums[idx].tolist():
            q = cache.get(num)
            if q is None:
                q = cache[num] = Q(num, den)
            vals.append(q)
        return cls(shape or matrix.shape, rows[idx], cols[idx], vals)

    @classmethod
    def from_dict(cls, shape, entries: dict) -> SparseQ:
        if not entries:
            return cls(shape, [], [], [])
        keys = list(entries)
        return cls(shape, [k[0] for k in keys], [k[1] for k in keys], [entries[k] for k in keys])

    def to_dict(self) -> dict:
        return dict(zip(zip(self.rows.tolist(), self.cols.tolist()), self.vals.tolist()))

    @property
    def nnz(self) -> int:
        return len(self.vals)

    @property
    def T(self) -> SparseQ:  # noqa: N802
        if self._t is None:
            self._t = SparseQ((self.shape[1], self.shape[0]), self.cols, self.rows, self.vals)
            self._t._t = self
        return self._t

    def matvec(self, x: np.ndarray) -> np.ndarray:
        """self @ x for an object array of fmpq."""
        out = _zeros(self.shape[0])
        if self.nnz:
            out[self._row_ids] = np.add.reduceat(self.vals * x[self.cols], self._starts)
        return out

    def rmatvec(self, x: np.ndarray) -> np.ndarray:
        return self.T.matvec(x)

    def float_pattern(self) -> sp.csr_array:
        return sp.csr_array((np.ones(self.nnz), (self.rows, self.cols)), shape=self.shape)


# ----------------------------------------------------------------------------- exact factor
class ExactFactor:
    """An exact block triangular factorisation of a square sparse rational matrix (module
    docstring): solve M x = b and Mᵀ y = c in fmpq. Raises :class:`SingularMatrixError`."""

    def __init__(self, matrix: SparseQ):
        n = matrix.shape[0]
        if matrix.shape != (n, n):
            raise SingularMatrixError(f"matrix of shape {matrix.shape} is not square")
        self.n = n
        if n == 0:
            self.blocks = []
            return
        match = maximum_bipartite_matching(matrix.float_pattern(), perm_type="column")
        if np.any(match < 0):
            raise SingularMatrixError(f"structurally singular: {int((match < 0).sum())} of {n} rows "
                                      "have no matching column")
        self.match = match                      # unknown j of the permuted system is x[match[j]]
        col_to_j = np.empty(n, dtype=np.int64)
        col_to_j[match] = np.arange(n)
        rows, js, vals = matrix.rows, col_to_j[matrix.cols], matrix.vals
        perm = sp.csr_array((np.ones(len(rows)), (rows, js)), shape=(n, n))
        count, label = connected_components(perm, directed=True, connection="strong")
        # condensation edges: block(row) depends on block(j)
        lr, lj = label[rows], label[js]
        off = lr != lj
        deps = np.unique(np.stack([lr[off], lj[off]], axis=1), axis=0) if off.any() else \
            np.zeros((0, 2), dtype=np.int64)
        order = _topological(count, deps)          # dependencies first
        members = [[] for _ in range(count)]
        for i, b in enumerate(label.tolist()):
            members[b].append(i)
        local = np.empty(n, dtype=np.int64)
        for b in range(count):
            local[members[b]] = np.arange(len(members[b]))
        # per block: off-block entries for the primal (rows in block) and the transpose (j in block)
        primal_off = [[] for _ in range(count)]
        dual_off = [[] for _ in range(count)]
        inside: dict[int, list] = {}
        for r, j, v, a, c in zip(rows.tolist(), js.tolist(), vals.tolist(), lr.tolist(), lj.tolist()):
            if a == c:
                inside.setdefault(a, []).append((local[r], local[j], v))
            else:
                primal_off[a].append((int(local[r]), j, v))
                dual_off[c].append((int(local[j]), r, v))
        self.blocks = []
        for b in order:
            idx = members[b]
            if len(idx) == 1:
                entry = inside.get(b, [])
                if not entry:   # pragma: no cover - the matching puts a nonzero on the diagonal
                    raise SingularMatrixError("zero on the matched diagonal")
                kind, data = "scalar", 1 / entry[0][2]
            else:
                kind, data = "lu", _SparseLU(len(idx), inside[b])
            self.blocks.append((idx, kind, data, primal_off[b], dual_off[b]))

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """x with M x = rhs (object arrays of fmpq)."""
        x = _zeros(self.n)
        x[self.match] = self._substitute(rhs, transpose=False)
        return x

    def solve_t(self, rhs: np.ndarray) -> np.ndarray:
        """y with Mᵀ y = rhs."""
        return self._substitute(rhs[self.match], transpose=True)

    def _substitute(self, rhs, transpose: bool) -> np.ndarray:
        """Block substitution through the block triangular form: forward over the blocks for M
        (right-hand side by row), backward for Mᵀ (right-hand side by matched column)."""
        y = _zeros(self.n)
        blocks = reversed(self.blocks) if transpose else self.blocks
        for idx, kind, data, primal_off, dual_off in blocks:
            local = [rhs[i] for i in idx]
            for r, k, v in (dual_off if transpose else primal_off):
                if y[k]:
                    local[r] -= v * y[k]
            for pos, value in zip(idx, _block_solve(kind, data, local, transpose)):
                y[pos] = value
        return y


def _block_solve(kind, data, local, transpose):
    if kind == "scalar":
        return [local[0] * data]
    if not any(local):
        return [Q0] * len(local)
    return data.solve_t(local) if transpose else data.solve(local)


class _SparseLU:
    """Exact sparse Gaussian elimination of one diagonal block, M = L U (row operations in pivot
    order), pivots chosen by a Markowitz-like rule: the remaining row with the fewest nonzeros,
    and in it the column with the fewest. Keeps the fill of sequence-form blocks small (their
    dense inverses are not: full rows of long rationals)."""

    def __init__(self, k: int, entries):
        rows: list[dict] = [dict() for _ in range(k)]
        cols: list[set] = [set() for _ in range(k)]
        for r, j, v in entries:
            rows[int(r)][int(j)] = v
            cols[int(j)].add(int(r))
        alive = [True] * k
        heap = [(len(rows[r]), r) for r in range(k)]      # rows by length (stale entries skipped)
        heapq.heapify(heap)
        self.steps = []           # (pivot row, pivot column, pivot, U row {col: v}, L {row: l})
        for _ in range(k):
            while True:
                length, p = heapq.heappop(heap)
                if alive[p] and length == len(rows[p]):
                    break
            if not rows[p]:
                raise SingularMatrixError(f"a diagonal block of size {k} is singular")
            c = min(rows[p], key=lambda j: len(cols[j]))
            pivot = rows[p][c]
            alive[p] = False
            urow = rows[p]
            for j in urow:
                cols[j].discard(p)
            lower = {}
            for r in list(cols[c]):
                factor = rows[r][c] / pivot
                lower[r] = factor
                row = rows[r]
                for j, u in urow.items():
                    value = row.get(j, Q0) - factor * u
                    if value:
                        if j not in row:
                            cols[j].add(r)
                        row[j] = value
                    elif j in row:
                        del row[j]
                        cols[j].discard(r)
                heapq.heappush(heap, (len(row), r))
            self.steps.append((p, c, pivot, {j: u for j, u in urow.items() if j != c}, lower))
        self.k = k

    def solve(self, b: list) -> list:
        b = list(b)
        for p, _, _, _, lower in self.steps:               # L v = b
            vp = b[p]
            if vp:
                for r, factor in lower.items():
                    b[r] -= factor * vp
        x = [Q0] * self.k
        for p, c, pivot, upper, _ in reversed(self.steps):   # U x = v
            value = b[p]
            for j, u in upper.items():
                if x[j]:
                    value -= u * x[j]
            x[c] = value / pivot
        return x

    def solve_t(self, c: list) -> list:
        c = list(c)
        w = [Q0] * self.k
        for p, col, pivot, upper, _ in self.steps:         # Uᵀ w = c
            value = c[col] / pivot
            w[p] = value
            if value:
                for j, u in upper.items():
                    c[j] -= u * value
        for p, _, _, _, lower in reversed(self.steps):       # Lᵀ y = w
            value = w[p]
            for r, factor in lower.items():
                if w[r]:
                    value -= factor * w[r]
            w[p] = value
        return w


def _topological(count: int, deps: np.ndarray) -> list[int]:
    """Blocks ordered so that each comes after the blocks it depends on (deps: (block, needs))."""
    needs = np.bincount(deps[:, 0], minlength=count) if len(deps) else np.zeros(count, np.int64)
    needs = needs.tolist()
    users: list[list[int]] = [[] for _ in range(count)]
    for a, c in deps.tolist():
        users[c].append(a)
    ready = [b for b in range(count) if needs[b] == 0]
    order = []
    while ready:
        b = ready.pop()
        order.append(b)
        for a in users[b]:
            needs[a] -= 1
            if needs[a] == 0:
                ready.append(a)
    if len(order) != count:   # pragma: no cover - a condensation is acyclic
        raise LpgameError("block triangular form: the condensation has a cycle")
    return order


# ----------------------------------------------------------------------------- Laurent reduction
def left_null_space(matrix: SparseQ) -> tuple[list[dict[int, flint.fmpq]], list[int]]:
    """A basis N of {y : yᵀ M = 0} in reduced row echelon form, as sparse rows {row: value}, and
    the pivot of each (N[j][pivot_j] = 1, N[j][pivot_l] = 0; pivots as late as possible).
    Column singletons are removed first (the row of a column's only nonzero has weight 0 in every
    left null vector)."""
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
    kt = flint.fmpz_mat(max(len(core_cols), 1), len(core_rows))
    for i, row in enumerate(entries):
        scale = lcm(*(int(v.q) for v in row.values())) if row else 1
        for j, v in row.items():
            kt[i, j] = v.p * (scale // int(v.q))
    basis, nullity = kt.nullspace()
    if nullity == 0:
        return [], []
    # echelon form over the rows in reverse order: the pivots are the last rows possible (for
    # Example 13.1 the second row, as in the thesis's M̃)
    size = len(core_rows)
    vectors = flint.fmpq_mat(nullity, size)
    for j in range(nullity):
        for i in range(size):
            vectors[j, size - 1 - i] = basis[i, j]
    echelon, rank = vectors.rref()
    rows_out, pivots = [], []
    for j in range(rank):
        row = {int(core_rows[size - 1 - i]): echelon[j, i] for i in range(size) if echelon[j, i]}
        pivots.append(max(row))
        rows_out.append(row)
    return rows_out, pivots


@dataclass
class _Step:
    pivots: list[int]
    null: list[dict[int, flint.fmpq]]

    def combine(self, x: np.ndarray, j: int):
        return sum((v * x[i] for i, v in self.null[j].items() if x[i]), Q0)


def _rows_of(matrix: SparseQ) -> list[dict[int, flint.fmpq]]:
    out: list[dict] = [dict() for _ in range(matrix.shape[0])]
    for r, c, v in zip(matrix.rows.tolist(), matrix.cols.tolist(), matrix.vals.tolist()):
        out[r][c] = v
    return out


def _reduce_step(parts: dict[int, SparseQ], step: _Step) -> dict[int, SparseQ]:
    """B'(ε) = D⁻¹ P B(ε): rows i_j of part k become N_j · part k+1 (module docstring)."""
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
        n = self.factor.n
        series = {k: v.copy() for k, v in b.items()}
        for step in self.steps:                         # b ← D⁻¹ P b
            low = min(series) if series else 0
            new = {}
            for k in range(low - 1, max(series, default=0) + 1):
                vec = series[k].copy() if k in series else _zeros(n)
                nxt = series.get(k + 1)
                for j, i in enumerate(step.pivots):
                    vec[i] = step.combine(nxt, j) if nxt is not None else Q0
                new[k] = vec
            series = new
        low = -len(self.steps)
        z: dict[int, np.ndarray] = {}
        for k in range(low, top + 1):
            rhs = series[k].copy() if k in series else _zeros(n)
            for j in self.varying:
                if k - j >= low:
                    rhs = rhs - self.parts[j].matvec(z[k - j])
            z[k] = self.factor.solve(rhs) if any(rhs) else _zeros(n)
        return z

    def dual(self, c: dict[int, np.ndarray], top: int) -> dict[int, np.ndarray]:
        """{n: π_n} for n from −(pole order) to ``top``; c: {power: vector} (a polynomial)."""
        n = self.factor.n
        s = len(self.steps)
        u: dict[int, np.ndarray] = {}
        for k in range(0, top + s + 1):
            rhs = c[k].copy() if k in c else _zeros(n)
            for j in self.varying:
                if k - j >= 0:
                    rhs = rhs - self.parts[j].T.matvec(u[k - j])
            u[k] = self.factor.solve_t(rhs) if any(rhs) else _zeros(n)
        for step in reversed(self.steps):               # u ← Pᵀ D⁻¹ u
            low, high = min(u), max(u)
            new = {}
            for k in range(low - 1, high):
                w = u[k].copy() if k in u else _zeros(n)
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
        entries = {(i, j): _q(v) for i, row in enumerate(dense) for j, v in enumerate(row) if v}
        if entries or k == 0:
            parts[k] = SparseQ.from_dict((n, n), entries)
    solver = LaurentSolver(parts)
    b = {k: _vector(v) for k, v in enumerate(rhs)}
    z = solver.primal(b, len(rows) + len(rhs))
    return {k: to_fractions(v) for k, v in z.items()}


# ----------------------------------------------------------------------------- the test
def _lex_sign(coefficients) -> int:
    for a in coefficients:
        if a:
            return 1 if a > 0 else -1
    return 0


def _positive_on(coefficients) -> Fraction | None:
    """For a polynomial with positive first nonzero coefficient a_m: a_m / (a_m + μ) (module
    docstring); None when it has no higher term (positive for every ε > 0)."""
    m = next(k for k, a in enumerate(coefficients) if a)
    rest = [abs(a) for a in coefficients[m + 1:] if a]
    if not rest:
        return None
    a = coefficients[m]
    value = a / (a + max(rest))
    return value if type(value) is Fraction else Fraction(int(value.p), int(value.q))


def _exact_data(tlp):
    """(powers, A_k as SparseQ, b(ε), c(ε) as {power: fmpq vector}) of a trembling LP, computed once
    per LP and kept on it (the limit loop tests several bases of the same LP)."""
    key = len(tlp.terms)
    cached = getattr(tlp, "_stability_data", None)
    if cached is not None and cached[0] == key:
        return cached[1]
    powers = tlp.exact_powers()
    parts = {k: SparseQ.from_rational(A) for k, (_, A, _) in powers.items() if A is not None}
    b_series = {k: _vector(bk) for k, (_, _, bk) in powers.items() if any(bk)}
    c_series = {k: _vector(ck) for k, (ck, _, _) in powers.items() if any(ck)}
    data = (powers, parts, b_series, c_series)
    tlp._stability_data = (key, data)
    return data


def _series_product(parts: dict[int, SparseQ], series: list[np.ndarray], count: int,
                    transpose: bool, length: int) -> list[np.ndarray]:
    """Coefficients of A(ε) z(ε) (or A(ε)ᵀ π(ε)) up to ε^{count−1}."""
    out = [_zeros(length) for _ in range(count)]
    for k, A in parts.items():
        for t in range(count - k):
            vec = series[t]
            if not any(vec):
                continue
            out[k + t] = out[k + t] + (A.T.matvec(vec) if transpose else A.matvec(vec))
    return out


def _optimality_entries(parts, b_series, c_series, senses, z_full, pi_full, basic, tight,
                        col_lower, sense, count):
    """The entries of t_B(ε): an object array (entries × count) of coefficients and a mask of
    the entries that must vanish (the others must be ≥ 0)."""
    m, n = len(senses), len(col_lower)
    sign = 1 if sense == "max" else -1
    is_basic = np.zeros(n, dtype=bool)
    is_basic[basic] = True
    is_tight = np.zeros(m, dtype=bool)
    is_tight[tight] = True
    lower0 = np.isfinite(col_lower)
    senses = np.asarray(senses)
    groups, vanish = [], []
    Z = np.stack(z_full[:count], axis=1)                        # n × count
    pick = np.flatnonzero(is_basic & lower0)                     # basic values ≥ 0
    groups.append(Z[pick])
    vanish.append(np.zeros(len(pick), dtype=bool))
    activity = np.stack(_series_product(parts, z_full, count, False, m), axis=1)
    slack = activity - np.stack([b_series.get(t, _zeros(m)) for t in range(count)], axis=1)
    free_rows = np.flatnonzero(~is_tight)                        # rows that are not tight
    groups.append(np.where((senses[free_rows] == "<=")[:, None], -slack[free_rows], slack[free_rows]))
    vanish.append(senses[free_rows] == "==")
    P = np.stack(pi_full[:count], axis=1) * sign                  # duals' signs
    rows_le = np.flatnonzero(is_tight & (senses == "<="))
    rows_ge = np.flatnonzero(is_tight & (senses == ">="))
    groups += [P[rows_le], -P[rows_ge]]
    vanish += [np.zeros(len(rows_le), dtype=bool), np.zeros(len(rows_ge), dtype=bool)]
    at = np.stack(_series_product(parts, pi_full, count, True, n), axis=1)
    C = np.stack([c_series.get(t, _zeros(n)) for t in range(count)], axis=1)
    nonbasic = np.flatnonzero(~is_basic)                          # reduced costs
    reduced = (C[nonbasic] - at[nonbasic]) * sign
    groups.append(np.where(lower0[nonbasic][:, None], -reduced, reduced))
    vanish.append(~lower0[nonbasic])
    return np.concatenate(groups, axis=0), np.concatenate(vanish)


def _signs(entries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sign of the first nonzero coefficient of each entry, its index)."""
    if entries.shape[0] == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    nonzero = (entries != 0).astype(bool)
    first = np.argmax(nonzero, axis=1)
    lead = entries[np.arange(entries.shape[0]), first]
    sign = np.where(nonzero.any(axis=1), np.where((lead > 0).astype(bool), 1, -1), 0)
    return sign, first


def certify_stable_basis(tlp, solution: LPSolution, terms: int | None = None,
                         max_terms: int = 64, seed: int = 0) -> StableBasis:
    """Test whether ``solution``'s optimal basis of the trembling LP ``tlp`` is stable (module
    docstring: Thm. 13.3 with Taylor series, or Laurent series by Lemma 13.3 when B(0) is
    singular); raise :class:`NotStableError` with the reason, or return its exact expansion.
    ``terms``: coefficients computed first when ε enters A (doubled up to ``max_terms``)."""
    if not solution.has_basis:
        raise NotStableError("the solver returned no basis")
    powers, parts, b_series, c_series = _exact_data(tlp)
    senses = tlp._senses
    lp = tlp.base
    m, n = lp.num_rows, lp.num_cols
    col_lower = np.concatenate([b.lower for b in lp.variables])
    col_upper = np.concatenate([b.upper for b in lp.variables])
    if np.any(np.isfinite(col_upper)) or np.any(np.isfinite(col_lower) & (col_lower != 0)):
        raise LpgameError("trembling LP: only lower bounds 0 or free columns are supported")
    basic = np.flatnonzero(solution.col_basis == BASIS_BASIC)
    tight = np.flatnonzero(solution.row_basis != BASIS_BASIC)
    if len(basic) != len(tight):
        raise NotStableError(f"the basis has {len(basic)} basic columns and {len(tight)} tight rows")
    row_pos = -np.ones(m, dtype=np.int64)
    row_pos[tight] = np.arange(len(tight))
    col_pos = -np.ones(n, dtype=np.int64)
    col_pos[basic] = np.arange(len(basic))
    size = (len(tight), len(basic))
    B = {k: SparseQ.from_rational(powers[k][1], row_pos, col_pos, size) for k in parts}
    B = {k: p for k, p in B.items() if p.nnz or k == 0}
    if 0 not in B:
        raise NotStableError("the basis matrix at ε = 0 is empty")
    polynomial = not any(k > 0 for k in B)
    deg_b, deg_c = max(b_series, default=0), max(c_series, default=0)
    try:
        solver = LaurentSolver(B)
    except SingularMatrixError as exc:   # pragma: no cover - reduce_pencil handles singularity
        raise NotStableError(f"the basis matrix is singular ({exc})") from exc
    if polynomial and solver.pole_order:
        raise NotStableError("the basis matrix B is singular (and constant in ε): not a basis")
    b_tight = {k: v[tight] for k, v in b_series.items()}
    c_basic = {k: v[basic] for k, v in c_series.items()}
    count = (max(deg_b, deg_c) + 1) if polynomial else (terms or 2 * max(deg_b, deg_c, 1) + 4)
    while True:
        zs = solver.primal(b_tight, count - 1)
        ps = solver.dual(c_basic, count - 1)
        for name, series in (("basic values", zs), ("row duals", ps)):
            poles = [k for k in sorted(series) if k < 0 and any(series[k])]
            if poles:
                raise NotStableError(f"the {name} B(ε)⁻¹b(ε) have a pole of order {-poles[0]} at "
                                     "ε = 0 (Laurent expansion, Lemma 13.3): no finite limit")
        z_full = []
        pi_full = []
        for k in range(count):
            z = _zeros(n)
            z[basic] = zs[k]
            z_full.append(z)
            p = _zeros(m)
            p[tight] = ps[k]
            pi_full.append(p)
        entries, vanish = _optimality_entries(parts, b_series, c_series, senses, z_full, pi_full,
                                              basic, tight, col_lower, lp.sense, count)
        sign, _ = _signs(entries)
        wrong = np.flatnonzero((sign < 0) | (vanish & (sign != 0)))
        if len(wrong):
            k = int(wrong[0])
            what = "must vanish" if vanish[k] else "must be ≥ 0"
            raise NotStableError(f"{len(wrong)} entries of the optimality certificate t_B(ε) have the "
                                 f"wrong sign near ε = 0; the first {what} but its expansion starts "
                                 f"{[str(c) for c in entries[k, :4]]}", len(wrong))
        undecided = np.flatnonzero(sign == 0)
        if polynomial or not len(undecided):
            break
        # truncated series all zero: decide by an exact evaluation at a rational point
        if _vanish_at_random_point(parts, B, b_series, c_series, senses, basic, tight, col_lower,
                                   lp.sense, m, n, undecided, seed):
            break
        if count >= max_terms:
            raise NotStableError(f"entries of t_B(ε) have {count} vanishing Taylor coefficients but are "
                                 "not identically zero; more terms are needed")
        count *= 2
    certified = None
    if polynomial:
        bounds = [_positive_on(list(entries[k])) for k in np.flatnonzero(sign > 0).tolist()
                  if np.count_nonzero(entries[k] != 0) > 1]
        finite = [b for b in bounds if b is not None]
        certified = min(finite) if finite else Fraction(1)
    if polynomial:
        how = ("polynomial t_B(ε) with lexicographically nonnegative entries; optimal on (0, ε*] "
               "by the bound a_m/(a_m + μ)")
    elif solver.pole_order:
        how = (f"Laurent expansion at ε = 0 (Lemma 13.3: B(0) singular, {solver.pole_order} row "
               f"reduction steps to a nonsingular B̃(0)), {count} terms, no negative powers in the "
               "basic values and duals, sign of the first nonzero coefficient; entries vanishing "
               "to that order tested by an exact evaluation at a rational ε")
    else:
        how = (f"Taylor expansion at ε = 0 by an exact factorisation of B(0), {count} terms, sign "
               "of the first nonzero coefficient (Lemmas 13.1–13.2); entries vanishing to that "
               "order tested by an exact evaluation at a rational ε")
    return StableBasis([to_fractions(z) for z in z_full], [to_fractions(p) for p in pi_full],
                       polynomial, certified, int(entries.shape[0]), how, solver.pole_order)


def _collapse(parts: dict[int, SparseQ], eps: flint.fmpq) -> SparseQ:
    """Σ_k ε̃^k part_k as one matrix."""
    entries: dict = {}
    shape = None
    for k, part in parts.items():
        shape = part.shape
        f = eps ** k
        for key, v in part.to_dict().items():
            entries[key] = entries.get(key, Q0) + v * f
    return SparseQ.from_dict(shape, entries)


def _vanish_at_random_point(parts, basis_parts, b_series, c_series, senses, basic, tight, col_lower,
                            sense, m, n, undecided, seed) -> bool:
    """Evaluate t_B exactly at a random rational ε̃ ∈ (0, 2⁻¹⁰); True when every undecided entry is 0
    there (then it is identically 0: a nonzero rational function vanishes at finitely many points)."""
    rng = random.Random(seed)
    eps = Q(rng.randrange(1, 2 ** 20), 2 ** 30)
    try:
        factor = ExactFactor(_collapse(basis_parts, eps))
    except SingularMatrixError:
        return False
    b = sum((v * eps ** k for k, v in b_series.items()), _zeros(m))
    c = sum((v * eps ** k for k, v in c_series.items()), _zeros(n))
    z = _zeros(n)
    z[basic] = factor.solve(b[tight])
    p = _zeros(m)
    p[tight] = factor.solve_t(c[basic])
    entries, _ = _optimality_entries({0: _collapse(parts, eps)}, {0: b}, {0: c}, senses, [z], [p],
                                     basic, tight, col_lower, sense, 1)
    return all(not entries[k, 0] for k in undecided.tolist())
