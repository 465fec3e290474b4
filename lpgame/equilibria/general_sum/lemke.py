"""A Nash equilibrium of a two-player general-sum game: Lemke's algorithm on the sequence-form LCP.

Formulation (Koller, Megiddo & von Stengel 1996, "Efficient computation of equilibria for extensive
two-person games", Games and Economic Behavior 14; notes/farina-thesis.md §1.12, Farina's Lemma 12.2
with ε = 0 so R_i = I).
With U_1, U_2 the sequence-form payoff matrices (u_i(x, y) = xᵀU_i y) and F_i x = f_i the treeplex
constraints of player i (row 0: x[∅] = 1, one row per information set), a pair of realization
plans (x, y) is a Nash equilibrium iff, with the best-response LP duals p, q (free),

    u = F_1ᵀ p − U_1 y ≥ 0,   x ≥ 0,   xᵀu = 0,   F_1 x = f_1,
    v = F_2ᵀ q − U_2ᵀ x ≥ 0,  y ≥ 0,   yᵀv = 0,   F_2 y = f_2.

Splitting p = p⁺ − p⁻ and q = q⁺ − q⁻ gives the standard LCP  w = b + M z ≥ 0, z ≥ 0, zᵀw = 0 with
z = (x, y, p⁺, p⁻, q⁺, q⁻), b = (0, 0, f_1, −f_1, f_2, −f_2) and

        ⎡  0     −U_1   F_1ᵀ  −F_1ᵀ   0      0   ⎤
        ⎢ −U_2ᵀ   0      0      0    F_2ᵀ  −F_2ᵀ ⎥
    M = ⎢ −F_1    0      0      0     0      0   ⎥
        ⎢  F_1    0      0      0     0      0   ⎥
        ⎢  0     −F_2    0      0     0      0   ⎥
        ⎣  0      F_2    0      0     0      0   ⎦

of size N = |Σ_1| + |Σ_2| + 2(|J_1| + 1) + 2(|J_2| + 1), assembled sparse (never dense).
Each leaf payoff is first shifted to be negative (u_i ← u_i − max u_i − 1 in the exact integer
scale; (u_i − max u_i)/range − 1 in floating point). That changes u_i(x, y) by a constant over all
plans (Σ_z p_c(z)·x[σ_1(z)]·y[σ_2(z)] = 1), so the equilibria are the same, and it makes U_1, U_2 ≤ 0:
then zᵀMz = −xᵀ(U_1 + U_2)y ≥ 0 (M is copositive), and z ≥ 0, Mz ≥ 0, zᵀMz = 0 forces F_1x = 0,
F_2y = 0, hence x = y = 0, and F_1ᵀp ≥ 0, F_2ᵀq ≥ 0, hence zᵀb = p[∅] + q[∅] ≥ 0. For copositive
M with that property, Lemke's algorithm with any positive covering vector d and a lexicographic
pivoting rule ends at a solution, never on a secondary ray (Cottle, Pang & Stone, The Linear
Complementarity Problem, 1992, §4.4; on a ray (z*, z_0*) + λ(zʰ, 0) one gets zʰ ≥ 0, Mzʰ ≥ 0,
zʰᵀMzʰ = 0 and zʰᵀb ≤ −z_0*·zʰᵀd < 0, a contradiction).

Lemke's algorithm (Lemke 1965; Cottle, Pang & Stone §4.4): add an artificial z_0 ≥ 0 with column d,
w = b + Mz + d z_0; start from w basic and bring in z_0 at the smallest value making w ≥ 0; then
repeatedly bring in the complement of the variable that just left, with the minimum-ratio test,
until z_0 leaves. Degeneracy is resolved lexicographically: b is perturbed to b + (ε, ε², …), so the
ratio test compares the rows (β_i, (B⁻¹)_i) / α_i lexicographically (β = B⁻¹b, α the entering
column), which makes every step unique and the path finite.

The basis is kept as a dense inverse B⁻¹ with the right-hand side, an N × (N + 1) array (the
entering column B⁻¹(−M_{·j}) is computed from the sparse column of M): its memory is predicted and
a game that does not fit is refused with :class:`~lpgame.errors.ModelTooLargeError`.

* ``exact=True``: integer (fraction-free) pivoting of Edmonds and Bareiss, as described for
  equilibrium computation in von Stengel's "Computing equilibria for two-person games" (Handbook of
  Game Theory 3, 2002): the data are
  scaled to integers, the array holds det(B)·B⁻¹ (integers, by Cramer's rule), and a pivot on row r
  with entering column α (scaled) is  T_i ← (α_r T_i − α_i T_r) / det  for i ≠ r, det ← α_r, every
  division exact. Measured against the same path on Fractions (``lemke(..., fractions=True)``,
  benchmarks/bench_general_sum.py): Kuhn poker (LCP 54, 55 pivots) 0.095 s vs 1.37 s, a random
  30 × 30 game (LCP 70, 163 pivots) 1.19 s vs 13.7 s: integer pivoting is 11–14 times faster, since
  every Fraction operation pays a gcd.
* ``exact=False``: float64 with the same lexicographic rule (ties within a relative tolerance); the
  final basis is re-solved with a sparse LU factorisation, and the profile's NashConv is checked.
  A profile that is not an equilibrium to 1e-6 of the payoff range raises
  :class:`~lpgame.errors.SolverError` (use ``exact=True``), never a wrong answer.

The covering vector is all ones by default; ``lemke_start`` gives another (N positive numbers, in
the order of z above). Different covering vectors can end at different equilibria.

The certificate is computed by the independent best-response path (:mod:`lpgame.analysis`): each
player's best-response gain and their sum, the general-sum NashConv (exactly 0 in exact mode).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from lpgame.equilibria.profiles import certified_profile, certify_nash_plans
from lpgame.errors import (
    ConceptMismatchError,
    ExactCheckError,
    OptionError,
    SolverError,
    SolverTimeLimitError,
)
from lpgame.limits import check_prediction
from lpgame.lp.pivoting import float_pivot, integer_pivot, lexmin_row
from lpgame.rational import to_fraction
from lpgame.registry import Concept, Option, register
from lpgame.result import Certificate, Result
from lpgame.sequence_form import SequenceForm

#: Bytes per entry of the dense basis inverse, temporaries of a pivot included. Peak measured with
#: tracemalloc over whole runs: float64 27–44 bytes per entry (Sheriff(3,2,2) N = 236, Kuhn N = 54,
#: a random 30 × 30 game N = 70); exact integers 54–140 (the most for payoffs up to 10^6, whose
#: minors grow longest). The limits keep a margin over both.
BYTES_PER_TABLEAU_ENTRY = {False: 48, True: 240}

#: Relative tolerance of the floating-point ratio test and of the final NashConv check.
FLOAT_PIVOT_TOLERANCE = 1e-9
FLOAT_NASH_CONV_TOLERANCE = 1e-6


# ------------------------------------------------------------------------------------ the LCP
@dataclass
class SequenceFormLCP:
    """The LCP w = b + M z ≥ 0, z ≥ 0, zᵀw = 0 of the module docstring.

    ``M`` is held column-compressed: column j's rows are ``indices[indptr[j]:indptr[j + 1]]`` and
    its entries ``data[...]`` (float64, or Python integers in an object array when exact).
    ``blocks`` gives the offsets of x, y, p⁺, p⁻, q⁺, q⁻ in z; ``names`` names each component
    (``x[J:check]``, ``p+[∅]``, ...).
    """

    def variable_name(self, var: int) -> str:
        """Name of Lemke's variable ``var``: w_k (k < N), z_k (N ≤ k < 2N) or z_0 (2N)."""
        n = self.size
        if var == 2 * n:
            return "z0"
        return f"w:{self.names[var]}" if var < n else self.names[var - n]

    size: int
    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    b: np.ndarray
    blocks: dict
    exact: bool
    names: list = field(default_factory=list)

    @property
    def nnz(self) -> int:
        return len(self.indices)

    def column(self, j: int) -> tuple[np.ndarray, np.ndarray]:
        start, end = self.indptr[j], self.indptr[j + 1]
        return self.indices[start:end], self.data[start:end]

    def to_scipy(self) -> sp.csc_array:
        """M as a float scipy matrix (for checks and the final float solve)."""
        return sp.csc_array((self.data.astype(float), self.indices, self.indptr),
                            shape=(self.size, self.size))


