"""Players' views of the signals and partitions of them (information filters, Definition 2).

Player i's **view** at the end of round j is what F^j takes as argument in Gilpin & Sandholm's
Definition 2: the public signals and i's own private signals revealed so far, (α̃^j, β̃^j_i), in
dealing order. :class:`ViewIndex` numbers the legal views of every player and round from the deal
tables of :class:`~lpgame.abstraction.ordered_game.OrderedSignalGame` (one ``np.unique`` per
player and round, never a Python loop over deals) and maps any deal to its views.

A :class:`ViewPartition` is an information filter in the paper's sense: per player and round a
partition of the views (the range of F^j is a partition: Definition 2, item 2), such that views
told apart in round j − 1 stay apart in round j (information preservation, item 3): every class of
round j lies inside one class of round j − 1 (``class_parent``). With it the filtered game Γ_F has
perfect recall (Proposition 1). The identity partition gives back Γ.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lpgame.abstraction.signal_rules import OrderedSignalRules


def encode_rows(rows: np.ndarray, base: int) -> np.ndarray:
    """Each row of small non-negative ints as one int64 (base-``base`` digits, first most significant)."""
    if rows.shape[1] and base ** rows.shape[1] >= 2 ** 62:
        from lpgame.errors import ModelTooLargeError
        raise ModelTooLargeError(f"{rows.shape[1]} signals from a deck of {base} do not fit the "
                                 "64-bit keys that number views and deals")
    key = np.zeros(len(rows), dtype=np.int64)
    for k in range(rows.shape[1]):
        key = key * base + rows[:, k].astype(np.int64)
    return key


class ViewIndex:
    """Views (public + own private signals) of each player at the end of each round.

    ``keys[i][j]`` are the sorted view keys, ``rows[i][j]`` the views as signal ids (V × columns),
    ``of_deal[i][j]`` the view of every deal at the round's end depth, ``parent[i][j]`` the view of
    round j − 1 that each view extends.
    """

    def __init__(self, game: OrderedSignalRules):
        self.game = game
        n = len(game.signals)
        r = len(game.rounds)
        self.columns = [[game.view_columns(i, j) for j in range(r)] for i in range(2)]
        self.keys = [[None] * r for _ in range(2)]
        self.rows = [[None] * r for _ in range(2)]
        self.of_deal = [[None] * r for _ in range(2)]
        self.parent = [[None] * r for _ in range(2)]
        for j in range(r):
            cards, _, _ = game.deals(game.round_end_depth[j])
            for i in range(2):
                cols = self.columns[i][j]
                keys, first, inverse = np.unique(encode_rows(cards[:, cols], n), return_index=True,
                                                 return_inverse=True)
                self.keys[i][j] = keys
                self.rows[i][j] = cards[first][:, cols]
                self.of_deal[i][j] = inverse.reshape(-1).astype(np.int64)
                if j == 0:
                    self.parent[i][j] = np.zeros(len(keys), dtype=np.int64)
                else:
                    width = len(self.columns[i][j - 1])
                    prefix = encode_rows(self.rows[i][j][:, :width], n)
                    self.parent[i][j] = np.searchsorted(self.keys[i][j - 1], prefix)

    def num_views(self, player: int, round_index: int) -> int:
        return len(self.keys[player][round_index])

    def views_of(self, player: int, round_index: int, cards: np.ndarray) -> np.ndarray:
        """The round-``round_index`` view of ``player`` for deals ``cards`` of depth at least the
        round's end depth."""
        cols = self.columns[player][round_index]
        key = encode_rows(cards[:, cols], len(self.game.signals))
        return np.searchsorted(self.keys[player][round_index], key)

    def text(self, player: int, round_index: int, view: int) -> str:
        """The round's own signals of a view as text (``"Qh"``)."""
        return self.game.view_text(self.rows[player][round_index][view], player, round_index)


@dataclass
class ViewPartition:
    """An information filter (module docstring): ``view_class[i][j]`` gives each view of player i at
    round j its class 0..C−1; ``class_parent[i][j]`` each class its class of round j − 1."""

    view_class: list[list[np.ndarray]]
    class_parent: list[list[np.ndarray]]

    def num_classes(self, player: int, round_index: int) -> int:
        return int(len(self.class_parent[player][round_index]))

    def counts(self) -> list[list[int]]:
        return [[len(p) for p in per_player] for per_player in self.class_parent]

    def ancestor(self, player: int, round_index: int, classes: np.ndarray, target: int) -> np.ndarray:
        """The classes of round ``target`` ≤ ``round_index`` containing ``classes``."""
        out = np.asarray(classes)
        for j in range(round_index, target, -1):
            out = self.class_parent[player][j][out]
        return out

    @classmethod
    def identity(cls, views: ViewIndex) -> ViewPartition:
        """F^j(α̃, β̃_i) = {(α̃, β̃_i)}: every view its own class (the unabstracted game)."""
        r = len(views.game.rounds)
        view_class = [[np.arange(views.num_views(i, j)) for j in range(r)] for i in range(2)]
        parent = [[views.parent[i][j].copy() for j in range(r)] for i in range(2)]
        return cls(view_class, parent)

    @classmethod
    def from_labels(cls, views: ViewIndex, labels: list[list[np.ndarray]]) -> ViewPartition:
        """Classes from any labelling of the views that refines the previous round's (renumbered
        0..C−1 in order of first view); raises ``ValueError`` when a class would straddle two
        classes of the previous round (information preservation violated)."""
        r = len(views.game.rounds)
        view_class = [[None] * r for _ in range(2)]
        parent = [[None] * r for _ in range(2)]
        for i in range(2):
            for j in range(r):
                _, first, inverse = np.unique(np.asarray(labels[i][j]), return_index=True,
                                              return_inverse=True)
                order = np.argsort(np.argsort(first))     # classes numbered by first member
                classes = order[inverse.reshape(-1)]
                view_class[i][j] = classes
                if j == 0:
                    parent[i][j] = np.zeros(len(first), dtype=np.int64)
                    continue
                prev = view_class[i][j - 1][views.parent[i][j]]
                par = np.full(len(first), -1, dtype=np.int64)
                par[classes] = prev
                if np.any(par[classes] != prev):
                    raise ValueError("a class of round j lies in two classes of round j − 1")
                parent[i][j] = par
        return cls(view_class, parent)


__all__ = ["ViewIndex", "ViewPartition", "encode_rows"]
