"""Best responses to an opponent model, and the ε-safe best response LP with its frontier.

Opponent modelling (Hoehn 2006, Ch. 4; notes/gameshrink-and-hoehn.md §B.4, §B.7): player i holds a
model y_m of the opponent's strategy. The *best response* to the model maximises xᵀ U_i y_m and may
be badly exploitable (Hoehn's exploratory strategies lose up to 0.5 $/hand in the worst case). The
*ε-safe best response* trades the two off in one LP (the LP analogue of a restricted Nash response,
notes §B.7 "[derived]"): with the security LP of :mod:`lpgame.equilibria.zero_sum.security`
(Koller, Megiddo & von Stengel 1996),

    max_{x, v}  xᵀ U_i y_m
    s.t.        F_i x = f_i,  x ≥ 0,                              [treeplex]
                F_oᵀ v − U_iᵀ x ≤ 0,                              [best_response]
                f_oᵀ v ≥ v*_i − ε,                                [safety]

where v*_i is i's security (maximin) value, the game value for player 1 in a zero-sum game. The
security rows make f_oᵀ v a lower bound on min_y xᵀ U_i y (its LP dual), so every feasible x
guarantees at least v*_i − ε: its exploitability gap is at most ε. ε = 0 picks, among i's maximin
strategies, the one that earns most against the model; ε ≥ v*_i − (worst case of the safest best
response) gives the full best-response value. The optimal value is concave and piecewise linear in ε
(the frontier of Hoehn's explore–exploit trade-off).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from lpgame.analysis.best_response import best_response, sequence_payoffs
from lpgame.equilibria.zero_sum.security import security_lp
from lpgame.errors import InvalidGameError, StrategyError
from lpgame.lp import solve_lp
from lpgame.sequence_form import SequenceForm


@dataclass
class SafeResponse:
    """One point of the frontier: the strategy, its value against the model and its guarantee."""

    epsilon: float
    value_vs_model: float          # xᵀ U_i y_m
    guaranteed: float              # min over opponent strategies (independent best response)
    strategy: dict                 # {infoset: {action: probability}} of the responding player
    plan: np.ndarray


@dataclass
class SafeFrontier:
    """The ε-safe frontier from ε = 0 to the full best response."""

    player: int
    security_value: float          # v*_i
    best_response_value: float     # max_x xᵀ U_i y_m (no safety)
    full_epsilon: float            # smallest ε at which the best-response value is reached
    points: list[SafeResponse]

    def to_dict(self) -> dict:
        return {"player": self.player + 1, "security_value": self.security_value,
                "best_response_value": self.best_response_value,
                "full_epsilon": self.full_epsilon,
                "points": [{"epsilon": p.epsilon, "value_vs_model": p.value_vs_model,
                            "guaranteed": p.guaranteed, "strategy": p.strategy}
                           for p in self.points]}


def _model_plan(sf: SequenceForm, player: int, model) -> np.ndarray:
    opponent = 1 - player
    if isinstance(model, np.ndarray):
        if model.shape != (sf.num_sequences(opponent),):
            raise StrategyError(f"opponent model plan has shape {model.shape}, expected "
                                f"({sf.num_sequences(opponent)},)")
        return model.astype(float)
    if hasattr(model, "strategies"):
        model = model.strategies[opponent]
    if isinstance(model, (list, tuple)):
        model = model[opponent]
    behaviour = sf.behaviour_from_dict(opponent, model)
    return sf.plan_from_behaviour(opponent, behaviour)


def _check(sf: SequenceForm, player: int) -> None:
    if sf.num_players != 2:
        raise InvalidGameError(f"{sf.game.name}: safe best responses are defined for two players")
    if player not in (0, 1):
        raise InvalidGameError(f"player must be 0 or 1, got {player}")


def best_response_to_model(game, model, player: int = 0) -> SafeResponse:
    """Pure best response of ``player`` to the opponent ``model`` (a strategy dict, a profile
    list, a Result, or a realization plan), with its worst-case guarantee."""
    from lpgame.compile import compile_game

    sf = compile_game(game)
    _check(sf, player)
    plans = [None, None]
    plans[1 - player] = _model_plan(sf, player, model)
    plans[player] = np.zeros(sf.num_sequences(player))
    response = best_response(sf, player, plans)
    plan = sf.plan_from_behaviour(player, response.behaviour)
    return _point(sf, player, np.inf, plan, response.value)


def _point(sf: SequenceForm, player: int, epsilon: float, plan: np.ndarray,
           value: float) -> SafeResponse:
    opponent = 1 - player
    profile = [None, None]
    profile[player] = plan
    profile[opponent] = np.zeros(sf.num_sequences(opponent))
    guaranteed = -best_response(sf, opponent, profile, payoff_of=player, sign=-1.0).value
    behaviour, _ = sf.behaviour_from_plan(player, plan)
    return SafeResponse(float(epsilon), float(value), float(guaranteed),
                        sf.strategy_to_dict(player, behaviour.tolist()), plan)


def safe_best_response_lp(sf: SequenceForm, player: int, model_plan: np.ndarray,
                          floor: float):
    """The LP of the module docstring with the safety row f_oᵀ v ≥ ``floor`` (= v* − ε)."""
    built = security_lp(sf, player=player)
    lp = built.lp
    v = lp.block("v")
    x = lp.block("x")
    row = sp.csr_array((np.array([1.0]), (np.array([0]), np.array([0]))), shape=(1, v.size))
    lp.add_constraints("safety", [(v, row)], ">=", np.array([built.lp_value(floor)]),
                       labels=["v[∅] ≥ v* − ε"])     # v is in the LP's (unit-range) units
    plans = [None, None]
    plans[1 - player] = model_plan
    plans[player] = np.zeros(sf.num_sequences(player))
    c = sequence_payoffs(sf, player, plans)
    lp.set_objective([(x, c)], "max")
    lp.name = f"ε-safe best response of {sf.game.player_names[player]} in {sf.game.name}"
    return lp


def safe_best_response(game, model, epsilon: float, player: int = 0,
                       security_value: float | None = None, **options) -> SafeResponse:
    """The ε-safe best response of ``player`` to the opponent ``model`` (module docstring)."""
    from lpgame.compile import compile_game

    sf = compile_game(game)
    _check(sf, player)
    if epsilon < 0:
        raise InvalidGameError(f"ε must be non-negative, got {epsilon}")
    model_plan = _model_plan(sf, player, model)
    if security_value is None:
        security_value = _security_value(sf, player, **options)
    lp = safe_best_response_lp(sf, player, model_plan, security_value - epsilon)
    solution = solve_lp(lp, **options)
    plan = np.clip(solution.values("x"), 0.0, None)
    behaviour, _ = sf.behaviour_from_plan(player, plan)
    plan = sf.plan_from_behaviour(player, behaviour)
    value = float(plan @ _model_payoffs(sf, player, model_plan))
    return _point(sf, player, epsilon, plan, value)


def _model_payoffs(sf: SequenceForm, player: int, model_plan: np.ndarray) -> np.ndarray:
    plans = [None, None]
    plans[1 - player] = model_plan
    plans[player] = np.zeros(sf.num_sequences(player))
    return sequence_payoffs(sf, player, plans)


def _security_value(sf: SequenceForm, player: int, **options) -> float:
    built = security_lp(sf, player=player)
    return float(built.value(solve_lp(built.lp, **options).values("v")[0]))


def safe_frontier(game, model, player: int = 0, epsilons=None, num_points: int = 11,
                  **options) -> SafeFrontier:
    """ε-safe best responses from ε = 0 to the full best response.

    ``epsilons`` defaults to ``num_points`` equally spaced values in [0, ε_full], where ε_full is
    the smallest ε at which the best-response value is reachable: v*_i minus the largest guarantee
    among the best responses to the model (one more LP: maximise f_oᵀ v subject to the model value
    being the best-response value).
    """
    from lpgame.compile import compile_game

    sf = compile_game(game)
    _check(sf, player)
    model_plan = _model_plan(sf, player, model)
    v_star = _security_value(sf, player, **options)
    br = best_response_to_model(sf, model_plan, player)
    # the safest best response: max f_oᵀv s.t. xᵀc ≥ BR value (tolerance relative to the payoffs)
    built = security_lp(sf, player=player)
    lp = built.lp
    c = _model_payoffs(sf, player, model_plan)
    tolerance = 1e-9 * max(1.0, sf.game.payoff_range())
    lp.add_constraints("model_value", [(lp.block("x"), sp.csr_array(c.reshape(1, -1)))], ">=",
                       np.array([br.value_vs_model - tolerance]))
    safest = float(built.value(solve_lp(lp, **options).values("v")[0]))
    full_epsilon = max(v_star - safest, 0.0)
    if epsilons is None:
        epsilons = np.linspace(0.0, full_epsilon, max(int(num_points), 2))
    points = [safe_best_response(sf, model_plan, float(e), player, security_value=v_star,
                                 **options) for e in epsilons]
    return SafeFrontier(player, v_star, br.value_vs_model, full_epsilon, points)


__all__ = ["SafeResponse", "SafeFrontier", "best_response_to_model", "safe_best_response",
           "safe_best_response_lp", "safe_frontier"]
