"""Every instance of the seed's CFR tables (Rojas Linárez 2020, Tablas 5.1–5.3), solved by lpgame alone.

Run from the repository root::

    python -m benchmarks.bench_tables [--max-seconds S] [--only NAME] [--memory-limit BYTES]
                                      [--exact] [--workers N | --scheduler ADDRESS]
                                      [--out TABLE.csv|.parquet [--resume]] [--compare-sequential]

The thesis ran chance-sampled CFR for about 10 hours on 8 cores per instance and left Dudo(4,2,2),
Dudo(5,2,2), Dudo(6,1,2), Dudo(6,2,1) and Domino(3,4) unsolved (notes/rojas-linarez-and-notebook.md
§1.7–1.9). Here each instance is one ``lpgame.solve`` of the exact sequence-form LP (HiGHS), or, for
Dudo(6,1,2) and Dudo(6,2,1), whose LPs (4 million columns) HiGHS and Clarabel do not finish, and
Dudo(5,2,2) (31 million columns, a payoff matrix of 236 million entries), one
``lpgame.solve(..., algorithm="double_oracle")`` (restricted LPs grown by best responses,
:mod:`lpgame.equilibria.zero_sum.double_oracle`; for Dudo(5,2,2) its products read the deals × public
leaves payoff table, :mod:`lpgame.game.signal_payoffs`).

The tables are one sweep (:func:`table_points`, run by :func:`lpgame.sweep.sweep`): each instance is a
Dask task (``--workers 1`` by default, so that instances do not slow each other's times; more
workers or ``--scheduler`` for a cluster), run in its own child process (:mod:`lpgame.sweep.task`),
so that

* the peak memory column is that instance's own (``ru_maxrss`` of the child, from ``os.wait4``);
* lpgame's memory prediction is in force (``LPGAME_MEMORY_LIMIT`` = ``--memory-limit``, default 75 %
  of the memory available when the run starts, divided by the workers): an instance too large to
  build stops with :class:`~lpgame.errors.ModelTooLargeError` and its prediction (status
  ``too_large``), not with the machine out of memory; an address-space cap of 1.25 × that limit +
  1 GiB (``RLIMIT_AS``) backs it up;
* HiGHS (or the double oracle's loop) gets ``time_limit`` = what is left of ``--max-seconds`` after
  the game is built, so a slow instance ends with status ``time_limit`` (and the objective reached,
  for the double oracle its bounds) instead of hanging; the child is killed at ``--max-seconds``
  + max(30 s, ``--max-seconds`` / 4) whatever it is doing.

Columns: the instance; "nodes" of lpgame's model (the thesis's N in its own column: for Domino the
thesis counts the nodes of all T! permutation trees, lpgame has one chance node per deal and per
draw); "game s" building the game (for Dudo including its multi-round leaf values, exact solves of
the smaller Dudo games, cached within the instance's process; the table had them in a column "leaf s"
of their own before it became a sweep); "solver s" the LP solver alone (passing the model and
solving: HiGHS, or Clarabel for the compressed LP of OCP(N ≥ 2000); for the double oracle, HiGHS on
all its restricted LPs); "total s" everything in the task (game, sequence form, LP, HiGHS, behaviour
strategies, certificate); "peak MiB"; the LP's rows × columns and nonzeros; the value for player 1
next to the thesis's u(σ); "NashConv/range" the certificate (NashConv of the returned profile by
independent best responses) over the payoff range (max − min payoff over the leaves); the status.

``--only`` keeps the instances whose label contains the text (case-insensitive), or one of several
texts separated by ``|``, e.g. ``--only dudo(4``, ``--only ocp`` or ``--only "ocp|dudo(3"``.
``--exact`` solves each instance in exact mode (the optimal basis certified in rational arithmetic,
the NashConv recomputed exactly; for the double oracle, its converged restricted LP certified and
both best responses recomputed exactly in the full game) and lists the exact values after the table.
``--compare-sequential`` then solves the solved instances again one after another in the parent
process (``lpgame.solve``, no Dask, no child processes) and prints the ratio of the two wall-clock
times.

**Reference guard.** Beside each instance the table prints the figures recorded at a named
reference commit (``benchmarks/bench_tables_reference.json``, or ``--reference FILE``): its total
seconds, the ratio of today's to it, and its value; the last column flags an instance that is
more than :data:`SLOWER` times slower (``slower``; times below :data:`TIME_FLOOR` count as that
floor), whose certificate (NashConv over the payoff
range) is more than :data:`SLOWER` times the reference's (``less accurate``; figures below
:data:`ACCURACY_FLOOR` count as that floor, since rounding alone reaches them), or whose value is
more than :data:`VALUE_TOLERANCE` of the payoff range away from the reference's (``value``). Times
are comparable only on the machine, and under the load, that the file names.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):        # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lpgame.sweep import SweepPoint  # noqa: E402
from lpgame.sweep.isolation import gib  # noqa: E402

REFERENCE_FILE = Path(__file__).with_name("bench_tables_reference.json")
SLOWER = 1.5
"""An instance more than this many times slower, or less accurate, than the reference is flagged."""
TIME_FLOOR = 1.0
"""Times below this many seconds count as this: start-up and load, not the solver, decide them."""
ACCURACY_FLOOR = 1e-12
"""Relative NashConv at or below this is rounding, whatever the commit: flags compare from here."""
VALUE_TOLERANCE = 1e-9
"""A value further than this fraction of the payoff range from the reference's is flagged."""


