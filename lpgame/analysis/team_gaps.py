"""The two gaps of a team-maxmin profile with correlation (TMECor), computed without the LP.

A team T of players plays against one opponent o in a zero-sum team game: the team's utility at a
leaf is the opponent's loss, u_T(z) = −u_o(z), which the opponent minimises (Farina 2023, §11.1,
eq. (11.1)); in team matching pennies that is the team's common payoff, in three-player Kuhn poker
the sum of the members' payoffs. A profile is the team's correlated distribution μ over joint pure plans and
the opponent's realization plan y. Everything the gaps need is the team's *realization vector*
(eq. (11.4))

    ω_T[z] = Σ_{(π_i)_{i∈T}} μ[(π_i)] Π_{i ∈ T} π_i[σ_i(z)],

which is linear in μ, so that the team's value against y is Σ_z p_c(z) u_T(z) ω_T[z] y[σ_o(z)]
(eq. (11.5)). The TMECor value v* satisfies, for every (μ, y),

    lower(μ) = min_{y' ∈ Q_o} Σ_z p_c u_T ω_T[z] y'[σ_o(z)]  ≤  v*  ≤
    upper(y) = max_{(π_i) pure} Σ_z p_c u_T Π_i π_i[σ_i(z)] y[σ_o(z)],

the first by the opponent's best response (a bottom-up recursion on the opponent's treeplex,
:func:`lpgame.analysis.best_response.best_response_to_payoffs`) and the second by the team's best
joint pure plan (the maximum of a linear function over the team's correlated distributions is
attained at a joint pure plan). The second is NP-hard in general (a team with private
information); it is computed here

* by **enumeration** when the team members other than one have few reduced plans: every joint
  reduced plan of those members, and the remaining member's best response by the recursion; or
* by a MILP otherwise, solved by HiGHS's branch and bound (``scipy.optimize.milp``); its dual
  bound is the certified upper bound. For a team of two the variables are the products
  w[s_1, s_2] = x_1[s_1] x_2[s_2] of the *ancestor pairs of the leaves* (every s_1 on the way to
  σ_1(z) with every s_2 on the way to σ_2(z)), the marginals w[s_1, ∅] = x_1[s_1] and
  w[∅, s_2] = x_2[s_2] binary, tied by the product form of the treeplex equations,
  Σ_{a ∈ A_{j_1}} w[j_1 a, s_2] = w[p_{j_1}, s_2] for every such pair (and symmetrically), which
  every product of pure plans satisfies; a leaf pair's w is bounded by its marginals on the side
  its weight pushes it (w ≤ x_1, w ≤ x_2 for a positive weight, w ≥ x_1 + x_2 − 1 for a negative
  one), so the MILP's optimum is the best joint plan's value. For other teams the variables are
  one reach r_z ∈ [0, 1] per leaf with r_z ≤ x_i[σ_i(z)] (positive weight) or
  r_z ≥ Σ_i x_i[σ_i(z)] − (|T| − 1) (negative weight), the standard linearisation of a product of
  binaries, with binary plans F_i x_i = f_i; its LP relaxation is much weaker.

The gains reported are those of the two deviations: the opponent's, value − lower(μ), and the
team's, upper(y) − value. Both are ≤ the tolerance at a TMECor.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from lpgame.analysis.best_response import best_response_to_payoffs
from lpgame.errors import OptionError, SolverError
from lpgame.sequence_form import SequenceForm

DEFAULT_MAX_ENUMERATED_PLANS = 20_000
"""Largest number of joint reduced plans of the enumerated members for the enumeration method."""


def team_leaf_weights(sf: SequenceForm, opponent: int) -> np.ndarray:
    """p_c(z) · u_T(z) = −p_c(z) · u_o(z) per leaf (the opponent 0-based)."""
    return -sf.terminal_chance * sf.terminal_payoffs[:, opponent]


def team_reach_of_distribution(sf: SequenceForm, team: tuple[int, ...],
                               plans: list[np.ndarray], probabilities: np.ndarray) -> np.ndarray:
    """ω_T[z] (eq. (11.4)) of a distribution: ``plans[m]`` is a (K × |Σ_{team[m]}|) 0/1 matrix, row
    k the k-th joint plan's plan of member m, and ``probabilities`` the K weights."""
    seqs = sf.terminal_sequences
    reach = np.ones((len(probabilities), seqs.shape[0]))
    for m, i in enumerate(team):
        reach *= np.asarray(plans[m], dtype=float)[:, seqs[:, i]]
    return np.asarray(probabilities, dtype=float) @ reach


