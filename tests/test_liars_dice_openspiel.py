"""lpgame's ``liars_dice(wild=True)`` is OpenSpiel's ``liars_dice``; the default is Farina's game.

OpenSpiel's liars_dice (two players, ``numdice=1``, ``dice_sides=k``) counts the highest face as wild
(../shared/GAMES.md, "The peers' versions of the same games"); benchmarks/bench_core.py solves it as
``liars_dice(faces=6, wild=True)``. The references here are OpenSpiel's own game tree (imported) and
OpenSpiel's own sequence-form LP; the six-face game is in tests/test_openspiel_io.py (slow).
"""

import pytest

import lpgame
from lpgame.games.liars_dice import LiarsDiceRules
from lpgame.io.openspiel import game_from_openspiel

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python.algorithms import lp_solver, sequence_form_lp  # noqa: E402


def openspiel_value(game) -> float:
    """OpenSpiel's sequence-form LP on cvxpy's HiGHS (its default ECOS options emptied)."""
    solve = lp_solver.LinearProgram.solve
    saved = solve.__defaults__
    solve.__defaults__ = ("HIGHS", {})
    try:
        return float(sequence_form_lp.solve_zero_sum_game(game, solver="HIGHS")[0])
    finally:
        solve.__defaults__ = saved


def counts(game) -> tuple:
    s = game.sizes()
    return tuple(s["infosets"]), tuple(s["sequences"]), s["terminals"]


@pytest.mark.parametrize("faces", [2, 3, 4])
def test_wild_liars_dice_is_openspiels_game(faces):
    spiel = pyspiel.load_game("liars_dice", {"players": 2, "numdice": 1, "dice_sides": faces})
    imported = game_from_openspiel(spiel)
    ours = lpgame.games.make("liars_dice", players=2, faces=faces, wild=True)
    # the same tree: information sets and sequences per player, terminals
    assert counts(ours) == counts(imported)
    # and the same game: the value of OpenSpiel's own LP
    assert float(lpgame.solve(ours).value) == pytest.approx(openspiel_value(spiel), abs=1e-8)
    # the explicit tree of the wild game has the same counts as the compiled one
    tree = lpgame.games.make("liars_dice", players=2, faces=faces, wild=True, structured=False)
    assert counts(tree) == counts(imported)


@pytest.mark.parametrize("faces", [3, 4])
def test_default_liars_dice_is_not_openspiels_game(faces):
    # same tree, other payoffs: without the wild face the value differs from OpenSpiel's
    spiel = pyspiel.load_game("liars_dice", {"players": 2, "numdice": 1, "dice_sides": faces})
    ours = lpgame.games.make("liars_dice", players=2, faces=faces)
    assert counts(ours) == counts(game_from_openspiel(spiel))
    assert abs(float(lpgame.solve(ours).value) - openspiel_value(spiel)) > 1e-3


@pytest.mark.parametrize("wild", [True, False])
def test_every_openspiel_history_against_the_rules(wild):
    # walk OpenSpiel's tree: chance action d is face d + 1, bid action b claims "at least b // k + 1
    # dice show face b % k + 1", action 2k calls liar; at every decision the rules offer the same
    # moves, and at every leaf the wild rules pay what OpenSpiel pays (the plain rules do not)
    faces = 3
    spiel = pyspiel.load_game("liars_dice", {"players": 2, "numdice": 1, "dice_sides": faces})
    rules = LiarsDiceRules(players=2, faces=faces, wild=wild)
    leaves = differ = 0
    stack = [spiel.new_initial_state()]
    while stack:
        state = stack.pop()
        history = state.history()
        if state.is_chance_node():
            stack.extend(state.child(a) for a, _ in state.chance_outcomes())
            continue
        deal, moves = tuple(history[:2]), tuple(history[2:])
        if state.is_terminal():
            bids = moves[:-1] + (rules.CALL,)
            leaves += 1
            differ += rules.payoffs((deal, bids)) != tuple(state.returns())
            continue
        ours = list(rules.legal_actions((deal, moves)))
        theirs = [rules.call_label if a == 2 * faces else rules.bid_labels[a]
                  for a in state.legal_actions()]
        assert ours == theirs, (history, ours, theirs)
        stack.extend(state.child(a) for a in state.legal_actions())
    assert leaves == faces ** 2 * (2 ** (2 * faces) - 1)
    assert (differ == 0) if wild else (differ > 0)
