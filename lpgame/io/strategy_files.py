"""Load strategies computed elsewhere (CFR runs, notebooks, OpenSpiel) and match them to a game.

Formats:

* **JSON**: lpgame's strategy files ``{"game": ..., "strategies": [{infoset: {action: p}}, ...]}``,
  solve results (:meth:`lpgame.result.Result.to_dict`), learning results
  (:meth:`lpgame.learning.LearningResult.to_dict`), a bare list with one mapping per player, or one
  flat ``{infoset: {action: p}}`` mapping whose labels are matched to players by the game.
  Exact probabilities may be strings such as ``"1/3"``.
* **CSV** with a header row and the columns *information set*, *action*, *probability* (accepted
  spellings: ``infoset``, ``information_set``, ``information set``; ``prob``, ``probability``), and
  optionally *player* (1-based, as lpgame prints players). Without a player column each label is
  looked up among all players' information sets.
* **OpenSpiel** ``TabularPolicy`` objects (``open_spiel.python.policy``): each row of the policy
  table is one information-state string. A ``mapping`` turns OpenSpiel's strings into lpgame labels
  (a callable or a dict; default: the identity, which fits games imported by
  :func:`lpgame.io.openspiel.game_from_openspiel`, and :func:`kuhn_label_from_openspiel` for a policy
  of OpenSpiel's ``kuhn_poker``). Actions are matched by position: the k-th legal OpenSpiel action
  is the k-th action of the lpgame information set, unless ``action_mapping(label, action_id)``
  says otherwise.
* **OpenSpiel policy JSON** (needs OpenSpiel): the JSON of ``TabularPolicy.to_dict()``, i.e.
  ``{information state string: [[action id, probability], ...]}``
  (``json.dump(policy.to_dict(), file)``), either bare, for a game named ``openspiel:NAME``, or
  wrapped as ``{"openspiel_game": "kuhn_poker", "policy": {...}}`` to name the OpenSpiel game (then
  it also fits lpgame's own ``kuhn_poker``, as a TabularPolicy does). Actions not listed get 0.

Matching rules (every format): an information set the game does not have, or one that two players
share when no player is given, is *unmatched*; an information set of the game without any row is
*missing*; both raise :class:`~lpgame.errors.StrategyError` listing them (``missing="uniform"`` fills
missing sets uniformly, with a warning). Unknown actions, duplicated rows, and negative or NaN
probabilities raise StrategyError naming the place. Actions left out of a row get probability 0.
A row whose probabilities do not sum to one (beyond 1e-9) is normalised with a
:class:`StrategyNormalisationWarning` (``warnings.warn``); a row summing to zero is an error.
"""

from __future__ import annotations

import csv
import json
import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from lpgame.errors import StrategyError
from lpgame.io.json_io import number_from_json, read_json
from lpgame.io.safe_files import atomic_path

SUM_TOLERANCE = 1e-9
MAX_LISTED = 10

INFOSET_COLUMNS = ("infoset", "information_set", "information set", "information-set")
ACTION_COLUMNS = ("action",)
PROBABILITY_COLUMNS = ("probability", "prob", "p")
PLAYER_COLUMNS = ("player",)


class StrategyNormalisationWarning(UserWarning):
    """A loaded strategy's probabilities at an information set did not sum to one; normalised."""


@dataclass
class StrategyRow:
    """One probability read from a file: where it came from, whose, which set and action."""

    player: int | None        # 0-based, or None when the source does not say
    infoset: str
    action: str
    probability: object       # float or Fraction
    where: str                # e.g. "strategies.csv line 7"


# ---------------------------------------------------------------------- entry point
def load_strategies(source, game, format: str | None = None,
                    mapping: Callable[[str], str | None] | Mapping[str, str] | None = None,
                    action_mapping: Callable[[str, int], str] | None = None,
                    missing: str = "error") -> list[dict]:
    """One ``{information set: {action: probability}}`` per player of ``game``, matched and checked.

    ``source`` is a path (``.json`` or ``.csv``, or ``format="json"|"csv"``), parsed JSON data
    (dict or list), or an OpenSpiel ``TabularPolicy``. ``mapping``/``action_mapping`` apply to
    OpenSpiel policies (module docstring). ``missing`` is ``"error"`` or ``"uniform"``.
    """
    from lpgame.compile import as_game

    game = as_game(game)
    if _is_tabular_policy(source):
        rows = rows_from_tabular_policy(source, game, mapping, action_mapping)
    elif is_openspiel_policy_data(source):
        rows = rows_from_openspiel_policy_data(source, game, "JSON data", mapping)
    elif isinstance(source, (dict, list)):
        rows = rows_from_json_data(source, "JSON data")
    else:
        path = Path(source)
        kind = (format or path.suffix.lstrip(".")).lower()
        if not path.exists():
            raise StrategyError(f"{path}: no such strategy file")
        if path.is_dir():
            raise StrategyError(f"{path}: is a folder, not a strategy file")
        if kind in ("json", "openspiel"):
            data = _read_json(path)
            if kind == "openspiel" or is_openspiel_policy_data(data):
                rows = rows_from_openspiel_policy_data(data, game, str(path), mapping)
            else:
                rows = rows_from_json_data(data, str(path))
        elif kind == "csv":
            rows = rows_from_csv(path)
        else:
            raise StrategyError(f"{path}: unknown strategy file format {kind!r}; use .json or .csv "
                                "(or format='json'/'csv')")
    return match_rows(rows, game, missing=missing)


