"""Start-up cost: CPU seconds (user + system) of fresh processes, against issue 35's goals.

    python -m benchmarks.bench_startup              # median of 5 runs of each command
    python -m benchmarks.bench_startup --runs 9
    python -m benchmarks.bench_startup --save       # also writes benchmarks/results/bench_startup.json

Each command runs in a new interpreter, as a user would start it; its CPU time is read from
``resource.getrusage(RUSAGE_CHILDREN)`` before and after (the child's own user and system time,
not the wall clock, so a busy machine changes it little). The first run of each command is a
warm-up (bytecode caches) and is not counted. What the commands measure:

* ``lpgame --version``: the command's start-up alone (no concept module, no numpy);
* ``lpgame solve kuhn_poker --exact``: the smallest useful run: the catalog, the concept registry,
  numpy, SciPy's sparse matrices, networkx and HiGHS, the LP and its exact certificate;
* ``import lpgame; lpgame.solve(...)``: the same from Python.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys

COMMANDS = [
    ("lpgame --version", [sys.executable, "-m", "lpgame", "--version"], 0.3),
    ("lpgame solve kuhn_poker --exact", [sys.executable, "-m", "lpgame", "solve", "kuhn_poker",
                                         "--exact"], 1.0),
    ("import lpgame; lpgame.solve(kuhn_poker, exact=True)",
     [sys.executable, "-c", "import lpgame; lpgame.solve(lpgame.games.make('kuhn_poker'), "
                            "exact=True)"], 1.0),
]
"""(label, argument vector, goal in CPU seconds). ``python -m lpgame`` is what the ``lpgame``
script runs, without depending on where the script was installed."""


def cpu_seconds(argv: list[str]) -> float:
    """User + system CPU seconds of one run of ``argv`` (output discarded; a failure raises)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env={**os.environ, "PYTHONWARNINGS": "ignore"})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(runs: int) -> list[dict]:
    """One row per command: the median and the spread of ``runs`` runs after a warm-up."""
    rows = []
    for label, argv, goal in COMMANDS:
        cpu_seconds(argv)                                   # warm-up: bytecode caches
        times = sorted(cpu_seconds(argv) for _ in range(runs))
        rows.append({"command": label, "median": statistics.median(times), "min": times[0],
                     "max": times[-1], "goal": goal})
    return rows


def save(rows: list[dict], runs: int, argv: list[str] | None) -> None:
    """Write the table as a benchmark result (:mod:`benchmarks.results_io`)."""
    from benchmarks import results_io

    table = [[f"`{r['command']}`", round(r["median"], 3), round(r["min"], 3), round(r["max"], 3),
              r["goal"], r["median"] <= r["goal"]] for r in rows]
    path = results_io.save(results_io.result(
        "bench_startup", results_io.command("benchmarks.bench_startup", argv),
        ["command", "CPU s (median)", "min", "max", "goal (CPU s)", "met"], table,
        notes=f"user + system CPU seconds of a fresh process, median of {runs} runs after a "
              "warm-up"))
    print(f"saved {path}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each command (median)")
    parser.add_argument("--save", action="store_true",
                        help="write the table to benchmarks/results/bench_startup.json (the docs)")
    args = parser.parse_args(argv)
    rows = measure(max(args.runs, 1))
    if args.save:
        save(rows, args.runs, argv)
    width = max(len(r["command"]) for r in rows)
    print(f"{'command':<{width}}  {'CPU s (median)':>14}  {'min–max':>11}  {'goal':>6}  met")
    for r in rows:
        spread = f"{r['min']:.2f}–{r['max']:.2f}"
        print(f"{r['command']:<{width}}  {r['median']:>14.3f}  {spread:>11}  {r['goal']:>6.1f}  "
              f"{'yes' if r['median'] <= r['goal'] else 'NO'}")
    return 0 if all(r["median"] <= r["goal"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
