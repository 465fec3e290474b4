"""Exact sparse linear algebra over the rationals for the basis stability test: M x = b, Mᵀ y = c.

:class:`SparseQ` is a sparse matrix of python-flint ``fmpq`` entries (GMP/FLINT rationals, as
Farina 2023 used GMP, L5813 of notes/farina-thesis.md). :class:`ExactFactor` solves with a square
one through its block triangular form (Duff & Reid's block triangularisation; e.g. Duff, Erisman
& Reid, *Direct Methods for Sparse Matrices*, ch. 6):

    Q_r M Q_c = [[M_11, 0, …], [M_21, M_22, …], …]   (block lower triangular),

where a maximum matching puts a nonzero on the diagonal (scipy's ``maximum_bipartite_matching``)
and the strongly connected components of the permuted matrix's graph are its diagonal blocks,
solved in topological order: block k's unknowns from
M_kk x_k = b_k − Σ_{l before k} M_kl x_l (and backwards for Mᵀ). A block of size 1 is a
division, a larger one an exact sparse LU factorisation M_kk = L U with Markowitz-like pivots
(the shortest remaining row, in it the shortest column), computed once: the dense inverses of
sequence-form blocks would be full rows of long rationals. Sequence-form bases split into many
blocks of size 1 and a few of hundreds (G24: 23,100 blocks, the largest 730 of 41,076 rows).
The blocks are solved level by level (a block's level is the longest path to it in the
condensation); with long right-hand sides the substitution runs on integers over common
denominators (:mod:`lpgame.equilibria.refinements.integer_substitution`), the same solution.
"""

from __future__ import annotations

import heapq
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from lpgame.equilibria.refinements.integer_substitution import (
    integer_plan,
    substitute,
    substitute_scaled,
)
from lpgame.errors import LpgameError

if TYPE_CHECKING:
    import flint


class SingularMatrixError(LpgameError):
    """A square matrix given to :class:`ExactFactor` is singular (structurally or exactly)."""


# ----------------------------------------------------------------------------- sparse over Q
def to_fmpq(value) -> flint.fmpq:
    """A Fraction, int or fmpq as an fmpq."""
    import flint  # imported where it is used: costly to import

    Q = flint.fmpq

    if type(value) is Fraction:
        return Q(value.numerator, value.denominator)
    return Q(value)


def fmpq_zeros(n: int) -> np.ndarray:
    """An object array of ``n`` fmpq zeros."""
    from flint import fmpq

    out = np.empty(n, dtype=object)
    out.fill(fmpq(0))
    return out


def fmpq_vector(values) -> np.ndarray:
    """Rationals (Fraction, int or fmpq) as an object array of fmpq, each distinct value converted once."""
    cache: dict = {}
    out = fmpq_zeros(len(values))
    for i, v in enumerate(values):
        if v:
            q = cache.get(v)
            if q is None:
                q = cache[v] = to_fmpq(v)
            out[i] = q
    return out


def _coprime_fraction(p: int, q: int) -> Fraction:
    """Fraction(p, q) for p/q already in lowest terms with q > 0 (an fmpq's), without the gcd
    that Fraction's constructor recomputes (costly for the long Taylor coefficients of a basis)."""
    f = object.__new__(Fraction)
    f._numerator, f._denominator = p, q
    return f


if _coprime_fraction(-6, 35) != Fraction(-6, 35) or \
        hash(_coprime_fraction(-6, 35)) != hash(Fraction(-6, 35)):   # pragma: no cover
    def _coprime_fraction(p: int, q: int) -> Fraction:  # noqa: F811 - other Fraction internals
        return Fraction(p, q)


coprime_fraction = _coprime_fraction
"""Fraction(p, q) for p/q in lowest terms with q > 0, without a second gcd (public name)."""


def to_fractions(values) -> list[Fraction]:
    """fmpq (or Fraction) values as Fractions."""
    values = values if isinstance(values, np.ndarray) else np.array(list(values) + [None],
                                                                     dtype=object)[:-1]
    out = [Fraction(0)] * len(values)
    cache: dict = {}                 # by (p, q): Python ints hash cheaply, fmpq and Fraction not
    nonzero = np.flatnonzero(values.astype(bool))
    for i, v in zip(nonzero.tolist(), values[nonzero].tolist()):
        if type(v) is Fraction:
            out[i] = v
            continue
        key = (int(v.p), int(v.q))
        f = cache.get(key)
        if f is None:
            f = cache[key] = _coprime_fraction(*key)
        out[i] = f
    return out


