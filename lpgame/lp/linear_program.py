"""A linear program as named blocks of variables and constraints over sparse matrices.

A formulation is written once, block by block, in the shape of the equations of the paper it comes
from, e.g. the sequence-form LP (Koller, Megiddo & von Stengel 1996; Farina 2023 §1.4 of the notes)

    max  f_2ᵀ v   s.t.  F_1 x = f_1,   F_2ᵀ v − U_1ᵀ x ≤ 0,   x ≥ 0,  v free

is three calls: ``add_variables("x", ...)``, ``add_variables("v", ...)`` and one
``add_constraints`` per row block, each term a (variable block, sparse matrix) pair. The model knows
its size (rows, columns, nonzeros) before it is solved, prints as a table of its blocks
(:meth:`LinearProgram.describe`), and is rendered for a solver by the modules beside this one
(HiGHS, Pyomo, CVXPY), all reading :meth:`LinearProgram.assemble`.

Coefficient matrices may be scipy sparse (floats) or :class:`~lpgame.rational.RationalMatrix`
(exact); :meth:`assemble_exact` gives the exact data used to certify a basis in exact mode.

**Integer variables (MILP).** A block may be declared ``kind="binary"`` (bounds [0, 1], values in
{0, 1}) or ``kind="integer"``; the model is then a mixed-integer linear program
(:attr:`LinearProgram.is_mip`), ``assemble`` gives the per-column integrality (HiGHS's
``integrality_`` codes: 0 continuous, 1 integer) and the HiGHS backend solves it by branch and
bound, reporting the MIP gap and the dual bound. :meth:`LinearProgram.relaxed` drops integrality
(the LP relaxation); :meth:`LinearProgram.describe` and :meth:`LinearProgram.to_latex` print
binary blocks as {0,1}ⁿ.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from lpgame.errors import LpgameError
from lpgame.lp.scaling import IDENTITY, PayoffScaling
from lpgame.rational import (
    RationalMatrix,
    as_rational,
    as_scipy,
    binary_fractions,
    distinct_map,
    sparse_from_coo,
)

KEEP_NONZEROS = 100_000
"""Models with at most this many nonzeros keep what is derived from them (:meth:`LinearProgram.memo`:
the assembled arrays, a solver's copy) for the next solve; larger ones, whose set-up is small
beside their solve, build it again rather than hold a second copy of the matrix."""

SENSES = ("==", "<=", ">=")
_BETWEEN = object()     # separates the kinds of blocks in LinearProgram.structure
VARIABLE_KINDS = ("continuous", "binary", "integer")


@dataclass
class VariableBlock:
    """``size`` variables named ``name[k]``, with common or per-entry bounds."""

    name: str
    size: int
    lower: np.ndarray
    upper: np.ndarray
    labels: Sequence[str] | None
    offset: int = 0
    kind: str = "continuous"

    @property
    def is_integer(self) -> bool:
        """Whether the block's values must be integers (``binary`` or ``integer``)."""
        return self.kind != "continuous"

    def label(self, k: int) -> str:
        return f"{self.name}[{self.labels[k] if self.labels is not None else k}]"


@dataclass
class ConstraintBlock:
    """Rows Σ_terms M_t · var_t  (sense)  rhs."""

    name: str
    terms: list[tuple[VariableBlock, object]]
    sense: str
    rhs: object
    size: int
    labels: Sequence[str] | None
    offset: int = 0

    @property
    def nnz(self) -> int:
        return sum(int(m.nnz) for _, m in self.terms)


@dataclass
class Assembled:
    """The LP in solver form: optimise cᵀz s.t. row_lower ≤ A z ≤ row_upper, bounds on z."""

    sense: str
    c: np.ndarray
    A: sp.csc_array
    row_lower: np.ndarray
    row_upper: np.ndarray
    col_lower: np.ndarray
    col_upper: np.ndarray
    objective_constant: float = 0.0
    integrality: np.ndarray | None = None   # per column: 0 continuous, 1 integer (MILP only)


@dataclass
class LinearProgram:
    """Named blocks of variables and constraints; see the module docstring."""

    name: str = "lp"
    sense: str = "max"
    variables: list[VariableBlock] = field(default_factory=list)
    constraints: list[ConstraintBlock] = field(default_factory=list)
    objective: list[tuple[VariableBlock, object]] = field(default_factory=list)
    objective_constant: object = 0
    description: str = ""
    objective_scaling: PayoffScaling = IDENTITY
    """How the objective's payoffs were put in unit range (:mod:`lpgame.lp.scaling`): the optimum
    in the game's units is ``objective_scaling.from_unit(optimum)``."""
    _memo: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    _memo_key: tuple = field(default=(), init=False, repr=False, compare=False)

    # ------------------------------------------------------------------ derived data, kept
    def structure(self) -> tuple:
        """What the assembled model depends on: the sense, the objective's constant and the very
        block objects, by identity (the tuple keeps them alive, so no identity is reused).
        Building a model only ever adds blocks or replaces the objective, so an unchanged
        structure means an unchanged model."""
        parts = (self.sense, self.objective_constant, *self.variables, _BETWEEN,
                 *self.constraints, _BETWEEN, *self.objective)
        return tuple(map(id, parts)), parts

    def __getstate__(self) -> dict:
        """Pickled and copied without what :meth:`memo` keeps (solver instances do not pickle;
        a copy builds its own)."""
        state = dict(self.__dict__)
        state["_memo"], state["_memo_key"] = {}, ()
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def same_structure(self, structure: tuple) -> bool:
        """Whether :meth:`structure` is still ``structure``."""
        return self.structure()[0] == structure[0]

    def memo(self, name: str, build):
        """``build()`` kept until the model changes (:meth:`structure`): the assembled arrays, a
        solver's copy of them. A small LP solved again (the same game twice) is not rebuilt; a
        model over :data:`KEEP_NONZEROS` keeps nothing but its size."""
        if name != "size" and self.size()["nnz"] > KEEP_NONZEROS:
            return build()
        now = self.structure()
        if not self._memo_key or now[0] != self._memo_key[0]:
            self._memo = {}
            self._memo_key = now
        try:
            return self._memo[name]
        except KeyError:
            value = self._memo[name] = build()
            return value

    # ------------------------------------------------------------------ building
    def add_variables(self, name: str, size: int, lower=0.0, upper=np.inf,
                      labels: Sequence[str] | None = None, kind: str = "continuous"
                      ) -> VariableBlock:
        """Add a block of ``size`` variables with bounds (scalars or arrays; ±inf for none).

        ``kind`` is ``"continuous"`` (default), ``"binary"`` (bounds [0, 1] unless tighter ones are
        given) or ``"integer"``; an integer block makes the model a MILP.
        """
        if any(b.name == name for b in self.variables):
            raise LpgameError(f"LP {self.name}: variable block {name!r} exists already")
        if kind not in VARIABLE_KINDS:
            raise LpgameError(f"LP {self.name}: variable kind {kind!r} of block {name!r} is not one "
                              f"of {VARIABLE_KINDS}")
        lo, up = _bound_array(lower, size), _bound_array(upper, size)
        if kind == "binary":
            lo, up = np.maximum(lo, 0.0), np.minimum(up, 1.0)
        block = VariableBlock(name, int(size), lo, up, labels, offset=self.num_cols, kind=kind)
        self.variables.append(block)
        return block

    def add_constraints(self, name: str, terms: Sequence[tuple[VariableBlock, object]], sense: str,
                        rhs, labels: Sequence[str] | None = None) -> ConstraintBlock:
        """Add rows ``Σ M @ var  sense  rhs`` (``sense`` one of ``==``, ``<=``, ``>=``)."""
        if sense not in SENSES:
            raise LpgameError(f"LP {self.name}: sense {sense!r} is not one of {', '.join(SENSES)}")
        terms = list(terms)
        if not terms:
            raise LpgameError(f"LP {self.name}: constraint block {name!r} has no terms")
        rows = terms[0][1].shape[0]
        for var, matrix in terms:
            if matrix.shape != (rows, var.size):
                raise LpgameError(
                    f"LP {self.name}: block {name!r}: matrix for {var.name!r} has shape "
                    f"{matrix.shape}, expected ({rows}, {var.size})")
        if not isinstance(rhs, list):
            rhs = np.broadcast_to(np.asarray(rhs, dtype=float), (rows,)).copy()
        elif len(rhs) != rows:
            raise LpgameError(f"LP {self.name}: block {name!r}: {len(rhs)} rhs for {rows} rows")
        block = ConstraintBlock(name, [(v, m if isinstance(m, (RationalMatrix, sp.csr_array))
                                        else sp.csr_array(m)) for v, m in terms],
                                sense, rhs, rows, labels, offset=self.num_rows)
        self.constraints.append(block)
        return block

    def set_objective(self, terms: Sequence[tuple[VariableBlock, object]], sense: str = "max",
                      constant=0) -> None:
        """Objective Σ cᵀ var (+ constant); ``sense`` is ``max`` or ``min``."""
        if sense not in ("max", "min"):
            raise LpgameError(f"LP {self.name}: objective sense {sense!r} is not max or min")
        self.sense = sense
        self.objective = list(terms)
        self.objective_constant = constant

    # ------------------------------------------------------------------ size
    @property
    def num_cols(self) -> int:
        return sum(b.size for b in self.variables)

    @property
    def num_rows(self) -> int:
        return sum(b.size for b in self.constraints)

    @property
    def nnz(self) -> int:
        return sum(b.nnz for b in self.constraints)

    def size(self) -> dict:
        """{"rows", "cols", "nnz"}, known before solving (and "integers" for a MILP)."""
        return dict(self.memo("size", self._size))

    def _size(self) -> dict:
        out = {"rows": self.num_rows, "cols": self.num_cols, "nnz": self.nnz}
        if self.is_mip:
            out["integers"] = self.num_integers
        return out

    @property
    def is_mip(self) -> bool:
        """Whether some variable block is binary or integer (a mixed-integer program)."""
        return any(b.is_integer for b in self.variables)

    @property
    def num_integers(self) -> int:
        return sum(b.size for b in self.variables if b.is_integer)

    def integrality(self) -> np.ndarray:
        """Per column: 1 where the variable must be an integer, else 0 (HiGHS's codes)."""
        return np.concatenate([np.full(b.size, int(b.is_integer), dtype=np.int8)
                               for b in self.variables]) if self.variables else np.zeros(0, np.int8)

    def relaxed(self) -> LinearProgram:
        """The LP relaxation: the same blocks with every variable continuous (bounds kept)."""
        lp = copy.copy(self)
        lp._memo, lp._memo_key = {}, ()
        mapping = {id(b): copy.copy(b) for b in self.variables}
        for b in mapping.values():
            b.kind = "continuous"
        lp.variables = [mapping[id(b)] for b in self.variables]
        lp.constraints = [copy.copy(c) for c in self.constraints]
        for c in lp.constraints:
            c.terms = [(mapping[id(v)], m) for v, m in c.terms]
        lp.objective = [(mapping[id(v)], c) for v, c in self.objective]
        lp.name = f"{self.name} (relaxation)"
        return lp

    def block(self, name: str) -> VariableBlock | ConstraintBlock:
        for b in self.variables + self.constraints:
            if b.name == name:
                return b
        raise KeyError(name)

    # ------------------------------------------------------------------ assembly
    def assemble(self) -> Assembled:
        """Stack the blocks into one CSC matrix with row and column bounds (floats).

        Assembled once per small model (:meth:`memo`); each call returns its own shallow copy,
        whose vectors are read-only (replace them, do not write into them)."""
        return copy.copy(self.memo("assembled", self._assemble))

    def _assemble(self) -> Assembled:
        n = self.num_cols
        c = np.zeros(n)
        for var, coef in self.objective:
            c[var.offset:var.offset + var.size] += dense_coefficients(coef, var.size)
        blocks_rows = []
        row_lower, row_upper = [], []
        for con in self.constraints:
            parts = []
            for var, matrix in con.terms:
                row, col, data = _coo_parts(matrix)
                parts.append((row, col + var.offset, data))
            rows = np.concatenate([p[0] for p in parts]) + con.offset
            cols = np.concatenate([p[1] for p in parts])
            data = np.concatenate([p[2] for p in parts])
            blocks_rows.append((rows, cols, data))
            rhs = (np.array(distinct_map(float, con.rhs), dtype=float) if isinstance(con.rhs, list)
                   else con.rhs)
            row_lower.append(rhs if con.sense in ("==", ">=") else np.full(con.size, -np.inf))
            row_upper.append(rhs if con.sense in ("==", "<=") else np.full(con.size, np.inf))
        if blocks_rows:
            rows = np.concatenate([b[0] for b in blocks_rows])
            cols = np.concatenate([b[1] for b in blocks_rows])
            data = np.concatenate([b[2] for b in blocks_rows])
        else:
            rows = cols = np.zeros(0, dtype=np.int64)
            data = np.zeros(0)
        A = sparse_from_coo(data, rows, cols, (self.num_rows, n), format="csc")
        out = Assembled(
            sense=self.sense, c=np.array(c, dtype=float), A=A,
            row_lower=np.concatenate(row_lower) if row_lower else np.zeros(0),
            row_upper=np.concatenate(row_upper) if row_upper else np.zeros(0),
            col_lower=np.concatenate([b.lower for b in self.variables]),
            col_upper=np.concatenate([b.upper for b in self.variables]),
            objective_constant=float(self.objective_constant),
            integrality=self.integrality() if self.is_mip else None,
        )
        for vector in (out.c, out.row_lower, out.row_upper, out.col_lower, out.col_upper):
            vector.flags.writeable = False
        return out

    def assemble_exact(self) -> tuple[list[Fraction], RationalMatrix, list, list]:
        """Exact objective c, matrix A (COO of Fractions), and per-row (sense, rhs) data."""
        c = [Fraction(0)] * self.num_cols
        placed = set()
        for var, coef in self.objective:
            values = _exact_vector(coef, var.size)
            if var.offset in placed:     # a block named twice: its coefficients add up
                values = [a + b for a, b in zip(c[var.offset:var.offset + var.size], values)]
            c[var.offset:var.offset + var.size] = values
            placed.add(var.offset)
        blocks = []
        senses, rhs = [], []
        for con in self.constraints:
            for var, matrix in con.terms:
                blocks.append((as_rational(matrix), con.offset, var.offset))
            senses.extend([con.sense] * con.size)
            rhs.extend(_exact_vector(con.rhs, con.size))
        A = RationalMatrix.from_blocks((self.num_rows, self.num_cols), blocks)
        return c, A, senses, rhs

    # ------------------------------------------------------------------ printing
    def describe(self) -> str:
        """A readable table of the blocks: the algebra, sizes and nonzeros."""
        lines = [f"{'MILP' if self.is_mip else 'LP'} {self.name!r}: {self.sense} "
                 + " + ".join(f"c_{v.name}ᵀ{v.name}" for v, _ in self.objective)]
        if self.description:
            lines.append(self.description)
        lines.append(f"  {'variables':<22}{'size':>10}  bounds")
        for v in self.variables:
            lo, up = _bound_text(v.lower), _bound_text(v.upper)
            domain = {"binary": "  binary {0,1}", "integer": "  integer"}.get(v.kind, "")
            lines.append(f"  {v.name:<22}{v.size:>10}  [{lo}, {up}]{domain}")
        lines.append(f"  {'constraints':<22}{'rows':>10}{'nnz':>10}  form")
        for con in self.constraints:
            form = " + ".join(f"M·{v.name}" for v, _ in con.terms) + f" {con.sense} rhs"
            lines.append(f"  {con.name:<22}{con.size:>10}{con.nnz:>10}  {form}")
        s = self.size()
        integers = f", {s['integers']} of them integer" if self.is_mip else ""
        lines.append(f"  total: {s['rows']} rows, {s['cols']} columns{integers}, {s['nnz']} nonzeros")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.describe()

    def to_latex(self, rows: bool = False, max_rows: int = 200) -> str:
        """LaTeX of the formulation: by blocks, or (``rows=True``, small LPs) row by row with the
        variables' readable labels."""
        sense = r"\max" if self.sense == "max" else r"\min"
        rel = {"==": "=", "<=": r"\le", ">=": r"\ge"}
        if not rows:
            lines = [r"\begin{aligned}",
                     rf"{sense}\quad & " + " + ".join(
                         f"c_{{{_tex(v.name)}}}^{{\\top}} {_tex(v.name)}" for v, _ in self.objective)
                     + r" \\"]
            for k, con in enumerate(self.constraints):
                lhs = " + ".join(rf"M^{{{_tex(con.name)}}}_{{{_tex(v.name)}}}\,{_tex(v.name)}"
                                 for v, _ in con.terms)
                head = r"\text{s.t.}\quad" if k == 0 else ""
                lines.append(f"{head} & {lhs} {rel[con.sense]} b^{{{_tex(con.name)}}} "
                             f"&& \\text{{({_tex(con.name)}, {con.size} rows)}} \\\\")
            for v in self.variables:
                if v.kind == "binary":
                    lines.append(f"& {_tex(v.name)} \\in \\{{0,1\\}}^{{{v.size}}} \\\\")
                    continue
                bounds = [_bound_text(v.lower), _bound_text(v.upper)]
                bounds = [b.replace("inf", r"\infty") for b in bounds]
                domain = r"\mathbb{Z}^{" + str(v.size) + r"} \cap " if v.kind == "integer" else ""
                lines.append(f"& {_tex(v.name)} \\in {domain}[{bounds[0]}, {bounds[1]}]^{{{v.size}}}"
                             " \\\\")
            lines.append(r"\end{aligned}")
            return "\n".join(lines)
        if self.num_rows > max_rows:
            raise LpgameError(f"LP {self.name}: {self.num_rows} rows is too many to print row by "
                              f"row (max_rows={max_rows})")
        m = self.assemble()
        names = [_tex_text(b.label(k)) for b in self.variables for k in range(b.size)]
        objective = _tex_linear(m.c, range(len(m.c)), names)
        lines = [r"\begin{aligned}", f"{sense}\\quad & {objective} \\\\"]
        A = m.A.tocsr()
        for con in self.constraints:
            for k in range(con.size):
                i = con.offset + k
                row = A[[i], :]
                lhs = _tex_linear(row.data, row.indices, names)
                lo, up = m.row_lower[i], m.row_upper[i]
                rhs = _num(up if con.sense == "<=" else lo)
                label = _tex_text(con.labels[k] if con.labels is not None else str(k))
                lines.append(f"& {lhs} {rel[con.sense]} {rhs} && \\text{{{_tex(con.name)}[{label}]}}"
                             " \\\\")
        for v in self.variables:
            if v.is_integer:
                domain = r"\{0,1\}" if v.kind == "binary" else r"\mathbb{Z}"
                lines.append(f"& \\text{{{_tex_text(v.name)}}} \\in {domain}^{{{v.size}}} \\\\")
        lines.append(r"\end{aligned}")
        return "\n".join(lines)


def _tex_text(text: str) -> str:
    """Escape a readable label for use inside ``\\text{...}`` (spaces kept, ∅ as math)."""
    return (str(text).replace("\\", "").replace("_", r"\_").replace("&", r"\&")
            .replace("#", r"\#").replace("{", "(").replace("}", ")").replace("∅", r"$\emptyset$"))


def _tex(text: str) -> str:
    return (str(text).replace("\\", "").replace("_", r"\_").replace("&", r"\&")
            .replace("#", r"\#").replace("∅", r"\emptyset "))


def _num(value: float) -> str:
    return f"{value:g}"


def _tex_linear(coefs, cols, names) -> str:
    terms = []
    for c, j in zip(coefs, cols):
        if c == 0:
            continue
        sign = "-" if c < 0 else "+"
        mag = "" if abs(c) == 1 else _num(abs(c)) + r"\,"
        terms.append(f"{sign} {mag}\\text{{{names[j]}}}")
    text = " ".join(terms) or "0"
    return text[2:] if text.startswith("+ ") else text


def _bound_text(values: np.ndarray) -> str:
    if values.size and np.all(values == values[0]):
        v = values[0]
        return "-inf" if v == -np.inf else ("inf" if v == np.inf else f"{v:g}")
    return "mixed"


def _bound_array(bound, size: int) -> np.ndarray:
    """A block's bounds as a float array of ``size`` (a plain number filled in directly)."""
    if bound.__class__ is float or bound.__class__ is int:
        return np.full(size, float(bound))
    return np.broadcast_to(np.asarray(bound, dtype=float), (size,)).copy()


def _coo_parts(matrix) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, columns, values) of a block's matrix, in the order ``coo_array(csr)`` gives them:
    read straight from a CSR array's arrays (scipy's conversion costs tens of µs on a tiny
    block, a fixed cost of every fresh small LP), through scipy otherwise."""
    if sp.issparse(matrix) and matrix.format == "csr":
        nnz = int(matrix.indptr[-1])
        rows = np.repeat(np.arange(matrix.shape[0], dtype=matrix.indices.dtype),
                         np.diff(matrix.indptr))
        return rows, matrix.indices[:nnz], np.asarray(matrix.data[:nnz], dtype=float)
    m = sp.coo_array(as_scipy(matrix))
    return m.row, m.col, m.data


def dense_coefficients(coef, size: int) -> np.ndarray:
    if isinstance(coef, list):
        return np.array([float(v) for v in coef])
    if sp.issparse(coef):
        return np.asarray(coef.toarray()).ravel()
    return np.broadcast_to(np.asarray(coef, dtype=float), (size,))


def _exact_vector(values, size: int) -> list[Fraction]:
    """Exact entries: Fractions as they are, floats as the binary rationals they hold."""
    if isinstance(values, list):
        return [v if type(v) is Fraction else Fraction(v) for v in values]
    if sp.issparse(values):
        values = np.asarray(values.toarray()).ravel()
    return binary_fractions(np.broadcast_to(np.asarray(values, dtype=float), (size,)))
