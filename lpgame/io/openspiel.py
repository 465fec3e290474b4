"""OpenSpiel interop: import a turn-based OpenSpiel game, and convert policies both ways.

OpenSpiel (Lanctot et al. 2019) describes a game by states: ``current_player()``, ``legal_actions()``,
``chance_outcomes()``, ``apply_action()``, ``returns()`` and per-player
``information_state_string()``. :func:`game_from_openspiel` walks the states depth first and records
lpgame's explicit tree node by node (:mod:`lpgame.game.flat_tree`; the networkx graph is made only
when asked for), with

* information-set labels = OpenSpiel's information-state strings (so policies map one to one);
* action labels = ``action_to_string`` (made unique within a node by appending the action id when
  two actions print the same);
* chance probabilities as exact Fractions when the floats OpenSpiel gives are the nearest doubles to
  simple rationals that sum to exactly one (e.g. 1/3), otherwise as the floats themselves;
* payoffs from ``returns()`` (integers kept as ints).

The game is then validated like any other (perfect recall, probabilities). Only sequential
(turn-based) games are accepted; simultaneous-move games raise :class:`~lpgame.errors.InvalidGameError`.

Policies: :func:`strategies_from_openspiel_policy` reads an OpenSpiel ``TabularPolicy`` (or any
policy with ``action_probabilities(state)``) into lpgame strategies for a game imported here;
:func:`strategies_to_openspiel_policy` writes lpgame strategies into a ``TabularPolicy``.
Requires the optional extra ``openspiel`` (``pip install lpgame[openspiel]``).
"""

from __future__ import annotations

import contextlib
import os
import sys
from fractions import Fraction

from lpgame.errors import InvalidGameError, OptionError, StrategyError, did_you_mean
from lpgame.game.flat_tree import FlatTree, paused_gc
from lpgame.game.tree import CHANCE, DECISION, TERMINAL, Game
from lpgame.limits import BYTES_PER_TREE_NODE, check_prediction, tree_node_limit

MAX_DENOMINATOR = 10**6


def _pyspiel():
    try:
        import pyspiel
    except ImportError as exc:  # pragma: no cover - depends on the optional extra
        raise InvalidGameError("OpenSpiel is not installed: pip install 'lpgame[openspiel]'") from exc
    return pyspiel


def _exact_probabilities(probs: list[float]) -> list:
    """Simple rationals when they reproduce the floats exactly and sum to one, else the floats."""
    fractions = [Fraction(p).limit_denominator(MAX_DENOMINATOR) for p in probs]
    if sum(fractions) == 1 and all(float(f) == p for f, p in zip(fractions, probs)):
        return fractions
    return list(probs)


def _number(value: float):
    return int(value) if float(value).is_integer() else value


def _action_labels(state, player: int, actions: list[int]) -> list[str]:
    labels = [state.action_to_string(player, a) for a in actions]
    if len(set(labels)) != len(labels):
        labels = [f"{lab}#{a}" for lab, a in zip(labels, actions)]
    return labels


def game_from_openspiel(game, memory_limit: int | None = None) -> Game:
    """lpgame :class:`~lpgame.game.Game` of an OpenSpiel game (an object or a name for
    ``pyspiel.load_game``), walked depth first (see module docstring)."""
    pyspiel = _pyspiel()
    game = _load(game)
    try:
        with paused_gc():
            return _walk(pyspiel, game, memory_limit)
    except pyspiel.SpielError as exc:      # a game OpenSpiel loads but cannot walk this way
        raise InvalidGameError(f"OpenSpiel game {str(game)!r} cannot be imported: "
                               f"{_spiel_message(exc)}") from None


def _walk(pyspiel, game, memory_limit: int | None) -> Game:
    """The depth-first walk of :func:`game_from_openspiel`."""
    gtype = game.get_type()
    if gtype.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        raise InvalidGameError(f"OpenSpiel game {gtype.short_name!r} is not turn-based "
                               f"({gtype.dynamics}); only sequential games can be imported")
    n = game.num_players()
    max_nodes = tree_node_limit(memory_limit)
    records: list[tuple] = []
    record = records.append
    chance_player = pyspiel.PlayerId.CHANCE
    probability_cache: dict = {}
    # stack of (state, parent id, position among the parent's children)
    stack = [(game.new_initial_state(), -1, 0)]
    push, pop = stack.append, stack.pop
    while stack:
        state, parent, position = pop()
        node = len(records)
        if node >= max_nodes:
            check_prediction(f"importing OpenSpiel game {gtype.short_name!r} (more than {max_nodes}"
                             " nodes)", (node + 1) * BYTES_PER_TREE_NODE, memory_limit)
        if state.is_terminal():
            record((parent, position, TERMINAL, (), tuple([_number(r) for r in state.returns()]),
                    None, None))
            continue
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            actions = [a for a, _ in outcomes]
            floats = tuple([p for _, p in outcomes])
            probs = probability_cache.get(floats)
            if probs is None:
                probs = probability_cache[floats] = tuple(_exact_probabilities(list(floats)))
            record((parent, position, CHANCE, tuple(_action_labels(state, chance_player, actions)),
                    probs, None, None))
            for k in range(len(actions) - 1, -1, -1):
                push((state.child(actions[k]), node, k))
            continue
        player = state.current_player()
        actions = state.legal_actions()
        record((parent, position, DECISION, tuple(_action_labels(state, player, actions)), None,
                int(player), state.information_state_string(player)))
        for k in range(len(actions) - 1, -1, -1):
            push((state.child(actions[k]), node, k))
    return Game.from_flat_tree(FlatTree(records), n, name=f"openspiel:{game}")


