"""The strong Stackelberg value by one LP per follower pure strategy, each LP's optimum proven by a
dual solution checked against the data: the bound that certifies the leader's optimality.

**Formulation** (Conitzer & Sandholm, "Computing the optimal strategy to commit to", EC 2006). With
leader payoffs A and follower payoffs B (rows: the leader's pure strategies s, or the reduced plans
of an extensive game; columns: the follower's pure strategies or reduced plans t), for each t

    V_t = max_x  Σ_s x_s A[s, t]   s.t.   Σ_s x_s (B[s, t'] − B[s, t]) ≤ 0  ∀ t',
                                          Σ_s x_s = 1,  x ≥ 0,                                [LP_t]

and the strong Stackelberg value is V* = max_t V_t over the feasible LP_t. It is attained (the
commitment of the best LP_t with its reply t, a best response that the leader's tie-break
selects), and nothing does better: whatever x the leader commits to, the follower's reply t is a
best response to x, so x is feasible in LP_t and earns at most V_t. For an extensive game with
perfect recall, the realization plans of the leader are exactly the mixtures of its reduced plans
(Kuhn 1953; Koller, Megiddo & von Stengel 1996), and a follower's reduced plan is a best response
to a realization plan exactly when it is one in the reduced normal form, so V* on the reduced
normal form is the value of committing to a realization plan: the concept that
:mod:`lpgame.equilibria.general_sum.stackelberg`'s sequence-form MILP (Bošanský & Čermák, AAAI
2015) solves. This module builds that reduced normal form from the plans
(:func:`lpgame.equilibria.correlated.reduced_plans.enumerate_reduced_plans`), not from the MILP.

**Proof of each V_t** (weak duality, e.g. Chvátal, *Linear Programming*, 1983, ch. 5):

* exact mode: LP_t's optimal basis is certified in rational arithmetic
  (:func:`lpgame.lp.solve_lp_exact`: primal feasibility, dual feasibility and equal primal and dual
  objectives are checked exactly against the LP's data), so V_t is proven. An LP_t the solver
  calls infeasible is proven infeasible by the auxiliary LP

      ε_t = min_{x ∈ Δ} max_{t'} Σ_s x_s (B[s, t'] − B[s, t])                               [AUX_t]

  (min ε s.t. Σ_s x_s (B[s, t'] − B[s, t]) − ε ≤ 0 ∀ t', Σ x = 1, x ≥ 0), certified the same way:
  ε_t > 0 means that no commitment makes t a best response.
* floating-point mode: the row duals HiGHS returns are checked against the data by
  :func:`lpgame.lp.dual_bound.weak_duality_bound` (x ≤ 1 is implied by the simplex), which bounds
  V_t whatever the duals' accuracy. An LP_t called infeasible is excluded when AUX_t's
  weak-duality lower bound exceeds :data:`FEASIBILITY_TOLERANCE` (payoffs in unit range);
  otherwise its bound is the trivial max_s A[s, t].

The bound is the largest of these. The answer is *optimal* when the bound meets its value within
:data:`OPTIMALITY_TOLERANCE` times the leader's payoff range (exactly, in exact mode).

**Scaling** (:mod:`lpgame.lp.scaling`): the LPs see A' = (A − c_A)/s_A and B' = (B − c_B)/s_B,
entries in [−1, 1] (only B's differences enter LP_t, so its shift is immaterial), and
V_t = s_A V'_t + c_A. Floating-point LPs run at HiGHS's tightest feasibility tolerances
(:data:`lpgame.lp.TIGHT_TOLERANCES`), so that the follower's gain against the commitment is at most
about 1e-10 of its payoff range.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from lpgame.errors import ExactCheckError, ModelTooLargeError, SolverError
from lpgame.lp import TIGHT_TOLERANCES, solve_lp, solve_lp_exact
from lpgame.lp.dual_bound import weak_duality_bound
from lpgame.lp.linear_program import LinearProgram
from lpgame.lp.scaling import unit_range_scaling
from lpgame.rational import RationalMatrix
from lpgame.sequence_form import SequenceForm

OPTIMALITY_TOLERANCE = 1e-9
"""A floating-point answer is optimal when bound − value ≤ this × the leader's payoff range."""
FEASIBILITY_TOLERANCE = 1e-9
"""AUX_t's lower bound (unit-range payoffs) above which LP_t counts as infeasible in floats."""
CHECK_MAX_PROFILES = 20_000
"""Largest reduced normal form (leader plans × follower plans) on which an extensive game's
commitment is checked by the multiple LPs."""
CHECK_MAX_RESPONSES = 400
"""Most follower plans (one LP each) for that check."""


