"""The broadcast compilation of private-signal games agrees with the explicit tree."""

from fractions import Fraction

import numpy as np
import pytest

import lpgame
from lpgame.game.private_signals import compile_private_signals
from lpgame.game.rules import expand
from lpgame.games.poker import KuhnRules


@pytest.mark.parametrize("players,cards", [(2, 3), (2, 5), (3, 4)])
def test_sizes_and_labels_match_the_explicit_tree(players, cards):
    rules = KuhnRules(players, cards)
    tree, compiled = expand(rules), compile_private_signals(rules)
    assert tree.sizes() == compiled.sizes()
    for i in range(players):
        assert sorted(tree.infosets(i)) == sorted(compiled.infosets(i))


def test_ocp_size_formulas():
    # Rojas Linárez l. 1191: 9N(N-1)+1 nodes, 4N infosets in all, 4N+1 sequences per player
    for n in (3, 10, 50):
        s = lpgame.games.make("one_card_poker", N=n).sizes()
        assert s["nodes"] == 9 * n * (n - 1) + 1
        assert sum(s["infosets"]) == 4 * n
        assert s["sequences"] == [4 * n + 1, 4 * n + 1]
        assert s["terminals"] == 5 * n * (n - 1)


@pytest.mark.parametrize("cards", [3, 4, 7])
def test_same_exact_value_as_the_tree(cards):
    rules = KuhnRules(2, cards)
    a = lpgame.solve(expand(rules), exact=True)
    b = lpgame.solve(compile_private_signals(rules), exact=True)
    assert a.value == b.value
    assert b.certificate.nash_conv == 0


def test_kuhn_value_is_minus_one_eighteenth_in_both_forms():
    # Kuhn (1950): the value of 2-player Kuhn poker for player 1 is -1/18
    assert lpgame.solve(lpgame.games.make("kuhn_poker", structured=True), exact=True).value \
        == Fraction(-1, 18)


def test_strategy_of_one_form_evaluates_identically_in_the_other():
    rules = KuhnRules(3, 4)
    tree, compiled = expand(rules), compile_private_signals(rules)
    rng = np.random.default_rng(7)
    strategies = []
    for i in range(3):
        row = {}
        for label in tree.infosets(i):
            acts = tree.actions(i, label)
            p = rng.dirichlet(np.ones(len(acts)))
            row[label] = dict(zip(acts, p.tolist()))
        strategies.append(row)
    ea, eb = lpgame.evaluate(tree, strategies), lpgame.evaluate(compiled, strategies)
    assert np.allclose(ea.values, eb.values, atol=1e-12)
    assert np.allclose(ea.best_response_values, eb.best_response_values, atol=1e-12)


class _BadWeights(KuhnRules):
    def showdown(self):   # take the generic path that enumerates deals
        return None

    def deals(self):
        deals, weights = super().deals()
        weights = weights.copy()
        weights[0] = 0
        return deals, weights


def test_non_positive_deal_weight_is_refused():
    with pytest.raises(lpgame.InvalidGameError, match="deal weights must be positive"):
        compile_private_signals(_BadWeights(2, 3))


class _NanPayoff(KuhnRules):
    def showdown(self):
        return None

    def leaf_payoffs(self, history, deals):
        return np.full((len(deals), 2), np.nan)


class _NanShowdown(KuhnRules):
    def showdown_case_payoffs(self, history):
        return [[np.nan, 0], [0, 0], [0, 0]]


def test_nan_payoff_is_refused_naming_the_leaf():
    with pytest.raises(lpgame.InvalidGameError, match="'check check' has a payoff that is not finite"):
        compile_private_signals(_NanPayoff(2, 3))
    with pytest.raises(lpgame.InvalidGameError, match="showdown payoff is not finite"):
        compile_private_signals(_NanShowdown(2, 3))


