"""Approximate, certified answers through the showdown operator: PDLP's iterate at a limit, the
projection onto the treeplexes, CFR+/DCFR/PCFR+ with the operator's gradient, and the Rhode Island
benchmark's strategy files (issue 39)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpgame.abstraction.compile import compile_ordered_game
from lpgame.abstraction.ordered_game import leduc_ordered
from lpgame.analysis.exploitability import evaluate_plans
from lpgame.equilibria.zero_sum.signal_operator_lp import operator_security_lp, payoff_range
from lpgame.errors import OptionError, SolverError, SolverTimeLimitError, StrategyError
from lpgame.game.showdown_operator import SignalPayoffOperator
from lpgame.learning.operator_cfr import OperatorCFR, TreeplexArrays
from lpgame.lp import solve_lp
from lpgame.sequence_form import SequenceForm

LEDUC_VALUE = -0.0856064240780       # player 1's value of Leduc Hold'em (lpgame's exact LP; the
                                     # literature's −0.0856, e.g. Waugh et al. 2009)


@pytest.fixture(scope="module")
def leduc():
    game = leduc_ordered()
    op = SignalPayoffOperator(game)
    return op, SequenceForm(compile_ordered_game(game))


def _valid(plex: TreeplexArrays, x: np.ndarray, tol: float = 1e-12) -> bool:
    """x ≥ 0, x[∅] = 1, Σ_a x[ja] = x[p_j] at every information set (the sequence-form rows)."""
    sums = np.bincount(plex.owner, weights=x[plex.seqs], minlength=len(plex.first))
    return bool(np.all(x >= 0) and x[0] == 1.0
                and np.abs(sums - x[plex.parent]).max(initial=0.0) <= tol)


# ------------------------------------------------------------------ the projection
@st.composite
def treeplexes(draw):
    """Random treeplexes: every sequence gets 0–2 child information sets of 1–3 actions, to depth 3."""
    first, count, parent, depth = [], [], [], []
    frontier, n = [(0, 0)], 1
    while frontier:
        seq, d = frontier.pop()
        for _ in range(draw(st.integers(0 if seq else 1, 2)) if d < 3 else 0):
            k = draw(st.integers(1, 3))
            first.append(n)
            count.append(k)
            parent.append(seq)
            depth.append(d)
            frontier.extend((n + a, d + 1) for a in range(k))
            n += k
    return TreeplexArrays(first, count, parent, depth, n)


@settings(max_examples=60, deadline=None)
@given(treeplexes(), st.integers(-12, 12), st.integers(0, 2 ** 31), st.floats(0, 0.7))
def test_projection_gives_a_realization_plan(plex, scale, seed, zeros):
    rng = np.random.default_rng(seed)
    noisy = rng.normal(size=plex.num_sequences) * 10.0 ** scale
    noisy[rng.random(plex.num_sequences) < zeros] = 0.0           # sets without mass → uniform
    x = plex.project(noisy)
    assert _valid(plex, x)
    assert np.allclose(plex.project(x), x, rtol=0, atol=1e-15)   # idempotent
    # a plan built by hand from a random behaviour (reference: the recursion by sequence) is kept
    b = np.ones(plex.num_sequences)
    for f, k in zip(plex.first, plex.count):
        w = rng.random(k) + 0.1
        b[f:f + k] = w / w.sum()
    plan = np.ones(plex.num_sequences)
    for j in np.argsort(plex.depth, kind="stable"):
        f, k = plex.first[j], plex.count[j]
        plan[f:f + k] = b[f:f + k] * plan[plex.parent[j]]
    assert np.allclose(plex.project(plan), plan, rtol=1e-13, atol=0)


def test_treeplex_arrays_refuse_a_bad_cover():
    with pytest.raises(StrategyError):
        TreeplexArrays([1, 2], [2, 2], [0, 0], [0, 0], 4)   # sequence 2 in two sets


# ------------------------------------------------------------------ PDLP at a limit
def test_pdlp_iteration_limit_returns_a_non_optimal_iterate_that_projects_and_certifies(leduc):
    op, sf = leduc
    built = operator_security_lp(op)
    with pytest.raises(SolverError) as info:
        solve_lp(built.lp, solver="pdlp", threads=1, highs_options={"pdlp_iteration_limit": 40})
    assert "iteration limit" in info.value.status.lower()
    iterate = info.value.iterate
    assert iterate is not None and iterate.status == "limit reached"
    assert 0 < iterate.info["pdlp_iterations"] <= 40
    raw = [iterate.values("x"), iterate.duals("best_response")]
    plans = [TreeplexArrays.of(op.treeplex(i)).project(raw[i]) for i in range(2)]
    for i in range(2):
        assert _valid(TreeplexArrays.of(op.treeplex(i)), plans[i])
    ours = op.nash_conv(*plans)
    theirs = evaluate_plans(sf, plans)
    assert ours["nash_conv"] > 1e-6           # 40 iterations are far from an equilibrium
    assert ours["nash_conv"] == pytest.approx(theirs.nash_conv, rel=1e-9)


def test_pdlp_time_limit_carries_the_iterate_and_the_simplex_none(leduc):
    op, _ = leduc
    built = operator_security_lp(op)
    with pytest.raises(SolverTimeLimitError) as info:
        solve_lp(built.lp, solver="pdlp", threads=1, time_limit=1e-3)
    iterate = info.value.iterate
    assert iterate.status == "limit reached" and iterate.info["pdlp_iterations"] > 0
    with pytest.raises(SolverError) as info:
        solve_lp(built.lp, solver="simplex", threads=1,
                 highs_options={"simplex_iteration_limit": 3})
    assert info.value.iterate is None


# ------------------------------------------------------------------ CFR through the operator
@pytest.mark.parametrize("algorithm", ["cfr+", "dcfr", "pcfr+"])
def test_learning_through_the_operator_is_certified_on_the_card_level_tree(leduc, algorithm):
    op, sf = leduc
    cfr = OperatorCFR([op.treeplex(0), op.treeplex(1)], op.sequence_payoffs, algorithm)
    cfr.iterate(150)
    plans = [TreeplexArrays.of(op.treeplex(i)).project(p) for i, p in enumerate(cfr.average())]
    ours = op.nash_conv(*plans)
    theirs = evaluate_plans(sf, plans)       # lpgame's best responses on the compiled leaves
    assert ours["nash_conv"] == pytest.approx(theirs.nash_conv, rel=1e-9)
    assert ours["value"] == pytest.approx(theirs.values[0], rel=1e-9)
    assert ours["nash_conv"] / payoff_range(op) < 2e-3
    # the value bounds of the certificate hold the game's value
    assert ours["best_response_2"] <= LEDUC_VALUE <= ours["best_response_1"]


def test_learner_checkpoint_resumes_exactly(leduc):
    op, _ = leduc
    make = lambda: OperatorCFR([op.treeplex(0), op.treeplex(1)], op.sequence_payoffs,  # noqa: E731
                               "pcfr+")
    straight, stopped = make(), make()
    straight.iterate(30)
    stopped.iterate(12)
    resumed = make()
    resumed.restore({k: np.array(v, copy=True) for k, v in stopped.state().items()})
    resumed.iterate(18)
    for a, b in zip(straight.average(), resumed.average()):
        assert np.array_equal(a, b)
    with pytest.raises(StrategyError):
        OperatorCFR([op.treeplex(0), op.treeplex(1)], op.sequence_payoffs,
                    "cfr+").restore(stopped.state())
    with pytest.raises(OptionError):
        OperatorCFR([op.treeplex(0), op.treeplex(1)], op.sequence_payoffs, "cfr")


# ------------------------------------------------------------------ the benchmark's files
def test_bench_certify_reproduces_the_saved_figure(tmp_path):
    from benchmarks.bench_rhode_island import certify_case, operator_case

    out = operator_case(3, 6.5, "dcfr", True, checkpoint=str(tmp_path), checkpoint_every=0.5,
                        report_every=5)
    assert out["stages"]["solve"]["iterations"] > 0
    cert = out["stages"]["certify"]
    assert cert["strategy"] == str(tmp_path / "strategy.npz")
    again = certify_case(cert["strategy"])["stages"]["certify"]
    assert again["nash_conv"] == cert["nash_conv"]
    assert again["relative_nash_conv"] == cert["relative_nash_conv"]
    assert again["value_bounds"] == cert["value_bounds"]
    assert cert["value_bounds"][0] <= cert["value"] <= cert["value_bounds"][1]


def test_bench_refuses_missing_and_garbled_strategy_files(tmp_path):
    from benchmarks.bench_rhode_island import load_strategy, main

    with pytest.raises(StrategyError, match="cannot read"):
        main(["--certify", str(tmp_path / "missing.npz")])
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip file")
    with pytest.raises(StrategyError, match="cannot read"):
        load_strategy(str(bad))
    partial = tmp_path / "partial.npz"
    np.savez(partial, x=np.ones(3))
    with pytest.raises(StrategyError, match="missing"):
        load_strategy(str(partial))
