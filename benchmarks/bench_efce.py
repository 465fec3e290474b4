"""Optimal EFCE timings on Farina's benchmark games, next to the Gurobi LP times of his Table 10.1.

Run from the repository root::

    python -m benchmarks.bench_efce [--max-seconds S] [--only TEXT] [--crossover]

Each row is one ``lpgame.solve(game, concept="efce", objective=...)``: the optimal extensive-form
correlated equilibrium LP over correlation plans (von Stengel–Forges polytope; Farina 2023,
Prop. 9.1, notes/farina-thesis.md §1.8), solved by HiGHS's interior-point method, in its own child
process (:mod:`benchmarks.isolated`; peak memory is the child's own). Battleship and Sheriff have no
chance moves, so they are triangle-free and the LP optimum is the exact optimal EFCE (Thm 9.2).

Columns: the game (Farina's names: B2hwr = Battleship, h × w grid, r shots; S2NBr = Sheriff with at
most N items, bribes 0..B, r rounds; the S21Br rows have N = 10, notes §2.7), the objective, the
correlation-plan LP's rows × columns and nonzeros, "build s" (game, sequence form, relevant pairs,
LP), "HiGHS s", "total s" (everything, including the independent gap check), peak memory, the
optimum, "gap" (the largest deviation gain of the returned plan by the independent checker of
:mod:`lpgame.analysis.correlated_gaps`, i.e. how far the returned plan is from an EFCE) and
Farina's Gurobi LP time for the same cell of Table 10.1 (notes/farina-thesis.md §3.4: 1 % tolerance
of the payoff range, 4 threads of a 64-core EPYC 7282; lpgame runs on this machine's 2 cores to
HiGHS's default 1e-7 tolerances).

By default HiGHS runs crossover after the interior point (a basic, vertex solution); crossover is
most of the time from B2322 on, and ``--no-crossover`` stops at the interior-point solution (the gap
column then says how accurate the plan is).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __package__ in (None, ""):        # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.isolated import run_isolated  # noqa: E402

# (Farina's name, catalog name, parameters, Gurobi LP seconds of Table 10.1 for max P1, P2, SW)
INSTANCES = [
    ("B2222", "battleship", {"rows": 2, "cols": 2, "shots": 2}, (0.0, 0.0, 0.0)),
    ("S2122", "sheriff", {"N": 10, "B": 2, "rounds": 2}, (0.0, 0.0, 0.0)),
    ("S2123", "sheriff", {"N": 10, "B": 2, "rounds": 3}, (1.0, 1.0, 1.0)),
    ("S2133", "sheriff", {"N": 10, "B": 3, "rounds": 3}, (4.0, 3.0, 3.0)),
    ("B2322", "battleship", {"rows": 2, "cols": 3, "shots": 2}, (9.0, 9.0, 9.0)),
    ("B2323", "battleship", {"rows": 2, "cols": 3, "shots": 3}, (234.0, 249.0, 220.0)),
]
OBJECTIVES = ("player1", "player2", "welfare")


def solve_efce(game: str, params: dict, objective: str, max_seconds: float,
               crossover: bool) -> dict:
    """One optimal EFCE (runs in the child process); its figures as a dict."""
    import lpgame

    result = lpgame.solve(lpgame.games.make(game, **params), concept="efce", objective=objective,
                          time_limit=max_seconds, crossover=crossover, decompose=False)
    return {"size": {k: int(v) for k, v in result.size.items()},
            "build": result.seconds["build"], "solve": result.seconds["solve"],
            "total": result.seconds["total"], "objective": result.objective, "gap": result.gap,
            "triangle_free": bool(result.triangle_free)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-seconds", type=float, default=600.0, help="HiGHS time limit per row")
    parser.add_argument("--only", default="", help="run the games whose name contains this")
    parser.add_argument("--no-crossover", dest="crossover", action="store_false",
                        help="stop HiGHS at the interior-point solution")
    args = parser.parse_args(argv)

    print(f"optimal EFCE, HiGHS IPM {'with' if args.crossover else 'without'} crossover; "
          f"one child process per row; Gurobi = Farina's Table 10.1 LP time (1 % tolerance)")
    header = (f"{'game':<6} {'objective':<8} {'LP rows×cols':>15} {'nnz':>9} {'build s':>8} "
              f"{'HiGHS s':>8} {'total s':>8} {'peak MiB':>8} {'optimum':>12} {'gap':>8} "
              f"{'Gurobi s':>8}  status")
    print(header)
    print("-" * len(header))
    for label, name, params, gurobi in INSTANCES:
        if args.only.lower() not in label.lower():
            continue
        for objective, farina_seconds in zip(OBJECTIVES, gurobi):
            child = run_isolated("benchmarks.bench_efce:solve_efce",
                                 {"game": name, "params": params, "objective": objective,
                                  "max_seconds": args.max_seconds, "crossover": args.crossover},
                                 timeout=1.5 * args.max_seconds + 120)
            d = child.data
            if child.status != "ok":
                print(f"{label:<6} {objective:<8} {'':>15} {'':>9} {'':>8} {'':>8} "
                      f"{child.wall_seconds:>8.1f} {child.peak_rss_bytes / 2**20:>8.0f} {'':>12} "
                      f"{'':>8} {farina_seconds:>8.0f}  {child.status}: {child.error[:120]}",
                      flush=True)
                continue
            size = d["size"]
            print(f"{label:<6} {objective:<8} {size['rows']:>7}×{size['cols']:<7} {size['nnz']:>9} "
                  f"{d['build']:>8.2f} {d['solve']:>8.2f} {d['total']:>8.2f} "
                  f"{child.peak_rss_bytes / 2**20:>8.0f} {d['objective']:>12.6f} {d['gap']:>8.1e} "
                  f"{farina_seconds:>8.0f}  solved", flush=True)


if __name__ == "__main__":
    main()
