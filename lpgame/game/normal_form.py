"""Normal-form (strategic-form) games with n players as payoff tensors.

A normal-form game Γ = (N, (S_i), (u_i)) (Rojas Linárez 2020, Def. 1.1) is stored as one array
``payoffs`` of shape ``(n, |S_1|, ..., |S_n|)``: ``payoffs[i][s_1, ..., s_n]`` is player i's payoff
at the pure profile s. Entries may be ints, Fractions (object arrays, for exact mode) or floats.

:meth:`NormalFormGame.to_extensive` writes it as a one-level extensive form: players move in turn,
each in a single information set that sees nothing of the earlier moves, so the sequence form of
the result has one information set and |S_i| + 1 sequences per player and its payoff matrix is the
normal-form matrix itself (Koller, Megiddo & von Stengel 1996).

Example
-------
>>> rps = NormalFormGame([[[0, -1, 1], [1, 0, -1], [-1, 1, 0]],
...                       [[0, 1, -1], [-1, 0, 1], [1, -1, 0]]],
...                      actions=[["R", "P", "S"], ["R", "P", "S"]], name="RPS")
>>> rps.to_extensive().sizes()["sequences"]
[4, 4]
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from lpgame.errors import InvalidGameError
from lpgame.game.tree import DECISION, TERMINAL, Game
from lpgame.rational import float_or_infinity


def _is_exact(value) -> bool:
    """An int or Fraction (not a bool): a finite number whatever its size."""
    return isinstance(value, (int, Fraction)) and not isinstance(value, bool)


class NormalFormGame:
    """An n-player game in strategic form (see module docstring)."""

    def __init__(self, payoffs, actions: Sequence[Sequence[str]] | None = None,
                 name: str = "normal-form game", player_names: Sequence[str] | None = None):
        arr = np.array(payoffs, dtype=object)
        if arr.ndim < 2:
            raise InvalidGameError(
                f"{name}: payoffs must have shape (players, |S_1|, ..., |S_n|), got {arr.shape}")
        n = arr.shape[0]
        if arr.ndim != n + 1:
            raise InvalidGameError(
                f"{name}: payoffs for {n} players need {n + 1} dimensions, got shape {arr.shape}")
        if 0 in arr.shape[1:]:
            empty = arr.shape[1:].index(0)
            raise InvalidGameError(
                f"{name}: player {empty + 1} has no strategy (payoff shape {arr.shape})")
        for index, value in np.ndenumerate(arr):
            try:   # exact numbers beyond the double range (10**400) are finite: exact mode uses them
                ok = math.isfinite(float_or_infinity(value)) or _is_exact(value)
            except (TypeError, ValueError):
                ok = False
            if not ok:
                raise InvalidGameError(
                    f"{name}: payoff of player {index[0] + 1} at profile {index[1:]} is {value!r};"
                    " payoffs must be finite numbers")
        self.payoffs = arr
        self.num_players = n
        self.shape = arr.shape[1:]
        if actions is None:
            actions = [[str(k) for k in range(m)] for m in self.shape]
        actions = [[str(a) for a in acts] for acts in actions]
        if len(actions) != n or any(len(a) != m for a, m in zip(actions, self.shape)):
            raise InvalidGameError(
                f"{name}: action labels {[len(a) for a in actions]} do not match the payoff shape"
                f" {self.shape}")
        for i, acts in enumerate(actions):
            if len(set(acts)) != len(acts):
                raise InvalidGameError(f"{name}: player {i + 1} has repeated action labels {acts}")
        self.actions = actions
        self.name = name
        self.player_names = list(player_names) if player_names else [
            f"player {i + 1}" for i in range(n)]

    def payoff_array(self, player: int, exact: bool = False) -> np.ndarray:
        """Player ``player``'s payoff tensor as floats, or as Fractions when ``exact``."""
        if exact:
            return np.vectorize(_to_fraction, otypes=[object])(self.payoffs[player])
        return self.payoffs[player].astype(float)

    def is_zero_sum(self) -> bool:
        return bool(np.all(np.abs(self.payoffs.astype(float).sum(axis=0)) <= 1e-12))

    def infoset_label(self, player: int) -> str:
        """Label of player ``player``'s single information set in :meth:`to_extensive`."""
        return self.player_names[player]

    def to_extensive(self) -> Game:
        """The one-level extensive form: each player picks once, seeing nothing."""
        import networkx as nx

        graph = nx.DiGraph()
        counter = itertools.count()
        root = next(counter)
        graph.add_node(root, kind=DECISION, player=0, infoset=self.infoset_label(0))
        frontier = [(root, ())]
        for player in range(self.num_players):
            nxt = []
            for node, profile in frontier:
                for k, label in enumerate(self.actions[player]):
                    child = next(counter)
                    prof = profile + (k,)
                    if player + 1 < self.num_players:
                        graph.add_node(child, kind=DECISION, player=player + 1,
                                       infoset=self.infoset_label(player + 1))
                    else:
                        graph.add_node(child, kind=TERMINAL,
                                       payoffs=tuple(self.payoffs[(slice(None),) + prof]))
                    graph.add_edge(node, child, action=label)
                    nxt.append((child, prof))
            frontier = nxt
        return Game(graph, self.num_players, root=root, name=self.name,
                    player_names=self.player_names)

    def __repr__(self) -> str:
        return f"NormalFormGame({self.name!r}, shape={self.shape})"


def _to_fraction(value) -> Fraction:
    if isinstance(value, float):
        return Fraction(repr(value))
    return Fraction(value)


__all__ = ["NormalFormGame"]
