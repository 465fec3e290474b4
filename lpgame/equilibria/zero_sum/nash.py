"""Nash equilibrium of a two-player zero-sum (or constant-sum) game by the sequence-form LP.

The LP is :func:`lpgame.equilibria.zero_sum.security.security_lp` for player 1 with U = U_1
(Koller, Megiddo & von Stengel 1996; notes/farina-thesis.md §1.4):

    max f_2ᵀ v   s.t.   F_1 x = f_1,   F_2ᵀ v − U_1ᵀ x ≤ 0,   x ≥ 0.

Its optimum v[∅] is the value for player 1, its primal x is player 1's equilibrium realization plan
and the duals of the second block are player 2's (the minimax theorem makes the pair an
equilibrium). A constant-sum game (u_1 + u_2 = c) has the same equilibria as the zero-sum game
(u_1, −u_1), so the same LP applies and the value is still player 1's.

In exact mode the optimal basis is certified in rational arithmetic (:mod:`lpgame.lp.exact`) and
the profile's NashConv is recomputed exactly by best responses; it must be exactly 0.
"""

from __future__ import annotations

import numpy as np

from lpgame.equilibria.zero_sum.double_oracle import solve_zero_sum_double_oracle
from lpgame.equilibria.zero_sum.security import SecurityLP, security_lp
from lpgame.equilibria.zero_sum.solution import ZeroSumSolution, check_two_player_constant_sum
from lpgame.errors import ExactCheckError
from lpgame.lp import solve_lp, solve_lp_exact
from lpgame.lp.linear_program import KEEP_NONZEROS
from lpgame.sequence_form import SequenceForm


def nash_lp(sf: SequenceForm, exact: bool = False) -> SecurityLP:
    """The sequence-form LP of the module docstring, with the check that the game is two-player
    constant-sum first. Up to :data:`~lpgame.lp.linear_program.KEEP_NONZEROS` it is built once per
    game (kept on ``sf`` by :meth:`~lpgame.sequence_form.SequenceForm.derived`), and again if
    someone has since added blocks to the kept LP."""
    def build():
        check_two_player_constant_sum(sf, exact)
        built = security_lp(sf, player=0, exact=exact)
        return built, built.lp.structure()

    return sf.derived(("nash_lp", exact), build,
                      valid=lambda held: held[0].lp.same_structure(held[1]),
                      keep=lambda held: held[0].lp.size()["nnz"] <= KEEP_NONZEROS)[0]


def solve_zero_sum(sf: SequenceForm, exact: bool = False, backend: str = "highs",
                   **options) -> ZeroSumSolution:
    """Solve the sequence-form LP (see module docstring)."""
    built = nash_lp(sf, exact)
    lp = built.lp
    if exact:
        if backend != "highs":
            raise ExactCheckError("exact mode reads HiGHS's optimal basis: use backend='highs'")
        options.setdefault("solver", "simplex")
        solution, certified = solve_lp_exact(lp, backend=backend,
                                             **built.solve_options(options, backend))
        x_exact = certified.values(lp, "x")
        y_exact = certified.duals(lp, "best_response")
        if y_exact[0] != 1:
            raise ExactCheckError(f"exact mode: player 2's plan has y[∅] = {y_exact[0]}, not 1")
        value = built.value(certified.objective)
        return ZeroSumSolution(value, [x_exact, y_exact], lp, solution, True,
                               exact_path=certified.path)
    solution = solve_lp(lp, backend=backend, **built.solve_options(options, backend))
    x = np.maximum(solution.values("x"), 0.0)
    y = np.maximum(solution.duals("best_response"), 0.0)
    return ZeroSumSolution(built.value(solution.objective), [x, y], lp, solution, False)


