"""General-sum Nash equilibria: lpgame's Lemke and enumeration beside Gambit and nashpy.

Run from the repository root::

    python -m benchmarks.bench_general_sum [--max-seconds S] [--only one|all|tree|arith]

Every cell is one call in its own child process (:mod:`benchmarks.isolated`) with a wall-clock
limit (``--max-seconds``, default 20 s); the time is measured inside the child around the solver
call only (game construction and imports excluded). A tool that runs past the limit at one size is
not run at the larger sizes ("-"). Ratios are the peer's time over lpgame's (above 1: lpgame is
faster).

* ``all``: every extreme equilibrium of random n × n games (payoffs uniform integers 0..99, seeded,
  so generic): lpgame's vertex enumeration (exact), Gambit's ``enummixed_solve`` (rational and
  float), nashpy's ``vertex_enumeration`` and ``support_enumeration`` (floats). The counts of
  equilibria are printed for agreement.
* ``one``: one equilibrium of random n × n games with payoffs 0..10^6 (generic): lpgame's Lemke on
  the sequence-form LCP (exact integer pivoting, and float), Gambit's ``lcp_solve(stop_after=1)``
  (rational, float; on the strategic game: Lemke–Howson), nashpy's ``lemke_howson`` (float, first
  label).
* ``tree``: one equilibrium of extensive games (Kuhn, Sheriff, Battleship, Leduc): lpgame's Lemke
  (exact, float) and Gambit's ``lcp_solve`` on the tree (its sequence-form LCP, which returns one
  equilibrium; rational, float).
* ``arith``: exact Lemke on integers (fraction-free) versus the same path on Fractions.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):        # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.isolated import run_isolated  # noqa: E402

ALL_SIZES = (2, 4, 6, 8, 10, 12, 14, 16)
GENERIC = 10 ** 6            # payoffs 0..10^6 for the "one" table: ties (degeneracy) improbable
ONE_SIZES = (10, 20, 40, 80, 120, 160)
TREES = (("kuhn_poker", {}), ("sheriff", {}), ("battleship", {}), ("leduc_poker", {}))
ALL_TOOLS = ("lpgame enumeration", "gambit enummixed (rational)", "gambit enummixed (float)",
             "nashpy vertex_enumeration", "nashpy support_enumeration")
ONE_TOOLS = ("lpgame lemke (exact)", "lpgame lemke (float)", "gambit lcp (rational)",
             "gambit lcp (float)", "nashpy lemke_howson")
TREE_TOOLS = ("lpgame lemke (exact)", "lpgame lemke (float)", "gambit lcp (rational)",
              "gambit lcp (float)")


def random_bimatrix(n: int, seed: int, high: int = 100):
    import numpy as np
    rng = np.random.default_rng(seed)
    return rng.integers(0, high, (n, n)), rng.integers(0, high, (n, n))


# ------------------------------------------------------------------------------ child cases
def bimatrix_case(tool: str, n: int, seed: int = 0, high: int = 100) -> dict:
    """One tool on one random n × n game; returns seconds and the number of equilibria."""
    import numpy as np
    a, b = random_bimatrix(n, seed, high)
    if tool.startswith("lpgame"):
        from lpgame.game import NormalFormGame
        game = NormalFormGame(np.stack([a, b]).astype(object), name=f"random {n}x{n}")
        if tool == "lpgame enumeration":
            from lpgame.equilibria.general_sum.enumeration import bimatrix_extreme_equilibria
            start = time.perf_counter()
            found = bimatrix_extreme_equilibria(a.astype(object), b.astype(object))
            return {"seconds": time.perf_counter() - start, "count": len(found.equilibria)}
        from lpgame.equilibria.general_sum.lemke import solve_lemke
        start = time.perf_counter()
        result = solve_lemke(game, exact=tool.endswith("(exact)"))
        return {"seconds": time.perf_counter() - start, "count": 1,
                "pivots": result.extra["lemke"]["pivots"]}
    if tool.startswith("gambit"):
        import pygambit as gbt
        game = gbt.Game.from_arrays(a, b)
        rational = "rational" in tool
        start = time.perf_counter()
        if "enummixed" in tool:
            found = gbt.nash.enummixed_solve(game, rational=rational).equilibria
        else:               # one equilibrium, as lpgame's Lemke and nashpy's Lemke-Howson
            found = gbt.nash.lcp_solve(game, rational=rational, stop_after=1).equilibria
        return {"seconds": time.perf_counter() - start, "count": len(found)}
    import nashpy
    game = nashpy.Game(a.astype(float), b.astype(float))
    start = time.perf_counter()
    if tool == "nashpy lemke_howson":
        game.lemke_howson(initial_dropped_label=0)
        count = 1
    else:
        method = game.vertex_enumeration if "vertex" in tool else game.support_enumeration
        count = sum(1 for _ in method())
    return {"seconds": time.perf_counter() - start, "count": count}


def tree_case(tool: str, name: str, params: dict) -> dict:
    """One tool on one catalog extensive game."""
    from lpgame.compile import compile_game
    from lpgame.games.registry import make
    game = make(name, **params)
    if tool.startswith("lpgame"):
        from lpgame.equilibria.general_sum.lemke import solve_lemke
        sf = compile_game(game)
        start = time.perf_counter()
        result = solve_lemke(sf, exact=tool.endswith("(exact)"))
        return {"seconds": time.perf_counter() - start, "pivots": result.extra["lemke"]["pivots"],
                "lcp": result.size["rows"], "value": float(result.value),
                "nash_conv": float(result.certificate.nash_conv)}
    import pygambit as gbt

    from lpgame.io.gambit import efg_text
    with tempfile.NamedTemporaryFile("w", suffix=".efg", delete=False) as fh:
        fh.write(efg_text(game))
    g = gbt.read_efg(fh.name)
    start = time.perf_counter()
    found = gbt.nash.lcp_solve(g, rational="rational" in tool).equilibria   # one, on a tree
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "value": float(found[0].payoff(list(g.players)[0]))}


def arithmetic_case(name: str, n: int = 0, fractions: bool = False) -> dict:
    """Exact Lemke on integers or on Fractions (same path)."""
    import numpy as np

    from lpgame.compile import compile_game
    from lpgame.equilibria.general_sum.lemke import lemke, sequence_form_lcp
    from lpgame.game import NormalFormGame
    from lpgame.games.registry import make
    if name == "random":
        a, b = random_bimatrix(n, 0)
        game = NormalFormGame(np.stack([a, b]).astype(object), name=f"random {n}x{n}")
    else:
        game = make(name)
    lcp = sequence_form_lcp(compile_game(game), exact=True)
    start = time.perf_counter()
    solution = lemke(lcp, fractions=fractions)
    return {"seconds": time.perf_counter() - start, "pivots": solution.pivots, "lcp": lcp.size}


# ------------------------------------------------------------------------------ the tables
def _cell(result) -> str:
    if result is None:
        return "-"
    if result.status == "timeout":
        return "timeout"
    if result.status != "ok":
        return result.status
    return f"{result.data['seconds']:.3g}"


def _ratios(row: dict, reference: str) -> str:
    ref = row.get(reference)
    if ref is None or ref.status != "ok" or ref.data["seconds"] <= 0:
        return ""
    parts = []
    for tool, result in row.items():
        if tool != reference and result is not None and result.status == "ok":
            parts.append(f"{tool.split()[0]} {tool.split(' ', 1)[1]}: "
                         f"{result.data['seconds'] / ref.data['seconds']:.2g}")
    return "; ".join(parts)


def sweep(title: str, sizes, tools, reference: str, run, label) -> None:
    print(f"\n## {title}\n")
    print("| size | " + " | ".join(tools) + " | equilibria | ratios (peer / lpgame) |")
    print("|---" * (len(tools) + 3) + "|")
    stopped: set[str] = set()
    for size in sizes:
        row = {}
        for tool in tools:
            row[tool] = None if tool in stopped else run(tool, size)
            if row[tool] is not None and row[tool].status != "ok":
                stopped.add(tool)
        counted = {t: r.data["count"] for t, r in row.items()
                   if r is not None and r.status == "ok" and "count" in r.data}
        counts = (str(next(iter(counted.values()))) if len(set(counted.values())) == 1 else
                  "; ".join(f"{t}: {c}" for t, c in counted.items()))
        print(f"| {label(size)} | " + " | ".join(_cell(row[t]) for t in tools)
              + f" | {counts} | {_ratios(row, reference)} |", flush=True)
        if len(stopped) == len(tools):
            break


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-seconds", type=float, default=20.0)
    parser.add_argument("--only", choices=("all", "one", "tree", "arith"), default=None)
    args = parser.parse_args(argv)
    limit = args.max_seconds
    me = "benchmarks.bench_general_sum"
    print(f"# general-sum Nash equilibria, seconds per call (limit {limit:g} s per call)")
    if args.only in (None, "all"):
        sweep("all extreme equilibria of random n × n games", ALL_SIZES, ALL_TOOLS,
              "lpgame enumeration",
              lambda tool, n: run_isolated(f"{me}:bimatrix_case", {"tool": tool, "n": n}, limit),
              lambda n: f"{n}×{n}")
    if args.only in (None, "one"):
        sweep("one equilibrium of random n × n games", ONE_SIZES, ONE_TOOLS,
              "lpgame lemke (exact)",
              lambda tool, n: run_isolated(f"{me}:bimatrix_case",
                                           {"tool": tool, "n": n, "high": GENERIC}, limit),
              lambda n: f"{n}×{n}")
    if args.only in (None, "tree"):
        sweep("one equilibrium of extensive games (sequence-form LCP)", range(len(TREES)),
              TREE_TOOLS, "lpgame lemke (exact)",
              lambda tool, k: run_isolated(f"{me}:tree_case", {"tool": tool, "name": TREES[k][0],
                                                               "params": TREES[k][1]}, limit),
              lambda k: TREES[k][0])
    if args.only in (None, "arith"):
        print("\n## exact Lemke: integer pivoting vs Fractions (same path)\n")
        print("| game | LCP size | pivots | integers s | Fractions s | ratio |")
        print("|---|---|---|---|---|---|")
        for name, n in (("kuhn_poker", 0), ("random", 10), ("random", 30), ("sheriff", 0)):
            runs = [run_isolated(f"{me}:arithmetic_case", {"name": name, "n": n, "fractions": f},
                                 limit) for f in (False, True)]
            ok = [r.data if r.status == "ok" else None for r in runs]
            lcp = next((d["lcp"] for d in ok if d), "?")
            pivots = next((d["pivots"] for d in ok if d), "?")
            ratio = f"{ok[1]['seconds'] / ok[0]['seconds']:.3g}" if all(ok) else ""
            print(f"| {name}{f' {n}×{n}' if n else ''} | {lcp} | {pivots} | {_cell(runs[0])} | "
                  f"{_cell(runs[1])} | {ratio} |", flush=True)


if __name__ == "__main__":
    main()
