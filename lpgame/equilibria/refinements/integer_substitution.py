"""Fraction-free block substitution: M x = b over the rationals with integer arithmetic inside.

The block triangular substitution of :class:`~lpgame.equilibria.refinements.exact_sparse_factor.ExactFactor`
(Duff, Erisman & Reid, *Direct Methods for Sparse Matrices*, ch. 6) goes level by level: the
unknowns of a level come from

    x_k = M_kk⁻¹ ( b_k − Σ_{l earlier} M_kl x_l ).

In rationals every addition and product reduces by a gcd, and the Taylor coefficients of a basis
system (Farina 2023, Lemma 13.1, L5707 of notes/farina-thesis.md) have numerators and denominators
of thousands of bits, so the gcds dominate. Their denominators nearly share one common multiple
(on Leduc L2252 the lcm of a coefficient vector's denominators has the bit length of its largest
denominator), so here the values of each level are held as integers over one common denominator
D_L (the fraction-free idea of Bareiss-type elimination; e.g. Geddes, Czapor & Labahn,
*Algorithms for Computer Algebra*, ch. 9):

* the right-hand side b = W / δ₀ (δ₀ the lcm of its denominators);
* level L: with Q_L the lcm of the denominators of its off-block entries (P = Q_L M_kl integral)
  and D the denominator reached so far, the numerators N = Q_L (D/δ₀) W_k − Σ P y_l (y_l over D)
  are over Q_L D; a 1 × 1 block divides by its entry a/β (numerator N a (lcm β / β)), a larger block
  is solved by its exact sparse LU with the integer right-hand side N and brought to the common
  denominator of its solution; the level's numerators and denominator are then divided by their
  gcd, which only needs gcds against the (short) new factor of the denominator.

Every operation is exact (integer products, sums, exact divisions), so the solution is the same
rational vector. :func:`substitute_scaled` returns it as integers over one denominator (what the
stability test's later Taylor terms use, :mod:`lpgame.equilibria.refinements.scaled_series`);
:func:`substitute` as reduced ``fmpq`` (one gcd per nonzero entry instead of one per operation;
off by default in :class:`~lpgame.equilibria.refinements.exact_sparse_factor.ExactFactor`).
"""

from __future__ import annotations

import numpy as np

_ZEROS: dict[int, np.ndarray] = {}


def fmpz_zeros(n: int) -> np.ndarray:
    """An object array of ``n`` fmpz zeros (a copy of one kept per length)."""
    zeros = _ZEROS.get(n)
    if zeros is None:
        from flint import fmpz

        zeros = np.empty(n, dtype=object)
        zeros.fill(fmpz(0))
        if len(_ZEROS) > 64:
            _ZEROS.clear()
        _ZEROS[n] = zeros
    return zeros.copy()


def _common(values) -> tuple[object, list]:
    """(lcm of the denominators of the fmpq ``values``, their numerators over it)."""
    from flint import fmpz

    den = fmpz(1)
    for q in {v.q for v in values}:
        if den % q:
            den = den * q // den.gcd(q)
    cache: dict = {}
    out = []
    for v in values:
        f = cache.get(v.q)
        if f is None:
            f = cache[v.q] = den // v.q
        out.append(v.p * f)
    return den, out


def scaled_ints(values: list):
    """(lcm q of the denominators of the fmpq ``values``, the values times q as an fmpz object
    array)."""
    from flint import fmpz

    q = fmpz(1)
    for d in {v.q for v in values}:       # fmpz hashes fast (fmpq does not)
        if q % d:
            q = q * d // q.gcd(d)
    return q, np.array([(v * q).p for v in values] + [None], dtype=object)[:-1]


def integer_plan(plan: list, n: int) -> list:
    """Per level of :meth:`ExactFactor._plan` (``n`` unknowns): (Q_L, P = Q_L·vals as fmpz, the
    level of each source, scalar coefficients a·(β_lcm/β) as fmpz, β_lcm), computed once per
    plan."""
    level_of = np.zeros(n, dtype=np.int64)
    out = []
    for lv, (_, _, _, sources, vals, scalars, inverses, lus) in enumerate(plan):
        q, p = scaled_ints(vals.tolist())
        beta, coef = scaled_ints(inverses.tolist())
        out.append((q, p, level_of[sources], coef, beta))
        level_of[scalars] = lv
        for idx, _ in lus:
            level_of[idx] = lv
    return out


def _level_work(work: np.ndarray, idx: np.ndarray, scale, hit: np.ndarray | None) -> np.ndarray:
    """A level's rows as numerators over Q_L·D (the rows with off-block terms already are)."""
    w = work[idx]
    return w * scale if hit is None else np.where(hit[idx], w, w * scale)


