"""Optimal EFCE by learning: the Lagrangian saddle point of Farina (2023), Chapter 10.

**Formulation** (Farina 2023, eqs (10.1)–(10.3), L4505–4530; notes/farina-thesis.md §1.10). The
optimal-EFCE problem max {cᵀξ : ξ ∈ Ξ, max_{x ∈ 𝒬_{i,⪰j}} ξᵀA_{i,σ̂}x ≤ 0 for every trigger
σ̂ = (j, a)} keeps its feasible set when each deviation set is replaced by
𝒬_{i,σ̂} = co{{0}, 𝒬_{i,⪰j}} (10.2), and for a multiplier λ larger than a finite critical λ*
(Prop. 10.1) it has the optimal set of the bilinear saddle point

    max_{ξ ∈ Ξ}  min_{x_{i,σ̂} ∈ 𝒬_{i,σ̂}}  cᵀξ − λ Σ_i Σ_σ̂ ξᵀ A_{i,σ̂} x_{i,σ̂}.          (10.3)

ξᵀA_{i,σ̂}x is the gain of the trigger agent (σ̂, x) over obedience (App. 9.B, with the chance
probabilities of erratum 9): for x = e·y with e ∈ [0, 1] ("deviate at all") and y ∈ 𝒬_{i,⪰j},

    ξᵀA_{i,σ̂}x = Σ_{s ⪰ j} x[s] Σ_{z: σ_i(z) = s} p_c(z) u_i(z) ξ[σ̂ ⊕ σ_{-i}(z)]
                 − e · Σ_{z: σ_i(z) ⪰ σ̂} p_c(z) u_i(z) ξ[σ_1(z), σ_2(z)].

**Dynamics** (Thm 10.1, L4560). Self-play of regret minimisers: the mediator on Ξ, written as the
chain of scaled extensions of Algorithm 9.3 (:mod:`lpgame.equilibria.correlated.correlation_decomposition`,
exact Ξ = 𝒱 in triangle-free games; in a game with a triangle, the distributions over the pairs of
reduced plans, while there are at most ``max_profiles`` of them), and one deviator per trigger on
𝒬_{i,σ̂} = {1} ◁ Δ{deviate, abstain} ◁ (the treeplex below j), all triggers of a player in one
vectorised forest; every simplex runs discounted regret matching (DRM) or PRM⁺
(:mod:`lpgame.equilibria.correlated.scaled_extension`), with alternating updates (deviators first). λ is
fixed, grows as λ₀·t^{1/4} (Cor. 10.1), or (the default, lpgame's rule where the thesis does not
say how to pick λ) is doubled, with the averages restarted, whenever a checkpoint's objective
exceeds the Lagrangian upper bound below by more than the target: such a plan buys objective with
infeasibility, the mark of λ < λ*. The payoffs are divided by the payoff range R = max_{i,z}
u_i(z) − min_{i,z} u_i(z) so that λ is unit-free. The averages ξ̄ (weights t² for PRM⁺, t^γ for
DRM) are the answer.

**Stopping and the independent check.** At checkpoints the averaged plan's EFCE gap is computed by
:mod:`lpgame.analysis.correlated_gaps` (not by the learner; efce_gap for the returned plan) and cᵀξ̄; the
run stops when the gap is at most ``target_gap``·R (Tables 10.1/10.2 use 1 % and 0.1 %) and the
optimality slack |U − cᵀξ̄| is at most ``target_gap``·R, where U = max_{ξ∈Ξ} cᵀξ − λ Σ ξᵀA x̄ is
the Lagrangian bound at the deviators' averages: U ≥ cᵀξ for every feasible ξ (each term
ξᵀA x̄ ≤ 0 there), so U is an upper bound on the optimum; the same holds at any deviator point and
any λ ≥ 0, so the bound kept is the smallest over the checkpoints, at the averages and at the
last iterates. A run that reaches its iteration or
time limit returns the checkpoint plan with the smallest max(gap, slack), labelled with its
status and its measured gap.

**Certified interval** (:mod:`lpgame.equilibria.correlated.efce_learning_bound`). At the end,
the (λ, deviator points) of the smallest U are re-derived independently into the interval
[cᵀξ̄ of the returned plan, certified U ≥ OPT] (``extra["bound_interval"]``, width relative to
R in ``extra["relative_interval_width"]``).

The forests hold Σ p_c u_i / R (not the LP's power-of-two scaling), so λ is in units of the payoff
range as documented.

**Memory** (docs/explanation/benchmarks.md, "The big rows"). The chain, the forests and the gap evaluators
hold int32 positions while they fit (int64 otherwise); the regrets are float32
(``regret_dtype``; everything else the learner sums, the averages, and the checker's gap and
bound are float64); the trigger maps' transposes are views, not copies; only the best
checkpoint's plan is kept; and the learner's state is freed before the certificate's polytope is
built. B2323 peaked at 539 bytes per relevant pair (834 before).

**More than two players.** The thesis's three-player rows (D32, K35, GL33, L3132, L3133, L3223 of
Table 10.1) use the correlation-plan representation of Zhang, Farina, Celli & Sandholm (EC 2022),
which the thesis cites but does not write out (notes §1.8 "n players"); it cannot be reconstructed
from the notes and seeds, so those games are refused here with that reason (see
docs/explanation/benchmarks.md).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from lpgame.analysis.correlated_gaps import TriggerGains, efce_gap
from lpgame.compile import compile_game
from lpgame.equilibria.correlated.ce_cce import (
    OBJECTIVE_OPTION,
    SUPPORT_TOLERANCE,
    CorrelatedResult,
    objective_name,
    objective_weights,
)
from lpgame.equilibria.correlated.correlation_decomposition import (
    DEFAULT_MAX_ENUMERATED_PROFILES,
    correlation_chain,
    enumerated_chain,
)
from lpgame.equilibria.correlated.efce import (
    CorrelationPlanSpace,
    PlayerTree,
    triggers,
)
from lpgame.equilibria.correlated.efce_learning_bound import (
    DEFAULT_MAX_LP_PAIRS,
    bound_dual_point,
    certified_bound,
)
from lpgame.equilibria.correlated.scaled_extension import (
    REGRET_MINIMISERS,
    LocalRegretMinimisers,
    ScaledExtensionChain,
)
from lpgame.errors import InvalidGameError, OptionError
from lpgame.lp.sorted_keys import find_keys, join_keys
from lpgame.registry import Concept, Option, register
from lpgame.result import register_result_kind
from lpgame.sequence_form import SequenceForm

LAMBDA_SCHEDULES = ("adaptive", "fixed", "growing")
DEFAULT_MULTIPLIER = 10.0
MAX_LISTED_PLAN_ENTRIES = 20_000


@register_result_kind
@dataclass(kw_only=True)
class LearnedCorrelatedResult(CorrelatedResult):
    """An optimal EFCE found by learning: a :class:`CorrelatedResult` whose plan is approximately
    optimal (``optimal`` False), with ``extra["status"]`` (``converged``, ``iteration_limit``,
    ``time_limit``), the relative gap and slack, and the checkpoint history."""

    kind = "correlated_learning"

    @property
    def bound(self) -> str:
        status = self.extra.get("status", "?")
        gap = self.extra.get("relative_gap", float("nan"))
        slack = self.extra.get("relative_slack", float("nan"))
        return (f"learned, {status}: gap {gap:.2e} and optimality slack {slack:.2e} of the "
                f"payoff range")

    def headline(self) -> str:
        return f"{self.game}: {self.concept} maximising {self.objective_spec} ({self.bound})"


@dataclass
class TriggerForest:
    """All trigger deviators of one player: the chain of {1} ◁ Δ{deviate, abstain} ◁ 𝒬_{⪰j}
    for every trigger (entries: T roots, T "deviate", T "abstain", then one per (trigger,
    sequence at or below its scope)), and the sparse maps from ξ to the deviators' utilities."""

    chain: ScaledExtensionChain
    num_triggers: int
    deviation: sp.csr_array        # (trigger-sequence entries) × pairs: gain coefficients
    obedience: sp.csr_array        # triggers × pairs: the obedient value
    labels: list[str]
    row_t: np.ndarray | None = None     # (trigger, sequence) of each row entry
    row_s: np.ndarray | None = None
    num_sequences: int = 0

    @property
    def deviate(self) -> slice:
        return slice(self.num_triggers, 2 * self.num_triggers)

    @property
    def rows(self) -> slice:
        return slice(3 * self.num_triggers, None)

    def gradient(self, xi: np.ndarray) -> np.ndarray:
        """The deviators' utilities (their gains) on every entry, against ξ."""
        g = np.zeros(self.chain.num_entries)
        g[self.deviate] = -(self.obedience @ xi)
        g[self.rows] = self.deviation @ xi
        return g

    def penalty(self, x: np.ndarray) -> np.ndarray:
        """Σ_σ̂ A_{i,σ̂} x_{i,σ̂} as a vector over the pairs (the mediator's gradient of the gains)."""
        # the transposes are views (CSC of the same arrays), not copies: one pair-sized
        # indptr per copy would cost 2 × 8 B per relevant pair and player
        return self.deviation.T @ x[self.rows] - self.obedience.T @ x[self.deviate]

    def deviators(self, x: np.ndarray) -> tuple[np.ndarray, sp.csr_array]:
        """x as (deviate weight per trigger, continuation as a triggers × sequences array): the
        layout of :meth:`lpgame.analysis.correlated_gaps.LagrangianBound.lagrangian`."""
        y = sp.csr_array((x[self.rows], (self.row_t, self.row_s)),
                         shape=(self.num_triggers, self.num_sequences))
        return x[self.deviate].copy(), y


