"""Optimal EFCE by learning (Farina 2023, Ch. 10) on the rows of Table 10.1/10.2 that lpgame's
catalog holds, next to the thesis's two columns (Gurobi LP, "Ours") and lpgame's own LP.

Run from the repository root::

    python -m benchmarks.bench_efce_learning [--only TEXT] [--budget S] [--lp-limit S]
                                             [--lp-max-pairs N] [--memory-gib G]
                                             [--minimiser drm|prm+] [--multiplier L]

Each (game, objective) is one child process (:mod:`benchmarks.isolated`): the learner of
:mod:`lpgame.equilibria.correlated.efce_learning` runs to 0.1 % of the payoff range or ``--budget`` seconds;
its checkpoint history gives the time at which the 1 % criterion first held (the averaged plan's
EFCE gap, measured by :mod:`lpgame.analysis.correlated_gaps`, and the optimality slack against the
Lagrangian bound both ≤ 1 % of the range) and the time of 0.1 %. Then HiGHS solves the optimal-EFCE
LP (Prop. 9.1; exact here, these games have no chance and are triangle-free) within ``--lp-limit``
seconds, and the learned objectives are compared with its optimum: |learned − LP| / range. The LP
is skipped on games with more than ``--lp-max-pairs`` relevant pairs (the rows where the thesis's
Gurobi timed out: B2324, S2254, S2264; HiGHS is slower still). Every child has a wall-clock limit
(budget + LP limit + 600 s for compiling and building) and an address-space cap (``--memory-gib``).

Each row also reports the certified interval [objective of the returned plan, U] of the final
plan, U the upper bound on the optimal EFCE objective re-derived by
:class:`lpgame.analysis.correlated_gaps.LagrangianBound` from the learner's best (λ, deviator
points) (weak duality of (10.3); the learner's dual vector is checked, not trusted), and its width
relative to the range, and the child's peak memory.

Columns: game (Farina's names, notes §2.6/2.7), objective, payoff range R, pairs (relevant sequence
pairs, the size of Ξ), "build" (compile, Algorithm 9.3 chain, trigger forests, s), LP optimum and
lpgame's HiGHS seconds, then for 1 % and 0.1 %: the thesis's Gurobi and "Ours" seconds (Tables
10.1/10.2, notes §3.4; "t/o" = the thesis's 1 h timeout; 4 threads of an EPYC 7282), lpgame's
learning seconds (from the start, build included; "—" = not reached) by the thesis's criterion
("vs LP": gap and |objective − LP optimum| both within the target) and by lpgame's own certified
criterion ("cert": gap and Lagrangian slack within the target, no LP needed), then, at the
certified checkpoint, its iteration, relative gap and |learned − LP|/R. The three-player rows and
the rows whose games are not in the catalog are listed with the reason they are not run.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

if __package__ in (None, ""):        # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.isolated import gib, note_progress, run_isolated  # noqa: E402

T = None   # the thesis's 1 h timeout
# Farina's name, catalog name, parameters, thesis (Gurobi s, Ours s) per objective P1, P2, SW,
# at 1 % (Table 10.1) and at 0.1 % (Table 10.2) — notes/farina-thesis.md §3.4
INSTANCES = [
    ("B2222", "battleship", {"rows": 2, "cols": 2, "shots": 2},
     ((0, .01), (0, .05), (0, .02)), ((0, .16), (0, .10), (0, .03))),
    ("S2122", "sheriff", {"N": 10, "B": 2, "rounds": 2},
     ((0, .01), (0, .02), (0, .02)), ((0, .04), (0, .07), (0, .07))),
    ("S2123", "sheriff", {"N": 10, "B": 2, "rounds": 3},
     ((1, .09), (1, .34), (1, .15)), ((2, .24), (1, 1.63), (1, .37))),
    ("S2133", "sheriff", {"N": 10, "B": 3, "rounds": 3},
     ((4, .52), (3, 1.31), (3, .49)), ((5, 1.12), (3, 4.80), (4, .95))),
    ("B2322", "battleship", {"rows": 2, "cols": 3, "shots": 2},
     ((9, 1.23), (9, 4.63), (9, 1.60)), ((9, 11.04), (9, 10.87), (9, 4.11))),
    ("B2323", "battleship", {"rows": 2, "cols": 3, "shots": 3},
     ((234, 48.4), (249, 87), (220, 44.87)), ((252, 221), (249, 215), (220, 88))),
    ("B2324", "battleship", {"rows": 2, "cols": 3, "shots": 4},
     ((T, 543), (T, 621), (T, 648)), ((T, T), (T, T), (T, T))),
    ("S2254", "sheriff", {"N": 20, "B": 5, "rounds": 4},
     ((T, 130), (T, T), (T, 214)), ((T, 384), (T, T), (T, 542))),
    ("S2264", "sheriff", {"N": 20, "B": 6, "rounds": 4},
     ((T, T), (T, T), (T, T)), ((T, T), (T, T), (T, T))),
]
NOT_RUN = [
    ("RS212, RS213, RS222, RS223", "ridesharing: the graphs of Fig. A.2 are missing from the "
                                   "thesis text (notes §2.11); not in the catalog"),
    ("TP3", "double-dummy bridge endgame: the dummy hand is OCR-garbled and no reading "
            "reproduces Table A.1 (notes §2.10, §7); not in the catalog"),
    ("D32, D33, K35, GL33, L3132, L3133, L3151, L3223, L3523",
     "three players: the thesis's correlation-plan representation for n players (Zhang, Farina, "
     "Celli & Sandholm, EC 2022) is not written out in the notes or seeds; lpgame's learner "
     "covers two-player games"),
]
OBJECTIVES = ("player1", "player2", "welfare")


def learn_row(game: str, params: dict, objective: str, budget: float, lp_limit: float,
              minimiser: str, multiplier: float, lp_max_pairs: int = 1_000_000) -> dict:
    """One (game, objective): learning to 0.1 % within ``budget`` s, then the LP (child process)."""
    import time

    import lpgame
    from lpgame.equilibria.correlated.efce import solve_correlation_plan
    from lpgame.equilibria.correlated.efce_learning import solve_efce_learning
    from lpgame.errors import LpgameError

    start = time.perf_counter()
    sf = lpgame.compile_game(lpgame.games.make(game, **params))
    compiled = time.perf_counter() - start
    note_progress(compile=compiled)
    r = solve_efce_learning(sf, objective, target_gap=0.001, time_limit=budget,
                            regret_minimiser=minimiser, multiplier=multiplier)
    out = {"compile": compiled, "build": compiled + r.seconds["build"],
           "range": r.extra["payoff_range"], "pairs": r.extra["relevant_pairs"],
           "status": r.extra["status"], "iterations": r.extra["iterations"],
           "final_gap": r.extra["relative_gap"], "final_objective": r.objective,
           "final_slack": r.extra["relative_slack"],
           "interval": r.extra.get("bound_interval"),
           "interval_width": r.extra.get("relative_interval_width"),
           "certify_seconds": r.seconds.get("certify"),
           "history": r.extra["history"]}
    note_progress(**{k: v for k, v in out.items() if k not in ("history", "interval")})
    lp_start = time.perf_counter()
    if r.extra["relevant_pairs"] > lp_max_pairs:
        out["lp"] = None
        out["lp_seconds"] = 0.0
        out["lp_error"] = "skipped"
        return out
    try:
        lp = solve_correlation_plan(sf, "efce", objective, decompose=False, time_limit=lp_limit)
        out["lp"] = lp.objective
        out["lp_seconds"] = time.perf_counter() - lp_start
    except LpgameError as exc:
        out["lp"] = None
        out["lp_seconds"] = time.perf_counter() - lp_start
        out["lp_error"] = type(exc).__name__
    return out


def reached(history: list[dict], target: float, compile_seconds: float,
            optimum: float | None = None, scale: float = 1.0) -> dict | None:
    """The first checkpoint whose gap ≤ target and whose objective is within target of the
    optimum: certified by the Lagrangian slack (``optimum`` None), or, as the thesis measures,
    against the LP optimum |objective − optimum| (all relative to the payoff range)."""
    for h in history:
        off = h["relative_slack"] if optimum is None else abs(h["objective"] - optimum) / scale
        if max(h["relative_gap"], off) <= target:
            return {**h, "seconds": h["seconds"] + compile_seconds}
    return None


def _sec(value) -> str:
    if value is None:
        return "t/o"
    return f"{value:.2f}" if value < 100 else f"{value:.0f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="run the games whose name contains this")
    parser.add_argument("--objectives", default=",".join(OBJECTIVES))
    parser.add_argument("--budget", type=float, default=120.0, help="learning seconds per row")
    parser.add_argument("--lp-limit", type=float, default=120.0, help="HiGHS seconds per row")
    parser.add_argument("--lp-max-pairs", type=int, default=1_000_000,
                        help="skip the LP above this many relevant pairs")
    parser.add_argument("--memory-gib", type=float, default=12.0,
                        help="address-space cap of each child, GiB")
    parser.add_argument("--json", default="", help="also write every row's data (with the "
                        "checkpoint history) to this JSON file")
    parser.add_argument("--minimiser", default="drm", choices=("drm", "prm+"))
    parser.add_argument("--multiplier", type=float, default=10.0)
    args = parser.parse_args(argv)
    print(f"optimal EFCE by learning ({args.minimiser}, λ = {args.multiplier:g}, budget "
          f"{args.budget:g} s) vs HiGHS LP (limit {args.lp_limit:g} s); thesis = Farina 2023 "
          f"Tables 10.1/10.2 (Gurobi / Ours, s)")
    header = (f"{'game':<6} {'obj':<7} {'R':>5} {'pairs':>9} {'build':>6} {'LP opt':>10} "
              f"{'LP s':>6} | {'1%: Gur':>7} {'Ours':>6} {'vs LP':>7} {'cert':>7} {'iter':>6} "
              f"{'gap/R':>8} {'|Δ|/R':>7} | {'0.1%: Gur':>9} {'Ours':>6} {'vs LP':>7} {'cert':>7} "
              f"{'iter':>6} {'gap/R':>8} {'|Δ|/R':>7}  status")
    print(header)
    print("-" * len(header))
    objectives = args.objectives.split(",")
    dump: list[dict] = []
    for label, name, params, one, tenth in INSTANCES:
        if args.only.lower() not in label.lower():
            continue
        for objective in objectives:
            k = OBJECTIVES.index(objective)
            child = run_isolated("benchmarks.bench_efce_learning:learn_row",
                                 {"game": name, "params": params, "objective": objective,
                                  "budget": args.budget, "lp_limit": args.lp_limit,
                                  "minimiser": args.minimiser, "multiplier": args.multiplier,
                                  "lp_max_pairs": args.lp_max_pairs},
                                 timeout=args.budget + args.lp_limit + 600,
                                 memory_cap=int(args.memory_gib * (1 << 30)))
            d = child.data
            if args.json:
                dump.append({"game": label, "objective": objective, "status": child.status,
                             "error": child.error, "wall_seconds": child.wall_seconds,
                             "peak_rss_bytes": child.peak_rss_bytes, "data": d})
                Path(args.json).write_text(json.dumps(dump, indent=1, default=float))
            if child.status != "ok":
                print(f"{label:<6} {objective[:7]:<7} {'':>5} {d.get('pairs', ''):>9} "
                      f"{'':>6} {'':>10} {'':>6} | {_sec(one[k][0]):>7} {_sec(one[k][1]):>6} "
                      f"... {child.status}: {child.error[:100]} (after {child.wall_seconds:.0f} s; "
                      f"measured {', '.join(f'{a}={b:.4g}' for a, b in d.items() if isinstance(b, float))}; "
                      f"peak {gib(child.peak_rss_bytes)})",
                      flush=True)
                continue
            cells = []
            for target, thesis in ((0.01, one[k]), (0.001, tenth[k])):
                hit = reached(d["history"], target, d["compile"])
                vs_lp = reached(d["history"], target, d["compile"], d["lp"], d["range"]) \
                    if d["lp"] is not None else None
                first = f"{vs_lp['seconds']:>7.2f}" if vs_lp else f"{'—':>7}"
                if hit is None:
                    cells.append(f"{_sec(thesis[0]):>7} {_sec(thesis[1]):>6} {first} {'—':>7} "
                                 f"{'':>6} {'':>8} {'':>7}")
                    continue
                delta = abs(hit["objective"] - d["lp"]) / d["range"] if d["lp"] is not None \
                    else float("nan")
                cells.append(f"{_sec(thesis[0]):>7} {_sec(thesis[1]):>6} {first} "
                             f"{hit['seconds']:>7.2f} {hit['iteration']:>6} "
                             f"{hit['relative_gap']:>8.1e} {delta:>7.1e}")
            lp = f"{d['lp']:>10.4f}" if d["lp"] is not None else f"{d.get('lp_error', '?')[:10]:>10}"
            status = d["status"] + ("" if d["status"] == "converged"
                                    else f" after {d['iterations']} it (final gap/R "
                                         f"{d['final_gap']:.1e}, slack/R {d['final_slack']:.1e})")
            gap_only = [reached([{**h, "relative_slack": 0.0} for h in d["history"]], target,
                                d["compile"]) for target in (0.01, 0.001)]
            status += "; gap alone ≤ 1 % / 0.1 % at " + " / ".join(
                f"{g['seconds']:.0f} s (it {g['iteration']})" if g else "—" for g in gap_only)
            if d.get("interval"):
                status += (f"; certified [{d['interval'][0]:.5g}, {d['interval'][1]:.5g}] width/R "
                           f"{d['interval_width']:.1e}")
            status += f"; peak {gib(child.peak_rss_bytes)}"
            print(f"{label:<6} {objective[:7]:<7} {d['range']:>5g} {d['pairs']:>9} "
                  f"{d['build']:>6.1f} {lp} {d['lp_seconds']:>6.1f} | {cells[0]} | "
                  f"  {cells[1]}  {status}", flush=True)
    for rows, why in NOT_RUN:
        print(f"not run: {rows}: {why}")


if __name__ == "__main__":
    main()
