"""Exact trembling-hand refinements of Nash equilibrium in two-player zero-sum games.

A Nash equilibrium says nothing about play where it never goes: the LP of
:mod:`lpgame.equilibria.zero_sum.nash` may leave Kuhn poker's "K check, opponent bets" arbitrary. The
refinements here make play rational at every information set (Farina 2023, ch. 12–13;
notes/farina-thesis.md §1.12–1.13):

* ``qpe``: the quasi-perfect equilibrium of Miltersen & Sørensen (2010): limit as ε → 0⁺ of the
  equilibria of the game in which every sequence σ has probability at least ε^depth(σ)
  (Prop. 13.2);
* ``efpe``: the extensive-form perfect equilibrium (Selten 1975): every action at least ε
  (Prop. 13.1);
* ``os-qpe``: the one-sided QPE (Farina & Sandholm 2021): only ``trembling_player`` trembles; the
  other player's strategy is rational against those mistakes (Prop. 13.3, with the erratum F_hᵀ).

Each is the limit solution of a trembling LP (:mod:`lpgame.equilibria.refinements.perturbed_lp`), computed
exactly by the stable-basis loop of §13.4 (:mod:`lpgame.equilibria.refinements.limit`). The answer states the
ξ at which a stable basis was found and, for QPE and one-sided QPE, the ε* for which the basis is proved
optimal on all of (0, ε*].

Strategies at information sets a player's own limit strategy never reaches are the limits of the
perturbed behaviour, b[ja] = lim x(ε)[ja] / x(ε)[p_j] (the ratio of the leading coefficients of
the exact expansions): refined play, not arbitrary. They are still listed in ``unreached``.

The certificate is computed apart from the LP (:mod:`lpgame.analysis`): the limit profile's NashConv
exactly (it must be 0), and the refinement's own property on the tree
(:mod:`lpgame.analysis.refinement_checks`) against the perturbed strategies the LP produced as a
witness: lexicographic (quasi-perfect) optimality at every information set for QPE, for both
players; perfect optimality to the order of the basis's series (Taylor, or Laurent when B(0) is
singular) for EFPE; for the one-sided QPE the
machine's play is checked lexicographically against the trembling player's perturbed strategy at
every information set the machine's own strategy reaches, and the trembling player's against the
machine's limit strategy.

The fallback chain, when no HiGHS basis is stable (:func:`lpgame.equilibria.refinements.limit.solve_limit`):
HiGHS on P(ξ) for ξ = 2⁻³ … 2⁻⁶⁰; then the exact simplex at fixed rational ξ = 2⁻¹⁰ … 2⁻¹⁰⁰
(:mod:`lpgame.equilibria.refinements.exact_limit`, the exact counterpart of the thesis's GLOP-MPFR stage,
L5813), each exact optimal basis tested for stability; then, as a last resort for QPE and one-sided QPE, the
exact criss-cross method over ℚ(ε) (:mod:`lpgame.equilibria.refinements.lexicographic`). When no basis is
certified stable before the time limit or the smallest ξ, the answer is partial and labelled so: the solution
of P(ξ) at the smallest ξ reached (the exact stage's optimum there, as floats, when it ran).
"""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np

from lpgame.analysis.exploitability import evaluate_plans, evaluate_plans_exact
from lpgame.analysis.refinement_checks import (
    perfect_check,
    quasi_perfect_check,
    witness_check,
)
from lpgame.compile import compile_game
from lpgame.equilibria.refinements.limit import LimitSolution, solve_limit
from lpgame.equilibria.refinements.perturbed_lp import (
    REFINEMENTS,
    RefinementLP,
    refinement_lp,
    sequence_depths,
)
from lpgame.errors import ConceptMismatchError, OptionError
from lpgame.registry import Concept, GameInfo, Option, fitting_names, register
from lpgame.result import Certificate, Result
from lpgame.sequence_form import SequenceForm

UNREACHED_NOTE = ("play at these information sets is refined (the limit of the trembling "
                  "strategies), not arbitrary")

UNREACHED_LABEL = {"qpe": "unreached: refined play", "efpe": "unreached: refined play",
                   "os-qpe": "unreached: refined for the trembling player only"}