def trigger_forest(sf: SequenceForm, space: CorrelationPlanSpace, player: int,
                   scale: float) -> TriggerForest:
    """The EFCE trigger deviators of ``player`` (module docstring), payoffs divided by ``scale``."""
    tree: PlayerTree = space.trees[player]
    trig = triggers(tree, "efce")
    n, m = tree.num_sequences, tree.num_infosets
    T = trig.scope.size

    def pair_pos(own_seq, opp_seq):
        return space.index(own_seq, opp_seq) if player == 0 else space.index(opp_seq, own_seq)

    # (trigger, sequence at or below its scope): the deviation entries
    scope_s_j, scope_s = tree.scope_members()
    ti, ri = join_keys(trig.scope, scope_s_j)
    row_key = np.sort(ti * n + scope_s[ri])
    row_t, row_s = row_key // n, row_key % n
    R = row_key.size
    # Σ p_c u_i, divided by R only (not the LP's power-of-two scaling), so that λ is unit-free
    coo = sp.coo_array(sf.payoff_matrix(player))
    coo.sum_duplicates()
    keep = coo.data != 0
    own, opp = (coo.row[keep], coo.col[keep]) if player == 0 else (coo.col[keep], coo.row[keep])
    val = coo.data[keep] / scale
    ri, ei = join_keys(row_s, own)
    deviation = sp.csr_array((val[ei], (ri, pair_pos(trig.cond[row_t[ri]], opp[ei]))),
                             shape=(R, space.num_pairs))
    anc = tree.ancestors
    s_rep = np.repeat(np.arange(n), anc.shape[1])
    a = anc.ravel()
    keep = a >= 1
    ti, ri = join_keys(trig.cond, a[keep])
    ob_seq = s_rep[keep][ri]
    oi, ei = join_keys(ob_seq, own)
    obedience = sp.csr_array((val[ei], (ti[oi], pair_pos(own[ei], opp[ei]))),
                             shape=(T, space.num_pairs))
    # the chain: root t -> (deviate t, abstain t); node (t, j') -> its sequences (t, j'a)
    scope_j, below_j = tree.infoset_scope_members()
    ti, ri = join_keys(trig.scope, scope_j)
    node_key = np.sort(ti * (m + 1) + below_j[ri])
    node_t, node_j = node_key // (m + 1), node_key % (m + 1)
    top = node_j == trig.scope[node_t]
    parent = np.where(top, T + node_t, 0)
    below = ~top
    parent[below] = 3 * T + find_keys(row_key, node_t[below] * n + tree.infoset_parent[node_j[below]],
                                  "trigger rows")
    k = tree.infoset_size[node_j]
    local = np.arange(int(k.sum())) - np.repeat(np.cumsum(k) - k, k)
    slot_seq = np.repeat(tree.infoset_first[node_j], k) + local
    slot_rows = 3 * T + find_keys(row_key, np.repeat(node_t, k) * n + slot_seq, "trigger rows")
    split_parent = np.concatenate([np.arange(T), parent])
    slot_split = np.concatenate([np.repeat(np.arange(T), 2),
                                 T + np.repeat(np.arange(node_key.size), k)])
    slot_entry = np.concatenate([np.stack([T + np.arange(T), 2 * T + np.arange(T)], 1).ravel(),
                                 slot_rows])
    chain = ScaledExtensionChain(3 * T + R, np.arange(T), split_parent, slot_split, slot_entry,
                                 np.zeros(0, np.int64), sp.csr_array((0, 3 * T + R)))
    return TriggerForest(chain, T, deviation, obedience, trig.labels, row_t, row_s, n)


