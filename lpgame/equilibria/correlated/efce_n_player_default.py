"""The default optimal EFCE of a game with three or more players: the exact LP over the correlation
DAG where the DAG is small, column generation over joint pure plans otherwise.

**Formulations.** Both entries this one chooses between solve the same problem, Farina 2023
Def. 8.2 with the trigger constraints of Lemma 9.2 / Prop. 9.1 (notes/farina-thesis.md §1.6, §1.8):

* :mod:`~lpgame.equilibria.correlated.efce_correlation_dag` — one LP over the flows of the
  correlation DAG (Zhang, Farina, Celli & Sandholm, EC 2022 / MOR 2025), exact, certified on both
  sides (``method="correlation_dag"``);
* :mod:`~lpgame.equilibria.correlated.efce_n_player` — column generation with a MILP pricing
  oracle (``method="column_generation"``).

**The rule** (measured, benchmarks/bench_correlation_dag.py against bench_efce_three_player.py,
max P1 to the exact optimum, same machine): the DAG LP took GL33 5 s where column generation had
not proven the optimum in 190 s, D32 31 s against 58 s, K33 0.6 s against 0.6 s, but K34 16 s
against 4 s; K35 (305,319 prescriptions, an LP of 8.1 M nonzeros) and L3132 (1.4 M
prescriptions) did not finish in 5 minutes. So the DAG is built first with the cap
``max_dag_edges`` (default :data:`AUTO_MAX_EDGES`, which holds D32, GL33 and K34 but not K35);
past the cap, on a game that is not timeable for all its players, or where HiGHS runs out of
memory on the LP (:class:`~lpgame.errors.SolverMemoryError`, a ``ModelTooLargeError``), column
generation runs instead and the result's ``extra["default_rule"]`` says why.

**The decision is a prediction.** The construction counts the prescriptions of every belief it
has *found* (queued, not yet expanded) — all of them are in the DAG, so the sum is a sound lower
bound on its size — and refuses as soon as that bound passes the cap. Breadth first, the beliefs
found run well ahead of those expanded, so the refusal comes early: K35 falls back after about
1 s of construction (12,066 beliefs found, at least 150,356 prescriptions) where it built 150,000
prescriptions first before (11–40 s). The exact size is
:func:`~lpgame.equilibria.correlated.correlation_dag.count_correlation_dag`, which costs about as
much as the construction, so the rule does not run it first.

Any option of column generation (``target_gap``, ``max_columns``, ...) or a ``time_limit`` (column
generation returns a labelled partial answer at it; the LP has none) selects column generation
directly, as before this entry existed.

Two-player games keep the correlation-plan LP (:mod:`~lpgame.equilibria.correlated.efce_exact`);
this entry refuses them with the methods that take the options given.
"""

from __future__ import annotations

from lpgame.compile import as_game
from lpgame.equilibria.correlated import efce_n_player
from lpgame.equilibria.correlated.efce_correlation_dag import solve_correlation_dag
from lpgame.errors import InvalidGameError, ModelTooLargeError, OptionError
from lpgame.registry import Concept, Option, entries, register

AUTO_MAX_EDGES = 150_000
"""The default entry's cap on the correlation DAG's prescriptions (module docstring)."""

_COLUMN_GENERATION = next(c for c in entries("efce") if c.variant == "column_generation")
_CG_OPTIONS = tuple(o for o in _COLUMN_GENERATION.options if o.name not in ("method", "objective"))
_ = efce_n_player   # the column-generation entry is registered by importing its module


def solve_efce_default(game, *, exact: bool = False, backend: str = "highs", objective="welfare",
                       max_dag_edges: int = AUTO_MAX_EDGES, method: str | None = None, **options):
    """Optimal EFCE of a game with three or more players by the rule of the module docstring."""
    given = sorted(o.name for o in _CG_OPTIONS
                   if o.name in options and options[o.name] != o.default)
    if method == "correlation_dag" and given:
        raise OptionError(f"efce with method='correlation_dag' takes none of {', '.join(given)} "
                          "(options of method='column_generation')")
    g = as_game(game)
    if g.num_players == 2:
        raise OptionError(
            f"efce on the two-player game {g.name}: the default is the correlation-plan LP, which "
            f"takes none of {', '.join(given) or 'max_dag_edges'}; choose method='learning', "
            "'column_generation' or 'correlation_dag' for them")
    cg_only = {o.name for o in _CG_OPTIONS}
    if method == "column_generation" or (method is None and (
            given or options.get("time_limit") is not None)):
        return _COLUMN_GENERATION.solve(g, exact=exact, backend=backend, objective=objective,
                                        **options)
    solver_options = {k: v for k, v in options.items() if k not in cg_only}
    try:
        result = solve_correlation_dag(g, "efce", objective, exact, backend, max_dag_edges,
                                       **solver_options)
    except (ModelTooLargeError, InvalidGameError) as why:
        result = _COLUMN_GENERATION.solve(g, exact=exact, backend=backend, objective=objective,
                                          **options)
        result.extra["default_rule"] = f"column generation: the correlation DAG does not apply ({why})"
        return result
    result.extra["default_rule"] = (f"correlation DAG: {result.extra['dag']['edges']:,} "
                                    f"prescriptions, within the cap of {max_dag_edges:,}")
    return result


register(Concept(
    name="efce", variant="n_player_default", games=("n_player",),
    solve=solve_efce_default, exact=True, backends=("highs",),
    summary="optimal extensive-form correlated equilibrium of a game with three or more players: "
            "the exact correlation-DAG LP where the DAG is small, column generation otherwise "
            "(the default there)",
    certificate="largest gain of any trigger deviation of the returned distribution "
                "(lpgame.analysis.n_player_correlated_gaps); on the DAG path also the LP's dual "
                "bound recomputed from its data",
    source="Zhang, Farina, Celli & Sandholm, EC 2022 / MOR 2025 (correlation DAG); Farina 2023 "
           "Def. 8.2, Lemma 9.2 / Prop. 9.1",
    options=(Option("method", str, None, "three or more players: correlation_dag (the exact LP "
                    "over the correlation DAG) or column_generation; default: the DAG where it "
                    "fits max_dag_edges", choices=("column_generation", "correlation_dag")),
             _COLUMN_GENERATION.option("objective"),
             Option("max_dag_edges", int, AUTO_MAX_EDGES,
                    "default entry: build the correlation DAG up to this many prescriptions, "
                    "column generation past it", minimum=1)) + _CG_OPTIONS,
))
