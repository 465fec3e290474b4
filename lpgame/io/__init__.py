"""Reading and writing: JSON results and strategies (Gambit and OpenSpiel adapters live here too)."""


def __getattr__(name: str):
    """Submodules resolve on first use (``lpgame.io.openspiel`` after ``import lpgame``), so that the
    import itself stays fast."""
    import importlib
    try:
        module = importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{name}":
            raise
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    globals()[name] = module
    return module
