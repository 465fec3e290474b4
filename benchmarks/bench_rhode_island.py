"""Rhode Island Hold'em through the showdown operator: the sparsified LP's size, memory and solve.

Run from the repository root: ``python -m benchmarks.bench_rhode_island`` (options: ``--ranks R``
for a smaller deck of R ranks × 4 suits, default 13; ``--time-limit S`` for HiGHS, default 1500;
``--solver ipm|simplex|pdlp``; ``--memory-cap GiB``, default 12; ``--no-solve``: sizes only;
``--save``: write ``benchmarks/results/bench_rhode_island.json``; ``--highs-log PATH``: HiGHS's log,
with the interior point's iterations and residuals).

**Approximate routes, certified.** ``--solver pdlp`` stops at the time limit with HiGHS PDLP's last
iterate (status "limit reached", never optimal); ``--solver cfr+|dcfr|pcfr+`` runs
:mod:`lpgame.learning.operator_cfr` on the filter's two treeplexes with the payoff gradient U·y,
Uᵀ·x from the operator, for ``--time-limit`` seconds. Either answer is projected onto the
treeplexes (negatives clipped, each information set renormalised, the plan rebuilt top-down:
:meth:`~lpgame.learning.operator_cfr.TreeplexArrays.project`) and certified by the operator's
leaf-free best responses: NashConv, absolute and relative to the payoff range, and the value bounds
BR₂(x) ≤ v ≤ BR₁(y). ``--checkpoint DIR`` saves the best certified profile to ``DIR/strategy.npz``
(and the learner's state to ``DIR/state.npz``, from which a rerun with the same DIR goes on; a DIR
of another deck or algorithm is refused) every ``--checkpoint-every`` seconds;
``--progress-log PATH`` appends one line per report (``--report-every`` iterations). ``--certify
PATH`` re-certifies a saved strategy file from scratch (shrink, operator, best responses) and
prints the same figures. The learner's loop is :func:`lpgame.learning.operator_cfr.certified_run`,
the one of ``lpgame.solve(game, method="operator_cfr")``.

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


LEARNERS = ("cfr+", "dcfr", "pcfr+")
STRATEGY_KEYS = ("x", "y", "ranks", "suits", "nash_conv", "value", "algorithm", "iterations")


def _progress(path: str | None, text: str) -> None:
    if path:
        with open(path, "a") as f:
            f.write(time.strftime("%H:%M:%S ") + text + "\n")


def _atomic_savez(path: Path, **arrays) -> None:
    import numpy as np
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, **arrays)
    tmp.replace(path)


def certified(op, plans, spread: float) -> dict:
    """Project ``plans`` onto the treeplexes and certify them through the operator."""
    from lpgame.learning.operator_cfr import TreeplexArrays
    x, y = (TreeplexArrays.of(op.treeplex(i)).project(plans[i]) for i in range(2))
    cert = op.nash_conv(x, y)
    return {"x": x, "y": y, "nash_conv": cert["nash_conv"],
            "relative_nash_conv": cert["nash_conv"] / spread, "value": cert["value"],
            "value_bounds": [cert["best_response_2"], cert["best_response_1"]],
            "gains": cert["gains"]}


def save_strategy(path: Path, cert: dict, ranks: int, algorithm: str, iterations: int) -> None:
    """The certified profile as an ``.npz`` file that ``--certify`` reads back."""
    import numpy as np
    _atomic_savez(path, x=cert["x"], y=cert["y"], ranks=np.array(ranks), suits=np.array(4),
                  nash_conv=np.array(cert["nash_conv"]), value=np.array(cert["value"]),
                  algorithm=np.array(algorithm), iterations=np.array(iterations))


def load_strategy(path: str) -> dict:
    """A strategy file of :func:`save_strategy`, or :class:`~lpgame.errors.StrategyError`."""
    import zipfile

    import numpy as np

    from lpgame.errors import StrategyError
    try:
        with np.load(path, allow_pickle=False) as data:
            missing = [k for k in STRATEGY_KEYS if k not in data.files]
            if missing:
                raise StrategyError(f"{path}: not a Rhode Island strategy file (missing "
                                    f"{', '.join(missing)})")
            out = {k: data[k] for k in STRATEGY_KEYS}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        if isinstance(exc, StrategyError):
            raise
        raise StrategyError(f"{path}: cannot read the strategy file ({exc})") from None
    for k in ("x", "y"):
        if out[k].ndim != 1 or out[k].dtype.kind != "f":
            raise StrategyError(f"{path}: {k} is not a vector of floats")
    return out


def _learn(op, algorithm: str, time_limit: float, spread: float, ranks: int,
           checkpoint: str | None, checkpoint_every: float, report_every: int,
           progress_log: str | None) -> dict:
    """Run the learner until the time limit (leaving room for the last certificate), certifying
    every ``report_every`` iterations and checkpointing every ``checkpoint_every`` seconds: the
    loop is :func:`lpgame.learning.operator_cfr.certified_run`."""
    from lpgame.learning.operator_cfr import OperatorCFR, certified_run
    cfr = OperatorCFR([op.treeplex(0), op.treeplex(1)], op.sequence_payoffs, algorithm)
    run = certified_run(
        cfr, lambda plans: certified(op, plans, spread), spread, time_limit=time_limit,
        check_every=report_every, spacing=0.0, reserve=5.0, checkpoint=checkpoint,
        checkpoint_every=checkpoint_every, identity={"ranks": ranks},
        on_checkpoint=lambda folder, best, iteration: save_strategy(
            folder / "strategy.npz", best, ranks, algorithm, iteration),
        log=lambda text: _progress(progress_log, text))
    return {"best": {**run.best, "iterations": run.best_iteration}, "iterations": run.iterations,
            "history": run.history,
            "seconds_per_iteration": round(run.seconds / max(run.iterations, 1), 3)}


def certify_case(path: str) -> dict:
    """Re-certify a strategy file: shrink, operator, then the operator's best responses."""
    import numpy as np

    from lpgame.abstraction import gameshrink
    from lpgame.equilibria.zero_sum.signal_operator_lp import payoff_range
    from lpgame.errors import StrategyError
    from lpgame.game.showdown_operator import SignalPayoffOperator, suit_permutations
    from lpgame.games.rhode_island import rhode_island_ordered
    from lpgame.learning.operator_cfr import TreeplexArrays
    data = load_strategy(path)
    ranks = int(data["ranks"])
    out: dict = {"stages": {}, "file": {"nash_conv": float(data["nash_conv"]),
                                        "algorithm": str(data["algorithm"]),
                                        "iterations": int(data["iterations"])}}
    t = time.perf_counter()
    game = rhode_island_ordered(ranks, int(data["suits"]), 3)
    op = SignalPayoffOperator(game, gameshrink(game).partition,
                              suit_permutations(ranks, int(data["suits"])))
    out["stages"]["operator"] = {"seconds": round(time.perf_counter() - t, 2),
                                 "peak_bytes": _peak()}
    note_progress(**out)
    t = time.perf_counter()
    plans = [data["x"], data["y"]]
    for i in range(2):
        tp = TreeplexArrays.of(op.treeplex(i))
        if plans[i].shape != (tp.num_sequences,):
            raise StrategyError(f"{path}: player {i + 1}'s plan has {plans[i].shape[0]} entries, "
                                f"the game has {tp.num_sequences} sequences")
        if np.abs(tp.project(plans[i]) - plans[i]).max() > 1e-12:
            raise StrategyError(f"{path}: player {i + 1}'s plan is not a realization plan")
    cert = op.nash_conv(*plans)
    spread = payoff_range(op)
    out["stages"]["certify"] = {"seconds": round(time.perf_counter() - t, 2),
                                "peak_bytes": _peak(), "nash_conv": cert["nash_conv"],
                                "relative_nash_conv": cert["nash_conv"] / spread,
                                "value": cert["value"], "payoff_range": spread,
                                "value_bounds": [cert["best_response_2"], cert["best_response_1"]]}
    note_progress(**out)
    return out


