"""Submodules as attributes on first use (PEP 562): ``lpgame.draw``, ``lpgame.analysis.verify``,
``lpgame.io.openspiel`` resolve after ``import lpgame`` without importing everything up front."""

from __future__ import annotations

import importlib


def import_submodule(package: str, name: str, namespace: dict):
    """``package.name`` imported and stored in the package's ``namespace``; AttributeError where
    there is no such submodule (what a module ``__getattr__`` must raise)."""
    try:
        module = importlib.import_module(f"{package}.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{package}.{name}":
            raise
        raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
    namespace[name] = module
    return module
