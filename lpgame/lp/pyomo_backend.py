"""Pyomo rendering of a :class:`~lpgame.lp.linear_program.LinearProgram`, and LP/MPS export.

The model is the same LP as the HiGHS rendering (:mod:`lpgame.lp.highs_backend`),

    max/min  cᵀz + c₀   s.t.   row_lower ≤ A z ≤ row_upper,   col_lower ≤ z ≤ col_upper,

written the way a modeller reads it: each variable block is an indexed ``Var`` over the block's
readable labels (sequence labels such as ``x["J check bet:call"]``, or ``0..size-1`` when a block
has no labels or repeats one), each constraint block an indexed ``Constraint`` over its labels, so
that ``model.best_response["Q bet:call"]`` is the row of the sequence-form LP (Koller, Megiddo &
von Stengel 1996; notes/farina-thesis.md §1.4) for that opponent sequence. Rows are made from the
assembled CSR matrix in one pass, each as one ``LinearExpression`` (no operator overloading per
entry).

The model is solved with HiGHS through Pyomo's ``highs`` interface (``appsi_highs`` where ``highs``
is not available). Pyomo's HiGHS interfaces hand back HiGHS's own row duals, which are already
∂objective/∂rhs for minimisation and maximisation alike (checked in tests/test_renderings.py by
finite differences), so they are lpgame's convention unchanged.

:func:`write_lp` and :func:`write_mps` write the model with Pyomo's writers and symbolic names
(``x(_J_check_bet_call_)``); where two labels would give the same file name, the file uses Pyomo's
numbered names (``x1``, ``c_e_x2_``) instead. :func:`pyomo_text` prints a small model constraint by
constraint.
"""

from __future__ import annotations

import time
from pathlib import Path

import highspy
import numpy as np
import pyomo.environ as pyo
from pyomo.core.expr.numeric_expr import LinearExpression
from pyomo.opt import ProblemFormat, TerminationCondition

from lpgame.errors import LpgameError, SolverError, SolverTimeLimitError
from lpgame.lp.highs_backend import highs_settings
from lpgame.lp.linear_program import LinearProgram
from lpgame.lp.solution import LPSolution

PYOMO_SOLVERS = ("highs", "appsi_highs")


class _Rendering:
    """A Pyomo model with its variables and constraints in the LP's column and row order."""

    def __init__(self, model: pyo.ConcreteModel, columns: list, rows: list, objective):
        self.model = model
        self.objective = objective
        self.columns = columns    # VarData per LP column
        self.rows = rows          # ConstraintData per LP row (None for an empty, satisfied row)


def _index(labels, size: int) -> list:
    """The block's labels as Pyomo index (strings), or 0..size-1 if absent or not unique."""
    if labels is None or len(labels) != size:
        return list(range(size))
    index = [str(label) for label in labels]
    return index if len(set(index)) == size else list(range(size))


def _component_name(model: pyo.ConcreteModel, name: str) -> str:
    """``name`` as a Pyomo component name, suffixed where it is taken (or a Block attribute)."""
    candidate, k = name, 1
    while hasattr(model, candidate):
        candidate = f"{name}_{k}"
        k += 1
    return candidate


def _bound(value: float) -> float | None:
    return None if np.isinf(value) else float(value)


