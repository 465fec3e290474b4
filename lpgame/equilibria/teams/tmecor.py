"""Team-maxmin equilibrium with correlation (TMECor): a team of players against one opponent.

**Concept** (Farina 2023, ch. 11, eq. (11.1); Celli & Gatti 2018; notes/farina-thesis.md §1.11).
The team T plays against the opponent o. Before the game the team members draw a joint pure plan
(π_i)_{i ∈ T} from a distribution μ they choose together (ex-ante correlation, no communication
during play); the opponent then plays a realization plan y. The team's utility is the opponent's
loss, u_T(z) = −u_o(z) (in team matching pennies the team's common payoff, in three-player Kuhn
poker the sum of the members' payoffs), and the opponent minimises it:

    v* = max_μ min_{y ∈ Q_o} Σ_z p_c(z) u_T(z) ω_μ[z] y[σ_o(z)],
    ω_μ[z] = Σ μ[(π_i)] Π_{i ∈ T} π_i[σ_i(z)]                          (realization vector, (11.4)).

It is a bilinear saddle point over the polytope Ω_T of realization vectors (eq. (11.5)), so the
minmax theorem holds. In team matching pennies the TMECor value is 1/2, where uncorrelated team
members (TME) only get 1/4 (Lemmas 11.1–11.2).

**Methods** (this module dispatches; each formulation is in its own module with its source):

* ``lp`` — one LP over the von Stengel–Forges polytope of the two members' relevant pairs, exact
  for triangle-free teams (:mod:`lpgame.equilibria.teams.tmecor_lp`; Lemma 11.3, Cor. 11.1);
* ``belief_dag`` — one LP over the flows of the team belief DAG, exact for any team of a game that
  is timeable for the team (:mod:`lpgame.equilibria.teams.team_belief_dag`,
  :func:`~lpgame.equilibria.teams.tmecor_lp.belief_dag_lp`; Zhang, Farina & Sandholm 2023; Cor. 11.2). The
  flow is decomposed into pure flows, each a joint pure plan, which is the returned distribution;
* ``learning`` — regret minimisation (PCFR⁺ or CFR⁺) on the flows of the same DAG against the
  opponent's treeplex, to a target gap relative to the payoff range
  (:mod:`lpgame.equilibria.teams.tmecor_learning`; Zhang, Farina & Sandholm 2023; the thesis's
  "Ours" of Table 11.2). Never chosen by ``auto``;
* ``column_generation`` — a restricted LP over joint pure plans and a MILP oracle
  (:mod:`lpgame.equilibria.teams.tmecor_column_generation`, :mod:`lpgame.equilibria.teams.tmecor_oracle`;
  Farina, Celli, Gatti & Sandholm 2018/2021), for any team; labelled partial answers at its limits;
* ``auto`` — ``lp`` where it is exact (teams of one, triangle-free pairs), else ``belief_dag``
  when the DAG can be built within ``AUTO_MAX_DAG_EDGES`` prescriptions, else column generation.

**Certificate** (independent of every formulation): :mod:`lpgame.analysis.team_gaps` computes the
opponent's best response to the team's realization vector and the team's best joint pure plan
against the opponent's y, by enumeration or by its own MILP.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from lpgame.analysis.team_gaps import (
    DEFAULT_MAX_ENUMERATED_PLANS,
    team_gaps,
    team_reach_of_distribution,
)
from lpgame.compile import compile_game
from lpgame.equilibria.correlated.ce_cce import SUPPORT_TOLERANCE
from lpgame.equilibria.correlated.reduced_plans import plan_label
from lpgame.equilibria.teams.team_belief_dag import DEFAULT_MAX_EDGES, build_team_belief_dag, team_tree_game
from lpgame.equilibria.teams.tmecor_column_generation import (  # noqa: F401  (re-exported)
    DEFAULT_MAX_ITERATIONS,
    DEFAULT_TOLERANCE,
    column_generation,
    master_lp,
)
from lpgame.equilibria.teams.tmecor_exact import solve_tmecor_lp_exact
from lpgame.equilibria.teams.tmecor_learning import (
    DEFAULT_LEARNING_ITERATIONS,
    DEFAULT_TARGET_GAP,
    REGRET_MINIMISERS,
    build_learning_dag,
    check_learning_options,
    flow_marginals,
    learn_tmecor,
)
from lpgame.equilibria.teams.tmecor_lp import belief_dag_lp, tmecor_lp
from lpgame.equilibria.teams.tmecor_oracle import team_oracle  # noqa: F401  (re-exported)
from lpgame.equilibria.teams.tmecor_team import Team, make_team, team_plan_space
from lpgame.errors import ExactCheckError, InvalidGameError, ModelTooLargeError, OptionError
from lpgame.lp import solve_lp
from lpgame.lp.dual_certificate import optimality
from lpgame.lp.scaling import float_bounds
from lpgame.lp.solution import solver_report
from lpgame.registry import Concept, Option, register
from lpgame.result import Certificate, Result, format_number, register_result_kind
from lpgame.sequence_form import SequenceForm

__all__ = ["TeamResult", "make_team", "solve_tmecor", "team_plan_space", "tmecor_lp",
           "belief_dag_lp", "column_generation", "Team"]

TMECOR_METHODS = ("auto", "lp", "belief_dag", "learning", "column_generation")
ORACLE_FORMULATIONS = ("auto", "pairs", "products")
AUTO_MAX_DAG_EDGES = 1_000_000
"""``auto`` builds the team belief DAG up to this many prescriptions, else column generation."""
DEFAULT_MAX_DISTRIBUTION_PLANS = 20_000
"""The belief-DAG flow is decomposed into at most this many joint pure plans."""
LEARNING_DISTRIBUTION_PLANS = 200
"""A learned flow (full support) is listed as its first joint pure plans only; the certificate and
the marginals read the flow itself."""


# ---------------------------------------------------------------------------------------- result
@register_result_kind
@dataclass(kw_only=True)
class TeamResult(Result):
    """A TMECor: the team's value (the opponent's loss), the team's correlated distribution
    (``extra["team_distribution"]``, column generation and belief DAG) or correlation plan
    (``extra["correlation_plan"]``, LP), each member's marginal strategy and the opponent's
    strategy, with ``extra["status"]`` and ``extra["bounds"]`` = [lower, upper]."""

    kind = "team"

    def value_label(self) -> None:
        return None          # body_lines opens with the team's value (and its bounds)

    def headline(self) -> str:
        team = ", ".join(str(p) for p in self.extra.get("team", []))
        return (f"{self.game}: {self.concept}, team {{{team}}} against player "
                f"{self.extra.get('opponent')} ({self.extra.get('method')})")

    def body_lines(self, names: list[str], max_infosets: int | None = 200,
                   max_entries: int = 30, **options) -> list[str]:
        lower, upper = self.extra.get("bounds", [self.value, self.value])
        status = self.extra.get("status", "optimal")
        lines = [f"team value (the opponent's loss): {format_number(self.value)}"
                 + ("" if status == "optimal" else
                    f"   learned: the value lies in [{format_number(lower)}, "
                    f"{format_number(upper)}]" if status == "converged" else
                    f"   PARTIAL ({status}): the value lies in [{format_number(lower)}, "
                    f"{format_number(upper)}]")]
        dist = self.extra.get("team_distribution")
        plan = self.extra.get("correlation_plan")
        if dist:
            lines += ["", "team's correlated distribution over joint pure plans:"]
            lines += [f"  {format_number(d['probability'], 4):>8}  " + "  |  ".join(d["plans"])
                      for d in dist[:max_entries]]
        elif plan:
            lines += ["", "team's correlation plan (nonzero entries ξ[σ1, σ2]):"]
            lines += [f"  {format_number(e['value'], 4):>8}  " + " , ".join(e["sequences"])
                      for e in plan[:max_entries]]
        shown = len(dist or plan or [])
        if shown > max_entries:
            lines.append(f"  ... {shown - max_entries} more; --json writes every one")
        lines += ["", "(team members' strategies below are the marginals of the team's correlated "
                  "plan, which is not their product)"]
        return lines + super().body_lines(names, max_infosets=max_infosets, **options)


# ---------------------------------------------------------------------------------------- methods
@dataclass
class _Solved:
    """What every method hands to the certificate and the result."""

    sf: SequenceForm
    team: Team
    value: float
    team_reach: np.ndarray
    marginals: list[np.ndarray]
    opponent_plan: np.ndarray
    solve_seconds: float
    size: dict
    lp: object
    solver: dict


def _by_lp(t: Team, space, backend: str, time_limit, opts: dict, extra: dict) -> _Solved:
    sf = t.sf
    if time_limit is not None:
        opts["time_limit"] = time_limit
    lp, leaf_pos = tmecor_lp(t, space)
    solution = solve_lp(lp, backend=backend, **opts)
    value = float(lp.objective_scaling.from_unit(solution.objective))
    xi = np.clip(solution.values("xi"), 0.0, None)
    y = np.clip(solution.duals("opponent_best_response"), 0.0, None)
    if space is None:
        marginals = [xi]
    else:
        n1, n2 = (sf.num_sequences(i) for i in t.members)
        marginals = [xi[space.index(np.arange(n1), np.zeros(n1, np.int64))],
                     xi[space.index(np.zeros(n2, np.int64), np.arange(n2))]]
        support = np.flatnonzero(xi > SUPPORT_TOLERANCE)
        extra["correlation_plan"] = [{"sequences": list(lab), "value": float(xi[k])}
                                     for k, lab in zip(support, space.pair_labels(support))]
    extra["status"] = "optimal"
    extra["bounds"] = [value, value]
    return _Solved(sf, t, value, xi[leaf_pos], marginals, y, solution.seconds, lp.size(), lp,
                   solver_report(solution))


def _tree_team(t: Team, team) -> tuple[Team, object]:
    """The team on the game's explicit tree (structured games are re-expanded from their rules,
    with the same labels, so the leaves follow the tree's order)."""
    tree = team_tree_game(t.sf.game)
    if tree is t.sf.game:
        return t, tree
    return make_team(compile_game(tree), team), tree


