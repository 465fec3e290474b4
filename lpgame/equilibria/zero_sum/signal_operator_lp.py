"""The sparsified sequence-form LP of an ordered-signal game: payoffs through the showdown operator.

The LP is the security LP of :mod:`lpgame.equilibria.zero_sum.security` for player 1 (Koller,
Megiddo & von Stengel 1996; notes/farina-thesis.md §1.4),

    max v[∅]  s.t.  F_1 x = f_1,   F_2ᵀ v − K·Uᵀ x ≤ 0,   x ≥ 0,  v free,              (LP)

with U the payoff matrix of :mod:`lpgame.game.showdown_operator` (eq. (1) there) never stored.
Its product Uᵀx is written through auxiliary **cumulative** variables, one chain per (round j,
board representative b, player 1's public sequence π_1 that ends at a leaf of round j):

    C_{b,π_1}[k] − C_{b,π_1}[k−1] − Σ_{h ∉ b: level_b(h) = k} x[σ_1(b, h, π_1)] = 0     [cumulative]

(k over the strength levels of the cards h ∉ b when a showdown leaf follows π_1, a single level
when only folds do; C[−1] = 0). Then the ``best_response`` row of player 2's sequence
σ_2(b, h_2, π_2(ℓ)) gets, for every leaf ℓ of round j and with φ = K·p_j·w_b (deal probability,
board orbit size, a global scale K),

    showdown:  −φ[(L − E)·C[k−1] + (E − W)·C[k] + W·C[K_b − 1] − E·x[σ_1(b, h_2, π_1)]],  k = level_b(h_2)
    fold:      −φ[u·C[K_b − 1] − u·x[σ_1(b, h_2, π_1)]]

(eq. (2) of :mod:`lpgame.game.showdown_operator`: prefix sums over sorted strengths, with the
card-removal term; Johanson et al., IJCAI 2011, §4). Eliminating C gives back (LP) with the dense
U, so the optimum, x and the duals of ``best_response`` (player 2's realization plan y) are those of
the explicit LP. This is payoff-matrix sparsification, U = A·B with sparse factors (Zhang &
Sandholm, ICML 2020, "Sparsified linear programming for zero-sum equilibrium finding"): nonzeros
O(Σ_j #boards·n·#leaves_j) instead of O(Σ_j #boards·n²·#leaves_j), and with a suit-symmetric filter
#boards counts orbit representatives only (Rhode Island Hold'em: Gilpin & Sandholm, EC'06, solved
a lossy abstraction of 1,237,238 rows in 7 days on 64 GB).

The scale K ≈ 1/max_j(p_j·max_b w_b·(n − B_j)·max|u_j|), a power of two, makes the largest row's
payoff weight O(1); the game value is v[∅]/K, and scaling rows and v together leaves the duals unchanged.

Registered as the ``nash`` variant ``signal_operator`` (``lpgame.solve(game,
method="signal_operator")``, ``lpgame solve leduc_poker deal=cards --method signal_operator``):
the filter is GameShrink's sound one by default, the plans are lifted to the unfiltered game's
information sets, and the nonzeros are counted exactly before the build (:func:`count_nonzeros`),
so each stage's memory is predicted from the real size.

The certificate never builds a leaf: :meth:`~lpgame.game.showdown_operator.SignalPayoffOperator.nash_conv`
evaluates Uy and Uᵀx through the operator and best responses on the filter's treeplex.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from lpgame.game.showdown_operator import SignalPayoffOperator
from lpgame.limits import check_prediction, predict_lp_bytes
from lpgame.lp import solve_lp
from lpgame.lp.linear_program import LinearProgram


@dataclass
class OperatorLP:
    """The LP, its scale and the sizes (predicted before building, and built)."""

    lp: LinearProgram
    scale: float
    operator: SignalPayoffOperator
    sizes: dict = field(default_factory=dict)

    def value(self, objective: float) -> float:
        return float(objective) / self.scale


def _chains(op: SignalPayoffOperator):
    """Per round: the distinct π_1 ending at its leaves, whether a showdown follows each, and the
    offset of every (board, π_1) chain; the total number of chain variables."""
    out, total = [], 0
    for rd in op.rounds:
        pis = sorted(set(rd.leaf_seq[0]))
        index = {p: m for m, p in enumerate(pis)}
        showdown = np.zeros(len(pis), dtype=bool)
        for k, p in enumerate(rd.leaf_seq[0]):
            if not rd.fold[k]:
                showdown[index[p]] = True
        lengths = np.where(showdown[None, :], rd.num_levels[:, None], 1)      # nb × M
        offsets = total + np.concatenate([[0], np.cumsum(lengths.ravel())[:-1]]).reshape(
            lengths.shape)
        total += int(lengths.sum())
        out.append((pis, index, showdown, lengths, offsets))
    return out, total


def _index_dtype(*dims: int):
    """int32 indices where every dimension fits (half the triplet memory), else int64."""
    return np.int32 if max(dims) < 2 ** 31 - 1 else np.int64


def _round_triplets(op: SignalPayoffOperator, rd, chain, scale: float, dtype):
    """The coefficients of one round (with duplicates, summed when a matrix is formed):
    ``{"x": (rows, cols, values), "C": ..., "pick": ...}`` for the ``best_response`` rows' x and C
    parts and the x part of [cumulative]."""
    pis, index, showdown, lengths, offsets = chain
    b_idx, c_idx = np.nonzero(rd.valid)
    phi = scale * float(rd.probability) * rd.weights[b_idx].astype(float)
    seq1 = {p: op_seq(op, rd, 0, p)[b_idx, c_idx].astype(dtype) for p in pis}
    out = {"x": ([], [], []), "C": ([], [], []), "pick": ([], [], [])}

    def add(block, rows, cols, values):
        out[block][0].append(np.asarray(rows, dtype=dtype))
        out[block][1].append(np.asarray(cols, dtype=dtype))
        out[block][2].append(np.broadcast_to(np.asarray(values, dtype=float), np.shape(rows)))

    level_all = rd.level[b_idx, c_idx]
    for p, m in index.items():
        level = level_all if showdown[m] else 0
        add("pick", offsets[b_idx, m] + level, seq1[p], -1.0)
    has_below = level_all > 0
    for k in range(len(rd.leaves)):
        p1, p2 = rd.leaf_seq[0][k], rd.leaf_seq[1][k]
        m = index[p1]
        rows = op_seq(op, rd, 1, p2)[b_idx, c_idx]
        base = offsets[b_idx, m]
        last = base + lengths[b_idx, m] - 1
        W, Lo, E = (float(u) for u in rd.payoffs[k])
        if rd.fold[k]:
            add("C", rows, last, -phi * W)
            add("x", rows, seq1[p1], phi * W)
            continue
        add("C", rows[has_below], (base + level_all - 1)[has_below], (-phi * (Lo - E))[has_below])
        add("C", rows, base + level_all, -phi * (E - W))
        add("C", rows, last, -phi * W)
        if E != 0:
            add("x", rows, seq1[p1], phi * E)
    return {block: tuple(np.concatenate(part) if part else np.zeros(0, dtype=dtype)
                         for part in parts) for block, parts in out.items()}


def _scale(op: SignalPayoffOperator) -> float:
    """K of the module docstring: a power of two (so that dividing by it is exact) near
    1 / max_j(p_j · max_b w_b · (n − B_j) · max|u_j|), with max|u_j| the largest payoff of the
    round's leaves, so that payoffs of any magnitude (10^-12 or 10^12 chips) give rows of O(1)."""
    import math
    n = op.n
    largest = max(float(rd.probability) * float(rd.weights.max()) * (n - rd.boards.shape[1])
                  * max((abs(float(u)) for row in rd.payoffs for u in row), default=1.0)
                  for rd in op.rounds)
    return 2.0 ** -math.ceil(math.log2(largest)) if largest > 0 else 1.0


