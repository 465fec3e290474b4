"""The stability test's per-basis cache (lpgame/equilibria/refinements/basis_stability.py,
``_basis_solver`` and the resumed Taylor expansion): a basis first tested with ``early=True`` (stop
at the first wrong sign) and then completely must give exactly the verdict of a complete test on
a fresh trembling LP with nothing cached, on Kuhn poker's QPE and EFPE programs at ξ = 1/8 (not
stable there: Farina 2023, Table 13.1 finds Kuhn's stable basis at smaller ξ) and on stable
bases (where the early stop never triggers)."""

from __future__ import annotations

from fractions import Fraction

import pytest

import lpgame
from lpgame.compile import compile_game
from lpgame.equilibria.refinements.basis_stability import NotStableError, certify_stable_basis
from lpgame.equilibria.refinements.perturbed_lp import refinement_lp
from lpgame.lp import solve_lp


def _verdict(tlp, solution, **kw):
    try:
        stable = certify_stable_basis(tlp, solution, **kw)
    except NotStableError as exc:
        return ("not stable", str(exc), exc.violations, exc.partial_count)
    return ("stable", [[str(v) for v in z] for z in stable.primal],
            [[str(v) for v in p] for p in stable.duals], str(stable.certified_epsilon))


@pytest.mark.parametrize("refinement", ["qpe", "efpe"])
@pytest.mark.parametrize("xi", [Fraction(1, 8), Fraction(1, 4096)])
def test_early_then_complete_equals_a_fresh_complete_test(refinement, xi):
    game = lpgame.games.make("kuhn_poker")
    cached = refinement_lp(compile_game(game), refinement, 1).tlp
    solution = solve_lp(cached.at(xi), solver="simplex")
    first = _verdict(cached, solution, early=True)
    second = _verdict(cached, solution)
    fresh = _verdict(refinement_lp(compile_game(game), refinement, 1).tlp, solution)
    assert second == fresh
    if first[0] == "not stable":
        assert first[3] is True and first[2] <= fresh[2]
    assert len(cached._basis_solvers) == 1