def _dag_distribution(t: Team, dag, flow: np.ndarray, omega: np.ndarray, extra: dict,
                      max_plans: int, re_expanded: bool) -> tuple[np.ndarray, list[np.ndarray]]:
    """The DAG flow decomposed into joint pure plans (``extra["team_distribution"]``), the
    realization vector the certificate reads (the decomposition's, or the flow's ω where it
    stopped early) and the members' marginal plans."""
    sf = t.sf
    decomposing = time.perf_counter()
    lam, strategies = dag.decompose(flow, max_strategies=max_plans)
    member_plans = []
    for i in t.members:
        p = sf.players[i]
        rows = np.zeros((len(strategies), p.num_sequences))
        for k, decided in enumerate(strategies):
            b = np.zeros(p.num_sequences)
            b[0] = 1.0
            b[p.infoset_first_seq] = 1.0            # the first action where nothing is decided
            for (member, j), a in decided.items():
                if member == i:
                    first = int(p.infoset_first_seq[j])
                    b[first:first + int(p.infoset_num_actions[j])] = 0.0
                    b[first + a] = 1.0
            rows[k] = sf.plan_from_behaviour(i, b)
        member_plans.append(rows)
    reach = team_reach_of_distribution(sf, t.members, member_plans, lam) if lam.size else omega
    mismatch = float(np.abs(reach - omega).max()) if omega.size else 0.0
    complete = lam.size > 0 and mismatch <= 1e-6
    keep = np.argsort(-lam, kind="stable")
    extra["team_distribution"] = [
        {"plans": [plan_label(sf, i, member_plans[m][k]) for m, i in enumerate(t.members)],
         "probability": float(lam[k])} for k in keep if lam[k] > SUPPORT_TOLERANCE]
    extra["belief_dag"] = {**dag.size(), "build_seconds": dag.seconds,
                           "decomposition_seconds": time.perf_counter() - decomposing,
                           "joint_plans": int(lam.size), "decomposition_error": mismatch,
                           "re_expanded": re_expanded}
    if not complete:
        # the certificate then reads the flow's realization vector itself
        extra["belief_dag"]["note"] = ("the decomposition stopped before it covered the flow; the "
                                       "certificate uses the flow's realization vector")
        reach = omega
    marginals = [lam @ rows if lam.size else np.zeros(sf.num_sequences(i))
                 for rows, i in zip(member_plans, t.members)]
    return reach, marginals


