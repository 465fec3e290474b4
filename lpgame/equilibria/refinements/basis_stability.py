"""The exact stability test of a trembling LP's basis: the certificate t_B(ε) and its signs.

Farina 2023, §13.3–13.4 (notes/farina-thesis.md §1.13). For the trembling LP
P(ε): opt c(ε)ᵀz s.t. A(ε)z (≤, =, ≥) b(ε), z ≥ 0 or free, and a basis ℬ (basic columns, tight
rows) with basis matrix B(ε) = Σ_k ε^k B_k, the basis is *stable* when it is optimal on some
(0, ε̄] (Def. 13.7), i.e. when every entry of the certificate of Thm. 13.3 (L5567),

    t_ℬ(ε) = ( z_B(ε) = B(ε)⁻¹ b(ε) ;  slacks of the rows that are not tight ;
               signs of the row duals π(ε) = B(ε)⁻ᵀ c_B(ε) ;  reduced costs c(ε) − A(ε)ᵀ π(ε) ),

is ≥ 0 (or = 0 for an equality row that is not tight, or a free nonbasic column) for every small
ε > 0. Every entry is a rational function of ε; near 0 its sign is the sign of the first nonzero
coefficient of its Laurent series. The series of z and π come from
:mod:`lpgame.equilibria.refinements.laurent_series` (Taylor when B(0) is nonsingular, Lemma 13.1;
Laurent by row reduction when it is singular, Lemma 13.3), computed exactly in python-flint's
rationals by :mod:`lpgame.equilibria.refinements.exact_sparse_factor`. **The limit is the ε⁰
coefficient (§13.4.4), and it must be finite**: a nonzero coefficient of a negative power in z or
π means the basic solution has no limit, and the basis is reported as not stable.

**Sign test and stopping rule.** The first ``terms`` coefficients of every entry are computed; an
entry whose coefficients all vanish so far is tested by an exact evaluation of the basis system at
a random rational ε̃ (the random-evaluation alternative to the 2nm + 1 derivatives of Lemma 13.2,
L5744–5746): zero there means identically zero (a nonzero rational function has finitely many
roots), nonzero means more coefficients are computed (the count doubles). When ε enters only b and
c, B is constant and every entry is a polynomial; then a positive polynomial Σ_{k≥m} a_k ε^k is
positive on (0, a_m/(a_m + μ)], μ = max_{k>m} |a_k| (as in Lemma 12.5, L5155), and the answer states
that ε*. Results are returned as :class:`fractions.Fraction`.

**One coefficient at a time** (B(0) nonsingular): z_t and π_t come from the one factorisation
of B(0), term by term, and (ε in A) the entries' coefficients are computed only until every
entry's sign is decided; with ``early`` (the limit loop's first pass) the test stops at the first entry of the
wrong sign, and the loop completes the count of wrong signs only for the bases its exact stage
compares (:func:`lpgame.equilibria.refinements.limit.solve_limit`). In the Laurent case (B(0)
singular) ``early`` first computes the :data:`LAURENT_FIRST` leading coefficients of the series and
stops there at an entry of the wrong sign (a prefix of the series: the same verdict). Verdicts,
series and counts are those of the complete test. The factorised basis system of the last
:data:`SOLVER_CACHE` bases is kept on the trembling LP, with the coefficients an early stop had
computed, so completing a count goes on from where the first pass stopped instead of factorising
B(0) again.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from lpgame.equilibria.refinements.exact_sparse_factor import (
    ExactFactor,
    SingularMatrixError,
    SparseQ,
    fmpq_vector,
    fmpq_zeros,
    is_long,
    to_fractions,
)
from lpgame.equilibria.refinements.laurent_series import LaurentSolver, NotStableError
from lpgame.equilibria.refinements.scaled_series import LazyFractions, taylor_tail
from lpgame.errors import LpgameError
from lpgame.lp.linear_program import LinearProgram
from lpgame.lp.solution import BASIS_BASIC, LPSolution

if TYPE_CHECKING:
    import flint


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


# ----------------------------------------------------------------------------- the test
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


def _certified_epsilon(entries: np.ndarray, sign: np.ndarray) -> Fraction:
    """min over the positive entries with more than one nonzero coefficient of a_m / (a_m + μ)
    (:func:`_positive_on`), 1 when there is none; the minimum is taken in exact rationals and
    only it is converted."""
    import flint

    if entries.shape[0] == 0:
        return Fraction(1)
    nonzero = (entries != 0).astype(bool)
    rows = np.flatnonzero((sign > 0) & (nonzero.sum(axis=1) > 1))
    if not len(rows):
        return Fraction(1)
    E = entries[rows]
    first = np.argmax(nonzero[rows], axis=1)
    a = E[np.arange(len(rows)), first]
    later = np.arange(E.shape[1])[None, :] > first[:, None]
    mu = np.where(later, np.abs(E), flint.fmpq(0)).max(axis=1)            # max_{k>m} |a_k| (> 0 here)
    best = (a / (a + mu)).min()
    return best if type(best) is Fraction else Fraction(int(best.p), int(best.q))


def _exact_data(tlp):
    """(powers, A_k as SparseQ, b(ε), c(ε) as {power: fmpq vector}) of a trembling LP, computed once
    per LP and kept on it (the limit loop tests several bases of the same LP)."""
    key = len(tlp.terms)
    cached = getattr(tlp, "_stability_data", None)
    if cached is not None and cached[0] == key:
        return cached[1]
    powers = tlp.exact_powers()
    parts = {k: SparseQ.from_rational(A) for k, (_, A, _) in powers.items() if A is not None}
    b_series = {k: fmpq_vector(bk) for k, (_, _, bk) in powers.items() if any(bk)}
    c_series = {k: fmpq_vector(ck) for k, (ck, _, _) in powers.items() if any(ck)}
    data = (powers, parts, b_series, c_series)
    tlp._stability_data = (key, data)
    return data


def _series_product(parts: dict[int, SparseQ], series: list[np.ndarray], count: int,
                    transpose: bool, length: int) -> list[np.ndarray]:
    """Coefficients of A(ε) z(ε) (or A(ε)ᵀ π(ε)) up to ε^{count−1}."""
    out = [fmpq_zeros(length) for _ in range(count)]
    for k, A in parts.items():
        for t in range(count - k):
            vec = series[t]
            if not vec.astype(bool).any():
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
    free_rows = np.flatnonzero(~is_tight)                        # rows that are not tight
    nonbasic = np.flatnonzero(~is_basic)
    free_parts = {k: A.select_rows(free_rows) for k, A in parts.items()}
    activity = np.stack(_series_product(free_parts, z_full, count, False, len(free_rows)), axis=1)
    slack = activity - np.stack([b_series[t][free_rows] if t in b_series
                                 else fmpq_zeros(len(free_rows)) for t in range(count)], axis=1)
    groups.append(np.where((senses[free_rows] == "<=")[:, None], -slack, slack))
    vanish.append(senses[free_rows] == "==")
    P = np.stack(pi_full[:count], axis=1) * sign                  # duals' signs
    rows_le = np.flatnonzero(is_tight & (senses == "<="))
    rows_ge = np.flatnonzero(is_tight & (senses == ">="))
    groups += [P[rows_le], -P[rows_ge]]
    vanish += [np.zeros(len(rows_le), dtype=bool), np.zeros(len(rows_ge), dtype=bool)]
    nonbasic_parts = {k: A.T.select_rows(nonbasic) for k, A in parts.items()}
    at = np.stack(_series_product(nonbasic_parts, pi_full, count, False, len(nonbasic)), axis=1)
    C = np.stack([c_series[t][nonbasic] if t in c_series else fmpq_zeros(len(nonbasic))
                  for t in range(count)], axis=1)
    reduced = (C - at) * sign                                     # reduced costs
    groups.append(np.where(lower0[nonbasic][:, None], -reduced, reduced))
    vanish.append(~lower0[nonbasic])
    return np.concatenate(groups, axis=0), np.concatenate(vanish)


class _Layout:
    """Which rows and columns give the entries of t_B(ε), in the order of
    :func:`_optimality_entries`, for computing them one Taylor coefficient at a time."""

    def __init__(self, senses, basic, tight, col_lower, sense, m, n):
        self.sign = 1 if sense == "max" else -1
        is_basic = np.zeros(n, dtype=bool)
        is_basic[basic] = True
        is_tight = np.zeros(m, dtype=bool)
        is_tight[tight] = True
        self.lower0 = np.isfinite(col_lower)
        senses = np.asarray(senses)
        self.pick = np.flatnonzero(is_basic & self.lower0)
        self.free_rows = np.flatnonzero(~is_tight)
        self.free_le = senses[self.free_rows] == "<="
        self.rows_le = np.flatnonzero(is_tight & (senses == "<="))
        self.rows_ge = np.flatnonzero(is_tight & (senses == ">="))
        self.nonbasic = np.flatnonzero(~is_basic)
        self.nonbasic_lower = self.lower0[self.nonbasic]
        self.vanish = np.concatenate([np.zeros(len(self.pick), dtype=bool),
                                      senses[self.free_rows] == "==",
                                      np.zeros(len(self.rows_le) + len(self.rows_ge), dtype=bool),
                                      ~self.nonbasic_lower])
        self.m, self.n = m, n
        self.parts = None

    def _products(self, parts):
        if self.parts is None:
            self.parts = {k: (A.select_rows(self.free_rows), A.T.select_rows(self.nonbasic))
                          for k, A in parts.items()}
        return self.parts

    def primal_part(self, parts, b_series, z_full, t: int) -> np.ndarray:
        """The ε^t coefficients of the entries that need only z (the first ones of
        :meth:`column`: basic values and the slacks of the rows that are not tight)."""
        slack = fmpq_zeros(len(self.free_rows))
        for k, (A_free, _) in self._products(parts).items():
            if k <= t and z_full[t - k].astype(bool).any():
                slack = slack + A_free.matvec(z_full[t - k])
        if t in b_series:
            slack = slack - b_series[t][self.free_rows]
        return np.concatenate([z_full[t][self.pick], np.where(self.free_le, -slack, slack)])

    def column(self, parts, b_series, c_series, z_full, pi_full, t: int,
               head: np.ndarray | None = None) -> np.ndarray:
        """The ε^t coefficients of every entry (z_full, pi_full: the coefficients up to t); the
        products with A_k only over the rows that are not tight and the nonbasic columns.
        ``head``: :meth:`primal_part`, when computed already."""
        if head is None:
            head = self.primal_part(parts, b_series, z_full, t)
        at = fmpq_zeros(len(self.nonbasic))
        for k, (_, At_nonbasic) in self._products(parts).items():
            if k <= t and pi_full[t - k].astype(bool).any():
                at = at + At_nonbasic.matvec(pi_full[t - k])
        P = pi_full[t] * self.sign
        reduced = ((c_series[t][self.nonbasic] - at) if t in c_series else -at) * self.sign
        return np.concatenate([head, P[self.rows_le], -P[self.rows_ge],
                               np.where(self.nonbasic_lower, -reduced, reduced)])


def _taylor_by_term(solver, parts, basis_parts, b_series, c_series, senses, basic, tight, col_lower, sense,
                    m, n, count, max_terms, seed, early, polynomial=False):
    """The Taylor case (B(0) nonsingular, ε in A) of :func:`certify_stable_basis`, one coefficient
    at a time (Lemma 13.1: B(0) z_t = b_t − Σ_{k≥1} B_k z_{t−k}, the same for π with B_kᵀ, one
    factorisation of B(0) for all t). The sign of an entry is fixed by its first nonzero
    coefficient, so an entry's later coefficients are not computed once it is decided, nor any
    entry's once all are; with ``early`` the test stops at the first entry of the wrong sign.
    ``polynomial`` (B constant): every coefficient of every entry is computed (ε* needs them) and
    there is no random evaluation (an entry whose ``count`` coefficients vanish is the zero
    polynomial). Returns (count, entries computed, signs, z coefficients, π coefficients)."""
    layout = _Layout(senses, basic, tight, col_lower, sense, m, n)
    vanish = layout.vanish
    factor, varying = solver.factor, solver.varying
    b_tight = {k: v[tight] for k, v in b_series.items()}
    c_basic = {k: v[basic] for k, v in c_series.items()}
    zs, ps, z_full, pi_full, columns = [], [], [], [], []
    sign = None
    t = 0
    resume = getattr(solver, "_taylor_stop", None)
    if resume is not None and resume[0] == (count, polynomial, len(b_series), len(c_series)):
        # the same basis stopped early before (its solver is cached): go on from there
        _, t, zs, ps, z_full, pi_full, columns, sign = resume
    solver._taylor_stop = None
    while True:
        while t < count:
            if SCALED_TAIL and not polynomial and sign is not None and sign.all() and t and \
                    (is_long(zs[t - 1], TAIL_BITS) or is_long(ps[t - 1], TAIL_BITS)):
                # every sign is decided: the remaining terms are only read (scaled_series)
                tz, tp = taylor_tail(solver, b_tight, c_basic, zs, ps, t, count)
                z_full += [LazyFractions(num, den, basic, n) for num, den in tz]
                pi_full += [LazyFractions(num, den, tight, m) for num, den in tp]
                t = count
                break
            rhs = b_tight[t].copy() if t in b_tight else fmpq_zeros(factor.n)
            rhs_t = c_basic[t].copy() if t in c_basic else fmpq_zeros(factor.n)
            for j in varying:
                if t - j >= 0:
                    rhs = rhs - solver.parts[j].matvec(zs[t - j])
                    rhs_t = rhs_t - solver.parts[j].T.matvec(ps[t - j])
            zs.append(factor.solve(rhs) if rhs.astype(bool).any() else fmpq_zeros(factor.n))
            z = fmpq_zeros(n)
            z[basic] = zs[t]
            z_full.append(z)
            head = None
            if early and not polynomial and (sign is None or not sign.all()):
                # the entries that need only z first: a wrong sign there stops before π_t
                head = layout.primal_part(parts, b_series, z_full, t)
                _primal_stop(solver, head, sign, vanish, t, zs, ps, z_full, pi_full, columns,
                             (count, polynomial, len(b_series), len(c_series)))
            ps.append(factor.solve_t(rhs_t) if rhs_t.astype(bool).any() else fmpq_zeros(factor.n))
            p = fmpq_zeros(m)
            p[tight] = ps[t]
            pi_full.append(p)
            if sign is None or not sign.all() or polynomial:
                col = layout.column(parts, b_series, c_series, z_full, pi_full, t, head)
                columns.append(col)
                nonzero = col.astype(bool)
                if sign is None:
                    sign = np.zeros(len(col), dtype=np.int64)
                new = (sign == 0) & nonzero
                if new.any():
                    sign[new] = np.where((col[new] > 0).astype(bool), 1, -1)
                wrong = np.flatnonzero((sign < 0) | (vanish & (sign != 0)))
                if len(wrong) and early:
                    solver._taylor_stop = ((count, polynomial, len(b_series), len(c_series)),
                                           t + 1, zs, ps, z_full, pi_full, columns, sign.copy())
                    _wrong_sign(wrong, vanish, columns, partial=True)
            t += 1
        wrong = np.flatnonzero((sign < 0) | (vanish & (sign != 0)))
        if len(wrong):
            _wrong_sign(wrong, vanish, columns, partial=False)
        undecided = np.flatnonzero(sign == 0)
        if polynomial or not len(undecided):
            break
        # truncated series all zero: decide by an exact evaluation at a rational point
        if _vanish_at_random_point(parts, basis_parts, b_series, c_series, senses, basic, tight,
                                   col_lower, sense, m, n, undecided, seed):
            break
        if count >= max_terms:
            raise NotStableError(f"entries of t_B(ε) have {count} vanishing Taylor coefficients but are "
                                 "not identically zero; more terms are needed")
        count *= 2
    return count, np.stack(columns, axis=1), sign, z_full, pi_full


def _primal_stop(solver, head, sign, vanish, t, zs, ps, z_full, pi_full, columns, key):
    """With ``early`` (ε in A): raise the early verdict when an entry of ``head`` (the ε^t
    coefficients that need only z_t) is the first nonzero one of its entry and has the wrong
    sign; the stop is kept at the end of term t − 1 (z_t is computed again on resuming)."""
    k = len(head)
    undecided = np.ones(k, dtype=bool) if sign is None else sign[:k] == 0
    nonzero = head.astype(bool)
    bad = undecided & nonzero & ((head < 0).astype(bool) | vanish[:k])
    if not bad.any():
        return
    zs.pop()
    z_full.pop()
    solver._taylor_stop = (key, t, zs, ps, z_full, pi_full, columns,
                           None if sign is None else sign.copy())
    shown = np.empty(len(vanish), dtype=object)
    shown[:k] = head
    _wrong_sign(np.flatnonzero(bad), vanish, columns + [shown], partial=True)


def _wrong_sign(wrong, vanish, columns, partial: bool):
    k = int(wrong[0])
    what = "must vanish" if vanish[k] else "must be ≥ 0"
    error = NotStableError(f"{len(wrong)}{'+' if partial else ''} entries of the optimality "
                           f"certificate t_B(ε) have the wrong sign near ε = 0; the first {what} but "
                           f"its expansion starts {[str(c[k]) for c in columns[:4]]}", len(wrong))
    error.partial_count = partial
    raise error


def _signs(entries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sign of the first nonzero coefficient of each entry, its index)."""
    if entries.shape[0] == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    nonzero = (entries != 0).astype(bool)
    first = np.argmax(nonzero, axis=1)
    lead = entries[np.arange(entries.shape[0]), first]
    sign = np.where(nonzero.any(axis=1), np.where((lead > 0).astype(bool), 1, -1), 0)
    return sign, first