SOLVER = {"name": "HiGHS dual simplex on P(ξ), then exact simplex at fixed rational ξ where "
                  "floats fall short; stable-basis test in rationals", "backend": "highs",
          "exact_certification": True}

DEVIATIONS = {
    "qpe": "best responses of each player (exact NashConv of the limit); lexicographic optimality "
           "at every information set against the perturbed opponent (both players)",
    "efpe": "best responses of each player (exact NashConv of the limit); optimality at every "
            "information set given both players' perturbed strategies, to the order of the basis's "
            "series expansion (Taylor, or Laurent when B(0) is singular)",
    "os-qpe": "best responses of each player (exact NashConv of the limit); the machine's "
              "lexicographic optimality against the trembling player's perturbed strategy",
}

NAMES = {"qpe": "quasi-perfect equilibrium (Miltersen–Sørensen)",
         "efpe": "extensive-form perfect equilibrium",
         "os-qpe": "one-sided quasi-perfect equilibrium"}


class RefinedResult(Result):
    """A profile :class:`~lpgame.result.Result` whose report also says what the refinement
    certified (the ε, the checks) and that play at unreached information sets is refined."""

    def body_lines(self, names: list[str], **options) -> list[str]:
        lines = super().body_lines(names, **options)
        info = self.extra.get("refinement", {})
        lines += ["", f"refinement: {NAMES.get(info.get('name'), info.get('name'))}, "
                  f"{info.get('status')}"]
        eps = info.get("epsilon", {})
        if info.get("status") == "certified":
            lines.append(f"  stable basis found at ξ = {eps.get('found_at')}; "
                         + (f"optimal for every ε in (0, {eps['certified_on']}]"
                            if eps.get("certified_on") else
                            f"optimal on some (0, ε̄] ({eps.get('expansion', 'Taylor')} test at "
                            "ε = 0)"))
        else:
            lines.append(f"  {info.get('message')}")
        for check in info.get("checks", []):
            lines.append(f"  player {check['player']}: {check['property']}: "
                         f"{'passed' if check['passed'] else 'FAILED'} "
                         f"({check['infosets_checked']} information sets)")
        if any(self.unreached):
            lines.append(f"  unreached information sets: {info.get('unreached_play')}")
        return lines


def _check_game(sf: SequenceForm) -> None:
    game = sf.game
    zero_sum = game.num_players == 2 and game.is_constant_sum(tol=1e-9 * game.payoff_range())
    if zero_sum:
        return
    info = GameInfo(game.name, game.num_players, False)
    applies = ", ".join(fitting_names(info)) or "maximin, correlated concepts"
    kind = "general-sum" if game.num_players == 2 else f"{game.num_players}-player"
    raise ConceptMismatchError(
        f"{game.name} is a {kind} game; the refinements qpe, efpe and os-qpe are defined here for "
        f"two-player zero-sum (or constant-sum) games; concepts that apply: {applies}")


def _check_options(refinement, trembling_player) -> int | None:
    if refinement not in REFINEMENTS:
        raise OptionError(f"unknown refinement {refinement!r}; choose one of "
                          f"{', '.join(REFINEMENTS)}")
    if trembling_player is None:
        return 1 if refinement == "os-qpe" else None
    if refinement != "os-qpe":
        raise OptionError(f"option 'trembling_player' applies to refinement 'os-qpe' only, not to "
                          f"{refinement!r} (both players tremble there)")
    if trembling_player not in (0, 1):
        raise OptionError(f"trembling_player must be 0 (player 1) or 1 (player 2); got "
                          f"{trembling_player!r}")
    return int(trembling_player)


def _series(rl: RefinementLP, limit: LimitSolution, player: int) -> list[list[Fraction]]:
    """Player's perturbed realization plan x(ε) as its coefficients [ε⁰, ε¹, ...]."""
    kind, block, shift = rl.read[player]
    series = limit.basis.series(rl.tlp.base, block, "primal" if kind == "primal" else "duals")
    if shift:
        terms = max(len(series), max(shift) + 1)
        size = len(series[0])
        series = [list(series[n]) if n < len(series) else [Fraction(0)] * size for n in range(terms)]
        for k, indicator in shift.items():
            for s in np.flatnonzero(indicator).tolist():
                series[k][s] += 1
    return series


