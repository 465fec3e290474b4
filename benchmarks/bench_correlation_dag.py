"""Optimal EFCE of the thesis's three-player rows of Table 10.1 exactly, by the LP over the correlation
DAG, next to the thesis's two columns (Gurobi LP, "Ours") and to lpgame's column generation.

Run from the repository root::

    python -m benchmarks.bench_correlation_dag [--only TEXT] [--time-limit S] [--memory-cap GIB] [--save]

Each (game, objective) is one child process (:mod:`benchmarks.isolated`, 6 GiB address space by
default: ``--memory-cap``; L3132's DAG LP needs more, HiGHS stopping with "Memory limit reached",
lpgame's ``SolverMemoryError``, under 6 GiB)
running :func:`lpgame.equilibria.correlated.efce_correlation_dag.solve_correlation_dag` with
``time_limit`` seconds for the whole run (the DAG's construction, then HiGHS's interior point with
crossover on the LP for what is left). When a game's first objective does not finish, its other
objectives are not run (the same DAG and LP, other costs). Objectives: maximise P1, P2 or P3's
utility, as Table 10.1 does for three-player zero-sum games (notes/farina-thesis.md §3.4).

Columns: game (Farina's names), objective, status (optimal: the decomposed distribution's EFCE
gap is 0 up to 10⁻⁷·R and the LP's dual bound, recomputed independently, meets its objective;
else why the run stopped), seconds in all, of the DAG's construction and of the LP, the DAG's
beliefs and prescriptions, the LP's nonzeros, the objective, then the thesis's Gurobi LP and
"Ours" seconds at 1 % (Table 10.1) and the seconds lpgame's column generation took to the exact
optimum of max P1 on this machine (``python -m benchmarks.bench_efce_three_player --objective
player1``, run beside this table; — = not measured). The thesis's figures are to 1 % of the
payoff range; these are exact optima (to 10⁻⁷·R), a stricter criterion, and the machines differ.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __package__ in (None, ""):        # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.isolated import note_progress, run_isolated  # noqa: E402

# Farina's name, catalog name, parameters, thesis (Gurobi s, Ours s) for max P1, P2, P3 at 1 %
# (Table 10.1, notes/farina-thesis.md §3.4; K34 is not in the table), column generation's seconds
# to the exact optimum of max P1 on this machine (None: not measured)
INSTANCES = [
    ("GL33", "goofspiel_limited", {"players": 3, "cards": 3}, ((0, .01), (0, .01), (0, .01)),
     None),
    ("K34", "kuhn_poker", {"players": 3, "cards": 4}, ((None, None),) * 3, 4.2),
    ("D32", "liars_dice", {"players": 3, "faces": 2}, ((12, .40), (11, .35), (10, .66)), 58.3),
    ("K35", "kuhn_poker", {"players": 3, "cards": 5}, ((57, .55), (55, 1.03), (60, 1.26)), None),
    ("L3132", "leduc_poker", {"players": 3, "bets": 1, "ranks": 3, "suits": 2},
     ((498, 6.10), (537, 7.65), (455, 6.78)), None),
]
OBJECTIVES = ("player1", "player2", "player3")
COLUMNS = ["game", "objective", "status", "total s", "DAG s", "LP s", "beliefs", "prescriptions",
           "LP nonzeros", "objective value", "thesis LP s (1 %)", "thesis Ours s (1 %)",
           "column generation s (max P1, exact)"]


def solve_row(game: str, params: dict, objective: str, time_limit: float) -> dict:
    """One case, in the child: the DAG LP's figures."""
    import lpgame
    from lpgame import progress
    from lpgame.equilibria.correlated.efce_correlation_dag import solve_correlation_dag

    g = lpgame.games.make(game, **params)

    def noted(what: str, figures: dict) -> None:
        if figures:
            note_progress(stage=what, **{k: v for k, v in figures.items()
                                         if isinstance(v, (int, float))})
        else:
            note_progress(stage=what)

    with progress.reporting(noted):
        r = solve_correlation_dag(g, "efce", objective, time_limit=time_limit)
    return {"optimal": r.optimal, "seconds": r.seconds, "beliefs": r.size["beliefs"],
            "edges": r.size["edges"], "nnz": r.size["nnz"], "objective": r.objective,
            "relative_gap": r.gap / r.extra["payoff_range"],
            "relative_bound_gap": r.certificate.extra.get("relative_bound_gap")}


