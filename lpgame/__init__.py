"""lpgame: solve games exactly with linear programming.

The flow (DESIGN.md): a game (networkx tree, rules object, normal form, catalog name, game file)
is compiled to its :class:`~lpgame.sequence_form.SequenceForm`; a solution concept is formulated
as a :class:`~lpgame.lp.LinearProgram`; HiGHS (or Pyomo/CVXPY) solves it; the answer comes back as
a :class:`~lpgame.result.Result` with value, strategies and a certificate computed independently.

>>> import lpgame
>>> lpgame.solve(lpgame.games.make("rock_paper_scissors"), exact=True).value
Fraction(0, 1)
"""

from lpgame import games
from lpgame.api import as_game, compile_game, evaluate, solve
from lpgame.errors import (
    ExactCheckError,
    GameFileError,
    InvalidGameError,
    LpgameError,
    ModelTooLargeError,
    SolverError,
    SolverTimeLimitError,
    StrategyError,
    UnknownGameError,
)
from lpgame.game import Game, GameBuilder, GameRules, NormalFormGame, expand
from lpgame.result import Certificate, Result
from lpgame.sequence_form import SequenceForm

__version__ = "0.1.0"

__all__ = ["solve", "evaluate", "compile_game", "as_game", "games", "Game", "GameBuilder",
           "GameRules", "NormalFormGame", "expand", "SequenceForm", "Result", "Certificate",
           "LpgameError", "InvalidGameError", "GameFileError", "UnknownGameError",
           "StrategyError", "SolverError", "SolverTimeLimitError", "ModelTooLargeError",
           "ExactCheckError"]
