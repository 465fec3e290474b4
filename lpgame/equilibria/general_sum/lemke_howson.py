"""Nash equilibria of a bimatrix game by the Lemke–Howson algorithm on the strategic form.

Formulation (Lemke & Howson 1964, "Equilibrium points of bimatrix games", SIAM J. Appl. Math. 12;
Shapley 1974, "A note on the Lemke–Howson algorithm", Math. Programming Study 1; von Stengel,
"Computing equilibria for two-person games", Handbook of Game Theory 3, 2002, §3). For an m × n
game (A, B), shifted so that A > 0 and B > 0 (which changes no best response), the two labelled
best-response polytopes are

    P = { x ∈ R^m :  x ≥ 0,  Bᵀx ≤ 1 },        Q = { y ∈ R^n :  A y ≤ 1,  y ≥ 0 },

with labels 1..m for player 1's strategies and m+1..m+n for player 2's: x ∈ P has label i when
x_i = 0 and label m+j when (Bᵀx)_j = 1; y ∈ Q has label i when (Ay)_i = 1 and label m+j when
y_j = 0. A pair (x, y) ∈ P × Q other than (0, 0) that has every label is a Nash equilibrium after
normalising x/Σx and y/Σy (every pure strategy is unplayed or a best response); (0, 0) is the
*artificial equilibrium*.

The algorithm: from (0, 0), drop the chosen label k (the variable of label k enters the basis of
its polytope), and alternately in P and Q bring in the variable of the label that just left the
other polytope (complementary pivoting), each step by the minimum-ratio test, until the label that
leaves is k itself: the pair then has every label, an equilibrium. P and Q are bounded (A, B > 0),
so every step has a leaving variable; the path never revisits a vertex pair (Shapley 1974), so it
ends. Each polytope is a tableau of {v ≥ 0, Cv + s = 1} (C = Bᵀ for P, C = A for Q).

Degenerate games are handled by the **lexicographic minimum-ratio rule** (von Stengel 2002, §3.7):
the right-hand side 1 is perturbed to 1 + (ε, ε², …), which makes both polytopes simple; the
leaving row minimises (β_i, (B⁻¹)_i) / α_i lexicographically, where β is the basic solution, α
the entering column and B⁻¹ the columns of the slacks s. Every step is then unique and the path
of the perturbed game, which is nondegenerate, is followed to one of its equilibria, whose
unperturbed point is an equilibrium of the game.

Arithmetic:

* ``exact=True``: **integer pivoting** (Edmonds 1967; Bareiss 1968; von Stengel 2002, §3.5). The
  payoffs are scaled to integers; each tableau is kept as det(B)·B⁻¹[C | I | 1] restricted to the
  nonbasic columns and the right-hand side (Tucker's compact form), all Python integers (numpy
  object arrays). A pivot on row r with entering nonbasic column α, old determinant d, is
  T_ij ← (α_r T_ij − α_i T_rj) / d for i ≠ r (every division exact, the entries are minors),
  row r unchanged, the leaving variable's new column −α_i (i ≠ r) and d at row r, and d ← α_r > 0.
  Points are Fractions; no gcd is computed during the path.
* ``exact=False``: the same compact tableau in float64, payoffs mapped affinely to [1, 2], ratio
  ties within a relative 1e-9; at the end the basic solution is re-solved from the original data
  (a dense LU of each basis), and a profile whose NashConv exceeds 1e-6 of the payoff range raises
  :class:`~lpgame.errors.SolverError` (use ``exact=True``), never a wrong answer.

**All labels** (``all_labels=True``, as Gambit's ``lcp_solve`` does): from the artificial
equilibrium and, in turn, from every equilibrium found, the path of every label is followed; the
distinct equilibria at the paths' ends are those of the Lemke–Howson graph's component that holds
the artificial equilibrium (Shapley 1974), not always all equilibria (vertex enumeration,
``enumerate=True``, finds every one).

Measured (``python -m benchmarks.bench_lemke_howson --full``, random n × n games, payoffs to 10^6,
label 1, the same end as Gambit's ``lcp_solve(stop_after=1)``): float 1.2–34× faster than
Gambit's float path for n = 10–100; exact 1.7–4.9× faster than Gambit's rational path (84 s
against 29 s on the longest path at n = 80; past 90 s against 48 s on one game at n = 100).
The ``all_labels`` search in floats is 2–8× slower than Gambit's C++ (Python's cost per pivot on
short paths) but for one 20 × 20 game where Gambit ran past 90 s (1.8 s here); in exact mode 4–6×
faster (23 s where Gambit ran past 90 s: n = 20, 171 equilibria).

Every answer is certified by lpgame's independent best-response path (:mod:`lpgame.analysis`, via
:func:`lpgame.equilibria.profiles.certified_profile`): NashConv exactly 0 in exact mode, at most
1e-6 of the payoff range in floating point.
"""

