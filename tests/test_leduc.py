"""Leduc poker (lpgame/games/leduc.py) against Farina's size tables, OpenSpiel and hand-derived rules.

Sources: notes/farina-thesis.md §2.2 and the size table of §2.14 (Farina 2023, Tables A.1/A.2:
"decision nodes" there are information sets summed over players, sequences include one empty
sequence per player); notes/peers.md (OpenSpiel's card-level Leduc: 936 information sets, value
−0.0856064240780 for player 1); OpenSpiel 2.0.2 itself (its sequence-form LP and its NashConv).
"""

from __future__ import annotations

import functools
from fractions import Fraction

import pytest

import lpgame
from lpgame.errors import InvalidGameError
from lpgame.game.rules import CHANCE_PLAYER, TERMINAL_PLAYER
from lpgame.games.leduc import LeducRules, leduc_poker

LITERATURE_VALUE = -0.0856064240780    # notes/peers.md (13 significant digits)

# Farina 2023, Tables A.1/A.2 (notes §2.14): name -> (information sets, sequences, leaves)
FARINA_SIZES = {
    "L2232": (288, 674, 1116),
    "L2252": (780, 1822, 5500),
    "L3132": (684, 1371, 4500),
    "L3133": (684, 1371, 6477),
    "L3151": (1500, 3003, 10020),
    "L3223": (1890, 4329, 8762),
}


def _farina_sizes(name: str) -> tuple[int, int, int]:
    players, bets, ranks, suits = (int(ch) for ch in name[1:])
    sizes = leduc_poker(players, bets, ranks, suits).sizes()
    return sum(sizes["infosets"]), sum(sizes["sequences"]), sizes["terminals"]


@pytest.mark.parametrize("name", sorted(FARINA_SIZES))
def test_sizes_match_farina_tables(name):
    assert _farina_sizes(name) == FARINA_SIZES[name]


@pytest.mark.slow
def test_l3523_sizes_match_farina_table():
    # 1.3 million nodes, ~16 s and ~2.5 GB to expand: marked slow
    assert _farina_sizes("L3523") == (148752, 369459, 775148)


def test_two_player_closed_forms():
    # notes §2.2: information sets 2(3r + 15r²), leaves r(4 + 45(r−1)) + r(r−1)(4 + 45r) (b=2, s=2)
    for r in (2, 4):
        sizes = leduc_poker(2, 2, r, 2).sizes()
        assert sum(sizes["infosets"]) == 2 * (3 * r + 15 * r * r)
        assert sizes["terminals"] == r * (4 + 45 * (r - 1)) + r * (r - 1) * (4 + 45 * r)


def test_card_level_standard_game_has_openspiels_936_infosets():
    sizes = leduc_poker(deal="cards").sizes()
    assert sizes["infosets"] == [468, 468]
    assert sum(sizes["infosets"]) == 936
    assert sizes["sequences"] == [1093, 1093]       # notes/peers.md: 1093 sequences per player


# ---------------------------------------------------------------- rules, checked by hand
def _play(rules: LeducRules, deal: str, actions: list[str], board: str | None = None):
    state = rules.apply(rules.initial_state(), deal)
    for action in actions:
        if rules.current_player(state) == CHANCE_PLAYER:
            state = rules.apply(state, board)
        state = rules.apply(state, action)
    return state


def test_rank_level_chance_probabilities_by_counting():
    rules = LeducRules()                        # 3 ranks × 2 suits
    deals = dict(rules.chance_outcomes(rules.initial_state()))
    assert deals["J-J"] == Fraction(2, 6) * Fraction(1, 5)
    assert deals["J-Q"] == Fraction(2, 6) * Fraction(2, 5)
    assert len(deals) == 9 and sum(deals.values()) == 1
    state = _play(rules, "J-Q", ["check", "check"])
    assert rules.current_player(state) == CHANCE_PLAYER
    boards = dict(rules.chance_outcomes(state))
    assert boards == {"J": Fraction(1, 4), "Q": Fraction(1, 4), "K": Fraction(2, 4)}
    boards = dict(rules.chance_outcomes(_play(rules, "K-K", ["check", "check"])))
    assert boards == {"J": Fraction(1, 2), "Q": Fraction(1, 2)}


def test_betting_rounds_and_showdown():
    rules = LeducRules()
    # bet 2 in round 1, raise 2 more, call: 5 each; round 2: bet 4, call: 9 each
    state = _play(rules, "Q-K", ["bet", "raise", "call", "bet", "call"], board="Q")
    assert rules.current_player(state) == TERMINAL_PLAYER
    assert rules.payoffs(state) == (9, -9)              # queen pairs the board, beats the king
    state = _play(rules, "Q-K", ["bet", "raise", "call", "bet", "call"], board="J")
    assert rules.payoffs(state) == (-9, 9)              # no pair: higher rank wins
    state = _play(rules, "K-K", ["check", "check", "check", "check"], board="J")
    assert rules.payoffs(state) == (0, 0)               # tie splits the pot
    state = _play(rules, "J-K", ["check", "bet", "fold"])
    assert rules.payoffs(state) == (-1, 1)
    # at most two bets per round: after bet, raise only fold/call
    state = _play(rules, "J-K", ["check", "bet", "raise"])
    assert rules.legal_actions(state) == ("fold", "call")
    assert rules.infoset_key(state) == "K | check bet raise"
    state = _play(rules, "J-K", ["check", "check", "check"], board="Q")
    assert rules.current_player(state) == 1
    assert rules.infoset_key(state) == "K | check check | Q check"


