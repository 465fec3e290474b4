"""Analysis independent of the LP: best responses, profile values, exploitability."""

from lpgame.analysis.best_response import best_response, sequence_payoffs
from lpgame.analysis.exploitability import Evaluation, evaluate_plans, evaluate_plans_exact

__all__ = ["best_response", "sequence_payoffs", "Evaluation", "evaluate_plans",
           "evaluate_plans_exact"]



def __getattr__(name: str):
    """Submodules resolve on first use (lpgame.lazy)."""
    from lpgame.lazy import import_submodule
    return import_submodule(__name__, name, globals())
