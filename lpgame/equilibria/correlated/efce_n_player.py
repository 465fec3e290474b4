"""Optimal EFCE of an n-player game: column generation over joint pure plans.

**Why this formulation.** The thesis's three-player rows of Table 10.1 (D32, K35, GL33, L3132,
L3133, L3223) use the correlation-plan representation of Zhang, Farina, Celli & Sandholm (EC 2022),
which the thesis cites (L4667) but does not write out; the notes (farina-thesis.md §1.8 "n
players") say so, and it cannot be reconstructed from the notes and seeds. So the thesis's LP
baseline for those rows is *not* reproduced here. Instead lpgame states the optimal EFCE exactly by
the definition: a distribution μ over joint reduced pure plans (Farina 2023, Def. 8.2, L3263;
notes §1.6), whose support is grown by column generation.

    max_μ  Σ_π μ(π) c(π),   c(π) = Σ_z p_c(z) (w·u(z)) Π_l π_l[σ_l(z)]
    s.t.   μ ∈ Δ(Π_1 × … × Π_n),   no trigger deviation of any player gains against μ,

the trigger constraints stated by Lemma 9.2, dualised as in Prop. 9.1 (the master LP of
:mod:`~lpgame.equilibria.correlated.efce_master`).

**The pieces.**

* :mod:`~lpgame.equilibria.correlated.efce_master` — the restricted master LP over the current
  columns: its trigger constraints, held as cuts separated against each master's μ, and the
  compact LP's dual space;
* :mod:`~lpgame.equilibria.correlated.efce_pricing` — the reduced cost of a joint pure plan and
  the oracles that price it (alternation, an exact MILP on HiGHS), at the master's duals and the
  other dual points;
* :mod:`~lpgame.equilibria.correlated.efce_bounds` — the upper bounds (Lagrangian ones from
  bounding rounds with Wentges smoothing, the tuple relaxation's, the best leaf's), the columns
  seeded at the relaxation's duals, and the exact run's stopping rule;
* :mod:`~lpgame.equilibria.correlated.efce_elastic_run` — the target-gap run: the elastic
  (penalty) master, the balanced mix of its columns and the lower bound;
* this module — the run: the exact two-phase loop, the answer and its independent check, and
  the registry entry.

**The exact run.** Phase 1 maximises −Σ e (the total trigger violation) until the columns hold
an EFCE; phase 2 maximises the objective Σ_i w_i u_i with e = 0. Each master's μ is separated
(new trigger cuts), then priced by alternation; when alternation finds no column, phase 1 runs
the MILP oracle and phase 2 a bounding round (also every ``BOUND_SPACING`` times its duration
while alternation finds columns). The run stops, certified optimal, when the smallest bound −
z_RMP ≤ ``column_tolerance``·R (:mod:`~lpgame.equilibria.correlated.efce_bounds`, "Bounds and
stopping"). With ``target_gap`` the elastic run of
:mod:`~lpgame.equilibria.correlated.efce_elastic_run` replaces the two phases.

**Units.** The run works in payoffs divided by a power of two 2^k that brings the payoff range
into the unit band of :mod:`lpgame.lp.scaling` (k = 0 for ranges from 1/16 to 16;
``payoff_unit`` of :class:`~lpgame.equilibria.correlated.efce_master.MasterLP`), so that the
master LP, the pricing MILPs and every tolerance see a range near 1 whatever the payoffs' scale;
μ is unchanged by the scaling, and objective, bounds, gaps and the history's payoff figures are
reported in the game's own units (at payoffs ×1e−12 the bound was invalid and μ not an EFCE, at
×1e12 the master ended Unknown, before; issue 34).

**Independent check.** The returned μ's EFCE gap is computed by
:mod:`lpgame.analysis.n_player_correlated_gaps` from the support alone (exactly with
``exact=True``), never from the LP.

For two-player games the default entry of ``efce`` stays the correlation-plan LP
(:mod:`lpgame.equilibria.correlated.efce`); this entry is chosen there with
``method="column_generation"``. It is the default for games with three or more players.
"""

