"""Lemke–Howson on bimatrix games: lpgame beside Gambit's ``lcp_solve`` and nashpy (issue 37, item 3).

Run from the repository root::

    python -m benchmarks.bench_lemke_howson [--full] [--sizes N,N,...] [--seeds K] [--max-seconds S]
    python -m benchmarks.bench_lemke_howson --full --save   # also writes benchmarks/results/…json

Random n × n games with payoffs uniform in 0..10^6 (seeded; ties, hence degeneracy, improbable).
Default: n = 10, 20, 40 and 2 seeds; ``--full``: n = 10, 20, 40, 80, 100 and 3 seeds; ``--sizes``
chooses the sizes. ``--save`` writes both tables as one result (:mod:`benchmarks.results_io`): a
row per game and search, lpgame's and Gambit's seconds in each arithmetic and their ratios.

* **one equilibrium**: lpgame's :func:`~lpgame.equilibria.general_sum.lemke_howson.lemke_howson`
  from label 1 (float, and exact by integer pivoting), Gambit's ``lcp_solve(stop_after=1)`` on the
  strategic game (float and rational; it ends where label 1's path ends, and the "same as Gambit"
  column checks that lpgame's exact answer is Gambit's rational one), nashpy's
  ``lemke_howson(initial_dropped_label=0)`` (float), and, for scale, lpgame's
  sequence-form Lemke (``concept="nash"``'s default for these games, float) and the whole
  ``lpgame.solve(method="lemke_howson")`` call (float; game set-up, compilation and the
  certificate included).
* **all reachable equilibria** (n ≤ 20, or 40 with ``--full``): lpgame's ``all_labels`` search
  beside Gambit's ``lcp_solve`` without ``stop_after`` (which follows every label from every
  equilibrium found), float and rational; the counts are printed for agreement.

Every call runs in its own child process (:mod:`benchmarks.isolated`) with a wall-clock limit
(``--max-seconds``, default 30 s, 120 s with ``--full``), timed inside the child around the
solver call only (a call under 0.1 s: the least of up to 5). A tool that fails or runs past the
limit on every seed of one size is not run at larger sizes ("-"); ``--without TEXT`` leaves out
the tools whose name holds TEXT (e.g. ``seq-form``, the slowest column).
**Every answer is certified** in this process by lpgame's independent best-response path
(:func:`lpgame.equilibria.profiles.nash_certificate`): exact answers must have NashConv exactly 0,
float answers at most 1e-6 of the payoff range; the "cert." column counts the answers that passed.
Ratios are a peer's time over lpgame's in the same arithmetic (above 1: lpgame is faster).
"""

from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction
from pathlib import Path

if __package__ in (None, ""):        # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.isolated import run_isolated  # noqa: E402

HIGH = 10 ** 6
SIZES, FULL_SIZES = (10, 20, 40), (10, 20, 40, 80, 100)
ONE_TOOLS = ("lpgame LH (float)", "lpgame LH (exact)", "gambit lcp (float)",
             "gambit lcp (rational)", "nashpy lemke_howson", "lpgame seq-form lemke (float)",
             "lpgame solve() LH (float)")
ALL_TOOLS = ("lpgame LH all (float)", "lpgame LH all (exact)", "gambit lcp all (float)",
             "gambit lcp all (rational)")
#: (peer, the lpgame tool it is compared with)
ONE_RATIOS = (("gambit lcp (float)", "lpgame LH (float)"),
              ("gambit lcp (rational)", "lpgame LH (exact)"),
              ("nashpy lemke_howson", "lpgame LH (float)"),
              ("lpgame seq-form lemke (float)", "lpgame LH (float)"))
ALL_RATIOS = (("gambit lcp all (float)", "lpgame LH all (float)"),
              ("gambit lcp all (rational)", "lpgame LH all (exact)"))


def random_bimatrix(n: int, seed: int):
    import numpy as np
    rng = np.random.default_rng(seed)
    return rng.integers(0, HIGH, (n, n)), rng.integers(0, HIGH, (n, n))


def _text(strategies) -> list[list[str]]:
    return [[str(v) for v in s] for s in strategies]


