"""Opponent models in Kuhn poker: Hoehn's Tables 4.1 and 4.2, best responses to his test
opponents, Kuhn's equilibrium family, and the ε-safe best-response frontier."""

from fractions import Fraction

import numpy as np
import pytest

import lpgame
from lpgame.analysis.verify import verify
from lpgame.equilibria.zero_sum.safe_best_response import (
    best_response_to_model,
    safe_best_response,
    safe_frontier,
)
from lpgame.errors import InvalidGameError, StrategyError
from lpgame.games.kuhn_family import (
    HOEHN_EXPLORATORY,
    HOEHN_P1_TEST_OPPONENTS,
    HOEHN_P2_TEST_OPPONENTS,
    hoehn_expected_value,
    hoehn_pure_strategy,
    kuhn_equilibrium,
    kuhn_p1_strategy,
    kuhn_p2_strategy,
)

OPPONENTS = ["O1", "O2", "O3", "O4", "O5", "O6"]
# Hoehn 2006, Table 4.1 (B:1020–1028), rows S1..S6, columns O1..O6, as printed (4 decimals)
TABLE_4_1 = {
    1: [0.0381, -0.1417, -0.0222, -0.0389, -0.0139, -0.1806],
    2: [-0.0714, 0.1, -0.0333, -0.1, -0.1111, 0.0556],
    3: [0.0143, 0.0917, 0.0111, -0.1056, -0.0972, -0.0139],
    4: [-0.2810, -0.3417, -0.2333, 0.05, 0.0139, -0.0694],
    5: [-0.1952, -0.35, -0.1889, 0.0444, 0.0278, -0.1389],
    6: [-0.3048, -0.1083, -0.2, -0.0167, -0.0694, 0.0972],
}
# Table 4.2 (B:1034–1040)
TABLE_4_2 = {
    "ExploreXi": [-0.3048, -0.1083, -0.2, -0.0167, -0.0694, 0.0972],
    "ExploreEta": [-0.2190, -0.1167, -0.1556, -0.0222, -0.0556, 0.0278],
    "BalancedExplore": [-0.2619, -0.1125, -0.1778, -0.0194, -0.0625, 0.0625],
}
# best response of P1 to each test opponent: the region's pure strategy (notes §B.6)
BEST_RESPONSE_REGION = {"O1": 1, "O2": 2, "O3": 3, "O4": 4, "O5": 5, "O6": 6}
# P2 modelling P1 (B:1398–1412): P2's best response (η, ξ) and its payoff
P2_BEST_RESPONSES = {"O'1": ((0, 1), 0.1167), "O'2": ((0, 0), 0.0883),
                     "O'3": ((1, 1), 0.1333), "O'4": ((1, 0), 0.1083)}


@pytest.fixture(scope="module")
def kuhn():
    return lpgame.games.make("kuhn_poker")


def model(name):
    return kuhn_p2_strategy(*HOEHN_P2_TEST_OPPONENTS[name])


def test_table_4_1(kuhn):
    for k, row in TABLE_4_1.items():
        for name, printed in zip(OPPONENTS, row):
            value = lpgame.evaluate(kuhn, [hoehn_pure_strategy(k), model(name)], exact=True).values[0]
            assert round(float(value), 4) == pytest.approx(printed, abs=1e-12), (k, name)
            # and Hoehn's closed form (eq. 2.1) agrees exactly
            alpha, beta, gamma = (k >> 2) & 1, (k >> 1) & 1, k & 1
            assert value == hoehn_expected_value(alpha, beta, gamma,
                                                 *HOEHN_P2_TEST_OPPONENTS[name])


def test_table_4_2(kuhn):
    for name in OPPONENTS:
        for alpha in (0, Fraction(1, 6), Fraction(1, 3)):   # "Equilibrium": any member
            p1 = kuhn_equilibrium(alpha)[0]
            assert lpgame.evaluate(kuhn, [p1, model(name)], exact=True).values[0] == \
                Fraction(-1, 18)
    for strategy, row in TABLE_4_2.items():
        p1 = kuhn_p1_strategy(*HOEHN_EXPLORATORY[strategy])
        for name, printed in zip(OPPONENTS, row):
            value = lpgame.evaluate(kuhn, [p1, model(name)], exact=True).values[0]
            assert round(float(value), 4) == pytest.approx(printed, abs=1e-12), (strategy, name)


@pytest.mark.parametrize("name", OPPONENTS)
def test_best_responses_to_the_test_opponents(kuhn, name):
    """The full-game best response earns the column maximum of Table 4.1 and plays the region's
    pure strategy on Hoehn's three parameters (bluff J, call Q, bet K)."""
    response = best_response_to_model(kuhn, model(name), player=0)
    column = [TABLE_4_1[k][OPPONENTS.index(name)] for k in TABLE_4_1]
    assert round(response.value_vs_model, 4) == pytest.approx(max(column), abs=1e-12)
    k = BEST_RESPONSE_REGION[name]
    s = response.strategy
    assert (s["J"]["bet"], s["Q check bet"]["call"], s["K"]["bet"]) == \
        ((k >> 2) & 1, (k >> 1) & 1, k & 1)


