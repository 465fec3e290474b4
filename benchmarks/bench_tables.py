"""Every instance of the seed's CFR tables (Rojas Linárez 2020, Tablas 5.1–5.3), solved by lpgame alone.

Run from the repository root::

    python -m benchmarks.bench_tables [--max-seconds S] [--only NAME] [--memory-limit BYTES]
                                      [--exact]

The thesis ran chance-sampled CFR for about 10 hours on 8 cores per instance and left Dudo(4,2,2),
Dudo(5,2,2), Dudo(6,1,2), Dudo(6,2,1) and Domino(3,4) unsolved (notes/rojas-linarez-and-notebook.md
§1.7–1.9). Here each instance is one ``lpgame.solve`` of the exact sequence-form LP (HiGHS), or, for
Dudo(6,1,2) and Dudo(6,2,1), whose LPs (4 million columns) HiGHS and Clarabel do not finish, and
Dudo(5,2,2) (31 million columns, a payoff matrix of 236 million entries), one
``lpgame.solve(..., algorithm="double_oracle")`` (restricted LPs grown by best responses,
:mod:`lpgame.equilibria.double_oracle`; for Dudo(5,2,2) its products read the deals × public
leaves payoff table, :mod:`lpgame.game.signal_payoffs`). Each runs in its own child process
(:mod:`benchmarks.isolated`), so that

* the peak memory column is that instance's own (``ru_maxrss`` of the child, from ``os.wait4``);
* lpgame's memory prediction is in force (``LPGAME_MEMORY_LIMIT``, default 75 % of the memory
  available when the run starts): an instance too large to build stops with
  :class:`~lpgame.errors.ModelTooLargeError` and its prediction, not with the machine out of memory;
  a hard address-space cap of 1.25 × that limit (``RLIMIT_AS``) backs it up;
* HiGHS (or the double oracle's loop) gets ``time_limit`` = what is left of ``--max-seconds`` after
  the game is built, so a slow instance ends with status "time limit" (and the objective reached,
  for the double oracle its bounds) instead of hanging;
  the child is killed at 1.5 × ``--max-seconds`` + 60 s whatever it is doing.

Columns: the instance; "nodes" of lpgame's model (the thesis's N in its own column: for Domino the
thesis counts the nodes of all T! permutation trees, lpgame has one chance node per deal and per
draw); "leaf s" the time to compute Dudo's multi-round leaf values (exact solves of the smaller Dudo
games, cached within the instance's process); "game s" building the game (rules → compiled index or
explicit tree); "solver s" the LP solver alone (passing the model and solving: HiGHS, or Clarabel
for the compressed LP of OCP(N ≥ 2000); for the double oracle, HiGHS on all its restricted LPs);
"total s" everything (leaf
values, game, sequence form, LP, HiGHS, behaviour strategies, certificate); "peak MiB"; the LP's
rows × columns and nonzeros; the value for player 1 next to the thesis's u(σ); "NashConv/range" the
certificate (NashConv of the returned profile by independent best responses) over the payoff range
(max − min payoff over the leaves); the status.

``--only`` keeps the instances whose label contains the text (case-insensitive), e.g.
``--only dudo(4`` or ``--only ocp``. ``--exact`` solves each instance in exact mode (the optimal
basis certified in rational arithmetic, the NashConv recomputed exactly; for the double oracle, its
converged restricted LP certified and both best responses recomputed exactly in the full game)
and lists the exact values after the table.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):        # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.isolated import gib, run_isolated  # noqa: E402


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


class _InstanceStoppedError(Exception):
    """An instance that ended early; carries the figures measured so far to the parent."""

    def __init__(self, message: str, data: dict):
        super().__init__(message)
        self.benchmark_data = data


def solve_instance(game: str, params: dict, max_seconds: float, algorithm: str = "lp",
                   exact: bool = False) -> dict:
    """Build and solve one instance (runs in the child process); the figures as a dict.

    Raises (and so reports) ModelTooLargeError, SolverTimeLimitError and anything else with the
    figures measured before the failure attached.
    """
    import lpgame
    from lpgame.errors import ModelTooLargeError, SolverTimeLimitError

    start = time.perf_counter()
    data: dict = {"leaf_seconds": 0.0}
    try:
        if game == "dudo":   # the multi-round leaf values: exact solves of the smaller games
            from lpgame.games.dudo import dudo_value
            k, d1, d2 = params["K"], params["D1"], params["D2"]
            dudo_value(k, d1 - 1, d2)
            dudo_value(k, d2 - 1, d1)
            data["leaf_seconds"] = time.perf_counter() - start
        made = time.perf_counter()
        g = lpgame.games.make(game, **params)
        data["game_seconds"] = time.perf_counter() - made
        data["nodes"] = int(g.sizes()["nodes"])
        data["payoff_range"] = float(g.payoff_range())
        left = max(max_seconds - (time.perf_counter() - start), 1.0)
        result = lpgame.solve(g, time_limit=left, algorithm=algorithm, exact=exact)
    except (ModelTooLargeError, SolverTimeLimitError) as exc:
        data["total_seconds"] = time.perf_counter() - start
        if isinstance(exc, SolverTimeLimitError):
            data["objective_reached"] = exc.objective
            data["size"] = exc.size
        raise _InstanceStoppedError(f"{type(exc).__name__}: {exc}", data) from exc
    except Exception as exc:
        data["total_seconds"] = time.perf_counter() - start
        raise _InstanceStoppedError(f"{type(exc).__name__}: {exc}", data) from exc
    data["total_seconds"] = time.perf_counter() - start
    data["highs_seconds"] = float(result.seconds.get("lp", result.seconds["solve"]))
    data["size"] = {k: int(v) for k, v in result.size.items()}
    data["value"] = float(result.value)
    data["nash_conv"] = float(result.certificate.nash_conv)
    if exact:
        data["exact_value"] = str(result.value)
        data["exact_nash_conv"] = str(result.certificate.nash_conv)
    if "double_oracle" in result.extra:
        data["double_oracle"] = result.extra["double_oracle"]
    return data


def _status(child) -> str:
    if child.status == "ok":
        return "solved"
    if child.status == "error":
        text = child.error
        if text.startswith("ModelTooLargeError"):
            return "ModelTooLargeError"
        if text.startswith("SolverTimeLimitError"):
            return "time limit"
        return "error"
    return child.status


def _fmt(value, spec: str, missing: str = "—") -> str:
    return missing if value is None else format(value, spec)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-seconds", type=float, default=600.0,
                        help="per-instance time budget (HiGHS time limit = what is left of it)")
    parser.add_argument("--only", default="", help="run the instances whose label contains this")
    parser.add_argument("--memory-limit", default=None,
                        help="lpgame's memory limit per instance (bytes, or with K/M/G); default "
                             "75%% of the memory available now")
    parser.add_argument("--exact", action="store_true",
                        help="exact mode: rational values and an exact certificate")
    args = parser.parse_args(argv)

    from lpgame.limits import _parse_bytes, memory_limit
    limit = _parse_bytes(args.memory_limit) if args.memory_limit else memory_limit()
    cap = int(limit * 1.25)
    chosen = [i for i in INSTANCES if args.only.lower() in i.label.lower()]
    print(f"lpgame on Tablas 5.1–5.3; per instance: {args.max_seconds:g} s budget, lpgame memory "
          f"limit {gib(limit)}, address-space cap {gib(cap)}; one child process each")
    header = (f"{'instance':<15} {'nodes':>11} {'thesis N':>13} {'leaf s':>7} {'game s':>7} "
              f"{'solver s':>8} {'total s':>8} {'peak MiB':>8} {'LP rows×cols':>19} {'nnz':>10} "
              f"{'value':>12} {'thesis u':>8} {'NashConv/range':>14}  status")
    print(header)
    print("-" * len(header))
    notes, oracle_notes, exact_notes = [], [], []
    for inst in chosen:
        child = run_isolated("benchmarks.bench_tables:solve_instance",
                             {"game": inst.game, "params": inst.params,
                              "max_seconds": args.max_seconds, "algorithm": inst.algorithm,
                              "exact": args.exact},
                             timeout=1.5 * args.max_seconds + 60, memory_cap=cap,
                             env={"LPGAME_MEMORY_LIMIT": str(limit)})
        d = child.data
        size = d.get("size") or {}
        rel = (d["nash_conv"] / d["payoff_range"]) if "nash_conv" in d else None
        status = _status(child)
        lp = f"{size['rows']}×{size['cols']}" if size else "—"
        print(f"{inst.label:<15} {_fmt(d.get('nodes'), ',d'):>11} {inst.thesis_nodes:>13,d} "
              f"{_fmt(d.get('leaf_seconds') or None, '.2f'):>7} "
              f"{_fmt(d.get('game_seconds'), '.2f'):>7} {_fmt(d.get('highs_seconds'), '.2f'):>8} "
              f"{_fmt(d.get('total_seconds', child.wall_seconds), '.2f'):>8} "
              f"{child.peak_rss_bytes / 2**20:>8.0f} {lp:>19} {_fmt(size.get('nnz'), ',d'):>10} "
              f"{_fmt(d.get('value'), '.7f'):>12} {inst.thesis_value:>8.4f} {_fmt(rel, '.1e'):>14}"
              f"  {status}", flush=True)
        if status != "solved":
            notes.append(f"{inst.label}: {child.error}")
        if "exact_value" in d:
            exact_notes.append(f"{inst.label}: value {d['exact_value']}, exact NashConv "
                               f"{d['exact_nash_conv']}")
        oracle = d.get("double_oracle")
        if oracle:
            (k1, k2), (n1, n2) = oracle["kept_sequences"], oracle["sequences"]
            oracle_notes.append(f"{inst.label}: {oracle['rounds']} rounds; the last restricted game "
                                f"kept {k1:,d} of {n1:,d} and {k2:,d} of {n2:,d} sequences (its LP "
                                "is the one in the table)")
    if oracle_notes:
        print("\nSolved by the double oracle (lpgame.equilibria.double_oracle; solver s = HiGHS on "
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


if __name__ == "__main__":
    main()
