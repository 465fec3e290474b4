"""The later Taylor coefficients of a stable basis, as integers over one denominator each.

Farina 2023, Lemma 13.1 (L5707 of notes/farina-thesis.md): with B(ε) = Σ_k ε^k B_k and B_0
nonsingular, the coefficients of z(ε) = B(ε)⁻¹ b(ε) and π(ε) = B(ε)⁻ᵀ c(ε) follow

    B_0 z_t = b_t − Σ_{k≥1} B_k z_{t−k},        B_0ᵀ π_t = c_t − Σ_{k≥1} B_kᵀ π_{t−k}.

Once the stability test (:mod:`lpgame.equilibria.refinements.basis_stability`) has decided the
sign of every entry of t_B(ε), the coefficients it still returns (the expansion of the limit,
2·depth + 4 terms on EFPE programs) are only read, not tested. Here they are computed
fraction-free: each z_t is Z_t / D_t with an integer vector Z_t and one integer D_t (the lcm of
its reduced denominators), the products B_k z_{t−k} are integer products over q_k D_{t−k} (q_k the
lcm of B_k's denominators), and the solves are
:meth:`~lpgame.equilibria.refinements.exact_sparse_factor.ExactFactor.solve_scaled`. No gcd is
taken per entry until an entry is read: :class:`LazyFractions` turns Z_t / D_t into reduced
:class:`fractions.Fraction` values on access (the limit's strategies read only the players'
blocks). The values are the same rationals as the fmpq recursion gives.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from lpgame.equilibria.refinements.exact_sparse_factor import SparseQ, coprime_fraction
from lpgame.equilibria.refinements.integer_substitution import as_scaled, fmpz_zeros, scaled_ints


class LazyFractions(Sequence):
    """A rational vector of ``length`` that is Z / D at ``positions`` and 0 elsewhere (Z integer,
    D > 0), read as reduced Fractions, each converted once when first read."""

    def __init__(self, numerators: np.ndarray, den, positions: np.ndarray, length: int):
        self._num, self._den = numerators, den
        self._where = np.full(length, -1, dtype=np.int64)
        self._where[positions] = np.arange(len(positions))
        self._cache: dict[int, Fraction] = {}
        self._len = length

    def __len__(self) -> int:
        return self._len

    def __getitem__(self, key):
        if isinstance(key, slice):
            return [self._value(i) for i in range(*key.indices(self._len))]
        i = operator.index(key)
        if i < 0:
            i += self._len
        if not 0 <= i < self._len:
            raise IndexError("LazyFractions index out of range")
        return self._value(i)

    def __iter__(self):
        return (self._value(i) for i in range(self._len))

    def _value(self, i: int) -> Fraction:
        k = int(self._where[i])
        if k < 0:
            return Fraction(0)
        found = self._cache.get(k)
        if found is None:
            v = self._num[k]
            if not v:
                found = Fraction(0)
            else:
                g = v.gcd(self._den)
                found = coprime_fraction(int(v // g), int(self._den // g))
            self._cache[k] = found
        return found

    def __eq__(self, other) -> bool:
        if isinstance(other, (list, tuple, LazyFractions)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"LazyFractions({list(self)!r})"


def _integer_matvec(matrix: SparseQ, x: np.ndarray) -> tuple[np.ndarray, object]:
    """(N, q) with matrix @ x = N / q for an integer vector x (q the lcm of the matrix's
    denominators, its integer entries kept on the matrix)."""
    cached = getattr(matrix, "_integer", None)
    if cached is None:
        cached = matrix._integer = scaled_ints(matrix.vals.tolist())
    q, ints = cached
    out = fmpz_zeros(matrix.shape[0])
    keep = np.flatnonzero(x[matrix.cols].astype(bool))
    if len(keep):
        rows = matrix.rows[keep]
        starts = np.flatnonzero(np.concatenate([[True], rows[1:] != rows[:-1]]))
        out[rows[starts]] = np.add.reduceat(ints[keep] * x[matrix.cols[keep]], starts)
    return out, q


def _combine(terms: list, n: int) -> tuple[np.ndarray, object]:
    """Σ N_i / d_i over their lcm: (numerators, lcm)."""
    from flint import fmpz

    den = fmpz(1)
    for _, d in terms:
        if den % d:
            den = den * d // den.gcd(d)
    out = fmpz_zeros(n)
    for num, d in terms:
        out = out + (num * (den // d) if d != den else num)
    return out, den


def taylor_tail(solver, b_tight: dict, c_basic: dict, zs: list, ps: list, start: int,
                count: int) -> tuple[list, list]:
    """The coefficients z_t, π_t for t = ``start`` … ``count`` − 1 (module docstring), each as
    (Z, D); ``zs``/``ps``: the fmpq coefficients before ``start``."""
    factor, varying = solver.factor, solver.varying
    n = factor.n
    keep = max(varying, default=0)
    z_int = {t: as_scaled(zs[t]) for t in range(max(0, start - keep), start)}
    p_int = {t: as_scaled(ps[t]) for t in range(max(0, start - keep), start)}
    out_z, out_p = [], []
    for t in range(start, count):
        for ints, rhs0, transpose, out in ((z_int, b_tight, False, out_z),
                                           (p_int, c_basic, True, out_p)):
            terms = [as_scaled(rhs0[t])] if t in rhs0 else []
            for j in varying:
                if t - j >= 0:
                    num, den = ints[t - j]
                    part = solver.parts[j].T if transpose else solver.parts[j]
                    prod, q = _integer_matvec(part, num)
                    terms.append((-prod, q * den))
            work, delta = _combine(terms, n)
            if not work.astype(bool).any():
                from flint import fmpz

                value = (fmpz_zeros(n), fmpz(1))
            else:
                value = factor.solve_t_scaled(work, delta) if transpose else \
                    factor.solve_scaled(work, delta)
            ints[t] = value
            if keep:
                ints.pop(t - keep, None)
            out.append(value)
    return out_z, out_p
