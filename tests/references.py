"""Independent references for the conformance suite (``test_conformance.py``).

Nothing here reads lpgame's formulations (sequence form, LPs, MILPs, LCPs): every reference
works on payoff tensors or walks the game tree itself, and solves its own small programs with
``scipy.optimize.linprog``:

- :func:`matrix_game` — the value and optimal strategies of a zero-sum matrix game (maximin LP);
- :func:`security_values` — each player's maximin (security) value in a bimatrix game;
- :func:`stackelberg_value` — the strong Stackelberg leader value by the multiple LPs of
  Conitzer & Sandholm (2006): one LP per follower pure strategy;
- :func:`correlated_optimum` — the best CE or CCE objective by an LP over pure profiles;
- :func:`correlated_gain` — the largest CE/CCE incentive violation of a distribution;
- :func:`TreeNormalForm` — a tree's pure strategies (every choice at every information set),
  their consistency with each terminal, the payoff tensor, expected payoffs and best-response
  gains of behaviour strategies, and backward induction for perfect-information trees.

Numbers stay exact (``Fraction``) where the inputs are exact and no LP is involved.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
from scipy.optimize import linprog


# ------------------------------------------------------------------------------- matrix games
def _lp(c, a_ub=None, b_ub=None, a_eq=None, b_eq=None, bounds=None):
    res = linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=b_eq, bounds=bounds, method="highs")
    return res


def matrix_game(a) -> tuple[float, np.ndarray]:
    """(value, x): max over mixed rows x of min over columns of x·A[:, j], by linprog."""
    a = np.asarray(a, dtype=float)
    m, n = a.shape
    c = np.concatenate([np.zeros(m), [-1.0]])
    a_ub = np.hstack([-a.T, np.ones((n, 1))])                  # v - x·A[:, j] <= 0
    a_eq = np.concatenate([np.ones(m), [0.0]])[None, :]
    res = _lp(c, a_ub, np.zeros(n), a_eq, [1.0], [(0, None)] * m + [(None, None)])
    assert res.status == 0, res.message
    return -res.fun, res.x[:m]


def security_values(a, b) -> list[float]:
    """Player 1's max_x min_j x·A[:, j] and player 2's max_y min_i B[i, :]·y."""
    return [matrix_game(a)[0], matrix_game(np.asarray(b, dtype=float).T)[0]]


def stackelberg_value(leader_payoffs, follower_payoffs) -> float:
    """Strong Stackelberg leader value (Conitzer & Sandholm 2006, the multiple-LPs method).

    Both arrays are oriented leader strategies × follower strategies. For each follower pure
    strategy j: max_x x·L[:, j] subject to x·F[:, j] >= x·F[:, k] for every k, x in the simplex;
    the answer is the largest optimum over the j whose LP is feasible."""
    lead = np.asarray(leader_payoffs, dtype=float)
    foll = np.asarray(follower_payoffs, dtype=float)
    m, n = lead.shape
    best = -np.inf
    scale = max(1.0, float(np.abs(foll).max()))
    for j in range(n):
        a_ub = (foll - foll[:, [j]]).T / scale              # x·(F[:, k] - F[:, j]) <= 0
        res = _lp(-lead[:, j], a_ub, np.zeros(n), np.ones((1, m)), [1.0], [(0, None)] * m)
        if res.status == 0:
            best = max(best, -res.fun)
        else:
            assert res.status == 2, res.message            # infeasible is the only other outcome
    return best


def bimatrix_gains(a, b, x, y) -> list:
    """Each player's best-response gain in the bimatrix game (A, B) at (x, y) (exact if the inputs
    are)."""
    a = np.asarray(a, dtype=object)
    b = np.asarray(b, dtype=object)
    x = np.asarray(x, dtype=object)
    y = np.asarray(y, dtype=object)
    u1 = x @ a @ y
    u2 = x @ b @ y
    return [max(a @ y) - u1, max(x @ b) - u2]


# ------------------------------------------------------------------------- correlated concepts
def _deviation_rows(payoffs: np.ndarray, coarse: bool) -> list[np.ndarray]:
    """The incentive rows over the flattened pure profiles: each row g with g·μ <= 0 required.

    CE: for player i, recommended s_i, deviation t_i: Σ_{s_-i} μ(s_i, s_-i)[u_i(t_i, s_-i) −
    u_i(s_i, s_-i)]. CCE: for player i and t_i: Σ_s μ(s)[u_i(t_i, s_-i) − u_i(s)]."""
    shape = payoffs.shape[1:]
    rows = []
    for i, k in enumerate(shape):
        u = payoffs[i]
        for t in range(k):
            dev = np.take(u, [t] * k, axis=i) - u               # u_i(t, s_-i) − u_i(s)
            if coarse:
                rows.append(dev.reshape(-1))
                continue
            for s in range(k):
                if s == t:
                    continue
                mask = np.zeros(shape, dtype=bool)
                index = [slice(None)] * len(shape)
                index[i] = s
                mask[tuple(index)] = True
                rows.append(np.where(mask, dev, 0).reshape(-1))
    return rows


def correlated_optimum(payoffs, weights, coarse: bool = False, worst: bool = False) -> float:
    """max (min with ``worst``) over CE (CCE with ``coarse``) distributions μ of
    Σ_s μ(s) Σ_i w_i u_i(s): an LP over the pure profiles of the payoff tensor, by linprog."""
    payoffs = np.asarray(payoffs, dtype=float)
    span = max(1.0, float(np.abs(payoffs).max()))
    rows = np.array(_deviation_rows(payoffs / span, coarse))
    objective = np.tensordot(np.asarray(weights, dtype=float), payoffs, axes=1).reshape(-1)
    size = objective.size
    res = _lp(objective if worst else -objective, rows, np.zeros(len(rows)), np.ones((1, size)),
              [1.0], [(0, None)] * size)
    assert res.status == 0, res.message
    return res.fun if worst else -res.fun


def correlated_gain(payoffs, distribution: dict, coarse: bool = False):
    """The largest incentive gain (CE, or CCE with ``coarse``) of ``distribution`` ({pure profile
    index tuple: probability}); exact when the inputs are."""
    payoffs = np.asarray(payoffs, dtype=object)
    mu = np.zeros(payoffs.shape[1:], dtype=object)
    for profile, p in distribution.items():
        mu[profile] += p
    flat = mu.reshape(-1)
    return max(max(sum(g * m for g, m in zip(row, flat) if m) for row in
                   _deviation_rows(payoffs, coarse)), 0)


# ---------------------------------------------------------------------------- game trees
class TreeNormalForm:
    """A game tree read node by node (no lpgame index): its terminals with their chance
    probability, payoffs and the (information set, action) choices on their path per player;
    every player's pure strategies (one action at every information set) and the pure strategies
    reduced (those that reach the same terminals merged)."""

    def __init__(self, game, max_strategies: int = 4096):
        graph = game.graph
        self.num_players = game.num_players
        self.infosets: list[dict[str, list[str]]] = [{} for _ in range(self.num_players)]
        self.terminals: list[tuple] = []        # (chance prob, payoffs, [ {infoset: action} ])
        self.decision_nodes: list[tuple] = []   # (node, player, infoset)
        self.graph = graph
        self.root = game.root
        self.history: dict[str, tuple] = {}     # infoset → the player's (infoset, action) before it

        stack = [(game.root, Fraction(1), [dict() for _ in range(self.num_players)])]
        while stack:
            node, prob, path = stack.pop()
            data = graph.nodes[node]
            if data["kind"] == "terminal":
                self.terminals.append((prob, tuple(data["payoffs"]), path))
                continue
            children = list(graph.successors(node))
            if data["kind"] == "chance":
                for child in children:
                    p = graph.edges[node, child]["prob"]
                    stack.append((child, prob * (Fraction(p) if not isinstance(p, float) else p),
                                  path))
                continue
            player, infoset = data["player"], data["infoset"]
            self.decision_nodes.append((node, player, infoset))
            self.history.setdefault(infoset, tuple(path[player].items()))
            actions = [graph.edges[node, c]["action"] for c in children]
            self.infosets[player].setdefault(infoset, actions)
            for child, action in zip(children, actions):
                new = [dict(p) for p in path]
                new[player][infoset] = action
                stack.append((child, prob, new))

        self.max_strategies = max_strategies
        self._pure: list[list[dict]] | None = None

    @property
    def pure(self) -> list[list[dict]]:
        """Every player's pure strategies: one action at each of its information sets (ValueError
        beyond ``max_strategies``)."""
        if self._pure is None:
            pure = []
            for i in range(self.num_players):
                names = sorted(self.infosets[i])
                count = math.prod(len(self.infosets[i][n]) for n in names)
                if count > self.max_strategies:
                    raise ValueError(f"player {i + 1} has {count} pure strategies")
                pure.append([dict(zip(names, pick)) for pick in
                             itertools.product(*[self.infosets[i][n] for n in names])])
            self._pure = pure
        return self._pure

    # -- pure strategies and terminals
    def consistent(self, player: int) -> np.ndarray:
        """0/1 matrix: pure strategy × terminal, 1 when the strategy plays every choice of the
        player on the terminal's path."""
        out = np.zeros((len(self.pure[player]), len(self.terminals)), dtype=np.int8)
        for s, strategy in enumerate(self.pure[player]):
            for t, (_, _, path) in enumerate(self.terminals):
                out[s, t] = all(strategy[k] == a for k, a in path[player].items())
        return out

    def reduced(self, player: int) -> np.ndarray:
        """The consistency rows with duplicates removed: the reduced pure strategies."""
        return np.unique(self.consistent(player), axis=0)

    def tensor(self, reduced: bool = True) -> np.ndarray:
        """Float payoff tensor (players, S_1, ..., S_n) over (reduced) pure strategies."""
        cons = [(self.reduced(i) if reduced else self.consistent(i)).astype(float)
                for i in range(self.num_players)]
        weight = np.array([[float(c) * float(u[i]) for c, u, _ in self.terminals]
                           for i in range(self.num_players)])
        letters = "abcdefgh"[:self.num_players]
        spec = ",".join(f"{x}t" for x in letters) + ",t->" + letters
        return np.stack([np.einsum(spec, *cons, weight[i]) for i in range(self.num_players)])

    # -- behaviour strategies
    def reach(self, player: int, strategy: dict) -> list:
        """Each terminal's probability under the player's behaviour strategy (its own choices)."""
        out = []
        for _, _, path in self.terminals:
            p = 1
            for infoset, action in path[player].items():
                p = p * strategy[infoset][action]
            out.append(p)
        return out

    def values(self, strategies: list[dict]) -> list:
        """Expected payoff per player of a behaviour profile."""
        reach = [self.reach(i, s) for i, s in enumerate(strategies)]
        return [sum(c * u[i] * np.prod([r[t] for r in reach], dtype=object)
                    for t, (c, u, _) in enumerate(self.terminals))
                for i in range(self.num_players)]

    def best_response_gains(self, strategies: list[dict]) -> list:
        """Each player's best pure response value minus its value, by enumeration of its pure
        strategies against the others' behaviour strategies (exact with exact inputs)."""
        reach = [self.reach(i, s) for i, s in enumerate(strategies)]
        values = self.values(strategies)
        gains = []
        for i in range(self.num_players):
            others = [np.prod([reach[j][t] for j in range(self.num_players) if j != i],
                              dtype=object) for t in range(len(self.terminals))]
            weight = [c * u[i] * o for (c, u, _), o in zip(self.terminals, others)]
            best = max(sum(w for w, ok in zip(weight, row) if ok) for row in self.reduced(i))
            gains.append(best - values[i])
        return gains

    def backward_induction(self) -> tuple[object, dict]:
        """Perfect-information trees: the subgame values for player 1 (zero-sum) and, per decision
        node's information set, the set of optimal actions (several on a tie)."""
        graph = self.graph
        best: dict[str, set] = {}

        def value(node):
            data = graph.nodes[node]
            if data["kind"] == "terminal":
                return Fraction(data["payoffs"][0])
            children = list(graph.successors(node))
            if data["kind"] == "chance":
                return sum(Fraction(graph.edges[node, c]["prob"]) * value(c) for c in children)
            vals = {graph.edges[node, c]["action"]: value(c) for c in children}
            target = max(vals.values()) if data["player"] == 0 else min(vals.values())
            best[data["infoset"]] = {a for a, v in vals.items() if v == target}
            return target

        return value(self.root), best

    def perfect_information_gains(self, strategies: list[dict]) -> list:
        """Perfect-information trees (every information set one node): each player's best-response
        gain by backward induction against the others' behaviour strategies."""
        graph = self.graph

        def value(node, player, respond: bool):
            data = graph.nodes[node]
            if data["kind"] == "terminal":
                return data["payoffs"][player]
            children = list(graph.successors(node))
            if data["kind"] == "chance":
                return sum(Fraction(graph.edges[node, c]["prob"]) * value(c, player, respond)
                           for c in children)
            if respond and data["player"] == player:
                return max(value(c, player, respond) for c in children)
            probs = strategies[data["player"]][data["infoset"]]
            return sum(probs[graph.edges[node, c]["action"]] * value(c, player, respond)
                       for c in children if probs[graph.edges[node, c]["action"]])

        return [value(self.root, i, True) - value(self.root, i, False)
                for i in range(self.num_players)]


