"""TMECor by learning on the team belief DAG on Farina's Table 11.2 rows, beside his "Ours" times.

Run from the repository root::

    python -m benchmarks.bench_tmecor_learning [--only TEXT] [--max-seconds S]
                                               [--certificate-seconds S] [--memory-cap GIB]
                                               [--regret-minimiser pcfr+|cfr+|dcfr] [--save]

Each row is one ``solve_tmecor(game, team=..., method="learning", target_gap=1e-4)``
(:mod:`lpgame.equilibria.teams.tmecor_learning`: PCFR⁺ on every belief of the team belief DAG
against the opponent's PCFR⁺ on its treeplex, alternating, quadratic averaging) in its own child
process (:mod:`benchmarks.isolated`). The seconds to 10⁻³ and 10⁻⁴ are the learning clock at the
first checkpoint whose gap (the team's best pure flow on the DAG against ȳ minus the independent
opponent best response to x̄) is at most that fraction of the payoff range; the DAG's construction
is reported apart ("build s"), as the thesis's times are for the learning. The final averages are
then certified by :mod:`lpgame.analysis.team_gaps`, which never reads the DAG (the team's best
joint plan by enumeration, or its MILP, whose dual bound is used if ``--certificate-seconds``
stops it): "cert gap" is that certified gap relative to the payoff range.

Farina's columns are Table 11.2 (notes/farina-thesis.md §3.5): "Ours" at 10⁻³ and 10⁻⁴, on 4
threads of a 64-core EPYC 7282, in C++; "Ω▲ simplexes/dim" are his DAG's sizes, counted with
another convention (docs/explanation/benchmarks.md). "×" is our time over his (0.00 s is taken as
0.005 s). ``--regret-minimiser`` runs CFR⁺ or DCFR instead of PCFR⁺; a row whose child process
passes ``--memory-cap`` or its time limit (learning, 3 × ``--max-seconds`` for the DAG's
construction, plus the certificate) is printed and saved with that reason.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __package__ in (None, ""):        # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.isolated import run_isolated  # noqa: E402

KUHN3 = {"players": 3}
# (label, catalog name, parameters, team (1-based), Table 11.2: Ω▲ simplexes / dim,
#  seconds: Ours 1e-3, Ours 1e-4, ZS22)
INSTANCES = [
    ("K33", "kuhn_poker", {**KUHN3, "cards": 3}, (1, 2), (487, 918), (0.00, 0.00, 0.01)),
    ("K34", "kuhn_poker", {**KUHN3, "cards": 4}, (1, 2), (2_100, 6_711), (0.00, 0.00, 0.02)),
    ("K36", "kuhn_poker", {**KUHN3, "cards": 6}, (1, 2), (54_255, 336_944), (0.03, 0.12, 1.22)),
    ("K38", "kuhn_poker", {**KUHN3, "cards": 8}, (1, 2), (1_783_926, 15_564_765),
     (4.73, 32.36, 203.0)),
    ("K45{4}", "kuhn_poker", {"players": 4, "cards": 5}, (1, 2, 3), (998_471, 4_658_070),
     (1.59, 6.34, 205.0)),
    ("L3133", "leduc_poker", {"players": 3, "bets": 1, "ranks": 3, "suits": 3}, (1, 2),
     (23_983, 49_005), (0.02, 0.05, 0.50)),
    ("L3143", "leduc_poker", {"players": 3, "bets": 1, "ranks": 4, "suits": 3}, (1, 2),
     (139_964, 417_027), (0.10, 0.48, 7.58)),
    ("L3151", "leduc_poker", {"players": 3, "bets": 1, "ranks": 5, "suits": 1}, (1, 2),
     (150_707, 496_196), (0.18, 0.50, 9.30)),
    ("L3153", "leduc_poker", {"players": 3, "bets": 1, "ranks": 5, "suits": 3}, (1, 2),
     (855_397, 3_486_091), (1.24, 4.94, 264.0)),
    ("L3223", "leduc_poker", {"players": 3, "bets": 2, "ranks": 2, "suits": 3}, (1, 2),
     (32_750, 45_913), (0.03, 0.08, 0.27)),
    ("L3523", "leduc_poker", {"players": 3, "bets": 5, "ranks": 2, "suits": 3}, (1, 2),
     (2_911_352, 4_183_685), (11.26, 24.86, 146.0)),
    ("D33", "liars_dice", {"players": 3, "faces": 3}, (1, 2), (91_858, 215_967),
     (0.11, 0.40, 2.10)),
    ("D34", "liars_dice", {"players": 3, "faces": 4}, (1, 2), (4_043_377, 13_749_608),
     (22.54, 88.0, 509.0)),
]
DEFAULT_ROWS = ("K33", "K34", "K36", "L3133", "L3143", "L3151", "L3223", "D33")
"""The rows run when --only is not given (about ten minutes on the project's 2 shared cores).
K45{4} (880 k prescriptions) and L3153 (682 k) run with --only (2–5 minutes each); K38, L3523 and
D34 do not finish in about five minutes under the 6 GiB cap (docs/explanation/benchmarks.md)."""


def solve_row(game: str, params: dict, team: tuple, max_seconds: float,
              certificate_seconds: float, regret_minimiser: str = "pcfr+") -> dict:
    """One row (runs in the child process)."""
    import lpgame.games
    from lpgame.equilibria.teams.tmecor import solve_tmecor

    result = solve_tmecor(lpgame.games.make(game, **params), team=team, method="learning",
                          target_gap=1e-4, time_limit=max_seconds,
                          certificate_time_limit=certificate_seconds, max_distribution_plans=20,
                          regret_minimiser=regret_minimiser)
    info = result.extra["learning"]
    history = info["history"]

    def first(target):
        return next(((t, s) for t, s, gap in history if gap <= target), (None, None))
    lower, upper = result.extra["bounds"]
    return {"beliefs": result.extra["belief_dag"]["beliefs"],
            "edges": result.extra["belief_dag"]["edges"], "build": info["build_seconds"],
            "to3": first(1e-3), "to4": first(1e-4), "iterations": info["iterations"],
            "status": result.extra["status"], "value": result.value,
            "certified_gap": (upper - lower) / info["payoff_range"],
            "certificate": result.extra["team_deviation"]["method"]
            + ("" if result.extra["team_deviation"]["optimal"] else " (bound)"),
            "certificate_seconds": result.seconds["certificate"]}


def _ratio(ours, theirs) -> str:
    return "—" if ours is None else f"{ours / max(theirs, 0.005):.0f}×"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated labels (default: the small "
                        "rows " + ", ".join(DEFAULT_ROWS) + "; 'all' for every row)")
    parser.add_argument("--max-seconds", type=float, default=120.0,
                        help="learning time limit per row")
    parser.add_argument("--certificate-seconds", type=float, default=120.0,
                        help="time limit of the certificate's team-deviation MILP")
    parser.add_argument("--memory-cap", type=float, default=6.0,
                        help="address-space cap of each row's child process, GiB")
    parser.add_argument("--regret-minimiser", default="pcfr+", choices=("pcfr+", "cfr+", "dcfr"))
    parser.add_argument("--save", action="store_true",
                        help="write benchmarks/results/bench_tmecor_learning.json")
    args = parser.parse_args(argv)
    wanted = ([label for label, *_ in INSTANCES] if args.only == "all" else
              args.only.split(",") if args.only else list(DEFAULT_ROWS))
    print(f"TMECor by learning ({args.regret_minimiser.upper()} on the team belief DAG; this "
          "machine, shared cores) beside Farina's Table 11.2 'Ours' (C++, 4 threads, EPYC 7282)")
    cap = int(args.memory_cap * 2**30)
    env = {"LPGAME_MEMORY_LIMIT": f"{int(args.memory_cap * 0.8 * 1024)}M"}
    columns = ["game", "beliefs/edges", "T11.2 simplexes/dim", "build s", "it 1e-3",
               "s 1e-3", "Ours 1e-3", "×", "s 1e-4", "Ours 1e-4", "×", "value", "cert gap",
               "certificate", "cert s"]
    header = (f"{'game':<7} {'beliefs/edges':>15} {'T11.2 simpl/dim':>20} {'build s':>7} "
              f"{'it 1e-3':>7} {'s 1e-3':>7} {'Ours':>5} {'×':>5} {'s 1e-4':>7} {'Ours':>5} "
              f"{'×':>5} {'value':>10} {'cert gap':>8} {'certificate':<15} {'cert s':>6}")
    print(header)
    print("-" * len(header))
    rows = []
    for label, name, params, team, (simplexes, dim), (ours3, ours4, _zs22) in INSTANCES:
        if label not in wanted:
            continue
        child = run_isolated("benchmarks.bench_tmecor_learning:solve_row",
                             {"game": name, "params": params, "team": team,
                              "max_seconds": args.max_seconds,
                              "certificate_seconds": args.certificate_seconds,
                              "regret_minimiser": args.regret_minimiser},
                             timeout=4 * args.max_seconds + args.certificate_seconds + 60,
                             memory_cap=cap, env=env)
        if child.status != "ok":
            print(f"{label:<7} {child.status}: {child.error[:150]} ({child.wall_seconds:.0f} s)",
                  flush=True)
            rows.append([label, f"{child.status}: {child.error[:200]} "
                         f"({child.wall_seconds:.0f} s, cap {args.memory_cap:g} GiB)"]
                        + [None] * (len(columns) - 2))
            continue
        d = child.data
        (it3, s3), (_, s4) = d["to3"], d["to4"]
        cells = [label, f"{d['beliefs']}/{d['edges']}", f"{simplexes}/{dim}",
                 round(d["build"], 2), it3, None if s3 is None else round(s3, 3), ours3,
                 _ratio(s3, ours3), None if s4 is None else round(s4, 3), ours4, _ratio(s4, ours4),
                 round(d["value"], 6), f"{d['certified_gap']:.1e}", d["certificate"],
                 round(d["certificate_seconds"], 1)]
        rows.append(cells)
        text = ["—" if c is None else str(c) for c in cells]
        print(f"{text[0]:<7} {text[1]:>15} {text[2]:>20} {text[3]:>7} {text[4]:>7} {text[5]:>7} "
              f"{text[6]:>5} {text[7]:>5} {text[8]:>7} {text[9]:>5} {text[10]:>5} {text[11]:>10} "
              f"{text[12]:>8} {text[13]:<15} {text[14]:>6}", flush=True)
    if args.save:
        from benchmarks.results_io import command, result, save
        print("saved", save(result(
            "bench_tmecor_learning", command("benchmarks.bench_tmecor_learning", argv), columns,
            rows, notes=f"{args.regret_minimiser.upper()}; seconds to a gap of 1e-3 / 1e-4 of the "
            "payoff range (learning clock, the DAG's construction apart), the final averages "
            "certified by lpgame.analysis.team_gaps; Farina's 'Ours' is Table 11.2 (C++, 4 "
            "threads)")))


if __name__ == "__main__":
    main()
