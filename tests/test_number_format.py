"""lpgame's one number policy (lpgame.number_format): significant digits capped by the
tolerance, --decimals, zero below the tolerance with the tolerance shown, exact fractions with
≈ decimal when long."""

from fractions import Fraction

import numpy as np
import pytest

from lpgame.errors import OptionError
from lpgame.number_format import (
    LONG_FRACTION,
    MAX_DECIMALS,
    check_decimals,
    format_number,
    parse_decimals,
    rounding_tolerance,
)


def test_floats_get_six_significant_digits_not_seventeen():
    assert format_number(-1 / 18) == "-0.0555556"
    assert format_number(np.float64(2 / 3)) == "0.666667"
    assert format_number(1234567.891) == "1.23457e+06"


def test_noise_below_the_tolerance_prints_as_zero_with_the_tolerance():
    assert format_number(5.551115123125783e-17, tolerance=4e-12) == "0 (< 4e-12)"
    assert format_number(-5.5e-17, tolerance=4e-12) == "0 (< 4e-12)"
    assert format_number(5.5e-17, tolerance=4e-12, show_tolerance=False) == "0"
    assert format_number(5.5e-17, decimals=3, tolerance=4e-12) == "0.000 (< 4e-12)"
    # a real gain above the tolerance is kept, whatever its size
    assert format_number(3e-10, tolerance=4e-12) == "3e-10"
    # without a tolerance (exact, or unknown) nothing is rounded away
    assert format_number(5.5e-17) == "5.5e-17"


def test_no_more_decimals_than_the_tolerance_supports():
    assert format_number(0.123456789, tolerance=1e-3) == "0.123"
    assert format_number(12.3456789, tolerance=0.01) == "12.35"
    assert format_number(0.123456789, tolerance=1e-12) == "0.123457"


def test_decimals_fix_the_digits_after_the_point():
    assert format_number(-1 / 18, decimals=3) == "-0.056"
    assert format_number(2.0, decimals=0) == "2"
    assert format_number(-1e-9, decimals=4) == "0.0000"        # no "-0.0000"


def test_fractions_are_exact_and_long_ones_get_a_decimal_beside_them():
    assert format_number(Fraction(-1, 18)) == "-1/18"
    assert format_number(Fraction(4, 3), decimals=2) == "4/3"  # short: exact only
    long = Fraction(10**20 + 1, 3 * 10**20)
    assert len(str(long)) > LONG_FRACTION
    assert format_number(long) == f"{long} ≈ 0.333333"
    assert format_number(long, decimals=2) == f"{long} ≈ 0.33"
    assert format_number(-long).endswith("≈ -0.333333")
    # beyond the float range: the decimal is still given, in scientific notation
    huge = Fraction(10**400 + 7, 3)
    assert format_number(huge).endswith("≈ 3.33333e+399")


def test_other_values():
    assert format_number(None) == "-"
    assert format_number(4) == "4"
    assert format_number(True) == "True"
    assert format_number("n/a") == "n/a"
    assert format_number([Fraction(1, 2), 0.25]) == "[1/2, 0.25]"
    assert format_number(float("inf")) == "inf"


def test_rounding_tolerance_is_relative_to_the_payoff_range():
    assert rounding_tolerance(4) == pytest.approx(4e-12)
    assert rounding_tolerance(Fraction(1, 2)) == pytest.approx(5e-13)
    assert rounding_tolerance(None) == rounding_tolerance(0) == pytest.approx(1e-12)
    assert rounding_tolerance("not a number") == pytest.approx(1e-12)


@pytest.mark.parametrize("bad", [-1, MAX_DECIMALS + 1, 10**6, 2.5, "3", True])
def test_bad_decimals_are_refused(bad):
    with pytest.raises(OptionError, match="decimals"):
        check_decimals(bad)


@pytest.mark.parametrize("text", ["-1", "2.5", "abc", "", "1000"])
def test_bad_decimals_text_is_refused(text):
    with pytest.raises(OptionError, match=f"from 0 to {MAX_DECIMALS}"):
        parse_decimals(text)


def test_good_decimals():
    assert check_decimals(None) is None
    assert parse_decimals("0") == 0 and parse_decimals(str(MAX_DECIMALS)) == MAX_DECIMALS
