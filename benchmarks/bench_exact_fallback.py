"""What exact mode's fallbacks cost, on the small instances of the seed's tables.

Run from the repository root::

    python -m benchmarks.bench_exact_fallback [--only TEXT] [--max-rows N] [--simplex-rows N]

For each instance of :data:`benchmarks.bench_tables.INSTANCES` whose sequence-form LP has at most
``--max-rows`` rows (the small ones: a run stays within a few minutes), the exact-mode security LP
(:func:`lpgame.equilibria.zero_sum.security.security_lp`) is solved once by HiGHS's simplex, and its optimal
basis is certified in rational arithmetic by each of exact mode's paths
(:func:`lpgame.lp.solve_lp_exact`):

* ``reconstruction``: the default, float LU + exact iterative refinement + continued fractions
  (:func:`lpgame.lp.exact.certify_basis`);
* ``fmpq_solve``: the fallback when reconstruction fails, a dense rational solve of the basis
  system by python-flint's ``fmpq_mat`` (forced here by allowing no refinement round);
* ``exact_simplex (0 pivots)``: the exact simplex started from HiGHS's (optimal) basis, which only
  proves it optimal, then certified (:mod:`lpgame.lp.exact_simplex`);
* ``exact_simplex (slack)``: the exact simplex from the all-slack basis, i.e. the whole LP solved
  in rational arithmetic (only up to ``--simplex-rows`` rows: each pivot is two dense solves).

Every path must give the same exact value; the table lists the seconds of each and that value.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if __package__ in (None, ""):        # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import lpgame  # noqa: E402
import lpgame.lp.exact as exact_module  # noqa: E402
from benchmarks.bench_tables import INSTANCES  # noqa: E402
from lpgame.equilibria.zero_sum.security import security_lp  # noqa: E402
from lpgame.lp import solve_lp  # noqa: E402
from lpgame.lp.exact import certify_basis  # noqa: E402
from lpgame.lp.exact_simplex import exact_simplex  # noqa: E402
from lpgame.lp.solution import BASIS_BASIC, BASIS_LOWER, BASIS_ZERO  # noqa: E402


def _timed(function):
    start = time.perf_counter()
    out = function()
    return out, time.perf_counter() - start


def _direct(lp, solution):
    """certify_basis with no refinement round: every basis system goes to fmpq_mat."""
    rounds = exact_module.REFINEMENT_ROUNDS
    exact_module.REFINEMENT_ROUNDS = 0
    try:
        return certify_basis(lp, solution)
    finally:
        exact_module.REFINEMENT_ROUNDS = rounds


def _slack_start(lp, solution):
    lower = np.concatenate([b.lower for b in lp.variables])
    solution.col_basis = np.where(np.isinf(lower), BASIS_ZERO, BASIS_LOWER).astype(np.int8)
    solution.row_basis = np.full(lp.num_rows, BASIS_BASIC, dtype=np.int8)
    return solution


def run(instance, simplex_rows: int) -> dict:
    game = lpgame.games.make(instance.game, **instance.params)
    sf = lpgame.compile_game(game)
    built = security_lp(sf, 0, exact=True)
    lp = built.lp
    solution, highs_seconds = _timed(lambda: solve_lp(lp, solver="simplex"))
    row = {"label": instance.label, "rows": lp.num_rows, "cols": lp.num_cols,
           "highs": highs_seconds}
    certified, row["reconstruction"] = _timed(lambda: certify_basis(lp, solution))
    value = built.value(certified.objective)
    direct, row["fmpq_solve"] = _timed(lambda: _direct(lp, solution))
    assert built.value(direct.objective) == value and direct.path == "fmpq_solve"
    if lp.num_rows <= 2000:
        (pivoted, pivots), seconds = _timed(lambda: exact_simplex(lp, solution))
        again, check = _timed(lambda: certify_basis(lp, pivoted))
        assert built.value(again.objective) == value and pivots == 0
        row["simplex_0"] = seconds + check
    if lp.num_rows <= simplex_rows:
        start = _slack_start(lp, solve_lp(lp, solver="simplex"))
        (pivoted, pivots), seconds = _timed(lambda: exact_simplex(lp, start))
        again, check = _timed(lambda: certify_basis(lp, pivoted))
        assert built.value(again.objective) == value
        row["simplex_slack"] = seconds + check
        row["pivots"] = pivots
    row["value"] = value
    return row


def _cell(row: dict, key: str, width: int) -> str:
    return f"{row[key]:>{width}.3f}" if key in row else f"{'—':>{width}}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="instances whose label contains this text")
    parser.add_argument("--max-rows", type=int, default=3000,
                        help="skip instances whose LP has more rows (default 3000)")
    parser.add_argument("--simplex-rows", type=int, default=400,
                        help="largest LP solved by the exact simplex from the slack basis")
    args = parser.parse_args(argv)
    chosen = [i for i in INSTANCES if args.only.lower() in i.label.lower()
              and i.algorithm == "lp"]
    header = (f"{'instance':<16}{'rows×cols':>14}{'HiGHS s':>10}{'reconstr. s':>13}"
              f"{'fmpq_mat s':>12}{'simplex(0) s':>14}{'simplex(slack) s':>18}{'pivots':>8}  value")
    print(header)
    for instance in chosen:
        game = lpgame.games.make(instance.game, **instance.params)
        sizes = lpgame.compile_game(game)
        rows = sizes.num_infosets(0) + 1 + sizes.num_sequences(1)     # treeplex + best_response
        if rows > args.max_rows:
            print(f"{instance.label:<16}  skipped: {rows} LP rows > --max-rows {args.max_rows}")
            continue
        r = run(instance, args.simplex_rows)
        value = r["value"]
        shown = str(value) if len(str(value)) <= 24 else f"{float(value):.12g}"
        print(f"{r['label']:<16}{r['rows']:>7}×{r['cols']:<6}{r['highs']:>10.3f}"
              f"{r['reconstruction']:>13.3f}{_cell(r, 'fmpq_solve', 12)}{_cell(r, 'simplex_0', 14)}"
              f"{_cell(r, 'simplex_slack', 18)}{r.get('pivots', '—'):>8}  {shown}", flush=True)


if __name__ == "__main__":
    main()
