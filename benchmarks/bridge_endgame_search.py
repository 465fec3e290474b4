"""Search for a reading of Farina's double-dummy bridge endgame TP3 that reproduces Table A.1.

Farina (2023) App. A.1.10 (L6705–6713; notes/farina-thesis.md §2.10, §6.15, §7) prints TP3 as
531,728 decision nodes, 909,059 sequences and 379,008 terminal nodes (3 players), with the dummy's
fixed hand garbled ("2 ≥ 2 ∨ 3 ∨"). This script counts, without building the tree, the terminals
(complete legal plays summed over the 9!/(3!)^3 = 1680 deals of the other nine cards) and the
decision nodes and actions of the first two tricks (the third trick is forced: one card each) for
every fixed 3-card hand, up to the symmetry of the three side suits, and every seat of that hand in
the play order (0 = leads the first trick). It prints the readings closest to Table A.1.

Result (see docs/explanation/benchmarks.md): no reading under the stated rules gives 379,008 terminals, so
the game is not in the catalog. Run: ``python benchmarks/bridge_endgame_search.py`` (about 15 minutes on
a shared 2-core machine) or ``python benchmarks/bridge_endgame_search.py 2S,2H,3H 1`` for one reading.
"""

from __future__ import annotations

import itertools
import sys
from functools import cache

SUITS = "SHDC"          # spades (index 0) are trumps
TABLE_A1 = (531728, 909059, 379008)


def card(text: str) -> int:
    """'3H' -> 4 (suit·3 + rank − 2)."""
    return SUITS.index(text[1].upper()) * 3 + int(text[0]) - 2


def name(cards) -> str:
    return " ".join(f"{c % 3 + 2}{SUITS[c // 3]}" for c in sorted(cards))


def _winner(trick: tuple[int, ...]) -> int:
    lead = trick[0] // 3
    return max(range(4), key=lambda i: (trick[i] // 3 == 0, trick[i] // 3 == lead, trick[i] % 3))


@cache
def count(hands: tuple[int, ...], leader: int, trick: tuple[int, ...]) -> tuple[int, int, int]:
    """(decision nodes, actions at them, terminals) below a state of the first two tricks.

    ``hands`` are 12-bit masks by seat in play order; a node with one legal card counts as a
    decision node with one action; the game ends when every hand holds one card (forced trick)."""
    if len(trick) == 4:
        if bin(hands[0]).count("1") == 1:
            return 0, 0, 1
        return count(hands, (leader + _winner(trick)) % 4, ())
    seat = (leader + len(trick)) % 4
    hand = hands[seat]
    legal = hand
    if trick:
        follow = hand & (7 << 3 * (trick[0] // 3))
        legal = follow or hand
    nodes, actions, terminals = 1, 0, 0
    for c in range(12):
        if legal >> c & 1:
            after = list(hands)
            after[seat] = hand & ~(1 << c)
            n, a, t = count(tuple(after), leader, trick + (c,))
            nodes, actions, terminals = nodes + n, actions + a + 1, terminals + t
    return nodes, actions, terminals


def sizes(fixed: tuple[int, ...], seat: int) -> tuple[int, int, int]:
    """Farina's columns for one reading: decision nodes, sequences (+1 empty per player, 3
    players) and terminals, summed over the 1680 deals."""
    mask = sum(1 << c for c in fixed)
    rest = [c for c in range(12) if not mask >> c & 1]
    others = [p for p in range(4) if p != seat]
    total = [0, 0, 0]
    for a in itertools.combinations(rest, 3):
        left = [c for c in rest if c not in a]
        for b in itertools.combinations(left, 3):
            c3 = tuple(c for c in left if c not in b)
            hands = [0] * 4
            hands[seat] = mask
            for p, h in zip(others, (a, b, c3)):
                hands[p] = sum(1 << c for c in h)
            n, act, t = count(tuple(hands), 0, ())
            total = [total[0] + n, total[1] + act, total[2] + t]
    return total[0], total[1] + 3, total[2]


def classes() -> list[tuple[int, ...]]:
    """The 3-card hands up to permutations of the side suits (57 of the 220)."""
    out = set()
    for hand in itertools.combinations(range(12), 3):
        out.add(min(tuple(sorted(({0: 0, 1: p[0], 2: p[1], 3: p[2]}[c // 3]) * 3 + c % 3
                                 for c in hand)) for p in itertools.permutations((1, 2, 3))))
    return sorted(out)


def main(argv: list[str]) -> None:
    if argv:
        fixed = tuple(card(t) for t in argv[0].split(","))
        print(name(fixed), "seat", argv[1], sizes(fixed, int(argv[1])), "Table A.1", TABLE_A1)
        return
    rows = []
    for fixed in classes():
        for seat in range(4):
            d, s, t = sizes(fixed, seat)
            rows.append((abs(t - TABLE_A1[2]), name(fixed), seat, d, s, t))
            count.cache_clear()
    rows.sort()
    print("exact matches:", sum(r[0] == 0 for r in rows))
    for row in rows[:10]:
        print(*row[1:])


if __name__ == "__main__":
    main(sys.argv[1:])