def opponent_best_response(sf: SequenceForm, team: tuple[int, ...], opponent: int,
                           team_reach: np.ndarray) -> tuple[float, np.ndarray]:
    """(lower, y'): the team's value when the opponent best responds to ω_T = ``team_reach``
    (it minimises the team's utility), and that pure response's realization plan."""
    weight = -team_leaf_weights(sf, opponent) * np.asarray(team_reach, dtype=float)
    g = np.bincount(sf.terminal_sequences[:, opponent], weights=weight,
                    minlength=sf.num_sequences(opponent))
    br = best_response_to_payoffs(sf, opponent, g)
    return -br.value, sf.plan_from_behaviour(opponent, br.behaviour)


@dataclass
class TeamResponse:
    """The team's best joint pure plan against a fixed opponent plan."""

    value: float                   # the value of ``plans``
    upper_bound: float             # certified bound on every joint plan's value (= value if solved)
    plans: list[np.ndarray]        # one realization plan per member (0/1)
    method: str                    # "enumeration", "milp (pairs)" or "milp (leaves)"
    optimal: bool = True
    detail: dict = field(default_factory=dict)


def _count_reduced_plans(sf: SequenceForm, player: int) -> int:
    """Number of reduced plans: product over an action's child information sets, sum over a set's
    actions, bottom-up (exact Python integers)."""
    p = sf.players[player]
    below = np.ones(p.num_sequences, dtype=object)
    for js, seqs, starts in sf.infoset_levels(player):
        np.multiply.at(below, p.infoset_parent_seq[js], np.add.reduceat(below[seqs], starts))
    return int(below[0])


def _reduced_plans(sf: SequenceForm, player: int) -> np.ndarray:
    """Every reduced plan of ``player`` as rows of a 0/1 matrix, built bottom-up: the plans below a
    sequence are the Cartesian product of its child sets' plans; a set's plans are the union over
    its actions."""
    p = sf.players[player]
    n = p.num_sequences
    children: dict[int, list[int]] = {}
    for j, parent in enumerate(p.infoset_parent_seq.tolist()):
        children.setdefault(parent, []).append(j)
    memo: dict[int, np.ndarray] = {}

    def under_sequence(s: int) -> np.ndarray:
        rows = np.zeros((1, n), dtype=np.int8)
        rows[0, s] = 1
        for j in children.get(s, []):
            sub = under_infoset(j)
            rows = (rows[:, None, :] | sub[None, :, :]).reshape(-1, n)
        return rows

    def under_infoset(j: int) -> np.ndarray:
        if j not in memo:
            first, k = int(p.infoset_first_seq[j]), int(p.infoset_num_actions[j])
            memo[j] = np.vstack([under_sequence(s) for s in range(first, first + k)])
        return memo[j]

    return under_sequence(0)