def _by_belief_dag(t: Team, team, backend: str, time_limit, opts: dict, extra: dict,
                   max_edges: int, max_plans: int) -> _Solved:
    built = time.perf_counter()
    given = t.sf.game
    t, tree = _tree_team(t, team)
    sf = t.sf
    dag = build_team_belief_dag(tree, t.members, max_edges=max_edges)
    if time_limit is not None:
        opts["time_limit"] = max(1e-3, float(time_limit) - (time.perf_counter() - built))
    lp = belief_dag_lp(t, dag)
    solution = solve_lp(lp, backend=backend, **opts)
    value = float(lp.objective_scaling.from_unit(solution.objective))
    flow = np.clip(solution.values("x"), 0.0, None)
    y = np.clip(solution.duals("opponent_best_response"), 0.0, None)
    omega = dag.realization(flow)
    reach, marginals = _dag_distribution(t, dag, flow, omega, extra, max_plans, tree is not given)
    extra["status"] = "optimal"
    extra["bounds"] = [value, value]
    size = {**lp.size(), "beliefs": dag.num_beliefs, "prescriptions": dag.num_edges}
    return _Solved(sf, t, value, reach, marginals, y, dag.seconds + solution.seconds, size, lp,
                   solver_report(solution))


def _by_learning(t: Team, team, time_limit, extra: dict, max_edges: int, max_plans: int,
                 target_gap: float, iterations: int, regret_minimiser: str) -> _Solved:
    """Regret minimisation on the team belief DAG (:mod:`lpgame.equilibria.teams.tmecor_learning`):
    the averaged flow, its ω (which the certificate reads), its members' marginals and ȳ."""
    started = time.perf_counter()
    given = t.sf.game
    check_learning_options(target_gap, iterations, time_limit, regret_minimiser)
    t, tree = _tree_team(t, team)
    dag = build_learning_dag(tree, t.members, max_edges)
    left = None if time_limit is None else max(1e-3, float(time_limit)
                                               - (time.perf_counter() - started))
    run = learn_tmecor(t, dag, target_gap, iterations, left, regret_minimiser)
    _dag_distribution(t, dag, run.flow, run.team_reach, extra,
                      min(max_plans, LEARNING_DISTRIBUTION_PLANS), tree is not given)
    extra["status"] = run.status
    extra["bounds"] = [run.lower, run.upper]
    extra["learning"] = {"regret_minimiser": regret_minimiser, "iterations": run.iterations,
                         "target_gap": target_gap, "relative_gap": run.relative_gap,
                         "payoff_range": run.payoff_range, "learning_seconds": run.seconds,
                         "build_seconds": dag.seconds, "history": [list(h) for h in run.history]}
    size = {"beliefs": dag.num_beliefs, "prescriptions": dag.num_edges}
    solver = {"name": f"{regret_minimiser.upper()} on the team belief DAG", "backend": "numpy",
              "crossover": None, "tolerance": target_gap, "exact_certification": False}
    return _Solved(t.sf, t, run.value, run.team_reach,
                   flow_marginals(dag, run.flow, t.sf, t.members), run.opponent_plan,
                   dag.seconds + run.seconds, size, None, solver)