def _render(lp: LinearProgram) -> _Rendering:
    data = lp.assemble()
    model = pyo.ConcreteModel(name=lp.name)
    columns: list = []
    for block in lp.variables:
        index = _index(block.labels, block.size)
        lower, upper = block.lower, block.upper
        uniform = block.size > 0 and np.all(lower == lower[0]) and np.all(upper == upper[0])
        bounds = (_bound(lower[0]), _bound(upper[0])) if uniform else (None, None)
        var = pyo.Var(index, dense=True, bounds=bounds, domain=pyo.Reals)
        model.add_component(_component_name(model, block.name), var)
        block_columns = [var[k] for k in index]
        if not uniform:
            for vd, lo, up in zip(block_columns, lower, upper):
                vd.setlb(_bound(lo))
                vd.setub(_bound(up))
        columns.extend(block_columns)

    A = data.A.tocsr()
    indptr, indices, values = A.indptr, A.indices, A.data
    rows: list = []
    for block in lp.constraints:
        index = _index(block.labels, block.size)
        con = pyo.Constraint(index)
        model.add_component(_component_name(model, block.name), con)
        for k, label in enumerate(index):
            i = block.offset + k
            start, end = indptr[i], indptr[i + 1]
            lo, up = float(data.row_lower[i]), float(data.row_upper[i])
            if start == end:   # no variables: 0 must lie in [lo, up]
                if lo > 0 or up < 0:
                    raise SolverError(
                        f"LP {lp.name!r}: row {block.name}[{label}] has no variables and needs "
                        f"{lo:g} ≤ 0 ≤ {up:g}", status="infeasible", size=lp.size())
                rows.append(None)
                continue
            expr = LinearExpression(linear_coefs=values[start:end].tolist(),
                                    linear_vars=[columns[j] for j in indices[start:end]])
            if lo == up:
                con[label] = expr == lo
            elif np.isinf(lo):
                con[label] = expr <= up
            elif np.isinf(up):
                con[label] = expr >= lo
            else:
                con[label] = (lo, expr, up)
            rows.append(con[label])

    nonzero = np.flatnonzero(data.c)
    objective = LinearExpression(constant=float(data.objective_constant),
                                 linear_coefs=data.c[nonzero].tolist(),
                                 linear_vars=[columns[j] for j in nonzero])
    objective = pyo.Objective(expr=objective,
                              sense=pyo.maximize if data.sense == "max" else pyo.minimize)
    model.add_component(_component_name(model, "objective"), objective)
    return _Rendering(model, columns, rows, objective)


def build_pyomo_model(lp: LinearProgram) -> pyo.ConcreteModel:
    """The LP as a Pyomo ``ConcreteModel`` (see the module docstring for the naming)."""
    return _render(lp).model


def _pyomo_solver(name: str):
    if name not in PYOMO_SOLVERS:
        raise SolverError(f"unknown Pyomo solver {name!r}; choose one of "
                          f"{', '.join(PYOMO_SOLVERS)}")
    for candidate in (name,) + tuple(s for s in PYOMO_SOLVERS if s != name):
        solver = pyo.SolverFactory(candidate)
        if solver.available(exception_flag=False):
            return candidate, solver
    raise SolverError("no HiGHS interface of Pyomo is available (pip install highspy)")


def _check_highs_options(options: dict) -> None:
    """Pyomo passes options to HiGHS without looking at the answer: check them here first."""
    probe = highspy.Highs()
    probe.setOptionValue("output_flag", False)
    for key, value in options.items():
        if probe.setOptionValue(key, value) == highspy.HighsStatus.kError:
            raise SolverError(f"HiGHS refused option {key}={value!r} (unknown option or bad value)")


