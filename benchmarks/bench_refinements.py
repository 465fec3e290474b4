"""Exact QPE and EFPE timings next to Farina's Table 13.1, and OpenSpiel's numeric perturbed LP.

Run from the repository root::

    python -m benchmarks.bench_refinements [--max-seconds S] [--only TEXT] [--refinements qpe,efpe]
                                           [--no-openspiel]

Each row is one :func:`lpgame.equilibria.refinements.refined_equilibrium.solve_refinement` in its own child
process (:mod:`benchmarks.isolated`): build the trembling LP (Farina 2023, Props. 13.1–13.2), the limit loop
of §13.4 (HiGHS's dual simplex on P(ξ), ξ = 2⁻³ … 2⁻²⁰, 2⁻³⁰ … 2⁻⁶⁰, the exact stable-basis test of
each distinct basis; then the exact stage, an exact simplex at fixed rational ξ = 2⁻¹⁰ … 2⁻¹⁰⁰
warm-started from HiGHS's or the previous exact basis, :mod:`lpgame.equilibria.refinements.exact_limit`; the
exact criss-cross method over ℚ(ε) last), and the independent certificate (exact NashConv and the
refinement's own property on the tree). Columns: Farina's name, the refinement, the status
("certified", or "partial" with the smallest ξ reached), the ξ at which the stable basis was found
(and how: HiGHS, the exact simplex at ξ, or the criss-cross method), the ε* for which optimality on
(0, ε*] is proved (QPE) or "Taylor" (EFPE: some (0, ε̄]), HiGHS seconds, exact-simplex seconds,
stability-test seconds, the limit loop's seconds (HiGHS, exact simplex and stability test: what
the thesis's Ch 13 column times), total seconds (in the child, after its imports: game, LP, limit
loop, certificate), whether the checks passed, whether the value equals the plain exact Nash LP's (an
independent path, computed after the timing), and the thesis's C++ time and final ε for the same
cell (Table 13.1, notes/farina-thesis.md §3.3: single thread, 2.4 GHz, Gurobi then GLOP-MPFR; QPE
"Ch 13" and EFPE "Ch 13" columns).

OpenSpiel (``open_spiel.python.algorithms.sequence_form_lp.solve_perturbed_zero_sum_game``, the
perturbed LP of Miltersen & Sørensen at a fixed ε = 1e-8 solved by CVXPY/ECOS, OpenSpiel PR #1489)
is run, also in a child, on the games OpenSpiel has with the same rules (Kuhn K23 and Leduc L2232;
its Goofspiel is simultaneous-move with other payoffs and its Leduc has three ranks, so G23, G24 and
L2252 are not compared). For the comparison lpgame solves the game imported from OpenSpiel
(:func:`lpgame.io.openspiel.game_from_openspiel`, identical information sets and payoffs), and the
row reports, at the information sets each player's exact refined strategy does not reach (the
off-path play the refinement is about), the largest difference between OpenSpiel's probabilities
and lpgame's exact limit and how many of those sets differ by more than 10⁻³.
"""

from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction
from pathlib import Path

if __package__ in (None, ""):        # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.isolated import run_isolated  # noqa: E402

# (Farina's name, catalog name, parameters, OpenSpiel game or None,
#  thesis QPE Ch 13 time and final ε, thesis EFPE Ch 13 time and final ε)
INSTANCES = [
    ("K23", "kuhn_poker", {}, "kuhn_poker", ("11 ms", "1/819200"), ("26 ms", "1/819200")),
    ("L2232", "leduc_poker", {"bets": 2, "ranks": 3, "suits": 2}, "leduc_poker",
     ("1.15 s", "1e-6"), ("535 ms", "1/819200")),
    ("L2252", "leduc_poker", {"bets": 2, "ranks": 5, "suits": 2}, None,
     ("494 ms", "1e-6"), ("1.6 s", "1e-6")),
    ("G23", "goofspiel", {"cards": 3}, None, ("203 ms", "1/819200"), ("489 ms", "1/819200")),
    ("G24", "goofspiel", {"cards": 4}, None, ("19 s", "1/819200"), ("54 s", "1e-6")),
]