# ---------------------------------------------------------------------- JSON
def _read_json(path: Path):
    return read_json(path, what="strategy file")


def rows_from_json_data(data, where: str) -> list[StrategyRow]:
    """Rows of a parsed JSON strategy file, solve result, learning result or flat mapping."""
    if isinstance(data, dict) and "strategies" in data:
        data = data["strategies"]
    rows: list[StrategyRow] = []
    if isinstance(data, list):
        for k, player in enumerate(data):
            if not isinstance(player, dict):
                raise StrategyError(f"{where}: strategies[{k}] must be an object "
                                    "{information set: {action: probability}}")
            rows.extend(_rows_of_mapping(player, k, f"{where}, player {k + 1}"))
    elif isinstance(data, dict):
        rows.extend(_rows_of_mapping(data, None, where))
    else:
        raise StrategyError(f"{where}: expected a strategy file (an object with 'strategies', a "
                            "list with one mapping per player, or one {infoset: {action: p}})")
    return rows


def _rows_of_mapping(mapping: dict, player: int | None, where: str) -> list[StrategyRow]:
    rows = []
    for infoset, probabilities in mapping.items():
        if not isinstance(probabilities, dict):
            raise StrategyError(f"{where}, information set {infoset!r}: expected "
                                f"{{action: probability}}, got {probabilities!r}")
        for action, p in probabilities.items():
            rows.append(StrategyRow(player, str(infoset), str(action), _number(p, where),
                                    f"{where}, information set {infoset!r}"))
    return rows


def _number(value, where: str):
    if isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
        raise StrategyError(f"{where}: probability {json.dumps(value)[:40]} is not a number")
    if isinstance(value, str):
        text = value.strip()
        if "/" in text:
            try:
                return number_from_json(text)
            except (StrategyError, ValueError) as exc:
                raise StrategyError(f"{where}: probability {_short(value)} is not a number") from exc
        try:
            return float(text)
        except ValueError as exc:
            raise StrategyError(f"{where}: probability {_short(value)} is not a number") from exc
    if isinstance(value, Fraction):
        return value
    try:
        return float(value)
    except OverflowError:
        raise StrategyError(f"{where}: probability {_short(value)} is too large") from None
    except (TypeError, ValueError) as exc:
        raise StrategyError(f"{where}: probability {_short(value)} is not a number") from exc


def _short(value) -> str:
    text = str(value)
    return text if len(text) <= 40 else f"{text[:20]}… ({len(text)} characters)"


# ---------------------------------------------------------------------- CSV
def _column(header: list[str], names: tuple[str, ...], path: Path, required: bool = True):
    normalised = [h.strip().lower() for h in header]
    for name in names:
        if name in normalised:
            return normalised.index(name)
    if required:
        raise StrategyError(f"{path}: line 1: no {names[0]!r} column; the header is {header} "
                            "(expected information set, action, probability and optionally player)")
    return None


def rows_from_csv(path: Path) -> list[StrategyRow]:
    """Rows of a CSV strategy file (module docstring); a file that is not UTF-8 text (a binary
    file), a folder or a malformed CSV record raises StrategyError naming the file and line."""
    try:
        return _rows_from_csv(path)
    except UnicodeDecodeError as exc:
        raise StrategyError(f"{path}: not a UTF-8 text file (byte {exc.start} cannot be decoded); "
                            "expected a CSV strategy file") from None
    except csv.Error as exc:
        raise StrategyError(f"{path}: not a readable CSV file ({exc})") from None
    except OSError as exc:
        raise StrategyError(f"{path}: cannot read the file ({exc.strerror or exc})") from None


