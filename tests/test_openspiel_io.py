"""OpenSpiel interop: imported games solve to OpenSpiel's own values; policies convert both ways."""

from fractions import Fraction

import pytest

import lpgame
from lpgame.io.openspiel import (
    game_from_openspiel,
    strategies_from_openspiel_policy,
    strategies_to_openspiel_policy,
)

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python.algorithms import exploitability, sequence_form_lp  # noqa: E402


def test_kuhn_import_has_openspiel_sizes_and_the_exact_value():
    game = game_from_openspiel("kuhn_poker")
    assert game.sizes()["infosets"] == [6, 6] and game.sizes()["terminals"] == 30
    result = lpgame.solve(game, exact=True)
    assert result.value == Fraction(-1, 18)     # Kuhn 1950
    assert result.value == lpgame.solve("kuhn_poker", exact=True).value  # the catalog version


def test_leduc_import_matches_openspiels_own_lp_and_nash_conv():
    game = game_from_openspiel("leduc_poker")
    assert sum(game.sizes()["infosets"]) == 936 and game.sizes()["sequences"] == [1093, 1093]
    result = lpgame.solve(game)
    os_value = sequence_form_lp.solve_zero_sum_game(pyspiel.load_game("leduc_poker"))[0]
    assert result.value == pytest.approx(os_value, abs=1e-9)
    assert result.certificate.nash_conv <= 1e-9
    # OpenSpiel's own evaluator agrees that lpgame's profile is an equilibrium
    policy = strategies_to_openspiel_policy(game, "leduc_poker", result.strategies)
    assert exploitability.nash_conv(pyspiel.load_game("leduc_poker"), policy) <= 1e-9


def test_leduc_import_matches_the_catalog_value():
    catalog = lpgame.solve(lpgame.games.make("leduc_poker"))
    imported = lpgame.solve(game_from_openspiel("leduc_poker"))
    assert catalog.value == pytest.approx(imported.value, abs=1e-9)


@pytest.mark.slow
def test_liars_dice_import_matches_the_catalog_value():
    imported = lpgame.solve(game_from_openspiel("liars_dice"))
    assert imported.certificate.nash_conv <= 1e-9
    # OpenSpiel's liars_dice counts the highest face as wild; the catalog's wild=True is that rule
    catalog = lpgame.solve(lpgame.games.make("liars_dice", players=2, faces=6, wild=True))
    assert catalog.value == pytest.approx(imported.value, abs=1e-9)
    assert catalog.size == imported.size


def test_policy_round_trip_keeps_the_strategies():
    game = game_from_openspiel("kuhn_poker")
    result = lpgame.solve(game)
    policy = strategies_to_openspiel_policy(game, "kuhn_poker", result.strategies)
    back = strategies_from_openspiel_policy(game, "kuhn_poker", policy)
    for mine, theirs in zip(result.strategies, back):
        for infoset, row in mine.items():
            for action, p in row.items():
                assert theirs[infoset][action] == pytest.approx(p, abs=1e-12)


def test_simultaneous_games_are_refused():
    with pytest.raises(lpgame.InvalidGameError, match="not turn-based"):
        game_from_openspiel("matrix_rps")
