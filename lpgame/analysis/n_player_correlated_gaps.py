"""EFCE gap of a distribution over joint pure plans, for any number of players.

This checker reads only the game's leaves and the candidate μ ∈ Δ(Π_1 × … × Π_n), given as its
support: K joint reduced pure plans (π_1^k, …, π_n^k) with probabilities μ_k. It never reads an LP.

**Definition** (Farina 2023, Def. 8.1–8.2, L3250–3263; notes/farina-thesis.md §1.6). μ is an
ε-EFCE when for every player i, trigger sequence σ̂ = (j, a) ∈ Σ_i* and continuation π̂ ∈ Π_{i,⪰j}

    Σ_k μ_k [ u_i(φ_{σ̂→π̂}(π_i^k), π_{-i}^k) − u_i(π^k) ] ≤ ε,

where φ replaces π_i's choices at j and below by π̂ when π_i[σ̂] = 1 and leaves π_i alone otherwise.
The EFCE gap is the smallest such ε (at least 0).

**Computation.** Fix player i. For column k let h^k[s] = Σ_{z: σ_i(z) = s} p_c(z) u_i(z)
Π_{l≠i} π_l^k[σ_l(z)] be i's payoff at its own sequence s against the other players' pure plans.
A deviator triggered at σ̂ faces the *conditional* mixture of the others' plans in the columns that
recommend σ̂, so its payoff for continuation y is Σ_{s ⪰ j} y[s] G[σ̂, s] with

    G[σ̂, s] = Σ_k μ_k π_i^k[σ̂] h^k[s]

(leaves not below j are unchanged by φ and cancel). The best continuation is found bottom-up on
i's own tree below j, V(j') = max_{a'} ( G[σ̂, j'a'] + Σ_{j'' ∈ C_{j'a'}} V(j'') ), for all
triggers at once (one row of V per trigger, one vectorised step per depth), and

    gain(σ̂) = V(j) − Σ_k μ_k Σ_{s ⪰ σ̂} π_i^k[s] h^k[s].

With ``exact=True`` every quantity is a :class:`fractions.Fraction` (the game's rational chance
probabilities and payoffs, and μ as given, or the float μ converted exactly and renormalised).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from lpgame.analysis.normal_form_correlated_gaps import CorrelatedGap
from lpgame.errors import StrategyError
from lpgame.sequence_form import SequenceForm


def check_support(sf: SequenceForm, plans, probabilities) -> tuple[list[np.ndarray], np.ndarray]:
    """The plans as int8 arrays (K × |Σ_l| per player) and the probabilities, checked: one array per
    player, every row a pure reduced plan of that player, probabilities ≥ 0 summing to 1."""
    n = sf.num_players
    if len(plans) != n:
        raise StrategyError(f"{sf.game.name} has {n} players; got plans for {len(plans)}")
    probs = np.asarray(probabilities, dtype=object if _is_exact(probabilities) else float)
    k = probs.shape[0]
    out = []
    for i, arr in enumerate(plans):
        a = np.asarray(arr)
        if a.shape != (k, sf.num_sequences(i)):
            raise StrategyError(f"plans of player {i + 1} must have shape "
                                f"({k}, {sf.num_sequences(i)}); got {a.shape}")
        a = a.astype(np.int8)
        if not np.isin(a, (0, 1)).all():
            raise StrategyError(f"plans of player {i + 1} must be 0/1 (pure plans)")
        res = sf.treeplex_matrix(i) @ a.T.astype(float)
        if not np.allclose(res, sf.treeplex_rhs(i)[:, None]):
            raise StrategyError(f"a plan of player {i + 1} violates the sequence-form constraints")
        out.append(a)
    if np.any(probs < 0) or abs(float(sum(probs)) - 1.0) > 1e-9:
        raise StrategyError("probabilities must be nonnegative and sum to 1")
    return out, probs


def _is_exact(values) -> bool:
    return any(isinstance(v, Fraction) for v in np.asarray(values, dtype=object).ravel())


def _leaf_data(sf: SequenceForm, exact: bool) -> tuple[np.ndarray, np.ndarray]:
    """p_c(z) and u(z) per leaf, floats or Fractions (object arrays)."""
    if not exact:
        return sf.terminal_chance, sf.terminal_payoffs
    chance, payoffs = sf.exact_terminal_data()
    return np.array(chance, dtype=object), np.array([list(p) for p in payoffs], dtype=object)


def joint_reach(sf: SequenceForm, plans: list[np.ndarray], skip: int | None = None) -> np.ndarray:
    """(K × T) 0/1: whether column k's plans reach leaf z (player ``skip`` left out)."""
    seqs = sf.terminal_sequences
    reach = np.ones((plans[0].shape[0], seqs.shape[0]), dtype=np.int8)
    for ell, pl in enumerate(plans):
        if ell != skip:
            reach &= pl[:, seqs[:, ell]]
    return reach


