"""The level-by-level Domino compiler builds exactly the explicit tree's sequence form."""

from fractions import Fraction

import numpy as np
import pytest

import lpgame
from lpgame.game.rules import expand
from lpgame.games import domino_compiled
from lpgame.games.domino import DominoRules, domino
from lpgame.games.domino_compiled import CompiledDomino, compile_domino


def _same_index(explicit, compiled):
    a, b = explicit.index, compiled.index
    assert explicit.sizes() == compiled.sizes()
    for i in range(2):
        assert explicit.infosets(i) == compiled.infosets(i)
        assert [explicit.actions(i, s) for s in explicit.infosets(i)] == \
            [compiled.actions(i, s) for s in compiled.infosets(i)]
        for field in ("infoset_parent_seq", "infoset_first_seq", "infoset_depth"):
            assert np.array_equal(getattr(a.players[i], field), getattr(b.players[i], field)), field
    assert np.array_equal(a.terminal_sequences, b.terminal_sequences)
    # floats: the explicit tree multiplies the probabilities along the path, the compiler divides
    # once; the exact probabilities are compared below
    assert np.allclose(a.terminal_chance, b.terminal_chance, rtol=1e-14, atol=0)
    assert np.array_equal(a.terminal_payoffs, b.terminal_payoffs)
    assert a.exact_terminal_data() == b.exact_terminal_data()


@pytest.mark.parametrize("M,N", [(1, 1), (2, 1), (2, 2), (2, 3), (3, 1)])
def test_compiled_domino_is_the_explicit_tree(M, N):  # noqa: N803
    # the rules expanded node by node (networkx) against the numpy compiler: same information sets
    # in the same order with the same labels and actions, same leaves, same exact probabilities
    _same_index(expand(DominoRules(M, N)), compile_domino(DominoRules(M, N)))


@pytest.mark.slow
def test_compiled_domino_3_2_is_the_explicit_tree():
    # about 70 s: the explicit expansion of 1.05 M nodes
    _same_index(expand(DominoRules(3, 2)), compile_domino(DominoRules(3, 2)))


def test_catalog_domino_is_compiled_and_solves_to_the_thesis_value():
    game = domino(2, 2)
    assert isinstance(game, CompiledDomino)
    result = lpgame.solve(game, exact=True)
    assert result.value == Fraction(12, 5)      # Tabla 5.3: 2.4000, CFR ε 0.0000 %
    assert result.certificate.nash_conv == 0


def test_a_hash_collision_falls_back_to_the_explicit_tree(monkeypatch):
    # force every observation history onto one hash: the compiler must notice and domino() must
    # still return the right game (the explicit expansion), never a merged one
    def colliding(self, parents, tokens):
        z = np.full(len(parents), 7, dtype=np.uint64)
        self.records.append((z, parents.astype(np.uint64), tokens.astype(np.int64)))
        return z

    monkeypatch.setattr(domino_compiled._Observations, "extend", colliding)
    with pytest.raises(domino_compiled.HashCollisionError):
        compile_domino(DominoRules(2, 2))
    game = domino(2, 2)
    assert not isinstance(game, CompiledDomino)
    assert abs(lpgame.solve(game).value - 2.4) < 1e-9


def test_compiling_too_large_a_domino_is_refused_with_the_prediction():
    with pytest.raises(lpgame.errors.ModelTooLargeError, match="compiling domino"):
        CompiledDomino(DominoRules(2, 2), memory_limit=10_000)
