"""Optimal CE and CCE in exact rational arithmetic, and the ``ce``/``cce`` registry entries.

The LP is that of :mod:`lpgame.equilibria.correlated.ce_cce` (Aumann 1974; Moulin & Vial 1978;
Rojas Linárez 2020, Def. 1.12):

    max_ψ  Σ_s ψ(s) Σ_i w_i u_i(s)   s.t.   Σ_{s_{-i}} ψ(x, s_{-i}) [u_i(x, s_{-i}) − u_i(y, s_{-i})] ≥ 0
                                            (CE; CCE: Σ_s ψ(s) [u_i(s) − u_i(y, s_{-i})] ≥ 0),
           Σ_s ψ(s) = 1,  ψ ≥ 0,

with every coefficient an exact rational: a normal-form game's payoffs as written (decimal text read
exactly), an extensive game's reduced-normal-form payoffs summed in rationals
(:mod:`lpgame.equilibria.correlated.reduced_payoffs`), in the same unit-range form with an exact
shift. HiGHS solves its floating-point image; its optimal basis is then certified in rational
arithmetic (:func:`lpgame.lp.solve_lp_exact`: primal and dual feasibility and equal objectives,
checked exactly; Chvátal 1983, ch. 5 and 10).

The answer is then checked by code that reads only the payoff tensor:

* the deviation gains of the exact ψ, :func:`lpgame.analysis.correlated_dual_bound.correlated_gains`,
  must be exactly 0 (otherwise :class:`~lpgame.errors.ExactCheckError`);
* the exact duals, as multipliers λ ≥ 0 of the incentive rows, give the weak-duality bound
  max_s [c(s) + Σ λ·(incentive gains)(s)] (:mod:`lpgame.equilibria.correlated.ce_optimality`),
  which must equal the objective exactly: that proves it optimal.

The objective, the payoffs and the distribution are Fractions: chicken's welfare-optimal CE is
21/2, not 10.499999999.
"""

from __future__ import annotations

import math
import time
from fractions import Fraction

import numpy as np

from lpgame.analysis.correlated_dual_bound import correlated_gains
from lpgame.equilibria.correlated.ce_cce import (
    DEVIATIONS,
    OBJECTIVE_OPTION,
    CorrelatedResult,
    correlated_lp,
    objective_name,
    objective_weights,
    solve_normal_form,
)
from lpgame.equilibria.correlated.ce_optimality import (
    incentive_duals,
    multipliers_from_duals,
    optimality_certificate,
)
from lpgame.equilibria.correlated.reduced_payoffs import reduced_payoffs_exact
from lpgame.equilibria.correlated.reduced_plans import DEFAULT_MAX_PROFILES, StrategicForm, as_strategic_form
from lpgame.errors import ExactCheckError, ModelTooLargeError
from lpgame.game.normal_form import NormalFormGame
from lpgame.lp import solve_lp_exact
from lpgame.lp.solution import solver_report
from lpgame.rational import binary_fractions
from lpgame.registry import Concept, Option, register
from lpgame.result import Certificate


def with_exact_payoffs(form: StrategicForm) -> StrategicForm:
    """``form`` with ``exact_payoffs`` filled in: from the NormalFormGame's entries, from the
    sequence form's exact leaves (reduced normal form), or, for a bare float tensor, the binary
    rationals its floats hold."""
    if form.exact_payoffs is not None:
        return form
    if isinstance(form.source, NormalFormGame):
        exact = np.stack([form.source.payoff_array(i, exact=True)
                          for i in range(form.num_players)])
    elif form.plans is not None and form.source is not None:
        exact = reduced_payoffs_exact(form.source, form.plans)
    else:
        flat = binary_fractions(np.asarray(form.payoffs, dtype=float).ravel())
        exact = np.empty(len(flat), dtype=object)
        exact[:] = flat
        exact = exact.reshape(form.payoffs.shape)
    form.exact_payoffs = exact
    return form


