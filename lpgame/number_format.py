"""How lpgame prints numbers: one policy for ``solve``, ``evaluate``, ``verify``, ``cfr``, the
sweep's text table and the plot legends.

- A float prints with ``digits`` significant digits (6 by default), and never with more decimals
  than its tolerance supports: a value known to 1e-3 prints to 3 decimals, not 17 digits.
- ``decimals=N`` (``--decimals N`` on the command line, like Gambit's ``-d``) prints N digits after
  the point instead.
- A value whose magnitude is below its tolerance prints as ``0``, with the tolerance beside it:
  ``0 (< 4e-12)``, not ``5.55e-17``.
- A :class:`~fractions.Fraction` (exact mode) prints exactly; when its text is longer than
  :data:`LONG_FRACTION` characters, ``≈ decimal`` follows it.

The tolerance of a floating-point certificate is its rounding error, :data:`ROUNDING` times the
game's payoff range (:func:`rounding_tolerance`); exact certificates have none.

>>> from fractions import Fraction
>>> format_number(-0.05555555555555555)
'-0.0555556'
>>> format_number(5.551115123125783e-17, tolerance=4e-12)
'0 (< 4e-12)'
>>> format_number(0.123456789, tolerance=1e-3)
'0.123'
>>> format_number(-0.05555555555555555, decimals=3)
'-0.056'
>>> format_number(Fraction(-1, 18))
'-1/18'
>>> format_number(Fraction(10**20 + 1, 3 * 10**20))
'100000000000000000001/300000000000000000000 ≈ 0.333333'
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

from lpgame.errors import OptionError

DIGITS = 6
"""Significant digits of a float when nothing else is asked."""

LONG_FRACTION = 12
"""Fractions whose text is longer than this get ``≈ decimal`` beside them."""

MAX_DECIMALS = 30
"""The most decimals ``decimals=`` accepts (a float has about 17 significant digits)."""

ROUNDING = 1e-12
"""Relative rounding tolerance of a floating-point certificate (times the payoff range)."""


def rounding_tolerance(payoff_range=None) -> float:
    """The tolerance below which a floating-point certificate's numbers are rounding noise:
    :data:`ROUNDING` times the payoff range (:data:`ROUNDING` itself without a usable range)."""
    try:
        scale = abs(float(payoff_range))
    except (TypeError, ValueError, OverflowError):
        return ROUNDING
    return ROUNDING * scale if math.isfinite(scale) and scale > 0 else ROUNDING


def check_decimals(value) -> int | None:
    """``value`` as a number of decimals (None: significant digits instead), or
    :class:`~lpgame.errors.OptionError` saying why not."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise OptionError(f"decimals must be a whole number from 0 to {MAX_DECIMALS}; "
                          f"got {value!r}")
    if not 0 <= value <= MAX_DECIMALS:
        raise OptionError(f"decimals must be from 0 to {MAX_DECIMALS}; got {value}")
    return int(value)


def parse_decimals(text: str) -> int:
    """A command-line ``--decimals`` value, or :class:`~lpgame.errors.OptionError` (its message
    follows argparse's ``argument --decimals:``)."""
    try:
        value = int(text)
    except ValueError:
        raise OptionError(f"must be a whole number from 0 to {MAX_DECIMALS}; got {text!r}"
                          ) from None
    try:
        return check_decimals(value)
    except OptionError:
        raise OptionError(f"must be from 0 to {MAX_DECIMALS}; got {text!r}") from None


def format_number(value, digits: int = DIGITS, decimals: int | None = None,
                  tolerance: float | None = None, show_tolerance: bool = True) -> str:
    """One number as text (module docstring). ``None`` prints as ``-``; a list or tuple as
    ``[a, b]``; anything not a number as ``str(value)``."""
    if value is None:
        return "-"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(format_number(v, digits, decimals, tolerance, show_tolerance)
                               for v in value) + "]"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, Fraction):
        return _fraction_text(value, digits, decimals)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    if not math.isfinite(number):
        return str(number)
    if tolerance is not None and tolerance > 0 and abs(number) < tolerance:
        zero = "0" if decimals is None else f"{0:.{decimals}f}"
        return f"{zero} (< {tolerance:.2g})" if show_tolerance else zero
    if decimals is not None:
        return _no_minus_zero(f"{number:.{decimals}f}")
    text = f"{number:.{digits}g}"
    if tolerance is not None and tolerance > 0 and "e" not in text:
        supported = max(0, math.ceil(-math.log10(tolerance)))
        if _decimals_of(text) > supported:
            text = f"{number:.{supported}f}"
    return _no_minus_zero(text)


def _fraction_text(value: Fraction, digits: int, decimals: int | None) -> str:
    text = str(value)
    if len(text) <= LONG_FRACTION:
        return text
    try:
        approximate = float(value)
    except OverflowError:
        return text + f" ≈ {_fraction_scientific(value, digits)}"
    near = f"{approximate:.{decimals}f}" if decimals is not None else f"{approximate:.{digits}g}"
    return f"{text} ≈ {_no_minus_zero(near)}"


def _fraction_scientific(value: Fraction, digits: int) -> str:
    """A Fraction beyond the float range in scientific notation (exact integer arithmetic)."""
    sign = "-" if value < 0 else ""
    value = abs(value)
    exponent = len(str(value.numerator)) - len(str(value.denominator))
    scaled = value / Fraction(10) ** exponent
    while scaled >= 10:
        scaled, exponent = scaled / 10, exponent + 1
    while scaled < 1:
        scaled, exponent = scaled * 10, exponent - 1
    return f"{sign}{float(scaled):.{digits}g}e{exponent:+d}"


def _decimals_of(text: str) -> int:
    return len(text.split(".", 1)[1]) if "." in text else 0


def _no_minus_zero(text: str) -> str:
    """``-0.000`` (a tiny negative rounded away) as ``0.000``."""
    if text.startswith("-") and not any(c in "123456789" for c in text.split("e")[0]):
        return text[1:]
    return text


__all__ = ["DIGITS", "LONG_FRACTION", "MAX_DECIMALS", "ROUNDING", "check_decimals",
           "format_number", "parse_decimals", "rounding_tolerance"]