def predict_sizes(op: SignalPayoffOperator) -> dict:
    """Rows, columns and an upper bound on the nonzeros of the operator LP, from counts (nothing
    is built): every coefficient written, before duplicates are summed."""
    chains, num_chain = _chains(op)
    t1, t2 = op.treeplex(0), op.treeplex(1)
    payoff = 0
    chain_nnz = 0
    largest = 0
    for rd, (pis, _, _, lengths, _) in zip(op.rounds, chains):
        V = int(rd.valid.sum())
        here = V * (4 * int((~rd.fold).sum()) + 2 * int(rd.fold.sum()))
        payoff += here
        largest = max(largest, here + V * len(pis))
        chain_nnz += 2 * int(lengths.sum()) + V * len(pis)
    rows = t1.num_infosets + 1 + op.num_sequences[1] + num_chain
    cols = op.num_sequences[0] + t2.num_infosets + 1 + num_chain
    treeplex_nnz = op.num_sequences[0] + t1.num_infosets + op.num_sequences[1] + t2.num_infosets
    return {"rows": rows, "cols": cols, "nnz_at_most": treeplex_nnz + payoff + chain_nnz,
            "chain_variables": num_chain, "payoff_triplets": payoff,
            "largest_round_triplets": largest, "treeplex_nnz": treeplex_nnz,
            "sequences": list(op.num_sequences),
            "infosets": [t1.num_infosets, t2.num_infosets]}


