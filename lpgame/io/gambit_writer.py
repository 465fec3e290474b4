"""Writing Gambit's game files: ``.efg`` from a :class:`~lpgame.game.Game`, ``.nfg`` from a
:class:`~lpgame.game.NormalFormGame`.

The formats are those of the Gambit documentation ("Game representation formats", *The extensive
game (.efg) file format* and *The strategic game (.nfg) file format*; gambitproject.readthedocs.io).
:func:`efg_text` writes outcomes on the leaves, one outcome per distinct payoff vector, one chance
event per chance node and the information sets numbered per player in order of first appearance;
every description is written in full at every node, as Gambit itself does, since some readers
(OpenSpiel's) do not accept the short forms. :func:`nfg_text` writes the outcome version by
default (it keeps the strategy labels) or the payoff version, profiles with player 1's strategy
varying fastest. Labels are quoted with ``\\`` and ``"`` escaped, in the form Gambit reads
(printable ASCII on one line, :func:`gambit_label`); rationals are written ``p/q``, floats as
plain decimals (no exponent), so Gambit reads back the same numbers. Float chance probabilities
are written as the nearby rationals when those sum to exactly 1 (Gambit refuses probabilities
that do not).
"""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal
from fractions import Fraction
from numbers import Integral, Rational

import numpy as np

from lpgame.errors import InvalidGameError
from lpgame.game.normal_form import NormalFormGame
from lpgame.game.tree import CHANCE, TERMINAL, Game, IndexedGame
from lpgame.game.tree_arrays import tree_arrays
from lpgame.io.gambit_tokens import parse_number
from lpgame.io.safe_files import write_text_atomic

_CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f]+")