def _rows_from_csv(path: Path) -> list[StrategyRow]:
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        try:
            header = next(reader)
        except StopIteration as exc:
            raise StrategyError(f"{path}: the file is empty") from exc
        c_infoset = _column(header, INFOSET_COLUMNS, path)
        c_action = _column(header, ACTION_COLUMNS, path)
        c_prob = _column(header, PROBABILITY_COLUMNS, path)
        c_player = _column(header, PLAYER_COLUMNS, path, required=False)
        width = max(c for c in (c_infoset, c_action, c_prob, c_player) if c is not None) + 1
        rows = []
        for line, record in enumerate(reader, start=2):
            if not record or all(not cell.strip() for cell in record):
                continue
            where = f"{path} line {line}"
            if len(record) < width:
                raise StrategyError(f"{where}: {len(record)} columns, expected {len(header)}")
            player = None
            if c_player is not None:
                text = record[c_player].strip()
                try:
                    player = int(text) - 1
                except ValueError as exc:
                    raise StrategyError(f"{where}: player {text!r} is not a number (1, 2, ...)") \
                        from exc
                if player < 0:
                    raise StrategyError(f"{where}: player {text!r}; players are numbered from 1")
            rows.append(StrategyRow(player, record[c_infoset].strip(), record[c_action].strip(),
                                    _number(record[c_prob], where), where))
    return rows


# ---------------------------------------------------------------------- OpenSpiel
def _is_tabular_policy(source) -> bool:
    return hasattr(source, "action_probability_array") and hasattr(source, "state_lookup")


def kuhn_label_from_openspiel(infostate: str, cards: int | None = None) -> str:
    """lpgame's ``kuhn_poker`` label of an OpenSpiel ``kuhn_poker`` information-state string.

    OpenSpiel writes the player's card (0 = lowest) followed by the betting history in ``p``
    (pass) and ``b`` (bet) letters: ``"0"``, ``"1p"``, ``"2b"``, ``"0pb"``. lpgame writes the card
    (J, Q, K for three cards, 1..r otherwise) and the actions as words, where a pass is a check
    before any bet and a fold after one, and a bet is a call after one: ``"J"``, ``"Q check"``,
    ``"K bet"``, ``"J check bet"``. ``cards`` defaults to 3 (OpenSpiel's n-player Kuhn uses n + 1).
    """
    from lpgame.games.poker import card_names

    digits = ""
    k = 0
    while k < len(infostate) and infostate[k].isdigit():
        digits += infostate[k]
        k += 1
    history = infostate[k:]
    if not digits or any(c not in "pb" for c in history):
        raise StrategyError(f"{infostate!r} is not an OpenSpiel kuhn_poker information state")
    names = card_names(cards or 3)
    card = int(digits)
    if card >= len(names):
        raise StrategyError(f"{infostate!r}: card {card} does not exist with {len(names)} cards")
    words = []
    bet_made = False
    for letter in history:
        if letter == "b":
            words.append("call" if bet_made else "bet")
            bet_made = True
        else:
            words.append("fold" if bet_made else "check")
    return " ".join([names[card]] + words)


def _default_mapping(policy, game) -> Callable[[str], str | None]:
    """Identity for labels the game has (games imported from OpenSpiel); OpenSpiel's Kuhn strings
    translated by :func:`kuhn_label_from_openspiel` otherwise."""
    labels = {label for i in range(game.num_players) for label in game.infosets(i)}
    short_name = ""
    try:
        short_name = policy.game.get_type().short_name
    except AttributeError:
        pass
    if short_name == "kuhn_poker":
        cards = policy.game.num_players() + 1
        return lambda key: key if key in labels else kuhn_label_from_openspiel(key, cards)
    return lambda key: key


def is_openspiel_policy_data(data) -> bool:
    """Whether parsed JSON is an OpenSpiel policy (module docstring): the wrapper, or a non-empty
    object whose every value is a list of ``[action id, probability]`` pairs."""
    if isinstance(data, dict) and "openspiel_game" in data and "policy" in data:
        return True
    return (isinstance(data, dict) and bool(data) and "strategies" not in data
            and all(isinstance(v, list) and all(isinstance(pair, list) and len(pair) == 2
                                                 for pair in v) for v in data.values()))