@dataclass
class ResponseBound:
    """LP_t's outcome: ``status`` "optimal", "infeasible" (proven) or "unresolved" (floats: HiGHS
    found no point and AUX_t did not prove infeasibility); value and bound in the game's units."""

    response: int
    status: str
    value: object = None
    bound: object = None
    commitment: object = None


@dataclass
class CommitmentBound:
    """The best LP_t (its reply, value, commitment over A's rows) and the bound max_t V_t."""

    best: int
    value: object
    commitment: object
    bound: object
    exact: bool
    responses: list[ResponseBound] = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> dict:
        count = {s: sum(r.status == s for r in self.responses)
                 for s in ("optimal", "infeasible", "unresolved")}
        return {"lps": len(self.responses), "feasible_responses": count["optimal"],
                "proven_infeasible": count["infeasible"], "unresolved": count["unresolved"],
                "bound": _json(self.bound), "lp_seconds": self.seconds,
                "values_per_response": [None if r.value is None else _json(r.value)
                                        for r in self.responses]}


def _json(value):
    return str(value) if isinstance(value, Fraction) else (None if value is None else float(value))


def _scaled(matrix, exact: bool):
    """(M', scaling) with M' = (M − c)/s in unit range (Fractions in exact mode)."""
    values = np.asarray(matrix, dtype=object if exact else float)
    lo, hi = (min(values.flat), max(values.flat)) if values.size else (0, 0)
    scaling = unit_range_scaling(lo, hi, exact=exact)
    if exact:
        shift, scale = Fraction(scaling.shift), Fraction(scaling.scale)
        return np.vectorize(lambda v: (Fraction(v) - shift) / scale, otypes=[object])(values), scaling
    return scaling.to_unit_array(values), scaling


def _gain_matrix(B, response: int, exact: bool):  # noqa: N803  (the docstring's B)
    """gain[t', s] = B[s, t'] − B[s, t] (the follower's gain from t' over t), as the LP's matrix."""
    gain = (B - B[:, [response]]).T
    if not exact:
        return sp.csr_array(gain.astype(float))
    rows, cols = np.nonzero(gain != 0)
    return RationalMatrix(gain.shape, rows, cols, [Fraction(v) for v in gain[rows, cols]])


def commitment_lp(leader_payoffs, follower_payoffs, response: int, exact: bool = False
                  ) -> LinearProgram:
    """LP_t of the module docstring for follower strategy ``response``: arrays with the leader's
    pure strategies as rows and the follower's as columns (Fractions in exact mode)."""
    A, B = np.asarray(leader_payoffs), np.asarray(follower_payoffs)
    m, n = A.shape
    lp = LinearProgram(name=f"commitment LP for follower strategy {response}",
                       description="Conitzer & Sandholm (EC 2006): the best commitment that makes "
                                   "the follower's strategy a best response")
    x = lp.add_variables("x", m, 0.0, np.inf)
    gain = _gain_matrix(B, response, exact)
    if exact:
        ones = RationalMatrix((1, m), np.zeros(m, dtype=np.int64), np.arange(m), [Fraction(1)] * m)
        lp.add_constraints("follower_best_response", [(x, gain)], "<=", [Fraction(0)] * n)
        lp.add_constraints("simplex", [(x, ones)], "==", [Fraction(1)])
        lp.set_objective([(x, [Fraction(v) for v in A[:, response]])], "max")
    else:
        lp.add_constraints("follower_best_response", [(x, gain)], "<=", 0.0)
        lp.add_constraints("simplex", [(x, sp.csr_array(np.ones((1, m))))], "==", 1.0)
        lp.set_objective([(x, A[:, response].astype(float))], "max")
    return lp


