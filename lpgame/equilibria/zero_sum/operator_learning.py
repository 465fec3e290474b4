"""An approximate Nash equilibrium of an ordered-signal game by CFR through the showdown operator.

Setting: the sequence-form saddle point max_x min_y xᵀUy over the treeplexes X, Y of a two-player
ordered-signal poker game (Koller, Megiddo & von Stengel 1996), with U applied, never stored, by
:class:`lpgame.game.showdown_operator.SignalPayoffOperator` (sorted-strength prefix sums; Johanson
et al., IJCAI 2011, §4). :class:`lpgame.learning.operator_cfr.OperatorCFR` runs CFR+ (Tammelin et
al., IJCAI 2015), DCFR(1.5, 0, 2) (Brown & Sandholm, AAAI 2019) or predictive CFR+ (Farina, Kroer
& Sandholm, AAAI 2021) on the filter's treeplexes with the gradients U·y and −Uᵀx.

The answer is the averaged profile (x̄, ȳ) lifted to the game's own information sets
(:func:`lpgame.equilibria.zero_sum.signal_operator_lp.lifted_profile`), and it is certified, not
trusted: with BR_1 = max_x xᵀUȳ and BR_2 = min_y x̄ᵀUy computed by the operator's best responses on
the unfiltered game,

    NashConv(x̄, ȳ) = BR_1 − BR_2 ≥ 0,        BR_2 ≤ v* ≤ BR_1,

so the game value v* lies in the reported interval [BR_2, BR_1] of width NashConv (von Neumann's
minimax theorem). The run stops when NashConv ≤ ``target_nash_conv`` × payoff range, or at the
iteration or time limit, keeping the best certified average; the result is approximate (never
labelled optimal) and says which way it stopped.

Registered as the ``nash`` variant ``operator_cfr`` (``lpgame.solve(game, method="operator_cfr")``,
``lpgame solve leduc_poker deal=cards --method operator_cfr``); it reads the game's rules like the
exact route :mod:`lpgame.equilibria.zero_sum.signal_operator_lp`, and builds no leaf.
"""

from __future__ import annotations

import time

from lpgame import progress
from lpgame.equilibria.zero_sum.signal_operator_lp import (
    FILTERS,
    lifted_profile,
    payoff_range,
    signal_operator,
)
from lpgame.errors import OptionError
from lpgame.game.showdown_operator import SignalPayoffOperator
from lpgame.learning.operator_cfr import ALGORITHMS, OperatorCFR
from lpgame.registry import SOLVER_OPTIONS, Concept, Option, register
from lpgame.result import Certificate, Result

CHECK_EVERY = 10
"""Iterations between two certificates of the filtered average (each costs about one iteration)."""


def _certify(op: SignalPayoffOperator, full: SignalPayoffOperator, plans) -> tuple[dict, tuple]:
    """The operator certificate of the filtered ``plans`` lifted to the game (module docstring)."""
    profile = lifted_profile(op, full, plans)
    return full.nash_conv(*profile[0]), profile


