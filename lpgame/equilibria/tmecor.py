"""Team-maxmin equilibrium with correlation (TMECor): a team of players against one opponent.

**Concept** (Farina 2023, ch. 11, eq. (11.1); Celli & Gatti 2018; notes/farina-thesis.md §1.11).
The team T plays against the opponent o. Before the game the team members draw a joint pure plan
(π_i)_{i ∈ T} from a distribution μ they choose together (ex-ante correlation, no communication
during play); the opponent then plays a realization plan y. The game is a zero-sum team game: the
team's utility is the opponent's loss, u_T(z) = −u_o(z) (in team matching pennies the team's common
payoff, in three-player Kuhn poker the sum of the members' payoffs), and the opponent minimises it:

    v* = max_μ min_{y ∈ Q_o} Σ_z p_c(z) u_T(z) ω_μ[z] y[σ_o(z)],
    ω_μ[z] = Σ μ[(π_i)] Π_{i ∈ T} π_i[σ_i(z)]                          (realization vector, (11.4)).

It is a bilinear saddle point over the polytope Ω_T of realization vectors (eq. (11.5)), so the
minmax theorem holds: v* is also min_y max_{(π_i)} of the same sum. In team matching pennies the
TMECor value is 1/2, where uncorrelated team members (TME) only get 1/4 (Lemmas 11.1–11.2).

**LP for a triangle-free team** (notes §1.11, derived LP; Lemma 11.3 and Cor. 11.1). Ω_T is the
projection of the team's correlation-plan polytope Ξ_T, the plans of the game in which the
opponent is turned into chance. For two members ξ is indexed by the relevant sequence pairs and
Ξ_T is contained in the von Stengel–Forges polytope V (Def. 9.3), with equality when the team's
information structure is triangle-free (Def. 9.5, Thms 9.4–9.5); both, and the test, come from
:class:`lpgame.equilibria.efce.CorrelationPlanSpace` applied to the two members. Dualising the
opponent's best response (the sequence-form LP of Koller, Megiddo & von Stengel 1996) gives

    max_{ξ, v}  f_oᵀ v   s.t.   F_oᵀ v ≤ M ξ,   ξ ∈ V_T,
    M[σ_o, (σ_1, σ_2)] = Σ_{z: σ_o(z) = σ_o, σ_1(z) = σ_1, σ_2(z) = σ_2} p_c(z) u_T(z).

The duals of the rows F_oᵀ v ≤ M ξ are the opponent's optimal realization plan y. A team of one
player is the same LP with V_T replaced by that player's treeplex (the maximin LP). Where V_T ≠ Ξ_T
(a team with private information, as in three-player Kuhn, Leduc and Liar's dice) the LP's value is
only an upper bound, so the LP is used only on triangle-free teams.

**Column generation** for any team (Farina, Celli, Gatti & Sandholm 2018, "Ex ante coordination
and collusion in zero-sum multi-player extensive-form games", NeurIPS; Farina, Celli, Gatti &
Sandholm 2021, "Connecting optimal ex-ante collusion in teams to extensive-form correlation", AAAI:
the "single oracle" over the team's joint pure plans). The restricted master LP mixes the joint
plans found so far, columns c_k[σ_o] = Σ_{z: σ_o(z) = σ_o} p_c(z) u_T(z) Π_i π_{k,i}[σ_i(z)]:

    L = max_{λ, v}  f_oᵀ v   s.t.   F_oᵀ v ≤ Σ_k λ_k c_k,   Σ_k λ_k = 1,   λ ≥ 0;

its duals are the opponent's plan y against the restricted team. The oracle is the team's best
joint pure plan against y, a MILP over binary realization plans x_i ∈ {0,1}^{Σ_i}, F_i x_i = f_i,
with one product variable w_t ∈ [0, 1] per tuple of team sequences t = (σ_i)_i that y reaches with
a nonzero weight g_t = Σ_{z: σ_T(z) = t} p_c(z) u_T(z) y[σ_o(z)]:

    U = max Σ_t g_t w_t,   w_t ≤ x_i[σ_i] (g_t > 0),   w_t ≥ Σ_i x_i[σ_i] − (|T| − 1) (g_t < 0),

solved by HiGHS's branch and bound (``scipy.optimize.milp``). L ≤ v* ≤ U at every round (the
master's mixture guarantees L; the opponent's y holds every team plan to U); the loop adds the
oracle's plan while U > L + tolerance and ends when the oracle's dual bound certifies that no
column improves. At a time limit or the iteration limit the answer is labelled ``time_limit`` /
``iteration_limit`` and carries the bounds [L, min U].

**Certificate** (independent of both formulations): :mod:`lpgame.analysis.team_gaps` computes the
opponent's best response to the team's realization vector and the team's best joint pure plan
against the opponent's y, by enumeration or by its own per-leaf MILP.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, milp

from lpgame.analysis.best_response import best_response_to_payoffs
from lpgame.analysis.team_gaps import (
    DEFAULT_MAX_ENUMERATED_PLANS,
    team_gaps,
    team_leaf_weights,
    team_reach_of_distribution,
)
from lpgame.compile import compile_game
from lpgame.equilibria.correlated import SUPPORT_TOLERANCE, plan_label
from lpgame.equilibria.efce import CorrelationPlanSpace
from lpgame.errors import OptionError, SolverError, SolverTimeLimitError
from lpgame.lp import LinearProgram, solve_lp
from lpgame.lp.solution import LPSolution, solver_report
from lpgame.registry import Concept, Option, register
from lpgame.result import Certificate, Result, format_number, register_result_kind
from lpgame.sequence_form import SequenceForm

TMECOR_METHODS = ("auto", "lp", "column_generation")
ORACLE_FORMULATIONS = ("auto", "pairs", "products")
DEFAULT_TOLERANCE = 1e-9
"""Column generation stops when the oracle's bound is within this of the master's value
(relative to the team's payoff range, at least 1)."""
DEFAULT_MAX_ITERATIONS = 5_000
LOOSE_MIP_GAP = 1e-3
"""Relative gap of the oracle's first attempt each round; the proof of the last round uses 1e-9."""


# ---------------------------------------------------------------------------------------- the team
@dataclass
class Team:
    """The team (0-based members), the opponent and the team's leaf weights p_c(z) u_T(z)."""

    sf: SequenceForm
    members: tuple[int, ...]
    opponent: int
    leaf_weight: np.ndarray

    @property
    def scale(self) -> float:
        """The team's payoff range (at least 1), the unit of the tolerances."""
        u = -self.sf.terminal_payoffs[:, self.opponent]
        return max(1.0, float(u.max() - u.min())) if u.size else 1.0


def make_team(sf: SequenceForm, team) -> Team:
    """Check ``team`` (1-based player numbers, as users count them) against the game."""
    n = sf.num_players
    if team is None:
        raise OptionError("concept 'tmecor' needs the team's players, e.g. team=(1, 2) "
                          "(1-based; --team 1,2 on the command line)")
    try:
        members = tuple(int(p) for p in team)
    except (TypeError, ValueError):
        raise OptionError(f"option 'team' of concept 'tmecor' must list player numbers, e.g. "
                          f"(1, 2); got {team!r}") from None
    if not members or len(set(members)) != len(members) or any(
            p != q for p, q in zip(members, team)):
        raise OptionError(f"option 'team' of concept 'tmecor' must list distinct player numbers; "
                          f"got {team!r}")
    bad = [p for p in members if not 1 <= p <= n]
    if bad:
        raise OptionError(f"team players {bad} do not exist in {sf.game.name}: its players are "
                          f"1..{n}")
    outside = [p for p in range(1, n + 1) if p not in members]
    if not outside:
        raise OptionError(f"team {members} includes every player of {sf.game.name}: TMECor needs "
                          "an opponent outside the team")
    if len(outside) > 1:
        raise OptionError(f"team {members} of {sf.game.name} leaves players {outside} outside: "
                          "tmecor solves a team against exactly one opponent; put all but one "
                          "player in the team")
    zero_based = tuple(sorted(p - 1 for p in members))
    return Team(sf, zero_based, outside[0] - 1, team_leaf_weights(sf, outside[0] - 1))


class _MemberPairView:
    """Two team members' part of a sequence form, read by :class:`CorrelationPlanSpace`: the
    opponent and chance are the environment (Lemma 11.3: the opponent turned into chance)."""

    num_players = 2

    def __init__(self, sf: SequenceForm, members: tuple[int, int]):
        self.game = sf.game
        self.players = [sf.players[i] for i in members]
        self.terminal_sequences = sf.terminal_sequences[:, list(members)]
        self._sf, self._members = sf, members

    def sequence_labels(self, player: int) -> list[str]:
        return self._sf.sequence_labels(self._members[player])


def team_plan_space(team: Team) -> CorrelationPlanSpace | None:
    """The relevant-pair space of a two-member team (None for a team of one)."""
    if len(team.members) != 2:
        return None
    return CorrelationPlanSpace(_MemberPairView(team.sf, team.members))


# ---------------------------------------------------------------------------------------- LP
def tmecor_lp(team: Team, space: CorrelationPlanSpace | None) -> tuple[LinearProgram, np.ndarray]:
    """The LP of the module docstring; returns it and each leaf's position among the ξ variables."""
    sf = team.sf
    seqs = sf.terminal_sequences
    o = team.opponent
    lp = LinearProgram(name=f"tmecor:{sf.game.name}", description=(
        "TMECor of a triangle-free team against one opponent: max f_oᵀv s.t. F_oᵀv ≤ Mξ, ξ ∈ V_T "
        "(Farina 2023, Lemma 11.3, Cor. 11.1; notes §1.11)"))
    if space is None:                                  # a team of one: its treeplex
        member = team.members[0]
        xi = lp.add_variables("xi", sf.num_sequences(member), lower=0.0,
                              labels=sf.sequence_labels(member))
        lp.add_constraints("treeplex", [(xi, sf.treeplex_matrix(member))], "==",
                           sf.treeplex_rhs(member))
        leaf_pos = seqs[:, member]
        n_xi = sf.num_sequences(member)
    else:
        labels = [f"{a}|{b}" for a, b in space.pair_labels()] if space.num_pairs <= 20_000 else None
        xi = lp.add_variables("xi", space.num_pairs, lower=0.0, labels=labels)
        matrix, rhs, names = space.polytope()
        lp.add_constraints("von_stengel_forges", [(xi, matrix)], "==", rhs,
                           labels=names if matrix.shape[0] <= 20_000 else None)
        a, b = team.members
        leaf_pos = space.index(seqs[:, a], seqs[:, b])
        n_xi = space.num_pairs
    v = lp.add_variables("v", sf.num_infosets(o) + 1, lower=-np.inf)
    M = sp.csr_array((team.leaf_weight, (seqs[:, o], leaf_pos)),
                     shape=(sf.num_sequences(o), n_xi))
    lp.add_constraints("opponent_best_response", [(v, sf.treeplex_matrix(o).T), (xi, -M)], "<=",
                       0.0, labels=sf.sequence_labels(o) if sf.num_sequences(o) <= 20_000 else None)
    e0 = np.zeros(sf.num_infosets(o) + 1)
    e0[0] = 1.0
    lp.set_objective([(v, e0)], sense="max")
    return lp, leaf_pos


# ---------------------------------------------------------------------------------------- column generation
@dataclass
class JointPlan:
    """One column: a pure realization plan (0/1) per team member."""

    plans: list[np.ndarray]


@dataclass
class OracleAnswer:
    plan: JointPlan
    value: float          # the plan's value against y
    upper: float          # the MILP's dual bound (≥ every joint plan's value)
    optimal: bool


def _oracle_weights(team: Team, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per leaf: g(z) = p_c(z) u_T(z) y[σ_o(z)], and the leaves where it is nonzero."""
    leaf_g = team.leaf_weight * np.asarray(y, dtype=float)[team.sf.terminal_sequences[:, team.opponent]]
    return leaf_g, np.flatnonzero(leaf_g != 0)


def _run_milp(c, integrality, eq_matrix, eq_rhs, ub_matrix, ub_rhs, time_limit, mip_rel_gap):
    """min cᵀx over 0 ≤ x ≤ 1 with the equality and ≤ rows, ``integrality`` 1 for binaries."""
    options = {"disp": False, "mip_rel_gap": mip_rel_gap}
    if time_limit is not None:
        options["time_limit"] = max(float(time_limit), 1e-3)
    constraints = [LinearConstraint(eq_matrix, eq_rhs, eq_rhs)]
    if ub_matrix.shape[0]:
        constraints.append(LinearConstraint(ub_matrix, -np.inf, ub_rhs))
    return milp(c, integrality=integrality, bounds=Bounds(0.0, 1.0), constraints=constraints,
                options=options)


def _answer(team: Team, res, plans: list[np.ndarray], leaf_g: np.ndarray) -> OracleAnswer:
    seqs = team.sf.terminal_sequences
    reach = np.ones(seqs.shape[0])
    for m, i in enumerate(team.members):
        reach *= plans[m][seqs[:, i]]
    value = float(leaf_g @ reach)
    bound = getattr(res, "mip_dual_bound", None)
    upper = value if bound is None or not np.isfinite(bound) else max(value, -float(bound))
    return OracleAnswer(JointPlan(plans), value, upper, res.status == 0)


def _check_milp(team: Team, res) -> None:
    if res.x is None:
        name = team.sf.game.name
        if res.status == 1:
            raise SolverTimeLimitError(f"{name}: the team oracle MILP stopped at its limit "
                                       "before finding a plan", status=res.message)
        raise SolverError(f"{name}: the team oracle MILP failed: {res.message}",
                          status=str(res.status))


def team_oracle(team: Team, y: np.ndarray, space: CorrelationPlanSpace | None = None,
                time_limit: float | None = None, mip_rel_gap: float = 1e-9) -> OracleAnswer:
    """The team's best joint pure plan against y by a MILP on HiGHS (``scipy.optimize.milp``).

    Two members with their relevant-pair ``space``: the pair formulation of the module docstring
    (w ∈ V_T, binary marginals); otherwise the generic product formulation.
    """
    if space is not None:
        return _pair_oracle(team, y, space, time_limit, mip_rel_gap)
    return _product_oracle(team, y, time_limit, mip_rel_gap)


def _pair_oracle(team: Team, y: np.ndarray, space: CorrelationPlanSpace,
                 time_limit: float | None, mip_rel_gap: float) -> OracleAnswer:
    sf = team.sf
    seqs = sf.terminal_sequences
    a, b = team.members
    leaf_g, live = _oracle_weights(team, y)
    P = space.num_pairs
    g = np.bincount(space.index(seqs[live, a], seqs[live, b]), weights=leaf_g[live], minlength=P)
    s1, s2 = space.pairs[:, 0], space.pairs[:, 1]
    n1, n2 = sf.num_sequences(a), sf.num_sequences(b)
    first = space.index(np.arange(n1), np.zeros(n1, np.int64))      # w[σ1, ∅] = x_1[σ1]
    second = space.index(np.zeros(n2, np.int64), np.arange(n2))     # w[∅, σ2] = x_2[σ2]
    A_eq, b_eq, _ = space.polytope()
    inner = (s1 > 0) & (s2 > 0)
    pos = np.flatnonzero(inner & (g > 0))
    neg = np.flatnonzero(inner & (g < 0))
    # w ≤ x_1[σ1], w ≤ x_2[σ2] (g > 0);   x_1[σ1] + x_2[σ2] − w ≤ 1 (g < 0)
    cols = np.concatenate([np.column_stack([pos, first[s1[pos]]]).ravel(),
                           np.column_stack([pos, second[s2[pos]]]).ravel(),
                           np.column_stack([neg, first[s1[neg]], second[s2[neg]]]).ravel()])
    vals = np.concatenate([np.tile([1.0, -1.0], 2 * pos.size), np.tile([-1.0, 1.0, 1.0], neg.size)])
    rows = np.concatenate([np.repeat(np.arange(pos.size), 2), np.repeat(pos.size + np.arange(pos.size), 2),
                           np.repeat(2 * pos.size + np.arange(neg.size), 3)])
    A_ub = sp.csr_array((vals, (rows, cols)), shape=(2 * pos.size + neg.size, P))
    b_ub = np.concatenate([np.zeros(2 * pos.size), np.ones(neg.size)])
    integrality = np.zeros(P)
    integrality[first] = 1
    integrality[second] = 1
    res = _run_milp(-g, integrality, A_eq, b_eq, A_ub, b_ub, time_limit, mip_rel_gap)
    _check_milp(team, res)
    w = np.round(res.x)
    return _answer(team, res, [w[first], w[second]], leaf_g)


def _product_oracle(team: Team, y: np.ndarray, time_limit: float | None,
                    mip_rel_gap: float) -> OracleAnswer:
    sf = team.sf
    seqs = sf.terminal_sequences
    members = list(team.members)
    k = len(members)
    leaf_g, live = _oracle_weights(team, y)
    tuples, inverse = np.unique(seqs[live][:, members], axis=0, return_inverse=True)
    g = np.bincount(inverse.ravel(), weights=leaf_g[live], minlength=tuples.shape[0])
    keep = g != 0
    tuples, g = tuples[keep], g[keep]
    sizes = [sf.num_sequences(i) for i in members]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n_x, n_w = int(offsets[-1]), g.size
    A_eq = sp.hstack([sp.block_diag([sf.treeplex_matrix(i) for i in members]),
                      sp.csr_array((sum(sf.num_infosets(i) + 1 for i in members), n_w))],
                     format="csr")
    b_eq = np.concatenate([sf.treeplex_rhs(i) for i in members])
    pos, neg = np.flatnonzero(g > 0), np.flatnonzero(g < 0)
    # w_t − x_i[σ_i] ≤ 0 (g_t > 0, one row per member);  Σ_i x_i[σ_i] − w_t ≤ k − 1 (g_t < 0)
    rows = [np.repeat(np.arange(k * pos.size), 2),
            np.repeat(k * pos.size + np.arange(neg.size), k + 1)]
    cols_pos = np.stack([np.tile(n_x + pos, k),
                         np.concatenate([offsets[m] + tuples[pos, m] for m in range(k)])], axis=1)
    cols_neg = np.column_stack([n_x + neg] + [offsets[m] + tuples[neg, m] for m in range(k)])
    vals_pos = np.tile([1.0, -1.0], k * pos.size)
    vals_neg = np.tile(np.concatenate([[-1.0], np.ones(k)]), neg.size)
    A_ub = sp.csr_array((np.concatenate([vals_pos, vals_neg]),
                         (np.concatenate(rows), np.concatenate([cols_pos.ravel(), cols_neg.ravel()]))),
                        shape=(k * pos.size + neg.size, n_x + n_w))
    b_ub = np.concatenate([np.zeros(k * pos.size), np.full(neg.size, k - 1.0)])
    res = _run_milp(np.concatenate([np.zeros(n_x), -g]),
                    np.concatenate([np.ones(n_x), np.zeros(n_w)]), A_eq, b_eq, A_ub, b_ub,
                    time_limit, mip_rel_gap)
    _check_milp(team, res)
    x = np.round(res.x[:n_x])
    return _answer(team, res, [x[offsets[m]:offsets[m + 1]] for m in range(k)], leaf_g)


def improve_by_alternation(team: Team, y: np.ndarray, plan: JointPlan,
                           max_sweeps: int = 20) -> tuple[JointPlan, float]:
    """A local search for a good joint pure plan against y: each member in turn plays a best
    response (the bottom-up recursion of :mod:`lpgame.analysis.best_response`) to the others'
    current plans, until no member improves. Cheap; it finds columns but proves nothing."""
    sf = team.sf
    seqs = sf.terminal_sequences
    leaf_g, _ = _oracle_weights(team, y)
    plans = [np.asarray(x, dtype=float).copy() for x in plan.plans]
    members = team.members

    def value() -> float:
        reach = leaf_g.copy()
        for m, i in enumerate(members):
            reach *= plans[m][seqs[:, i]]
        return float(reach.sum())

    best = value()
    for _ in range(max_sweeps):
        improved = False
        for m, i in enumerate(members):
            weight = leaf_g.copy()
            for k, other in enumerate(members):
                if k != m:
                    weight *= plans[k][seqs[:, other]]
            g = np.bincount(seqs[:, i], weights=weight, minlength=sf.num_sequences(i))
            br = best_response_to_payoffs(sf, i, g)
            if br.value > best + 1e-12 * max(1.0, abs(best)):
                plans[m] = sf.plan_from_behaviour(i, br.behaviour)
                best = value()
                improved = True
        if not improved:
            break
    return JointPlan(plans), best


def column_of(team: Team, plan: JointPlan) -> np.ndarray:
    """c[σ_o] = Σ_{z: σ_o(z) = σ_o} p_c(z) u_T(z) Π_i π_i[σ_i(z)]."""
    seqs = team.sf.terminal_sequences
    reach = team.leaf_weight.copy()
    for m, i in enumerate(team.members):
        reach *= plan.plans[m][seqs[:, i]]
    return np.bincount(seqs[:, team.opponent], weights=reach,
                       minlength=team.sf.num_sequences(team.opponent))


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


# ---------------------------------------------------------------------------------------- result
@register_result_kind
@dataclass(kw_only=True)
class TeamResult(Result):
    """A TMECor: the team's value (the opponent's loss), the team's correlated distribution
    (``extra["team_distribution"]``, column generation) or correlation plan
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


# ---------------------------------------------------------------------------------------- solve
def solve_tmecor(game, team=None, method: str = "auto", backend: str = "highs",
                 tolerance: float | None = None, max_iterations: int = DEFAULT_MAX_ITERATIONS,
                 time_limit: float | None = None,
                 max_certificate_plans: int = DEFAULT_MAX_ENUMERATED_PLANS,
                 oracle: str = "auto", seed: str = "uniform", relaxation_bound: bool = True,
                 certificate_time_limit: float | None = None,
                 exact: bool = False, **solver_options) -> TeamResult:
    """TMECor of ``team`` (1-based players) against the one other player (module docstring).

    ``method``: ``"lp"`` (triangle-free teams of at most two members; anything else raises
    :class:`~lpgame.errors.OptionError` naming column generation), ``"column_generation"``, or
    ``"auto"`` (the LP where it is exact, column generation otherwise). ``time_limit`` bounds the
    whole column generation; when it is reached the result is labelled ``status="time_limit"``
    with ``bounds`` = [lower, upper] and the value is the lower bound the distribution guarantees.
    ``seed="relaxation"`` (two members) first solves the LP over the von Stengel–Forges polytope,
    whose value bounds v* from above and whose opponent plan is the oracle's first question;
    ``seed="uniform"`` starts from the uniform opponent. ``relaxation_bound`` (two members) solves
    that LP for its upper bound only. ``certificate_time_limit`` bounds the
    certificate's MILP (used when the team has too many joint plans to enumerate); if reached,
    its dual bound is reported as the team's deviation value.
    """
    if exact:
        raise OptionError("concept 'tmecor' is computed in floating point (HiGHS LP and MILP); "
                          "its certificate measures the gaps; exact=True is not available")
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
                          f"method='column_generation' (--method column_generation)")
    use_lp = method == "lp" or (method == "auto" and lp_applies)
    tol = DEFAULT_TOLERANCE if tolerance is None else float(tolerance)
    extra: dict = {"team": [i + 1 for i in t.members], "opponent": t.opponent + 1,
                   "method": "lp" if use_lp else "column_generation",
                   "triangle_free": triangle is None if space is not None else True}
    if triangle is not None:
        extra["triangle"] = list(triangle)
    opts = dict(solver_options)
    if use_lp:
        if time_limit is not None:
            opts["time_limit"] = time_limit
        lp, leaf_pos = tmecor_lp(t, space)
        solution = solve_lp(lp, backend=backend, **opts)
        value = float(solution.objective)
        xi = np.clip(solution.values("xi"), 0.0, None)
        y = np.clip(solution.duals("opponent_best_response"), 0.0, None)
        team_reach = xi[leaf_pos]
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
        solve_seconds = solution.seconds
        size = lp.size()
        the_lp = lp
        solver = solver_report(solution)
    else:
        oracle_space = space if oracle in ("auto", "pairs") else None
        if oracle == "pairs" and space is None:
            raise OptionError("oracle='pairs' needs a team of two members; use oracle='products'")
        seed_plan, seed_bound = None, np.inf
        if (seed == "relaxation" or relaxation_bound) and space is not None:
            # the LP over V_T ⊇ Ξ_T: an upper bound, and its opponent plan as the first question
            relaxation, _ = tmecor_lp(t, space)
            relaxed = solve_lp(relaxation, backend=backend, **opts)
            seed_bound = float(relaxed.objective)
            if seed == "relaxation":
                seed_plan = np.clip(relaxed.duals("opponent_best_response"), 0.0, None)
            extra["relaxation_bound"] = seed_bound
        cg = column_generation(t, oracle_space, tol, max_iterations, time_limit, backend,
                               initial_opponent_plan=seed_plan, initial_upper=seed_bound, **opts)
        extra["oracle"] = "pairs" if oracle_space is not None else "products"
        value = cg.lower
        probs = cg.probabilities
        keep = np.flatnonzero(probs > SUPPORT_TOLERANCE)
        keep = keep[np.argsort(-probs[keep], kind="stable")]
        member_plans = [np.vstack([cg.columns[k].plans[m] for k in range(probs.size)])
                        for m in range(len(t.members))]
        team_reach = team_reach_of_distribution(sf, t.members, member_plans, probs)
        marginals = [probs @ member_plans[m] for m in range(len(t.members))]
        y = cg.opponent_plan
        extra["team_distribution"] = [
            {"plans": [plan_label(sf, i, cg.columns[k].plans[m]) for m, i in enumerate(t.members)],
             "probability": float(probs[k])} for k in keep]
        extra["status"] = cg.status
        extra["bounds"] = [cg.lower, cg.upper]
        extra["iterations"] = cg.iterations
        extra["columns"] = len(cg.columns)
        extra["heuristic_columns"] = cg.heuristic_columns
        extra["history"] = [list(h) for h in cg.history]
        solve_seconds = cg.solve_seconds
        size = cg.master.size() if cg.master is not None else {}
        the_lp = cg.master
        solver = solver_report(cg.master_solution,
                               oracle="HiGHS branch and bound (scipy.optimize.milp)")
    # normalise y onto the opponent's treeplex (duals are optimal to the solver's tolerance)
    o = t.opponent
    behaviour_o, unreached_o = sf.behaviour_from_plan(o, y)
    y = sf.plan_from_behaviour(o, behaviour_o)
    certifying = time.perf_counter()
    gaps = team_gaps(sf, t.members, o, team_reach, y, value, max_plans=max_certificate_plans,
                     time_limit=certificate_time_limit)
    certificate_seconds = time.perf_counter() - certifying
    # strategies: the team members' marginal behaviour (the distribution is in extra) and y
    behaviours, unreached = [None] * sf.num_players, [[] for _ in range(sf.num_players)]
    plans_out = [None] * sf.num_players
    for m, i in enumerate(t.members):
        b, un = sf.behaviour_from_plan(i, marginals[m])
        behaviours[i], plans_out[i] = b, marginals[m]
        unreached[i] = [lab for lab, u in zip(sf.infoset_labels(i), un) if u]
    behaviours[o], plans_out[o] = behaviour_o, y
    unreached[o] = [lab for lab, u in zip(sf.infoset_labels(o), unreached_o) if u]
    seqs = sf.terminal_sequences
    reach = sf.terminal_chance * team_reach * y[seqs[:, o]]
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
    end = time.perf_counter()
    return TeamResult(
        game=sf.game.name, concept="tmecor", value=value, values=values,
        strategies=[sf.strategy_to_dict(i, behaviours[i]) for i in range(sf.num_players)],
        certificate=certificate, size=size,
        seconds={"total": end - start, "solve": solve_seconds, "certificate": certificate_seconds},
        solver=solver, backend=backend,
        exact=False, variant="default", unreached=unreached, extra=extra, plans=plans_out,
        lp=the_lp)


def _solve_entry(game, *, exact: bool = False, backend: str = "highs", **options) -> TeamResult:
    return solve_tmecor(game, exact=exact, backend=backend, **options)


register(Concept(
    name="tmecor", games=("team",), solve=_solve_entry,
    summary="team-maxmin equilibrium with correlation: a team (team=1,2) against one opponent",
    certificate="the opponent's best response to the team's correlated plan and the team's best "
                "joint pure plan against the opponent (lpgame.analysis.team_gaps)",
    source="Farina 2023 ch. 11 (eqs. 11.1–11.6, Cor. 11.1); Farina, Celli, Gatti & Sandholm "
           "2018/2021 (column generation)",
    options=(
        Option("team", tuple, None, "the team's players, 1-based (e.g. 1,2); the one other "
               "player is the opponent"),
        Option("method", str, "auto", "lp (triangle-free teams), column_generation, or auto",
               choices=TMECOR_METHODS),
        Option("max_iterations", int, DEFAULT_MAX_ITERATIONS,
               "column generation: most rounds before a labelled partial answer"),
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
               "certificate: enumerate the team's joint plans up to this many, else a MILP"),
    ),
    exact=False, backends=("highs",)))
