"""Leduc written to a Gambit .efg file and read back: same sequence form, same value (issue 3)."""

import numpy as np
import pytest

import lpgame
from lpgame.io.files import read_game_file, write_game_file


@pytest.mark.parametrize("deal", ["ranks", "cards"])
def test_leduc_efg_round_trip(deal, tmp_path):
    game = lpgame.games.make("leduc_poker", deal=deal)
    path = tmp_path / f"leduc_{deal}.efg"
    write_game_file(game, path)
    back = read_game_file(path)
    assert back.sizes() == game.sizes()
    sf_a, sf_b = lpgame.compile_game(game), lpgame.compile_game(back)
    for i in range(2):
        assert sf_a.infoset_labels(i) == sf_b.infoset_labels(i)
        assert sf_a.sequence_labels(i) == sf_b.sequence_labels(i)
        assert (sf_a.treeplex_matrix(i) != sf_b.treeplex_matrix(i)).nnz == 0
    assert np.allclose(sf_a.payoff_matrix(0).toarray(), sf_b.payoff_matrix(0).toarray(), atol=0)
    a, b = lpgame.solve(game), lpgame.solve(back)
    assert a.value == pytest.approx(b.value, abs=1e-12)
    # OpenSpiel's value of Leduc (notes/peers.md)
    assert b.value == pytest.approx(-0.0856064240780, abs=1e-9)
    assert b.certificate.nash_conv <= 1e-9
