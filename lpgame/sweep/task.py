"""One sweep task, as a Dask worker runs it: a point in a child process under its limits → one table row.

The worker runs :func:`lpgame.sweep.child.run_point` in a warm child process: one that has already
imported lpgame and its solvers and takes point after point (:mod:`lpgame.sweep.warm`; with
``fresh_child`` in the settings, a new child per point, :func:`lpgame.sweep.isolation.run_isolated`:
no state shared between points, 1–5 s more each), with

* lpgame's memory prediction set to the task's memory limit M (``LPGAME_MEMORY_LIMIT``), so a
  model predicted to need more stops before it is built (status ``too_large``), backed by an
  address-space cap of 1.25 M + :data:`INTERPRETER_ADDRESS_SPACE` (status ``out_of_memory``);
* the task's time limit T: the solver gets what is left of T after building (status ``time_limit``,
  with the objective and bound it reached), and the child is killed at T + max(30 s, T / 4) whatever
  it is doing (status ``time_limit``, "killed").

Whatever happens, the task returns a row; the status says how the point ended:
``solved``/``evaluated``, ``too_large``, ``out_of_memory``, ``time_limit``, ``invalid`` (bad
parameters, game or strategy file), ``error`` (anything else, e.g. a solver failure) or ``crashed``.

With ``isolate=False`` in the settings the point runs in the worker process itself
(:func:`run_in_worker`): no child at all, but only the soft limits.
"""

from __future__ import annotations

import os
import socket
import threading
import time

from lpgame.sweep.isolation import ChildResult, run_isolated
from lpgame.sweep.points import SweepPoint
from lpgame.sweep.warm import shared_pool

INTERPRETER_ADDRESS_SPACE = 1 << 30     # Python, numpy, scipy, HiGHS and their threads reserve ~0.4 GiB
KILL_GRACE_SECONDS = 30.0     # covers the child's start (imports: 1–3 s on a loaded machine)
DONE_STATUSES = ("solved", "evaluated")
POINT_TARGET = "lpgame.sweep.child:run_point"
WARM_UP_TARGET = "lpgame.sweep.child:warm_up"

_STATUS_OF_ERROR = {
    "ModelTooLargeError": "too_large",
    "SolverTimeLimitError": "time_limit",
    "InvalidGameError": "invalid", "GameFileError": "invalid", "UnknownGameError": "invalid",
    "OptionError": "invalid", "StrategyError": "invalid", "ConceptMismatchError": "invalid",
}


def kill_after(time_limit: float | None, grace: float | None = None) -> float:
    """Seconds after which a task's child is killed: T + max(30 s, T / 4) (or T + ``grace``); a day
    without a limit."""
    if not time_limit:
        return 86400.0
    return time_limit + (max(KILL_GRACE_SECONDS, time_limit / 4) if grace is None else grace)


def run_point_task(point: dict, settings: dict) -> dict:
    """Run one point (a :meth:`SweepPoint.to_dict`) under the limits of ``settings``; its row."""
    from lpgame.limits import memory_limit

    sweep_point = SweepPoint.from_dict(point)
    memory = settings.get("task_memory") or memory_limit()
    time_limit = settings.get("time_limit")
    if settings.get("isolate", True):
        caps = {"timeout": kill_after(time_limit, settings.get("kill_grace")),
                "memory_cap": int(1.25 * memory) + INTERPRETER_ADDRESS_SPACE,
                "env": {"LPGAME_MEMORY_LIMIT": str(int(memory))}}
        arguments = {"point": point, "settings": settings}
        if settings.get("fresh_child"):
            child = run_isolated(POINT_TARGET, arguments, **caps)
        else:
            child = shared_pool(WARM_UP_TARGET).run(POINT_TARGET, arguments, **caps)
    else:
        child = run_in_worker(point, settings, memory)
    row = dict(child.data)
    stage = row.pop("stage", None)
    row["point"] = sweep_point.id
    row["peak_mib"] = child.peak_rss_bytes / 2**20
    row["wall_seconds"] = child.wall_seconds
    row["worker"] = f"{socket.gethostname()}:{child.pid or os.getpid()}"
    if child.status == "ok":
        row["status"] = "evaluated" if sweep_point.kind == "verify" else "solved"
        row["error"] = ""
        return row
    row.setdefault("seconds", child.wall_seconds)
    if child.status == "timeout":
        row["status"] = "time_limit"
        row["error"] = f"killed: {child.error} (time limit {time_limit:g} s)"
    elif child.status == "out of memory":
        row["status"] = "out_of_memory"
        row["error"] = child.error
    elif child.status == "crashed":
        row["status"] = "crashed"
        row["error"] = child.error
    else:
        status = _STATUS_OF_ERROR.get(child.kind, "error")
        if status == "error" and stage == "build" and child.kind in ("TypeError", "ValueError"):
            status = "invalid"      # a catalog factory refusing a parameter value of the wrong kind
        row["status"] = status
        row["error"] = f"{child.kind}: {child.error}"
    return row


def run_in_worker(point: dict, settings: dict, memory: int) -> ChildResult:
    """Run one point in this (worker) process, without a child: no process start, but only lpgame's
    memory prediction (``LPGAME_MEMORY_LIMIT`` = ``memory`` while it runs) and the solver's time
    limit apply, nothing is killed, and the peak memory is this process's resident set sampled
    every 10 ms while the point runs (:class:`_PeakSampler`). For sweeps of many small points on
    single-threaded workers (the variable is the process's)."""
    from lpgame.sweep.child import run_point

    previous = os.environ.get("LPGAME_MEMORY_LIMIT")
    os.environ["LPGAME_MEMORY_LIMIT"] = str(int(memory))
    start = time.perf_counter()
    sampler = _PeakSampler()
    try:
        data = run_point(point, settings)
        result = ChildResult("ok", data=data)
    except Exception as exc:     # this point's row, whatever it is
        partial = getattr(exc, "partial_data", {})
        if type(exc) is MemoryError:
            result = ChildResult("out of memory", data=partial, error="MemoryError in the worker")
        else:
            result = ChildResult("error", data=partial, error=str(exc)[:2000],
                                 kind=type(exc).__name__)
    finally:
        sampler.stop()
        if previous is None:
            os.environ.pop("LPGAME_MEMORY_LIMIT", None)
        else:
            os.environ["LPGAME_MEMORY_LIMIT"] = previous
    result.wall_seconds = time.perf_counter() - start
    result.peak_rss_bytes = sampler.peak
    return result


class _PeakSampler:
    """The largest resident set size of this process (``/proc/self/statm``) seen every 10 ms
    between construction and :meth:`stop`; ``ru_maxrss`` where /proc is missing."""

    def __init__(self):
        self.peak = self._rss()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def _sample(self) -> None:
        while not self._stop.wait(0.01):
            self.peak = max(self.peak, self._rss())

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._rss())

    @staticmethod
    def _rss() -> int:
        try:
            with open("/proc/self/statm", encoding="ascii") as fh:
                return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except OSError:
            import resource
            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
