"""Iteration speed of lpgame's CFR+ against OpenSpiel's CFR+ on Kuhn and Leduc, same machine, one run.

Implementations compared (all CFR+: regret-matching⁺, alternating updates, linear averaging):

* lpgame: :func:`lpgame.learning.run` with ``algorithm="cfr+"`` (numpy on the sequence form);
* OpenSpiel, Python: ``open_spiel.python.algorithms.cfr.CFRPlusSolver`` (a tree walk in Python);
* OpenSpiel, C++: ``pyspiel.CFRPlusSolver`` (when the installed OpenSpiel has it).

Games: ``kuhn_poker`` and Leduc. For Leduc lpgame uses ``leduc_poker(deal="cards")``, the card-level
game that OpenSpiel's ``leduc_poker`` is (936 information sets, 1093 sequences per player), so both
run the same game. The three implementations follow the same dynamics, so after the same number of
iterations their average strategies have the same NashConv (printed as a check); the timing covers
the iterations only, NashConv is computed afterwards (lpgame: :mod:`lpgame.analysis`; OpenSpiel:
its own ``nash_conv``).

Run: ``python benchmarks/bench_cfr.py [--json PATH] [--quick]``.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

try:
    import lpgame
except ImportError:  # run from a checkout without installing: use the repository's lpgame
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import lpgame
from lpgame.learning import run  # noqa: E402

ITERATIONS = {  # game: (lpgame and C++ iterations, OpenSpiel-Python iterations)
    "kuhn_poker": (2000, 2000),
    "leduc_poker": (1000, 20),
}
QUICK = {"kuhn_poker": (200, 200), "leduc_poker": (100, 5)}


def lpgame_game(name: str):
    if name == "leduc_poker":
        return lpgame.games.make("leduc_poker", deal="cards")
    return lpgame.games.make(name)


def bench_lpgame(name: str, iterations: int, also_at: int | None = None) -> dict:
    start = time.perf_counter()
    game = lpgame_game(name)
    build = time.perf_counter() - start
    checkpoints = [also_at] if also_at else []
    result = run(game, "cfr+", iterations=iterations, checkpoints=checkpoints)
    return {"implementation": "lpgame (numpy, sequence form)", "iterations": result.iterations,
            "seconds": result.seconds, "setup_seconds": build, "nash_conv": result.nash_conv,
            "curve": {t: c for t, _, c in result.curve}}


def time_to_target(name: str, target: float, block: int, limit: float) -> list[dict]:
    """Seconds of iterating (evaluations not timed) until NashConv ≤ ``target``, checked every
    ``block`` iterations: lpgame and OpenSpiel C++ (Python OpenSpiel is too slow for this)."""
    rows = []
    result = run(lpgame_game(name), "cfr+", iterations=10**6,
                 checkpoints=list(range(block, 10**6 + 1, block)), target=target)
    rows.append({"game": name, "implementation": "lpgame (numpy, sequence form)",
                 "target": target, "iterations": result.iterations, "seconds": result.seconds,
                 "nash_conv": result.nash_conv, "reached": result.nash_conv <= target})
    try:
        import pyspiel
    except ImportError:
        return rows
    if not hasattr(pyspiel, "CFRPlusSolver"):
        return rows
    game = pyspiel.load_game(name)
    solver = pyspiel.CFRPlusSolver(game)
    seconds, iterations, nash_conv = 0.0, 0, float("inf")
    while nash_conv > target and seconds < limit:
        start = time.perf_counter()
        for _ in range(block):
            solver.evaluate_and_update_policy()
        seconds += time.perf_counter() - start
        iterations += block
        nash_conv = float(pyspiel.nash_conv(game, solver.average_policy()))
    rows.append({"game": name, "implementation": "OpenSpiel C++ pyspiel.CFRPlusSolver",
                 "target": target, "iterations": iterations, "seconds": seconds,
                 "nash_conv": nash_conv, "reached": nash_conv <= target})
    return rows


def bench_openspiel_python(name: str, iterations: int) -> dict | None:
    try:
        import pyspiel
        from open_spiel.python.algorithms import cfr, exploitability
    except ImportError:
        return None
    game = pyspiel.load_game(name)
    start = time.perf_counter()
    solver = cfr.CFRPlusSolver(game)
    setup = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    seconds = time.perf_counter() - start
    nash_conv = exploitability.nash_conv(game, solver.average_policy())
    return {"implementation": "OpenSpiel Python CFRPlusSolver", "iterations": iterations,
            "seconds": seconds, "setup_seconds": setup, "nash_conv": float(nash_conv)}


def bench_openspiel_cpp(name: str, iterations: int) -> dict | None:
    try:
        import pyspiel
    except ImportError:
        return None
    if not hasattr(pyspiel, "CFRPlusSolver"):
        return None
    game = pyspiel.load_game(name)
    start = time.perf_counter()
    solver = pyspiel.CFRPlusSolver(game)
    setup = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    seconds = time.perf_counter() - start
    nash_conv = pyspiel.nash_conv(game, solver.average_policy())
    return {"implementation": "OpenSpiel C++ pyspiel.CFRPlusSolver", "iterations": iterations,
            "seconds": seconds, "setup_seconds": setup, "nash_conv": float(nash_conv)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="also write the rows as JSON to this path")
    parser.add_argument("--quick", action="store_true", help="few iterations (a smoke test)")
    args = parser.parse_args(argv)
    plan = QUICK if args.quick else ITERATIONS
    rows = []
    for name, (n_fast, n_python) in plan.items():
        lp_row = bench_lpgame(name, n_fast, also_at=n_python)
        for bench, n in ((None, n_fast), (bench_openspiel_cpp, n_fast),
                         (bench_openspiel_python, n_python)):
            row = lp_row if bench is None else bench(name, n)
            if row is None:
                continue
            row["game"] = name
            row["ms_per_iteration"] = 1000.0 * row["seconds"] / row["iterations"]
            row["lpgame_nash_conv_same_iteration"] = lp_row["curve"].get(row["iterations"])
            rows.append(row)
            print(f"{name:12s} {row['implementation']:38s} {row['iterations']:6d} it "
                  f"{row['seconds']:9.3f} s {row['ms_per_iteration']:10.4f} ms/it "
                  f"NashConv {row['nash_conv']:.3e}", file=sys.stderr)
    print("\n| game | implementation | iterations | seconds | ms / iteration | speed-up vs "
          "OpenSpiel C++ | NashConv after the iterations | lpgame's NashConv at that iteration |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        cpp = next((r for r in rows if r["game"] == row["game"] and "C++" in r["implementation"]),
                   None)
        speedup = (f"{cpp['ms_per_iteration'] / row['ms_per_iteration']:.1f}×" if cpp else "-")
        print(f"| {row['game']} | {row['implementation']} | {row['iterations']} | "
              f"{row['seconds']:.3f} | {row['ms_per_iteration']:.4f} | {speedup} | "
              f"{row['nash_conv']:.3e} | {row['lpgame_nash_conv_same_iteration']:.3e} |")
    targets = []
    if not args.quick:
        for name, target in (("kuhn_poker", 1e-4), ("leduc_poker", 1e-4)):
            targets.extend(time_to_target(name, target, block=50, limit=120.0))
        print("\n| game | implementation | NashConv target | iterations | seconds | reached |")
        print("|---|---|---|---|---|---|")
        for row in targets:
            print(f"| {row['game']} | {row['implementation']} | {row['target']:g} | "
                  f"{row['iterations']} | {row['seconds']:.3f} | {row['reached']} |")
    print(f"\nmachine: {platform.platform()}, Python {platform.python_version()}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"rows": rows, "time_to_target": targets,
                       "machine": platform.platform()}, handle, indent=2, default=str)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
