"""Optimal EFCE, EFCCE and NFCCE of games with any number of players: one LP over the flows of the
correlation DAG, exactly in rationals on request, certified on both sides.

**Formulation.** Farina 2023, Lemma 9.2 and Prop. 9.1 (notes/farina-thesis.md §1.8), with the set
Ξ of correlation plans written exactly as a projection of the flow polytope of the correlation
DAG (Zhang, Farina, Celli & Sandholm, EC 2022 / MOR 2025;
:mod:`~lpgame.equilibria.correlated.correlation_dag`, where G′ and its leaves are defined):

    max_{x, ξ, v}  Σ_z p_c(z) (w·u(z)) ξ[σ(z)]
    s.t.  A x = b, x ≥ 0                              (the DAG's flows)
          ξ[τ] = R[ℓ(τ)] x + r[ℓ(τ)]                  (each tuple τ read at one G′ leaf ℓ(τ))
          v[t, j'] ≥ Σ_{z: σ_i(z) = j'a'} p_c(z) u_i(z) ξ[c_t ⊕_i σ_{-i}(z)] + Σ_{j'' ∈ C_{j'a'}} v[t, j'']
          v[t, scope] ≤ Σ_{z obeying t} p_c(z) u_i(z) ξ[σ(z)]

for every player i, trigger t with conditioning sequence c_t (EFCE: t = (j, a), c_t = ja;
EFCCE: t = j, c_t = p_j; NFCCE: one trigger per player over the whole tree, c_t = ∅), every
decision point j' in its scope and a' ∈ A_{j'}: the trigger rows of the two-player LP
(:func:`lpgame.equilibria.correlated.efce.add_trigger_rows`, Farina 2023 App. 9.B), with the
tuple entries ξ[c ⊕_i σ_{-i}] given by the DAG instead of the von Stengel–Forges relaxation.
The tuples are those the rows read: every leaf's σ(z) and every trigger tuple (c_t, σ_{-i}(z));
each is the realisation of a G′ leaf (the follow copy's z, or a gate's copy), and all G′ leaves
of one tuple have the same realisation for every pure flow, hence for every flow. ``objective``
is any weight vector w (social welfare by default). The LP is exact: its optimum is the optimal
EFCE (EFCCE, NFCCE) value over all distributions on joint pure plans, for any number of players.

**Answer.** The optimal flow is decomposed into pure flows (greedily, exactly with rationals;
:meth:`CorrelationDag.decompose`), each a joint pure plan, so the answer is a distribution over
joint reduced pure plans; the payoffs and the objective are evaluated from it, not read from the LP.

**Certificate, both sides.**

* lower side: the distribution's largest trigger gain by
  :mod:`lpgame.analysis.n_player_correlated_gaps` (EFCE; it reads only the leaves and the support)
  or :mod:`lpgame.analysis.n_player_coarse_gaps` (EFCCE, NFCCE): 0 exactly in exact mode, so the
  objective is the value of an equilibrium;
* upper side: the weak-duality bound U(y) at the LP's row duals, recomputed from the LP's data
  (:mod:`lpgame.lp.dual_certificate`: in rationals from the certified basis's duals in exact mode;
  in floats with the implied column bounds 0 ≤ x, ξ ≤ 1 and |v[t, j']| ≤ Σ_{z below j'} p_c|u_i|
  otherwise, as in :mod:`lpgame.equilibria.correlated.efce_tuple_relaxation`).

The answer is optimal when the bound meets the objective (exactly, or within
:data:`lpgame.lp.dual_certificate.RELATIVE_TOLERANCE` of the payoff range in floats).

**Units.** Trigger rows use the payoffs divided by the power of two that puts their range in unit
band, the objective its own such power (:mod:`lpgame.lp.scaling`); values are mapped back.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from lpgame import progress
from lpgame.analysis.n_player_coarse_gaps import n_player_coarse_gap
from lpgame.analysis.n_player_correlated_gaps import expected_payoffs, n_player_efce_gap
from lpgame.compile import as_game, compile_game
from lpgame.equilibria.correlated.ce_cce import (
    OBJECTIVE_OPTION,
    CorrelatedResult,
    objective_name,
    objective_weights,
)
from lpgame.equilibria.correlated.correlation_dag import (
    DAG_CONCEPTS,
    DEFAULT_MAX_EDGES,
    CorrelationDag,
    build_correlation_dag,
    reduced_plans,
)
from lpgame.equilibria.correlated.efce import PlayerTree, add_trigger_rows, triggers
from lpgame.equilibria.correlated.reduced_plans import plan_label
from lpgame.equilibria.teams.team_belief_dag import team_tree_game
from lpgame.errors import (
    ExactCheckError,
    LpgameError,
    ModelTooLargeError,
    OptionError,
    SolverError,
    SolverTimeLimitError,
)
from lpgame.lp import LinearProgram, solve_lp, solve_lp_exact
from lpgame.lp.dual_certificate import exact_dual_bound, float_dual_bound, optimality
from lpgame.lp.scaling import check_float_payoffs, float_bounds, unit_range_scaling
from lpgame.lp.sorted_keys import find_keys
from lpgame.registry import Concept, Option, register
from lpgame.result import Certificate

SUPPORT_TOLERANCE = 1e-12
LP_SOLVER = "ipm"
"""HiGHS's interior point with crossover to a basis (its default): the DAG LP's flow rows are
highly degenerate, and on K34 (7,420 rows, 28,836 columns, 357,267 nonzeros) the dual simplex had
not finished in 13 minutes where the interior point with crossover takes 14 s
(benchmarks/bench_correlation_dag.py). The basis it ends at is what ``exact=True`` certifies."""
DEVIATIONS = {
    "efce": "trigger deviations of every player at every sequence, against the returned "
            "distribution (lpgame.analysis.n_player_correlated_gaps)",
    "efcce": "coarse trigger deviations (decided on reaching an information set) of every player "
             "(lpgame.analysis.n_player_coarse_gaps)",
    "nfcce": "every player's commitment to a pure plan before any recommendation "
             "(lpgame.analysis.n_player_coarse_gaps)",
}


@dataclass
class DagLP:
    """The LP of the module docstring, the tuple keys of its ξ block, and column bounds that one
    of its optimal solutions satisfies (for the float dual bound)."""

    lp: LinearProgram
    tuple_keys: np.ndarray
    implied_lower: np.ndarray
    implied_upper: np.ndarray


def tuple_strides(sf) -> np.ndarray:
    """Mixed-radix strides: the key of a sequence tuple σ is Σ_l σ_l·stride_l."""
    sizes = [sf.num_sequences(p) for p in range(sf.num_players)]
    if np.prod([float(s) for s in sizes]) >= 2.0 ** 62:
        raise ModelTooLargeError(f"{sf.game.name}: sequence tuples do not fit 64-bit keys")
    return np.concatenate([[1], np.cumprod(sizes[:-1])]).astype(np.int64)


def leaf_tuple_keys(sf, dag: CorrelationDag, strides: np.ndarray) -> np.ndarray:
    """The tuple each G′ leaf realises: σ(z) for the follow copy; (c_t, σ_{-i}(z)) for a gate's
    copy, c_t the gate's conditioning sequence (module docstring of correlation_dag)."""
    seqs = sf.terminal_sequences[dag.leaf_terminal].astype(np.int64)
    keys = seqs @ strides
    dev = np.flatnonzero(dag.leaf_tag >= 0)
    t = dag.leaf_tag[dev]
    players = dag.tag_player[t]
    cond = np.zeros(dev.size, dtype=np.int64)
    for p in range(sf.num_players):
        mine = players == p
        if not mine.any():
            continue
        pl = sf.players[p]
        j = dag.tag_infoset[t[mine]]
        if dag.concept == "efce":
            cond[mine] = pl.infoset_first_seq[j] + dag.tag_action[t[mine]]
        elif dag.concept == "efcce":
            cond[mine] = pl.infoset_parent_seq[j]
    keys[dev] += (cond - seqs[dev, players]) * strides[players]
    return keys


