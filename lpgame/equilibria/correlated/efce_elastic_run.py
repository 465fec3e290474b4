"""The target-gap run of the n-player EFCE column generation
(:mod:`lpgame.equilibria.correlated.efce_n_player`): one elastic master in place of the two
phases, stopped at an ε-EFCE within the target of the smallest upper bound
(:mod:`lpgame.equilibria.correlated.efce_bounds`), with the balanced mix of the columns and the
lower bound.

**Elastic master (target gap).** With ``target_gap`` = t (a fraction of R; default None: the
exact two-phase run of :mod:`lpgame.equilibria.correlated.efce_n_player`, to
``column_tolerance``), the two phases of the master LP
(:mod:`lpgame.equilibria.correlated.efce_master`) are replaced by one elastic (penalty) master
over the same columns and cuts:

    max   Σ_k μ_k c^k − M Σ_{i,σ̂} e[i,σ̂]
    s.t.  the trigger cuts (each with its trigger's slack e[i,σ̂] ≥ 0),  Σ_k μ_k = 1,  μ ≥ 0,

priced with the objective included (as in phase 2). Its μ is in general an ε-EFCE, not an EFCE.
*Bound.* The elastic master's row duals y are ≤ 0 on the cuts (≥ rows of a maximisation) and map to
the compact LP exactly as the two-phase master's cut duals do, so they satisfy every v-column's
dual constraint; the slack columns e add only Σ_{cuts of σ̂} y_c ≥ −M, a constraint of the elastic
problem that the exact problem (e = 0) does not have. Hence for the EXACT optimal-EFCE LP, with
L(μ, v; y) = Σ_k μ_k c^k − Σ_r y_r g_r(μ, v) (g_r ≥ 0 the compact rows), every EFCE has L ≥ its
objective, and sup over μ ∈ Δ, v free is y_conv + max_π rc_y(π): the same Lagrangian bound on the
exact optimum as in phase 2, whatever M (and for convex combinations of such y, so the Wentges
smoothing and the smallest-|y| duals, which here also keep the e-columns' constraints, stay valid).
The one difference: the bound is *not* maxed with the master's value z, because z = Σ μ c − M Σ e
over the restricted columns is no lower bound on the exact optimum (μ may violate the triggers).
*Stopping.* The run stops, status ``target_gap``, at the first master whose μ has independently
measured EFCE gap ε ≤ t·R (:mod:`lpgame.analysis.n_player_correlated_gaps`) and objective within
t·R of the smallest bound U, on either side: |U − objective(μ)| ≤ t·R, since an objective above
U ≥ optimum is as far off as one below (the two-player learner's ``Checkpoint.score`` rule in
:mod:`lpgame.equilibria.correlated.efce_learning`). This is the criterion of the thesis's
Table 10.1, "1 % of the payoff range for both optimality and feasibility" (Farina 2023 §10.4). The
answer is labelled an ε-EFCE (``extra``: ``mode`` elastic, ``exact_efce`` False, ``epsilon`` =
``gap``, the measured one), not an exact EFCE.
*Penalty.* M starts at ``penalty`` (default 10, in objective units per unit of trigger violation;
both are payoff units, so M is unit-free, as the learner's λ₀ = 10). lpgame's rule, where the
thesis is silent (its learner's λ plays the same role, Prop. 10.1: exact above a finite critical
value): M is doubled (i) when μ's objective is within t·R of U but its measured gap is above t·R
and the round added no cut (the master's slacks then are μ's true violations, so only a larger M
removes them; not again before a column has been added, since the columns may hold no μ of
smaller violation), and (ii) when no column improves the elastic master (the MILP proves it
optimal over all joint plans for this M) and μ still misses the target; never past
``MAX_PENALTY``. Doubling changes only the slacks' costs; the columns, cuts and every bound found
so far stay valid.
*Rounds.* Pricing is phase 2's (alternation, then the MILP at Wentges-smoothed duals halfway to
the smallest-|y| optimal duals of the elastic master). Bounding rounds run when alternation finds
no column, and, while it still finds columns, first at ``ELASTIC_FIRST_BOUND`` of the time (early
duals give slow MILPs and useless bounds: on L3132 the first one took 35 s for a bound of 1 183
against an objective of 4.1, R = 21) and then every ``BOUND_SPACING`` times the last round's
duration, with the MILP limited to ``PERIODIC_MILP_SHARE`` of the time so far (its dual bound is
still valid). Since every dual point bounds, a periodic round does not wait for a master to which
no cut was added. At a time or column limit the run returns, of the last master's μ and the
measured μ with the smallest max(ε, |U − objective|), the one with the smaller such score,
labelled as partial. Column dropping (``ELASTIC_DROP_AFTER``: μ = 0 and a clearly negative reduced
cost for that many masters; each column at most once, so it cannot cycle) is implemented but off
by default: it did not pay (constant's docstring).

**Balanced mix and the lower bound** (since 2026-11-27;
:mod:`lpgame.equilibria.correlated.efce_balanced_mix`). The elastic master prices the *sum* of the
trigger violations, the criterion bounds their *largest*, so the master's μ is rarely the mix of
its columns that best meets the criterion. After each bounding round (and at the time limit, in
half of the reserved time) the run solves the balanced LP: μ over the columns minimising s subject
to every trigger slack ≤ s·R and U − s·R ≤ objective ≤ U, with the master's cut separation; a μ
that, measured independently, has ε ≤ t·R and U − objective ≤ t·R ends the run (status
``target_gap``), as the master's own μ does. That rule bounds the objective from below only
(objective ≥ U − t·R ≥ OPT − t·R): an ε-EFCE's objective can lie *above* OPT, and violation buys
much objective on these games. So every answer of a target-gap run also reports ``lower_bound`` L,
the objective of the best exact EFCE over the final columns (the restricted exact master, f(0) of
:func:`~lpgame.equilibria.correlated.efce_balanced_mix.best_within_violation`; L ≤ OPT),
``two_sided_gap`` = max(U − objective, objective − L) ≥ |objective − OPT|, and ``two_sided`` (that
and ε within the target). With ``two_sided=True`` the rule is two-sided: each balancing step first
solves f(0) (kept as ``RunBounds.lower``; its exact EFCE is a candidate too), the balanced LP adds
objective ≤ L + s·R, and a μ stops the run only when max(ε, |U − objective|, objective − L) ≤ t·R.
``BALANCE = False`` turns the balanced mix off.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from lpgame import progress
from lpgame.equilibria.correlated.efce_balanced_mix import balanced_mix, best_within_violation
from lpgame.equilibria.correlated.efce_bounds import (
    BOUND_RESERVE,
    BOUND_SPACING,
    RunBounds,
    bounding_round,
)
from lpgame.equilibria.correlated.efce_master import CUT_TOLERANCE, MasterTimeLimitError
from lpgame.equilibria.correlated.efce_pricing import Model, price_by_alternation

DEFAULT_PENALTY = 10.0
"""The elastic master's first penalty M per unit of trigger violation (objective units; both are
in payoff units, so M is unit-free, as the two-player learner's λ₀ = 10 is)."""
MAX_PENALTY = 1e8
"""The elastic master's penalty is not doubled past this (the LP's numerics)."""
ELASTIC_DROP_AFTER = 0
"""Elastic run: a column with μ = 0 and reduced cost below −``DROP_REDUCED_COST``·R at this many
masters in a row is removed from the master (0: never, the default). Tried with 20: GL33 max P1's
master LP time halved (30 → 15 s of 82 s) with the same bound at the end, but K35 max P1 reached
1 % in 20.2 s instead of 2.3 s (the later duals missed the first bounding round), and D32's bound
was no better; so it is off (docs/explanation/benchmarks.md, branch i23-elastic)."""
DROP_EVERY = 10
DROP_REDUCED_COST = 1e-3
ELASTIC_FIRST_BOUND = 0.2
"""Elastic run with a time limit: while alternation finds columns, the first bounding round waits
until this fraction of the column generation's time (later ones: ``BOUND_SPACING``)."""
ELASTIC_FIRST_BOUND_SECONDS = 20.0
"""The same without a time limit, in seconds."""
PERIODIC_MILP_SHARE = 0.25
PERIODIC_MILP_SECONDS = 2.0
"""A bounding round run while alternation still finds columns gives its MILP at most
max(``PERIODIC_MILP_SECONDS``, ``PERIODIC_MILP_SHARE`` × the run's time so far); its dual bound
is a valid bound when it stops at that limit."""
BALANCE = True
"""Whether the target-gap run also tries the balanced mix of its columns after each bounding
round and at its time limit (:mod:`lpgame.equilibria.correlated.efce_balanced_mix`)."""


