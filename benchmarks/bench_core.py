"""End-to-end Nash-equilibrium timings of lpgame, OpenSpiel and Gambit, side by side in one run.

Run from the repository root: ``python -m benchmarks.bench_core`` (``--repeats N``: best of N inside
each row, default 3; ``--peer-timeout S``: wall-clock limit of a peer's row, default 300 s;
``--lpgame-timeout S``: the same for lpgame's rows, default 600 s; ``--memory-cap G``: address-space
cap of every row's process in GiB, default 12;
``--only TEXT``: the games whose label contains TEXT).

Every row runs in its own child process (:mod:`benchmarks.isolated`), so that its peak memory
(``ru_maxrss`` of the child) is its own and a peer that runs out of memory or time ends that row
only, with the reason printed. Rows:

* **lpgame**: ``lpgame.solve(lpgame.games.make(...))``: build the game (rules → explicit tree, or the
  structured compile for signal games), sequence form, LP, HiGHS, behaviour strategies and the
  certificate (NashConv by the independent best-response path). "build s" is building the game,
  "solver s" the backend alone (for Gambit, lp_solve alone) and "rest/solver" everything after
  the build (sequence form, LP, backend, strategies, certificate) over the backend's time (issue 6
  target: at most 1.5 on games over 10^5 nodes). Games: Kuhn; Leduc with rank-level and card-level chance
  (lpgame/games/leduc.py; "Leduc (cards)" is OpenSpiel's card-level game in lpgame's signal form,
  ``lpgame.abstraction.leduc_ordered()``, its deal × betting index built by broadcasting, which the
  tests check equals the explicit tree; "Leduc (cards,tree)" is the same game expanded from its
  rules object into a networkx tree; "lpgame solve, GameShrink" solves the signal form through
  lossless abstraction, ``lpgame.solve(game, abstraction="gameshrink")``: shrink to the rank-level
  game, solve that LP, lift the strategies and certify them in the original card-level game);
  Goofspiel with 4 cards (random prize order, bids revealed); Liar's dice
  with one six-sided die each; One-Card Poker OCP(N) for N = 1000, 5000, 100000 (notes §1.7;
  compressed showdown payoffs).
* **OpenSpiel** 2.0.2, ``sequence_form_lp.solve_zero_sum_game`` (two LPs with dense matrices, in
  cvxpy) after ``pyspiel.load_game``, and again with ``exploitability.nash_conv`` of its answer
  so that both sides include a certificate. Its default cvxpy solver ECOS is not installed with
  current cvxpy and its ECOS options are passed to any solver, so it runs on cvxpy's HiGHS with
  those options emptied (notes/peers.md). Goofspiel is OpenSpiel's ``goofspiel(num_cards=4,
  points_order=random, returns_type=point_difference)`` made turn-based, the same game as lpgame's
  up to the affine map u ↦ 2u − k(k+1)/2 (so its value is 0 where lpgame's is k(k+1)/4 = 5).
* **Gambit** (pygambit) ``nash.lp_solve`` in floating point on the game written by lpgame's
  ``.efg`` writer and read back by ``pygambit.read_efg`` (reading included in its time).

The ratio column is a peer's seconds over lpgame's seconds on the same game (Leduc: lpgame's
card-level game, which is OpenSpiel's), written "plain / shrunk" where lpgame also solved the game
through GameShrink: over the plain row, then over the GameShrink row. OCP(N) is lpgame only:
neither peer has it, and its product tree (9N(N−1)+1 nodes) is beyond them for these N.
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

# label, lpgame's game (catalog name or "module:function") and parameters, OpenSpiel game string
# (or None), the catalog game whose explicit tree Gambit reads from an .efg file (or None)
LEDUC_CARDS = ("leduc_poker", {"deal": "cards"})
GAMES = [
    ("Kuhn", "kuhn_poker", {}, "kuhn_poker", ("kuhn_poker", {})),
    ("Leduc (ranks)", "leduc_poker", {"deal": "ranks"}, None, None),
    ("Leduc (cards)", "lpgame.abstraction:leduc_ordered", {}, "leduc_poker", LEDUC_CARDS),
    ("Leduc (cards,tree)", *LEDUC_CARDS, None, None),
    ("Goofspiel 4", "goofspiel", {"cards": 4},
     "turn_based_simultaneous_game(game=goofspiel(num_cards=4,points_order=random,"
     "returns_type=point_difference))", ("goofspiel", {"cards": 4})),
    ("Liar's dice D26", "liars_dice", {"players": 2, "faces": 6}, "liars_dice", None),
    ("OCP(1000)", "one_card_poker", {"N": 1000}, None, None),
    ("OCP(5000)", "one_card_poker", {"N": 5000}, None, None),
    ("OCP(100000)", "one_card_poker", {"N": 100_000}, None, None),
]

# rows also solved through lossless abstraction (shrink, solve the abstract LP, lift, certify in the
# original game: lpgame.abstraction.solve); the peers' ratios stay against the plain lpgame row
SHRINKABLE = {"Leduc (cards)"}


def _best_of(repeats: int, run) -> dict:
    best = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = run()
        out["seconds"] = time.perf_counter() - start
        if best is None or out["seconds"] < best["seconds"]:
            best = out
    return best


def _make(name: str, params: dict):
    """A catalog game, or ``"module:function"`` called with ``params`` (a signal-form game)."""
    if ":" in name:
        import importlib
        module, function = name.split(":")
        return getattr(importlib.import_module(module), function)(**params)
    import lpgame
    return lpgame.games.make(name, **params)


def lpgame_case(name: str, params: dict, repeats: int, solve_options: dict | None = None) -> dict:
    """lpgame's row (runs in the child process); ``solve_options`` go to ``lpgame.solve``."""
    import lpgame

    def run() -> dict:
        start = time.perf_counter()
        game = _make(name, params)
        built = time.perf_counter() - start
        result = lpgame.solve(game, **(solve_options or {}))
        size = result.size
        return {"value": float(result.value), "build": built, "solve": result.seconds["solve"],
                "lp": f"1 LP {size['rows']}×{size['cols']}, nnz {size['nnz']} (sparse)",
                "nash_conv": float(result.certificate.nash_conv)}
    return _best_of(repeats, run)


