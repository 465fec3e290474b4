"""The build stages of optimal EFCE by learning on one catalog game, timed one by one: the relevant
pairs (CorrelationPlanSpace), the scaled-extension chain of Ξ (Algorithm 9.3), the trigger forests,
and the independent EFCE gap at a checkpoint (first plan, then a second plan of the same pattern).

    python -m benchmarks.bench_efce_build sheriff N=10 B=3 rounds=3
    python -m benchmarks.bench_efce_build battleship rows=2 cols=3 shots=3
    python -m benchmarks.bench_efce_build --learn 20 battleship rows=2 cols=3 shots=3

``--learn N``: instead of the stages, one whole learning run (build, N iterations with a
checkpoint every 10, the certificate) and its peak resident memory per relevant pair; run it under
``/usr/bin/time -v`` for the same peak from outside.

Runs against whatever lpgame is first on the path, so the same command measures an older tree
(``git archive <commit> lpgame | tar -x -C /tmp/old`` then ``PYTHONPATH=/tmp/old``): the gap is
timed through ``TriggerGains`` when the tree has it and through ``trigger_gains`` otherwise.
"""

from __future__ import annotations

import resource
import sys
import time


def main(argv: list[str] | None = None) -> None:
    import lpgame
    from lpgame.analysis import correlated_gaps as cg
    from lpgame.equilibria.correlated.correlation_decomposition import correlation_chain
    from lpgame.equilibria.correlated.efce import CorrelationPlanSpace
    from lpgame.equilibria.correlated.efce_learning import trigger_forest

    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--learn":
        return learn(int(argv[1]), argv[2], argv[3:])
    name = argv[0]
    params = {k: int(v) for k, v in (a.split("=") for a in argv[1:])}
    out = {}
    t = time.perf_counter()
    sf = lpgame.compile_game(lpgame.games.make(name, **params))
    out["compile"] = time.perf_counter() - t
    t = time.perf_counter()
    space = CorrelationPlanSpace(sf)
    out["pairs"] = time.perf_counter() - t
    t = time.perf_counter()
    chain = correlation_chain(space)
    out["chain"] = time.perf_counter() - t
    t = time.perf_counter()
    [trigger_forest(sf, space, i, 1.0) for i in range(2)]
    out["forests"] = time.perf_counter() - t
    xi = chain.point(chain.uniform())[:space.num_pairs]
    plans = [space.as_matrix(xi), space.as_matrix(0.5 * xi)]
    if hasattr(cg, "TriggerGains"):
        t = time.perf_counter()
        evaluators = [cg.TriggerGains(sf, i, "efce") for i in range(2)]
        out["gap setup"] = time.perf_counter() - t
        for label, plan in zip(("gap 1st", "gap next"), plans):
            t = time.perf_counter()
            [e(plan) for e in evaluators]
            out[label] = time.perf_counter() - t
    else:
        for label, plan in zip(("gap 1st", "gap next"), plans):
            t = time.perf_counter()
            [cg.trigger_gains(sf, plan, i, "efce") for i in range(2)]
            out[label] = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(f"{name} {params}: {space.num_pairs:,} relevant pairs; "
          + ", ".join(f"{k} {v:.2f} s" for k, v in out.items()) + f"; peak {peak:.2f} GiB")


def learn(iterations: int, name: str, args: list[str]) -> None:
    """One learning run (welfare, DRM) of ``iterations`` iterations: seconds and peak memory."""
    import lpgame
    from lpgame.equilibria.correlated.efce_learning import solve_efce_learning

    params = {k: int(v) for k, v in (a.split("=") for a in args)}
    sf = lpgame.compile_game(lpgame.games.make(name, **params))
    r = solve_efce_learning(sf, objective="welfare", iterations=iterations, check_every=10,
                            target_gap=1e-6)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    pairs = r.extra["relevant_pairs"]
    print(f"{name} {params}: {pairs:,} relevant pairs, {iterations} iterations; "
          + ", ".join(f"{k} {v:.1f} s" for k, v in r.seconds.items())
          + f"; gap/R {r.extra['relative_gap']:.2e}; peak {peak / 2**30:.2f} GiB = "
          f"{peak / pairs:.0f} B per relevant pair (game included)")


if __name__ == "__main__":
    main()