@dataclass
class Checkpoint:
    """The averaged plan at one checkpoint, measured independently."""

    iteration: int
    seconds: float
    objective: float
    gap: float
    upper_bound: float
    multiplier: float
    xi: np.ndarray
    bound_point: tuple | None = None    # (λ, deviator points) of ``upper_bound`` when set here

    def score(self, scale: float) -> float:
        """max(gap, |U − objective|) / R: an objective above the bound U ≥ optimum is as far off
        as one below it."""
        return max(self.gap, abs(self.upper_bound - self.objective)) / scale

    def row(self, scale: float) -> dict:
        return {"iteration": self.iteration, "seconds": round(self.seconds, 4),
                "objective": self.objective, "gap": self.gap, "relative_gap": self.gap / scale,
                "upper_bound": self.upper_bound,
                "relative_slack": abs(self.upper_bound - self.objective) / scale,
                "lambda": self.multiplier}


def solve_efce_learning(game, objective="welfare", target_gap: float = 0.01,
                        iterations: int = 100_000, time_limit: float | None = None,
                        regret_minimiser: str = "drm", multiplier: float = DEFAULT_MULTIPLIER,
                        schedule: str = "adaptive", check_every: int | None = None,
                        max_profiles: int = DEFAULT_MAX_ENUMERATED_PROFILES,
                        max_lp_pairs: int = DEFAULT_MAX_LP_PAIRS,
                        regret_dtype=np.float32) -> LearnedCorrelatedResult:
    """An optimal EFCE of a two-player game by regret minimisation on (10.3).

    ``objective``: ``"welfare"``, ``"player1"``, ``"player2"`` or weights (as the LP).
    ``target_gap``: stop when the independent EFCE gap and the optimality slack are both at most
    this fraction of the payoff range. ``iterations`` / ``time_limit`` (seconds): limits; a run
    that reaches one returns the best checkpoint labelled ``status="iteration_limit"`` or
    ``"time_limit"`` with its measured gap. ``regret_minimiser``: ``"drm"`` or ``"prm+"``.
    ``multiplier`` λ₀ and ``schedule``: ``"adaptive"`` (λ₀, doubled, with the averages restarted,
    whenever a checkpoint's objective exceeds the Lagrangian upper bound by more than the target),
    ``"fixed"`` (λ = λ₀) or ``"growing"`` (λ = λ₀ t^{1/4}).
    ``check_every``: iterations between checkpoints (default: a geometric schedule).
    Ξ is the chain of Algorithm 9.3 in triangle-free games; otherwise the distributions over the
    pairs of reduced plans, when there are at most ``max_profiles`` of them.
    ``regret_dtype``: the storage type of the accumulated regrets (float32 by default, half the
    memory; float64 for the reference): sums, behaviours, points, averages, the independent gap
    and the certified bound are float64 either way.
    """
    start = time.perf_counter()
    _check_options(target_gap, iterations, time_limit, regret_minimiser, multiplier, schedule,
                   check_every)
    sf = game if isinstance(game, SequenceForm) else compile_game(game)
    if sf.num_players != 2:
        raise InvalidGameError(
            f"{sf.game.name}: optimal EFCE by learning is implemented for two players; the game "
            f"has {sf.num_players}. The thesis's three-player rows use the correlation-plan "
            f"representation of Zhang, Farina, Celli & Sandholm (EC 2022), which the notes and "
            f"seeds do not write out (see docs/explanation/benchmarks.md); use method="
            f"'column_generation' (the default for three or more players), or concept 'ce' for a "
            f"normal-form game")
    space = CorrelationPlanSpace(sf)
    triangle_free = space.triangle_free
    chain = correlation_chain(space) if triangle_free else enumerated_chain(space, max_profiles)
    P = space.num_pairs
    payoffs = sf.terminal_payoffs
    scale = float(payoffs.max() - payoffs.min()) if payoffs.size else 0.0
    scale = scale if scale > 0 else 1.0
    w = objective_weights(objective, 2)
    leaf_pos = space.index(sf.terminal_sequences[:, 0], sf.terminal_sequences[:, 1])
    c = np.bincount(leaf_pos, weights=sf.terminal_chance * (payoffs @ w), minlength=space.num_pairs)
    forests = [trigger_forest(sf, space, i, scale) for i in range(2)]
    checkers = [TriggerGains(sf, i, "efce") for i in range(2)]     # independent of the learner
    built = time.perf_counter()

    mediator = LocalRegretMinimisers(chain, regret_minimiser, dtype=regret_dtype)
    deviators = [LocalRegretMinimisers(f.chain, regret_minimiser, dtype=regret_dtype)
                 for f in forests]
    xi_sum = np.zeros(P)
    x_sums = [np.zeros(f.chain.num_entries) for f in forests]
    weight_sum = 0.0
    checks = set(_schedule(iterations, check_every))
    history: list[Checkpoint] = []
    best: Checkpoint | None = None
    bound_point = None
    status = "iteration_limit"
    t = 0
    lam = multiplier
    for t in range(1, iterations + 1):
        if schedule == "growing":
            lam = multiplier * t ** 0.25
        xi = chain.point(mediator.behaviour)[:P]
        penalty = np.zeros(P)
        xs = []
        for f, dev in zip(forests, deviators):
            dev.observe(f.chain.slot_values(f.gradient(xi), dev.behaviour, overwrite=True), t)
            x = f.chain.point(dev.behaviour)
            xs.append(x)
            penalty += f.penalty(x)
        grad = np.zeros(chain.num_entries)
        np.multiply(penalty, -lam, out=grad[:P])
        del penalty
        grad[:P] += c / scale
        mediator.observe(chain.slot_values(grad, mediator.behaviour, overwrite=True), t)
        wt = mediator.average_weight(t)
        weight_sum += wt
        xi_sum += wt * xi
        for s, x in zip(x_sums, xs):
            s += wt * x
        elapsed = time.perf_counter() - start
        out_of_time = time_limit is not None and elapsed >= time_limit
        if t in checks or out_of_time or t == iterations:
            point = _checkpoint(checkers, space, chain, forests, c, scale, lam, xi_sum / weight_sum,
                                [[s / weight_sum for s in x_sums], xs], t, elapsed,
                                history[-1].upper_bound if history else np.inf)
            history.append(point)
            if point.bound_point is not None:
                # kept once, here: the history's checkpoints do not each hold deviator points
                bound_point, point.bound_point = point.bound_point, None
            if best is None or point.score(scale) <= best.score(scale):
                best = point
            for h in history:       # only the best checkpoint's plan is kept (P floats each)
                if h is not best and h is not point:
                    h.xi = None
            if point.score(scale) <= target_gap:
                status = "converged"
                best = point
                break
            if schedule == "adaptive" and point.objective - point.upper_bound > target_gap * scale:
                # the plan beats a bound on the optimum: it buys objective with infeasibility,
                # so λ is below the critical λ* of Prop. 10.1; double it and restart the averages
                lam *= 2.0
                xi_sum[:] = 0.0
                for s in x_sums:
                    s[:] = 0.0
                weight_sum = 0.0
        if out_of_time:
            status = "time_limit"
            break
    learned = time.perf_counter()
    # the regrets, sums and the last iterate's vectors are not needed any more: free them before
    # the certificate's arrays (its polytope would otherwise sit beside the learner's state)
    del mediator, deviators, xi_sum, x_sums, xi, xs, grad
    for h in history:
        if h is not best:
            h.xi = None
    for check in checkers:          # the checkpoints' cached plan positions
        check.forget_plan_positions()
    size = {"relevant_pairs": space.num_pairs, "splits": chain.num_splits,
            "sums": int(chain.sum_target.size),
            "trigger_entries": int(sum(f.chain.num_entries for f in forests))}
    dual_point = bound_dual_point(space, chain, forests, c, scale, bound_point, triangle_free,
                                  max_lp_pairs)
    # the chain and the forests go before the checker's polytope is built
    del chain, forests
    certificate = certified_bound(sf, checkers, w, dual_point)
    del dual_point
    return _result(sf, space, size, best, history, status, objective, w, scale, t,
                   start, built, target_gap, regret_minimiser, multiplier, schedule,
                   triangle_free, certificate, time.perf_counter() - learned)


