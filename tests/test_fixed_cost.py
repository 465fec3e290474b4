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
from hypothesis import given, settings
from hypothesis import strategies as st

import lpgame
from lpgame.compile import compile_game
from lpgame.equilibria.zero_sum import security as security_module
from lpgame.equilibria.zero_sum.nash import nash_lp
from lpgame.learning import SEQUENCE_FORM_ALGORITHMS, treeplex
from lpgame.lp import solve_lp
from lpgame.lp.linear_program import LinearProgram
from lpgame.rational import sparse_from_coo
from lpgame.sequence_form import SequenceForm

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


@pytest.mark.parametrize("presolve", [False, True])
def test_a_spare_highs_instance_answers_as_a_new_one_on_another_model(presolve):
    """A small LP's instances become spares when it is freed; a new model run in a spare (cleared,
    options reset, the model passed) gets the values, duals, basis and iteration count of a new
    instance, whatever model the spare held before."""
    import gc

    from lpgame.equilibria.zero_sum.security import security_lp
    from lpgame.lp import highs_backend

    def lps():
        out = []
        for name, params in [("kuhn_poker", {}), ("kuhn_poker", {"cards": 4}),
                             ("leduc_poker", {"ranks": 2}), ("goofspiel", {})]:
            sf = compile_game(lpgame.games.make(name, **params))
            out += [security_lp(sf, 0, compress=False).lp, security_lp(sf, 1, compress=False).lp]
        return out

    def fields(solution):
        return (solution.col_values.tobytes(), solution.row_duals.tobytes(),
                solution.col_basis.tobytes(), solution.row_basis.tobytes(),
                solution.info["simplex_iterations"], solution.objective)

    references = []
    for lp in lps():
        h = highs_backend.build_highs(lp, {"presolve": "on" if presolve else "off"})
        h.run()
        references.append(fields(highs_backend.basic_solution(h, lp, None, 0.0)))
    spares_used = 0
    for rounds in range(2):
        for k, lp in reversed(list(enumerate(lps()))):    # other models held the spares before
            gc.collect()                                   # the previous models are freed
            spares_used += bool(highs_backend._SPARE)
            solution = highs_backend.solve_highs(lp, presolve=presolve, polish=False)
            assert fields(solution) == references[k], (rounds, k)
            del lp
    assert spares_used >= 8


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


# ---------------------------------------------------------------- a fresh game's set-up, in numpy
# The fresh-game path writes CSR/CSC arrays straight from numpy (lpgame.rational.sparse_from_coo,
# the security LP's transposes, the treeplex rows, LinearProgram.assemble) instead of scipy's
# conversions. The reference is scipy's own conversion of the same triples: the arrays must be
# identical, bit for bit, so that HiGHS receives the same model and answers alike.


def _same_arrays(ours, theirs) -> bool:
    return (ours.format == theirs.format and ours.shape == theirs.shape
            and np.array_equal(ours.indptr, theirs.indptr)
            and np.array_equal(ours.indices, theirs.indices)
            and np.array_equal(ours.data.view(np.int64), theirs.data.view(np.int64)))  # bits


@st.composite
def _triples(draw):
    rows, cols = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    n = draw(st.integers(0, 25))
    scale = 10.0 ** draw(st.integers(-12, 12))
    r = draw(st.lists(st.integers(0, rows - 1), min_size=n, max_size=n))
    c = draw(st.lists(st.integers(0, cols - 1), min_size=n, max_size=n))
    v = draw(st.lists(st.floats(-1, 1, allow_nan=False), min_size=n, max_size=n))
    return (np.array(v, dtype=float) * scale, np.array(r, dtype=np.int64),
            np.array(c, dtype=np.int64), (rows, cols))


@settings(max_examples=150, deadline=None)
@given(_triples(), st.sampled_from(["csr", "csc"]))
def test_sparse_from_coo_is_scipys_canonical_array(triples, fmt):
    data, rows, cols, shape = triples
    reference = (sp.csr_array if fmt == "csr" else sp.csc_array)((data, (rows, cols)), shape=shape)
    reference.sum_duplicates()        # duplicates (if any) summed in scipy's order
    assert _same_arrays(sparse_from_coo(data, rows, cols, shape, format=fmt), reference)


