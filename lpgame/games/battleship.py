"""Battleship B2*hwr*: two players, an h × w grid each, one unit-size ship each, r shots each.

Rules (Farina 2023, App. A.1.1, L6655–6659; Farina, Ling, Fang & Sandholm 2019a; notes/farina-thesis.md
§2.6, structure pinned down by the published sizes):

* player 1 places a ship on one cell of their own grid, then player 2 on theirs; neither sees the
  other's placement;
* the players then fire in turn, player 1 first, each at a cell of the opponent's grid they have not
  fired at before; both players see every shot and whether it hit;
* a hit sinks the (one-cell) ship and ends the game; otherwise the game ends once both players have
  fired r shots;
* payoffs (general-sum): the player who sinks the opponent's ship gets the ship's value v, the player
  whose ship is sunk gets −γ·v (γ = ``loss_multiplier`` ≥ 1); nobody sunk: 0 each.

The thesis leaves v and γ open (only γ ≥ 1). Defaults here: ``ship_value=1`` and
``loss_multiplier=2``; γ = 1 would make the game zero-sum, while the thesis lists Battleship as not
constant-sum. The payoff rule (value to the shooter, −γ·value to the owner) is the one of OpenSpiel's
``battleship``, which its authors wrote; the sizes do not depend on v or γ.

Sizes (Farina Table A.1: information sets / sequences / terminals summed over players; reproduced by
tests/test_catalog_sizes.py): B2222 162/506/1072, B2322 938/4730/19116, B2323 15338/62330/191916,
B2324 144938/451130/969516.

Cells are named like a chessboard: columns a, b, c, … and rows 1, 2, …, so a 2 × 3 grid has a1, b1,
c1, a2, b2, c2. Labels: placements ``"place a1"``, shots ``"fire b2"``; an information set reads
``"P1 place"`` or ``"P1 ship a1 | 1:a2 2:b1"`` (player 1, ship on a1, after player 1 fired at a2
and player 2 at b1; every shot before the current one missed).
"""

from __future__ import annotations

from lpgame.errors import InvalidGameError
from lpgame.game.rules import TERMINAL_PLAYER, expand
from lpgame.games.registry import register
from lpgame.games.size_prediction import permutations, saturate, tree_bytes


class BattleshipRules:
    """Rules object (module docstring). State: (ship cells of P1 and P2 or None, tuple of shots);
    shot k is fired by player k % 2 at the other player's grid; cells are ints row-major."""

    def __init__(self, rows: int = 2, cols: int = 2, shots: int = 2, ship_value=1,
                 loss_multiplier=2):
        if rows < 1 or cols < 1:
            raise InvalidGameError(f"battleship needs a grid of at least 1 × 1, got {rows} × {cols}")
        if not 1 <= shots <= rows * cols:
            raise InvalidGameError(f"battleship: shots must be 1..{rows * cols} (no cell is fired at "
                                   f"twice), got shots={shots}")
        if loss_multiplier < 1:
            raise InvalidGameError(f"battleship: loss_multiplier γ must be ≥ 1 (Farina App. A.1.1), "
                                   f"got {loss_multiplier}")
        self.num_players = 2
        self.rows, self.cols, self.shots = rows, cols, shots
        self.ship_value = ship_value
        self.loss_multiplier = loss_multiplier
        self.name = (f"battleship(rows={rows}, cols={cols}, shots={shots}, ship_value={ship_value}, "
                     f"loss_multiplier={loss_multiplier})")
        self.num_cells = rows * cols
        letters = "abcdefghijklmnopqrstuvwxyz"
        self.cell_names = [f"{letters[c % 26]}{'' if c < 26 else c // 26}{r + 1}"
                           for r in range(rows) for c in range(cols)]
        self.place_labels = [f"place {name}" for name in self.cell_names]
        self.fire_labels = [f"fire {name}" for name in self.cell_names]
        self.cell_of = {lab: c for c, lab in enumerate(self.place_labels)}
        self.cell_of.update({lab: c for c, lab in enumerate(self.fire_labels)})
        self._win = (ship_value, -loss_multiplier * ship_value)

    def initial_state(self):
        return (None, None, ())

    def _hit(self, state) -> bool:
        ships, shots = state[:2], state[2]
        return bool(shots) and shots[-1] == ships[1 - (len(shots) - 1) % 2]

    def current_player(self, state) -> int:
        first, second, shots = state
        if first is None:
            return 0
        if second is None:
            return 1
        if self._hit(state) or len(shots) == 2 * self.shots:
            return TERMINAL_PLAYER
        return len(shots) % 2

    def legal_actions(self, state) -> list[str]:
        first, second, shots = state
        if first is None or second is None:
            return list(self.place_labels)
        mine = shots[len(shots) % 2::2]
        return [lab for c, lab in enumerate(self.fire_labels) if c not in mine]

    def chance_outcomes(self, state):  # pragma: no cover - Battleship has no chance
        raise InvalidGameError("battleship has no chance nodes")

    def apply(self, state, action: str):
        first, second, shots = state
        cell = self.cell_of[action]
        if first is None:
            return (cell, None, ())
        if second is None:
            return (first, cell, ())
        return (first, second, shots + (cell,))

    def infoset_key(self, state) -> str:
        first, second, shots = state
        if first is None:
            return "P1 place"
        if second is None:
            return "P2 place"
        player = len(shots) % 2
        own = (first, second)[player]
        history = " ".join(f"{k % 2 + 1}:{self.cell_names[c]}" for k, c in enumerate(shots))
        return f"P{player + 1} ship {self.cell_names[own]} | {history}".rstrip(" |")

    def payoffs(self, state) -> tuple:
        if not self._hit(state):
            return (0, 0)
        shooter = (len(state[2]) - 1) % 2
        win, loss = self._win
        return (win, loss) if shooter == 0 else (loss, win)


def battleship_size(rows: int = 2, cols: int = 2, shots: int = 2, **_) -> int:
    """Bytes needed at least: with c = rows·cols cells, the c² ship placements times the plays in
    which every shot misses, ((c − 1)!/(c − 1 − s)!)² of them, are distinct nodes (B2222: 576 of
    1,573 nodes; lpgame.games.size_prediction)."""
    cells = rows * cols
    misses = permutations(cells - 1, min(shots, cells - 1))
    return tree_bytes(saturate(cells * cells * misses * misses))


@register("battleship", "Battleship B2<h><w><r>: one unit ship each on an h×w grid, r shots each "
          "(general-sum)", "Farina 2023 App. A.1.1; notes/farina-thesis.md §2.6",
          ranges={"rows": (1, None), "cols": (1, None), "shots": (1, None)}, size=battleship_size)
def battleship(rows: int = 2, cols: int = 2, shots: int = 2, ship_value=1, loss_multiplier=2):
    """Battleship on a ``rows`` × ``cols`` grid with ``shots`` shots each (module docstring);
    sinking the opponent's ship pays ``ship_value``, losing one's own costs
    ``loss_multiplier`` × ``ship_value``."""
    return expand(BattleshipRules(rows, cols, shots, ship_value, loss_multiplier))
