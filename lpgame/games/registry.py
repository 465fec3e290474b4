"""The catalog registry: every game generator under one name, with typed, checked parameters.

A generator module registers itself with :func:`register`; :func:`make` builds a game by name
(``make("one_card_poker", N=12)``); :func:`load` also accepts a game file path; :func:`catalog`
lists names, parameters and defaults (``lpgame games``).

Every parameter is checked before a game is built (issue 19):

* its **type** comes from the generator's annotation (``int``, ``bool``, ``str``); a parameter
  without one but with a numeric default (a payoff constant such as ``prize=1000``) is a *number*
  (an int, a Fraction, a finite float, or a string such as ``"3/2"``). Strings from the command line
  are parsed to that type: ``"12"`` and ``"1e9"`` are the integers 12 and 10⁹, ``"3.5"`` is not an
  integer, ``"true"``/``"false"`` (also ``yes``/``no``, ``1``/``0``) are the booleans and anything
  else given for a boolean, such as ``maybe``, is refused;
* its **range** (``ranges={"N": (2, None)}``, inclusive bounds) and **choices**
  (``choices={"deal": ("ranks", "cards")}``) as the generator declares them;
* then the generator's **size prediction** (``size=``, a function of the same parameters that
  returns the bytes the build would need at least, from the game's closed-form counts) goes to
  :func:`lpgame.limits.check_prediction`, which refuses a game that would not fit in memory with
  :class:`~lpgame.errors.ModelTooLargeError` before anything is allocated.

A wrong type, value or range raises :class:`~lpgame.errors.OptionError` naming the game, the
parameter, the value given and what is expected; an unknown game or parameter raises
:class:`~lpgame.errors.UnknownGameError` listing the known ones.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from lpgame.errors import OptionError, UnknownGameError, did_you_mean
from lpgame.limits import check_prediction

_REGISTRY: dict[str, GameEntry] = {}

NUMBER = "number"           # the kind of a payoff constant: int, Fraction or finite float
_KINDS = {"int": int, "bool": bool, "str": str, int: int, bool: bool, str: str}
_TRUE = ("true", "yes", "1")
_FALSE = ("false", "no", "0")
MAX_PARAMETER_DIGITS = 1000  # longer numbers than this are refused before Python parses them


@dataclass(frozen=True)
class Param:
    """One declared parameter: its kind (int, bool, str or :data:`NUMBER`), default, inclusive
    bounds and allowed values."""

    name: str
    kind: object
    default: object = None
    minimum: object = None
    maximum: object = None
    choices: tuple = ()

    def expected(self) -> str:
        """What the parameter accepts, in words (for error messages)."""
        if self.choices:
            return "one of " + ", ".join(str(c) for c in self.choices)
        words = {int: "an integer", bool: "true or false", str: "a string",
                 NUMBER: "a number (integer, fraction such as 3/2, or decimal)"}[self.kind]
        if self.minimum is not None and self.maximum is not None:
            return f"{words} from {self.minimum} to {self.maximum}"
        if self.minimum is not None:
            return f"{words} ≥ {self.minimum}"
        if self.maximum is not None:
            return f"{words} ≤ {self.maximum}"
        return words


@dataclass
class GameEntry:
    name: str
    factory: Callable
    summary: str
    source: str
    ranges: dict = field(default_factory=dict)
    choices: dict = field(default_factory=dict)
    size: Callable | None = None

    def parameters(self) -> dict[str, object]:
        """Keyword parameters and their defaults."""
        return {k: (None if p.default is inspect.Parameter.empty else p.default)
                for k, p in _signature(self.factory).parameters.items()}

    def params(self) -> dict[str, Param]:
        """The declared parameters (module docstring: kind from the annotation or the default)."""
        out = {}
        for key, p in _signature(self.factory).parameters.items():
            default = None if p.default is inspect.Parameter.empty else p.default
            kind = _KINDS.get(p.annotation)
            if kind is None:
                kind = bool if isinstance(default, bool) else \
                    str if isinstance(default, str) else NUMBER
            low, high = self.ranges.get(key, (None, None))
            out[key] = Param(key, kind, default, low, high, tuple(self.choices.get(key, ())))
        return out


@functools.cache
def _signature(factory: Callable) -> inspect.Signature:
    """A factory's signature (immutable), read once: ``inspect.signature`` is a fixed cost of
    every ``make`` of a small game otherwise."""
    return inspect.signature(factory)


def register(name: str, summary: str, source: str = "", *, ranges: dict | None = None,
             choices: dict | None = None, size: Callable | None = None) -> Callable:
    """Decorator: register ``factory(**params)`` under ``name``.

    ``ranges`` maps parameters to inclusive ``(minimum, maximum)`` bounds (None: unbounded),
    ``choices`` to their allowed values, and ``size(**params)`` predicts the bytes the build needs
    (see the module docstring)."""
    def wrap(factory: Callable) -> Callable:
        _REGISTRY[name] = GameEntry(name, factory, summary, source, dict(ranges or {}),
                                    dict(choices or {}), size)
        return factory
    return wrap


def catalog() -> dict[str, GameEntry]:
    _load_all()
    return dict(sorted(_REGISTRY.items()))


def _refuse(game: str, param: Param, value, why: str = "") -> OptionError:
    shown = _plain(value)
    if len(shown) > 40:
        shown = f"{shown[:20]}… ({len(shown)} characters)"
    return OptionError(f"game {game}: parameter {param.name}={shown} {why or 'is not valid'}; "
                       f"expected {param.expected()}")


def _plain(value) -> str:
    """A value as a person writes it (no Python reprs; long numbers shortened)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        text = str(int(value)) if int(value).bit_length() < 3400 else ""
        return text if 0 < len(text) <= 40 else f"an integer of about {_digits(int(value))} digits"
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}" if value.denominator != 1 else \
            _plain(value.numerator)
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _digits(n: int) -> int:
    return max(1, int(abs(n).bit_length() * math.log10(2)) + 1)