class SparseQ:
    """A sparse m × n matrix with ``fmpq`` entries (COO, sorted by row; no duplicates, no zeros)."""

    def __init__(self, shape, rows, cols, vals):
        self.shape = (int(shape[0]), int(shape[1]))
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        vals = np.asarray(vals, dtype=object) if len(vals) else np.empty(0, dtype=object)
        keep = vals.astype(bool)
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
        import flint

        Q = flint.fmpq
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
        out = fmpq_zeros(self.shape[0])
        if not self.nnz:
            return out
        nonzero = x.astype(bool)
        if nonzero.all():
            out[self._row_ids] = np.add.reduceat(self.vals * x[self.cols], self._starts)
            return out
        keep = np.flatnonzero(nonzero[self.cols])        # only the columns where x is nonzero
        if not len(keep):
            return out
        rows = self.rows[keep]
        starts = np.flatnonzero(np.concatenate([[True], rows[1:] != rows[:-1]]))
        out[rows[starts]] = np.add.reduceat(self.vals[keep] * x[self.cols[keep]], starts)
        return out

    def select_rows(self, keep: np.ndarray) -> SparseQ:
        """The rows ``keep`` (increasing indices) as a new matrix, renumbered 0, 1, …"""
        keep = np.asarray(keep, dtype=np.int64)
        position = -np.ones(self.shape[0], dtype=np.int64)
        position[keep] = np.arange(len(keep))
        pick = np.flatnonzero(position[self.rows] >= 0)
        return self._sorted_part((len(keep), self.shape[1]), position[self.rows[pick]],
                                 self.cols[pick], self.vals[pick])

    def submatrix(self, row_pos: np.ndarray, col_pos: np.ndarray, shape) -> SparseQ:
        """The entries in rows and columns with ``row_pos``/``col_pos`` ≥ 0, moved there (both
        increasing on the kept rows and columns, so the order by row, then column, stays)."""
        rows, cols = row_pos[self.rows], col_pos[self.cols]
        pick = np.flatnonzero((rows >= 0) & (cols >= 0))
        return self._sorted_part(shape, rows[pick], cols[pick], self.vals[pick])

    @staticmethod
    def _sorted_part(shape, rows, cols, vals) -> SparseQ:
        """A SparseQ from entries already sorted by row, then column, without zeros."""
        out = SparseQ.__new__(SparseQ)
        out.shape = (int(shape[0]), int(shape[1]))
        out.rows, out.cols, out.vals = rows, cols, vals
        change = np.flatnonzero(np.diff(out.rows)) + 1 if len(out.rows) else np.zeros(0, np.int64)
        out._starts = np.concatenate([[0], change]).astype(np.int64) if len(out.rows) else change
        out._row_ids = out.rows[out._starts] if len(out.rows) else change
        out._t = None
        return out

    def rmatvec(self, x: np.ndarray) -> np.ndarray:
        return self.T.matvec(x)

    def float_pattern(self) -> sp.csr_array:
        return sp.csr_array((np.ones(self.nnz), (self.rows, self.cols)), shape=self.shape)


# ----------------------------------------------------------------------------- exact factor
LONG_BITS = 128
"""Right-hand sides with a denominator this long (bits) are substituted fraction-free."""


def is_long(rhs: np.ndarray, bits: int | None = None) -> bool:
    """Whether some denominator of the fmpq vector ``rhs`` has ``bits`` (default
    :data:`LONG_BITS`) bits or more."""
    bits = LONG_BITS if bits is None else bits
    return any(v.q.bit_length() >= bits for v in rhs[rhs.astype(bool)].tolist())