from __future__ import annotations

import numbers
import time
from collections import deque
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from lpgame.equilibria.general_sum.lemke import solver_report
from lpgame.equilibria.profiles import certified_profile
from lpgame.errors import (
    ConceptMismatchError,
    ExactCheckError,
    InvalidGameError,
    OptionError,
    SolverError,
)
from lpgame.io.json_io import number_to_json, strategies_to_json
from lpgame.rational import common_denominator, float_or_infinity, to_fraction
from lpgame.registry import Concept, Option, register
from lpgame.result import Result, format_number, register_result_kind

#: Relative tolerance of the floating-point ratio test.
FLOAT_PIVOT_TOLERANCE = 1e-9
#: A floating-point answer must have NashConv at most this fraction of the payoff range.
FLOAT_NASH_CONV_TOLERANCE = 1e-6
#: Default cap on the equilibria visited by ``all_labels`` (each costs m + n paths).
DEFAULT_MAX_EQUILIBRIA = 1000

SOURCE = ("Lemke & Howson 1964; Shapley 1974; von Stengel 2002 (Handbook of Game Theory 3, §3: "
          "integer pivoting, lexicographic rule)")


# ------------------------------------------------------------------------------------ a polytope
class LabelledTableau:
    """The compact tableau of {v ≥ 0, Cv + s = 1} (module docstring), C a k × d matrix.

    Variables are numbered 0..d−1 (the columns of C) and d..d+k−1 (the slacks); ``label[v]`` is the
    0-based label of variable v. ``table`` is k × (d + 1): column j < d belongs to the nonbasic
    variable ``nonbasic[j]``, column d is the right-hand side; ``basis[i]`` is the variable basic
    in row i; ``place[v]`` is v's row when basic, else −1 − its column. In exact mode the entries
    are det·(the tableau), Python integers, with ``det`` > 0; in floating point ``det`` is 1.
    """

    def __init__(self, matrix: np.ndarray, label: list[int], exact: bool):
        k, d = matrix.shape
        self.rows, self.dim, self.exact = k, d, exact
        self.table = np.empty((k, d + 1), dtype=object if exact else float)
        self.table[:, :d] = matrix
        self.table[:, d] = 1
        self.det = 1
        self.basis = list(range(d, d + k))
        self.nonbasic = list(range(d))
        self.place = list(range(-1, -d - 1, -1)) + list(range(k))
        self.label = label
        self.variable_of_label = {lab: v for v, lab in enumerate(label)}

    def copy(self) -> LabelledTableau:
        other = object.__new__(LabelledTableau)
        other.__dict__.update(self.__dict__)
        other.table = self.table.copy()
        other.basis, other.nonbasic, other.place = list(self.basis), list(self.nonbasic), \
            list(self.place)
        return other

    def has_nonbasic_label(self, lab: int) -> bool:
        return self.place[self.variable_of_label[lab]] < 0

    def enter(self, lab: int) -> int:
        """Pivot the (nonbasic) variable of label ``lab`` into the basis; the label that leaves."""
        var = self.variable_of_label[lab]
        column = -1 - self.place[var]
        alpha = self.table[:, column].copy()
        row = self.leaving_row(alpha)
        leaving = self.basis[row]
        if self.exact:
            self._integer_pivot(row, column, alpha)
        else:
            self._float_pivot(row, column, alpha)
        self.basis[row], self.nonbasic[column] = var, leaving
        self.place[var], self.place[leaving] = row, -1 - column
        return self.label[leaving]

    def _integer_pivot(self, row: int, column: int, alpha: np.ndarray) -> None:
        t, det, pivot = self.table, self.det, alpha[row]
        new = (t * pivot - np.outer(alpha, t[row])) // det
        new[row] = t[row]
        new[:, column] = -alpha
        new[row, column] = det
        self.table, self.det = new, pivot

    def _float_pivot(self, row: int, column: int, alpha: np.ndarray) -> None:
        t, pivot = self.table, alpha[row]
        pivot_row = t[row] / pivot
        t -= alpha[:, None] * pivot_row
        t[row] = pivot_row
        t[:, column] = alpha / -pivot
        t[row, column] = 1.0 / pivot

    def leaving_row(self, alpha: np.ndarray) -> int:
        """The lexicographic minimum-ratio row for entering column ``alpha`` (module docstring)."""
        if self.exact:
            candidates = [i for i, a in enumerate(alpha.tolist()) if a > 0]
            if len(candidates) > 1:
                candidates = self._smallest_ratios(candidates, self.dim, alpha)
        else:       # the first key in numpy alone: it decides nearly every float step
            high = max(float(alpha.max()), -float(alpha.min()), 1.0)
            rows = np.flatnonzero(alpha > FLOAT_PIVOT_TOLERANCE * high)
            if len(rows) > 1:
                ratios = self.table[rows, self.dim] / alpha[rows]
                low = float(ratios.min())
                rows = rows[ratios <= low + FLOAT_PIVOT_TOLERANCE * max(1.0, abs(low))]
            candidates = rows.tolist()
        if not candidates:
            raise SolverError("Lemke–Howson: an unbounded edge, impossible on the bounded "
                              "polytopes of positive payoffs; in floating point use exact=True",
                              status="ray")
        for key in range(self.dim, self.dim + self.rows):      # ties: the slacks' B⁻¹ columns
            if len(candidates) == 1:
                break
            if self.place[key] >= 0:
                # a basic slack's B⁻¹ column is det·e_row: ratio 0 except in its own row
                own = self.place[key]
                if own in candidates:
                    candidates.remove(own)
                continue
            candidates = self._smallest_ratios(candidates, -1 - self.place[key], alpha)
        return candidates[0]

    def _smallest_ratios(self, candidates: list[int], column: int, alpha) -> list[int]:
        values = self.table[candidates, column]
        dens = alpha[candidates]
        if self.exact:        # a/d < b/e ⇔ a·e < b·d (d, e > 0): no gcds
            nums, dens = values.tolist(), dens.tolist()
            best = 0
            for i in range(1, len(nums)):
                if nums[i] * dens[best] < nums[best] * dens[i]:
                    best = i
            return [c for c, a, d in zip(candidates, nums, dens)
                    if a * dens[best] == nums[best] * d]
        ratios = values / dens
        low = ratios.min()
        keep = ratios <= low + FLOAT_PIVOT_TOLERANCE * max(1.0, abs(low))
        return [c for c, k in zip(candidates, keep.tolist()) if k]

    def point(self, matrix: np.ndarray) -> list:
        """The values of variables 0..d−1: Fractions (exact) or floats re-solved from ``matrix``."""
        d = self.dim
        out = [Fraction(0) if self.exact else 0.0] * d
        if self.exact:
            for row, var in enumerate(self.basis):
                if var < d:
                    out[var] = Fraction(self.table[row, d], self.det)
            return out
        # the basic columns of C against the tight constraints (nonbasic slacks): C_TS x_S = 1,
        # a square system of the support's size, re-solved from the data by a dense LU
        support = [(row, var) for row, var in enumerate(self.basis) if var < d]
        tight = [i for i in range(self.rows) if self.place[d + i] < 0]
        values = None
        if support:
            try:
                values = np.linalg.solve(matrix[np.ix_(tight, [v for _, v in support])],
                                         np.ones(len(support)))
            except np.linalg.LinAlgError:
                values = None
        if values is None or not np.all(np.isfinite(values)):
            values = [self.table[row, d] for row, _ in support]     # the tableau's own values
        for (_, var), value in zip(support, values):
            out[var] = max(float(value), 0.0)
        return out

    def key(self) -> frozenset:
        return frozenset(self.basis)


