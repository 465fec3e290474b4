"""The exact stability test of a trembling LP's basis: Laurent series (Lemma 13.3) and the flint solver.

References used here, none of them lpgame's series code:
* Farina 2023, Example 13.1 (notes/farina-thesis.md §1.13 and §3.1): B(ε) = [[2, 2], [1−ε², 1+ε−ε²]],
  det B = 2ε, and the reduced matrix M̃(ε) = [[2, 2], [−ε, 1−ε]]; B(ε)⁻¹ written out by hand below
  (adjugate over the determinant);
* Cramer's rule over polynomials with Fractions, written in this file: z_i(ε) = det B_i(ε)/det B(ε),
  expanded as a Laurent series by long division; checked against an exact Gaussian elimination at
  several rational ε;
* a catalog game whose EFPE basis has a singular B(0) (Dudo with one die each): the limit must be a
  Nash equilibrium with NashConv exactly 0 (lpgame's independent best responses) and pass the
  EFPE check on the tree (lpgame.analysis.refinement_checks), and B(0) is shown singular by
  python-flint's rank.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import flint
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import lpgame
from lpgame.compile import compile_game
from lpgame.equilibria.refinements.basis_stability import NotStableError, certify_stable_basis
from lpgame.equilibria.refinements.exact_sparse_factor import ExactFactor, SparseQ, to_fractions
from lpgame.equilibria.refinements.laurent_series import LaurentSolver, laurent_solve
from lpgame.equilibria.refinements.limit import TremblingLP, solve_limit
from lpgame.equilibria.refinements.perturbed_lp import efpe_lp, sequence_depths
from lpgame.equilibria.refinements.refined_equilibrium import solve_refinement
from lpgame.lp import solve_lp
from lpgame.lp.linear_program import LinearProgram
from lpgame.lp.solution import BASIS_BASIC

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])

F = Fraction


# ------------------------------------------------------------------ polynomial helpers (reference)
def padd(a, b):
    out = [F(0)] * max(len(a), len(b))
    for i, v in enumerate(a):
        out[i] += v
    for i, v in enumerate(b):
        out[i] += v
    return out


def pmul(a, b):
    out = [F(0)] * (len(a) + len(b) - 1 if a and b else 0)
    for i, u in enumerate(a):
        for j, v in enumerate(b):
            out[i + j] += u * v
    return out


def pdet(matrix):
    """Determinant of a matrix of polynomials (Leibniz; n ≤ 4)."""
    n = len(matrix)
    total = [F(0)]
    for perm in itertools.permutations(range(n)):
        sign = 1
        for i in range(n):
            for j in range(i + 1, n):
                if perm[i] > perm[j]:
                    sign = -sign
        term = [F(sign)]
        for i in range(n):
            term = pmul(term, matrix[i][perm[i]])
        total = padd(total, term)
    return total


def laurent_quotient(num, den, low, high):
    """Coefficients of ε^low .. ε^high of num(ε)/den(ε) (den ≢ 0), by long division."""
    v = next(k for k, d in enumerate(den) if d)
    d = den[v:]
    # num/den = ε^{-v} · num/d, d(0) ≠ 0
    q = []
    rem = list(num) + [F(0)] * (high + v + 1)
    for k in range(high + v + 1):
        c = rem[k] / d[0]
        q.append(c)
        for j, dj in enumerate(d):
            if k + j < len(rem):
                rem[k + j] -= c * dj
    return {n: (q[n + v] if 0 <= n + v < len(q) else F(0)) for n in range(low, high + 1)}


def pencil_matrix(parts, n):
    """parts[k][i][j] → matrix of polynomials."""
    return [[[F(parts[k][i][j]) for k in range(len(parts))] for j in range(n)] for i in range(n)]


def cramer_series(parts, rhs, low, high):
    n = len(parts[0])
    matrix = pencil_matrix(parts, n)
    b = [[F(rhs[k][i]) if k < len(rhs) else F(0) for k in range(len(rhs))] for i in range(n)]
    det = pdet(matrix)
    out = {k: [None] * n for k in range(low, high + 1)}
    for i in range(n):
        replaced = [[b[r] if c == i else matrix[r][c] for c in range(n)] for r in range(n)]
        series = laurent_quotient(pdet(replaced), det, low, high)
        for k in range(low, high + 1):
            out[k][i] = series[k]
    return out


def evaluate(poly, eps):
    return sum((c * eps ** k for k, c in enumerate(poly)), F(0))


def gauss_solve(a, b):
    """Exact Gaussian elimination (Fractions)."""
    n = len(a)
    m = [list(map(F, row)) + [F(v)] for row, v in zip(a, b)]
    for c in range(n):
        p = next(r for r in range(c, n) if m[r][c])
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c and m[r][c]:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


# ------------------------------------------------------------------ Example 13.1
EXAMPLE_13_1 = [[[2, 2], [1, 1]], [[0, 0], [0, 1]], [[0, 0], [-1, -1]]]   # B_0, B_1, B_2


def test_example_13_1_laurent_coefficients_by_hand():
    """B(ε)⁻¹ = 1/(2ε) · [[1+ε−ε², −2], [−1+ε², 2]] (adjugate / det, det = 2ε)."""
    first = laurent_solve(EXAMPLE_13_1, [[1, 0]])      # B⁻¹ e₁ = (1+ε−ε², −1+ε²)/(2ε)
    assert min(first) == -1
    assert first[-1] == [F(1, 2), F(-1, 2)]
    assert first[0] == [F(1, 2), F(0)]
    assert first[1] == [F(-1, 2), F(1, 2)]
    assert all(first[k] == [0, 0] for k in first if k >= 2)
    second = laurent_solve(EXAMPLE_13_1, [[0, 1]])     # B⁻¹ e₂ = (−2, 2)/(2ε)
    assert second[-1] == [F(-1), F(1)]
    assert all(second[k] == [0, 0] for k in second if k >= 0)
    # b(ε) = (2, 1 + ε − ε²) = B(ε)·(0, 1): the pole cancels, z ≡ (0, 1)
    exact = laurent_solve(EXAMPLE_13_1, [[2, 1], [0, 1], [0, -1]])
    assert exact[-1] == [0, 0] and exact[0] == [0, 1] and all(exact[k] == [0, 0] for k in exact if k > 0)


def test_example_13_1_reduction_is_the_thesis_m_tilde():
    """Lemma 13.3: B(ε) = ε T⁻¹(ε) M̃(ε) with M̃(ε) = [[2, 2], [−ε, 1−ε]] (Example 13.2, L5795)."""
    parts = {k: SparseQ.from_dict((2, 2), {(i, j): flint.fmpq(v) for i, row in enumerate(d)
                                           for j, v in enumerate(row) if v})
             for k, d in enumerate(EXAMPLE_13_1)}
    solver = LaurentSolver(parts)
    assert solver.pole_order == 1
    dense = {k: [[F(0)] * 2 for _ in range(2)] for k in (0, 1, 2)}
    for k, p in solver.parts.items():
        for (i, j), v in p.to_dict().items():
            dense[k][i][j] = F(int(v.p), int(v.q))
    assert dense[0] == [[2, 2], [0, 1]]
    assert dense[1] == [[0, 0], [-1, -1]]
    assert dense[2] == [[0, 0], [0, 0]]
    # the dual series π = B⁻ᵀc against the hand inverse: B⁻ᵀ e₁ = (1+ε−ε², −2)/(2ε)
    c = {0: np.array([flint.fmpq(1), flint.fmpq(0)], dtype=object)}
    pi = {k: to_fractions(v) for k, v in solver.dual(c, 3).items()}
    assert pi[-1] == [F(1, 2), F(-1)] and pi[0] == [F(1, 2), 0] and pi[1] == [F(-1, 2), 0]
    assert pi[2] == [0, 0] and pi[3] == [0, 0]


# ------------------------------------------------------------------ random pencils (hypothesis)
@st.composite
def pencils(draw):
    """B(ε) = X · diag(ε^{d_i}) · Y + ε E (X, Y integer, often making B(0) singular), b(ε)."""
    n = draw(st.integers(1, 3))
    small = st.integers(-3, 3)
    X = [[draw(small) for _ in range(n)] for _ in range(n)]
    Y = [[draw(small) for _ in range(n)] for _ in range(n)]
    d = [draw(st.integers(0, 2)) for _ in range(n)]
    E = [[draw(st.integers(-2, 2)) for _ in range(n)] for _ in range(n)]
    degree = 3
    parts = [[[F(0)] * n for _ in range(n)] for _ in range(degree)]
    for i, j, t in itertools.product(range(n), range(n), range(n)):
        parts[d[t]][i][j] += X[i][t] * Y[t][j]
    for i, j in itertools.product(range(n), range(n)):
        parts[1][i][j] += E[i][j]
    rhs = [[draw(small) for _ in range(n)] for _ in range(draw(st.integers(1, 3)))]
    return parts, rhs


@SETTINGS
@given(pencils())
def test_random_pencils_match_cramers_rule_and_exact_solves(case):
    parts, rhs = case
    n = len(parts[0])
    det = pdet(pencil_matrix(parts, n))
    assume(any(det))                                   # a regular pencil
    z = laurent_solve(parts, rhs)
    low, high = min(z), max(z)
    reference = cramer_series(parts, rhs, low - 2, high)
    for k in range(low - 2, low):
        assert all(v == 0 for v in reference[k])      # the pole is no deeper than reported
    for k in range(low, high + 1):
        assert z[k] == reference[k], (k, z[k], reference[k])
    # the reference itself against an exact elimination at small rational ε
    for eps in (F(1, 7), F(1, 1000), F(3, 10 ** 6)):
        a = [[evaluate([parts[k][i][j] for k in range(len(parts))], eps) for j in range(n)]
             for i in range(n)]
        if evaluate(det, eps) == 0:
            continue
        b = [evaluate([r[i] for r in rhs], eps) for i in range(n)]
        exact = gauss_solve(a, b)
        matrix = pencil_matrix(parts, n)
        bpoly = [[F(r[i]) for r in rhs] for i in range(n)]
        for i in range(n):
            replaced = [[bpoly[r] if c == i else matrix[r][c] for c in range(n)] for r in range(n)]
            assert exact[i] == evaluate(pdet(replaced), eps) / evaluate(det, eps)


@SETTINGS
@given(pencils())
def test_random_pencils_dual_series_is_the_transposed_solve(case):
    parts, rhs = case
    n = len(parts[0])
    assume(any(pdet(pencil_matrix(parts, n))))
    sparse = {k: SparseQ.from_dict((n, n), {(i, j): flint.fmpq(v.numerator, v.denominator)
                                            for i, row in enumerate(d) for j, v in enumerate(row) if v})
              for k, d in enumerate(parts)}
    sparse = {k: p for k, p in sparse.items() if p.nnz or k == 0}
    solver = LaurentSolver(sparse)
    c = {k: np.array([flint.fmpq(v) for v in r], dtype=object) for k, r in enumerate(rhs)}
    top = 4
    pi = {k: to_fractions(v) for k, v in solver.dual(c, top).items()}
    transposed = [[[row[i] for row in d] for i in range(n)] for d in parts]
    low = min(pi)
    reference = cramer_series(transposed, rhs, low, top)
    for k in range(low, top + 1):
        assert pi[k] == reference[k]


def test_exact_factor_block_triangular_solves():
    """The block triangular solver against Gaussian elimination on a random sparse matrix."""
    rng = random.Random(3)
    n = 40
    entries = {(i, i): flint.fmpq(rng.choice([1, 2, -3])) for i in range(n)}
    for _ in range(60):
        i, j = rng.randrange(n), rng.randrange(n)
        entries[(i, j)] = flint.fmpq(rng.randint(-5, 5), rng.randint(1, 4))
    matrix = SparseQ.from_dict((n, n), entries)
    dense = [[F(0)] * n for _ in range(n)]
    for (i, j), v in matrix.to_dict().items():
        dense[i][j] = F(int(v.p), int(v.q))
    b = [F(rng.randint(-9, 9), rng.randint(1, 5)) for _ in range(n)]
    factor = ExactFactor(matrix)
    x = to_fractions(factor.solve(np.array([flint.fmpq(v.numerator, v.denominator) for v in b],
                                           dtype=object)))
    assert x == gauss_solve(dense, b)
    y = to_fractions(factor.solve_t(np.array([flint.fmpq(v.numerator, v.denominator) for v in b],
                                             dtype=object)))
    assert y == gauss_solve([list(r) for r in zip(*dense)], b)


# ------------------------------------------------------------------ trembling LPs
def test_a_basis_whose_solution_has_a_pole_is_not_stable():
    """x₁ + x₂ = 1, x₁ + (1+ε)x₂ = 0: x₂ = −1/ε. The basis is optimal at every ε > 0 (the
    objective is 0) but its solution has no limit; the test must say so, not return a limit."""
    lp = LinearProgram(name="pole")
    x = lp.add_variables("x", 2, lower=-np.inf)
    lp.add_constraints("rows", [(x, np.array([[1.0, 1.0], [1.0, 1.0]]))], "==", [1, 0])
    lp.set_objective([(x, np.zeros(2))], "max")
    tlp = TremblingLP(lp)
    tlp.perturb_rows("rows", 1, [("x", np.array([[0.0, 0.0], [0.0, 1.0]]))])
    solution = solve_lp(tlp.at(F(1, 8)), solver="simplex")
    with pytest.raises(NotStableError, match="pole"):
        certify_stable_basis(tlp, solution)


def test_efpe_with_singular_basis_matrix_at_zero_is_certified_exactly():
    """Dudo, one die each (K=3): the stable EFPE basis has a singular B(0), certified by the
    Laurent expansion; the limit is a Nash equilibrium (NashConv exactly 0) that passes the
    independent EFPE check on the tree."""
    game = lpgame.games.make("dudo")
    sf = compile_game(game)
    rl = efpe_lp(sf)
    depth = max(int(sequence_depths(sf, i).max()) for i in range(2))
    limit = solve_limit(rl.tlp, terms=2 * depth + 4)
    assert limit.stable and limit.basis.pole_order >= 1
    # B(0) of that basis is singular (independently: flint's rank of the dense matrix)
    _, A0, _, _ = rl.tlp.base.assemble_exact()
    basic = np.flatnonzero(limit.solution.col_basis == BASIS_BASIC).tolist()
    tight = np.flatnonzero(limit.solution.row_basis != BASIS_BASIC).tolist()
    rpos, cpos = {r: i for i, r in enumerate(tight)}, {c: j for j, c in enumerate(basic)}
    dense = flint.fmpq_mat(len(tight), len(basic))
    for r, c, v in zip(A0.rows.tolist(), A0.cols.tolist(), A0.data):
        if r in rpos and c in cpos:
            dense[rpos[r], cpos[c]] = flint.fmpq(v.numerator, v.denominator)
    assert dense.rank() < len(tight)
    result = solve_refinement(game, "efpe")
    info = result.extra["refinement"]
    assert result.exact and info["status"] == "certified"
    assert "Laurent" in info["epsilon"]["method"] and info["epsilon"]["expansion"] == "Laurent"
    report = str(result)
    assert "Laurent" in report and "Taylor test" not in report
    assert result.certificate.nash_conv == 0
    assert result.certificate.extra["refinement_property"] == "passed"
    assert all(c["passed"] for c in info["checks"]) and info["witness_problems"] == []


@pytest.mark.slow
def test_leduc_efpe_is_certified_exactly():
    """Leduc L2232 (two bets, three ranks, two suits): the EFPE was a partial answer while the
    exact test used float LU and rational reconstruction; now certified, with NashConv exactly 0,
    the EFPE check passed, and the value of the exact Nash LP."""
    game = lpgame.games.make("leduc_poker", bets=2, ranks=3, suits=2)
    result = solve_refinement(game, "efpe")
    info = result.extra["refinement"]
    assert result.exact and info["status"] == "certified"
    assert result.certificate.nash_conv == 0
    assert all(c["passed"] for c in info["checks"]) and info["witness_problems"] == []
    assert result.value == lpgame.solve(game, exact=True).value