def _by_column_generation(t: Team, space, backend: str, tol: float, max_iterations: int,
                          time_limit, opts: dict, extra: dict, oracle: str, seed: str,
                          relaxation_bound: bool) -> _Solved:
    sf = t.sf
    oracle_space = space if oracle in ("auto", "pairs") else None
    if oracle == "pairs" and space is None:
        raise OptionError("oracle='pairs' needs a team of two members; use oracle='products'")
    seed_plan, seed_bound = None, np.inf
    if (seed == "relaxation" or relaxation_bound) and space is not None:
        # the LP over V_T ⊇ Ξ_T: an upper bound, and its opponent plan as the first question
        relaxation, _ = tmecor_lp(t, space)
        relaxed = solve_lp(relaxation, backend=backend, **opts)
        seed_bound = float(relaxation.objective_scaling.from_unit(relaxed.objective))
        if seed == "relaxation":
            seed_plan = np.clip(relaxed.duals("opponent_best_response"), 0.0, None)
        extra["relaxation_bound"] = seed_bound
    cg = column_generation(t, oracle_space, tol, max_iterations, time_limit, backend,
                           initial_opponent_plan=seed_plan, initial_upper=seed_bound, **opts)
    extra["oracle"] = "pairs" if oracle_space is not None else "products"
    probs = cg.probabilities
    keep = np.flatnonzero(probs > SUPPORT_TOLERANCE)
    keep = keep[np.argsort(-probs[keep], kind="stable")]
    member_plans = [np.vstack([cg.columns[k].plans[m] for k in range(probs.size)])
                    for m in range(len(t.members))]
    extra["team_distribution"] = [
        {"plans": [plan_label(sf, i, cg.columns[k].plans[m]) for m, i in enumerate(t.members)],
         "probability": float(probs[k])} for k in keep]
    extra["status"] = cg.status
    extra["bounds"] = [cg.lower, cg.upper]
    extra["iterations"] = cg.iterations
    extra["columns"] = len(cg.columns)
    extra["heuristic_columns"] = cg.heuristic_columns
    extra["history"] = [list(h) for h in cg.history]
    return _Solved(sf, t, cg.lower,
                   team_reach_of_distribution(sf, t.members, member_plans, probs),
                   [probs @ member_plans[m] for m in range(len(t.members))], cg.opponent_plan,
                   cg.solve_seconds, cg.master.size() if cg.master is not None else {}, cg.master,
                   solver_report(cg.master_solution,
                                 oracle="HiGHS branch and bound (scipy.optimize.milp)"))


