"""The three renderings of a LinearProgram (HiGHS, Pyomo, CVXPY) and LP/MPS export.

What is checked, and against what:
* Game values from every backend agree to 1e-8 and equal the literature values where the notes give
  one: Kuhn −1/18 (Kuhn 1950; notes/farina-thesis.md §2.1), matching pennies 0, RPS 0, ficha vs.
  dominó 1/3, Colonel Blotto (5, 3) 0 (notes/rojas-linarez-and-notebook.md §1.1–1.5), SM2 5/7
  (notes/farina-thesis.md §2.12), Leduc −0.0856064240780 (OpenSpiel's value, notes/peers.md).
* Player 2's strategy, read from the duals of each backend, is an equilibrium strategy: the
  profile's NashConv, computed by the independent bottom-up best responses of lpgame.analysis
  (no LP), is ≤ 1e-8. A dual with the wrong sign or scale fails this.
* Battle of the sexes: both maximin values are 2/3 (the textbook security values, notes §1.3);
  each maximin strategy guarantees 2/3 and each dual-derived minimax strategy holds the opponent to
  2/3 (best responses, no LP).
* The dual convention ∂objective/∂rhs on a hand-solved LP with ``<=``, ``==`` and ``>=`` rows (duals
  2.5, 0.5, −3.5 worked out by hand below), and by central finite differences, for max and min.
* LP and MPS files written through Pyomo are read back by HiGHS (``Highs.readModel``) and solve to
  the same objective, with and without symbol collisions and an objective constant.
* Infeasible and unbounded LPs raise SolverError from every backend, with the model size.
"""

from __future__ import annotations

import highspy
import numpy as np
import pyomo.environ as pyo
import pytest
import scipy.sparse as sp
from pyomo.repn import generate_standard_repn

import lpgame
from lpgame.equilibria.zero_sum.security import security_lp
from lpgame.errors import SolverError, SolverTimeLimitError
from lpgame.lp import BACKENDS, LinearProgram, solve_lp
from lpgame.lp.cvxpy_backend import build_cvxpy_problem
from lpgame.lp.pyomo_backend import build_pyomo_model, pyomo_text, write_lp, write_mps

TOL = 1e-8

# (catalog name, parameters, literature value for player 1 or None)
ZERO_SUM_CASES = [
    ("kuhn_poker", {}, -1 / 18),
    ("one_card_poker", {"N": 5}, None),
    ("matching_pennies", {}, 0.0),
    ("rock_paper_scissors", {}, 0.0),
    ("ficha_vs_domino", {}, 1 / 3),
    ("colonel_blotto", {"S": 5, "N": 3}, 0.0),
    ("sm2", {}, 5 / 7),
    ("leduc_poker", {}, -0.0856064240780),
]


@pytest.mark.parametrize("name, params, literature", ZERO_SUM_CASES,
                         ids=[c[0] for c in ZERO_SUM_CASES])
def test_backends_agree_on_zero_sum_games(name, params, literature):
    if name not in lpgame.games.catalog():
        pytest.skip(f"{name} is not registered in lpgame.games (its module is not written yet)")
    game = lpgame.games.make(name, **params)
    results = {backend: lpgame.solve(game, backend=backend) for backend in BACKENDS}
    reference = results["highs"].value
    for backend, result in results.items():
        assert result.backend == backend
        assert result.value == pytest.approx(reference, abs=TOL), backend
        if literature is not None:
            assert result.value == pytest.approx(literature, abs=TOL), backend
        # both strategies, player 2's from the duals, checked by LP-free best responses
        assert result.certificate.nash_conv <= TOL, (backend, result.certificate)


@pytest.mark.parametrize("backend", BACKENDS)
def test_battle_of_the_sexes_maximin(backend):
    game = lpgame.games.make("battle_of_the_sexes")
    result = lpgame.solve(game, concept="maximin", backend=backend)
    assert result.values == pytest.approx([2 / 3, 2 / 3], abs=TOL)
    # each maximin strategy guarantees 2/3 against the worst reply
    assert result.certificate.extra["guaranteed"] == pytest.approx([2 / 3, 2 / 3], abs=TOL)
    # the duals give each player's minimax strategy: it holds the opponent to 2/3
    minimax = result.extra["minimax_strategies"]
    for i in range(2):
        profile = [None, None]
        profile[1 - i] = minimax[1 - i]
        profile[i] = result.strategies[i]
        ev = lpgame.evaluate(game, profile)
        assert ev.best_response_values[i] == pytest.approx(2 / 3, abs=TOL)


