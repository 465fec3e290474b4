"""The general-sum catalog games: their documented equilibria (lpgame/games/general_sum_games.py,
from the cited sources) equal lpgame's enumeration and Gambit's ``enummixed``, and their
documented maximal Nash subsets equal lpgame's."""

from __future__ import annotations

from fractions import Fraction

import pytest

from lpgame.equilibria.general_sum.enumeration import bimatrix_extreme_equilibria
from lpgame.games.general_sum_games import KNOWN_EQUILIBRIA, KNOWN_NASH_SUBSETS
from lpgame.games.registry import make

gbt = pytest.importorskip("pygambit")  # the gambit extra (CI installs it)


def _payoffs(game):
    return game.payoff_array(0, exact=True), game.payoff_array(1, exact=True)


@pytest.mark.parametrize("name", sorted(KNOWN_EQUILIBRIA))
def test_documented_equilibria_are_lpgames_and_gambits(name):
    a, b = _payoffs(make(name))
    found = bimatrix_extreme_equilibria(a, b)
    ours = {(found.strategies[0][i], found.strategies[1][j]) for i, j in found.equilibria}
    assert ours == set(KNOWN_EQUILIBRIA[name])
    g = gbt.Game.from_arrays(a.astype(int), b.astype(int))
    gambit = {tuple(tuple(Fraction(str(e[s])) for s in p.strategies) for p in g.players)
              for e in gbt.nash.enummixed_solve(g, rational=True).equilibria}
    assert gambit == ours


@pytest.mark.parametrize("name", sorted(KNOWN_NASH_SUBSETS))
def test_documented_nash_subsets(name):
    a, b = _payoffs(make(name))
    found = bimatrix_extreme_equilibria(a, b)
    ours = {(frozenset(found.strategies[0][i] for i in left),
             frozenset(found.strategies[1][j] for j in right)) for left, right in found.nash_subsets}
    documented = {(frozenset(left), frozenset(right)) for left, right in KNOWN_NASH_SUBSETS[name]}
    assert ours == documented