def expected_payoffs(sf: SequenceForm, plans, probabilities, exact: bool = False) -> list:
    """Σ_k μ_k Σ_z p_c(z) u(z) Π_l π_l^k[σ_l(z)], one entry per player."""
    plans, probs = check_support(sf, plans, probabilities)
    if exact:
        probs = _exact_probabilities(probs)
    chance, payoffs = _leaf_data(sf, exact)
    weight = probs @ joint_reach(sf, plans).astype(object if exact else float)
    return list((weight * chance) @ payoffs)


def _exact_probabilities(probs: np.ndarray) -> np.ndarray:
    """μ as Fractions summing to exactly 1 (floats converted exactly, then renormalised)."""
    exact = np.array([p if isinstance(p, Fraction) else Fraction(float(p)) for p in probs],
                     dtype=object)
    return exact / sum(exact)


def _sum_by_sequence(values: np.ndarray, own: np.ndarray, size: int) -> np.ndarray:
    """(K × T) → (K × size): out[k, s] = Σ_{z: own[z] = s} values[k, z], summed from 0 in the
    order of z. Floats: one product with the 0/1 (size × T) matrix of ``own`` (SciPy's CSR kernel
    adds 1·v row by row in that same order, so the sums are those of ``np.add.at``, to the bit);
    Fractions: ``np.add.at``."""
    if values.dtype == object:
        out = np.zeros((values.shape[0], size), dtype=values.dtype)
        np.add.at(out.T, own, values.T)
        return out
    t = own.size
    pick = sp.csr_array((np.ones(t), (own, np.arange(t))), shape=(size, t))
    pick.has_sorted_indices = True
    return np.ascontiguousarray((pick @ np.ascontiguousarray(values.T)).T)


def player_trigger_gains(sf: SequenceForm, plans: list[np.ndarray], probs: np.ndarray,
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


def n_player_efce_gap(sf: SequenceForm, plans, probabilities, exact: bool = False) -> CorrelatedGap:
    """The EFCE gap of μ (support ``plans``: one K × |Σ_l| 0/1 array per player, ``probabilities``
    of length K), with per-player largest gains and the worst trigger; see the module docstring.
    ``exact=True`` computes in rational arithmetic (the gap is then a Fraction)."""
    plans, probs = check_support(sf, plans, probabilities)
    if exact:
        probs = _exact_probabilities(probs)
    gains, worst, largest = [], {}, None
    for i in range(sf.num_players):
        g = player_trigger_gains(sf, plans, probs, i, exact)
        if g.shape[0] <= 1:
            gains.append(Fraction(0) if exact else 0.0)
            continue
        k = 1 + int(np.argmax(np.array([float(x) for x in g[1:]])))
        gains.append(g[k])
        if largest is None or g[k] > largest:
            largest = g[k]
            worst = {"player": i + 1, "trigger": sf.players[i].sequence_label(k),
                     "gain": float(g[k])}
    if largest is None:
        largest = Fraction(0) if exact else 0.0
    zero = Fraction(0) if exact else 0.0
    return CorrelatedGap("efce", max(zero, largest), largest, gains, worst)