# ------------------------------------------------------------------------------------ the game
@dataclass
class Bimatrix:
    """A bimatrix game prepared for Lemke–Howson: the payoffs (original, exact or float) and the
    positive matrices of P's and Q's constraints."""

    a: np.ndarray             # original payoffs (Fractions when exact, else floats)
    b: np.ndarray
    constraints_p: np.ndarray  # Bᵀ shifted positive (n × m)
    constraints_q: np.ndarray  # A shifted positive (m × n)
    exact: bool

    @property
    def shape(self) -> tuple[int, int]:
        return self.a.shape


def prepare_bimatrix(a, b, exact: bool) -> Bimatrix:
    """Check (A, B) and shift each positive: integers A·D − min + 1 (exact) or (A − min)/range + 1."""
    try:
        arrays = [np.array(x, dtype=object) for x in (a, b)]
    except (TypeError, ValueError):
        raise InvalidGameError("Lemke–Howson needs two payoff matrices of numbers") from None
    if arrays[0].ndim != 2 or arrays[0].shape != arrays[1].shape or 0 in arrays[0].shape:
        raise InvalidGameError(f"Lemke–Howson needs two non-empty m × n payoff matrices of one "
                               f"shape; got shapes {arrays[0].shape} and {arrays[1].shape}")
    shifted = []
    if exact:
        try:
            exact_arrays = [np.array([to_fraction(v) for v in x.ravel().tolist()], dtype=object)
                            .reshape(x.shape) for x in arrays]
        except (TypeError, ValueError):
            raise InvalidGameError("Lemke–Howson: payoffs must be numbers") from None
        for x in exact_arrays:
            integers, _ = common_denominator(x.ravel().tolist())
            low = min(integers.tolist())
            shifted.append((integers - low + 1).reshape(x.shape))
        originals = exact_arrays
    else:
        try:
            originals = [x.astype(float) for x in arrays]
        except (TypeError, ValueError, OverflowError):
            raise InvalidGameError("Lemke–Howson: payoffs must be numbers") from None
        if not all(np.all(np.isfinite(x)) for x in originals):
            raise InvalidGameError("Lemke–Howson: payoffs must be finite")
        for x in originals:
            low, spread = float(x.min()), float(x.max() - x.min())
            shifted.append((x - low) / (spread if spread > 0 else 1.0) + 1.0)
    return Bimatrix(originals[0], originals[1], shifted[1].T.copy(), shifted[0].copy(), exact)