# ---------------------------------------------------------------------------------------- solve
def solve_tmecor(game, team=None, method: str = "auto", backend: str = "highs",
                 tolerance: float | None = None, max_iterations: int = DEFAULT_MAX_ITERATIONS,
                 time_limit: float | None = None,
                 max_certificate_plans: int = DEFAULT_MAX_ENUMERATED_PLANS,
                 oracle: str = "auto", seed: str = "uniform", relaxation_bound: bool = True,
                 certificate_time_limit: float | None = None,
                 max_dag_edges: int | None = None,
                 max_distribution_plans: int = DEFAULT_MAX_DISTRIBUTION_PLANS,
                 target_gap: float = DEFAULT_TARGET_GAP,
                 iterations: int = DEFAULT_LEARNING_ITERATIONS, regret_minimiser: str = "pcfr+",
                 exact: bool = False, **solver_options) -> TeamResult:
    """TMECor of ``team`` (1-based players) against the one other player (module docstring).

    ``method``: ``"lp"`` (triangle-free teams of at most two members; anything else raises
    :class:`~lpgame.errors.OptionError` naming the other methods), ``"belief_dag"`` (one LP over
    the team belief DAG; raises if the game is not timeable for the team or the DAG passes
    ``max_dag_edges`` prescriptions), ``"column_generation"``, or ``"auto"`` (the LP where it is
    exact, else the belief DAG where it fits in ``AUTO_MAX_DAG_EDGES``, else column generation).
    ``time_limit`` bounds the LP, or the whole column generation; when column generation reaches it
    the result is labelled ``status="time_limit"`` with ``bounds`` = [lower, upper] and the value
    is the lower bound the distribution guarantees. ``seed="relaxation"`` (two members) first
    solves the LP over the von Stengel–Forges polytope, whose value bounds v* from above and whose
    opponent plan is the oracle's first question; ``seed="uniform"`` starts from the uniform
    opponent. ``relaxation_bound`` (two members) solves that LP for its upper bound only.
    ``certificate_time_limit`` bounds the certificate's MILP (used when the team has too many
    joint plans to enumerate); if reached, its dual bound is reported as the team's deviation
    value. ``max_distribution_plans`` caps the decomposition of the belief-DAG flow.
    ``"learning"``: regret minimisation on the team belief DAG
    (:mod:`lpgame.equilibria.teams.tmecor_learning`) until the gap of the averages is at most
    ``target_gap`` × the payoff range, or ``iterations`` / ``time_limit``; ``regret_minimiser``
    ``"pcfr+"``, ``"cfr+"`` or ``"dcfr"``; ``max_dag_edges`` is its node cap. Its ``bounds`` are the
    certificate's [lower, upper] and its status ``converged``, ``iteration_limit`` or ``time_limit``.
    """
    if method not in TMECOR_METHODS:
        raise OptionError(f"option 'method' of concept 'tmecor' must be one of "
                          f"{', '.join(TMECOR_METHODS)}; got {method!r}")
    start = time.perf_counter()
    sf = compile_game(game)
    t = make_team(sf, team)
    space = team_plan_space(t)
    triangle = space.triangle() if space is not None else None
    lp_applies = len(t.members) == 1 or (space is not None and triangle is None)
    if method == "lp" and not lp_applies:
        why = (f"the team's information structure is not triangle-free (Farina 2023, Def. 9.5; "
               f"witness: {' / '.join(triangle)}), so the LP over the von Stengel–Forges polytope "
               f"would only give an upper bound" if triangle is not None else
               f"the LP is implemented for teams of one or two members, the team has "
               f"{len(t.members)}")
        raise OptionError(f"{sf.game.name}: method='lp' does not apply to team "
                          f"{tuple(i + 1 for i in t.members)}: {why}; use "
                          f"method='belief_dag' (--method belief_dag, one LP over the team belief "
                          f"DAG) or method='column_generation' (--method column_generation)")
    tol = DEFAULT_TOLERANCE if tolerance is None else float(tolerance)
    extra: dict = {"team": [i + 1 for i in t.members], "opponent": t.opponent + 1,
                   "triangle_free": triangle is None if space is not None else True}
    if triangle is not None:
        extra["triangle"] = list(triangle)
    if exact:
        if method not in ("auto", "lp") or not lp_applies:
            raise OptionError(
                f"{sf.game.name}: exact mode solves TMECor by its one LP, which applies to teams "
                f"of one and to triangle-free teams of two (method='lp'); team "
                f"{tuple(i + 1 for i in t.members)} with method={method!r} is solved in floating "
                "point only (its certificate measures the gaps)")
        return _solve_exact(t, space, backend, dict(solver_options), extra, start)
    opts = dict(solver_options)
    chosen = method
    if method == "auto":
        chosen = "lp" if lp_applies else "belief_dag"
    solved = None
    if chosen == "belief_dag":
        edges = (max_dag_edges if max_dag_edges is not None else
                 AUTO_MAX_DAG_EDGES if method == "auto" else DEFAULT_MAX_EDGES)
        try:
            solved = _by_belief_dag(t, team, backend, time_limit, dict(opts), extra, edges,
                                    max_distribution_plans)
        except (InvalidGameError, ModelTooLargeError) as exc:
            if method != "auto":
                raise
            extra["belief_dag_refused"] = str(exc)
            chosen = "column_generation"
    if chosen == "lp":
        solved = _by_lp(t, space, backend, time_limit, dict(opts), extra)
    elif chosen == "learning":
        solved = _by_learning(t, team, time_limit, extra,
                              DEFAULT_MAX_EDGES if max_dag_edges is None else max_dag_edges,
                              max_distribution_plans, target_gap, iterations, regret_minimiser)
    elif chosen == "column_generation":
        solved = _by_column_generation(t, space, backend, tol, max_iterations, time_limit,
                                       dict(opts), extra, oracle, seed, relaxation_bound)
    extra["method"] = chosen
    sf, t, value = solved.sf, solved.team, solved.value
    # normalise y onto the opponent's treeplex (duals are optimal to the solver's tolerance)
    o = t.opponent
    behaviour_o, unreached_o = sf.behaviour_from_plan(o, solved.opponent_plan)
    y = sf.plan_from_behaviour(o, behaviour_o)
    certifying = time.perf_counter()
    gaps = team_gaps(sf, t.members, o, solved.team_reach, y, value,
                     max_plans=max_certificate_plans, time_limit=certificate_time_limit)
    certificate_seconds = time.perf_counter() - certifying
    if chosen == "learning":          # the certified interval, not the learner's own measure
        extra["bounds"] = [gaps.lower, gaps.upper]
    # strategies: the team members' marginal behaviour (the distribution is in extra) and y
    behaviours, unreached = [None] * sf.num_players, [[] for _ in range(sf.num_players)]
    plans_out = [None] * sf.num_players
    for m, i in enumerate(t.members):
        b, un = sf.behaviour_from_plan(i, solved.marginals[m])
        behaviours[i], plans_out[i] = b, solved.marginals[m]
        unreached[i] = [lab for lab, u in zip(sf.infoset_labels(i), un) if u]
    behaviours[o], plans_out[o] = behaviour_o, y
    unreached[o] = [lab for lab, u in zip(sf.infoset_labels(o), unreached_o) if u]
    seqs = sf.terminal_sequences
    reach = sf.terminal_chance * solved.team_reach * y[seqs[:, o]]
    values = (reach @ sf.terminal_payoffs).tolist()
    certificate = Certificate(
        nash_conv=gaps.opponent_gain + gaps.team_gain,
        exploitability=(gaps.opponent_gain + gaps.team_gain) / 2,
        best_response_gain=[gaps.team_gain, gaps.opponent_gain], exact=False,
        extra=gaps.to_dict(), gain=max(gaps.team_gain, gaps.opponent_gain),
        deviations="the opponent's best response to the team's correlated plan and the team's "
                   "best joint pure plan against the opponent (lpgame.analysis.team_gaps)")
    extra["team_deviation"] = {"method": gaps.team_response.method,
                               "optimal": gaps.team_response.optimal, **gaps.team_response.detail}
    # optimality: lower(μ) ≤ v* ≤ upper(y) (lpgame.analysis.team_gaps), so the value is proven
    # when the two meet within RELATIVE_TOLERANCE × the opponent's payoff range
    lo, hi = float_bounds(sf.terminal_payoffs[:, o])
    certificate.extra.update(optimality(
        gaps.upper, gaps.lower, hi - lo, method="the team's best joint pure plan against y "
        "(upper) and the opponent's best response to the team's plan (lower), by "
        "lpgame.analysis.team_gaps"))
    end = time.perf_counter()
    return TeamResult(
        game=sf.game.name, concept="tmecor", value=value, values=values,
        strategies=[sf.strategy_to_dict(i, behaviours[i]) for i in range(sf.num_players)],
        certificate=certificate, size=solved.size,
        seconds={"total": end - start, "solve": solved.solve_seconds,
                 "certificate": certificate_seconds},
        solver=solved.solver, backend=backend,
        exact=False, variant="default", unreached=unreached, extra=extra, plans=plans_out,
        lp=solved.lp)