def run_case(game: str, params: dict, refinement: str, time_limit: float) -> dict:
    """Child: one refinement of one catalog game (module docstring)."""
    # highspy, python-flint and scipy's csgraph are lazy imports in lpgame: loaded here, before
    # the clock starts, like the other imports
    import flint  # noqa: F401
    import scipy.sparse.csgraph  # noqa: F401

    import lpgame
    import lpgame.lp.highs_backend  # noqa: F401
    from lpgame.equilibria.refinements.refined_equilibrium import solve_refinement
    start = time.perf_counter()
    instance = lpgame.games.make(game, **params)
    result = solve_refinement(instance, refinement, time_limit=time_limit)
    seconds = time.perf_counter() - start
    info = result.extra["refinement"]
    eps = info.get("epsilon", {})
    same_value = None
    if info["status"] == "certified":
        same_value = result.value == lpgame.solve(instance, concept="nash", exact=True).value
    return {"status": info["status"], "found_at": eps.get("found_at", eps.get("smallest_reached")),
            "basis_by": eps.get("basis_by", "-"), "certified_on": eps.get("certified_on"),
            "highs": info["seconds"].get("solve", 0.0),
            "stability": info["seconds"].get("stability", 0.0),
            "exact_simplex": info["seconds"].get("exact_simplex", 0.0), "same_value": same_value,
            "limit": info["seconds"].get("total", 0.0),
            "checks": all(c["passed"] for c in info.get("checks", [])) if info.get("checks") else None,
            "nash_conv": str(result.certificate.nash_conv), "size": result.size,
            "seconds": seconds}


def run_openspiel(game: str, time_limit: float) -> dict:
    """Child: OpenSpiel's perturbed LP at ε = 1e-8 against lpgame's exact QPE on the same game."""
    import pyspiel
    from open_spiel.python.algorithms import sequence_form_lp

    from lpgame.equilibria.refinements.refined_equilibrium import solve_refinement
    from lpgame.io.openspiel import game_from_openspiel, strategies_from_openspiel_policy
    spiel = pyspiel.load_game(game)
    start = time.perf_counter()
    _, _, pi0, pi1 = sequence_form_lp.solve_perturbed_zero_sum_game(spiel, eps=1e-8)
    openspiel_seconds = time.perf_counter() - start
    ours_game = game_from_openspiel(spiel)
    start = time.perf_counter()
    exact = solve_refinement(ours_game, "qpe", time_limit=time_limit)
    ours_seconds = time.perf_counter() - start
    theirs = strategies_from_openspiel_policy(ours_game, spiel, _PerPlayer(pi0, pi1))
    worst, differing, compared = 0.0, 0, 0
    for player in range(2):
        for infoset in exact.unreached[player]:
            compared += 1
            gap = max(abs(float(theirs[player][infoset][a]) - float(p))
                      for a, p in exact.strategies[player][infoset].items())
            worst = max(worst, gap)
            differing += gap > 1e-3
    return {"openspiel_seconds": openspiel_seconds, "status": exact.extra["refinement"]["status"],
            "ours_seconds": ours_seconds,
            "ours_limit": exact.extra["refinement"]["seconds"].get("total", 0.0),
            "off_path_sets": compared, "max_difference": worst, "differing_sets": differing}


