"""CFR+ and DCFR on two treeplexes whose payoff gradient comes from an operator, not a game tree.

Setting: a two-player zero-sum game in sequence form, max_x min_y xᵀUy over the treeplexes
X = {x ≥ 0 : F_1 x = f_1}, Y = {y ≥ 0 : F_2 y = f_2} (Koller, Megiddo & von Stengel 1996), where U
is available only as the two products g_1 = U·y and g_2 = −Uᵀ·x (e.g.
:class:`lpgame.game.showdown_operator.SignalPayoffOperator`, which applies U of an ordered-signal
game without building a leaf). The treeplexes are given by their information sets' first sequence,
action count, parent sequence and depth (:class:`lpgame.game.showdown_operator.Treeplex`).

**Counterfactual regret on a treeplex** (Zinkevich et al. 2007; Farina 2023, Algs 4.3/4.4; as in
:mod:`lpgame.learning.treeplex`): for behaviour b and sequence payoffs g, bottom-up over depths,

    q[ja] = g[ja] + Σ_{j': p_{j'} = ja} V(j'),    V(j) = Σ_a b[ja] q[ja],    r[ja] = q[ja] − V(j).

**CFR+** (Tammelin 2014; Tammelin, Burch, Johanson & Bowling, IJCAI 2015): R ← max(R + r, 0),
b = R / Σ_a R (uniform at 0), alternating updates (player 1 against y_t, then player 2 against
x_{t+1}), and the average plan weighted by t (linear averaging). **DCFR** (Brown & Sandholm,
AAAI 2019) with (α, β, γ) = (1.5, 0, 2): before adding r_t, positive cumulative regrets are
multiplied by t^α/(t^α + 1), negative ones by t^β/(t^β + 1), and the average by (t/(t+1))^γ.
**Predictive CFR+** (Farina, Kroer & Sandholm, AAAI 2021): R ← max(R + r, 0) as in CFR+, but the
behaviour is played from max(R + m, 0) with the prediction m = the last instantaneous regret, and
the average is weighted by t² (quadratic averaging).

Averages are taken on realization plans (sequence form), so they are exact plans of X and Y. The
certificate is the caller's: :meth:`OperatorCFR.average` gives the average profile, whose NashConv
the operator's best responses compute (:meth:`SignalPayoffOperator.nash_conv`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from lpgame.errors import OptionError, StrategyError

ALGORITHMS = ("cfr+", "dcfr", "pcfr+")


class TreeplexArrays:
    """Per-depth index arrays of a treeplex (``first``, ``count``, ``parent``, ``depth`` per
    information set; sequence 0 the empty sequence): the vectorised recursions of the docstring."""

    def __init__(self, first, count, parent, depth, num_sequences: int):
        self.first = np.asarray(first, dtype=np.int64)
        self.count = np.asarray(count, dtype=np.int64)
        self.parent = np.asarray(parent, dtype=np.int64)
        self.depth = np.asarray(depth, dtype=np.int64)
        self.num_sequences = int(num_sequences)
        H = len(self.first)
        ends = np.cumsum(self.count)
        local = np.arange(int(ends[-1]) if H else 0) - np.repeat(ends - self.count, self.count)
        self.seqs = np.repeat(self.first, self.count) + local          # sequences, infoset order
        self.owner = np.repeat(np.arange(H), self.count)
        covered = np.zeros(self.num_sequences, dtype=np.int64)
        np.add.at(covered, self.seqs, 1)
        if covered[0] != 0 or np.any(covered[1:] != 1):
            raise StrategyError("the treeplex's information sets do not cover its sequences "
                                "1..n−1 exactly once")
        self.levels = []                  # (infosets, their sequences, reduceat starts), deepest last
        for d in sorted(set(self.depth.tolist())):
            js = np.flatnonzero(self.depth == d)
            seqs = np.repeat(self.first[js], self.count[js]) + _ranges(self.count[js])
            starts = np.concatenate([[0], np.cumsum(self.count[js])[:-1]]).astype(np.int64)
            self.levels.append((js, seqs, starts))
        self.seq_parent = np.zeros(self.num_sequences, dtype=np.int64)
        self.seq_parent[self.seqs] = self.parent[self.owner]
        self.seq_owner = np.full(self.num_sequences, -1, dtype=np.int64)
        self.seq_owner[self.seqs] = self.owner

    @classmethod
    def of(cls, treeplex) -> TreeplexArrays:
        """From anything with ``first``, ``count``, ``parent``, ``depth``, ``num_sequences``."""
        return cls(treeplex.first, treeplex.count, treeplex.parent, treeplex.depth,
                   treeplex.num_sequences)

    def normalise(self, weights: np.ndarray) -> np.ndarray:
        """Behaviour ∝ non-negative ``weights`` per information set, uniform where they sum to 0."""
        w = np.asarray(weights, dtype=float)
        sums = np.bincount(self.owner, weights=w[self.seqs], minlength=len(self.first))
        b = np.ones(self.num_sequences)
        s = sums[self.owner]
        b[self.seqs] = np.where(s > 0, w[self.seqs] / np.where(s > 0, s, 1.0),
                                1.0 / self.count[self.owner])
        return b

    def plan(self, behaviour: np.ndarray) -> np.ndarray:
        """x[ja] = b[ja]·x[p_j], top-down (x[∅] = 1): a valid realization plan for any b that sums
        to 1 per information set."""
        x = np.zeros(self.num_sequences)
        x[0] = 1.0
        for _, seqs, _ in self.levels:
            x[seqs] = behaviour[seqs] * x[self.seq_parent[seqs]]
        return x

    def project(self, plan: np.ndarray) -> np.ndarray:
        """A valid realization plan from an approximate one (an LP solver's iterate): negatives
        clipped, each information set's behaviour b(a|j) = x⁺[ja]/Σ_b x⁺[jb] (uniform where the
        set has no mass), then the plan rebuilt top-down, so F x = f holds exactly in floats up to
        rounding of the products."""
        return self.plan(self.normalise(np.clip(np.asarray(plan, dtype=float), 0.0, None)))

    def regrets(self, g: np.ndarray, behaviour: np.ndarray) -> np.ndarray:
        """r[ja] = q[ja] − V(j) of the docstring (0 at ∅)."""
        q = np.array(g, dtype=float, copy=True)
        V = np.zeros(len(self.first))
        for js, seqs, starts in reversed(self.levels):
            values = np.add.reduceat(behaviour[seqs] * q[seqs], starts)
            V[js] = values
            q += np.bincount(self.parent[js], weights=values, minlength=self.num_sequences)
        r = np.zeros(self.num_sequences)
        r[self.seqs] = q[self.seqs] - V[self.owner]
        return r


def _ranges(counts: np.ndarray) -> np.ndarray:
    ends = np.cumsum(counts)
    return np.arange(int(ends[-1]) if len(ends) else 0) - np.repeat(ends - counts, counts)


class OperatorCFR:
    """CFR+ or DCFR (docstring) on ``treeplexes`` = (X, Y) with ``payoffs(player, other_plan)``:
    player 1's sequence payoffs, U·y for player 0 and Uᵀ·x for player 1 (the signature of
    :meth:`SignalPayoffOperator.sequence_payoffs`). Player 1 maximises, player 2 minimises."""

    def __init__(self, treeplexes, payoffs: Callable[[int, np.ndarray], np.ndarray],
                 algorithm: str = "cfr+"):
        if algorithm not in ALGORITHMS:
            raise OptionError(f"algorithm={algorithm!r}: choose one of {', '.join(ALGORITHMS)}")
        self.algorithm = algorithm
        self.plex = [t if isinstance(t, TreeplexArrays) else TreeplexArrays.of(t)
                     for t in treeplexes]
        self.payoffs = payoffs
        self.regret = [np.zeros(p.num_sequences) for p in self.plex]
        self.behaviour = [p.normalise(np.zeros(p.num_sequences)) for p in self.plex]
        self.current = [p.plan(b) for p, b in zip(self.plex, self.behaviour)]
        self.sum = [np.zeros(p.num_sequences) for p in self.plex]
        self.last = [np.zeros(p.num_sequences) for p in self.plex]     # PCFR+'s prediction
        self.weight = 0.0
        self.t = 0

    def _update(self, player: int, t: int) -> None:
        sign = 1.0 if player == 0 else -1.0
        g = sign * self.payoffs(player, self.current[1 - player])
        r = self.plex[player].regrets(g, self.behaviour[player])
        R = self.regret[player]
        if self.algorithm == "dcfr":
            a = t ** 1.5
            R *= np.where(R > 0, a / (a + 1.0), 0.5)
            R += r
        else:
            np.maximum(R + r, 0.0, out=R)
        self.last[player] = r
        played = np.maximum(R + r, 0.0) if self.algorithm == "pcfr+" else np.maximum(R, 0.0)
        self.behaviour[player] = self.plex[player].normalise(played)
        self.current[player] = self.plex[player].plan(self.behaviour[player])

    def iterate(self, steps: int = 1) -> None:
        """``steps`` alternating iterations, each adding the new plans to the averages."""
        for _ in range(steps):
            self.t += 1
            t = self.t
            if self.algorithm == "cfr+":
                w, keep = float(t), 1.0
            elif self.algorithm == "pcfr+":
                w, keep = float(t) ** 2, 1.0
            else:
                keep, w = (t / (t + 1.0)) ** 2 if t > 1 else 0.0, 1.0
            for player in (0, 1):
                self._update(player, t)
            for player in (0, 1):
                self.sum[player] *= keep
                self.sum[player] += w * self.current[player]
            self.weight = self.weight * keep + w

    def average(self) -> list[np.ndarray]:
        """The average realization plans (the current ones before any iteration)."""
        if self.weight == 0:
            return [c.copy() for c in self.current]
        return [s / self.weight for s in self.sum]

    def state(self) -> dict:
        """Arrays that :meth:`restore` takes back (a checkpoint)."""
        return {"regret_1": self.regret[0], "regret_2": self.regret[1], "sum_1": self.sum[0],
                "sum_2": self.sum[1], "last_1": self.last[0], "last_2": self.last[1],
                "weight": np.array(self.weight), "t": np.array(self.t),
                "algorithm": np.array(self.algorithm)}

    def restore(self, state) -> None:
        """Go on from a :meth:`state` of the same algorithm on the same treeplexes."""
        if str(state["algorithm"]) != self.algorithm:
            raise StrategyError(f"checkpoint of {state['algorithm']}, not {self.algorithm}")
        for i in (0, 1):
            R = np.asarray(state[f"regret_{i + 1}"], dtype=float)
            if R.shape != (self.plex[i].num_sequences,):
                raise StrategyError(f"checkpoint regrets of player {i + 1} have shape {R.shape}, "
                                    f"expected ({self.plex[i].num_sequences},)")
            self.regret[i] = R.copy()
            self.sum[i] = np.asarray(state[f"sum_{i + 1}"], dtype=float).copy()
            self.last[i] = np.asarray(state[f"last_{i + 1}"], dtype=float).copy()
            played = R + self.last[i] if self.algorithm == "pcfr+" else R
            self.behaviour[i] = self.plex[i].normalise(np.maximum(played, 0.0))
            self.current[i] = self.plex[i].plan(self.behaviour[i])
        self.weight = float(state["weight"])
        self.t = int(state["t"])


__all__ = ["ALGORITHMS", "OperatorCFR", "TreeplexArrays"]