def _solve_exact(t, space, backend: str, opts: dict, extra: dict, start: float) -> TeamResult:
    """The exact LP and its exact saddle-point certificate
    (:mod:`lpgame.equilibria.teams.tmecor_exact`), as a TeamResult of Fractions."""
    sf, o = t.sf, t.opponent
    solved = solve_tmecor_lp_exact(t, space, backend, **opts)
    if not solved.lower <= solved.value <= solved.upper:
        raise ExactCheckError(f"exact mode: the LP value {solved.value} lies outside the exact "
                              f"bounds [{solved.lower}, {solved.upper}]")
    lo, hi = float_bounds(sf.terminal_payoffs[:, o])
    proof = optimality(solved.upper, solved.lower, hi - lo, method=(
        "exact: the team's best joint pure plan against y (upper) and the opponent's best "
        "response to the team's plan (lower), by lpgame.equilibria.teams.tmecor_exact"))
    if space is None:
        marginals = [solved.xi]
    else:
        n1, n2 = (sf.num_sequences(i) for i in t.members)
        marginals = [[solved.xi[k] for k in space.index(np.arange(n1), np.zeros(n1, np.int64))],
                     [solved.xi[k] for k in space.index(np.zeros(n2, np.int64), np.arange(n2))]]
        extra["correlation_plan"] = [{"sequences": list(lab), "value": v} for lab, v in
                                     zip(space.pair_labels(), solved.xi) if v]
    extra.update(method="lp", status="optimal" if proof["optimality_proven"] else "not proven",
                 bounds=[solved.lower, solved.upper])
    behaviours = [None] * sf.num_players
    unreached = [[] for _ in range(sf.num_players)]
    plans_out = [None] * sf.num_players
    for plan, i in list(zip(marginals, t.members)) + [(solved.opponent_plan, o)]:
        b, un = sf.behaviour_from_plan_exact(i, plan)
        behaviours[i], plans_out[i] = b, plan
        unreached[i] = [lab for lab, u in zip(sf.infoset_labels(i), un) if u]
    chance, payoffs = sf.exact_terminal_data()
    y_leaf = [solved.opponent_plan[s] for s in sf.terminal_sequences[:, o].tolist()]
    values = [sum((p * w * yl * row[k] for p, w, yl, row in
                   zip(chance, solved.team_reach, y_leaf, payoffs) if w and yl), Fraction(0))
              for k in range(sf.num_players)]
    team_gain, opponent_gain = solved.upper - solved.value, solved.value - solved.lower
    certificate = Certificate(
        nash_conv=team_gain + opponent_gain, exploitability=(team_gain + opponent_gain) / 2,
        best_response_gain=[team_gain, opponent_gain], exact=True,
        gain=max(team_gain, opponent_gain),
        extra={"opponent_best_response_value": solved.lower,
               "team_best_deviation_value": solved.upper, **proof,
               "exact_path": solved.path},
        deviations="the opponent's best response to the team's correlated plan and the team's "
                   "best joint pure plan against the opponent, in rationals "
                   "(lpgame.equilibria.teams.tmecor_exact)")
    return TeamResult(
        game=sf.game.name, concept="tmecor", value=solved.value, values=values,
        strategies=[sf.strategy_to_dict(i, behaviours[i]) for i in range(sf.num_players)],
        certificate=certificate, size=solved.lp.size(),
        seconds={"total": time.perf_counter() - start, "solve": solved.solution.seconds},
        solver=solver_report(solved.solution, True), backend=backend, exact=True,
        variant="default", unreached=unreached, extra=extra, plans=plans_out, lp=solved.lp)


