"""The payoff operator of an ordered-signal game with public cards, applied without its leaves.

Setting: a two-player game with ordered signals (:mod:`lpgame.abstraction.ordered_game`; Gilpin &
Sandholm, EC'06, Definition 1) with a uniform deck, in which each player gets exactly one private
card, in the first round, and public cards are dealt in any round (Kuhn/OCP, Leduc, Rhode Island
Hold'em). An information filter F (:class:`~lpgame.abstraction.views.ViewPartition`; the identity
gives the game itself) numbers player i's sequences as in :mod:`lpgame.abstraction.compile`:
σ = (class of i's view at round j, public sequence of i in round j).

**The matrix.** A public leaf ℓ of round j with board b (the public cards dealt through round j,
|b| = B_j) and private cards h_1 ≠ h_2 ∉ b is reached by exactly one deal, of probability
p_j = 1/(n)_{D_j} (D_j cards dealt by then, (n)_k the falling factorial). Player 1's payoff is
u_ℓ(W), u_ℓ(L) or u_ℓ(E) when s(b, h_1) >, <, = s(b, h_2) (s the strength; a fold pays the same in
all three). With σ_i(b, h, ℓ) player i's last sequence before ℓ (class of the view (b, h) at the
round of that sequence), the sequence-form matrix (Koller, Megiddo & von Stengel 1996) is

    U[σ_1, σ_2] = Σ_j p_j Σ_{ℓ ∈ leaves_j} Σ_b Σ_{h_1 ≠ h_2 ∉ b} u_ℓ(cmp(s(b,h_1), s(b,h_2)))
                  [σ_1 = σ_1(b,h_1,ℓ)] [σ_2 = σ_2(b,h_2,ℓ)].                                   (1)

A filter's matrix is the same sum with classes in place of views: it is M_1ᵀ U M_2 (M_i the view →
class membership), which is what :mod:`lpgame.abstraction.compile` stores as chance weight ×
averaged payoff.

**The operator (Johanson, Waugh, Bowling & Zinkevich, IJCAI 2011, §4: showdown evaluation in
O(n log n) by sorted hand strength).** Fix (j, ℓ, b) and let X[h] = x[σ_1(b, h, ℓ)]. Number the
distinct strengths of the cards h ∉ b in increasing order (levels 0..K_b − 1) and let
C[k] = Σ_{h: level(h) ≤ k} X[h] (cumulative sums; C[−1] = 0). For every h_2 ∉ b

    Σ_{h_1 ≠ h_2} u(cmp(h_1, h_2)) X[h_1]
        = (L − E)·C[k−1] + (E − W)·C[k] + W·C[K_b−1] − E·X[h_2],   k = level(h_2)          (2)

(the −E·X[h_2] term is the card-removal correction: player 1 cannot hold h_2), and for a fold
u·(C[K_b − 1] − X[h_2]). The transpose is the same with the roles swapped (W ↔ L). So Uᵀx and Uy
cost O(n) per (leaf, board) after one sort per board, instead of O(n²) pairs.

**Symmetry.** If a group G of card permutations (suits) leaves the strength and the filter's classes
invariant (``symmetry``; checked), the terms of (1) for boards b and g·b are equal after relabelling
the hands, so Σ_b runs over one representative per orbit with weight |orbit|; with the suit-orbit
filter (:func:`suit_partition`) this is lossless by symmetry (a G-invariant maximin strategy exists:
average any one over G), and it shrinks Rhode Island Hold'em's boards from 2,652 to 325.

This module applies the operator (floats, or Fractions for exact checks) and holds the per-round
data (:class:`RoundData`) that the sparsified LP of
:mod:`lpgame.equilibria.zero_sum.signal_operator_lp` writes as auxiliary variables C (Zhang &
Sandholm, ICML 2020, "Sparsified linear programming for zero-sum equilibrium finding": U is
replaced by a product of sparse factors). Best responses through the operator (:meth:`best_response_value`)
use the treeplex of the filtered game (:class:`Treeplex`) and never build a leaf.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from lpgame.abstraction.compile import view_index
from lpgame.abstraction.signal_rules import LOSE, TIE, WIN, OrderedSignalRules
from lpgame.abstraction.views import ViewPartition, encode_rows
from lpgame.errors import InvalidGameError
from lpgame.limits import check_prediction


def check_supported(game: OrderedSignalRules) -> None:
    """Raise :class:`InvalidGameError` unless the operator applies (module docstring)."""
    private = [rnd.private for rnd in game.rounds]
    if private[0] != 1 or any(private[1:]):
        raise InvalidGameError(f"{game.name}: the payoff operator needs one private card per "
                               f"player dealt in the first round; the rounds deal {private}")
    if np.any(game.weights != game.weights[0]):
        raise InvalidGameError(f"{game.name}: the payoff operator needs a uniform deck")


def suit_permutations(ranks: int, suits: int) -> list[np.ndarray]:
    """All permutations of the suits of a deck numbered card = rank·suits + suit."""
    out = []
    for perm in itertools.permutations(range(suits)):
        out.append(np.array([r * suits + perm[s] for r in range(ranks) for s in range(suits)],
                            dtype=np.int64))
    return out


def suit_partition(game: OrderedSignalRules, group: list[np.ndarray]) -> ViewPartition:
    """The filter whose classes are the orbits of the views under ``group`` (module docstring)."""
    views = view_index(game)
    n = len(game.signals)
    labels = [[None] * len(game.rounds) for _ in range(2)]
    for i in range(2):
        for j in range(len(game.rounds)):
            rows = views.rows[i][j].astype(np.int64)
            labels[i][j] = np.min([encode_rows(g[rows], n) for g in group], axis=0)
    return ViewPartition.from_labels(views, labels)


@dataclass
class RoundData:
    """Per round j with leaves: boards (representatives), their weights, the leaves and the
    per-(board, card) data of (1)–(2).

    ``classes[i][jj]`` (nb × n) is the class of player i's view at round jj ≤ j for board b and
    private card c (−1 where c ∈ b); ``level`` (nb × n) the strength level of c under b (−1 where
    c ∈ b), ``num_levels`` (nb); ``leaf_seq[i]`` per leaf (round, local) of i's last public sequence
    or (−1, −1); ``payoffs`` L × 3 (W, L, E for player 1) as Fractions; ``fold`` per leaf.
    """

    round: int
    boards: np.ndarray
    weights: np.ndarray
    probability: Fraction
    valid: np.ndarray
    classes: list
    level: np.ndarray
    num_levels: np.ndarray
    leaves: list
    leaf_seq: list
    payoffs: list
    fold: np.ndarray

    def sequences(self, player: int, offsets, locals_, seq) -> np.ndarray:
        """Sequence ids (nb × n) of ``player`` for the public sequence ``seq`` = (round, local)."""
        jj, loc = seq
        if jj < 0:
            return np.zeros(self.valid.shape, dtype=np.int64)
        cls = self.classes[player][jj]
        return np.where(self.valid, 1 + offsets[player][jj] + cls * locals_[player][jj] + loc, 0)


class Treeplex:
    """The treeplex of a filtered ordered game, from counts (no labels, no leaves): information
    sets (class c, public node q) with their first sequence, action count, parent and depth."""

    def __init__(self, game: OrderedSignalRules, partition: ViewPartition, player: int,
                 offsets, locals_):
        tree = game.tree
        first, count, parent, depth = [], [], [], []
        for j in range(len(game.rounds)):
            nodes = tree.decisions[j][player]
            C = partition.num_classes(player, j)
            for q in nodes:
                c = np.arange(C)
                first.append(1 + offsets[player][j] + c * locals_[player][j] + tree.first_local[q])
                count.append(np.full(C, len(tree.nodes[q].actions)))
                pj, ps = tree.parent_seq[q]
                if pj < 0:
                    parent.append(np.zeros(C, dtype=np.int64))
                else:
                    anc = partition.ancestor(player, j, c, pj)
                    parent.append(1 + offsets[player][pj] + anc * locals_[player][pj] + ps)
                depth.append(np.full(C, tree.own_depth[q]))
        self.first = np.concatenate(first).astype(np.int64)
        self.count = np.concatenate(count).astype(np.int64)
        self.parent = np.concatenate(parent).astype(np.int64)
        self.depth = np.concatenate(depth).astype(np.int64)
        self.num_sequences = int(1 + offsets[player][-1])

    @property
    def num_infosets(self) -> int:
        return len(self.first)

    def matrix(self) -> sp.csr_array:
        """F: row 0 is x[∅] = 1, row 1 + I is Σ_a x[Ia] − x[parent(I)] = 0."""
        H = self.num_infosets
        own_rows = np.repeat(np.arange(1, H + 1), self.count)
        own_cols = np.repeat(self.first, self.count) + _ranges(self.count)
        rows = np.concatenate([[0], own_rows, np.arange(1, H + 1)])
        cols = np.concatenate([[0], own_cols, self.parent])
        data = np.concatenate([[1.0], np.ones(len(own_rows)), -np.ones(H)])
        return sp.csr_array((data, (rows, cols)), shape=(H + 1, self.num_sequences))

    def best_response_value(self, g: np.ndarray) -> float:
        """max over the treeplex of Σ x[σ] g[σ] (bottom-up recursion; cf.
        :func:`lpgame.analysis.best_response.best_response_to_payoffs`)."""
        total = np.array(g, dtype=float)
        for d in sorted(set(self.depth.tolist()), reverse=True):
            at = np.flatnonzero(self.depth == d)
            seqs = np.repeat(self.first[at], self.count[at]) + _ranges(self.count[at])
            starts = np.concatenate([[0], np.cumsum(self.count[at])[:-1]])
            best = np.maximum.reduceat(total[seqs], starts)
            np.add.at(total, self.parent[at], best)
        return float(total[0])


def _ordered_tuples(n: int, size: int) -> np.ndarray:
    """Every ordered tuple of ``size`` distinct cards of ``n`` (lexicographic), as rows."""
    return np.array(list(itertools.permutations(range(n), size)),
                    dtype=np.int64).reshape(math.perm(n, size), size)


def _ranges(counts: np.ndarray) -> np.ndarray:
    """0..k−1 for every k in ``counts``, concatenated."""
    ends = np.cumsum(counts)
    return np.arange(int(ends[-1]) if len(ends) else 0) - np.repeat(ends - counts, counts)


class SignalPayoffOperator:
    """U of (1) for ``game`` filtered by ``partition`` (identity when None), applied by (2).

    ``symmetry``: card permutations forming a group under which the strength and the partition are
    invariant (checked); boards are then orbit representatives with their orbit sizes as weights.
    """

    def __init__(self, game: OrderedSignalRules, partition: ViewPartition | None = None,
                 symmetry: list[np.ndarray] | None = None, memory_limit: int | None = None):
        check_supported(game)
        self.game = game
        self.views = view_index(game)
        self.partition = partition if partition is not None else ViewPartition.identity(self.views)
        self.symmetry = [np.asarray(g, dtype=np.int64) for g in (symmetry or [])]
        self.n = len(game.signals)
        tree = game.tree
        r = len(game.rounds)
        counts = self.partition.counts()
        self.locals = [[tree.num_local[j][i] for j in range(r)] for i in range(2)]
        self.offsets = [np.concatenate([[0], np.cumsum([counts[i][j] * self.locals[i][j]
                                                        for j in range(r)])]).astype(np.int64)
                        for i in range(2)]
        self.num_sequences = [int(1 + self.offsets[i][-1]) for i in range(2)]
        self.public_levels = [k for k in range(game.depth) if game.level_owner[k] == -1]
        self.private_level = [game.level_owner.index(i) for i in range(2)]
        if self.symmetry:
            self._check_symmetry()
        self.rounds: list[RoundData] = []
        for j in range(r):
            if tree.leaves[j]:
                self.rounds.append(self._round(j, memory_limit))
        self._treeplex: list[Treeplex | None] = [None, None]

    # ------------------------------------------------------------------ construction
    def _boards(self, j: int) -> tuple[np.ndarray, np.ndarray]:
        depth = self.game.round_end_depth[j]
        B = sum(1 for k in self.public_levels if k < depth)
        n = self.n
        check_prediction(f"the {math.perm(n, B)} boards of round {j + 1} of {self.game.name}",
                         math.perm(n, B) * (B + 2) * 8 * max(1, len(self.symmetry)))
        boards = _ordered_tuples(n, B)
        if not self.symmetry or B == 0:
            return boards, np.ones(len(boards), dtype=np.int64)
        keys = np.min([encode_rows(g[boards], n) for g in self.symmetry], axis=0)
        own = encode_rows(boards, n)
        canonical, weight = np.unique(keys, return_counts=True)
        rep = np.isin(own, canonical)        # the orbit member whose key is the orbit's minimum
        order = np.argsort(own[rep])
        reps = boards[rep][order]
        return reps, weight[np.searchsorted(canonical, own[rep][order])]

    def _fake_deals(self, boards: np.ndarray, player: int, depth: int) -> np.ndarray:
        """(nb·n) × depth deal rows with the board at the public levels and card c at ``player``'s
        private level (other levels 0: views never read them)."""
        nb, n = len(boards), self.n
        deals = np.zeros((nb * n, depth), dtype=np.int64)
        for k, level in enumerate(lv for lv in self.public_levels if lv < depth):
            deals[:, level] = np.repeat(boards[:, k], n)
        deals[:, self.private_level[player]] = np.tile(np.arange(n), nb)
        return deals

    def _strengths(self, boards: np.ndarray) -> np.ndarray:
        nb, n = len(boards), self.n
        public = np.repeat(boards, n, axis=0)
        private = np.tile(np.arange(n), nb)[:, None]
        return np.asarray(self.game.strength(public, private), dtype=np.int64).reshape(nb, n)

    def _round(self, j: int, memory_limit) -> RoundData:
        game, n = self.game, self.n
        boards, weights = self._boards(j)
        nb = len(boards)
        L = len(game.tree.leaves[j])
        check_prediction(f"the operator data of round {j + 1} of {game.name} ({nb} boards)",
                         nb * n * (8 * (j + 4) * 2 + 16) + L * 64, memory_limit)
        valid = np.ones((nb, n), dtype=bool)
        for k in range(boards.shape[1]):
            valid[np.arange(nb), boards[:, k]] = False
        depth = game.round_end_depth[j]
        classes = [[None] * (j + 1) for _ in range(2)]
        for i in range(2):
            deals = self._fake_deals(boards, i, depth)
            for jj in range(j + 1):
                view = self.views.views_of(i, jj, deals[:, :game.round_end_depth[jj]])
                view = np.minimum(view, self.views.num_views(i, jj) - 1)
                cls = self.partition.view_class[i][jj][view].reshape(nb, n)
                classes[i][jj] = np.where(valid, cls, -1)
        level = np.full((nb, n), -1, dtype=np.int64)
        num_levels = np.ones(nb, dtype=np.int64)
        if j == len(game.rounds) - 1:       # showdowns happen after the last round only
            s = self._strengths(boards)
            big = np.where(valid, s, np.iinfo(np.int64).max)
            srt = np.sort(big, axis=1)
            new = np.ones((nb, n), dtype=bool)
            new[:, 1:] = srt[:, 1:] != srt[:, :-1]
            distinct_rank = np.cumsum(new, axis=1) - 1           # level of each sorted position
            pos = np.argsort(big, axis=1, kind="stable")
            level[np.arange(nb)[:, None], pos] = distinct_rank
            level[~valid] = -1
            num_levels = level.max(axis=1) + 1
        leaves = list(game.tree.leaves[j])
        leaf_seq = [[game.tree.nodes[q].last_seq[i] for q in leaves] for i in range(2)]
        payoffs = [tuple(Fraction(u) for u in game.tree.leaf_payoffs(q)) for q in leaves]
        fold = np.array([game.tree.nodes[q].folded >= 0 for q in leaves])
        return RoundData(j, boards, weights, Fraction(1, math.perm(n, depth)), valid, classes, level,
                         num_levels, leaves, leaf_seq, payoffs, fold)

    def _check_symmetry(self) -> None:
        """Every g in the group keeps each view's class and the strength of every (board, card)."""
        game, views, n = self.game, self.views, self.n
        for i in range(2):
            for j in range(len(game.rounds)):
                rows = views.rows[i][j].astype(np.int64)
                depth = game.round_end_depth[j]
                cls = self.partition.view_class[i][j]
                for g in self.symmetry:
                    deals = np.zeros((len(rows), depth), dtype=np.int64)
                    deals[:, views.columns[i][j]] = g[rows]
                    if not np.array_equal(cls[views.views_of(i, j, deals)], cls):
                        raise InvalidGameError(f"{game.name}: the partition's classes of player "
                                               f"{i + 1}, round {j + 1} are not invariant under "
                                               "the given symmetry")
        B = len(self.public_levels)
        boards = _ordered_tuples(n, B)
        s = self._strengths(boards)
        for g in self.symmetry:
            moved = self._strengths(g[boards])[:, g]   # s(g·b, g·c) at column c
            keep = np.ones_like(s, dtype=bool)
            for k in range(B):
                keep[np.arange(len(boards)), boards[:, k]] = False
            if not np.array_equal(np.where(keep, moved, 0), np.where(keep, s, 0)):
                raise InvalidGameError(f"{game.name}: the strength is not invariant under the "
                                       "given symmetry")

    # ------------------------------------------------------------------ products
    def treeplex(self, player: int) -> Treeplex:
        if self._treeplex[player] is None:
            self._treeplex[player] = Treeplex(self.game, self.partition, player, self.offsets,
                                              self.locals)
        return self._treeplex[player]

    def sequence_payoffs(self, responder: int, plan) -> np.ndarray:
        """Player 1's payoff per sequence of ``responder`` against the other player's ``plan``:
        U·y for responder 0, Uᵀ·x for responder 1, by (2). A plan of Fractions (object array)
        gives an exact result (object array of Fractions)."""
        other = 1 - responder
        plan = np.asarray(plan)
        exact = plan.dtype == object
        out = (np.array([Fraction(0)] * self.num_sequences[responder], dtype=object) if exact
               else np.zeros(self.num_sequences[responder]))
        where: list = []
        amounts: list = []
        for rd in self.rounds:
            nb, n = rd.valid.shape
            scale = rd.weights * rd.probability if exact else rd.weights * float(rd.probability)
            for k in range(len(rd.leaves)):
                X = plan[rd.sequences(other, self.offsets, self.locals, rd.leaf_seq[other][k])]
                X = np.where(rd.valid, X, Fraction(0) if exact else 0.0)
                W, Lo, E = rd.payoffs[k]
                if not exact:
                    W, Lo, E = float(W), float(Lo), float(E)
                if rd.fold[k]:
                    value = W * (X.sum(axis=1)[:, None] - X)
                else:
                    K = int(rd.num_levels.max())
                    sums = np.zeros((nb, K), dtype=object if exact else float)
                    if exact:
                        sums[:] = Fraction(0)
                    rows = np.nonzero(rd.valid)
                    if exact:
                        np.add.at(sums, (rows[0], rd.level[rows]), X[rows])
                    else:           # the same sums in one bincount
                        sums = np.bincount(rows[0] * K + rd.level[rows], weights=X[rows],
                                           minlength=nb * K).reshape(nb, K)
                    C = np.cumsum(sums, axis=1)
                    lvl = np.maximum(rd.level, 0)
                    at = np.take_along_axis(C, lvl, axis=1)
                    before = np.where(rd.level > 0,
                                      np.take_along_axis(C, np.maximum(lvl - 1, 0), axis=1), 0)
                    total = C[:, -1][:, None]
                    if responder == 1:      # rows h_2: player 1 holds the other card, (2)
                        value = (Lo - E) * before + (E - W) * at + W * total - E * X
                    else:                   # rows h_1: W ↔ L
                        value = (W - E) * before + (E - Lo) * at + Lo * total - E * X
                value = np.where(rd.valid, value * scale[:, None], 0)
                seqs = rd.sequences(responder, self.offsets, self.locals,
                                    rd.leaf_seq[responder][k])
                if exact:
                    np.add.at(out, seqs[rd.valid], value[rd.valid])
                else:
                    where.append(seqs[rd.valid])
                    amounts.append(value[rd.valid])
            if where:                # the round's contributions, summed in one bincount
                out += np.bincount(np.concatenate(where), weights=np.concatenate(amounts),
                                   minlength=len(out))
                where, amounts = [], []
        return out

    def expected_payoff(self, x, y) -> float:
        """u_1(x, y) = xᵀ U y."""
        return float(np.dot(np.asarray(x, dtype=float), self.sequence_payoffs(0, y)))

    def nash_conv(self, x, y) -> dict:
        """Both players' best-response gains through the operator: BR_1(y) − u and u − min_x' …"""
        u = self.expected_payoff(x, y)
        best1 = self.treeplex(0).best_response_value(self.sequence_payoffs(0, y))
        best2 = -self.treeplex(1).best_response_value(-self.sequence_payoffs(1, x))
        return {"value": u, "best_response_1": best1, "best_response_2": best2,
                "gains": [best1 - u, u - best2], "nash_conv": best1 - best2}


__all__ = ["SignalPayoffOperator", "RoundData", "Treeplex", "suit_permutations", "suit_partition",
           "check_supported", "WIN", "LOSE", "TIE"]
