"""The exact factorisations of the refinements' exact stage and stability test, against python-flint's
dense rational solve (``fmpq_mat.solve``, fraction-free elimination: not lpgame code):

* :class:`~lpgame.equilibria.refinements.updated_factor.UpdatedFactor` (product-form eta updates
  of an exact sparse LU, Chvátal 1983 ch. 24) gives, after any random sequence of column
  replacements, exactly the solves of a fresh factorisation of the new basis matrix and of the
  dense solve, for Bx = b and Bᵀy = c, at entry scales 1e-12..1e12;
* the level-scheduled block substitution of
  :class:`~lpgame.equilibria.refinements.exact_sparse_factor.ExactFactor` agrees with the dense solve;
* the stability test's early stop (first wrong sign) gives the same verdict as the complete test on
  every HiGHS basis of the limit loop of catalog games (QPE: polynomial; EFPE: ε in A), and the
  same series and ε* when the basis is stable;
* the exact simplex at ξ gives the same pivots, basis and values with the eta updates as with a
  fresh factorisation at every pivot (its strong duality is checked in tests/test_exact_limit.py);
* ε* of a polynomial t_B (vectorised) equals the per-entry bound's minimum, and holds at ε*.
"""

from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lpgame
from lpgame.compile import compile_game
from lpgame.equilibria.refinements import exact_limit, updated_factor
from lpgame.equilibria.refinements.basis_stability import NotStableError, certify_stable_basis
from lpgame.equilibria.refinements.exact_sparse_factor import (
    ExactFactor,
    SingularMatrixError,
    SparseQ,
    fmpq_vector,
)
from lpgame.equilibria.refinements.limit import default_schedule
from lpgame.equilibria.refinements.perturbed_lp import refinement_lp
from lpgame.equilibria.refinements.updated_factor import UpdatedFactor
from lpgame.lp import solve_lp

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SCALES = [Fraction(1, 10 ** 12), Fraction(1), Fraction(10 ** 12)]


def _dense_solve(columns: list[dict[int, Fraction]], rhs: list[Fraction], transpose: bool):
    n = len(columns)
    M = flint.fmpq_mat(n, n)
    for k, col in enumerate(columns):
        for i, v in col.items():
            if transpose:
                M[k, i] = flint.fmpq(v.numerator, v.denominator)
            else:
                M[i, k] = flint.fmpq(v.numerator, v.denominator)
    b = flint.fmpq_mat(n, 1, [flint.fmpq(v.numerator, v.denominator) for v in rhs])
    x = M.solve(b)
    return [Fraction(int(x[i, 0].p), int(x[i, 0].q)) for i in range(n)]


def _sparse(columns: list[dict[int, Fraction]]) -> SparseQ:
    entries = {(i, k): flint.fmpq(v.numerator, v.denominator)
               for k, col in enumerate(columns) for i, v in col.items()}
    n = len(columns)
    return SparseQ.from_dict((n, n), entries)


def _fractions(values) -> list[Fraction]:
    return [Fraction(int(v.p), int(v.q)) for v in values]


@st.composite
def _column(draw, n: int, scale: Fraction) -> dict[int, Fraction]:
    rows = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=min(n, 4), unique=True))
    return {i: scale * Fraction(draw(st.integers(-9, 9).filter(bool)), draw(st.integers(1, 7)))
            for i in rows}


@st.composite
def _pivot_sequences(draw):
    n = draw(st.integers(1, 12))
    scale = draw(st.sampled_from(SCALES))
    # a nonsingular start: a permuted diagonal plus a few entries below it (triangular)
    perm = draw(st.permutations(range(n)))
    columns = []
    for k in range(n):
        col = {perm[k]: scale * draw(st.integers(1, 9))}
        for i in range(k + 1, n):
            if draw(st.booleans()):
                col[perm[i]] = scale * Fraction(draw(st.integers(-9, 9)), draw(st.integers(1, 5)))
        columns.append({i: v for i, v in col.items() if v})
    pivots = draw(st.lists(st.tuples(st.integers(0, n - 1), _column(n, scale)), max_size=25))
    rhs = [Fraction(draw(st.integers(-20, 20)), draw(st.integers(1, 9))) for _ in range(n)]
    return columns, pivots, rhs


@SETTINGS
@given(_pivot_sequences())
def test_updated_factor_matches_fresh_and_dense_solves(case):
    columns, pivots, rhs = case
    factor = UpdatedFactor(_sparse(columns))
    b = fmpq_vector(rhs)
    done = 0
    for r, entering in pivots:
        a = fmpq_vector([entering.get(i, Fraction(0)) for i in range(len(columns))])
        alpha = factor.solve(a)
        if not alpha[r]:
            continue                      # the replacement would make B singular: skipped
        factor.replace(r, alpha)
        columns[r] = entering
        done += 1
        fresh = ExactFactor(_sparse(columns))
        for transpose in (False, True):
            got = _fractions(factor.solve_t(b) if transpose else factor.solve(b))
            assert got == _fractions(fresh.solve_t(b) if transpose else fresh.solve(b))
            assert got == _dense_solve(columns, rhs, transpose)
    assert factor.updates == done