@dataclass
class LabelledEquilibrium:
    """An equilibrium at the end of a Lemke–Howson path: mixed strategies (normalised; Fractions
    when exact), the path's pivots and the label dropped."""

    strategies: list[list]
    pivots: int
    label: int                 # 1-based, as the user gives it
    bases: tuple = field(default=(), repr=False)


def _polytopes(game: Bimatrix) -> tuple[LabelledTableau, LabelledTableau]:
    m, n = game.shape
    # P: x_i has label i, slack s_j of (Bᵀx)_j ≤ 1 label m + j; Q: y_j label m + j, slack r_i label i
    p = LabelledTableau(game.constraints_p, list(range(m + n)), game.exact)
    q = LabelledTableau(game.constraints_q, [m + j for j in range(n)] + list(range(m)), game.exact)
    return p, q


def follow_path(p: LabelledTableau, q: LabelledTableau, label: int, max_pivots: int) -> int:
    """Complementary pivoting from the completely labelled pair (p, q), dropping ``label``
    (0-based), to the pair at the path's other end; the number of pivots."""
    tableau = p if p.has_nonbasic_label(label) else q
    entering, pivots = label, 0
    while True:
        if pivots >= max_pivots:
            raise SolverError(f"Lemke–Howson stopped after {pivots} pivots (max_pivots) without "
                              "an equilibrium", status="pivot limit")
        leaving = tableau.enter(entering)
        pivots += 1
        if leaving == label:
            return pivots
        tableau = q if tableau is p else p
        entering = leaving


