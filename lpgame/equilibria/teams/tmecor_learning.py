"""TMECor by regret minimisation on the team belief DAG (the thesis's "Ours" of Table 11.2).

**Formulation** (Farina 2023, ch. 11, eq. (11.5), Cor. 11.2 and Remark 11.1; Zhang, Farina &
Sandholm, ICML 2023; notes/farina-thesis.md §1.11, §3.5). TMECor is the bilinear saddle point

    max_{x ∈ X_T} min_{y ∈ Q_o}  Σ_z p_c(z) u_T(z) ω_x[z] y[σ_o(z)],      ω_x = R x + r,

where X_T is the flow polytope of the team belief DAG (:mod:`lpgame.equilibria.teams.team_belief_dag`:
x[e] ≥ 0 per prescription e = (B, a), Σ_a x[B, a] = [B root] + Σ_{e → B} x[e]), whose image under
ω = R x + r is the set Ω_T of the team's realization vectors, and Q_o is the opponent's treeplex.

**Team: counterfactual regret minimisation on the DAG.** With the local strategy π_B (a point of
the simplex over B's prescriptions), the flow is x[B, a] = x[B] π_B[a], top-down. For an edge
utility ℓ[e] = Σ_{z hanging off e} p_c u_T y[σ_o(z)], bottom-up

    q[e] = ℓ[e] + Σ_{C child of e} V[C],        V[B] = Σ_a π_B[a] q[B, a],

and ⟨ℓ, x⟩ = Σ_{B root} V[B]. For any comparator flow x*, ⟨ℓ, x*⟩ − ⟨ℓ, x⟩ =
Σ_B x*[B] (⟨π*_B, q_B⟩ − V[B]) (expand ⟨ℓ, x*⟩ with x*[C] = Σ_{e → C} x*[e]; a belief may have
several parents), so the team's regret is at most Σ_B x*[B] R_B^T, the local regrets of the
simplexes weighted by a flow: the laminar regret decomposition of CFR (Zinkevich et al. 2007;
Farina 2023, §4.2) holds on the DAG, as Zhang, Farina & Sandholm use it. Each simplex runs
PRM⁺ (predictive regret matching⁺, Farina, Kroer & Sandholm 2021: R ← [R + r]⁺,
π ∝ [R + r]⁺ with the last instantaneous regret r as prediction), RM⁺ (CFR⁺, Tammelin 2014) or
DCFR(3/2, 0, γ) (Brown & Sandholm 2019, with :mod:`lpgame.learning.operator_cfr`'s order: at
iteration t, R ← R · t^{3/2}/(t^{3/2} + 1) where R > 0 and R/2 where R ≤ 0, then R ← R + r,
π ∝ [R]⁺); the decomposition needs only each simplex's regret bound, so any of them applies.

**Opponent.** The same algorithm on its treeplex (the sequence-form recursion of
:mod:`lpgame.learning.treeplex`), its sequence payoffs g_o[σ] = −Σ_{σ_o(z) = σ} p_c u_T ω[z].

**Dynamics.** Alternating updates (team, then the opponent against the team's new flow); averages
of the iterates with weights t² (PCFR⁺, quadratic averaging, the default, as in the thesis's
experiments), t (CFR⁺, linear averaging) or t³ (DCFR, cubic averaging); ``averaging`` sets another
power. DCFR with cubic averaging needs fewer iterations than PCFR⁺ on every row of Table 11.2 that
the benchmark runs (D33 to 10⁻³: 204 against 410), but on K33 and L3223 only by 10–33 %, so it is
an option (docs/explanation/benchmarks.md). The flow average is a flow (X_T is convex), so x̄ is a
correlated plan of the team, decomposed into joint pure plans by :meth:`BeliefDag.decompose` in
:mod:`lpgame.equilibria.teams.tmecor`. Leaf weights are divided by the power of two that puts the
team's payoffs in unit range (:func:`lpgame.equilibria.teams.tmecor_lp.team_scaling`); regret
matching (and DCFR's multiplicative discounts) are invariant to that scale, so the dynamics are the
same at every payoff scale.

**Stopping.** At checkpoints (every ⌈t/8⌉ iterations) the gap of the averages is measured:

    gap = max_{x ∈ X_T} u(x, ȳ) − min_{y ∈ Q_o} u(x̄, y),

the second term by the independent best response of :func:`lpgame.analysis.team_gaps.opponent_best_response`,
the first by the bottom-up maximum over prescriptions on the DAG (V[B] = max_a q[B, a]: the best
pure flow, which is a joint pure plan). The run stops when gap ≤ ``target_gap`` × (the payoff
range of u_T). The result is then certified by :mod:`lpgame.analysis.team_gaps`, which never reads
the DAG (the team's best joint plan by enumeration or its own MILP).

**Vectorisation.** The beliefs are renumbered by level (longest path from a root) and each belief's
prescriptions are contiguous; every pass is one numpy step per level (``add.reduceat`` over the
prescription blocks, a sparse product for the children), and the leaf utilities are one sparse
product per iteration. Nothing loops over beliefs in Python. The per-belief values are spread over
the prescriptions by ``repeat`` (not a gather), the sparse products call SciPy's CSR kernel
directly (:class:`_Csr`: the same sums, without the dispatch of ``@``, which on a small DAG is most
of an iteration) and the normalisation divides without a mask (the zero blocks are made uniform
after); every sum is taken in the same order as before, so the iterates are the same to the bit
(tests/test_tmecor_learning_speed.py runs the earlier learner beside this one).
"""

