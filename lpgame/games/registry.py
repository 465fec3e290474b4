"""The catalog registry: every game generator under one name, with typed keyword parameters.

A generator module registers itself with :func:`register`; :func:`make` builds a game by name
(``make("one_card_poker", N=12)``); :func:`load` also accepts a game file path; :func:`catalog`
lists names, parameters and defaults (``lpgame games``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lpgame.errors import UnknownGameError

_REGISTRY: dict[str, GameEntry] = {}


@dataclass
class GameEntry:
    name: str
    factory: Callable
    summary: str
    source: str

    def parameters(self) -> dict[str, object]:
        """Keyword parameters and their defaults."""
        sig = inspect.signature(self.factory)
        return {k: (None if p.default is inspect.Parameter.empty else p.default)
                for k, p in sig.parameters.items()}


def register(name: str, summary: str, source: str = "") -> Callable:
    """Decorator: register ``factory(**params)`` under ``name``."""
    def wrap(factory: Callable) -> Callable:
        _REGISTRY[name] = GameEntry(name, factory, summary, source)
        return factory
    return wrap


def catalog() -> dict[str, GameEntry]:
    _load_all()
    return dict(sorted(_REGISTRY.items()))


def make(name: str, **params):
    """Build catalog game ``name`` with keyword parameters (ints, strings, floats)."""
    _load_all()
    entry = _REGISTRY.get(name)
    if entry is None:
        raise UnknownGameError(
            f"unknown game {name!r}; known games: {', '.join(sorted(_REGISTRY))}")
    known = entry.parameters()
    unknown = [k for k in params if k not in known]
    if unknown:
        raise UnknownGameError(
            f"game {name!r} has no parameter(s) {unknown}; its parameters are "
            + (", ".join(f"{k}={v!r}" for k, v in known.items()) or "none"))
    return entry.factory(**params)


def parse_params(pairs: list[str]) -> dict[str, object]:
    """``["N=12", "deal=cards", "wild=true"]`` -> ``{"N": 12, "deal": "cards", "wild": True}``
    (ints, floats and true/false converted)."""
    out: dict[str, object] = {}
    for pair in pairs:
        if "=" not in pair:
            raise UnknownGameError(f"game parameter {pair!r} is not of the form key=value")
        key, value = pair.split("=", 1)
        if value.lower() in ("true", "false"):
            out[key] = value.lower() == "true"
            continue
        for convert in (int, float):
            try:
                out[key] = convert(value)
                break
            except ValueError:
                continue
        else:
            out[key] = value
    return out


def load(spec: str, **params):
    """A catalog name, or a path to a game file (``.efg``, ``.nfg``)."""
    path = Path(spec)
    if path.suffix.lower() in (".efg", ".nfg") or (path.exists() and path.is_file()):
        from lpgame.io.files import read_game_file
        return read_game_file(path)
    return make(spec, **params)


def _load_all() -> None:
    """Import every module of :mod:`lpgame.games`; importing a module registers its games."""
    import importlib
    import pkgutil

    import lpgame.games as package
    for module in pkgutil.iter_modules(package.__path__):
        if module.name != "registry" and not module.name.startswith("_"):
            importlib.import_module(f"lpgame.games.{module.name}")