def _mixed(values: list, exact: bool) -> list:
    total = sum(values, Fraction(0) if exact else 0.0)
    if not total > 0:
        raise SolverError("Lemke–Howson ended at the artificial equilibrium", status="artificial")
    return [v / total for v in values]


def _equilibrium(game: Bimatrix, p: LabelledTableau, q: LabelledTableau, pivots: int,
                 label: int) -> LabelledEquilibrium:
    x = p.point(game.constraints_p)
    y = q.point(game.constraints_q)
    return LabelledEquilibrium([_mixed(x, game.exact), _mixed(y, game.exact)], pivots, label + 1,
                               (p.key(), q.key()))


def _default_max_pivots(game: Bimatrix) -> int:
    m, n = game.shape
    return 1000 * (m + n) + 10_000


def check_label(label, m: int, n: int) -> int:
    """``label`` as a 0-based integer, or :class:`OptionError` (labels are 1..m+n)."""
    if isinstance(label, bool) or not isinstance(label, numbers.Integral):
        raise OptionError(f"label must be an integer from 1 to {m + n} (1..{m} player 1's "
                          f"strategies, {m + 1}..{m + n} player 2's); got {label!r}")
    if not 1 <= int(label) <= m + n:
        raise OptionError(f"label must be from 1 to {m + n} for this {m} × {n} game (1..{m} player "
                          f"1's strategies, {m + 1}..{m + n} player 2's); got {label}")
    return int(label) - 1


def lemke_howson(a, b, label: int = 1, exact: bool = False,
                 max_pivots: int | None = None) -> LabelledEquilibrium:
    """One equilibrium of the bimatrix game (A, B) by the path of ``label`` (1..m+n) from the
    artificial equilibrium (module docstring); not yet certified (see :func:`solve_lemke_howson`)."""
    game = a if isinstance(a, Bimatrix) else prepare_bimatrix(a, b, exact)
    m, n = game.shape
    dropped = check_label(label, m, n)
    p, q = _polytopes(game)
    pivots = follow_path(p, q, dropped, max_pivots or _default_max_pivots(game))
    return _equilibrium(game, p, q, pivots, dropped)


def lemke_howson_all(a, b, exact: bool = False, max_pivots: int | None = None,
                     max_equilibria: int = DEFAULT_MAX_EQUILIBRIA) -> list[LabelledEquilibrium]:
    """The distinct equilibria reachable by Lemke–Howson paths: every label from the artificial
    equilibrium, then every label from each equilibrium found (module docstring), in the order
    found. Paths are followed from at most ``max_equilibria`` vertex pairs; past that, the list
    holds what was found."""
    game = a if isinstance(a, Bimatrix) else prepare_bimatrix(a, b, exact)
    m, n = game.shape
    limit = max_pivots or _default_max_pivots(game)
    start = _polytopes(game)
    seen = {(start[0].key(), start[1].key())}
    queue = deque([start])
    found, points = [], set()
    while queue:
        p0, q0 = queue.popleft()
        for label in range(m + n):
            p, q = p0.copy(), q0.copy()
            pivots = follow_path(p, q, label, limit)
            key = (p.key(), q.key())
            if key in seen:
                continue
            seen.add(key)
            if all(v >= p.dim for v in p.basis):          # x = 0: the artificial equilibrium
                continue
            if len(seen) <= max_equilibria:
                queue.append((p, q))
            eq = _equilibrium(game, p, q, pivots, label)
            point = _point_key(eq, exact)
            if point not in points:
                points.add(point)
                found.append(eq)
    return found


def _point_key(eq: LabelledEquilibrium, exact: bool) -> tuple:
    if exact:
        return tuple(tuple(s) for s in eq.strategies)
    return tuple(tuple(round(float(v), 9) for v in s) for s in eq.strategies)


def nash_conv_bimatrix(a: np.ndarray, b: np.ndarray, x, y):
    """Σ_i (best-response payoff − payoff) of (x, y) in (A, B): Fractions when the data are."""
    ay, xb = a.dot(np.asarray(y, dtype=a.dtype)), np.asarray(x, dtype=b.dtype).dot(b)
    x_arr = np.asarray(x, dtype=a.dtype)
    y_arr = np.asarray(y, dtype=b.dtype)
    return (max(ay.tolist()) - x_arr.dot(ay)) + (max(xb.tolist()) - xb.dot(y_arr))