# ------------------------------------------------------------------------------ child cases
def case(tool: str, n: int, seed: int) -> dict:
    """One tool on one random game: seconds and the equilibria found (as strings). The tool first
    solves a 3 × 3 game untimed, so that imports and first-call set-up are not counted; a call
    under 0.1 s is repeated (up to 5 calls or 0.5 s) and the least time kept, since one call of a
    few milliseconds on a loaded machine mostly measures the machine."""
    solve(tool, *random_bimatrix(3, 99))
    game = random_bimatrix(n, seed)
    out = solve(tool, *game)
    if out["seconds"] < 0.1:
        spent, calls = out["seconds"], 1
        while calls < 5 and spent < 0.5:
            again = solve(tool, *game)
            spent, calls = spent + again["seconds"], calls + 1
            out["seconds"] = min(out["seconds"], again["seconds"])
    return out


def solve(tool: str, a, b) -> dict:
    exact = "exact" in tool or "rational" in tool
    if tool.startswith("lpgame LH all"):
        from lpgame.equilibria.general_sum.lemke_howson import lemke_howson_all
        start = time.perf_counter()
        found = lemke_howson_all(a, b, exact=exact)
        return {"seconds": time.perf_counter() - start,
                "equilibria": [_text(eq.strategies) for eq in found]}
    if tool.startswith("lpgame LH"):
        from lpgame.equilibria.general_sum.lemke_howson import lemke_howson
        start = time.perf_counter()
        eq = lemke_howson(a, b, 1, exact=exact)
        return {"seconds": time.perf_counter() - start, "pivots": eq.pivots,
                "equilibria": [_text(eq.strategies)]}
    if tool.startswith("lpgame"):
        import numpy as np

        import lpgame
        from lpgame.game import NormalFormGame
        game = NormalFormGame(np.stack([a, b]).astype(object), name="random")
        options = {"method": "lemke_howson"} if "solve()" in tool else {}
        start = time.perf_counter()
        result = lpgame.solve(game, concept="nash", **options)
        seconds = time.perf_counter() - start
        mixed = [[float(p) for p in next(iter(s.values())).values()] for s in result.strategies]
        return {"seconds": seconds, "equilibria": [_text(mixed)]}
    if tool.startswith("gambit"):
        import pygambit as gbt
        game = gbt.Game.from_arrays(a, b)
        stop = None if " all " in tool else 1
        start = time.perf_counter()
        found = gbt.nash.lcp_solve(game, rational=exact, stop_after=stop).equilibria
        seconds = time.perf_counter() - start
        players = list(game.players)
        return {"seconds": seconds,
                "equilibria": [[[str(p[s]) for s in pl.strategies] for pl in players]
                               for p in found]}
    import nashpy
    game = nashpy.Game(a.astype(float), b.astype(float))
    start = time.perf_counter()
    x, y = game.lemke_howson(initial_dropped_label=0)
    return {"seconds": time.perf_counter() - start, "equilibria": [_text([x, y])]}


# ------------------------------------------------------------------------------ certificates
class Certifier:
    """lpgame's independent best-response check of mixed strategies in one game (compiled once)."""

    def __init__(self, n: int, seed: int):
        import numpy as np

        from lpgame.compile import compile_game
        from lpgame.equilibria.profiles import payoff_range
        from lpgame.game import NormalFormGame
        a, b = random_bimatrix(n, seed)
        self.sf = compile_game(NormalFormGame(np.stack([a, b]).astype(object), name="random"))
        self.spread = payoff_range(self.sf, exact=True)

    def passes(self, strategies: list[list[str]], exact: bool) -> bool:
        import numpy as np

        from lpgame.equilibria.profiles import nash_certificate
        sizes = [self.sf.num_sequences(i) - 1 for i in range(2)]
        finite = all(v not in ("nan", "inf", "-inf") for s in strategies for v in s)
        if [len(s) for s in strategies] != sizes or not finite:
            return False       # not a mixed strategy of this game (nashpy can return NaNs)
        if exact:
            plans = [[Fraction(1)] + [Fraction(v) for v in s] for s in strategies]
            ev, _ = nash_certificate(self.sf, plans, exact=True)
            return ev.nash_conv == 0
        plans = [np.array([1.0] + [float(v) for v in s]) for s in strategies]
        ev, _ = nash_certificate(self.sf, plans, exact=False)
        return ev.nash_conv <= 1e-6 * float(self.spread)


