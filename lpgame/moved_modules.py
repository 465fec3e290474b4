"""Old import paths of modules that moved when the concepts were grouped by family (issue 33).

``import lpgame.equilibria.efce`` (the flat layout before 0.3) keeps working: a finder on
``sys.meta_path`` answers each old name with the module at its new place, the very same module
object, so ``monkeypatch.setattr`` and ``isinstance`` see one module. New code imports the new
paths; the table below is the map from old to new.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

MOVED = {
    "lpgame.equilibria.security": "lpgame.equilibria.zero_sum.security",
    "lpgame.equilibria.double_oracle": "lpgame.equilibria.zero_sum.double_oracle",
    "lpgame.equilibria.maximin": "lpgame.equilibria.zero_sum.maximin",
    "lpgame.equilibria.safe_best_response": "lpgame.equilibria.zero_sum.safe_best_response",
    "lpgame.equilibria.lemke": "lpgame.equilibria.general_sum.lemke",
    "lpgame.equilibria.enumeration": "lpgame.equilibria.general_sum.enumeration",
    "lpgame.equilibria.optimal_nash": "lpgame.equilibria.general_sum.optimal_nash",
    "lpgame.equilibria.stackelberg": "lpgame.equilibria.general_sum.stackelberg",
    "lpgame.equilibria.efce": "lpgame.equilibria.correlated.efce",
    "lpgame.equilibria.efce_learning": "lpgame.equilibria.correlated.efce_learning",
    "lpgame.equilibria.efce_n_player": "lpgame.equilibria.correlated.efce_n_player",
    "lpgame.equilibria.efce_tuple_relaxation": "lpgame.equilibria.correlated.efce_tuple_relaxation",
    "lpgame.equilibria.efce_balanced_mix": "lpgame.equilibria.correlated.efce_balanced_mix",
    "lpgame.equilibria.correlation_decomposition": "lpgame.equilibria.correlated.correlation_decomposition",
    "lpgame.equilibria.scaled_extension": "lpgame.equilibria.correlated.scaled_extension",
    "lpgame.equilibria.tmecor": "lpgame.equilibria.teams.tmecor",
    "lpgame.equilibria.tmecor_column_generation": "lpgame.equilibria.teams.tmecor_column_generation",
    "lpgame.equilibria.tmecor_lp": "lpgame.equilibria.teams.tmecor_lp",
    "lpgame.equilibria.tmecor_oracle": "lpgame.equilibria.teams.tmecor_oracle",
    "lpgame.equilibria.tmecor_team": "lpgame.equilibria.teams.tmecor_team",
    "lpgame.equilibria.trembling": "lpgame.equilibria.refinements.perturbed_lp",
    "lpgame.team_belief_dag": "lpgame.equilibria.teams.team_belief_dag",
    "lpgame.lp.trembling": "lpgame.equilibria.refinements.limit",
    "lpgame.lp.lexicographic": "lpgame.equilibria.refinements.lexicographic",
    "lpgame.lp.basis_stability": "lpgame.equilibria.refinements.basis_stability",
    "lpgame.lp.exact_limit": "lpgame.equilibria.refinements.exact_limit",
    "lpgame.sorted_keys": "lpgame.lp.sorted_keys",
}
"""Old module path → new module path. ``lpgame.equilibria.zero_sum``, ``.correlated`` and
``.refinements`` were modules and are now the family packages; their concept modules are
``zero_sum.nash``, ``correlated.ce_cce`` and ``refinements.refined_equilibrium``."""


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target: str):
        self.target = target

    def create_module(self, spec):
        return importlib.import_module(self.target)

    def exec_module(self, module) -> None:
        """The target module ran when it was imported; nothing more to do."""


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Finds each old name of :data:`MOVED` as its module at the new path."""

    def find_spec(self, fullname, path=None, target=None):
        new = MOVED.get(fullname)
        if new is None:
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(new))


def install() -> None:
    """Put the finder on ``sys.meta_path`` once."""
    if not any(isinstance(f, MovedModuleFinder) for f in sys.meta_path):
        sys.meta_path.append(MovedModuleFinder())
