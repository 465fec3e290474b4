"""Rhode Island Hold'em through the showdown operator: the sparsified LP's size, memory and solve.

Run from the repository root: ``python -m benchmarks.bench_rhode_island`` (options: ``--ranks R``
for a smaller deck of R ranks × 4 suits, default 13; ``--time-limit S`` for HiGHS, default 1500;
``--solver ipm|simplex|pdlp``; ``--memory-cap GiB``, default 12; ``--no-solve``: sizes only;
``--save``: write ``benchmarks/results/bench_rhode_island.json``; ``--highs-log PATH``: HiGHS's log,
with the interior point's iterations and residuals).

One child process (:mod:`benchmarks.isolated`: address-space cap, peak resident memory) runs the
stages and notes each one's figures as it goes, so a stage that fails still reports those before it:

1. **shrink**: GameShrink's sound filter (:func:`lpgame.abstraction.gameshrink`);
2. **operator**: the payoff operator on the filter with the suit group (board orbit
   representatives: :mod:`lpgame.game.showdown_operator`), checked invariant;
3. **predict**: the operator LP's rows, columns and an upper bound on its nonzeros from counts, and
   its memory by :func:`lpgame.limits.predict_lp_bytes`; the explicit LP of the same filter for
   comparison; **count**: the exact nonzeros (``signal_operator_lp.count_nonzeros``: the build's
   triplets round by round, duplicates summed) and the build's and solve's memory;
4. **build** the LP (:mod:`lpgame.equilibria.zero_sum.signal_operator_lp`) and **solve** it with
   HiGHS (one thread, the time limit), then **certify** through the operator.

The paper's row (Gilpin & Sandholm EC'06): a lossy abstraction with 1,237,238 rows and 50,428,638
nonzeros, CPLEX barrier, 7 days 17 hours, 25 GB on a 64 GB server.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.isolated import gib, note_progress, run_isolated  # noqa: E402

PAPER = {"rows": 1_237_238, "nnz": 50_428_638, "time": "7 days 17 h", "memory": "25 GB of 64 GB",
         "lossless": "no (lpgame: the filter merges non-isomorphic views)"}


def _peak() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def highs_progress(path: str) -> dict:
    """Presolve time and size and the last interior-point iteration (primal and dual
    infeasibility) read from HiGHS's log."""
    import re
    text = Path(path).read_text() if Path(path).exists() else ""
    out: dict = {}
    sizes = re.findall(r"^(\d+) rows, (\d+) cols, (\d+) nonzeros\s+(\d+)s$", text, re.M)
    if sizes:
        out["presolve"] = {"rows": int(sizes[-1][0]), "nnz": int(sizes[-1][2]),
                           "seconds": int(sizes[-1][3])}
    iters = re.findall(r"^\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)$", text,
                       re.M)
    out["ipm_iterations"] = int(iters[-1][0]) if iters else 0
    if iters:
        out["last_iteration"] = dict(zip(("primal_obj", "dual_obj", "pinf", "dinf", "gap", "time"),
                                         map(float, iters[-1][1:])))
    return out


def operator_case(ranks: int, time_limit: float, solver: str, solve: bool,
                  highs_log: str | None = None) -> dict:
    """The stages of the module docstring, noting figures after each."""
    from lpgame.abstraction import gameshrink
    from lpgame.equilibria.zero_sum.signal_operator_lp import (
        count_nonzeros,
        operator_security_lp,
        predict_sizes,
    )
    from lpgame.errors import SolverTimeLimitError
    from lpgame.game.showdown_operator import SignalPayoffOperator, suit_permutations
    from lpgame.games.rhode_island import rhode_island_ordered
    from lpgame.limits import predict_lp_bytes
    from lpgame.lp import solve_lp

    out: dict = {"stages": {}}

    def stage(name, start, **figures):
        out["stages"][name] = {"seconds": round(time.perf_counter() - start, 2),
                               "peak_bytes": _peak(), **figures}
        note_progress(**out)

    t = time.perf_counter()
    game = rhode_island_ordered(ranks, 4, 3)
    shrunk = gameshrink(game)
    report = shrunk.report()
    out["explicit_lp"] = report["after"]["lp"]
    out["unabstracted_lp"] = report["before"]["lp"]
    stage("shrink", t)
    t = time.perf_counter()
    op = SignalPayoffOperator(game, shrunk.partition, suit_permutations(ranks, 4))
    stage("operator", t, boards=[len(rd.boards) for rd in op.rounds])
    t = time.perf_counter()
    sizes = predict_sizes(op)
    sizes["predicted_bytes"] = predict_lp_bytes(sizes["rows"], sizes["cols"], sizes["nnz_at_most"])
    out["operator_lp_predicted"] = sizes
    stage("predict", t)
    t = time.perf_counter()
    counted = count_nonzeros(op)
    out["operator_lp_counted"] = {k: counted[k] for k in ("rows", "cols", "nnz", "nnz_blocks",
                                                          "build_bytes", "solve_bytes")}
    stage("count", t)
    if not solve:
        return out
    t = time.perf_counter()
    built = operator_security_lp(op, sizes=counted)
    out["operator_lp_built"] = built.lp.size()
    stage("build", t, counted_over_built=counted["nnz"] / max(built.lp.size()["nnz"], 1))
    del shrunk
    t = time.perf_counter()
    log = {"output_flag": True, "log_to_console": False, "log_file": highs_log} if highs_log \
        else None
    try:
        solution = solve_lp(built.lp, solver=solver, threads=1, time_limit=time_limit,
                            highs_options=log)
    except SolverTimeLimitError as exc:
        stage("solve", t, status="time limit", message=str(exc)[:300],
              **(highs_progress(highs_log) if highs_log else {}))
        return out
    stage("solve", t, status="optimal", value=built.value(solution.objective))
    t = time.perf_counter()
    import numpy as np
    x = np.clip(solution.values("x"), 0.0, None)
    y = np.clip(solution.duals("best_response"), 0.0, None)
    cert = op.nash_conv(x, y)
    stage("certify", t, nash_conv=cert["nash_conv"], value=cert["value"])
    return out


