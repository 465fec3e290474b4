"""GameShrink on Rhode Island Hold'em: time, memory and LP sizes against the paper, and a solve attempt.

Run from the repository root: ``python -m benchmarks.bench_abstraction`` (options: ``--time-limit S``
for the solve attempt, default 300; ``--solver ipm|pdlp|simplex``; ``--memory-cap GiB`` for each
child, default 12; ``--no-solve``).

Each row runs in its own child process (:mod:`benchmarks.isolated`: wall-clock limit, address-space
cap, peak resident memory of that child alone):

* **shrink**: build Rhode Island Hold'em in signal form (52 cards, never expanded), run GameShrink
  (canonical forms over the 6,632,705-node signal tree, the view filter, its refinement to a sound
  filter) and count the sequence-form LP before and after from the class counts;
* **solve**: shrink, compile the abstract game (the flat index: joint class states × public
  leaves), build the sequence-form LP and give it to HiGHS with a time limit. The paper needed
  CPLEX's barrier for 7 days 17 hours and 25 GB on a 64 GB IBM p5 570 for its (smaller, see below)
  LP; on a shared 2-core machine this is expected not to finish, and the row says how far it got;
* **Leduc** by cards, shrunk, solved, lifted and certified in the card-level tree, for scale;
* **Rhode Island on a smaller deck** (``--scaled-ranks``, default 3 ranks × 4 suits): shrunk,
  solved and certified end to end (in the abstract game when the original is too large to compile;
  with 3 ranks the original, 918,626 LP rows, is compiled and the certificate computed there).

The paper's figures (Gilpin & Sandholm EC'06; notes §A.12): signal tree 6,632,705 nodes; LP
91,224,226 rows before; 1,237,238 rows and 50,428,638 nonzeros after; under one second to shrink.
GameShrink's proposal without lpgame's soundness refinement reproduces the paper's 1,237,238 rows
and 50,428,638 nonzeros exactly; that filter merges views that differ in public cards and is not
lossless (on Leduc its lifted equilibrium has NashConv 0.76; tests/test_abstraction.py). The sound
filter is larger (5,498,768 rows).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if __package__ in (None, ""):        # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.isolated import gib, note_progress, run_isolated  # noqa: E402

PAPER = {"signal_tree_nodes": 6_632_705, "rows_before": 91_224_226, "rows_after": 1_237_238,
         "nnz_after": 50_428_638, "shrink_seconds": "< 1", "solve": "7 days 17 h (CPLEX barrier)"}


def shrink_case() -> dict:
    """Build and shrink Rhode Island Hold'em; sizes before/after and of GameShrink's proposal."""
    import lpgame
    from lpgame.abstraction import gameshrink

    start = time.perf_counter()
    game = lpgame.games.make("rhode_island_holdem")
    shrunk = gameshrink(game)
    report = shrunk.report()
    report["wall_seconds"] = time.perf_counter() - start
    return report


def solve_case(time_limit: float, solver: str) -> dict:
    """Shrink, compile the abstract game, build its LP and run HiGHS until the time limit."""
    import lpgame
    from lpgame.abstraction import gameshrink
    from lpgame.equilibria.zero_sum.nash import solve_zero_sum
    from lpgame.errors import ModelTooLargeError, SolverTimeLimitError
    from lpgame.sequence_form import SequenceForm

    out: dict = {}
    start = time.perf_counter()
    shrunk = gameshrink(lpgame.games.make("rhode_island_holdem"))
    out["shrink_seconds"] = time.perf_counter() - start
    note_progress(**out)
    try:
        abstract = shrunk.compile()
    except ModelTooLargeError as exc:     # a MemoryError subclass: report it as what it is
        out["status"] = "refused before building (ModelTooLargeError)"
        out["message"] = str(exc)
        return out
    out["compile_seconds"] = time.perf_counter() - start - out["shrink_seconds"]
    out["abstract_terminals"] = int(abstract.index.num_terminals)
    note_progress(**out)
    sf = SequenceForm(abstract)
    before_solve = time.perf_counter()
    try:
        solution = solve_zero_sum(sf, solver=solver, time_limit=time_limit)
        out["status"] = "optimal"
        out["value"] = float(solution.value)
        out["lp"] = solution.lp.size()
    except SolverTimeLimitError as exc:
        out["status"] = "time limit"
        out["message"] = str(exc)[:300]
        out["lp"] = exc.size
    out["solve_seconds"] = time.perf_counter() - before_solve
    return out


def scaled_case(ranks: int, suits: int, time_limit: float, solver: str) -> dict:
    """Rhode Island Hold'em on a smaller deck, shrunk, solved and certified end to end."""
    import lpgame
    from lpgame.games.rhode_island import rhode_island_ordered

    start = time.perf_counter()
    result = lpgame.solve(rhode_island_ordered(ranks, suits, 3), abstraction="gameshrink",
                          solver=solver, time_limit=time_limit)
    shrink = result.extra["abstraction"]
    return {"seconds": time.perf_counter() - start, "solve_seconds": result.seconds["solve"],
            "shrink_seconds": shrink["seconds"], "value": float(result.value),
            "nash_conv": float(result.certificate.nash_conv),
            "certificate_game": shrink["certificate_game"].split(":")[0],
            "rows": [shrink["before"]["lp"]["rows"], shrink["after"]["lp"]["rows"]],
            "nnz": [shrink["before"]["lp"]["nnz"], shrink["after"]["lp"]["nnz"]]}


