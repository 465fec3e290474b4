"""Optimal EFCE of the thesis's three-player rows of Table 10.1 by learning on the correlation DAG, to
1 % and 0.1 % of the payoff range, next to the thesis's "Ours" and LP columns and to the exact
optimum of :mod:`benchmarks.bench_correlation_dag` where it has one.

Run from the repository root::

    python -m benchmarks.bench_efce_dag_learning [--only TEXT] [--target 0.01] [--time-limit S]
        [--memory-cap GIB] [--objective player1] [--save]

Each (game, objective, target) is one child process (:mod:`benchmarks.isolated`, 6 GiB of address
space by default, one BLAS thread) running
:func:`lpgame.equilibria.correlated.efce_dag_learning.solve_efce_dag_learning` with its defaults
(regret-minimising deviators, λ from 1 doubled when the gap stalls) and ``time_limit`` seconds of
learning; the child is killed ``--build-allowance`` seconds later (the DAG's construction). When a
game's first objective does not converge at a target, its other objectives are not run at it.
Objectives: maximise P1, P2 or P3's utility, as Table 10.1 does for three-player games
(notes/farina-thesis.md §3.4).

Columns: game (Farina's names), objective, target (fraction of the payoff range), status
(converged: the decomposed distribution's EFCE gap, measured by
:mod:`lpgame.analysis.n_player_correlated_gaps`, and the upper bound minus its objective are both
within the target; else why the run stopped), seconds in all, of the DAG and of learning,
iterations, the final λ, the DAG's prescriptions, the objective, the exact optimum (from
``benchmarks/results/bench_correlation_dag.json``; — where it has none), the relative gap and
bound gap, the thesis's "Ours" and Gurobi LP seconds at that target (Tables 10.1/10.2; None where
the thesis has none or timed out at 1 h) and the ratio of lpgame's total seconds to "Ours". The
thesis's machine and its compiled learner differ from this one.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

if __package__ in (None, ""):        # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.isolated import REPOSITORY, note_progress, run_isolated  # noqa: E402
from lpgame.equilibria.correlated.correlation_dag import DEFAULT_MAX_EDGES  # noqa: E402

TIMEOUT = "timeout (1 h)"
# Farina's name, catalog name, parameters, thesis {target: ((Ours s, LP s) for max P1, P2, P3)}
# (Tables 10.1 and 10.2, notes/farina-thesis.md §3.4; None: not in the table or timed out)
INSTANCES = [
    ("GL33", "goofspiel_limited", {"players": 3, "cards": 3},
     {0.01: ((.01, 0), (.01, 0), (.01, 0)), 0.001: ((.06, 0), (.05, 0), (.05, 0))}),
    ("K34", "kuhn_poker", {"players": 3, "cards": 4}, {}),
    ("D32", "liars_dice", {"players": 3, "faces": 2},
     {0.01: ((.40, 12), (.35, 11), (.66, 10)), 0.001: ((.92, 14), (.74, 13), (1.60, 12))}),
    ("K35", "kuhn_poker", {"players": 3, "cards": 5},
     {0.01: ((.55, 57), (1.03, 55), (1.26, 60))}),
    ("L3132", "leduc_poker", {"players": 3, "bets": 1, "ranks": 3, "suits": 2},
     {0.01: ((6.10, 498), (7.65, 537), (6.78, 455)),
      0.001: ((26.68, 581), (27.57, 628), (30.00, 594))}),
    ("L3133", "leduc_poker", {"players": 3, "bets": 1, "ranks": 3, "suits": 3},
     {0.01: ((6.84, 1285), (10.76, 1303), (10.28, 1198)),
      0.001: ((22.31, 1612), (39.44, 1642), (40.75, 1532))}),
    ("L3223", "leduc_poker", {"players": 3, "bets": 2, "ranks": 2, "suits": 3},
     {0.01: ((5.52, 122), (6.46, 110), (5.94, 120)),
      0.001: ((20.44, 158), (28.27, 152), (49.95, 151))}),
    ("D33", "liars_dice", {"players": 3, "faces": 3}, {}),
    ("L3151", "leduc_poker", {"players": 3, "bets": 1, "ranks": 5, "suits": 1}, {}),
    ("L3523", "leduc_poker", {"players": 3, "bets": 5, "ranks": 2, "suits": 3}, {}),
]
THESIS_TIMEOUTS = ("D33", "L3151", "L3523")     # "all timeout" in Tables 10.1/10.2
OBJECTIVES = ("player1", "player2", "player3")
TARGETS = (0.01, 0.001)
COLUMNS = ["game", "objective", "target", "status", "total s", "DAG s", "learning s", "iterations",
           "lambda", "prescriptions", "objective value", "exact optimum", "relative gap",
           "relative bound gap", "thesis Ours s", "thesis LP s", "ratio to Ours"]


def solve_row(game: str, params: dict, objective: str, target: float, time_limit: float) -> dict:
    """One case, in the child: the learner's figures."""
    import lpgame
    from lpgame import progress
    from lpgame.equilibria.correlated.efce_dag_learning import solve_efce_dag_learning

    g = lpgame.games.make(game, **params)

    def noted(what: str, figures: dict) -> None:
        note_progress(stage=what, **{k: v for k, v in (figures or {}).items()
                                     if isinstance(v, (int, float))})

    with progress.reporting(noted):
        r = solve_efce_dag_learning(g, objective, target_gap=target, time_limit=time_limit,
                                    iterations=10**9)
    e = r.extra
    return {"status": e["status"], "seconds": r.seconds, "iterations": e["iterations"],
            "lambda": e["lambda"], "edges": r.size["edges"], "objective": r.objective,
            "relative_gap": e["relative_gap"], "relative_bound_gap": e["relative_bound_gap"],
            "profile": e["profile_seconds"]}


