"""Run a sweep on Dask: one task per point, rows written as they finish, resumable, with progress.

The points (:mod:`lpgame.sweep.points`) are submitted to a ``dask.distributed`` client, one task per
point (:func:`lpgame.sweep.task.run_point_task`), and gathered as they complete
(``distributed.as_completed``). Without a scheduler address the sweep starts a ``LocalCluster`` of
one single-threaded worker per core (threads of this process, each handing its points to a warm
child process, :mod:`lpgame.sweep.warm`; worker processes with ``isolate=False``) and closes it at
the end; with ``scheduler=ADDRESS``
(``tcp://host:8786``, or the path of a ``--scheduler-file``) it uses that cluster's workers
(docs/how-to/sweep-dask.md). Every finished row goes to the table at once (:mod:`lpgame.sweep.table`), so a
killed sweep keeps what it finished, and ``resume=True`` runs only the points without a row.

Progress goes to standard error: points done of the total, failures, and an estimate of the time
left, ETA = (elapsed / done) · (points left), counting only this run's points.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
import os
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from lpgame import progress
from lpgame.errors import LpgameError, OptionError
from lpgame.sweep.points import (
    SweepPoint,
    check_unique,
    family_points,
    file_points,
    parameter_names,
    parse_values,
    verify_points,
)
from lpgame.sweep.table import TableWriter, columns_for, read_table, table_format
from lpgame.sweep.task import DONE_STATUSES, WARM_UP_TARGET, run_point_task
from lpgame.sweep.warm import (
    can_fork_here,
    close_shared_pools,
    fork_server,
    preload,
    shared_pool,
)


@dataclass
class SweepResult:
    """The table of a sweep (one row per point, in the points' order) and what this run did."""

    rows: list[dict]
    columns: list[str]
    ran: list[str] = field(default_factory=list)        # ids of the points run by this call
    skipped: list[str] = field(default_factory=list)    # ids found finished in the table (resume)
    path: str | None = None
    plot: str | None = None
    seconds: float = 0.0
    parameters: list[str] = field(default_factory=list)

    @property
    def failed(self) -> list[dict]:
        """Rows whose point did not end solved or evaluated."""
        return [r for r in self.rows if r.get("status") not in DONE_STATUSES]

    def row(self, point_id: str) -> dict:
        for r in self.rows:
            if r["point"] == point_id:
                return r
        raise KeyError(point_id)

    def to_arrow(self):
        """The table as a :class:`pyarrow.Table`."""
        from lpgame.sweep.table import to_arrow
        return to_arrow(self.rows, self.columns)

    def summary(self) -> str:
        """A text table: point, status, value, NashConv, LP size, seconds, peak memory."""
        width = min(max([len(r["point"]) for r in self.rows] + [5]), 60)
        lines = [f"{'point':<{width}} {'status':<13} {'value':>14} {'NashConv':>10} "
                 f"{'LP rows×cols':>15} {'seconds':>8} {'peak MiB':>8}"]
        for r in self.rows:
            size = f"{r['rows']}×{r['cols']}" if r.get("rows") is not None else "—"
            value, nash_conv = _numbers_of(r)
            lines.append(f"{r['point'][:width]:<{width}} {r['status']:<13} {value:>14} "
                         f"{nash_conv:>10} {size:>15} "
                         f"{_fmt(r.get('seconds'), '.2f'):>8} {_fmt(r.get('peak_mib'), '.0f'):>8}")
        failed = self.failed
        if any(r.get("value") is not None and not r.get("value_exact") for r in self.rows):
            from lpgame.number_format import ROUNDING
            lines.append(f"(floating point: figures below {ROUNDING:g} × the game's payoff range "
                         "print as 0)")
        lines.append(f"{len(self.rows)} points, {len(failed)} not solved; {len(self.ran)} run now, "
                     f"{len(self.skipped)} kept from the table; {self.seconds:.1f} s"
                     + (f"; table {self.path}" if self.path else "")
                     + (f"; plot {self.plot}" if self.plot else ""))
        for r in failed:
            lines.append(f"  {r['point']}: {r['status']}: {(r.get('error') or '')[:300]}")
        return "\n".join(lines)


def _fmt(value, spec: str) -> str:
    return "—" if value is None else format(value, spec)


def _numbers_of(row: dict) -> tuple[str, str]:
    """The value and NashConv of a row for the text table, by :mod:`lpgame.number_format`: an
    exact value as its fraction (≈ decimal when long), floats to 6 significant digits, and
    floating-point figures below the rounding tolerance of the row's payoff range as 0."""
    from fractions import Fraction

    from lpgame.number_format import format_number, rounding_tolerance

    exact = row.get("value_exact")
    tolerance = rounding_tolerance(row.get("payoff_range"))
    if exact:
        value = format_number(Fraction(exact))
    else:
        value = "—" if row.get("value") is None else format_number(row["value"], 6, None,
                                                                   tolerance, False)
    nash_conv = "—" if row.get("nash_conv") is None else format_number(
        row["nash_conv"], 3, None, None if exact else tolerance, False)
    return value, nash_conv


def sweep(game: str | None = None, grid: dict | list[str] | None = None, *,
          files: list[str] | None = None, verify: list[str] | None = None,
          params: dict | None = None, points: list[SweepPoint] | None = None,
          concept: str = "nash", exact: bool = False, backend: str = "highs",
          options: dict | None = None, out: str | Path | None = None, resume: bool = False,
          retry_failed: bool = False, plot: str | Path | None = None,
          scheduler: str | None = None, workers: int | None = None,
          task_memory: int | str | None = None, task_time_limit: float | None = None,
          missing: str = "error", isolate: bool = True, fresh_child: bool = False, client=None,
          progress: bool | Callable[[str], None] = True) -> SweepResult:
    """Solve (or evaluate) every point of a sweep on Dask and return its table.

    What to sweep (one of):

    * ``game`` and ``grid``: a catalog family over a parameter grid, ``grid`` a dict of value lists
      (``{"N": range(2, 201)}``; a string value is parsed as on the command line, ``"2..200"``) or
      a list of ``KEY=VALUES`` strings (``["K=3..6", "D1=1..2"]``); ``params`` fixes others;
    * ``files``: game files (``.efg``, ``.nfg``);
    * ``game`` and ``verify``: strategy files, each evaluated in ``game`` (with ``params``);
    * ``points``: :class:`~lpgame.sweep.points.SweepPoint` objects (e.g. a benchmark's instances).

    How: ``concept``, ``exact``, ``backend`` and ``options`` (``algorithm``, ``solver``, ``threads``,
    ``objective``, ...) go to :func:`lpgame.solve` for every point. ``task_memory`` (bytes, or
    text such as ``"2G"``) is each task's memory limit: lpgame's prediction refuses larger models
    and an address-space cap backs it up (default: lpgame's limit divided by the local workers);
    ``task_time_limit`` (seconds) the solver's time limit, the task killed a little after
    (:mod:`lpgame.sweep.task`). ``scheduler``: address (or scheduler file) of a running Dask
    cluster; otherwise a ``LocalCluster`` of ``workers`` workers (default: one per core), or pass
    a ``client``. Each point runs in a warm child process of its worker, which takes point after
    point under each point's caps (:mod:`lpgame.sweep.warm`); ``fresh_child=True`` starts a new one
    for every point instead (nothing shared between points, such as lpgame's caches, at 1–5 s
    each). ``isolate=False`` runs each point in its worker process itself
    (:func:`lpgame.sweep.task.run_in_worker`: only lpgame's memory prediction and the solver's time
    limit apply). ``missing``: verify's treatment of information sets absent from a file.

    Output: ``out`` (``.csv``/``.parquet``) gets each row as it finishes; ``resume=True`` keeps the
    rows already there and runs only the other points (``retry_failed=True`` runs failed ones
    again); ``plot`` writes the value and time against the swept parameter(s). ``progress``: True
    prints to standard error, or a function receiving each line.
    """
    start = time.perf_counter()
    if verify is not None:
        concept = "verify"
    settings = _settings(concept, exact, backend, options, task_memory, task_time_limit, missing)
    settings["isolate"] = bool(isolate)
    settings["fresh_child"] = bool(fresh_child)
    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise OptionError(f"workers must be a whole number of at least 1, got {workers!r}")
    if out is not None and table_format(out) == ".parquet":
        _require("pyarrow", "a .parquet table (or write .csv)")
    if plot is not None:
        from lpgame.sweep.plot import check_plot_path
        check_plot_path(plot)
    if resume and out is None:
        raise OptionError("resume needs the table to resume from (out=PATH, --out PATH)")
    local = client is None and scheduler is None
    warm = local and isolate and not fresh_child
    # a process that runs no other thread (no solver's) forks the fork server of the warm children
    # from itself once it has imported lpgame's concepts (imported once, not twice: on 2 cores the
    # two imports slow each other); otherwise the server, a fresh Python, imports them itself
    # while this process builds the points, checks the concept and the table, starts the cluster
    fork = warm and can_fork_here()
    if warm:
        _require("distributed", "the Dask cluster")
        if not fork:
            fork_server()
    points = _points(game, grid, files, verify, params, points)
    check_unique(points)
    if fork:
        preload()
        fork_server(fork=True)
    if warm:
        shared_pool(WARM_UP_TARGET).start(workers or os.cpu_count() or 1)
    try:
        result = _sweep(points, verify is not None, settings, out, resume, retry_failed, scheduler,
                        workers, client, progress)
    finally:
        if local:
            close_shared_pools()
    if plot is not None:
        from lpgame.sweep.plot import plot_sweep
        plot_sweep(result.rows, result.parameters, plot)
        result.plot = str(plot)
    result.seconds = time.perf_counter() - start
    return result


def _sweep(points: list[SweepPoint], verify: bool, settings: dict, out, resume: bool,
           retry_failed: bool, scheduler, workers, client, progress) -> SweepResult:
    """The points of a sweep, run: the table written row by row (after the cluster answers)."""
    parameters = parameter_names(points)
    columns = columns_for(parameters)
    concept, exact = settings["concept"], settings["exact"]
    if not verify:
        _check_concept(concept)
    kept, on_disk = _kept_rows(out, resume, retry_failed, concept, exact, {p.id for p in points})
    todo = [p for p in points if p.id not in kept]

    def open_table() -> TableWriter | None:
        """The table, rewritten with the rows it keeps: only once there is a cluster to run on."""
        if out is None:
            return None
        others = [c for c in dict.fromkeys(k for r in on_disk for k in r) if c not in columns]
        return TableWriter(out, columns + others, on_disk)

    say = _progress_printer(progress)
    new_rows: dict[str, dict] = {}
    if todo:
        if client is None:
            _require("distributed", "the Dask cluster")
        say(f"sweep: {len(todo)} points to run" + (f", {len(kept)} already in {out}" if kept else ""))
        with _client(client, scheduler, workers, settings["isolate"]) as (dask_client, n_workers):
            if settings["task_memory"] is None and scheduler is None and client is None:
                from lpgame.limits import memory_limit
                settings["task_memory"] = memory_limit() // max(n_workers, 1)
            writer = open_table()
            try:
                for row in _run(dask_client, todo, settings, say):
                    new_rows[row["point"]] = row
                    if writer is not None:
                        writer.append(row)
            except BaseException:     # stopped (Ctrl-C): the local workers' points stop too, so
                if client is None and scheduler is None:      # that the cluster closes at once
                    close_shared_pools(kill_busy=True)
                raise
    else:
        open_table()
        say(f"sweep: all {len(points)} points are already in {out}")
    rows = [new_rows.get(p.id) or kept[p.id] for p in points]
    return SweepResult(rows=[{c: r.get(c) for c in columns} for r in rows], columns=columns,
                       ran=[p.id for p in todo], skipped=[p.id for p in points if p.id in kept],
                       path=str(out) if out is not None else None, parameters=parameters)


def _points(game, grid, files, verify, params, points) -> list[SweepPoint]:
    chosen = [x is not None for x in (grid, files, verify, points)]
    if sum(chosen) != 1:
        raise OptionError("a sweep needs exactly one of: a game with a grid, files, a game with "
                          "verify (strategy files), or points")
    if points is not None:
        out = list(points)
    elif files is not None:
        out = file_points([str(f) for f in files])
    elif verify is not None:
        if game is None:
            raise OptionError("sweep verify needs the game the strategy files are played in")
        out = verify_points(game, dict(params or {}), [str(f) for f in verify])
    else:
        if game is None:
            raise OptionError("a sweep over a grid needs the catalog game")
        out = family_points(game, {**_as_grid(params or {}), **_as_grid(grid)})
    if not out:
        raise OptionError("the sweep has no points")
    return out


def _require(module: str, what: str) -> None:
    """LpgameError naming the install command when an optional dependency is missing."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise LpgameError(f"{what} needs the Python package {module!r}: pip install 'lpgame[sweep]'")


def _check_concept(concept: str) -> None:
    """OptionError for a concept the registry does not know, before any task starts."""
    from lpgame.api import concepts

    names = sorted({entry.name for entry in concepts()})
    if concept not in names:
        raise OptionError(f"unknown concept {concept!r}; choose one of {', '.join(names)}")


def _as_grid(grid) -> dict[str, list]:
    """A grid from a dict of value lists/ranges/strings/scalars, or from KEY=VALUES strings."""
    if isinstance(grid, (list, tuple)):
        from lpgame.sweep.points import parse_grid
        return parse_grid([str(g) for g in grid])
    out: dict[str, list] = {}
    for key, values in grid.items():
        if isinstance(values, str):
            out[key] = parse_values(key, values)
        elif isinstance(values, (list, tuple, range)):
            out[key] = list(values)
        else:
            out[key] = [values]
        if not out[key]:
            raise OptionError(f"sweep parameter {key} has no values")
    return out


def _settings(concept, exact, backend, options, task_memory, task_time_limit, missing) -> dict:
    from lpgame.limits import parse_bytes

    if task_time_limit is not None and not task_time_limit > 0:
        raise OptionError(f"task time limit must be positive, got {task_time_limit}")
    memory = None
    if task_memory is not None:
        memory = parse_bytes(str(task_memory), "task memory")
        if memory <= 0:
            raise OptionError(f"task memory must be positive, got {task_memory!r}")
    if missing not in ("error", "uniform"):
        raise OptionError(f"missing must be 'error' or 'uniform', got {missing!r}")
    return {"concept": concept, "exact": bool(exact), "backend": backend,
            "options": dict(options or {}), "task_memory": memory, "time_limit": task_time_limit,
            "missing": missing}


def _kept_rows(out, resume, retry_failed, concept, exact, ids) -> tuple[dict[str, dict], list[dict]]:
    """(rows of this sweep's points that a resumed sweep keeps, by point id; every row that stays in
    the table, those of other points included). Failed rows are run again with ``retry_failed``."""
    if out is None or not resume:
        return {}, []
    kept, on_disk = {}, []
    for row in read_table(out):
        if row.get("concept") != concept or bool(row.get("exact")) != bool(exact):
            raise OptionError(f"sweep table {out} holds rows of concept {row.get('concept')!r}"
                              f"{' (exact)' if row.get('exact') else ''}; this sweep solves "
                              f"{concept!r}{' (exact)' if exact else ''}; write to another --out")
        ours = row.get("point") in ids
        if ours and retry_failed and row.get("status") not in DONE_STATUSES:
            continue
        if ours:
            if row["point"] in kept:          # a point twice (an older table): keep the last
                on_disk.remove(kept[row["point"]])
            kept[row["point"]] = row
        on_disk.append(row)
    return kept, on_disk


def _progress_printer(progress) -> Callable[[str], None]:
    if callable(progress):
        return progress
    if not progress:
        return lambda message: None
    start = time.perf_counter()

    def say(message: str) -> None:
        print(f"[{time.perf_counter() - start:8.1f}s] {message}", file=sys.stderr, flush=True)
    return say


@contextlib.contextmanager
def _client(client, scheduler: str | None, workers: int | None, isolate: bool = True):
    """(client, number of workers): the given client, one for ``scheduler``, or a LocalCluster's.

    The local cluster's workers are threads of this process when each point runs in a warm child
    process (``isolate``: the workers only hand points to the children, which do the work and
    hold the caps; no worker processes to start), and processes otherwise."""
    if client is not None:
        yield client, max(len(client.scheduler_info().get("workers", {})), 1)
        return
    import dask
    from distributed import Client, LocalCluster

    if scheduler is not None:
        if workers is not None:
            raise OptionError("--workers is for the local cluster; a scheduler's cluster has the "
                              "workers started for it (docs/how-to/sweep-dask.md)")
        kwargs = ({"scheduler_file": scheduler} if Path(scheduler).is_file()
                  else {"address": scheduler})
        try:
            dask_client = Client(timeout=30, **kwargs)
        except (OSError, TimeoutError, ValueError) as exc:
            raise OptionError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from exc
        with dask_client:
            n = len(dask_client.scheduler_info().get("workers", {}))
            yield dask_client, max(n, 1)
        return
    n = workers or os.cpu_count() or 1
    # a worker only waits for its tasks' child processes, which have their own limits: no worker
    # memory limit, and a task whose worker dies is reported, not retried
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        try:
            # no dashboard; the scheduler's own HTTP server (which it starts even then) on a free
            # local port: on its default, 8787, a second lpgame sweep would print Dask's
            # "Port 8787 is already in use" warning through --quiet
            cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=not isolate,
                                   memory_limit=0, dashboard_address=None,
                                   silence_logs=logging.ERROR,
                                   scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
        except (OSError, TimeoutError, RuntimeError) as exc:
            raise LpgameError(f"could not start a local Dask cluster of {n} workers: {exc}") from exc
    with cluster, Client(cluster) as dask_client:
        yield dask_client, n


def _run(client, todo: list[SweepPoint], settings: dict, say: Callable[[str], None]):
    """Submit one task per point; yield each point's row as it completes."""
    from distributed import as_completed

    run = uuid.uuid4().hex[:8]
    by_key = {}
    futures = []
    for i, point in enumerate(todo):
        future = client.submit(run_point_task, point.to_dict(), settings, pure=False, retries=0,
                               key=f"lpgame-sweep-{run}-{i}")
        by_key[future.key] = point
        futures.append(future)
    start = time.perf_counter()
    done = failed = 0
    for future in as_completed(futures):
        point = by_key[future.key]
        try:
            row = future.result()
        except (Exception, asyncio.CancelledError) as exc:   # the worker died, the task was lost
            # or cancelled (a scheduler gone): a row, not a crash
            row = {"point": point.id, "status": "crashed",
                   "error": f"Dask task failed: {type(exc).__name__}: {exc}"[:2000]}
        future.release()
        row = _complete_row(row, point, settings)
        done += 1
        failed += row["status"] not in DONE_STATUSES
        elapsed = time.perf_counter() - start
        eta = elapsed / done * (len(todo) - done)
        what = row["status"] + (f", value {row['value']:.10g}" if row.get("value") is not None
                                else "")
        say(f"{done}/{len(todo)} done, {failed} failed, ETA {eta:.0f} s — {point.id}: {what}")
        progress.report("sweep", points_done=f"{done}/{len(todo)}", failed=failed,
                        eta=f"{eta:.0f} s")
        yield row


def _complete_row(row: dict, point: SweepPoint, settings: dict) -> dict:
    out = dict(row)
    out.update(point.params)
    out.update({"point": point.id, "kind": point.kind, "game": point.game,
                "strategy": point.strategy, "concept": settings["concept"],
                "exact": settings["exact"], "backend": settings["backend"],
                "finished_at": datetime.datetime.now(datetime.UTC).isoformat(
                    timespec="seconds")})
    if not out.get("error"):
        out["error"] = None
    return out