def _check_options(target_gap, iterations, time_limit, regret_minimiser, multiplier, schedule,
                   check_every) -> None:
    if not 0 < float(target_gap) < 1:
        raise OptionError(f"target_gap is a fraction of the payoff range in (0, 1); got {target_gap!r}")
    if int(iterations) < 1:
        raise OptionError(f"iterations must be at least 1; got {iterations!r}")
    if time_limit is not None and float(time_limit) <= 0:
        raise OptionError(f"time_limit must be positive (seconds); got {time_limit!r}")
    if regret_minimiser not in REGRET_MINIMISERS:
        raise OptionError(f"regret_minimiser must be one of {', '.join(REGRET_MINIMISERS)}; "
                          f"got {regret_minimiser!r}")
    if not float(multiplier) > 0:
        raise OptionError(f"multiplier (λ₀) must be positive; got {multiplier!r}")
    if schedule not in LAMBDA_SCHEDULES:
        raise OptionError(f"schedule must be one of {', '.join(LAMBDA_SCHEDULES)}; got {schedule!r}")
    if check_every is not None and int(check_every) < 1:
        raise OptionError(f"check_every must be at least 1; got {check_every!r}")


def _schedule(iterations: int, check_every: int | None) -> list[int]:
    """Checkpoint iterations: every ``check_every``, or 10, 20, ..., growing by about 20 %."""
    if check_every is not None:
        return list(range(check_every, iterations + 1, check_every))
    out, k = [], 10
    while k <= iterations:
        out.append(k)
        k = max(k + 10, int(k * 1.2))
    return out