@settings(max_examples=100, deadline=None)
@given(_triples(), st.sampled_from([1.0, -1.0]))
def test_security_lp_transpose_is_scipys(triples, sign):
    data, rows, cols, shape = triples
    M = sp.csr_array((data, (rows, cols)), shape=shape)
    M.sum_duplicates()
    reference = (M * sign).T.tocsr() if sign != 1.0 else M.T.tocsr()
    assert _same_arrays(security_module._transposed(M, sign), reference)


@pytest.mark.parametrize("name, params", [("kuhn_poker", {}), ("kuhn_poker", {"cards": 5}),
                                          ("leduc_poker", {}), ("goofspiel", {})])
def test_a_fresh_games_lp_is_the_one_scipys_conversions_build(name, params):
    """Treeplex rows, payoff matrix, security LP blocks and the assembled CSC matrix, each against
    the scipy construction of the same triples (the code before the numpy paths)."""
    sf = SequenceForm.from_game(lpgame.games.make(name, **params))
    for p in sf.players:
        m, counts = p.num_infosets, p.infoset_num_actions
        rows = np.concatenate([[0], np.arange(1, m + 1), np.repeat(np.arange(1, m + 1), counts)])
        cols = np.concatenate([[0], p.infoset_parent_seq, np.arange(1, p.num_sequences)])
        vals = np.concatenate([[1.0], -np.ones(m), np.ones(p.num_sequences - 1)])
        reference = sp.csr_array((vals, (rows, cols)), shape=(m + 1, p.num_sequences))
        assert _same_arrays(SequenceForm._build_treeplex(p), reference)
    seqs = sf.terminal_sequences
    for player in (0, 1):
        U = sp.csr_array((sf.terminal_chance * sf.terminal_payoffs[:, player],
                          (seqs[:, 0], seqs[:, 1])), shape=(sf.num_sequences(0), sf.num_sequences(1)))
        assert _same_arrays(sf.payoff_matrix(player), U)
        lp = security_module.security_lp(sf, player, compress=False).lp
        F_o = sf.treeplex_matrix(1 - player)
        terms = lp.block("best_response").terms
        assert _same_arrays(terms[0][1], F_o.T.tocsr())
        blocks = []
        for con in lp.constraints:
            for var, matrix in con.terms:
                coo = sp.coo_array(sp.csr_array(matrix, dtype=float))
                blocks.append((coo.row + con.offset, coo.col + var.offset, coo.data))
        A = sp.csc_array((np.concatenate([b[2] for b in blocks]),
                          (np.concatenate([b[0] for b in blocks]),
                           np.concatenate([b[1] for b in blocks]))), shape=(lp.num_rows, lp.num_cols))
        A.sum_duplicates()
        assert _same_arrays(lp.assemble().A, A)


def test_a_small_build_reads_no_available_memory_but_a_large_one_does(monkeypatch):
    """Predictions up to 1 MiB skip /proc/meminfo (lpgame.limits.SMALL_PREDICTION); past it the
    walk reads the limit and refuses a tree that does not fit."""
    from lpgame import limits
    from lpgame.errors import ModelTooLargeError

    monkeypatch.delenv("LPGAME_MEMORY_LIMIT", raising=False)

    def unread():
        raise AssertionError("available memory read for a tiny game")
    monkeypatch.setattr(limits, "available_memory", unread)
    result = lpgame.solve(lpgame.games.make("kuhn_poker"))
    assert result.value == pytest.approx(KUHN_VALUE, abs=1e-12)
    monkeypatch.setattr(limits, "available_memory", lambda: 2 << 20)   # 2 MiB "available"
    with pytest.raises(ModelTooLargeError):      # the catalog's prediction: 31,861 nodes
        lpgame.games.make("one_card_poker", N=60, structured=False)
    from lpgame.game.rules import expand
    from lpgame.games.poker import KuhnRules
    with pytest.raises(ModelTooLargeError, match="more than 827 nodes"):   # the walk itself
        expand(KuhnRules(2, 60))