def _solve_text(solve: dict) -> str:
    text = f"{solve['status']} {solve['seconds']} s"
    if "presolve" in solve:
        pre = solve["presolve"]
        text += (f" (presolve {pre['seconds']} s to {pre['rows']} rows / {pre['nnz']} nonzeros, "
                 f"{solve.get('ipm_iterations', 0)} IPM iterations"
                 + (f", pinf {solve['last_iteration']['pinf']:.1e} dinf "
                    f"{solve['last_iteration']['dinf']:.1e}" if solve.get("last_iteration") else "")
                 + ")")
    return text


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=13)
    parser.add_argument("--time-limit", type=float, default=1500.0)
    parser.add_argument("--solver", default="ipm", choices=["ipm", "simplex", "pdlp"])
    parser.add_argument("--memory-cap", type=float, default=12.0, help="GiB for the child")
    parser.add_argument("--no-solve", action="store_true")
    parser.add_argument("--save", action="store_true")
    parser.add_argument("--highs-log", default=None, help="HiGHS's log file (IPM iterations)")
    args = parser.parse_args(argv)
    cap = int(args.memory_cap * (1 << 30))
    env = {"LPGAME_MEMORY_LIMIT": f"{int(args.memory_cap * 0.9 * 1024)}M"}
    res = run_isolated("benchmarks.bench_rhode_island:operator_case",
                       {"ranks": args.ranks, "time_limit": args.time_limit, "solver": args.solver,
                        "solve": not args.no_solve, "highs_log": args.highs_log},
                       timeout=args.time_limit + 3600, memory_cap=cap, env=env)
    d = res.data
    title = "Rhode Island Hold'em" + ("" if args.ranks == 13 else f" ({args.ranks} ranks × 4 suits)")
    print(f"{title} through the showdown operator: child {res.status}"
          + (f" ({res.kind})" if res.kind else "") + f", {res.wall_seconds:.1f} s wall, "
          f"peak memory {gib(res.peak_rss_bytes)}")
    for name, s in d.get("stages", {}).items():
        extra = {k: v for k, v in s.items() if k not in ("seconds", "peak_bytes")}
        print(f"  {name:<9} {s['seconds']:>9.1f} s  peak {gib(s['peak_bytes']):>9}  {extra or ''}")
    if res.error:
        print("  " + res.error[:500])
    if d.get("operator_lp_predicted"):
        print(f"  operator LP predicted from counts: {d['operator_lp_predicted']}")
    if d.get("operator_lp_counted"):
        print(f"  operator LP counted exactly: {d['operator_lp_counted']}")
    before, explicit = d.get("unabstracted_lp", {}), d.get("explicit_lp", {})
    pred, built = d.get("operator_lp_predicted", {}), d.get("operator_lp_built", {})
    counted = d.get("operator_lp_counted", {})
    solve = d.get("stages", {}).get("solve", {})
    cert = d.get("stages", {}).get("certify", {})
    rows = [
        ["Gilpin & Sandholm EC'06 (lossy GameShrink)", PAPER["rows"], PAPER["nnz"], PAPER["time"],
         PAPER["memory"], "not certified"],
        ["lpgame, unabstracted LP", before.get("rows"), before.get("nnz"), "not built", "—", "—"],
        ["lpgame, sound GameShrink, explicit LP", explicit.get("rows"), explicit.get("nnz"),
         "refused (flat index 19 GiB)", "—", "—"],
        ["lpgame, sound GameShrink + showdown operator", built.get("rows", pred.get("rows")),
         built.get("nnz", counted.get("nnz", pred.get("nnz_at_most"))),
         (_solve_text(solve) if solve else
          f"refused: {res.kind} after stage {list(d.get('stages', {}))[-1:]}" if res.kind
          else "not run"),
         gib(res.peak_rss_bytes) if res.peak_rss_bytes else "—",
         f"NashConv {cert['nash_conv']:.2e}" if cert else "—"],
    ]
    columns = ["LP", "rows", "nonzeros", "solve", "peak memory", "certificate"]
    print(f"  {'LP':<46}{'rows':>13}{'nonzeros':>14}  solve / memory / certificate")
    for r in rows:
        print(f"  {r[0]:<46}{r[1] if r[1] is not None else '—':>13}"
              f"{r[2] if r[2] is not None else '—':>14}  {r[3]} / {r[4]} / {r[5]}")
    if args.save:
        from benchmarks import results_io
        path = results_io.save(results_io.result(
            "bench_rhode_island", results_io.command("benchmarks.bench_rhode_island"), columns,
            rows, notes="One child process, memory cap as given; operator LP sizes as built "
                        "(counted exactly from the build's triplets when the build did not run)."
                        + (f" Stages: {d.get('stages')}" if d.get("stages") else "")))
        print(f"saved {path}")


if __name__ == "__main__":
    main()