from __future__ import annotations

import math
import numbers
import sys
import time
from dataclasses import dataclass

import numpy as np

from lpgame import progress
from lpgame.analysis.n_player_correlated_gaps import n_player_efce_gap
from lpgame.compile import compile_game
from lpgame.equilibria.correlated.ce_cce import (
    OBJECTIVE_OPTION,
    SUPPORT_TOLERANCE,
    CorrelatedResult,
    objective_name,
    objective_weights,
)
from lpgame.equilibria.correlated.efce_bounds import (
    BOUND_RESERVE,
    BOUND_SPACING,
    TUPLE_BOUND_SECONDS,
    TUPLE_BOUND_SHARE,
    RunBounds,
    bounding_round,
    seed_columns,
    tuple_relaxation_report,
)
from lpgame.equilibria.correlated.efce_elastic_run import (
    DEFAULT_PENALTY,
    exact_lower_bound,
    run_elastic_master,
    target_score,
)
from lpgame.equilibria.correlated.efce_master import CUT_TOLERANCE, MasterTimeLimitError
from lpgame.equilibria.correlated.efce_pricing import Model, best_pure_plan, price_by_alternation
from lpgame.equilibria.correlated.efce_tuple_relaxation import DEFAULT_MAX_TUPLES
from lpgame.equilibria.correlated.reduced_plans import plan_label
from lpgame.errors import LpgameError, OptionError, SolverError
from lpgame.lp.scaling import unit_range_scaling
from lpgame.registry import Concept, Option, register
from lpgame.result import Certificate, register_result_kind

DEFAULT_COLUMN_TOLERANCE = 1e-7
"""Reduced costs at or below this fraction of the payoff range count as non-improving."""
DEFAULT_MAX_COLUMNS = 20_000
STATUSES = ("optimal", "target_gap", "time_limit", "column_limit")
GUIDED = True
"""Price with the tuple relaxation's duals (:mod:`lpgame.equilibria.correlated.efce_bounds`,
"Relaxation-guided pricing")."""


# ---------------------------------------------------------------------------------------- result
@register_result_kind
@dataclass(kw_only=True)
class ColumnGenerationCorrelatedResult(CorrelatedResult):
    """An optimal EFCE of an n-player game by column generation: a :class:`CorrelatedResult` with
    ``distribution`` over joint pure plans, and in ``extra``: ``status`` (optimal, time_limit,
    column_limit), ``upper_bound`` (the smallest upper bound: Lagrangian or the tuple
    relaxation's, None before any), ``bound_gap`` (upper bound − objective), ``tuple_relaxation``
    (its bound, tuples and seconds, or why it was skipped), ``columns``, ``cuts`` (trigger cuts in
    the master), ``iterations`` and the per-phase history."""

    kind = "correlated_column_generation"

    @property
    def bound(self) -> str:
        status = self.extra.get("status", "?")
        if status == "optimal":
            return "optimal (column generation certified by the MILP oracle)"
        if status == "target_gap" and self.extra.get("mode") == "elastic":
            lower = self.extra.get("lower_bound")
            sides = ("objective within target of the optimum on both sides"
                     if self.extra.get("two_sided") else
                     "the objective's distance above the optimum is not certified"
                     if lower is not None else "no exact EFCE among the columns, so the "
                     "objective's distance above the optimum is not certified")
            return (f"ε-EFCE (not an exact EFCE) within target_gap {self.extra.get('target_gap')} "
                    f"of the payoff range: measured EFCE gap ε = {self.gap:.3g}, objective "
                    f"{self.objective:.6g}, upper bound {self.extra.get('upper_bound')}, "
                    f"bound gap {self.extra.get('bound_gap')}, lower bound (best exact EFCE) "
                    f"{lower}; {sides}")
        if status == "target_gap":
            return (f"within target_gap {self.extra.get('target_gap')} of the payoff range: "
                    f"objective {self.objective:.6g}, upper bound {self.extra.get('upper_bound')}, "
                    f"bound gap {self.extra.get('bound_gap')}, EFCE gap {self.gap:.3g}")
        gap = self.extra.get("bound_gap")
        where = ("no EFCE found yet: " if self.extra.get("phase") == 1 else
                 "ε-EFCE of the elastic master, ε = its measured gap: "
                 if self.extra.get("mode") == "elastic" else "")
        return (f"partial, {where}{status}: objective {self.objective:.6g}, upper bound "
                f"{self.extra.get('upper_bound')}, bound gap {gap}")



