"""The public entry points: :func:`solve`, :func:`evaluate`, :func:`compile_game`.

``solve(game, concept="nash")`` runs the whole flow of DESIGN.md: game → SequenceForm →
LinearProgram (one module of :mod:`lpgame.equilibria` per concept) → backend → Result, and attaches a
certificate computed by the independent best-response path of :mod:`lpgame.analysis`.

Example
-------
>>> import lpgame
>>> result = lpgame.solve(lpgame.games.make("kuhn_poker"), exact=True)
>>> result.value
Fraction(-1, 18)
>>> result.certificate.nash_conv
Fraction(0, 1)
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from lpgame.analysis.best_response import best_response, best_response_value_exact
from lpgame.analysis.exploitability import Evaluation, evaluate_plans, evaluate_plans_exact
from lpgame.compile import as_game, compile_game  # noqa: F401  (public names of lpgame.api)
from lpgame.errors import ExactCheckError, LpgameError, SolverTimeLimitError
from lpgame.result import Certificate, Result
from lpgame.sequence_form import SequenceForm

CONCEPTS = ("nash", "maximin", "ce", "cce", "efce", "efcce", "nfcce")
ALGORITHMS = ("lp", "double_oracle")


def solve(game, concept: str = "nash", exact: bool = False, backend: str = "highs",
          abstraction: str | None = None, algorithm: str = "lp", **options) -> Result:
    """Solve ``game`` for a solution concept and certify the answer.

    Parameters
    ----------
    game:
        A Game, NormalFormGame, rules object, SequenceForm, catalog name or game file path.
    concept:
        ``"nash"`` (two-player zero-sum/constant-sum: the sequence-form LP) or ``"maximin"``
        (each player's security strategy in a two-player game, general-sum allowed);
        ``"ce"``/``"cce"`` (normal form, or an extensive game's reduced normal form) and
        ``"efce"``/``"efcce"``/``"nfcce"`` (two-player correlation plans) return a
        :class:`~lpgame.equilibria.correlated.CorrelatedResult`; pass ``objective="welfare"``,
        ``"player1"``, ``"player2"`` or weights ``(w1, w2)`` (see
        :func:`lpgame.equilibria.correlated.solve_correlated`).
    exact:
        Return :class:`fractions.Fraction` values certified in rational arithmetic.
    backend:
        ``"highs"`` (default), ``"pyomo"`` or ``"cvxpy"`` (both solve with HiGHS).
    abstraction:
        ``"gameshrink"``: shrink a game with ordered signals losslessly first, solve the abstract
        game, lift the strategies and certify them in the original game
        (:mod:`lpgame.abstraction.solve`; the result's ``extra["abstraction"]`` holds the sizes).
    algorithm:
        For ``concept="nash"``: ``"lp"`` (default) solves the whole sequence-form LP;
        ``"double_oracle"`` solves LPs of restricted games grown by best responses until the
        full-game gap closes (:mod:`lpgame.equilibria.double_oracle`), for games whose equilibria
        use a small part of a large tree (Dudo). Floating point only.
    options:
        Passed to the backend (``solver``, ``threads``, ``time_limit``, ...).
    """
    if algorithm not in ALGORITHMS:
        raise LpgameError(f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
    if algorithm != "lp" and (concept != "nash" or abstraction is not None):
        raise LpgameError(f"algorithm {algorithm!r} solves concept 'nash' without abstraction; "
                          f"got concept {concept!r}" + (f" with abstraction {abstraction!r}"
                                                        if abstraction is not None else ""))
    if abstraction is not None:
        from lpgame.abstraction.solve import solve_with_abstraction
        return solve_with_abstraction(game, abstraction, concept, exact, backend, **options)
    start = time.perf_counter()
    if concept in ("ce", "cce", "efce", "efcce", "nfcce"):
        from lpgame.equilibria.correlated import solve_correlated
        result = solve_correlated(game, concept, exact=exact, backend=backend, **options)
        result.seconds["total"] = time.perf_counter() - start
        return result
    sf = compile_game(game)
    if concept == "nash":
        result = _solve_nash(sf, exact, backend, options, algorithm)
    elif concept == "maximin":
        result = _solve_maximin(sf, exact, backend, options)
    else:
        raise LpgameError(f"unknown concept {concept!r}; choose one of {', '.join(CONCEPTS)}")
    result.seconds["total"] = time.perf_counter() - start
    return result


def _behaviours(sf: SequenceForm, plans, exact: bool) -> list[tuple[object, object]]:
    """(behaviour vector, mask of unreached information sets) of each player's plan."""
    if exact:
        return [sf.behaviour_from_plan_exact(i, plan) for i, plan in enumerate(plans)]
    return [sf.behaviour_from_plan(i, plan) for i, plan in enumerate(plans)]


def _strategies(sf: SequenceForm, plans, exact: bool, behaviours=None):
    strategies, unreached = [], []
    for i, (b, mask) in enumerate(behaviours or _behaviours(sf, plans, exact)):
        strategies.append(sf.strategy_to_dict(i, b))
        labels = sf.players[i].infoset_labels      # read, not copied
        unreached.append([labels[j] for j in np.flatnonzero(mask).tolist()])
    return strategies, unreached


def _behaviour_plans(sf: SequenceForm, plans, exact: bool, behaviours=None):
    """Plans rebuilt from the returned behaviour (what the user gets is what is certified)."""
    out = []
    for i, (b, _) in enumerate(behaviours or _behaviours(sf, plans, exact)):
        out.append(sf.plan_from_behaviour_exact(i, b) if exact else sf.plan_from_behaviour(i, b))
    return out


def _solve_nash(sf: SequenceForm, exact: bool, backend: str, options: dict,
                algorithm: str = "lp") -> Result:
    from lpgame.equilibria.zero_sum import solve_zero_sum

    extra = {}
    if algorithm == "double_oracle":
        from lpgame.equilibria.double_oracle import solve_zero_sum_double_oracle
        sol = solve_zero_sum_double_oracle(sf, exact=exact, backend=backend, **options)
        last = sol.rounds[-1]
        extra["double_oracle"] = {
            "rounds": len(sol.rounds), "kept_sequences": list(last.kept_sequences),
            "sequences": [sf.num_sequences(0), sf.num_sequences(1)],
            "bounds": [last.lower, last.upper]}
    else:
        try:
            sol = solve_zero_sum(sf, exact=exact, backend=backend, **options)
        except SolverTimeLimitError as error:   # name the other algorithm for large trees
            raise SolverTimeLimitError(
                f"{error} (where the equilibrium uses a small part of a large tree, as in Dudo, "
                "algorithm='double_oracle' solves small restricted LPs instead)",
                error.status, error.size, error.best_bound, error.objective) from error
    behaviours = _behaviours(sf, sol.plans, exact)
    strategies, unreached = _strategies(sf, sol.plans, exact, behaviours)
    plans = _behaviour_plans(sf, sol.plans, exact, behaviours)
    if exact:
        ev = evaluate_plans_exact(sf, plans)
        if ev.nash_conv != 0:
            raise ExactCheckError(
                f"exact mode: the certified basis gives a profile with exact NashConv "
                f"{ev.nash_conv}, not 0")
        if ev.values[0] != sol.value:
            raise ExactCheckError(f"exact mode: LP value {sol.value} differs from the profile's "
                                  f"exact value {ev.values[0]}")
    else:
        ev = evaluate_plans(sf, plans)
    cert = Certificate(ev.nash_conv, ev.exploitability, ev.best_response_gain, exact)
    info = sol.lp_solution
    return Result(
        game=sf.game.name, concept="nash", value=sol.value, values=list(ev.values),
        strategies=strategies, certificate=cert, size=sol.lp.size(),
        seconds=({"solve": sum(r.seconds for r in sol.rounds),
                  "lp": sum(r.lp_seconds for r in sol.rounds)} if sol.rounds
                 else {"solve": info.seconds}),
        backend=backend, exact=exact, unreached=unreached, plans=plans, lp=sol.lp, extra=extra)


def _solve_maximin(sf: SequenceForm, exact: bool, backend: str, options: dict) -> Result:
    """Each player's maximin strategy and value; the duals give the minimax (punishing) ones."""
    from lpgame.equilibria.maximin import solve_maximin

    sols = solve_maximin(sf, exact=exact, backend=backend, **options)
    maximin_plans = [sols[i].plans[i] for i in range(2)]
    minimax_plans = [sols[1 - i].plans[i] for i in range(2)]
    behaviours = _behaviours(sf, maximin_plans, exact)
    strategies, unreached = _strategies(sf, maximin_plans, exact, behaviours)
    minimax, _ = _strategies(sf, minimax_plans, exact)
    plans = _behaviour_plans(sf, maximin_plans, exact, behaviours)
    # certificate: what each maximin strategy guarantees against the worst opponent reply
    guarantees, gaps = [], []
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
        gaps.append(sols[i].value - worst)
    if exact and any(g != 0 for g in gaps):
        raise ExactCheckError(f"exact mode: maximin strategies guarantee {guarantees}, not the LP "
                              f"values {[s.value for s in sols]}")
    ev = (evaluate_plans_exact if exact else evaluate_plans)(sf, plans)
    cert = Certificate(ev.nash_conv, ev.exploitability, ev.best_response_gain, exact,
                       extra={"guaranteed": guarantees, "security_gap": gaps})
    size = sols[0].lp.size()
    return Result(
        game=sf.game.name, concept="maximin", value=sols[0].value,
        values=[s.value for s in sols], strategies=strategies, certificate=cert, size=size,
        seconds={"solve": sum(s.lp_solution.seconds for s in sols)}, backend=backend,
        exact=exact, unreached=unreached, extra={"minimax_strategies": minimax}, plans=plans,
        lp=sols[0].lp)


def evaluate(game, strategies: Sequence, exact: bool = False) -> Evaluation:
    """Values, best-response gains, NashConv and exploitability of a strategy profile.

    ``strategies`` is one ``{information set: {action: probability}}`` per player (or a
    :class:`~lpgame.result.Result`). Computed bottom-up on the sequence form, without any LP.
    """
    sf = compile_game(game)
    if isinstance(strategies, Result):
        strategies = strategies.strategies
    if len(strategies) != sf.num_players:
        raise LpgameError(f"{sf.game.name} has {sf.num_players} players; got {len(strategies)} "
                          "strategies")
    if exact:
        behaviours = [sf.behaviour_from_dict_exact(i, s) for i, s in enumerate(strategies)]
        plans = [sf.plan_from_behaviour_exact(i, b) for i, b in enumerate(behaviours)]
        return evaluate_plans_exact(sf, plans)
    behaviours = [sf.behaviour_from_dict(i, s) for i, s in enumerate(strategies)]
    plans = [sf.plan_from_behaviour(i, b) for i, b in enumerate(behaviours)]
    return evaluate_plans(sf, plans)
