"""Gaps of correlated distributions in normal form: the largest gain of any deviation (CE, CCE).

The checker reads only the payoff tensor and the candidate distribution ψ ∈ Δ(S), never an LP
(Rojas Linárez 2020, Def. 1.12; notes/farina-thesis.md §1.9):

* CE gap  = max_{i, x, y} Σ_{s_{-i}} ψ(x, s_{-i}) [u_i(y, s_{-i}) − u_i(x, s_{-i})]
  (the gain of obeying every recommendation except x, which is replaced by y);
* CCE gap = max_{i, y} Σ_s ψ(s) [u_i(y, s_{-i}) − u_i(s)].

Each gap is max(0, largest gain). :class:`CorrelatedGap` is the result of every gap of the
package (also of :mod:`lpgame.analysis.correlation_plan_gaps` and
:mod:`lpgame.analysis.n_player_correlated_gaps`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from lpgame.errors import InvalidGameError, StrategyError

DISTRIBUTION_TOLERANCE = 1e-6


@dataclass
class CorrelatedGap:
    """The gap of a candidate: ``gap`` = max(0, largest gain); ``gains`` per player; ``worst``
    names the most profitable deviation."""

    concept: str
    gap: float
    largest_gain: float
    gains: list[float]
    worst: dict = field(default_factory=dict)
    plan_residual: float | None = None

    def to_dict(self) -> dict:
        out = {"concept": self.concept, "gap": float(self.gap),
               "largest_gain": float(self.largest_gain),
               "gains": [float(g) for g in self.gains], "worst": self.worst}
        if self.plan_residual is not None:
            out["plan_residual"] = float(self.plan_residual)
        return out


# ---------------------------------------------------------------------------------------- normal form
def _payoff_tensor(game) -> tuple[np.ndarray, list[list[str]] | None]:
    payoffs = getattr(game, "payoffs", game)
    labels = getattr(game, "labels", None) or getattr(game, "actions", None)
    arr = np.asarray(payoffs, dtype=float)
    if arr.ndim != arr.shape[0] + 1:
        raise InvalidGameError(f"payoffs of shape {arr.shape} are not (n, |S_1|, ..., |S_n|)")
    return arr, labels


def _distribution(psi, shape: tuple[int, ...]) -> np.ndarray:
    psi = np.asarray(psi, dtype=float)
    if psi.size != math.prod(shape):
        raise StrategyError(f"a distribution over {shape} profiles needs {math.prod(shape)} "
                            f"entries, got {psi.size}")
    psi = psi.reshape(shape)
    if psi.min() < -DISTRIBUTION_TOLERANCE or abs(psi.sum() - 1.0) > DISTRIBUTION_TOLERANCE:
        raise StrategyError(f"not a probability distribution: entries ≥ {psi.min():.3g}, "
                            f"sum {psi.sum():.12g}")
    return psi


def _moved(arr: np.ndarray, player: int) -> np.ndarray:
    return np.moveaxis(arr, player, 0).reshape(arr.shape[player], -1)


def ce_gap(game, distribution) -> CorrelatedGap:
    """Normal-form CE gap of ``distribution`` (shape of the profile tensor, or flat).

    ``game``: a NormalFormGame, a :class:`~lpgame.equilibria.correlated.reduced_plans.StrategicForm`
    or a payoff array of shape (n, |S_1|, …, |S_n|).
    """
    payoffs, labels = _payoff_tensor(game)
    psi = _distribution(distribution, payoffs.shape[1:])
    gains, worst_all = [], (-np.inf, {})
    for i in range(payoffs.shape[0]):
        p, u = _moved(psi, i), _moved(payoffs[i], i)
        cross = p @ u.T                                     # [x, y] = Σ ψ(x, ·) u_i(y, ·)
        gain = cross - np.diag(cross)[:, None]
        np.fill_diagonal(gain, -np.inf if gain.shape[0] > 1 else 0.0)
        x, y = np.unravel_index(np.argmax(gain), gain.shape)
        gains.append(float(gain[x, y]))
        if gain[x, y] > worst_all[0]:
            names = labels[i] if labels is not None else None
            worst_all = (float(gain[x, y]), {
                "player": i + 1, "recommended": names[x] if names else int(x),
                "deviation": names[y] if names else int(y)})
    best = max(gains)
    return CorrelatedGap("ce", max(0.0, best), best, gains, worst_all[1])


def cce_gap(game, distribution) -> CorrelatedGap:
    """Normal-form CCE gap of ``distribution`` (arguments as :func:`ce_gap`)."""
    payoffs, labels = _payoff_tensor(game)
    psi = _distribution(distribution, payoffs.shape[1:])
    gains, worst_all = [], (-np.inf, {})
    for i in range(payoffs.shape[0]):
        p, u = _moved(psi, i), _moved(payoffs[i], i)
        value = float(np.sum(p * u))
        deviations = u @ p.sum(axis=0) - value
        y = int(np.argmax(deviations))
        gains.append(float(deviations[y]))
        if deviations[y] > worst_all[0]:
            names = labels[i] if labels is not None else None
            worst_all = (float(deviations[y]), {"player": i + 1,
                                                "deviation": names[y] if names else y})
    best = max(gains)
    return CorrelatedGap("cce", max(0.0, best), best, gains, worst_all[1])