def _integer_from_text(text: str):
    """``"12"`` -> 12, ``"1e9"`` -> 10**9, ``"3.5"`` -> None (not an integer)."""
    text = text.strip().replace("_", "")
    if len(text) > MAX_PARAMETER_DIGITS:
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        exact = Fraction(text)
    except (ValueError, ZeroDivisionError):
        return None
    return int(exact) if exact.denominator == 1 else None


def convert_param(game: str, param: Param, value):
    """``value`` as ``param``'s kind, or :class:`OptionError` naming game, parameter and value."""
    kind = param.kind
    if kind is bool:
        if isinstance(value, bool):
            out = value
        elif isinstance(value, numbers.Integral) and int(value) in (0, 1):
            out = bool(value)
        elif isinstance(value, str) and value.strip().lower() in _TRUE + _FALSE:
            out = value.strip().lower() in _TRUE
        else:
            raise _refuse(game, param, value, "is not a boolean")
    elif kind is int:
        if isinstance(value, bool):
            raise _refuse(game, param, value, "is a boolean, not an integer")
        if isinstance(value, numbers.Integral):
            out = int(value)
        elif isinstance(value, str):
            out = _integer_from_text(value)
        elif isinstance(value, (float, Fraction)) and _finite(value) and value == int(value):
            out = int(value)
        else:
            out = None
        if out is None:
            raise _refuse(game, param, value, "is not an integer")
    elif kind is NUMBER:
        if isinstance(value, bool):
            raise _refuse(game, param, value, "is a boolean, not a number")
        if isinstance(value, str):
            text = value.strip()
            if len(text) > MAX_PARAMETER_DIGITS:
                raise _refuse(game, param, f"{text[:20]}… ({len(text)} characters)", "is too long")
            try:
                out = Fraction(text)
            except (ValueError, ZeroDivisionError):
                raise _refuse(game, param, value, "is not a number") from None
            if out.denominator == 1:
                out = int(out)
        elif isinstance(value, (numbers.Rational, float)):
            out = value
        else:
            raise _refuse(game, param, value, "is not a number")
        if not _finite(out):
            raise _refuse(game, param, value, "is not finite")
    else:
        if not isinstance(value, str):
            raise _refuse(game, param, value, "is not a string")
        out = value
    if param.choices and out not in param.choices:
        raise _refuse(game, param, value, "is not allowed")
    if param.minimum is not None and out < param.minimum:
        raise _refuse(game, param, value, "is too small")
    if param.maximum is not None and out > param.maximum:
        raise _refuse(game, param, value, "is too large")
    return out