def regret_lp(follower_payoffs, response: int, exact: bool = False) -> LinearProgram:
    """AUX_t of the module docstring: the least largest gain any commitment leaves the follower
    over ``response``."""
    B = np.asarray(follower_payoffs)
    m, n = B.shape
    lp = LinearProgram(name=f"least follower gain over strategy {response}",
                       description="AUX_t: positive optimum = no commitment makes t a best response")
    x = lp.add_variables("x", m, 0.0, np.inf)
    eps = lp.add_variables("eps", 1, -np.inf, np.inf)
    gain = _gain_matrix(B, response, exact)
    if exact:
        minus = RationalMatrix((n, 1), np.arange(n), np.zeros(n, dtype=np.int64), [Fraction(-1)] * n)
        ones = RationalMatrix((1, m), np.zeros(m, dtype=np.int64), np.arange(m), [Fraction(1)] * m)
        lp.add_constraints("gain", [(x, gain), (eps, minus)], "<=", [Fraction(0)] * n)
        lp.add_constraints("simplex", [(x, ones)], "==", [Fraction(1)])
        lp.set_objective([(eps, [Fraction(1)])], "min")
    else:
        lp.add_constraints("gain", [(x, gain), (eps, sp.csr_array(-np.ones((n, 1))))], "<=", 0.0)
        lp.add_constraints("simplex", [(x, sp.csr_array(np.ones((1, m))))], "==", 1.0)
        lp.set_objective([(eps, np.ones(1))], "min")
    return lp


def _infeasible(error: SolverError) -> bool:
    return "infeasible" in (str(error.status or "") + str(error)).lower()


def _lp_options(options: dict, exact: bool) -> dict:
    out = {k: v for k, v in options.items() if k in ("time_limit", "threads", "solver")}
    if exact:
        out["solver"] = out.get("solver") or "simplex"
    else:
        out["highs_options"] = dict(TIGHT_TOLERANCES)
    return out


def _one_response(A, B, t: int, exact: bool, options: dict,  # noqa: N803  (A, B as above)
                  scale_a) -> tuple[ResponseBound, float]:
    """LP_t solved and proven (module docstring); values back in the game's units."""
    lp = commitment_lp(A, B, t, exact)
    seconds = 0.0
    try:
        if exact:
            solution, certified = solve_lp_exact(lp, backend="highs", **options)
            seconds += solution.seconds
            value = scale_a.from_unit(certified.objective)
            return ResponseBound(t, "optimal", value, value, certified.values(lp, "x")), seconds
        solution = solve_lp(lp, backend="highs", **options)
        seconds += solution.seconds
        m = A.shape[0]
        bound = weak_duality_bound(lp, solution.row_duals, np.zeros(m), np.ones(m))
        return ResponseBound(t, "optimal", scale_a.from_unit(solution.objective),
                             scale_a.from_unit(bound),
                             np.clip(solution.values("x"), 0.0, None)), seconds
    except ExactCheckError as error:
        if "infeasible" not in str(error).lower():
            raise
    except SolverError as error:
        if not _infeasible(error):
            raise
    aux = regret_lp(B, t, exact)
    if exact:
        solution, certified = solve_lp_exact(aux, backend="highs", **options)
        seconds += solution.seconds
        if certified.objective <= 0:
            raise ExactCheckError(f"exact mode: the commitment LP of follower strategy {t} was "
                                  f"called infeasible, but a commitment leaves the follower a "
                                  f"largest gain of {certified.objective} ≤ 0 over it")
        return ResponseBound(t, "infeasible"), seconds
    solution = solve_lp(aux, backend="highs", **options)
    seconds += solution.seconds
    # implied bounds: x on the simplex, and 0 ≤ ε ≤ 2 (t' = t gains 0; B' lies in [−1, 1])
    lower = weak_duality_bound(aux, solution.row_duals, np.r_[np.zeros(A.shape[0]), 0.0],
                               np.r_[np.ones(A.shape[0]), 2.0])
    if lower > FEASIBILITY_TOLERANCE:
        return ResponseBound(t, "infeasible"), seconds
    return ResponseBound(t, "unresolved", None, scale_a.from_unit(float(np.max(A[:, t])))), seconds


