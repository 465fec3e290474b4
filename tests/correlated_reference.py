"""A reference for optimal EFCE, EFCCE and NFCCE with any number of players, written from the
definitions and independent of lpgame's correlation-plan and correlation-DAG code.

Every player's reduced pure plans are enumerated (one action per information set, then the
sequences they reach); μ is a distribution over ALL joint reduced plans, and the deviations are
those of the definitions (Farina 2023, Def. 8.1–8.2 for EFCE; Farina, Bianchi & Sandholm 2020 for
EFCCE; the normal-form CCE for NFCCE; notes/farina-thesis.md §1.6, §1.9):

* EFCE: for a trigger sequence σ̂ = (j, a) and a continuation π̂ at j, every plan with
  π_i[σ̂] = 1 has its choices at j and below replaced by π̂;
* EFCCE: for a decision point j and a continuation π̂ at j, every plan that reaches j
  (π_i[p_j] = 1) has its choices at j and below replaced by π̂;
* NFCCE: every plan of player i is replaced by π̂ ∈ Π_i.

The LP max Σ_π μ(π) w·u(π) s.t. Σ_π μ(π) [u_i(dev(π_i), π_{-i}) − u_i(π)] ≤ 0, μ ∈ Δ is solved
with lpgame's generic exact LP solver (rational certification of a basis; the formulation is this
file's) and, for floats, with scipy's ``linprog``. Only for tiny games.

Also here: random timeable n-player trees with chance and imperfect information (every
information set's label holds the number of decisions above it, so the game is timeable).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import networkx as nx
import numpy as np
from hypothesis import strategies as st
from scipy.optimize import linprog

from lpgame import Game
from lpgame.lp import LinearProgram, solve_lp_exact


@st.composite
def timeable_trees(draw, players: int = 3, max_depth: int = 3, payoff_scale=1) -> Game:
    """A random game: chance nodes and decision nodes of any player; each player sees some of the
    moves (a random subset, fixed per node); labels = (player, decisions so far, the player's
    view), so perfect recall and timeability hold."""
    graph = nx.DiGraph()
    counter = itertools.count()
    num_actions: dict[str, int] = {}

    def grow(views: tuple, depth: int, decisions: int) -> int:
        node = next(counter)
        choice = 0 if depth >= max_depth else draw(st.integers(0 if depth else 1, players + 1))
        if choice == 0:
            graph.add_node(node, kind="terminal", payoffs=tuple(
                draw(st.integers(-3, 3)) * payoff_scale for _ in range(players)))
            return node
        if choice == players + 1:
            graph.add_node(node, kind="chance")
            weights = draw(st.lists(st.integers(1, 3), min_size=2, max_size=2))
            seen = [draw(st.booleans()) for _ in range(players)]
            for o, w in enumerate(weights):
                child = tuple(v + (("c", o),) if seen[i] else v for i, v in enumerate(views))
                graph.add_edge(node, grow(child, depth + 1, decisions), action=f"o{o}",
                               prob=Fraction(w, sum(weights)))
            return node
        player = choice - 1
        label = f"P{player + 1} d{decisions} {views[player]}"
        if label not in num_actions:
            num_actions[label] = draw(st.integers(2, 3))
        graph.add_node(node, kind="decision", player=player, infoset=label)
        sees = [draw(st.booleans()) for _ in range(players)]
        for a in range(num_actions[label]):
            child = tuple(v + (("own", a),) if i == player else
                          (v + ((player, a),) if sees[i] else v) for i, v in enumerate(views))
            graph.add_edge(node, grow(child, depth + 1, decisions + 1), action=f"a{a}")
        return node

    grow(tuple(() for _ in range(players)), 0, 0)
    return Game(graph, players, root=0, name="random timeable tree")


def reduced_plans(sf, player: int) -> np.ndarray:
    """Every reduced pure plan of ``player`` as a 0/1 row over its sequences."""
    p = sf.players[player]
    plans = set()
    for choice in itertools.product(*[range(int(k)) for k in p.infoset_num_actions]):
        x = [1] + [0] * (p.num_sequences - 1)
        for s in range(1, p.num_sequences):          # parents come before children
            j = int(p.seq_infoset[s])
            x[s] = int(x[p.infoset_parent_seq[j]] and choice[j] == p.seq_action[s])
        plans.add(tuple(x))
    return np.array(sorted(plans), dtype=np.int64)


def subtree(sf, player: int, j: int) -> np.ndarray:
    """Sequences of ``player`` at or below information set j."""
    p = sf.players[player]
    out = []
    for s in range(1, p.num_sequences):
        k = int(p.seq_infoset[s])
        while k >= 0:
            if k == j:
                out.append(s)
                break
            parent = int(p.infoset_parent_seq[k])
            k = int(p.seq_infoset[parent]) if parent else -1
    return np.array(out, dtype=np.int64)


def exact_utilities(sf, plans: list[np.ndarray]) -> list[list[Fraction]]:
    """u(π) in Fractions, one row per joint plan (the arrays' rows) and player."""
    chance, payoffs = sf.exact_terminal_data()
    seqs = sf.terminal_sequences
    reach = np.ones((plans[0].shape[0], seqs.shape[0]), dtype=np.int64)
    for ell, pl in enumerate(plans):
        reach *= pl[:, seqs[:, ell]]
    out = []
    for row in reach:
        u = [Fraction(0)] * sf.num_players
        for z in np.flatnonzero(row):
            for i in range(sf.num_players):
                u[i] += chance[z] * payoffs[z][i]
        out.append(u)
    return out


def deviation_rows(sf, concept: str) -> tuple[list, list, list[list[Fraction]]]:
    """(joint plans as per-player arrays, u(π), rows): one row per deviation of the concept's
    definition (module docstring), entry = u_i(dev(π_i), π_{-i}) − u_i(π)."""
    n = sf.num_players
    own = [reduced_plans(sf, i) for i in range(n)]
    joint = list(itertools.product(*[range(len(o)) for o in own]))
    plans = [np.array([own[i][c[i]] for c in joint]) for i in range(n)]
    base = exact_utilities(sf, plans)
    rows = []
    for i in range(n):
        p = sf.players[i]
        if concept == "nfcce":
            cases = [(None, np.arange(p.num_sequences), None)]
        elif concept == "efcce":
            cases = [(int(p.infoset_parent_seq[j]), subtree(sf, i, j), j)
                     for j in range(p.num_infosets)]
        else:
            cases = [(t, subtree(sf, i, int(p.seq_infoset[t])), int(p.seq_infoset[t]))
                     for t in range(1, p.num_sequences)]
        for trigger, sub, j in cases:
            if j is None:
                continuations = {tuple(r) for r in own[i]}
            else:
                reach_j = own[i][own[i][:, p.infoset_parent_seq[j]] == 1]
                continuations = {tuple(r[sub]) for r in reach_j}
            for cont in continuations:
                dev = plans[i].copy()
                hit = np.ones(dev.shape[0], bool) if trigger is None else dev[:, trigger] == 1
                dev[np.ix_(hit, sub)] = np.array(cont)
                moved = exact_utilities(sf, [dev if ell == i else plans[ell] for ell in range(n)])
                rows.append([m[i] - b[i] for m, b in zip(moved, base)])
    return plans, base, rows


def brute_force_exact(sf, concept: str, weights) -> Fraction:
    """The optimal value over all joint reduced plans, in rationals."""
    _, base, rows = deviation_rows(sf, concept)
    w = [Fraction(v) for v in weights]
    k = len(base)
    lp = LinearProgram(name=f"brute-force {concept}")
    mu = lp.add_variables("mu", k, lower=0.0)
    from lpgame.rational import RationalMatrix
    lp.add_constraints("simplex", [(mu, RationalMatrix((1, k), [0] * k, range(k),
                                                       [Fraction(1)] * k))], "==", [Fraction(1)])
    entries = [(a, b, v) for a, row in enumerate(rows) for b, v in enumerate(row) if v]
    if entries:
        r, c, d = zip(*entries)
        lp.add_constraints("deviations", [(mu, RationalMatrix((len(rows), k), r, c, d))],
                               "<=", [Fraction(0)] * len(rows))
    lp.set_objective([(mu, [sum((a * b for a, b in zip(w, u)), Fraction(0)) for u in base])],
                     sense="max")
    _, certified = solve_lp_exact(lp)
    return certified.objective


def brute_force_float(sf, concept: str, weights) -> float:
    """The same optimum by scipy's linprog (floats), on payoffs divided by their largest
    magnitude (linprog's tolerances are absolute)."""
    _, base, rows = deviation_rows(sf, concept)
    unit = max([abs(v) for row in base for v in row] + [Fraction(1, 10**300)])
    base = np.array([[float(v / unit) for v in row] for row in base])
    a_ub = (np.array([[float(v / unit) for v in row] for row in rows]) if rows
            else np.zeros((0, base.shape[0])))
    res = linprog(-(base @ np.asarray(weights, dtype=float)), A_ub=a_ub,
                  b_ub=np.zeros(a_ub.shape[0]), A_eq=np.ones((1, base.shape[0])), b_eq=[1.0],
                  bounds=(0, None), method="highs")
    assert res.status == 0, res.message
    return -res.fun * float(unit)
