"""The payoff operator of ordered-signal games with public cards (lpgame.game.showdown_operator)
and the sparsified LP built on it (lpgame.equilibria.zero_sum.signal_operator_lp).

References: the explicit payoff table of the compiled game (every leaf, lpgame.abstraction.compile)
in floats and exact rationals; Kuhn's value −1/18 (Kuhn 1950); Leduc's −0.0856064240780 by cards
(OpenSpiel's sequence-form LP, notes/peers.md); the gameshrink LP of 12-card Rhode Island Hold'em.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpgame.abstraction.compile import compile_ordered_game
from lpgame.abstraction.ordered_game import BettingRound, OrderedSignalGame, kuhn_ordered, leduc_ordered
from lpgame.equilibria.zero_sum.signal_operator_lp import lift_plan, solve_signal_operator
from lpgame.errors import InvalidGameError
from lpgame.game.showdown_operator import SignalPayoffOperator, suit_partition, suit_permutations
from lpgame.sequence_form import SequenceForm


@st.composite
def public_card_games(draw):
    """Random ordered-signal games: ranks × suits deck, ranks with ties, public cards in later
    rounds, random stakes scaled by 10^k (k from −0 to 12: chips are integers)."""
    suits = draw(st.integers(1, 3))
    ranks = draw(st.integers(1, 4))
    if ranks * suits < 3:
        ranks = 3
    if ranks * suits > 8:
        ranks = 8 // suits
    deck = ranks * suits
    num_rounds = draw(st.integers(1, 3))
    publics = [0] + [draw(st.integers(0, 2)) for _ in range(num_rounds - 1)]
    while 2 + sum(publics) > min(deck, 4):
        publics[-1 if publics[-1] else publics.index(max(publics))] -= 1
    B = sum(publics)
    levels = draw(st.integers(1, 4))                   # few levels: many ties
    table = np.array(draw(st.lists(st.integers(0, levels - 1), min_size=ranks ** (B + 1),
                                   max_size=ranks ** (B + 1))))
    card_rank = np.arange(deck) // suits

    def strength(public, private):
        key = card_rank[private[:, 0]]
        for k in range(public.shape[1]):
            key = key * ranks + card_rank[public[:, k]]
        return table[key]

    scale = 10 ** draw(st.integers(0, 12))
    rounds = [BettingRound(publics[j], 1 if j == 0 else 0, scale * draw(st.integers(1, 4)),
                           draw(st.integers(1, 2))) for j in range(num_rounds)]
    game = OrderedSignalGame("random public-card game", [f"c{k}" for k in range(deck)], rounds,
                             scale * draw(st.integers(0, 2)), strength)
    return game, ranks, suits


def _explicit_exact(sf: SequenceForm, responder: int, plan: list[Fraction]) -> list[Fraction]:
    """U·y or Uᵀ·x from the compiled game's leaves, in rationals (the reference)."""
    chance, payoffs = sf.exact_terminal_data()
    seqs = sf.terminal_sequences
    out = [Fraction(0)] * sf.num_sequences(responder)
    for z, (p, u) in enumerate(zip(chance, payoffs)):
        out[seqs[z, responder]] += p * u[0] * plan[seqs[z, 1 - responder]]
    return out


@settings(max_examples=25, deadline=None)
@given(public_card_games(), st.booleans(), st.integers(0, 2 ** 31))
def test_operator_equals_the_explicit_payoff_table(case, symmetric, seed):
    game, ranks, suits = case
    group = suit_permutations(ranks, suits) if symmetric else None
    partition = suit_partition(game, group) if symmetric else None
    op = SignalPayoffOperator(game, partition, group)
    sf = SequenceForm(compile_ordered_game(game, partition))
    U = sf.payoff_matrix(0)
    rng = np.random.default_rng(seed)
    x, y = rng.random(U.shape[0]), rng.random(U.shape[1])
    for got, want in ((op.sequence_payoffs(0, y), U @ y), (op.sequence_payoffs(1, x), U.T @ x)):
        scale = max(np.abs(want).max(), 1e-300)
        assert np.abs(got - want).max() <= 1e-12 * scale
    # exact: rational plans, compared entry by entry with the leaves' rational sum
    xq = [Fraction(int(k), 7) for k in rng.integers(0, 8, U.shape[0])]
    yq = [Fraction(int(k), 5) for k in rng.integers(0, 6, U.shape[1])]
    assert list(op.sequence_payoffs(1, np.array(xq, dtype=object))) == _explicit_exact(sf, 1, xq)
    assert list(op.sequence_payoffs(0, np.array(yq, dtype=object))) == _explicit_exact(sf, 0, yq)