# ------------------------------------------------------------------------------ the tables
def _seconds(result) -> float | None:
    return result.data["seconds"] if result is not None and result.status == "ok" else None


def _cell(result) -> str:
    if result is None:
        return "-"
    if result.status != "ok":
        return result.status
    return f"{result.data['seconds']:.3g}"


def _same(row: dict, tools) -> str:
    """Whether lpgame's exact answer is Gambit's rational one, as sets of equilibria (with
    ``stop_after=1`` Gambit follows label 1 too, so equal answers mean the same path's end)."""
    ours, theirs = (row.get(next(t for t in tools if key in t)) for key in ("exact", "rational"))
    if ours is None or theirs is None or ours.status != "ok" or theirs.status != "ok":
        return ""
    found = [{tuple(tuple(Fraction(v) for v in s) for s in eq) for eq in r.data["equilibria"]}
             for r in (ours, theirs)]
    return "yes" if found[0] == found[1] else "no"


def table(title: str, sizes, seeds: int, tools, ratios, limit: float) -> list[dict]:
    """Print the table of ``tools`` on each game; return its rows (the results, counts, checks)."""
    print(f"\n## {title}\n")
    print("| n | seed | " + " | ".join(tools)
          + " | equilibria | cert. | same as Gambit | ratios (peer / lpgame) |")
    print("|---" * (len(tools) + 6) + "|")
    stopped: set[str] = set()
    out = []
    for n in sizes:
        past = dict.fromkeys(tools, 0)       # the seeds of this size where the tool failed
        for seed in range(seeds):
            row = {}
            for tool in tools:
                if tool in stopped:
                    row[tool] = None
                    continue
                row[tool] = run_isolated("benchmarks.bench_lemke_howson:case",
                                         {"tool": tool, "n": n, "seed": seed}, limit)
                past[tool] += row[tool].status != "ok"
            certifier = Certifier(n, seed)
            answers = passed = 0
            counts = []
            for tool, result in row.items():
                if result is None or result.status != "ok":
                    continue
                exact = "exact" in tool or "rational" in tool
                for eq in result.data["equilibria"]:
                    answers += 1
                    passed += certifier.passes(eq, exact)
                counts.append(len(result.data["equilibria"]))
            words = []
            for peer, ours in ratios:
                p, o = _seconds(row.get(peer)), _seconds(row.get(ours))
                if p is not None and o:
                    words.append(f"{peer}: {p / o:.2g}")
            count = str(counts[0]) if len(set(counts)) == 1 else "/".join(map(str, counts))
            print(f"| {n} | {seed} | " + " | ".join(_cell(row[t]) for t in tools)
                  + f" | {count} | {passed}/{answers} | {_same(row, tools)} | {'; '.join(words)} |",
                  flush=True)
            out.append({"n": n, "seed": seed, "row": row, "count": count, "passed": passed,
                        "answers": answers, "same": _same(row, tools)})
        stopped.update(t for t, k in past.items() if k == seeds)
    return out


SAVED_COLUMNS = ["search", "n", "seed", "lpgame float (s)", "Gambit float (s)",
                 "float: Gambit / lpgame", "lpgame exact (s)", "Gambit rational (s)",
                 "exact: Gambit / lpgame", "nashpy (s)", "equilibria", "certified",
                 "same as Gambit (exact)"]


def _saved_seconds(result, limit: float):
    """Seconds rounded for the file, ``"> limit"`` past the limit, None when not run."""
    if result is None:
        return None
    if result.status != "ok":
        return f"> {limit:g}" if result.status == "timeout" else result.status
    return float(f"{result.data['seconds']:.3g}")


def _saved_ratio(peer, ours, limit: float):
    """The peer's seconds over lpgame's; ``"> r"`` when the peer ran past the limit."""
    if ours is None or ours.status != "ok" or peer is None:
        return None
    if peer.status == "timeout":
        return f"> {limit / ours.data['seconds']:.3g}"
    if peer.status != "ok":
        return None
    return float(f"{peer.data['seconds'] / ours.data['seconds']:.3g}")


