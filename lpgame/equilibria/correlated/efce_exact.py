"""Optimal EFCE, EFCCE and NFCCE in exact rational arithmetic, and their registry entries.

The LP is that of :mod:`lpgame.equilibria.correlated.efce` (Farina 2023, Prop. 9.1 and App. 9.B;
notes/farina-thesis.md §1.8–1.9): over the von Stengel–Forges polytope V (Def. 9.3),

    max_ξ Σ_z p_c(z) Σ_i w_i u_i(z) ξ[σ_1(z), σ_2(z)]
    s.t.  v[t, j'] ≥ Σ_{z: σ_i(z) = j'a'} p_c(z) u_i(z) ξ[c_t ⊕ σ_{-i}(z)] + Σ_{j''} v[t, j'']   (deviation)
          v[t, j]  ≤ Σ_{z obeying t} p_c(z) u_i(z) ξ[σ_1(z), σ_2(z)]                          (obedience)

with the payoff coefficients stated as exact rationals. HiGHS solves its floating-point image and
the optimal basis is certified in rationals (:func:`lpgame.lp.solve_lp_exact`; Chvátal 1983,
ch. 5 and 10). Then, by code that does not read the LP:

* the trigger gains of the exact ξ, :func:`lpgame.analysis.exact_plan_gaps.exact_plan_gap`, are
  exactly 0 and ξ lies in V exactly (residual 0);
* the exact row duals give the weak-duality bound U(y)
  (:func:`lpgame.lp.dual_certificate.exact_dual_bound`, recomputed from the LP's exact data),
  which must equal the objective: the LP optimum is proven;
* where the game is not triangle-free (V ⊋ Ξ, e.g. Kuhn poker), the plan is decomposed into a
  distribution over pairs of reduced plans by an exactly certified LP
  (:mod:`lpgame.equilibria.correlated.plan_decomposition`) and f(μ) = ξ is recomputed by plain
  sums; a realisable plan that attains the relaxation's bound is optimal over Ξ, otherwise the
  answer is reported as an upper bound.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction

import numpy as np

from lpgame.analysis.exact_plan_gaps import exact_plan_gap
from lpgame.equilibria.correlated.ce_cce import (
    DEVIATIONS,
    OBJECTIVE_OPTION,
    CorrelatedResult,
    objective_name,
    objective_weights,
)
from lpgame.equilibria.correlated.efce import (
    DEFAULT_MAX_DECOMPOSE_NONZEROS,
    DEFAULT_MAX_DECOMPOSE_PROFILES,
    PLAN_CONCEPTS,
    CorrelationPlanSpace,
    correlation_plan_lp,
    solve_correlation_plan,
)
from lpgame.equilibria.correlated.plan_decomposition import decompose_on_pairs
from lpgame.equilibria.correlated.reduced_plans import count_reduced_plans, plan_label
from lpgame.errors import ExactCheckError, LpgameError, ModelTooLargeError
from lpgame.lp import solve_lp_exact
from lpgame.lp.dual_certificate import exact_dual_bound, optimality
from lpgame.lp.solution import solver_report
from lpgame.registry import Concept, Option, register
from lpgame.result import Certificate

BOUND_METHOD = ("weak duality: the certified basis's exact row duals, U(y) recomputed from the "
                "LP's exact data (lpgame.lp.dual_certificate)")


def _realised(space: CorrelationPlanSpace, plans: list[np.ndarray], mu: np.ndarray) -> list:
    """f(μ) on the relevant pairs, by plain sums over the pairs of plans in μ's support."""
    out = [Fraction(0)] * space.num_pairs
    index = {(int(a), int(b)): k for k, (a, b) in enumerate(space.pairs.tolist())}
    for (p1, p2), m in np.ndenumerate(mu):
        if not m:
            continue
        for s1 in np.flatnonzero(plans[0][p1]).tolist():
            for s2 in np.flatnonzero(plans[1][p2]).tolist():
                k = index.get((s1, s2))
                if k is not None:
                    out[k] += m
    return out