def load_reference(path: Path | str = REFERENCE_FILE) -> dict:
    """The reference file: ``{"commit": ..., "instances": {label: {"seconds", "value",
    "relative_nash_conv", ...}}, ...}`` (an empty ``instances`` when the file is absent)."""
    path = Path(path)
    if not path.exists():
        return {"commit": None, "instances": {}}
    return json.loads(path.read_text())


def reference_check(row: dict, reference: dict | None) -> tuple[float | None, list[str]]:
    """(today's seconds / the reference's, flags) of one table row against its reference entry
    (see the module docstring, **Reference guard**); (None, []) without a reference figure."""
    if not reference or row.get("status") != "solved":
        return None, []
    flags = []
    ratio = None
    if reference.get("seconds") and row.get("seconds") is not None:
        ratio = row["seconds"] / reference["seconds"]
        if max(row["seconds"], TIME_FLOOR) > SLOWER * max(reference["seconds"], TIME_FLOOR):
            flags.append("slower")
    spread = row.get("payoff_range")
    rel = (row["nash_conv"] / spread if row.get("nash_conv") is not None and spread
           else None)
    ref_rel = reference.get("relative_nash_conv")
    if rel is not None and ref_rel is not None and \
            max(rel, ACCURACY_FLOOR) > SLOWER * max(ref_rel, ACCURACY_FLOOR):
        flags.append("less accurate")
    if reference.get("value") is not None and row.get("value") is not None and spread and \
            abs(row["value"] - reference["value"]) > VALUE_TOLERANCE * spread:
        flags.append("value")
    return ratio, flags


@dataclass(frozen=True)
class Instance:
    """One row of Tabla 5.1, 5.2 or 5.3 with what the thesis printed for it."""

    table: str
    label: str
    game: str
    params: dict
    thesis_nodes: int
    thesis_value: float          # u(σ) of CFR's strategy
    thesis_exploitability: float  # ε_σ in % of the payoff
    cfr_solved: bool
    algorithm: str = "lp"         # "double_oracle" where the whole LP is beyond this machine


def _ocp(n: int, nodes: int, value: float, eps: float) -> Instance:
    return Instance("5.1", f"OCP({n})", "one_card_poker", {"N": n}, nodes, value, eps, True)


def _dudo(k: int, d1: int, d2: int, nodes: int, value: float, eps: float, ok: bool,
          algorithm: str = "lp") -> Instance:
    return Instance("5.2", f"Dudo({k},{d1},{d2})", "dudo", {"K": k, "D1": d1, "D2": d2}, nodes,
                    value, eps, ok, algorithm)


def _domino(m: int, n: int, nodes: int, value: float, eps: float, ok: bool) -> Instance:
    return Instance("5.3", f"Domino({m},{n})", "domino", {"M": m, "N": n}, nodes, value, eps, ok)