def _leaf_weights(sf: SequenceForm, exact: bool) -> list[np.ndarray]:
    """Each leaf's weight p_c(z)·(shifted u_i(z)) < 0 per player: integers (exact) or floats."""
    if exact:
        chance, _, payoffs, _ = sf.exact_terminal_scaled()    # positive scalings dropped
        out = []
        for i in range(2):
            u = payoffs[:, i]
            top = max(u.tolist()) if len(u) else 0
            out.append(chance * (u - (top + 1)))
        return out
    out = []
    for i in range(2):
        u = np.asarray(sf.terminal_payoffs[:, i], dtype=float)
        top, spread = float(u.max()), float(u.max() - u.min())
        out.append(sf.terminal_chance * ((u - top) / (spread if spread > 0 else 1.0) - 1.0))
    return out


def sequence_form_lcp(sf: SequenceForm, exact: bool = False) -> SequenceFormLCP:
    """The LCP (b, M) of a two-player game's sequence form (module docstring), sparse."""
    if sf.num_players != 2:
        raise ConceptMismatchError(
            f"{sf.game.name}: Lemke's algorithm on the sequence-form LCP needs two players, the game"
            f" has {sf.num_players}")
    n1, n2 = sf.num_sequences(0), sf.num_sequences(1)
    m1, m2 = sf.num_infosets(0) + 1, sf.num_infosets(1) + 1
    ox, oy = 0, n1
    op1, om1 = n1 + n2, n1 + n2 + m1
    oq1, oq2 = n1 + n2 + 2 * m1, n1 + n2 + 2 * m1 + m2
    size = oq2 + m2
    dtype = object if exact else float
    seqs = sf.terminal_sequences
    w1, w2 = _leaf_weights(sf, exact)
    rows, cols, vals = [], [], []

    def put(r, c, v, row_offset, col_offset):
        rows.append(np.asarray(r, dtype=np.int64) + row_offset)
        cols.append(np.asarray(c, dtype=np.int64) + col_offset)
        vals.append(np.asarray(v, dtype=dtype))

    put(seqs[:, 0], seqs[:, 1], -w1, ox, oy)            # −U_1 in rows x, columns y
    put(seqs[:, 1], seqs[:, 0], -w2, oy, ox)            # −U_2ᵀ in rows y, columns x
    for F, rx, offs in ((sf.treeplex_matrix(0).tocoo(), ox, (op1, om1)),
                        (sf.treeplex_matrix(1).tocoo(), oy, (oq1, oq2))):
        fv = F.data.astype(np.int64).astype(dtype)
        plus, minus = offs
        put(F.col, F.row, fv, rx, plus)                 # F_iᵀ in rows of i's sequences
        put(F.col, F.row, -fv, rx, minus)               # −F_iᵀ
        put(F.row, F.col, -fv, plus, rx)                # −F_i in rows p⁺ (q⁺)
        put(F.row, F.col, fv, minus, rx)                # F_i in rows p⁻ (q⁻)
    rows, cols, vals = np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)
    # sum duplicates (several leaves at one sequence pair), drop zeros, sort by column
    key = cols * size + rows
    unique, inverse = np.unique(key, return_inverse=True)
    data = np.zeros(len(unique), dtype=dtype)
    np.add.at(data, inverse, vals)
    keep = data != 0
    unique, data = unique[keep], data[keep]
    col_of, row_of = np.divmod(unique, size)
    indptr = np.searchsorted(col_of, np.arange(size + 1)).astype(np.int64)
    b = np.zeros(size, dtype=dtype)
    one = 1 if exact else 1.0
    b[op1], b[om1], b[oq1], b[oq2] = one, -one, one, -one
    blocks = {"x": ox, "y": oy, "p+": op1, "p-": om1, "q+": oq1, "q-": oq2, "end": size}
    rows_of = [["∅"] + sf.infoset_labels(i) for i in range(2)]
    names = ([f"x[{t}]" for t in sf.sequence_labels(0)] + [f"y[{t}]" for t in sf.sequence_labels(1)]
             + [f"{v}[{t}]" for v, i in (("p+", 0), ("p-", 0), ("q+", 1), ("q-", 1))
                for t in rows_of[i]])
    return SequenceFormLCP(size, indptr, row_of.astype(np.int64), data, b, blocks, exact, names)


