"""EFCCE and NFCCE gaps of a distribution over joint pure plans, for any number of players.

Like :mod:`lpgame.analysis.n_player_correlated_gaps` (whose helpers it uses), this reads only the
game's leaves and the support of μ: K joint reduced pure plans with probabilities μ_k. It never
reads an LP.

**Definitions.** EFCCE (Farina, Bianchi & Sandholm, AAAI 2020; notes/farina-thesis.md §1.9): a
*coarse trigger agent* of player i for decision point j follows the recommendations until it
reaches j and, on reaching j and before hearing the recommendation there, commits to a
continuation π̂ ∈ Π_{i,⪰j}; μ is an ε-EFCCE when no such agent gains more than ε. NFCCE (notes
§1.9): player i commits to a pure plan π̂ ∈ Π_i before any recommendation, and μ is an ε-NFCCE when

    Σ_k μ_k [ u_i(π̂, π_{-i}^k) − u_i(π^k) ] ≤ ε     for every i and π̂.

**Computation.** With h^k[s] = Σ_{z: σ_i(z) = s} p_c(z) u_i(z) Π_{l≠i} π_l^k[σ_l(z)] (player i's
payoff at its own sequence s against the others' plans in column k) and

    G[c, s] = Σ_k μ_k π_i^k[c] h^k[s],

the agent conditioned on sequence c (EFCCE at j: c = p_j, the sequence leading to j; NFCCE:
c = ∅) earns max_{π̂} Σ_{s ⪰ j} π̂[s] G[c, s], found bottom-up on i's tree,
V(j') = max_{a'} ( G[c, j'a'] + Σ_{j'' ∈ C_{j'a'}} V(j'') ), for every c at once; obeying earns
Σ_k μ_k Σ_{s ⪰ j} π_i^k[s] h^k[s]. Leaves not below j (all leaves for NFCCE, where the terms at
s = ∅ cancel) are unchanged by the deviation. ``exact=True`` computes in Fractions.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from lpgame.analysis.n_player_correlated_gaps import check_support, joint_reach
from lpgame.analysis.normal_form_correlated_gaps import CorrelatedGap
from lpgame.errors import StrategyError
from lpgame.sequence_form import SequenceForm

COARSE_CONCEPTS = ("efcce", "nfcce")


def _leaf_data(sf: SequenceForm, exact: bool) -> tuple[np.ndarray, np.ndarray]:
    """p_c(z) and u(z) per leaf, floats or Fractions (object arrays)."""
    if not exact:
        return sf.terminal_chance, sf.terminal_payoffs
    chance, payoffs = sf.exact_terminal_data()
    return np.array(chance, dtype=object), np.array([list(p) for p in payoffs], dtype=object)


def _by_sequence(values: np.ndarray, own: np.ndarray, size: int) -> np.ndarray:
    """(K × T) → (K × size): out[k, s] = Σ_{z: own[z] = s} values[k, z]."""
    out = np.zeros((values.shape[0], size), dtype=values.dtype)
    np.add.at(out.T, own, values.T)
    return out


def player_coarse_gains(sf: SequenceForm, plans: list[np.ndarray], probs: np.ndarray,
                        player: int, concept: str, exact: bool = False) -> tuple[np.ndarray, list]:
    """(gains, labels): EFCCE, one gain per decision point j of ``player``; NFCCE, one gain (the
    whole tree). ``plans`` and ``probs`` as returned by
    :func:`lpgame.analysis.n_player_correlated_gaps.check_support` (module docstring)."""
    p = sf.players[player]
    n_seq = p.num_sequences
    dtype = object if exact else float
    chance, payoffs = _leaf_data(sf, exact)
    leaf_w = chance * payoffs[:, player]
    others = joint_reach(sf, plans, skip=player).astype(dtype)
    h = _by_sequence(others * leaf_w, sf.terminal_sequences[:, player], n_seq)   # K × Σ
    weighted = plans[player].astype(dtype) * probs[:, None]                  # μ_k π_i^k[c]
    g = weighted.T @ h                                                       # Σ × Σ: G[c, s]
    obey = (weighted * h).sum(axis=0)
    parent = p.infoset_parent_seq
    values = np.zeros((n_seq, p.num_infosets), dtype=dtype)
    below = np.zeros(p.num_infosets, dtype=dtype)            # obeying payoff at and below j
    for js, seqs, starts in sf.infoset_levels(player):      # deepest first
        best = np.maximum.reduceat(g[:, seqs], starts, axis=1)
        values[:, js] = best
        np.add.at(g.T, parent[js], best.T)
        total = np.add.reduceat(obey[seqs], starts)
        below[js] = total
        np.add.at(obey, parent[js], total)
    if concept == "nfcce":
        return np.array([g[0, 0] - obey[0]], dtype=dtype), ["(whole game)"]
    js = np.arange(p.num_infosets)
    return values[parent[js], js] - below, list(p.infoset_labels)


def n_player_coarse_gap(sf: SequenceForm, plans, probabilities, concept: str,
                        exact: bool = False) -> CorrelatedGap:
    """The EFCCE or NFCCE gap of μ (support ``plans``, one K × |Σ_l| 0/1 array per player, and
    ``probabilities``), with per-player largest gains and the worst deviation."""
    if concept not in COARSE_CONCEPTS:
        raise StrategyError(f"coarse gap: concept must be one of {', '.join(COARSE_CONCEPTS)}; "
                            f"got {concept!r}")
    plans, probs = check_support(sf, plans, probabilities)
    if exact:                    # μ as Fractions summing to exactly 1
        probs = np.array([p if isinstance(p, Fraction) else Fraction(float(p)) for p in probs],
                         dtype=object)
        probs = probs / sum(probs)
    zero = Fraction(0) if exact else 0.0
    gains, worst, largest = [], {}, None
    for i in range(sf.num_players):
        g, labels = player_coarse_gains(sf, plans, probs, i, concept, exact)
        if g.shape[0] == 0:
            gains.append(zero)
            continue
        k = int(np.argmax(np.array([float(v) for v in g])))
        gains.append(g[k])
        if largest is None or g[k] > largest:
            largest = g[k]
            worst = {"player": i + 1, "trigger": labels[k], "gain": float(g[k])}
    if largest is None:
        largest = zero
    return CorrelatedGap(concept, max(zero, largest), largest, gains, worst)
