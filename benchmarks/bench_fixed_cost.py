"""Fixed cost on a small game: lpgame against Gambit's and OpenSpiel's C++ on Kuhn poker, one run.

Issue 37 item 2 ("no fixed cost to speak of"). All rows run in one warm process, one after the
other, so the ratios compare like with like on a loaded machine:

* **solve**: ``lpgame.solve(kuhn)`` end to end, certificate included (the game is built once by
  ``lpgame.games.make("kuhn_poker")``; every repeat calls ``solve`` on that object, as a user who
  solves the same game twice would), against Gambit's C++ ``pygambit.nash.lp_solve`` on
  ``models/kuhn_poker.efg`` read once by ``pygambit.read_efg``. Figure: the median of the repeats.
  Goal: lpgame / Gambit ≤ 2, both in floating point (``lp_solve(rational=False)``). A second
  row compares exact mode with Gambit's rational ``lp_solve`` (no goal; for the record).
* **fresh game**: ``lpgame.solve(lpgame.games.make("kuhn_poker"))``, a new game object every
  call (the catalog's rules expanded to the tree, its sequence form, LP, HiGHS instance and
  certificate all built anew; nothing kept from the previous call but what does not depend on the
  game), against the same Gambit call on its game read once. Goal: ≤ 2. The check column gives
  the share of ``make`` (timed alone, after the interleaved rounds).
* **CFR, CFR+ per iteration**: one iteration of lpgame's CFR skeleton (``learner.iterate(t)``, the
  loop that :func:`lpgame.learning.run` times) against one ``evaluate_and_update_policy()`` of
  OpenSpiel's C++ ``pyspiel.CFRSolver`` / ``pyspiel.CFRPlusSolver`` on
  ``pyspiel.load_game("kuhn_poker")``. Figure: the median over blocks of iterations of the seconds
  per iteration. Goal: lpgame / OpenSpiel ≤ 1.

Each figure is the median over rounds; "best rounds" is the fastest round of each side over the
fastest of the other, the ratio least touched by other processes on a loaded machine.

Rows are interleaved (lpgame block, peer block, lpgame block, ...) so that a change in the load
touches both sides alike. Run from the repository root:
``python -m benchmarks.bench_fixed_cost [--repeats N] [--save]`` (``--save`` writes
``benchmarks/results/bench_fixed_cost.json`` through :mod:`benchmarks.results_io`).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):        # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

REPOSITORY = Path(__file__).resolve().parent.parent
KUHN_EFG = REPOSITORY / "models" / "kuhn_poker.efg"


def _interleaved(rounds: int, block: int, left, right) -> tuple[list[float], list[float]]:
    """Seconds per call of ``left`` and ``right``, each timed over ``block`` calls, alternating."""
    a, b = [], []
    for _ in range(rounds):
        for fn, out in ((left, a), (right, b)):
            start = time.perf_counter()
            for _ in range(block):
                fn()
            out.append((time.perf_counter() - start) / block)
    return a, b


def solve_row(rounds: int, block: int, exact: bool = False) -> dict:
    """lpgame.solve(kuhn) against pygambit.nash.lp_solve(kuhn), warm, medians of seconds
    (floating point on both sides, or ``exact``: lpgame's rationals against Gambit's)."""
    import pygambit

    import lpgame

    game = lpgame.games.make("kuhn_poker")
    first_start = time.perf_counter()
    result = lpgame.solve(game, exact=exact)
    first = time.perf_counter() - first_start
    gambit_game = pygambit.read_efg(str(KUHN_EFG))
    gambit_result = pygambit.nash.lp_solve(gambit_game, rational=exact)
    gambit_value = float(gambit_result.equilibria[0].payoff(list(gambit_game.players)[0]))
    ours, theirs = _interleaved(rounds, block, lambda: lpgame.solve(game, exact=exact),
                                lambda: pygambit.nash.lp_solve(gambit_game, rational=exact))
    kind = "exact" if exact else "float"
    return {"what": f"Kuhn: solve ({kind}), certificate included",
            "lpgame": statistics.median(ours), "peer": statistics.median(theirs),
            "lpgame_best": min(ours), "peer_best": min(theirs),
            "peer_name": f"Gambit C++ lp_solve(rational={exact})", "first_call": first,
            "goal": "-" if exact else "≤ 2",
            "check": f"value {float(result.value):.6f} vs {gambit_value:.6f}, "
                     f"NashConv {float(result.certificate.nash_conv):.1e}"}


def fresh_row(rounds: int, block: int) -> dict:
    """make + solve of a new Kuhn game object every call against pygambit.nash.lp_solve on its
    game read once, both in floating point; medians of seconds."""
    import pygambit

    import lpgame

    def fresh():
        return lpgame.solve(lpgame.games.make("kuhn_poker"))

    result = fresh()
    gambit_game = pygambit.read_efg(str(KUHN_EFG))
    gambit_value = float(pygambit.nash.lp_solve(gambit_game, rational=False)
                         .equilibria[0].payoff(list(gambit_game.players)[0]))
    ours, theirs = _interleaved(rounds, block, fresh,
                                lambda: pygambit.nash.lp_solve(gambit_game, rational=False))
    makes, _ = _interleaved(max(rounds // 3, 3), block,
                            lambda: lpgame.games.make("kuhn_poker"), lambda: None)
    return {"what": "Kuhn: fresh game (make + solve), certificate included",
            "lpgame": statistics.median(ours), "peer": statistics.median(theirs),
            "lpgame_best": min(ours), "peer_best": min(theirs),
            "peer_name": "Gambit C++ lp_solve(rational=False)", "first_call": None, "goal": "≤ 2",
            "check": f"value {float(result.value):.6f} vs {gambit_value:.6f}, NashConv "
                     f"{float(result.certificate.nash_conv):.1e}; make alone "
                     f"{statistics.median(makes) * 1e6:.0f} µs"}


def cfr_row(algorithm: str, rounds: int, block: int) -> dict:
    """One lpgame CFR(+) iteration against one OpenSpiel C++ iteration on Kuhn, medians."""
    import numpy as np
    import pyspiel

    import lpgame
    from lpgame.compile import compile_game
    from lpgame.learning import SEQUENCE_FORM_ALGORITHMS

    sf = compile_game(lpgame.games.make("kuhn_poker"))
    learner = SEQUENCE_FORM_ALGORITHMS[algorithm](sf, np.random.default_rng(0))
    solver = (pyspiel.CFRSolver if algorithm == "cfr" else pyspiel.CFRPlusSolver)(
        pyspiel.load_game("kuhn_poker"))
    counter = iter(range(1, 10**9))
    ours, theirs = _interleaved(rounds, block, lambda: learner.iterate(next(counter)),
                                solver.evaluate_and_update_policy)
    from lpgame.analysis.exploitability import evaluate_plans
    conv = float(evaluate_plans(sf, learner.average_plans()).nash_conv)
    peer_conv = float(pyspiel.nash_conv(pyspiel.load_game("kuhn_poker"), solver.average_policy()))
    peer = "OpenSpiel C++ " + ("CFRSolver" if algorithm == "cfr" else "CFRPlusSolver")
    return {"what": f"Kuhn: one {algorithm.upper()} iteration", "lpgame": statistics.median(ours),
            "peer": statistics.median(theirs), "peer_name": peer, "first_call": None,
            "lpgame_best": min(ours), "peer_best": min(theirs),
            "goal": "≤ 1", "check": f"NashConv after {rounds * block} it: {conv:.2e} vs {peer_conv:.2e}"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15,
                        help="rounds of interleaved blocks (the median is over rounds)")
    parser.add_argument("--save", action="store_true",
                        help="write benchmarks/results/bench_fixed_cost.json")
    args = parser.parse_args(argv)
    rows = [solve_row(args.repeats, 20), fresh_row(args.repeats, 10),
            solve_row(max(args.repeats // 3, 3), 3, exact=True),
            cfr_row("cfr", args.repeats, 200), cfr_row("cfr+", args.repeats, 200)]
    columns = ["measure", "lpgame µs", "peer", "peer µs", "lpgame / peer",
               "lpgame / peer (best rounds)", "goal", "check"]
    table = []
    for row in rows:
        table.append([row["what"], round(row["lpgame"] * 1e6, 1), row["peer_name"],
                      round(row["peer"] * 1e6, 1), round(row["lpgame"] / row["peer"], 2),
                      round(row["lpgame_best"] / row["peer_best"], 2), row["goal"],
                      row["check"]])
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for line in table:
        print("| " + " | ".join(str(c) for c in line) + " |")
    print(f"\n(first lpgame.solve call on the fresh game object: {rows[0]['first_call'] * 1e3:.1f} ms;"
          " medians of warm calls above)")
    if args.save:
        from benchmarks import results_io
        data = results_io.result(
            "bench_fixed_cost", results_io.command("benchmarks.bench_fixed_cost", argv),
            columns, table,
            notes="median (and fastest) of interleaved blocks in one warm process; solve "
                  "includes the certificate (independent best responses); the fresh-game row "
                  "builds a new game object (catalog rules expanded) every call")
        print(f"saved {results_io.save(data)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