def correlation_dag_lp(sf, dag: CorrelationDag, objective="welfare", exact: bool = False) -> DagLP:
    """The LP of the module docstring (``exact``: payoff coefficients as Fractions)."""
    n = sf.num_players
    w = objective_weights(objective, n)
    lp = LinearProgram(name=f"{dag.concept}-correlation-dag:{sf.game.name}", description=(
        f"optimal {dag.concept.upper()} over the correlation DAG's flows (Zhang, Farina, Celli & "
        f"Sandholm 2022; Farina 2023 Prop. 9.1), objective weights {w.tolist()}"))
    strides = tuple_strides(sf)
    leaf_keys = leaf_tuple_keys(sf, dag, strides)
    keys, first = np.unique(leaf_keys, return_index=True)
    x = lp.add_variables("x", dag.num_edges, lower=0.0)
    xi = lp.add_variables("xi", keys.size, lower=0.0)
    A, b = dag.flow_matrix()
    lp.add_constraints("dag_flow", [(x, A)], "==", b)
    R, r = dag.leaf_matrix()
    lp.add_constraints("tuple_realisation", [(xi, sp.identity(keys.size, format="csr")),
                                             (x, -R[first, :])], "==", r[first])
    lower = [np.zeros(dag.num_edges + keys.size)]
    upper = [np.ones(dag.num_edges + keys.size)]
    seqs = sf.terminal_sequences.astype(np.int64)
    full = seqs @ strides
    if exact:
        chance, payoffs = sf.exact_terminal_data()
        flat = [v for row in payoffs for v in row]
        scaling = unit_range_scaling(min(flat), max(flat), exact=True, shift=False)
        inverse = 1 / Fraction(scaling.scale)
    else:
        lo, hi = sf.game._payoff_bounds()
        check_float_payoffs(lo, hi, f"{sf.game.name}, payoffs")
        scaling = unit_range_scaling(lo, hi, shift=False)
    for i in range(n):
        if exact:
            value = np.empty(len(chance), dtype=object)
            value[:] = [c * row[i] * inverse for c, row in zip(chance, payoffs)]
            keep = np.array([v != 0 for v in value], dtype=bool)
        else:
            value = np.ldexp(sf.terminal_chance * sf.terminal_payoffs[:, i], -scaling.exponent)
            keep = value != 0
        own = seqs[keep, i]
        others = full[keep] - own * strides[i]

        def tuple_pos(own_seq, other_key, stride=strides[i]):
            return find_keys(keys, np.asarray(other_key) + np.asarray(own_seq) * stride,
                             "sequence tuples")

        tree = PlayerTree.build(sf, i)
        v_nodes = add_trigger_rows(lp, tree, xi, keys.size, i, triggers(tree, dag.concept),
                                   (own, others, value[keep]), tuple_pos)
        scope, member = tree.scope_members()
        mass = np.bincount(own, weights=np.abs(value[keep].astype(float)),
                           minlength=tree.num_sequences)
        below = np.bincount(scope, weights=mass[member], minlength=tree.num_infosets + 1)
        lower.append(-below[v_nodes])
        upper.append(below[v_nodes])
    pos = find_keys(keys, full, "leaf tuples")
    if exact:
        leaf = np.empty(len(chance), dtype=object)
        leaf[:] = [c * sum((Fraction(float(a)) * u for a, u in zip(w, row)), Fraction(0))
                   for c, row in zip(chance, payoffs)]
        coef = np.zeros(keys.size, dtype=object)
        np.add.at(coef, pos, leaf)
        values = coef.tolist()
        lp.objective_scaling = unit_range_scaling(min(values), max(values), exact=True,
                                                  shift=False)
        lp.set_objective([(xi, [lp.objective_scaling.to_unit(Fraction(v)) for v in values])],
                         sense="max")
    else:
        coef = np.bincount(pos, weights=sf.terminal_chance * (sf.terminal_payoffs @ w),
                           minlength=keys.size)
        lp.objective_scaling = unit_range_scaling(*float_bounds(coef), shift=False)
        lp.set_objective([(xi, lp.objective_scaling.to_unit_array(coef))], sense="max")
    return DagLP(lp, keys, np.concatenate(lower), np.concatenate(upper))


