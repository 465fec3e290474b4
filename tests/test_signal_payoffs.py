"""The deals × public-leaves payoff table of two-player private-signal games
(lpgame.game.signal_payoffs) against the product leaves it replaces.

Every product and submatrix is compared with the same quantity computed from the product leaves
(deal, public leaf) that lpgame.game.private_signals builds for exact mode: one sparse matrix
U_k[σ_1, σ_2] = Σ_z p_c(z) u_k(z) assembled by scipy from those leaves.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import lpgame
from lpgame.equilibria.zero_sum.double_oracle import PayoffOperator, solve_zero_sum_double_oracle
from lpgame.equilibria.zero_sum.nash import solve_zero_sum
from lpgame.game.private_signals import compile_private_signals
from lpgame.game.signal_payoffs import SignalPayoffs
from lpgame.games.poker import KuhnRules


class _GeneralSumKuhn(KuhnRules):
    """Kuhn poker through the generic path (no showdown structure), with player 2's payoff
    changed so that the game is neither zero-sum nor constant-sum."""

    def showdown(self):
        return None

    def leaf_payoffs(self, history, deals):
        u = np.asarray(super().leaf_payoffs(history, deals), dtype=float)
        u[:, 1] = 2 * u[:, 1] + deals[:, 0]
        return u


def _product_leaf_matrix(game, payoff_of: int) -> sp.csr_array:
    data = game.index._data()                 # the product leaves (deal, public leaf)
    seqs = data["sequences"]
    shape = (game.sizes()["sequences"][0], game.sizes()["sequences"][1])
    return sp.csr_array((data["chance"] * data["payoffs"][:, payoff_of],
                         (seqs[:, 0], seqs[:, 1])), shape=shape)


GAMES = [("dudo", {"K": 3, "D1": 1, "D2": 2}), ("dudo", {"K": 2, "D1": 2, "D2": 2}),
         ("liars_dice", {"faces": 4})]


def _games():
    out = [lpgame.games.make(name, **params) for name, params in GAMES]
    out.append(compile_private_signals(_GeneralSumKuhn(2, 4)))
    return out


@pytest.mark.parametrize("game", _games(), ids=lambda g: g.name)
def test_table_products_equal_the_product_leaves(game):
    st = game.payoff_structure
    assert isinstance(st, SignalPayoffs)
    assert game.index._terminals is None          # compiling did not build the product leaves
    rng = np.random.default_rng(3)
    plans = [rng.random(n) for n in game.sizes()["sequences"]]
    for k in range(2):
        U = _product_leaf_matrix(game, k)
        assert abs(st.payoff_submatrix(k) - U).max() <= 1e-15
        for sign in (1.0, -2.0):
            assert np.allclose(st.sequence_payoffs(0, plans, k, sign), sign * (U @ plans[1]),
                               rtol=0, atol=1e-13)
            assert np.allclose(st.sequence_payoffs(1, plans, k, sign), sign * (U.T @ plans[0]),
                               rtol=0, atol=1e-13)
        assert st.expected_payoffs(plans)[k] == pytest.approx(plans[0] @ U @ plans[1], abs=1e-12)


@pytest.mark.parametrize("game", _games(), ids=lambda g: g.name)
def test_submatrix_on_sequence_subsets(game):
    st = game.payoff_structure
    rng = np.random.default_rng(5)
    U = _product_leaf_matrix(game, 0)
    for _ in range(3):
        kept = [np.flatnonzero(rng.random(n) < 0.3) for n in game.sizes()["sequences"]]
        assert abs(st.payoff_submatrix(0, kept) - U[kept[0]][:, kept[1]]).max() <= 1e-15


def test_zero_sum_games_store_one_table_and_sums_are_read_from_it():
    dudo = lpgame.games.make("dudo", K=3, D1=1, D2=1)
    assert dudo.payoff_structure.weighted.shape[0] == 1
    assert dudo.is_zero_sum() and dudo.payoff_range() == 2.0
    general = compile_private_signals(_GeneralSumKuhn(2, 4))
    assert general.payoff_structure.weighted.shape[0] == 2
    leaves = general.index._data()["payoffs"]
    assert not general.is_constant_sum()
    assert general.payoff_range() == leaves.max() - leaves.min()
    from lpgame.equilibria.zero_sum.nash import solve_zero_sum
    with pytest.raises(lpgame.InvalidGameError, match="not zero-sum or constant-sum"):
        solve_zero_sum(lpgame.compile_game(general))


def test_payoff_table_refused_over_the_memory_limit(monkeypatch):
    monkeypatch.setenv("LPGAME_MEMORY_LIMIT", "1K")
    # the catalog's size prediction (issue 19) now refuses before the table is even laid out
    with pytest.raises(lpgame.ModelTooLargeError,
                       match=r"payoff table of dudo.*public leaves|building dudo.*would need"):
        lpgame.games.make("dudo", K=3, D1=1, D2=1)


def test_double_oracle_never_builds_the_product_leaves(monkeypatch):
    """Where U would not fit (here: forced), the double oracle's products and restricted matrices
    come from the table; its value is the whole LP's and its profile is certified by the best
    responses over the product leaves."""
    from lpgame.analysis.exploitability import evaluate_plans
    from lpgame.equilibria.zero_sum import double_oracle

    game = lpgame.games.make("dudo", K=3, D1=1, D2=2)
    sf = lpgame.compile_game(game)
    assert PayoffOperator(sf).structure is None          # small: U as CSR, from the table
    assert game.index._terminals is None
    monkeypatch.setattr(double_oracle, "MATRIX_MEMORY_FRACTION", 0.0)
    assert PayoffOperator(sf).matrix is None
    sol = solve_zero_sum_double_oracle(sf)
    assert game.index._terminals is None
    whole = solve_zero_sum(sf)
    assert sol.value == pytest.approx(whole.value, abs=1e-10)
    # now an independent check on the product leaves: bincount over (deal, public leaf) leaves
    data = game.index._data()
    seqs, weight = data["sequences"], data["chance"] * data["payoffs"][:, 0]
    g1 = np.bincount(seqs[:, 0], weights=weight * sol.plans[1][seqs[:, 1]],
                     minlength=sf.num_sequences(0))
    assert sol.plans[0] @ g1 == pytest.approx(whole.value, abs=1e-10)
    assert evaluate_plans(sf, sol.plans).nash_conv <= 1e-10 * game.payoff_range()


def test_strategies_of_large_games_are_views_equal_to_the_dicts(monkeypatch):
    """From LAZY_STRATEGY_INFOSETS information sets a strategy is a read-only view built on
    demand (Dudo(5,2,2) has 7.9 million per player); it equals the dict, writes the same JSON,
    evaluates the same and reads back the same."""
    import json

    from lpgame import sequence_form
    from lpgame.io.json_io import strategies_from_json

    game = lpgame.games.make("dudo", K=3, D1=1, D2=1)
    plain = lpgame.solve(game)
    monkeypatch.setattr(sequence_form, "LAZY_STRATEGY_INFOSETS", 0)
    viewed = lpgame.solve(game)
    assert all(isinstance(s, sequence_form.BehaviourStrategy) for s in viewed.strategies)
    assert viewed.strategies == plain.strategies
    assert all(isinstance(s, dict) for s in plain.strategies)
    assert json.dumps(viewed.to_dict()["strategies"]) == json.dumps(plain.to_dict()["strategies"])
    assert strategies_from_json(json.loads(json.dumps(viewed.to_dict()))) == plain.strategies
    assert lpgame.evaluate(game, viewed.strategies).nash_conv == pytest.approx(
        plain.certificate.nash_conv, abs=1e-12)
    assert viewed.summary().split("\ncertificate")[0] == plain.summary().split("\ncertificate")[0]
    label = next(iter(viewed.strategies[0]))
    assert viewed.strategies[0][label] == plain.strategies[0][label]
    with pytest.raises(KeyError):
        viewed.strategies[0]["no such information set"]
