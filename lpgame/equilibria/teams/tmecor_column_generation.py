"""Column generation for TMECor over the team's joint pure plans (any team, any information).

Farina, Celli, Gatti & Sandholm 2018/2021 (the "single oracle"). The restricted master LP mixes the
joint plans found so far, columns c_k[σ_o] = Σ_{z: σ_o(z) = σ_o} p_c(z) u_T(z) Π_i π_{k,i}[σ_i(z)]:

    L = max_{λ, v}  f_oᵀ v   s.t.   F_oᵀ v ≤ Σ_k λ_k c_k,   Σ_k λ_k = 1,   λ ≥ 0;

its duals are the opponent's plan y against the restricted team, and the oracle
(:mod:`lpgame.equilibria.teams.tmecor_oracle`) is the team's best joint pure plan against y, whose MILP
dual bound U bounds the value from above. L ≤ v* ≤ U at every round; the loop adds the oracle's
plan while U > L + tolerance and ends when the oracle certifies that no column improves. At a time
limit or the iteration limit the state is labelled ``time_limit`` / ``iteration_limit`` with the
bounds [L, min U].
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from lpgame import progress
from lpgame.equilibria.correlated.efce import CorrelationPlanSpace
from lpgame.equilibria.teams.tmecor_oracle import (
    JointPlan,
    column_of,
    improve_by_alternation,
    team_oracle,
)
from lpgame.equilibria.teams.tmecor_team import Team
from lpgame.errors import SolverTimeLimitError
from lpgame.lp import LinearProgram, solve_lp
from lpgame.lp.solution import LPSolution

DEFAULT_TOLERANCE = 1e-9
"""Column generation stops when the oracle's bound is within this of the master's value
(relative to the team's payoff range, at least 1)."""
DEFAULT_MAX_ITERATIONS = 5_000
LOOSE_MIP_GAP = 1e-3
"""Relative gap of the oracle's first attempt each round; the proof of the last round uses 1e-9."""


def master_lp(team: Team, columns: np.ndarray) -> LinearProgram:
    """The restricted master LP over the columns (|Σ_o| × K) of the module docstring."""
    sf, o = team.sf, team.opponent
    K = columns.shape[1]
    lp = LinearProgram(name=f"tmecor-master:{sf.game.name}", description=(
        "restricted TMECor master: max f_oᵀv s.t. F_oᵀv ≤ Σ_k λ_k c_k, Σλ = 1, λ ≥ 0 "
        "(Farina, Celli, Gatti & Sandholm 2018)"))
    lam = lp.add_variables("lambda", K, lower=0.0)
    v = lp.add_variables("v", sf.num_infosets(o) + 1, lower=-np.inf)
    lp.add_constraints("opponent_best_response",
                       [(v, sf.treeplex_matrix(o).T), (lam, -sp.csr_array(columns))], "<=", 0.0)
    lp.add_constraints("distribution", [(lam, sp.csr_array(np.ones((1, K))))], "==", 1.0)
    e0 = np.zeros(sf.num_infosets(o) + 1)
    e0[0] = 1.0
    lp.set_objective([(v, e0)], sense="max")
    return lp


@dataclass
class ColumnGeneration:
    """The state at the end of the loop."""

    status: str                       # "optimal", "time_limit" or "iteration_limit"
    lower: float
    upper: float
    probabilities: np.ndarray
    columns: list[JointPlan]
    opponent_plan: np.ndarray
    iterations: int
    history: list[tuple[float, float, float]]    # (seconds, lower, upper) per round
    master: LinearProgram | None
    solve_seconds: float
    master_solution: LPSolution | None = None
    heuristic_columns: int = 0          # columns found by alternating best responses


def column_generation(team: Team, space: CorrelationPlanSpace | None = None,
                      tolerance: float = DEFAULT_TOLERANCE,
                      max_iterations: int = DEFAULT_MAX_ITERATIONS,
                      time_limit: float | None = None, backend: str = "highs",
                      initial_opponent_plan: np.ndarray | None = None,
                      initial_upper: float = np.inf, **solver_options) -> ColumnGeneration:
    """The single-oracle loop of the module docstring; with ``space`` (two members) the oracle
    is the pair MILP, otherwise the product MILP. The first oracle answers
    ``initial_opponent_plan`` (default: the uniform strategy); ``initial_upper`` is a known upper
    bound on the value (the V-relaxation's)."""
    sf = team.sf
    start = time.perf_counter()
    deadline = None if time_limit is None else start + float(time_limit)
    tol = tolerance * team.scale
    o = team.opponent
    uniform = sf.plan_from_behaviour(o, sf.uniform_behaviour(o))

    def left() -> float | None:
        return None if deadline is None else deadline - time.perf_counter()

    plans: list[JointPlan] = []
    columns: list[np.ndarray] = []
    y = uniform if initial_opponent_plan is None else np.asarray(initial_opponent_plan, float)
    upper = float(initial_upper)
    lower = -np.inf
    lam = np.zeros(0)
    master = None
    last_solution = None
    history: list[tuple[float, float, float]] = []
    solve_seconds = 0.0
    status = "iteration_limit"
    iterations = 0
    heuristic_columns = 0

    def _solve_master():
        """Solve the master over ``columns``; update the loop's state; None at the time limit."""
        nonlocal master, lower, lam, y, solve_seconds, last_solution, plans, columns
        lp = master_lp(team, np.column_stack(columns))
        options = dict(solver_options)
        remaining = left()
        if remaining is not None:
            options["time_limit"] = max(remaining, 1.0 if not lam.size else 1e-3)
        try:
            solution = solve_lp(lp, backend=backend, **options)
        except SolverTimeLimitError:
            if lam.size:
                plans, columns = plans[:-1], columns[:-1]
                return None
            raise
        master = lp
        solve_seconds += solution.seconds
        last_solution = solution
        lower = float(solution.objective)
        lam = np.clip(solution.values("lambda"), 0.0, None)
        y = np.clip(solution.duals("opponent_best_response"), 0.0, None)
        history.append((time.perf_counter() - start, lower, upper))
        progress.report("TMECor column generation", columns=len(columns), lower=lower, upper=upper)
        return solution

    while True:
        if iterations >= max_iterations:
            status = "iteration_limit"
            break
        remaining = left()
        if remaining is not None and remaining <= 0 and lam.size:
            status = "time_limit"
            break
        if lam.size:
            # cheap columns first: alternate the members' best responses from the plans in use
            found = None
            for k in np.argsort(-lam)[:5]:
                candidate, candidate_value = improve_by_alternation(team, y, plans[k])
                if candidate_value > lower + tol and not any(
                        np.array_equal(column_of(team, candidate), c) for c in columns):
                    found = candidate
                    break
            if found is not None:
                heuristic_columns += 1
                plans.append(found)
                columns.append(column_of(team, found))
                iterations += 1
                solution = _solve_master()
                if solution is None:
                    status = "time_limit"
                    break
                continue
        try:
            # a loose relative gap finds improving columns fast; the tight one proves the end
            answer = team_oracle(team, y, space, time_limit=remaining, mip_rel_gap=LOOSE_MIP_GAP)
            if lam.size and answer.value <= lower + tol < answer.upper:
                remaining = left()
                answer = team_oracle(team, y, space, time_limit=remaining)
        except SolverTimeLimitError:
            if lam.size:
                status = "time_limit"
                break
            raise
        upper = min(upper, answer.upper)        # every y holds every team plan to its bound
        history.append((time.perf_counter() - start, lower, upper))
        progress.report("TMECor column generation", columns=len(columns), lower=lower, upper=upper)
        if lam.size and answer.upper <= lower + tol:
            status = "optimal"
            break
        if lam.size and answer.value <= lower + tol:
            status = "time_limit"               # the oracle stopped early without a better plan
            break
        column = column_of(team, answer.plan)
        if any(np.array_equal(column, c) for c in columns):
            # no new column although the bound leaves room: the solvers' numerical limit
            status = "optimal" if answer.upper - lower <= 1e3 * tol else "stalled"
            break
        plans.append(answer.plan)
        columns.append(column)
        iterations += 1
        solution = _solve_master()
        if solution is None:
            status = "time_limit"
            break
    if lam.size == 0:
        raise SolverTimeLimitError(f"{sf.game.name}: column generation stopped ({status}) before "
                                   "its first restricted LP; no team distribution to report",
                                   best_bound=None if not np.isfinite(upper) else upper)
    lam = lam / lam.sum()
    return ColumnGeneration(status, lower, upper, lam, plans, y, iterations, history, master,
                            solve_seconds, last_solution, heuristic_columns)