# ------------------------------------------------------------------------------ registry entry
def solve_nash(game, *, exact: bool = False, backend: str = "highs", algorithm: str = "lp",
               checkpoint: str | None = None, initial_sequences=None, **options):
    """``lpgame.solve(game, concept="nash")`` on a two-player zero-sum game: the sequence-form LP
    (``algorithm="lp"``) or the double oracle (:mod:`lpgame.equilibria.zero_sum.double_oracle`).

    The reported ``value`` is the value of the returned profile, evaluated by the independent
    best-response path; the LP's objective is kept in ``extra["lp_objective"]`` and their
    difference in ``certificate.extra["value_gap"]`` (0 in exact mode, where they must agree).
    """
    import time

    from lpgame.compile import compile_game
    from lpgame.equilibria.profiles import certified_profile, relative
    from lpgame.errors import OptionError, SolverTimeLimitError
    from lpgame.lp.solution import solver_report
    from lpgame.result import Result

    start = time.perf_counter()
    sf = compile_game(game)
    extra: dict = {}
    if algorithm == "double_oracle":
        if checkpoint is not None:
            options["checkpoint"] = checkpoint
        if initial_sequences is not None:
            options["initial_sequences"] = initial_sequences
        sol = solve_zero_sum_double_oracle(sf, exact=exact, backend=backend, **options)
        last = sol.rounds[-1]
        extra["double_oracle"] = {
            "rounds": len(sol.rounds), "kept_sequences": list(last.kept_sequences),
            "sequences": [sf.num_sequences(0), sf.num_sequences(1)],
            "bounds": [last.lower, last.upper]}
    elif algorithm == "lp":
        if checkpoint is not None or initial_sequences is not None:
            raise OptionError("--checkpoint is for --algorithm double_oracle (checkpoint and "
                              "initial_sequences are options of algorithm='double_oracle'; "
                              "--method operator_cfr also takes a checkpoint folder)")
        try:
            sol = solve_zero_sum(sf, exact=exact, backend=backend, **options)
        except SolverTimeLimitError as error:   # name the other algorithm for large trees
            raise SolverTimeLimitError(
                f"{error} (where the equilibrium uses a small part of a large tree, as in Dudo, "
                "algorithm='double_oracle' solves small restricted LPs instead)",
                error.status, error.size, error.best_bound, error.objective) from error
    else:
        raise OptionError(f"unknown algorithm {algorithm!r}; choose lp or double_oracle")
    strategies, unreached, plans, ev, cert = certified_profile(sf, sol.plans, exact)
    if exact:
        if ev.nash_conv != 0:
            raise ExactCheckError(
                f"exact mode: the certified basis gives a profile with exact NashConv "
                f"{ev.nash_conv}, not 0")
        if ev.values[0] != sol.value:
            raise ExactCheckError(f"exact mode: LP value {sol.value} differs from the profile's "
                                  f"exact value {ev.values[0]}")
    extra["lp_objective"] = sol.value
    cert.extra["value_gap"] = abs(sol.value - ev.values[0])
    cert.extra["relative_value_gap"] = relative(cert.extra["value_gap"], cert.extra["payoff_range"])
    if exact:
        cert.extra["exact_path"] = sol.exact_path or "reconstruction"
    seconds = ({"solve": sum(r.seconds for r in sol.rounds),
                "lp": sum(r.lp_seconds for r in sol.rounds)} if sol.rounds
               else {"solve": sol.lp_solution.seconds})
    seconds["total"] = time.perf_counter() - start
    return Result(
        game=sf.game.name, concept="nash", variant=algorithm, value=ev.values[0],
        values=list(ev.values), strategies=strategies, certificate=cert, size=sol.lp.size(),
        seconds=seconds, backend=backend, exact=exact, unreached=unreached, plans=plans,
        lp=sol.lp, extra=extra,
        solver=solver_report(sol.lp_solution, exact,
                             **({"algorithm": "double oracle"} if sol.rounds else {})))


def _sequence_form(game) -> SequenceForm:
    from lpgame.compile import compile_game
    return compile_game(game)


def _register() -> None:
    from lpgame.equilibria.profiles import certify_nash_plans
    from lpgame.registry import Concept, Option, register

    register(Concept(
        name="nash", variant="zero_sum", games=("zero_sum",), solve=solve_nash,
        summary="Nash equilibrium of a two-player zero-sum (or constant-sum) game: the "
                "sequence-form LP, or the double oracle for large trees with small support",
        certificate="each player's best-response gain (NashConv), by lpgame.analysis",
        source="Koller, Megiddo & von Stengel 1996; von Stengel 1996; notes farina-thesis.md "
               "§1.4; double oracle: McMahan, Gordon & Blum 2003, Bošanský et al. 2014",
        certify_plans=certify_nash_plans,
        value_only=lambda game, exact: solve_zero_sum(_sequence_form(game), exact=exact).value,
        options=(Option("algorithm", str, "lp", "lp (the whole sequence-form LP) or double_oracle "
                        "(restricted LPs grown by best responses; large trees such as Dudo)",
                        choices=("lp", "double_oracle")),
                 Option("checkpoint", str, None, "double oracle: rewrite PATH (.npz) with the kept "
                        "sequences after every round, and resume from it when it exists"),
                 Option("initial_sequences", object, None, "double oracle: a checkpoint file or "
                        "one index array per player to start from", cli=False))))


_register()
