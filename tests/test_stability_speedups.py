"""The faster pieces of the exact stability test give the same exact answers as the slower ones.

References, none of them the code under test:
* the committed fmpq paths kept behind switches (``ExactFactor.fraction_free = False``,
  ``basis_stability.SCALED_TAIL = False``, ``early=False``, FLINT's ``fmpz_mat.nullspace`` when the
  modular null space is switched off) on catalog games (Kuhn, Goofspiel, Dudo) and random games;
* Python Fractions: Z / D reduced by ``Fraction``; yᵀM = 0 summed in Fractions; the rank of a
  random singular matrix by Gaussian elimination written here;
* networkx's longest path in a DAG for the levels of the block substitution.
"""

from __future__ import annotations

import random
from fractions import Fraction

import flint
import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from random_games import fraction_payoffs, two_player_trees

import lpgame
from lpgame.compile import compile_game
from lpgame.equilibria.refinements import basis_stability as bs
from lpgame.equilibria.refinements import exact_sparse_factor as esf
from lpgame.equilibria.refinements import laurent_series as ls
from lpgame.equilibria.refinements.exact_sparse_factor import ExactFactor, SparseQ, _levels
from lpgame.equilibria.refinements.limit import solve_limit
from lpgame.equilibria.refinements.perturbed_lp import refinement_lp, sequence_depths
from lpgame.equilibria.refinements.scaled_series import LazyFractions

