"""One sweep task, as a Dask worker runs it: a point in a child process under its limits → one table row.

The worker starts :func:`lpgame.sweep.child.run_point` in a child process
(:func:`lpgame.sweep.isolation.run_isolated`) with

* lpgame's memory prediction set to the task's memory limit M (``LPGAME_MEMORY_LIMIT``), so a
  model predicted to need more stops before it is built (status ``too_large``), backed by an
  address-space cap of 1.25 M + :data:`INTERPRETER_ADDRESS_SPACE` (status ``out_of_memory``);
* the task's time limit T: the solver gets what is left of T after building (status ``time_limit``,
  with the objective and bound it reached), and the child is killed at T + max(30 s, T / 4) whatever
  it is doing (status ``time_limit``, "killed").

Whatever happens, the task returns a row; the status says how the point ended:
``solved``/``evaluated``, ``too_large``, ``out_of_memory``, ``time_limit``, ``invalid`` (bad
parameters, game or strategy file), ``error`` (anything else, e.g. a solver failure) or ``crashed``.
"""

from __future__ import annotations

import os
import socket

from lpgame.sweep.isolation import run_isolated
from lpgame.sweep.points import SweepPoint

INTERPRETER_ADDRESS_SPACE = 1 << 30     # Python, numpy, scipy, HiGHS and their threads reserve ~0.4 GiB
KILL_GRACE_SECONDS = 30.0     # covers the child's start (imports: 1–3 s on a loaded machine)
DONE_STATUSES = ("solved", "evaluated")

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
    child = run_isolated("lpgame.sweep.child:run_point", {"point": point, "settings": settings},
                         timeout=kill_after(time_limit, settings.get("kill_grace")),
                         memory_cap=int(1.25 * memory) + INTERPRETER_ADDRESS_SPACE,
                         env={"LPGAME_MEMORY_LIMIT": str(int(memory))})
    row = dict(child.data)
    stage = row.pop("stage", None)
    row["point"] = sweep_point.id
    row["peak_mib"] = child.peak_rss_bytes / 2**20
    row["wall_seconds"] = child.wall_seconds
    row["worker"] = f"{socket.gethostname()}:{os.getpid()}"
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