def team_best_response(sf: SequenceForm, team: tuple[int, ...], opponent: int,
                       opponent_plan: np.ndarray, method: str = "auto",
                       max_plans: int = DEFAULT_MAX_ENUMERATED_PLANS,
                       time_limit: float | None = None) -> TeamResponse:
    """The team's best joint pure plan against ``opponent_plan`` (module docstring).

    ``method``: ``"enumeration"``, ``"milp"`` (the pair MILP for two members, else the leaf
    MILP), ``"milp_leaves"`` or ``"auto"`` (enumeration when the members other than the one with
    the most plans have at most ``max_plans`` joint reduced plans, else ``"milp"``).
    """
    if method not in ("auto", "enumeration", "milp", "milp_leaves"):
        raise OptionError(f"team best response method must be auto, enumeration, milp or "
                          f"milp_leaves; got {method!r}")
    y = np.asarray(opponent_plan, dtype=float)
    weight = team_leaf_weights(sf, opponent) * y[sf.terminal_sequences[:, opponent]]
    counts = [_count_reduced_plans(sf, i) for i in team]
    last = int(np.argmax(counts))
    enumerated = math.prod(c for m, c in enumerate(counts) if m != last)
    if method == "enumeration" or (method == "auto" and enumerated <= max_plans):
        return _by_enumeration(sf, team, weight, last)
    if len(team) == 2 and method != "milp_leaves":
        return _by_pair_milp(sf, team, weight, time_limit)
    return _by_milp(sf, team, weight, time_limit)


def _best_response_values(sf: SequenceForm, player: int, g: np.ndarray) -> np.ndarray:
    """The best-response recursion (:mod:`lpgame.analysis.best_response`) for every row of ``g``
    (one row of sequence payoffs per fixed plan of the other members); returns the values."""
    p = sf.players[player]
    total = np.array(g, dtype=float)
    for js, seqs, starts in sf.infoset_levels(player):
        best = np.maximum.reduceat(total[:, seqs], starts, axis=1)
        np.add.at(total.T, p.infoset_parent_seq[js], best.T)
    return total[:, 0]