def quote(text) -> str:
    """A Gambit text label: in double quotes, with ``\\`` and ``"`` escaped, in the form Gambit's
    reader accepts (:func:`gambit_label`)."""
    return '"' + gambit_label(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def gambit_label(text) -> str:
    """``text`` as a label Gambit reads back: printable ASCII on one line, single spaces, none at
    either end. Gambit refuses anything else (OpenSpiel's multi-line information states, for
    one). Line breaks, tabs and runs of spaces become one space; accented letters lose their
    accents; other characters outside ASCII are written ``<U+2205>``."""
    words = _CONTROL_CHARACTERS.sub(" ", str(text)).split()
    plain = " ".join(words)
    if plain.isascii():
        return plain
    stripped = "".join(c for c in unicodedata.normalize("NFKD", plain)
                       if not unicodedata.combining(c))
    return "".join(c if c.isascii() else f"<U+{ord(c):04X}>" for c in stripped)


def format_number(value) -> str:
    """An int or rational as ``p`` / ``p/q``; a float as a plain decimal (exact, no exponent)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, Integral):
        return str(int(value))
    if isinstance(value, Rational):
        value = Fraction(value)
        return str(value.numerator) if value.denominator == 1 else str(value)
    if isinstance(value, str):
        exact = parse_number(value.strip())
        if exact is None:
            raise InvalidGameError(f"cannot write {value!r} as a number")
        return format_number(exact)
    number = float(value)
    if number != number or number in (float("inf"), float("-inf")):
        raise InvalidGameError(f"cannot write the non-finite number {number!r}")
    text = format(Decimal(repr(number)), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _chance_probabilities(node, probs: list) -> list:
    """Probabilities to write: exact values, or for floats nearby rationals summing to 1."""
    if all(isinstance(p, (Rational, str)) and not isinstance(p, bool) for p in probs):
        return probs
    as_decimal = [Fraction(format_number(p)) if not isinstance(p, Fraction) else p for p in probs]
    if sum(as_decimal) == 1:
        return as_decimal
    near = [Fraction(float(p)).limit_denominator(10 ** 9) for p in probs]
    if sum(near) == 1 and all(abs(float(q) - float(p)) <= 1e-9 for q, p in zip(near, probs)):
        return near
    raise InvalidGameError(
        f"chance node {node!r}: the float probabilities {probs} do not sum to 1 exactly and have "
        "no nearby rationals that do; Gambit would refuse them (give Fractions)")


def efg_text(game: Game) -> str:
    """The ``.efg`` text of ``game`` (see the module docstring)."""
    if not isinstance(game, Game):
        if isinstance(game, NormalFormGame):
            game = game.to_extensive()
        elif isinstance(game, IndexedGame):
            raise InvalidGameError(
                f"{game.name}: writing an .efg needs the explicit tree (a Game); this game is "
                "compiled without one (build it with structured=False)")
        else:
            raise InvalidGameError(f"cannot write a {type(game).__name__} as an .efg")
    index = game.index
    arrays = tree_arrays(game)
    records, attrs = arrays.records, arrays.node_attrs
    names = arrays.node_names or range(len(records))     # as in messages: the game's own node ids
    child_start, child_list = arrays.child_start.tolist(), arrays.child_list.tolist()
    n = game.num_players
    comment = arrays.graph_attrs.get("comment", "")
    lines = [f"EFG 2 R {quote(game.name)} {{ "
             + " ".join(quote(p) for p in game.player_names) + " }",
             quote(comment), ""]
    infoset_numbers: list[dict[str, int]] = [{} for _ in range(n)]
    outcome_numbers: dict[tuple, tuple[int, str]] = {}
    outcome_names: set[str] = set()
    # the text of what repeats (labels, payoff vectors, chance events, information sets), by value
    # and type
    quoted: dict = {}
    exact_payoffs: dict = {}
    chance_bodies: dict = {}
    infoset_heads: dict = {}
    unnamed = quote("")
    events = 0
    stack = [0]
    while stack:
        node = stack.pop()
        _, _, kind, labels, values, player, infoset = records[node]
        extra = attrs.get(node)
        name = quote(extra.get("label", "")) if extra else unnamed
        if kind == TERMINAL:
            label = (extra.get("outcome") if extra else None) or ""
            typed = (label, _typed(values))
            outcome = exact_payoffs.get(typed)
            if outcome is None:
                payoffs = tuple(Fraction(format_number(u)) for u in values)
                key = (label, payoffs)
                if key not in outcome_numbers:
                    number = len(outcome_numbers) + 1
                    if not label or label in outcome_names:
                        label = f"{label or 'Outcome'} {number}".strip()
                    outcome_names.add(label)
                    outcome_numbers[key] = (number, f"{number} {quote(label)} {{ "
                                            + ", ".join(format_number(u) for u in payoffs) + " }")
                outcome = exact_payoffs[typed] = outcome_numbers[key][1]
            lines.append(f"t {name} {outcome}")
            continue
        children = child_list[child_start[node]:child_start[node + 1]]
        if kind == CHANCE:
            events += 1
            typed = (tuple(labels), _typed(values))
            body = chance_bodies.get(typed)
            if body is None:
                probs = _chance_probabilities(names[node], list(values))
                body = chance_bodies[typed] = " ".join(
                    f"{_quoted(quoted, a)} {format_number(p)}" for a, p in zip(labels, probs))
            lines.append(f"c {name} {events} \"\" {{ {body} }} 0")
        else:
            label = str(infoset)
            pidx = index.players[player]
            actions = pidx.infoset_actions[pidx.infoset_of_label[label]]
            if tuple(labels) != actions:
                by_action = {str(a): c for a, c in zip(labels, children)}
                children = [by_action[a] for a in actions]
            number = infoset_numbers[player].setdefault(label, len(infoset_numbers[player]) + 1)
            head = infoset_heads.get((player, number))
            if head is None:
                head = infoset_heads[(player, number)] = (
                    f"{player + 1} {number} {quote(label)} {{ "
                    + " ".join(_quoted(quoted, a) for a in actions) + " } 0")
            lines.append(f"p {name} {head}")
        stack.extend(reversed(children))
    return "\n".join(lines) + "\n"


def _typed(values) -> tuple:
    """A key equal only for the same numbers of the same types (0.5 and Fraction(1, 2) are equal
    in Python but are written differently)."""
    return tuple([(v.__class__, v) for v in values])


def _quoted(cache: dict, label) -> str:
    """:func:`quote` of ``label``, remembered in ``cache``."""
    text = cache.get(label)
    if text is None:
        text = cache[label] = quote(label)
    return text


def nfg_text(game: NormalFormGame, form: str = "outcome") -> str:
    """The ``.nfg`` text of ``game``: ``form="outcome"`` (keeps strategy labels) or ``"payoff"``."""
    if not isinstance(game, NormalFormGame):
        raise InvalidGameError(f"cannot write a {type(game).__name__} as an .nfg (it needs a "
                               "NormalFormGame)")
    n, shape = game.num_players, game.shape
    head = (f"NFG 1 R {quote(game.name)} {{ " + " ".join(quote(p) for p in game.player_names)
            + " }")
    profiles = [tuple(format_number(game.payoffs[(i, *np.unravel_index(k, shape, order="F"))])
                      for i in range(n)) for k in range(int(np.prod(shape)))]
    comment = quote(getattr(game, "comment", ""))
    if form == "payoff":
        lines = [head, "{ " + " ".join(str(m) for m in shape) + " }", comment, ""]
        lines.append(" ".join(" ".join(p) for p in profiles))
        return "\n".join(lines) + "\n"
    if form != "outcome":
        raise InvalidGameError(f"unknown .nfg form {form!r}; use 'outcome' or 'payoff'")
    lines = [head, "{"]
    lines += ["{ " + " ".join(quote(a) for a in acts) + " }" for acts in game.actions]
    lines += ["}", comment, "", "{"]
    numbers: dict[tuple, int] = {}
    table = []
    for payoff in profiles:
        number = numbers.get(payoff)
        if number is None:
            number = numbers[payoff] = len(numbers) + 1
            lines.append(f"{{ {quote(f'Outcome {number}')} {', '.join(payoff)} }}")
        table.append(str(number))
    lines.append("}")
    lines.append(" ".join(table))
    return "\n".join(lines) + "\n"


def write_efg(game: Game, path) -> None:
    """Write ``game`` as a Gambit ``.efg`` file."""
    write_text_atomic(path, efg_text(game))


def write_nfg(game: NormalFormGame, path, form: str = "outcome") -> None:
    """Write ``game`` as a Gambit ``.nfg`` file (``form``: ``"outcome"`` or ``"payoff"``)."""
    write_text_atomic(path, nfg_text(game, form))
