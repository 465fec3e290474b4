"""Maximin and minimax (security) strategies of a two-player game, general-sum allowed.

Player i's maximin value max_{x_i} min_{x_o} u_i(x_i, x_o) (Rojas Linárez 2020, App. C, Def. C.1;
von Neumann's LP pair of App. D, eq. (D.8)–(D.9), in sequence form) is the security LP of
:mod:`lpgame.equilibria.zero_sum.security` with U = U_i. Its primal is i's maximin strategy; the duals of its
``best_response`` block are the opponent's minimax strategy against i (the strategy that holds i
down to the value). In a zero-sum game both values agree with the Nash value (Thm C.3).
"""

from __future__ import annotations

import numpy as np

from lpgame.equilibria.zero_sum.security import security_lp
from lpgame.equilibria.zero_sum.solution import ZeroSumSolution
from lpgame.errors import ExactCheckError, InvalidGameError
from lpgame.lp import solve_lp, solve_lp_exact
from lpgame.sequence_form import SequenceForm


def solve_maximin(sf: SequenceForm, exact: bool = False, backend: str = "highs",
                  **options) -> list[ZeroSumSolution]:
    """For each player i: its maximin value, its maximin plan and the opponent's minimax plan.

    Returns one :class:`ZeroSumSolution` per player i, with ``value`` = i's maximin value and
    ``plans[i]`` = i's maximin plan, ``plans[1 - i]`` = the opponent's minimax plan against i.
    """
    if sf.num_players != 2:
        raise InvalidGameError(f"{sf.game.name}: maximin strategies are computed for two-player "
                               f"games; the game has {sf.num_players} players")
    if exact:
        if backend != "highs":
            raise ExactCheckError("exact mode reads HiGHS's optimal basis: use backend='highs'")
        options.setdefault("solver", "simplex")
    out = []
    for i in range(2):
        built = security_lp(sf, player=i, payoff_player=i, exact=exact)
        solve_options = built.solve_options(options, backend)
        plans = [None, None]
        if exact:
            solution, certified = solve_lp_exact(built.lp, backend=backend, **solve_options)
            plans[i] = certified.values(built.lp, "x")
            plans[1 - i] = certified.duals(built.lp, "best_response")
            value = built.value(certified.objective)
            path = certified.path
        else:
            solution = solve_lp(built.lp, backend=backend, **solve_options)
            plans[i] = np.clip(solution.values("x"), 0.0, None)
            plans[1 - i] = np.clip(solution.duals("best_response"), 0.0, None)
            value = built.value(solution.objective)
        out.append(ZeroSumSolution(value, plans, built.lp, solution, exact,
                                   exact_path=path if exact else None))
    return out


# ------------------------------------------------------------------------------ registry entry
def _maximin_certificate(sf: SequenceForm, plans, exact: bool, lp_values=None, minimax=None):
    """What each maximin plan guarantees against the worst opponent reply (an independent best
    response), the security gaps (LP value − guarantee) and the profile's evaluation.

    With ``minimax`` (each player's minimax plan against the other, as valid plans), the
    optimality certificate: player i's best reply to the opponent's minimax plan,
    max_x u_i(x, y*), bounds every guarantee min_y u_i(x, y) from above (weak duality of the
    security LP; von Neumann's minimax inequality), so a guarantee that meets it is the maximin
    value. Called optimal when the bound meets the guarantee within
    :data:`~lpgame.lp.dual_certificate.RELATIVE_TOLERANCE` × the payoff range (exactly in exact
    mode)."""
    from fractions import Fraction

    from lpgame.analysis.best_response import best_response, best_response_value_exact
    from lpgame.equilibria.profiles import nash_certificate
    from lpgame.lp.dual_certificate import optimality

    guarantees = []
    for i in range(2):
        o = 1 - i
        profile = [None, None]
        profile[i] = plans[i]
        if exact:
            profile[o] = [Fraction(0)] * sf.num_sequences(o)
            worst = -best_response_value_exact(sf, o, profile, payoff_of=i, sign=-1)
        else:
            profile[o] = np.zeros(sf.num_sequences(o))
            worst = -best_response(sf, o, profile, payoff_of=i, sign=-1.0).value
        guarantees.append(worst)
    ev, cert = nash_certificate(sf, plans, exact)
    gaps = [v - g for v, g in zip(lp_values, guarantees)] if lp_values is not None else None
    cert.extra["guaranteed"] = guarantees
    if gaps is not None:
        cert.extra["security_gap"] = gaps
        cert.gain = max(abs(g) for g in gaps)
    cert.deviations = ("the opponent's best reply to each maximin strategy (what it guarantees), "
                       "by lpgame.analysis")
    if minimax is not None:
        bounds, proofs = [], []
        for i in range(2):
            o = 1 - i
            profile = [None, None]
            profile[o] = minimax[o]
            if exact:
                profile[i] = [Fraction(0)] * sf.num_sequences(i)
                bounds.append(best_response_value_exact(sf, i, profile, payoff_of=i))
            else:
                profile[i] = np.zeros(sf.num_sequences(i))
                bounds.append(best_response(sf, i, profile, payoff_of=i).value)
            proofs.append(optimality(bounds[i], guarantees[i], cert.extra["payoff_range"]))
        cert.extra["objective_bound"] = bounds
        cert.extra["relative_bound_gap"] = [p["relative_bound_gap"] for p in proofs]
        cert.extra["optimality_proven"] = all(p["optimality_proven"] for p in proofs)
        cert.extra["bound_method"] = ("each player's best reply (lpgame.analysis.best_response) "
                                      "to the opponent's minimax strategy from the LP duals")
    return guarantees, gaps, ev, cert