def rows_from_openspiel_policy_data(data, game, where: str, mapping=None) -> list[StrategyRow]:
    """Rows of an OpenSpiel policy JSON (module docstring), read through OpenSpiel's own
    ``TabularPolicy`` of the game so that action ids map to lpgame's actions as for a policy
    object; an information state OpenSpiel's game does not have, an action id it does not have,
    or a positive probability on an illegal action raise StrategyError naming the place."""
    from lpgame.io.openspiel import tabular_policy

    name, table = data.get("openspiel_game"), data.get("policy", data)
    if name is None and str(game.name).startswith("openspiel:"):
        name = str(game.name)[len("openspiel:"):]
    if not isinstance(name, str) or not isinstance(table, dict):
        raise StrategyError(f"{where}: an OpenSpiel policy, but lpgame cannot tell its OpenSpiel "
                            "game: name the game openspiel:NAME, or write the file as "
                            '{"openspiel_game": NAME, "policy": {...}}')
    policy = tabular_policy(name)
    unknown = [key for key in table if key not in policy.state_lookup]
    if unknown:
        raise StrategyError(f"{where}: OpenSpiel game {name!r} has no information state "
                            f"{_listing(unknown)}")
    for key, pairs in table.items():
        index = policy.state_lookup[key]
        row = policy.action_probability_array[index]
        row[:] = 0.0
        place = f"{where}, information state {key!r}"
        if not isinstance(pairs, list) or not all(isinstance(p, list) and len(p) == 2 for p in pairs):
            raise StrategyError(f"{place}: expected a list of [action id, probability] pairs")
        for action, probability in pairs:
            if isinstance(action, bool) or not isinstance(action, int) \
                    or not 0 <= action < row.shape[0]:
                raise StrategyError(f"{place}: action id {_short(action)} is not one of OpenSpiel's "
                                    f"0..{row.shape[0] - 1}")
            value = float(_number(probability, place))
            if value != 0 and not policy.legal_actions_mask[index, action]:
                raise StrategyError(f"{place}: action {action} is not legal there, but has "
                                    f"probability {_short(probability)}")
            row[action] = value
    return rows_from_tabular_policy(policy, game, mapping, keys=set(table))


def rows_from_tabular_policy(policy, game, mapping=None, action_mapping=None,
                             keys=None) -> list[StrategyRow]:
    """Rows of an OpenSpiel ``TabularPolicy`` (module docstring); only the information states in
    ``keys`` when given."""
    if mapping is None:
        mapping = _default_mapping(policy, game)
    elif isinstance(mapping, Mapping):
        table = dict(mapping)
        mapping = table.get
    states_per_player = getattr(policy, "states_per_player", None)
    owner = {}
    if states_per_player is not None:
        for player, player_keys in enumerate(states_per_player):
            for key in player_keys:
                owner[key] = player
    rows: list[StrategyRow] = []
    unmapped = []
    for key, row_index in policy.state_lookup.items():
        if keys is not None and key not in keys:
            continue
        label = mapping(key)
        if label is None:
            unmapped.append(key)
            continue
        player = owner.get(key)
        legal = [int(a) for a in range(policy.legal_actions_mask.shape[1])
                 if policy.legal_actions_mask[row_index, a]]
        probabilities = policy.action_probability_array[row_index]
        where = f"OpenSpiel information state {key!r}"
        actions = _lpgame_actions(game, player, str(label))
        for position, action_id in enumerate(legal):
            if action_mapping is not None:
                action = action_mapping(str(label), action_id)
            elif actions is not None and len(actions) == len(legal):
                action = actions[position]
            elif actions is not None:
                raise StrategyError(f"{where} has {len(legal)} legal actions but lpgame's "
                                    f"information set {label!r} has {len(actions)} "
                                    f"({', '.join(actions)}); give an action_mapping")
            else:
                action = str(action_id)
            rows.append(StrategyRow(player, str(label), str(action),
                                    float(probabilities[action_id]), where))
    if unmapped:
        raise StrategyError(f"the mapping gives no lpgame label for {len(unmapped)} OpenSpiel "
                            f"information state(s): {_listing(unmapped)}")
    return rows


def _lpgame_actions(game, player, label: str):
    players = range(game.num_players) if player is None else [player]
    for i in players:
        p = game.index.players[i]
        j = p.infoset_of_label.get(label)
        if j is not None:
            return p.infoset_actions[j]
    return None


# ---------------------------------------------------------------------- matching
def _listing(items) -> str:
    items = list(items)
    shown = ", ".join(repr(x) for x in items[:MAX_LISTED])
    more = f" and {len(items) - MAX_LISTED} more" if len(items) > MAX_LISTED else ""
    return shown + more