@pytest.mark.parametrize("cards", [3, 8, 40])
def test_compressed_lp_has_the_plain_lps_value(cards):
    """Payoff compression changes the LP's size, never its value (issue 6)."""
    from lpgame.equilibria.zero_sum.security import security_lp
    from lpgame.lp import solve_lp

    game = lpgame.games.make("one_card_poker", N=cards)
    sf = lpgame.compile_game(game)
    compressed = security_lp(sf, 0)
    plain = security_lp(sf, 0, compress=False)
    assert "cumulative" in [c.name for c in compressed.lp.constraints]
    a, b = solve_lp(compressed.lp), solve_lp(plain.lp)
    assert a.objective * compressed.value_scale == pytest.approx(b.objective, abs=1e-10)
    result = lpgame.solve(game)
    assert result.certificate.nash_conv <= 1e-10
    # and the certificate of the compressed path equals the generic tree computation
    tree = lpgame.games.make("one_card_poker", N=cards, structured=False)
    assert lpgame.evaluate(tree, result.strategies).nash_conv == pytest.approx(
        result.certificate.nash_conv, abs=1e-12)


@pytest.mark.slow
def test_many_signals_go_to_the_interior_point_method_and_stay_certified():
    """From IPM_SIGNALS_THRESHOLD cards the compressed LP is solved by an interior-point method,
    Clarabel's (simplex needs O(N) iterations on the cumulative chains; HiGHS's IPX slows down on
    them). With payoffs stated per deal the LP's values were O(N²) and HiGHS's IPM declared
    OCP(5000) dual infeasible; the LP is now scaled by 1/N. The answer is checked by the
    independent best-response computation, and against simplex."""
    from lpgame.equilibria.zero_sum.nash import solve_zero_sum
    from lpgame.equilibria.zero_sum.security import IPM_SIGNALS_THRESHOLD

    game = lpgame.games.make("one_card_poker", N=IPM_SIGNALS_THRESHOLD)
    info = solve_zero_sum(lpgame.compile_game(game)).lp_solution.info
    assert info["interior_point"] == "clarabel" and info["ipm_iterations"] > 0
    result = lpgame.solve(game)
    assert result.certificate.nash_conv <= 1e-9
    # the value of the returned profile, computed bottom-up, is the LP value
    assert lpgame.evaluate(game, result.strategies).values[0] == pytest.approx(result.value, abs=1e-9)
    by_simplex = lpgame.solve(game, solver="simplex")
    assert by_simplex.value == pytest.approx(result.value, abs=1e-9)
    assert result.value == pytest.approx(-0.0556, abs=5e-4)   # thesis Table 5.1: OCP(1000), OCP(5000)


def test_compressed_lp_nonzeros_grow_linearly():
    from lpgame.equilibria.zero_sum.security import security_lp

    nnz = {n: security_lp(lpgame.compile_game(lpgame.games.make("one_card_poker", N=n)), 0)
           .lp.size()["nnz"] for n in (100, 200)}
    assert nnz[200] < 2.1 * nnz[100]


def test_leaf_payoffs_converted_in_blocks_equal_one_conversion(monkeypatch):
    """The leaves' float payoffs do not depend on how many are converted at a time (the block
    bounds compile memory: Dudo(5,2,2) went past its prediction when all were converted at once)."""
    import lpgame.game.private_signals as ps

    def leaf_arrays():
        index = lpgame.games.make("dudo", K=3, D1=1, D2=1).index
        return index.terminal_payoffs.copy(), index.terminal_sequences.copy()

    whole_payoffs, whole_seqs = leaf_arrays()
    monkeypatch.setattr(ps, "LEAF_BLOCK_ENTRIES", 7)     # one leaf (9 deals × 2 payoffs) per block
    block_payoffs, block_seqs = leaf_arrays()
    assert np.array_equal(whole_payoffs, block_payoffs) and np.array_equal(whole_seqs, block_seqs)
    assert set(np.unique(whole_payoffs)) == {-1.0, 1.0}


def test_payoff_matrix_refused_over_the_memory_limit(monkeypatch):
    """Building U predicts its memory first (Dudo(5,2,2)'s 236 M leaves died in it)."""
    from lpgame.errors import ModelTooLargeError
    sf = lpgame.compile_game(lpgame.games.make("dudo", K=3, D1=1, D2=1))
    monkeypatch.setenv("LPGAME_MEMORY_LIMIT", "1K")
    with pytest.raises(ModelTooLargeError, match=r"payoff matrix of dudo.*leaves"):
        sf.payoff_matrix(0)
    monkeypatch.delenv("LPGAME_MEMORY_LIMIT")
    assert sf.payoff_matrix(0).nnz > 0