def solve_normal_form_exact(game, concept: str = "ce", objective="welfare",
                            backend: str = "highs", max_profiles: int = DEFAULT_MAX_PROFILES,
                            **options) -> CorrelatedResult:
    """An optimal CE or CCE with Fraction distribution, payoffs and objective, its gains exactly 0
    and its optimality proven by an exact dual bound (module docstring)."""
    start = time.perf_counter()
    if backend != "highs":
        raise ExactCheckError("exact mode reads HiGHS's optimal basis: use backend='highs'")
    form = with_exact_payoffs(as_strategic_form(game, max_profiles=max_profiles))
    total = math.prod(form.shape)
    if total > max_profiles:
        raise ModelTooLargeError(
            f"{form.name}: {' × '.join(map(str, form.shape))} = {total:,} joint pure profiles, more "
            f"than the limit of {max_profiles:,}")
    n, coarse = form.num_players, concept == "cce"
    built = time.perf_counter()
    lp = correlated_lp(form, concept, objective, exact=True)
    options.setdefault("solver", "simplex")
    solution, certified = solve_lp_exact(lp, backend=backend, **options)
    flat = certified.values(lp, "psi")
    psi = np.empty(total, dtype=object)
    psi[:] = flat
    psi = psi.reshape(form.shape)
    exact_payoffs = form.exact_payoffs
    payoffs = [sum((p * u for p, u in zip(flat, exact_payoffs[i].ravel().tolist()) if p),
                   Fraction(0)) for i in range(n)]
    check = correlated_gains(exact_payoffs, psi, coarse, form.labels)
    if check.gap != 0:
        raise ExactCheckError(f"exact mode: the certified basis gives a distribution whose "
                              f"largest {concept.upper()} deviation gain is {check.gap}, not 0")
    w = objective_weights(objective, n)
    w_exact = [Fraction(float(v)) for v in w]
    value = sum((a * b for a, b in zip(w_exact, payoffs)), Fraction(0))
    if lp.objective_scaling.from_unit(certified.objective) != value:
        raise ExactCheckError(f"exact mode: LP optimum "
                              f"{lp.objective_scaling.from_unit(certified.objective)} differs from "
                              f"the distribution's objective {value}")
    multipliers = multipliers_from_duals(
        form.shape, incentive_duals(lp, lambda name: certified.duals(lp, name), n),
        [sc.exponent for sc in lp.row_scalings], Fraction(lp.objective_scaling.scale), coarse)
    optimality = optimality_certificate(exact_payoffs, w_exact, multipliers, coarse, value)
    support = [k for k in np.argsort([-float(p) for p in flat], kind="stable").tolist() if flat[k]]
    grids = np.unravel_index(np.asarray(support, dtype=np.int64), form.shape)
    distribution = [{"profile": [form.labels[i][grids[i][k]] for i in range(n)],
                     "probability": flat[s]} for k, s in enumerate(support)]
    certificate = Certificate(gain=check.gap, exact=True, deviations=DEVIATIONS[concept].replace(
                                  "correlated_gaps", "correlated_dual_bound, in rationals"),
                              extra={**optimality, "exact_path": certified.path})
    end = time.perf_counter()
    return CorrelatedResult(
        game=form.name, concept=concept, objective=value, objective_spec=objective_name(objective),
        weights=w.tolist(), payoffs=payoffs, gap=check.gap,
        optimal=optimality["optimality_proven"], triangle_free=None, size=lp.size(),
        certificate=certificate, exact=True,
        seconds={"build": built - start, "solve": solution.seconds, "total": end - start},
        backend=backend, distribution=distribution, realisable=True,
        gap_detail=check.to_dict(), raw=psi, model=form, lp=lp,
        solver=solver_report(solution, True),
        extra={"strategies_per_player": list(form.shape), "lp_objective": value,
               "objective_gap": Fraction(0)})


def _solve_ce(concept: str):
    def solve(game, *, exact: bool = False, backend: str = "highs", objective="welfare",
              max_profiles: int = DEFAULT_MAX_PROFILES, **options) -> CorrelatedResult:
        run = solve_normal_form_exact if exact else solve_normal_form
        return run(game, concept, objective, backend=backend, max_profiles=max_profiles,
                   **options)
    return solve


for _name, _summary, _rows in (
        ("ce", "optimal correlated equilibrium (normal form; an extensive game's reduced normal "
               "form gives the NFCE)", "Aumann 1974; Rojas Linárez 2020, Def. 1.12"),
        ("cce", "optimal coarse correlated equilibrium (normal form or reduced normal form)",
                "Moulin & Vial 1978; Farina 2023 §1.9")):
    register(Concept(
        name=_name, games=("n_player",), solve=_solve_ce(_name), summary=_summary,
        certificate=DEVIATIONS[_name], source=_rows, exact=True,
        options=(OBJECTIVE_OPTION,
                 Option("max_profiles", int, DEFAULT_MAX_PROFILES,
                        "largest number of joint pure profiles the LP is built for"))))