class ExactFactor:
    """An exact block triangular factorisation of a square sparse rational matrix (module
    docstring): solve M x = b and Mᵀ y = c in fmpq. Raises :class:`SingularMatrixError`."""

    fraction_free = False
    """True: substitute with integers over common denominators
    (:mod:`lpgame.equilibria.refinements.integer_substitution`) when the right-hand side has a
    denominator of :data:`LONG_BITS` bits or more, then reduce every entry to an fmpq. Off by
    default: the stability test's long coefficients go through :meth:`solve_scaled` (no reduction
    per entry), and side by side this path gained nothing on Leduc and lost on Goofspiel G24
    (thousands of small diagonal blocks); the tests keep it equal to the fmpq path."""

    def __init__(self, matrix: SparseQ):
        n = matrix.shape[0]
        if matrix.shape != (n, n):
            raise SingularMatrixError(f"matrix of shape {matrix.shape} is not square")
        self.n = n
        if n == 0:
            self.match = np.zeros(0, dtype=np.int64)
            return
        from scipy.sparse.csgraph import connected_components, maximum_bipartite_matching

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
        sizes = np.bincount(label, minlength=count)
        # the diagonal blocks: 1 × 1 ones are divisions, larger ones a sparse LU each
        inside = ~off
        big = sizes[lr] > 1
        small = inside & ~big
        self._scalar_pos = rows[small]             # row i = unknown i of a 1 × 1 block
        self._scalar_inv = np.array([1 / v for v in vals[small].tolist()] + [None],
                                    dtype=object)[:-1]
        if len(self._scalar_pos) != int((sizes == 1).sum()):   # pragma: no cover - matched diagonal
            raise SingularMatrixError("zero on the matched diagonal")
        self._lus = {}
        pick = np.flatnonzero(inside & big)
        if len(pick):
            members = {}
            for b in np.flatnonzero(sizes > 1).tolist():
                members[b] = np.flatnonzero(label == b)
            local = np.empty(n, dtype=np.int64)
            for idx in members.values():
                local[idx] = np.arange(len(idx))
            by_block = np.argsort(lr[pick], kind="stable")
            pick = pick[by_block]
            cuts = np.flatnonzero(np.diff(lr[pick])) + 1
            for part in np.split(pick, cuts):
                blk = int(lr[part[0]])
                entries = zip(local[rows[part]].tolist(), local[js[part]].tolist(),
                              vals[part].tolist())
                self._lus[blk] = (members[blk], _SparseLU(len(members[blk]), entries))
        self._count, self._label, self._deps = count, label, deps
        self._off = (rows[off], js[off], vals[off], lr[off], lj[off])
        self._plans = {}

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """x with M x = rhs (object arrays of fmpq)."""
        x = fmpq_zeros(self.n)
        x[self.match] = self._substitute(rhs, transpose=False)
        return x

    def solve_t(self, rhs: np.ndarray) -> np.ndarray:
        """y with Mᵀ y = rhs."""
        return self._substitute(rhs[self.match], transpose=True)

    def solve_scaled(self, work: np.ndarray, delta) -> tuple[np.ndarray, object]:
        """x = X / D with M x = work / delta, for integer (fmpz) ``work`` and ``delta``: (X, D),
        fraction-free (:func:`~lpgame.equilibria.refinements.integer_substitution.substitute_scaled`)."""
        y, den = substitute_scaled(self._plan(False), self._integer_plan(False), work, delta,
                                   self.n, False)
        x = np.empty(self.n, dtype=object)
        x[self.match] = y
        return x, den

    def solve_t_scaled(self, work: np.ndarray, delta) -> tuple[np.ndarray, object]:
        """y = Y / D with Mᵀ y = work / delta (integers), as (Y, D)."""
        return substitute_scaled(self._plan(True), self._integer_plan(True), work[self.match],
                                 delta, self.n, True)

    def _integer_plan(self, transpose: bool) -> list:
        iplans = self.__dict__.setdefault("_iplans", {})
        if transpose not in iplans:
            iplans[transpose] = integer_plan(self._plan(transpose), self.n)
        return iplans[transpose]

    def _substitute(self, rhs, transpose: bool) -> np.ndarray:
        """Block substitution through the block triangular form: forward over the blocks for M
        (right-hand side by row), backward for Mᵀ (right-hand side by matched column). Blocks
        are taken level by level (a level's blocks need only earlier levels: level scheduling),
        each level's off-block products and its 1 × 1 blocks as whole-array operations."""
        if self.n == 0:
            return fmpq_zeros(0)
        if self.fraction_free and is_long(rhs):
            return substitute(self._plan(transpose), self._integer_plan(transpose), rhs, self.n,
                              transpose)
        y = fmpq_zeros(self.n)
        work = np.array(rhs, dtype=object)
        for targets, order, starts, sources, vals, scalars, inverses, lus in self._plan(transpose):
            if len(sources):
                products = vals * y[sources]
                work[targets] = work[targets] - np.add.reduceat(products[order], starts)
            if len(scalars):
                y[scalars] = work[scalars] * inverses
            for idx, data in lus:
                local = work[idx].tolist()
                if any(local):
                    y[idx] = data.solve_t(local) if transpose else data.solve(local)
        return y

    def _plan(self, transpose: bool) -> list:
        """The levels of the block substitution (see :meth:`_substitute`), computed once: a
        block's level is one more than the highest level of the blocks it needs (for M, the
        blocks of its off-block unknowns; for Mᵀ, those of its off-block rows)."""
        if transpose in self._plans:
            return self._plans[transpose]
        count, label = self._count, self._label
        rows, js, vals, lr, lj = self._off
        # (block, needs): M's block of row r needs the block of unknown j; Mᵀ the other way
        deps = self._deps if not transpose else self._deps[:, ::-1]
        level = _levels(count, deps)
        top = int(level.max()) + 1
        targets, sources = (js, rows) if transpose else (rows, js)
        entry_level = level[label[targets]]
        by = np.lexsort((targets, entry_level))
        targets, sources, vals, entry_level = targets[by], sources[by], vals[by], entry_level[by]
        bounds = np.searchsorted(entry_level, np.arange(top + 1))
        scalar_level = level[label[self._scalar_pos]]
        lus_by_level: list[list] = [[] for _ in range(top)]
        for blk, (idx, data) in self._lus.items():
            lus_by_level[int(level[blk])].append((idx, data))
        plan = []
        for lv in range(top):
            t = targets[bounds[lv]:bounds[lv + 1]]
            starts = np.flatnonzero(np.concatenate([[True], t[1:] != t[:-1]])) if len(t) else \
                np.zeros(0, dtype=np.int64)
            pick = np.flatnonzero(scalar_level == lv)
            plan.append((t[starts], slice(None), starts, sources[bounds[lv]:bounds[lv + 1]],
                         vals[bounds[lv]:bounds[lv + 1]], self._scalar_pos[pick],
                         self._scalar_inv[pick], lus_by_level[lv]))
        self._plans[transpose] = plan
        return plan


