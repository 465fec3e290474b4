"""Models too large for memory are refused with ModelTooLargeError, never a crash."""

from fractions import Fraction

import pytest

import lpgame
from lpgame.limits import memory_limit


def _without_catalog_prediction(monkeypatch):
    """The catalog's own size prediction (issue 19) refuses these games first; it is a lower
    bound, so the checks inside the builders must still hold on their own: switch it off."""
    import lpgame.games.registry as catalog
    monkeypatch.setattr(catalog, "check_prediction", lambda *args, **kwargs: None)


def test_tree_expansion_stops_at_the_limit(monkeypatch):
    monkeypatch.setenv("LPGAME_MEMORY_LIMIT", "1M")
    with pytest.raises(lpgame.ModelTooLargeError, match="building kuhn_poker.*limit"):
        lpgame.games.make("kuhn_poker", cards=30)
    _without_catalog_prediction(monkeypatch)
    with pytest.raises(lpgame.ModelTooLargeError, match="expanding kuhn_poker.*limit"):
        lpgame.games.make("kuhn_poker", cards=30)


def test_signal_compilation_predicts_before_allocating(monkeypatch):
    monkeypatch.setenv("LPGAME_MEMORY_LIMIT", "1M")
    _without_catalog_prediction(monkeypatch)
    with pytest.raises(lpgame.ModelTooLargeError, match="deals"):
        lpgame.games.make("kuhn_poker", players=3, cards=60, structured=True)


def test_showdown_games_compile_without_the_quadratic_leaf_table(monkeypatch):
    # OCP(300) has 89,700 deals; with the showdown operator nothing of that size is allocated ...
    monkeypatch.setenv("LPGAME_MEMORY_LIMIT", "1M")
    game = lpgame.games.make("one_card_poker", N=300)
    assert game.sizes()["terminals"] == 5 * 300 * 299
    # ... until something asks for the leaf table, which is then checked like anything else
    with pytest.raises(lpgame.ModelTooLargeError, match="89700 deals"):
        _ = game.index.terminal_sequences


def test_exact_mode_predicts_its_per_leaf_objects(monkeypatch):
    """Exact arithmetic keeps Python objects per leaf: OCP(5000) in exact mode once died with a raw
    numpy MemoryError; the prediction now refuses it first (here OCP(50) under a 2 MiB limit, which
    the floating-point solve fits)."""
    monkeypatch.setenv("LPGAME_MEMORY_LIMIT", "2M")
    game = lpgame.games.make("one_card_poker", N=50)
    value = lpgame.solve(game).value
    with pytest.raises(lpgame.ModelTooLargeError, match="exact arithmetic on the 12,250 leaves"):
        lpgame.solve(game, exact=True)
    monkeypatch.setenv("LPGAME_MEMORY_LIMIT", "64M")
    exact = lpgame.solve(game, exact=True)
    assert isinstance(exact.value, Fraction) and exact.certificate.nash_conv == 0
    assert float(exact.value) == pytest.approx(value, abs=1e-9)


def test_lp_too_large_for_the_limit_is_refused_before_solving():
    with pytest.raises(lpgame.ModelTooLargeError, match="20 rows, 20 columns, 68 nonzeros"):
        lpgame.solve("kuhn_poker", memory_limit=1000)


def test_limit_parsing(monkeypatch):
    monkeypatch.setenv("LPGAME_MEMORY_LIMIT", "2G")
    assert memory_limit() == 2 << 30
    monkeypatch.delenv("LPGAME_MEMORY_LIMIT")
    assert memory_limit() > 0
    assert memory_limit(123) == 123


@pytest.mark.parametrize("spelled", ["lots", "nan", "inf", "1.5X", "G"])
def test_a_malformed_memory_limit_is_refused_by_name(monkeypatch, spelled):
    monkeypatch.setenv("LPGAME_MEMORY_LIMIT", spelled)
    with pytest.raises(lpgame.OptionError, match="LPGAME_MEMORY_LIMIT"):
        memory_limit()


def test_the_cli_reports_a_malformed_memory_limit_on_one_line(monkeypatch, capsys):
    from lpgame.cli import main

    monkeypatch.setenv("LPGAME_MEMORY_LIMIT", "lots")
    assert main(["solve", "kuhn_poker", "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("lpgame: error:") and "LPGAME_MEMORY_LIMIT" in err[0]
