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

The scale K = 1/max_j(p_j·max_b w_b·(n − B_j)) makes the largest row's payoff weight O(1); the
game value is v[∅]/K, and scaling rows and v together leaves the duals unchanged.

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

BYTES_PER_TRIPLET = 24 * 3
"""Transient bytes per coefficient while the payoff block is assembled (COO arrays and the CSR)."""


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


def predict_sizes(op: SignalPayoffOperator) -> dict:
    """Rows, columns and nonzeros of the operator LP, from counts (nothing is built)."""
    chains, num_chain = _chains(op)
    t1, t2 = op.treeplex(0), op.treeplex(1)
    payoff = 0
    chain_nnz = 0
    for rd, (pis, _, _, lengths, _) in zip(op.rounds, chains):
        V = int(rd.valid.sum())
        payoff += V * (4 * int((~rd.fold).sum()) + 2 * int(rd.fold.sum()))
        chain_nnz += 2 * int(lengths.sum()) + V * len(pis)
    rows = t1.num_infosets + 1 + op.num_sequences[1] + num_chain
    cols = op.num_sequences[0] + t2.num_infosets + 1 + num_chain
    F_nnz = 1 + 2 * t1.num_infosets + op.num_sequences[0] + 1 + 2 * t2.num_infosets + \
        op.num_sequences[1]
    return {"rows": rows, "cols": cols, "nnz_at_most": F_nnz + payoff + chain_nnz,
            "chain_variables": num_chain, "payoff_triplets": payoff,
            "sequences": list(op.num_sequences),
            "infosets": [t1.num_infosets, t2.num_infosets]}


def operator_security_lp(op: SignalPayoffOperator, memory_limit: int | None = None) -> OperatorLP:
    """Build (LP) of the module docstring for the operator ``op``."""
    sizes = predict_sizes(op)
    check_prediction(f"the operator LP of {op.game.name} ({sizes['rows']} rows, "
                     f"{sizes['nnz_at_most']} nonzeros)",
                     predict_lp_bytes(sizes["rows"], sizes["cols"], sizes["nnz_at_most"])
                     + BYTES_PER_TRIPLET * sizes["payoff_triplets"], memory_limit)
    chains, num_chain = _chains(op)
    n = op.n
    scale = 1.0 / max(float(rd.probability) * float(rd.weights.max()) * (n - rd.boards.shape[1])
                      for rd in op.rounds)
    t1, t2 = op.treeplex(0), op.treeplex(1)
    m1, m2 = op.num_sequences
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
    on_x = sp.csr_array((m2, m1))
    on_C = sp.csr_array((m2, num_chain))
    cum_rows, cum_cols, cum_vals = [], [], []       # the x-part of [cumulative]
    for rd, (pis, index, showdown, lengths, offsets) in zip(op.rounds, chains):
        b_idx, c_idx = np.nonzero(rd.valid)
        phi = scale * float(rd.probability) * rd.weights[b_idx].astype(float)
        seq1 = {p: op_seq(op, rd, 0, p)[b_idx, c_idx] for p in pis}
        for p, m in index.items():
            level = rd.level[b_idx, c_idx] if showdown[m] else np.zeros(len(b_idx), dtype=np.int64)
            cum_rows.append(offsets[b_idx, m] + level)
            cum_cols.append(seq1[p])
            cum_vals.append(-np.ones(len(b_idx)))
        rx, cx, dx, rc, cc, dc = [], [], [], [], [], []
        for k in range(len(rd.leaves)):
            p1, p2 = rd.leaf_seq[0][k], rd.leaf_seq[1][k]
            m = index[p1]
            rows = op_seq(op, rd, 1, p2)[b_idx, c_idx]
            base = offsets[b_idx, m]
            last = base + lengths[b_idx, m] - 1
            W, Lo, E = (float(u) for u in rd.payoffs[k])
            if rd.fold[k]:
                rc.append(rows)
                cc.append(last)
                dc.append(-phi * W)
                rx.append(rows)
                cx.append(seq1[p1])
                dx.append(phi * W)
                continue
            level = rd.level[b_idx, c_idx]
            has_below = level > 0
            rc += [rows[has_below], rows, rows]
            cc += [(base + level - 1)[has_below], base + level, last]
            dc += [(-phi * (Lo - E))[has_below], -phi * (E - W), -phi * W]
            if E != 0:
                rx.append(rows)
                cx.append(seq1[p1])
                dx.append(phi * E)
        if rx:
            on_x = on_x + sp.csr_array((np.concatenate(dx), (np.concatenate(rx),
                                        np.concatenate(cx))), shape=(m2, m1))
        on_C = on_C + sp.csr_array((np.concatenate(dc), (np.concatenate(rc), np.concatenate(cc))),
                                   shape=(m2, num_chain))
        del rx, cx, dx, rc, cc, dc
    on_C.eliminate_zeros()
    on_x.eliminate_zeros()
    F2T = t2.matrix().T.tocsr()
    lp.add_constraints("best_response", [(v, F2T), (x, on_x), (C, on_C)], "<=", np.zeros(m2))
    del on_x, on_C
    g = np.arange(num_chain)
    first = np.zeros(num_chain, dtype=bool)
    for _, _, _, _, offsets in chains:
        first[offsets.ravel()] = True
    later = g[~first]
    chain_part = sp.csr_array((np.concatenate([np.ones(num_chain), -np.ones(len(later))]),
                               (np.concatenate([g, later]), np.concatenate([g, later - 1]))),
                              shape=(num_chain, num_chain))
    pick = sp.csr_array((np.concatenate(cum_vals), (np.concatenate(cum_rows),
                                                     np.concatenate(cum_cols))),
                        shape=(num_chain, m1))
    lp.add_constraints("cumulative", [(C, chain_part), (x, pick)], "==", np.zeros(num_chain))
    objective = np.zeros(v.size)
    objective[0] = 1.0
    lp.set_objective([(v, objective)], "max")
    built = lp.size()
    sizes.update({"built": built})
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
                            built.sizes, solution)


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


__all__ = ["operator_security_lp", "solve_signal_operator", "predict_sizes", "OperatorLP",
           "OperatorSolution", "lift_plan", "payoff_range"]
