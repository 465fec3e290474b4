"""Upper bounds of the n-player EFCE column generation
(:mod:`lpgame.equilibria.correlated.efce_n_player`): the Lagrangian bounds of the bounding
rounds, the tuple relaxation's bound, the columns seeded at the relaxation's duals, and the run's
record of them (:class:`RunBounds`). The LP they bound is the compact optimal-EFCE LP of
:mod:`lpgame.equilibria.correlated.efce_master` (Farina 2023, Lemma 9.2 / Prop. 9.1), priced as
in :mod:`lpgame.equilibria.correlated.efce_pricing`.

**Bounds and stopping.** The master's right-hand sides are 0 except the convexity row, so any
duals y that are feasible for the v-columns (y ≤ 0 on the ≥ rows) give the Lagrangian bound
max_π (c(π) − Σ_{r≠conv} y_r a_r(π)) on the full optimum; the MILP gives it exactly, or an upper
bound on it (its dual bound) when it stops at its limit. In phase 2 a bounding round (the MILP at
duals smoothed towards the best-bound duals, Wentges, factors 0.5 then 0) runs when alternation
finds no column, and also every ``BOUND_SPACING`` times its own duration while alternation still
finds columns. It prices at duals halfway between the master's simplex duals and the master's
optimal duals of smallest Σ|y| (a small LP over the cut duals): on one GL33 master (max P2,
1 723 columns) that took the bound's distance to the master from 1.07 to 0.41 (R = 4.5). The
run stops, certified optimal, when the smallest bound − z_RMP ≤ ``column_tolerance``·R
(R = payoff range). At the time or column limit it returns the best phase-2 μ (or the phase-1 μ,
labelled as not an EFCE) with its objective, the smallest upper bound seen and their
difference. The bounds are the Lagrangian ones, the tuple relaxation's (below), and the trivial
max_z w·u(z) over the leaves chance reaches (the objective is an expectation of w·u(z)), which
the run starts from: the MILP's dual bound can be far above it (197.8 against 14 at zero duals
on L3132 max P1, R = 21).

**Tuple-relaxation bound** (since 2026-11-25). Before the first master, the run solves the LP of
:mod:`lpgame.equilibria.correlated.efce_tuple_relaxation`: Prop. 9.1 over the relevant sequence
*tuples* with the n-player von Stengel–Forges rows, a relaxation of the optimal-EFCE LP (Ξ_n ⊆
𝒱_n), so its optimum U_tuple bounds the optimum. It starts the run's smallest upper bound (both
modes); every Lagrangian bound is still computed and kept when smaller, and the Wentges centre is
the duals of the best *Lagrangian* bound, as before. ``tuple_bound=False`` turns it off; it is
skipped (the reason in ``extra["tuple_relaxation"]``) above ``max_tuples`` tuples or when its LP
does not finish in ``tuple_seconds`` (by default ``TUPLE_BOUND_SHARE`` of the time limit,
``TUPLE_BOUND_SECONDS`` without one). On K35, D32 and GL33 it is 0.01–0.43 % of R above the best
EFCE values the runs find, where the Lagrangian bounds ended 0.2–18 % above (90 s), so the elastic
run meets 1 % on all nine of their cases, and the exact run certifies an exact EFCE within 1 % of
the bound on all nine (D32 max P2 to optimality) (docs/explanation/benchmarks.md, "Tuple relaxation").
On L3132 its LP takes about 270 s, so the Leduc rows need a time limit of about 20 minutes; with
1 500 s the elastic run meets 1 % on max P1 (353 s) and, with the balanced mix
(:mod:`lpgame.equilibria.correlated.efce_elastic_run`), on max P2 (992 s); max P3 met it in one of
two runs (875 s; the other ended 1.95 % of R from the bound). L3133's LP takes 490–670 s; with
``tuple_seconds=900`` all three of its objectives meet 1 % (638–1 414 s). L3223's (796 575 tuples)
did not finish in 2 000 s.

**Relaxation-guided pricing** (since 2026-11-25). The relaxation's LP duals on its trigger rows
(:class:`~lpgame.equilibria.correlated.efce_tuple_relaxation.TriggerDuals`) live in the same dual
space as the compact LP: its deviation and obedience rows are the compact rows with ξ in place of
Σ_k μ_k ξ(π^k), and a joint plan's tuple indicator ξ(π) satisfies every 𝒱_n row. So, with ȳ
those duals (rebuilt top-down into exact treeplex flows, :meth:`Model.flow_feasible`, since a
solver's duals meet the v-columns' constraints only to its tolerance), max_π c(π) − Σ ȳ·g(π) is a
Lagrangian bound on the optimal EFCE value, at most U_tuple (the maximum over 𝒱_n ⊇ Ξ_n). lpgame
uses ȳ three ways (``GUIDED``; the thesis does not price this way, it has no column generation):
(1) before the first master, alternation from the first column and the MILP at ȳ (at most
``SEED_MILP_SECONDS``) add the joint plans best at ȳ, and the MILP's dual bound is offered as a
Lagrangian bound; (2) ȳ is the first Wentges centre (``RunBounds.center``, with U_tuple as its
bound), so bounding rounds smooth towards it until a Lagrangian bound beats U_tuple; (3) each
alternation round first runs at the master's duals moved ``GUIDE_SMOOTHING`` of the way to the
centre, keeping a plan only when it improves at the master's own duals (so the master still
grows only by improving columns and every guarantee above stands). Measured (90 s, target
0.1 %, 2 shared cores; docs/explanation/benchmarks.md, "Pricing at the relaxation's duals"): D32 max
P1 is solved in 34 s (objective = U to 10⁻¹⁴, ε = 4·10⁻¹⁴·R; without guidance it had stayed at
0.29688, 0.43 % of R below, even in 600 s), GL33 max P1 and P3 reach 0.1 % in 13 s and 12 s (not
within 90 s before), but GL33 max P2 ends at 0.107 % (0.1 % at 31 s before).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass

import numpy as np

from lpgame.equilibria.correlated.efce_pricing import Model
from lpgame.equilibria.correlated.efce_tuple_relaxation import tuple_relaxation_bound
from lpgame.errors import ModelTooLargeError, SolverError, SolverTimeLimitError
from lpgame.sequence_form import SequenceForm

TUPLE_BOUND_SHARE = 0.25
"""With a time limit, the tuple relaxation's LP gets at most this share of it (then the run goes
on without that bound), unless ``tuple_seconds`` says otherwise."""
TUPLE_BOUND_SECONDS = 120.0
"""Without a time limit, the tuple relaxation's LP gets at most this many seconds, unless
``tuple_seconds`` says otherwise."""
BOUND_RESERVE = 0.15
"""With a time limit, this fraction of it is kept for a last MILP that bounds the optimum."""
SMOOTHING = (0.5, 0.0)
"""Wentges smoothing factors tried in turn by the phase-2 MILP pricing (0: the current duals)."""
BOUND_SPACING = 2.0
"""In phase 2, while alternation finds columns, the bounding MILP runs again only after this many
times its last duration (so at most about a third of the time goes to bounds)."""
SEED_MILP_SECONDS = 20.0
"""The MILP at the relaxation's duals before the first master gets at most this many seconds
(and a tenth of the time left)."""


@dataclass
class RunBounds:
    """The run's upper bounds (module docstring, "Bounds and stopping"): ``upper``, the smallest
    of all (the best leaf's, the tuple relaxation's, every Lagrangian one); ``lagrangian``, the
    smallest Lagrangian bound, and ``center``, its duals (the Wentges centre). ``lower``: the
    target-gap run's lower bound on the optimum, the best exact EFCE over its columns
    (:func:`~lpgame.equilibria.correlated.efce_balanced_mix.best_within_violation` at 0), None
    before any."""

    upper: float | None
    lagrangian: float | None = None
    center: np.ndarray | None = None
    milp_seconds: float = 0.0
    lower: float | None = None

    def offer(self, bound: float | None, duals: np.ndarray) -> None:
        """Keep a Lagrangian ``bound`` found at ``duals`` when it is the smallest so far."""
        if bound is None or (self.lagrangian is not None and bound >= self.lagrangian):
            return
        self.lagrangian, self.center = bound, duals.copy()
        self.upper = bound if self.upper is None else min(self.upper, bound)


def bounding_round(model: Model, bounds: RunBounds, z: float, duals: np.ndarray, monomials: tuple,
                   milp_limit: float | None, small_limit: float | None, *, penalty: float | None,
                   floor: float | None, tol: float, added: bool, reference: float,
                   within: float, history: list, entry: dict, start: float,
                   verbose: bool) -> tuple[bool, bool]:
    """One bounding round of phase 2 or of the elastic run (module docstring, "Bounds and
    stopping"): price at duals halfway to the master's smallest-|y| optimal duals
    (:meth:`Model.small_duals`, with the elastic ``penalty``), then run the MILP at those duals
    smoothed towards ``bounds.center`` by each factor of ``SMOOTHING`` in turn (Wentges). Every
    MILP's dual bound, minus the constant, is a Lagrangian bound, maxed with ``floor`` (phase 2's
    master value; None in the elastic run, whose master value bounds nothing) and offered to
    ``bounds``. A column is added only when it improves at the halfway duals (not smoothed).
    The round stops at an added column (or at once when ``added``: alternation already added
    one), when the smallest bound is within ``within`` of ``reference`` (the run's stopping
    rule), or at a MILP that did not finish. Each MILP is logged in ``history`` as ``entry`` and
    its outcome (seconds since ``start``). Returns (a column was added, the last MILP
    finished)."""
    small = model.small_duals(z, small_limit, penalty)
    if small is not None:                          # halfway to the smallest optimal duals
        duals = 0.5 * small + 0.5 * duals
        monomials = model.monomials(duals, 2)
    tuples, coefs, const = monomials
    proved = False
    for alpha in SMOOTHING if bounds.center is not None else (0.0,):
        y = duals if alpha == 0.0 else alpha * bounds.center + (1.0 - alpha) * duals
        t_y, c_y, k_y = monomials if alpha == 0.0 else model.monomials(y, 2)
        t_m = time.perf_counter()
        plans, value, upper, proved = model.milp_oracle(t_y, c_y, k_y, milp_limit)
        bounds.milp_seconds += time.perf_counter() - t_m
        bound = None
        if np.isfinite(upper):
            bound = upper - k_y if floor is None else max(floor, upper - k_y)
        bounds.offer(bound, y)
        true_rc = model.evaluate(tuples, coefs, const, plans) if plans is not None else -np.inf
        history.append({**entry, "smoothing": alpha, "oracle_value": true_rc,
                        "oracle_upper": upper, "bound": bound, "proved": proved,
                        "seconds": time.perf_counter() - start})
        if verbose:
            print(f"[efce cg] bounding at alpha {alpha}: bound {bound} "
                  f"({time.perf_counter() - t_m:.2f}s)", file=sys.stderr, flush=True)
        if true_rc > tol and model.add(plans, 2) or added:
            return True, proved
        if bounds.upper is not None and abs(bounds.upper - reference) <= within or not proved:
            break
    return False, proved


def tuple_relaxation_report(sf: SequenceForm, w: np.ndarray, wanted: bool, max_tuples: int,
                            time_limit: float | None, verbose: bool,
                            seconds: float | None = None) -> tuple:
    """The tuple relaxation's upper bound (:mod:`lpgame.equilibria.correlated.efce_tuple_relaxation`)
    as a report: ``upper_bound`` (None when not computed) and why not, tuples, seconds; and the
    relaxation's result (None when not computed). Its LP gets ``seconds`` (at most the run's
    ``time_limit``), or by default ``TUPLE_BOUND_SHARE`` of the time limit
    (``TUPLE_BOUND_SECONDS`` without one)."""
    if not wanted:
        return {"upper_bound": None, "skipped": "tuple_bound=False"}, None
    t0 = time.perf_counter()
    if seconds is not None:
        limit = seconds if time_limit is None else min(seconds, time_limit)
    else:
        limit = TUPLE_BOUND_SECONDS if time_limit is None else TUPLE_BOUND_SHARE * time_limit
    try:
        found = tuple_relaxation_bound(sf, w, time_limit=limit, max_tuples=max_tuples)
    except (ModelTooLargeError, SolverTimeLimitError, SolverError) as exc:
        return {"upper_bound": None, "skipped": f"{type(exc).__name__}: {exc}",
                "seconds": time.perf_counter() - t0}, None
    if verbose:
        print(f"[efce cg] tuple relaxation bound {found.upper_bound:.6g} ({found.tuples} tuples, "
              f"{found.seconds:.2f}s)", file=sys.stderr, flush=True)
    return ({"upper_bound": found.upper_bound, "tuples": found.tuples, "seconds": found.seconds},
            found)


def seed_columns(model: Model, guide: np.ndarray, first: list, remaining: float | None,
                 bounds: RunBounds, history: list, start: float, verbose: bool) -> int:
    """Columns priced at the tuple relaxation's duals before the first master (module docstring,
    "Relaxation-guided pricing"): alternation from the first column, then the MILP at those
    duals (at most ``SEED_MILP_SECONDS``, and a tenth of the time left), whose dual bound is a
    Lagrangian bound (offered to ``bounds`` and logged in ``history``). The number of columns
    added."""
    tuples, coefs, const = model.monomials(guide, 2)
    added = 0
    plans, value = model.alternate(tuples, coefs, const, first)
    added += model.add(plans, 1)
    limit = SEED_MILP_SECONDS if remaining is None else min(SEED_MILP_SECONDS, 0.1 * remaining)
    t_m = time.perf_counter()
    plans, value, upper, proved = model.milp_oracle(tuples, coefs, const, limit)
    bounds.milp_seconds += time.perf_counter() - t_m
    if plans is not None:
        added += model.add(plans, 1)
    bound = float(upper - const) if np.isfinite(upper) else None
    bounds.offer(bound, guide)
    history.append({"event": "seed", "columns": len(model.columns), "bound": bound,
                    "proved": proved, "seconds": time.perf_counter() - start})
    if verbose:
        print(f"[efce cg] seeded {added} columns at the relaxation's duals; Lagrangian bound "
              f"{upper - const:.6g} ({time.perf_counter() - t_m:.2f}s)", file=sys.stderr,
              flush=True)
    return added