def _by_enumeration(sf: SequenceForm, team: tuple[int, ...], weight: np.ndarray,
                    last: int) -> TeamResponse:
    seqs = sf.terminal_sequences
    others = [m for m in range(len(team)) if m != last]
    # joint plans of the enumerated members: reach per (joint plan, leaf)
    reach = np.ones((1, seqs.shape[0]))
    choice = np.zeros((1, 0), dtype=np.int64)
    own = []
    for m in others:
        plans = _reduced_plans(sf, team[m])
        own.append(plans)
        r = plans[:, seqs[:, team[m]]].astype(float)
        reach = (reach[:, None, :] * r[None, :, :]).reshape(-1, seqs.shape[0])
        choice = np.hstack([np.repeat(choice, plans.shape[0], axis=0),
                            np.tile(np.arange(plans.shape[0]), choice.shape[0])[:, None]])
    responder = team[last]
    n = sf.num_sequences(responder)
    values = np.empty(reach.shape[0])
    chunk = max(1, 2_000_000 // max(n + seqs.shape[0], 1))
    for lo in range(0, reach.shape[0], chunk):      # the recursion for many plans at once
        block = reach[lo:lo + chunk] * weight
        g = np.zeros((block.shape[0], n))
        np.add.at(g.T, seqs[:, responder], block.T)
        values[lo:lo + chunk] = _best_response_values(sf, responder, g)
    k = int(np.argmax(values))
    g = np.bincount(seqs[:, responder], weights=weight * reach[k], minlength=n)
    br = best_response_to_payoffs(sf, responder, g)
    best_value, behaviour = br.value, br.behaviour
    plans = [None] * len(team)
    for pos, m in enumerate(others):
        plans[m] = own[pos][choice[k, pos]].astype(float)
    plans[last] = sf.plan_from_behaviour(responder, behaviour)
    return TeamResponse(float(best_value), float(best_value), plans, "enumeration",
                        detail={"joint_plans_enumerated": int(reach.shape[0])})


def _by_milp(sf: SequenceForm, team: tuple[int, ...], weight: np.ndarray,
             time_limit: float | None) -> TeamResponse:
    from scipy.optimize import Bounds, LinearConstraint, milp
    seqs = sf.terminal_sequences
    leaves = np.flatnonzero(weight != 0)
    w = weight[leaves]
    sizes = [sf.num_sequences(i) for i in team]
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    n_x, n_r = int(offsets[-1]), leaves.size
    blocks = []
    rhs = []
    # treeplex rows of every member
    for m, i in enumerate(team):
        F = sp.csr_array(sf.treeplex_matrix(i))
        blocks.append(sp.hstack([sp.csr_array((F.shape[0], int(offsets[m]))), F,
                                 sp.csr_array((F.shape[0], n_x - int(offsets[m + 1]) + n_r))]))
        rhs.append(sf.treeplex_rhs(i))
    A_eq = sp.vstack(blocks).tocsr()
    b_eq = np.concatenate(rhs)
    pos, neg = np.flatnonzero(w > 0), np.flatnonzero(w < 0)
    k = len(team)
    rows, cols, vals = [], [], []
    # r_z − x_i[σ_i(z)] ≤ 0 for positive leaves, one row per (leaf, member)
    for m, i in enumerate(team):
        r = m * pos.size + np.arange(pos.size)
        rows += [r, r]
        cols += [n_x + pos, offsets[m] + seqs[leaves[pos], i]]
        vals += [np.ones(pos.size), -np.ones(pos.size)]
    # Σ_i x_i[σ_i(z)] − r_z ≤ k − 1 for negative leaves
    base = k * pos.size
    r = base + np.arange(neg.size)
    rows.append(r)
    cols.append(n_x + neg)
    vals.append(-np.ones(neg.size))
    for m, i in enumerate(team):
        rows.append(r)
        cols.append(offsets[m] + seqs[leaves[neg], i])
        vals.append(np.ones(neg.size))
    n_ub = base + neg.size
    A_ub = sp.csr_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                        shape=(n_ub, n_x + n_r))
    b_ub = np.concatenate([np.zeros(base), np.full(neg.size, k - 1.0)])
    c = np.concatenate([np.zeros(n_x), -w])
    integrality = np.concatenate([np.ones(n_x), np.zeros(n_r)])
    options = {"disp": False, "mip_rel_gap": 1e-9}
    if time_limit is not None:
        options["time_limit"] = float(time_limit)
    start = time.perf_counter()
    res = milp(c, integrality=integrality, bounds=Bounds(0.0, 1.0),
               constraints=[LinearConstraint(A_eq, b_eq, b_eq),
                            LinearConstraint(A_ub, -np.inf, b_ub)], options=options)
    if res.x is None:
        raise SolverError(f"{sf.game.name}: the team best-response MILP found no plan "
                          f"({res.message})", status=str(res.status))
    x = np.round(res.x[:n_x])
    plans = [x[offsets[m]:offsets[m + 1]] for m in range(k)]
    reach = np.ones(seqs.shape[0])
    for m, i in enumerate(team):
        reach *= plans[m][seqs[:, i]]
    value = float(weight @ reach)
    bound = getattr(res, "mip_dual_bound", None)
    upper = value if bound is None or not np.isfinite(bound) else max(value, -float(bound))
    return TeamResponse(value, upper, plans, "milp (leaves)", optimal=res.status == 0,
                        detail={"milp_seconds": time.perf_counter() - start,
                                "milp_status": res.message, "leaves": int(n_r)})


def _ancestor_sequences(sf: SequenceForm, player: int) -> np.ndarray:
    """(|Σ_i| × (D + 1)): each sequence, then its ancestors up to ∅, padded with −1."""
    p = sf.players[player]
    n = p.num_sequences
    parent = np.full(n, -1, dtype=np.int64)
    parent[1:] = p.infoset_parent_seq[p.seq_infoset[1:]]
    columns = [np.arange(n)]
    current = np.arange(n)
    while True:
        current = np.where(current > 0, parent[np.maximum(current, 0)], -1)
        if (current < 0).all():
            break
        columns.append(current)
    return np.stack(columns, axis=1)


