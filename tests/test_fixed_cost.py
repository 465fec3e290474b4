"""What cuts the fixed cost of small games keeps the answers: kept sequence forms and LPs, the
small-LP HiGHS path, the dense CFR path (issue 37, "no fixed cost to speak of").

References outside lpgame: Kuhn poker's value −1/18 (Kuhn 1950), Gambit's lp_solve on
models/kuhn_poker.efg, and OpenSpiel's C++ CFR trajectory (tests/test_learning.py checks the
default path against OpenSpiel; here the dense path must equal the level-by-level one).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import lpgame
from lpgame.compile import compile_game
from lpgame.equilibria.zero_sum.nash import nash_lp
from lpgame.learning import SEQUENCE_FORM_ALGORITHMS, treeplex
from lpgame.lp import solve_lp
from lpgame.lp.linear_program import LinearProgram

KUHN_VALUE = -1 / 18


def test_a_game_object_keeps_its_sequence_form_and_lp_and_solves_alike_twice():
    game = lpgame.games.make("kuhn_poker")
    first = lpgame.solve(game)
    assert compile_game(game) is compile_game(game)
    assert nash_lp(compile_game(game)) is nash_lp(compile_game(game))
    second = lpgame.solve(game)
    for result in (first, second):
        assert result.value == pytest.approx(KUHN_VALUE, abs=1e-12)
        assert result.certificate.nash_conv <= 1e-12
    assert first.strategies == second.strategies
    other = lpgame.games.make("kuhn_poker")           # another object: its own sequence form
    assert compile_game(other) is not compile_game(game)


def test_a_changed_kept_lp_is_built_again():
    """A user who adds a row to result.lp must not change the next solve of the game."""
    game = lpgame.games.make("kuhn_poker")
    result = lpgame.solve(game)
    lp = result.lp
    v = lp.block("v")
    row = sp.csr_array((np.array([1.0]), (np.array([0]), np.array([0]))), shape=(1, v.size))
    lp.add_constraints("cap", [(v, row)], "<=", np.array([-1.0]))   # v[∅] ≤ −1: value moves
    assert lp.assemble().A.shape[0] == result.size["rows"] + 1
    assert solve_lp(lp).objective < -0.5
    again = lpgame.solve(game)
    assert again.lp is not lp and again.size == result.size
    assert again.value == pytest.approx(KUHN_VALUE, abs=1e-12)


def test_assembled_model_is_kept_read_only_and_follows_changes():
    lp = LinearProgram(name="small")
    x = lp.add_variables("x", 2, lower=0.0, upper=1.0)
    lp.add_constraints("sum", [(x, sp.csr_array(np.ones((1, 2))))], "<=", 1.5)
    lp.set_objective([(x, np.array([1.0, 2.0]))], "max")
    a, b = lp.assemble(), lp.assemble()
    assert a is not b and a.A is b.A
    with pytest.raises(ValueError):
        a.c[0] = 5.0
    a.col_lower = np.zeros(2)            # replacing a field of one copy leaves the kept one
    assert lp.assemble().col_lower is b.col_lower
    assert solve_lp(lp).objective == pytest.approx(2.5)
    lp.add_constraints("cap", [(x, sp.csr_array(np.array([[0.0, 1.0]])))], "<=", 0.25)
    assert lp.assemble().A.shape == (2, 2)
    assert solve_lp(lp).objective == pytest.approx(1.5)      # x = (1, 0.25)


@pytest.mark.parametrize("presolve", [None, True, False])
def test_small_lp_without_presolve_gives_the_same_answer(presolve):
    """Small LPs skip presolve by default; Kuhn's value and certificate are the same each way."""
    game = lpgame.games.make("kuhn_poker")
    result = lpgame.solve(game, presolve=presolve)
    assert result.value == pytest.approx(KUHN_VALUE, abs=1e-12)
    assert result.certificate.nash_conv <= 1e-12


def test_kuhn_against_gambit_lp_solve():
    pygambit = pytest.importorskip("pygambit")
    from lpgame.io.files import find_game_file
    gambit_game = pygambit.read_efg(str(find_game_file("kuhn_poker.efg")))
    equilibrium = pygambit.nash.lp_solve(gambit_game, rational=False).equilibria[0]
    gambit_value = float(equilibrium.payoff(list(gambit_game.players)[0]))
    game = lpgame.games.make("kuhn_poker")
    for _ in range(2):                   # the first solve and the one from kept structures
        assert lpgame.solve(game).value == pytest.approx(gambit_value, abs=1e-9)


