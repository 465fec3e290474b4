"""Exact integer (fraction-free) pivoting and the lexicographic minimum-ratio test.

Integer pivoting (Edmonds 1967; Bareiss 1968; as used for bimatrix games in von Stengel,
"Computing equilibria for two-person games", Handbook of Game Theory 3, 2002): a tableau of
integers T = det(B)·B⁻¹[A | b], with det(B) the basis determinant, is kept integral by the update
on pivot row r and entering column α (a column of T):

    T_i ← (α_r T_i − α_i T_r) / det   (i ≠ r),    T_r unchanged,    det ← α_r,

where every division is exact (the entries are minors of [A | b]). No gcd is ever computed, unlike
arithmetic on Fractions. Arrays are numpy object arrays of Python integers, one vectorised
expression per pivot. The sign of det is kept positive (the whole tableau is negated when α_r < 0)
so that T's signs are B⁻¹'s.

Lexicographic minimum-ratio test (Dantzig, Orden & Wolfe 1955; Cottle, Pang & Stone 1992, §4.9):
perturbing b to b + (ε, ε², …) makes every basis nondegenerate; the leaving row is the row i with
α_i > 0 that minimises (β_i, (B⁻¹)_i) / α_i lexicographically (β = B⁻¹b). The minimum is unique,
so pivoting paths are well defined and finite on degenerate problems.
"""

from __future__ import annotations

import numpy as np


def integer_pivot(table: np.ndarray, det: int, row: int, column: np.ndarray) -> tuple[np.ndarray, int]:
    """(T', det') after a fraction-free pivot on ``row`` with entering column ``column`` (scaled
    like T, i.e. det·B⁻¹a); ``det`` stays positive (module docstring)."""
    pivot = column[row]
    new = (table * pivot - np.outer(column, table[row])) // det
    new[row] = table[row]
    if pivot < 0:
        return -new, -pivot
    return new, pivot


def float_pivot(table: np.ndarray, row: int, column: np.ndarray) -> None:
    """Gauss–Jordan pivot of a float tableau in place (``column`` is B⁻¹a before the pivot)."""
    table[row] /= column[row]
    mask = column != 0
    mask[row] = False
    table[mask] -= np.outer(column[mask], table[row])


def lexmin_row(table: np.ndarray, candidates: np.ndarray, denominators, key_columns,
               exact: bool, tolerance: float = 1e-9, prefer: int | None = None) -> int:
    """The row of ``candidates`` minimising (table[i, k] for k in key_columns) / denominators_i
    lexicographically. ``prefer`` (a row) wins ties of the first key. In floating point, ratios
    within ``tolerance`` (relative) of the minimum count as ties."""
    candidates = np.asarray(candidates)
    denominators = np.asarray(denominators)
    for depth, k in enumerate(key_columns):
        num = table[candidates, k]
        if exact:           # compare a_i / d_i by cross-multiplication (d_i > 0): no gcds
            nums, dens = num.tolist(), denominators.tolist()
            if not any(nums):
                keep = np.ones(len(nums), dtype=bool)
            else:
                b = 0
                for i in range(1, len(nums)):
                    if nums[i] * dens[b] < nums[b] * dens[i]:
                        b = i
                keep = np.array([a * dens[b] == nums[b] * d for a, d in zip(nums, dens)])
        else:
            ratios = num.astype(float) / denominators.astype(float)
            best = ratios.min()
            keep = ratios <= best + tolerance * max(1.0, abs(best))
        candidates, denominators = candidates[keep], denominators[keep]
        if depth == 0 and prefer is not None and prefer in candidates.tolist():
            return prefer
        if len(candidates) == 1:
            return int(candidates[0])
    return int(candidates[0])      # ties on every key: only with float tolerances