def _checkpoint(checkers, space, chain, forests, c, scale, lam, xi_bar, deviator_points, t,
                elapsed, bound: float) -> Checkpoint:
    """Measure the averaged plan: its objective, its independent EFCE gap, and the Lagrangian
    bound, the smallest of ``bound`` (earlier checkpoints) and max_{ξ∈Ξ} L(ξ, x) at each of the
    given deviator points (averages, last iterates): each is ≥ the optimum for any λ ≥ 0."""
    matrix = space.as_matrix(xi_bar)
    gap = max(0.0, max(float(check(matrix).max(initial=0.0)) for check in checkers))
    del matrix
    P = space.num_pairs
    point = None
    for xs in deviator_points:
        grad = np.zeros(chain.num_entries)
        for f, x in zip(forests, xs):
            grad[:P] += f.penalty(x)
        grad[:P] *= -lam
        grad[:P] += c / scale
        value = chain.best_value(grad, overwrite=True) * scale
        del grad
        if value < bound:
            bound, point = value, (lam, [x.copy() for x in xs])
    return Checkpoint(t, elapsed, float(c @ xi_bar), float(gap), float(bound), lam, xi_bar,
                      point)


def _result(sf, space, size: dict, best: Checkpoint, history, status, objective, w, scale, t,
            start, built, target_gap, regret_minimiser, multiplier, schedule,
            triangle_free, certificate: dict, certify_seconds: float) -> LearnedCorrelatedResult:
    xi = best.xi
    check = efce_gap(sf, space.as_matrix(xi))
    leaf_pos = space.index(sf.terminal_sequences[:, 0], sf.terminal_sequences[:, 1])
    payoffs = ((sf.terminal_chance * xi[leaf_pos]) @ sf.terminal_payoffs).tolist()
    plan_entries = None
    support = np.flatnonzero(xi > SUPPORT_TOLERANCE)
    if support.size <= MAX_LISTED_PLAN_ENTRIES:
        plan_entries = [{"sequences": list(lab), "value": float(xi[k])}
                        for k, lab in zip(support, space.pair_labels(support))]
    end = time.perf_counter()
    extra = {
        "method": "learning", "status": status, "target_gap": target_gap,
        "relative_gap": check.gap / scale, "upper_bound": best.upper_bound,
        "relative_slack": abs(best.upper_bound - best.objective) / scale,
        "final_lambda": best.multiplier,
        "payoff_range": scale, "iterations": t, "best_iteration": best.iteration,
        "regret_minimiser": regret_minimiser, "lambda0": multiplier, "schedule": schedule,
        "relevant_pairs": space.num_pairs, "history": [h.row(scale) for h in history],
        "bound_certificate": certificate,
        "source": "Farina 2023, Ch. 10, eq. (10.3), Thm 10.1; Ξ by "
                  + ("Algorithm 9.3" if triangle_free else "Def. 9.1 over pure plan pairs"),
    }
    if certificate.get("status") == "certified":
        extra["certified_upper_bound"] = certificate["value"]
        extra["bound_interval"] = [best.objective, certificate["value"]]
        extra["relative_interval_width"] = (certificate["value"] - best.objective) / scale
    extra["xi_representation"] = ("scaled-extension chain (Algorithm 9.3)" if triangle_free
                                  else "distribution over pairs of reduced plans")
    return LearnedCorrelatedResult(
        game=sf.game.name, concept="efce", variant="learning", objective=best.objective,
        objective_spec=objective_name(objective), weights=w.tolist(), payoffs=payoffs,
        gap=check.gap, optimal=False, exact=False, triangle_free=triangle_free, size=size,
        seconds={"build": built - start, "learn": end - built - certify_seconds,
                 "certify": certify_seconds, "total": end - start},
        solver={"name": f"regret minimisation ({regret_minimiser})", "backend": "learning",
                "crossover": None, "tolerance": target_gap, "exact_certification": False},
        backend="learning", correlation_plan=plan_entries, realisable=True,
        gap_detail=check.to_dict(), extra=extra, raw=xi, model=space)


