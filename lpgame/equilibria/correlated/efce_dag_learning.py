"""Optimal EFCE of a game with any number of players by learning on the correlation DAG: the
mediator runs predictive regret matching⁺ over the DAG's flow polytope against best-responding
trigger deviators in the Lagrangian of Farina 2023, ch. 10.

**Formulation.** Farina 2023, ch. 10 (notes/farina-thesis.md §1.10) writes optimal EFCE as the
saddle point of the Lagrangian

    L(ξ, z) = c·ξ − λ Σ_{i, t} ξᵀ A_{i,t} z_{i,t},      z_{i,t} ∈ co{0, Q_{i,⪰j}},

where ξᵀ A_{i,t} z_{i,t} is what player i gains by the trigger deviation t = (j, a) to the plan
z_{i,t} of her subtree at j (the deviation rows of Prop. 9.1 minus the obedience row), and whose
saddle points are optimal EFCEs for λ above a finite critical value (Prop. 10.1). Here ξ is
written exactly as the linear image ξ = R x + r of a flow x of the correlation DAG
(:mod:`~lpgame.equilibria.correlated.correlation_dag`, Zhang, Farina, Celli & Sandholm 2022), so
the mediator's set is the DAG's flow polytope, for any number of players.

**Dynamics.** The mediator's flow is learned by predictive regret matching⁺ (Farina, Kroer &
Sandholm 2021) at every belief of the DAG, with the DAG's counterfactual values
(:class:`lpgame.equilibria.teams.tmecor_learning.DagPasses`); each deviator best-responds to the
current ξ (a bottom-up pass over her subtree, z_{i,t} = 0 where no deviation gains). In a
zero-sum game a no-regret player against a best-responding one has an average strategy x̄ with
min_z L(x̄, z) ≥ max_x min_z L − Reg_T / T, so x̄ approaches a saddle point.

**Measured, not claimed.** At each check, the averaged flow is decomposed into joint pure plans
(:meth:`CorrelationDag.decompose`) and its EFCE gap measured by
:mod:`lpgame.analysis.n_player_correlated_gaps`, which never reads the DAG. The upper bound on the
optimum is U = max_x L(x, z̄) at the deviators' average z̄ (one best-response pass over the DAG):
for every EFCE x, L(x, z̄) ≥ c·ξ, so U ≥ OPT. The run stops (status ``converged``) when the
measured gap and U − objective are both at most ``target_gap`` × the payoff range R (the thesis's
criterion, Tables 10.1/10.2), else at ``iterations`` or ``time_limit`` (a labelled partial
answer). Payoffs are divided by R inside the run, so λ is in units of the payoff range.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp

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
from lpgame.equilibria.correlated.efce import PlayerTree, triggers
from lpgame.equilibria.correlated.efce_correlation_dag import (
    leaf_tuple_keys,
    team_tree_and_weights,
    tuple_strides,
)
from lpgame.equilibria.correlated.reduced_plans import plan_label
from lpgame.equilibria.teams.tmecor_learning import DagPasses
from lpgame.errors import OptionError
from lpgame.lp.scaling import float_bounds
from lpgame.lp.sorted_keys import find_keys, join_keys
from lpgame.registry import Concept, Option, register
from lpgame.result import Certificate

DEFAULT_TARGET_GAP = 0.01
DEFAULT_LAMBDA = 8.0
DEFAULT_ITERATIONS = 20_000
PROGRESS_SECONDS = 2.0
MEASURE_TOLERANCE = 1e-3
"""The averaged flow's greedy decomposition stops when this much probability is left (the rest is
dropped and the distribution renormalised; the returned distribution is the one measured)."""


@dataclass
class Deviations:
    """One player's trigger deviations as sparse maps from ξ (module docstring): ``dev`` rows are
    (trigger t, sequence s in t's scope) with value Σ_τ U_i[s, τ] ξ[c_t ⊕ τ]; ``obey`` rows are
    triggers with the obedient value; the best-response pass works level by level."""

    dev: sp.csr_array
    obey: sp.csr_array
    row_v: np.ndarray           # per dev row: its v entry (trigger, node of s)
    child_v: np.ndarray         # v entries strictly below their scope ...
    child_row: np.ndarray       # ... and the dev row (t, parent sequence) they add to
    v_depth: np.ndarray         # per v entry: depth of its node
    v_top: np.ndarray           # per trigger: its scope's v entry
    num_v: int


def player_deviations(sf, player: int, keys: np.ndarray, strides: np.ndarray,
                      scale: float) -> Deviations:
    """The trigger deviations of ``player`` over the tuple vector with sorted ``keys``, payoffs
    divided by ``scale`` (the structure of :func:`~lpgame.equilibria.correlated.efce.add_trigger_rows`,
    Farina 2023 App. 9.B, read as a best-response pass instead of LP rows)."""
    tree = PlayerTree.build(sf, player)
    trig = triggers(tree, "efce")
    n, m = tree.num_sequences, tree.num_infosets
    seqs = sf.terminal_sequences.astype(np.int64)
    value = sf.terminal_chance * sf.terminal_payoffs[:, player] / scale
    keep = value != 0
    own = seqs[keep, player]
    others = (seqs[keep] @ strides) - own * strides[player]
    val = value[keep]
    K = keys.size
    scope_j, below_j = tree.infoset_scope_members()
    ti, ri = join_keys(trig.scope, scope_j)
    v_key = np.sort(ti * (m + 1) + below_j[ri])
    v_t, v_j = v_key // (m + 1), v_key % (m + 1)
    scope_s_j, scope_s = tree.scope_members()
    ti, ri = join_keys(trig.scope, scope_s_j)
    row_key = np.sort(ti * n + scope_s[ri])
    row_t, row_s = row_key // n, row_key % n
    row_v = find_keys(v_key, row_t * (m + 1) + tree.seq_infoset[row_s], "v entries")
    strict = np.flatnonzero(v_j != trig.scope[v_t])
    child_row = find_keys(row_key, v_t[strict] * n + tree.infoset_parent[v_j[strict]], "rows")
    ri, ei = join_keys(row_s, own)
    cols = find_keys(keys, others[ei] + trig.cond[row_t[ri]] * strides[player], "tuples")
    dev = sp.csr_array((val[ei], (ri, cols)), shape=(row_key.size, K))
    anc = tree.ancestors
    s_rep = np.repeat(np.arange(n), anc.shape[1])
    a = anc.ravel()
    ok = a >= 1
    ti, ri = join_keys(trig.cond, a[ok])
    ob_seq = s_rep[ok][ri]
    oi, ei = join_keys(ob_seq, own)
    cols = find_keys(keys, others[ei] + own[ei] * strides[player], "tuples")
    obey = sp.csr_array((val[ei], (ti[oi], cols)), shape=(trig.scope.size, K))
    v_top = find_keys(v_key, np.arange(trig.scope.size) * (m + 1) + trig.scope, "v entries")
    return Deviations(dev, obey, row_v, strict, child_row, tree.infoset_depth[v_j], v_top,
                      v_key.size)


def best_deviations(d: Deviations, xi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(gain per trigger, the gradient Σ_t [gain_t > 0] ∂gain_t/∂ξ) of the best deviations at
    ``xi``: bottom-up v[t, j'] = max_{s at j'} (dev[t, s] + Σ_{j'' below s} v[t, j'']), then the
    argmax plan top-down."""
    base = d.dev @ xi
    total = base.copy()
    v = np.full(d.num_v, -np.inf)
    best_row = np.full(d.num_v, -1, dtype=np.int64)
    depths = np.unique(d.v_depth)[::-1]
    row_depth = d.v_depth[d.row_v]
    child_depth = d.v_depth[d.child_v]
    for depth in depths:
        rows = np.flatnonzero(row_depth == depth)
        np.maximum.at(v, d.row_v[rows], total[rows])
        kids = np.flatnonzero(child_depth == depth)
        np.add.at(total, d.child_row[kids], v[d.child_v[kids]])
    # the argmax row of every v entry (the first row reaching its max)
    hit = np.flatnonzero(total >= v[d.row_v])
    best_row[d.row_v[hit[::-1]]] = hit[::-1]
    gain = v[d.v_top] - d.obey @ xi
    active = gain > 0
    reach = np.zeros(d.num_v)
    reach[d.v_top[active]] = 1.0
    chosen = np.zeros(base.size)
    for depth in depths[::-1]:
        vs = np.flatnonzero((d.v_depth == depth) & (reach > 0))
        chosen[best_row[vs]] = reach[vs]
        kids = np.flatnonzero(child_depth == depth + 1) if depth < depths[0] else np.zeros(0, int)
        reach[d.child_v[kids]] = np.maximum(reach[d.child_v[kids]], chosen[d.child_row[kids]])
    grad = d.dev.T @ chosen - d.obey.T @ active.astype(float)
    return np.maximum(gain, 0.0), grad


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


def _adapter(dag: CorrelationDag) -> SimpleNamespace:
    """The correlation DAG in the attribute names :class:`DagPasses` reads."""
    return SimpleNamespace(
        num_beliefs=dag.num_beliefs, num_edges=dag.num_edges, edge_belief=dag.edge_belief,
        child_edge=dag.child_edge, child_belief=dag.child_belief, root_beliefs=dag.root_beliefs,
        num_leaves=dag.num_leaves, leaf_edge=dag.leaf_edge, leaf_index=dag.leaf_id,
        root_leaves=dag.root_leaves, edge_actions=dag.edge_actions)


def learn_efce_on_dag(sf, dag: CorrelationDag, objective="welfare",
                      target_gap: float = DEFAULT_TARGET_GAP, multiplier: float = DEFAULT_LAMBDA,
                      iterations: int = DEFAULT_ITERATIONS, time_limit: float | None = None):
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
    passes = DagPasses(_adapter(dag))
    E = passes.num_edges
    leaf_map = np.zeros(dag.num_leaves)

    def tuples(x: np.ndarray) -> np.ndarray:
        return passes.realization(x)[first]

    def edge_utility(g: np.ndarray) -> tuple[np.ndarray, float]:
        leaf_map[:] = 0.0
        leaf_map[first] = g
        return passes.leaf_to_edge @ leaf_map, float(passes.root_leaves @ leaf_map)

    regrets, pi = np.zeros(E), passes.uniform.copy()
    x = passes.flow(pi)
    x_sum, dev_sum, weight_sum = np.zeros(E), np.zeros(keys.size), 0.0
    history: list[tuple[int, float, float, float]] = []
    status, next_check, t, shown = "iteration_limit", 10, 0, start
    result = None
    upper = np.inf
    for t in range(1, iterations + 1):
        xi = tuples(x)
        grad = np.zeros(keys.size)
        for d in players:
            _, g = best_deviations(d, xi)
            grad += g
        wt = float(t) ** 2
        weight_sum += wt
        x_sum += wt * x
        dev_sum += wt * grad
        ell, _ = edge_utility(c - multiplier * grad)
        q, V = passes.values(ell, pi)
        r = q - V[passes.edge_belief]
        np.add(regrets, r, out=regrets)
        np.maximum(regrets, 0.0, out=regrets)
        pi = passes.normalise(np.maximum(regrets + r, 0.0))
        x = passes.flow(pi)
        now = time.perf_counter()
        out_of_time = time_limit is not None and now - start >= time_limit
        if t >= next_check or out_of_time or t == iterations:
            next_check = t + max(10, t // 8)
            x_bar = x_sum / weight_sum
            xi_bar = tuples(x_bar)
            value = float(c @ xi_bar)
            ell_bar, constant = edge_utility(c - multiplier * dev_sum / weight_sum)
            _, best = passes.values(ell_bar, None)
            upper = float(best[passes.roots].sum()) + constant
            worst = max(float(best_deviations(d, xi_bar)[0].max(initial=0.0)) for d in players)
            history.append((t, now - start, worst, upper - value))
            progress.report("EFCE learning on the correlation DAG", iteration=t, gap=worst,
                            bound_gap=upper - value)
            shown = now
            if worst <= target_gap and upper - value <= target_gap:
                result = _measure(sf, dag, x_bar[passes.new_of_edge], n)
                if result[2].gap <= target_gap * spread:
                    status = "converged"
                    break
                result = None
        elif now - shown >= PROGRESS_SECONDS:
            progress.report("EFCE learning on the correlation DAG", iteration=t)
            shown = now
        if out_of_time:
            status = "time_limit"
            break
    flow = (x_sum / weight_sum)[passes.new_of_edge]
    if result is None:
        result = _measure(sf, dag, flow, n)
    plans, probs, check = result
    learned = DagLearning(flow=flow, objective=float(np.dot(w, expected_payoffs(sf, plans, probs))),
                          upper_bound=upper * spread,
                          gap=check.gap, payoff_range=spread, status=status, iterations=t,
                          seconds=time.perf_counter() - start, history=history)
    return learned, plans, probs, check


def _measure(sf, dag: CorrelationDag, flow: np.ndarray, n: int):
    weights, decisions = dag.decompose(flow, tolerance=MEASURE_TOLERANCE)
    plans = reduced_plans(sf, dag, decisions)
    total = sum(weights)
    probs = [float(p) / total for p in weights]
    return plans, probs, n_player_efce_gap(sf, plans, probs)


def solve_efce_dag_learning(game, objective="welfare", target_gap: float = DEFAULT_TARGET_GAP,
                            multiplier: float = DEFAULT_LAMBDA,
                            iterations: int = DEFAULT_ITERATIONS,
                            time_limit: float | None = None,
                            max_dag_edges: int = DEFAULT_MAX_EDGES) -> CorrelatedResult:
    """Optimal EFCE by learning on the correlation DAG (module docstring)."""
    if not 0 < target_gap < 1:
        raise OptionError(f"target_gap must be in (0, 1); got {target_gap}")
    if not multiplier > 0:
        raise OptionError(f"multiplier (λ) must be positive; got {multiplier}")
    start = time.perf_counter()
    tree, sf, w = team_tree_and_weights(game, "efce", objective)
    n = sf.num_players
    dag = build_correlation_dag(tree, "efce", max_dag_edges)
    built = time.perf_counter()
    run, plans, probs, check = learn_efce_on_dag(sf, dag, objective, target_gap, multiplier,
                                                 iterations, time_limit)
    payoffs = expected_payoffs(sf, plans, probs)
    bound = {"objective_bound": run.upper_bound,
             "bound_method": "max over the DAG of the Lagrangian at the deviators' average "
                             "(Farina 2023 ch. 10; an upper bound on the optimum for any λ ≥ 0)",
             "optimality_proven": False}
    certificate = Certificate(gain=check.gap, exact=False, deviations=(
        "trigger deviations of every player at every sequence, against the returned "
        "distribution (lpgame.analysis.n_player_correlated_gaps)"), extra=bound)
    order = sorted(range(len(probs)), key=lambda q: -probs[q])
    distribution = [{"profile": [plan_label(sf, i, plans[i][q]) for i in range(n)],
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
               "payoff_range": run.payoff_range, "lambda": multiplier,
               "history": [list(h) for h in run.history]})


def _solve_entry(game, *, exact: bool = False, backend: str = "highs", method: str | None = None,
                 objective="welfare", target_gap: float = DEFAULT_TARGET_GAP,
                 multiplier: float = DEFAULT_LAMBDA, iterations: int = DEFAULT_ITERATIONS,
                 max_dag_edges: int = DEFAULT_MAX_EDGES, time_limit: float | None = None,
                 **_solver_options) -> CorrelatedResult:
    if exact:
        raise OptionError("efce with method='dag_learning' is a floating-point learner; for an "
                          "exact optimum use method='correlation_dag' with exact=True")
    return solve_efce_dag_learning(game, objective, target_gap, multiplier, iterations,
                                   time_limit, max_dag_edges)


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
    ),
))
