"""Exact integer tableaux from floats and the exact search's decisions on them
(lpgame.equilibria.general_sum.enumeration_integer), and the maximal Nash subsets
(lpgame.equilibria.general_sum.enumeration.maximal_nash_subsets).

Checked against sources other than lpgame: D·B⁻¹M and the basic solutions by python-flint's exact
rational solve; the lexicographic minimum-ratio test by sorting tuples of Fractions (Dantzig, Orden
& Wolfe 1955: the leaving row minimises (β_i, (B⁻¹)_i)/α_i lexicographically over α_i > 0); the
maximal bicliques by networkx's maximal cliques of the graph with each side made complete.
"""

from __future__ import annotations

from fractions import Fraction

import flint
import networkx as nx
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lpgame.equilibria.general_sum.enumeration import maximal_nash_subsets
from lpgame.equilibria.general_sum.enumeration_integer import (
    integer_basic_solutions,
    integer_decisions,
    integer_tableaux,
)

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def tableau(c: np.ndarray) -> np.ndarray:
    """M = [C | I | 1] as Python ints."""
    k, d = c.shape
    return np.hstack([c, np.eye(k, dtype=int), np.ones((k, 1), dtype=int)]).astype(object)


def flint_tableau(m: np.ndarray, basis: list[int]):
    """B⁻¹M as Fractions by flint, or None for a singular basis."""
    b = flint.fmpq_mat([[int(m[i, j]) for j in basis] for i in range(len(m))])
    if b.det() == 0:
        return None
    t = b.solve(flint.fmpq_mat(m.tolist()))
    return [[Fraction(int(t[i, j].p), int(t[i, j].q)) for j in range(m.shape[1])]
            for i in range(len(m))]


def floats_of(m: np.ndarray, bases: np.ndarray):
    mf = m.astype(float)
    b = mf[np.arange(len(m))[None, :, None], bases[:, None, :]]
    with np.errstate(all="ignore"):
        t = np.linalg.pinv(b) @ mf
    return mf, b, t


def problems(max_k: int = 5, high: int = 3):
    """(C, bases): a positive integer C (k × d) and random bases of [C | I]."""
    return st.tuples(st.integers(1, max_k), st.integers(1, max_k), st.integers(1, high),
                     st.integers(0, 2**32 - 1)).map(_problem)


def _problem(args):
    k, d, high, seed = args
    rng = np.random.default_rng(seed)
    c = rng.integers(1, high + 1, (k, d))
    bases = np.array([rng.permutation(d + k)[:k] for _ in range(8)])
    return c, bases


@SETTINGS
@given(problems(high=9))
def test_verified_integer_tableaux_are_det_times_the_exact_inverse(problem):
    c, bases = problem
    m = tableau(c)
    mf, b, t = floats_of(m, bases)
    x, det, verified, small = integer_tableaux(t, b, np.broadcast_to(mf, (len(bases),) + mf.shape),
                                               len(m) * mf.max())
    for n, basis in enumerate(bases.tolist()):
        exact = flint_tableau(m, basis)
        if exact is None:
            assert not verified[n]                   # a singular basis never verifies
            continue
        assert verified[n]                           # small integers: the floats suffice
        assert small[n] <= verified[n]
        got = [[Fraction(int(v), int(det[n])) for v in row] for row in x[n].tolist()]
        assert got == exact


@SETTINGS
@given(problems(high=9))
def test_verified_basic_solutions_are_the_exact_ones(problem):
    c, bases = problem
    m = tableau(c)
    beta, det, ok = integer_basic_solutions(m.astype(float), bases)
    for n, basis in enumerate(bases.tolist()):
        exact = flint_tableau(m, basis)
        if exact is None:
            assert not ok[n]
            continue
        assert ok[n]
        assert [Fraction(int(v), int(det[n])) for v in beta[n].tolist()] == [r[-1] for r in exact]


def lexmin_by_fractions(exact: list[list[Fraction]], column: int, keys: list[int]) -> int:
    rows = [i for i, r in enumerate(exact) if r[column] > 0]
    if not rows:
        return -1
    return min(rows, key=lambda i: tuple(exact[i][j] / exact[i][column] for j in keys))


@SETTINGS
@given(problems(high=2))
def test_integer_decisions_are_the_lexicographic_minimum_ratio_test(problem):
    """Payoffs 1..2: ties and degenerate bases everywhere. Only lexicographically feasible
    bases (β ≥ 0) are asked, as in the search."""
    c, bases = problem
    m = tableau(c)
    k, d = c.shape
    cols = d + k
    keys = [cols] + list(range(d, cols))
    exacts = [flint_tableau(m, basis) for basis in bases.tolist()]
    keep = [n for n, e in enumerate(exacts) if e is not None and all(r[-1] >= 0 for r in e)]
    if not keep:
        return
    bases = bases[keep]
    mf, b, t = floats_of(m, bases)
    x, det, verified, small = integer_tableaux(t, b, np.broadcast_to(mf, (len(bases),) + mf.shape),
                                               k * mf.max())
    assert verified.all() and small.all()
    leave, ok = integer_decisions(x, small, bases, cols, keys)
    assert ok.all()
    for n, basis in enumerate(bases.tolist()):
        exact = exacts[keep[n]]
        for column in range(cols):
            expected = -1 if column in basis else lexmin_by_fractions(exact, column, keys)
            assert leave[n, column] == expected


@SETTINGS
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), max_size=25))
def test_maximal_nash_subsets_are_networkx_maximal_cliques(edges):
    edges = sorted(set(edges))
    graph = nx.Graph()
    xs, ys = sorted({i for i, _ in edges}), sorted({j for _, j in edges})
    graph.add_nodes_from([("x", i) for i in xs] + [("y", j) for j in ys])
    graph.add_edges_from((("x", i), ("y", j)) for i, j in edges)
    for tag, side in (("x", xs), ("y", ys)):
        graph.add_edges_from(((tag, u), (tag, v)) for a, u in enumerate(side) for v in side[a + 1:])
    expected = sorted((sorted(i for t, i in q if t == "x"), sorted(j for t, j in q if t == "y"))
                      for q in nx.find_cliques(graph))
    expected = [(left, right) for left, right in expected if left and right]
    assert maximal_nash_subsets(edges) == expected
