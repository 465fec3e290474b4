"""Classic general-sum bimatrix games, with their extreme equilibria and maximal Nash subsets.

Each generator returns a :class:`~lpgame.game.NormalFormGame` with integer payoffs (exact).
``KNOWN_EQUILIBRIA[name]`` lists the extreme equilibria as (x, y) pairs of exact mixed strategies
and ``KNOWN_NASH_SUBSETS[name]`` the maximal Nash subsets as pairs of index lists into the sorted
distinct x's and y's of those equilibria; tests/test_general_sum_catalog.py checks both against
lpgame's enumeration and Gambit's ``enummixed``.

* prisoners_dilemma: Axelrod's payoffs (The Evolution of Cooperation, 1984, ch. 1): R = 3 for
  mutual cooperation, T = 5 temptation, S = 0 sucker, P = 1 mutual defection. Defection
  strictly dominates: the unique equilibrium is (D, D), payoffs (1, 1).
* stag_hunt: Rousseau's stag hunt (the game of Skyrms, The Stag Hunt and the Evolution of Social
  Structure, 2004), with the common textbook payoffs stag together 4, hare 3 whatever the other
  does, stag alone 0. Three equilibria: (stag, stag) with (4, 4), (hare, hare) with (3, 3), and
  both hunting stag with probability 3/4, with (3, 3) (indifference: 4q = 3).
* von_stengel_3x2: the nondegenerate 3 × 2 game A = [[3,3],[2,5],[0,6]], B = [[3,2],[2,6],[3,1]]
  of von Stengel, "Computing equilibria for two-person games" (Handbook of Game Theory 3, 2002,
  the running example). Three equilibria: ((1,0,0), (1,0)); ((4/5,1/5,0), (2/3,1/3));
  ((0,1/3,2/3), (1/3,2/3)).
* von_stengel_degenerate: the same game with B's top row (3, 2) replaced by (3, 3), a degenerate
  variant of the kind von Stengel 2002 discusses: player 1's first strategy has two best responses,
  so the textbook Lemke–Howson ratio test has ties (the path is not unique without a
  lexicographic rule, and a degenerate game may have infinitely many equilibria). Its equilibria
  are a segment, (1,0,0) against every y in conv{(1,0), (2/3,1/3)}, plus the isolated
  ((0,1/3,2/3), (1/3,2/3)): two maximal Nash subsets.
* outside_option_3x3: a 3 × 3 game with a two-dimensional continuum of equilibria, made for the
  catalog: player 1's strategy ``out`` pays (1, 0) whatever player 2 does, so player 2 is then
  indifferent, and every y holding player 1's other strategies to at most 1 is an equilibrium
  reply; inside, player 1 guesses L or M and player 2 hides. Eight extreme equilibria in five
  maximal Nash subsets, among them out × conv{(0,0,1), (1/3,0,2/3), (0,1/3,2/3), (1/3,1/3,1/3)}
  (equilibria computed by lpgame's enumeration and Gambit's enummixed, which agree).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from lpgame.game.normal_form import NormalFormGame
from lpgame.games.registry import register


def _bimatrix(a, b, actions, name) -> NormalFormGame:
    return NormalFormGame(np.array([a, b], dtype=object), actions=actions, name=name)


@register("prisoners_dilemma", "Prisoner's dilemma, Axelrod's payoffs (general-sum)",
          "Axelrod 1984, ch. 1")
def prisoners_dilemma():
    return _bimatrix([[3, 0], [5, 1]], [[3, 5], [0, 1]], [["C", "D"]] * 2, "prisoners_dilemma")


@register("stag_hunt", "Stag hunt: stag 4 together, hare 3 (general-sum)", "Skyrms 2004, ch. 1")
def stag_hunt():
    return _bimatrix([[4, 0], [3, 3]], [[4, 3], [0, 3]], [["stag", "hare"]] * 2, "stag_hunt")


@register("von_stengel_3x2", "von Stengel's nondegenerate 3x2 game (three equilibria)",
          "von Stengel 2002")
def von_stengel_3x2():
    return _bimatrix([[3, 3], [2, 5], [0, 6]], [[3, 2], [2, 6], [3, 1]],
                     [["T", "M", "B"], ["l", "r"]], "von_stengel_3x2")


@register("von_stengel_degenerate", "Degenerate 3x2 game: a segment of equilibria, ties in "
          "Lemke-Howson", "after von Stengel 2002")
def von_stengel_degenerate():
    return _bimatrix([[3, 3], [2, 5], [0, 6]], [[3, 3], [2, 6], [3, 1]],
                     [["T", "M", "B"], ["l", "r"]], "von_stengel_degenerate")


@register("outside_option_3x3", "3x3 game with a two-dimensional continuum of equilibria",
          "lpgame catalog (equilibria checked with Gambit)")
def outside_option_3x3():
    return _bimatrix([[1, 1, 1], [3, 0, 0], [0, 3, 0]], [[0, 0, 0], [2, 0, 1], [0, 2, 1]],
                     [["out", "guess L", "guess M"], ["L", "M", "R"]], "outside_option_3x3")


def _f(*values) -> tuple:
    return tuple(Fraction(v) for v in values)


KNOWN_EQUILIBRIA = {
    "prisoners_dilemma": [(_f(0, 1), _f(0, 1))],
    "stag_hunt": [(_f(1, 0), _f(1, 0)), (_f(0, 1), _f(0, 1)), (_f("3/4", "1/4"), _f("3/4", "1/4"))],
    "battle_of_the_sexes": [(_f(1, 0), _f(1, 0)), (_f(0, 1), _f(0, 1)),
                            (_f("2/3", "1/3"), _f("1/3", "2/3"))],
    "chicken": [(_f(1, 0), _f(0, 1)), (_f(0, 1), _f(1, 0)), (_f("2/3", "1/3"), _f("2/3", "1/3"))],
    "von_stengel_3x2": [(_f(1, 0, 0), _f(1, 0)), (_f("4/5", "1/5", 0), _f("2/3", "1/3")),
                        (_f(0, "1/3", "2/3"), _f("1/3", "2/3"))],
    "von_stengel_degenerate": [(_f(1, 0, 0), _f(1, 0)), (_f(1, 0, 0), _f("2/3", "1/3")),
                               (_f(0, "1/3", "2/3"), _f("1/3", "2/3"))],
    "outside_option_3x3": [
        (_f(1, 0, 0), _f(0, 0, 1)), (_f(1, 0, 0), _f("1/3", 0, "2/3")),
        (_f(1, 0, 0), _f(0, "1/3", "2/3")), (_f(1, 0, 0), _f("1/3", "1/3", "1/3")),
        (_f(0, 1, 0), _f(1, 0, 0)), (_f(0, 0, 1), _f(0, 1, 0)),
        (_f(0, "1/2", "1/2"), _f("1/2", "1/2", 0)), (_f(0, "1/2", "1/2"), _f("1/3", "1/3", "1/3"))],
}
"""Extreme equilibria (x, y) of the general-sum catalog games (module docstring)."""

KNOWN_NASH_SUBSETS = {
    "von_stengel_degenerate": [[[_f(1, 0, 0)], [_f(1, 0), _f("2/3", "1/3")]],
                               [[_f(0, "1/3", "2/3")], [_f("1/3", "2/3")]]],
    "outside_option_3x3": [
        [[_f(1, 0, 0)], [_f(0, 0, 1), _f("1/3", 0, "2/3"), _f(0, "1/3", "2/3"),
                         _f("1/3", "1/3", "1/3")]],
        [[_f(1, 0, 0), _f(0, "1/2", "1/2")], [_f("1/3", "1/3", "1/3")]],
        [[_f(0, 1, 0)], [_f(1, 0, 0)]], [[_f(0, 0, 1)], [_f(0, 1, 0)]],
        [[_f(0, "1/2", "1/2")], [_f("1/2", "1/2", 0), _f("1/3", "1/3", "1/3")]]],
}
"""Maximal Nash subsets (X', Y'), each side a list of extreme strategies (module docstring)."""