@pytest.mark.parametrize("name", sorted(P2_BEST_RESPONSES))
def test_player_2_best_responses_to_hoehns_player_1_opponents(kuhn, name):
    (eta, xi), payoff = P2_BEST_RESPONSES[name]
    p1 = kuhn_p1_strategy(*HOEHN_P1_TEST_OPPONENTS[name])
    response = best_response_to_model(kuhn, p1, player=1)
    assert round(response.value_vs_model, 4) == pytest.approx(payoff, abs=1e-12)
    assert (response.strategy["Q bet"]["call"], response.strategy["J check"]["bet"]) == (eta, xi)
    # P2's equilibrium strategy earns the value 1/18 against every one of them (B:1398)
    eq = kuhn_equilibrium(0)[1]
    assert lpgame.evaluate(kuhn, [p1, eq], exact=True).values[1] == Fraction(1, 18)


def test_equilibrium_family_and_exploratory_worst_cases(kuhn):
    for alpha in (0, Fraction(1, 9), Fraction(1, 3)):
        ev = lpgame.evaluate(kuhn, kuhn_equilibrium(alpha), exact=True)
        assert ev.nash_conv == 0 and ev.values[0] == Fraction(-1, 18)
    with pytest.raises(StrategyError):
        kuhn_equilibrium(Fraction(1, 2))
    # Hoehn B:949–951: worst cases −0.333, −0.5, −0.417 $/hand
    worst = {"ExploreEta": -1 / 3, "ExploreXi": -0.5, "BalancedExplore": -5 / 12}
    for name, expected in worst.items():
        p1 = kuhn_p1_strategy(*HOEHN_EXPLORATORY[name])
        report = verify(kuhn, [p1, kuhn_equilibrium(0)[1]], equilibrium=False, top=0)
        assert report.guaranteed[0] == pytest.approx(expected, abs=1e-12)


def test_safe_frontier_against_o2(kuhn):
    """ε = 0 gives the value −1/18, large ε the best response (0.1, worst case −1/6), in between
    notes §B.7's points (−0.0416, −0.0276, +0.0144, +0.0844 at ε = .01, .02, .05, .1)."""
    frontier = safe_frontier(kuhn, model("O2"), num_points=6)
    assert frontier.security_value == pytest.approx(-1 / 18, abs=1e-9)
    assert frontier.best_response_value == pytest.approx(0.1, abs=1e-9)
    assert frontier.full_epsilon == pytest.approx(1 / 9, abs=1e-7)
    first, last = frontier.points[0], frontier.points[-1]
    assert first.epsilon == 0 and first.value_vs_model == pytest.approx(-1 / 18, abs=1e-9)
    assert last.value_vs_model == pytest.approx(0.1, abs=1e-7)
    assert last.guaranteed == pytest.approx(-1 / 6, abs=1e-7)
    values = [p.value_vs_model for p in frontier.points]
    assert np.all(np.diff(values) >= -1e-9)
    for p in frontier.points:   # the guarantee, checked by an independent best response
        assert p.guaranteed >= frontier.security_value - p.epsilon - 1e-7   # LP tolerance
    for epsilon, expected in [(0.01, -0.0416), (0.02, -0.0276), (0.05, 0.0144), (0.1, 0.0844)]:
        point = safe_best_response(kuhn, model("O2"), epsilon)
        assert point.value_vs_model == pytest.approx(expected, abs=1e-4)
        assert point.value_vs_model == pytest.approx(-1 / 18 + 1.4 * epsilon, abs=1e-9)  # slope


@pytest.mark.parametrize("name", OPPONENTS)
def test_safe_frontier_ends(kuhn, name):
    frontier = safe_frontier(kuhn, model(name), num_points=2)
    assert frontier.points[0].value_vs_model == pytest.approx(-1 / 18, abs=1e-9)
    assert frontier.points[0].guaranteed == pytest.approx(-1 / 18, abs=1e-9)
    column = [TABLE_4_1[k][OPPONENTS.index(name)] for k in TABLE_4_1]
    assert round(frontier.points[-1].value_vs_model, 4) == pytest.approx(max(column), abs=1e-12)
    big = safe_best_response(kuhn, model(name), 10.0)
    assert big.value_vs_model == pytest.approx(frontier.best_response_value, abs=1e-9)


def test_player_2_safe_best_response(kuhn):
    p1 = kuhn_p1_strategy(*HOEHN_P1_TEST_OPPONENTS["O'3"])
    zero = safe_best_response(kuhn, p1, 0.0, player=1)
    assert zero.guaranteed == pytest.approx(1 / 18, abs=1e-9)
    assert zero.value_vs_model >= 1 / 18 - 1e-9
    full = safe_best_response(kuhn, p1, 5.0, player=1)
    assert round(full.value_vs_model, 4) == pytest.approx(0.1333, abs=1e-12)


def test_errors(kuhn):
    with pytest.raises(InvalidGameError, match="non-negative"):
        safe_best_response(kuhn, model("O1"), -0.1)
    with pytest.raises(StrategyError):
        safe_best_response(kuhn, {"J": {"check": 1.0}}, 0.1)
    with pytest.raises(InvalidGameError, match="two players"):
        safe_best_response(lpgame.games.make("kuhn_poker", players=3, cards=4), {}, 0.1)