SCALED_TAIL = True
"""Compute the Taylor coefficients after the last sign decision fraction-free and convert them
on access (:mod:`lpgame.equilibria.refinements.scaled_series`) once their denominators are long
(:func:`~lpgame.equilibria.refinements.exact_sparse_factor.is_long`); False: in fmpq like the
others."""

TAIL_BITS = 128
"""The :data:`SCALED_TAIL` starts once a coefficient has a denominator this long (bits)."""

SOLVER_CACHE = 8
"""Basis systems (the parts B_k and the factorised :class:`LaurentSolver`) kept per trembling LP:
the limit loop tests a basis twice when it first stops at the first wrong sign and later needs
the complete count of wrong signs (to choose the exact stage's start)."""


def _basis_solver(tlp, powers, parts, basic, tight, row_pos, col_pos, size):
    """({k: B_k}, LaurentSolver of B(ε)) of the basis (``basic`` columns, ``tight`` rows), from
    the cache on ``tlp`` (:data:`SOLVER_CACHE`) or computed; raises :class:`NotStableError` for an
    empty or singular basis matrix (the refusal is cached too)."""
    cache = tlp.__dict__.setdefault("_basis_solvers", {})
    key = (len(tlp.terms), basic.tobytes(), tight.tobytes())
    found = cache.get(key)
    if found is None:
        B = {k: parts[k].submatrix(row_pos, col_pos, size) for k in parts}
        B = {k: p for k, p in B.items() if p.nnz or k == 0}
        if 0 not in B:
            found = "the basis matrix at ε = 0 is empty"
        else:
            try:
                found = (B, LaurentSolver(B))
            except SingularMatrixError as exc:   # pragma: no cover - reduce_pencil handles it
                found = f"the basis matrix is singular ({exc})"
            except NotStableError as exc:
                found = str(exc)
        if len(cache) >= SOLVER_CACHE:
            cache.pop(next(iter(cache)))
        cache[key] = found
    if isinstance(found, str):
        raise NotStableError(found)
    return found


