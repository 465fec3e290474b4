"""The TMECor learner on the team belief DAG as it was before its faster passes (lpgame at
6549558, lpgame/equilibria/teams/tmecor_learning.py), kept verbatim below this docstring as the
reference whose iterates the new passes must reproduce to float rounding
(tests/test_tmecor_learning_speed.py). Not part of the package.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from lpgame import progress
from lpgame.analysis.team_gaps import opponent_best_response
from lpgame.equilibria.teams.team_belief_dag import BeliefDag, build_team_belief_dag
from lpgame.equilibria.teams.tmecor_lp import team_scaling
from lpgame.equilibria.teams.tmecor_team import Team
from lpgame.errors import InvalidGameError, ModelTooLargeError, OptionError
from lpgame.learning.treeplex import PlayerTreeplex
from lpgame.limits import memory_limit
from lpgame.lp.scaling import float_bounds

REGRET_MINIMISERS = ("pcfr+", "cfr+")
DEFAULT_TARGET_GAP = 1e-3
DEFAULT_LEARNING_ITERATIONS = 100_000
BYTES_PER_PRESCRIPTION = 160
"""The learner's arrays per DAG prescription (regrets, prediction, strategy, flow, sums, values,
the sparse child and leaf maps), a conservative round figure for the memory prediction."""
BYTES_PER_LEAF_PAIR = 40
PROGRESS_SECONDS = 2.0


# ------------------------------------------------------------------------------------- the DAG
class DagPasses:
    """The TB-DAG's arrays renumbered by level, and the vectorised passes of the module docstring.

    ``order[e_new] = e_old`` maps the learner's prescription order back to ``dag``'s."""

    def __init__(self, dag: BeliefDag):
        B, E = dag.num_beliefs, dag.num_edges
        eb, ce, cb = dag.edge_belief, dag.child_edge, dag.child_belief
        level = np.zeros(B, dtype=np.int64)
        for _ in range(B + 1):                       # longest path from a root, one step per level
            new = level.copy()
            if ce.size:
                np.maximum.at(new, cb, level[eb[ce]] + 1)
            if np.array_equal(new, level):
                break
            level = new
        else:                                        # pragma: no cover - the builder makes a DAG
            raise InvalidGameError("team belief DAG: the belief graph has a cycle")
        border = np.lexsort((np.arange(B), level))
        newid = np.empty(B, dtype=np.int64)
        newid[border] = np.arange(B)
        eorder = np.argsort(newid[eb], kind="stable")
        enew = np.empty(E, dtype=np.int64)
        enew[eorder] = np.arange(E)
        self.order = eorder
        self.new_of_edge = enew
        self.num_beliefs, self.num_edges = B, E
        self.edge_belief = newid[eb][eorder]
        self.starts = np.searchsorted(self.edge_belief, np.arange(B)).astype(np.int64)
        self.counts = np.diff(np.append(self.starts, E))
        if (self.counts < 1).any():                  # pragma: no cover - every belief decides
            raise InvalidGameError("team belief DAG: a belief without prescriptions")
        self.uniform = 1.0 / self.counts[self.edge_belief]
        self.roots = np.sort(newid[dag.root_beliefs])
        lev = level[border]
        nlev = int(lev.max()) + 1 if B else 0
        bstart = np.searchsorted(lev, np.arange(nlev + 1))
        estart = np.append(self.starts, E)[bstart]
        cen, cbn = enew[ce], newid[cb]
        corder = np.argsort(cen, kind="stable")
        cen, cbn = cen[corder], cbn[corder]
        self.levels = []                             # (b0, b1, e0, e1, lo, children, parents)
        for L in range(nlev):
            b0, b1, e0, e1 = (int(v) for v in (bstart[L], bstart[L + 1], estart[L], estart[L + 1]))
            k0, k1 = np.searchsorted(cen, [e0, e1])
            if k1 > k0:
                lo, hi = int(cbn[k0:k1].min()), int(cbn[k0:k1].max()) + 1
                ch = sp.csr_array((np.ones(k1 - k0), (cen[k0:k1] - e0, cbn[k0:k1] - lo)),
                                  shape=(e1 - e0, hi - lo))
                self.levels.append((b0, b1, e0, e1, lo, hi, ch, ch.T.tocsr()))
            else:
                self.levels.append((b0, b1, e0, e1, 0, 0, None, None))
        Z = dag.num_leaves
        le = enew[dag.leaf_edge]
        full = sp.csr_array((np.ones(le.size), (le, dag.leaf_index)), shape=(E, Z))
        factors = _leaf_factors(self, dag, le, full)
        self.factored = factors is not None
        if self.factored:
            self.leaf_to_edge = _Product(*factors)
            self.edge_to_leaf = _Product(factors[1].T.tocsr(), factors[0].T.tocsr())
        else:
            self.leaf_to_edge, self.edge_to_leaf = full, full.T.tocsr()
        self.root_leaves = np.zeros(Z)
        self.root_leaves[dag.root_leaves] = 1.0

    def values(self, ell: np.ndarray, pi: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """(q, V) bottom-up; ``pi`` None: V[B] = max_a q[B, a] (the best response)."""
        q = np.array(ell, dtype=float, copy=True)
        V = np.zeros(self.num_beliefs)
        for b0, b1, e0, e1, lo, hi, ch, _ in reversed(self.levels):
            if ch is not None:
                q[e0:e1] += ch @ V[lo:hi]
            starts = self.starts[b0:b1] - e0
            if pi is None:
                V[b0:b1] = np.maximum.reduceat(q[e0:e1], starts)
            else:
                V[b0:b1] = np.add.reduceat(pi[e0:e1] * q[e0:e1], starts)
        return q, V

    def flow(self, pi: np.ndarray) -> np.ndarray:
        """x[B, a] = x[B] π_B[a], top-down; x[C] = Σ_{e → C} x[e] (+1 at a root)."""
        xb = np.zeros(self.num_beliefs)
        xb[self.roots] = 1.0
        x = np.empty(self.num_edges)
        for b0, b1, e0, e1, lo, hi, _, parents in self.levels:
            x[e0:e1] = pi[e0:e1] * np.repeat(xb[b0:b1], self.counts[b0:b1])
            if parents is not None:
                xb[lo:hi] += parents @ x[e0:e1]
        return x

    def normalise(self, weights: np.ndarray) -> np.ndarray:
        """π ∝ ``weights`` ≥ 0 on every belief's prescriptions (uniform where they sum to 0)."""
        sums = np.add.reduceat(weights, self.starts)[self.edge_belief]
        return np.divide(weights, sums, out=self.uniform.copy(), where=sums > 0.0)

    def realization(self, x: np.ndarray) -> np.ndarray:
        return self.edge_to_leaf @ x + self.root_leaves