# ------------------------------------------------------------------------------------ the concept
@register_result_kind
@dataclass(kw_only=True)
class LabelledEquilibriaResult(Result):
    """``all_labels=True``: every distinct equilibrium found (``extra["equilibria"]``, each with
    its label, strategies, values and certificate); ``strategies``, ``values`` and
    ``certificate`` are the first one's. Printed as the list of equilibria."""

    kind = "lemke_howson_equilibria"

    def headline(self) -> str:
        count = len(self.extra.get("equilibria", []))
        return (f"{self.game}: nash, {count} equilibri{'um' if count == 1 else 'a'} reached by "
                "Lemke–Howson paths from every label")

    def body_lines(self, names: list[str], decimals: int | None = None, **options) -> list[str]:
        lines = []
        for entry in self.extra.get("equilibria", []):
            values = ", ".join(f"{name} {format_number(_number(v), 6, decimals)}"
                               for name, v in zip(names, entry["values"]))
            lines.append("")
            lines.append(f"equilibrium {entry['index'] + 1} (label {entry['label']}): {values}; "
                         f"NashConv {format_number(_number(entry['nash_conv']), 6, decimals)}")
            for name, strategy in zip(names, entry["strategies"]):
                for row in strategy.values():
                    lines.append(f"  {name}: " + "  ".join(
                        f"{a}={format_number(_number(p), 4, decimals)}" for a, p in row.items()))
        return lines


def _number(text):
    return Fraction(text) if isinstance(text, str) else text


def _normal_form_payoffs(game, exact: bool) -> tuple[np.ndarray, np.ndarray]:
    from lpgame.game.normal_form import NormalFormGame
    if not isinstance(game, NormalFormGame) or game.num_players != 2:
        raise ConceptMismatchError(
            f"{getattr(game, 'name', game)}: Lemke–Howson (method='lemke_howson') takes a "
            "two-player game in normal form (a bimatrix game); for extensive games use "
            "concept 'nash' without a method (Lemke's algorithm on the sequence form)")
    return game.payoffs[0], game.payoffs[1]


def _plans(strategies: list[list], exact: bool) -> list:
    """Realization plans of the one-level extensive form: the empty sequence, then the mix."""
    if exact:
        return [[Fraction(1)] + list(s) for s in strategies]
    return [np.concatenate([[1.0], np.asarray(s, dtype=float)]) for s in strategies]


def _certify(sf, eq: LabelledEquilibrium, exact: bool, spread) -> tuple:
    """(strategies, unreached, plans, evaluation, certificate) of ``eq`` by the independent
    best-response path, or an error when it is not an equilibrium (to the tolerance in floats)."""
    strategies, unreached, plans, ev, cert = certified_profile(sf, _plans(eq.strategies, exact),
                                                               exact)
    if exact and ev.nash_conv != 0:
        raise ExactCheckError(f"exact Lemke–Howson (label {eq.label}) ended at a profile with "
                              f"NashConv {ev.nash_conv}, not 0")
    if not exact:
        allowed = FLOAT_NASH_CONV_TOLERANCE * max(float(spread), 1e-300)
        if not ev.nash_conv <= allowed:
            raise SolverError(
                f"floating-point Lemke–Howson (label {eq.label}) ended at a profile with NashConv "
                f"{ev.nash_conv:.3g} (more than {allowed:.3g}, 1e-6 of the payoff range): the "
                "pivoting lost accuracy; use exact=True", status="inaccurate")
    return strategies, unreached, plans, ev, cert