# Tablas 5.1–5.3 (seed 000, l. 1195–1276): N, u(σ), ε_σ (%), solved by CFR
INSTANCES: list[Instance] = [
    _ocp(3, 55, -0.056, 0.0098),
    _ocp(12, 1_189, -0.062, 0.0032),
    _ocp(50, 22_051, -0.058, 0.0099),
    _ocp(200, 358_201, -0.056, 0.0078),
    _ocp(1000, 8_991_001, -0.056, 0.0098),
    _ocp(5000, 224_955_001, -0.056, 0.0241),
    _dudo(3, 1, 1, 1_144, -0.111, 0.0098, True),
    _dudo(3, 1, 2, 18_415, -0.465, 0.0211, True),
    _dudo(3, 2, 1, 18_415, 0.506, 0.0111, True),
    _dudo(3, 2, 2, 294_877, 0.0054, 0.2887, True),
    _dudo(4, 1, 1, 8_177, -0.125, 0.0259, True),
    _dudo(4, 1, 2, 327_641, -0.508, 0.0971, True),
    _dudo(4, 2, 1, 327_641, 0.552, 0.3701, True),
    _dudo(4, 2, 2, 13_107_101, 0.0069, 2.1132, False),
    _dudo(5, 1, 1, 51_176, -0.120, 0.1186, True),
    _dudo(5, 1, 2, 4_915_126, -0.565, 0.6197, True),
    _dudo(5, 2, 1, 4_915_126, 0.581, 0.0122, True),
    _dudo(5, 2, 2, 471_858_976, 0.836, 15.1963, False, "double_oracle"),
    _dudo(6, 1, 1, 294_877, -0.111, 0.0975, True),
    _dudo(6, 1, 2, 66_060_163, -0.593, 4.5781, False, "double_oracle"),
    _dudo(6, 2, 1, 66_060_163, 0.592, 3.9594, False, "double_oracle"),
    _domino(2, 2, 7_321, 2.4000, 0.0, True),
    _domino(3, 2, 46_534_657, 2.8767, 0.0292, True),
    _domino(3, 3, 246_760_993, 2.1539, 0.3599, True),
    _domino(3, 4, 1_547_645_185, 3.2034, 1.3630, False),
]


def table_points(only: str = "") -> list[SweepPoint]:
    """The instances whose label contains ``only`` (case-insensitive; texts separated by ``|``:
    any of them) as a sweep definition: one point per instance, labelled as in the thesis, with the
    double oracle where the table says."""
    return [SweepPoint("family", inst.game, dict(inst.params), label=inst.label,
                       options={"algorithm": inst.algorithm} if inst.algorithm != "lp" else {})
            for inst in INSTANCES
            if any(part in inst.label.lower() for part in only.lower().split("|"))]


def solve_one_after_another(points: list[SweepPoint], exact: bool = False) -> float:
    """Seconds to build and solve ``points`` one after another in this process, without Dask (the
    baseline of ``--compare-sequential``)."""
    import lpgame

    start = time.perf_counter()
    for point in points:
        lpgame.solve(lpgame.games.make(point.game, **point.params), exact=exact, **point.options)
    return time.perf_counter() - start


