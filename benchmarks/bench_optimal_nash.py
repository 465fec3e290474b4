"""Optimal Nash (MILP) and Stackelberg timings, next to the enumeration a user would otherwise run.

Run from the repository root::

    python -m benchmarks.bench_optimal_nash [--timeout S] [--sizes 4,6,8,...]

**Optimal Nash.** On random n × n bimatrix games (integer payoffs in [−9, 9], seed 0) the best
welfare of a Nash equilibrium is found two ways: lpgame's MILP (Sandholm, Gilpin & Conitzer 2005;
:mod:`lpgame.equilibria.general_sum.optimal_nash`; HiGHS branch and bound to a proven optimum,
then the LP with the support fixed) and, as the peer, the maximum over every extreme equilibrium that Gambit's
``enummixed_solve(rational=True)`` enumerates (and nashpy's ``vertex_enumeration`` in floats). The
optimum must agree to 1e-9. Each case runs in its own process (:mod:`benchmarks.isolated`) with a
wall-clock limit; a peer that does not finish is reported "timeout" and is not run on larger sizes.
Kuhn poker with a 10 % rake, 3 to 5 cards, gives the extensive-form rows (MILP only).

**Stackelberg.** The same bimatrix games with player 1 leading: one LP per follower strategy
(Conitzer & Sandholm 2006) against the MILP (Bošanský & Čermák 2015) on the one-level tree.

**What the proofs cost** (issue 34). Every row says whether its optimum is proven: in floating
point by the MILP's dual bound (optimal Nash) or by the duals of every commitment LP
(Stackelberg; the MILP's answer is checked by the multiple LPs on the reduced normal form); in
exact mode by enumerating all extreme equilibria (optimal Nash, small games only) or by every
commitment LP certified in rationals (Stackelberg).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __package__ in (None, ""):        # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.isolated import run_isolated  # noqa: E402


def _bimatrix(n: int):
    import numpy as np

    from lpgame.game.normal_form import NormalFormGame
    payoffs = np.random.default_rng(0).integers(-9, 10, size=(2, n, n))
    return NormalFormGame(payoffs, name=f"random {n}x{n}")


def case_milp(n: int) -> dict:
    import time

    from lpgame.compile import compile_game
    from lpgame.equilibria.general_sum.optimal_nash import solve_optimal_nash
    start = time.perf_counter()
    r = solve_optimal_nash(compile_game(_bimatrix(n)), "welfare", beside_ce=False)
    return {"welfare": float(sum(r.values)), "seconds": time.perf_counter() - start,
            "nodes": r.extra["milp"]["nodes"], "nash_conv": float(r.certificate.nash_conv),
            "proven": r.extra["optimality"]["proven"]}


def case_milp_exact(n: int) -> dict:
    """Exact mode: the support LP certified in rationals, and the optimum proven by enumerating
    the extreme equilibria where the game is small enough (issue 34)."""
    import time

    from lpgame.compile import compile_game
    from lpgame.equilibria.general_sum.optimal_nash import solve_optimal_nash
    start = time.perf_counter()
    r = solve_optimal_nash(compile_game(_bimatrix(n)), "welfare", exact=True, beside_ce=False)
    optimality = r.extra["optimality"]
    return {"welfare": str(sum(r.values)), "seconds": time.perf_counter() - start,
            "proof_seconds": optimality.get("seconds"), "proven": optimality["proven"]}


def case_gambit(n: int) -> dict:
    import time
    from fractions import Fraction

    import pygambit as gbt
    game = _bimatrix(n)
    start = time.perf_counter()
    g = gbt.Game.from_arrays(game.payoffs[0].astype(int), game.payoffs[1].astype(int))
    players = list(g.players)
    eqs = gbt.nash.enummixed_solve(g, rational=True).equilibria
    best = max(sum(Fraction(str(e.payoff(p))) for p in players) for e in eqs)
    return {"welfare": float(best), "seconds": time.perf_counter() - start, "equilibria": len(eqs)}


def case_nashpy(n: int) -> dict:
    import time

    import nashpy
    game = _bimatrix(n)
    a, b = game.payoffs[0].astype(float), game.payoffs[1].astype(float)
    start = time.perf_counter()
    eqs = list(nashpy.Game(a, b).vertex_enumeration())
    best = max(float(x @ a @ y + x @ b @ y) for x, y in eqs)
    return {"welfare": best, "seconds": time.perf_counter() - start, "equilibria": len(eqs)}


def case_kuhn_rake(cards: int) -> dict:
    import time

    from lpgame.compile import compile_game
    from lpgame.equilibria.general_sum.optimal_nash import solve_optimal_nash
    from lpgame.games import make
    start = time.perf_counter()
    sf = compile_game(make("kuhn_poker_rake", rake=0.1, cards=cards))
    best = solve_optimal_nash(sf, "welfare", exact=True, beside_ce=False)
    worst = solve_optimal_nash(sf, "welfare", worst=True, exact=True, beside_ce=False)
    return {"best": str(sum(best.values)), "worst": str(sum(worst.values)),
            "binaries": best.size["integers"], "seconds": time.perf_counter() - start,
            "nash_conv": str(best.certificate.nash_conv)}


def case_stackelberg(n: int, method: str, exact: bool = False) -> dict:
    import time
    from fractions import Fraction

    from lpgame.equilibria.general_sum.stackelberg import solve_stackelberg
    start = time.perf_counter()
    r = solve_stackelberg(_bimatrix(n), leader=1, method=method, exact=exact)
    return {"leader_value": float(Fraction(r.extra["leader_value"])),
            "seconds": time.perf_counter() - start, "proven": r.extra["optimality"]["proven"]}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per case")
    parser.add_argument("--sizes", default="4,6,8,10,12,14,16", help="bimatrix sizes n")
    parser.add_argument("--cards", default="3,4,5", help="Kuhn-with-rake deck sizes")
    parser.add_argument("--no-peers", action="store_true", help="lpgame only (no Gambit, nashpy)")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    module = "benchmarks.bench_optimal_nash"

    print("best Nash welfare, random n x n bimatrix games (seconds; welfare)")
    print(f"{'n':>4} {'lpgame MILP':>22} {'Gambit enummixed':>26} {'nashpy vertex':>24}  agree")
    stopped = {"gambit", "nashpy"} if args.no_peers else set()
    for n in sizes:
        row = {}
        for name, fn in (("milp", "case_milp"), ("gambit", "case_gambit"), ("nashpy", "case_nashpy")):
            if name in stopped:
                row[name] = None
                continue
            res = run_isolated(f"{module}:{fn}", {"n": n}, timeout=args.timeout)
            row[name] = res.data if res.status == "ok" else res.status
            if res.status != "ok":
                stopped.add(name)
        cells = []
        for name in ("milp", "gambit", "nashpy"):
            d = row[name]
            if isinstance(d, dict):
                extra = f" ({d['nodes']} nodes)" if "nodes" in d else f" ({d['equilibria']} eq)"
                cells.append(f"{d['seconds']:.3f}{extra}; {d['welfare']:.6g}")
            else:
                cells.append(str(d or "-"))
        values = [row[k]["welfare"] for k in ("milp", "gambit") if isinstance(row[k], dict)]
        agree = "yes" if len(values) == 2 and abs(values[0] - values[1]) <= 1e-9 else "-"
        print(f"{n:>4} {cells[0]:>22} {cells[1]:>26} {cells[2]:>24}  {agree}", flush=True)

    print("\nexact mode, best welfare with its proof (seconds; proof seconds; proven)")
    for n in sizes:
        res = run_isolated(f"{module}:case_milp_exact", {"n": n}, timeout=args.timeout)
        d = res.data
        print(f"  n={n:>3}: " + (f"{d['seconds']:.3f} s; proof {d['proof_seconds'] or 0:.3f} s; "
                                 f"proven {d['proven']}" if res.status == "ok" else res.status),
              flush=True)

    print("\nKuhn poker with a 10% rake: best and worst equilibrium welfare, exact")
    for cards in [int(c) for c in args.cards.split(",")]:
        res = run_isolated(f"{module}:case_kuhn_rake", {"cards": cards}, timeout=args.timeout)
        d = res.data
        print(f"  cards={cards}: " + (f"best {d['best']}, worst {d['worst']}, {d['binaries']} "
                                      f"binaries, {d['seconds']:.2f} s, NashConv {d['nash_conv']}"
                                      if res.status == "ok" else res.status), flush=True)

    print("\nStackelberg (player 1 leads), random n x n: multiple LPs vs MILP, each with its "
          "optimality proof (seconds; value; proven)")
    for n in sizes:
        cells = []
        for method, exact in (("multiple_lps", False), ("milp", False), ("multiple_lps", True),
                              ("milp", True)):
            res = run_isolated(f"{module}:case_stackelberg",
                               {"n": n, "method": method, "exact": exact}, timeout=args.timeout)
            cells.append(f"{res.data['seconds']:.3f}; {res.data['leader_value']:.6g}; "
                         f"{'proven' if res.data['proven'] else 'NOT proven'}"
                         if res.status == "ok" else res.status)
        print(f"  n={n:>3}: LPs {cells[0]:>26}   MILP {cells[1]:>26}\n"
              f"         exact LPs {cells[2]:>20}   exact MILP {cells[3]:>20}", flush=True)


if __name__ == "__main__":
    main()