# ------------------------------------------------------------------------------------ Lemke
@dataclass
class LemkeSolution:
    """z of the LCP at Lemke's end, with the path's length and final basis."""

    z: np.ndarray            # floats, or Fractions when exact
    pivots: int
    basis: np.ndarray        # variable per row: w_i = i, z_j = N + j, z_0 = 2N
    seconds: float
    arithmetic: str
    extra: dict = field(default_factory=dict)


def _covering_vector(lcp: SequenceFormLCP, start) -> np.ndarray:
    """d > 0: ones, or the user's ``lemke_start`` (integers over a common scale when exact)."""
    n = lcp.size
    if start is None:
        return np.ones(n, dtype=object) if lcp.exact else np.ones(n)
    values = list(start)
    if len(values) != n:
        raise OptionError(
            f"lemke_start must give {n} positive numbers (one per LCP row: x {lcp.blocks['y']}, "
            f"y {lcp.blocks['p+'] - lcp.blocks['y']}, then p⁺, p⁻, q⁺, q⁻ of "
            f"{(lcp.blocks['q+'] - lcp.blocks['p+']) // 2} and {(n - lcp.blocks['q+']) // 2}); "
            f"got {len(values)}")
    try:
        fractions = [to_fraction(v) for v in values]
    except (TypeError, ValueError):
        raise OptionError(f"lemke_start must hold numbers; got {start!r}") from None
    bad = [k for k, v in enumerate(fractions) if not v > 0]
    if bad:
        raise OptionError(f"lemke_start must be positive; entries {bad[:5]} are not")
    if not lcp.exact:
        return np.array([float(v) for v in fractions])
    scale = math.lcm(*[v.denominator for v in fractions])
    return np.array([int(v * int(scale)) for v in fractions], dtype=object)