from __future__ import annotations

import itertools
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

REGRET_MINIMISERS = ("pcfr+", "cfr+", "dcfr")
AVERAGING = {"pcfr+": 2.0, "cfr+": 1.0, "dcfr": 3.0}
"""The default power γ of the averaging weights t^γ of each regret minimiser (module docstring)."""
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
        corder = _stable_order(ce, eorder, E)
        cen, cbn = cen[corder], cbn[corder]
        self.levels = []       # (b0, b1, e0, e1, lo, hi, children, parents, block starts, counts)
        for L in range(nlev):
            b0, b1, e0, e1 = (int(v) for v in (bstart[L], bstart[L + 1], estart[L], estart[L + 1]))
            k0, k1 = np.searchsorted(cen, [e0, e1])
            counts = self.counts[b0:b1]
            sums = self.starts[b0:b1] - e0
            if k1 > k0:
                lo, hi = int(cbn[k0:k1].min()), int(cbn[k0:k1].max()) + 1
                ch = sp.csr_array((np.ones(k1 - k0), (cen[k0:k1] - e0, cbn[k0:k1] - lo)),
                                  shape=(e1 - e0, hi - lo))
                self.levels.append((b0, b1, e0, e1, lo, hi, _Csr(ch), _Csr(ch.T.tocsr()), sums,
                                    counts))
            else:
                self.levels.append((b0, b1, e0, e1, 0, 0, None, None, sums, counts))
        self._zero_fill = 1.0 / self.counts          # π of a belief whose weights are all 0
        Z = dag.num_leaves
        le = enew[dag.leaf_edge]
        full = sp.csr_array((np.ones(le.size), (le, dag.leaf_index)), shape=(E, Z))
        factors = _leaf_factors(self, dag, le, full)
        self.factored = factors is not None
        if self.factored:
            self.leaf_to_edge = _Product(_Csr(factors[0]), _Csr(factors[1]))
            self.edge_to_leaf = _Product(_Csr(factors[1].T.tocsr()), _Csr(factors[0].T.tocsr()))
        else:
            self.leaf_to_edge, self.edge_to_leaf = _Csr(full), _Csr(full.T.tocsr())
        self.root_leaves = np.zeros(Z)
        self.root_leaves[dag.root_leaves] = 1.0

    def values(self, ell: np.ndarray, pi: np.ndarray | None, overwrite: bool = False
               ) -> tuple[np.ndarray, np.ndarray]:
        """(q, V) bottom-up; ``pi`` None: V[B] = max_a q[B, a] (the best response).
        ``overwrite``: q is computed in ``ell``'s own array."""
        q = ell if overwrite else np.array(ell, dtype=float, copy=True)
        V = np.empty(self.num_beliefs)
        for b0, b1, e0, e1, lo, hi, ch, _, sums, _ in reversed(self.levels):
            qs = q[e0:e1]
            if ch is not None:
                qs += ch @ V[lo:hi]
            if pi is None:
                V[b0:b1] = np.maximum.reduceat(qs, sums)
            else:
                V[b0:b1] = np.add.reduceat(pi[e0:e1] * qs, sums)
        return q, V

    def spread(self, per_belief: np.ndarray) -> np.ndarray:
        """A per-belief array repeated over each belief's prescriptions (v[edge_belief])."""
        return np.repeat(per_belief, self.counts)

    def flow(self, pi: np.ndarray) -> np.ndarray:
        """x[B, a] = x[B] π_B[a], top-down; x[C] = Σ_{e → C} x[e] (+1 at a root)."""
        xb = np.zeros(self.num_beliefs)
        xb[self.roots] = 1.0
        x = np.empty(self.num_edges)
        for b0, b1, e0, e1, lo, hi, _, parents, _, counts in self.levels:
            xs = np.multiply(pi[e0:e1], np.repeat(xb[b0:b1], counts), out=x[e0:e1])
            if parents is not None:
                xb[lo:hi] += parents @ xs
        return x

    def normalise(self, weights: np.ndarray) -> np.ndarray:
        """π ∝ ``weights`` ≥ 0 on every belief's prescriptions (uniform where they sum to 0):
        w / Σ_B w, with the sum 1 where it is 0 (so π = 0 there), then the uniform 1/|A_B| added
        on exactly those beliefs (0 + 1/|A_B|: the same numbers as a masked division)."""
        sums = np.add.reduceat(weights, self.starts)
        zero = sums <= 0.0
        if not zero.any():
            return weights / np.repeat(sums, self.counts)
        sums[zero] = 1.0
        pi = weights / np.repeat(sums, self.counts)
        pi += np.repeat(np.where(zero, self._zero_fill, 0.0), self.counts)
        return pi

    def realization(self, x: np.ndarray) -> np.ndarray:
        return self.edge_to_leaf @ x + self.root_leaves