def openspiel_case(game_string: str, repeats: int, with_nash_conv: bool) -> dict:
    """OpenSpiel's row: load, two dense LPs on cvxpy's HiGHS, and its NashConv when
    ``with_nash_conv`` (runs in the child)."""
    import pyspiel
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import exploitability, lp_solver, sequence_form_lp

    def run() -> dict:
        solve = lp_solver.LinearProgram.solve
        saved = solve.__defaults__
        solve.__defaults__ = ("HIGHS", {})
        try:
            game = pyspiel.load_game(game_string)
            value, _, policy0, policy1 = sequence_form_lp.solve_zero_sum_game(game, solver="HIGHS")
        finally:
            solve.__defaults__ = saved
        out = {"value": float(value), "lp": "2 LPs (dense)"}
        if with_nash_conv:
            merged = os_policy.merge_tabular_policies([policy0, policy1], game)
            out["nash_conv"] = float(exploitability.nash_conv(game, merged))
        return out
    return _best_of(repeats, run)


def gambit_case(name: str, params: dict, repeats: int) -> dict:
    """Gambit's row: lpgame writes the .efg, pygambit reads it and runs lp_solve (in the child)."""
    import pygambit

    import lpgame
    from lpgame.io.files import write_game_file

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "game.efg"
        write_game_file(lpgame.games.make(name, **params), path)

        def run() -> dict:
            game = pygambit.read_efg(str(path))
            start = time.perf_counter()
            result = pygambit.nash.lp_solve(game, rational=False)
            solved = time.perf_counter() - start
            profile = result.equilibria[0]
            return {"value": float(profile.payoff(list(game.players)[0])), "solve": solved,
                    "lp": "sequence form (Gambit)"}
        return _best_of(repeats, run)


