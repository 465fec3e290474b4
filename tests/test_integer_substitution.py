"""The fraction-free block substitution (lpgame.equilibria.refinements.integer_substitution) against
plain Python Fractions: M x = b and Mᵀ y = c checked entry by entry with fractions.Fraction (not
lpgame), on random sparse block-triangular matrices with entries at scales 1e-12..1e12, and the
same solution as the fmpq substitution."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

flint = pytest.importorskip("flint")

from lpgame.equilibria.refinements import exact_sparse_factor as esf  # noqa: E402
from lpgame.equilibria.refinements.exact_sparse_factor import ExactFactor, SparseQ  # noqa: E402


def _random_system(seed: int, n: int, scale_exp: int, long_rhs: bool):
    """A random nonsingular sparse matrix: a permuted block lower triangular one with diagonal
    blocks of size 1–5 (dominant diagonals), entries p/q · 10^scale_exp; rhs with long
    denominators when ``long_rhs``."""
    rng = np.random.default_rng(seed)
    entries: dict[tuple[int, int], Fraction] = {}
    scale = Fraction(10) ** scale_exp
    start = 0
    blocks = []
    while start < n:
        size = int(min(n - start, rng.integers(1, 6)))
        blocks.append((start, size))
        start += size
    for b0, size in blocks:
        for i in range(b0, b0 + size):
            for j in range(b0, b0 + size):
                if i == j:
                    entries[(i, j)] = (size * 10 + int(rng.integers(1, 9))) * scale / int(rng.integers(1, 7))
                elif rng.random() < 0.6:
                    entries[(i, j)] = Fraction(int(rng.integers(-9, 10)), int(rng.integers(1, 19))) * scale
        for i in range(b0, b0 + size):                # off-block entries to earlier blocks
            for j in range(0, b0):
                if rng.random() < 0.15:
                    entries[(i, j)] = Fraction(int(rng.integers(-9, 10)), int(rng.integers(1, 37))) * scale
    entries = {k: v for k, v in entries.items() if v}
    row_perm, col_perm = rng.permutation(n), rng.permutation(n)
    entries = {(int(row_perm[i]), int(col_perm[j])): v for (i, j), v in entries.items()}
    big = 2 ** 200 + 1 if long_rhs else 1

    def rhs():
        return [Fraction(int(rng.integers(-10 ** 6, 10 ** 6)), int(rng.integers(1, 10 ** 6)) * big)
                if rng.random() < 0.8 else Fraction(0) for _ in range(n)]
    return entries, rhs(), rhs()


def _fmpq(values):
    return np.array([flint.fmpq(v.numerator, v.denominator) for v in values] + [None],
                    dtype=object)[:-1]


def _as_fractions(values):
    return [Fraction(int(v.p), int(v.q)) for v in values]


def _check(entries, n, x, b, transpose=False):
    """Σ_j M[i, j] x_j = b_i (or Mᵀ) in Python Fractions."""
    out = [Fraction(0)] * n
    for (i, j), v in entries.items():
        if transpose:
            out[j] += v * x[i]
        else:
            out[i] += v * x[j]
    return out == b


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2 ** 31), n=st.integers(1, 40), scale_exp=st.integers(-12, 12),
       long_rhs=st.booleans())
def test_fraction_free_solves_match_fractions(seed, n, scale_exp, long_rhs, monkeypatch_bits):
    entries, b, c = _random_system(seed, n, scale_exp, long_rhs)
    keys = list(entries)
    matrix = SparseQ((n, n), [k[0] for k in keys], [k[1] for k in keys],
                     [flint.fmpq(entries[k].numerator, entries[k].denominator) for k in keys])
    factor = ExactFactor(matrix)
    factor.fraction_free = True
    x_ff = factor.solve(_fmpq(b))
    y_ff = factor.solve_t(_fmpq(c))
    assert _check(entries, n, _as_fractions(x_ff), b)
    assert _check(entries, n, _as_fractions(y_ff), c, transpose=True)
    factor.fraction_free = False
    x_q, y_q = factor.solve(_fmpq(b)), factor.solve_t(_fmpq(c))
    assert list(x_q) == list(x_ff) and list(y_q) == list(y_ff)


@pytest.fixture
def monkeypatch_bits(monkeypatch):
    """Every right-hand side takes the fraction-free path."""
    monkeypatch.setattr(esf, "LONG_BITS", 0)


def test_fraction_free_path_is_taken_and_would_be_caught(monkeypatch):
    """The property above can fail: the fraction-free path runs (LONG_BITS 0) and a wrong
    common-denominator bookkeeping (levels' ratios left out) gives a solution the Fraction check
    rejects."""
    from lpgame.equilibria.refinements import integer_substitution as isub

    monkeypatch.setattr(esf, "LONG_BITS", 0)
    monkeypatch.setattr(ExactFactor, "fraction_free", True)
    entries, b, _ = _random_system(7, 30, 3, True)
    keys = list(entries)
    matrix = SparseQ((30, 30), [k[0] for k in keys], [k[1] for k in keys],
                     [flint.fmpq(entries[k].numerator, entries[k].denominator) for k in keys])
    calls = []
    real = isub.substitute

    def spy(*args):
        calls.append(1)
        return real(*args)
    monkeypatch.setattr(esf, "substitute", spy)
    factor = ExactFactor(matrix)
    assert _check(entries, 30, _as_fractions(factor.solve(_fmpq(b))), b)
    assert calls

    def broken(plan, iplan, rhs, n, transpose):
        bad = [(q, p, src, coef, beta) for q, p, src, coef, beta in iplan]
        bad = [(q, p * 2, src, coef, beta) if len(p) else (q, p, src, coef, beta)
               for q, p, src, coef, beta in bad]
        return real(plan, bad, rhs, n, transpose)
    monkeypatch.setattr(esf, "substitute", broken)
    assert not _check(entries, 30, _as_fractions(ExactFactor(matrix).solve(_fmpq(b))), b)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 31), n=st.integers(1, 40), scale_exp=st.integers(-12, 12))
def test_scaled_solves_are_the_fractions_over_their_lcm(seed, n, scale_exp):
    """solve_scaled / solve_t_scaled (the stability test's tail): X / D solves the system in
    Fractions, and D is the lcm of the reduced denominators (no common factor left)."""
    from math import lcm

    entries, b, c = _random_system(seed, n, scale_exp, True)
    keys = list(entries)
    matrix = SparseQ((n, n), [k[0] for k in keys], [k[1] for k in keys],
                     [flint.fmpq(entries[k].numerator, entries[k].denominator) for k in keys])
    factor = ExactFactor(matrix)
    for rhs, transpose in ((b, False), (c, True)):
        den = lcm(*[v.denominator for v in rhs])
        work = np.array([flint.fmpz(int(v * den)) for v in rhs] + [None], dtype=object)[:-1]
        nums, total = (factor.solve_t_scaled if transpose else factor.solve_scaled)(
            work, flint.fmpz(den))
        x = [Fraction(int(v), int(total)) for v in nums]
        assert _check(entries, n, x, rhs, transpose=transpose)
        assert int(total) == lcm(*[v.denominator for v in x])
