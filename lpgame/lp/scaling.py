"""Payoffs scaled to a unit range before a solver sees them, and checked against what floats hold.

An LP solver works to absolute tolerances (HiGHS: feasibility and optimality 1e-7, and it drops
matrix entries below ``small_matrix_value`` = 1e-9 and refuses entries above
``large_matrix_value`` = 1e15). A game whose payoffs are all multiplied by 1e-12 therefore loses
every payoff entry, and one multiplied by 1e12 or 1e20 gets "Unbounded" or "Empty" on a bounded LP.
So every payoff u that goes into an LP is written in unit-range form (an affine change of the
utility scale, which leaves the equilibria unchanged; von Neumann & Morgenstern's utilities are
unique up to positive affine maps):

    u' = (u − c) / s,     c = (u_min + u_max) / 2,     s = 2^k,   (u_max − u_min) / 2 ≤ s < u_max − u_min,

so that every u' lies in [−1, 1] and the LP's optimum v' maps back as  v = s·v' + c  (the shift
adds c to every profile's value, because the chance-and-strategy reach probabilities of the
leaves sum to one: Σ_z p_c(z) x(z) y(z) = 1 for any pair of realization plans). The scale is a
power of two, so dividing by it is exact in floating point and in rationals alike, and the float
LP of a game scaled by 2^j is bit for bit the LP of the game itself.

Payoffs already near unit range are left as they are, so that an ordinary game's LP (and the LP
file a user exports) keeps the game's units: no scale (s = 1) while the half-range
h = (u_max − u_min)/2 lies in [1/:data:`BAND`, :data:`BAND`], and no shift (c = 0) while
|c| ≤ :data:`BAND`·h, where the payoffs' magnitude is not much larger than their spread
allows a solver to resolve. A formulation may leave a wider band unscaled (``largest``): the
sequence-form security LP keeps half-ranges up to 2^10, because dividing moderate payoffs by a
power of two changed HiGHS's presolve and simplex path on the thesis's Domino LPs (issue 40).

In floating-point mode, payoffs that floats cannot carry through a solve are refused by name
(:class:`~lpgame.errors.InvalidGameError`): a payoff that is not finite or whose magnitude is
:data:`MAX_FLOAT_PAYOFF` or more (sums and differences of such numbers overflow), a payoff range
below :data:`MIN_FLOAT_RANGE` (subnormal), and payoffs whose range is below
:data:`MIN_RELATIVE_RANGE` times their magnitude (their differences, which decide the game, are
lost to rounding: doubles resolve about 2.2e-16 of a number's magnitude). Exact mode takes all of
these: its shift and scale are exact rationals.

Where: the scaling is applied where the payoff matrix enters an LP (the sequence-form security LP,
:mod:`lpgame.equilibria.zero_sum.security`, and the correlated-equilibrium LPs), because only the
formulation knows which coefficients are payoffs and which are probabilities; the LP layer itself
(:mod:`lpgame.lp.highs_backend`) then only sees entries of order one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from lpgame.errors import InvalidGameError

BAND = 16
"""Half-ranges within a factor BAND of one are not rescaled; centres within BAND half-ranges of
zero are not shifted (module docstring)."""

MAX_FLOAT_PAYOFF = 1e300
"""Payoffs of this magnitude or more are refused in floating-point mode (use exact mode)."""

MIN_FLOAT_RANGE = 1e-300
"""A nonzero payoff range below this (subnormal doubles) is refused in floating-point mode."""

MIN_RELATIVE_RANGE = 1e-15
"""A payoff range below this fraction of the payoffs' magnitude is refused in floating-point mode."""


@dataclass(frozen=True)
class PayoffScaling:
    """u' = (u − shift) / 2^exponent (see module docstring); ``shift`` is a float or a Fraction."""

    shift: object
    exponent: int
    payoff_range: object

    @property
    def scale(self):
        """s = 2^exponent, exact (an int or a Fraction)."""
        return 2 ** self.exponent if self.exponent >= 0 else Fraction(1, 2 ** -self.exponent)

    @property
    def float_scale(self) -> float:
        return math.ldexp(1.0, self.exponent)

    def to_unit(self, value):
        """(value − shift) / s, exact for Fractions and correctly rounded for floats."""
        if isinstance(value, Fraction) or isinstance(self.shift, Fraction):
            return (Fraction(value) - Fraction(self.shift)) / self.scale
        return math.ldexp(float(value) - float(self.shift), -self.exponent)

    def to_unit_array(self, values: np.ndarray) -> np.ndarray:
        """(values − shift) / s for a float array (the division by 2^k is exact)."""
        return np.ldexp(np.asarray(values, dtype=float) - float(self.shift), -self.exponent)

    def from_unit(self, value):
        """s·value + shift: an LP optimum in unit-range form back in the game's payoffs."""
        if isinstance(value, Fraction):
            return value * self.scale + Fraction(self.shift)
        return math.ldexp(float(value), self.exponent) + float(self.shift)

    def to_dict(self) -> dict:
        """JSON-able description (shift as a float or "p/q" string)."""
        shift = self.shift
        if isinstance(shift, Fraction):
            shift = str(shift)
        return {"shift": shift, "scale": f"2^{self.exponent}",
                "payoff_range": str(self.payoff_range) if isinstance(self.payoff_range, Fraction)
                else float(self.payoff_range)}