def _by_pair_milp(sf: SequenceForm, team: tuple[int, ...], weight: np.ndarray,
                  time_limit: float | None) -> TeamResponse:
    from scipy.optimize import Bounds, LinearConstraint, milp
    a, b = team
    seqs = sf.terminal_sequences
    n1, n2 = sf.num_sequences(a), sf.num_sequences(b)
    p1, p2 = sf.players[a], sf.players[b]
    # ancestor pairs of the leaves
    leaf_keys, leaf_of = np.unique(seqs[:, a] * n2 + seqs[:, b], return_inverse=True)
    anc1 = _ancestor_sequences(sf, a)[leaf_keys // n2]
    anc2 = _ancestor_sequences(sf, b)[leaf_keys % n2]
    grid = (anc1[:, :, None] * n2 + anc2[:, None, :])
    valid = (anc1[:, :, None] >= 0) & (anc2[:, None, :] >= 0)
    base = np.unique(grid[valid])
    s1, s2 = base // n2, base % n2
    # product rows: (j1, s2) for every base pair (j1 a, s2), and (s1, j2) likewise
    rows1 = np.unique(p1.seq_infoset[s1[s1 > 0]] * n2 + s2[s1 > 0]) if (s1 > 0).any() \
        else np.zeros(0, np.int64)
    rows2 = np.unique(s1[s2 > 0] * (p2.num_infosets + 1) + p2.seq_infoset[s2[s2 > 0]]) \
        if (s2 > 0).any() else np.zeros(0, np.int64)
    j1, o2 = rows1 // n2, rows1 % n2
    o1, j2 = rows2 // (p2.num_infosets + 1), rows2 % (p2.num_infosets + 1)
    k1, k2 = p1.infoset_num_actions[j1], p2.infoset_num_actions[j2]
    child1 = np.repeat(p1.infoset_first_seq[j1], k1) + _ramp(k1)
    child2 = np.repeat(p2.infoset_first_seq[j2], k2) + _ramp(k2)
    keys = np.unique(np.concatenate([base, child1 * n2 + np.repeat(o2, k1),
                                     np.repeat(o1, k2) * n2 + child2]))
    P = keys.size

    def where(first, second):
        return np.searchsorted(keys, np.asarray(first) * n2 + np.asarray(second))

    r1, r2 = np.arange(j1.size), j1.size + np.arange(j2.size)
    eq_rows = np.concatenate([np.repeat(r1, k1), r1, np.repeat(r2, k2), r2,
                              [j1.size + j2.size]])
    eq_cols = np.concatenate([where(child1, np.repeat(o2, k1)),
                              where(p1.infoset_parent_seq[j1], o2),
                              where(np.repeat(o1, k2), child2),
                              where(o1, p2.infoset_parent_seq[j2]), where([0], [0])])
    eq_vals = np.concatenate([np.ones(child1.size), -np.ones(j1.size), np.ones(child2.size),
                              -np.ones(j2.size), [1.0]])
    n_eq = j1.size + j2.size + 1
    eq = sp.csr_array((eq_vals, (eq_rows, eq_cols)), shape=(n_eq, P))
    eq_rhs = np.zeros(n_eq)
    eq_rhs[-1] = 1.0
    # objective on the leaf pairs; one-sided bounds by the marginals
    g = np.bincount(leaf_of.ravel(), weights=weight, minlength=leaf_keys.size)
    ls1, ls2 = leaf_keys // n2, leaf_keys % n2
    inner = (ls1 > 0) & (ls2 > 0)
    pos, neg = np.flatnonzero(inner & (g > 0)), np.flatnonzero(inner & (g < 0))
    w_pos, w_neg = where(ls1[pos], ls2[pos]), where(ls1[neg], ls2[neg])
    m1 = where(np.arange(n1), np.zeros(n1, np.int64))
    m2 = where(np.zeros(n2, np.int64), np.arange(n2))
    ub_rows = np.concatenate([np.repeat(np.arange(2 * pos.size), 2),
                              np.repeat(2 * pos.size + np.arange(neg.size), 3)])
    ub_cols = np.concatenate([np.column_stack([w_pos, m1[ls1[pos]]]).ravel(),
                              np.column_stack([w_pos, m2[ls2[pos]]]).ravel(),
                              np.column_stack([w_neg, m1[ls1[neg]], m2[ls2[neg]]]).ravel()])
    ub_vals = np.concatenate([np.tile([1.0, -1.0], 2 * pos.size),
                              np.tile([-1.0, 1.0, 1.0], neg.size)])
    ub = sp.csr_array((ub_vals, (ub_rows, ub_cols)), shape=(2 * pos.size + neg.size, P))
    ub_rhs = np.concatenate([np.zeros(2 * pos.size), np.ones(neg.size)])
    c = np.zeros(P)
    np.add.at(c, where(ls1, ls2), -g)
    integrality = np.zeros(P)
    integrality[m1] = 1
    integrality[m2] = 1
    options = {"disp": False, "mip_rel_gap": 1e-9}
    if time_limit is not None:
        options["time_limit"] = float(time_limit)
    start = time.perf_counter()
    constraints = [LinearConstraint(eq, eq_rhs, eq_rhs)]
    if ub.shape[0]:
        constraints.append(LinearConstraint(ub, -np.inf, ub_rhs))
    res = milp(c, integrality=integrality, bounds=Bounds(0.0, 1.0), constraints=constraints,
               options=options)
    if res.x is None:
        raise SolverError(f"{sf.game.name}: the team best-response MILP found no plan "
                          f"({res.message})", status=str(res.status))
    x = np.round(res.x)
    plans = [x[m1], x[m2]]
    value = float(weight @ (plans[0][seqs[:, a]] * plans[1][seqs[:, b]]))
    bound = getattr(res, "mip_dual_bound", None)
    upper = value if bound is None or not np.isfinite(bound) else max(value, -float(bound))
    return TeamResponse(value, upper, plans, "milp (pairs)", optimal=res.status == 0,
                        detail={"milp_seconds": time.perf_counter() - start,
                                "milp_status": res.message, "pairs": int(P)})


def _ramp(counts: np.ndarray) -> np.ndarray:
    """0, 1, ..., counts[0] − 1, 0, 1, ..., counts[1] − 1, ..."""
    total = int(counts.sum())
    return np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)