SETTINGS = settings(max_examples=20, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


# ------------------------------------------------------------------ LazyFractions
@SETTINGS
@given(values=st.lists(st.integers(-10 ** 40, 10 ** 40), min_size=1, max_size=12),
       den=st.integers(1, 10 ** 30), scale=st.integers(-12, 12))
def test_lazy_fractions_are_the_reduced_fractions(values, den, scale):
    den = den * 10 ** max(scale, 0)
    nums = [v * 10 ** max(-scale, 0) for v in values]
    length = len(nums) + 3
    positions = np.array(random.Random(len(nums)).sample(range(length), len(nums)))
    lazy = LazyFractions(np.array([flint.fmpz(v) for v in nums] + [None], dtype=object)[:-1],
                         flint.fmpz(den), positions, length)
    expected = [Fraction(0)] * length
    for p, v in zip(positions.tolist(), nums):
        expected[p] = Fraction(v, den)
    assert len(lazy) == length
    assert lazy[1:4] == expected[1:4] and lazy[-1] == expected[-1]
    assert list(lazy) == expected and lazy == expected and expected == lazy
    assert all(type(v) is Fraction for v in lazy)
    assert [hash(v) for v in lazy] == [hash(v) for v in expected]
    with pytest.raises(IndexError):
        lazy[length]


# ------------------------------------------------------------------ levels of the substitution
@SETTINGS
@given(seed=st.integers(0, 2 ** 31), count=st.integers(1, 80), chain=st.booleans())
def test_levels_are_longest_paths(seed, count, chain):
    """Shallow condensations (relaxation) and chains deeper than its passes (topological)."""
    rng = random.Random(seed)
    edges = {(a, b) for a in range(count) for b in range(a) if rng.random() < 0.1}
    if chain:
        edges |= {(a, a - 1) for a in range(1, count)}
    edges = sorted(edges)
    deps = np.array(edges, dtype=np.int64).reshape(-1, 2)          # (block, needs), needs < block
    graph = nx.DiGraph()
    graph.add_nodes_from(range(count))
    graph.add_edges_from((b, a) for a, b in edges)
    expected = [0] * count
    for node in nx.topological_sort(graph):
        for succ in graph.successors(node):
            expected[succ] = max(expected[succ], expected[node] + 1)
    assert _levels(count, deps).tolist() == expected


# ------------------------------------------------------------------ modular left null space
def _rank(rows: list[list[Fraction]]) -> int:
    rows = [list(r) for r in rows]
    rank, col = 0, 0
    width = len(rows[0]) if rows else 0
    while rank < len(rows) and col < width:
        pivot = next((i for i in range(rank, len(rows)) if rows[i][col]), None)
        if pivot is None:
            col += 1
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        for i in range(len(rows)):
            if i != rank and rows[i][col]:
                f = rows[i][col] / rows[rank][col]
                rows[i] = [a - f * b for a, b in zip(rows[i], rows[rank])]
        rank += 1
        col += 1
    return rank


@SETTINGS
@given(seed=st.integers(0, 2 ** 31), n=st.integers(2, 14), deficiency=st.integers(1, 3),
       scale=st.integers(-12, 12))
def test_modular_null_space_is_the_fmpz_one(seed, n, deficiency, scale, monkeypatch):
    """A sparse matrix whose last rows are combinations of others: the left null space through
    the modular rank profile equals FLINT's fmpz nullspace route (both in reduced echelon form),
    every vector satisfies yᵀM = 0 in Fractions, and their count is n − rank."""
    rng = random.Random(seed)
    deficiency = min(deficiency, n - 1)
    dense = [[Fraction(rng.randint(-5, 5), rng.randint(1, 9)) * Fraction(10) ** scale
              if rng.random() < 0.35 else Fraction(0) for _ in range(n)] for _ in range(n - deficiency)]
    for _ in range(deficiency):
        a, b = rng.randrange(n - deficiency), rng.randrange(n - deficiency)
        fa, fb = Fraction(rng.randint(-3, 3), rng.randint(1, 4)), Fraction(rng.randint(1, 3))
        dense.append([fa * x + fb * y for x, y in zip(dense[a], dense[b])])
    order = list(range(n))
    rng.shuffle(order)
    dense = [dense[i] for i in order]
    entries = {(i, j): v for i, row in enumerate(dense) for j, v in enumerate(row) if v}
    if not entries:
        return
    keys = list(entries)
    matrix = SparseQ((n, n), [k[0] for k in keys], [k[1] for k in keys],
                     [flint.fmpq(entries[k].numerator, entries[k].denominator) for k in keys])
    fast = ls.left_null_space(matrix)
    monkeypatch.setattr(ls, "_modular_null_basis", lambda columns, size: None)
    slow = ls.left_null_space(matrix)
    assert fast == slow
    null, _ = fast
    assert len(null) == n - _rank(dense)
    for vec in null:
        y = {r: Fraction(int(v.p), int(v.q)) for r, v in vec.items()}
        assert all(sum((y.get(i, 0) * dense[i][j] for i in range(n)), Fraction(0)) == 0
                   for j in range(n))


# ------------------------------------------------------------------ whole stability test
_MODULAR = ls._modular_null_basis


def _limit(game, refinement, *, fast: bool, monkeypatch, long_bits: int = 0):
    """The limit loop's answer with the fast paths (``fast``) or the fmpq/fmpz ones."""
    monkeypatch.setattr(esf, "LONG_BITS", long_bits if fast else esf.LONG_BITS)  # 0: every solve
    monkeypatch.setattr(bs, "TAIL_BITS", long_bits if fast else bs.TAIL_BITS)
    monkeypatch.setattr(ExactFactor, "fraction_free", fast)
    monkeypatch.setattr(bs, "SCALED_TAIL", fast)
    monkeypatch.setattr(bs, "LAURENT_FIRST", 2 if fast else 10 ** 6)
    monkeypatch.setattr(ls, "_modular_null_basis", _MODULAR if fast else lambda columns, size: None)
    sf = compile_game(game)
    rl = refinement_lp(sf, refinement, 1)
    depth = max(int(sequence_depths(sf, i).max()) for i in range(2))
    limit = solve_limit(rl.tlp, terms=2 * depth + 4 if refinement == "efpe" else None)
    basis = limit.basis
    return (limit.stable, limit.xi, limit.how, list(limit.solution.col_basis),
            list(limit.solution.row_basis), [(a["xi"], a["stable"]) for a in limit.attempts],
            None if basis is None else ([list(z) for z in basis.primal],
                                        [list(p) for p in basis.duals],
                                        basis.certified_epsilon, basis.pole_order))


@pytest.mark.parametrize("name, params", [("kuhn_poker", {}), ("goofspiel", {"cards": 3}),
                                          ("dudo", {})])
@pytest.mark.parametrize("refinement", ["qpe", "efpe"])
def test_same_certified_basis_and_series_as_the_fmpq_paths(name, params, refinement, monkeypatch):
    game = lpgame.games.make(name, **params)
    fast = _limit(game, refinement, fast=True, monkeypatch=monkeypatch)
    slow = _limit(game, refinement, fast=False, monkeypatch=monkeypatch)
    assert fast[0] and fast == slow


@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data(), scale=st.integers(-12, 12))
def test_random_games_same_answer_as_the_fmpq_paths(data, scale, monkeypatch):
    """Random imperfect-information zero-sum trees, payoffs a/d · 10^scale."""
    factor = Fraction(10) ** scale
    game = data.draw(two_player_trees(max_depth=3, zero_sum=True,
                                      payoffs=fraction_payoffs(-6, 6, (1, 2, 3)).map(
                                          lambda v: v * factor)))
    for refinement in ("qpe", "efpe"):
        fast = _limit(game, refinement, fast=True, monkeypatch=monkeypatch)
        slow = _limit(game, refinement, fast=False, monkeypatch=monkeypatch)
        assert fast == slow


