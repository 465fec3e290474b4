"""lpgame: solve games exactly with linear programming.

The flow (DESIGN.md): a game (networkx tree, rules object, normal form, catalog name, game file)
is compiled to its :class:`~lpgame.sequence_form.SequenceForm`; a solution concept from the
registry (:mod:`lpgame.registry`, ``lpgame.concepts()``) is formulated as a
:class:`~lpgame.lp.LinearProgram` (or a loop of them); HiGHS (or Clarabel, Pyomo, CVXPY) solves it;
the answer comes back as a :class:`~lpgame.result.SolveResult` with values, strategies or a
distribution, the solver that ran and a certificate computed independently.

Names resolve on first use (PEP 562), so ``import lpgame`` is quick and a command-line run can
answer Ctrl-C cleanly from its first moment; ``lpgame.draw``, ``lpgame.learning``,
``lpgame.analysis.verify`` and the other submodules resolve the same way.

>>> import lpgame
>>> lpgame.solve(lpgame.games.make("rock_paper_scissors"), exact=True).value
Fraction(0, 1)
"""

from lpgame.errors import (
    ConceptMismatchError,
    ExactCheckError,
    GameFileError,
    InvalidGameError,
    LpgameError,
    ModelTooLargeError,
    OptionError,
    SolverError,
    SolverTimeLimitError,
    StrategyError,
    UnknownGameError,
)
from lpgame.moved_modules import install as _install_moved_modules

__version__ = "0.2.0"
_install_moved_modules()

_PUBLIC = {
    "solve": "lpgame.api", "evaluate": "lpgame.api", "compile_game": "lpgame.api",
    "as_game": "lpgame.api", "concepts": "lpgame.api",
    "Game": "lpgame.game", "GameBuilder": "lpgame.game", "GameRules": "lpgame.game",
    "NormalFormGame": "lpgame.game", "expand": "lpgame.game",
    "SequenceForm": "lpgame.sequence_form",
    "Result": "lpgame.result", "SolveResult": "lpgame.result", "Certificate": "lpgame.result",
    "sweep": "lpgame.sweep",
}

__all__ = [*_PUBLIC, "games", "LpgameError", "InvalidGameError", "GameFileError",
           "UnknownGameError", "StrategyError", "SolverError", "SolverTimeLimitError",
           "ModelTooLargeError", "ExactCheckError", "OptionError", "ConceptMismatchError"]


def __getattr__(name: str):
    """Public names and submodules, imported on first use."""
    import importlib
    if name not in _PUBLIC:
        from lpgame.lazy import import_submodule
        return import_submodule(__name__, name, globals())
    module = importlib.import_module(_PUBLIC[name])
    value = getattr(module, name) if name != "sweep" or hasattr(module, "sweep") else module
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
