"""TMECor on Farina's Table 11.2 games (team = players 1 and 2 against player 3), next to his times.

Run from the repository root::

    python -m benchmarks.bench_tmecor [--max-seconds S] [--only TEXT] [--oracle pairs|products]

Each row is one ``solve_tmecor(game, team=(1, 2))`` (:mod:`lpgame.equilibria.tmecor`) in its own
child process (:mod:`benchmarks.isolated`). None of these teams is triangle-free (private cards or
dice), so ``method="auto"`` is column generation: a restricted LP over the team's joint pure plans
and a best-response MILP on HiGHS (``scipy.optimize.milp``) as the oracle (Farina, Celli, Gatti &
Sandholm 2018/2021, the "ZFCS22"-style single oracle of Table 11.2). Every row also reports the LP
over the von Stengel–Forges polytope of the team's relevant pairs, which for these teams is only an
upper bound (Farina 2023, Lemma 11.3, Thm 9.1).

Columns: the game, the relevant pairs of the team, the V-relaxation's value and seconds, column
generation's rounds and seconds (without the certificate), its status ("optimal": the oracle's
dual bound met the master's value; "time_limit": the labelled partial answer), its bounds
[lower, upper] on the TMECor value,
the certificate's two gains (the opponent's best response to the team's distribution and the team's
best joint deviation, :mod:`lpgame.analysis.team_gaps`, with the method it used and its seconds)
and Farina's times
(Table 11.2, notes/farina-thesis.md §3.5: "Ours" at exploitability 1e-3 of the payoff range, ZS22's
tree-decomposition LP, and ZFCS22's column generation at 1e-3, all with Gurobi on 4 threads of a
64-core EPYC 7282; lpgame runs on this machine's shared cores with HiGHS).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __package__ in (None, ""):        # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.isolated import run_isolated  # noqa: E402

# (Farina's name, catalog name, parameters, Table 11.2 seconds: Ours 1e-3, ZS22, ZFCS22 1e-3)
INSTANCES = [
    ("K33", "kuhn_poker", {"players": 3, "cards": 3}, (0.00, 0.01, 0.00)),
    ("K34", "kuhn_poker", {"players": 3, "cards": 4}, (0.00, 0.02, 0.01)),
    ("L3133", "leduc_poker", {"players": 3, "bets": 1, "ranks": 3, "suits": 3}, (0.02, 0.50, 24.89)),
    ("D33", "liars_dice", {"players": 3, "faces": 3}, (0.11, 2.10, 11.05)),
]


def solve_row(game: str, params: dict, max_seconds: float, oracle: str, seed: str) -> dict:
    """One row (runs in the child process): the V-relaxation and the column generation."""
    import time

    import lpgame.games
    from lpgame.compile import compile_game
    from lpgame.equilibria.tmecor import make_team, solve_tmecor, team_plan_space, tmecor_lp
    from lpgame.lp import solve_lp

    sf = compile_game(lpgame.games.make(game, **params))
    team = make_team(sf, (1, 2))
    start = time.perf_counter()
    space = team_plan_space(team)
    lp, _ = tmecor_lp(team, space)
    relaxation = solve_lp(lp)
    relaxation_seconds = time.perf_counter() - start
    result = solve_tmecor(sf, team=(1, 2), method="column_generation", oracle=oracle, seed=seed,
                          time_limit=max_seconds, certificate_time_limit=max_seconds / 2)
    return {"pairs": space.num_pairs, "triangle_free": space.triangle_free,
            "relaxation": relaxation.objective, "relaxation_seconds": relaxation_seconds,
            "value": result.value, "status": result.extra["status"],
            "bounds": result.extra["bounds"], "rounds": result.extra["iterations"],
            "seconds": result.seconds["total"] - result.seconds["certificate"],
            "certificate_seconds": result.seconds["certificate"],
            "gains": result.certificate.best_response_gain,
            "certificate": result.extra["team_deviation"]["method"]
            + ("" if result.extra["team_deviation"]["optimal"] else " (bound)")}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-seconds", type=float, default=120.0,
                        help="column generation's time limit per row (the certificate gets half)")
    parser.add_argument("--only", default="", help="run the games whose name contains this")
    parser.add_argument("--oracle", default="auto", choices=("auto", "pairs", "products"))
    parser.add_argument("--seed", default="uniform", choices=("uniform", "relaxation"),
                        help="column generation's first opponent strategy")
    args = parser.parse_args(argv)
    print("TMECor, team {1, 2} vs player 3; column generation with a HiGHS MILP oracle "
          f"({args.oracle}, seed {args.seed}); Farina's Table 11.2 seconds: Ours (1e-3), ZS22, ZFCS22 (1e-3)")
    header = (f"{'game':<6} {'pairs':>7} {'V-LP bound':>11} {'V-LP s':>7} {'rounds':>6} "
              f"{'CG s':>7} {'status':<11} {'lower':>10} {'upper':>10} {'opp gain':>9} "
              f"{'team gain':>9} {'certificate':<18} {'cert s':>6} {'Ours':>5} {'ZS22':>5} {'ZFCS22':>6}")
    print(header)
    print("-" * len(header))
    for label, name, params, farina in INSTANCES:
        if args.only.lower() not in label.lower():
            continue
        child = run_isolated("benchmarks.bench_tmecor:solve_row",
                             {"game": name, "params": params, "max_seconds": args.max_seconds,
                              "oracle": args.oracle, "seed": args.seed},
                             timeout=3 * args.max_seconds + 120)
        ours, zs22, zfcs22 = farina
        if child.status != "ok":
            print(f"{label:<6} {child.status}: {child.error[:150]} ({child.wall_seconds:.0f} s)  "
                  f"{ours:>5.2f} {zs22:>5.2f} {zfcs22:>6.2f}", flush=True)
            continue
        d = child.data
        lower, upper = d["bounds"]
        print(f"{label:<6} {d['pairs']:>7} {d['relaxation']:>11.6f} {d['relaxation_seconds']:>7.2f} "
              f"{d['rounds']:>6} {d['seconds']:>7.2f} {d['status']:<11} {lower:>10.6f} "
              f"{upper:>10.6f} {d['gains'][1]:>9.1e} {d['gains'][0]:>9.1e} {d['certificate']:<18} "
              f"{d['certificate_seconds']:>6.1f} "
              f"{ours:>5.2f} {zs22:>5.2f} {zfcs22:>6.2f}", flush=True)


if __name__ == "__main__":
    main()