class _Tableau:
    """B⁻¹ and β = B⁻¹b as one N × (N + 1) array (scaled by det(B) when exact)."""

    def __init__(self, lcp: SequenceFormLCP, covering: np.ndarray, fractions: bool = False):
        self.lcp = lcp
        self.n = n = lcp.size
        self.exact = lcp.exact
        self.fractions = fractions and lcp.exact       # Fraction entries, for the measurement
        self.covering = covering
        if self.exact:
            table = np.zeros((n, n + 1), dtype=object)
            table[:, :] = Fraction(0) if self.fractions else 0
            table[np.arange(n), np.arange(n)] = Fraction(1) if self.fractions else 1
            table[:, n] = [Fraction(v) for v in lcp.b] if self.fractions else lcp.b
            self.det = 1
        else:
            table = np.zeros((n, n + 1))
            table[np.arange(n), np.arange(n)] = 1.0
            table[:, n] = lcp.b
            self.det = 1.0
        self.table = table
        self.basis = np.arange(n)                     # w_i basic in row i
        self.row_of_variable = {i: i for i in range(n)}

    # variables: w_i = i, z_j = N + j, z_0 = 2N; their columns in [I, −M, −d]
    def column(self, var: int) -> np.ndarray:
        n, t = self.n, self.table
        if var < n:
            return t[:, var].copy()
        if var == 2 * n:
            return -(t[:, :n] @ self.covering)
        rows, vals = self.lcp.column(var - n)
        if len(rows) == 0:
            return np.zeros(n, dtype=t.dtype)
        return -(t[:, rows] @ vals)

    def pivot(self, row: int, entering: int, col: np.ndarray) -> None:
        leaving = int(self.basis[row])
        if self.exact and not self.fractions:
            self.table, self.det = integer_pivot(self.table, self.det, row, col)
        else:
            float_pivot(self.table, row, col)          # floats, or Fractions (det stays 1)
        self.basis[row] = entering
        del self.row_of_variable[leaving]
        self.row_of_variable[entering] = row

    def lexmin_row(self, candidates: np.ndarray, denominators: np.ndarray,
                   prefer: int | None = None) -> int:
        """The leaving row: (β_i, B⁻¹_i) / denominators_i lexicographically smallest; ``prefer``
        (z_0's row) wins ties of the first key, since z_0 leaving ends the path at once."""
        return lexmin_row(self.table, candidates, denominators, [self.n] + list(range(self.n)),
                          self.exact, FLOAT_PIVOT_TOLERANCE, prefer)

    def value(self, row: int):
        if self.exact:
            return Fraction(self.table[row, self.n], self.det)
        return float(self.table[row, self.n])


