"""Optimal EFCE of a game with any number of players by learning on the correlation DAG: the
mediator runs predictive regret matching⁺ over the DAG's flow polytope against learning (or
best-responding) trigger deviators in the Lagrangian of Farina 2023, ch. 10.

**Formulation.** Farina 2023, ch. 10 (notes/farina-thesis.md §1.10) writes optimal EFCE as the
saddle point of the Lagrangian

    L(ξ, z) = c·ξ − λ Σ_{i, t} ξᵀ A_{i,t} z_{i,t},      z_{i,t} ∈ co{0, Q_{i,⪰j}},

where ξᵀ A_{i,t} z_{i,t} is what player i gains by the trigger deviation t = (j, a) to the plan
z_{i,t} of her subtree at j (the deviation rows of Prop. 9.1 minus the obedience row), and whose
saddle points are optimal EFCEs for λ above a finite critical value λ* (Prop. 10.1). Here ξ is
written exactly as the linear image ξ = R x + r of a flow x of the correlation DAG
(:mod:`~lpgame.equilibria.correlated.correlation_dag`, Zhang, Farina, Celli & Sandholm 2022), so
the mediator's set is the DAG's flow polytope, for any number of players.

**Dynamics.** The mediator's flow is learned by predictive regret matching⁺ (Farina, Kroer &
Sandholm 2021) at every belief of the DAG, with the DAG's counterfactual values
(:class:`lpgame.equilibria.teams.tmecor_learning.DagPasses`). The deviators
(:mod:`~lpgame.equilibria.correlated.efce_dag_deviators`) are, by default
(``deviators="regret"``), PRM⁺ regret minimisers on co{0, Q_{⪰j}}, updated first in each
iteration (alternation), as in the thesis's experiments (both sides local regret minimisers);
``"best_response"`` makes each best-respond to the current ξ instead (a best responder has no
regret, but its play jumps, and on GL33 the bound gap then stalls near 8 % of the range). In this
zero-sum game Thm. 10.1 bounds c·ξ̄'s distance to the optimum and the average's gap by the
players' average regrets. The averages weigh iteration t by t² (``averaging="quadratic"``), t or 1.

**λ.** Thm. 10.1's gap bound is max c·(ξ − ξ′)/λ + regrets/(λT) and, below λ*, the saddle point
itself need not be an EFCE (Prop. 10.1); a large λ scales the losses the mediator sees, and its
regrets, by λ, so the objective side converges more slowly (GL33 to 0.1 %: 3,327 iterations at
λ = 8, 722 at λ = 2). With ``adaptive=True`` (the default) the run starts at ``multiplier`` and
doubles λ when, at two checks in a row, the gap of the averaged plan is above the target while the
bound gap U − c·ξ̄ is within half of it: the objective side has converged, so the remaining gap is
the first term or a saddle point that is not an EFCE, both cured by a larger λ and neither by more
iterations at this one. The averages restart at each doubling (the regrets are kept); λ doubles at
most log₂(λ*/λ₀) + 1 times before it exceeds λ*.

**Checks.** Every max(10, t/8) iterations the cheap bounds are computed: the averaged ξ̄'s trigger
gain on the DAG (a best-response pass per player) and the upper bound U = max_x L(x, w̄) at the
average w̄ of λ_t z_t (one best-response pass over the DAG): w̄ is a nonnegative multiple of a
point of co{0, Q}, so for every EFCE ξ, L(ξ, w̄) ≥ c·ξ and U ≥ OPT; the least U seen is kept. Only
when both are within the target is the averaged flow decomposed into joint pure plans
(:meth:`CorrelationDag.decompose_decisions`, the greedy walk with its adjacency kept on the
DAG) and its EFCE gap measured by
:mod:`lpgame.analysis.n_player_correlated_gaps`, which never reads the DAG (after a failed
measurement, not again before t grows by half). The run stops (status ``converged``) only when
that measured gap, and U minus the measured distribution's objective, are both at most
``target_gap`` × the payoff range R (the thesis's criterion, Tables 10.1/10.2), else at
``iterations`` or ``time_limit`` (a labelled partial answer). Payoffs are divided by R inside the
run, so λ is in units of the payoff range. ``extra["profile_seconds"]`` splits the run's time into
the mediator's DAG passes, the deviators, the cheap bounds and the measurements.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from lpgame import progress
from lpgame.analysis.n_player_correlated_gaps import expected_payoffs, n_player_efce_gap
from lpgame.equilibria.correlated.ce_cce import (
    OBJECTIVE_OPTION,
    CorrelatedResult,
    objective_name,
    objective_weights,
)
from lpgame.equilibria.correlated.correlation_dag import (
    DEFAULT_MAX_EDGES,
    CorrelationDag,
    build_correlation_dag,
    reduced_plans,
)
from lpgame.equilibria.correlated.efce_correlation_dag import (
    leaf_tuple_keys,
    team_tree_and_weights,
    tuple_strides,
)
from lpgame.equilibria.correlated.efce_dag_deviators import (
    DeviatorRegrets,
    best_deviations,
    player_deviations,
)
from lpgame.equilibria.teams.tmecor_learning import DagPasses
from lpgame.errors import OptionError
from lpgame.lp.scaling import float_bounds
from lpgame.lp.sorted_keys import find_keys
from lpgame.registry import Concept, Option, register
from lpgame.result import Certificate

DEFAULT_TARGET_GAP = 0.01
DEFAULT_LAMBDA = 1.0
DEFAULT_ITERATIONS = 20_000
DEFAULT_DEVIATORS = "regret"
DEFAULT_ADAPTIVE = True
DEVIATORS = ("regret", "best_response")
AVERAGING_POWERS = {"quadratic": 2.0, "linear": 1.0, "uniform": 0.0}
DEFAULT_AVERAGING = "quadratic"
PROGRESS_SECONDS = 2.0
MEASURE_TOLERANCE = 1e-3
"""The averaged flow's greedy decomposition stops when this much probability is left (the rest is
dropped and the distribution renormalised; the returned distribution is the one measured)."""


@dataclass
class DagLearning:
    """The figures of a run (module docstring), in the game's units."""

    flow: np.ndarray
    objective: float
    upper_bound: float
    gap: float
    payoff_range: float
    status: str
    iterations: int
    seconds: float
    history: list
    multiplier: float
    profile: dict