class _Product:
    """A sparse matrix kept as the product A B of two sparser ones (applied right to left)."""

    def __init__(self, a, b):
        self.a, self.b = a, b

    def __matmul__(self, v: np.ndarray) -> np.ndarray:
        return self.a @ (self.b @ v)


def _leaf_factors(passes: DagPasses, dag: BeliefDag, leaf_edge: np.ndarray, full: sp.csr_array):
    """The leaf matrix (prescription × leaf) as P Q through the *slots* (B, j, a): a leaf z hangs
    off prescription e = (B, a) exactly when e's action at one information set j of B is the
    action a_j that leads to z, so ℓ[e] = Σ_j U_B[j, a_j(e)] (P: prescription → its slots, Q:
    slot → its leaves). A leaf hangs off many prescriptions of its belief (D33: 725 k pairs for
    93 k prescriptions); the factors have about one entry per prescription and information set,
    and one per (belief, leaf). Returns None (the full matrix is used) unless P Q reproduces the
    leaf matrix exactly."""
    E = passes.num_edges
    acts = [dag.edge_actions[e] for e in passes.order.tolist()]
    lengths = np.fromiter(map(len, acts), dtype=np.int64, count=E)
    K = int(lengths.max()) if E else 0
    if K == 0 or leaf_edge.size == 0:
        return None
    A = np.full((E, K), -1, dtype=np.int64)
    A[np.repeat(np.arange(E), lengths), _ramp(lengths)] = np.fromiter(
        (a for row in acts for a in row), dtype=np.int64, count=int(lengths.sum()))
    counts = np.maximum.reduceat(A, passes.starts, axis=0) + 1        # (B, K) actions; 0: none
    offsets = np.cumsum(counts, axis=1) - counts
    base = np.concatenate([[0], np.cumsum(counts.sum(axis=1))])
    S = int(base[-1])
    valid = A >= 0
    eb = passes.edge_belief
    slot = base[eb][:, None] + offsets[eb] + A
    rows = np.repeat(np.arange(E), valid.sum(axis=1))
    P = sp.csr_array((np.ones(rows.size), (rows, slot[valid])), shape=(E, S))
    # group the (prescription, leaf) pairs by (belief, leaf): the positions constant in a group
    # whose action count times the group's size is the belief's prescription count
    z = dag.leaf_index
    order = np.lexsort((leaf_edge, z, eb[leaf_edge]))
    e_sorted, z_sorted = leaf_edge[order], z[order]
    b_sorted = eb[e_sorted]
    new_group = np.ones(order.size, dtype=bool)
    new_group[1:] = (b_sorted[1:] != b_sorted[:-1]) | (z_sorted[1:] != z_sorted[:-1])
    starts = np.flatnonzero(new_group)
    size = np.diff(np.append(starts, order.size))
    a = A[e_sorted]
    same = np.minimum.reduceat(a, starts, axis=0) == np.maximum.reduceat(a, starts, axis=0)
    gb = b_sorted[starts]
    fits = same & (counts[gb] > 0) & (size[:, None] * counts[gb] == passes.counts[gb][:, None])
    if not fits.any(axis=1).all():
        return None
    k = np.argmax(fits, axis=1)
    first = e_sorted[starts]
    group_slot = base[gb] + offsets[gb, k] + A[first, k]
    Q = sp.csr_array((np.ones(starts.size), (group_slot, z_sorted[starts])),
                     shape=(S, dag.num_leaves))
    if (abs(P @ Q - full)).max() != 0:
        return None
    return P, Q