def lemke(lcp: SequenceFormLCP, covering=None, max_pivots: int | None = None,
          time_limit: float | None = None, fractions: bool = False,
          record_path: bool = False) -> LemkeSolution:
    """Lemke's algorithm with the lexicographic rule on ``lcp`` (module docstring).

    ``fractions=True`` (exact LCPs only) pivots on Fractions instead of integers: the same path,
    kept to measure the two (benchmarks/bench_general_sum.py). ``record_path=True`` keeps every
    pivot in ``extra["path"]``: the entering and leaving variables and z_0 after the pivot."""
    n = lcp.size
    check_prediction(f"Lemke's dense basis inverse ({n} × {n + 1}, "
                     f"{'exact integers' if lcp.exact else 'float64'})",
                     BYTES_PER_TABLEAU_ENTRY[lcp.exact] * n * (n + 1))
    start = time.perf_counter()
    d = _covering_vector(lcp, covering)
    tab = _Tableau(lcp, d, fractions)
    z0 = 2 * n
    max_pivots = max_pivots if max_pivots is not None else 1000 * n + 10_000
    b = lcp.b
    if all(v >= 0 for v in b.tolist()):          # z = 0 solves it (cannot happen here: b[p⁻∅] < 0)
        zero = [Fraction(0)] * n if lcp.exact else np.zeros(n)
        return LemkeSolution(np.array(zero, dtype=object if lcp.exact else float), 0,
                             tab.basis.copy(), 0.0, _arithmetic(lcp.exact))
    # first step: z_0 enters at the smallest value making w = b + d z_0 ≥ 0 (lexicographically)
    rows = np.arange(n)
    row = tab.lexmin_row(rows, d.copy())
    col = tab.column(z0)
    entering_of_leaving = int(tab.basis[row])
    tab.pivot(row, z0, col)
    pivots = 1
    path = [] if record_path else None
    if record_path:
        path.append(_step(lcp, tab, 1, z0, entering_of_leaving))
    entering = _complement(entering_of_leaving, n)
    while True:
        if pivots >= max_pivots:
            raise SolverError(f"Lemke's algorithm stopped after {pivots} pivots (max_pivots) without "
                              f"an equilibrium; LCP of size {n}", status="pivot limit",
                              size={"rows": n, "cols": n, "nnz": lcp.nnz})
        if time_limit is not None and time.perf_counter() - start > time_limit:
            raise SolverTimeLimitError(
                f"Lemke's algorithm hit the time limit of {time_limit} s after {pivots} pivots; "
                "Lemke has no partial answer (its intermediate points are not equilibria)",
                status="time limit", size={"rows": n, "cols": n, "nnz": lcp.nnz})
        col = tab.column(entering)
        positive = col > (0 if lcp.exact else FLOAT_PIVOT_TOLERANCE * max(1.0, np.abs(col).max()))
        candidates = np.flatnonzero(positive)
        if len(candidates) == 0:
            raise SolverError(
                f"Lemke's algorithm ended on a secondary ray after {pivots} pivots (LCP of size {n});"
                " with negative payoffs this cannot happen in exact arithmetic: in floating point "
                "use exact=True", status="ray", size={"rows": n, "cols": n, "nnz": lcp.nnz})
        z0_row = tab.row_of_variable.get(z0)
        row = tab.lexmin_row(candidates, col[candidates], prefer=z0_row)
        leaving = int(tab.basis[row])
        tab.pivot(row, entering, col)
        pivots += 1
        if record_path:
            path.append(_step(lcp, tab, pivots, entering, leaving))
        if leaving == z0:
            break
        entering = _complement(leaving, n)
    z = _solution(tab, lcp)
    return LemkeSolution(z, pivots, tab.basis.copy(), time.perf_counter() - start,
                         "exact: Fractions" if tab.fractions else _arithmetic(lcp.exact),
                         extra={"path": path} if record_path else {})


