"""von Stengel & Forges' signalling game (von Stengel & Forges, "Extensive-form correlated
equilibrium: definition and computational complexity", Math. Oper. Res. 33(4), 2008, Fig. 1).

Chance makes player 1 (the sender) of type G (good) or B (bad), each with probability 1/2. The
sender sees its type and sends signal X or Y; player 2 (the receiver) sees the signal, not the
type, and chooses l or r. Payoffs (sender, receiver):

    type G:  l → (4, 10),   r → (0, 6);         type B:  l → (6, 0),   r → (0, 6).

Both types want l; the receiver wants l only for G, and l is worth 10·P(G | signal) against 6 for
r, so l is a best response only where the posterior of G is at least 3/5.

**Nash equilibria** (derivation, checked by lpgame's tests against Gambit's enumeration of the
reduced normal form): let β_s be the probability of l after signal s. Both types' payoffs (4β_s and
6β_s) increase in β_s, so both send the signal with the larger β; if β_X > β_Y both send X, its
posterior is 1/2 < 3/5 and β_X = 0, a contradiction; if β_X = β_Y > 0 the posteriors of the signals
sent average 1/2, so one is below 3/5 and its β is 0, again a contradiction. So l is never played
on the path: **every Nash equilibrium pays (0, 6)**, welfare 6.

**Stackelberg, sender leads**: the sender commits to G → X and B → X with probability 2/3
(posterior of G after X exactly 3/5, the receiver indifferent and breaking the tie for the
leader), which pays the sender 1/2·4 + 1/2·(2/3)·6 = **4** and the receiver 5/6·6 + 1/6·6 = 6
(the "persuasion" commitment; Kamenica & Gentzkow 2011). **Receiver leads**: both types rank l above
r, so the receiver cannot separate them; committing to r pays it 6, the most it can get
((0, 6) again).
"""

from __future__ import annotations

from fractions import Fraction

from lpgame.game.tree import GameBuilder
from lpgame.games.registry import register

PAYOFFS = {("G", "l"): (4, 10), ("G", "r"): (0, 6), ("B", "l"): (6, 0), ("B", "r"): (0, 6)}
"""(sender, receiver) payoffs by type and receiver action (von Stengel & Forges 2008, Fig. 1)."""


@register("signaling_game", "von Stengel–Forges signalling game: a typed sender, signals X/Y, a "
          "receiver choosing l/r; every Nash equilibrium pays (0, 6)",
          "von Stengel & Forges 2008, Fig. 1")
def signaling_game():
    """The game of the module docstring, as an explicit tree."""
    b = GameBuilder(2, name="signaling_game", player_names=["sender", "receiver"])
    root = b.chance()
    for kind in ("G", "B"):
        sender = b.decision(0, kind, parent=root, action=kind, prob=Fraction(1, 2))
        for signal in ("X", "Y"):
            receiver = b.decision(1, signal, parent=sender, action=signal)
            for act in ("l", "r"):
                b.terminal(PAYOFFS[kind, act], parent=receiver, action=act)
    return b.build()