def test_three_players_round_restarts_with_lowest_active_seat_and_odd_pot_split():
    rules = LeducRules(players=3, bets=1, ranks=3, suits=2)
    # seat 0 checks, seat 1 bets 2, seat 2 calls, seat 0 folds: stakes 1, 3, 3
    state = _play(rules, "J-K-K", ["check", "bet", "call", "fold"])
    assert rules.current_player(state) == CHANCE_PLAYER
    state = rules.apply(state, "Q")
    assert rules.current_player(state) == 1             # round 2 opens with the lowest active seat
    state = rules.apply(state, "check")
    assert rules.current_player(state) == 2
    state = rules.apply(state, "check")
    assert rules.payoffs(state) == (-1, Fraction(1, 2), Fraction(1, 2))   # 7 chips, 2 kings


def test_invalid_parameters_are_refused():
    with pytest.raises(InvalidGameError, match="at least 4 cards"):
        LeducRules(players=3, ranks=1, suits=3)
    with pytest.raises(InvalidGameError, match="deal must be"):
        LeducRules(deal="suits")
    with pytest.raises(InvalidGameError, match="bets >= 1"):
        LeducRules(bets=0)


# ---------------------------------------------------------------- values
@functools.cache
def _solution(deal: str):
    return lpgame.solve(leduc_poker(deal=deal))


@functools.cache
def _openspiel_lp_value() -> float:
    """OpenSpiel's own sequence-form LP on its leduc_poker. Its default cvxpy solver (ECOS) is not
    installed and its ECOS options are always passed, so the options are emptied for HiGHS."""
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import lp_solver, sequence_form_lp
    solve = lp_solver.LinearProgram.solve
    saved = solve.__defaults__
    solve.__defaults__ = ("HIGHS", {})
    try:
        value, _, _, _ = sequence_form_lp.solve_zero_sum_game(
            pyspiel.load_game("leduc_poker"), solver="HIGHS")
    finally:
        solve.__defaults__ = saved
    return float(value)


@pytest.mark.parametrize("deal", ["ranks", "cards"])
def test_value_equals_openspiels_lp_and_the_literature(deal):
    result = _solution(deal)
    assert result.value == pytest.approx(_openspiel_lp_value(), abs=1e-9)
    assert result.value == pytest.approx(LITERATURE_VALUE, abs=1e-12)
    assert result.certificate.nash_conv <= 1e-9


def test_both_deals_give_the_same_value_and_the_exact_value():
    exact = lpgame.solve(leduc_poker(deal="ranks"), exact=True)
    assert isinstance(exact.value, Fraction)
    assert exact.certificate.nash_conv == 0
    assert float(exact.value) == pytest.approx(LITERATURE_VALUE, abs=1e-12)
    assert _solution("cards").value == pytest.approx(float(exact.value), abs=1e-12)
    assert _solution("ranks").value == pytest.approx(float(exact.value), abs=1e-12)


def _openspiel_policy(os_game, rules: LeducRules, strategies):
    """lpgame's behaviour strategies as an OpenSpiel TabularPolicy, by walking OpenSpiel's tree and
    naming each of its information sets as lpgame does (OpenSpiel's card c has rank c // 2;
    its action 1 is check or call, 2 is bet or raise, 0 is fold)."""
    from open_spiel.python import policy as os_policy
    tabular = os_policy.TabularPolicy(os_game)
    rank_names = ["J", "Q", "K"]

    def name(card: int) -> str:
        return rules.card_name[card] if rules.deal == "cards" else rank_names[card // 2]

    def walk(state, cards, rounds, made):
        if state.is_terminal():
            return
        if state.is_chance_node():
            for card, _ in state.chance_outcomes():
                if len(cards) < 2:
                    walk(state.child(card), cards + [card], rounds, made)
                else:
                    walk(state.child(card), cards + [card], rounds + [[]], 0)
            return
        player = state.current_player()
        label = name(cards[player])
        if rounds[0]:
            label += " | " + " ".join(rounds[0])
        if len(rounds) == 2:
            label += " | " + name(cards[2]) + "".join(" " + a for a in rounds[1])
        names = {0: "fold", 1: "check" if made == 0 else "call", 2: "bet" if made == 0 else "raise"}
        probs = tabular.policy_for_key(state.information_state_string())
        for action in state.legal_actions():
            probs[action] = strategies[player][label][names[action]]
            grown = rounds[:-1] + [rounds[-1] + [names[action]]]
            walk(state.child(action), cards, grown, made + (action == 2))

    walk(os_game.new_initial_state(), [], [[]], 0)
    return tabular


@pytest.mark.parametrize("deal", ["ranks", "cards"])
def test_openspiel_nash_conv_of_lpgames_strategies(deal):
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import exploitability
    os_game = pyspiel.load_game("leduc_poker")
    rules = LeducRules(deal=deal)
    tabular = _openspiel_policy(os_game, rules, _solution(deal).strategies)
    assert exploitability.nash_conv(os_game, tabular) <= 1e-9