BYTES_PER_COUNTED_TRIPLET = 48
"""Peak bytes per coefficient of the largest round while :func:`count_nonzeros` runs (int32
triplets and float values, int64 keys and their sorted copy)."""

BYTES_PER_BUILT_NONZERO = 36
"""Peak bytes per nonzero of the assembled LP while it is built (CSR blocks, one more copy while a
round is added, and the blocks stacked for the solver), measured on 12-card Rhode Island."""


CANCELLED = 1e-12
"""A summed coefficient at most this times its block's largest is a cancellation (−φ(L − E) and
−φ(E − W) of adjacent levels, in floating point) and is dropped, in the count and in the build."""


def _cancelled(values: np.ndarray) -> float:
    return CANCELLED * float(np.abs(values).max()) if len(values) else 0.0


def _summed(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct keys and the sum of the values of each (duplicates summed, as a matrix does)."""
    distinct, inverse = np.unique(keys, return_inverse=True)
    return distinct, np.bincount(inverse, weights=values, minlength=len(distinct))


def count_nonzeros(op: SignalPayoffOperator, memory_limit: int | None = None) -> dict:
    """The exact number of stored coefficients of the operator LP (:func:`predict_sizes` plus
    ``nnz``): the triplets are generated round by round as the build does, and the distinct
    (row, column) pairs counted with their summed coefficients (a showdown's −φ(L − E) and
    −φ(E − W) on one chain variable cancel when a class holds cards of adjacent levels), so the
    build's memory is predicted from its real size."""
    sizes = predict_sizes(op)
    check_prediction(f"counting the operator LP of {op.game.name}",
                     BYTES_PER_COUNTED_TRIPLET * sizes["largest_round_triplets"], memory_limit)
    chains, num_chain = _chains(op)
    m1, m2 = op.num_sequences
    dtype = _index_dtype(m1, m2, num_chain)
    scale = _scale(op)
    x_keys, x_sums = np.zeros(0, dtype=np.int64), np.zeros(0)
    counts = {"x": 0, "C": 0, "pick": 0}
    kept: dict = {"C": [], "pick": []}
    for rd, chain in zip(op.rounds, chains):
        t = _round_triplets(op, rd, chain, scale, dtype)
        for block, (r, c, d) in t.items():
            width = num_chain if block == "C" else m1
            keys, sums = _summed(r.astype(np.int64) * width + c, d)
            if block == "x":       # rows and columns are sequences: rounds may share pairs
                x_keys, x_sums = _summed(np.concatenate([x_keys, keys]),
                                         np.concatenate([x_sums, sums]))
            else:                  # chain rows or columns belong to one round
                kept[block].append(sums)
        del t
    kept["x"] = [x_sums]
    for block, parts in kept.items():
        sums = np.concatenate(parts) if parts else np.zeros(0)
        counts[block] = int(np.count_nonzero(np.abs(sums) > _cancelled(sums)))
    later = num_chain - sum(int(ch[3].size) for ch in chains)
    nnz = sizes["treeplex_nnz"] + counts["x"] + counts["C"] + counts["pick"] + num_chain + later
    sizes.update({"nnz": int(nnz), "nnz_blocks": {**counts, "chain": num_chain + later}})
    sizes["build_bytes"] = BYTES_PER_BUILT_NONZERO * sizes["nnz"] + \
        BYTES_PER_COUNTED_TRIPLET * sizes["largest_round_triplets"]
    sizes["solve_bytes"] = predict_lp_bytes(sizes["rows"], sizes["cols"], sizes["nnz"])
    return sizes


def operator_security_lp(op: SignalPayoffOperator, memory_limit: int | None = None,
                         sizes: dict | None = None) -> OperatorLP:
    """Build (LP) of the module docstring for the operator ``op`` (``sizes``: from
    :func:`count_nonzeros`, counted here when not given; the build is refused past the limit)."""
    sizes = dict(sizes) if sizes is not None else count_nonzeros(op, memory_limit)
    check_prediction(f"building the operator LP of {op.game.name} ({sizes['rows']} rows, "
                     f"{sizes['nnz']} nonzeros)", sizes["build_bytes"], memory_limit)
    chains, num_chain = _chains(op)
    scale = _scale(op)
    t1, t2 = op.treeplex(0), op.treeplex(1)
    m1, m2 = op.num_sequences
    dtype = _index_dtype(m1, m2, num_chain)
    lp = LinearProgram(name=f"security LP of player 1 in {op.game.name} (showdown operator)",
                       description="  max v[∅]  s.t.  F_1x = f_1,  F_2ᵀv − K·(cumulative-sum form of "
                       "Uᵀx) ≤ 0,  C[k] − C[k−1] − Σ_{level k} x = 0  (signal_operator_lp)")
    x = lp.add_variables("x", m1, lower=0.0)
    v = lp.add_variables("v", t2.num_infosets + 1, lower=-np.inf)
    C = lp.add_variables("C", num_chain, lower=-np.inf)
    F1 = t1.matrix()
    rhs1 = np.zeros(F1.shape[0])
    rhs1[0] = 1.0
    lp.add_constraints("treeplex", [(x, F1)], "==", rhs1)
    shapes = {"x": (m2, m1), "C": (m2, num_chain), "pick": (num_chain, m1)}
    blocks = {name: sp.csr_array(shape) for name, shape in shapes.items()}
    for rd, chain in zip(op.rounds, chains):
        t = _round_triplets(op, rd, chain, scale, dtype)
        for name, (r, c, d) in t.items():
            if len(r):
                part = sp.coo_array((d, (r, c)), shape=shapes[name]).tocsr()
                blocks[name] = blocks[name] + part if blocks[name].nnz else part
        del t
    for block in blocks.values():
        block.data[np.abs(block.data) <= _cancelled(block.data)] = 0.0
        block.eliminate_zeros()
    F2T = t2.matrix().T.tocsr()
    lp.add_constraints("best_response", [(v, F2T), (x, blocks.pop("x")), (C, blocks.pop("C"))],
                       "<=", np.zeros(m2))
    g = np.arange(num_chain)
    first = np.zeros(num_chain, dtype=bool)
    for _, _, _, _, offsets in chains:
        first[offsets.ravel()] = True
    later = g[~first]
    chain_part = sp.csr_array((np.concatenate([np.ones(num_chain), -np.ones(len(later))]),
                               (np.concatenate([g, later]), np.concatenate([g, later - 1]))),
                              shape=(num_chain, num_chain))
    lp.add_constraints("cumulative", [(C, chain_part), (x, blocks.pop("pick"))], "==",
                       np.zeros(num_chain))
    objective = np.zeros(v.size)
    objective[0] = 1.0
    lp.set_objective([(v, objective)], "max")
    sizes["built"] = lp.size()
    return OperatorLP(lp, scale, op, sizes)


def op_seq(op: SignalPayoffOperator, rd, player: int, seq) -> np.ndarray:
    """Sequence ids (boards × cards) of ``player``'s public sequence ``seq`` in round data ``rd``."""
    return rd.sequences(player, op.offsets, op.locals, seq)


@dataclass
class OperatorSolution:
    """Value, both plans (in the filter's sequence numbering) and the operator certificate."""

    value: float
    plans: list
    certificate: dict
    seconds: dict
    sizes: dict
    lp_solution: object = None
    lp: object = None


def payoff_range(op: SignalPayoffOperator) -> float:
    """Largest minus smallest payoff of player 1 over the leaves and outcomes."""
    values = [float(u) for rd in op.rounds for row in rd.payoffs for u in row]
    return max(values) - min(values)


def solve_signal_operator(op: SignalPayoffOperator, memory_limit: int | None = None,
                          **options) -> OperatorSolution:
    """Build and solve (LP) with HiGHS (``options`` go to :func:`lpgame.lp.solve_lp`), then
    certify the profile through the operator (module docstring)."""
    t0 = time.perf_counter()
    built = operator_security_lp(op, memory_limit)
    t1 = time.perf_counter()
    solution = solve_lp(built.lp, memory_limit=memory_limit, **options)
    t2 = time.perf_counter()
    x = np.clip(solution.values("x"), 0.0, None)
    y = np.clip(solution.duals("best_response"), 0.0, None)
    cert = op.nash_conv(x, y)
    cert["payoff_range"] = payoff_range(op)
    cert["relative_nash_conv"] = cert["nash_conv"] / cert["payoff_range"]
    t3 = time.perf_counter()
    return OperatorSolution(built.value(solution.objective), [x, y], cert,
                            {"build": t1 - t0, "solve": t2 - t1, "certify": t3 - t2},
                            built.sizes, solution, built.lp)


def lift_plan(op_filtered: SignalPayoffOperator, op_full: SignalPayoffOperator, player: int,
              plan: np.ndarray) -> np.ndarray:
    """A realization plan of the filtered game as one of the game itself (every view plays its
    class's strategy: x[(v, π)] = x_F[(class(v), π)])."""
    game = op_full.game
    out = np.empty(op_full.num_sequences[player])
    out[0] = plan[0]
    for j in range(len(game.rounds)):
        P = op_full.locals[player][j]
        classes = op_filtered.partition.view_class[player][j]
        views = np.arange(len(classes))
        for loc in range(P):
            full = 1 + op_full.offsets[player][j] + views * P + loc
            out[full] = plan[1 + op_filtered.offsets[player][j] + classes * P + loc]
    return out


# ------------------------------------------------------------------ the nash concept's variant
FILTERS = ("gameshrink", "suits", "none")


def infoset_labels(op: SignalPayoffOperator, player: int) -> tuple[list[str], list[tuple]]:
    """Labels and actions of ``player``'s information sets, in the order of its
    :class:`~lpgame.game.showdown_operator.Treeplex`, as
    :func:`lpgame.abstraction.compile.compile_ordered_game` writes them for the identity filter
    (round signals of the view, then the public history of each round), without any leaf."""
    game, views = op.game, op.views
    tree, sep = game.tree, game.label_separator
    labels, actions = [], []
    for j in range(len(game.rounds)):
        nodes = tree.decisions[j][player]
        if not nodes:
            continue
        V = views.num_views(player, j)
        chains = [op.partition.ancestor(player, j, np.arange(V), k) for k in range(j + 1)]
        texts = [[views.text(player, k, int(v)) for v in chains[k]] for k in range(j + 1)]
        histories = [[tree.history_text(q, k) for k in range(j + 1)] for q in nodes]
        for q, hist in zip(nodes, histories):      # the treeplex's order: node, then view
            for v in range(V):
                label = texts[0][v]
                for k in range(j + 1):
                    if k > 0:
                        label += sep + texts[k][v]
                    if hist[k]:
                        label += (sep if k == 0 else " ") + hist[k]
                labels.append(label)
                actions.append(tree.nodes[q].actions)
    return labels, actions


def behaviour_and_plan(treeplex, plan: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(behaviour, the plan rebuilt from it, unreached information sets) of a realization plan:
    b(a | I) = x[Ia] / x[parent(I)], uniform where x[parent(I)] = 0 (what is returned is what is
    certified)."""
    H = treeplex.num_infosets
    seqs = np.repeat(treeplex.first, treeplex.count) + _ranges(treeplex.count)
    owner = np.repeat(np.arange(H), treeplex.count)
    plan = np.clip(np.asarray(plan, dtype=float), 0.0, None)
    mass = np.bincount(owner, weights=plan[seqs], minlength=H)
    reached = mass > 0
    behaviour = np.zeros_like(plan)
    behaviour[seqs] = np.where(reached[owner], plan[seqs] / np.where(mass > 0, mass, 1)[owner],
                               1.0 / treeplex.count[owner])
    rebuilt = np.zeros_like(plan)
    rebuilt[0] = 1.0
    for d in sorted(set(treeplex.depth.tolist())):
        at = np.flatnonzero(treeplex.depth[owner] == d)
        rebuilt[seqs[at]] = behaviour[seqs[at]] * rebuilt[treeplex.parent[owner[at]]]
    unreached = np.flatnonzero(rebuilt[treeplex.parent] == 0)
    return behaviour, rebuilt, unreached


def _ranges(counts: np.ndarray) -> np.ndarray:
    ends = np.cumsum(counts)
    return np.arange(int(ends[-1]) if len(ends) else 0) - np.repeat(ends - counts, counts)


def signal_operator(game, operator_filter: str = "gameshrink", memory_limit: int | None = None,
                    method: str = "signal_operator") -> tuple[SignalPayoffOperator, object]:
    """The operator of ``game`` (anything :func:`lpgame.abstraction.solve.as_ordered_game`
    accepts) on the chosen filter, with the deck's suit group where the game and filter are
    invariant under it (boards by orbit), and the explicit game passed in (or None). ``method``
    is the method the user chose, named when the game is refused."""
    from lpgame.abstraction.gameshrink import gameshrink
    from lpgame.abstraction.solve import as_ordered_game
    from lpgame.errors import InvalidGameError, OptionError
    from lpgame.game.showdown_operator import check_supported, suit_partition, suit_permutations

    if operator_filter not in FILTERS:
        raise OptionError(f"unknown operator_filter {operator_filter!r}; choose one of "
                          f"{', '.join(FILTERS)}")
    try:
        ordered, explicit = as_ordered_game(game)
        check_supported(ordered)
    except InvalidGameError as exc:
        raise InvalidGameError(f"method={method!r} solves two-player ordered-signal games "
                               f"with one private card each (kuhn_poker, one_card_poker, "
                               f"leduc_poker, rhode_island_holdem): {exc}") from None
    n = len(ordered.signals)
    partition = gameshrink(ordered).partition if operator_filter == "gameshrink" else None
    if operator_filter != "none":
        for suits in sorted((s for s in range(2, n + 1) if n % s == 0), reverse=True):
            if suits > 4:        # the group has suits! elements: 12 cards as 12 suits are 12!
                continue
            group = suit_permutations(n // suits, suits)
            try:
                part = suit_partition(ordered, group) if operator_filter == "suits" else partition
                return SignalPayoffOperator(ordered, part, group, memory_limit), explicit
            except InvalidGameError:
                continue         # not invariant under this grouping of the deck
    return SignalPayoffOperator(ordered, partition, None, memory_limit), explicit


def lifted_profile(op: SignalPayoffOperator, full: SignalPayoffOperator, filtered_plans
                   ) -> tuple[list, list[dict], list[list[str]]]:
    """Both plans of the filter ``op`` lifted to the game's own operator ``full`` (:func:`lift_plan`,
    then :func:`behaviour_and_plan`): (plans, behaviour strategies by information-set label,
    unreached information sets)."""
    plans, strategies, unreached = [], [], []
    for i in range(2):
        lifted = filtered_plans[i] if full is op else lift_plan(op, full, i, filtered_plans[i])
        behaviour, plan, missed = behaviour_and_plan(full.treeplex(i), lifted)
        labels, actions = infoset_labels(full, i)
        tp = full.treeplex(i)
        strategies.append({label: dict(zip(acts, behaviour[tp.first[h]:tp.first[h] + tp.count[h]]
                                           .tolist()))
                           for h, (label, acts) in enumerate(zip(labels, actions))})
        unreached.append([labels[h] for h in missed.tolist()])
        plans.append(plan)
    return plans, strategies, unreached


def solve_nash_signal_operator(game, *, exact: bool = False, backend: str = "highs",
                               method: str = "signal_operator",
                               operator_filter: str = "gameshrink", **options):
    """``lpgame.solve(game, method="signal_operator")``: the value and an equilibrium of an
    ordered-signal game with public cards through (LP) of the module docstring, never building a
    leaf; the plans are lifted to the game's own information sets and certified there by the
    operator's best responses on the unfiltered game (NashConv, relative to the payoff range)."""
    from lpgame.equilibria.profiles import relative
    from lpgame.lp.solution import solver_report
    from lpgame.result import Certificate, Result

    start = time.perf_counter()
    memory_limit = options.pop("memory_limit", None)
    op, explicit = signal_operator(game, operator_filter, memory_limit)
    full = op if operator_filter == "none" else SignalPayoffOperator(op.game, None, None,
                                                                     memory_limit)
    built = time.perf_counter()
    solved = solve_signal_operator(op, memory_limit, **options)
    plans, strategies, unreached = lifted_profile(op, full, solved.plans)
    cert = full.nash_conv(*plans)
    spread = payoff_range(full)
    certificate = Certificate(cert["nash_conv"], cert["nash_conv"] / 2, list(cert["gains"]),
                              deviations="best responses of each player in the unfiltered game, "
                              "through the showdown operator (lpgame.game.showdown_operator)")
    certificate.extra.update({"payoff_range": spread,
                              "relative_nash_conv": relative(cert["nash_conv"], spread),
                              "filtered_nash_conv": solved.certificate["nash_conv"]})
    name = getattr(explicit, "name", None) or op.game.name
    seconds = {"operator": built - start, **solved.seconds, "total": time.perf_counter() - start}
    return Result(game=name, concept="nash", variant="signal_operator", value=cert["value"],
                  values=[cert["value"], -cert["value"]], strategies=strategies,
                  certificate=certificate, size=solved.sizes["built"], seconds=seconds,
                  backend=backend, exact=False, unreached=unreached, plans=plans,
                  lp=solved.lp,
                  extra={"lp_objective": solved.value, "operator_filter": operator_filter,
                         "boards": [len(rd.boards) for rd in op.rounds],
                         "operator_lp": {k: v for k, v in solved.sizes.items() if k != "built"}},
                  solver=solver_report(solved.lp_solution, False))


def _register() -> None:
    from lpgame.registry import Concept, Option, register

    register(Concept(
        name="nash", variant="signal_operator", games=("zero_sum",),
        solve=solve_nash_signal_operator, requires=("method=signal_operator",), exact=False,
        backends=("highs",), reads_source=True,
        summary="Nash equilibrium of an ordered-signal poker game (Leduc, Rhode Island Hold'em) by "
                "the sequence-form LP with its showdown payoffs through sorted-strength prefix "
                "sums: no leaf is built",
        certificate="each player's best-response gain in the unfiltered game (NashConv), through "
                    "the showdown operator",
        source="Koller, Megiddo & von Stengel 1996; Johanson et al. IJCAI 2011 §4; Zhang & "
               "Sandholm ICML 2020; Gilpin & Sandholm EC'06 (GameShrink)",
        options=(Option("method", str, None, "signal_operator: the LP through the showdown "
                        "operator (ordered-signal games; never expands the tree)",
                        choices=("signal_operator",)),
                 Option("operator_filter", str, "gameshrink", "signal_operator: gameshrink (the "
                        "sound filter and the suit group), suits (suit orbits) or none",
                        choices=FILTERS))))


_register()


__all__ = ["operator_security_lp", "solve_signal_operator", "predict_sizes", "OperatorLP",
           "OperatorSolution", "lift_plan", "payoff_range", "count_nonzeros",
           "solve_nash_signal_operator", "signal_operator", "infoset_labels", "behaviour_and_plan",
           "lifted_profile"]
