"""GameShrink on games with ordered signals: compilation, isomorphism, soundness, lifting, API/CLI.

Checked against sources that are not the abstraction code: the explicit networkx expansions of the
catalog's rules objects (Kuhn, Leduc by cards and by ranks), independent rules objects written
here (the Figure 1 game, a small Rhode Island Hold'em with its own hand evaluator), the paper's
numbers (53 → 19 inner nodes, the signal-tree formula), exact arithmetic, and best responses
computed in the original games.
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lpgame
from lpgame.abstraction import (
    IDENTITY_MESSAGE,
    BettingRound,
    OrderedSignalGame,
    compile_ordered_game,
    gameshrink,
    kuhn_ordered,
    leduc_ordered,
    lift_strategies,
    sequence_form_sizes,
    toy_ordered,
)
from lpgame.abstraction.signal_tree import (
    canonical_classes,
    game_shrink_signal_tree,
    sibling_classes_fast,
)
from lpgame.cli import main
from lpgame.errors import InvalidGameError, LpgameError, ModelTooLargeError
from lpgame.game.rules import CHANCE_PLAYER, TERMINAL_PLAYER, expand
from lpgame.games.rhode_island import rhode_island_ordered, three_card_strength
from lpgame.result import Result


# ------------------------------------------------------------------ independent explicit games
class ToyRules:
    """Figure 1 written independently as a rules object (as in notebook 4): cards J1 J2 K1 K2."""

    num_players = 2
    name = "toy, explicit"
    deck = ("J1", "J2", "K1", "K2")
    ends = {"check check": 1, "bet call": 2, "check bet call": 2, "bet fold": 0, "check bet fold": 0}

    def initial_state(self):
        return ((), ())

    def current_player(self, state):
        cards, hist = state
        if len(cards) < 2:
            return CHANCE_PLAYER
        return TERMINAL_PLAYER if " ".join(hist) in self.ends else len(hist) % 2

    def chance_outcomes(self, state):
        cards, _ = state
        left = [c for c in self.deck if c not in cards]
        return [(c, Fraction(1, len(left))) for c in left]

    def legal_actions(self, state):
        return ["fold", "call"] if "bet" in state[1] else ["check", "bet"]

    def apply(self, state, action):
        cards, hist = state
        return (cards + (action,), hist) if len(cards) < 2 else (cards, hist + (action,))

    def infoset_key(self, state):
        cards, hist = state
        return " ".join((cards[len(hist) % 2],) + hist)

    def payoffs(self, state):
        cards, hist = state
        h = " ".join(hist)
        if h == "bet fold":
            return (1, -1)
        if h == "check bet fold":
            return (-1, 1)
        stake = self.ends[h]
        r1, r2 = cards[0][0], cards[1][0]
        if r1 == r2:
            return (0, 0)
        return (stake, -stake) if r1 == "K" else (-stake, stake)


def _hand_value(cards, rank_of, suit_of, num_ranks):
    """A second, loop-based 3-card evaluator (straight flush > trips > straight > flush > pair >
    high card) for the explicit small Rhode Island game."""
    ranks = sorted((rank_of[c] for c in cards), reverse=True)
    suits = {suit_of[c] for c in cards}
    distinct = len(set(ranks)) == 3
    wheel = num_ranks == 13 and ranks == [12, 1, 0]
    straight = distinct and (ranks[0] - ranks[2] == 2 or wheel)
    flush = len(suits) == 1
    if straight and flush:
        return (5, 1 if wheel else ranks[0])
    if len(set(ranks)) == 1:
        return (4, ranks[0])
    if straight:
        return (3, 1 if wheel else ranks[0])
    if flush:
        return (2, tuple(ranks))
    if not distinct:
        pair = ranks[1]
        kicker = ranks[0] if ranks[0] != pair else ranks[2]
        return (1, (pair, kicker))
    return (0, tuple(ranks))


class SmallRhodeIslandRules:
    """Rhode Island Hold'em rules written out directly (hole cards, flop, turn; limit betting)."""

    num_players = 2

    def __init__(self, ranks, suits, max_bets, ante=5, bets=(10, 20, 20)):
        names = "23456789TJQKA"[13 - ranks:]
        self.cards = [names[c // suits] + "shdc"[c % suits] for c in range(ranks * suits)]
        self.rank_of = {c: k // suits for k, c in enumerate(self.cards)}
        self.suit_of = {c: k % suits for k, c in enumerate(self.cards)}
        self.ranks, self.max_bets, self.ante, self.bets = ranks, max_bets, ante, bets
        self.name = "small Rhode Island, explicit"

    def initial_state(self):
        # cards, history per round, stakes, bets made this round, who folded
        return ((), ((),), (self.ante, self.ante), 0, None)

    def _needed(self, state):
        return 2 + (len(state[1]) - 1)

    def current_player(self, state):
        cards, hist, stakes, made, folder = state
        if folder is not None:
            return TERMINAL_PLAYER
        if len(cards) < self._needed(state):
            return CHANCE_PLAYER
        rnd = hist[-1]
        over = (len(rnd) >= 2 and rnd[-1] == "check") or (rnd and rnd[-1] == "call")
        if over:
            return TERMINAL_PLAYER if len(hist) == 3 else CHANCE_PLAYER
        return len(rnd) % 2

    def chance_outcomes(self, state):
        cards = state[0]
        if len(cards) >= self._needed(state):          # the round is over: open the next one
            return [("next", Fraction(1))]
        left = [c for c in self.cards if c not in cards]
        return [(c, Fraction(1, len(left))) for c in left]

    def legal_actions(self, state):
        made = state[3]
        if made == 0:
            return ["check", "bet"]
        return ["fold", "call", "raise"] if made < self.max_bets else ["fold", "call"]

    def apply(self, state, action):
        cards, hist, stakes, made, folder = state
        if self.current_player(state) == CHANCE_PLAYER:
            if action == "next":
                return (cards, hist + ((),), stakes, 0, None)
            return (cards + (action,), hist, stakes, made, folder)
        player = len(hist[-1]) % 2
        new_hist = hist[:-1] + (hist[-1] + (action,),)
        s = list(stakes)
        if action == "fold":
            return (cards, new_hist, stakes, made, player)
        if action == "call":
            s[player] = max(s)
        elif action in ("bet", "raise"):
            s[player] = max(s) + self.bets[len(hist) - 1]
            made += 1
        return (cards, new_hist, tuple(s), made, None)

    def infoset_key(self, state):
        cards, hist = state[0], state[1]
        player = len(hist[-1]) % 2
        label = cards[player]
        for k, rnd in enumerate(hist):
            if k > 0:
                label += " | " + cards[1 + k]
            if rnd:
                label += (" | " if k == 0 else " ") + " ".join(rnd)
        return label

    def payoffs(self, state):
        cards, hist, stakes, made, folder = state
        if folder is not None:
            return (-stakes[0], stakes[0]) if folder == 0 else (stakes[1], -stakes[1])
        board = cards[2:4]
        v1 = _hand_value((cards[0],) + board, self.rank_of, self.suit_of, self.ranks)
        v2 = _hand_value((cards[1],) + board, self.rank_of, self.suit_of, self.ranks)
        if v1 == v2:
            return (0, 0)
        return (stakes[1], -stakes[1]) if v1 > v2 else (-stakes[0], stakes[0])


def _same_game(compiled, explicit):
    a, b = compiled.sizes(), explicit.sizes()
    for key in ("infosets", "sequences", "terminals", "decision_nodes"):
        assert a[key] == b[key], key
    for i in range(2):
        assert set(compiled.infosets(i)) == set(explicit.infosets(i))


# ------------------------------------------------------------------ 1. compilation by broadcasting
@pytest.mark.parametrize("ordered,explicit", [
    (lambda: kuhn_ordered(3), lambda: lpgame.games.make("kuhn_poker")),
    (lambda: kuhn_ordered(5), lambda: lpgame.games.make("kuhn_poker", cards=5)),
    (lambda: toy_ordered(), lambda: expand(ToyRules())),
    (lambda: leduc_ordered(), lambda: lpgame.games.make("leduc_poker", deal="cards")),
    (lambda: leduc_ordered(1, 4, 3),
     lambda: lpgame.games.make("leduc_poker", bets=1, ranks=4, suits=3, deal="cards")),
    (lambda: rhode_island_ordered(3, 2, 1), lambda: expand(SmallRhodeIslandRules(3, 2, 1))),
])
@pytest.mark.slow
def test_compiled_ordered_game_equals_the_explicit_expansion(ordered, explicit):
    compiled, tree = ordered().compile(), explicit()
    _same_game(compiled, tree)
    a, b = lpgame.solve(compiled), lpgame.solve(tree)
    assert a.value == pytest.approx(b.value, abs=1e-9)
    assert a.size == b.size
    # the compiled equilibrium is one in the explicit tree too (labels are the same)
    assert lpgame.evaluate(tree, a.strategies).nash_conv < 1e-9


def test_one_card_poker_matches_the_private_signal_compiler():
    compiled, ocp = kuhn_ordered(8).compile(), lpgame.games.make("one_card_poker", N=8)
    assert compiled.sizes()["infosets"] == ocp.sizes()["infosets"]
    assert compiled.sizes()["sequences"] == ocp.sizes()["sequences"]
    assert lpgame.solve(compiled).value == pytest.approx(lpgame.solve(ocp).value, abs=1e-10)


@pytest.mark.slow
def test_exact_value_of_small_rhode_island_equals_the_explicit_tree():
    compiled = rhode_island_ordered(3, 2, 1).compile()
    tree = expand(SmallRhodeIslandRules(3, 2, 1))
    assert lpgame.solve(compiled, exact=True).value == lpgame.solve(tree, exact=True).value


def test_three_card_ranking():
    # ranks 0=2 ... 12=A; suits 0..3
    def s(cards):
        r = np.array([[c[0] for c in cards]])
        u = np.array([[c[1] for c in cards]])
        return int(three_card_strength(r, u)[0])
    straight_flush, trips = s([(4, 0), (5, 0), (6, 0)]), s([(2, 0), (2, 1), (2, 2)])
    straight, flush = s([(4, 0), (5, 1), (6, 0)]), s([(12, 0), (9, 0), (2, 0)])
    pair, high = s([(12, 0), (12, 1), (11, 2)]), s([(12, 0), (11, 1), (9, 2)])
    assert straight_flush > trips > straight > flush > pair > high
    assert s([(12, 0), (0, 1), (1, 2)]) < s([(0, 0), (1, 1), (2, 2)])     # A-2-3 is the lowest straight
    assert s([(5, 0), (5, 1), (9, 2)]) > s([(5, 2), (5, 3), (8, 0)])      # pair, then kicker


def test_sizes_by_formula_equal_the_built_lp():
    for game in (toy_ordered(), kuhn_ordered(4), leduc_ordered()):
        for partition in (None, gameshrink(game).partition):
            sizes = sequence_form_sizes(game, partition, count_nonzeros=True)
            compiled = compile_ordered_game(game, partition)
            assert lpgame.solve(compiled).size == sizes["lp"]
            built = compiled.sizes()
            for key in ("infosets", "sequences", "terminals", "nodes", "chance_nodes"):
                assert built[key] == sizes[key], key
            # exact mode stores no zeros: split pots are the difference
            exact_nnz = lpgame.solve(compiled, exact=True).size["nnz"]
            assert exact_nnz == sizes["lp"]["nnz"] - sizes["terminals"] + sizes["payoff_nonzeros"]


# ------------------------------------------------------------------ 2. signal tree and Algorithm 1
@pytest.mark.parametrize("game", [toy_ordered(), kuhn_ordered(4), leduc_ordered(),
                                  rhode_island_ordered(3, 2, 1)])
def test_signal_tree_size_by_formula_and_by_construction(game):
    built = sum(len(game.deals(k)[0]) for k in range(game.depth + 1))
    n, S = len(game.signals), game.depth
    formula = 1 + sum(np.prod([n - j + 1 for j in range(1, i + 1)]) for i in range(1, S + 1))
    assert built == formula == game.signal_tree_size()
    assert all(np.isclose(game.deals(k)[1].sum(), 1.0) for k in range(S + 1))


def test_rhode_island_signal_tree_formula():
    assert lpgame.games.make("rhode_island_holdem").signal_tree_size() == 6_632_705   # A@41263


@pytest.mark.parametrize("game", [toy_ordered(), kuhn_ordered(4), leduc_ordered(),
                                  leduc_ordered(1, 2, 3)])
def test_algorithm_1_and_the_fast_path_agree(game):
    assert game_shrink_signal_tree(game) == sibling_classes_fast(game, canonical_classes(game))


# ------------------------------------------------------------------ 3. the paper's Figure 1 game
def test_figure_1_toy_game():
    game = toy_ordered()
    shrunk = gameshrink(game)
    # "reduces the game tree from 53 nodes to 19 nodes" (inner nodes; notes §A.10)
    assert shrunk.before["internal_nodes"] == 53 and shrunk.after["internal_nodes"] == 19
    assert shrunk.signal_tree["game_tree_internal_nodes_after_paper_merges"] == 19
    assert shrunk.signal_tree["per_depth_after_paper_merges"] == [1, 2, 4]
    # Algorithm 2 on the signal tree: {{J1,J2},{K1,K2}} for player 1; below J1: {J2}, {K1,K2}
    literal = game_shrink_signal_tree(game)
    assert literal[1][()] == [[0, 1], [2, 3]]
    assert literal[2][(0,)] == [[1], [2, 3]] and literal[2][(2,)] == [[0, 1], [3]]
    for i in range(2):                               # both players' filters: {J1,J2}, {K1,K2}
        assert shrunk.partition.view_class[i][0].tolist() == [0, 0, 1, 1]
    assert shrunk.before["sequences"] == [17, 17] and shrunk.after["sequences"] == [9, 9]
    result = lpgame.solve(game, abstraction="gameshrink", exact=True)
    assert result.value == 0 and result.certificate.nash_conv == 0 and result.certificate.exact
    # independently: the lifted strategy in the explicit tree written above
    ev = lpgame.evaluate(expand(ToyRules()), result.strategies, exact=True)
    assert ev.nash_conv == 0 and ev.values[0] == 0
    # chance of the abstract game: P1 gets J or K with 1/2; then P2 J w.p. 1/3 after J (Fig. 1)
    abstract = shrunk.compile()
    chance, _ = abstract.index.exact_terminal_data()
    assert sorted(set(chance)) == [Fraction(1, 6), Fraction(1, 3)]


# ------------------------------------------------------------------ 4. Leduc: cards shrink to ranks
@pytest.mark.parametrize("bets,ranks,suits", [(2, 3, 2), (2, 4, 3), (1, 3, 3)])
@pytest.mark.slow
def test_card_level_leduc_shrinks_to_the_rank_level_game(bets, ranks, suits):
    shrunk = gameshrink(leduc_ordered(bets, ranks, suits))
    rank_level = lpgame.games.make("leduc_poker", bets=bets, ranks=ranks, suits=suits, deal="ranks")
    s = rank_level.sizes()
    assert shrunk.after["infosets"] == s["infosets"]
    assert shrunk.after["sequences"] == s["sequences"]
    assert shrunk.after["terminals"] == s["terminals"]
    assert shrunk.refinement_splits >= 0 and not shrunk.identity
    cards = lpgame.games.make("leduc_poker", bets=bets, ranks=ranks, suits=suits, deal="cards")
    result = lpgame.solve(cards, abstraction="gameshrink")
    assert result.value == pytest.approx(lpgame.solve(rank_level).value, abs=1e-9)
    assert result.value == pytest.approx(lpgame.solve(cards).value, abs=1e-9)
    assert result.certificate.nash_conv <= 1e-9
    # the certificate was computed in the explicit card-level tree; recompute it independently
    assert lpgame.evaluate(cards, result.strategies).nash_conv <= 1e-9
    assert result.extra["abstraction"]["certificate_game"].startswith("original game (the explicit")


def test_standard_leduc_lifted_equilibrium_is_exact():
    cards = lpgame.games.make("leduc_poker", deal="cards")
    result = lpgame.solve(cards, abstraction="gameshrink", exact=True)
    assert result.certificate.nash_conv == 0
    assert result.value == lpgame.solve(lpgame.games.make("leduc_poker"), exact=True).value
    assert float(result.value) == pytest.approx(-0.0856064240780, abs=1e-12)


def test_gameshrink_proposal_without_refinement_is_not_lossless():
    """The pitfall: merging by isomorphic contexts alone (the paper's reading; it reproduces the
    paper's Rhode Island size) merges views that differ in public cards, e.g. player 1's J with a Q
    or a K on the board (both lose 3/4, tie 1/4), although player 2's classes tell them apart."""
    game = leduc_ordered()
    sound, proposal = gameshrink(game), gameshrink(game, refine=False)
    assert proposal.partition.counts() == [[3, 7], [3, 7]]
    assert sound.partition.counts() == [[3, 9], [3, 9]]
    original = compile_ordered_game(game)
    for shrunk, bound in ((sound, 1e-9), (proposal, None)):
        abstract = shrunk.compile()
        lifted = lift_strategies(original, abstract, lpgame.solve(abstract).strategies)
        nash_conv = lpgame.evaluate(original, lifted).nash_conv
        if bound is not None:
            assert nash_conv <= bound
        else:
            assert nash_conv > 0.5          # 0.7646: far from an equilibrium


def test_kuhn_sibling_merges_are_not_a_filter():
    """Below player 1's J, player 2's Q and K are isomorphic siblings (both win), but player 2 with
    Q cannot tell J from K: the sound filter merges nothing."""
    shrunk = gameshrink(kuhn_ordered())
    assert shrunk.signal_tree["per_depth_after_paper_merges"] == [1, 3, 4]
    assert shrunk.identity and shrunk.message == IDENTITY_MESSAGE


# ------------------------------------------------------------------ 5. nothing to merge
@pytest.mark.parametrize("name,params", [("kuhn_poker", {}), ("one_card_poker", {"N": 7})])
def test_kuhn_and_one_card_poker_are_not_shrunk(name, params):
    game = lpgame.games.make(name, **params)
    result = lpgame.solve(game, abstraction="gameshrink")
    report = result.extra["abstraction"]
    assert report["identity"] and report["message"] == IDENTITY_MESSAGE
    assert report["before"]["lp"] == report["after"]["lp"]
    assert report["before"]["infosets"] == report["after"]["infosets"] == game.sizes()["infosets"]
    assert result.value == pytest.approx(lpgame.solve(game).value, abs=1e-10)


# ------------------------------------------------------------------ 6. random ordered games
@st.composite
def ordered_games(draw):
    deck = draw(st.integers(3, 6))
    two_rounds = draw(st.booleans()) and deck >= 3
    num_ranks = draw(st.integers(1, deck))
    ranks = [draw(st.integers(0, num_ranks - 1)) for _ in range(deck)]      # repeated ranks
    weights = [draw(st.integers(1, 3)) for _ in range(deck)]
    ante = draw(st.integers(0, 3))
    bet1, bet2 = draw(st.integers(1, 4)), draw(st.integers(1, 6))
    max_bets = draw(st.integers(1, 2))
    if two_rounds:
        table = np.array(draw(st.lists(st.integers(0, 4), min_size=num_ranks ** 2,
                                       max_size=num_ranks ** 2))).reshape(num_ranks, num_ranks)
        rank_arr = np.array(ranks)

        def strength(public, private):
            return table[rank_arr[private[:, 0]], rank_arr[public[:, 0]]]
        rounds = [BettingRound(0, 1, bet1, max_bets), BettingRound(1, 0, bet2, max_bets)]
    else:
        order = np.array(draw(st.permutations(range(num_ranks))))
        rank_arr = np.array(ranks)

        def strength(public, private):
            return order[rank_arr[private[:, 0]]]
        rounds = [BettingRound(0, 1, bet1, max_bets)]
    return OrderedSignalGame("random ordered game", [f"c{k}" for k in range(deck)], rounds,
                             ante, strength, weights=weights)


@settings(max_examples=30, deadline=None)
@given(ordered_games())
@pytest.mark.slow
def test_random_ordered_games_shrink_losslessly(game):
    shrunk = gameshrink(game)
    original = compile_ordered_game(game)
    abstract = shrunk.compile()
    solved = lpgame.solve(abstract)
    assert solved.value == pytest.approx(lpgame.solve(original).value, abs=1e-9)
    lifted = lift_strategies(original, abstract, solved.strategies)
    assert lpgame.evaluate(original, lifted).nash_conv <= 1e-9
    assert game_shrink_signal_tree(game) == sibling_classes_fast(game, canonical_classes(game))


def test_random_game_with_repeated_ranks_in_exact_arithmetic():
    game = OrderedSignalGame("five cards, two ranks, weighted", ["a", "b", "c", "d", "e"],
                             [BettingRound(0, 1, 2, 2), BettingRound(1, 0, 3, 1)], 1,
                             lambda pub, priv: (np.array([0, 0, 1, 1, 1])[priv[:, 0]] * 3
                                                + (priv[:, 0] % 2 == pub[:, 0] % 2)),
                             weights=[2, 2, 1, 1, 1])
    result = lpgame.solve(game, abstraction="gameshrink", exact=True)
    assert result.certificate.nash_conv == 0
    assert result.value == lpgame.solve(game.compile(), exact=True).value


# ------------------------------------------------------------------ 7. errors
def test_bad_input_raises_lpgame_errors():
    with pytest.raises(LpgameError, match="unknown abstraction"):
        lpgame.solve("gameshrink_toy", abstraction="lossy")
    with pytest.raises(InvalidGameError, match="not expressible as a game with ordered signals"):
        lpgame.solve("dudo", abstraction="gameshrink")
    with pytest.raises(InvalidGameError, match="not a game with ordered signals"):
        lpgame.solve(lpgame.games.make("matching_pennies").to_extensive(), abstraction="gameshrink")
    with pytest.raises(InvalidGameError, match="deal=ranks is already the rank-level"):
        lpgame.solve(lpgame.games.make("leduc_poker"), abstraction="gameshrink")
    with pytest.raises(InvalidGameError, match="two players"):
        lpgame.solve("kuhn_poker(players=3, cards=4)", abstraction="gameshrink")
    with pytest.raises(LpgameError, match="certificate lifts.*not 'ce'"):
        lpgame.solve("gameshrink_toy", concept="ce", abstraction="gameshrink")
    with pytest.raises(InvalidGameError, match="deck has only"):
        OrderedSignalGame("too small", ["a", "b"], [BettingRound(1, 1, 1, 1)], 1, lambda p, q: q[:, 0])
    with pytest.raises(InvalidGameError, match="positive integers"):
        OrderedSignalGame("bad weights", ["a", "b", "c"], [BettingRound(0, 1, 1, 1)], 1,
                          lambda p, q: q[:, 0], weights=[1, 0, 1])
    with pytest.raises(ModelTooLargeError):
        compile_ordered_game(leduc_ordered(), memory_limit=10_000)


# ------------------------------------------------------------------ 8. JSON and command line
def test_result_json_carries_the_abstraction(tmp_path):
    result = lpgame.solve("leduc_poker(deal=cards)", abstraction="gameshrink")
    data = json.loads(json.dumps(result.to_dict()))
    shrink = data["abstraction"]
    for side in ("before", "after"):
        assert set(shrink[side]) >= {"infosets", "sequences", "lp"}
        assert set(shrink[side]["lp"]) == {"rows", "cols", "nnz"}
    assert shrink["before"]["lp"]["rows"] == 1562 and shrink["after"]["lp"]["rows"] == 482
    assert shrink["seconds"] >= 0
    path = tmp_path / "r.json"
    result.save(path)
    assert Result.load(path).extra["abstraction"] == shrink


def test_cli_info_and_solve_with_abstraction(capsys):
    assert main(["info", "leduc_poker", "deal=cards", "--abstraction", "gameshrink", "--json", "-",
                 "--quiet"]) == 0
    info = json.loads(capsys.readouterr().out)["abstraction"]
    assert sum(info["before"]["infosets"]) == 936 and sum(info["after"]["infosets"]) == 288
    assert main(["solve", "gameshrink_toy", "--abstraction", "gameshrink", "--exact", "--json", "-",
                 "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["value"] == "0" and out["certificate"]["nash_conv"] == "0"
    assert out["abstraction"]["after"]["game_tree_internal_nodes"] == 19
    assert main(["solve", "gameshrink_toy", "--abstraction", "nope", "--quiet"]) == 2
    assert "unknown abstraction" in capsys.readouterr().err
    assert main(["info", "dudo", "--abstraction", "gameshrink", "--quiet"]) == 2
    assert "ordered signals" in capsys.readouterr().err
    assert main(["solve", "kuhn_poker", "--abstraction", "gameshrink", "--quiet"]) == 0
    assert IDENTITY_MESSAGE in capsys.readouterr().out


def test_all_cards_are_dealt_with_their_probabilities():
    game = leduc_ordered()
    for depth in range(game.depth + 1):
        cards, prob, parent = game.deals(depth)
        assert len(cards) == game.num_deals(depth)
        expected = [Fraction(1, int(np.prod([6 - k for k in range(depth)])))] * len(cards)
        assert game.deal_probabilities_exact(depth) == expected
        if depth:
            prev, _, _ = game.deals(depth - 1)
            assert (cards[:, :-1] == prev[parent]).all()
    assert sorted(map(tuple, game.deals(2)[0].tolist())) == list(itertools.permutations(range(6), 2))


def test_certificate_in_the_abstract_game_when_the_original_is_too_large(monkeypatch):
    # the abstract Leduc fits in 800 KB (about 0.24 MB predicted, LP 0.6 MB), the card-level one not
    monkeypatch.setenv("LPGAME_MEMORY_LIMIT", "800K")
    result = lpgame.solve("leduc_poker(deal=cards)", abstraction="gameshrink")
    assert result.extra["abstraction"]["certificate_game"].startswith("abstract game")
    assert "Js~Jh" in result.strategies[0] and "Js" not in result.strategies[0]
    assert result.certificate.nash_conv <= 1e-9
    assert result.value == pytest.approx(-0.0856064240780, abs=1e-9)


def test_abstraction_wraps_maximin_through_the_registry():
    """abstraction= wraps any concept whose certificate lifts: maximin of Kuhn through GameShrink
    has the values of maximin on the full game, and its guarantees are recomputed (exactly) in
    the original game by independent best responses."""
    direct = lpgame.solve("kuhn_poker", concept="maximin", exact=True)
    shrunk = lpgame.solve("kuhn_poker", concept="maximin", abstraction="gameshrink", exact=True)
    assert shrunk.values == direct.values == [Fraction(-1, 18), Fraction(1, 18)]
    assert shrunk.certificate.extra["guaranteed"] == direct.values
    assert shrunk.certificate.gain == 0 and "abstraction" in shrunk.extra