def solve_commitment_lps(leader_payoffs, follower_payoffs, exact: bool = False,
                         **options) -> CommitmentBound:
    """Every LP_t, each proven (module docstring): the best commitment, its reply and value, and
    the bound max_t V_t. ``options``: ``time_limit``, ``threads``, ``solver`` for HiGHS."""
    start = time.perf_counter()
    A, scale_a = _scaled(leader_payoffs, exact)
    B, _ = _scaled(follower_payoffs, exact)
    options = _lp_options(options, exact)
    responses, seconds = [], 0.0
    for t in range(A.shape[1]):
        outcome, spent = _one_response(A, B, t, exact, options, scale_a)
        responses.append(outcome)
        seconds += spent
    feasible = [r for r in responses if r.status == "optimal"]
    if not feasible:
        raise ExactCheckError("no follower strategy's commitment LP has a feasible point: the "
                              "follower has no best response to any commitment (impossible)")
    best = max(feasible, key=lambda r: r.value)
    bounds = [r.bound for r in responses if r.bound is not None]
    return CommitmentBound(best.response, best.value, best.commitment, max(bounds), exact,
                           responses, time.perf_counter() - start)


# ------------------------------------------------------------------ extensive games
@dataclass
class ReducedCommitment:
    """The reduced normal form with the leader's plans as rows: payoffs and the plans (0/1 rows
    over each player's sequences)."""

    leader_payoffs: np.ndarray
    follower_payoffs: np.ndarray
    leader_plans: np.ndarray
    follower_plans: np.ndarray


def reduced_commitment_game(sf: SequenceForm, leader: int, exact: bool,
                            max_profiles: int = CHECK_MAX_PROFILES,
                            max_responses: int = CHECK_MAX_RESPONSES) -> ReducedCommitment:
    """The reduced normal form of a two-player extensive game for the check (``leader`` 0-based),
    or :class:`~lpgame.errors.ModelTooLargeError` beyond the limits."""
    from lpgame.equilibria.correlated.reduced_plans import count_reduced_plans, enumerate_reduced_plans
    from lpgame.equilibria.general_sum.enumeration import exact_reduced_payoffs

    follower = 1 - leader
    counts = [count_reduced_plans(sf, i) for i in range(2)]
    if math.prod(counts) > max_profiles or counts[follower] > max_responses:
        raise ModelTooLargeError(
            f"{sf.game.name}: the reduced normal form has {counts[0]:,} × {counts[1]:,} plans, "
            f"beyond the check's limits ({max_profiles:,} profiles, {max_responses:,} follower "
            "plans)")
    plans = [enumerate_reduced_plans(sf, i, max_plans=max_profiles) for i in range(2)]
    if exact:
        payoffs = exact_reduced_payoffs(sf, plans)
    else:
        p0, p1 = (p.astype(float) for p in plans)
        payoffs = [p0 @ (sf.payoff_matrix(i) @ p1.T) for i in range(2)]
    if leader == 1:
        payoffs = [np.asarray(u).T for u in payoffs]
    return ReducedCommitment(np.asarray(payoffs[leader]), np.asarray(payoffs[follower]),
                             plans[leader], plans[follower])


def realization_of(plans: np.ndarray, mixture, exact: bool) -> list:
    """x = Σ_k μ_k π_k: a mixture over reduced plans (rows of ``plans``) as a realization plan."""
    if exact:
        matrix = plans.astype(int).astype(object)
        return list(np.asarray(mixture, dtype=object) @ matrix)
    return np.asarray(mixture, dtype=float) @ plans.astype(float)


__all__ = ["OPTIMALITY_TOLERANCE", "CommitmentBound", "ResponseBound", "ReducedCommitment",
           "commitment_lp", "regret_lp", "solve_commitment_lps", "reduced_commitment_game",
           "realization_of"]