def as_scaled(rhs: np.ndarray) -> tuple[np.ndarray, object]:
    """An fmpq vector as (integer numerators, δ) with δ the lcm of its denominators."""
    nz = np.flatnonzero(rhs.astype(bool))
    delta, nums = _common(rhs[nz].tolist())
    work = fmpz_zeros(len(rhs))
    if len(nz):
        work[nz] = np.array(nums + [None], dtype=object)[:-1]
    return work, delta


def substitute(plan: list, iplan: list, rhs: np.ndarray, n: int, transpose: bool) -> np.ndarray:
    """The solution (object array of reduced fmpq) of the block substitution ``plan`` with right-hand
    side ``rhs`` (module docstring); ``iplan`` = :func:`integer_plan` (plan)."""
    from flint import fmpq

    work, delta0 = as_scaled(rhs)
    y, level, ratio, total = _substitute(plan, iplan, work, delta0, n, transpose)
    dens = [total // r for r in ratio]
    out = np.empty(n, dtype=object)
    out.fill(fmpq(0))
    keep = np.flatnonzero(y.astype(bool))
    out[keep] = [fmpq(v, dens[lv]) for v, lv in zip(y[keep].tolist(), level[keep].tolist())]
    return out


def substitute_scaled(plan: list, iplan: list, work: np.ndarray, delta, n: int,
                      transpose: bool) -> tuple[np.ndarray, object]:
    """The solution for the right-hand side ``work``/``delta`` (integers over one denominator) as
    (integer numerators, D) over one denominator D, the common factor of all of them divided
    out (D is then the lcm of the reduced denominators)."""
    y, level, ratio, total = _substitute(plan, iplan, work.copy(), delta, n, transpose)
    if len(ratio) > 1:
        y = y * np.array(ratio + [None], dtype=object)[:-1][level]
    return reduce_scaled(y, total)


def reduce_scaled(y: np.ndarray, den) -> tuple[np.ndarray, object]:
    """(y / g, den / g) with g = gcd(den, every y): a few gcds, as g drops fast."""
    g = den
    for v in y[y.astype(bool)].tolist():
        g = g.gcd(v)
        if g == 1:
            return y, den
    return (y // g, den // g) if g != 1 else (y, den)


def _substitute(plan, iplan, work, delta0, n, transpose):
    """The level loop of :func:`substitute` on ``work``/δ₀ (changed in place): (numerators,
    level of each unknown, ratio[l] = D / D_l, D) with unknown i = numerator / D_level(i)."""
    from flint import fmpq, fmpz

    one = fmpz(1)
    y = fmpz_zeros(n)
    lift = one                      # D / δ₀: D the denominator reached so far
    ratio: list = []                # ratio[l] = D / D_l
    level = np.zeros(n, dtype=np.int64)
    for lv, ((targets, _, starts, sources, _, scalars, _, lus), (q, p, src_level, coef, beta)) \
            in enumerate(zip(plan, iplan)):
        scale = q * lift
        hit = None
        if len(sources):
            mult = np.array(ratio + [None], dtype=object)[:-1][src_level]
            work[targets] = work[targets] * scale - np.add.reduceat(p * y[sources] * mult, starts)
            hit = np.zeros(n, dtype=bool)
            hit[targets] = True

        pieces = []                 # (indices, numerators over Q_L·D·den, den)
        if len(scalars):
            pieces.append((scalars, _level_work(work, scalars, scale, hit) * coef, beta))
        for idx, data in lus:
            local = _level_work(work, idx, scale, hit).tolist()
            if not any(local):
                pieces.append((idx, fmpz_zeros(len(idx)), one))
                continue
            x = data.solve_t([fmpq(v) for v in local]) if transpose else \
                data.solve([fmpq(v) for v in local])
            den, xnums = _common(x)
            pieces.append((idx, np.array(xnums + [None], dtype=object)[:-1], den))
        # one denominator for the level, then divide out the common factor
        m = one
        for _, _, den in pieces:
            if m % den:
                m = m * den // m.gcd(den)
        g = q * m
        for k, (idx, vals_l, den) in enumerate(pieces):
            if m != den:
                vals_l = vals_l * (m // den)
                pieces[k] = (idx, vals_l, den)
            if g != 1:
                for v in vals_l.tolist():
                    if v:
                        g = g.gcd(v)
                        if g == 1:
                            break
        f = q * m // g                   # D_L = D · f
        for idx, vals_l, _ in pieces:
            y[idx] = vals_l // g if g != 1 else vals_l
            level[idx] = lv
        ratio = [r * f for r in ratio] + [one]
        lift = lift * f
    return y, level, ratio, delta0 * lift
