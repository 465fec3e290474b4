"""Seconds of the exact stability test of one trembling-LP basis (Farina 2023, Thm. 13.3, §13.4).

Run from the repository root::

    python -m benchmarks.bench_basis_stability [--only TEXT]

For each case (game, refinement, ξ), the trembling LP of :mod:`lpgame.equilibria.refinements.perturbed_lp` is
built, P(ξ) is solved once by HiGHS's simplex from a cold start (so the basis may differ from the
one the warm-started limit loop finds at the same ξ: L2232 EFPE at 1/8192), and its optimal basis is tested by
:func:`lpgame.equilibria.refinements.basis_stability.certify_stable_basis` (python-flint rationals, block
triangular sparse LU, Taylor or Laurent series). Columns: the case, the basis size, the verdict (stable, with
the method, or why not), the HiGHS seconds and the seconds of the exact test. The games are those
of Table 13.1 (notes/farina-thesis.md §3.3) from the catalog, as in :mod:`benchmarks.bench_refinements`.
"""

from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction
from pathlib import Path

if __package__ in (None, ""):        # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import lpgame  # noqa: E402
from lpgame.compile import compile_game  # noqa: E402
from lpgame.equilibria.refinements.basis_stability import NotStableError, certify_stable_basis  # noqa: E402
from lpgame.equilibria.refinements.perturbed_lp import refinement_lp, sequence_depths  # noqa: E402
from lpgame.lp import solve_lp  # noqa: E402
from lpgame.lp.solution import BASIS_BASIC  # noqa: E402

GAMES = {"K23": ("kuhn_poker", {}), "G23": ("goofspiel", {"cards": 3}),
         "G24": ("goofspiel", {"cards": 4}),
         "L2232": ("leduc_poker", {"bets": 2, "ranks": 3, "suits": 2})}
CASES = [("K23", "qpe", Fraction(1, 16)), ("K23", "efpe", Fraction(1, 16)),
         ("L2232", "efpe", Fraction(1, 8)), ("L2232", "efpe", Fraction(1, 8192)),
         ("G24", "qpe", Fraction(1, 8)), ("G24", "qpe", Fraction(1, 2 ** 20)),
         ("G24", "efpe", Fraction(1, 8)), ("G24", "efpe", Fraction(1, 2 ** 16))]


def run(name: str, refinement: str, xi: Fraction) -> dict:
    game, params = GAMES[name]
    sf = compile_game(lpgame.games.make(game, **params))
    rl = refinement_lp(sf, refinement, 1)
    depth = max(int(sequence_depths(sf, i).max()) for i in range(2))
    terms = 2 * depth + 4 if refinement == "efpe" else None
    t0 = time.perf_counter()
    solution = solve_lp(rl.tlp.at(xi), solver="simplex")
    t1 = time.perf_counter()
    try:
        basis = certify_stable_basis(rl.tlp, solution, terms=terms)
        verdict = f"stable ({basis.how.split(',')[0]})"
    except NotStableError as exc:
        verdict = "not stable: " + str(exc)[:70]
    t2 = time.perf_counter()
    size = int(np.count_nonzero(solution.col_basis == BASIS_BASIC))
    return {"case": f"{name} {refinement} ξ={xi}", "basis": size, "verdict": verdict,
            "highs_s": t1 - t0, "test_s": t2 - t1}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="run the cases whose name contains this text")
    args = parser.parse_args(argv)
    print(f"{'case':28} {'basis':>6} {'HiGHS s':>8} {'test s':>8}  verdict")
    for name, refinement, xi in CASES:
        label = f"{name} {refinement} ξ={xi}"
        if args.only not in label:
            continue
        row = run(name, refinement, xi)
        print(f"{row['case']:28} {row['basis']:>6} {row['highs_s']:8.2f} {row['test_s']:8.2f}  "
              f"{row['verdict']}", flush=True)


if __name__ == "__main__":
    main()