def _first_states_of_infosets(openspiel_game):
    """Each decision information state once: (key, player, a state in it, action labels, ids)."""
    seen: set[str] = set()
    stack = [openspiel_game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance_node():
            stack.extend(state.child(a) for a, _ in state.chance_outcomes())
            continue
        player = state.current_player()
        key = state.information_state_string(player)
        actions = state.legal_actions()
        if key not in seen:
            seen.add(key)
            yield key, player, state, _action_labels(state, player, actions), actions
        stack.extend(state.child(a) for a in actions)


def _load(openspiel_game):
    """``pyspiel.load_game`` of a name, with OpenSpiel's errors (unknown game, malformed
    parameters, parameters out of range) raised as :class:`~lpgame.errors.InvalidGameError`."""
    if not isinstance(openspiel_game, str):
        return openspiel_game
    pyspiel = _pyspiel()
    if not openspiel_game.strip():
        raise InvalidGameError("OpenSpiel game name is empty; give a name such as 'kuhn_poker'")
    try:
        with _quiet_stderr():     # OpenSpiel's C++ also prints its error, with every game's name
            return pyspiel.load_game(openspiel_game)
    except pyspiel.SpielError as exc:
        short_name = openspiel_game.split("(", 1)[0].strip()
        hint = (did_you_mean(short_name, pyspiel.registered_names())
                if str(exc).startswith("Unknown game") else "")
        raise InvalidGameError(f"OpenSpiel cannot load game {openspiel_game!r}: "
                               f"{_spiel_message(exc)}{hint}") from None


def game_from_openspiel_spec(spec: str, params: dict | None = None,
                             memory_limit: int | None = None) -> Game:
    """lpgame :class:`~lpgame.game.Game` of the OpenSpiel game named by ``spec``, the text after
    ``openspiel:`` in a game name: ``leduc_poker`` or ``kuhn_poker(players=3)`` (OpenSpiel's own
    syntax, as ``pyspiel.load_game`` takes it). ``params`` (key=value game parameters, e.g. from
    the command line) are added as OpenSpiel parameters; give them one way or the other."""
    spec = spec.strip()
    if params:
        if "(" in spec:
            raise OptionError(f"openspiel:{spec}: give the OpenSpiel game's parameters either in "
                              f"parentheses or as key=value ({', '.join(params)}), not both")
        if not spec:
            raise InvalidGameError("OpenSpiel game name is empty; give a name such as "
                                   "'openspiel:kuhn_poker'")
        spec = f"{spec}({','.join(f'{k}={_param_text(v)}' for k, v in params.items())})"
    return game_from_openspiel(spec, memory_limit)


def _param_text(value) -> str:
    """A parameter value in OpenSpiel's ``name(key=value)`` syntax (booleans in lower case)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@contextlib.contextmanager
def _quiet_stderr():
    """File descriptor 2 pointed at the null device for the duration (C-level writes included)."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):       # no usable descriptor 2
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def _spiel_message(exc: Exception) -> str:
    """OpenSpiel's error text, shortened: its unknown-game message lists every game it has."""
    text = " ".join(str(exc).split())
    if text.startswith("Unknown game"):
        return text.split(". Available games")[0] + " (pyspiel.registered_names() lists the games)"
    return text if len(text) <= 300 else text[:300] + "…"


def strategies_from_openspiel_policy(game: Game, openspiel_game, policy) -> list[dict]:
    """lpgame strategies of ``game`` (imported by :func:`game_from_openspiel`) from an OpenSpiel
    policy: each information set's probabilities are read at one of its states."""
    openspiel_game = _load(openspiel_game)
    strategies: list[dict] = [{} for _ in range(openspiel_game.num_players())]
    for key, player, state, labels, actions in _first_states_of_infosets(openspiel_game):
        probs = policy.action_probabilities(state, player)
        strategies[player][key] = {lab: float(probs.get(a, 0.0)) for a, lab in zip(actions, labels)}
    for i, strategy in enumerate(strategies):
        missing = [j for j in game.infosets(i) if j not in strategy]
        if missing:
            raise StrategyError(f"OpenSpiel policy has no entry for information sets "
                                  f"{', '.join(map(str, missing[:5]))}")
    return strategies


def tabular_policy(openspiel_game):
    """OpenSpiel's ``TabularPolicy`` (uniform over the legal actions) of an OpenSpiel game, given
    as an object or a name for ``pyspiel.load_game``."""
    _pyspiel()
    from open_spiel.python import policy as policy_lib
    return policy_lib.TabularPolicy(_load(openspiel_game))


def strategies_to_openspiel_policy(game: Game, openspiel_game, strategies: list[dict]):
    """An OpenSpiel ``TabularPolicy`` playing lpgame ``strategies`` of the imported ``game``."""
    from open_spiel.python import policy as policy_lib

    openspiel_game = _load(openspiel_game)
    tabular = policy_lib.TabularPolicy(openspiel_game)
    for key, player, _state, labels, actions in _first_states_of_infosets(openspiel_game):
        if key not in strategies[player]:
            raise StrategyError(f"no strategy for OpenSpiel information state {key!r}")
        row = tabular.policy_for_key(key)
        row[:] = 0.0
        for a, lab in zip(actions, labels):
            row[a] = float(strategies[player][key][lab])
    return tabular