def operator_case(ranks: int, time_limit: float, solver: str, solve: bool,
                  highs_log: str | None = None, checkpoint: str | None = None,
                  checkpoint_every: float = 600.0, report_every: int = 50,
                  progress_log: str | None = None) -> dict:
    """The stages of the module docstring, noting figures after each."""
    from lpgame.abstraction import gameshrink
    from lpgame.equilibria.zero_sum.signal_operator_lp import (
        count_nonzeros,
        operator_security_lp,
        payoff_range,
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
    spread = payoff_range(op)
    out["payoff_range"] = spread

    def certify_stage(plans, algorithm, iterations, t):
        cert = certified(op, plans, spread)
        if checkpoint:
            Path(checkpoint).mkdir(parents=True, exist_ok=True)
            save_strategy(Path(checkpoint) / "strategy.npz", cert, ranks, algorithm, iterations)
        stage("certify", t, **{k: v for k, v in cert.items() if k not in ("x", "y")},
              strategy=str(Path(checkpoint) / "strategy.npz") if checkpoint else None)

    if solver in LEARNERS:
        del shrunk
        t = time.perf_counter()
        learned = _learn(op, solver, time_limit, spread, ranks, checkpoint, checkpoint_every,
                         report_every, progress_log)
        best = learned.pop("best")
        stage("solve", t, status=f"{solver}: {learned['iterations']} iterations (not optimal: "
              "certified gap only)", **learned)
        t = time.perf_counter()
        stage("certify", t, **{k: v for k, v in best.items() if k not in ("x", "y")},
              strategy=str(Path(checkpoint) / "strategy.npz") if checkpoint else None)
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
        iterate = exc.iterate
        stage("solve", t, status="time limit" if iterate is None else
              f"limit reached (PDLP iterate after {iterate.info['pdlp_iterations']} iterations, "
              "not optimal: certified gap only)", message=str(exc)[:300],
              **(highs_progress(highs_log) if highs_log else {}))
        if iterate is not None:
            certify_stage([iterate.values("x"), iterate.duals("best_response")], "pdlp",
                          iterate.info["pdlp_iterations"], time.perf_counter())
        return out
    stage("solve", t, status="optimal", value=built.value(solution.objective))
    certify_stage([solution.values("x"), solution.duals("best_response")], solver, 0,
                  time.perf_counter())
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


def certify_main(path: str, cap: int, env: dict) -> None:
    """``--certify PATH``: a bad file is refused here, in this process, with lpgame's
    :class:`~lpgame.errors.StrategyError`; the certificate runs in the isolated child."""
    load_strategy(path)
    res = run_isolated("benchmarks.bench_rhode_island:certify_case", {"path": path},
                       timeout=7200, memory_cap=cap, env=env)
    d = res.data
    print(f"re-certify {path}: child {res.status}, {res.wall_seconds:.1f} s wall, peak memory "
          f"{gib(res.peak_rss_bytes)}")
    if res.error:
        print("  " + res.error[:500])
    cert = d.get("stages", {}).get("certify")
    if cert:
        print(f"  NashConv {cert['nash_conv']:.6e} absolute, {cert['relative_nash_conv']:.6e} "
              f"relative to the payoff range {cert['payoff_range']}; value {cert['value']:.9f} in "
              f"[{cert['value_bounds'][0]:.9f}, {cert['value_bounds'][1]:.9f}]; the file says "
              f"{d['file']['nash_conv']:.6e} ({d['file']['algorithm']}, "
              f"{d['file']['iterations']} iterations)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=13)
    parser.add_argument("--time-limit", type=float, default=1500.0)
    parser.add_argument("--solver", default="ipm", choices=["ipm", "simplex", "pdlp", *LEARNERS])
    parser.add_argument("--memory-cap", type=float, default=12.0, help="GiB for the child")
    parser.add_argument("--no-solve", action="store_true")
    parser.add_argument("--save", action="store_true")
    parser.add_argument("--highs-log", default=None, help="HiGHS's log file (IPM iterations)")
    parser.add_argument("--checkpoint", default=None, help="folder for strategy.npz / state.npz")
    parser.add_argument("--checkpoint-every", type=float, default=600.0, help="seconds")
    parser.add_argument("--report-every", type=int, default=50, help="iterations per certificate")
    parser.add_argument("--progress-log", default=None, help="append progress lines here")
    parser.add_argument("--certify", default=None, metavar="PATH",
                        help="re-certify a saved strategy file and stop")
    args = parser.parse_args(argv)
    cap = int(args.memory_cap * (1 << 30))
    env = {"LPGAME_MEMORY_LIMIT": f"{int(args.memory_cap * 0.9 * 1024)}M",
           "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    if args.certify:
        certify_main(args.certify, cap, env)
        return
    res = run_isolated("benchmarks.bench_rhode_island:operator_case",
                       {"ranks": args.ranks, "time_limit": args.time_limit, "solver": args.solver,
                        "solve": not args.no_solve, "highs_log": args.highs_log,
                        "checkpoint": args.checkpoint, "checkpoint_every": args.checkpoint_every,
                        "report_every": args.report_every, "progress_log": args.progress_log},
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
         (f"NashConv {cert['nash_conv']:.3e} (relative to the payoff range "
          f"{cert['relative_nash_conv']:.3e}), value in [{cert['value_bounds'][0]:.6f}, "
          f"{cert['value_bounds'][1]:.6f}]") if cert else "—"],
    ]
    if cert:
        print(f"  certified: NashConv {cert['nash_conv']:.6e} absolute, "
              f"{cert['relative_nash_conv']:.6e} relative to the payoff range "
              f"{d.get('payoff_range')}; value {cert['value']:.9f} in "
              f"[{cert['value_bounds'][0]:.9f}, {cert['value_bounds'][1]:.9f}]")
        if cert.get("strategy"):
            print(f"  strategy file {cert['strategy']}; re-certify with: python -m "
                  f"benchmarks.bench_rhode_island --certify {cert['strategy']}")
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