def solve_correlation_plan_exact(game, concept: str = "efce", objective="welfare",
                                 backend: str = "highs", decompose="auto",
                                 max_decompose_profiles: int = DEFAULT_MAX_DECOMPOSE_PROFILES,
                                 **options) -> CorrelatedResult:
    """An optimal EFCE / EFCCE / NFCCE with a Fraction plan and objective (module docstring)."""
    from lpgame.compile import compile_game

    if concept not in PLAN_CONCEPTS:
        raise LpgameError(f"unknown correlation-plan concept {concept!r}; choose one of "
                          f"{', '.join(PLAN_CONCEPTS)}")
    if backend != "highs":
        raise ExactCheckError("exact mode reads HiGHS's optimal basis: use backend='highs'")
    start = time.perf_counter()
    sf = compile_game(game)
    space = CorrelationPlanSpace(sf)
    triangle = space.triangle()
    lp = correlation_plan_lp(sf, concept, objective, space, exact=True)
    built = time.perf_counter()
    options.setdefault("solver", "simplex")
    solution, certified = solve_lp_exact(lp, backend=backend, **options)
    xi = certified.values(lp, "xi")
    plan = {(int(a), int(b)): v for (a, b), v in zip(space.pairs.tolist(), xi) if v}
    check = exact_plan_gap(sf, plan, concept)
    if check.gap != 0 or check.plan_residual != 0:
        raise ExactCheckError(f"exact mode: the certified plan has {concept.upper()} gap "
                              f"{check.gap} and plan residual {check.plan_residual}, not 0")
    chance, leaf_payoffs = sf.exact_terminal_data()
    leaf_plan = [plan.get((int(a), int(b)), Fraction(0)) for a, b in sf.terminal_sequences]
    payoffs = [sum((p * x * row[i] for p, x, row in zip(chance, leaf_plan, leaf_payoffs) if x),
                   Fraction(0)) for i in range(2)]
    w = objective_weights(objective, 2)
    value = sum((Fraction(float(a)) * b for a, b in zip(w, payoffs)), Fraction(0))
    if lp.objective_scaling.from_unit(certified.objective) != value:
        raise ExactCheckError("exact mode: the LP optimum differs from the plan's objective")
    values = [v for row in leaf_payoffs for v in row]
    proof = optimality(exact_dual_bound(lp, certified.row_duals), value,
                       max(values) - min(values), method=BOUND_METHOD)
    realisable = True if triangle is None else None
    distribution, extra = None, {"relevant_pairs": space.num_pairs}
    if triangle is not None:
        extra["triangle"] = list(triangle)
    counts = [count_reduced_plans(sf, i) for i in range(2)]
    if decompose is True or (decompose == "auto" and math.prod(counts) <= max_decompose_profiles):
        try:
            dec = decompose_on_pairs(sf, xi, space, max_decompose_profiles,
                                     DEFAULT_MAX_DECOMPOSE_NONZEROS, backend, exact=True)
        except ModelTooLargeError:
            if decompose is True:
                raise
            dec = None
        except LpgameError as error:       # realisability is a side check: a failure is a note
            dec = None
            extra["notes"] = [f"realisability not checked: the exact decomposition failed "
                              f"({type(error).__name__}: {error})"]
        if dec is not None:
            realisable = dec.realisable and _realised(space, dec.plans, dec.distribution) == xi
            extra["decomposition_residual"] = dec.residual
            if realisable:
                k2 = dec.distribution.shape[1]
                flat = dec.distribution.ravel()
                keep = sorted((q for q in range(flat.size) if flat[q]), key=lambda q: -flat[q])
                distribution = [{"profile": [plan_label(sf, 0, dec.plans[0][q // k2]),
                                             plan_label(sf, 1, dec.plans[1][q % k2])],
                                 "probability": flat[q]} for q in keep]
    if triangle is not None and realisable:
        extra["bound_attained"] = True
    entries = [{"sequences": list(lab), "value": v}
               for lab, v in zip(space.pair_labels(), xi) if v]
    deviations = DEVIATIONS[concept].replace("correlated_gaps", "exact_plan_gaps, in rationals")
    certificate = Certificate(gain=check.gap, exact=True, deviations=deviations,
                              extra={**proof, "exact_path": certified.path})
    end = time.perf_counter()
    return CorrelatedResult(
        game=sf.game.name, concept=concept, objective=value,
        objective_spec=objective_name(objective), weights=w.tolist(), payoffs=payoffs,
        gap=check.gap, optimal=bool(realisable) and proof["optimality_proven"],
        triangle_free=triangle is None, size=lp.size(), certificate=certificate, exact=True,
        solver=solver_report(solution, True),
        seconds={"build": built - start, "solve": solution.seconds, "total": end - start},
        backend=backend, distribution=distribution, correlation_plan=entries,
        realisable=realisable, gap_detail=check.to_dict(), extra=extra, raw=np.array(xi, object),
        model=space, lp=lp)


def _solve_plan(concept: str):
    def solve(game, *, exact: bool = False, backend: str = "highs", objective="welfare",
              method: str | None = None, **options) -> CorrelatedResult:
        # method: "lp" (or None) selects this entry; "learning" selects efce_learning's entry
        run = solve_correlation_plan_exact if exact else solve_correlation_plan
        return run(game, concept, objective, backend=backend, **options)
    return solve


_PLAN_OPTIONS = (
    OBJECTIVE_OPTION,
    Option("decompose", object, "auto", "auto (default), True or False: decompose the plan into "
           "a distribution over pure plan pairs (proves realisability)",
           parse=lambda t: {"true": True, "false": False}.get(t.lower(), t)),
    Option("max_decompose_profiles", int, DEFAULT_MAX_DECOMPOSE_PROFILES,
           "largest |Π1|·|Π2| decomposed when decompose=auto"))

for _name, _summary in (
        ("efce", "optimal extensive-form correlated equilibrium (two-player correlation plans)"),
        ("efcce", "optimal extensive-form coarse correlated equilibrium (correlation plans)"),
        ("nfcce", "optimal normal-form coarse correlated equilibrium (correlation plans)")):
    register(Concept(
        name=_name, games=("general_sum",), solve=_solve_plan(_name), summary=_summary,
        certificate=DEVIATIONS[_name], exact=True,
        options=_PLAN_OPTIONS + ((Option("method", str, None, "lp (default) or learning "
                                         "(optimal EFCE by regret minimisation, Farina 2023 "
                                         "Ch. 10)", choices=("lp", "learning")),)
                                 if _name == "efce" else ()),
        source="von Stengel & Forges 2008; Farina 2023 Ch. 9 (correlation plans, "
               "triangle-freeness)"))