def leduc_case() -> dict:
    import lpgame

    start = time.perf_counter()
    game = lpgame.games.make("leduc_poker", deal="cards")
    result = lpgame.solve(game, abstraction="gameshrink")
    shrink = result.extra["abstraction"]
    return {"seconds": time.perf_counter() - start, "value": float(result.value),
            "nash_conv": float(result.certificate.nash_conv),
            "rows": [shrink["before"]["lp"]["rows"], shrink["after"]["lp"]["rows"]],
            "infosets": [sum(shrink["before"]["infosets"]), sum(shrink["after"]["infosets"])]}


def _fmt(value) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument("--solver", default="ipm", choices=["ipm", "pdlp", "simplex"])
    parser.add_argument("--memory-cap", type=float, default=12.0, help="GiB per child")
    parser.add_argument("--no-solve", action="store_true")
    parser.add_argument("--scaled-ranks", type=int, default=3,
                        help="also solve Rhode Island with this many ranks × 4 suits (0: skip)")
    args = parser.parse_args(argv)
    cap = int(args.memory_cap * (1 << 30))
    env = {"LPGAME_MEMORY_LIMIT": f"{int(args.memory_cap * 0.8 * 1024)}M"}

    leduc = run_isolated("benchmarks.bench_abstraction:leduc_case", {}, timeout=600,
                         memory_cap=cap, env=env)
    if leduc.status == "ok":
        d = leduc.data
        print(f"Leduc by cards: rows {d['rows'][0]:,} → {d['rows'][1]:,}, information sets "
              f"{d['infosets'][0]} → {d['infosets'][1]}, value {d['value']:.10f}, lifted NashConv "
              f"{d['nash_conv']:.1e} in the card-level tree, {leduc.wall_seconds:.1f} s")
    else:
        print(f"Leduc by cards: {leduc.status} {leduc.error}")

    if args.scaled_ranks:
        scaled = run_isolated("benchmarks.bench_abstraction:scaled_case",
                              {"ranks": args.scaled_ranks, "suits": 4,
                               "time_limit": args.time_limit, "solver": args.solver},
                              timeout=args.time_limit + 900, memory_cap=cap, env=env)
        title = f"Rhode Island Hold'em with {args.scaled_ranks} ranks × 4 suits"
        if scaled.status == "ok":
            d = scaled.data
            print(f"{title}: LP rows {d['rows'][0]:,} → {d['rows'][1]:,}, nonzeros {d['nnz'][0]:,} → "
                  f"{d['nnz'][1]:,}; shrink {d['shrink_seconds']:.1f} s, HiGHS {args.solver} "
                  f"{d['solve_seconds']:.1f} s, total {d['seconds']:.1f} s, peak memory "
                  f"{gib(scaled.peak_rss_bytes)}; value {d['value']:.6f}, NashConv {d['nash_conv']:.1e}"
                  f" computed in the {d['certificate_game']}")
        else:
            print(f"{title}: {scaled.status} {scaled.kind} {scaled.error[:300]}")

    shrink = run_isolated("benchmarks.bench_abstraction:shrink_case", {}, timeout=1800,
                          memory_cap=cap, env=env)
    print(f"\nRhode Island Hold'em, GameShrink: {shrink.status}, {shrink.wall_seconds:.1f} s wall "
          f"(child), peak memory {gib(shrink.peak_rss_bytes)}")
    if shrink.status != "ok":
        print("  " + shrink.error)
        return
    r = shrink.data
    proposal = r["signal_tree"]["proposal_without_refinement"]
    nnz_nonzero = (sum(proposal["infosets"]) + sum(proposal["sequences"])
                   + proposal["payoff_nonzeros"])
    after_nonzero = (sum(r["after"]["infosets"]) + sum(r["after"]["sequences"])
                     + r["after"]["payoff_nonzeros"])
    rows = [
        ("signal-tree nodes", PAPER["signal_tree_nodes"], r["before"]["signal_tree_nodes"], "", ""),
        ("LP rows before", PAPER["rows_before"], r["before"]["lp"]["rows"], "", ""),
        ("LP nonzeros before", "-", r["before"]["lp"]["nnz"], "", ""),
        ("LP rows after", PAPER["rows_after"], r["after"]["lp"]["rows"], proposal["lp"]["rows"], ""),
        ("LP cols after", PAPER["rows_after"], r["after"]["lp"]["cols"], proposal["lp"]["cols"], ""),
        ("LP nonzeros after", PAPER["nnz_after"], after_nonzero, nnz_nonzero,
         "zero payoffs (split pots) not counted"),
        ("LP entries stored by lpgame", "-", r["after"]["lp"]["nnz"], proposal["lp"]["nnz"],
         "split pots stored as zeros"),
        ("view classes per round", "-", r["after"]["view_classes"][0],
         proposal["view_classes"][0], ""),
        ("information sets after", "-", sum(r["after"]["infosets"]), sum(proposal["infosets"]), ""),
        ("seconds to shrink", PAPER["shrink_seconds"], round(r["seconds"], 1), "", ""),
    ]
    print(f"  {'quantity':<30}{'paper':>16}{'lpgame (sound)':>18}{'proposal only':>16}  note")
    for name, paper, ours, prop, note in rows:
        print(f"  {name:<30}{_fmt(paper):>16}{_fmt(ours):>18}{_fmt(prop):>16}  {note}")
    print("  'proposal only': GameShrink's merges lifted to views without the soundness refinement;"
          " it reproduces the paper's size and is not lossless (Leduc: lifted NashConv 0.76).")
    if args.no_solve:
        return
    solve = run_isolated("benchmarks.bench_abstraction:solve_case",
                         {"time_limit": args.time_limit, "solver": args.solver},
                         timeout=args.time_limit + 1200, memory_cap=cap, env=env)
    d = solve.data
    print(f"\nRhode Island Hold'em, solving the sound abstract LP with HiGHS {args.solver}, time limit "
          f"{args.time_limit:g} s, memory cap {args.memory_cap:g} GiB: {solve.status}"
          + (f" ({solve.kind})" if solve.kind else "")
          + f", {solve.wall_seconds:.1f} s wall, peak memory {gib(solve.peak_rss_bytes)}")
    for key in ("shrink_seconds", "compile_seconds", "abstract_terminals", "lp", "solve_seconds",
                "status", "value", "message"):
        if key in d:
            print(f"  {key}: {d[key]}")
    if solve.error:
        print(f"  {solve.error[:400]}")


if __name__ == "__main__":
    main()
