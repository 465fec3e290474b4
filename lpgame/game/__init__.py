"""Game models: the explicit tree, the rules protocol, normal-form games, validation."""

from lpgame.game.normal_form import NormalFormGame
from lpgame.game.rules import CHANCE_PLAYER, TERMINAL_PLAYER, GameRules, expand
from lpgame.game.tree import (
    CHANCE,
    DECISION,
    TERMINAL,
    Game,
    GameBuilder,
    IndexedGame,
)

__all__ = ["Game", "IndexedGame", "GameBuilder", "GameRules", "expand", "NormalFormGame", "CHANCE",
           "DECISION", "TERMINAL", "CHANCE_PLAYER", "TERMINAL_PLAYER"]
