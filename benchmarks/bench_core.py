"""End-to-end timings of lpgame against OpenSpiel's sequence-form LP, in one run.

Run from the repository root: ``python -m benchmarks.bench_core`` (or ``python benchmarks/bench_core.py``;
``--repeats N`` changes the best-of count, default 3).

What is timed (wall clock, best of N):

* lpgame: build the game (rules → explicit tree, or the structured compile for OCP) + sequence form
  + LP + HiGHS + certificate (NashConv by the independent best-response path): exactly
  ``lpgame.solve(lpgame.games.make(...))``. Games: Kuhn, standard Leduc with rank-level and with
  card-level chance (lpgame/games/leduc.py), One-Card Poker OCP(1000) and OCP(5000) (notes §1.7;
  compressed showdown payoffs), Liar's dice with one six-sided die each (compiled by broadcasting;
  OpenSpiel's LP runs out of memory on it, notes/peers.md). "HiGHS s" is the backend's time alone,
  "total/HiGHS" the overhead of everything else (issue target: at most 1.5 on large games).
* OpenSpiel 2.0.2: ``pyspiel.load_game`` + ``sequence_form_lp.solve_zero_sum_game`` on
  ``kuhn_poker`` and ``leduc_poker`` (card-level). Its default cvxpy solver ECOS is not installed
  with current cvxpy, and its ECOS options are passed to any solver, so it runs on cvxpy's HiGHS
  with those options emptied (notes/peers.md lists this pitfall). OpenSpiel solves two LPs (one per
  player, dense constraint matrices) and certifies nothing; a second row adds its
  ``exploitability.nash_conv`` so that both sides include a certificate.

The ratio column is OpenSpiel's seconds over lpgame's on the same game (for Leduc, lpgame's
card-level game, which is OpenSpiel's game).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):        # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import lpgame  # noqa: E402


def best_of(repeats: int, run: Callable[[], dict]) -> dict:
    """Run ``run`` ``repeats`` times; the fastest run's dict with its seconds."""
    best = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = run()
        out["seconds"] = time.perf_counter() - start
        if best is None or out["seconds"] < best["seconds"]:
            best = out
    return best


def lpgame_run(name: str, params: dict) -> Callable[[], dict]:
    def run() -> dict:
        start = time.perf_counter()
        game = lpgame.games.make(name, **params)
        built = time.perf_counter() - start
        result = lpgame.solve(game)
        size = result.size
        return {"value": float(result.value), "build": built, "solve": result.seconds["solve"],
                "lp": f"1 LP {size['rows']}×{size['cols']}, nnz {size['nnz']} (sparse)",
                "nash_conv": float(result.certificate.nash_conv)}
    return run


def openspiel_available() -> bool:
    try:
        import pyspiel  # noqa: F401
        from open_spiel.python.algorithms import sequence_form_lp  # noqa: F401
    except ImportError:
        return False
    return True


def _openspiel_counts(game) -> tuple[list[int], list[int]]:
    """Information sets and sequences (with the empty one) per player of an OpenSpiel game."""
    infosets: list[dict[str, int]] = [{}, {}]
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance_node():
            stack.extend(state.child(a) for a, _ in state.chance_outcomes())
            continue
        player = state.current_player()
        infosets[player][state.information_state_string()] = len(state.legal_actions())
        stack.extend(state.child(a) for a in state.legal_actions())
    return [len(d) for d in infosets], [1 + sum(d.values()) for d in infosets]


def openspiel_run(name: str, with_nash_conv: bool) -> Callable[[], dict]:
    import pyspiel
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import exploitability, lp_solver, sequence_form_lp

    counts = _openspiel_counts(pyspiel.load_game(name))

    def run() -> dict:
        solve = lp_solver.LinearProgram.solve
        saved = solve.__defaults__
        solve.__defaults__ = ("HIGHS", {})
        try:
            game = pyspiel.load_game(name)
            value, _, policy0, policy1 = sequence_form_lp.solve_zero_sum_game(game, solver="HIGHS")
        finally:
            solve.__defaults__ = saved
        out = {"value": float(value), "build": float("nan")}
        (i0, i1), (s0, s1) = counts
        # eq. (8): variables y (Σ2) and p (I1 + root); rows: Σ1 inequalities, I2 + root equalities;
        # eq. (9) is the transpose-sized twin. Bounds are extra dense rows in OpenSpiel's G matrix.
        out["lp"] = f"2 LPs {s0 + i1 + 1}×{s1 + i0 + 1} (dense)"
        if with_nash_conv:
            merged = os_policy.merge_tabular_policies([policy0, policy1], game)
            out["nash_conv"] = float(exploitability.nash_conv(game, merged))
        return out
    return run


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)

    rows: list[tuple[str, str, dict]] = []
    lpgame_cases = [
        ("Kuhn", "kuhn_poker", {}),
        ("Leduc (ranks)", "leduc_poker", {"deal": "ranks"}),
        ("Leduc (cards)", "leduc_poker", {"deal": "cards"}),
        ("OCP(1000)", "one_card_poker", {"N": 1000}),
        ("OCP(5000)", "one_card_poker", {"N": 5000}),
        ("Liar's dice D26", "liars_dice", {"players": 2, "faces": 6}),
    ]
    for label, name, params in lpgame_cases:
        rows.append((label, "lpgame solve", best_of(args.repeats, lpgame_run(name, params))))
    reference = {"Kuhn": rows[0][2]["seconds"], "Leduc (cards)": rows[2][2]["seconds"]}

    if openspiel_available():
        for label, name in (("Kuhn", "kuhn_poker"), ("Leduc (cards)", "leduc_poker")):
            rows.append((label, "OpenSpiel seq-form LP",
                         best_of(args.repeats, openspiel_run(name, False))))
            rows.append((label, "OpenSpiel LP + nash_conv",
                         best_of(args.repeats, openspiel_run(name, True))))
    else:
        print("OpenSpiel (open-spiel) is not installed: its rows are left out.")

    header = (f"{'game':<15} {'tool':<25} {'seconds':>9} {'build s':>8} {'HiGHS s':>8} "
              f"{'total/HiGHS':>11} {'value':>18} {'nash_conv':>10}  {'LP size':<38} "
              f"{'OpenSpiel/lpgame':>16}")
    print(f"best of {args.repeats} runs; lpgame {lpgame.__version__}; OpenSpiel on cvxpy's HiGHS")
    print(header)
    print("-" * len(header))
    for label, tool, r in rows:
        ratio = ""
        if tool.startswith("OpenSpiel") and label in reference:
            ratio = f"{r['seconds'] / reference[label]:.2f}"
        nash_conv = f"{r['nash_conv']:.1e}" if "nash_conv" in r else "—"
        build = "—" if r["build"] != r["build"] else f"{r['build']:.3f}"
        highs = f"{r['solve']:.3f}" if "solve" in r else "—"
        overhead = f"{r['seconds'] / r['solve']:.2f}" if "solve" in r else "—"
        print(f"{label:<15} {tool:<25} {r['seconds']:>9.3f} {build:>8} {highs:>8} {overhead:>11} "
              f"{r['value']:>18.13f} {nash_conv:>10}  {r['lp']:<38} {ratio:>16}")


if __name__ == "__main__":
    main()