def refined_behaviour(sf: SequenceForm, player: int, series: list[list[Fraction]]
                      ) -> tuple[list[Fraction], list[bool], list[bool]]:
    """(behaviour, unreached, unrefined): b[ja] = lim x(ε)[ja]/x(ε)[p_j], from the leading
    coefficients of x(ε)[p_j]; ``unreached`` where the limit plan has x[p_j] = 0; ``unrefined``
    where every coefficient of x(ε)[p_j] vanishes (then b is uniform: the perturbed plan does not
    reach j either, as the machine's in a one-sided QPE)."""
    p = sf.players[player]
    behaviour = [Fraction(1)] * p.num_sequences
    unreached, unrefined = [], []
    for j in range(p.num_infosets):
        parent = int(p.infoset_parent_seq[j])
        first, k = int(p.infoset_first_seq[j]), int(p.infoset_num_actions[j])
        reach = [term[parent] for term in series]
        unreached.append(reach[0] == 0)
        order = next((n for n, r in enumerate(reach) if r), None)
        if order is None:
            unrefined.append(True)
            behaviour[first:first + k] = [Fraction(1, k)] * k
            continue
        unrefined.append(False)
        total = sum((series[order][s] for s in range(first, first + k)), Fraction(0))
        behaviour[first:first + k] = [series[order][s] / total for s in range(first, first + k)]
    return behaviour, unreached, unrefined


def solve_refinement(game, refinement: str = "qpe", trembling_player: int | None = None,
                     time_limit: float | None = None, schedule: list[Fraction] | None = None,
                     exact_fallback: bool | str = True, exact_schedule: list[Fraction] | None = None,
                     **solver_options) -> RefinedResult:
    """The exact ``refinement`` (``qpe``, ``efpe`` or ``os-qpe``) of a two-player zero-sum game
    (module docstring). ``trembling_player`` (0 or 1; os-qpe only, default 1) names the player who
    trembles. ``schedule`` overrides the ξ sequence of :func:`lpgame.equilibria.refinements.limit.solve_limit`
    and ``exact_schedule`` that of its exact stage; ``exact_fallback`` chooses what runs when no
    HiGHS basis is stable: True (the exact simplex at fixed ξ, then the criss-cross method over
    ℚ(ε) for QPE and one-sided QPE), ``"simplex"``, ``"criss-cross"`` or False (neither).

    Raises :class:`~lpgame.errors.ConceptMismatchError` for a game that is not two-player
    zero-sum and :class:`~lpgame.errors.OptionError` for an unknown refinement; returns a partial,
    labelled answer when no basis is certified stable in time.
    """
    start = time.perf_counter()
    trembling_player = _check_options(refinement, trembling_player)
    sf = compile_game(game)
    _check_game(sf)
    rl = refinement_lp(sf, refinement, trembling_player if trembling_player is not None else 1)
    depth = max(int(sequence_depths(sf, i).max()) for i in range(2))
    terms = 2 * depth + 4 if refinement == "efpe" else None
    solver_options = {k: v for k, v in solver_options.items()
                      if k in ("threads", "highs_options") and v is not None}
    limit = solve_limit(rl.tlp, schedule=schedule, time_limit=time_limit, terms=terms,
                        exact_fallback=exact_fallback, exact_schedule=exact_schedule,
                        **solver_options)
    if not limit.stable:
        return _partial_result(sf, rl, limit, refinement, trembling_player, start)
    series = [_series(rl, limit, i) for i in range(2)]
    plans = [s[0] for s in series]
    behaviours, unreached, unrefined = zip(*(refined_behaviour(sf, i, series[i]) for i in range(2)))
    evaluation = evaluate_plans_exact(sf, plans)
    checks = _checks(sf, refinement, trembling_player, behaviours, series, plans)
    witness_problems = [f"player {i + 1}: {msg}" for i in range(2)
                        for msg in witness_check(sf, i, series[i], _lower_series(sf, rl, i))]
    basis = limit.basis
    info = {
        "name": refinement,
        "status": "certified",
        "trembling_player": None if trembling_player is None else trembling_player + 1,
        "epsilon": {"found_at": str(limit.xi), "basis_by": limit.how,
                    "certified_on": None if basis.certified_epsilon is None
                    else str(basis.certified_epsilon),
                    "method": basis.how, "terms": len(basis.primal),
                    "expansion": "Laurent" if basis.pole_order else "Taylor"},
        "attempts": limit.attempts,
        "checks": [c.to_dict() for c in checks],
        "witness_problems": witness_problems,
        "unreached_play": UNREACHED_NOTE if refinement != "os-qpe" else (
            UNREACHED_NOTE + " for the trembling player; the machine's own unreached sets are not "
            "refined (listed under 'unrefined')"),
        "unrefined": [[sf.players[i].infoset_labels[j] for j, u in enumerate(unrefined[i]) if u]
                      for i in range(2)],
        "seconds": {k: float(v) for k, v in limit.seconds.items()},
    }
    all_passed = all(c.passed for c in checks) and not witness_problems
    certificate = Certificate(evaluation.nash_conv, evaluation.exploitability,
                              evaluation.best_response_gain, exact=True,
                              extra={"refinement_property": "passed" if all_passed else "FAILED"},
                              deviations=DEVIATIONS[refinement])
    return RefinedResult(
        game=sf.game.name, concept="nash", variant="refinement", value=evaluation.values[0],
        values=evaluation.values,
        strategies=[sf.strategy_to_dict(i, behaviours[i]) for i in range(2)],
        certificate=certificate, size=rl.tlp.base.size(),
        seconds={"total": time.perf_counter() - start, "solve": limit.seconds.get("solve", 0.0),
                 "stability": limit.seconds.get("stability", 0.0)},
        solver=SOLVER, backend="highs", exact=True,
        unreached=[[sf.players[i].infoset_labels[j] for j, u in enumerate(unreached[i]) if u]
                   for i in range(2)],
        extra={"refinement": info, "unreached_label": UNREACHED_LABEL[refinement]}, plans=plans,
        lp=rl.tlp.base)