def _fmt(value, spec: str, missing: str = "—") -> str:
    return missing if value is None else format(value, spec)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-seconds", type=float, default=600.0,
                        help="per-instance time limit (HiGHS time limit = what is left of it after "
                             "building; the task is killed at max-seconds + max(30, max-seconds/4))")
    parser.add_argument("--only", default="", help="run the instances whose label contains this (or one of "
                             "several texts separated by |)")
    parser.add_argument("--memory-limit", default=None,
                        help="lpgame's memory limit per instance (bytes, or with K/M/G); default "
                             "75%% of the memory available now, divided by the workers")
    parser.add_argument("--exact", action="store_true",
                        help="exact mode: rational values and an exact certificate")
    parser.add_argument("--workers", type=int, default=1,
                        help="local Dask workers (default 1: one instance at a time, so that the "
                             "times are not disturbed by each other)")
    parser.add_argument("--scheduler", default=None, help="a running Dask scheduler's address")
    parser.add_argument("--out", default=None, help="also keep the sweep's table (.csv/.parquet)")
    parser.add_argument("--resume", action="store_true", help="with --out: skip finished instances")
    parser.add_argument("--reference", default=str(REFERENCE_FILE),
                        help="the reference figures to print beside each instance and to flag "
                             "against (default: benchmarks/bench_tables_reference.json)")
    parser.add_argument("--compare-sequential", action="store_true",
                        help="also solve the instances one after another in this process (no Dask, "
                             "no child processes) and print the wall-clock ratio")
    args = parser.parse_args(argv)

    from lpgame.limits import memory_limit, parse_bytes
    from lpgame.sweep import sweep

    workers = None if args.scheduler else args.workers
    limit = (parse_bytes(args.memory_limit) if args.memory_limit
             else memory_limit() // max(workers or 1, 1))
    points = table_points(args.only)
    by_label = {inst.label: inst for inst in INSTANCES}
    reference = load_reference(args.reference)
    print(f"lpgame on Tablas 5.1–5.3 as one sweep ({len(points)} instances, "
          + (f"scheduler {args.scheduler}" if args.scheduler else f"{workers} local Dask workers")
          + f"); per instance: {args.max_seconds:g} s time limit, lpgame memory limit {gib(limit)}, "
          "one child process each", flush=True)
    wall = time.perf_counter()
    result = sweep(points=points, exact=args.exact, task_time_limit=args.max_seconds,
                   task_memory=limit, workers=workers, scheduler=args.scheduler, out=args.out,
                   resume=args.resume, progress=True,
                   fresh_child=True)    # each instance alone: no Dudo leaf values cached by another
    wall = time.perf_counter() - wall
    header = (f"{'instance':<15} {'nodes':>11} {'thesis N':>13} {'game s':>7} "
              f"{'solver s':>8} {'total s':>8} {'peak MiB':>8} {'LP rows×cols':>19} {'nnz':>10} "
              f"{'value':>12} {'thesis u':>8} {'NashConv/range':>14}  status"
              f"  {'ref s':>7} {'×ref':>5} {'ref value':>12}  flags")
    print(header)
    print("-" * len(header))
    notes, oracle_notes, exact_notes = [], [], []
    flagged = 0
    for row in result.rows:
        inst = by_label[row["point"]]
        rel = (row["nash_conv"] / row["payoff_range"]
               if row.get("nash_conv") is not None and row.get("payoff_range") else None)
        lp = f"{row['rows']}×{row['cols']}" if row.get("rows") is not None else "—"
        ref = reference["instances"].get(inst.label, {})
        ratio, flags = reference_check(row, ref)
        print(f"{inst.label:<15} {_fmt(row.get('nodes'), ',d'):>11} {inst.thesis_nodes:>13,d} "
              f"{_fmt(row.get('build_seconds'), '.2f'):>7} {_fmt(row.get('solve_seconds'), '.2f'):>8} "
              f"{_fmt(row.get('seconds'), '.2f'):>8} {_fmt(row.get('peak_mib'), '.0f'):>8} {lp:>19} "
              f"{_fmt(row.get('nnz'), ',d'):>10} {_fmt(row.get('value'), '.7f'):>12} "
              f"{inst.thesis_value:>8.4f} {_fmt(rel, '.1e'):>14}  {row['status']}"
              f"  {_fmt(ref.get('seconds'), '.2f'):>7} {_fmt(ratio, '.2f'):>5} "
              f"{_fmt(ref.get('value'), '.10f'):>12}  {', '.join(flags) or ('ok' if ref else '')}",
              flush=True)
        flagged += bool(flags)
        if row["status"] != "solved":
            notes.append(f"{inst.label}: {row['error']}")
        if row.get("value_exact") is not None:
            exact_notes.append(f"{inst.label}: value {row['value_exact']}, exact NashConv "
                               f"{row['nash_conv_exact']}")
        oracle = json.loads(row["extra"]).get("double_oracle") if row.get("extra") else None
        if oracle:
            (k1, k2), (n1, n2) = oracle["kept_sequences"], oracle["sequences"]
            oracle_notes.append(f"{inst.label}: {oracle['rounds']} rounds; the last restricted game "
                                f"kept {k1:,d} of {n1:,d} and {k2:,d} of {n2:,d} sequences (its LP "
                                "is the one in the table)")
    if oracle_notes:
        print("\nSolved by the double oracle (lpgame.equilibria.zero_sum.double_oracle; solver s = HiGHS on "
              "all the restricted LPs, total s includes the best responses of every round):")
        for note in oracle_notes:
            print(f"  {note}")
    if exact_notes:
        print("\nExact values (rational arithmetic; NashConv recomputed exactly):")
        for note in exact_notes:
            print(f"  {note}")
    if notes:
        print("\nNot solved:")
        for note in notes:
            print(f"  {note}")
    machine = reference.get("machine", "machine not named")
    print(f"\nreference: commit {reference.get('commit')} ({machine}); {flagged} instance(s) "
          f"flagged (more than {SLOWER:g}× slower or less accurate, or the value off by more than "
          f"{VALUE_TOLERANCE:g} of the range)")
    print(f"\nsweep wall clock: {wall:.1f} s (cluster start, one child process per instance)")
    if args.compare_sequential:
        solved = [p for p, r in zip(points, result.rows) if r["status"] == "solved"]
        sequential = solve_one_after_another(solved, exact=args.exact)
        print(f"the {len(solved)} solved instances one after another in one process: "
              f"{sequential:.1f} s; sweep / sequential = {wall / sequential:.2f}")

if __name__ == "__main__":
    main()