def _available(module: str) -> bool:
    import importlib.util
    return importlib.util.find_spec(module) is not None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--peer-timeout", type=float, default=300.0)
    parser.add_argument("--lpgame-timeout", type=float, default=600.0)
    parser.add_argument("--memory-cap", type=float, default=12.0,
                        help="address-space cap of each row's process, GiB (a peer that needs more "
                             "ends with 'out of memory' instead of meeting the OOM killer)")
    parser.add_argument("--only", default="")
    args = parser.parse_args(argv)
    have_openspiel, have_gambit = _available("pyspiel"), _available("pygambit")
    if not have_openspiel:
        print("OpenSpiel (open-spiel) is not installed: its rows are left out.")
    if not have_gambit:
        print("Gambit (pygambit) is not installed: its rows are left out.")

    header = (f"{'game':<18} {'tool':<26} {'seconds':>8} {'build s':>7} {'solver s':>8} {'rest/solver':>11} "
              f"{'peak MiB':>8} {'value':>16} {'nash_conv':>9}  {'LP size':<44} {'peer/lpgame':>11}")
    # peer/lpgame: the peer's seconds over lpgame's plain row; on a game also solved through
    # GameShrink, then over that row ("plain / shrunk")
    print(f"best of {args.repeats} runs per row, each row in its own process; peers on a "
          f"{args.peer_timeout:g} s limit")
    print(header)
    print("-" * len(header))
    for label, name, params, spiel_name, gambit_game in GAMES:
        if args.only.lower() not in label.lower():
            continue
        cases = [("lpgame solve", "lpgame_case", {"name": name, "params": params},
                  args.lpgame_timeout)]
        if label in SHRINKABLE:
            cases.append(("lpgame solve, GameShrink", "lpgame_case",
                          {"name": name, "params": params,
                           "solve_options": {"abstraction": "gameshrink"}}, args.lpgame_timeout))
        if spiel_name and have_openspiel:
            for tool, with_nash_conv in (("OpenSpiel LP", False), ("OpenSpiel LP + nash_conv", True)):
                cases.append((tool, "openspiel_case",
                              {"game_string": spiel_name, "with_nash_conv": with_nash_conv},
                              args.peer_timeout))
        if gambit_game and have_gambit:
            cases.append(("Gambit lp_solve (float)", "gambit_case",
                          {"name": gambit_game[0], "params": gambit_game[1]}, args.peer_timeout))
        reference = shrunk_reference = None
        for tool, function, kwargs, timeout in cases:
            child = run_isolated(f"benchmarks.bench_core:{function}",
                                 {**kwargs, "repeats": args.repeats}, timeout=timeout,
                                 memory_cap=int(args.memory_cap * 2**30))
            peak = f"{child.peak_rss_bytes / 2**20:>8.0f}"
            if child.status != "ok":
                print(f"{label:<18} {tool:<26} {child.wall_seconds:>8.1f} {'':>7} {'':>8} {'':>11} {peak} "
                      f"{child.status}: {child.error[:150]}", flush=True)
                continue
            r = child.data
            if reference is None:
                reference = r["seconds"]
            elif tool.endswith("GameShrink"):
                shrunk_reference = r["seconds"]
            ratio = "" if tool.startswith("lpgame") else f"{r['seconds'] / reference:.1f}"
            if ratio and shrunk_reference is not None:
                ratio += f" / {r['seconds'] / shrunk_reference:.1f}"
            highs = f"{r['solve']:.3f}" if "solve" in r else "—"
            lp_tool = tool.startswith("lpgame")
            build = f"{r['build']:.3f}" if lp_tool else "—"
            overhead = f"{(r['seconds'] - r['build']) / r['solve']:.2f}" if lp_tool else "—"
            nash_conv = f"{r['nash_conv']:.1e}" if "nash_conv" in r else "—"
            print(f"{label:<18} {tool:<26} {r['seconds']:>8.3f} {build:>7} {highs:>8} {overhead:>11} {peak} "
                  f"{r['value']:>16.11f} {nash_conv:>9}  {r['lp']:<44} {ratio:>11}", flush=True)


if __name__ == "__main__":
    main()
