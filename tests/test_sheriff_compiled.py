"""The closed-form Sheriff compiler builds exactly the explicit tree's sequence form."""

import itertools
from fractions import Fraction

import numpy as np
import pytest

import lpgame
from lpgame.errors import InvalidGameError, ModelTooLargeError, OptionError
from lpgame.game import Game
from lpgame.game.rules import expand
from lpgame.games.sheriff import SheriffRules, sheriff
from lpgame.games.sheriff_compiled import CompiledSheriff, compile_sheriff


def _same_index(explicit, compiled):
    a, b = explicit.index, compiled.index
    assert explicit.sizes() == compiled.sizes()
    assert (explicit.name, explicit.player_names) == (compiled.name, compiled.player_names)
    for i in range(2):
        pa, pb = a.players[i], b.players[i]
        assert pa.infoset_labels == pb.infoset_labels
        assert pa.infoset_actions == pb.infoset_actions
        for field in ("infoset_parent_seq", "infoset_first_seq", "infoset_depth", "seq_infoset",
                      "seq_action"):
            assert np.array_equal(getattr(pa, field), getattr(pb, field)), field
    assert np.array_equal(a.terminal_sequences, b.terminal_sequences)
    assert np.array_equal(a.terminal_chance, b.terminal_chance)
    assert np.array_equal(a.terminal_payoffs, b.terminal_payoffs)
    assert a.exact_terminal_data() == b.exact_terminal_data()


SMALL = list(itertools.product(range(4), range(3), range(1, 4)))


@pytest.mark.parametrize("N,B,rounds", SMALL, ids=[f"S2{n}{b}{r}" for n, b, r in SMALL])
def test_compiled_sheriff_is_the_explicit_tree(N, B, rounds):  # noqa: N803
    # the rules expanded node by node (networkx) against the closed form: same information sets in
    # the same order with the same labels and actions, same sequences, same leaves and payoffs
    rules = SheriffRules(N, B, rounds)
    _same_index(expand(rules), compile_sheriff(rules))


@pytest.mark.parametrize("v,p,s", [(3, 2, 7), (Fraction(1, 3), Fraction(5, 2), 0),
                                   (0.1, 0.7, 2.5), (-2, 0, -1), (10 ** 400, 1, 1)])
def test_compiled_sheriff_keeps_the_payoff_constants_as_given(v, p, s):
    # floats, Fractions and exact integers beyond the double range (±inf as floats) alike
    rules = SheriffRules(2, 1, 2, v, p, s)
    _same_index(expand(rules), compile_sheriff(rules))


def test_compiled_s2133_is_the_explicit_tree():
    # Farina's Table A.1 row S2133, 5,632 leaves
    _same_index(expand(SheriffRules(10, 3, 3)), compile_sheriff(SheriffRules(10, 3, 3)))


@pytest.mark.slow
def test_compiled_s2254_is_the_explicit_tree():
    # about 25 s: the explicit expansion of 435,456 leaves (1.3 GiB)
    _same_index(expand(SheriffRules(20, 5, 4)), compile_sheriff(SheriffRules(20, 5, 4)))


def test_catalog_sheriff_is_compiled_unless_asked_for_the_tree():
    assert isinstance(sheriff(2, 1, 1), CompiledSheriff)
    assert isinstance(lpgame.games.make("sheriff", N=2, B=1, rounds=1), CompiledSheriff)
    tree = lpgame.games.make("sheriff", N=2, B=1, rounds=1, structured=False)
    assert isinstance(tree, Game) and not isinstance(tree, CompiledSheriff)


def test_compiled_sheriff_gives_the_same_optimal_efce():
    compiled = lpgame.solve(sheriff(2, 1, 1), concept="efce", objective="player1")
    explicit = lpgame.solve(sheriff(2, 1, 1, structured=False), concept="efce",
                            objective="player1")
    assert compiled.objective == pytest.approx(explicit.objective, abs=1e-12)


@pytest.mark.parametrize("params", [{"N": -1}, {"B": -1}, {"rounds": 0}])
@pytest.mark.parametrize("structured", [True, False])
def test_bad_sizes_are_refused_on_both_paths(params, structured):
    with pytest.raises(InvalidGameError, match="sheriff needs"):
        sheriff(**params, structured=structured)


@pytest.mark.parametrize("structured", [True, False])
def test_a_payoff_that_is_not_finite_is_refused_on_both_paths(structured):
    with pytest.raises(InvalidGameError, match="not finite"):
        sheriff(1, 1, 1, v=float("nan"), structured=structured)


def test_structured_of_a_wrong_type_is_refused_as_for_domino():
    for name in ("sheriff", "domino"):
        with pytest.raises(OptionError, match="structured=maybe"):
            lpgame.games.make(name, structured="maybe")


def test_compiling_too_large_a_sheriff_is_refused_with_the_prediction():
    with pytest.raises(ModelTooLargeError, match="compiling sheriff"):
        CompiledSheriff(SheriffRules(10, 3, 3), memory_limit=10_000)