class _PerPlayer:
    """OpenSpiel returns one TabularPolicy per player, each filled at its own player's states."""

    def __init__(self, *policies):
        self.policies = policies

    def action_probabilities(self, state, player):
        return self.policies[player].action_probabilities(state, player)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-seconds", type=float, default=240.0)
    parser.add_argument("--only", default="")
    parser.add_argument("--refinements", default="qpe,efpe")
    parser.add_argument("--no-openspiel", action="store_true")
    parser.add_argument("--save", action="store_true",
                        help="also write benchmarks/results/bench_refinements.json")
    args = parser.parse_args(argv)
    table = []
    chosen = args.refinements.split(",")
    print(f"{'game':<6} {'ref':<5} {'status':<10} {'stable at ξ (by)':<42} {'ε*':<10} "
          f"{'HiGHS s':>8} {'simplex s':>9} {'stab. s':>8} {'limit s':>8} {'total s':>8} {'checks':<7} "
          f"{'=Nash':<6} {'thesis (final ε)':<22}")
    for name, game, params, _, qpe_thesis, efpe_thesis in INSTANCES:
        if args.only and args.only not in name:
            continue
        for refinement, thesis in (("qpe", qpe_thesis), ("efpe", efpe_thesis)):
            if refinement not in chosen:
                continue
            child = run_isolated("benchmarks.bench_refinements:run_case",
                                 {"game": game, "params": params, "refinement": refinement,
                                  "time_limit": args.max_seconds},
                                 timeout=args.max_seconds + 120)
            if child.status != "ok":
                print(f"{name:<6} {refinement:<5} {child.status}: {child.error[:90]}")
                continue
            d = child.data
            where = f"{d['found_at']} ({d['basis_by']})" if d["status"] == "certified" \
                else f"smallest {d['found_at']}"
            eps = d["certified_on"] or "Taylor" if d["status"] == "certified" else "-"
            if len(eps) > 10:
                eps = f"{float(Fraction(eps)):.2e}"
            print(f"{name:<6} {refinement:<5} {d['status']:<10} {where:<42} {eps:<10} "
                  f"{d['highs']:>8.2f} {d['exact_simplex']:>9.2f} {d['stability']:>8.2f} "
                  f"{d['limit']:>8.2f} {d['seconds']:>8.2f} {str(d['checks']):<7} {str(d['same_value']):<6} "
                  f"{thesis[0]} ({thesis[1]})")
            table.append([name, refinement, d["status"], where, round(d["highs"], 3),
                          round(d["exact_simplex"], 3), round(d["stability"], 3),
                          round(d["limit"], 3), round(d["seconds"], 3), thesis[0]])
    if args.save:
        _save(table, argv)
    if args.no_openspiel:
        return
    print("\nOpenSpiel perturbed LP (eps = 1e-8, CVXPY/ECOS) vs lpgame's exact QPE, off-path play:")
    for name, _, _, spiel_name, _, _ in INSTANCES:
        if spiel_name is None or (args.only and args.only not in name):
            continue
        child = run_isolated("benchmarks.bench_refinements:run_openspiel",
                             {"game": spiel_name, "time_limit": args.max_seconds},
                             timeout=args.max_seconds + 300)
        if child.status != "ok":
            print(f"{name:<6} {child.status}: {child.error[:120]}")
            continue
        d = child.data
        if d["status"] != "certified":
            print(f"{name:<6} OpenSpiel {d['openspiel_seconds']:.2f} s; lpgame QPE {d['status']}: no "
                  "exact limit to compare its off-path play with")
            continue
        print(f"{name:<6} OpenSpiel {d['openspiel_seconds']:.2f} s; lpgame QPE {d['status']} in "
              f"{d['ours_limit']:.2f} s (limit loop), {d['ours_seconds']:.2f} s with its checks "
              f"({d['ours_seconds'] / d['openspiel_seconds']:.1f}x OpenSpiel); "
              f"{d['off_path_sets']} off-path information sets, largest |difference| "
              f"{d['max_difference']:.3g}, {d['differing_sets']} differ by more than 1e-3")


def _save(table: list[list], argv: list[str] | None) -> None:
    """Write the table as a benchmark result (:mod:`benchmarks.results_io`)."""
    from benchmarks import results_io
    path = results_io.save(results_io.result(
        "bench_refinements", results_io.command("benchmarks.bench_refinements", argv),
        ["game", "refinement", "status", "stable at ξ (by)", "HiGHS s", "exact simplex s",
         "stability s", "limit loop s", "total s", "thesis C++ (Table 13.1)"], table,
        "Exact QPE/EFPE (module docstring of benchmarks/bench_refinements.py). 'limit loop s' is "
        "what the thesis's Ch 13 column times (HiGHS, exact simplex at ξ, stability test); "
        "'total s' adds building the game and LP and the independent certificate. The thesis ran "
        "C++ single-threaded at 2.4 GHz; ours ran on a shared, loaded 2-core machine."))
    print(f"saved {path}")


if __name__ == "__main__":
    main()