def exact_optima() -> dict:
    """(game, objective) → the exact optimum of bench_correlation_dag's saved table."""
    path = REPOSITORY / "benchmarks" / "results" / "bench_correlation_dag.json"
    if not path.exists():
        return {}
    data = json.loads(path.read_text())
    col = data["columns"]
    at = {k: col.index(k) for k in ("game", "objective", "status", "objective value")}
    return {(r[at["game"]], r[at["objective"]]): r[at["objective value"]] for r in data["rows"]
            if r[at["status"]] == "optimal"}


def _figure(x, digits: int = 4):
    return None if x is None else round(float(x), digits)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="run only rows whose name contains this text")
    ap.add_argument("--time-limit", type=float, default=240.0,
                    help="seconds of learning per case (default 240)")
    ap.add_argument("--build-allowance", type=float, default=180.0,
                    help="seconds more for the DAG's construction before the child is killed")
    ap.add_argument("--memory-cap", type=float, default=6.0,
                    help="GiB of address space per case (default 6)")
    ap.add_argument("--objective", choices=OBJECTIVES, action="append", default=None,
                    help="run only this objective (repeatable); default: all three")
    ap.add_argument("--target", type=float, action="append", default=None,
                    help="target gap (repeatable); default: 0.01 and 0.001")
    ap.add_argument("--save", action="store_true",
                    help="write the table to benchmarks/results/bench_efce_dag_learning.json")
    args = ap.parse_args(argv)
    objectives = args.objective or OBJECTIVES
    targets = args.target or TARGETS
    optima = exact_optima()
    rows = []
    print(f"{args.time_limit:g} s of learning per case, {args.memory_cap:g} GiB")
    for label, name, params, thesis in INSTANCES:
        if args.only not in label:
            continue
        stopped: str | None = None
        for target in targets:
            for k, obj in enumerate(OBJECTIVES):
                if obj not in objectives:
                    continue
                cells = thesis.get(target)
                ours, lp = (cells[k] if cells else (None, None))
                if label in THESIS_TIMEOUTS:
                    ours, lp = TIMEOUT, TIMEOUT
                exact = optima.get((label, obj))
                if stopped is not None:
                    rows.append([label, obj, target, f"not run ({stopped})"] + [None] * 7
                                + [_figure(exact, 6), None, None, ours, lp, None])
                    continue
                child = run_isolated(
                    "benchmarks.bench_efce_dag_learning:solve_row",
                    {"game": name, "params": params, "objective": obj, "target": target,
                     "time_limit": args.time_limit},
                    timeout=args.time_limit + args.build_allowance,
                    memory_cap=int(args.memory_cap * 2**30),
                    env={"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
                         "MKL_NUM_THREADS": "1"})
                d = child.data
                if child.status == "ok":
                    s = d["seconds"]
                    status = d["status"].replace("_", " ")
                    total = s["total"]
                    ratio = (round(total / ours, 1) if isinstance(ours, (int, float)) and ours
                             and d["status"] == "converged" else None)
                    row = [label, obj, target, status, _figure(total, 1), _figure(s["dag"], 1),
                           _figure(s["learning"], 1), d["iterations"], d["lambda"], d["edges"],
                           _figure(d["objective"], 6), _figure(exact, 6),
                           _figure(d["relative_gap"], 6), _figure(d["relative_bound_gap"], 6),
                           ours, lp, ratio]
                    if d["status"] != "converged":
                        stopped = f"max {OBJECTIVES[k].replace('player', 'P')}: {status}"
                else:
                    kind = ("time limit" if child.status == "timeout"
                            else "memory" if child.status == "out of memory"
                            or "Memory" in (child.kind or "") else child.kind or child.status)
                    edges = d.get("edges")              # built so far (the DAG's progress)
                    if "TooLarge" in (child.kind or ""):
                        kind, edges = "DAG too large", f"> {DEFAULT_MAX_EDGES:,}"
                    stage = d.get("stage", "") if kind != "DAG too large" else ""
                    status = f"{kind} ({stage})" if stage else kind
                    stopped = f"max {OBJECTIVES[k].replace('player', 'P')}: {kind}"
                    row = [label, obj, target, status, _figure(child.wall_seconds, 1), None, None,
                           d.get("iteration"), None, edges, None,
                           _figure(exact, 6), None, None, ours, lp, None]
                rows.append(row)
                print(" | ".join("—" if v is None else str(v) for v in row), flush=True)
    if args.save:
        from benchmarks.results_io import command, result, save
        print("saved", save(result(
            "bench_efce_dag_learning", command("benchmarks.bench_efce_dag_learning", argv),
            COLUMNS, rows,
            notes="Optimal EFCE by learning on the correlation DAG (PRM+ mediator, PRM+ trigger "
                  "deviators, λ from 1 doubled on a stalled gap), each case in its own process "
                  f"with {args.time_limit:g} s of learning (+{args.build_allowance:g} s for the "
                  f"DAG) and {args.memory_cap:g} GiB, one BLAS thread; converged = the "
                  "independent checker's EFCE gap and the bound gap both within the target. "
                  "Exact optimum: bench_correlation_dag (DAG LP, same machine). Thesis: Tables "
                  "10.1/10.2 (another machine, compiled learner).")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