try:                                                  # y += A x for CSR arrays, in C
    from scipy.sparse._sparsetools import csr_matvec as _csr_matvec
except ImportError:                                   # pragma: no cover - other SciPy layouts
    _csr_matvec = None


class _Csr:
    """A CSR matrix applied to vectors by SciPy's own kernel without the dispatch of ``@``: the
    same sums in the same order (``A @ v`` starts from zeros too), a few microseconds less a call,
    which on a small DAG is most of an iteration. Falls back to ``@`` where the kernel is absent."""

    def __init__(self, m: sp.csr_array):
        m = sp.csr_array(m)
        self.matrix, self.shape = m, m.shape
        index = np.int32 if max(m.nnz, *m.shape) < 2**31 - 1 else np.int64
        self._args = (m.shape[0], m.shape[1], m.indptr.astype(index), m.indices.astype(index),
                      np.ascontiguousarray(m.data, dtype=float))

    def __matmul__(self, v: np.ndarray) -> np.ndarray:
        if _csr_matvec is None or np.ndim(v) != 1:
            return self.matrix @ v
        out = np.zeros(self.shape[0])
        _csr_matvec(*self._args, np.ascontiguousarray(v, dtype=float), out)
        return out


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
        itertools.chain.from_iterable(acts), dtype=np.int64, count=int(lengths.sum()))
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


def _stable_order(child_edge: np.ndarray, eorder: np.ndarray, num_edges: int) -> np.ndarray:
    """``argsort(enew[child_edge], kind="stable")`` for the renumbering ``enew[eorder] = arange``,
    in linear time where ``child_edge`` is sorted (the builders' order): the blocks of each edge's
    children, in the new edge order, each kept in its own order."""
    if child_edge.size == 0 or np.any(child_edge[1:] < child_edge[:-1]):
        return np.argsort(np.argsort(eorder)[child_edge], kind="stable")
    ptr = np.searchsorted(child_edge, np.arange(num_edges + 1))
    counts = np.diff(ptr)[eorder]
    return np.repeat(ptr[:-1][eorder], counts) + _ramp(counts)


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
    weights t^γ (default :data:`AVERAGING`: 2 for PCFR⁺, 1 for CFR⁺, 3 for DCFR). ``team`` lives
    on the tree the DAG was built from (its leaves in the DAG's order)."""
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
    discounted = regret_minimiser == "dcfr"
    power = AVERAGING[regret_minimiser] if averaging is None else float(averaging)

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
        q, V = passes.values(passes.leaf_to_edge @ (w * y[so]), pi, overwrite=True)
        r = np.subtract(q, passes.spread(V), out=q)
        x_sum += wt * x
        if discounted:
            pi = passes.normalise(_discounted(regrets, r, t))
        else:
            np.add(regrets, r, out=regrets)
            np.maximum(regrets, 0.0, out=regrets)
            if predictive:                           # [R + r]⁺, in r's array
                np.maximum(np.add(regrets, r, out=r), 0.0, out=r)
            pi = passes.normalise(r if predictive else regrets)
        x = passes.flow(pi)
        # the opponent against the team's new flow
        omega = passes.realization(x)
        g = np.bincount(so, weights=-w * omega, minlength=opp.num_sequences)
        r_o = opp.regrets(g, b_o)
        y_sum += wt * y
        if discounted:
            b_o = opp.regret_matching(_discounted(regrets_o, r_o, t))
        else:
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


def _discounted(regrets: np.ndarray, r: np.ndarray, t: int) -> np.ndarray:
    """DCFR(3/2, 0, ·)'s update in place, R ← R · t^{3/2} / (t^{3/2} + 1) where R > 0, R / 2
    where R ≤ 0, then R ← R + r; returns [R]⁺ (a new array) for regret matching."""
    a = float(t) ** 1.5
    np.multiply(regrets, np.where(regrets > 0.0, a / (a + 1.0), 0.5), out=regrets)
    np.add(regrets, r, out=regrets)
    return np.maximum(regrets, 0.0)


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
