"""The sequence form: treeplex constraints, plan ⇄ behaviour conversions and payoff matrices.

Sources: the treeplex Q = {x ≥ 0 : x[∅] = 1, Σ_a x[ja] = x[p_j]} (Farina 2023, eq. (2.1);
notes/farina-thesis.md §1.2, with the extra row for x[∅] = 1 of erratum 8), the worked example of
Farina 2023 L751–755 (notes §1.2 and §3.1), the Kuhn poker rules (Kuhn 1950; notes §2.1) for the
expected rows of F_i, and payoff matrices U_i[σ1, σ2] = Σ_z p_c(z) u_i(z) (notes §1.3) computed by
hand on a small game.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import lpgame
from lpgame import GameBuilder, SequenceForm

# ---------------------------------------------------------------------------- Kuhn: F_i, f_i


def kuhn_treeplex_rows(player: int) -> dict[str, tuple[str, list[str]]]:
    """From the rules of Kuhn poker: each information set's parent sequence and its sequences.

    Player 1 holding card c moves first (check/bet) and, after check-bet, folds or calls; player 2
    holding c answers a check (check/bet) or a bet (fold/call). Player 2 has not moved before
    either of its information sets; player 1's second one follows its own check.
    """
    rows = {}
    for card in ("J", "Q", "K"):
        if player == 0:
            rows[card] = ("∅", [f"{card}:check", f"{card}:bet"])
            second = f"{card} check bet"
            rows[second] = (f"{card}:check", [f"{second}:fold", f"{second}:call"])
        else:
            rows[f"{card} check"] = ("∅", [f"{card} check:check", f"{card} check:bet"])
            rows[f"{card} bet"] = ("∅", [f"{card} bet:fold", f"{card} bet:call"])
    return rows


@pytest.fixture(scope="module")
def kuhn() -> SequenceForm:
    return lpgame.compile_game(lpgame.games.make("kuhn_poker"))


@pytest.mark.parametrize("player", [0, 1])
def test_kuhn_treeplex_rows(kuhn, player):
    F = kuhn.treeplex_matrix(player).toarray()
    f = kuhn.treeplex_rhs(player)
    infosets = kuhn.infoset_labels(player)
    sequences = kuhn.sequence_labels(player)
    expected = kuhn_treeplex_rows(player)
    # |J_i| = 6 information sets, |Σ_i| = 13 sequences (farina §2.1: |J| = 4r, |Σ| = 8r + 2 in all)
    assert sorted(infosets) == sorted(expected)
    assert F.shape == (len(expected) + 1, 13) and len(sequences) == 13
    column = {label: k for k, label in enumerate(sequences)}
    row0 = np.zeros(13)
    row0[column["∅"]] = 1
    np.testing.assert_array_equal(F[0], row0)
    for r, label in enumerate(infosets, start=1):
        parent, own = expected[label]
        row = np.zeros(13)
        row[column[parent]] = -1
        for s in own:
            row[column[s]] = 1
        np.testing.assert_array_equal(F[r], row, err_msg=f"row of information set {label!r}")
    np.testing.assert_array_equal(f, np.eye(len(expected) + 1)[0])


def test_kuhn_plan_of_any_behaviour_satisfies_the_treeplex(kuhn):
    rng = np.random.default_rng(3)
    for player in (0, 1):
        p = kuhn.players[player]
        b = np.ones(kuhn.num_sequences(player))
        for j in range(p.num_infosets):
            first, k = p.infoset_first_seq[j], p.infoset_num_actions[j]
            b[first:first + k] = rng.dirichlet(np.ones(k))
        x = kuhn.plan_from_behaviour(player, b)
        np.testing.assert_allclose(kuhn.treeplex_matrix(player) @ x, kuhn.treeplex_rhs(player),
                                   atol=1e-15)
        assert np.all(x >= 0)


# ---------------------------------------------------------------------------- Farina's example
FARINA_PLAN = {"A:1": 0.5, "A:2": 0.5, "B:3": 0.25, "B:4": 0.25, "C:5": 0.1, "C:6": 0.4,
               "D:7": 0.0, "D:8": 0.5, "D:9": 0.0}
FARINA_BEHAVIOUR = {"A": {"1": 0.5, "2": 0.5}, "B": {"3": 0.5, "4": 0.5},
                    "C": {"5": 0.2, "6": 0.8}, "D": {"7": 0.0, "8": 1.0, "9": 0.0}}


def farina_game() -> lpgame.Game:
    """Farina 2023, Fig. 2.5 (notes §1.2): decision A {1, 2}; after 1 an observation leads to
    B {3, 4} or C {5, 6}; after 2, decision D {7, 8, 9}. One player; the observation is chance."""
    b = GameBuilder(num_players=1, name="Farina's example decision process")
    a = b.decision(0, "A")
    observe = b.chance(parent=a, action="1")
    for signal, infoset, actions in (("s1", "B", "34"), ("s2", "C", "56")):
        node = b.decision(0, infoset, parent=observe, action=signal, prob=Fraction(1, 2))
        for act in actions:
            b.terminal((int(act),), parent=node, action=act)
    d = b.decision(0, "D", parent=a, action="2")
    for act in "789":
        b.terminal((int(act),), parent=d, action=act)
    return b.build()


@pytest.fixture(scope="module")
def farina() -> SequenceForm:
    return SequenceForm.from_game(farina_game())


def _plan_vector(sf: SequenceForm, plan: dict[str, float]) -> np.ndarray:
    labels = sf.sequence_labels(0)
    return np.array([1.0 if s == "∅" else plan[s] for s in labels])


def test_farina_treeplex(farina):
    F = farina.treeplex_matrix(0).toarray()
    labels = farina.sequence_labels(0)
    col = {s: k for k, s in enumerate(labels)}
    expected = {"A": ("∅", ["A:1", "A:2"]), "B": ("A:1", ["B:3", "B:4"]),
                "C": ("A:1", ["C:5", "C:6"]), "D": ("A:2", ["D:7", "D:8", "D:9"])}
    assert F.shape == (5, 10)
    for r, label in enumerate(farina.infoset_labels(0), start=1):
        parent, own = expected[label]
        assert F[r, col[parent]] == -1 and all(F[r, col[s]] == 1 for s in own)
        assert np.count_nonzero(F[r]) == 1 + len(own)
    x = _plan_vector(farina, FARINA_PLAN)
    np.testing.assert_allclose(F @ x, farina.treeplex_rhs(0), atol=1e-15)


def test_farina_plan_to_behaviour(farina):
    x = _plan_vector(farina, FARINA_PLAN)
    b, unreached = farina.behaviour_from_plan(0, x)
    got = farina.strategy_to_dict(0, b.tolist())
    for infoset, row in FARINA_BEHAVIOUR.items():
        for action, prob in row.items():
            assert got[infoset][action] == pytest.approx(prob, abs=1e-15), (infoset, action)
    assert not unreached.any()


def test_farina_behaviour_to_plan(farina):
    b = farina.behaviour_from_dict(0, FARINA_BEHAVIOUR)
    x = farina.plan_from_behaviour(0, b)
    np.testing.assert_allclose(x, _plan_vector(farina, FARINA_PLAN), atol=1e-15)


def test_farina_exact_round_trip(farina):
    exact_behaviour = {j: {a: Fraction(str(p)) for a, p in row.items()}
                       for j, row in FARINA_BEHAVIOUR.items()}
    b = farina.behaviour_from_dict_exact(0, exact_behaviour)
    x = farina.plan_from_behaviour_exact(0, b)
    labels = farina.sequence_labels(0)
    assert {s: v for s, v in zip(labels, x) if s != "∅"} == \
        {s: Fraction(str(v)) for s, v in FARINA_PLAN.items()}
    b_back, unreached = farina.behaviour_from_plan_exact(0, x)
    assert b_back == b and unreached == [False] * 4


def test_random_behaviour_round_trip(farina, kuhn):
    rng = np.random.default_rng(11)
    for sf in (farina, kuhn):
        for player in range(sf.num_players):
            p = sf.players[player]
            b = np.ones(sf.num_sequences(player))
            for j in range(p.num_infosets):
                first, k = p.infoset_first_seq[j], p.infoset_num_actions[j]
                b[first:first + k] = rng.dirichlet(np.ones(k))
            x = sf.plan_from_behaviour(player, b)
            b_back, unreached = sf.behaviour_from_plan(player, x)
            np.testing.assert_allclose(b_back, b, rtol=1e-12)
            assert not unreached.any()
            np.testing.assert_allclose(sf.plan_from_behaviour(player, b_back), x, rtol=1e-12)


def test_unreached_information_sets_are_uniform_and_flagged(farina):
    plan = dict(FARINA_PLAN, **{"A:1": 1.0, "A:2": 0.0, "B:3": 0.5, "B:4": 0.5, "C:5": 0.2,
                                "C:6": 0.8, "D:8": 0.0})
    b, unreached = farina.behaviour_from_plan(0, _plan_vector(farina, plan))
    labels = farina.infoset_labels(0)
    assert [labels[j] for j in np.flatnonzero(unreached)] == ["D"]
    assert farina.strategy_to_dict(0, b.tolist())["D"] == pytest.approx(
        {"7": 1 / 3, "8": 1 / 3, "9": 1 / 3})
    exact = [Fraction(1)] + [Fraction(str(plan[s])) for s in farina.sequence_labels(0)[1:]]
    b_exact, unreached_exact = farina.behaviour_from_plan_exact(0, exact)
    assert [labels[j] for j, m in enumerate(unreached_exact) if m] == ["D"]
    assert farina.strategy_to_dict(0, b_exact)["D"] == {a: Fraction(1, 3) for a in "789"}


def test_unreached_information_set_reported_by_solve():
    # player 1 never plays the dominated "in", so its later information set is never reached
    b = GameBuilder(2, name="dominated entry")
    root = b.decision(0, "enter?")
    b.terminal((1, -1), parent=root, action="out")
    later = b.decision(0, "inside", parent=root, action="in")
    for a in ("x", "y"):
        p2 = b.decision(1, "reply", parent=later, action=a)
        b.terminal((-5, 5), parent=p2, action="l")
        b.terminal((-4, 4), parent=p2, action="r")
    for exact in (False, True):
        result = lpgame.solve(b.build(), exact=exact)
        assert result.value == 1
        # "unreached" is about the player's own plan: player 2's "reply" follows no own action
        assert result.unreached == [["inside"], []]
        assert result.strategies[0]["inside"] == {"x": 0.5, "y": 0.5}
        assert result.strategies[0]["enter?"] == {"out": 1, "in": 0}


# ---------------------------------------------------------------------------- payoff matrices
def hand_game() -> lpgame.Game:
    """Chance l (1/3), m (1/6), r (1/2); player 1 does not see it and chooses a or b in "A";
    player 2 does not see chance either and chooses c or d in "B" where it moves.

        l: a -> (3, -3);         b -> B: c -> (1, -1),  d -> (-2, 2)
        m: a -> (6, -6);         b -> (0, 0)
        r: a -> B: c -> (6, -6), d -> (0, 0);           b -> (-3, 3)
    """
    b = GameBuilder(2, name="hand-computed payoff matrix")
    chance = b.chance()
    for outcome, prob in (("l", Fraction(1, 3)), ("m", Fraction(1, 6)), ("r", Fraction(1, 2))):
        a_node = b.decision(0, "A", parent=chance, action=outcome, prob=prob)
        if outcome == "l":
            b.terminal((3, -3), parent=a_node, action="a")
            b_node = b.decision(1, "B", parent=a_node, action="b")
            b.terminal((1, -1), parent=b_node, action="c")
            b.terminal((-2, 2), parent=b_node, action="d")
        elif outcome == "m":
            b.terminal((6, -6), parent=a_node, action="a")
            b.terminal((0, 0), parent=a_node, action="b")
        else:
            b_node = b.decision(1, "B", parent=a_node, action="a")
            b.terminal((6, -6), parent=b_node, action="c")
            b.terminal((0, 0), parent=b_node, action="d")
            b.terminal((-3, 3), parent=a_node, action="b")
    return b.build()


# U_1 by hand, rows ∅, A:a, A:b; columns ∅, B:c, B:d:
#   [A:a, ∅]   = 1/3·3 + 1/6·6 = 2        (two leaves in one cell)
#   [A:a, B:c] = 1/2·6 = 3,  [A:a, B:d] = 1/2·0 = 0
#   [A:b, ∅]   = 1/2·(−3) = −3/2,  [A:b, B:c] = 1/3·1 = 1/3,  [A:b, B:d] = 1/3·(−2) = −2/3
HAND_U1 = [[0, 0, 0], [2, 3, 0], [Fraction(-3, 2), Fraction(1, 3), Fraction(-2, 3)]]


def test_payoff_matrix_by_hand():
    sf = SequenceForm.from_game(hand_game())
    assert sf.sequence_labels(0) == ["∅", "A:a", "A:b"]
    assert sf.sequence_labels(1) == ["∅", "B:c", "B:d"]
    expected = np.array(HAND_U1, dtype=float)
    np.testing.assert_allclose(sf.payoff_matrix(0).toarray(), expected, atol=1e-15)
    np.testing.assert_allclose(sf.payoff_matrix(1).toarray(), -expected, atol=1e-15)
    exact = sf.payoff_matrix_exact(0)
    dense = [[Fraction(0)] * 3 for _ in range(3)]
    for r, c, v in zip(exact.rows, exact.cols, exact.data):
        dense[r][c] += v
    assert dense == [[Fraction(v) for v in row] for row in HAND_U1]


def test_expected_payoff_is_the_bilinear_form():
    sf = SequenceForm.from_game(hand_game())
    x = np.array([1.0, 0.25, 0.75])      # A: a 1/4, b 3/4
    y = np.array([1.0, 0.6, 0.4])        # B: c 3/5, d 2/5
    # by hand: xᵀU_1y = 0.25·(2 + 3·0.6) + 0.75·(−1.5 + 0.6/3 − 0.4·2/3)
    by_hand = 0.25 * (2 + 1.8) + 0.75 * (-1.5 + 0.2 - 0.8 / 3)
    assert sf.expected_payoffs([x, y])[0] == pytest.approx(by_hand, abs=1e-14)
    assert x @ sf.payoff_matrix(0) @ y == pytest.approx(by_hand, abs=1e-14)


def test_payoff_matrix_needs_two_players(farina):
    with pytest.raises(lpgame.InvalidGameError, match="two players"):
        farina.payoff_matrix(0)
