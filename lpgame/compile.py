"""Anything a user passes → a game with a flat index → its :class:`~lpgame.sequence_form.SequenceForm`.

This is the "compile" stage of DESIGN.md: it sits below the solution concepts, so that
:mod:`lpgame.equilibria`, :mod:`lpgame.abstraction` and :mod:`lpgame.analysis` compile games without
importing :mod:`lpgame.api`.

>>> from lpgame.compile import compile_game
>>> compile_game("kuhn_poker").num_sequences(0)
13
"""

from __future__ import annotations

from pathlib import Path

from lpgame.errors import InvalidGameError
from lpgame.game import GameRules, NormalFormGame, expand
from lpgame.game.tree import IndexedGame
from lpgame.sequence_form import SequenceForm


def load_game(game):
    """A catalog name or game file path loaded (:func:`lpgame.games.load`); anything else as is."""
    if isinstance(game, (str, Path)):
        from lpgame.games import load
        return load(str(game))
    return game


def as_game(game) -> IndexedGame:
    """A game with a flat index (a :class:`~lpgame.game.Game` or a structured game) from a Game,
    NormalFormGame, rules object, catalog name or game file path."""
    if isinstance(game, IndexedGame):
        return game
    if isinstance(game, NormalFormGame):
        return game.to_extensive()
    if isinstance(game, (str, Path)):
        return as_game(load_game(game))
    if isinstance(game, GameRules):
        return expand(game)
    from lpgame.abstraction.ordered_game import OrderedSignalGame
    if isinstance(game, OrderedSignalGame):
        return game.compile()   # refuses (ModelTooLargeError) games too large, e.g. Rhode Island
    raise InvalidGameError(f"cannot make a game out of {type(game).__name__}")


def compile_game(game) -> SequenceForm:
    """The sequence form of anything :func:`as_game` accepts (built once per game object:
    :meth:`SequenceForm.of <lpgame.sequence_form.SequenceForm.of>`)."""
    if isinstance(game, SequenceForm):
        return game
    return SequenceForm.of(as_game(game))
