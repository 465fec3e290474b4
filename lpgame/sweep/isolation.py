"""Run one function in a fresh child process, with a wall-clock limit and an address-space cap.

A sweep task (and a benchmark row) runs its point in a child process of the Dask worker so that

* its peak memory is its own: the parent reaps the child with :func:`os.wait4`, whose resource usage
  ``ru_maxrss`` (the peak resident set, KiB on Linux) belongs to that child alone;
* a crash, a ``MemoryError`` or a hang ends that point only: the parent kills the child (its own
  child, by process id) once it runs past ``timeout`` seconds, and the worker goes on;
* a child whose parent dies is killed with it (:func:`die_with_parent`);
* a memory cap is in force: the child sets ``RLIMIT_AS`` (address space) on itself before importing
  anything, so an allocation beyond the cap raises ``MemoryError`` instead of pushing the machine
  into swap or the OOM killer.

The target is a function ``"module:function"`` that takes JSON keyword arguments and returns a
JSON-serialisable dict. The child writes ``{"ok": true, "data": ...}`` or ``{"ok": false, "error":
..., "kind": ...}`` to a result file. A target may call :func:`note_progress` with figures measured so
far; when the child is killed or dies they come back in :attr:`ChildResult.data`. An exception with
a ``partial_data`` attribute (a dict) passes those figures back with the error.

A sweep reuses warm children instead (:mod:`lpgame.sweep.warm`: one long-lived child takes point
after point over a pipe, under the same caps); :func:`run_isolated` starts a fresh one per call.

Child command line (built by :func:`run_isolated`)::

    python -m lpgame.sweep.isolation MODULE:FUNCTION KWARGS_JSON RESULT_PATH MEMORY_CAP_BYTES
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

PROGRESS_VARIABLE = "LPGAME_CHILD_PROGRESS"
PARENT_VARIABLE = "LPGAME_CHILD_PARENT"
_PACKAGE_ROOT = Path(__file__).resolve().parent.parent.parent   # the directory holding lpgame/


@dataclass
class ChildResult:
    """What came back from one child.

    ``status``: ``"ok"``, ``"error"`` (the target raised; ``kind`` is the exception class name),
    ``"out of memory"`` (``MemoryError`` under the cap), ``"timeout"`` (killed at the wall-clock
    limit) or ``"crashed"`` (the child died without a result: a signal or an exit code).
    """

    status: str
    data: dict = field(default_factory=dict)
    error: str = ""
    kind: str = ""
    wall_seconds: float = 0.0
    peak_rss_bytes: int = 0
    pid: int = 0              # the process that ran the target, where it was not this one


def gib(n: float) -> str:
    """Bytes as a short human-readable string."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{int(n)} B"


def note_progress(**figures) -> None:
    """In a child: record figures measured so far (merged with earlier ones); a no-op elsewhere."""
    path = os.environ.get(PROGRESS_VARIABLE)
    if not path:
        return
    progress = Path(path)
    data = json.loads(progress.read_text()) if progress.exists() else {}
    data.update(figures)
    progress.write_text(json.dumps(data, default=float))


def run_isolated(target: str, kwargs: dict | None = None, timeout: float = 600.0,
                 memory_cap: int | None = None, env: dict | None = None,
                 cwd: str | Path | None = None) -> ChildResult:
    """Run ``target`` (``"module:function"``) with ``kwargs`` in a child process (module docstring).

    ``timeout``: seconds of wall clock before the child is killed; ``memory_cap``: bytes of address
    space (``RLIMIT_AS``) for the child, or None for no cap; ``env``: extra environment variables;
    ``cwd``: the child's working directory. The directory holding the ``lpgame`` package is put
    first on the child's ``PYTHONPATH``, so the child runs the same lpgame as its parent.
    """
    with tempfile.TemporaryDirectory(prefix="lpgame-child-") as tmp:
        result_path = Path(tmp) / "result.json"
        stderr_path = Path(tmp) / "stderr.txt"
        progress_path = Path(tmp) / "progress.json"
        command = [sys.executable, "-m", "lpgame.sweep.isolation", target, json.dumps(kwargs or {}),
                   str(result_path), str(int(memory_cap or 0))]
        child_env = dict(os.environ)
        child_env.update(env or {})
        child_env[PROGRESS_VARIABLE] = str(progress_path)
        child_env[PARENT_VARIABLE] = str(os.getpid())
        child_env["PYTHONPATH"] = os.pathsep.join(
            [str(_PACKAGE_ROOT)] + ([child_env["PYTHONPATH"]] if child_env.get("PYTHONPATH") else []))
        start = time.perf_counter()
        with open(stderr_path, "wb") as err:
            child = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err,
                                     env=child_env)
            status, usage, timed_out = _wait(child, start, timeout)
        wall = time.perf_counter() - start
        peak = int(usage.ru_maxrss) * 1024
        progress = json.loads(progress_path.read_text()) if progress_path.exists() else {}
        if timed_out:
            return ChildResult("timeout", data=progress, error=f"did not finish in {timeout:g} s",
                               wall_seconds=wall, peak_rss_bytes=peak)
        if result_path.exists():
            out = json.loads(result_path.read_text())
            if out["ok"]:
                return ChildResult("ok", data=out["data"], wall_seconds=wall, peak_rss_bytes=peak)
            status_text = "out of memory" if out["kind"] == "MemoryError" else "error"
            return ChildResult(status_text, data={**progress, **out.get("data", {})},
                               error=out["error"], kind=out["kind"], wall_seconds=wall,
                               peak_rss_bytes=peak)
        tail = stderr_path.read_text(errors="replace").strip().splitlines()[-3:]
        code = os.waitstatus_to_exitcode(status)
        how = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
        return ChildResult("crashed", data=progress, error=f"{how}: {' | '.join(tail)}"[:400],
                           wall_seconds=wall, peak_rss_bytes=peak)


