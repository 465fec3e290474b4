"""How much objective violating the triggers buys: the violation frontier over the columns of a
target-gap run (:func:`lpgame.equilibria.correlated.efce_balanced_mix.best_within_violation`).

Run from the repository root::

    python -m benchmarks.efce_violation_frontier L3132 player3 --time-limit 1500 --tuple-seconds 600

It runs the target-gap column generation (:mod:`lpgame.equilibria.correlated.efce_n_player`) on one row of
:mod:`benchmarks.bench_efce_three_player`, keeps its master (the joint-plan columns and the
trigger cuts), and then prints, for each ε of ``--epsilons`` (fractions of the payoff range R),
f(ε): the largest objective of a distribution over those columns whose trigger agents each gain
at most ε·R, with that distribution's gap measured independently
(:mod:`lpgame.analysis.n_player_correlated_gaps`), beside the run's upper bound U and its answer.

Why: the target-gap run's answer is an ε-EFCE whose objective is within t·R of U ≥ OPT, so it
is at least OPT − t·R; it can also lie above OPT, since violation can buy objective. f(0) is
the best exact EFCE over the columns, a lower bound on OPT (to the separation tolerance), so
[f(0), U] brackets OPT, and f's slope near 0 says how much objective the answer's ε can have
bought.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if __package__ in (None, ""):        # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main(argv: list[str] | None = None) -> int:
    import numpy as np

    import lpgame
    import lpgame.equilibria.correlated.efce_n_player as cg
    from benchmarks.bench_efce_three_player import INSTANCES
    from lpgame.analysis.n_player_correlated_gaps import n_player_efce_gap
    from lpgame.equilibria.correlated.efce_balanced_mix import best_within_violation
    from lpgame.equilibria.correlated.efce_master import CUT_TOLERANCE

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("row", choices=[name for name, *_ in INSTANCES])
    parser.add_argument("objective", choices=["player1", "player2", "player3"])
    parser.add_argument("--time-limit", type=float, default=90.0)
    parser.add_argument("--target-gap", type=float, default=0.01)
    parser.add_argument("--tuple-seconds", type=float, default=None)
    parser.add_argument("--max-tuples", type=int, default=None)
    parser.add_argument("--epsilons", default="0,1e-5,1e-4,3e-4,1e-3,3e-3,1e-2",
                        help="comma-separated fractions of the payoff range")
    args = parser.parse_args(argv)
    name, catalog, params, _ = next(row for row in INSTANCES if row[0] == args.row)
    game = lpgame.games.make(catalog, **params)

    kept = {}
    elastic_run = cg.run_elastic_master

    def keep_model(model, *rest, **kw):
        kept["model"] = model
        return elastic_run(model, *rest, **kw)

    cg.run_elastic_master = keep_model
    more = {k: v for k, v in (("max_tuples", args.max_tuples),
                              ("tuple_seconds", args.tuple_seconds)) if v is not None}
    t0 = time.perf_counter()
    r = cg.solve_efce_column_generation(game, objective=args.objective,
                                        time_limit=args.time_limit, target_gap=args.target_gap,
                                        **more)
    cg.run_elastic_master = elastic_run
    scale, upper = r.extra["payoff_range"], r.extra["upper_bound"]
    print(f"{name} {args.objective}: status {r.extra['status']} in {time.perf_counter() - t0:.0f}"
          f" s, {len(kept['model'].columns)} columns, {kept['model'].num_cuts} cuts; R = {scale:g}")
    print(f"answer: objective {r.objective:.6g}, measured gap/R {r.gap / scale:.3g}; "
          f"upper bound U = {upper:.6g}, (U - objective)/R = {(upper - r.objective) / scale:.3g}")
    model = kept["model"]
    tol = CUT_TOLERANCE * cg.DEFAULT_COLUMN_TOLERANCE * scale
    print(f"{'eps/R':>8} {'f(eps)':>10} {'(U-f)/R':>9} {'measured gap/R':>15} {'closed':>7} "
          f"{'s':>6}")
    for eps in (float(e) for e in args.epsilons.split(",")):
        t1 = time.perf_counter()
        found = best_within_violation(model, eps * scale, tol, None)
        if found is None:
            print(f"{eps:8.0e} {'(no LP answer)':>10}")
            continue
        mu, value, closed = found
        support = np.flatnonzero(mu > 1e-12)
        plans = [np.stack([model.columns[k][i] for k in support]) for i in range(model.n)]
        gap = n_player_efce_gap(model.sf, plans, mu[support] / mu[support].sum()).gap
        print(f"{eps:8.0e} {value:10.5g} {(upper - value) / scale:9.3g} {gap / scale:15.3g} "
              f"{str(closed):>7} {time.perf_counter() - t1:6.1f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