def extensive_correlated_optimum(tnf: TreeNormalForm, weights, coarse: bool = False) -> float:
    """The best EFCE (EFCCE with ``coarse``) objective of a two-player tree by an LP over pairs of
    pure strategies (von Stengel & Forges 2008; Farina et al. 2020 for EFCCE), by linprog.

    A trigger of player i is an information set I (and, for EFCE, the recommended action a at I);
    the deviation keeps π_i until I is reached, then plays a pure continuation π̂ at I and at every
    information set of i below I. For every trigger and continuation:
    Σ_{π: π_i reaches I (and π_i(I) = a)} μ(π) [u_i(π_i ⊕ π̂, π_-i) − u_i(π)] ≤ 0."""
    assert tnf.num_players == 2
    pure = tnf.pure
    index = [{tuple(sorted(p.items())): k for k, p in enumerate(pure[i])} for i in range(2)]
    tensor = tnf.tensor(reduced=False)                       # (2, S1, S2)
    shape = tensor.shape[1:]
    span = max(1.0, float(np.abs(tensor).max()))
    rows = []
    for i in range(2):
        below: dict[str, set] = {name: {name} for name in tnf.infosets[i]}
        for name, before in tnf.history.items():
            if name in tnf.infosets[i]:
                for earlier, _ in before:
                    below[earlier].add(name)
        for trigger, subtree in below.items():
            names = sorted(subtree)
            continuations = itertools.product(*[tnf.infosets[i][n] for n in names])
            reaching = [k for k, p in enumerate(pure[i])
                        if all(p[j] == a for j, a in tnf.history[trigger])]
            for cont in continuations:
                swap = dict(zip(names, cont))
                groups = ([None] if coarse else tnf.infosets[i][trigger])
                for rec in groups:
                    row = np.zeros(shape)
                    for k in reaching:
                        if rec is not None and pure[i][k][trigger] != rec:
                            continue
                        dev = index[i][tuple(sorted({**pure[i][k], **swap}.items()))]
                        if i == 0:
                            row[k, :] += (tensor[0][dev, :] - tensor[0][k, :]) / span
                        else:
                            row[:, k] += (tensor[1][:, dev] - tensor[1][:, k]) / span
                    rows.append(row.reshape(-1))
    objective = np.tensordot(np.asarray(weights, dtype=float), tensor, axes=1).reshape(-1)
    size = objective.size
    res = _lp(-objective, np.array(rows) if rows else None, np.zeros(len(rows)) if rows else None,
              np.ones((1, size)), [1.0], [(0, None)] * size)
    assert res.status == 0, res.message
    return -res.fun