@dataclass
class TeamGaps:
    """The certificate of a TMECor profile (module docstring)."""

    value: float                        # the value claimed by the solver
    lower: float                        # the team's value against the opponent's best response
    upper: float                        # the team's best joint deviation value against y
    opponent_gain: float                # value − lower
    team_gain: float                    # upper − value
    team_response: TeamResponse

    @property
    def gap(self) -> float:
        return self.upper - self.lower

    def to_dict(self) -> dict:
        return {"opponent_best_response_value": self.lower,
                "team_best_deviation_value": self.upper,
                "opponent_gain": self.opponent_gain, "team_gain": self.team_gain}


def team_gaps(sf: SequenceForm, team: tuple[int, ...], opponent: int, team_reach: np.ndarray,
              opponent_plan: np.ndarray, value: float, method: str = "auto",
              max_plans: int = DEFAULT_MAX_ENUMERATED_PLANS,
              time_limit: float | None = None) -> TeamGaps:
    """Both gaps of the profile (ω_T = ``team_reach``, y = ``opponent_plan``) around ``value``."""
    lower, _ = opponent_best_response(sf, team, opponent, team_reach)
    response = team_best_response(sf, team, opponent, opponent_plan, method, max_plans, time_limit)
    return TeamGaps(float(value), lower, response.upper_bound, float(value) - lower,
                    response.upper_bound - float(value), response)
