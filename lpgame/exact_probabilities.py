"""Probabilities of a strategy as exact rationals: the one rule that exact evaluation and
verification apply to what a strategy file holds (issue 19).

Strategy files written by lpgame's floating-point solves, by CFR or by other programs hold floats
whose sums at an information set are 1 only up to rounding, e.g. 0.7835… + 0.2164… =
1 − 2⁻⁵³. Exact mode must neither reject such a file nor silently change it, so the rule is:

1. **Exact numbers** (ints, :class:`fractions.Fraction`, ``"p/q"`` strings,
   :class:`decimal.Decimal`) are taken as they are. A row of exact numbers must sum to exactly 1.
2. **A float is its exact binary value**: every finite IEEE-754 double is the rational
   m·2^e (IEEE 754-2019, §3.3), ``Fraction(0.1) = 3602879701896397/2^55``; no decimal rounding is
   guessed.
3. **A row with a float is renormalised exactly** when its exact sum s satisfies
   |s − 1| ≤ :data:`FLOAT_SUM_TOLERANCE` (10⁻⁹, the tolerance of
   :mod:`lpgame.io.strategy_files`): every probability is divided by s, so the row sums to exactly
   1 and the ratios between actions are kept. The renormalised rows are *reported*
   (:class:`ExactConversion` collects them; without one, an :class:`ExactConversionWarning`
   says so), never silent.
4. Anything else raises :class:`~lpgame.errors.StrategyError` naming the information set: a
   negative, NaN or infinite value, a boolean or text that is not a number, and a row whose sum is
   farther from 1 than the tolerance (normalising it would change the strategy, not round it).
"""

from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from lpgame.errors import StrategyError

FLOAT_SUM_TOLERANCE = 1e-9
MAX_LISTED = 5


class ExactConversionWarning(UserWarning):
    """Floating-point probabilities were converted to exact rationals and renormalised."""


@dataclass
class ExactConversion:
    """What the rule (module docstring) did: rows with floats, and those renormalised."""

    float_rows: int = 0
    renormalised: list[str] = field(default_factory=list)
    largest_correction: Fraction = Fraction(0)

    def notes(self) -> list[str]:
        """One line per thing to tell the user (empty when every number was exact)."""
        if not self.float_rows:
            return []
        note = (f"{self.float_rows} information set(s) had floating-point probabilities, taken at "
                "their exact binary values")
        if self.renormalised:
            shown = "; ".join(self.renormalised[:MAX_LISTED])
            more = f" and {len(self.renormalised) - MAX_LISTED} more" if \
                len(self.renormalised) > MAX_LISTED else ""
            note += (f"; {len(self.renormalised)} of them summed to 1 only within "
                     f"{FLOAT_SUM_TOLERANCE:g} (largest difference "
                     f"{float(self.largest_correction):.3g}) and were divided by their exact sum: "
                     f"{shown}{more}")
        return [note]


def exact_probability(value, where: str) -> tuple[Fraction, bool]:
    """``(value as a Fraction, whether it was a float)``; StrategyError at ``where`` otherwise."""
    if isinstance(value, bool) or value is None:
        raise StrategyError(f"{where}: probability {value} is not a number")
    if isinstance(value, numbers.Rational):
        return Fraction(value), False
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise StrategyError(f"{where}: probability {value} is not finite")
        return Fraction(value), False
    if isinstance(value, str):
        text = value.strip()
        if len(text) > 10_000:
            raise StrategyError(f"{where}: probability of {len(text)} characters is too long")
        try:
            return Fraction(text), False
        except (ValueError, ZeroDivisionError):
            raise StrategyError(f"{where}: probability {text[:40]} is not a number") from None
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise StrategyError(f"{where}: probability {str(value)[:40]} is not a number") from None
    if not math.isfinite(number):
        raise StrategyError(f"{where}: probability {number} is not finite")
    return Fraction(number), True


def exact_row(values: list, where: str, conversion: ExactConversion | None = None) -> list[Fraction]:
    """The probabilities of one information set as Fractions summing to exactly 1 (module
    docstring); ``conversion`` records floats and renormalisations."""
    converted = [exact_probability(v, where) for v in values]
    probs = [q for q, _ in converted]
    had_float = any(is_float for _, is_float in converted)
    negative = [q for q in probs if q < 0]
    if negative:
        raise StrategyError(f"{where}: probability {float(negative[0]):.6g} is negative")
    total = sum(probs, Fraction(0))
    if total == 1:
        if had_float and conversion is not None:
            conversion.float_rows += 1
        return probs
    gap = abs(total - 1)
    if not had_float or gap > FLOAT_SUM_TOLERANCE:
        kind = "floating-point" if had_float else "exact"
        allowed = f"within {FLOAT_SUM_TOLERANCE:g}" if had_float else "exactly"
        shown = f"{float(total):.12g}" if had_float else _plain(total)
        raise StrategyError(f"{where}: {kind} probabilities sum to {shown}, not 1 "
                            f"({allowed} is required)")
    probs = [q / total for q in probs]
    if conversion is None:
        warnings.warn(f"{where}: floating-point probabilities summing to 1 − {float(1 - total):.3g} "
                      "were divided by their exact sum", ExactConversionWarning, stacklevel=3)
    else:
        conversion.float_rows += 1
        conversion.renormalised.append(where)
        conversion.largest_correction = max(conversion.largest_correction, gap)
    return probs


def _plain(value: Fraction) -> str:
    """A rational as a person reads it: the fraction when short, the decimal otherwise."""
    text = f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value.numerator)
    return text if len(text) <= 24 else f"{float(value):.12g}"


__all__ = ["FLOAT_SUM_TOLERANCE", "ExactConversion", "ExactConversionWarning", "exact_probability",
           "exact_row"]