@pytest.mark.parametrize("algorithm", ["cfr", "cfr+", "dcfr", "pcfr+"])
@pytest.mark.parametrize("name", ["kuhn_poker", "rock_paper_scissors"])
def test_dense_cfr_path_equals_the_level_by_level_path(monkeypatch, algorithm, name):
    """The small-treeplex products (treeplex.DENSE_SEQUENCES) and the dense payoff matrix give
    the iterates of the general path: same regrets, plans and averages after 300 iterations."""
    sf = compile_game(name)
    dense = SEQUENCE_FORM_ALGORITHMS[algorithm](sf, np.random.default_rng(0))
    assert all(tp.dense for tp in dense.treeplexes)
    monkeypatch.setattr(treeplex, "DENSE_SEQUENCES", 0)
    monkeypatch.setattr(treeplex, "DENSE_PAYOFF_ENTRIES", 0)
    general = SEQUENCE_FORM_ALGORITHMS[algorithm](sf, np.random.default_rng(0))
    assert not any(tp.dense for tp in general.treeplexes)
    for t in range(1, 301):
        dense.iterate(t)
        general.iterate(t)
    for a, b in zip(dense.average_plans(), general.average_plans()):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-10)
    for a, b in zip(dense.regrets, general.regrets):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)


def test_dense_regret_matching_and_plan_on_a_hand_example():
    """Kuhn's player 1 by hand: regrets (2, 0) at one information set give (1, 0); all negative
    give the uniform behaviour; the plan multiplies down the tree."""
    sf = compile_game("kuhn_poker")
    tp = treeplex.PlayerTreeplex(sf, 0)
    assert tp.dense
    regrets = np.full(tp.num_sequences, -1.0)
    regrets[0] = 0.0
    first = int(tp.first[0])
    regrets[first], regrets[first + 1] = 2.0, 0.0
    b = tp.regret_matching(regrets)
    assert b[0] == 1.0 and b[first] == 1.0 and b[first + 1] == 0.0
    others = [s for s in range(1, tp.num_sequences) if tp.seq_infoset[s] != 0]
    assert np.allclose(b[others], 0.5)
    x = tp.plan(b)
    np.testing.assert_allclose(x, sf.plan_from_behaviour(0, b), rtol=0, atol=0)
    for s in range(1, tp.num_sequences):
        parent = tp.parent[tp.seq_infoset[s]]
        assert x[s] == pytest.approx(b[s] * x[parent])


def test_kept_highs_instances_answer_as_a_new_one():
    """A small LP solved again runs in a kept HiGHS instance, cleared first: the solution, duals,
    basis and simplex iterations equal those of a new instance (and the value is Kuhn's)."""
    from lpgame.lp import highs_backend

    lp = nash_lp(compile_game("kuhn_poker")).lp
    solutions = [solve_lp(lp) for _ in range(4)]
    assert lp.memo("highs_instances", list)                 # the kept one is back in the list
    h = highs_backend.build_highs(lp, {"presolve": "off"})
    h.run()
    fresh = highs_backend.basic_solution(h, lp, None, 0.0)
    for s in solutions:
        np.testing.assert_array_equal(s.col_values, fresh.col_values)
        np.testing.assert_array_equal(s.row_duals, fresh.row_duals)
        np.testing.assert_array_equal(s.col_basis, fresh.col_basis)
        assert s.info["simplex_iterations"] == fresh.info["simplex_iterations"]
        assert nash_lp(compile_game("kuhn_poker")).value(s.objective) == pytest.approx(KUHN_VALUE)
    tight = solve_lp(lp, highs_options={"primal_feasibility_tolerance": 1e-9})
    assert tight.info["solver"]["tolerance"] == 1e-9
    plain = solve_lp(lp, polish=False)                    # options do not leak between solves
    assert plain.info["solver"]["tolerance"] == 1e-7      # HiGHS's default


def test_solved_games_and_results_still_pickle_and_copy():
    """Kept HiGHS instances do not pickle: games and results travel (sweeps, copies) without
    them and solve alike afterwards."""
    import copy
    import pickle

    game = lpgame.games.make("kuhn_poker")
    result = lpgame.solve(game)
    lpgame.solve(game)                                   # a kept instance now exists
    again = pickle.loads(pickle.dumps(result))
    assert again.value == result.value and again.lp.size() == result.lp.size()
    for other in (pickle.loads(pickle.dumps(game)), copy.deepcopy(game)):
        assert compile_game(other).game is other
        solved = lpgame.solve(other)
        assert solved.value == pytest.approx(KUHN_VALUE, abs=1e-12)
        assert solved.strategies == result.strategies
