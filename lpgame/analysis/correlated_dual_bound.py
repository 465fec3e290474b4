"""Exact deviation gains and a weak-duality bound for normal-form correlated equilibria.

Both read only the payoff tensor u (shape (n, |S_1|, …, |S_n|)) and the candidate: never an LP.
Entries may be floats or Fractions (numpy object arrays): with Fractions every sum is exact.

**Gains** (Aumann 1974; Rojas Linárez 2020, Def. 1.12; notes/farina-thesis.md §1.9), as in
:mod:`lpgame.analysis.normal_form_correlated_gaps` but in any number type:

    CE:   gain_i(x → y) = Σ_{s_{-i}} ψ(x, s_{-i}) [u_i(y, s_{-i}) − u_i(x, s_{-i})],
    CCE:  gain_i(y)     = Σ_s ψ(s) [u_i(y, s_{-i}) − u_i(s)].

**Bound** (weak LP duality; e.g. Chvátal 1983, ch. 5). For any multipliers λ ≥ 0 of the
incentive rows, every correlated equilibrium ψ has Σ_s ψ(s) A(s) ≥ 0 row by row, so

    Σ_s ψ(s) c(s) ≤ Σ_s ψ(s) [c(s) + Σ_k λ_k A_k(s)] ≤ max_s [c(s) + Σ_k λ_k A_k(s)],

with c(s) = Σ_i w_i u_i(s) and, per player i and recommendation x = s_i,

    CE:   Σ_k λ_k A_k(s) = Σ_i Σ_{y} λ_i[x, y] (u_i(x, s_{-i}) − u_i(y, s_{-i})),
    CCE:  Σ_k λ_k A_k(s) = Σ_i Σ_{y} λ_i[y]    (u_i(s)          − u_i(y, s_{-i})).

The right-hand side bounds the optimal objective over all CE (CCE) for **any** λ ≥ 0: negative
entries are set to 0 first, so a solver's approximate duals still give a valid bound. At the LP's
optimal duals it equals the optimum (strong duality): bound == value proves the value optimal.
In floating point the sums carry rounding of about 1e-16 of the payoffs' magnitude per term.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from lpgame.errors import StrategyError
from lpgame.rational import common_denominator


@dataclass
class ExactGains:
    """The largest deviation gain of a distribution (``gap`` = max(0, largest)), per player."""

    concept: str
    gap: object
    largest_gain: object
    gains: list
    worst: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        def out(v):
            return str(v) if isinstance(v, Fraction) else float(v)
        return {"concept": self.concept, "gap": out(self.gap), "largest_gain": out(self.largest_gain),
                "gains": [out(g) for g in self.gains], "worst": self.worst}


def _integers(values: np.ndarray) -> tuple[np.ndarray, object]:
    """(N, D) with values == N / D: Python integers over one denominator for a Fraction array
    (sums and products are then integer operations), the floats themselves with D = 1.0."""
    if values.dtype != object:
        return values.astype(float), 1.0
    nums, den = common_denominator(values.ravel().tolist())
    return nums.reshape(values.shape), den


def _value(num, den):
    return Fraction(num, den) if isinstance(den, int) else num / den


def _moved(arr: np.ndarray, player: int) -> np.ndarray:
    return np.moveaxis(arr, player, 0).reshape(arr.shape[player], -1)


def _check_distribution(psi: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    if psi.size != math.prod(shape):
        raise StrategyError(f"a distribution over {shape} profiles needs {math.prod(shape)} "
                            f"entries, got {psi.size}")
    psi = psi.reshape(shape)
    exact = psi.dtype == object
    if exact:
        if any(v < 0 for v in psi.ravel().tolist()) or sum(psi.ravel().tolist(), Fraction(0)) != 1:
            raise StrategyError("not a probability distribution in exact arithmetic: entries "
                                "must be ≥ 0 and sum to exactly 1")
    return psi


def correlated_gains(payoffs: np.ndarray, distribution: np.ndarray, coarse: bool,
                     labels: list[list[str]] | None = None) -> ExactGains:
    """CE (``coarse=False``) or CCE gains of ``distribution`` (module docstring), exact when
    both arrays hold Fractions."""
    payoffs = np.asarray(payoffs)
    psi = _check_distribution(np.asarray(distribution), payoffs.shape[1:])
    if (payoffs.dtype == object) != (psi.dtype == object):
        raise StrategyError("payoffs and distribution must both be exact (Fractions) or floats")
    payoffs, u_den = _integers(payoffs)
    psi, p_den = _integers(psi)
    gains, worst = [], (None, {})
    for i in range(payoffs.shape[0]):
        p, u = _moved(psi, i), _moved(payoffs[i], i)
        m = u.shape[0]
        if coarse:
            value = (p * u).sum()
            deviation = u.dot(p.sum(axis=0)) - value          # [y]
            candidates = [((y,), deviation[y]) for y in range(m)]
        else:
            cross = p.dot(u.T)                       # [x, y] = Σ ψ(x, ·) u_i(y, ·)
            candidates = [((x, y), cross[x, y] - cross[x, x])
                          for x in range(m) for y in range(m) if x != y]
        if not candidates:
            candidates = [((0,), 0 * payoffs.flat[0])]
        where, best = max(candidates, key=lambda c: c[1])
        best = _value(best, u_den * p_den)
        gains.append(best)
        if worst[0] is None or best > worst[0]:
            names = labels[i] if labels is not None else None
            named = [names[k] if names else int(k) for k in where]
            worst = (best, {"player": i + 1, **({"deviation": named[0]} if coarse or len(named) == 1
                                                else {"recommended": named[0],
                                                      "deviation": named[1]})})
    largest = max(gains)
    return ExactGains("cce" if coarse else "ce", max(0 * largest, largest), largest, gains,
                      worst[1])


def correlated_dual_bound(payoffs: np.ndarray, weights, multipliers: list, coarse: bool
                          ) -> tuple[object, tuple[int, ...]]:
    """(bound, profile): max_s [c(s) + Σ_k λ_k A_k(s)] of the module docstring and a profile
    attaining it. ``multipliers[i]`` is λ_i: an (|S_i|, |S_i|) array λ_i[x, y] (CE; the diagonal
    is ignored) or an (|S_i|,) array λ_i[y] (CCE); negative entries count as 0. Exact when the
    payoffs, weights and multipliers are Fractions."""
    payoffs = np.asarray(payoffs)
    n, shape = payoffs.shape[0], payoffs.shape[1:]
    exact = payoffs.dtype == object
    payoffs, u_den = _integers(payoffs)
    lams = [np.asarray(m) for m in multipliers]
    lams = [np.where(lam > 0, lam, 0 * lam) for lam in lams]
    sizes = [lam.size for lam in lams]
    joined, l_den = _integers(np.concatenate([lam.ravel() for lam in lams]).astype(
        object if exact else float))
    w, w_den = _integers(np.asarray(list(weights), dtype=object if exact else float))
    # every term over the denominator u_den·l_den·w_den: c(s) = Σ w_i u_i(s), λ·(gains)
    total = np.tensordot(w, payoffs, axes=1) * l_den
    offsets = np.cumsum([0] + sizes)
    for i in range(n):
        lam = joined[offsets[i]:offsets[i + 1]].reshape(lams[i].shape) * w_den
        u = _moved(payoffs[i], i)                              # (m, R)
        if coarse:
            term = u * lam.sum() - lam.dot(u)[None, :]         # [x, r]
        else:
            lam = lam.copy()
            np.fill_diagonal(lam, 0 * lam.flat[0] if lam.size else 0)
            term = u * lam.sum(axis=1)[:, None] - lam.dot(u)   # [x, r] = Σ_y λ[x,y](u[x]−u[y])
        moved_shape = (shape[i],) + tuple(s for k, s in enumerate(shape) if k != i)
        total = total + np.moveaxis(term.reshape(moved_shape), 0, i)
    flat = total.ravel()
    k = max(range(flat.size), key=lambda j: flat[j]) if flat.dtype == object else int(np.argmax(flat))
    return (_value(flat[k], u_den * l_den * w_den),
            tuple(int(v) for v in np.unravel_index(k, shape)))