def test_kuhn_and_leduc_values_through_the_operator_lp():
    kuhn = solve_signal_operator(SignalPayoffOperator(kuhn_ordered()))
    assert kuhn.value == pytest.approx(-1 / 18, abs=1e-12)
    assert kuhn.certificate["nash_conv"] <= 1e-12
    leduc = leduc_ordered()
    group = suit_permutations(3, 2)
    for op in (SignalPayoffOperator(leduc),
               SignalPayoffOperator(leduc, suit_partition(leduc, group), group)):
        solved = solve_signal_operator(op)
        assert solved.value == pytest.approx(-0.0856064240780, abs=1e-12)
        assert solved.certificate["relative_nash_conv"] <= 1e-12


def test_leduc_certificate_agrees_with_lpgames_best_response():
    """The operator's NashConv equals lpgame's independent one on the compiled card-level tree,
    for the lifted symmetric solution (and the symmetric LP is smaller)."""
    import lpgame
    from lpgame.analysis.exploitability import evaluate_plans

    leduc = leduc_ordered()
    group = suit_permutations(3, 2)
    sym = SignalPayoffOperator(leduc, suit_partition(leduc, group), group)
    full = SignalPayoffOperator(leduc)
    solved = solve_signal_operator(sym)
    plans = [lift_plan(sym, full, i, solved.plans[i]) for i in range(2)]
    sf = SequenceForm(compile_ordered_game(leduc))
    ev = evaluate_plans(sf, plans)
    ours = full.nash_conv(*plans)
    assert ev.nash_conv == pytest.approx(ours["nash_conv"], abs=1e-12)
    assert ev.values[0] == pytest.approx(lpgame.solve(leduc).value, abs=1e-12)


def test_unsupported_games_are_refused():
    two_private = OrderedSignalGame("two private cards", list("abcde"), [BettingRound(0, 2, 1, 1)],
                                    1, lambda pub, priv: priv[:, 0])
    with pytest.raises(InvalidGameError, match="one private card"):
        SignalPayoffOperator(two_private)
    weighted = OrderedSignalGame("weighted", list("abc"), [BettingRound(0, 1, 1, 1)], 1,
                                 lambda pub, priv: priv[:, 0], weights=[1, 2, 1])
    with pytest.raises(InvalidGameError, match="uniform deck"):
        SignalPayoffOperator(weighted)
    leduc = leduc_ordered()
    with pytest.raises(InvalidGameError, match="not invariant"):
        SignalPayoffOperator(leduc, None, suit_permutations(3, 2))


@pytest.mark.slow
def test_small_rhode_island_through_the_operator_matches_the_explicit_lp():
    """Rhode Island Hold'em on 9 cards (3 ranks × 3 suits, one bet per round): the operator LP on
    GameShrink's sound filter with the suit group gives the explicit LP's value of the game."""
    import lpgame
    from lpgame.abstraction import gameshrink
    from lpgame.games.rhode_island import rhode_island_ordered

    game = rhode_island_ordered(3, 3, 1)
    op = SignalPayoffOperator(game, gameshrink(game).partition, suit_permutations(3, 3))
    solved = solve_signal_operator(op)
    explicit = lpgame.solve(game).value
    assert solved.value == pytest.approx(explicit, rel=1e-9, abs=1e-12)
    assert solved.certificate["relative_nash_conv"] <= 1e-9


@settings(max_examples=15, deadline=None)
@given(public_card_games(), st.booleans())
def test_counted_nonzeros_equal_the_built_lp(case, symmetric):
    """count_nonzeros predicts the built LP's stored coefficients exactly (duplicates summed,
    cancellations dropped), so the build's memory is predicted from its real size."""
    from lpgame.equilibria.zero_sum.signal_operator_lp import count_nonzeros, operator_security_lp

    game, ranks, suits = case
    group = suit_permutations(ranks, suits) if symmetric else None
    op = SignalPayoffOperator(game, suit_partition(game, group) if symmetric else None, group)
    counted = count_nonzeros(op)
    built = operator_security_lp(op, sizes=counted).lp.size()
    assert (built["rows"], built["cols"], built["nnz"]) == (counted["rows"], counted["cols"],
                                                            counted["nnz"])
    assert counted["nnz"] <= counted["nnz_at_most"]