def _step(lcp: SequenceFormLCP, tab: _Tableau, k: int, entering: int, leaving: int) -> dict:
    row = tab.row_of_variable.get(2 * lcp.size)
    return {"pivot": k, "entering": lcp.variable_name(entering),
            "leaving": lcp.variable_name(leaving), "z0": 0 if row is None else tab.value(row)}


def _complement(var: int, n: int) -> int:
    return var + n if var < n else var - n


def _arithmetic(exact: bool) -> str:
    return ("exact: integer (fraction-free) pivoting" if exact
            else "floating point, lexicographic minimum-ratio rule")


def _solution(tab: _Tableau, lcp: SequenceFormLCP) -> np.ndarray:
    """z at the final basis: exact from the array; in floats re-solved by sparse LU of B."""
    n = lcp.size
    if lcp.exact:
        z = np.array([Fraction(0)] * n, dtype=object)
        for row, var in enumerate(tab.basis.tolist()):
            if n <= var < 2 * n:
                z[var - n] = tab.value(row)
        return z
    # B's columns: e_i for w_i, −M_{·j} for z_j
    cols_rows, cols_cols, cols_vals = [], [], []
    for row, var in enumerate(tab.basis.tolist()):
        if var < n:
            cols_rows.append(np.array([var]))
            cols_vals.append(np.array([1.0]))
        else:
            r, v = lcp.column(var - n)
            cols_rows.append(r)
            cols_vals.append(-v.astype(float))
        cols_cols.append(np.full(len(cols_rows[-1]), row))
    basis = sp.csc_array((np.concatenate(cols_vals),
                          (np.concatenate(cols_rows), np.concatenate(cols_cols))), shape=(n, n))
    import scipy.sparse.linalg as spla  # only here: costly to import

    try:
        values = spla.spsolve(basis, lcp.b.astype(float))
    except RuntimeError:                                  # singular in floating point
        values = np.array([tab.value(r) for r in range(n)])
    if not np.all(np.isfinite(values)):
        values = np.array([tab.value(r) for r in range(n)])
    z = np.zeros(n)
    for row, var in enumerate(tab.basis.tolist()):
        if n <= var < 2 * n:
            z[var - n] = max(values[row], 0.0)
    return z


# ------------------------------------------------------------------------------------ the concept
@dataclass
class LemkeEquilibrium:
    """Both players' realization plans at Lemke's end, and the run's statistics."""

    plans: list
    lcp: SequenceFormLCP
    solution: LemkeSolution


def lemke_equilibrium(sf: SequenceForm, exact: bool = False, lemke_start=None,
                      max_pivots: int | None = None,
                      time_limit: float | None = None) -> LemkeEquilibrium:
    """Realization plans (x, y) of a Nash equilibrium found by Lemke's algorithm."""
    if not exact:       # refuse by name what floats cannot carry (exact mode takes it)
        from lpgame.lp.scaling import check_float_payoffs, float_bounds
        check_float_payoffs(*float_bounds(sf.terminal_payoffs), sf.game.name)
    lcp = sequence_form_lcp(sf, exact=exact)
    solution = lemke(lcp, covering=lemke_start, max_pivots=max_pivots, time_limit=time_limit)
    z = solution.z
    x = z[lcp.blocks["x"]:lcp.blocks["y"]]
    y = z[lcp.blocks["y"]:lcp.blocks["p+"]]
    plans = [list(x), list(y)] if exact else [np.asarray(x, dtype=float), np.asarray(y, dtype=float)]
    if exact:
        for i, plan in enumerate(plans):
            if plan[0] != 1:
                raise ExactCheckError(f"exact Lemke: player {i + 1}'s plan has x[∅] = {plan[0]}")
    return LemkeEquilibrium(plans, lcp, solution)


