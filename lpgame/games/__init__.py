"""The game catalog: ``lpgame.games.make(name, **params)``; see GAMES.md for the list."""

from lpgame.games.registry import catalog, load, make, parse_params, register

__all__ = ["make", "load", "catalog", "register", "parse_params"]