def solve_lemke_howson(game, *, exact: bool = False, backend: str = "highs",
                       method: str = "lemke_howson", label: int = 1, all_labels: bool = False,
                       max_pivots: int | None = None, **solver_options) -> Result:
    """``concept="nash", method="lemke_howson"`` on a bimatrix game: the equilibrium at the end of
    ``label``'s path, or (``all_labels``) every equilibrium reached from every label, each
    certified by best responses (exactly 0 NashConv when ``exact``)."""
    from lpgame.compile import compile_game
    from lpgame.equilibria.profiles import payoff_range

    started = time.perf_counter()
    a, b = _normal_form_payoffs(game, exact)
    m, n = a.shape
    if max_pivots is not None and max_pivots < 1:
        raise OptionError(f"max_pivots must be positive; got {max_pivots}")
    if not all_labels:
        check_label(label, m, n)
    elif label != 1:
        raise OptionError("label and all_labels exclude each other: all_labels follows the path "
                          f"of every label; got label={label!r}")
    if not exact:       # refuse by name what floats cannot carry (exact mode takes it)
        from lpgame.lp.scaling import check_float_payoffs
        values = [float_or_infinity(v) for v in a.ravel().tolist() + b.ravel().tolist()]
        check_float_payoffs(min(values), max(values), game.name)
    bimatrix = prepare_bimatrix(a, b, exact)
    found = (lemke_howson_all(bimatrix, None, exact, max_pivots) if all_labels
             else [lemke_howson(bimatrix, None, label, exact, max_pivots)])
    solved = time.perf_counter()
    sf = compile_game(game)
    spread = payoff_range(sf, exact)
    certified = [_certify(sf, eq, exact, spread) for eq in found]
    strategies, unreached, plans, ev, cert = certified[0]
    cert.extra["equilibria_certified"] = len(certified)
    details = {"method": "Lemke–Howson on the strategic form (complementary pivoting on the "
                         "best-response polytopes, lexicographic rule)",
               "arithmetic": ("exact: integer (fraction-free) pivoting" if exact
                              else "floating point, lexicographic minimum-ratio rule"),
               "pivots": [eq.pivots for eq in found], "labels": [eq.label for eq in found],
               "source": SOURCE}
    common = dict(
        game=game.name, concept="nash", variant="lemke_howson", value=ev.values[0],
        values=list(ev.values), strategies=strategies, certificate=cert,
        size={"rows": m, "cols": n, "nnz": m * n},
        seconds={"solve": solved - started, "total": time.perf_counter() - started},
        backend=backend, exact=exact, unreached=unreached, plans=plans,
        solver=solver_report(exact, "Lemke–Howson (" + details["arithmetic"] + ")"))
    if not all_labels:
        return Result(**common, extra={"lemke_howson": details})
    listed = [{"index": k, "label": eq.label, "strategies": strategies_to_json(c[0]),
               "values": [number_to_json(v) for v in c[3].values],
               "best_response_gain": [number_to_json(g) for g in c[3].best_response_gain],
               "nash_conv": number_to_json(c[3].nash_conv)}
              for k, (eq, c) in enumerate(zip(found, certified))]
    return LabelledEquilibriaResult(**common, extra={"lemke_howson": details, "equilibria": listed})


register(Concept(
    name="nash", variant="lemke_howson", games=("normal_form",),
    requires=("method=lemke_howson",), solve=solve_lemke_howson,
    summary="one Nash equilibrium of a bimatrix (two-player normal-form) game by the "
            "Lemke–Howson algorithm from a chosen label, or the equilibria reached from every label",
    certificate="each player's best-response gain against the returned profile and their sum "
                "(NashConv; exactly 0 in exact mode), by the independent best-response path",
    source=SOURCE,
    options=(
        Option("method", str, None, "lemke_howson: the Lemke–Howson algorithm on the strategic "
                                    "form (bimatrix games)", choices=("lemke_howson",)),
        Option("label", int, 1, "the label dropped from the artificial equilibrium (method "
                                "lemke_howson): 1..m for player 1's strategies, m+1..m+n for "
                                "player 2's"),
        Option("all_labels", bool, False, "follow the path of every label from the artificial "
                                          "equilibrium and from every equilibrium found, and list "
                                          "the distinct equilibria (method lemke_howson)"),
        Option("max_pivots", int, None, "stop with an error after this many pivots "
                                        "(default 1000·(m+n) + 10,000 per path)"),
    ),
    backends=("highs", "pyomo", "cvxpy"),
))
