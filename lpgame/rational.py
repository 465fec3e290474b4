"""Sparse matrices with exact rational entries, for exact mode.

scipy's sparse matrices hold floats only. A :class:`RationalMatrix` keeps the same COO triplets with
:class:`fractions.Fraction` data (duplicates summed on construction), so that a formulation can be
stated once and assembled either in floating point (:meth:`to_scipy`) or exactly. Products with
vectors of Fractions are computed by grouping the triplets by row, O(nnz) Fraction operations.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction

import numpy as np
import scipy.sparse as sp


def to_fraction(value) -> Fraction:
    """An exact Fraction of a Python or numpy number or a decimal/rational string.

    numpy integers are converted through ``int`` (``Fraction(np.int64(5))`` would keep a fixed-width
    numerator that overflows in later arithmetic); floats by their shortest decimal repr, so the
    float 0.1 means 1/10.
    """
    if isinstance(value, Fraction):
        return value
    if isinstance(value, (np.integer, int)) and not isinstance(value, bool):
        return Fraction(int(value))
    if isinstance(value, (float, np.floating)):
        return Fraction(repr(float(value)))
    return Fraction(value)


class RationalMatrix:
    """An ``m × n`` sparse matrix with Fraction entries, stored as summed COO triplets."""

    def __init__(self, shape: tuple[int, int], rows: Iterable[int], cols: Iterable[int],
                 data: Iterable):
        acc: dict[tuple[int, int], Fraction] = {}
        for r, c, v in zip(rows, cols, data):
            v = to_fraction(v)
            if v:
                key = (int(r), int(c))
                acc[key] = acc.get(key, Fraction(0)) + v
        items = [(k, v) for k, v in acc.items() if v != 0]
        self.shape = (int(shape[0]), int(shape[1]))
        self.rows = np.fromiter((k[0] for k, _ in items), dtype=np.int64, count=len(items))
        self.cols = np.fromiter((k[1] for k, _ in items), dtype=np.int64, count=len(items))
        self.data = [v for _, v in items]

    @classmethod
    def from_scipy(cls, matrix: sp.spmatrix | sp.sparray) -> RationalMatrix:
        """Exact copy of a float matrix (each float is a binary rational, kept exactly)."""
        coo = sp.coo_array(matrix)
        return cls(coo.shape, coo.row, coo.col, (Fraction(float(v)) for v in coo.data))

    @property
    def nnz(self) -> int:
        return len(self.data)

    @property
    def T(self) -> RationalMatrix:  # noqa: N802  (mirrors numpy/scipy)
        out = RationalMatrix.__new__(RationalMatrix)
        out.shape = (self.shape[1], self.shape[0])
        out.rows, out.cols, out.data = self.cols.copy(), self.rows.copy(), list(self.data)
        return out

    def __neg__(self) -> RationalMatrix:
        out = self.T.T
        out.data = [-v for v in self.data]
        return out

    def to_scipy(self) -> sp.csr_array:
        values = np.array([float(v) for v in self.data], dtype=float)
        return sp.csr_array((values, (self.rows, self.cols)), shape=self.shape)

    def matvec(self, vector: Sequence[Fraction]) -> list[Fraction]:
        """``self @ vector`` exactly."""
        out = [Fraction(0)] * self.shape[0]
        for r, c, v in zip(self.rows.tolist(), self.cols.tolist(), self.data):
            x = vector[c]
            if x:
                out[r] += v * x
        return out

    def rmatvec(self, vector: Sequence[Fraction]) -> list[Fraction]:
        """``self.T @ vector`` exactly."""
        out = [Fraction(0)] * self.shape[1]
        for r, c, v in zip(self.rows.tolist(), self.cols.tolist(), self.data):
            x = vector[r]
            if x:
                out[c] += v * x
        return out


def as_rational(matrix) -> RationalMatrix:
    """A :class:`RationalMatrix` for a RationalMatrix or any scipy sparse / dense float matrix."""
    if isinstance(matrix, RationalMatrix):
        return matrix
    return RationalMatrix.from_scipy(sp.coo_array(matrix))


def as_scipy(matrix) -> sp.csr_array:
    """A float CSR array for a RationalMatrix or any scipy sparse / dense matrix."""
    if isinstance(matrix, RationalMatrix):
        return matrix.to_scipy()
    return sp.csr_array(matrix, dtype=float)
