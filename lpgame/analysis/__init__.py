"""Analysis independent of the LP: best responses, profile values, exploitability."""

from lpgame.analysis.best_response import best_response, sequence_payoffs
from lpgame.analysis.exploitability import Evaluation, evaluate_plans, evaluate_plans_exact

__all__ = ["best_response", "sequence_payoffs", "Evaluation", "evaluate_plans",
           "evaluate_plans_exact"]


def __getattr__(name: str):
    """Submodules resolve on first use (``lpgame.analysis.verify`` after ``import lpgame``), so that the
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
