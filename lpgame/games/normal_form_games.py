"""The normal-form games of the catalog (notes/rojas-linarez-and-notebook.md §1.1–1.5; farina §2.12).

Each generator returns a :class:`~lpgame.game.NormalFormGame` with integer payoffs (exact).

* matching_pennies: P1 wins 1 on a match (Tabla 4.1); value 0.
* rock_paper_scissors: R beats S, S beats P, P beats R (Tabla 1.1); value 0.
* ficha_vs_domino: Chvátal's covering game (Tabla 4.4): P1 places a domino on a 2×3 board
  (placements A–G), P2 a token on a cell 1–6; P2 wins 1 when covered, else P1 wins 1. Value 1/3.
* colonel_blotto(S, N): each splits S soldiers over N fields; P1's payoff is the number of fields
  won minus fields lost; pure strategies are compositions in lexicographic order (C(S+N−1, N−1) of
  them: 21 for S=5, N=3). Antisymmetric, value 0.
* battle_of_the_sexes: (2,1) (0,0) / (0,0) (1,2) (Tabla 1.2).
* chicken: Aumann's, (C,C)=(6,6), (C,D)=(2,7), (D,C)=(7,2), (D,D)=(0,0).
* sm2: Farina's small matrix [[5, −1], [0, 1]], zero-sum; value 5/7.
"""

from __future__ import annotations

import itertools

import numpy as np

from lpgame.errors import InvalidGameError
from lpgame.game.normal_form import NormalFormGame
from lpgame.games.registry import register
from lpgame.games.size_prediction import binomial, saturate


def _zero_sum(matrix, actions, name) -> NormalFormGame:
    a = np.array(matrix, dtype=object)
    return NormalFormGame(np.stack([a, -a]), actions=actions, name=name)


@register("matching_pennies", "Matching pennies (value 0)", "rojas §1.1")
def matching_pennies():
    return _zero_sum([[1, -1], [-1, 1]], [["heads", "tails"]] * 2, "matching_pennies")


@register("rock_paper_scissors", "Rock-paper-scissors (value 0)", "rojas §1.2")
def rock_paper_scissors():
    m = [[0, -1, 1], [1, 0, -1], [-1, 1, 0]]
    return _zero_sum(m, [["R", "P", "S"]] * 2, "rock_paper_scissors")


FICHA_PLACEMENTS = {"A": {1, 2}, "B": {4, 5}, "C": {2, 3}, "D": {5, 6}, "E": {1, 4},
                    "F": {2, 5}, "G": {3, 6}}


@register("ficha_vs_domino", "Ficha vs. dominó, Chvátal's 7×6 covering game (value 1/3)",
          "rojas §1.4")
def ficha_vs_domino():
    cells = range(1, 7)
    m = [[-1 if c in covered else 1 for c in cells] for covered in FICHA_PLACEMENTS.values()]
    return _zero_sum(m, [list(FICHA_PLACEMENTS), [str(c) for c in cells]], "ficha_vs_domino")


def compositions(total: int, parts: int) -> list[tuple[int, ...]]:
    """All (a_1..a_parts) ≥ 0 with Σ = total, in lexicographic order.

    Stars and bars (Feller 1968, §II.5): the bars' positions 0 ≤ c_1 < … < c_{parts−1} among
    total + parts − 1 slots give a_1 = c_1, a_k = c_k − c_{k−1} − 1, a_parts = total + parts − 2 −
    c_{parts−1}; lexicographic order of the c's is that of the a's. No recursion, so any number of
    battlefields works."""
    slots = total + parts - 1
    out = []
    for bars in itertools.combinations(range(slots), parts - 1):
        edges = (-1,) + bars + (slots,)
        out.append(tuple(edges[k + 1] - edges[k] - 1 for k in range(parts)))
    return out


def colonel_blotto_size(S: int = 5, N: int = 3) -> int:  # noqa: N803
    """Bytes needed at least: s = C(S + N − 1, N − 1) pure strategies each; comparing every pair
    battlefield by battlefield takes s²·N booleans, and the payoff tables s² Python integers."""
    strategies = binomial(S + N - 1, N - 1)
    return saturate(strategies * strategies * (N + 80))


@register("colonel_blotto", "Colonel Blotto: S soldiers over N battlefields (value 0)",
          "rojas §1.5", ranges={"S": (1, None), "N": (1, None)}, size=colonel_blotto_size)
def colonel_blotto(S: int = 5, N: int = 3):  # noqa: N803
    if S < 1 or N < 1:
        raise InvalidGameError(f"colonel_blotto needs S ≥ 1 and N ≥ 1, got S={S}, N={N}")
    strategies = compositions(S, N)
    arr = np.array(strategies)
    wins = (arr[:, None, :] > arr[None, :, :]).sum(axis=2)
    losses = (arr[:, None, :] < arr[None, :, :]).sum(axis=2)
    m = (wins - losses).astype(int).tolist()
    labels = ["(" + ",".join(map(str, s)) + ")" for s in strategies]
    return _zero_sum(m, [labels, labels], f"colonel_blotto(S={S}, N={N})")


@register("battle_of_the_sexes", "Battle of the sexes (general-sum)", "rojas §1.3")
def battle_of_the_sexes():
    u1 = [[2, 0], [0, 1]]
    u2 = [[1, 0], [0, 2]]
    return NormalFormGame(np.array([u1, u2], dtype=object),
                          actions=[["ballet", "baseball"]] * 2, name="battle_of_the_sexes")


@register("chicken", "Chicken, Aumann's payoffs (general-sum)", "GAMES.md")
def chicken():
    u1 = [[6, 2], [7, 0]]
    u2 = [[6, 7], [2, 0]]
    return NormalFormGame(np.array([u1, u2], dtype=object), actions=[["C", "D"]] * 2,
                          name="chicken")


@register("sm2", "Farina's small matrix SM2 [[5,-1],[0,1]] (value 5/7)", "farina §2.12")
def sm2():
    return _zero_sum([[5, -1], [0, 1]], [["1", "2"]] * 2, "sm2")