def solve_efce_column_generation(game, objective="welfare", time_limit: float | None = None,
                                 max_columns: int = DEFAULT_MAX_COLUMNS,
                                 column_tolerance: float = DEFAULT_COLUMN_TOLERANCE,
                                 exact: bool = False, players: int | None = None,
                                 verbose: bool = False, target_gap: float | None = None,
                                 penalty: float = DEFAULT_PENALTY, tuple_bound: bool = True,
                                 max_tuples: int = DEFAULT_MAX_TUPLES,
                                 tuple_seconds: float | None = None, two_sided: bool = False
                                 ) -> ColumnGenerationCorrelatedResult:
    """An optimal EFCE of ``game`` (any number of players) by column generation (module docstring).

    ``objective``: ``welfare``, ``player1`` … ``playerN`` or N weights. ``time_limit`` (seconds,
    the whole run) and ``max_columns`` end the run with a labelled partial answer. ``players``:
    when given, the game must have that many players (the benchmark of Table 10.1's three-player
    rows asks for 3). ``exact=True`` also computes the returned μ's gap in rational arithmetic.
    ``target_gap`` (a fraction of the payoff range R in (0, 1)): solve the elastic master
    instead of the two phases and stop, status ``target_gap``, once μ's measured EFCE gap and
    |upper bound − objective| are both at most ``target_gap``·R: μ is then an ε-EFCE
    (ε = its measured ``gap``), not an exact EFCE
    (:mod:`~lpgame.equilibria.correlated.efce_elastic_run`). ``penalty``: the elastic
    master's first M (objective units per unit of trigger violation; doubled by the run).
    ``tuple_bound``: first solve the relaxation over relevant sequence tuples
    (:mod:`lpgame.equilibria.correlated.efce_tuple_relaxation`, at most ``max_tuples`` tuples, in
    ``tuple_seconds`` seconds, by default ``TUPLE_BOUND_SHARE`` of the time limit); its optimum is
    an upper bound beside the Lagrangian ones. The Leduc rows need minutes for it (L3132: about
    270 s), so ``tuple_seconds`` lets them keep the rest of a shorter limit for the columns.
    ``two_sided`` (with ``target_gap``): stop only when the objective is also within the target
    above the best exact EFCE among the columns, a lower bound L on the optimum, so that
    |objective − optimum| ≤ ``target_gap``·R is certified
    (:mod:`~lpgame.equilibria.correlated.efce_elastic_run`, "Balanced mix and the lower bound");
    by default the objective is bounded from below only.
    """
    start = time.perf_counter()
    sf = compile_game(game)
    n = sf.num_players
    if players is not None and n != players:
        raise LpgameError(f"{sf.game.name} has {n} players; this run needs {players}")
    if n < 2:
        raise LpgameError(f"{sf.game.name} has {n} player; EFCE needs at least two")
    if time_limit is not None and time_limit <= 0:
        raise OptionError(f"time_limit must be positive; got {time_limit}")
    if max_columns < 1:
        raise OptionError(f"max_columns must be at least 1; got {max_columns}")
    if not column_tolerance > 0:
        raise OptionError(f"column_tolerance must be positive; got {column_tolerance}")
    if target_gap is not None and (not isinstance(target_gap, numbers.Real)
                                   or isinstance(target_gap, bool)
                                   or not 0 < float(target_gap) < 1):
        raise OptionError(f"target_gap is a fraction of the payoff range in (0, 1); got "
                          f"{target_gap!r}")
    if (not isinstance(penalty, numbers.Real) or isinstance(penalty, bool)
            or not 0 < float(penalty) < np.inf):
        raise OptionError(f"penalty (the elastic master's first M) must be a positive finite "
                          f"number; got {penalty!r}")
    if not isinstance(tuple_bound, bool):
        raise OptionError(f"tuple_bound must be True or False; got {tuple_bound!r}")
    if not isinstance(two_sided, bool):
        raise OptionError(f"two_sided must be True or False; got {two_sided!r}")
    if two_sided and target_gap is None:
        raise OptionError("two_sided is a rule of the target-gap run: give target_gap too "
                          "(without it the run certifies an exact EFCE against the bound)")
    if (not isinstance(max_tuples, numbers.Integral) or isinstance(max_tuples, bool)
            or max_tuples < 1):
        raise OptionError(f"max_tuples must be a positive integer; got {max_tuples!r}")
    if tuple_seconds is not None and (not isinstance(tuple_seconds, numbers.Real)
                                      or isinstance(tuple_seconds, bool)
                                      or not 0 < float(tuple_seconds) < np.inf):
        raise OptionError(f"tuple_seconds (the tuple relaxation's time) must be a positive finite "
                          f"number of seconds or None; got {tuple_seconds!r}")
    w = objective_weights(objective, n)
    payoffs = sf.terminal_payoffs
    span = float(payoffs.max() - payoffs.min()) if payoffs.size else 1.0
    span = span if span > 0 else 1.0
    # the run works in payoffs divided by unit = 2^k, which brings the range into the unit band
    # (lpgame.lp.scaling; k = 0 for ranges from 1/16 to 16), so that the LPs, the MILPs and every
    # tolerance here see a range near 1 whatever the payoffs' scale (issue 34); objective, bounds,
    # gaps and the history are multiplied back by unit at the end, and μ's gap is measured on the
    # game's own payoffs
    unit = math.ldexp(1.0, unit_range_scaling(0.0, span, shift=False).exponent)
    scale = span / unit                     # the payoff range R in the run's units
    tol = column_tolerance * scale
    target = None if target_gap is None else float(target_gap) * scale
    model = Model(sf, w, payoff_unit=unit)
    built = time.perf_counter()
    relaxation, found = tuple_relaxation_report(
        sf, w, tuple_bound, max_tuples, time_limit, verbose,
        None if tuple_seconds is None else float(tuple_seconds))
    guide = (model.relaxation_duals(found) if GUIDED and found is not None
             and found.trigger_duals is not None else None)
    # the objective is an expectation of w·u(z), so its largest value over the leaves that chance
    # reaches bounds it too: the reported bound is never above it (the Lagrangian bounds of the
    # MILP's dual bound can be: 197.8 against 14 at zero duals on L3132 max P1)
    reached = sf.terminal_chance > 0
    payoff_bound = float((payoffs[reached] @ w).max()) / unit if reached.any() else None
    relaxation_bound = (None if relaxation.get("upper_bound") is None
                        else relaxation["upper_bound"] / unit)
    built_bound = min((b for b in (relaxation_bound, payoff_bound) if b is not None),
                      default=None)

    main_limit = None if time_limit is None else time_limit * (1.0 - BOUND_RESERVE)

    def left(limit: float | None = None) -> float | None:
        # the reserve for the last bounding MILP is kept only once phase 2 has a master
        limit = limit if limit is not None else (main_limit if phase == 2 else time_limit)
        return None if limit is None else limit - (time.perf_counter() - start)

    # the first column: alternation on the objective alone (a good pure profile)
    first = [best_pure_plan(tr, np.zeros(tr.num_sequences))[0] for tr in model.trees]
    t0, c0, _ = model.monomials(np.zeros(model.num_rows), 2)
    first, _ = model.alternate(t0, c0, 0.0, first)
    model.add(first, 1)
    phase, status = 1, None
    history, iterations = [], 0
    # either run's bounds and MILP seconds; the relaxation's duals are the first Wentges centre
    bounds = RunBounds(built_bound, None if guide is None else relaxation_bound, guide)
    if guide is not None:
        relaxation["seeded_columns"] = seed_columns(model, guide, first, left(), bounds,
                                                    history, start, verbose)
    mu, z, e = None, None, None
    last_phase2 = None
    next_bound_at = 0.0

    def summarise(mu_: np.ndarray):
        """μ's support as (probabilities, plans per player, independent EFCE gap check, expected
        payoffs, objective)."""
        keep_ = np.flatnonzero(mu_ > SUPPORT_TOLERANCE)
        probs_ = mu_[keep_] / mu_[keep_].sum()
        plans_ = [np.stack([model.columns[k][i] for k in keep_]) for i in range(n)]
        check_ = n_player_efce_gap(sf, plans_, probs_)
        reach_ = np.ones((keep_.size, sf.terminal_sequences.shape[0]), dtype=bool)
        for i in range(n):
            reach_ &= plans_[i][:, sf.terminal_sequences[:, i]].astype(bool)
        values_ = ((probs_ @ reach_) * sf.terminal_chance) @ payoffs
        return probs_, plans_, check_, values_, float(np.dot(w, values_))

    def measure(mu_: np.ndarray) -> tuple[float, float]:
        """(objective, independent EFCE gap) of the master's support, in the run's units."""
        summary = summarise(mu_)
        return summary[4] / unit, float(summary[2].gap) / unit

    elastic = target is not None
    elastic_run = None
    if elastic:
        elastic_run = run_elastic_master(model, start, main_limit, tol, target, float(penalty),
                                         max_columns, verbose, measure, scale, bounds, two_sided)
        status, e, phase = elastic_run["status"], elastic_run["violation"], "elastic"
        history, iterations = history + elastic_run["history"], elastic_run["iterations"]
        if elastic_run["last"] is not None:
            z, mu, _ = elastic_run["last"]
            last_phase2 = elastic_run["last"]

    while not elastic:            # the exact run: phase 1, then phase 2
        remaining = left()
        if remaining is not None and remaining <= 0:
            status = "time_limit"
            break
        try:
            z, mu, duals, e = model.solve_master(remaining)
        except MasterTimeLimitError:
            status = "time_limit"
            break
        iterations += 1
        cuts = model.separate(mu, CUT_TOLERANCE * tol)
        progress.report(f"EFCE column generation, phase {phase}", iteration=iterations,
                        columns=len(model.columns), master=z, violation=e)
        if verbose:
            print(f"[efce cg] it {iterations} phase {phase} cols {len(model.columns)} "
                  f"cuts {model.num_cuts} (+{cuts}) master {z:.6g} e {e:.3g} "
                  f"t {time.perf_counter() - start:.1f}s", file=sys.stderr, flush=True)
        # with new cuts the master is a relaxation over its columns: columns are still priced
        # at its duals (any cut duals give a valid Lagrangian bound), but nothing is concluded
        if not cuts and phase == 1 and e <= 1e-9 * scale:
            phase = 2
            model.start_phase_two()
            history.append({"iteration": iterations, "event": "phase 2", "columns":
                            len(model.columns), "seconds": time.perf_counter() - start})
            continue
        if not cuts and phase == 2:
            last_phase2 = (z, mu.copy(), duals)
            # a phase-2 master is an EFCE: its value against the smallest bound so far
            history.append({"iteration": iterations, "event": "master", "master": z,
                            "upper_bound": bounds.upper, "seconds": time.perf_counter() - start})
            if bounds.upper is not None and bounds.upper - z <= tol:
                status = "optimal"
                break
        if len(model.columns) >= max_columns:
            status = "column_limit"
            break
        (tuples, coefs, const), added = price_by_alternation(model, duals, mu, phase, tol,
                                                             bounds.center)
        if cuts or added and (phase == 1 or time.perf_counter() < next_bound_at):
            continue
        if phase == 1:
            t_m = time.perf_counter()
            plans, value, upper, proved = model.milp_oracle(tuples, coefs, const, left())
            bounds.milp_seconds += time.perf_counter() - t_m
            history.append({"iteration": iterations, "phase": 1, "columns": len(model.columns),
                            "master": z, "oracle_value": value, "oracle_upper": upper,
                            "proved": proved, "seconds": time.perf_counter() - start})
            if plans is not None and value > tol and model.add(plans, phase):
                continue
            if proved and upper <= tol:
                raise SolverError(f"{sf.game.name}: column generation certified no EFCE "
                                  f"(violation {e * unit:.3g}); numerical trouble in the master "
                                  f"LP")
            status = "time_limit"
            break
        # phase 2: a bounding round (the MILP at Wentges-smoothed duals; every dual point gives a
        # Lagrangian bound, maxed with z, since z is an EFCE's value; a column only when it
        # improves at the current duals). While alternation still finds columns, it runs only
        # every BOUND_SPACING times its own duration, so that the bound tightens during the tail.
        # (|U − z| ≤ tol is U − z ≤ tol here: U ≥ the optimum ≥ z.)
        t_round = time.perf_counter()
        added, _ = bounding_round(
            model, bounds, z, duals, (tuples, coefs, const), left(), left(), penalty=None,
            floor=z, tol=tol, added=bool(added), reference=z, within=tol, history=history,
            start=start, verbose=verbose,
            entry={"iteration": iterations, "phase": 2, "columns": len(model.columns),
                   "master": z})
        next_bound_at = time.perf_counter() + BOUND_SPACING * (time.perf_counter() - t_round)
        if added:
            continue
        status = "optimal" if bounds.upper is not None and bounds.upper - z <= tol \
            else "time_limit"
        break
    if status not in ("optimal", "target_gap") and last_phase2 is not None \
            and time_limit is not None \
            and not any(h.get("master") == last_phase2[0] and h.get("bound") is not None
                        for h in history):
        # the reserved time: one MILP on the last phase-2 duals gives a Lagrangian bound
        t_m = time.perf_counter()
        tuples, coefs, const = model.monomials(last_phase2[2], 2)
        _, value, bound_upper, proved = model.milp_oracle(tuples, coefs, const,
                                                          left(time_limit))
        bounds.milp_seconds += time.perf_counter() - t_m
        if np.isfinite(bound_upper):
            bounds.offer(last_phase2[0] + max(0.0, bound_upper), last_phase2[2])
        history.append({"event": "final bound", "master": last_phase2[0],
                        "oracle_value": value, "oracle_upper": bound_upper, "proved": proved,
                        "seconds": time.perf_counter() - start})
    if elastic:
        # the best exact EFCE over the final columns: a lower bound on the optimum, so the answer's
        # objective is bracketed from both sides (efce_elastic_run's docstring, "Balanced mix
        # and the lower bound")
        remaining = left(time_limit)
        if remaining is None or remaining > 0:
            exact_lower_bound(model, bounds, measure, tol, remaining)
    milp_seconds = bounds.milp_seconds
    end_solve = time.perf_counter()
    if mu is None:                       # the time limit came before the first master
        mu, z = np.ones(1), model.costs[0]
    if phase == 2 and last_phase2 is not None:
        z, mu = last_phase2[0], last_phase2[1]
    k_cols = len(mu)
    probs, plans, check, values, obj = summarise(mu)
    if elastic and elastic_run["best"] is not None and bounds.upper is not None:
        # the measured μ closest to the target (target_score): at a limit, or when a balanced
        # mix or the best exact EFCE met the target
        other = summarise(elastic_run["best"][1])
        if (target_score(other[4] / unit, other[2].gap / unit, bounds, two_sided)
                < target_score(obj / unit, check.gap / unit, bounds, two_sided)):
            probs, plans, check, values, obj = other
    # back to the game's payoff units (module docstring of efce_master, payoff_unit)
    upper_bound = None if bounds.upper is None else bounds.upper * unit
    lower_bound = None if bounds.lower is None else bounds.lower * unit
    z = None if z is None else z * unit
    e = None if e is None else e * unit
    history = _in_payoff_units(history, unit)
    certificate = Certificate(gain=check.gap, exact=False,
                              deviations="trigger deviations of every player at every sequence, "
                                         "against μ's support (lpgame.analysis."
                                         "n_player_correlated_gaps)")
    extra = {"status": status, "phase": phase, "upper_bound": upper_bound,
             "bound_gap": None if upper_bound is None else upper_bound - obj,
             "master_objective": z, "columns": k_cols, "iterations": iterations,
             "payoff_range": span, "column_tolerance": column_tolerance,
             "target_gap": target_gap,
             "cuts": model.num_cuts, "milp_seconds": milp_seconds, "history": history,
             "tuple_relaxation": relaxation}
    if phase == 1:
        extra["violation"] = e
    if elastic:
        # an ε-EFCE, not an exact one: ε is the measured gap (Farina 2023 §10.4's criterion)
        extra.update({"mode": "elastic", "exact_efce": False, "epsilon_efce": True,
                      "epsilon": float(check.gap), "relative_epsilon": float(check.gap) / span,
                      "penalty": elastic_run["penalty"], "penalties": elastic_run["penalties"],
                      "master_violation": e, "elastic_seconds": elastic_run["seconds"],
                      "dropped_columns": elastic_run["dropped_columns"],
                      "lower_bound": lower_bound, "two_sided_target": two_sided})
        # both sides of "within target of the optimum": L ≤ OPT ≤ U, so max(U − obj, obj − L)
        # bounds |obj − OPT|; None without an exact EFCE among the columns
        two_sided = (None if lower_bound is None or upper_bound is None
                     else max(upper_bound - obj, obj - lower_bound))
        extra["two_sided_gap"] = two_sided
        extra["two_sided"] = bool(two_sided is not None and target is not None
                                  and two_sided <= target * unit and check.gap <= target * unit)
    else:
        extra["mode"] = "two_phase"
    if exact:
        exact_check = n_player_efce_gap(sf, plans, probs, exact=True)
        extra["exact_gap"] = str(exact_check.gap)
        certificate = Certificate(gain=exact_check.gap, exact=True,
                                  deviations=certificate.deviations)
    order = np.argsort(-probs, kind="stable")
    distribution = [{"profile": [plan_label(sf, i, plans[i][q]) for i in range(n)],
                     "probability": float(probs[q])} for q in order]
    end = time.perf_counter()
    return ColumnGenerationCorrelatedResult(
        game=sf.game.name, concept="efce", variant="column_generation", objective=obj,
        objective_spec=objective_name(objective), weights=w.tolist(),
        payoffs=[float(v) for v in values], gap=float(check.gap),
        optimal=status == "optimal", certificate=certificate,
        size={"rows": int(model._highs.getNumRow()), "cols": int(model._highs.getNumCol()),
              "nnz": int(model._highs.getNumNz()), "joint_plan_columns": k_cols},
        solver={"name": "HiGHS (master LP) + HiGHS MILP (pricing)", "status": status},
        seconds={"build": built - start, "tuple_bound": relaxation.get("seconds", 0.0),
                 "solve": end_solve - built, "milp": milp_seconds,
                 "check": end - end_solve, "total": end - start},
        distribution=distribution, gap_detail=check.to_dict(), extra=extra)