def _ramp(counts: np.ndarray) -> np.ndarray:
    """0, 1, ..., counts[0] − 1, 0, 1, ..., counts[1] − 1, ..."""
    return np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)


# ------------------------------------------------------------------------------------- learning
@dataclass
class LearnedTeam:
    """A learning run's averages and its measured gap (module docstring)."""

    flow: np.ndarray                 # x̄ in the DAG's own prescription order
    team_reach: np.ndarray           # ω̄ = R x̄ + r
    opponent_plan: np.ndarray        # ȳ
    value: float                     # u(x̄, ȳ)
    lower: float                     # min_y u(x̄, y) (independent best response)
    upper: float                     # max_x u(x, ȳ) (best pure flow on the DAG)
    payoff_range: float
    status: str                      # converged, iteration_limit or time_limit
    iterations: int
    seconds: float
    history: list = field(default_factory=list)   # (iteration, seconds, relative gap)

    @property
    def relative_gap(self) -> float:
        gap = self.upper - self.lower
        return gap / self.payoff_range if self.payoff_range > 0 else max(gap, 0.0)


def check_learning_options(target_gap, iterations, time_limit, regret_minimiser) -> None:
    """Bad options of the learning method, refused by name."""
    if isinstance(target_gap, bool) or not isinstance(target_gap, (int, float)) \
            or not 0.0 < float(target_gap) < 1.0:
        raise OptionError(f"option 'target_gap' of concept 'tmecor' (method='learning') is a "
                          f"fraction of the payoff range in (0, 1); got {target_gap!r}")
    if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)) \
            or iterations < 1:
        raise OptionError(f"option 'iterations' of concept 'tmecor' (method='learning') must be "
                          f"an integer of at least 1; got {iterations!r}")
    if time_limit is not None and not float(time_limit) > 0.0:
        raise OptionError(f"option 'time_limit' must be a positive number of seconds; got "
                          f"{time_limit!r}")
    if regret_minimiser not in REGRET_MINIMISERS:
        raise OptionError(f"option 'regret_minimiser' of concept 'tmecor' must be one of "
                          f"{', '.join(REGRET_MINIMISERS)}; got {regret_minimiser!r}")


def build_learning_dag(tree, members: tuple[int, ...], max_edges: int,
                       memory: int | None = None) -> BeliefDag:
    """The TB-DAG for learning, refused with :class:`~lpgame.errors.ModelTooLargeError` past
    ``max_edges`` prescriptions (the construction stops there) or when the learner's predicted
    memory (``BYTES_PER_PRESCRIPTION`` per prescription, ``BYTES_PER_LEAF_PAIR`` per leaf of a
    prescription) passes :func:`lpgame.limits.memory_limit`."""
    try:
        dag = build_team_belief_dag(tree, members, max_edges=max_edges)
    except ModelTooLargeError as exc:
        raise ModelTooLargeError(
            f"{tree.name}: TMECor by learning refused: the team belief DAG has more than "
            f"{max_edges:,} prescriptions, the node cap (max_dag_edges), so the learner would "
            f"need more than {max_edges * BYTES_PER_PRESCRIPTION / 2**20:,.0f} MiB. The "
            f"construction stopped at: {exc}. Still applicable: method='column_generation' "
            f"(joint pure plans and a MILP oracle, any size), or a larger max_dag_edges") from exc
    need = dag.num_edges * BYTES_PER_PRESCRIPTION + dag.leaf_edge.size * BYTES_PER_LEAF_PAIR
    limit = memory_limit(memory)
    if need > limit:
        raise ModelTooLargeError(
            f"{tree.name}: TMECor by learning refused: the team belief DAG has "
            f"{dag.num_beliefs:,} beliefs and {dag.num_edges:,} prescriptions, for which the "
            f"learner is predicted to need {need / 2**20:,.0f} MiB, over the memory limit "
            f"{limit / 2**20:,.0f} MiB (LPGAME_MEMORY_LIMIT); use method='column_generation'")
    return dag