def test_the_fast_paths_are_taken(monkeypatch):
    """The comparisons above exercise the fast paths (every right-hand side counted as long):
    Kuhn's EFPE expansion ends with fraction-free terms (LazyFractions), Dudo's singular B(0)
    goes through the modular null space."""
    calls = []
    monkeypatch.setattr(bs, "TAIL_BITS", 0)
    monkeypatch.setattr(ls, "_modular_null_basis",
                        lambda columns, size: calls.append(size) or _MODULAR(columns, size))
    for name, lazy in (("kuhn_poker", True), ("dudo", False)):
        sf = compile_game(lpgame.games.make(name))
        rl = refinement_lp(sf, "efpe", 1)
        depth = max(int(sequence_depths(sf, i).max()) for i in range(2))
        limit = solve_limit(rl.tlp, terms=2 * depth + 4)
        assert limit.stable
        assert any(isinstance(z, LazyFractions) for z in limit.basis.primal) == lazy
    assert calls


@pytest.mark.slow
def test_leduc_efpe_same_answer_with_the_default_thresholds(monkeypatch):
    """L2232 EFPE with the default tail threshold (and every solve of the fmpq-output
    substitution fraction-free): equal to the fmpq paths' (certified basis, ξ, series)."""
    game = lpgame.games.make("leduc_poker", bets=2, ranks=3, suits=2)
    fast = _limit(game, "efpe", fast=True, monkeypatch=monkeypatch, long_bits=bs.TAIL_BITS)
    slow = _limit(game, "efpe", fast=False, monkeypatch=monkeypatch)
    assert fast[0] and fast == slow


def _verdict(tlp, solution, **kw):
    try:
        stable = bs.certify_stable_basis(tlp, solution, **kw)
    except bs.NotStableError as exc:
        return ("not stable", exc.violations, exc.partial_count)
    return ("stable", [list(z) for z in stable.primal], [list(p) for p in stable.duals])


def test_early_stop_on_z_alone_keeps_the_verdict(monkeypatch):
    """With ε in A, ``early`` may stop on an entry that needs only z_t, before π_t: the verdict
    is that of the complete test (on the cached basis, resumed, and on a fresh trembling LP), and
    the early count is a lower bound; such a stop happens on these bases."""
    from lpgame.lp import solve_lp

    stops = []
    real = bs._primal_stop

    def spy(*args):
        try:
            real(*args)
        except bs.NotStableError:
            stops.append(args[5])           # t
            raise
    monkeypatch.setattr(bs, "_primal_stop", spy)
    for name, params, xis in (("kuhn_poker", {}, (8, 16, 32)),
                              ("leduc_poker", {"bets": 2, "ranks": 3, "suits": 2}, (32, 64))):
        game = lpgame.games.make(name, **params)
        for xi in (Fraction(1, k) for k in xis):
            cached = refinement_lp(compile_game(game), "efpe", 1).tlp
            solution = solve_lp(cached.at(xi), solver="simplex")
            first = _verdict(cached, solution, early=True)
            second = _verdict(cached, solution)
            fresh = _verdict(refinement_lp(compile_game(game), "efpe", 1).tlp, solution)
            assert second == fresh and first[0] == fresh[0]
            if first[0] == "not stable":
                assert first[2] is True and first[1] <= fresh[1] and fresh[2] is False
    assert stops
