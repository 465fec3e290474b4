"""Build rates of explicit game trees: nodes per second and µs per node, by source.

    python -m benchmarks.bench_build_rate                 # every row, best of 3 runs
    python -m benchmarks.bench_build_rate --quick         # small games only (a smoke run)
    python -m benchmarks.bench_build_rate --save   # writes benchmarks/results/bench_build_rate.json
    python -m benchmarks.bench_build_rate --source efg --compare   # .efg rows, before and after

Three sources (issue 37, "trees at C speed"; goals in µs per node):

* ``catalog``: a catalog rules game expanded by :func:`lpgame.game.rules.expand` (goal ≤ 5 µs);
  the rules' own callbacks run once per node and are part of the time;
* ``openspiel``: an OpenSpiel game imported by :func:`lpgame.io.openspiel.game_from_openspiel`
  (goal ≤ 5 µs); OpenSpiel's ``child``/``information_state_string`` calls are part of the time;
* ``efg``: a Gambit ``.efg`` text parsed by :func:`lpgame.io.gambit.parse_efg` (goal ≤ 1 µs); the
  file is read into memory before timing, and large files are catalog games written by
  :func:`lpgame.io.gambit.efg_text`.

A row's time is the CPU time of building the validated :class:`~lpgame.game.Game` (flat index
included), the least of ``--runs`` runs or more; nodes are the game's ``sizes()["nodes"]``. The
column "source calls" times the rules callbacks (or OpenSpiel calls) of the same walk alone: the
floor of any build that calls Python (or pybind) per node.
"""

from __future__ import annotations

import argparse
import gc
import time
from pathlib import Path

MODELS = Path(__file__).resolve().parent.parent / "models"
GOALS = {"catalog": 5.0, "openspiel": 5.0, "efg": 1.0}


def _rules_walk(rules) -> None:
    """Every rules callback that :func:`~lpgame.game.rules.expand` makes, and nothing else: the
    floor of a build from Python rules."""
    from lpgame.game.rules import CHANCE_PLAYER, TERMINAL_PLAYER

    stack = [rules.initial_state()]
    while stack:
        state = stack.pop()
        who = rules.current_player(state)
        if who == TERMINAL_PLAYER:
            tuple(rules.payoffs(state))
        elif who == CHANCE_PLAYER:
            stack.extend(rules.apply(state, a) for a, _ in rules.chance_outcomes(state))
        else:
            rules.infoset_key(state)
            stack.extend(rules.apply(state, a) for a in rules.legal_actions(state))


def _openspiel_walk(game) -> None:
    """Every OpenSpiel call that the importer makes, and nothing else."""
    chance = -1
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            state.returns()
        elif state.is_chance_node():
            actions = [a for a, _ in state.chance_outcomes()]
            [state.action_to_string(chance, a) for a in actions]
            stack.extend(state.child(a) for a in actions)
        else:
            player = state.current_player()
            actions = state.legal_actions()
            [state.action_to_string(player, a) for a in actions]
            state.information_state_string(player)
            stack.extend(state.child(a) for a in actions)


def _catalog(name: str, rules_factory, **params):
    import lpgame

    return (f"{name}({', '.join(f'{k}={v}' for k, v in params.items())})",
            lambda: lpgame.games.make(name, **params), lambda: _rules_walk(rules_factory()))


def _openspiel(spec: str):
    import pyspiel

    from lpgame.io.openspiel import game_from_openspiel

    game = pyspiel.load_game(spec)
    return spec, lambda: game_from_openspiel(spec), lambda: _openspiel_walk(game)


def _efg_text(label: str, text: str):
    from lpgame.io.gambit import parse_efg

    def build():
        return parse_efg(text)
    build.text = text
    return label, build, None


def cases(quick: bool) -> list[tuple[str, str, object]]:
    """(source, label, build function) of every row."""
    import lpgame
    from lpgame.games.goofspiel import GoofspielRules
    from lpgame.games.leduc import LeducRules
    from lpgame.games.liars_dice import LiarsDiceRules
    from lpgame.games.poker import KuhnRules
    from lpgame.io.gambit import efg_text

    rows = [("catalog", *_catalog("kuhn_poker", lambda: KuhnRules(2, 3))),
            ("catalog", *_catalog("leduc_poker", lambda: LeducRules(2, 2, 3, 2, "cards"),
                                  deal="cards")),
            ("catalog", *_catalog("liars_dice", lambda: LiarsDiceRules(2, 4, False), faces=4,
                                  structured=False))]
    if not quick:
        rows.append(("catalog", *_catalog("goofspiel_limited",
                                          lambda: GoofspielRules(2, 4, limited=True), cards=4)))
    try:
        import pyspiel  # noqa: F401
        rows += [("openspiel", *_openspiel("kuhn_poker")),
                 ("openspiel", *_openspiel("leduc_poker"))]
        if not quick:
            rows.append(("openspiel", *_openspiel("liars_dice(dice_sides=4)")))
    except ImportError:
        print("OpenSpiel is not installed: no openspiel rows")
    for path in sorted(MODELS.glob("*.efg")):
        rows.append(("efg", *_efg_text(path.name, path.read_text(encoding="utf-8"))))
    big = [("leduc_poker", {"deal": "cards"})] + ([] if quick else [("goofspiel_limited", {"cards": 4})])
    for name, params in big:
        text = efg_text(lpgame.games.make(name, **params))
        label = f"{name}({', '.join(f'{k}={v}' for k, v in params.items())}) written by efg_text"
        rows.append(("efg", *_efg_text(label, text)))
    return rows