def solver_report(exact: bool, what: str) -> dict:
    """The ``solver`` field of a result computed by lpgame's own pivoting (no LP solver)."""
    return {"name": what, "backend": "lpgame (numpy pivoting, no LP solver)",
            "exact_certification": exact}


def solve_lemke(game, *, exact: bool = False, backend: str = "highs", lemke_start=None,
                max_pivots: int | None = None, time_limit: float | None = None,
                **solver_options) -> Result:
    """``concept="nash"`` on a two-player general-sum game: one equilibrium by Lemke's algorithm,
    certified by best responses (exactly 0 NashConv when ``exact``)."""
    from lpgame.compile import compile_game

    started = time.perf_counter()
    sf = compile_game(game)
    if sf.num_players != 2:
        raise ConceptMismatchError(
            f"{sf.game.name}: Lemke's algorithm finds Nash equilibria of two-player games; the game "
            f"has {sf.num_players} players (concepts for n players: 'ce', 'cce', 'efce', 'efcce')")
    found = lemke_equilibrium(sf, exact=exact, lemke_start=lemke_start, max_pivots=max_pivots,
                              time_limit=time_limit)
    strategies, unreached, plans, ev, _ = certified_profile(sf, found.plans, exact)
    if exact and ev.nash_conv != 0:
        raise ExactCheckError(f"exact Lemke ended at a profile with NashConv {ev.nash_conv}, not 0")
    if not exact:
        allowed = FLOAT_NASH_CONV_TOLERANCE * max(sf.game.payoff_range(), 1e-300)
        if not ev.nash_conv <= allowed:
            raise SolverError(
                f"floating-point Lemke on {sf.game.name} ended at a profile with NashConv "
                f"{ev.nash_conv:.3g} (more than {allowed:.3g}, 1e-6 of the payoff range): the "
                "pivoting lost accuracy; use exact=True", status="inaccurate")
    cert = Certificate(ev.nash_conv, ev.exploitability, ev.best_response_gain, exact)
    lcp, sol = found.lcp, found.solution
    return Result(
        game=sf.game.name, concept="nash", variant="lemke", value=ev.values[0],
        values=list(ev.values), strategies=strategies, certificate=cert,
        size={"rows": lcp.size, "cols": lcp.size, "nnz": lcp.nnz},
        seconds={"solve": sol.seconds, "total": time.perf_counter() - started},
        backend=backend, exact=exact, unreached=unreached, plans=plans,
        solver=solver_report(exact, f"Lemke's algorithm ({sol.arithmetic})"),
        extra={"lemke": {"pivots": sol.pivots, "arithmetic": sol.arithmetic, "lcp_size": lcp.size,
                         "covering_vector": "ones" if lemke_start is None else "lemke_start",
                         "source": "Koller, Megiddo & von Stengel 1996 (sequence-form LCP)"}})


register(Concept(
    name="nash", variant="lemke", games=("general_sum",), solve=solve_lemke,
    summary="one Nash equilibrium of a two-player general-sum game by Lemke's algorithm on the "
            "sequence-form LCP",
    certificate="each player's best-response gain against the returned profile and their sum "
                "(general-sum NashConv), by the independent best-response path",
    source="Koller, Megiddo & von Stengel 1996 (GEB 14); Farina 2023, Lemma 12.2 with ε = 0",
    options=(
        Option("lemke_start", tuple, None,
               "covering vector of Lemke's algorithm (N positive numbers, one per LCP row: x, y, "
               "p+, p-, q+, q-); default all ones"),
        Option("max_pivots", int, None, "stop with an error after this many pivots "
                                        "(default 1000·N + 10,000)", minimum=1),
    ),
    certify_plans=certify_nash_plans,
))
