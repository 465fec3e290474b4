"""Two-player Domino(M, N) (Rojas Linárez 2020, l. 1256–1268; notes/rojas-linarez-and-notebook.md §1.9).

Rules (the Venezuelan two-player game as the thesis and its author's code play it):

* the tiles are all {i, j} with 0 ≤ i ≤ j ≤ M, T = (M+1)(M+2)/2 of them; each player is dealt N tiles
  at random and the other B = T − 2N tiles form the face-down boneyard, drawn in random order;
* player 1 moves first and opens with any tile: its pips become the left and right ends of the line;
  the players then alternate;
* a tile is played on the left (right) end if one of its pips equals that end, and that end becomes the
  tile's other pip; when both ends show the same number only "left" is offered; a tile matching both
  (different) ends may go either way; there is no obligation among playable tiles;
* a player with no playable tile draws exactly one tile from the boneyard, seen only by them: if it is
  playable they must play it (choosing the side if both fit), otherwise they keep it and pass; with
  the boneyard empty they pass. Nobody may draw or pass while holding a playable tile;
* the game ends when a player empties their hand, or when the boneyard is empty and the last two turns
  were passes (a turn that drew and passed is a pass): "blocked";
* payoff to player 1: +(pips left in player 2's hand) when player 1 went out, −(pips in player 1's
  hand) when player 2 did; when blocked, the player with fewer pips wins the other's pip total (equal
  totals: 0). Zero-sum.

Each player knows their own hand, the whole public history (tiles placed and where, passes, and that a
tile was drawn) and the identities of the tiles they drew themselves.

Chance model: the thesis's code puts all chance at the root, enumerating all T! orders of the tiles
(hands = the last 2N tiles, boneyard = the rest, drawn from the end). Here one chance node deals the two
hands (C(T, N)·C(T−N, N) equally likely deals) and each draw is a chance node uniform over the tiles
left in the boneyard: the same distribution, with far fewer nodes. A forced move (a single legal play,
the play or pass after a draw that leaves no choice, a pass with the boneyard empty) is applied
automatically, so every decision node of the tree has at least two actions.

Sizes: the thesis's N counts the nodes of all T! permutation trees plus the root, and its I counts the
information sets with more than one action (Tabla 5.3: Domino(2,2) N = 7 321, I = 102; Domino(3,2)
46 534 657 / 88 947; Domino(3,3) 246 760 993 / 107 854; Domino(3,4) 1 547 645 185 / 104 050).
:func:`permutation_tree_counts` recomputes both from these rules: a node of this model reached after d
draws stands for N!²·(B − d)! permutations. The information sets of :func:`domino` are exactly the
thesis's multi-action ones (a tile drawn with a choice of side fits both ends, so the ends identify it).

Labels: tiles ``"1-2"``; actions ``"1-2"`` (the opening), ``"1-2 left"``, ``"1-2 right"``; chance
``"P1 0-0 0-1, P2 1-1 1-2"`` (the deal) and ``"draw 2-2"``. An information set reads
``"P1 [0-1 1-2] | 0-2; drew, 2-2 right; pass"``: the player, their hand, then the turns so far
(``drew`` is an opponent's hidden draw, ``drew 1-1`` one's own), and ``"| drew 1-2"`` at the end when
choosing the side of a tile just drawn.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

from lpgame.errors import InvalidGameError
from lpgame.game.rules import CHANCE_PLAYER, TERMINAL_PLAYER, expand
from lpgame.games.registry import register
from lpgame.games.size_prediction import binomial, saturate, tree_bytes

LEFT, RIGHT, OPEN, PASS = "left", "right", "open", "pass"


class DominoRules:
    """Rules object for Domino(M, N) (module docstring).

    State (ints and tuples only): ``(hand1, hand2, boneyard, left, right, history, drawn)``. Hands
    and boneyard are bit masks over the tile ids (bit t = tile ``tiles[t]``, lexicographic order);
    ``hand1`` is −1 before the deal. ``left``/``right`` are the ends (−1 before the opening),
    ``history`` has one entry per turn ``(drawn id or −1, placed id or −1, side)``, and ``drawn`` is
    the id of a tile just drawn whose side the player must choose (−1 otherwise).
    """

    num_players = 2

    def __init__(self, M: int = 2, N: int = 2):  # noqa: N803  (the thesis's names)
        if M < 0 or N < 1:
            raise InvalidGameError(f"Domino(M, N) needs M ≥ 0 and N ≥ 1, got ({M}, {N})")
        self.M, self.N = M, N
        self.tiles = [(i, j) for i in range(M + 1) for j in range(i, M + 1)]
        self.num_tiles = len(self.tiles)
        if 2 * N > self.num_tiles:
            raise InvalidGameError(f"Domino({M}, {N}): 2N = {2 * N} tiles do not fit in the "
                                   f"{self.num_tiles} tiles of a set up to {M}")
        self.boneyard_size = self.num_tiles - 2 * N
        self.name = f"domino(M={M}, N={N})"
        self.tile_names = [f"{a}-{b}" for a, b in self.tiles]
        self.pips = [a + b for a, b in self.tiles]
        self.tile_of_name = {name: t for t, name in enumerate(self.tile_names)}
        self.all_tiles = (1 << self.num_tiles) - 1
        # tiles showing pip k, as a mask
        self.with_pip = [sum(1 << t for t, (a, b) in enumerate(self.tiles) if k in (a, b))
                         for k in range(M + 1)]
        self._plays_cache: dict[tuple[int, int, int], tuple[tuple[int, str], ...]] = {}
        self._text_cache: dict[int, str] = {}

    # ---- primitive moves
    def ids(self, mask: int) -> list[int]:
        """Tile ids in a mask, ascending."""
        return [t for t in range(self.num_tiles) if mask >> t & 1]

    def plays(self, hand: int, left: int, right: int) -> tuple[tuple[int, str], ...]:
        """Legal (tile, side) plays from the ``hand`` mask on a line with ends ``left``/``right``,
        by tile, left before right (cached)."""
        key = (hand, left, right)
        out = self._plays_cache.get(key)
        if out is None:
            if left < 0:
                out = tuple((t, OPEN) for t in self.ids(hand))
            else:
                fits = hand & (self.with_pip[left] | (self.with_pip[right] if left != right else 0))
                out = tuple(play for t in self.ids(fits) for play in self._sides(t, left, right))
            self._plays_cache[key] = out
        return out

    def _sides(self, t: int, left: int, right: int) -> tuple[tuple[int, str], ...]:
        a, b = self.tiles[t]
        fits_left = a == left or b == left
        fits_right = left != right and (a == right or b == right)
        if fits_left and fits_right:
            return ((t, LEFT), (t, RIGHT))
        return ((t, LEFT),) if fits_left else (((t, RIGHT),) if fits_right else ())

    def _place(self, state, player: int, drawn: int, placed: int, side: str):
        """The state after ``player``'s turn (drew ``drawn``, placed ``placed`` on ``side``)."""
        hand1, hand2, boneyard, left, right, history, _ = state
        hand = hand1 if player == 0 else hand2
        if drawn >= 0:
            boneyard &= ~(1 << drawn)
            hand |= 1 << drawn
        if placed >= 0:
            hand &= ~(1 << placed)
            a, b = self.tiles[placed]
            if side == OPEN:
                left, right = a, b
            elif side == LEFT:
                left = b if a == left else a
            else:
                right = b if a == right else a
        if player == 0:
            hand1 = hand
        else:
            hand2 = hand
        return (hand1, hand2, boneyard, left, right, history + ((drawn, placed, side),), -1)

    @staticmethod
    def _is_over(state) -> bool:
        hand1, hand2, boneyard, _, _, history, _ = state
        if not hand1 or not hand2:
            return True
        return (not boneyard and len(history) >= 2 and history[-1][1] < 0
                and history[-2][1] < 0)

    # ---- the rules protocol (with forced moves applied automatically)
    def initial_state(self):
        return (-1, 0, 0, -1, -1, (), -1)

    def _situation(self, state):
        """("terminal" | "chance" | "decision", legal (tile, side) plays) for the player to move."""
        if state[0] < 0:
            return "chance", ()
        if self._is_over(state):
            return "terminal", ()
        hand1, hand2, boneyard, left, right, history, drawn = state
        if drawn >= 0:
            return "decision", self._sides(drawn, left, right)
        plays = self.plays(hand1 if len(history) % 2 == 0 else hand2, left, right)
        if plays:
            return "decision", plays
        return ("chance", ()) if boneyard else ("decision", ((-1, PASS),))

    def _advance(self, state):
        """Apply forced moves (a single legal action) until a real choice, chance or the end."""
        while True:
            kind, plays = self._situation(state)
            if kind != "decision" or len(plays) != 1:
                return state
            state = self._apply_play(state, *plays[0])

    def _apply_play(self, state, tile: int, side: str):
        player = len(state[5]) % 2
        if side == PASS:
            return self._place(state, player, state[6], -1, PASS)
        return self._place(state, player, state[6], tile, side)

    def current_player(self, state) -> int:
        kind, _ = self._situation(state)
        if kind == "terminal":
            return TERMINAL_PLAYER
        if kind == "chance":
            return CHANCE_PLAYER
        return len(state[5]) % 2

    def deals(self) -> list[tuple[int, int]]:
        """Every (hand 1, hand 2) pair of disjoint N-tile masks, in lexicographic order of ids."""
        T, N = self.num_tiles, self.N
        out = []
        for h1 in itertools.combinations(range(T), N):
            rest = [t for t in range(T) if t not in h1]
            for h2 in itertools.combinations(rest, N):
                out.append((sum(1 << t for t in h1), sum(1 << t for t in h2)))
        return out

    def dealt_state(self, hand1: int, hand2: int):
        """The state right after the deal (forced moves applied)."""
        return self._advance((hand1, hand2, self.all_tiles & ~(hand1 | hand2), -1, -1, (), -1))

    def chance_outcomes(self, state):
        if state[0] < 0:
            deals = self.deals()
            p = Fraction(1, len(deals))
            return [(f"P1 {self.hand_text(h1)}, P2 {self.hand_text(h2)}", p) for h1, h2 in deals]
        boneyard = self.ids(state[2])
        p = Fraction(1, len(boneyard))
        return [(f"draw {self.tile_names[t]}", p) for t in boneyard]

    def hand_text(self, mask: int) -> str:
        text = self._text_cache.get(mask)
        if text is None:
            text = self._text_cache[mask] = " ".join(self.tile_names[t] for t in self.ids(mask))
        return text

    def legal_actions(self, state) -> list[str]:
        return [self._action_label(t, side) for t, side in self._situation(state)[1]]

    def _action_label(self, tile: int, side: str) -> str:
        if side == PASS:
            return PASS
        return self.tile_names[tile] if side == OPEN else f"{self.tile_names[tile]} {side}"

    def _mask(self, names: str) -> int:
        return sum(1 << self.tile_of_name[x] for x in names.split())

    def apply(self, state, action: str):
        if state[0] < 0:                # the deal
            p1, p2 = action[3:].split(", P2 ")
            return self.dealt_state(self._mask(p1), self._mask(p2))
        if action.startswith("draw "):  # a draw: pass, play, or keep the tile to choose its side
            tile = self.tile_of_name[action[5:]]
            sides = self._sides(tile, state[3], state[4])
            if not sides:
                return self._advance(self._place(state, len(state[5]) % 2, tile, -1, PASS))
            return self._advance(state[:6] + (tile,))
        if action == PASS:
            return self._advance(self._apply_play(state, -1, PASS))
        name, _, side = action.partition(" ")
        return self._advance(self._apply_play(state, self.tile_of_name[name], side or OPEN))

    def _turn_text(self, entry, own: bool) -> str:
        drawn, placed, side = entry
        move = PASS if placed < 0 else self._action_label(placed, side)
        if drawn < 0:
            return move
        return f"drew {self.tile_names[drawn]}, {move}" if own else f"drew, {move}"

    @staticmethod
    def infoset_tuple(state) -> tuple:
        """What the player to move knows, as a tuple: own hand, the turns (the opponent's drawn tiles
        hidden) and the tile just drawn; :meth:`infoset_key` is its readable form."""
        history = state[5]
        player = len(history) % 2
        seen = tuple(e if k % 2 == player or e[0] < 0 else (-2,) + e[1:]
                     for k, e in enumerate(history))
        return (player, state[player], seen, state[6])

    def infoset_key(self, state) -> str:
        history, drawn = state[5], state[6]
        player = len(history) % 2
        turns = "; ".join(self._turn_text(e, k % 2 == player) for k, e in enumerate(history))
        label = f"P{player + 1} [{self.hand_text(state[player])}] | {turns}".rstrip(" |")
        return label + (f" | drew {self.tile_names[drawn]}" if drawn >= 0 else "")

    def payoffs(self, state) -> tuple[int, int]:
        hand1, hand2 = state[0], state[1]
        points = [sum(self.pips[t] for t in self.ids(h)) for h in (hand1, hand2)]
        if not hand1:
            u = points[1]
        elif not hand2:
            u = -points[0]
        elif points[0] == points[1]:
            u = 0
        else:
            u = points[1] if points[0] < points[1] else -points[0]
        return (u, -u)