def target_score(objective: float, gap: float, bounds: RunBounds, two_sided: bool) -> float:
    """How far a μ is from the target-gap criterion, in payoff units: max(ε, |U − objective|)
    and, with ``two_sided``, objective − L (infinite while there is no L)."""
    score = max(gap, abs(bounds.upper - objective))
    if two_sided:
        score = max(score, np.inf if bounds.lower is None else objective - bounds.lower)
    return score


def exact_lower_bound(model: Model, bounds: RunBounds, measure, tol: float,
                      limit: float | None) -> tuple[float, float, np.ndarray] | None:
    """The best exact EFCE over the columns (the violation frontier at 0), offered to
    ``bounds.lower`` when separation closed: (objective, measured gap, μ), or None."""
    found = best_within_violation(model, 0.0, CUT_TOLERANCE * tol, limit)
    if found is None or not found[2]:
        return None
    objective, gap = measure(found[0])
    bounds.lower = objective if bounds.lower is None else max(bounds.lower, objective)
    return objective, gap, found[0]


def run_elastic_master(model: Model, start: float, main_limit: float | None, tol: float,
                       target: float, penalty: float, max_columns: int, verbose: bool, measure,
                       scale: float, bounds: RunBounds, two_sided: bool = False) -> dict:
    """The target_gap run (module docstring, "Elastic master"): one master with the slacks e at
    cost −M, the penalty M doubled by lpgame's rule, stopped at the first μ that is an ε-EFCE
    with ε ≤ target and whose objective is within target of the smallest upper bound (Lagrangian,
    or the one ``bounds`` starts from: the tuple relaxation's or the best leaf's, whichever is
    smaller); ``bounds`` is updated in place."""
    history: list[dict] = []
    iterations = 0
    # no bounding round while alternation finds columns before this (early duals give slow
    # MILPs and useless bounds: 35 s and a bound of 1 183 against an objective of 4.1 on L3132)
    next_bound_at = start + (ELASTIC_FIRST_BOUND * main_limit if main_limit is not None
                             else ELASTIC_FIRST_BOUND_SECONDS)
    status, last, best, e = None, None, None, 0.0
    penalties = [penalty]
    dropped = [0]
    parts = {"master": 0.0, "separation": 0.0, "check": 0.0, "alternation": 0.0, "bounding": 0.0,
             "balance": 0.0}
    priced_since_doubling = True
    model.start_elastic(penalty)

    def left() -> float | None:
        return None if main_limit is None else main_limit - (time.perf_counter() - start)

    def model_objective(mu_: np.ndarray) -> float:
        return float(np.dot(mu_, model.costs[:mu_.size]) / mu_.sum())

    def check(mu_: np.ndarray, z_: float) -> tuple[bool, float | None]:
        """(stop?, measured gap or None): μ is measured (independently) only when its objective is
        within target of the smallest bound; it stops the run when its gap is within target too
        (Checkpoint.score of the two-player learner: max(gap, |U − objective|) ≤ target)."""
        nonlocal best
        if bounds.upper is None or abs(bounds.upper - model_objective(mu_)) > target:
            return False, None
        obj_, gap_ = measure(mu_)
        score = target_score(obj_, gap_, bounds, two_sided)
        history.append({"iteration": iterations, "event": "check", "master": z_,
                        "objective": obj_, "measured_gap": gap_, "upper_bound": bounds.upper,
                        "lower_bound": bounds.lower, "penalty": penalty,
                        "columns": len(model.columns),
                        "seconds": time.perf_counter() - start})
        if best is None or score <= best[0]:
            best = (score, mu_.copy())
        return score <= target, gap_

    def balance(limit: float | None) -> bool:
        """The balanced mix over the current columns (:mod:`lpgame.equilibria.correlated.efce_balanced_mix`):
        μ minimising max(ε, |U − objective|) against the cuts, measured independently and kept as
        ``best`` when it scores better; True when it meets the target."""
        nonlocal best
        if (not (BALANCE or two_sided) or bounds.upper is None
                or best is not None and best[0] <= target):
            return False
        t_part = time.perf_counter()
        entry = {"iteration": iterations, "event": "balance", "upper_bound": bounds.upper,
                 "columns": len(model.columns)}
        met = False
        # the lower bound L only where the rule needs it (its LP, separated, cost a default
        # L3132 max P2 run its 1 % within 1 500 s); default runs compute it once, at the end
        exact = exact_lower_bound(model, bounds, measure, tol, limit) if two_sided else None
        if exact is not None:                  # the best exact EFCE may meet the target itself
            score = target_score(exact[0], exact[1], bounds, two_sided)
            if best is None or score <= best[0]:
                best = (score, exact[2])
            met = score <= target
            entry.update({"exact_objective": exact[0], "exact_gap": exact[1]})
            if met:
                entry.update({"answer": "exact", "objective": exact[0], "measured_gap": exact[1]})
        remaining = None if limit is None else limit - (time.perf_counter() - t_part)
        found = (None if met or not BALANCE or two_sided and bounds.lower is None
                 or remaining is not None and remaining <= 0
                 else balanced_mix(model, bounds.upper, scale, CUT_TOLERANCE * tol, remaining,
                                   bounds.lower if two_sided else None))
        entry["lower_bound"] = bounds.lower
        if found is not None:
            obj_, gap_ = measure(found.mu)
            score = target_score(obj_, gap_, bounds, two_sided)
            entry.update({"answer": "balanced", "lp_score": found.score * scale,
                          "closed": found.closed, "rounds": found.rounds,
                          "cuts_added": found.cuts_added, "objective": obj_,
                          "measured_gap": gap_})
            if best is None or score <= best[0]:
                best = (score, found.mu.copy())
            met = score <= target
        parts["balance"] += time.perf_counter() - t_part
        history.append({**entry, "met": met, "seconds": time.perf_counter() - start})
        if verbose:
            print(f"[efce cg] balanced mix: {entry}", file=sys.stderr, flush=True)
        return met

    idle = np.zeros(0, dtype=np.int64)

    def drop_idle_columns(mu_: np.ndarray) -> np.ndarray:
        """Count, per column, the masters in a row where it had μ = 0 and reduced cost below
        −DROP_REDUCED_COST·R; every DROP_EVERY masters remove those idle for
        ``ELASTIC_DROP_AFTER`` (not the best measured μ's support). μ over the columns kept."""
        nonlocal idle, best
        idle = np.r_[idle, np.zeros(mu_.size - idle.size, dtype=np.int64)]
        out = (mu_ <= 0.0) & (model.column_duals < -DROP_REDUCED_COST * scale)
        idle = np.where(out, idle + 1, 0)
        if iterations % DROP_EVERY:
            return mu_
        drop = (idle >= ELASTIC_DROP_AFTER) & model.droppable()
        if best is not None:
            drop[:best[1].size] &= best[1] <= 0.0
        drop[0] = False                                      # the first column stays
        if not drop.any():
            return mu_
        keep = model.drop_columns(drop)
        dropped[0] += int(drop.sum())
        idle = idle[keep]
        if best is not None:
            best = (best[0], np.r_[best[1], np.zeros(keep.size - best[1].size)][keep])
        return mu_[keep]

    def double(reason: str) -> None:
        nonlocal penalty, priced_since_doubling
        if penalty * 2.0 > MAX_PENALTY:
            return
        priced_since_doubling = False
        penalty *= 2.0
        penalties.append(penalty)
        model.set_penalty(penalty)
        history.append({"iteration": iterations, "event": "penalty", "penalty": penalty,
                        "reason": reason, "seconds": time.perf_counter() - start})
        if verbose:
            print(f"[efce cg] penalty doubled to {penalty:g} ({reason})", file=sys.stderr,
                  flush=True)

    while True:
        remaining = left()
        if remaining is not None and remaining <= 0:
            status = "time_limit"
            break
        t_part = time.perf_counter()
        try:
            z, mu, duals, e = model.solve_master(remaining)
        except MasterTimeLimitError:
            status = "time_limit"
            break
        parts["master"] += time.perf_counter() - t_part
        iterations += 1
        if ELASTIC_DROP_AFTER:
            mu = drop_idle_columns(mu)
        last = (z, mu.copy(), duals)
        t_part = time.perf_counter()
        cuts = model.separate(mu, CUT_TOLERANCE * tol)
        parts["separation"] += time.perf_counter() - t_part
        progress.report("EFCE column generation, elastic", iteration=iterations,
                        columns=len(model.columns), master=z, violation=e, bound=bounds.upper)
        if verbose:
            print(f"[efce cg] it {iterations} elastic M {penalty:g} cols {len(model.columns)} "
                  f"cuts {model.num_cuts} (+{cuts}) master {z:.6g} objective "
                  f"{model_objective(mu):.6g} e {e:.3g} bound {bounds.upper} "
                  f"t {time.perf_counter() - start:.1f}s", file=sys.stderr, flush=True)
        t_part = time.perf_counter()
        stop, gap = check(mu, z)
        parts["check"] += time.perf_counter() - t_part
        if stop:
            status = "target_gap"
            break
        if gap is not None and not cuts and priced_since_doubling:
            # the objective is close to the bound but μ violates the triggers by more than the
            # target, and the master's slacks are complete (no cut added): M is too small. Not
            # again before a column is added: the columns may hold no μ of smaller violation.
            double("objective within target of the bound, measured gap above it")
            continue
        if len(model.columns) >= max_columns:
            status = "column_limit"
            break
        t_part = time.perf_counter()
        (tuples, coefs, const), added = price_by_alternation(model, duals, mu, 2, tol,
                                                             bounds.center)
        parts["alternation"] += time.perf_counter() - t_part
        priced_since_doubling = priced_since_doubling or added > 0
        # every dual point gives a valid bound (cuts just added or not), so a periodic bounding
        # round does not wait for a master without new cuts; a stalled alternation does
        if (cuts or added) and time.perf_counter() < next_bound_at or cuts and not added:
            continue
        # bounding round, as in phase 2; the bound is y_conv + max rc (no max with z: the
        # elastic master's value is not a lower bound on the optimal EFCE value)
        t_round = time.perf_counter()
        added = bool(added)
        # a periodic round (alternation still finds columns) gives its MILP a share of the time
        # so far; a round where alternation stalled needs the MILP's answer (a column or a proof)
        share = max(PERIODIC_MILP_SECONDS, PERIODIC_MILP_SHARE * (t_round - start))
        milp_limit = (left() if not added else share if left() is None
                      else min(left(), share))
        objective = model_objective(mu)
        added, proved = bounding_round(
            model, bounds, z, duals, (tuples, coefs, const), milp_limit, left(),
            penalty=penalty, floor=None, tol=tol, added=added, reference=objective,
            within=target, history=history, start=start, verbose=verbose,
            entry={"iteration": iterations, "phase": "elastic", "columns": len(model.columns),
                   "master": z, "objective": objective, "penalty": penalty})
        priced_since_doubling = priced_since_doubling or added
        next_bound_at = time.perf_counter() + BOUND_SPACING * (time.perf_counter() - t_round)
        parts["bounding"] += time.perf_counter() - t_round
        if balance(left()):
            status = "target_gap"
            break
        if added or cuts:
            continue
        stop, gap = check(mu, z)
        if stop:
            status = "target_gap"
            break
        if not proved:
            status = "time_limit"
            break
        # no column improves: the elastic master is optimal over all joint plans for this M,
        # and μ still misses the target (too much violation, or objective above the bound)
        double("elastic master optimal over all columns, target not met")
    if status == "time_limit" and main_limit is not None:
        # half of the time kept back for the last bound: the balanced mix of the final columns
        if balance(0.5 * BOUND_RESERVE / (1.0 - BOUND_RESERVE) * main_limit):
            status = "target_gap"
    return {"status": status, "last": last, "best": best, "history": history,
            "iterations": iterations, "violation": e, "penalty": penalty, "penalties": penalties,
            "seconds": parts, "dropped_columns": dropped[0]}
