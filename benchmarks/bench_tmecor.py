"""TMECor on Farina's Table 11.2 games (team = players 1 and 2 against player 3), next to his times.

Run from the repository root::

    python -m benchmarks.bench_tmecor [--only TEXT] [--method belief_dag|column_generation]
                                      [--max-seconds S] [--certificate-seconds S]

Each row is one ``solve_tmecor(game, team=(1, 2), method=...)`` (:mod:`lpgame.equilibria.teams.tmecor`)
in its own child process (:mod:`benchmarks.isolated`). None of these teams is triangle-free
(private cards or dice).

``--method belief_dag`` (the default) is one LP over the flows of the team belief DAG
(:mod:`lpgame.equilibria.teams.team_belief_dag`, :func:`lpgame.equilibria.teams.tmecor_lp.belief_dag_lp`;
Zhang, Farina & Sandholm 2023, the algorithm behind Table 11.2's "Ours" column, which runs regret minimisation
on the same DAG). Columns: the DAG's beliefs / prescriptions beside Table 11.2's "Ω▲ simplexes / dim" (the
counting conventions differ, docs/explanation/benchmarks.md), the seconds to build the DAG, to solve the LP
(HiGHS)
and to decompose its flow into joint pure plans (how many), the value, the certificate's two gains
(the opponent's best response to the team's distribution and the team's best joint deviation against
the opponent's strategy, :mod:`lpgame.analysis.team_gaps`, with its method and seconds), and
Farina's seconds: "Ours" at exploitability 1e-3 and 1e-4 of the payoff range, and ZS22 (the tree
decomposition LP with Gurobi's barrier), all on 4 threads of a 64-core EPYC 7282 (Table 11.2,
notes/farina-thesis.md §3.5). lpgame's seconds are HiGHS on this machine's shared cores.

``--stepwise-sizes`` prints instead, per game, the sizes of the DAG counted with the thesis's
implementation's convention as far as it can be reconstructed (:func:`stepwise_sizes`: a belief at
every step of the game, each member knowing its private deal and every public move), for the team
and for the opponent alone, beside Table 11.2's Ω▲ and Ω▼ simplexes / dim.

``--method column_generation`` is the restricted LP over joint pure plans with a MILP oracle
(Farina, Celli, Gatti & Sandholm 2018/2021, the "ZFCS22"-style single oracle), with its rounds,
status and bounds [lower, upper] at ``--max-seconds``, beside ZFCS22's 1e-3 seconds.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __package__ in (None, ""):        # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.isolated import run_isolated  # noqa: E402

# (Farina's name, catalog name, parameters, Table 11.2: Ω▲ simplexes, Ω▲ dim,
#  seconds: Ours 1e-3, Ours 1e-4, ZS22, ZFCS22 1e-3)
OPPONENT_SIZES = {"K33": (37, 36), "K34": (49, 48), "L3133": (685, 684), "L3223": (2_437, 2_436),
                  "D33": (1_522, 1_521)}      # Table 11.2, Ω▼ simplexes / dim
INSTANCES = [
    ("K33", "kuhn_poker", {"players": 3, "cards": 3}, (487, 918), (0.00, 0.00, 0.01, 0.00)),
    ("K34", "kuhn_poker", {"players": 3, "cards": 4}, (2_100, 6_711), (0.00, 0.00, 0.02, 0.01)),
    ("L3133", "leduc_poker", {"players": 3, "bets": 1, "ranks": 3, "suits": 3}, (23_983, 49_005),
     (0.02, 0.05, 0.50, 24.89)),
    ("L3223", "leduc_poker", {"players": 3, "bets": 2, "ranks": 2, "suits": 3}, (32_750, 45_913),
     (0.03, 0.08, 0.27, 13.48)),
    ("D33", "liars_dice", {"players": 3, "faces": 3}, (91_858, 215_967),
     (0.11, 0.40, 2.10, 11.05)),
]


def solve_row(game: str, params: dict, method: str, max_seconds: float,
              certificate_seconds: float) -> dict:
    """One row (runs in the child process)."""
    import lpgame.games
    from lpgame.compile import compile_game
    from lpgame.equilibria.teams.tmecor import solve_tmecor

    sf = compile_game(lpgame.games.make(game, **params))
    options = {"time_limit": max_seconds} if method == "column_generation" else {}
    result = solve_tmecor(sf, team=(1, 2), method=method,
                          certificate_time_limit=certificate_seconds, **options)
    row = {"value": result.value, "status": result.extra["status"],
           "bounds": result.extra["bounds"],
           "seconds": result.seconds["total"] - result.seconds["certificate"],
           "lp_seconds": result.seconds["solve"],
           "certificate_seconds": result.seconds["certificate"],
           "gains": result.certificate.best_response_gain,
           "certificate": result.extra["team_deviation"]["method"]
           + ("" if result.extra["team_deviation"]["optimal"] else " (bound)"),
           "plans": len(result.extra.get("team_distribution", []))}
    if method == "belief_dag":
        info = result.extra["belief_dag"]
        row.update(beliefs=info["beliefs"], edges=info["edges"], build=info["build_seconds"],
                   decomposition=info["decomposition_seconds"], joint_plans=info["joint_plans"],
                   lp_seconds=result.seconds["solve"] - info["build_seconds"])
    else:
        row.update(rounds=result.extra["iterations"],
                   relaxation=result.extra.get("relaxation_bound"))
    return row


def stepwise_sizes(game: str, params: dict, members: tuple[int, ...]) -> dict:
    """The TB-DAG counted one game step at a time (runs in the child process).

    The convention of Zhang, Farina & Sandholm's timeable construction as we read it: a belief is a
    connected set of nonterminal histories of one depth, two histories being connected when some
    member's *knowledge* is the same at both; at a belief the team prescribes an action at each of
    its information sets there (one trivial prescription at chance and opponent steps); the
    children are the connected components of the next step's reached histories, identical sets
    merged. A member's knowledge at any history is read off the catalog's trees, where every move
    after the deal is public: its part of the deal label ("J-Q-K") and the moves since. This is a
    size comparison only: the library's DAG (:mod:`lpgame.equilibria.teams.team_belief_dag`) needs no
    knowledge beyond the game's information sets.
    """
    import itertools
    from collections import deque

    import lpgame.games
    from lpgame.compile import as_game
    from lpgame.equilibria.teams.team_belief_dag import team_tree_game

    tree = team_tree_game(as_game(lpgame.games.make(game, **params)))
    graph = tree.graph
    path = {tree.root: ()}
    todo = [tree.root]
    while todo:
        u = todo.pop()
        for c in graph.successors(u):
            path[c] = path[u] + (graph.edges[u, c]["action"],)
            todo.append(c)

    def knowledge(v, m):
        p = path[v]
        return (p[0].split("-")[m],) + p[1:] if p else ()

    def team_infoset(h):
        d = graph.nodes[h]
        if d["kind"] == "decision" and d["player"] in members:
            return (d["player"], d["infoset"])
        return None

    ids: dict[frozenset, int] = {}
    queue: deque[frozenset] = deque()

    def belief(nodes) -> None:
        key = frozenset(nodes)
        if key not in ids:
            ids[key] = len(ids)
            queue.append(key)

    belief([tree.root])
    edges = 0
    while queue:
        nodes = queue.popleft()
        actions = {}
        for h in nodes:
            j = team_infoset(h)
            if j is not None:
                actions[j] = sorted(graph.edges[h, c]["action"] for c in graph.successors(h))
        infosets = sorted(actions)
        for prescription in itertools.product(*(actions[j] for j in infosets)):
            edges += 1
            choice = dict(zip(infosets, prescription))
            reached = []
            for h in nodes:
                j = team_infoset(h)
                reached += [c for c in graph.successors(h)
                            if j is None or graph.edges[h, c]["action"] == choice[j]]
            reached = [c for c in reached if graph.nodes[c]["kind"] != "terminal"]
            parent = {v: v for v in reached}

            def find(v, parent=parent):
                while parent[v] != v:
                    parent[v] = parent[parent[v]]
                    v = parent[v]
                return v
            owner: dict = {}
            for v in reached:
                for m in members:
                    w = owner.setdefault((m, knowledge(v, m)), v)
                    if find(w) != find(v):
                        parent[find(v)] = find(w)
            groups: dict = {}
            for v in reached:
                groups.setdefault(find(v), []).append(v)
            for group in groups.values():
                belief(group)
    return {"beliefs": len(ids), "edges": edges}


def stepwise_main(only: str) -> None:
    print("TB-DAG sizes counted step by step (benchmarks.bench_tmecor.stepwise_sizes) beside "
          "Table 11.2's simplexes / dim")
    print(f"{'game':<6} {'team {1,2}':>16} {'Table Ω▲':>16} {'opponent {3}':>14} {'Table Ω▼':>12}")
    for label, name, params, (simplexes, dim), _ in INSTANCES:
        if only.lower() not in label.lower():
            continue
        cells = []
        for members in ((0, 1), (2,)):
            child = run_isolated("benchmarks.bench_tmecor:stepwise_sizes",
                                 {"game": name, "params": params, "members": members},
                                 timeout=1800)
            cells.append(f"{child.data['beliefs']}/{child.data['edges']}"
                         if child.status == "ok" else child.status)
        opp = OPPONENT_SIZES[label]
        print(f"{label:<6} {cells[0]:>16} {f'{simplexes}/{dim}':>16} {cells[1]:>14} "
              f"{f'{opp[0]}/{opp[1]}':>12}", flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="run the games whose name contains this")
    parser.add_argument("--method", default="belief_dag",
                        choices=("belief_dag", "column_generation"))
    parser.add_argument("--max-seconds", type=float, default=120.0,
                        help="column generation's time limit per row")
    parser.add_argument("--certificate-seconds", type=float, default=600.0,
                        help="time limit of the certificate's team-deviation MILP")
    parser.add_argument("--stepwise-sizes", action="store_true",
                        help="only count the DAG step by step, beside Table 11.2's sizes")
    args = parser.parse_args(argv)
    if args.stepwise_sizes:
        stepwise_main(args.only)
        return
    dag = args.method == "belief_dag"
    print(f"TMECor, team {{1, 2}} vs player 3, method={args.method} (HiGHS; this machine, shared "
          "cores); Farina's Table 11.2: Ω▲ simplexes/dim and seconds (4 threads, EPYC 7282)")
    if dag:
        header = (f"{'game':<6} {'beliefs':>8} {'edges':>8} {'T11.2 simplexes/dim':>20} "
                  f"{'build s':>7} {'LP s':>7} {'dec s':>6} {'plans':>5} {'value':>11} "
                  f"{'opp gain':>9} {'team gain':>9} {'certificate':<14} {'cert s':>6} "
                  f"{'Ours 1e-3':>9} {'Ours 1e-4':>9} {'ZS22':>6}")
    else:
        header = (f"{'game':<6} {'rounds':>6} {'CG s':>7} {'status':<15} {'lower':>10} "
                  f"{'upper':>10} {'opp gain':>9} {'team gain':>9} {'certificate':<18} "
                  f"{'cert s':>6} {'Ours 1e-3':>9} {'ZS22':>6} {'ZFCS22':>6}")
    print(header)
    print("-" * len(header))
    for label, name, params, (simplexes, dim), farina in INSTANCES:
        if args.only.lower() not in label.lower():
            continue
        child = run_isolated("benchmarks.bench_tmecor:solve_row",
                             {"game": name, "params": params, "method": args.method,
                              "max_seconds": args.max_seconds,
                              "certificate_seconds": args.certificate_seconds},
                             timeout=3 * args.max_seconds + args.certificate_seconds + 300)
        ours3, ours4, zs22, zfcs22 = farina
        if child.status != "ok":
            print(f"{label:<6} {child.status}: {child.error[:150]} ({child.wall_seconds:.0f} s)",
                  flush=True)
            continue
        d = child.data
        if dag:
            print(f"{label:<6} {d['beliefs']:>8} {d['edges']:>8} {f'{simplexes}/{dim}':>20} "
                  f"{d['build']:>7.2f} {d['lp_seconds']:>7.2f} {d['decomposition']:>6.2f} "
                  f"{d['joint_plans']:>5} {d['value']:>11.8f} {d['gains'][1]:>9.1e} "
                  f"{d['gains'][0]:>9.1e} {d['certificate']:<14} {d['certificate_seconds']:>6.1f} "
                  f"{ours3:>9.2f} {ours4:>9.2f} {zs22:>6.2f}", flush=True)
        else:
            lower, upper = d["bounds"]
            print(f"{label:<6} {d['rounds']:>6} {d['seconds']:>7.2f} {d['status']:<15} "
                  f"{lower:>10.6f} {upper:>10.6f} {d['gains'][1]:>9.1e} {d['gains'][0]:>9.1e} "
                  f"{d['certificate']:<18} {d['certificate_seconds']:>6.1f} {ours3:>9.2f} "
                  f"{zs22:>6.2f} {zfcs22:>6.2f}", flush=True)


if __name__ == "__main__":
    main()
