"""Issue 37's 6×6 fixed-cost work changes how the float-first enumeration computes its decisions,
not what it decides: the search with the current
:func:`~lpgame.equilibria.general_sum.enumeration_integer.integer_decisions` and label matching
(``enumeration._complete_pairs``, bit masks for a float32 product) must give exactly the records
of the verbatim reference kept in tests/enumeration_reference.py (lpgame at 567b48a):
the same extreme equilibria (exact Fractions), maximal Nash subsets, vertex and basis counts,
and the same leaving rows batch by batch. Checked against ``method="exact"`` (integer pivoting
throughout) too, on random 4×4..8×8 games, generic, tie-rich and built degenerate.
"""

from __future__ import annotations

from fractions import Fraction

import enumeration_reference as ref
import numpy as np
import pytest

from lpgame.equilibria.general_sum import enumeration as en
from lpgame.equilibria.general_sum import enumeration_integer as ei
from lpgame.equilibria.general_sum.enumeration import bimatrix_extreme_equilibria
from lpgame.equilibria.general_sum.enumeration_vertices import VertexSet


def _games():
    rng = np.random.default_rng(37)
    out = []
    for n in range(4, 9):
        for high in (4, 100):
            for _ in range(4):
                m = int(rng.integers(max(2, n - 2), n + 1))
                out.append((rng.integers(0, high, (m, n)), rng.integers(0, high, (m, n))))
        a, b = rng.integers(0, 4, (n, n)), rng.integers(0, 4, (n, n))
        a[1] = a[0]                                   # a duplicated row and a constant column
        b[:, 2] = 1
        out.append((a, b))
        out.append((np.ones((n, n), dtype=int), rng.integers(0, 3, (n, n))))
    return out


def _record(found):
    return (found.strategies, found.equilibria, found.nash_subsets, found.vertices, found.bases,
            found.exact_bases, found.method)


@pytest.mark.parametrize("index", range(len(_games())))
def test_float_enumeration_matches_the_reference(index, monkeypatch):
    a, b = (m.astype(object) for m in _games()[index])
    batches = []
    current = ei.integer_decisions

    def both(*args):
        new, old = current(*args), ref.integer_decisions(*args)
        batches.append(all(np.array_equal(p, q) for p, q in zip(new, old)))
        return new

    def pairs(sets, shape, start):
        new = current_pairs(sets, shape, start)
        old = ref._complete_pairs(sets, shape, start)
        batches.append(_record(new) == _record(old))
        return new

    current_pairs = en._complete_pairs
    monkeypatch.setattr(ei, "integer_decisions", both)
    monkeypatch.setattr(en, "_complete_pairs", pairs)
    found = bimatrix_extreme_equilibria(a, b)
    assert batches and all(batches)
    monkeypatch.setattr(ei, "integer_decisions", ref.integer_decisions)
    monkeypatch.setattr(en, "_complete_pairs", ref._complete_pairs)
    assert _record(bimatrix_extreme_equilibria(a, b)) == _record(found)
    exact = bimatrix_extreme_equilibria(a, b, method="exact")
    assert (exact.strategies, exact.equilibria, exact.nash_subsets, exact.vertices) == \
        (found.strategies, found.equilibria, found.nash_subsets, found.vertices)


@pytest.mark.parametrize("m, n", [(3, 4), (40, 35), (70, 60)])
def test_label_matching_matches_the_reference_past_one_mask_word(m, n):
    """Bit masks of more than 62 labels span several int64 words: the same pairs as the float32
    product, on random zero patterns (vertices with many labels, so that pairs exist)."""
    rng = np.random.default_rng(m * n)

    def vertices(count, first, second):
        zero = rng.random((count, first + second)) < 0.8
        zero[0, :first] = True                            # the vertex 0
        points = [tuple(Fraction(int(v) + 1) for v in rng.integers(0, 5, first))
                  for _ in range(count)]
        return VertexSet(np.zeros((second, first), dtype=object), zero,
                         np.zeros((count, 0), dtype=int), points)

    sets = [vertices(30, m, n), vertices(25, n, m)]
    new = en._complete_pairs(sets, (m, n), 0.0)
    assert new.equilibria
    assert _record(new) == _record(ref._complete_pairs(sets, (m, n), 0.0))
