"""All extreme equilibria of random bimatrix games: lpgame's float-first certified enumeration beside
its exact one, Gambit's ``enummixed`` (float and rational) and nashpy's vertex enumeration.

Run from the repository root::

    python -m benchmarks.bench_enumeration [--sizes 6 8 10] [--seeds 3] [--repeat 3]
        [--no-rational] [--no-nashpy] [--save]

Every tool runs on the same games in the same process, interleaved game by game, and each time is
the best of ``--repeat`` calls (the machine is shared: compare the ratios, not the seconds). A row
sums the times over ``--seeds`` games of one size and one payoff range: payoffs uniform integers
0..99 ("random", generic but with ties now and then) and 0..3 ("degenerate", ties everywhere).
Gambit's rational mode and nashpy are timed once per game (they are slow). The times are around
the solver call only: lpgame's :func:`~lpgame.equilibria.general_sum.enumeration.
bimatrix_extreme_equilibria` (exact Fractions out, every reported vertex recomputed and checked in
rationals), Gambit's ``enummixed_solve(game, rational=...)`` and nashpy's ``vertex_enumeration``.
The equilibria counts of lpgame's two methods must agree (the script stops otherwise); Gambit's
rational count is printed beside them.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if __package__ in (None, ""):        # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

RANGES = {"random": 100, "degenerate": 4}


def best_of(call, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = call()
        times.append(time.perf_counter() - start)
    return min(times), out


def measure(n: int, high: int, seed: int, repeat: int, rational: bool, nashpy_too: bool) -> dict:
    import pygambit as gbt

    from lpgame.equilibria.general_sum.enumeration import bimatrix_extreme_equilibria
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, high, (n, n)), rng.integers(0, high, (n, n))
    ao, bo = a.astype(object), b.astype(object)
    game = gbt.Game.from_arrays(a, b)
    row = {}
    row["lpgame float"], ours = best_of(lambda: bimatrix_extreme_equilibria(ao, bo), repeat)
    row["lpgame exact"], exact = best_of(
        lambda: bimatrix_extreme_equilibria(ao, bo, method="exact"), max(1, repeat - 1))
    if (ours.strategies, ours.equilibria, ours.nash_subsets, ours.vertices) != \
            (exact.strategies, exact.equilibria, exact.nash_subsets, exact.vertices):
        raise SystemExit(f"{n}x{n} seed {seed}: float-first and exact enumeration differ")
    row["gambit float"], _ = best_of(lambda: gbt.nash.enummixed_solve(game, rational=False), repeat)
    row["count"] = len(ours.equilibria)
    row["exact bases"] = sum(ours.exact_bases)
    row["bases"] = sum(ours.bases)
    if rational:
        row["gambit rational"], found = best_of(
            lambda: gbt.nash.enummixed_solve(game, rational=True), 1)
        row["gambit count"] = len(found.equilibria)
    if nashpy_too:
        import nashpy
        g = nashpy.Game(a.astype(float), b.astype(float))
        row["nashpy vertex"], _ = best_of(lambda: sum(1 for _ in g.vertex_enumeration()), 1)
    return row


COLUMNS = ["size", "payoffs", "games", "extreme equilibria", "bases (exact)", "lpgame float s",
           "lpgame exact s", "gambit float s", "gambit rational s", "nashpy vertex s",
           "gambit float / lpgame float", "gambit rational / lpgame float",
           "lpgame exact / lpgame float"]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[6, 8, 10])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-rational", action="store_true")
    parser.add_argument("--no-nashpy", action="store_true")
    parser.add_argument("--ranges", nargs="+", default=list(RANGES), choices=list(RANGES))
    parser.add_argument("--save", action="store_true")
    args = parser.parse_args(argv)
    print("| " + " | ".join(COLUMNS) + " |")
    print("|---" * len(COLUMNS) + "|")
    rows = []
    for n in args.sizes:
        for name in args.ranges:
            total: dict[str, float] = {}
            for seed in range(args.seeds):
                one = measure(n, RANGES[name], seed, args.repeat, not args.no_rational,
                              not args.no_nashpy)
                for key, value in one.items():
                    total[key] = total.get(key, 0) + value

            def ratio(num, den, total=total):
                return round(total[num] / total[den], 2) if num in total and den in total else None

            row = [f"{n}x{n}", f"0..{RANGES[name] - 1}", args.seeds, int(total["count"]),
                   f"{int(total['bases'])} ({int(total['exact bases'])})",
                   round(total["lpgame float"], 4), round(total["lpgame exact"], 4),
                   round(total["gambit float"], 4),
                   round(total["gambit rational"], 4) if "gambit rational" in total else None,
                   round(total["nashpy vertex"], 4) if "nashpy vertex" in total else None,
                   ratio("gambit float", "lpgame float"), ratio("gambit rational", "lpgame float"),
                   ratio("lpgame exact", "lpgame float")]
            rows.append(row)
            print("| " + " | ".join("—" if c is None else str(c) for c in row) + " |", flush=True)
    if args.save:
        from benchmarks import results_io
        data = results_io.result(
            "bench_enumeration", results_io.command("benchmarks.bench_enumeration", argv),
            COLUMNS, rows,
            notes="All extreme equilibria of random n×n bimatrix games, seconds summed over the "
                  "games of a row, each the best of --repeat calls in one process, tools "
                  "interleaved game by game (Gambit rational and nashpy: one call). Ratios above 1: "
                  "lpgame's float-first certified enumeration is faster. Bases: bases visited by "
                  "the float-first search, in brackets those decided in exact arithmetic.")
        print(f"saved {results_io.save(data)}")


if __name__ == "__main__":
    main()