def _distribution(sf, dag: CorrelationDag, x, exact: bool):
    """(plans, probabilities) of the flow ``x``: its pure flows as joint reduced plans, equal
    joint plans merged, probabilities below SUPPORT_TOLERANCE dropped (floats)."""
    weights, decisions = dag.decompose(x)
    plans = reduced_plans(sf, dag, decisions)
    merged: dict[bytes, int] = {}
    probs: list = []
    rows: list[int] = []
    for q in range(len(weights)):
        if not exact and weights[q] <= SUPPORT_TOLERANCE:
            continue
        key = b"".join(p[q].tobytes() for p in plans)
        k = merged.get(key)
        if k is None:
            merged[key] = len(probs)
            probs.append(weights[q])
            rows.append(q)
        else:
            probs[k] += weights[q]
    if not exact:
        total = sum(probs)
        probs = [p / total for p in probs]
    return [p[rows] for p in plans], probs


def team_tree_and_weights(game, concept: str, objective):
    """What the DAG LP and learning on the DAG both start from: ``game`` as the team tree of all
    its players (the mediator), its sequence form, and the objective's weights per player."""
    tree = team_tree_game(as_game(game))
    sf = compile_game(tree)
    n = sf.num_players
    if n < 2:
        raise LpgameError(f"{sf.game.name} has {n} player; {concept} needs at least two")
    return tree, sf, objective_weights(objective, n)


