"""JSON for results and strategies.

Numbers: floats are written as JSON numbers; exact values (:class:`fractions.Fraction`) as strings
such as ``"-1/18"`` so that nothing is rounded. :func:`number_from_json` reads both back (a string
becomes a Fraction). Strategies are ``{information-set label: {action label: probability}}``, one
mapping per player; a strategy file is ``{"game": ..., "strategies": [...]}`` or a solve result.

Reading (:func:`read_json`) never lets a foreign exception out: a missing path, a folder, a file
that is not UTF-8 text (a binary file), invalid or too deeply nested JSON, an integer longer than
:data:`MAX_JSON_INTEGER_DIGITS` digits (Python refuses to convert more than 4,300), and, with
``expect=dict``, a top-level value that is not an object each raise
:class:`~lpgame.errors.StrategyError` naming the file (and the line where JSON says where).
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

from lpgame.errors import StrategyError
from lpgame.io.safe_files import write_text_atomic
from lpgame.rational import fraction_text


def number_to_json(value):
    """A JSON-safe number: Fraction -> "p/q" (or "p" when integral), numpy/float -> float."""
    if isinstance(value, Fraction):
        return fraction_text(value)      # any number of digits (str stops at 4,300)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return value
    f = float(value)
    if not math.isfinite(f):
        return None
    return f


MAX_JSON_INTEGER_DIGITS = 4000


def _shown(text: str, width: int = 40) -> str:
    """``text`` for a message: quoted, and shortened when long."""
    return f'"{text}"' if len(text) <= width else f'"{text[:width // 2]}…" ({len(text)} characters)'


def number_from_json(value):
    """Inverse of :func:`number_to_json`: strings become Fractions, numbers stay floats/ints."""
    if isinstance(value, str):
        if len(value) > 2 * MAX_JSON_INTEGER_DIGITS + 1:
            raise StrategyError(f"{_shown(value)} is too long a number")
        try:
            return Fraction(value)
        except (ValueError, ZeroDivisionError) as exc:
            raise StrategyError(f"{_shown(value)} is not a number") from exc
    return value


def probability_from_json(value, where: str):
    """A probability read from JSON: an int, a finite float or a ``"p/q"`` string (Fraction);
    anything else (true, null, a list, an unreadable string) raises StrategyError at ``where``."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str, Fraction)):
        raise StrategyError(f"{where}: probability {json.dumps(value)[:40]} is not a number")
    if isinstance(value, str):
        try:
            return number_from_json(value)
        except StrategyError as exc:
            raise StrategyError(f"{where}: probability {exc}") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise StrategyError(f"{where}: probability {value} is not finite")
    return value


def strategies_to_json(strategies) -> list[dict]:
    return [{infoset: {a: number_to_json(p) for a, p in row.items()}
             for infoset, row in player.items()} for player in strategies]


def strategies_from_json(data, source: str | None = None) -> list[dict]:
    """Strategies from a parsed strategy file or solve result (see module docstring); messages
    start with ``source`` (the file's name) when given."""
    prefix = f"{source}: " if source else ""
    if isinstance(data, dict):
        if "strategies" not in data:
            raise StrategyError(f"{prefix}a strategy file needs a 'strategies' key: a list, one "
                                "per player")
        data = data["strategies"]
    if not isinstance(data, list) or not all(isinstance(p, dict) for p in data):
        raise StrategyError(f"{prefix}'strategies' must be a list with one "
                            "{infoset: {action: prob}} per player")
    out = []
    for k, player in enumerate(data):
        rows = {}
        for infoset, row in player.items():
            where = f"{prefix}player {k + 1}, information set {_shown(str(infoset))}"
            if not isinstance(row, dict):
                raise StrategyError(f"{where}: expected {{action: probability}}, got "
                                    f"{json.dumps(row, default=str)[:40]}")
            rows[infoset] = {a: probability_from_json(p, f"{where}, action {_shown(str(a))}")
                             for a, p in row.items()}
        out.append(rows)
    return out


def write_json(obj: dict, path: str | Path | None) -> str:
    """Write ``obj`` to ``path`` (``"-"`` or None: return the text only).

    The file is replaced atomically (a temporary file beside it, then ``os.replace``;
    :mod:`lpgame.io.safe_files`): a write cut short by Ctrl-C or SIGTERM leaves the previous file
    whole.
    """
    text = json.dumps(obj, indent=2, ensure_ascii=False)
    if path is not None and str(path) != "-":
        write_text_atomic(path, text + "\n")
    return text


class _IntegerTooLongError(Exception):
    def __init__(self, digits: int):
        super().__init__(digits)
        self.digits = digits


def _bounded_integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_JSON_INTEGER_DIGITS:
        raise _IntegerTooLongError(len(text.lstrip("-")))
    return int(text)


def read_json(path: str | Path, expect: type | None = None, what: str = "JSON file"):
    """The parsed JSON of file ``path``; every failure is a StrategyError naming the file
    (module docstring). ``expect=dict`` (or ``list``) also refuses another top-level type;
    ``what`` names the file's purpose in messages ("strategy file", "solve result")."""
    path = Path(path)
    if not path.exists():
        raise StrategyError(f"{path}: no such file (expected a {what})")
    if path.is_dir():
        raise StrategyError(f"{path}: is a folder, not a {what}")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise StrategyError(f"{path}: not a UTF-8 text file (byte {exc.start} cannot be decoded); "
                            f"expected a {what}") from None
    except OSError as exc:
        raise StrategyError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    try:
        data = json.loads(text, parse_int=_bounded_integer)
    except json.JSONDecodeError as exc:
        raise StrategyError(f"{path}: line {exc.lineno}: not valid JSON ({exc.msg})") from None
    except _IntegerTooLongError as exc:
        raise StrategyError(f"{path}: an integer of {exc.digits} digits; numbers longer than "
                            f"{MAX_JSON_INTEGER_DIGITS} digits are refused (write exact numbers "
                            'as "p/q" strings)') from None
    except RecursionError:
        raise StrategyError(f"{path}: JSON nested too deeply to be a {what}") from None
    except ValueError as exc:
        raise StrategyError(f"{path}: not valid JSON ({exc})") from None
    if expect is not None and not isinstance(data, expect):
        kinds = {dict: "an object {...}", list: "a list [...]"}
        raise StrategyError(f"{path}: the {what} must be {kinds.get(expect, expect.__name__)}, "
                            f"found {kinds.get(type(data), type(data).__name__)}")
    return data
