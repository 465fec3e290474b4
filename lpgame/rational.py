"""Exact rational arithmetic for exact mode: sparse matrices of Fractions and integer scaling.

scipy's sparse matrices hold floats only. A :class:`RationalMatrix` keeps the same COO triplets with
:class:`fractions.Fraction` data (duplicates summed on construction), so that a formulation can be
stated once and assembled either in floating point (:meth:`to_scipy`) or exactly.

Arithmetic on many Fractions is slow in Python (every operation normalises by a gcd), so the bulk
work is done on integers over a common denominator instead: :func:`common_denominator` writes a
vector of rationals as integers N and one D = lcm of the denominators (v_k = N_k / D exactly), and
sums, products, comparisons and maxima of such vectors stay exact in Python's unbounded integers
(numpy object arrays apply them in C loops). Products with vectors of Fractions
(:meth:`RationalMatrix.matvec`) are computed this way, O(nnz) integer operations and one
normalised Fraction per output entry; a matrix keeps its entries' integer form
(:meth:`RationalMatrix.scaled`). Exact-mode vectors share few distinct objects (a leaf's payoff,
a deal's probability, 0 and 1), so conversions are made once per distinct object
(:func:`distinct_objects`). :func:`limit_denominator` is
:meth:`fractions.Fraction.limit_denominator` on an integer pair.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable, Sequence
from decimal import Decimal
from fractions import Fraction

import numpy as np
import scipy.sparse as sp


def to_fraction(value) -> Fraction:
    """An exact Fraction of a Python or numpy number or a decimal/rational string.

    numpy integers are converted through ``int`` (``Fraction(np.int64(5))`` would keep a fixed-width
    numerator that overflows in later arithmetic); floats by their shortest decimal repr, so the
    float 0.1 means 1/10.
    """
    if type(value) is Fraction or isinstance(value, Fraction):
        return value
    if isinstance(value, (np.integer, int)) and not isinstance(value, bool):
        return Fraction(int(value))
    if isinstance(value, (float, np.floating)):
        return Fraction(repr(float(value)))
    return Fraction(value)


def float_or_infinity(value) -> float:
    """``float(value)``, or ±inf for an exact number beyond the double range (e.g. 10**400), where
    ``float`` raises OverflowError: the float view of a payoff that only exact mode can use."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def integer_from_text(text: str) -> int:
    """The integer written in decimal digits ``text`` (sign allowed), however many digits.

    ``int(text)`` refuses more than 4,300 digits (``sys.get_int_max_str_digits``, a guard against
    quadratic conversion); :class:`decimal.Decimal` converts without that limit.
    """
    return int(Decimal(text))


def integer_text(value: int) -> str:
    """Decimal digits of an integer, however many (``str`` refuses more than 4,300 digits)."""
    try:
        return str(value)
    except ValueError:
        return str(Decimal(value))


def fraction_text(value: Fraction) -> str:
    """"p/q", or "p" for an integer, without the 4,300-digit limit of ``str``."""
    if value.denominator == 1:
        return integer_text(value.numerator)
    return f"{integer_text(value.numerator)}/{integer_text(value.denominator)}"


def short_text(value, width: int = 60) -> str:
    """An exact number for a message: "p/q" in full up to ``width`` characters, else its leading
    digits and its length (a 5,000-digit payoff does not flood an error message)."""
    text = fraction_text(value) if isinstance(value, Fraction) else str(value)
    if len(text) <= width:
        return text
    return f"{text[:width // 2]}…({len(text)} characters)"


