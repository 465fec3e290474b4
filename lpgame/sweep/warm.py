"""Warm child processes: one long-lived child takes point after point over a pipe, each point under
its own memory cap and time limit.

A fresh Python per point (:func:`lpgame.sweep.isolation.run_isolated`) pays 1–5 s of start-up per
point (Python, numpy, scipy, HiGHS, lpgame's concepts), which dwarfs small solves. A
:class:`WarmChild` pays it once, then runs one point at a time; a :class:`WarmPool` hands idle
children to the threads that ask (a sweep's Dask worker threads), starting more as needed. Per point:

* **memory**: the child sets its soft address-space limit (``RLIMIT_AS``) to the point's cap before
  running it and lifts it after (the hard limit is left alone, so it can be lifted again); beyond
  the cap an allocation raises ``MemoryError`` (status ``"out of memory"``). A child is replaced
  after such a point, and after any point that leaves its address space more than
  :data:`ADDRESS_SPACE_SLACK` above what it held when it became warm (caches, fragmentation), so
  that what one point keeps does not eat into the next one's cap;
* **time**: the parent waits ``timeout`` seconds, then kills the child (SIGKILL, by its process id;
  status ``"timeout"``); a crash (the pipe closes) gives status ``"crashed"`` with the tail of what
  the child wrote to standard error during that point. The next point gets a fresh child;
* **peak memory**: the child resets the kernel's peak resident set (``5`` into
  ``/proc/self/clear_refs``, Linux 4.0 or later) before the point and reads ``VmHWM`` after it, so
  the figure is that point's (interpreter included, as for a fresh child); where that is missing,
  the child's lifetime peak (an upper bound);
* **figures noted so far** (:func:`~lpgame.sweep.isolation.note_progress`) and the point's
  environment variables (``LPGAME_MEMORY_LIMIT``) are set for that point only.

A child dies with its parent: it is started from a launcher thread that lives as long as the parent
process (:func:`~lpgame.sweep.isolation.die_with_parent`), and it ends when the pipe closes.

Child command line (built by :class:`WarmChild`)::

    python -m lpgame.sweep.warm PIPE_FD [WARM_UP_TARGET]
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lpgame.sweep.isolation import PARENT_VARIABLE, PROGRESS_VARIABLE, ChildResult, call_target

ADDRESS_SPACE_SLACK = 256 << 20   # growth past the warm baseline that retires a child after a point
_PACKAGE_ROOT = Path(__file__).resolve().parent.parent.parent   # the directory holding lpgame/
_LAUNCHER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lpgame-warm-launcher")


class WarmChild:
    """One long-lived child process that runs ``"module:function"`` targets one at a time (module
    docstring). ``warm_up``: a target run once at start (e.g. importing the solvers)."""

    def __init__(self, warm_up: str | None = None):
        from multiprocessing import Pipe

        self._folder = tempfile.TemporaryDirectory(prefix="lpgame-warm-")
        self._stderr = open(Path(self._folder.name) / "stderr.txt", "w+b")   # noqa: SIM115
        self._connection, child_end = Pipe()
        env = dict(os.environ)
        env[PARENT_VARIABLE] = str(os.getpid())
        env["PYTHONPATH"] = os.pathsep.join(
            [str(_PACKAGE_ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        command = [sys.executable, "-m", "lpgame.sweep.warm", str(child_end.fileno()),
                   warm_up or ""]
        self.process = _LAUNCHER.submit(
            subprocess.Popen, command, pass_fds=(child_end.fileno(),), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=self._stderr, env=env).result()
        child_end.close()
        self.points = 0
        self.alive = True

    @property
    def pid(self) -> int:
        return self.process.pid

    def run(self, target: str, kwargs: dict | None = None, timeout: float = 600.0,
            memory_cap: int | None = None, env: dict | None = None) -> ChildResult:
        """Run ``target(**kwargs)`` in this child: ``timeout`` seconds of wall clock (then the child
        is killed), ``memory_cap`` bytes of address space (None: no cap), ``env``: environment
        variables for this call only. Afterwards :attr:`alive` says whether the child takes more."""
        if not self.alive:
            raise RuntimeError("this warm child has ended; take another from the pool")
        self.points += 1
        progress_path = Path(self._folder.name) / f"progress-{self.points}.json"
        stderr_start = os.fstat(self._stderr.fileno()).st_size
        request = {"target": target, "kwargs": kwargs or {}, "memory_cap": int(memory_cap or 0),
                   "env": {**(env or {}), PROGRESS_VARIABLE: str(progress_path)}}
        start = time.perf_counter()
        try:
            reply = self._exchange(request, start + timeout)
        except BaseException:     # interrupted (Ctrl-C): leave no child computing
            self._end()
            self.close()
            raise
        wall = time.perf_counter() - start
        progress = _read_json(progress_path)
        if reply == "timeout":
            peak = _peak_rss(self.pid)
            self._end()
            self.close()
            return ChildResult("timeout", data=progress, error=f"did not finish in {timeout:g} s",
                               wall_seconds=wall, peak_rss_bytes=peak, pid=self.pid)
        if reply == "crashed":
            status, usage = self._end()
            error = self._crash_text(status, stderr_start)
            self.close()
            return ChildResult("crashed", data=progress, wall_seconds=wall, pid=self.pid,
                               error=error,
                               peak_rss_bytes=int(usage.ru_maxrss) * 1024 if usage else 0)
        if not reply.get("keep", False):
            self.close()
        common = {"wall_seconds": wall, "peak_rss_bytes": int(reply.get("peak_rss_bytes", 0)),
                  "pid": self.pid}
        if reply["ok"]:
            return ChildResult("ok", data=reply["data"], **common)
        status = "out of memory" if reply["kind"] == "MemoryError" else "error"
        return ChildResult(status, data={**progress, **(reply.get("data") or {})},
                           error=reply["error"], kind=reply["kind"], **common)

    def _exchange(self, request: dict, deadline: float):
        """Send ``request`` and wait for the reply: the reply, ``"timeout"`` or ``"crashed"``."""
        try:
            self._connection.send(request)
        except OSError:            # the child has gone (killed from outside)
            return "crashed"
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                return "timeout"
            if self._connection.poll(min(left, 1.0)):
                try:
                    return self._connection.recv()
                except (EOFError, OSError):
                    return "crashed"

    def _crash_text(self, status, stderr_start: int) -> str:
        self._stderr.seek(stderr_start)
        tail = self._stderr.read().decode(errors="replace").strip().splitlines()[-3:]
        code = os.waitstatus_to_exitcode(status) if status is not None else 0
        how = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
        return f"{how}: {' | '.join(tail)}"[:400]

    def _end(self):
        """Kill the child (by its id; a child that has died keeps its own exit status) and reap it;
        (wait status, resource usage), or (None, None) if it was already reaped."""
        self.alive = False
        self._connection.close()
        if self.process.returncode is not None:
            return None, None
        self._signal(signal.SIGKILL)
        _, status, usage = os.wait4(self.pid, 0)
        self.process.returncode = os.waitstatus_to_exitcode(status)
        return status, usage

    def _signal(self, number: int) -> None:
        try:
            os.kill(self.pid, number)
        except ProcessLookupError:
            pass

    def kill(self) -> None:
        """Kill the child now, from any thread (the thread waiting in :meth:`run` reaps it)."""
        if self.process.returncode is None:
            self._signal(signal.SIGKILL)

    def close(self) -> None:
        """End the child (killed: it holds nothing to save) and remove its folder."""
        if self.process.returncode is None:
            self._end()
        self.alive = False
        if not self._stderr.closed:
            self._stderr.close()
            self._folder.cleanup()


class WarmPool:
    """Idle :class:`WarmChild` processes, handed to whichever thread runs a point."""

    def __init__(self, warm_up: str | None = None):
        self.warm_up = warm_up
        self._idle: list[WarmChild] = []
        self._busy: set[WarmChild] = set()
        self._lock = threading.Lock()

    def start(self, count: int, wait: bool = False) -> None:
        """Start children until ``count`` are idle; they warm up while the caller goes on, or,
        with ``wait``, before this returns."""
        with self._lock:
            missing = count - len(self._idle)
        started = [WarmChild(self.warm_up) for _ in range(max(missing, 0))]
        for child in started if wait else ():
            child.run("builtins:dict", {})       # answered once the warm-up is over
        with self._lock:
            self._idle.extend(c for c in started if c.alive)

    def run(self, target: str, kwargs: dict | None = None, timeout: float = 600.0,
            memory_cap: int | None = None, env: dict | None = None) -> ChildResult:
        """:meth:`WarmChild.run` in an idle child (a new one if none is idle); the child goes back
        to the pool if it is still fit for another point."""
        with self._lock:
            child = self._idle.pop() if self._idle else None
        if child is None:
            child = WarmChild(self.warm_up)
        with self._lock:
            self._busy.add(child)
        try:
            result = child.run(target, kwargs, timeout=timeout, memory_cap=memory_cap, env=env)
        finally:
            with self._lock:
                self._busy.discard(child)
                if child.alive:
                    self._idle.append(child)
        return result

    def close(self, kill_busy: bool = False) -> None:
        """End every idle child; with ``kill_busy`` kill the busy ones too (their points end as
        ``"crashed"``: a sweep that stops), else they go back to the pool when their points end."""
        with self._lock:
            idle, self._idle = self._idle, []
            busy = list(self._busy) if kill_busy else []
        for child in busy:
            child.kill()
        for child in idle:
            child.close()

    @property
    def idle(self) -> int:
        """How many children wait for a point."""
        return len(self._idle)

    @property
    def busy(self) -> int:
        """How many children are running a point."""
        return len(self._busy)


_SHARED: dict[str, WarmPool] = {}
_SHARED_LOCK = threading.Lock()


def shared_pool(warm_up: str | None = None) -> WarmPool:
    """This process's pool of children warmed up by ``warm_up`` (one pool per warm-up target,
    shared by the threads that run points: a Dask worker's, or a local cluster's workers)."""
    with _SHARED_LOCK:
        return _SHARED.setdefault(warm_up or "", WarmPool(warm_up))


def close_shared_pools(kill_busy: bool = False) -> None:
    """End the idle children of every shared pool of this process (and the busy ones with
    ``kill_busy``, see :meth:`WarmPool.close`)."""
    for pool in list(_SHARED.values()):
        pool.close(kill_busy)


def _read_json(path: Path) -> dict:
    import json
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def _status_kib(pid: int | str, field: str) -> int:
    """A ``kB`` figure of ``/proc/PID/status`` in bytes (0 where it is missing)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    found = re.search(rf"^{field}:\s+(\d+) kB", text, re.MULTILINE)
    return int(found[1]) * 1024 if found else 0