PAYOFF_FIGURES = ("master", "objective", "upper_bound", "lower_bound", "bound", "oracle_value",
                  "oracle_upper", "measured_gap", "lp_score", "exact_objective", "exact_gap")
"""The history entries' figures in payoff units (the run's units times ``unit``)."""


def _in_payoff_units(history: list[dict], unit: float) -> list[dict]:
    """The run's history with its payoff figures multiplied back by ``unit`` (the payoff unit of
    the run, a power of two)."""
    if unit == 1.0:
        return history
    return [{k: v * unit if k in PAYOFF_FIGURES and isinstance(v, numbers.Real)
             and not isinstance(v, bool) else v for k, v in h.items()} for h in history]


def _solve_entry(game, *, exact: bool = False, backend: str = "highs", method: str | None = None,
                 objective="welfare", time_limit: float | None = None,
                 max_columns: int = DEFAULT_MAX_COLUMNS,
                 column_tolerance: float = DEFAULT_COLUMN_TOLERANCE, exact_gap: bool = False,
                 target_gap: float | None = None, penalty: float = DEFAULT_PENALTY,
                 tuple_bound: bool = True, max_tuples: int = DEFAULT_MAX_TUPLES,
                 tuple_seconds: float | None = None, two_sided: bool = False,
                 **_solver_options) -> ColumnGenerationCorrelatedResult:
    if method not in (None, "column_generation"):
        raise OptionError(f"efce with method={method!r} takes two-player games; for three or more "
                          "players use method='column_generation' (the default there)")
    if backend != "highs":
        raise OptionError("efce by column generation runs on HiGHS only (backend='highs')")
    return solve_efce_column_generation(game, objective=objective, time_limit=time_limit,
                                        max_columns=max_columns,
                                        column_tolerance=column_tolerance,
                                        exact=exact or bool(exact_gap), target_gap=target_gap,
                                        penalty=penalty, tuple_bound=tuple_bound,
                                        max_tuples=max_tuples, tuple_seconds=tuple_seconds,
                                        two_sided=two_sided)