def _wait(child: subprocess.Popen, start: float, timeout: float):
    """Reap ``child`` (killing it, by its id, past ``timeout``); (wait status, rusage, timed out)."""
    pause = 0.005
    try:
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid == child.pid:
                child.returncode = os.waitstatus_to_exitcode(status)   # reaped here, not by Popen
                return status, usage, False
            if time.perf_counter() - start > timeout:
                os.kill(child.pid, signal.SIGKILL)
                _, status, usage = os.wait4(child.pid, 0)
                child.returncode = os.waitstatus_to_exitcode(status)
                return status, usage, True
            time.sleep(pause)
            pause = min(pause * 1.5, 0.25)
    except BaseException:       # interrupted (the task cancelled, Ctrl-C): leave no orphan behind
        if child.returncode is None:
            os.kill(child.pid, signal.SIGKILL)
            os.wait4(child.pid, 0)
            child.returncode = -signal.SIGKILL
        raise


def die_with_parent() -> None:
    """In a child: Linux: the kernel kills this child when the thread that started it ends (prctl
    PR_SET_PDEATHSIG), so a worker that dies, or is closed, leaves no orphan still computing; that
    thread waits in :func:`_wait` for as long as the child lives (a warm child,
    :mod:`lpgame.sweep.warm`, is started by a thread that lives as long as its process)."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL))           # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):                # not Linux: the parent's kill timer only
        return
    parent = os.environ.get(PARENT_VARIABLE)
    if parent and os.getppid() != int(parent):       # the parent died before prctl took effect
        os._exit(1)


def call_target(target: str, kwargs: dict, memory_cap: int = 0) -> dict:
    """In a child: ``{"ok": True, "data": ...}`` from ``target(**kwargs)``, or ``{"ok": False,
    "kind": ..., "error": ..., "data": partial figures}`` for whatever it raised (``kind``
    ``"MemoryError"`` for a plain MemoryError under the cap of ``memory_cap`` bytes)."""
    try:
        module_name, function_name = target.split(":")
        import importlib
        function = getattr(importlib.import_module(module_name), function_name)
        return {"ok": True, "data": function(**kwargs)}
    except Exception as exc:   # reported as this point's status, whatever it is
        if type(exc) is MemoryError:   # not lpgame's ModelTooLargeError, a MemoryError subclass
            return {"ok": False, "kind": "MemoryError",
                    "error": f"MemoryError under the address-space cap of {gib(memory_cap)}",
                    "data": getattr(exc, "partial_data", {})}
        return {"ok": False, "kind": type(exc).__name__, "error": str(exc)[:2000],
                "data": getattr(exc, "partial_data", {}),
                "traceback": traceback.format_exc()[-2000:]}


def _child_main(argv: list[str]) -> None:
    target, kwargs_json, result_path, memory_cap = argv
    die_with_parent()
    cap = int(memory_cap)
    if cap > 0:
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    result = call_target(target, json.loads(kwargs_json), cap)
    Path(result_path).write_text(json.dumps(result, default=float))


if __name__ == "__main__":
    _child_main(sys.argv[1:])
