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
lives in :mod:`lpgame.equilibria.refinements.basis_stability` (exact arithmetic in python-flint, block
triangular factorisation of B(0)) and is re-exported here.

**The limit loop** (§13.4, Fig. 13.1, L5663–5810), :func:`solve_limit`: solve P(ξ) with HiGHS's
simplex, test its optimal basis; if it is not stable, shrink ξ (warm start from the last basis) and
retry. ξ starts at 2⁻³ and halves down to 2⁻²⁰ ≈ 10⁻⁶, then shrinks by 2¹⁰ per step down to 2⁻⁶⁰;
from 2⁻²⁰ on HiGHS runs with its tightest feasibility tolerances. Every ξ is a power of two, exact
in floating point. Where no HiGHS basis is stable (floating point cannot see the ε³–ε⁴ terms of
Leduc's QPE program at small ξ), the loop goes on exactly, in two stages:

1. **the exact simplex at a fixed rational ξ** (:mod:`lpgame.equilibria.refinements.exact_limit`), the exact
   counterpart of the thesis's GLOP-MPFR stage (L5813: 10⁻³ down to 10⁻³⁰): for ξ = 2⁻¹⁰, 2⁻²⁰,
   2⁻³⁰, 2⁻⁴⁰, 2⁻⁶⁰, 2⁻⁸⁰, 2⁻¹⁰⁰, exact primal simplex pivots on P(ξ) (rational data) from the
   start with the fewest exact infeasibilities among HiGHS's basis at ξ, the exact optimum at the
   previous ξ and, first, the HiGHS basis nearest to stable; each exact optimal basis goes to
   :func:`certify_stable_basis`. By Thm. 13.4 (L5577) every optimal basis of P(ξ) is stable for
   ξ small enough, so the stage ends; on Leduc at ξ = 2⁻²⁰ (the thesis: 10⁻⁶);
2. **the criss-cross method over ℚ(ε)** (:mod:`lpgame.equilibria.refinements.lexicographic`), the thesis's
   "rational simplex as a last resort", for QPE and one-sided QPE (ε in b and c only).

A basis that is never certified (time limit, or neither stage succeeds) gives a labelled partial
answer (:class:`LimitSolution` with ``stable=False``: the solution of P(ξ) at the smallest ξ
reached, the exact stage's optimum there when it ran). Without a time limit the exact stage has
:data:`EXACT_SECONDS` and the criss-cross method :data:`FALLBACK_SECONDS`.

The stability test computes in python-flint's exact rationals
(:mod:`lpgame.equilibria.refinements.basis_stability`); results are :class:`fractions.Fraction`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from lpgame.equilibria.refinements.basis_stability import NotStableError, StableBasis, certify_stable_basis
from lpgame.equilibria.refinements.exact_limit import (
    EXACT_SCHEDULE,
    ExactSimplexError,
    exact_instance,
    exact_simplex_at,
    exact_solution,
    infeasibilities,
    statuses_to_basis,
)
from lpgame.equilibria.refinements.lexicographic import CrissCrossError, lexicographic_criss_cross
from lpgame.errors import ExactCheckError, LpgameError, SolverError, SolverTimeLimitError  # noqa: F401
from lpgame.lp import solve_lp
from lpgame.lp.linear_program import LinearProgram
from lpgame.lp.solution import BASIS_BASIC, LPSolution
from lpgame.rational import RationalMatrix, as_rational, as_scipy

TIGHT_FROM = Fraction(1, 2 ** 20)
"""From this ξ on, HiGHS runs with its tightest feasibility tolerances."""

FALLBACK_SECONDS = 120.0
"""At most this long for the exact criss-cross fallback when no time limit is given (with one, the
fallback may use what is left of it)."""

EXACT_SECONDS = 300.0
"""At most this long for the exact stage (exact simplex at fixed ξ) when no time limit is given."""

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
    floats: np.ndarray | None = None    # a vector's data as floats, once


def _floats(term: _Term) -> np.ndarray:
    """A b or c term's vector as floats (converted once: P(ξ) is built for every ξ)."""
    if term.floats is None:
        term.floats = np.array([float(v) for v in term.data], dtype=float)
    return term.floats


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
                    rhs = rhs + xi ** t.power * _floats(t)
            lp.add_constraints(con.name, terms, con.sense, rhs, con.labels)
        objective = [(lp.block(v.name), coef) for v, coef in base.objective]
        for t in self.terms:
            if t.kind == "c":
                objective.append((lp.block(t.block), xi ** t.power * _floats(t)))
        lp.set_objective(objective, base.sense, base.objective_constant)
        return lp

    def exact_powers(self) -> dict[int, tuple[list[Fraction], RationalMatrix | None, list[Fraction]]]:
        """{k: (c_k, A_k, b_k)} in exact rationals over the assembled columns and rows (A_k None
        where ε^k does not enter A), computed once per set of terms (treat them as read-only)."""
        cached = getattr(self, "_powers", None)
        if cached is not None and cached[0] == len(self.terms):
            return cached[1]
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
        self._powers = (len(self.terms), out)
        return out


@dataclass
class LimitSolution:
    """What :func:`solve_limit` found: a certified stable basis, or a labelled partial answer."""

    stable: bool
    xi: Fraction                        # the ξ of the last P(ξ) solved (the smallest reached)
    solution: LPSolution                # the solution of P(ξ): HiGHS's, or the exact one at ξ
    lp: LinearProgram                   # P(ξ)
    basis: StableBasis | None = None
    attempts: list[dict] = field(default_factory=list)
    seconds: dict = field(default_factory=dict)
    reason: str = ""
    how: str = "HiGHS simplex at ξ"   # or EXACT_HOW, or "criss-cross" (the last resort)


EXACT_HOW = "exact simplex at ξ"
"""``LimitSolution.how`` when the stable basis came from the exact simplex at a fixed ξ."""

FALLBACKS = (True, False, "simplex", "criss-cross")
"""``exact_fallback`` of :func:`solve_limit`: True (the exact simplex at fixed ξ, then the
criss-cross method), "simplex" (the first only), "criss-cross" (the second only), False (none)."""


def solve_limit(tlp: TremblingLP, schedule: list[Fraction] | None = None,
                time_limit: float | None = None, terms: int | None = None,
                tight_always: bool = False, exact_fallback: bool | str = True,
                exact_schedule: list[Fraction] | None = None,
                **solver_options) -> LimitSolution:
    """The limit loop of §13.4 (module docstring). ``terms``: Taylor coefficients computed first
    when ε enters A (:func:`certify_stable_basis`). ``exact_fallback``: see :data:`FALLBACKS`;
    ``exact_schedule``: the ξ of the exact stage (default
    :data:`lpgame.equilibria.refinements.exact_limit.EXACT_SCHEDULE`)."""
    if exact_fallback not in FALLBACKS:
        raise LpgameError(f"exact_fallback must be one of {FALLBACKS}, not {exact_fallback!r}")
    start = time.perf_counter()
    schedule = schedule or default_schedule()
    attempts: list[dict] = []
    basis = None
    last = None
    solve_seconds = check_seconds = 0.0
    reason = ""
    verdicts: dict[bytes, StableBasis | str] = {}     # one exact test per distinct basis
    unstable = []         # (key, solution, ξ) of the bases found not stable, in order
    solved: dict[Fraction, LPSolution] = {}           # HiGHS's solutions, for the exact stage
    terms = [terms]                                   # Taylor terms; None after an overflow
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
        solved[xi] = solution
        basis = (solution.col_basis, solution.row_basis) if solution.has_basis else None
        key = _basis_key(solution)
        t0 = time.perf_counter()
        if key not in verdicts:
            verdicts[key] = _verdict(tlp, solution, terms, early=True)
            if getattr(verdicts[key], "violations", None) is not None and solution.has_basis:
                unstable.append((key, solution, xi))
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
    t0 = time.perf_counter()
    closest = _closest(tlp, unstable, verdicts, terms) \
        if exact_fallback and not reason.startswith("time limit") else None
    check_seconds += time.perf_counter() - t0
    seconds = {"solve": solve_seconds, "stability": check_seconds}
    if not reason and exact_fallback in (True, "simplex") and solved:
        # floating point could not resolve the small ξ: exact simplex pivots at fixed rational ξ
        # (lpgame.equilibria.refinements.exact_limit), the exact counterpart of the thesis's GLOP-MPFR stage
        deadline = start + time_limit if time_limit is not None else \
            time.perf_counter() + EXACT_SECONDS
        found, partial, reason = _exact_stage(tlp, exact_schedule, solved, closest, verdicts,
                                              deadline, terms, attempts, seconds)
        if found is not None:
            exact_xi, exact_solution, exact_lp, stable = found
            seconds["total"] = time.perf_counter() - start
            return LimitSolution(True, exact_xi, exact_solution, exact_lp, stable, attempts,
                                 seconds, how=EXACT_HOW)
        if partial is not None:
            xi, solution, lp = partial
        if reason.startswith("time limit"):
            reason = f"{reason} (time limit {time_limit} s)" if time_limit is not None else \
                f"{reason} (the exact stage's {EXACT_SECONDS:g} s)"
    timed_out = reason.startswith("time limit") and time_limit is not None
    if not timed_out and exact_fallback in (True, "criss-cross") and closest is not None \
            and tlp.degree["A"] == 0:
        # the last resort: the exact criss-cross method over ℚ(ε)
        # (lpgame.equilibria.refinements.lexicographic) from the HiGHS basis with the fewest wrong signs
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
            stable = certify_stable_basis(tlp, exact_basis, terms=terms[0])
            seconds["stability"] += time.perf_counter() - t0
            attempts.append({"xi": where, "stable": True, "pivots": pivots})
            seconds["total"] = time.perf_counter() - start
            return LimitSolution(True, start_xi, exact_basis, tlp.at(start_xi), stable, attempts,
                                 seconds, how="criss-cross")
        except (CrissCrossError, NotStableError) as exc:
            seconds["stability"] += time.perf_counter() - t0
            attempts.append({"xi": where, "stable": False, "why": str(exc)})
            reason = (f"{reason}; " if reason else "") + \
                f"the exact criss-cross method failed too ({exc})"
    seconds["total"] = time.perf_counter() - start
    return LimitSolution(False, xi, solution, lp, None, attempts, seconds,
                         reason or f"no basis was certified stable down to ξ = {schedule[-1]}")


def _exact_stage(tlp, exact_schedule, solved, closest, verdicts, deadline, terms, attempts,
                 seconds):
    """The exact stage of :func:`solve_limit` (module docstring;
    :mod:`lpgame.equilibria.refinements.exact_limit`): for each ξ, exact simplex pivots from the start with
    the fewest exact infeasibilities (HiGHS's basis at ξ, the exact optimum at the previous ξ, the HiGHS basis
    nearest to stable), then the stability test. Returns (found, partial, reason): found = (ξ, solution, P(ξ),
    StableBasis) or None; partial = (ξ, solution, P(ξ)) of the exact optimum at the smallest ξ reached."""
    previous = None
    partial = None
    reason = ""
    for xi in exact_schedule or EXACT_SCHEDULE:
        if time.perf_counter() > deadline:
            return None, partial, f"time limit reached in the exact stage before ξ = {xi}"
        t0 = time.perf_counter()
        inst = exact_instance(tlp, xi)
        lp = tlp.at(xi)
        starts = [("the exact optimum at the previous ξ", previous)] if previous else []
        highs = solved.get(xi)
        if highs is None:
            try:
                highs = solve_lp(lp, solver="simplex", highs_options=dict(TIGHT_TOLERANCES),
                                 time_limit=max(deadline - time.perf_counter(), 1.0))
                seconds["solve"] += highs.seconds
            except SolverError:
                highs = None
        if highs is not None and highs.has_basis:
            starts.append((f"HiGHS's basis at ξ = {xi}", (highs.col_basis, highs.row_basis)))
        if closest is not None and not previous:
            starts.append((f"HiGHS's basis nearest to stable (found at ξ = {closest[2]})",
                           (closest[1].col_basis, closest[1].row_basis)))
        best = None
        for name, statuses in starts:
            try:
                candidate = statuses if isinstance(statuses, list) else \
                    statuses_to_basis(inst, *statuses)
                count = sum(infeasibilities(inst, candidate))
            except (ExactSimplexError, ExactCheckError):
                continue
            if best is None or count < best[0]:
                best = (count, name, candidate)
            if count == 0:
                break
        if best is None:
            attempts.append({"xi": str(xi), "stable": False, "how": EXACT_HOW,
                             "why": "no starting basis is a basis in exact arithmetic"})
            continue
        try:
            found, x, pi, pivots = exact_simplex_at(inst, best[2], deadline=deadline)
        except ExactSimplexError as exc:
            seconds["exact_simplex"] = seconds.get("exact_simplex", 0.0) + time.perf_counter() - t0
            attempts.append({"xi": str(xi), "stable": False, "how": EXACT_HOW, "why": str(exc)})
            reason = f"the exact simplex at ξ = {xi} stopped: {exc}"
            if "time limit" in str(exc):
                return None, partial, f"time limit reached in the exact simplex at ξ = {xi}"
            continue
        solution = exact_solution(inst, lp, found, x, pi, pivots, time.perf_counter() - t0)
        seconds["exact_simplex"] = seconds.get("exact_simplex", 0.0) + time.perf_counter() - t0
        previous = found
        partial = (xi, solution, lp)
        key = _basis_key(solution)
        t1 = time.perf_counter()
        if key not in verdicts:
            verdicts[key] = _verdict(tlp, solution, terms, early=True)
        seconds["stability"] += time.perf_counter() - t1
        verdict = verdicts[key]
        record = {"xi": str(xi), "how": EXACT_HOW, "start": best[1], "pivots": pivots}
        if isinstance(verdict, str):
            attempts.append({**record, "stable": False, "why": verdict})
            reason = f"no exact optimal basis was certified stable down to ξ = {xi}"
            continue
        attempts.append({**record, "stable": True})
        return (xi, solution, lp, verdict), partial, ""
    return None, partial, reason


class _Unstable(str):
    """A verdict: why a basis is not (or could not be shown) stable, with the count of wrong signs
    (None when the test could not decide)."""

    violations: int | None = None
    partial_count: bool = False


def _closest(tlp: TremblingLP, unstable: list, verdicts: dict, terms: list):
    """(violations, solution, ξ) of the first basis with the fewest entries of the wrong sign, for
    the exact stage. A verdict that stopped at its first wrong sign (``early``) holds a lower
    bound of its count; bases are completed in the order of their lower bounds, until the
    smallest complete count is below every bound left, so the choice is the one the complete
    counts give (the first basis with the fewest)."""
    found = [(verdicts[key].violations, index) for index, (key, _, _) in enumerate(unstable)
             if getattr(verdicts[key], "violations", None) is not None]
    best = None                                   # (count, index)
    for bound, index in sorted(found):
        if best is not None and bound > best[0]:
            break
        key, solution, _ = unstable[index]
        if getattr(verdicts[key], "partial_count", False):
            verdicts[key] = _verdict(tlp, solution, terms)
        count = getattr(verdicts[key], "violations", None)
        if count is not None and (best is None or (count, index) < best):
            best = (count, index)
    if best is None:
        return None
    _, solution, xi = unstable[best[1]]
    return best[0], solution, xi


def _verdict(tlp: TremblingLP, solution: LPSolution, terms: list,
             early: bool = False) -> StableBasis | _Unstable:
    """:func:`certify_stable_basis`, its refusal as a string. Where ``terms[0]`` Taylor
    coefficients grow past what floats can hold inside the exact solver (OverflowError; seen on
    Leduc EFPE with 2·depth + 4 terms), the test is repeated with its default count (it adds terms
    itself when entries stay undecided), and ``terms[0]`` becomes that default for the bases that
    follow; an overflow then counts as undecided, not as a crash."""
    try:
        try:
            return certify_stable_basis(tlp, solution, terms=terms[0], early=early)
        except OverflowError:
            if terms[0] is None:
                raise
            terms[0] = None
            return certify_stable_basis(tlp, solution, early=early)
    except NotStableError as exc:
        out = _Unstable(str(exc))
        out.violations = exc.violations
        out.partial_count = exc.partial_count
        return out
    except (OverflowError, ExactCheckError) as exc:
        return _Unstable(f"the stability test could not decide ({type(exc).__name__}: {exc})")


def _basis_key(solution: LPSolution) -> bytes:
    if not solution.has_basis:
        return b""
    return (np.asarray(solution.col_basis) == BASIS_BASIC).tobytes() + \
        (np.asarray(solution.row_basis) == BASIS_BASIC).tobytes()


def exact_log2(value: Fraction) -> float:
    """log₂ of a positive Fraction (for printing ξ as a power of two)."""
    return math.log2(value.numerator) - math.log2(value.denominator)