def permutation_tree_counts(M: int, N: int) -> tuple[int, int]:  # noqa: N803
    """The thesis's (N, I) for Domino(M, N) (module docstring), from the rules of this module.

    N: 1 + the nodes of the T! permutation trees (each tree: the game with its chance fixed, forced
    moves and terminals included, a draw being part of the drawing player's move). A node reached
    after d draws lies in N!²·(B − d)! of the trees. I: information sets with more than one action.
    """
    rules = DominoRules(M, N)
    hand_orders = math.factorial(N) ** 2
    weight = [hand_orders * math.factorial(rules.boneyard_size - d)
              for d in range(rules.boneyard_size + 1)]
    total = 1
    infosets: set[tuple] = set()
    for hand1, hand2 in rules.deals():
        stack = [((hand1, hand2, rules.all_tiles & ~(hand1 | hand2), -1, -1, (), -1), 0)]
        while stack:
            state, draws = stack.pop()
            total += weight[draws]
            if rules._is_over(state):
                continue
            _, _, boneyard, left, right, history, _ = state
            player = len(history) % 2
            plays = rules.plays(state[player], left, right)
            if plays:
                if len(plays) > 1:
                    infosets.add(rules.infoset_tuple(state))
                stack.extend((rules._apply_play(state, t, side), draws) for t, side in plays)
            elif boneyard:
                for t in rules.ids(boneyard):
                    sides = rules._sides(t, left, right)
                    drawn_state = state[:6] + (t,)
                    if len(sides) > 1:
                        infosets.add(rules.infoset_tuple(drawn_state))
                    children = ([rules._apply_play(drawn_state, t, side) for _, side in sides] or
                                [rules._place(state, player, t, -1, PASS)])
                    stack.extend((child, draws + 1) for child in children)
            else:
                stack.append((rules._place(state, player, -1, -1, PASS), draws))
    return total, len(infosets)


