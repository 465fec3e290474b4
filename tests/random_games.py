"""Random games for the property tests: two-player trees, bimatrix games, and the zero-sum trees of
the refinement tests (perfect-information trees with distinct payoffs, imperfect-information trees
with chance). The team games of the TMECor tests are in ``random_team_games.py``.

The tests import this module by name (``tests/conftest.py`` puts this folder on ``sys.path``; pytest
runs with ``--import-mode=importlib``, which does not). Each test module picks its payoffs and its
chance distributions through the parameters, so that, for instance, the games handed to Gambit have
integer payoffs and chance probabilities 1/2 or 1/3 only.

A tree is built top down. Every node is a terminal (at ``max_depth`` always), a chance node with two
or three outcomes, or a decision node of player 1 or 2 (player 1 twice as likely). A player's
information set is named by what that player has seen: its own actions always, a chance outcome or
the opponent's action when a coin says so. Two nodes with the same view share an information set
and its number of actions, so the games have perfect recall by construction.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import networkx as nx
import numpy as np
from hypothesis import strategies as st

from lpgame.game import Game, NormalFormGame


def integer_payoffs(low: int, high: int):
    """Payoffs drawn from the integers low..high."""
    return st.integers(low, high)


def fraction_payoffs(low: int, high: int, denominators=(1, 2)):
    """Payoffs a/d with a in low..high and d in ``denominators``."""
    return st.builds(Fraction, st.integers(low, high), st.sampled_from(list(denominators)))


def uniform_chance(k: int):
    """Chance outcomes of equal weight."""
    return st.just([1] * k)


def weighted_chance(k: int, low: int = 1, high: int = 3):
    """Chance outcomes of integer weights low..high, normalised (a zero weight is an outcome of
    probability 0; at least one weight is positive)."""
    return st.lists(st.integers(low, high), min_size=k, max_size=k).filter(any)


DEFAULT_PAYOFFS = fraction_payoffs(-4, 4)


@st.composite
def two_player_trees(draw, max_depth: int = 4, *, zero_sum: bool = False,
                     payoffs=DEFAULT_PAYOFFS, chance=weighted_chance,
                     max_chance_nodes: int | None = None, name: str = "random game") -> Game:
    """A random two-player game with chance, imperfect information and perfect recall (module
    docstring). ``payoffs`` draws one payoff; ``chance(k)`` draws k integer weights;
    ``max_chance_nodes`` caps the chance nodes (a further chance node becomes a decision node)."""
    graph = nx.DiGraph()
    counter = itertools.count()
    num_actions: dict[str, int] = {}
    chance_nodes = [0]

    def grow(views: tuple[tuple, tuple], depth: int) -> int:
        node = next(counter)
        choice = 0 if depth >= max_depth else draw(st.integers(0 if depth else 1, 6))
        if choice == 1 and max_chance_nodes is not None and chance_nodes[0] >= max_chance_nodes:
            choice = 2
        if choice == 0:
            u1 = draw(payoffs)
            u2 = -u1 if zero_sum else draw(payoffs)
            graph.add_node(node, kind="terminal", payoffs=(u1, u2))
            return node
        if choice == 1:
            chance_nodes[0] += 1
            graph.add_node(node, kind="chance")
            weights = draw(chance(draw(st.integers(2, 3))))
            seen = [draw(st.booleans()) for _ in range(2)]
            for o, w in enumerate(weights):
                child_views = tuple(v + (("chance", o),) if seen[i] else v
                                    for i, v in enumerate(views))
                graph.add_edge(node, grow(child_views, depth + 1), action=f"o{o}",
                               prob=Fraction(w, sum(weights)))
            return node
        player = 0 if choice <= 3 else 1
        label = f"P{player + 1} {views[player]}"
        num_actions.setdefault(label, draw(st.integers(2, 3)))
        graph.add_node(node, kind="decision", player=player, infoset=label)
        opponent_sees = draw(st.booleans())
        for a in range(num_actions[label]):
            child_views = [None, None]
            child_views[player] = views[player] + (("own", a),)
            child_views[1 - player] = views[1 - player] + ((("opp", a),) if opponent_sees else ())
            graph.add_edge(node, grow(tuple(child_views), depth + 1), action=f"a{a}")
        return node

    grow(((), ()), 0)
    return Game(graph, 2, root=0, name=name)


@st.composite
def payoff_matrices(draw, max_size: int = 4, low: int = -3, high: int = 3,
                    zero_sum: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(A, B): two m × n integer object arrays, m and n in 1..max_size, B = −A when zero-sum."""
    m, n = draw(st.integers(1, max_size)), draw(st.integers(1, max_size))
    cells = st.lists(st.integers(low, high), min_size=m * n, max_size=m * n)
    a = np.array(draw(cells), dtype=object).reshape(m, n)
    b = -a if zero_sum else np.array(draw(cells), dtype=object).reshape(m, n)
    return a, b


def bimatrix_games(max_size: int = 4, low: int = -3, high: int = 3, zero_sum: bool = False,
                   name: str = "random bimatrix game"):
    """:func:`payoff_matrices` as a :class:`NormalFormGame`."""
    return payoff_matrices(max_size, low, high, zero_sum).map(
        lambda ab: NormalFormGame(np.stack(ab), name=name))


# ------------------------------------------------- zero-sum trees for the refinements (issue 22)
@st.composite
def perfect_information_games(draw) -> Game:
    """Random zero-sum trees, every node its own information set, chance nodes, distinct payoffs."""
    graph = nx.DiGraph()
    counter = itertools.count()
    used: set[int] = set()

    def payoff() -> int:
        value = draw(st.integers(-10 ** 6, 10 ** 6).filter(lambda v: v not in used))
        used.add(value)
        return value

    def grow(depth: int) -> int:
        node = next(counter)
        kind = 0 if depth >= 4 else draw(st.integers(0 if depth else 1, 5))
        if kind == 0:
            u = payoff()
            graph.add_node(node, kind="terminal", payoffs=(u, -u))
            return node
        k = draw(st.integers(2, 3))
        if kind == 1:
            graph.add_node(node, kind="chance")
            weights = draw(st.lists(st.integers(1, 4), min_size=k, max_size=k))
            for o, w in enumerate(weights):
                graph.add_edge(node, grow(depth + 1), action=f"o{o}", prob=Fraction(w, sum(weights)))
            return node
        player = 0 if kind in (2, 3) else 1
        graph.add_node(node, kind="decision", player=player, infoset=f"n{node}")
        for a in range(k):
            graph.add_edge(node, grow(depth + 1), action=f"a{a}")
        return node

    grow(0)
    return Game(graph, 2, root=0, name="random perfect-information game")


def imperfect_information_games():
    """Random zero-sum games with chance and perfect recall for the refinement tests: the trees of
    :func:`two_player_trees`, depth 3, uniform chance, payoffs a/d with |a| ≤ 6 and d ∈ {1, 2, 3}."""
    return two_player_trees(max_depth=3, zero_sum=True, payoffs=fraction_payoffs(-6, 6, (1, 2, 3)),
                            chance=uniform_chance)
