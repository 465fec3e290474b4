"""Trembling linear programs and their exact limit by the stable-basis test (Farina 2023, ch. 13).

A trembling LP (Def. 13.1, L5359 of the thesis; notes/farina-thesis.md §1.13) is

    P(ε):   opt  c(ε)ᵀz   s.t.   A(ε) z  (≤, =, ≥)  b(ε),   bounds on z,

with c, A, b polynomials in ε with rational coefficients, c(ε) = Σ_k ε^k c_k and so on. A
:class:`TremblingLP` holds the ε⁰ part as an ordinary :class:`~lpgame.lp.LinearProgram` (named
blocks, printable) and the higher powers as extra terms on the same blocks
(:meth:`TremblingLP.perturb_rows`, :meth:`TremblingLP.perturb_objective`); :meth:`TremblingLP.at`
instantiates P(ξ) for a number ξ.

**Stable basis** (Def. 13.7, Thm. 13.3, L5523–5567). A basis ℬ (basic columns B, tight rows N) is
stable when it is optimal on (0, ε̄] for some ε̄ > 0; then lim_{ε→0⁺} B(ε)⁻¹b(ε) exists and is a limit
solution of the TLP (Thm. 13.1/13.2). Optimality on an interval is the sign condition
t_ℬ(ε) ≥ 0 of Thm. 13.3 on: the basic primal values z_B(ε) (against their bounds), the activities of
the rows that are not tight, the row duals π(ε) = B(ε)⁻ᵀ c_B(ε) (sign by the row's sense) and the
reduced costs c(ε) − A(ε)ᵀπ(ε) of the nonbasic columns. :func:`certify_stable_basis` tests it in
exact rational arithmetic:

* when ε enters only b and c (the QPE and one-sided QPE programs), B is constant and every entry of
  t_ℬ is a *polynomial*: z_n = B⁻¹ b_n, π_n = B⁻ᵀ c_n. A polynomial p = Σ_{k≥m} a_k ε^k with
  a_m > 0 is positive on (0, a_m / (a_m + μ)], μ = max_{k>m} |a_k| (as in Lemma 12.5, L5155:
  p(ε)/ε^m ≥ a_m − μ ε/(1 − ε)). The basis is certified optimal on (0, ε*] with ε* the smallest of
  these bounds, stated exactly in the answer;
* when ε enters A (the EFPE program), z_B(ε) and π(ε) are rational functions; their Taylor
  coefficients at 0 come from one exact factorisation of B(0) (Lemma 13.1, L5707):
  B(0) z_n = b_n − Σ_{k≥1} B_k z_{n−k}. Each entry's sign near 0 is the sign of its first nonzero
  coefficient. Entries whose first ``terms`` coefficients all vanish are tested by an exact
  evaluation of the basis system at a rational point ε̃ (the random-evaluation test of L5746): zero
  there means identically zero (a nonzero rational function has finitely many roots), nonzero
  means more coefficients are computed. This proves optimality on some (0, ε̄] without stating ε̄.
  A singular B(0) is handled by the Laurent expansion of Lemma 13.3 (row reduction to
  B̃(ε) = S(ε)B(ε) with B̃(0) nonsingular); the limit must then still be finite.

The limit (§13.4.4) is the coefficient of ε⁰: z_0 and π_0. The test itself, :func:`certify_stable_basis`,
lives in :mod:`lpgame.lp.basis_stability` (exact arithmetic in python-flint, block triangular
factorisation of B(0)) and is re-exported here.

**The limit loop** (§13.4, Fig. 13.1, L5663–5810), :func:`solve_limit`: solve P(ξ) with HiGHS's
simplex, test its optimal basis; if it is not stable, shrink ξ (warm start from the last basis) and
retry. ξ starts at 2⁻³ and halves down to 2⁻²⁰ ≈ 10⁻⁶, then shrinks by 2¹⁰ per step down to 2⁻⁶⁰;
from 2⁻²⁰ on HiGHS runs with its tightest feasibility tolerances. The thesis continued with GLOP in
MPFR arithmetic there; lpgame has no arbitrary-precision simplex, so a basis that never certifies
gives a labelled partial answer (:class:`LimitSolution` with ``stable=False``: the numeric solution
of P(ξ) at the smallest ξ reached). Every ξ is a power of two, exact in floating point.

The stability test computes in python-flint's exact rationals (:mod:`lpgame.lp.basis_stability`);
results are :class:`fractions.Fraction`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from lpgame.errors import ExactCheckError, LpgameError, SolverError, SolverTimeLimitError  # noqa: F401
from lpgame.lp import solve_lp
from lpgame.lp.basis_stability import NotStableError, StableBasis, certify_stable_basis
from lpgame.lp.exact import _solve_exactly, _SparseRational
from lpgame.lp.linear_program import LinearProgram
from lpgame.lp.solution import BASIS_BASIC, LPSolution
from lpgame.rational import RationalMatrix, as_rational, as_scipy, common_denominator

TIGHT_FROM = Fraction(1, 2 ** 20)
"""From this ξ on, HiGHS runs with its tightest feasibility tolerances."""

FALLBACK_SECONDS = 120.0
"""At most this long for the exact criss-cross fallback when no time limit is given (with one, the
fallback may use what is left of it)."""

TIGHT_TOLERANCES = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


def default_schedule() -> list[Fraction]:
    """ξ = 2⁻³, 2⁻⁴, ..., 2⁻²⁰, then 2⁻³⁰, 2⁻⁴⁰, 2⁻⁵⁰, 2⁻⁶⁰ (see module docstring)."""
    return [Fraction(1, 2 ** k) for k in list(range(3, 21)) + [30, 40, 50, 60]]


@dataclass
class _Term:
    kind: str            # "A", "b" or "c"
    power: int
    block: str           # constraint block (A, b) or variable block (c)
    var: str | None      # variable block of an A term
    data: object         # matrix (A) or vector (b, c)


class TremblingLP:
    """P(ε) = the LP ``base`` plus Σ_{k≥1} ε^k × the terms added (see module docstring)."""

    def __init__(self, base: LinearProgram):
        self.base = base
        self.terms: list[_Term] = []

    # ------------------------------------------------------------------ building
    def perturb_rows(self, block: str, power: int, terms=(), rhs=None) -> None:
        """Add ε^power · (Σ M·var) to the rows of constraint block ``block`` and ε^power · rhs to its
        right-hand side. ``terms`` are (variable block name, matrix) pairs."""
        if power < 1:
            raise LpgameError("perturbation powers start at 1 (the ε⁰ part is the base LP)")
        con = self.base.block(block)
        for var, matrix in terms:
            v = self.base.block(var)
            if matrix.shape != (con.size, v.size):
                raise LpgameError(f"trembling LP: ε^{power} term of {block!r} on {var!r} has shape "
                                  f"{matrix.shape}, expected {(con.size, v.size)}")
            self.terms.append(_Term("A", power, block, var, matrix))
        if rhs is not None:
            self.terms.append(_Term("b", power, block, None, list(rhs)))

    def perturb_objective(self, power: int, var: str, coefficients) -> None:
        """Add ε^power · coefficientsᵀ var to the objective."""
        if power < 1:
            raise LpgameError("perturbation powers start at 1 (the ε⁰ part is the base LP)")
        self.terms.append(_Term("c", power, var, None, list(coefficients)))

    @property
    def degree(self) -> dict[str, int]:
        """Highest power of ε in A, b and c."""
        out = {"A": 0, "b": 0, "c": 0}
        for t in self.terms:
            out[t.kind] = max(out[t.kind], t.power)
        return out

    # ------------------------------------------------------------------ instances
    def at(self, xi) -> LinearProgram:
        """P(ξ) as a LinearProgram with float data (ξ a number or Fraction)."""
        xi = float(xi)
        base = self.base
        lp = LinearProgram(name=f"{base.name} at ε = {xi:.3g}", description=base.description)
        for v in base.variables:
            lp.add_variables(v.name, v.size, v.lower, v.upper, v.labels)
        for con in base.constraints:
            terms = [(lp.block(v.name), as_scipy(m)) for v, m in con.terms]
            rhs = np.array([float(r) for r in con.rhs], dtype=float) if isinstance(con.rhs, list) \
                else np.asarray(con.rhs, dtype=float).copy()
            for t in self.terms:
                if t.block != con.name:
                    continue
                if t.kind == "A":
                    terms.append((lp.block(t.var), sp.csr_array(as_scipy(t.data) * xi ** t.power)))
                elif t.kind == "b":
                    rhs = rhs + xi ** t.power * np.array([float(r) for r in t.data])
            lp.add_constraints(con.name, terms, con.sense, rhs, con.labels)
        objective = [(lp.block(v.name), coef) for v, coef in base.objective]
        for t in self.terms:
            if t.kind == "c":
                objective.append((lp.block(t.block), xi ** t.power
                                  * np.array([float(c) for c in t.data])))
        lp.set_objective(objective, base.sense, base.objective_constant)
        return lp

    def exact_powers(self) -> dict[int, tuple[list[Fraction], RationalMatrix | None, list[Fraction]]]:
        """{k: (c_k, A_k, b_k)} in exact rationals over the assembled columns and rows (A_k None
        where ε^k does not enter A)."""
        c0, A0, senses, b0 = self.base.assemble_exact()
        out = {0: (c0, A0, b0)}
        n, m = self.base.num_cols, self.base.num_rows
        for k in sorted({t.power for t in self.terms}):
            c = [Fraction(0)] * n
            b = [Fraction(0)] * m
            blocks = []
            for t in self.terms:
                if t.power != k:
                    continue
                if t.kind == "c":
                    v = self.base.block(t.block)
                    for i, value in enumerate(t.data):
                        c[v.offset + i] += Fraction(value)
                elif t.kind == "b":
                    con = self.base.block(t.block)
                    for i, value in enumerate(t.data):
                        b[con.offset + i] += Fraction(value)
                else:
                    con, v = self.base.block(t.block), self.base.block(t.var)
                    blocks.append((as_rational(t.data), con.offset, v.offset))
            A = RationalMatrix.from_blocks((m, n), blocks) if blocks else None
            out[k] = (c, A, b)
        self._senses = senses
        return out


def solve_scaled(matrix: _SparseRational, rhs: list[Fraction], what: str) -> list[Fraction]:
    """The exact solution of ``matrix`` x = rhs, solved as ``matrix`` y = D·rhs with D the common
    denominator of rhs (integer right-hand side: y's denominators divide det(matrix) only, so the
    rational reconstruction of :mod:`lpgame.lp.exact` needs far fewer digits), x = y / D."""
    nums, den = common_denominator(rhs)
    if den == 1:
        return _solve_exactly(matrix, rhs, what)[0]
    y, _ = _solve_exactly(matrix, [Fraction(v) for v in nums.tolist()], what)
    return [v / den for v in y]


@dataclass
class LimitSolution:
    """What :func:`solve_limit` found: a certified stable basis, or a labelled partial answer."""

    stable: bool
    xi: Fraction                        # the ξ of the last P(ξ) solved (the smallest reached)
    solution: LPSolution                # HiGHS's solution of P(ξ)
    lp: LinearProgram                   # P(ξ)
    basis: StableBasis | None = None
    attempts: list[dict] = field(default_factory=list)
    seconds: dict = field(default_factory=dict)
    reason: str = ""
    how: str = "HiGHS simplex at ξ"   # or "criss-cross": the exact method from HiGHS's last basis


def solve_limit(tlp: TremblingLP, schedule: list[Fraction] | None = None,
                time_limit: float | None = None, terms: int | None = None,
                tight_always: bool = False, exact_fallback: bool = True,
                **solver_options) -> LimitSolution:
    """The limit loop of §13.4 (module docstring). ``terms``: Taylor coefficients computed first
    when ε enters A (:func:`certify_stable_basis`)."""
    start = time.perf_counter()
    schedule = schedule or default_schedule()
    attempts: list[dict] = []
    basis = None
    last = None
    solve_seconds = check_seconds = 0.0
    reason = ""
    verdicts: dict[bytes, StableBasis | str] = {}     # one exact test per distinct basis
    closest = None        # (violations, basis) of the basis nearest to stable, for the fallback
    for xi in schedule:
        left = None if time_limit is None else time_limit - (time.perf_counter() - start)
        if left is not None and left <= 0:
            reason = f"time limit {time_limit} s reached"
            break
        options = dict(solver_options)
        options["solver"] = "simplex"
        if left is not None:
            options["time_limit"] = left
        if xi <= TIGHT_FROM or tight_always:
            options["highs_options"] = {**options.get("highs_options", {}), **TIGHT_TOLERANCES}
        if basis is not None:
            options["starting_basis"] = basis
        lp = tlp.at(xi)
        try:
            solution = solve_lp(lp, **options)
        except SolverTimeLimitError:
            reason = f"time limit {time_limit} s reached while solving P({xi})"
            break
        except SolverError as exc:
            attempts.append({"xi": str(xi), "stable": False, "why": f"solver: {exc}"})
            continue
        solve_seconds += solution.seconds
        last = (xi, solution, lp)
        basis = (solution.col_basis, solution.row_basis) if solution.has_basis else None
        key = _basis_key(solution)
        t0 = time.perf_counter()
        if key not in verdicts:
            try:
                verdicts[key] = certify_stable_basis(tlp, solution, terms=terms)
            except NotStableError as exc:
                verdicts[key] = str(exc)
                if solution.has_basis and (closest is None or exc.violations < closest[0]):
                    closest = (exc.violations, solution, xi)
        check_seconds += time.perf_counter() - t0
        verdict = verdicts[key]
        if isinstance(verdict, str):
            attempts.append({"xi": str(xi), "stable": False, "why": verdict})
            continue
        attempts.append({"xi": str(xi), "stable": True})
        return LimitSolution(True, xi, solution, lp, verdict, attempts,
                             {"solve": solve_seconds, "stability": check_seconds,
                              "total": time.perf_counter() - start})
    if last is None:
        why = reason or "every solve failed"
        raise SolverTimeLimitError(f"trembling LP {tlp.base.name!r}: no P(ξ) was solved ({why})")
    xi, solution, lp = last
    if not reason and exact_fallback and closest is not None and tlp.degree["A"] == 0:
        # floating point could not resolve the small ξ: the exact criss-cross method over ℚ(ε)
        # from the basis with the fewest wrong signs (lpgame.lp.lexicographic)
        from lpgame.lp.lexicographic import CrissCrossError, lexicographic_criss_cross
        _, start_solution, start_xi = closest
        left = FALLBACK_SECONDS if time_limit is None else \
            time_limit - (time.perf_counter() - start)
        t0 = time.perf_counter()
        where = f"criss-cross over Q(eps) from the basis found at {start_xi}"
        try:
            cols, rows, pivots = lexicographic_criss_cross(
                tlp, start_solution.col_basis, start_solution.row_basis, time_limit=left)
            exact_basis = LPSolution(start_solution.lp, start_solution.backend,
                                     "optimal over Q(eps) (criss-cross)", start_solution.objective,
                                     start_solution.col_values, start_solution.row_duals, cols, rows,
                                     start_solution.seconds, dict(start_solution.info))
            stable = certify_stable_basis(tlp, exact_basis, terms=terms)
            check_seconds += time.perf_counter() - t0
            attempts.append({"xi": where, "stable": True, "pivots": pivots})
            return LimitSolution(True, start_xi, exact_basis, lp, stable, attempts,
                                 {"solve": solve_seconds, "stability": check_seconds,
                                  "total": time.perf_counter() - start}, how="criss-cross")
        except (CrissCrossError, NotStableError) as exc:
            check_seconds += time.perf_counter() - t0
            attempts.append({"xi": where, "stable": False, "why": str(exc)})
            reason = f"the exact criss-cross method failed too ({exc})"
    return LimitSolution(False, xi, solution, lp, None, attempts,
                         {"solve": solve_seconds, "stability": check_seconds,
                          "total": time.perf_counter() - start},
                         reason or f"no basis was certified stable down to ξ = {schedule[-1]}")


def _basis_key(solution: LPSolution) -> bytes:
    if not solution.has_basis:
        return b""
    return (np.asarray(solution.col_basis) == BASIS_BASIC).tobytes() + \
        (np.asarray(solution.row_basis) == BASIS_BASIC).tobytes()


def exact_log2(value: Fraction) -> float:
    """log₂ of a positive Fraction (for printing ξ as a power of two)."""
    return math.log2(value.numerator) - math.log2(value.denominator)