def _lower_series(sf: SequenceForm, rl: RefinementLP, player: int):
    """ℓ_i(ε) as a series where player i's plan must dominate it (QPE, the trembling player of a
    one-sided QPE); None (only x ≥ 0) otherwise."""
    if rl.refinement == "efpe" or player not in rl.trembling:
        return None
    depth = sequence_depths(sf, player)
    out = [[Fraction(0)] * len(depth) for _ in range(int(depth.max()) + 1)]
    for s, d in enumerate(depth.tolist()):
        out[d][s] = Fraction(1)
    return out


def _checks(sf, refinement, trembling_player, behaviours, series, plans):
    if refinement == "qpe":
        return [quasi_perfect_check(sf, i, behaviours[i], series[1 - i]) for i in range(2)]
    if refinement == "efpe":
        return [perfect_check(sf, i, behaviours[i], series[i], series[1 - i]) for i in range(2)]
    h = trembling_player
    m = 1 - h
    p = sf.players[m]
    reached = [plans[m][int(q)] > 0 for q in p.infoset_parent_seq.tolist()]
    return [quasi_perfect_check(sf, m, behaviours[m], series[h], reached_only=reached),
            quasi_perfect_check(sf, h, behaviours[h], [plans[m]],
                                against="the machine's limit strategy")]


