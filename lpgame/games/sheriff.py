"""Sheriff S2*NBr*: a simplified Sheriff of Nottingham (bargaining between a Smuggler and a Sheriff).

Rules (Farina 2023, App. A.1.9, L6699–6703; Farina, Ling, Fang & Sandholm 2019a; notes/farina-thesis.md
§2.7):

* the Smuggler (player 1) loads n ∈ {0, …, N} illegal items into the cargo, unseen by the Sheriff;
* then r rounds of bargaining: in round i the Smuggler offers a bribe b_i ∈ {0, …, B} and the Sheriff
  accepts or declines; both see every bribe and answer, the Sheriff never sees n;
* only the last round counts: if the Sheriff accepts b_r, the cargo is not inspected, the Sheriff gets
  b_r and the Smuggler v·n − b_r; if the Sheriff declines, the cargo is inspected: with n > 0 the
  Smuggler pays p·n to the Sheriff (Smuggler −p·n, Sheriff +p·n); with n = 0 the Sheriff compensates
  the Smuggler with s (Smuggler +s, Sheriff −s).

The thesis text is garbled at the inspection clause (notes §2.7); the compensation s and the payoff
signs follow the benchmark's original implementation (OpenSpiel's ``sheriff``, by the same authors,
with item_value = v, item_penalty = p, sheriff_penalty = s), which tests/test_catalog_values.py
compares against. The thesis fixes v = 5, p = 1, s = 1. General-sum.

Sizes (|𝒵| = (N+1)·(2(B+1))^r; Farina Table A.1, information sets / sequences / terminals summed over
players, with N = 10 for the rows printed S21Br and N = 20 for S22Br, notes §2.7 and §6.4):
S2122 = sheriff(10, 2, 2) 99/286/396, S2123 = sheriff(10, 2, 3) 603/1690/2376,
S2133 = sheriff(10, 3, 3) 1096/3809/5632, S2254 = sheriff(20, 5, 4) 50896/260153/435456,
S2264 = sheriff(20, 6, 4) 82741/475778/806736.

``sheriff(..., structured=True)`` (the default) builds that sequence form in closed form with numpy
(:mod:`lpgame.games.sheriff_compiled`, identical to the expansion's); ``structured=False`` expands
the explicit networkx tree from :class:`SheriffRules` (needed to draw it or write a Gambit file).

Labels: the Smuggler's actions ``"load 3"`` and ``"bribe 2"``, the Sheriff's ``"accept"`` and
``"decline"``; information sets read ``"Smuggler"`` (the loading), ``"Smuggler 3 items | bribe 2
declined"`` (round 2's offer, after the first offer of 2 was declined) and ``"Sheriff | bribe 2
declined, bribe 1"`` (the Sheriff answering the second offer, 1).
"""

from __future__ import annotations

from lpgame.errors import InvalidGameError
from lpgame.game.rules import TERMINAL_PLAYER, expand
from lpgame.games.registry import register
from lpgame.games.sheriff_compiled import BYTES_PER_LEAF, compile_sheriff
from lpgame.games.size_prediction import power, saturate, tree_bytes

ACCEPT, DECLINE = "accept", "decline"


class SheriffRules:
    """Rules object (module docstring). State: (n or None, tuple of (bribe, accepted or None))."""

    def __init__(self, N: int = 10, B: int = 2, rounds: int = 2, v=5, p=1, s=1):  # noqa: N803
        if N < 0 or B < 0 or rounds < 1:
            raise InvalidGameError(f"sheriff needs N ≥ 0, B ≥ 0 and rounds ≥ 1, got N={N}, B={B}, "
                                   f"rounds={rounds}")
        self.num_players = 2
        self.player_names = ["Smuggler", "Sheriff"]
        self.N, self.B, self.rounds = N, B, rounds
        self.v, self.p, self.s = v, p, s
        self.name = f"sheriff(N={N}, B={B}, rounds={rounds}, v={v}, p={p}, s={s})"
        self.load_labels = [f"load {k}" for k in range(N + 1)]
        self.bribe_labels = [f"bribe {b}" for b in range(B + 1)]

    def initial_state(self):
        return (None, ())

    def current_player(self, state) -> int:
        items, rounds = state
        if items is None:
            return 0
        if not rounds or rounds[-1][1] is not None:
            return TERMINAL_PLAYER if len(rounds) == self.rounds else 0
        return 1

    def legal_actions(self, state) -> list[str]:
        items, rounds = state
        if items is None:
            return list(self.load_labels)
        if self.current_player(state) == 0:
            return list(self.bribe_labels)
        return [ACCEPT, DECLINE]

    def chance_outcomes(self, state):  # pragma: no cover - Sheriff has no chance
        raise InvalidGameError("sheriff has no chance nodes")

    def apply(self, state, action: str):
        items, rounds = state
        if items is None:
            return (int(action[5:]), ())
        if action in (ACCEPT, DECLINE):
            return (items, rounds[:-1] + ((rounds[-1][0], action == ACCEPT),))
        return (items, rounds + ((int(action[6:]), None),))

    @staticmethod
    def history_text(rounds) -> str:
        """The public rounds as text: "bribe 2 declined, bribe 1" (the labels' history part)."""
        return ", ".join(f"bribe {b}" if ok is None else f"bribe {b} {'accepted' if ok else 'declined'}"
                         for b, ok in rounds)

    def infoset_key(self, state) -> str:
        items, rounds = state
        if items is None:
            return "Smuggler"
        if self.current_player(state) == 0:
            return f"Smuggler {items} items | {self.history_text(rounds)}".rstrip(" |")
        return f"Sheriff | {self.history_text(rounds)}"

    def payoffs(self, state) -> tuple:
        items, rounds = state
        bribe, accepted = rounds[-1]
        if accepted:
            return (self.v * items - bribe, bribe)
        if items > 0:
            return (-self.p * items, self.p * items)
        return (self.s, -self.s)


def sheriff_size(N: int = 10, B: int = 2, rounds: int = 2, structured: bool = True,  # noqa: N803
                 **_) -> int:
    """Bytes needed at least: (N + 1)·(2(B + 1))^rounds terminals (N + 1 loads, then per round a
    bribe of 0..B and the sheriff's answer; S2122 … S2264 of Farina's Table A.1), each a few array
    entries of the compiled index (:data:`~lpgame.games.sheriff_compiled.BYTES_PER_LEAF`) or a tree
    node."""
    leaves = saturate((N + 1) * power(2 * (B + 1), rounds))
    return saturate(leaves * BYTES_PER_LEAF) if structured else tree_bytes(leaves)


@register("sheriff", "Sheriff S2<N><B><r>: Smuggler loads N items at most, r rounds of bribes up to B "
          "(general-sum)", "Farina 2023 App. A.1.9; notes/farina-thesis.md §2.7",
          ranges={"N": (0, None), "B": (0, None), "rounds": (1, None)}, size=sheriff_size)
def sheriff(N: int = 10, B: int = 2, rounds: int = 2, v=5, p=1, s=1,  # noqa: N803
            structured: bool = True):
    """Sheriff with at most ``N`` illegal items, bribes 0..``B`` and ``rounds`` rounds of bargaining;
    item value ``v``, penalty per item ``p``, compensation ``s`` (module docstring).

    ``structured=True`` compiles the sequence form in closed form with numpy
    (:mod:`lpgame.games.sheriff_compiled`: the same information sets, labels, sequences and leaves);
    ``False`` expands the explicit networkx tree through the rules protocol."""
    rules = SheriffRules(N, B, rounds, v, p, s)
    if structured:
        return compile_sheriff(rules)
    return expand(rules)