BYTES_PER_COMPILED_DOMINO_NODE = 64


def domino_size(M: int = 2, N: int = 2, structured: bool = True) -> int:  # noqa: N803
    """Bytes needed at least: every deal of N tiles to each player from the (M + 1)(M + 2)/2 tiles,
    C(T, N)·C(T − N, N) of them, is a distinct node; a compiled node costs at least a few int64
    array entries (:data:`BYTES_PER_COMPILED_DOMINO_NODE`), an explicit one a tree node."""
    tiles = (M + 1) * (M + 2) // 2
    deals = saturate(binomial(tiles, N) * binomial(tiles - N, N))
    return saturate(deals * BYTES_PER_COMPILED_DOMINO_NODE) if structured else tree_bytes(deals)


@register("domino", "Two-player Domino(M, N): tiles up to M, N tiles each, draw one when stuck",
          "Rojas Linárez 2020 l. 1256–1268; notes/rojas-linarez-and-notebook.md §1.9",
          ranges={"M": (0, None), "N": (1, None)}, size=domino_size)
def domino(M: int = 2, N: int = 2, structured: bool = True):  # noqa: N803
    """Domino(M, N) (module docstring), chance at the deal and at the draws.

    ``structured=True`` compiles the tree level by level with numpy
    (:mod:`lpgame.games.domino_compiled`: same information sets, labels, leaves, about 20× faster);
    ``False`` expands the explicit networkx tree through the rules protocol."""
    rules = DominoRules(M, N)
    if structured:
        from lpgame.games.domino_compiled import HashCollisionError, compile_domino
        try:
            return compile_domino(rules)
        except HashCollisionError:   # two histories hashed alike: build the tree the slow way
            pass
    return expand(rules)
