"""Exact trembling-hand refinements (QPE, EFPE, one-sided QPE), checked against sources outside lpgame.

References used here, none of them lpgame's refinement code:
* the literature: 2-player Kuhn poker's value −1/18 (Kuhn 1950; notes/farina-thesis.md §3.1), and
  the fact that with the King a player always wins the showdown, so after "K check, bet" calling
  is the only rational play (the play the refinements must force; issue 22);
* Guess-the-Ace (Miltersen & Sørensen 2006; Farina 2023 §12.A): "ace of spades" is a Nash
  equilibrium guess (its NashConv, computed by lpgame's independent best responses, is 0) and, in
  the modified game, an undominated one (checked here by enumerating pure strategies on the tree),
  yet irrational;
* Fig. 12.1 and 12.2 of the thesis (their refined answers by backward induction by hand);
* an independent backward induction written in this file, on random perfect-information zero-sum
  trees with generic payoffs (hypothesis): every refinement must equal it at every node, the nodes
  equilibrium play never reaches included;
* exact rationals: NashConv exactly 0, the exact Nash LP's value.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings
from random_games import imperfect_information_games, perfect_information_games

import lpgame
from lpgame.analysis.exploitability import evaluate_plans_exact
from lpgame.analysis.refinement_checks import quasi_perfect_check
from lpgame.compile import compile_game
from lpgame.equilibria.refinements.refined_equilibrium import refined_reference, solve_refinement
from lpgame.errors import ConceptMismatchError, LpgameError, OptionError, SolverTimeLimitError
from lpgame.game import Game
from lpgame.games import farina_fig12_1, farina_fig12_2

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _plans(sf, strategies):
    return [sf.plan_from_behaviour_exact(i, sf.behaviour_from_dict_exact(i, strategies[i]))
            for i in range(2)]


# ------------------------------------------------------------------------------- Kuhn poker
@pytest.mark.parametrize("refinement", ["qpe", "efpe"])
def test_kuhn_refinement_is_exact_and_calls_with_the_king(refinement):
    result = solve_refinement("kuhn_poker", refinement)
    assert result.exact and result.extra["refinement"]["status"] == "certified"
    assert result.value == Fraction(-1, 18)                      # Kuhn 1950
    assert result.certificate.nash_conv == 0
    assert all(c["passed"] for c in result.extra["refinement"]["checks"])
    assert result.extra["refinement"]["witness_problems"] == []
    # off the equilibrium path: player 1 never checks the King, yet must call a bet after it
    assert "K check bet" in result.unreached[0]
    assert result.strategies[0]["K check bet"] == {"fold": 0, "call": 1}
    # and the certificate computed apart from the solver agrees (exact best responses)
    sf = compile_game("kuhn_poker")
    assert evaluate_plans_exact(sf, _plans(sf, result.strategies)).nash_conv == 0


def test_plain_nash_leaves_k_check_bet_unreached_and_unrefined():
    nash = lpgame.solve("kuhn_poker", exact=True)
    assert "K check bet" in nash.unreached[0]
    # folding the King there is still a Nash equilibrium: Nash does not care
    strategies = [dict(nash.strategies[0]), nash.strategies[1]]
    strategies[0]["K check bet"] = {"fold": Fraction(1), "call": Fraction(0)}
    sf = compile_game("kuhn_poker")
    assert evaluate_plans_exact(sf, _plans(sf, strategies)).nash_conv == 0


def test_quasi_perfect_check_rejects_folding_the_king():
    """The independent check fails a profile that folds the King off the path."""
    result = solve_refinement("kuhn_poker", "qpe")
    sf = compile_game("kuhn_poker")
    strategies = [dict(result.strategies[0]), result.strategies[1]]
    strategies[0]["K check bet"] = {"fold": Fraction(1), "call": Fraction(0)}
    behaviour = sf.behaviour_from_dict_exact(0, strategies[0])
    witness = _witness_series(result, sf, player=1)
    check = quasi_perfect_check(sf, 0, behaviour, witness)
    assert not check.passed and any("K check bet" in f for f in check.failures)
    good = quasi_perfect_check(sf, 0, sf.behaviour_from_dict_exact(0, result.strategies[0]), witness)
    assert good.passed


def _witness_series(result, sf, player):
    """Player's perturbed QPE plan y(ε) rebuilt from the LP's stable basis (the witness)."""
    from lpgame.equilibria.refinements.limit import solve_limit
    from lpgame.equilibria.refinements.perturbed_lp import qpe_lp
    rl = qpe_lp(sf)
    limit = solve_limit(rl.tlp)
    return limit.basis.series(rl.tlp.base, "best_response", "duals") if player == 1 else None


def test_one_sided_qpe_on_kuhn():
    for h in (0, 1):
        result = solve_refinement("kuhn_poker", "os-qpe", trembling_player=h)
        assert result.value == Fraction(-1, 18) and result.certificate.nash_conv == 0
        assert all(c["passed"] for c in result.extra["refinement"]["checks"])
        assert result.extra["refinement"]["trembling_player"] == h + 1


# ------------------------------------------------------------------------------- Guess-the-Ace
def _guess_profile(guess: str, modified: bool):
    p1 = {"P1": {"end": Fraction(1), "offer": Fraction(0)}}
    if modified:
        for g in ("ace of spades", "not ace of spades"):
            p1[f"P1 after wrong guess {g}"] = {"give": Fraction(0), "keep": Fraction(1)}
    other = "not ace of spades" if guess == "ace of spades" else "ace of spades"
    return [p1, {"P2": {guess: Fraction(1), other: Fraction(0)}}]


@pytest.mark.parametrize("modified", [False, True])
def test_guess_the_ace_nash_accepts_the_irrational_guess_and_qpe_rejects_it(modified):
    game = lpgame.games.make("guess_the_ace", modified=modified)
    sf = compile_game(game)
    irrational = _guess_profile("ace of spades", modified)
    assert evaluate_plans_exact(sf, _plans(sf, irrational)).nash_conv == 0   # a Nash equilibrium
    for refinement in ("qpe", "efpe"):
        result = solve_refinement(game, refinement)
        assert result.strategies[1]["P2"] == {"ace of spades": 0, "not ace of spades": 1}
        if modified:   # and player 1 keeps the prize after a wrong guess
            for g in ("ace of spades", "not ace of spades"):
                assert result.strategies[0][f"P1 after wrong guess {g}"]["keep"] == 1


def test_guess_the_ace_modified_irrational_guess_is_undominated():
    """In the modified game "ace of spades" is not weakly dominated: against some pure strategy of
    player 1 it does strictly better (enumerated here on the tree, payoffs from the rules)."""
    game = lpgame.games.make("guess_the_ace", modified=True)
    g = game.graph

    def value(node, choice):   # player 2's payoff under the pure choices
        data = g.nodes[node]
        if data["kind"] == "terminal":
            return Fraction(data["payoffs"][1])
        total = Fraction(0)
        for child in g.successors(node):
            edge = g.edges[node, child]
            if data["kind"] == "chance":
                total += Fraction(edge["prob"]) * value(child, choice)
            elif edge["action"] == choice[data["infoset"]]:
                total += value(child, choice)
        return total

    infosets = ["P1", "P1 after wrong guess ace of spades", "P1 after wrong guess not ace of spades"]
    options = [["end", "offer"], ["give", "keep"], ["give", "keep"]]
    better_somewhere = False
    for pure in itertools.product(*options):
        choice = dict(zip(infosets, pure))
        ace = value(game.root, {**choice, "P2": "ace of spades"})
        other = value(game.root, {**choice, "P2": "not ace of spades"})
        better_somewhere |= ace > other
    assert better_somewhere
    qpe = solve_refinement(game, "qpe")
    assert qpe.strategies[1]["P2"]["ace of spades"] == 0


# ------------------------------------------------------------------------------- Fig. 12.1 / 12.2
@pytest.mark.parametrize("module", [farina_fig12_1, farina_fig12_2])
@pytest.mark.parametrize("refinement", ["qpe", "efpe", "os-qpe"])
def test_thesis_figures_refined_answer(module, refinement):
    game = lpgame.games.make(module.__name__.rsplit(".", 1)[1])
    sf = compile_game(game)
    assert evaluate_plans_exact(sf, _plans(sf, module.IRRATIONAL_NASH)).nash_conv == 0
    result = solve_refinement(game, refinement, trembling_player=0 if refinement == "os-qpe" else None)
    assert [dict(s) for s in result.strategies] == module.REFINED_ANSWER   # B off the path


# ------------------------------------------------------------------------------- backward induction
def backward_induction(game: Game) -> tuple[dict[str, str], bool]:
    """{information set: the backward-induction action} and whether some choice was a tie."""
    g = game.graph
    choice: dict[str, str] = {}
    tie = False

    def value(node) -> Fraction:
        nonlocal tie
        data = g.nodes[node]
        if data["kind"] == "terminal":
            return Fraction(data["payoffs"][0])
        children = list(g.successors(node))
        if data["kind"] == "chance":
            return sum((Fraction(g.edges[node, c]["prob"]) * value(c) for c in children), Fraction(0))
        values = {g.edges[node, c]["action"]: value(c) for c in children}
        pick = max if data["player"] == 0 else min
        best = pick(values.values())
        winners = [a for a, v in values.items() if v == best]
        tie |= len(winners) > 1
        choice[data["infoset"]] = winners[0]
        return best

    value(game.root)
    return choice, tie


@SETTINGS
@given(perfect_information_games())
@pytest.mark.slow
def test_refinements_equal_backward_induction_on_perfect_information_games(game):
    choice, tie = backward_induction(game)
    assume(choice and not tie)
    for refinement, h in (("qpe", None), ("efpe", None), ("os-qpe", 0), ("os-qpe", 1)):
        result = solve_refinement(game, refinement, trembling_player=h)
        assert result.extra["refinement"]["status"] == "certified"
        assert result.certificate.nash_conv == 0
        assert all(c["passed"] for c in result.extra["refinement"]["checks"])
        for player, strategy in enumerate(result.strategies):
            for infoset, probs in strategy.items():
                if refinement == "os-qpe" and player != h and infoset in result.unreached[player]:
                    continue   # the machine's own unreached nodes: not refined by os-qpe
                if refinement == "os-qpe" and player == h:
                    continue   # the trembling player best-responds to the machine's unperturbed play
                assert probs[choice[infoset]] == 1, (refinement, infoset, probs, choice[infoset])


# ------------------------------------------------------------------------------- random games
@SETTINGS
@given(imperfect_information_games())
def test_refinements_on_random_games_are_exact_nash_equilibria(game):
    value = lpgame.solve(game, exact=True).value
    for refinement in ("qpe", "efpe", "os-qpe"):
        result = solve_refinement(game, refinement)
        if result.extra["refinement"]["status"] != "certified":
            continue     # a labelled partial answer (Laurent case); its message says so
        assert result.value == value
        assert result.certificate.nash_conv == 0
        assert all(c["passed"] for c in result.extra["refinement"]["checks"]), \
            result.extra["refinement"]["checks"]


# ------------------------------------------------------------------------------- bad input
def test_general_sum_game_is_refused_naming_the_concepts_that_apply():
    game = lpgame.games.make("guess_the_ace")
    graph = game.graph.copy()
    for _node, data in graph.nodes(data=True):
        if data["kind"] == "terminal":
            data["payoffs"] = (data["payoffs"][0], 7)
    general = Game(graph, 2, root=game.root, name="general-sum guess")
    with pytest.raises(ConceptMismatchError, match="zero-sum.*concepts that apply"):
        solve_refinement(general, "qpe")
    with pytest.raises(LpgameError, match="zero-sum"):
        lpgame.solve(general, concept="nash", refinement="qpe")


def test_unknown_refinement_and_misplaced_option():
    with pytest.raises(OptionError, match="qpe, efpe, os-qpe"):
        solve_refinement("kuhn_poker", "sequential")
    with pytest.raises(OptionError, match="qpe, efpe, os-qpe"):
        lpgame.solve("kuhn_poker", concept="nash", refinement="sequential")
    with pytest.raises(OptionError, match="os-qpe"):
        solve_refinement("kuhn_poker", "qpe", trembling_player=0)
    with pytest.raises(OptionError, match="0 \\(player 1\\) or 1"):
        solve_refinement("kuhn_poker", "os-qpe", trembling_player=2)


def test_basis_that_never_stabilises_gives_a_labelled_partial_answer():
    # at ξ = 1/8 Kuhn's QPE basis is not stable; allowing no smaller ξ leaves a partial answer
    result = solve_refinement("kuhn_poker", "qpe", schedule=[Fraction(1, 8)], exact_fallback=False)
    info = result.extra["refinement"]
    assert info["status"] == "partial" and not result.exact
    assert info["epsilon"]["smallest_reached"] == "1/8"
    assert "not the limit" in info["message"] and "1/8" in info["message"]
    assert "partial" in result.summary()


@pytest.mark.parametrize("refinement", ["qpe", "os-qpe"])
def test_exact_criss_cross_repairs_an_unstable_basis(refinement):
    """From HiGHS's basis at ξ = 1/8 (not stable for Kuhn) the exact criss-cross method over ℚ(ε)
    reaches a stable basis; its limit is the one the ξ loop finds, certified the same way. (The
    exact simplex at fixed ξ runs first by default; ``exact_fallback="criss-cross"`` skips it.)"""
    repaired = solve_refinement("kuhn_poker", refinement, schedule=[Fraction(1, 8)],
                                exact_fallback="criss-cross")
    info = repaired.extra["refinement"]
    assert info["status"] == "certified" and info["epsilon"]["basis_by"] == "criss-cross"
    assert info["attempts"][-1]["pivots"] >= 1
    plain = solve_refinement("kuhn_poker", refinement)
    assert plain.extra["refinement"]["epsilon"]["basis_by"] != "criss-cross"
    assert repaired.certificate.nash_conv == 0 and repaired.value == Fraction(-1, 18)
    assert all(c["passed"] for c in info["checks"])
    assert repaired.strategies[0]["K check bet"] == plain.strategies[0]["K check bet"]


def test_time_limit_before_any_solve():
    with pytest.raises(SolverTimeLimitError, match="no P"):
        solve_refinement("kuhn_poker", "qpe", time_limit=1e-12)


def test_api_dispatch_result_json_and_reference():
    result = lpgame.solve("kuhn_poker", concept="nash", refinement="efpe")
    assert result.variant == "refinement" and result.value == Fraction(-1, 18)
    data = result.to_dict()
    assert data["refinement"]["status"] == "certified"
    assert "refined" in data["refinement"]["unreached_play"]
    assert "refined play" in result.summary()
    reference = refined_reference("kuhn_poker", "qpe")
    assert reference.strategies[0]["K check bet"]["call"] == 1
