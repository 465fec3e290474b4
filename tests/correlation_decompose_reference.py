"""Verbatim copies of the correlation DAG's greedy decomposition, its reduced plans and the EFCE
gap's trigger gains as they were before their vectorised rewrite (s19, issue 38): the reference the
tests compare the new code against, bit for bit."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from lpgame.analysis.n_player_correlated_gaps import _leaf_data, joint_reach
from lpgame.errors import InvalidGameError


def decompose(dag, x, tolerance: float = 1e-12) -> tuple[list, list[dict[int, int]]]:
    """A flow as a convex combination of pure flows (one prescription at every reached
    belief): from the roots, follow at each reached belief the edge with the most remaining
    flow, take the smallest remaining flow λ on the chosen edges, subtract it, repeat (each
    round empties an edge). Fractions in, Fractions out (exactly, until nothing remains);
    floats stop below ``tolerance``. Returns (weights, decisions): each decision maps an
    information-set key to the action index the pure flow prescribes there. Raises
    InvalidGameError if a pure flow decides a key twice differently (the DAG's invariant)."""
    exact = any(isinstance(v, Fraction) for v in x)
    x = [Fraction(v) for v in x] if exact else [max(0.0, float(v)) for v in x]
    out_edges: list[list[int]] = [[] for _ in range(dag.num_beliefs)]
    for e, b in enumerate(dag.edge_belief.tolist()):
        out_edges[b].append(e)
    children: list[list[int]] = [[] for _ in range(dag.num_edges)]
    for e, c in zip(dag.child_edge.tolist(), dag.child_belief.tolist()):
        children[e].append(c)
    remaining = Fraction(1) if exact else 1.0
    weights, decisions = [], []
    while remaining > (0 if exact else tolerance):
        chosen, stack = [], list(dag.root_beliefs.tolist())
        while stack:
            b = stack.pop()
            e = max(out_edges[b], key=lambda k: x[k])
            chosen.append(e)
            stack.extend(children[e])
        lam = min((x[e] for e in chosen), default=remaining)
        if lam <= (0 if exact else tolerance * 1e-3):
            if exact:
                raise InvalidGameError("correlation DAG: the flow does not decompose exactly "
                                       "(it violates flow conservation)")
            break
        lam = min(lam, remaining)
        for e in chosen:
            x[e] -= lam
        remaining -= lam
        decided: dict[int, int] = {}
        for e in chosen:
            for k, a in zip(dag.belief_keys[int(dag.edge_belief[e])], dag.edge_actions[e]):
                if decided.setdefault(k, a) != a:
                    raise InvalidGameError(
                        f"correlation DAG: information set {k} is decided twice in one pure "
                        "flow; the game is not timeable for its players")
        weights.append(lam)
        decisions.append(decided)
    if not exact and weights:
        total = sum(weights)
        weights = [w / total for w in weights]
    return weights, decisions



def reduced_plans(sf, dag, decisions: list[dict[int, int]]) -> list[np.ndarray]:
    """The joint reduced pure plans of pure flows: per player a (K × |Σ_p|) 0/1 array, sequence
    s = (j, a) on when its parent sequence is and the flow prescribes a at j. An information set
    the flow never decides is one no leaf probability depends on (module docstring); it gets its
    first action."""
    n = dag.num_players
    offsets = np.concatenate([[0], np.cumsum([sf.players[p].num_infosets for p in range(n)])])
    out = []
    for p in range(n):
        pl = sf.players[p]
        plans = np.zeros((len(decisions), pl.num_sequences), dtype=np.int8)
        plans[:, 0] = 1
        for q, decided in enumerate(decisions):
            row = plans[q]
            for s in range(1, pl.num_sequences):       # parents come before children
                j = int(pl.seq_infoset[s])
                chosen = decided.get(int(offsets[p]) + j, 0)
                row[s] = row[int(pl.infoset_parent_seq[j])] and chosen == int(pl.seq_action[s])
        out.append(plans)
    return out


def _sum_by_sequence(values: np.ndarray, own: np.ndarray, size: int) -> np.ndarray:
    """(K × T) → (K × size): out[k, s] = Σ_{z: own[z] = s} values[k, z]."""
    out = np.zeros((values.shape[0], size), dtype=values.dtype)
    np.add.at(out.T, own, values.T)
    return out


def player_trigger_gains(sf, plans: list[np.ndarray], probs: np.ndarray,
                         player: int, exact: bool = False) -> np.ndarray:
    """gain(σ̂) for every sequence σ̂ of ``player`` (entry 0, the empty sequence, is 0); see the
    module docstring. ``plans`` and ``probs`` as returned by :func:`check_support`."""
    p = sf.players[player]
    n_seq = p.num_sequences
    dtype = object if exact else float
    chance, payoffs = _leaf_data(sf, exact)
    leaf_w = chance * payoffs[:, player]
    others = joint_reach(sf, plans, skip=player).astype(dtype)
    h = _sum_by_sequence(others * leaf_w, sf.terminal_sequences[:, player], n_seq)   # K × Σ
    own = plans[player].astype(dtype)
    weighted = own * probs[:, None]                          # μ_k π_i^k[σ̂]
    g = weighted.T @ h                                       # Σ × Σ: G[σ̂, s]
    obey = (weighted * h).sum(axis=0)                        # Σ_k μ_k π^k[s] h^k[s]
    parent = p.infoset_parent_seq
    values = np.zeros((n_seq, p.num_infosets), dtype=dtype)
    for js, seqs, starts in sf.infoset_levels(player):      # deepest first
        best = np.maximum.reduceat(g[:, seqs], starts, axis=1)
        values[:, js] = best
        np.add.at(g.T, parent[js], best.T)                   # V(j'') into its parent sequence
        np.add.at(obey, parent[js], np.add.reduceat(obey[seqs], starts))
    gains = np.zeros(n_seq, dtype=dtype)
    if n_seq > 1:
        t = np.arange(1, n_seq)
        gains[1:] = values[t, p.seq_infoset[1:]] - obey[1:]
    return gains