def _best(function, runs: int) -> float:
    """Least CPU time (this process, user + system) of ``runs`` calls (more for calls under
    0.1 s, up to 1 s in all). CPU time, not wall time: the machine is shared and loaded, and a
    build is single-threaded."""
    best, spent, k = float("inf"), 0.0, 0
    while k < runs or (spent < 1.0 and best < 0.1 and k < 200):
        gc.collect()
        t = time.process_time()
        function()
        elapsed = time.process_time() - t
        best, spent, k = min(best, elapsed), spent + elapsed, k + 1
    return best


def _efg_entry_path(text: str):
    """The ``.efg`` reader without its bulk path (each node entry matched by its own regular
    expression, the careful parser where that fails): ``parse_efg`` before the bulk path."""
    from lpgame.game.flat_tree import paused_gc
    from lpgame.io import gambit_efg_reader as reader

    def build():
        try:
            with paused_gc():
                return reader._fast_parse(text)
        except Exception:   # noqa: BLE001  (as parse_efg: the careful parser decides)
            return reader._EfgParser(text, None).parse()
    return build


def measure(quick: bool = False, runs: int = 3, sources: list[str] | None = None,
            compare: bool = False) -> list[dict]:
    """One row per case: nodes, best seconds, µs per node, nodes per second, and the µs per node of
    the source's own calls (rules callbacks, OpenSpiel) when timed alone. ``sources``: only these
    rows; ``compare``: also time each ``.efg`` text with the reader's entry-by-entry path
    (printed, not saved), side by side with the same run."""
    out = []
    for source, label, build, calls in cases(quick):
        if sources and source not in sources:
            continue
        nodes = build().sizes()["nodes"]
        best = _best(build, runs)
        floor = _best(calls, runs) / nodes * 1e6 if calls is not None else None
        us = best / nodes * 1e6
        out.append({"source": source, "game": label, "nodes": nodes, "seconds": best,
                    "us_per_node": us, "nodes_per_s": nodes / best, "goal": GOALS[source],
                    "calls_us": floor})
        calls_text = f"{floor:6.2f}" if floor is not None else "     —"
        print(f"{source:<9} {label:<50} {nodes:>7} nodes {best:8.4f} s {us:7.2f} µs/node "
              f"{nodes / best:>10,.0f} nodes/s  source calls {calls_text} µs/node  "
              f"(goal {GOALS[source]:g} µs)", flush=True)
        if compare and source == "efg":
            before = _best(_efg_entry_path(build.text), runs)
            out[-1]["entry_path_us"] = before / nodes * 1e6
            print(f"{'':<9} {'  same text, entry-by-entry path (before)':<50} {'':>13} {before:8.4f} s "
                  f"{before / nodes * 1e6:7.2f} µs/node  ratio {before / best:5.2f}×", flush=True)
    return out


def save(rows: list[dict], runs: int, argv: list[str] | None,
         name: str = "bench_build_rate") -> None:
    """Write the table as a benchmark result (:mod:`benchmarks.results_io`) named ``name``."""
    from benchmarks import results_io

    table = [[r["source"], r["game"], r["nodes"], round(r["seconds"], 4), round(r["us_per_node"], 2),
              round(r["nodes_per_s"]),
              None if r["calls_us"] is None else round(r["calls_us"], 2),
              r["goal"], r["us_per_node"] <= r["goal"]] for r in rows]
    path = results_io.save(results_io.result(
        name, results_io.command("benchmarks.bench_build_rate", argv),
        ["source", "game", "nodes", "CPU s (least)", "µs per node", "nodes per s",
         "source calls alone (µs per node)", "goal (µs)", "met"], table,
        notes=f"CPU time to build the validated Game (flat index included), least of {runs} or "
              "more runs; catalog = rules expanded by lpgame.game.rules.expand, openspiel = "
              "game_from_openspiel, efg = parse_efg of text already in memory; 'source calls "
              "alone' = the rules callbacks or OpenSpiel calls of the same walk, timed without "
              "lpgame's work (a floor for a build from Python callbacks)"))
    print(f"saved {path}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of each build (best is kept)")
    parser.add_argument("--quick", action="store_true", help="small games only")
    parser.add_argument("--save", action="store_true",
                        help="write the table to benchmarks/results/bench_build_rate.json")
    parser.add_argument("--name", default="bench_build_rate",
                        help="the result's name with --save (e.g. bench_build_rate_before)")
    parser.add_argument("--source", action="append", choices=sorted(GOALS),
                        help="only the rows of this source (repeatable; not with --save)")
    parser.add_argument("--compare", action="store_true",
                        help="also time each .efg text with the reader's entry-by-entry path "
                             "(the reader before its bulk path), printed beside the row")
    args = parser.parse_args(argv)
    if args.save and args.source:
        parser.error("--save writes every row: leave out --source")
    rows = measure(args.quick, max(args.runs, 1), args.source, args.compare)
    if args.save:
        save(rows, args.runs, argv, args.name)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
