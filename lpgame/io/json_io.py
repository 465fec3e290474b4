"""JSON for results and strategies.

Numbers: floats are written as JSON numbers; exact values (:class:`fractions.Fraction`) as strings
such as ``"-1/18"`` so that nothing is rounded. :func:`number_from_json` reads both back (a string
becomes a Fraction). Strategies are ``{information-set label: {action label: probability}}``, one
mapping per player; a strategy file is ``{"game": ..., "strategies": [...]}`` or a solve result.
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


def number_from_json(value):
    """Inverse of :func:`number_to_json`: strings become Fractions, numbers stay floats/ints."""
    if isinstance(value, str):
        try:
            return Fraction(value)
        except (ValueError, ZeroDivisionError) as exc:
            raise StrategyError(f"{value!r} is not a number") from exc
    return value


def strategies_to_json(strategies) -> list[dict]:
    return [{infoset: {a: number_to_json(p) for a, p in row.items()}
             for infoset, row in player.items()} for player in strategies]


def strategies_from_json(data) -> list[dict]:
    """Strategies from a parsed strategy file or solve result (see module docstring)."""
    if isinstance(data, dict):
        if "strategies" not in data:
            raise StrategyError("a strategy file needs a 'strategies' key: a list, one per player")
        data = data["strategies"]
    if not isinstance(data, list) or not all(isinstance(p, dict) for p in data):
        raise StrategyError("'strategies' must be a list with one {infoset: {action: prob}} per player")
    out = []
    for k, player in enumerate(data):
        rows = {}
        for infoset, row in player.items():
            if not isinstance(row, dict):
                raise StrategyError(f"player {k + 1}, information set {infoset!r}: expected "
                                    f"{{action: probability}}, got {row!r}")
            rows[infoset] = {a: number_from_json(p) for a, p in row.items()}
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


def read_json(path: str | Path) -> dict:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise StrategyError(f"{path}: line {exc.lineno}: not valid JSON ({exc.msg})") from exc
