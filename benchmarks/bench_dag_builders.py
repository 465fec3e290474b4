"""The team belief DAG's and the correlation DAG's builders beside the builders they replaced,
side by side in one process (the old ones are kept verbatim in tests/ as the references of
tests/test_dag_builders.py), with the correlation DAG's size count (:func:`count_correlation_dag`).

Run from the repository root::

    python -m benchmarks.bench_dag_builders [--repeat N] [--only TEXT] [--save]

Each builder runs ``--repeat`` times, old and new alternating, and the shortest time is reported
(the machine is shared). The correlation rows use the cap given in the table (K35 at
efce_n_player_default's 150,000: the time to refuse). "L3132" tries the new builder alone once,
in a child process with a time limit (``--l3132-seconds``; 0 skips it).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if __package__ in (None, ""):        # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from benchmarks.isolated import run_isolated  # noqa: E402

TEAM_ROWS = [("D33", "liars_dice", {"players": 3, "faces": 3}),
             ("K36", "kuhn_poker", {"players": 3, "cards": 6}),
             ("L3133", "leduc_poker", {"players": 3, "bets": 1, "ranks": 3, "suits": 3})]
CORRELATION_ROWS = [("GL33", "goofspiel_limited", {"players": 3, "cards": 3}, 2_000_000),
                    ("K34", "kuhn_poker", {"players": 3, "cards": 4}, 2_000_000),
                    ("D32", "liars_dice", {"players": 3, "faces": 2}, 2_000_000),
                    ("K35", "kuhn_poker", {"players": 3, "cards": 5}, 150_000)]
L3132 = ("leduc_poker", {"players": 3, "bets": 1, "ranks": 3, "suits": 2})


def _timed(function, *args):
    start = time.perf_counter()
    try:
        out = function(*args)
    except Exception as exc:                 # the cap: ModelTooLargeError
        return time.perf_counter() - start, type(exc).__name__
    return time.perf_counter() - start, out


def build_l3132(seconds: float) -> dict:
    """The new builder on L3132 (runs in the child process)."""
    import lpgame.games
    from lpgame.equilibria.correlated.correlation_dag import build_correlation_dag
    from lpgame.equilibria.teams.team_belief_dag import team_tree_game

    game = team_tree_game(lpgame.games.make(L3132[0], **L3132[1]))
    _ = game.index, game.graph         # built before the clock starts
    seconds, dag = _timed(build_correlation_dag, game, "efce", 10_000_000)
    return {"seconds": seconds, "beliefs": dag.num_beliefs, "edges": dag.num_edges}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", default="", help="comma-separated labels")
    parser.add_argument("--l3132-seconds", type=float, default=300.0)
    parser.add_argument("--save", action="store_true",
                        help="write benchmarks/results/bench_dag_builders.json")
    args = parser.parse_args(argv)
    wanted = set(args.only.split(",")) if args.only else None

    from dag_builders_reference import build_correlation_dag_reference
    from team_belief_dag_reference import build_team_belief_dag_reference

    import lpgame.games
    from lpgame.equilibria.correlated.correlation_dag import (
        build_correlation_dag,
        count_correlation_dag,
    )
    from lpgame.equilibria.teams.team_belief_dag import build_team_belief_dag, team_tree_game

    columns = ["DAG", "game", "beliefs", "edges", "old s", "new s", "count s", "old/new"]
    rows = []
    print(f"{'DAG':<12} {'game':<6} {'beliefs':>8} {'edges':>9} {'old s':>7} {'new s':>7} "
          f"{'count s':>7} {'old/new':>7}")

    def show(row):
        rows.append(row)
        text = ["—" if c is None else str(c) for c in row]
        print(f"{text[0]:<12} {text[1]:<6} {text[2]:>8} {text[3]:>9} {text[4]:>7} {text[5]:>7} "
              f"{text[6]:>7} {text[7]:>7}", flush=True)

    for label, name, params in TEAM_ROWS:
        if wanted and label not in wanted:
            continue
        game = team_tree_game(lpgame.games.make(name, **params))
        _ = game.index                 # built before the clock starts
        old, new = [], []
        for _ in range(args.repeat):
            old.append(_timed(build_team_belief_dag_reference, game, (0, 1)))
            new.append(_timed(build_team_belief_dag, game, (0, 1)))
        dag = new[0][1]
        o, n = min(t for t, _ in old), min(t for t, _ in new)
        show(["team (1,2)", label, dag.num_beliefs, dag.num_edges, round(o, 2), round(n, 2), None,
              f"{o / n:.1f}×"])
    for label, name, params, cap in CORRELATION_ROWS:
        if wanted and label not in wanted:
            continue
        game = team_tree_game(lpgame.games.make(name, **params))
        _ = game.index, game.graph     # built before the clock starts
        old, new, count = [], [], []
        for _ in range(args.repeat):
            old.append(_timed(build_correlation_dag_reference, game, "efce", cap))
            new.append(_timed(build_correlation_dag, game, "efce", cap))
            count.append(_timed(count_correlation_dag, game, "efce", cap))
        size = count[0][1]
        o, n, c = (min(t for t, _ in runs) for runs in (old, new, count))
        edges = f"{size['edges']:,}" if size["complete"] else f">{cap:,}"
        show([f"EFCE corr. (cap {cap // 1000}k)", label, size["beliefs"] if size["complete"]
              else None, edges, round(o, 2), round(n, 2), round(c, 2), f"{o / n:.1f}×"])
    if args.l3132_seconds > 0 and (not wanted or "L3132" in wanted):
        child = run_isolated("benchmarks.bench_dag_builders:build_l3132",
                             {"seconds": args.l3132_seconds}, timeout=args.l3132_seconds)
        if child.status == "ok":
            d = child.data
            show(["EFCE corr.", "L3132", d["beliefs"], d["edges"], None,
                  round(d["seconds"], 1), None, None])
        else:
            show(["EFCE corr.", "L3132", None, None, None,
                  f"{child.status} ({child.wall_seconds:.0f} s)", None, None])
    if args.save:
        from benchmarks.results_io import command, result, save
        print("saved", save(result(
            "bench_dag_builders", command("benchmarks.bench_dag_builders", argv), columns, rows,
            notes="shortest of --repeat runs, old and new builders alternating in one process; "
                  "the old builders are tests/dag_builders_reference.py and "
                  "tests/team_belief_dag_reference.py")))


if __name__ == "__main__":
    main()
