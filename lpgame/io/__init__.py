"""Reading and writing: JSON results and strategies (Gambit and OpenSpiel adapters live here too)."""



def __getattr__(name: str):
    """Submodules resolve on first use (lpgame.lazy)."""
    from lpgame.lazy import import_submodule
    return import_submodule(__name__, name, globals())