def test_updated_factor_rejects_a_zero_pivot():
    factor = UpdatedFactor(_sparse([{0: Fraction(1)}, {1: Fraction(1)}]))
    with pytest.raises(SingularMatrixError):
        factor.replace(0, fmpq_vector([0, 1]))


@SETTINGS
@given(st.integers(2, 25), st.randoms(use_true_random=False), st.sampled_from(SCALES))
def test_block_substitution_matches_dense_solve(n, rng, scale):
    columns = [{k: scale * rng.randint(1, 5)} for k in range(n)]
    for _ in range(2 * n):                       # extra entries: some blocks, some coupling
        columns[rng.randrange(n)][rng.randrange(n)] = scale * Fraction(rng.randint(-4, 4) or 1,
                                                                       rng.randint(1, 3))
    try:
        factor = ExactFactor(_sparse(columns))
    except SingularMatrixError:
        return
    rhs = [Fraction(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(n)]
    b = fmpq_vector(rhs)
    assert _fractions(factor.solve(b)) == _dense_solve(columns, rhs, False)
    assert _fractions(factor.solve_t(b)) == _dense_solve(columns, rhs, True)


def _verdicts(game, refinement: str, count: int = 8):
    tlp = refinement_lp(compile_game(game), refinement, 1).tlp
    seen = set()
    out = []
    for xi in default_schedule()[:count]:
        solution = solve_lp(tlp.at(xi), solver="simplex")
        key = (solution.col_basis.tobytes(), solution.row_basis.tobytes())
        if key in seen:
            continue
        seen.add(key)
        verdict = []
        for early in (False, True):
            try:
                stable = certify_stable_basis(tlp, solution, terms=12, early=early)
                verdict.append(("stable", stable.primal, stable.duals, stable.how,
                                stable.certified_epsilon, stable.checked_entries))
            except NotStableError as exc:
                verdict.append(("not stable", exc.partial_count, exc.violations))
        out.append(verdict)
    return out


@pytest.mark.parametrize("name, params, refinement", [
    ("kuhn_poker", {}, "efpe"), ("kuhn_poker", {}, "qpe"),
    ("goofspiel", {"cards": 3}, "efpe"), ("goofspiel", {"cards": 3}, "qpe"),
])
def test_early_stop_keeps_the_stability_verdict(name, params, refinement):
    verdicts = _verdicts(lpgame.games.make(name, **params), refinement)
    assert any(full[0] == "stable" for full, _ in verdicts)
    for full, early in verdicts:
        assert full[0] == early[0]
        if full[0] == "stable":
            assert full == early                     # same series, same method
        else:
            assert not full[1]                       # the complete test counts every entry
            assert 1 <= early[2] <= full[2]          # the early one a lower bound


def test_exact_simplex_same_with_refactorisation_every_pivot(monkeypatch):
    """Eta updates against a fresh factorisation at every pivot: the same pivots, basis and exact
    values (Kuhn QPE at ξ = 2⁻²⁰ from the all-slack basis)."""
    tlp = refinement_lp(compile_game(lpgame.games.make("kuhn_poker")), "qpe", 1).tlp
    inst = exact_limit.exact_instance(tlp, Fraction(1, 2 ** 20))
    start = [inst.n + i for i in range(inst.m)]
    updated = exact_limit.exact_simplex_at(inst, start)
    monkeypatch.setattr(exact_limit, "REFACTOR_EVERY", 1)
    fresh = exact_limit.exact_simplex_at(inst, start)
    assert updated[3] > updated_factor.REFACTOR_EVERY // 4      # the etas were used
    assert updated == fresh
    assert np.isclose(float(sum(inst.cost[j] * x for j, x in zip(updated[0], updated[1]))),
                      float(sum(inst.cost[j] * x for j, x in zip(fresh[0], fresh[1]))))


@SETTINGS
@given(st.lists(st.lists(st.fractions(min_value=-50, max_value=50, max_denominator=9),
                         min_size=5, max_size=5), min_size=1, max_size=12))
def test_certified_epsilon_is_the_smallest_single_entry_bound(rows):
    """ε* of a polynomial t_B (the vectorised minimum over entries) against the per-entry bound
    a_m/(a_m + μ) (Farina 2023, Lemma 12.5 form) taken one entry at a time, and checked at ε*:
    every positive entry is still > 0 there (the bound's claim, evaluated exactly)."""
    from lpgame.equilibria.refinements.basis_stability import _certified_epsilon, _positive_on
    entries = np.array([[flint.fmpq(v.numerator, v.denominator) for v in row] for row in rows],
                       dtype=object)
    first = [next((v for v in row if v), 0) for row in rows]
    sign = np.array([(v > 0) - (v < 0) for v in first], dtype=np.int64)
    reference = [_positive_on(row) for row, s in zip(rows, sign) if s > 0
                 and sum(1 for v in row if v) > 1]
    expected = min(reference) if reference else Fraction(1)
    got = _certified_epsilon(entries, sign)
    assert got == expected and type(got) is Fraction
    for row, s in zip(rows, sign):
        if s > 0:
            assert sum(v * got ** k for k, v in enumerate(row)) > 0