def _solve_entry(game, *, exact: bool = False, backend: str = "highs", **options) -> TeamResult:
    return solve_tmecor(game, exact=exact, backend=backend, **options)


register(Concept(
    name="tmecor", games=("team",), solve=_solve_entry,
    summary="team-maxmin equilibrium with correlation: a team (team=1,2) against one opponent",
    certificate="the opponent's best response to the team's correlated plan and the team's best "
                "joint pure plan against the opponent (lpgame.analysis.team_gaps)",
    source="Farina 2023 ch. 11 (eqs. 11.1–11.6, Cor. 11.1, Cor. 11.2); Zhang, Farina & Sandholm "
           "2023 (team belief DAG, learning on it); Farina, Celli, Gatti & Sandholm 2018/2021 "
           "(column generation)",
    options=(
        Option("team", tuple, None, "the team's players, 1-based (e.g. 1,2); the one other "
               "player is the opponent"),
        Option("method", str, "auto", "lp (triangle-free teams), belief_dag (one LP over the "
               "team belief DAG), learning (regret minimisation on the team belief DAG), "
               "column_generation, or auto", choices=TMECOR_METHODS),
        Option("target_gap", float, DEFAULT_TARGET_GAP, "learning: stop when the certified gap "
               "is at most this fraction of the team's payoff range"),
        Option("iterations", int, DEFAULT_LEARNING_ITERATIONS, "learning: iteration limit",
               minimum=1),
        Option("regret_minimiser", str, "pcfr+", "learning: pcfr+ (predictive RM+, quadratic "
               "averaging), cfr+ (RM+, linear averaging) or dcfr (discounted CFR, α = 3/2, β = 0, "
               "cubic averaging)", choices=REGRET_MINIMISERS),
        Option("max_dag_edges", int, None, "belief_dag: most prescriptions of the team belief DAG "
               f"(default {DEFAULT_MAX_EDGES}; auto: {AUTO_MAX_DAG_EDGES}, then column "
               "generation)", minimum=1),
        Option("max_distribution_plans", int, DEFAULT_MAX_DISTRIBUTION_PLANS,
               "belief_dag: most joint pure plans in the decomposition of the DAG flow", minimum=1),
        Option("max_iterations", int, DEFAULT_MAX_ITERATIONS,
               "column generation: most rounds before a labelled partial answer", minimum=1),
        Option("oracle", str, "auto", "column generation's MILP: pairs (two members: binary "
               "marginals, relevant pairs in the von Stengel–Forges polytope), products, or auto",
               choices=ORACLE_FORMULATIONS),
        Option("seed", str, "uniform", "column generation's first opponent plan: uniform, or the "
               "V-relaxation LP's (two members; its value is also an upper bound)",
               choices=("uniform", "relaxation")),
        Option("relaxation_bound", bool, True, "column generation, two members: solve the LP over "
               "the von Stengel–Forges polytope first; its value is an upper bound"),
        Option("certificate_time_limit", float, None,
               "seconds for the certificate's team-deviation MILP (its dual bound if reached)"),
        Option("max_certificate_plans", int, DEFAULT_MAX_ENUMERATED_PLANS,
               "certificate: enumerate the team's joint plans up to this many, else a MILP", minimum=1),
    ),
    exact=True, backends=("highs",)))