def solve_pyomo(lp: LinearProgram, solver: str | None = None, threads: int | None = None,
                time_limit: float | None = None, presolve: bool | None = None,
                highs_options: dict | None = None, pyomo_solver: str = "highs",
                verbose: bool = False, **ignored) -> LPSolution:
    """Solve ``lp`` with HiGHS through Pyomo and return an :class:`~lpgame.lp.solution.LPSolution`.

    ``solver`` is HiGHS's algorithm (``"choose"``, ``"simplex"``, ``"ipm"``, ``"pdlp"``), as for
    the HiGHS backend; ``pyomo_solver`` picks Pyomo's interface (``"highs"`` or
    ``"appsi_highs"``). Options that only the HiGHS backend has are ignored. No basis is returned
    (exact mode needs ``backend="highs"``).
    """
    start = time.perf_counter()
    rendering = _render(lp)
    model = rendering.model
    dual_name = _component_name(model, "dual")
    model.add_component(dual_name, pyo.Suffix(direction=pyo.Suffix.IMPORT))
    dual = model.component(dual_name)
    name, opt = _pyomo_solver(pyomo_solver)
    options = highs_settings(solver, threads, None, presolve, highs_options)
    _check_highs_options(options)
    kwargs = {"load_solutions": False, "tee": bool(verbose), "options": options}
    if time_limit is not None:
        kwargs["timelimit"] = float(time_limit)
    build_seconds = time.perf_counter() - start
    size = lp.size()
    try:
        results = opt.solve(model, **kwargs)
    except (ValueError, RuntimeError) as error:
        raise SolverError(f"Pyomo ({name}) failed on LP {lp.name!r} with {size['rows']} rows, "
                          f"{size['cols']} columns, {size['nnz']} nonzeros: {error}",
                          status="error", size=size) from error
    seconds = time.perf_counter() - start
    condition = results.solver.termination_condition
    text = str(condition)
    where = (f"on LP {lp.name!r} with {size['rows']} rows, {size['cols']} columns, "
             f"{size['nnz']} nonzeros")
    if condition == TerminationCondition.maxTimeLimit:
        raise SolverTimeLimitError(f"Pyomo ({name}) stopped at its time limit ({time_limit} s) "
                                   + where, status=text, size=size)
    if condition != TerminationCondition.optimal:
        raise SolverError(f"Pyomo ({name}) returned termination {text!r} " + where,
                          status=text, size=size)
    model.solutions.load_from(results)
    col_values = np.array([vd.value if vd.value is not None else 0.0
                           for vd in rendering.columns], dtype=float)
    # HiGHS's row duals, passed through by Pyomo, are ∂objective/∂rhs in both senses
    row_duals = np.array([dual.get(cd, 0.0) if cd is not None else 0.0 for cd in rendering.rows],
                         dtype=float)
    objective = pyo.value(rendering.objective)
    return LPSolution(lp=lp, backend="pyomo", status="optimal", objective=float(objective),
                      col_values=col_values, row_duals=row_duals, seconds=seconds,
                      info={"build_seconds": build_seconds,
                            "solve_seconds": seconds - build_seconds, "pyomo_solver": name,
                            "solver": {"name": f"HiGHS through Pyomo ({name})", "crossover": None,
                                       "tolerance": None}})


def _write(lp: LinearProgram, path, file_format: ProblemFormat) -> Path:
    from lpgame.io.safe_files import atomic_path

    path = Path(path)
    model = build_pyomo_model(lp)
    with atomic_path(path) as temp:     # written beside, then renamed over the user's file
        try:
            model.write(str(temp), format=file_format, io_options={"symbolic_solver_labels": True})
        except RuntimeError as error:   # two labels give the same symbol: use numbered names
            if "duplicate symbol" not in str(error).lower():
                raise LpgameError(f"cannot write LP {lp.name!r} to {path}: {error}") from error
            model.write(str(temp), format=file_format, io_options={"symbolic_solver_labels": False})
    return path


def write_lp(lp: LinearProgram, path) -> Path:
    """Write ``lp`` as a CPLEX LP file (Pyomo's writer, symbolic names where valid)."""
    return _write(lp, path, ProblemFormat.cpxlp)


def write_mps(lp: LinearProgram, path) -> Path:
    """Write ``lp`` as a free-format MPS file (Pyomo's writer, symbolic names where valid)."""
    return _write(lp, path, ProblemFormat.mps)


def pyomo_text(lp: LinearProgram, max_rows: int = 500) -> str:
    """The model printed constraint by constraint, for teaching small games.

    One line per row, ``block[label]:  expression  sense  rhs``, after the objective and followed
    by the variables' bounds. LPs with more than ``max_rows`` rows are refused.
    """
    if lp.num_rows > max_rows:
        raise LpgameError(f"LP {lp.name!r}: {lp.num_rows} rows is too many to print row by row "
                          f"(max_rows={max_rows})")
    rendering = _render(lp)
    model = rendering.model
    objective = rendering.objective
    lines = [f"{lp.name}", f"{'maximize' if lp.sense == 'max' else 'minimize'}  "
             f"{objective.expr.to_string()}", "subject to"]
    for con in model.component_objects(pyo.Constraint, descend_into=False):
        for cd in con.values():
            lines.append(f"  {cd.name}:  {cd.expr.to_string()}")
    lines.append("bounds")
    for var in model.component_objects(pyo.Var, descend_into=False):
        for vd in var.values():
            lo = "-inf" if vd.lb is None else f"{vd.lb:g}"
            up = "inf" if vd.ub is None else f"{vd.ub:g}"
            lines.append(f"  {lo} <= {vd.name} <= {up}")
    return "\n".join(lines)
