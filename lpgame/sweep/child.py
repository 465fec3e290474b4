"""What one sweep point does, inside its child process: build the game, solve or evaluate, report figures.

For a family or file point: ``lpgame.games.make``/``load`` builds the game (under lpgame's memory
prediction, ``LPGAME_MEMORY_LIMIT`` = the task's memory limit, so a model too large to build stops
with :class:`~lpgame.errors.ModelTooLargeError` before it is built) and :func:`lpgame.solve` solves it
for the sweep's concept with ``time_limit`` = what is left of the task's time limit after building.
The answer's certificate is lpgame's own: the NashConv of the returned profile by independent best
responses, Σ_i (max_{σ'_i} u_i(σ'_i, σ_{−i}) − u_i(σ)) (notes/farina-thesis.md; Farina 2023, Thm 5.1).

For a verify point: the strategy file is read (:func:`lpgame.io.strategy_files.load_strategies`,
JSON or CSV) and :func:`lpgame.evaluate` gives its values, best-response gains, NashConv and
exploitability ε = NashConv / n, computed bottom-up without any LP.

The figures come back as one flat dict (the table's columns, :mod:`lpgame.sweep.table`); on an
exception the figures measured before it ride along as ``partial_data`` (see
:mod:`lpgame.sweep.isolation`), with the objective and bound a solver reached before its time limit.
"""

from __future__ import annotations

import json
import time

from lpgame.io.json_io import number_from_json
from lpgame.sweep.points import SweepPoint

# keys of Result.to_dict() that the table has a column of its own for, or that are too large for it
_SUMMARISED = {"kind", "game", "concept", "variant", "backend", "exact", "value", "values",
               "strategies", "unreached", "certificate", "size", "seconds", "solver", "payoffs"}


def run_point(point: dict, settings: dict) -> dict:
    """Build, solve (or evaluate) and summarise one point; the entry of the child process."""
    import lpgame
    from lpgame.errors import SolverTimeLimitError

    sweep_point = SweepPoint.from_dict(point)
    lpgame.concepts()      # registers the concepts: building Dudo solves smaller Dudo games by them
    start = time.perf_counter()
    figures: dict = {"stage": "build"}
    try:
        game = _build(sweep_point)
        figures["build_seconds"] = time.perf_counter() - start
        figures.update(_game_figures(game))
        figures["stage"] = "solve"
        if sweep_point.kind == "verify":
            figures.update(_evaluate(game, sweep_point, settings))
        else:
            options = {**settings.get("options", {}), **sweep_point.options}
            limit = settings.get("time_limit")
            if limit and settings.get("solver_time_limit", True):
                options["time_limit"] = max(limit - (time.perf_counter() - start), 0.1)
            result = lpgame.solve(game, concept=settings.get("concept", "nash"),
                                  exact=bool(settings.get("exact")),
                                  backend=settings.get("backend", "highs"), **options)
            figures.update(summarise_result(result))
    except Exception as exc:
        figures["seconds"] = time.perf_counter() - start
        if isinstance(exc, SolverTimeLimitError):
            figures["objective_reached"] = _float(exc.objective)
            figures["best_bound"] = _float(exc.best_bound)
            figures.update(_size(exc.size))
        exc.partial_data = figures
        raise
    figures["seconds"] = time.perf_counter() - start
    del figures["stage"]
    return figures


def warm_up() -> dict:
    """Make a warm child ready for points (:mod:`lpgame.sweep.warm`): import lpgame's concepts and
    solvers and solve one tiny game, so that the first point pays no start-up and the solver's
    threads exist before the child's address space is taken as its baseline."""
    import lpgame
    from lpgame.games import make

    lpgame.solve(make("one_card_poker", N=2))
    return {}


def _build(point: SweepPoint):
    from lpgame.games import load, make

    if point.kind == "family":
        return make(point.game, **point.params)
    return load(point.game, **point.params)


def _game_figures(game) -> dict:
    out: dict = {}
    sizes = getattr(game, "sizes", None)
    if callable(sizes):
        nodes = sizes().get("nodes")
        out["nodes"] = int(nodes) if nodes is not None else None
    payoff_range = getattr(game, "payoff_range", None)
    if callable(payoff_range):
        out["payoff_range"] = float(payoff_range())
    return out


def _evaluate(game, point: SweepPoint, settings: dict) -> dict:
    import lpgame
    from lpgame.io.strategy_files import load_strategies

    strategies = load_strategies(point.strategy, game, missing=settings.get("missing", "error"))
    solved = time.perf_counter()
    evaluation = lpgame.evaluate(game, strategies, exact=bool(settings.get("exact")))
    data = evaluation.to_dict()
    out = _numbers(data["value"], data["values"], data["nash_conv"], data["exploitability"])
    out["solve_seconds"] = time.perf_counter() - solved
    out["extra"] = json.dumps({"best_response_gain": data["best_response_gain"],
                               "best_response_value": data["best_response_value"]})
    return out


def summarise_result(result) -> dict:
    """The table's columns from a result's public JSON (``to_dict()``): value(s), certificate (the
    gain common to every concept, and NashConv/exploitability for profiles), LP size, the solver's
    name, the concept's variant and seconds; other small entries (numbers, short text) go to the
    ``extra`` column."""
    data = result.to_dict()
    certificate = data.get("certificate") or {}
    values = data.get("values") or data.get("payoffs") or []
    value = data.get("value", values[0] if values else None)
    out = _numbers(value, values, certificate.get("nash_conv", certificate.get("gain")),
                   certificate.get("exploitability"))
    out["gain"] = _float(certificate.get("gain"))
    out.update(_size(data.get("size")))
    seconds = data.get("seconds") or {}
    if "solve" in seconds or "lp" in seconds:
        out["solve_seconds"] = float(seconds.get("lp", seconds.get("solve")))
    out["solver"] = _solver_name(data.get("solver"))
    out["variant"] = data.get("variant")
    extra = {k: v for k, v in data.items() if k not in _SUMMARISED and _small(v)}
    extra.update({f"certificate_{k}": v for k, v in certificate.items()
                  if k not in ("nash_conv", "exploitability", "exact", "gain") and _small(v)})
    out["extra"] = json.dumps(extra, default=str) if extra else None
    return out


def _solver_name(solver) -> str | None:
    """``{"name": "HiGHS simplex", "algorithm": "double oracle", ...}`` -> "HiGHS simplex (double
    oracle)"; a plain string as it is."""
    if isinstance(solver, dict):
        name = solver.get("name")
        return f"{name} ({solver['algorithm']})" if name and solver.get("algorithm") else name
    return solver


def _numbers(value, values, nash_conv, exploitability) -> dict:
    """Float columns, and the exact text of each where the answer is a rational (exact mode)."""
    out = {"value": _float(value), "values": json.dumps([_float(v) for v in values]),
           "nash_conv": _float(nash_conv), "exploitability": _float(exploitability)}
    if isinstance(value, str) or isinstance(nash_conv, str):
        out["value_exact"] = str(value) if value is not None else None
        out["nash_conv_exact"] = str(nash_conv) if nash_conv is not None else None
    return out


def _float(value):
    if value is None:
        return None
    if isinstance(value, str):
        value = number_from_json(value)
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _size(size) -> dict:
    if not isinstance(size, dict):
        return {}
    return {k: int(size[k]) for k in ("rows", "cols", "nnz") if size.get(k) is not None}


def _small(value) -> bool:
    if isinstance(value, (bool, int, float)) or value is None:
        return True
    if isinstance(value, str):
        return len(value) <= 200
    if isinstance(value, (list, dict)):
        return len(json.dumps(value, default=str)) <= 400
    return False
