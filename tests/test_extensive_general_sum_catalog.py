"""The general-sum catalog games of issue 21: sizes and payoffs against their definitions.

* ``signaling_game``: von Stengel & Forges 2008, Fig. 1 (2 types × 2 signals × 2 responses: 8
  leaves; one information set per type for the sender, one per signal for the receiver).
* ``kuhn_poker_rake``: Kuhn poker's tree (GAMES.md: 12 information sets, 13 sequences per player,
  30 leaves) with the house keeping ``rake`` of each pot: u_1 + u_2 = −rake · pot at every leaf,
  and rake 0 gives Kuhn poker's payoffs leaf by leaf.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from lpgame.compile import compile_game
from lpgame.errors import InvalidGameError
from lpgame.games import make


def test_signaling_game_sizes_and_payoffs():
    game = make("signaling_game")
    assert game.sizes()["infosets"] == [2, 2] and game.sizes()["sequences"] == [5, 5]
    sf = compile_game(game)
    assert len(sf.terminal_payoffs) == 8
    # each (sender, receiver) payoff pair of Fig. 1 appears at both signals
    pairs = sorted(map(tuple, np.asarray(sf.terminal_payoffs, dtype=float).tolist()))
    assert pairs == sorted([(4, 10), (0, 6), (6, 0), (0, 6)] * 2)


@pytest.mark.parametrize("rake", [0, 0.1, Fraction(1, 4)])
def test_kuhn_rake_is_kuhn_with_the_house_taking_its_share(rake):
    raked = compile_game(make("kuhn_poker_rake", rake=rake))
    plain = compile_game(make("kuhn_poker"))
    assert raked.size() == plain.size() == {"infosets": [6, 6], "sequences": [13, 13],
                                            "terminals": 30}
    r = Fraction(str(rake)) if not isinstance(rake, Fraction) else rake
    _, payoffs = raked.exact_terminal_data()
    _, kuhn = plain.exact_terminal_data()
    pots = []
    for (u1, u2), (k1, k2) in zip(payoffs, kuhn):
        loser = 0 if k1 < 0 else 1
        assert (u1, u2)[loser] == (k1, k2)[loser]          # the loser loses its stake, as in Kuhn
        if r:
            pot = -(u1 + u2) / r                           # the house's share is rake × pot
            assert (k1, k2)[1 - loser] - (u1, u2)[1 - loser] == r * pot
            pots.append(pot)
        else:
            assert (u1, u2) == (k1, k2)
    if r:   # per deal: check-check 2, check-bet-fold 3, check-bet-call 4, bet-fold 3, bet-call 4
        assert sorted(pots) == [2] * 6 + [3] * 12 + [4] * 12


def test_kuhn_rake_refuses_a_bad_rake():
    with pytest.raises(InvalidGameError, match="rake"):
        make("kuhn_poker_rake", rake=1.5)