def common_denominator(values: Iterable) -> tuple[np.ndarray, int]:
    """(N, D): integers N (a numpy object array of Python ints) and the least common denominator
    D > 0, with values[k] == N[k] / D exactly.

    ``values`` are Fractions or ints (anything else goes through :func:`to_fraction`). Vectors in
    exact mode share few distinct objects (a leaf's payoffs, a deal's probability, 0 and 1 in a
    plan), so each distinct object is read once.
    """
    values = values if isinstance(values, list) else list(values)
    if not values:
        return np.zeros(0, dtype=object), 1
    distinct, inverse = distinct_objects(values)
    ratios = [(v if type(v) is Fraction or type(v) is int else to_fraction(v)).as_integer_ratio()
              for v in distinct]
    dens = {d for _, d in ratios}
    D = math.lcm(*dens)
    if D == 1:
        nums = [n for n, _ in ratios]
    else:
        factor = {d: D // d for d in dens}
        nums = [n * factor[d] for n, d in ratios]
    return object_array(nums)[inverse], D


def distinct_objects(values: Sequence) -> tuple[list, np.ndarray]:
    """(distinct, inverse): the distinct objects of ``values`` (by identity) and, for each entry,
    the index of its object, so that values[k] is distinct[inverse[k]]."""
    if not len(values):
        return [], np.zeros(0, dtype=np.int64)
    ids = np.fromiter(map(id, values), dtype=np.uint64, count=len(values))
    _, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    return [values[k] for k in first.tolist()], inverse.ravel()


def binary_fractions(values, absent: float | None = None) -> list:
    """Each float of ``values`` as the binary rational it holds (``Fraction(float)``), one
    conversion per distinct value; entries equal to ``absent`` (e.g. ±inf) become None."""
    distinct, inverse = np.unique(np.asarray(values, dtype=float).ravel(), return_inverse=True)
    exact = [None if absent is not None and v == absent else Fraction(v)
             for v in distinct.tolist()]
    return [exact[k] for k in inverse.ravel().tolist()]


def distinct_map(function, values: Sequence) -> list:
    """[function(v) for v in values], calling ``function`` once per distinct object (by identity)."""
    distinct, inverse = distinct_objects(values)
    out = [function(v) for v in distinct]
    return [out[k] for k in inverse.tolist()]


def object_array(values: Iterable[int]) -> np.ndarray:
    """A 1-D numpy object array holding the Python integers ``values`` (no fixed-width cast)."""
    values = list(values)
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def limit_denominator(numerator: int, denominator: int, max_denominator: int) -> tuple[int, int]:
    """(p, q), q > 0 coprime: ``Fraction(numerator, denominator).limit_denominator(max_denominator)``.

    The same continued-fraction algorithm on integers, without building intermediate Fractions: the
    closest rational with denominator at most ``max_denominator`` (ties resolved as there).
    """
    if max_denominator < 1:
        raise ValueError("max_denominator should be at least 1")
    if denominator == 0:
        raise ZeroDivisionError(f"limit_denominator({numerator}, 0)")
    if denominator < 0:
        numerator, denominator = -numerator, -denominator
    g = math.gcd(numerator, denominator)
    N, D = numerator // g, denominator // g
    if D <= max_denominator:
        return N, D
    p0, q0, p1, q1 = 0, 1, 1, 0
    n, d = N, D
    while True:
        a = n // d
        q2 = q0 + a * q1
        if q2 > max_denominator:
            break
        p0, q0, p1, q1 = p1, q1, p0 + a * p1, q2
        n, d = d, n - a * d
    k = (max_denominator - q0) // q1
    pb, qb = p0 + k * p1, q0 + k * q1
    # |p1/q1 − N/D| ≤ |pb/qb − N/D|, compared exactly (both candidates are in lowest terms)
    if abs(p1 * D - N * q1) * qb <= abs(pb * D - N * qb) * q1:
        return p1, q1
    return pb, qb


def scaled_to_float(nums: Sequence[int], den: int) -> np.ndarray:
    """float(n / den) for every n, correctly rounded: exactly ``float(Fraction(n, den))``.

    When den and every |n| are at most 2**53 they are exact doubles and one IEEE division is
    correctly rounded; otherwise Python's integer true division (also correctly rounded) is used.
    """
    nums = nums.tolist() if isinstance(nums, np.ndarray) else list(nums)
    if not nums:
        return np.zeros(0)
    if den <= 2**53 and -2**53 <= min(nums) and max(nums) <= 2**53:
        return np.array(nums, dtype=float) / float(den)
    return np.array([n / den for n in nums], dtype=float)


def scaled_products(rows: np.ndarray, cols: np.ndarray, nums: np.ndarray, x: np.ndarray,
                    size: int) -> np.ndarray:
    """Σ_k nums[k]·x[cols[k]] grouped by rows[k] (object arrays of Python integers, exact)."""
    out = np.zeros(size, dtype=object)
    if len(nums):
        np.add.at(out, rows, nums * x[cols])
    return out


class RationalMatrix:
    """An ``m × n`` sparse matrix with Fraction entries, stored as summed COO triplets.

    Entries keep the order of their first occurrence in the input; zeros (also sums to zero) are
    dropped.
    """

    def __init__(self, shape: tuple[int, int], rows: Iterable[int], cols: Iterable[int],
                 data: Iterable):
        self.shape = (int(shape[0]), int(shape[1]))
        rows = _index_array(rows)
        cols = _index_array(cols)
        data = data if isinstance(data, list) else list(data)
        if not len(rows) == len(cols) == len(data):
            raise ValueError(f"RationalMatrix: {len(rows)} rows, {len(cols)} columns and "
                             f"{len(data)} values given")
        # entries share few distinct objects (a leaf's payoff, a ±1): convert each once
        distinct, which = distinct_objects(data)
        distinct = [v if type(v) is Fraction else to_fraction(v) for v in distinct]
        nonzero = np.fromiter(map(bool, distinct), dtype=bool, count=len(distinct))[which]
        if not nonzero.all():
            rows, cols, which = rows[nonzero], cols[nonzero], which[nonzero]
        data = [distinct[k] for k in which.tolist()]
        self._scaled = None
        keys = rows * max(self.shape[1], 1) + cols
        unique, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        if len(unique) == len(keys):      # no duplicates: the entries as given
            self.rows, self.cols, self.data = rows, cols, data
            nums, den = common_denominator(distinct)
            self._scaled = (nums[which], den)
            return
        sums: list = [None] * len(unique)
        for g, v in zip(inverse.ravel().tolist(), data):
            s = sums[g]
            sums[g] = v if s is None else s + v
        order = [g for g in np.argsort(first, kind="stable").tolist() if sums[g]]
        at = first[np.asarray(order, dtype=np.int64)]
        self.rows, self.cols = rows[at], cols[at]
        self.data = [sums[g] for g in order]

    @classmethod
    def from_scipy(cls, matrix: sp.spmatrix | sp.sparray) -> RationalMatrix:
        """Exact copy of a float matrix (each float is a binary rational, kept exactly)."""
        coo = sp.coo_array(matrix)
        values, inverse = np.unique(np.asarray(coo.data, dtype=float), return_inverse=True)
        exact = [Fraction(float(v)) for v in values]     # one conversion per distinct float
        return cls(coo.shape, coo.row, coo.col, [exact[k] for k in inverse.ravel().tolist()])

    @classmethod
    def from_blocks(cls, shape: tuple[int, int],
                    blocks: Sequence[tuple[RationalMatrix, int, int]]) -> RationalMatrix:
        """The ``shape`` matrix holding each block at its (row offset, column offset), overlapping
        blocks summed: the same as the constructor on the concatenated triplets."""
        spans = [(r, r + b.shape[0], c, c + b.shape[1]) for b, r, c in blocks]
        overlap = any(a[0] < b[1] and b[0] < a[1] and a[2] < b[3] and b[2] < a[3]
                      for k, a in enumerate(spans) for b in spans[k + 1:])

        def cat(arrays):
            return np.concatenate(arrays) if arrays else np.zeros(0, dtype=np.int64)

        rows = cat([b.rows + r for b, r, _ in blocks])
        cols = cat([b.cols + c for b, _, c in blocks])
        data = [v for b, _, _ in blocks for v in b.data]
        if overlap:
            return cls(shape, rows, cols, data)
        # each block is summed and nonzero and no two share a position: concatenate as they are
        out = cls.__new__(cls)
        out.shape = (int(shape[0]), int(shape[1]))
        out.rows, out.cols, out.data = rows, cols, data
        scaled = [b.scaled() for b, _, _ in blocks]
        den = math.lcm(*(d for _, d in scaled)) if scaled else 1
        out._scaled = (np.concatenate([nums * (den // d) for nums, d in scaled])
                       if scaled else np.zeros(0, dtype=object), den)
        return out

    @property
    def nnz(self) -> int:
        return len(self.data)

    @property
    def T(self) -> RationalMatrix:  # noqa: N802  (mirrors numpy/scipy)
        out = RationalMatrix.__new__(RationalMatrix)
        out.shape = (self.shape[1], self.shape[0])
        out.rows, out.cols, out.data = self.cols.copy(), self.rows.copy(), list(self.data)
        out._scaled = self._scaled
        return out

    def __neg__(self) -> RationalMatrix:
        out = self.T.T
        out.data = distinct_map(operator.neg, self.data)   # entries share few distinct objects
        out._scaled = None if self._scaled is None else (-self._scaled[0], self._scaled[1])
        return out

    def scaled(self) -> tuple[np.ndarray, int]:
        """(N, D): the entries as an object array of integers N over one denominator D (cached)."""
        if self._scaled is None:
            self._scaled = common_denominator(self.data)
        return self._scaled

    def to_scipy(self) -> sp.csr_array:
        values = scaled_to_float(*self.scaled())
        return sp.csr_array((values, (self.rows, self.cols)), shape=self.shape)

    def matvec(self, vector: Sequence[Fraction]) -> list[Fraction]:
        """``self @ vector`` exactly."""
        return self._product(self.rows, self.cols, self.shape[0], vector)

    def rmatvec(self, vector: Sequence[Fraction]) -> list[Fraction]:
        """``self.T @ vector`` exactly."""
        return self._product(self.cols, self.rows, self.shape[1], vector)

    def _product(self, out_index, in_index, size, vector) -> list[Fraction]:
        nums, den = self.scaled()
        x, x_den = common_denominator(vector)
        out = scaled_products(out_index, in_index, nums, x, size)
        total = den * x_den
        return [Fraction(v, total) for v in out.tolist()]


def _index_array(values) -> np.ndarray:
    if isinstance(values, np.ndarray):
        return values.astype(np.int64, copy=False).ravel()
    return np.array(list(values), dtype=np.int64).ravel()


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


def sparse_from_coo(data, rows, cols, shape: tuple[int, int], format: str = "csr"):
    """The canonical float CSR (or CSC, ``format="csc"``) array of COO triples: the array
    ``csr_array((data, (rows, cols)))`` with its duplicates summed gives. Without duplicate
    entries nothing is added, so sorting the triples by (row, column) in numpy gives the same
    array without scipy's per-call conversions and checks (tens of µs on a tiny matrix, a fixed
    cost of every fresh small game); with duplicates scipy builds it (its order of summation)."""
    csr = format == "csr"
    rows, cols = np.asarray(rows), np.asarray(cols)
    major, minor = (rows, cols) if csr else (cols, rows)
    n_major, n_minor = shape if csr else shape[::-1]
    key = major.astype(np.int64) * n_minor + minor      # < 2^62: shapes are below 2^31
    order = key.argsort(kind="stable")
    key = key[order]
    kind = sp.csr_array if csr else sp.csc_array
    if len(key) > 1 and (key[1:] == key[:-1]).any():
        out = kind((data, (rows, cols)), shape=shape)
        out.sum_duplicates()
        return out
    a, b = major[order], minor[order]
    index = np.promote_types(np.promote_types(a.dtype, b.dtype), np.int32)
    indptr = np.zeros(n_major + 1, dtype=index)
    indptr[1:] = np.bincount(a, minlength=n_major).cumsum()
    out = kind((np.asarray(data, dtype=float)[order], b.astype(index), indptr), shape=shape)
    out.has_canonical_format = True
    return out