def test_infoset_labels_are_the_compiled_games():
    """The leaf-free labels are compile_ordered_game's, information set by information set."""
    from lpgame.equilibria.zero_sum.signal_operator_lp import infoset_labels
    from lpgame.games.rhode_island import rhode_island_ordered

    for game in (leduc_ordered(), rhode_island_ordered(3, 3, 1)):
        op = SignalPayoffOperator(game)
        compiled = compile_ordered_game(game)
        for i in range(2):
            labels, actions = infoset_labels(op, i)
            p = compiled.index.players[i]
            want = dict(zip(np.asarray(p.infoset_first_seq).tolist(), p.infoset_labels))
            got = dict(zip(op.treeplex(i).first.tolist(), labels))
            assert got == want


def test_solve_with_method_signal_operator():
    """lpgame.solve(..., method="signal_operator"): Leduc's value by cards (OpenSpiel's LP), the
    strategies on the card-level tree's information sets, and lpgame's independent best responses
    on that explicit tree agree with the operator's certificate; Kuhn's −1/18."""
    import lpgame

    result = lpgame.solve("leduc_poker", method="signal_operator")
    assert result.variant == "signal_operator"
    assert result.value == pytest.approx(-0.0856064240780, abs=1e-12)
    assert result.certificate.extra["relative_nash_conv"] <= 1e-12
    tree = lpgame.games.make("leduc_poker", deal="cards")
    ev = lpgame.evaluate(tree, result.strategies)
    assert ev.nash_conv <= 1e-12
    assert ev.values[0] == pytest.approx(result.value, abs=1e-12)
    assert ev.nash_conv == pytest.approx(result.certificate.nash_conv, abs=1e-12)
    kuhn = lpgame.solve("kuhn_poker", method="signal_operator", operator_filter="none")
    assert kuhn.value == pytest.approx(-1 / 18, abs=1e-12)
    same_tree = lpgame.solve(tree, method="signal_operator", operator_filter="suits")
    assert same_tree.value == pytest.approx(result.value, abs=1e-12)


def test_signal_operator_on_the_command_line(capsys):
    import json

    from lpgame.cli import main

    assert main(["solve", "leduc_poker", "deal=cards", "--method", "signal_operator", "--json",
                 "-", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["variant"] == "signal_operator"
    assert out["value"] == pytest.approx(-0.0856064240780, abs=1e-12)
    assert out["certificate"]["relative_nash_conv"] <= 1e-12
    bad = (["matching_pennies"], ["liars_dice"], ["leduc_poker", "--abstraction", "gameshrink"],
           ["leduc_poker", "--operator-filter", "bogus"])
    for argv in bad:
        assert main(["solve", *argv, "--method", "signal_operator", "--quiet"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("lpgame: error:"), err


@pytest.mark.slow
def test_small_rhode_island_by_lpgame_solve_is_certified_on_the_compiled_tree():
    """9-card Rhode Island through ``method="signal_operator"``: the explicit LP's value, a
    smaller LP, and lpgame's best responses on the compiled game agree with the certificate."""
    import lpgame
    from lpgame.games.rhode_island import rhode_island_ordered

    game = rhode_island_ordered(3, 3, 1)
    result = lpgame.solve("rhode_island_holdem(ranks=3, suits=3, max_bets=1)",
                          method="signal_operator")
    explicit = lpgame.solve(game)
    assert result.value == pytest.approx(explicit.value, rel=1e-9, abs=1e-12)
    assert result.size["nnz"] < explicit.size["nnz"] / 5
    ev = lpgame.evaluate(game.compile(), result.strategies)
    assert ev.nash_conv <= 1e-9 * result.certificate.extra["payoff_range"]
    assert ev.nash_conv == pytest.approx(result.certificate.nash_conv, abs=1e-11)