def solve_maximin_concept(game, *, exact: bool = False, backend: str = "highs", **options):
    """``lpgame.solve(game, concept="maximin")``: each player's maximin strategy and value; the
    LP duals give the minimax (punishing) strategies. The certificate recomputes what each
    maximin strategy guarantees by an independent best response (``security_gap`` = LP value −
    guarantee, 0 up to tolerance, exactly 0 in exact mode)."""
    import time

    from lpgame.compile import compile_game
    from lpgame.equilibria.profiles import (
        behaviours,
        plans_from_behaviours,
        strategies_and_unreached,
    )
    from lpgame.lp.solution import solver_report
    from lpgame.result import Result

    start = time.perf_counter()
    sf = compile_game(game)
    sols = solve_maximin(sf, exact=exact, backend=backend, **options)
    maximin_plans = [sols[i].plans[i] for i in range(2)]
    minimax_plans = [sols[1 - i].plans[i] for i in range(2)]
    pairs = behaviours(sf, maximin_plans, exact)
    strategies, unreached = strategies_and_unreached(sf, pairs)
    minimax, _ = strategies_and_unreached(sf, behaviours(sf, minimax_plans, exact))
    plans = plans_from_behaviours(sf, pairs, exact)
    minimax_valid = plans_from_behaviours(sf, behaviours(sf, minimax_plans, exact), exact)
    guarantees, gaps, ev, cert = _maximin_certificate(sf, plans, exact, [s.value for s in sols],
                                                      minimax_valid)
    if exact and not cert.extra["optimality_proven"]:
        raise ExactCheckError(f"exact mode: the minimax strategies bound the maximin values by "
                              f"{', '.join(map(str, cert.extra['objective_bound']))}, not the "
                              f"guarantees {', '.join(map(str, guarantees))}")
    if exact and any(g != 0 for g in gaps):
        raise ExactCheckError(f"exact mode: maximin strategies guarantee "
                              f"{', '.join(map(str, guarantees))}, not the LP values "
                              f"{', '.join(str(s.value) for s in sols)}")
    if exact:
        cert.extra["exact_path"] = [s.exact_path for s in sols]
    # the reported values are what the returned strategies guarantee, by independent best
    # responses; the LP optima stay beside them (their differences are the security gaps)
    return Result(
        game=sf.game.name, concept="maximin", value=guarantees[0],
        values=list(guarantees), strategies=strategies, certificate=cert,
        size=sols[0].lp.size(),
        seconds={"solve": sum(s.lp_solution.seconds for s in sols),
                 "total": time.perf_counter() - start},
        backend=backend, exact=exact, unreached=unreached,
        extra={"minimax_strategies": minimax, "lp_objective": [s.value for s in sols]},
        plans=plans, lp=sols[0].lp, solver=solver_report(sols[0].lp_solution, exact))


def _certify_maximin_plans(sf: SequenceForm, plans, exact: bool, result=None):
    """``Concept.certify_plans``: the guarantees of lifted maximin plans in another game."""
    lp_values = list(result.values) if result is not None else None
    guarantees, _, _, cert = _maximin_certificate(sf, plans, exact, lp_values)
    return guarantees, cert


def _register() -> None:
    from lpgame.registry import Concept, register

    register(Concept(
        name="maximin", games=("general_sum",), solve=solve_maximin_concept,
        summary="each player's maximin (security) strategy and value, and the opponent's minimax "
                "strategy, by one sequence-form LP per player",
        certificate="the opponent's best reply to each maximin strategy (its guarantee)",
        source="von Neumann; Rojas Linárez 2020 App. C–D; Koller, Megiddo & von Stengel 1996",
        certify_plans=_certify_maximin_plans))


_register()