IDENTITY = PayoffScaling(0.0, 0, 1.0)


def unit_range_scaling(lowest, highest, exact: bool = False, shift: bool = True,
                       largest=BAND) -> PayoffScaling:
    """The scaling that maps [lowest, highest] into [−1, 1] (module docstring).

    ``lowest``/``highest`` may be floats, ints or Fractions; with ``exact`` the shift is an exact
    Fraction. ``shift=False`` keeps c = 0 (for LPs whose payoff terms are not reach-weighted leaf
    payoffs); then s covers max(|lowest|, |highest|). Half-ranges from 1/:data:`BAND` up to
    ``largest`` (default :data:`BAND`) are left unscaled.
    """
    lo, hi = Fraction(lowest), Fraction(highest)
    centre, half = (lo + hi) / 2, (hi - lo) / 2
    if not shift or abs(centre) <= BAND * half:
        centre = Fraction(0)
        half = max(abs(lo), abs(hi))
    if half == 0 or Fraction(1, BAND) <= half <= largest:
        exponent = 0
    else:
        # 2^(bits(p) − bits(q) − 1) ≤ p/q < 2^(bits(p) − bits(q) + 1): s ≥ half within a factor 2
        exponent = half.numerator.bit_length() - half.denominator.bit_length()
        if Fraction(2) ** exponent < half:
            exponent += 1
    return PayoffScaling(centre if exact else float(centre), exponent,
                         (hi - lo) if exact else float(hi - lo))


def check_float_payoffs(lowest: float, highest: float, what: str) -> None:
    """Refuse, by name, payoffs in [lowest, highest] that floating point cannot solve with.

    ``what`` names the game (and player) in the message. See the module docstring for the rules.
    """
    hint = "; exact mode (exact=True, --exact) solves it in rational arithmetic"
    for value in (lowest, highest):
        if math.isnan(value):
            raise InvalidGameError(f"{what}: a payoff is not a number (NaN)")
        if not math.isfinite(value) or abs(value) >= MAX_FLOAT_PAYOFF:
            size = "beyond the double range (1.8e308)" if not math.isfinite(value) \
                else f"of magnitude {abs(value):.3g}"
            raise InvalidGameError(
                f"{what}: a payoff {size} is more than floating point can solve with (limit "
                f"{MAX_FLOAT_PAYOFF:g}){hint}")
    spread = highest - lowest
    magnitude = max(abs(lowest), abs(highest))
    if 0 < spread < MIN_FLOAT_RANGE:
        raise InvalidGameError(f"{what}: the payoffs' range {spread:.3g} is below "
                               f"{MIN_FLOAT_RANGE:g}, where floats lose their precision{hint}")
    if 0 < spread < MIN_RELATIVE_RANGE * magnitude:
        raise InvalidGameError(
            f"{what}: the payoffs differ by at most {spread:.3g} at magnitude {magnitude:.3g}, a "
            f"range ratio of {magnitude / spread:.3g}, beyond the {1 / MIN_RELATIVE_RANGE:.0e} "
            f"that double precision resolves{hint}")


def exact_bounds(values) -> tuple[Fraction, Fraction]:
    """(min, max) of exact numbers (an empty list gives (0, 0))."""
    values = list(values)
    if not values:
        return Fraction(0), Fraction(0)
    return Fraction(min(values)), Fraction(max(values))


def float_bounds(values: np.ndarray) -> tuple[float, float]:
    """(min, max) of a float array (an empty one gives (0, 0))."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return 0.0, 0.0
    return float(values.min()), float(values.max())


__all__ = ["PayoffScaling", "IDENTITY", "unit_range_scaling", "check_float_payoffs",
           "exact_bounds", "float_bounds", "MAX_FLOAT_PAYOFF", "MIN_FLOAT_RANGE",
           "MIN_RELATIVE_RANGE"]