def _solve_entry(game, *, exact: bool = False, backend: str = "highs", method: str | None = None,
                 objective="welfare", target_gap: float = 0.01, iterations: int = 100_000,
                 learning_time: float | None = None, regret_minimiser: str = "drm",
                 multiplier: float = DEFAULT_MULTIPLIER, schedule: str = "adaptive",
                 time_limit: float | None = None,
                 max_profiles: int = DEFAULT_MAX_ENUMERATED_PROFILES,
                 **_solver_options) -> LearnedCorrelatedResult:
    if exact:
        raise OptionError("optimal EFCE by learning is approximate (its gap is measured); "
                          "exact mode needs method='lp'")
    limit = learning_time if learning_time is not None else time_limit
    return solve_efce_learning(game, objective=objective, target_gap=target_gap,
                               iterations=iterations, time_limit=limit,
                               regret_minimiser=regret_minimiser, multiplier=multiplier,
                               schedule=schedule, max_profiles=max_profiles)


register(Concept(
    name="efce", variant="learning", games=("general_sum",), requires=("method=learning",),
    solve=_solve_entry, exact=False, backends=("highs",),
    summary="optimal extensive-form correlated equilibrium by regret minimisation on the "
            "Lagrangian saddle point (two players; triangle-free, or small)",
    certificate="largest gain of any trigger deviation (EFCE gap) of the averaged correlation "
                "plan, by lpgame.analysis.correlated_gaps",
    source="Farina 2023, Ch. 10, eq. (10.3), Thm 10.1; Algorithm 9.3 for Ξ",
    options=(
        Option("method", str, None, "lp (default) or learning (optimal EFCE by regret "
               "minimisation, Farina 2023 Ch. 10)", choices=("lp", "learning")),
        OBJECTIVE_OPTION,
        Option("target_gap", float, 0.01,
               "stop at this gap and optimality slack, as a fraction of the payoff range"),
        Option("iterations", int, 100_000, "iteration limit of the learning run"),
        Option("learning_time", float, None, "time limit of the learning run, seconds"),
        Option("regret_minimiser", str, "drm", "local regret minimiser",
               choices=REGRET_MINIMISERS),
        Option("multiplier", float, DEFAULT_MULTIPLIER, "Lagrange multiplier λ₀ of (10.3)"),
        Option("schedule", str, "adaptive",
               "λ adaptive (doubled when the plan beats the upper bound), fixed, or growing as "
               "λ₀·t^(1/4)",
               choices=LAMBDA_SCHEDULES),
        Option("max_profiles", int, DEFAULT_MAX_ENUMERATED_PROFILES,
               "games with a triangle: largest number of reduced plan pairs enumerated for Ξ"),
    ),
))