def learn_tmecor(team: Team, dag: BeliefDag, target_gap: float = DEFAULT_TARGET_GAP,
                 iterations: int = DEFAULT_LEARNING_ITERATIONS, time_limit: float | None = None,
                 regret_minimiser: str = "pcfr+", averaging: float | None = None) -> LearnedTeam:
    """Self-play of the team's DAG regret minimiser and the opponent's treeplex regret minimiser
    (module docstring) until the measured gap is at most ``target_gap`` × the payoff range of
    u_T, or ``iterations`` / ``time_limit`` seconds. ``averaging``: the power γ of the averaging
    weights t^γ (default 2 for PCFR⁺, 1 for CFR⁺). ``team`` lives on the tree the DAG was built
    from (its leaves in the DAG's order)."""
    check_learning_options(target_gap, iterations, time_limit, regret_minimiser)
    start = time.perf_counter()
    sf, o, members = team.sf, team.opponent, team.members
    if dag.num_leaves != sf.terminal_sequences.shape[0]:
        raise InvalidGameError(f"{sf.game.name}: the team belief DAG has {dag.num_leaves} leaves, "
                               f"the sequence form {sf.terminal_sequences.shape[0]}")
    lo, hi = float_bounds(-sf.terminal_payoffs[:, o])
    payoff_range = float(hi - lo)
    exponent = team_scaling(team).exponent
    unit = 2.0 ** exponent
    w = np.ldexp(team.leaf_weight, -exponent)                 # p_c u_T in unit range
    so = np.ascontiguousarray(sf.terminal_sequences[:, o])
    passes = DagPasses(dag)
    opp = PlayerTreeplex(sf, o)
    predictive = regret_minimiser == "pcfr+"
    power = (2.0 if predictive else 1.0) if averaging is None else float(averaging)

    E = passes.num_edges
    regrets, pi = np.zeros(E), passes.uniform.copy()
    regrets_o, b_o = np.zeros(opp.num_sequences), opp.uniform.copy()
    x, y = passes.flow(pi), opp.plan(b_o)
    x_sum, y_sum, weight_sum = np.zeros(E), np.zeros(opp.num_sequences), 0.0
    history: list[tuple[int, float, float]] = []
    status, next_check, t = "iteration_limit", 1, 0
    shown = start
    lower = upper = value = float("nan")
    team_reach = passes.realization(x)
    for t in range(1, iterations + 1):
        wt = float(t) ** power
        weight_sum += wt
        # the team against y (alternating: its update first)
        ell = passes.leaf_to_edge @ (w * y[so])
        q, V = passes.values(ell, pi)
        r = q - V[passes.edge_belief]
        x_sum += wt * x
        np.add(regrets, r, out=regrets)
        np.maximum(regrets, 0.0, out=regrets)
        pi = passes.normalise(np.maximum(regrets + r, 0.0) if predictive else regrets)
        x = passes.flow(pi)
        # the opponent against the team's new flow
        omega = passes.realization(x)
        g = np.bincount(so, weights=-w * omega, minlength=opp.num_sequences)
        r_o = opp.regrets(g, b_o)
        y_sum += wt * y
        np.add(regrets_o, r_o, out=regrets_o)
        np.maximum(regrets_o, 0.0, out=regrets_o)
        b_o = opp.regret_matching(regrets_o + r_o if predictive else regrets_o)
        y = opp.plan(b_o)
        now = time.perf_counter()
        out_of_time = time_limit is not None and now - start >= time_limit
        if t >= next_check or out_of_time or t == iterations:
            next_check = t + max(1, t // 8)
            x_bar, y_bar = x_sum / weight_sum, y_sum / weight_sum
            team_reach = passes.realization(x_bar)
            lower, _ = opponent_best_response(sf, members, o, team_reach)
            ell_bar = w * y_bar[so]
            _, best = passes.values(passes.leaf_to_edge @ ell_bar, None)
            constant = float(passes.root_leaves @ ell_bar)
            upper = (float(best[passes.roots].sum()) + constant) * unit
            value = float((ell_bar * team_reach).sum()) * unit
            gap = upper - lower
            relative = gap / payoff_range if payoff_range > 0 else 0.0
            history.append((t, time.perf_counter() - start, relative))
            progress.report("TMECor learning on the team belief DAG", iteration=t,
                            gap=relative, value=value)
            shown = time.perf_counter()
            if relative <= target_gap:
                status = "converged"
                break
        elif now - shown >= PROGRESS_SECONDS:
            progress.report("TMECor learning on the team belief DAG", iteration=t)
            shown = now
        if out_of_time:
            status = "time_limit"
            break
    flow = (x_sum / weight_sum)[passes.new_of_edge]            # back to the DAG's edge order
    return LearnedTeam(flow=flow, team_reach=team_reach, opponent_plan=y_sum / weight_sum,
                       value=value, lower=float(lower), upper=float(upper),
                       payoff_range=payoff_range, status=status, iterations=t,
                       seconds=time.perf_counter() - start, history=history)


def dag_team_best_response(team: Team, dag: BeliefDag, opponent_plan: np.ndarray,
                           passes: DagPasses | None = None) -> float:
    """max over the team's joint pure plans π of u(π, y) for the opponent's realization plan y:
    the bottom-up maximum over prescriptions on the TB-DAG, V[B] = max_a q[B, a] (the learner's
    upper side, module docstring), in the game's units. Exact because the DAG's pure flows are
    exactly the team's joint pure plans (:mod:`team_belief_dag`); it reads the DAG, so unlike
    :func:`lpgame.analysis.team_gaps.team_best_response` (enumeration or MILP) it is not
    independent of the construction. Linear in the DAG's size (L3133: milliseconds, where the
    pair MILP takes about 30 s)."""
    passes = DagPasses(dag) if passes is None else passes
    so = team.sf.terminal_sequences[:, team.opponent]
    ell = team.leaf_weight * np.asarray(opponent_plan, dtype=float)[so]
    _, best = passes.values(passes.leaf_to_edge @ ell, None)
    return float(best[passes.roots].sum() + passes.root_leaves @ ell)


def flow_marginals(dag: BeliefDag, flow: np.ndarray, sf, members: tuple[int, ...]) -> list[np.ndarray]:
    """Each member's realization plan under the flow: x_m[ja] = Σ x[e] over the prescriptions e
    whose belief decides m's information set j with action a (in a pure flow each reached
    information set is decided at exactly one belief, :mod:`team_belief_dag`; linear in x). An
    information set that m's plan reaches but no belief decides gets the rest of its parent's mass
    on its first action (:meth:`BeliefDag.decompose`'s convention), so each x_m is a realization
    plan."""
    B, E = dag.num_beliefs, dag.num_edges
    key_lengths = np.fromiter(map(len, dag.belief_infosets), dtype=np.int64, count=B)
    keys = np.fromiter((v for row in dag.belief_infosets for key in row for v in key),
                       dtype=np.int64, count=2 * int(key_lengths.sum())).reshape(-1, 2)
    key_start = np.cumsum(key_lengths) - key_lengths
    lengths = key_lengths[dag.edge_belief]
    rows = np.repeat(np.arange(E), lengths)
    actions = np.fromiter((a for row in dag.edge_actions for a in row), dtype=np.int64,
                          count=int(lengths.sum()))
    where = key_start[dag.edge_belief[rows]] + _ramp(lengths)
    owner, infoset = keys[where, 0], keys[where, 1]
    out = []
    for m in members:
        mine = owner == m
        seq = sf.players[m].infoset_first_seq[infoset[mine]] + actions[mine]
        x = np.bincount(seq, weights=np.asarray(flow, dtype=float)[rows[mine]],
                        minlength=sf.num_sequences(m))
        x[0] = 1.0
        p = sf.players[m]
        for js, seqs, starts in reversed(sf.infoset_levels(m)):      # top-down
            # an information set m reaches but no belief of the flow decides (the partner's
            # moves avoid it) takes its first action, as BeliefDag.decompose's plans do
            missing = x[p.infoset_parent_seq[js]] - np.add.reduceat(x[seqs], starts)
            x[p.infoset_first_seq[js]] += np.maximum(missing, 0.0)
        out.append(x)
    return out