def certify_stable_basis(tlp, solution: LPSolution, terms: int | None = None,
                         max_terms: int = 64, seed: int = 0, early: bool = False) -> StableBasis:
    """Test whether ``solution``'s optimal basis of the trembling LP ``tlp`` is stable (module
    docstring: Thm. 13.3 with Taylor series, or Laurent series by Lemma 13.3 when B(0) is
    singular); raise :class:`NotStableError` with the reason, or return its exact expansion.
    ``terms``: coefficients computed first when ε enters A (doubled up to ``max_terms``).
    ``early``: stop at the first coefficient that shows an entry of the wrong sign (the verdict is
    the same; the error's ``violations`` is then a lower bound and its ``partial_count`` is True)."""
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
    B, solver = _basis_solver(tlp, powers, parts, basic, tight, row_pos, col_pos, size)
    polynomial = not any(k > 0 for k in B)
    deg_b, deg_c = max(b_series, default=0), max(c_series, default=0)
    if polynomial and solver.pole_order:
        raise NotStableError("the basis matrix B is singular (and constant in ε): not a basis")
    count = (max(deg_b, deg_c) + 1) if polynomial else (terms or 2 * max(deg_b, deg_c, 1) + 4)
    if not solver.pole_order:
        count, entries, sign, z_full, pi_full = _taylor_by_term(
            solver, parts, B, b_series, c_series, senses, basic, tight, col_lower, lp.sense, m, n,
            count, max_terms, seed, early, polynomial)
    else:
        if early and count > LAURENT_FIRST:
            # the first coefficients show most wrong signs: stop there (a prefix of the series)
            _laurent_by_count(solver, parts, B, b_series, c_series, senses, basic, tight,
                              col_lower, lp.sense, m, n, LAURENT_FIRST, seed, partial=True)
        while True:
            z_full, pi_full, entries, sign, done = _laurent_by_count(
                solver, parts, B, b_series, c_series, senses, basic, tight, col_lower, lp.sense, m,
                n, count, seed)
            if done:
                break
            if count >= max_terms:
                raise NotStableError(f"entries of t_B(ε) have {count} vanishing Taylor coefficients but are "
                                     "not identically zero; more terms are needed")
            count *= 2
    certified = None
    if polynomial:
        certified = _certified_epsilon(entries, sign)
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
    return StableBasis([_fractions(z) for z in z_full], [_fractions(p) for p in pi_full],
                       polynomial, certified, int(entries.shape[0]), how, solver.pole_order)