def _peak_rss(pid: int | str) -> int:
    return _status_kib(pid, "VmHWM")


# ---------------------------------------------------------------- the child's side


def _reset_peak() -> bool:
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def _run_request(request: dict, baseline: int) -> dict:
    """Run one request under its cap and environment; the reply (with ``keep``: fit for more)."""
    import resource

    previous = {k: os.environ.get(k) for k in request["env"]}
    os.environ.update(request["env"])
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = request["memory_cap"]
    reset = _reset_peak()
    try:
        if cap > 0:
            resource.setrlimit(resource.RLIMIT_AS,
                               (cap if hard == resource.RLIM_INFINITY else min(cap, hard), hard))
        reply = call_target(request["target"], request["kwargs"], cap)
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        for key, value in previous.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    peak = _peak_rss("self")
    if not reset or not peak:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    reply["peak_rss_bytes"] = peak
    grown = _status_kib("self", "VmSize") - baseline
    reply["keep"] = reply.get("kind") != "MemoryError" and grown <= ADDRESS_SPACE_SLACK
    return reply


def _serve(fd: int, warm_up: str) -> None:
    from multiprocessing.connection import Connection

    from lpgame.sweep.isolation import die_with_parent

    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # the parent decides when this child ends
    connection = Connection(fd)
    if warm_up:
        call_target(warm_up, {})         # a failure here shows again in the first point's row
    baseline = _status_kib("self", "VmSize")
    while True:
        try:
            request = connection.recv()
        except (EOFError, OSError):
            request = None
        if request is None:       # the pipe closed: leave at once (nothing to flush or finalise)
            sys.stderr.flush()
            os._exit(0)
        connection.send(_run_request(request, baseline))


if __name__ == "__main__":
    _serve(int(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "")