def _figure(x, digits: int = 4):
    return None if x is None else round(float(x), digits)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="run only rows whose name contains this text")
    ap.add_argument("--time-limit", type=float, default=300.0, help="seconds per case")
    ap.add_argument("--memory-cap", type=float, default=6.0,
                    help="GiB of address space per case (default 6)")
    ap.add_argument("--objective", choices=OBJECTIVES, action="append", default=None,
                    help="run only this objective (repeatable); default: all three")
    ap.add_argument("--save", action="store_true",
                    help="write the table to benchmarks/results/bench_correlation_dag.json")
    args = ap.parse_args(argv)
    objectives = args.objective or OBJECTIVES
    rows = []
    print(f"time limit {args.time_limit:g} s per case")
    print(f"{'game':<6} {'obj':<8} {'status':<12} {'total':>7} {'dag':>6} {'lp':>7} "
          f"{'beliefs':>8} {'edges':>9} {'nnz':>10} {'objective':>10} | {'LP[th]':>6} "
          f"{'Ours[th]':>8} {'CG':>6}")
    for label, name, params, thesis, cg in INSTANCES:
        if args.only not in label:
            continue
        stopped = None
        for k, obj in enumerate(OBJECTIVES):
            if obj not in objectives:
                continue
            if stopped is not None:
                rows.append([label, obj, f"not run ({stopped})"] + [None] * 7
                            + list(thesis[k]) + [None])
                continue
            child = run_isolated("benchmarks.bench_correlation_dag:solve_row",
                                 {"game": name, "params": params, "objective": obj,
                                  "time_limit": args.time_limit},
                                 timeout=args.time_limit + 120,
                                 memory_cap=int(args.memory_cap * 2**30))
            d = child.data
            if child.status == "ok":
                s = d["seconds"]
                status = "optimal" if d["optimal"] else "not proven"
                row = [label, obj, status, _figure(s["total"], 1), _figure(s["dag"], 1),
                       _figure(s["solve"], 1), d["beliefs"], d["edges"], d["nnz"],
                       _figure(d["objective"], 6)]
            else:
                kind = ("time limit" if "TimeLimit" in child.kind or child.status == "timeout"
                        else child.status if child.status != "error" else child.kind)
                stopped = f"max {OBJECTIVES[k].replace('player', 'P')}: {kind}"
                stage = d.get("stage", "")
                status = f"{kind} ({stage})" if stage else kind
                row = [label, obj, status, _figure(child.wall_seconds, 1), None, None,
                       d.get("found", d.get("beliefs")), d.get("edges"), None, None]
            row += [thesis[k][0], thesis[k][1], cg if k == 0 else None]
            rows.append(row)
            print(f"{label:<6} {obj:<8} {str(row[2])[:40]:<12} {row[3] or 0:>7} "
                  f"{row[4] if row[4] is not None else '—':>6} "
                  f"{row[5] if row[5] is not None else '—':>7} {row[6] or '—':>8} "
                  f"{row[7] or '—':>9} {row[8] or '—':>10} "
                  f"{row[9] if row[9] is not None else '—':>10} | "
                  f"{thesis[k][0] if thesis[k][0] is not None else '—':>6} "
                  f"{thesis[k][1] if thesis[k][1] is not None else '—':>8} "
                  f"{(cg if k == 0 else None) or '—':>6}", flush=True)
    if args.save:
        from benchmarks.results_io import command, result, save
        print("saved", save(result(
            "bench_correlation_dag", command("benchmarks.bench_correlation_dag", argv),
            COLUMNS, rows,
            notes="Optimal EFCE (exact, to 1e-7 of the payoff range) by one LP over the "
                  "correlation DAG (HiGHS interior point + crossover), each case in its own "
                  f"process with {args.time_limit:g} s for the whole run and "
                  f"{args.memory_cap:g} GiB; the thesis's "
                  "columns are Table 10.1 (1 % of the range, Gurobi LP / regret minimisation, "
                  "another machine); column generation: lpgame's "
                  "solve_efce_column_generation to the exact optimum of max P1, same machine.")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