def save(one: list[dict], every: list[dict], limit: float, argv: list[str] | None) -> None:
    """Write both tables as one benchmark result (:mod:`benchmarks.results_io`)."""
    from benchmarks import results_io

    rows = []
    for search, entries, (lf, le, gf, gr) in (
            ("one (label 1)", one, ONE_TOOLS[:4]), ("all labels", every, ALL_TOOLS)):
        for e in entries:
            r = e["row"]
            rows.append([search, e["n"], e["seed"], _saved_seconds(r[lf], limit),
                         _saved_seconds(r[gf], limit), _saved_ratio(r[gf], r[lf], limit),
                         _saved_seconds(r[le], limit), _saved_seconds(r[gr], limit),
                         _saved_ratio(r[gr], r[le], limit),
                         _saved_seconds(r.get("nashpy lemke_howson"), limit),
                         int(e["count"]) if e["count"].isdigit() else e["count"],
                         f"{e['passed']}/{e['answers']}", e["same"] or None])
    path = results_io.save(results_io.result(
        "bench_lemke_howson", results_io.command("benchmarks.bench_lemke_howson", argv),
        SAVED_COLUMNS, rows,
        notes=f"random n × n games, payoffs uniform in 0..10^6; seconds of the solver call alone, "
              f"each in its own process (limit {limit:g} s; '> L' ran past it; '—' not run after "
              "a tool ran past the limit on every seed of a smaller size); one = lpgame's lemke_howson from "
              "label 1 beside Gambit's lcp_solve(stop_after=1) and nashpy's lemke_howson; all "
              "labels = lpgame's all_labels beside Gambit's lcp_solve; ratios above 1: lpgame "
              "faster; certified = answers (of every tool in the row) with NashConv 0 (exact) or "
              "≤ 1e-6 of the payoff range (float) by lpgame's best-response check"))
    print(f"saved {path}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="sizes up to 100, 3 seeds")
    parser.add_argument("--sizes", default=None,
                        help="comma-separated n (default 10,20,40; 10,20,40,80,100 with --full)")
    parser.add_argument("--seeds", type=int, default=None)
    parser.add_argument("--all-max", type=int, default=None,
                        help="largest n of the all-labels table (default 20; 40 with --full)")
    parser.add_argument("--without", action="append", default=[], metavar="TEXT",
                        help="leave out the tools whose name contains TEXT (repeatable; not "
                             "lpgame's or Gambit's LH columns with --save)")
    parser.add_argument("--save", action="store_true",
                        help="write the tables to benchmarks/results/bench_lemke_howson.json")
    parser.add_argument("--max-seconds", type=float, default=None,
                        help="limit per call (default 30 s; 120 s with --full)")
    args = parser.parse_args(argv)
    args.max_seconds = args.max_seconds or (120.0 if args.full else 30.0)
    sizes = ([int(n) for n in args.sizes.split(",")] if args.sizes
             else FULL_SIZES if args.full else SIZES)
    seeds = args.seeds or (3 if args.full else 2)
    all_max = args.all_max if args.all_max is not None else (40 if args.full else 20)
    print(f"# Lemke–Howson on random n × n bimatrix games, seconds per call "
          f"(limit {args.max_seconds:g} s)")
    kept = [t for t in ONE_TOOLS if not any(w in t for w in args.without)]
    if args.save and not set(ONE_TOOLS[:4]) <= set(kept):
        parser.error("--save needs lpgame's and Gambit's float and exact columns")
    one = table("one equilibrium", sizes, seeds, kept,
                [r for r in ONE_RATIOS if set(r) <= set(kept)], args.max_seconds)
    every = table("all equilibria reachable by Lemke–Howson paths",
                  [n for n in sizes if n <= all_max], seeds, ALL_TOOLS, ALL_RATIOS,
                  args.max_seconds)
    if args.save:
        save(one, every, args.max_seconds, argv)


if __name__ == "__main__":
    main()