LAURENT_FIRST = 2
"""With ``early``, the Laurent case first computes this many coefficients (from ε⁰) and stops
there when an entry of t_B(ε) already has the wrong sign."""


def _laurent_by_count(solver, parts, basis_parts, b_series, c_series, senses, basic, tight, col_lower, sense,
                      m, n, count, seed, partial=False):
    """The Laurent case (B(0) singular, Lemma 13.3) of :func:`certify_stable_basis` with ``count``
    coefficients from ε⁰: raises :class:`NotStableError` for a pole or an entry of the wrong sign
    (``partial``: a prefix of the series, the count of wrong signs a lower bound); returns
    (z coefficients, π coefficients, entries, signs, decided) where ``decided`` is False when
    entries whose coefficients all vanish do not vanish at a random rational point."""
    b_tight = {k: v[tight] for k, v in b_series.items()}
    c_basic = {k: v[basic] for k, v in c_series.items()}
    zs = solver.primal(b_tight, count - 1)
    ps = solver.dual(c_basic, count - 1)
    for name, series in (("basic values", zs), ("row duals", ps)):
        poles = [k for k in sorted(series) if k < 0 and series[k].astype(bool).any()]
        if poles:
            raise NotStableError(f"the {name} B(ε)⁻¹b(ε) have a pole of order {-poles[0]} at "
                                 "ε = 0 (Laurent expansion, Lemma 13.3): no finite limit")
    z_full = []
    pi_full = []
    for k in range(count):
        z = fmpq_zeros(n)
        z[basic] = zs[k]
        z_full.append(z)
        p = fmpq_zeros(m)
        p[tight] = ps[k]
        pi_full.append(p)
    entries, vanish = _optimality_entries(parts, b_series, c_series, senses, z_full, pi_full,
                                          basic, tight, col_lower, sense, count)
    sign, _ = _signs(entries)
    wrong = np.flatnonzero((sign < 0) | (vanish & (sign != 0)))
    if len(wrong):
        k = int(wrong[0])
        what = "must vanish" if vanish[k] else "must be ≥ 0"
        error = NotStableError(f"{len(wrong)}{'+' if partial else ''} entries of the optimality "
                               f"certificate t_B(ε) have the wrong sign near ε = 0; the first {what} "
                               f"but its expansion starts {[str(c) for c in entries[k, :4]]}",
                               len(wrong))
        error.partial_count = partial
        raise error
    undecided = np.flatnonzero(sign == 0)
    done = partial or not len(undecided) or _vanish_at_random_point(
        parts, basis_parts, b_series, c_series, senses, basic, tight, col_lower, sense, m, n, undecided, seed)
    return z_full, pi_full, entries, sign, done


def _fractions(values):
    """A coefficient vector as Fractions (a :class:`LazyFractions` is kept as it is)."""
    return values if isinstance(values, LazyFractions) else to_fractions(values)


def _collapse(parts: dict[int, SparseQ], eps: flint.fmpq) -> SparseQ:
    """Σ_k ε̃^k part_k as one matrix."""
    import flint

    Q0 = flint.fmpq(0)
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
    import flint

    rng = random.Random(seed)
    eps = flint.fmpq(rng.randrange(1, 2 ** 20), 2 ** 30)
    try:
        factor = ExactFactor(_collapse(basis_parts, eps))
    except SingularMatrixError:
        return False
    b = sum((v * eps ** k for k, v in b_series.items()), fmpq_zeros(m))
    c = sum((v * eps ** k for k, v in c_series.items()), fmpq_zeros(n))
    z = fmpq_zeros(n)
    z[basic] = factor.solve(b[tight])
    p = fmpq_zeros(m)
    p[tight] = factor.solve_t(c[basic])
    entries, _ = _optimality_entries({0: _collapse(parts, eps)}, {0: b}, {0: c}, senses, [z], [p],
                                     basic, tight, col_lower, sense, 1)
    return all(not entries[k, 0] for k in undecided.tolist())