def _adapter(dag: CorrelationDag) -> SimpleNamespace:
    """The correlation DAG in the attribute names :class:`DagPasses` reads."""
    return SimpleNamespace(
        num_beliefs=dag.num_beliefs, num_edges=dag.num_edges, edge_belief=dag.edge_belief,
        child_edge=dag.child_edge, child_belief=dag.child_belief, root_beliefs=dag.root_beliefs,
        num_leaves=dag.num_leaves, leaf_edge=dag.leaf_edge, leaf_index=dag.leaf_id,
        root_leaves=dag.root_leaves, edge_actions=dag.edge_actions)


def learn_efce_on_dag(sf, dag: CorrelationDag, objective="welfare",
                      target_gap: float = DEFAULT_TARGET_GAP, multiplier: float = DEFAULT_LAMBDA,
                      iterations: int = DEFAULT_ITERATIONS, time_limit: float | None = None,
                      deviators: str = DEFAULT_DEVIATORS, adaptive: bool = DEFAULT_ADAPTIVE,
                      averaging: str = DEFAULT_AVERAGING):
    """The run of the module docstring. Returns (DagLearning, plans, probabilities, check)."""
    start = time.perf_counter()
    n = sf.num_players
    w = objective_weights(objective, n)
    lo, hi = float_bounds(sf.terminal_payoffs)
    spread = float(hi - lo) if hi > lo else 1.0
    strides = tuple_strides(sf)
    leaf_keys = leaf_tuple_keys(sf, dag, strides)
    keys, first = np.unique(leaf_keys, return_index=True)
    full = sf.terminal_sequences.astype(np.int64) @ strides
    c = np.bincount(find_keys(keys, full, "leaf tuples"),
                    weights=sf.terminal_chance * (sf.terminal_payoffs @ w) / spread,
                    minlength=keys.size)
    players = [player_deviations(sf, i, keys, strides, spread) for i in range(n)]
    learners = [DeviatorRegrets(d) for d in players] if deviators == "regret" else None
    passes = DagPasses(_adapter(dag))
    roots_at = np.flatnonzero(passes.root_leaves)
    E = passes.num_edges
    leaf_map = np.zeros(dag.num_leaves)
    power = AVERAGING_POWERS[averaging]
    clock = dict.fromkeys(("mediator", "deviators", "bounds", "measure"), 0.0)

    def tuples(x: np.ndarray) -> np.ndarray:
        return passes.realization(x)[first]

    def edge_utility(g: np.ndarray) -> tuple[np.ndarray, float]:
        leaf_map[:] = 0.0
        leaf_map[first] = g
        # a sum over the root leaves, not a BLAS dot: a threaded dot of 10⁴ entries is slower
        return passes.leaf_to_edge @ leaf_map, float(leaf_map[roots_at].sum())

    regrets, pi = np.zeros(E), passes.uniform.copy()
    x = passes.flow(pi)
    history: list[tuple] = []
    status, next_check, next_measure, t, shown = "iteration_limit", 10, 0, 0, start
    result, upper, lam, stalls = None, np.inf, float(multiplier), 0
    x_sum, dev_sum, weight_sum = np.zeros(E), np.zeros(keys.size), 0.0
    for t in range(1, iterations + 1):
        t0 = time.perf_counter()
        xi = tuples(x)
        t1 = time.perf_counter()
        if learners is None:
            grad = sum(best_deviations(d, xi)[1] for d in players)
        else:
            grad = sum(learner.observe(xi) for learner in learners)
        t2 = time.perf_counter()
        wt = float(t) ** power
        weight_sum += wt
        x_sum += wt * x
        dev_sum += (wt * lam) * grad
        ell, _ = edge_utility(c - lam * grad)
        q, V = passes.values(ell, pi)
        r = q - V[passes.edge_belief]
        np.add(regrets, r, out=regrets)
        np.maximum(regrets, 0.0, out=regrets)
        pi = passes.normalise(np.maximum(regrets + r, 0.0))
        x = passes.flow(pi)
        now = time.perf_counter()
        clock["mediator"] += now - t2 + t1 - t0
        clock["deviators"] += t2 - t1
        out_of_time = time_limit is not None and now - start >= time_limit
        if t >= next_check or out_of_time or t == iterations:
            next_check = t + max(10, t // 8)
            x_bar = x_sum / weight_sum
            xi_bar = tuples(x_bar)
            value = float((c * xi_bar).sum())
            ell_bar, constant = edge_utility(c - dev_sum / weight_sum)
            _, best = passes.values(ell_bar, None)
            upper = min(upper, float(best[passes.roots].sum()) + constant)
            worst = max(float(best_deviations(d, xi_bar)[0].max(initial=0.0)) for d in players)
            measured = time.perf_counter()
            clock["bounds"] += measured - now
            history.append((t, measured - start, worst, upper - value, lam))
            progress.report("EFCE learning on the correlation DAG", iteration=t, gap=worst,
                            bound_gap=upper - value, multiplier=lam)
            shown = measured
            if worst <= target_gap and upper - value <= target_gap and t >= next_measure:
                result = _measure(sf, dag, x_bar[passes.new_of_edge], n, target_gap)
                got = float(np.dot(w, expected_payoffs(sf, result[0], result[1]))) / spread
                clock["measure"] += time.perf_counter() - measured
                if result[2].gap <= target_gap * spread and upper - got <= target_gap:
                    status = "converged"
                    break
                result, next_measure = None, t + t // 2
            # adaptive λ: the gap stalls above the target while the objective side is met
            stalls = stalls + 1 if adaptive and worst > target_gap \
                and upper - value <= target_gap / 2 else 0
            if stalls >= 2:
                lam, stalls = 2.0 * lam, 0
                x_sum, dev_sum, weight_sum = np.zeros(E), np.zeros(keys.size), 0.0
                next_check = t + 10
        elif now - shown >= PROGRESS_SECONDS:
            progress.report("EFCE learning on the correlation DAG", iteration=t)
            shown = now
        if out_of_time:
            status = "time_limit"
            break
    flow = (x_sum / weight_sum if weight_sum else x)[passes.new_of_edge]
    if result is None:
        measured = time.perf_counter()
        result = _measure(sf, dag, flow, n, target_gap)
        clock["measure"] += time.perf_counter() - measured
    plans, probs, check = result
    learned = DagLearning(flow=flow, objective=float(np.dot(w, expected_payoffs(sf, plans, probs))),
                          upper_bound=upper * spread,
                          gap=check.gap, payoff_range=spread, status=status, iterations=t,
                          seconds=time.perf_counter() - start, history=history,
                          multiplier=lam, profile=clock)
    return learned, plans, probs, check

def _measure(sf, dag: CorrelationDag, flow: np.ndarray, n: int, target_gap: float):
    tolerance = min(MEASURE_TOLERANCE, target_gap / 4)
    weights, decisions = dag.decompose_decisions(flow, tolerance=tolerance)
    plans = reduced_plans(sf, dag, decisions)
    total = sum(weights)
    probs = [float(p) / total for p in weights]
    return plans, probs, n_player_efce_gap(sf, plans, probs)


def solve_efce_dag_learning(game, objective="welfare", target_gap: float = DEFAULT_TARGET_GAP,
                            multiplier: float = DEFAULT_LAMBDA,
                            iterations: int = DEFAULT_ITERATIONS,
                            time_limit: float | None = None,
                            max_dag_edges: int = DEFAULT_MAX_EDGES,
                            deviators: str = DEFAULT_DEVIATORS, adaptive: bool = DEFAULT_ADAPTIVE,
                            averaging: str = DEFAULT_AVERAGING) -> CorrelatedResult:
    """Optimal EFCE by learning on the correlation DAG (module docstring)."""
    if not 0 < target_gap < 1:
        raise OptionError(f"target_gap must be in (0, 1); got {target_gap}")
    if not (isinstance(multiplier, (int, float)) and np.isfinite(multiplier) and multiplier > 0):
        raise OptionError(f"multiplier (λ) must be positive; got {multiplier}")
    if deviators not in DEVIATORS:
        raise OptionError(f"deviators must be one of {', '.join(DEVIATORS)}; got {deviators!r}")
    if averaging not in AVERAGING_POWERS:
        raise OptionError(f"averaging must be one of {', '.join(AVERAGING_POWERS)}; "
                          f"got {averaging!r}")
    if not isinstance(adaptive, bool):
        raise OptionError(f"adaptive must be True or False; got {adaptive!r}")
    start = time.perf_counter()
    tree, sf, w = team_tree_and_weights(game, "efce", objective)
    n = sf.num_players
    dag = build_correlation_dag(tree, "efce", max_dag_edges)
    built = time.perf_counter()
    run, plans, probs, check = learn_efce_on_dag(sf, dag, objective, target_gap, multiplier,
                                                 iterations, time_limit, deviators, adaptive,
                                                 averaging)
    payoffs = expected_payoffs(sf, plans, probs)
    bound = {"objective_bound": run.upper_bound,
             "bound_method": "max over the DAG of the Lagrangian at the deviators' average "
                             "(Farina 2023 ch. 10; an upper bound on the optimum for any λ ≥ 0)",
             "optimality_proven": False}
    certificate = Certificate(gain=check.gap, exact=False, deviations=(
        "trigger deviations of every player at every sequence, against the returned "
        "distribution (lpgame.analysis.n_player_correlated_gaps)"), extra=bound)
    order = sorted(range(len(probs)), key=lambda q: -probs[q])
    labels = [sf.sequence_labels(i) for i in range(n)]       # once, not once per plan

    def label(i: int, plan: np.ndarray) -> str:      # as reduced_plans.plan_label writes it
        chosen = [labels[i][s] for s in np.flatnonzero(plan) if s != 0]
        return "; ".join(chosen) if chosen else "(no move)"

    distribution = [{"profile": [label(i, plans[i][q]) for i in range(n)],
                     "probability": probs[q]} for q in order]
    end = time.perf_counter()
    return CorrelatedResult(
        game=sf.game.name, concept="efce", variant="dag_learning", objective=run.objective,
        objective_spec=objective_name(objective), weights=w.tolist(), payoffs=list(payoffs),
        gap=check.gap, optimal=False, certificate=certificate,
        size={**dag.size(), "support": len(probs)}, exact=False, backend="numpy",
        solver={"name": "predictive regret matching+ on the correlation DAG",
                "status": run.status},
        seconds={"dag": built - start, "learning": run.seconds, "total": end - start},
        distribution=distribution, gap_detail=check.to_dict(),
        extra={"status": run.status, "iterations": run.iterations, "target_gap": target_gap,
               "relative_gap": check.gap / run.payoff_range, "upper_bound": run.upper_bound,
               "relative_bound_gap": (run.upper_bound - run.objective) / run.payoff_range,
               "payoff_range": run.payoff_range, "lambda": run.multiplier,
               "deviators": deviators, "adaptive": adaptive, "averaging": averaging,
               "profile_seconds": run.profile,
               "history": [list(h) for h in run.history]})


def _solve_entry(game, *, exact: bool = False, backend: str = "highs", method: str | None = None,
                 objective="welfare", target_gap: float = DEFAULT_TARGET_GAP,
                 multiplier: float = DEFAULT_LAMBDA, iterations: int = DEFAULT_ITERATIONS,
                 max_dag_edges: int = DEFAULT_MAX_EDGES, time_limit: float | None = None,
                 deviators: str = DEFAULT_DEVIATORS, adaptive: bool = DEFAULT_ADAPTIVE,
                 averaging: str = DEFAULT_AVERAGING, **_solver_options) -> CorrelatedResult:
    if exact:
        raise OptionError("efce with method='dag_learning' is a floating-point learner; for an "
                          "exact optimum use method='correlation_dag' with exact=True")
    return solve_efce_dag_learning(game, objective, target_gap, multiplier, iterations,
                                   time_limit, max_dag_edges, deviators, adaptive, averaging)


register(Concept(
    name="efce", variant="dag_learning", games=("n_player",), requires=("method=dag_learning",),
    solve=_solve_entry, exact=False, backends=("highs",),
    summary="optimal EFCE of a game with any number of players by regret minimisation on the "
            "correlation DAG (Lagrangian of Farina 2023 ch. 10; method='dag_learning')",
    certificate="largest gain of any trigger deviation of the returned distribution "
                "(lpgame.analysis.n_player_correlated_gaps); an upper bound on the optimum",
    source="Farina 2023 ch. 10 (Lagrangian saddle point); Zhang, Farina, Celli & Sandholm, "
           "EC 2022 (correlation DAG); Farina, Kroer & Sandholm 2021 (PRM+)",
    options=(
        Option("method", str, None, "dag_learning: regret minimisation on the correlation DAG",
               choices=("dag_learning",)),
        OBJECTIVE_OPTION,
        Option("target_gap", float, DEFAULT_TARGET_GAP,
               "stop when the measured EFCE gap and the bound gap are at most this fraction of "
               "the payoff range"),
        Option("multiplier", float, DEFAULT_LAMBDA,
               "λ of the Lagrangian, in units of the payoff range"),
        Option("iterations", int, DEFAULT_ITERATIONS, "most iterations", minimum=1),
        Option("max_dag_edges", int, DEFAULT_MAX_EDGES,
               "correlation DAG: refuse past this many prescriptions", minimum=1),
        Option("deviators", str, DEFAULT_DEVIATORS,
               "the trigger deviators: regret (PRM+ on their subtrees) or best_response",
               choices=DEVIATORS),
        Option("adaptive", bool, DEFAULT_ADAPTIVE,
               "double λ when the gap stalls above the target while the bound gap is met"),
        Option("averaging", str, DEFAULT_AVERAGING,
               "weights of the averaged iterates: quadratic (t²), linear (t) or uniform",
               choices=tuple(AVERAGING_POWERS)),
    ),
))