def solve_correlation_dag(game, concept: str = "efce", objective="welfare", exact: bool = False,
                          backend: str = "highs", max_dag_edges: int = DEFAULT_MAX_EDGES,
                          **options) -> CorrelatedResult:
    """Optimal ``concept`` (efce, efcce, nfcce) of ``game`` by the correlation-DAG LP (module
    docstring), in rationals with ``exact=True``. ``max_dag_edges``: the DAG's size cap;
    ``time_limit`` (an option): seconds for the whole run, the LP getting what the DAG's
    construction left (SolverTimeLimitError when none is left or HiGHS stops at it)."""
    if concept not in DAG_CONCEPTS:
        raise OptionError(f"unknown concept {concept!r} for the correlation DAG; choose one of "
                          f"{', '.join(DAG_CONCEPTS)}")
    start = time.perf_counter()
    tree, sf, w = team_tree_and_weights(game, concept, objective)
    n = sf.num_players
    progress.stage(f"building the {concept.upper()} correlation DAG of {sf.game.name}")
    dag = build_correlation_dag(tree, concept, max_dag_edges)
    built = time.perf_counter()
    model = correlation_dag_lp(sf, dag, objective, exact)
    lp = model.lp
    formulated = time.perf_counter()
    if options.get("time_limit") is not None:
        left = float(options["time_limit"]) - (formulated - start)
        if left <= 0:
            raise SolverTimeLimitError(
                f"{sf.game.name}: the {concept.upper()} correlation DAG ({dag.num_edges:,} "
                f"prescriptions) and its LP took {formulated - start:.1f} s, past the time limit "
                f"of {options['time_limit']} s", size={**lp.size(), **dag.size()})
        options["time_limit"] = left
    options.setdefault("solver", LP_SOLVER)
    progress.stage(f"solving the {concept.upper()} correlation-DAG LP ({lp.size()['rows']:,} rows, "
                   f"{lp.size()['cols']:,} columns, {lp.size()['nnz']:,} nonzeros)")
    if exact:
        solution, certified = solve_lp_exact(lp, backend=backend, **options)
        x = certified.values(lp, "x")
        lp_objective = lp.objective_scaling.from_unit(certified.objective)
        bound = exact_dual_bound(lp, certified.row_duals)
        path = certified.path
    else:
        solution = solve_lp(lp, backend=backend, **options)
        if solution.status != "optimal":
            raise SolverError(f"{lp.name}: HiGHS ended {solution.status}")
        x = solution.values("x")
        lp_objective = float(lp.objective_scaling.from_unit(solution.objective))
        bound = float_dual_bound(lp, solution.row_duals, model.implied_lower,
                                 model.implied_upper)
        path = None
    solved = time.perf_counter()
    plans, probs = _distribution(sf, dag, x, exact)
    if concept == "efce":
        check = n_player_efce_gap(sf, plans, probs, exact=exact)
    else:
        check = n_player_coarse_gap(sf, plans, probs, concept, exact=exact)
    payoffs = expected_payoffs(sf, plans, probs, exact=exact)
    if exact:
        value = sum((Fraction(float(a)) * u for a, u in zip(w, payoffs)), Fraction(0))
        if value != lp_objective:
            raise ExactCheckError(f"{lp.name}: the decomposed distribution's objective {value} "
                                  f"differs from the certified LP optimum {lp_objective}")
    else:
        value = float(np.dot(w, payoffs))
    lo, hi = float_bounds(sf.terminal_payoffs)
    spread = hi - lo
    proof = optimality(bound, value, spread,
                       method="weak duality at the LP's row duals, recomputed from the LP's data"
                       + (" in rationals" if exact else " with implied bounds"))
    zero = Fraction(0) if exact else 0.0
    tolerance = 0 if exact else 1e-7 * max(spread, 1e-300)
    equilibrium = check.gap <= tolerance
    certificate = Certificate(gain=check.gap, exact=exact, deviations=DEVIATIONS[concept],
                              extra=proof)
    order = sorted(range(len(probs)), key=lambda q: -float(probs[q]))
    distribution = [{"profile": [plan_label(sf, i, plans[i][q]) for i in range(n)],
                     "probability": probs[q]} for q in order]
    end = time.perf_counter()
    size = {**lp.size(), **dag.size(), "tuples": int(model.tuple_keys.size),
            "support": len(probs)}
    return CorrelatedResult(
        game=sf.game.name, concept=concept, variant="correlation_dag", objective=value,
        objective_spec=objective_name(objective), weights=w.tolist(),
        payoffs=list(payoffs), gap=check.gap if check.gap > 0 else zero,
        optimal=bool(proof["optimality_proven"] and equilibrium), certificate=certificate,
        size=size, exact=exact, backend=backend,
        solver={"name": "HiGHS", "status": "optimal", "exact_path": path,
                "lp_objective": lp_objective},
        seconds={"dag": built - start, "formulate": formulated - built, "solve": solved - formulated,
                 "check": end - solved, "total": end - start},
        distribution=distribution, gap_detail=check.to_dict(), lp=lp,
        extra={"payoff_range": spread, "lp_objective": lp_objective, "dag": dag.size()})