def _partial_result(sf, rl, limit, refinement, trembling_player, start) -> RefinedResult:
    """The floating-point solution of P(ξ) at the smallest ξ reached, labelled as partial."""
    sol, lp = limit.solution, limit.lp
    xi = float(limit.xi)
    plans = []
    for i in range(2):
        kind, block, shift = rl.read[i]
        values = sol.values(block) if kind == "primal" else sol.duals(block)
        values = np.clip(np.asarray(values, dtype=float), 0.0, None)
        if shift:
            values = values + sum(xi ** k * ind for k, ind in shift.items())
        plans.append(values)
    pairs = [sf.behaviour_from_plan(i, plans[i]) for i in range(2)]
    evaluation = evaluate_plans(sf, [sf.plan_from_behaviour(i, pairs[i][0]) for i in range(2)])
    what = ("the equilibrium of the perturbed game P(ξ) computed exactly by the exact simplex "
            "at ξ (shown in floating point)" if sol.backend == "exact" else
            "the floating-point equilibrium of the perturbed game P(ξ)")
    message = (f"partial answer: {limit.reason}; no basis was certified stable; this is {what} "
               f"at the smallest ξ reached, ξ = {limit.xi} ≈ {xi:.3g}, not the limit")
    info = {"name": refinement, "status": "partial", "message": message,
            "trembling_player": None if trembling_player is None else trembling_player + 1,
            "epsilon": {"smallest_reached": str(limit.xi)}, "attempts": limit.attempts,
            "unreached_play": "every information set is reached by the perturbed strategies",
            "seconds": {k: float(v) for k, v in limit.seconds.items()}}
    return RefinedResult(
        game=sf.game.name, concept="nash", variant="refinement", value=evaluation.values[0],
        values=evaluation.values,
        strategies=[sf.strategy_to_dict(i, pairs[i][0]) for i in range(2)],
        certificate=Certificate(evaluation.nash_conv, evaluation.exploitability,
                                evaluation.best_response_gain, exact=False,
                                extra={"partial": "the perturbed game's equilibrium, not the limit"}),
        size=lp.size(), seconds={"total": time.perf_counter() - start,
                                 "solve": limit.seconds.get("solve", 0.0)},
        solver={**SOLVER, "exact_certification": False}, backend="highs", exact=False,
        unreached=[[sf.players[i].infoset_labels[j] for j, u in enumerate(pairs[i][1]) if u]
                   for i in range(2)],
        extra={"refinement": info}, plans=plans, lp=lp)


def refined_reference(game, refinement: str = "qpe", trembling_player: int | None = None,
                      **options) -> RefinedResult:
    """The refined equilibrium to compare an outside strategy with (``lpgame verify``/``draw``):
    its ``strategies`` prescribe rational play at every information set, ``unreached`` included.
    Same arguments as :func:`solve_refinement`."""
    return solve_refinement(game, refinement, trembling_player, **options)


def _solve(game, *, exact: bool = True, backend: str = "highs", refinement: str | None = None,
           trembling_player: int | None = None, time_limit: float | None = None, **options):
    """The registry's entry: ``trembling_player`` is numbered from 1, as every player option of
    :func:`lpgame.solve` and every command-line flag (``leader``, ``team``)."""
    if backend != "highs":
        raise OptionError(f"refinements read HiGHS's optimal basis; backend {backend!r} is not "
                          "supported, use backend='highs'")
    if trembling_player is not None:
        if trembling_player not in (1, 2):
            raise OptionError(f"trembling_player is player 1 or 2 (numbered from 1); got "
                              f"{trembling_player!r}")
        trembling_player -= 1
    return solve_refinement(game, refinement, trembling_player, time_limit=time_limit, **options)


register(Concept(
    name="nash", variant="refinement", games=("zero_sum",), requires=("refinement",),
    solve=_solve,
    summary="exact trembling-hand refinements of Nash equilibrium (QPE, EFPE, one-sided QPE): "
            "play rational at every information set",
    certificate="exact NashConv of the limit profile (0), and the refinement's own property on the "
                "tree: lexicographic optimality at every information set against the perturbed "
                "opponent (QPE, one-sided QPE) or perfect optimality to the order of the series (EFPE)",
    source="Farina 2023, ch. 12–13 (Props. 13.1–13.3, §13.4); Miltersen & Sørensen 2010",
    options=(Option("refinement", str, None, "trembling-hand refinement: qpe (quasi-perfect), efpe "
                    "(extensive-form perfect) or os-qpe (one-sided quasi-perfect)",
                    choices=REFINEMENTS),
             Option("trembling_player", int, None, "os-qpe only: the player who trembles, 1 or 2 "
                    "(default 2); the other player's play is made rational against those mistakes",
                    choices=(1, 2))),
    backends=("highs",), solvers=()))