def match_rows(rows: list[StrategyRow], game, missing: str = "error") -> list[dict]:
    """Check ``rows`` against ``game`` and build one strategy per player (module docstring)."""
    if missing not in ("error", "uniform"):
        raise StrategyError(f"missing must be 'error' or 'uniform', got {missing!r}")
    n = game.num_players
    index = game.index
    owners: dict[str, list[int]] = {}
    for i in range(n):
        for label in index.players[i].infoset_labels:
            owners.setdefault(label, []).append(i)
    tables: list[dict[str, dict[str, object]]] = [{} for _ in range(n)]
    unmatched: list[str] = []
    ambiguous: list[str] = []
    for row in rows:
        if row.player is not None:
            if row.player >= n:
                raise StrategyError(f"{row.where}: player {row.player + 1}, but {game.name} has "
                                    f"{n} players")
            if row.player not in owners.get(row.infoset, []):
                unmatched.append(f"player {row.player + 1}: {row.infoset}")
                continue
            player = row.player
        else:
            candidates = owners.get(row.infoset, [])
            if not candidates:
                unmatched.append(row.infoset)
                continue
            if len(candidates) > 1:
                ambiguous.append(row.infoset)
                continue
            player = candidates[0]
        p = row.probability
        if (isinstance(p, float) and math.isnan(p)) or p < 0 or \
                (isinstance(p, float) and math.isinf(p)):
            raise StrategyError(f"{row.where}: probability of {row.action!r} is {p}; "
                                "probabilities must be finite and non-negative")
        actions = game.actions(player, row.infoset)
        if row.action not in actions:
            raise StrategyError(f"{row.where}: information set {row.infoset!r} has no action "
                                f"{row.action!r}; its actions are {', '.join(actions)}")
        table = tables[player].setdefault(row.infoset, {})
        if row.action in table:
            raise StrategyError(f"{row.where}: a second probability for action {row.action!r} "
                                f"at information set {row.infoset!r}")
        table[row.action] = p
    if unmatched:
        raise StrategyError(f"{len(set(unmatched))} information set(s) not in {game.name}: "
                            f"{_listing(dict.fromkeys(unmatched))}")
    if ambiguous:
        raise StrategyError(f"information set label(s) {_listing(dict.fromkeys(ambiguous))} belong "
                            "to more than one player; say whose (a player column, or one "
                            "mapping per player)")
    missing_sets = [(i, label) for i in range(n) for label in index.players[i].infoset_labels
                    if label not in tables[i]]
    if missing_sets and missing == "error":
        listed = _listing(f"player {i + 1}: {label}" for i, label in missing_sets)
        raise StrategyError(f"{len(missing_sets)} information set(s) of {game.name} have no "
                            f"probabilities: {listed}")
    if missing_sets:
        warnings.warn(f"{len(missing_sets)} information set(s) without probabilities are played "
                      "uniformly: " + _listing(f"player {i + 1}: {lab}" for i, lab in missing_sets),
                      StrategyNormalisationWarning, stacklevel=2)
    strategies: list[dict] = []
    normalised: list[str] = []
    for i in range(n):
        strategy = {}
        for label in index.players[i].infoset_labels:
            actions = game.actions(i, label)
            given = tables[i].get(label)
            if given is None:
                strategy[label] = {a: Fraction(1, len(actions)) for a in actions}
                continue
            exact = all(isinstance(v, Fraction) for v in given.values())
            zero = Fraction(0) if exact else 0.0
            row = {a: given.get(a, zero) for a in actions}
            total = sum(row.values(), zero)
            if total == 0:
                raise StrategyError(f"player {i + 1}, information set {label!r}: all probabilities "
                                    "are zero; cannot normalise")
            if abs(float(total) - 1.0) > SUM_TOLERANCE:
                normalised.append(f"player {i + 1}: {label} (sum {float(total):.6g})")
                row = {a: v / total for a, v in row.items()}
            strategy[label] = row
        strategies.append(strategy)
    if normalised:
        warnings.warn(f"probabilities normalised to sum to one at {len(normalised)} information "
                      f"set(s): {_listing(normalised)}", StrategyNormalisationWarning, stacklevel=2)
    return strategies


def write_strategies_csv(strategies: list[dict], path) -> None:
    """Write strategies as CSV with columns player (1-based), infoset, action, probability."""
    with atomic_path(path) as temp, open(temp, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["player", "infoset", "action", "probability"])
        for i, strategy in enumerate(strategies):
            for label, row in strategy.items():
                for action, p in row.items():
                    writer.writerow([i + 1, label, action, str(p)])


__all__ = ["load_strategies", "match_rows", "rows_from_csv", "rows_from_json_data",
           "rows_from_tabular_policy", "kuhn_label_from_openspiel", "write_strategies_csv",
           "StrategyNormalisationWarning", "StrategyRow"]