# ---------------------------------------------------------------- dual convention
def hand_lp(sense: str = "max", rhs=(4.0, 1.0, 1.0)) -> LinearProgram:
    """max 3x + 2y − z + 1  s.t.  x + y + z ≤ 4,  x − y = 1,  z ≥ 1,  x, y ≥ 0, z ≤ 10.

    By hand: z = 1, x + y = 3, x − y = 1, so (x, y, z) = (2, 1, 1), objective 8; the basis is
    {x, y, z}, nondegenerate. Raising the ≤ rhs by δ: x, y += δ/2 → +2.5δ; the = rhs: x += δ/2,
    y −= δ/2 → +0.5δ; the ≥ rhs: z += δ, x + y −= δ → −3.5δ. (``min`` minimises the negative.)
    """
    sign = 1.0 if sense == "max" else -1.0
    lp = LinearProgram(name=f"hand LP ({sense})")
    xy = lp.add_variables("xy", 2, lower=0.0, labels=["x", "y"])
    z = lp.add_variables("z", 1, lower=-np.inf, upper=10.0)
    lp.add_constraints("capacity", [(xy, sp.csr_array([[1.0, 1.0]])), (z, sp.csr_array([[1.0]]))],
                       "<=", rhs[0])
    lp.add_constraints("difference", [(xy, sp.csr_array([[1.0, -1.0]]))], "==", rhs[1])
    lp.add_constraints("floor", [(z, sp.csr_array([[1.0]]))], ">=", rhs[2])
    lp.set_objective([(xy, sign * np.array([3.0, 2.0])), (z, sign * np.array([-1.0]))], sense,
                     constant=sign * 1.0)
    return lp