class _SparseLU:
    """Exact sparse Gaussian elimination of one diagonal block, M = L U (row operations in pivot
    order), pivots chosen by a Markowitz-like rule: the remaining row with the fewest nonzeros,
    and in it the column with the fewest. Keeps the fill of sequence-form blocks small (their
    dense inverses are not: full rows of long rationals)."""

    def __init__(self, k: int, entries):
        from flint import fmpq

        Q0 = fmpq(0)
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
        from flint import fmpq

        x = [fmpq(0)] * self.k
        for p, c, pivot, upper, _ in reversed(self.steps):   # U x = v
            value = b[p]
            for j, u in upper.items():
                if x[j]:
                    value -= u * x[j]
            x[c] = value / pivot
        return x

    def solve_t(self, c: list) -> list:
        c = list(c)
        from flint import fmpq

        w = [fmpq(0)] * self.k
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


RELAX_PASSES = 32
"""Levels by vectorised relaxation for at most this many passes, else in topological order."""


def _levels(count: int, deps: np.ndarray) -> np.ndarray:
    """Each block's level in the condensation (deps: (block, needs)): 0 for a block that needs
    none, else one more than the highest level it needs (the longest path to it). Shallow
    condensations by relaxation over all edges at once, one pass per level; deep ones (long
    chains of blocks) block by block in topological order."""
    level = np.zeros(count, dtype=np.int64)
    if not len(deps):
        return level
    user, need = deps[:, 0], deps[:, 1]
    for _ in range(RELAX_PASSES):
        new = level.copy()
        np.maximum.at(new, user, level[need] + 1)
        if np.array_equal(new, level):
            return level
        level = new
    needs: list[list[int]] = [[] for _ in range(count)]
    for blk, required in deps.tolist():
        needs[blk].append(required)
    out = [0] * count
    for blk in _topological(count, deps):
        if needs[blk]:
            out[blk] = 1 + max(out[k] for k in needs[blk])
    return np.asarray(out, dtype=np.int64)


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