register(Concept(
    name="efce", variant="column_generation", games=("n_player",),
    requires=("method=column_generation",),
    solve=_solve_entry, exact=False, backends=("highs",),
    summary="optimal extensive-form correlated equilibrium of an n-player game: column "
            "generation over joint pure plans (default for three or more players)",
    certificate="largest gain of any trigger deviation (EFCE gap) of the returned distribution, "
                "by lpgame.analysis.n_player_correlated_gaps",
    source="Farina 2023 Def. 8.2 and Lemma 9.2 / Prop. 9.1 (dualised trigger constraints) over "
           "a distribution on joint pure plans; column generation with a MILP oracle",
    options=(
        Option("method", str, None, "column_generation (default for three or more players; "
               "for two players the default is the correlation-plan LP)",
               choices=("column_generation",)),
        OBJECTIVE_OPTION,
        Option("max_columns", int, DEFAULT_MAX_COLUMNS,
               "column generation: stop with a partial answer at this many joint plans", minimum=1),
        Option("column_tolerance", float, DEFAULT_COLUMN_TOLERANCE,
               "column generation: reduced costs at most this fraction of the payoff range "
               "count as non-improving"),
        Option("target_gap", float, None,
               "column generation: solve the elastic (penalty) master and stop (status "
               "target_gap) at an ε-EFCE whose measured gap ε and |upper bound − "
               "objective| are both at most this fraction of the payoff range (default: the "
               "exact two-phase run to column_tolerance)"),
        Option("penalty", float, DEFAULT_PENALTY,
               "column generation with target_gap: the elastic master's first penalty M per "
               "unit of trigger violation (doubled by the run when too small)"),
        Option("tuple_bound", bool, True,
               "column generation: first solve the relaxation over relevant sequence tuples "
               "(lpgame.equilibria.correlated.efce_tuple_relaxation); its optimum is an upper bound beside "
               "the Lagrangian ones"),
        Option("max_tuples", int, DEFAULT_MAX_TUPLES,
               "column generation: the tuple relaxation is skipped above this many relevant "
               "sequence tuples"),
        Option("tuple_seconds", float, None,
               f"column generation: seconds for the tuple relaxation's LP, at most the time "
               f"limit (default: {TUPLE_BOUND_SHARE:.0%} of the time limit, "
               f"{TUPLE_BOUND_SECONDS:g} s without one)"),
        Option("two_sided", bool, False,
               "column generation with target_gap: also require the objective within the target "
               "above the best exact EFCE among the columns (a lower bound on the optimum), so "
               "|objective − optimum| is certified from both sides"),
        Option("exact_gap", bool, False, "also compute the returned distribution's EFCE gap in "
               "rational arithmetic (the distribution itself is the LP's floats)"),
    ),
))