@pytest.mark.parametrize("sense", ["max", "min"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_dual_convention(backend, sense):
    sign = 1.0 if sense == "max" else -1.0
    solution = solve_lp(hand_lp(sense), backend=backend)
    assert solution.objective == pytest.approx(sign * 8.0, abs=1e-9)
    assert solution.values("xy") == pytest.approx([2.0, 1.0], abs=1e-9)
    assert solution.values("z") == pytest.approx([1.0], abs=1e-9)
    duals = np.concatenate([solution.duals(b) for b in ("capacity", "difference", "floor")])
    assert duals == pytest.approx(sign * np.array([2.5, 0.5, -3.5]), abs=1e-9)
    # and by central differences of the optimal objective
    h = 1e-3
    base = np.array([4.0, 1.0, 1.0])
    for k in range(3):
        up, down = base.copy(), base.copy()
        up[k] += h
        down[k] -= h
        slope = (solve_lp(hand_lp(sense, up), backend=backend).objective
                 - solve_lp(hand_lp(sense, down), backend=backend).objective) / (2 * h)
        assert duals[k] == pytest.approx(slope, abs=1e-7)


# ---------------------------------------------------------------- errors
def infeasible_lp() -> LinearProgram:
    """x ≥ 0 with x ≤ −1."""
    lp = LinearProgram(name="infeasible")
    x = lp.add_variables("x", 2, lower=0.0)
    lp.add_constraints("impossible", [(x, sp.csr_array([[1.0, 1.0]]))], "<=", -1.0)
    lp.set_objective([(x, np.ones(2))], "max")
    return lp


def unbounded_lp() -> LinearProgram:
    """max x₀ with x₀ − x₁ ≤ 1, x ≥ 0."""
    lp = LinearProgram(name="unbounded")
    x = lp.add_variables("x", 2, lower=0.0)
    lp.add_constraints("loose", [(x, sp.csr_array([[1.0, -1.0]]))], "<=", 1.0)
    lp.set_objective([(x, np.array([1.0, 0.0]))], "max")
    return lp


@pytest.mark.parametrize("make_lp", [infeasible_lp, unbounded_lp], ids=["infeasible", "unbounded"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_non_optimal_raises_solver_error(backend, make_lp):
    lp = make_lp()
    with pytest.raises(SolverError) as caught:
        solve_lp(lp, backend=backend)
    assert caught.value.size == lp.size()
    assert caught.value.status
    assert lp.name in str(caught.value)


@pytest.mark.parametrize("backend", BACKENDS)
def test_highs_options_reach_highs(backend):
    lp = kuhn_lp()
    solution = solve_lp(lp, backend=backend, solver="ipm", threads=1, presolve=False,
                        time_limit=60)
    assert solution.objective == pytest.approx(-1 / 18, abs=TOL)
    with pytest.raises(SolverTimeLimitError):
        solve_lp(lp, backend=backend, time_limit=1e-9)
    with pytest.raises(SolverError, match="(?i)iteration limit|user_limit|maxIterations"):
        solve_lp(lp, backend=backend, solver="simplex", presolve=False,
                 highs_options={"simplex_iteration_limit": 0})
    with pytest.raises(SolverError):
        solve_lp(lp, backend=backend, highs_options={"no_such_option": 1})


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("solver, highs_options", [
    ("pdlp", None), ("ipm", {"run_crossover": "off"}), ("ipm", None), ("simplex", None)])
def test_every_highs_algorithm_solves_kuhn_and_leduc(backend, solver, highs_options):
    """PDLP and crossover-free IPM return non-basic points, which HiGHS cannot postsolve: with
    presolve on they came back with status "Unknown" even on Kuhn. Values against the literature
    (Kuhn −1/18) and OpenSpiel (Leduc, notes/peers.md); the certificate by LP-free best responses
    says how close the first-order answer is."""
    first_order = solver == "pdlp"
    tolerance = 1e-5 if first_order else TOL
    for name, literature in (("kuhn_poker", -1 / 18), ("leduc_poker", -0.0856064240780)):
        result = lpgame.solve(lpgame.games.make(name), backend=backend, solver=solver,
                              highs_options=highs_options)
        assert result.value == pytest.approx(literature, abs=tolerance), name
        assert result.certificate.nash_conv <= (1e-5 if first_order else 1e-7), name


# ---------------------------------------------------------------- export
def kuhn_lp() -> LinearProgram:
    return security_lp(lpgame.compile_game(lpgame.games.make("kuhn_poker")), 0).lp


def read_and_solve(path) -> tuple[float, highspy.HighsLp]:
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    return h.getInfo().objective_function_value, h.getLp()


def collision_lp() -> LinearProgram:
    """Labels that Pyomo's symbolic names map to the same symbol, and an objective constant."""
    lp = LinearProgram(name="collision")
    x = lp.add_variables("x", 2, lower=0.0, upper=[2.0, 3.0], labels=["a b", "a_b"])
    lp.add_constraints("sum", [(x, sp.csr_array([[1.0, 1.0]]))], "<=", 4.0)
    lp.set_objective([(x, np.array([1.0, 2.0]))], "max", constant=0.5)
    return lp    # optimum x = (1, 3), objective 7.5


@pytest.mark.parametrize("writer, suffix", [(write_lp, ".lp"), (write_mps, ".mps")])
def test_files_round_trip_through_highs(tmp_path, writer, suffix):
    lp = kuhn_lp()
    path = writer(lp, tmp_path / f"kuhn{suffix}")
    objective, model = read_and_solve(path)
    assert objective == pytest.approx(-1 / 18, abs=1e-12)
    assert (model.num_row_, model.num_col_) == (lp.num_rows, lp.num_cols)
    assert any("J_check_bet" in name for name in model.col_names_)   # symbolic names
    objective, _ = read_and_solve(writer(collision_lp(), tmp_path / f"collision{suffix}"))
    assert objective == pytest.approx(7.5, abs=1e-12)


# ---------------------------------------------------------------- the models themselves
def test_pyomo_model_is_indexed_by_labels():
    model = build_pyomo_model(kuhn_lp())
    # the treeplex row of infoset "J check bet": x[J:check] = x[J check bet:fold] + x[...:call]
    repn = generate_standard_repn(model.treeplex["J check bet"].body)
    coefficients = {v.name: c for v, c in zip(repn.linear_vars, repn.linear_coefs)}
    assert coefficients == {"x['J:check']": -1.0, "x['J check bet:fold']": 1.0,
                            "x['J check bet:call']": 1.0}
    assert model.treeplex["J check bet"].equality
    assert model.x["J:bet"].lb == 0 and model.x["J:bet"].ub is None
    assert model.v["∅"].lb is None
    assert isinstance(model.objective, pyo.Objective) and model.objective.sense == pyo.maximize
    # labels that repeat fall back to integer indices
    lp = LinearProgram(name="repeated")
    x = lp.add_variables("x", 2, labels=["same", "same"])
    lp.add_constraints("row", [(x, sp.csr_array([[1.0, 1.0]]))], "<=", 1.0)
    lp.set_objective([(x, np.ones(2))])
    assert sorted(build_pyomo_model(lp).x.keys()) == [0, 1]


def test_pyomo_text_prints_every_row():
    lp = security_lp(lpgame.compile_game(lpgame.games.make("matching_pennies")), 0).lp
    text = pyomo_text(lp)
    rows = [line for line in text.splitlines() if ":  " in line]
    assert len(rows) == lp.num_rows
    assert "  treeplex[∅]:  x[∅]  ==  1.0" in text.splitlines()
    assert text.splitlines()[1] == "maximize  v[∅]"


def test_cvxpy_problem_is_one_constraint_per_block():
    lp = kuhn_lp()
    problem, variables, constraints = build_cvxpy_problem(lp)
    assert len(variables) == len(lp.variables) and len(constraints) == len(lp.constraints)
    assert [c.size for c in constraints] == [b.size for b in lp.constraints]
    assert problem.is_dcp()