def _finite(value) -> bool:
    return not isinstance(value, float) or math.isfinite(value)


def checked_params(name: str, params: dict) -> tuple[GameEntry, dict]:
    """The entry of game ``name`` and ``params`` converted to their declared kinds and checked
    against their ranges and choices (module docstring); nothing is built."""
    _load_all()
    entry = _REGISTRY.get(name)
    if entry is None:
        raise UnknownGameError(
            f"unknown game {name!r}{did_you_mean(name, _REGISTRY)}; known games: "
            f"{', '.join(sorted(_REGISTRY))}; a game file (.efg, .nfg), - (standard input) or "
            "openspiel:NAME(params) also names a game")
    declared = entry.params()
    unknown = [k for k in params if k not in declared]
    if unknown:
        raise UnknownGameError(
            f"game {name} has no parameter {', '.join(map(str, unknown))}"
            f"{did_you_mean(unknown[0], declared) if len(unknown) == 1 else ''}; its parameters are "
            + (", ".join(f"{k}={_plain(p.default)}" for k, p in declared.items()) or "none"))
    return entry, {k: convert_param(name, declared[k], v) for k, v in params.items()}


def predicted_bytes(name: str, **params) -> int | None:
    """The generator's prediction of the bytes that building ``name`` needs (None: not declared)."""
    entry, values = checked_params(name, params)
    if entry.size is None:
        return None
    full = {k: p.default for k, p in entry.params().items()} | values
    return int(entry.size(**full))


def make(name: str, **params):
    """Build catalog game ``name`` with keyword parameters (checked first; module docstring)."""
    entry, values = checked_params(name, params)
    if entry.size is not None:
        full = {k: p.default for k, p in entry.params().items()} | values
        shown = ", ".join(f"{k}={_plain(v)}" for k, v in values.items())
        check_prediction(f"building {name}({shown})", int(entry.size(**full)))
    return entry.factory(**values)


def parse_params(pairs: list[str], name: str | None = None) -> dict[str, object]:
    """``["N=12", "deal=cards", "wild=true"]`` -> ``{"N": 12, "deal": "cards", "wild": True}``.

    With the catalog ``name`` each value is parsed to its declared kind (:func:`convert_param`;
    OptionError naming it when it does not fit); without it, ints, floats and true/false are
    converted and :func:`make` checks the kinds later."""
    raw: dict[str, str] = {}
    for pair in pairs:
        if "=" not in pair:
            raise OptionError(f"game parameter {pair} is not of the form key=value (e.g. N=12)")
        key, value = pair.split("=", 1)
        raw[key] = value
    if name is not None and not Path(name).suffix and name != "-" and not name.startswith("openspiel:"):
        return checked_params(name, raw)[1]
    return {key: _generic_value(value) for key, value in raw.items()}


def _generic_value(value: str):
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    if len(value) > MAX_PARAMETER_DIGITS:
        return value            # make() refuses it by name rather than Python's digit limit
    for convert in (int, float):
        try:
            return convert(value)
        except ValueError:
            continue
    return value


def load(spec: str, **params):
    """A catalog name, a path to a game file (``.efg``, ``.nfg``; a bundled model by its file
    name), ``-`` (a game file on standard input) or ``openspiel:NAME(params)``
    (:func:`lpgame.io.files.read_game_spec`)."""
    from lpgame.io.files import names_a_game_file, read_game_spec
    if names_a_game_file(spec):
        return read_game_spec(spec, params)
    return make(spec, **params)


_LOADED: list[bool] = []     # not empty once every catalog module has been imported


def _load_all() -> None:
    """Import every module of :mod:`lpgame.games` (the folder this module lies in, walked without
    importing the package, which imports this module); importing a module registers its games.
    The folder is walked once per process: a catalog module cannot appear while it runs."""
    if _LOADED:
        return
    import importlib
    import pkgutil

    for module in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if module.name not in ("registry", "size_prediction") and not module.name.startswith("_"):
            importlib.import_module(f"lpgame.games.{module.name}")
    _LOADED.append(True)