def solve_nash_operator_cfr(game, *, exact: bool = False, backend: str = "highs",
                            method: str = "operator_cfr", algorithm: str = "dcfr",
                            iterations: int = 100_000, target_nash_conv: float = 1e-3,
                            operator_filter: str = "gameshrink", time_limit: float | None = None,
                            **solver_options) -> Result:
    """``lpgame.solve(game, method="operator_cfr")``: the module docstring's learned profile, its
    NashConv relative to the payoff range and the value interval [BR_2, BR_1]."""
    if exact:
        raise OptionError("method='operator_cfr' learns a floating-point profile (its NashConv is "
                          "certified); exact mode needs method='signal_operator'")
    if algorithm not in ALGORITHMS:
        raise OptionError(f"unknown algorithm {algorithm!r} for method='operator_cfr'; choose one "
                          f"of {', '.join(ALGORITHMS)}")
    if not 0 < float(target_nash_conv) < 1:
        raise OptionError(f"target_nash_conv is a fraction of the payoff range in (0, 1); got "
                          f"{target_nash_conv!r}")
    if int(iterations) < 1:
        raise OptionError(f"iterations must be at least 1; got {iterations!r}")
    if time_limit is not None and float(time_limit) <= 0:
        raise OptionError(f"time_limit must be positive (seconds); got {time_limit!r}")
    memory_limit = solver_options.pop("memory_limit", None)
    unused = sorted(k for k, v in solver_options.items() if v is not None and k in SOLVER_OPTIONS)
    if unused:
        raise OptionError(f"method='operator_cfr' runs no LP solver; {', '.join(unused)} does not "
                          "apply to it (time_limit and iterations bound the run)")
    start = time.perf_counter()
    progress.stage("building the showdown operator")
    op, explicit = signal_operator(game, operator_filter, memory_limit)
    full = op if operator_filter == "none" else SignalPayoffOperator(op.game, None, None,
                                                                     memory_limit)
    spread = payoff_range(full)
    built = time.perf_counter()
    progress.stage(f"learning ({algorithm})")
    cfr = OperatorCFR([op.treeplex(0), op.treeplex(1)], op.sequence_payoffs, algorithm)
    best, status, history = None, "iteration limit", []
    while cfr.t < iterations:
        cfr.iterate(min(CHECK_EVERY, iterations - cfr.t))
        elapsed = time.perf_counter() - built
        out_of_time = time_limit is not None and elapsed >= time_limit
        filtered = op.nash_conv(*cfr.average())["nash_conv"]
        if best is None or filtered < best[0] or cfr.t >= iterations or out_of_time \
                or filtered <= target_nash_conv * spread:
            cert, profile = _certify(op, full, cfr.average())
            if best is None or cert["nash_conv"] <= best[1]["nash_conv"]:
                best = (filtered, cert, profile, cfr.t)
            history.append([cfr.t, round(elapsed, 3), cert["nash_conv"] / spread])
            progress.report(f"operator CFR ({algorithm})", iteration=cfr.t,
                            relative_nash_conv=cert["nash_conv"] / spread,
                            value_low=cert["best_response_2"], value_high=cert["best_response_1"])
            if best[1]["nash_conv"] <= target_nash_conv * spread:
                status = "converged"
                break
        if out_of_time:
            status = "time limit"
            break
    _, cert, (plans, strategies, unreached), best_t = best
    learned = time.perf_counter()
    relative_nash_conv = cert["nash_conv"] / spread
    certificate = Certificate(cert["nash_conv"], cert["nash_conv"] / 2, list(cert["gains"]),
                              deviations="best responses of each player in the unfiltered game, "
                              "through the showdown operator (lpgame.game.showdown_operator)")
    certificate.extra.update({"payoff_range": spread, "relative_nash_conv": relative_nash_conv,
                              "value_interval": [cert["best_response_2"],
                                                 cert["best_response_1"]]})
    name = getattr(explicit, "name", None) or op.game.name
    return Result(
        game=name, concept="nash", variant="operator_cfr", value=cert["value"],
        values=[cert["value"], -cert["value"]], strategies=strategies, certificate=certificate,
        size={"sequences": list(op.num_sequences),
              "infosets": [op.treeplex(0).num_infosets, op.treeplex(1).num_infosets]},
        seconds={"operator": built - start, "solve": learned - built,
                 "total": time.perf_counter() - start},
        backend=backend, exact=False, unreached=unreached, plans=plans,
        solver={"name": f"operator CFR ({algorithm}), approximate: {status} after {cfr.t} "
                        f"iterations, not optimal", "backend": "learning",
                "tolerance": float(target_nash_conv), "exact_certification": False},
        extra={"method": "operator_cfr", "optimal": False, "status": status,
               "algorithm": algorithm, "iterations": cfr.t, "best_iteration": best_t,
               "target_nash_conv": float(target_nash_conv),
               "relative_nash_conv": relative_nash_conv,
               "value_interval": [cert["best_response_2"], cert["best_response_1"]],
               "operator_filter": operator_filter, "history": history,
               "boards": [len(rd.boards) for rd in op.rounds]})


register(Concept(
    name="nash", variant="operator_cfr", games=("zero_sum",), solve=solve_nash_operator_cfr,
    requires=("method=operator_cfr",), exact=False, backends=("highs",), reads_source=True,
    summary="approximate Nash equilibrium of an ordered-signal poker game (Leduc, Rhode Island "
            "Hold'em) by CFR+/DCFR/PCFR+ with payoffs through the showdown operator: no leaf is "
            "built; the answer is certified, not optimal",
    certificate="each player's best-response gain in the unfiltered game (NashConv, relative to "
                "the payoff range) through the showdown operator, and the value interval "
                "[BR_2, BR_1]",
    source="Tammelin et al. IJCAI 2015; Brown & Sandholm AAAI 2019; Farina, Kroer & Sandholm "
           "AAAI 2021; Johanson et al. IJCAI 2011 §4",
    options=(
        Option("method", str, None, "operator_cfr: regret minimisation through the showdown "
               "operator (ordered-signal games; approximate, certified)",
               choices=("operator_cfr",)),
        Option("algorithm", str, "dcfr", "operator_cfr: dcfr, cfr+ or pcfr+", choices=ALGORITHMS),
        Option("iterations", int, 100_000, "operator_cfr: iteration limit", minimum=1),
        Option("target_nash_conv", float, 1e-3, "operator_cfr: stop at this NashConv, as a "
               "fraction of the payoff range"),
        Option("operator_filter", str, "gameshrink", "operator_cfr: gameshrink (the sound filter "
               "and the suit group), suits (suit orbits) or none", choices=FILTERS),
    ),
))


__all__ = ["solve_nash_operator_cfr", "CHECK_EVERY"]
