"""Make + compile one catalog game, timed after the catalog is imported: seconds and peak memory.

    python -m benchmarks.bench_game_build sheriff N=20 B=5 rounds=4
    python -m benchmarks.bench_game_build sheriff N=20 B=5 rounds=4 structured=false

Parameters are given as on the command line (``make`` parses them). Run one process at a time: the
peak is the process's own ``ru_maxrss`` (interpreter and catalog included, about 0.06 GiB).
"""

from __future__ import annotations

import resource
import sys
import time


def main(argv: list[str] | None = None) -> None:
    import lpgame

    argv = sys.argv[1:] if argv is None else argv
    name, params = argv[0], dict(a.split("=", 1) for a in argv[1:])
    lpgame.games.catalog()                    # import every game module before timing
    t = time.perf_counter()
    game = lpgame.games.make(name, **params)
    made = time.perf_counter() - t
    t = time.perf_counter()
    lpgame.compile_game(game)
    compiled = time.perf_counter() - t
    s = game.sizes()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(f"{name} {params} ({type(game).__name__}): make {made:.2f} s, compile_game "
          f"{compiled:.2f} s, total {made + compiled:.2f} s; infosets/sequences/leaves "
          f"{sum(s['infosets'])}/{sum(s['sequences'])}/{s['terminals']}; peak {peak:.2f} GiB")


if __name__ == "__main__":
    main()