def _solve_entry(concept: str):
    def solve(game, *, exact: bool = False, backend: str = "highs", method: str | None = None,
              objective="welfare", max_dag_edges: int = DEFAULT_MAX_EDGES, **solver_options):
        if method not in (None, "correlation_dag"):
            raise OptionError(f"{concept} with method={method!r}: this entry is "
                              "method='correlation_dag'")
        return solve_correlation_dag(game, concept, objective, exact, backend, max_dag_edges,
                                     **solver_options)
    return solve


for _name in DAG_CONCEPTS:
    register(Concept(
        name=_name, variant="correlation_dag", games=("n_player",),
        requires=("method=correlation_dag",), solve=_solve_entry(_name), exact=True,
        backends=("highs",),
        summary=f"optimal {_name.upper()} of a game with any number of players: one LP over the "
                "flows of the correlation DAG (exact; method='correlation_dag')",
        certificate=DEVIATIONS[_name] + "; optimality by the LP's dual bound recomputed from its data",
        source="Zhang, Farina, Celli & Sandholm, EC 2022 / MOR 2025 (correlation DAG); Farina 2023 "
               "Lemma 9.2 / Prop. 9.1 (dualised trigger constraints)",
        options=(
            Option("method", str, None, "correlation_dag: the exact LP over the correlation DAG",
                   choices=("correlation_dag",)),
            OBJECTIVE_OPTION,
            Option("max_dag_edges", int, DEFAULT_MAX_EDGES,
                   "correlation DAG: refuse past this many prescriptions (DAG edges)", minimum=1),
        ),
    ))
