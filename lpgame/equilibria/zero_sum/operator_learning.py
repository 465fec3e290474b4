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
minimax theorem). The loop is :func:`lpgame.learning.operator_cfr.certified_run`: every
:data:`CHECK_EVERY` iterations the filtered game's NashConv (about one iteration's work) screens the
average, and the certificate on the unfiltered game (costlier: a minute on Rhode Island Hold'em) is
taken when the screen improved or reached the target and at least :data:`CERTIFY_SPACING` times the
last certificate's duration has passed since it, and always at the end. The run stops when a
certified NashConv ≤ ``target_nash_conv`` × payoff range, or at the iteration or time limit,
keeping the best certified average; the result is approximate (never labelled optimal) and says
which way it stopped. With ``checkpoint`` (a folder) the learner's state is saved there every
:data:`CHECKPOINT_EVERY` seconds and at the end, and a later run on the same game, filter and
algorithm goes on from it (``iterations`` counts all runs' iterations).

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
from lpgame.learning.operator_cfr import (
    ALGORITHMS,
    OperatorCFR,
    certified_run,
    checkpoint_folder,
)
from lpgame.registry import SOLVER_OPTIONS, Concept, Option, register
from lpgame.result import Certificate, Result

CHECK_EVERY = 10
"""Iterations between two screens of the filtered average (each costs about one iteration)."""

CERTIFY_SPACING = 4.0
"""A certificate waits this many times the last one's duration after it: certificates take at
most about a fifth of the run."""

CHECKPOINT_EVERY = 300.0
"""Seconds between two saves of the learner's state when ``checkpoint`` is given."""


def _certify(op: SignalPayoffOperator, full: SignalPayoffOperator, plans) -> dict:
    """The operator certificate of the filtered ``plans`` lifted to the game (module docstring)."""
    profile = lifted_profile(op, full, plans)
    cert = full.nash_conv(*profile[0])
    return {"nash_conv": cert["nash_conv"], "value_bounds": [cert["best_response_2"],
                                                             cert["best_response_1"]],
            "cert": cert, "profile": profile}


def solve_nash_operator_cfr(game, *, exact: bool = False, backend: str = "highs",
                            method: str = "operator_cfr", algorithm: str = "dcfr",
                            iterations: int = 100_000, target_nash_conv: float = 1e-3,
                            operator_filter: str = "gameshrink", time_limit: float | None = None,
                            checkpoint=None, **solver_options) -> Result:
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
    if checkpoint is not None:
        checkpoint_folder(checkpoint)        # a bad folder is refused before any work
    memory_limit = solver_options.pop("memory_limit", None)
    unused = sorted(k for k, v in solver_options.items() if v is not None and k in SOLVER_OPTIONS)
    if unused:
        raise OptionError(f"method='operator_cfr' runs no LP solver; {', '.join(unused)} does not "
                          "apply to it (time_limit and iterations bound the run)")
    start = time.perf_counter()
    progress.stage("building the showdown operator")
    op, explicit = signal_operator(game, operator_filter, memory_limit, method)
    full = op if operator_filter == "none" else SignalPayoffOperator(op.game, None, None,
                                                                     memory_limit)
    spread = payoff_range(full)
    built = time.perf_counter()
    progress.stage(f"learning ({algorithm})")
    cfr = OperatorCFR([op.treeplex(0), op.treeplex(1)], op.sequence_payoffs, algorithm)
    run = certified_run(
        cfr, lambda plans: _certify(op, full, plans), spread, iterations=int(iterations),
        time_limit=None if time_limit is None else float(time_limit),
        target=float(target_nash_conv), check_every=CHECK_EVERY, spacing=CERTIFY_SPACING,
        screen=None if full is op else (lambda plans: op.nash_conv(*plans)["nash_conv"]),
        checkpoint=checkpoint, checkpoint_every=CHECKPOINT_EVERY,
        identity={"operator_filter": operator_filter})
    status, history, best_t = run.status, run.history, run.best_iteration
    cert, (plans, strategies, unreached) = run.best["cert"], run.best["profile"]
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
        solver={"name": f"operator CFR ({algorithm}), approximate: {status} after {run.iterations} "
                        f"iterations, not optimal", "backend": "learning",
                "tolerance": float(target_nash_conv), "exact_certification": False},
        extra={"method": "operator_cfr", "optimal": False, "status": status,
               "algorithm": algorithm, "iterations": run.iterations, "best_iteration": best_t,
               "target_nash_conv": float(target_nash_conv),
               "relative_nash_conv": relative_nash_conv,
               "value_interval": [cert["best_response_2"], cert["best_response_1"]],
               "operator_filter": operator_filter, "history": history,
               **({"checkpoint": str(checkpoint), "resumed_at": run.resumed_at}
                  if checkpoint is not None else {}),
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
        Option("checkpoint", object, None, "operator_cfr: a folder; the learner's state is saved "
               "there (state.npz) every 5 minutes and at the end, and a rerun with the same folder "
               "goes on from it (--iterations counts the iterations of all runs)"),
    ),
))


__all__ = ["solve_nash_operator_cfr", "CERTIFY_SPACING", "CHECK_EVERY", "CHECKPOINT_EVERY"]
