"""The public entry points: :func:`solve`, :func:`evaluate`, :func:`compile_game`, :func:`concepts`.

``solve(game, concept="nash")`` runs the whole flow of DESIGN.md: game → SequenceForm → the
concept's program (one registered module of :mod:`lpgame.equilibria` per concept, found through
:mod:`lpgame.registry`) → backend → result, with a certificate computed by the independent path of
:mod:`lpgame.analysis`. An entry registered with ``reads_source`` (found by
:func:`lpgame.registry.source_entry` from the concept and options alone) gets the game as given,
unexpanded, and builds what it needs from it; the result comes back the same way.

Example
-------
>>> import lpgame
>>> result = lpgame.solve(lpgame.games.make("kuhn_poker"), exact=True)
>>> result.value
Fraction(-1, 18)
>>> result.certificate.nash_conv
Fraction(0, 1)
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Sequence

from lpgame import registry
from lpgame.analysis.exploitability import Evaluation, evaluate_strategies
from lpgame.compile import as_game, compile_game, load_game
from lpgame.errors import LpgameError, OptionError, UnknownSolverError
from lpgame.game import NormalFormGame
from lpgame.registry import GameInfo
from lpgame.result import SolveResult
from lpgame.sequence_form import SequenceForm

ABSTRACTIONS = ("gameshrink",)
BACKENDS = ("highs", "pyomo", "cvxpy")

def load_concepts() -> None:
    """Import every module of :mod:`lpgame.equilibria` once; each registers its concepts."""
    registry.load_builtin_concepts()


def concepts() -> list[registry.Concept]:
    """Every registered concept entry (see :mod:`lpgame.registry`)."""
    load_concepts()
    return registry.concepts()


def game_info(game) -> GameInfo:
    """Players, zero-sum or not, normal form or not: what concept dispatch needs (read once per
    game object and kept on it beside its flat index, which does not change)."""
    held = getattr(game, "__dict__", None)
    index = getattr(game, "index", None)
    if held is not None and index is not None:
        kept = held.get("_lpgame_game_info")
        if kept is not None and kept[0] is index and kept[1].name == getattr(game, "name", None):
            return kept[1]
        info = _game_info(game)
        held["_lpgame_game_info"] = (index, info)
        return info
    return _game_info(game)


def _game_info(game) -> GameInfo:
    normal_form = isinstance(game, NormalFormGame)
    if normal_form:
        tree = game.to_extensive()
    else:
        tree = game.game if isinstance(game, SequenceForm) else as_game(game)
    spread = tree.payoff_range()
    # beyond floats (exact payoffs such as 10**400) the sums are compared exactly
    zero_sum = tree.num_players == 2 and tree.is_constant_sum(
        tol=1e-9 * spread if math.isfinite(spread) else 0.0)
    return GameInfo(tree.name, tree.num_players, bool(zero_sum), normal_form=normal_form)


def solve(game, concept: str = "nash", exact: bool = False, backend: str = "highs",
          abstraction: str | None = None, progress=None, **options) -> SolveResult:
    """Solve ``game`` for a registered solution concept and certify the answer.

    Parameters
    ----------
    game:
        A Game, NormalFormGame, rules object, SequenceForm, catalog name or game file path.
    concept:
        A registered concept (``lpgame concepts`` lists them, with the games each accepts, its
        options and its source): ``"nash"`` (two-player zero-sum: the sequence-form LP or the
        double oracle), ``"maximin"``, ``"ce"``, ``"cce"``, ``"efce"``, ``"efcce"``, ``"nfcce"``,
        and those that later modules register. The entry is chosen by the game's class
        (zero-sum, general-sum, n players, normal form) and the options given.
    exact:
        Return :class:`fractions.Fraction` values certified in rational arithmetic (concepts
        that support it).
    backend:
        ``"highs"`` (default), ``"pyomo"`` or ``"cvxpy"`` (both solve with HiGHS).
    abstraction:
        ``"gameshrink"``: shrink a game with ordered signals losslessly first, solve the
        abstract game with the concept, lift the strategies and certify them in the original
        game (:mod:`lpgame.abstraction.solve`); for concepts whose certificate lifts (nash,
        maximin).
    progress:
        Show the progress of long work (:mod:`lpgame.progress`: tree expansion, the solver's
        iterations, double-oracle and column-generation rounds): True draws a live line on
        standard error when it is a terminal, a callable receives ``(what, figures)``, False
        silences. None (the default) leaves it to the reporter installed around the call, if any:
        the library is quiet unless asked.
    options:
        The concept's own options (``algorithm``, ``objective``, ...) and the solver's
        (``solver``, ``threads``, ``time_limit``, ...).

    Raises
    ------
    OptionError
        An unknown concept or option, or an option of the wrong type.
    ConceptMismatchError
        The game does not fit the concept; the message names the concepts that do.
    """
    if progress is not None:
        from lpgame.progress import reporting
        with reporting(progress):
            return solve(game, concept, exact, backend, abstraction, None, **options)
    start = time.perf_counter()
    load_concepts()
    if not isinstance(exact, bool):
        raise OptionError(f"exact must be True or False; got {exact!r}")
    if backend not in BACKENDS:
        raise UnknownSolverError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    solver_options = _solver_options(options)
    try:
        shown = game.name
    except AttributeError:          # str() of a game object describes it: made only when needed
        shown = str(game)
    reader = registry.source_entry(concept, options, shown)
    if reader is not None:      # the entry reads the game as given: it is not expanded here
        if abstraction is not None:
            chosen = f", selected by {', '.join(reader.requires)}," if reader.requires else ""
            raise OptionError(f"{concept} [{reader.variant}]{chosen} solves the game from its "
                              f"source itself; abstraction={abstraction!r} does not apply to it: "
                              "leave out abstraction")
        result = _run(reader, game, exact, backend, options, solver_options)
        result.seconds["total"] = time.perf_counter() - start
        return result
    if abstraction is not None:
        return _solve_abstracted(game, concept, exact, backend, abstraction, options,
                                 solver_options, start)
    game = load_game(game)
    if not isinstance(game, (NormalFormGame, SequenceForm)):
        game = as_game(game)        # expand rules objects once, not once per stage
    info = game_info(game)
    entry = registry.select(concept, info, options)
    result = _run(entry, game, exact, backend, options, solver_options)
    result.seconds["total"] = time.perf_counter() - start
    return result


def _run(entry: registry.Concept, game, exact: bool, backend: str, options: dict,
         solver_options: dict) -> SolveResult:
    if exact and not entry.exact:
        exact_ones = sorted({c.name for c in registry.concepts() if c.exact})
        raise OptionError(f"exact (rational) mode is not available for concept {entry.name!r}; "
                          "solve in floating point (the certificate is reported), or use one of "
                          + ", ".join(exact_ones))
    if backend not in entry.backends:
        raise OptionError(f"concept {entry.name!r} solves with backend "
                          f"{' or '.join(entry.backends)}, not {backend!r}")
    chosen = solver_options.get("solver")
    if chosen is not None and entry.solvers is not None and chosen not in entry.solvers:
        uses = (f"uses HiGHS's {' or '.join(entry.solvers)}" if entry.solvers
                else "chooses HiGHS's method itself")
        raise OptionError(f"concept {entry.name!r} ({entry.variant}) {uses}; solver={chosen!r} "
                          "does not apply to it")
    own = registry.checked_options(entry, options)
    return entry.solve(game, exact=exact, backend=backend, **own, **solver_options)


def _solve_abstracted(game, concept: str, exact: bool, backend: str, abstraction: str,
                      options: dict, solver_options: dict, start: float) -> SolveResult:
    from lpgame.abstraction.solve import check_abstraction_name, solve_with_abstraction

    check_abstraction_name(abstraction)
    # GameShrink takes two-player games with ordered signals, zero-sum by construction (the
    # stronger hand takes the pot): dispatch as for such a game, which is not built yet
    entry = registry.select(concept, GameInfo(str(game), 2, True), options)
    if not entry.liftable:
        liftable = sorted({c.name for c in registry.concepts() if c.liftable})
        raise OptionError(f"abstraction={abstraction!r} wraps concepts whose certificate lifts "
                          f"from the abstract game ({', '.join(liftable)}); not {concept!r}")
    own = registry.checked_options(entry, options)
    result = solve_with_abstraction(game, entry, abstraction, exact, backend, **own,
                                    **solver_options)
    result.seconds["total"] = time.perf_counter() - start
    return result


def _solver_options(options: dict) -> dict:
    """Pop and check the options every concept passes to the solver."""
    out = {}
    for key in registry.SOLVER_OPTIONS:
        if key in options:
            out[key] = options.pop(key)
    if "time_limit" in out and out["time_limit"] is not None:
        t = out["time_limit"]
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not t >= 0 or t != t:
            raise OptionError(f"time_limit must be a non-negative number of seconds; got "
                              f"{registry.show_value(t)}")
    if "threads" in out and out["threads"] is not None:
        t = out["threads"]
        cores = os.cpu_count() or 1
        if isinstance(t, bool) or not isinstance(t, int) or not 1 <= t <= 4 * cores:
            raise OptionError(f"threads must be an integer from 1 to {4 * cores} (this machine has "
                              f"{cores} cores); got {registry.show_value(t)}")
    if "solver" in out and out["solver"] is not None:
        from lpgame.lp.highs_backend import SOLVERS
        choices = (*SOLVERS, "clarabel")
        if out["solver"] not in choices:
            raise UnknownSolverError(f"unknown HiGHS solver {out['solver']!r}; choose one of "
                                     f"{', '.join(choices)}")
    return {k: v for k, v in out.items() if v is not None}


def evaluate(game, strategies: Sequence, exact: bool = False) -> Evaluation:
    """Values, best-response gains, NashConv and exploitability of a strategy profile.

    ``strategies`` is one ``{information set: {action: probability}}`` per player (or a
    :class:`~lpgame.result.Result`). Computed bottom-up on the sequence form, without any LP.
    """
    sf = compile_game(game)
    if isinstance(strategies, SolveResult):
        strategies = getattr(strategies, "strategies", None)
        if not strategies:
            raise LpgameError("this result holds no strategy profile to evaluate")
    if not isinstance(strategies, (list, tuple)) or len(strategies) != sf.num_players:
        got = len(strategies) if isinstance(strategies, (list, tuple)) else type(strategies).__name__
        raise LpgameError(f"{sf.game.name} has {sf.num_players} players; got {got} strategies")
    return evaluate_strategies(sf, strategies, exact=exact)


__all__ = ["solve", "evaluate", "compile_game", "as_game", "concepts", "load_concepts",
           "game_info"]
