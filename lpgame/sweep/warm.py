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

The children are forked from this process's fork server (:mod:`lpgame.sweep.forkserver`), which
has imported lpgame and its concepts once: a child costs a fork and a tiny warm-up solve, not 1 s of
imports. A child dies with the server, and the server with this process (it is started from a
launcher thread that lives as long as this process, :func:`~lpgame.sweep.isolation.die_with_parent`);
a child ends when its pipe closes.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lpgame.sweep.forkserver import (
    ADDRESS_SPACE_SLACK,
    ForkServer,
    can_fork_here,
    declare_no_solve_yet,
    peak_rss,
    preload,
)
from lpgame.sweep.isolation import PROGRESS_VARIABLE, ChildResult

__all__ = ["ADDRESS_SPACE_SLACK", "WarmChild", "WarmPool", "can_fork_here", "close_fork_server",
           "close_shared_pools", "declare_no_solve_yet", "fork_server", "preload", "shared_pool"]

_LAUNCHER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lpgame-warm-launcher")
_SERVER: list[ForkServer] = []
_SERVER_LOCK = threading.Lock()


def fork_server(fork: bool = False) -> ForkServer:
    """This process's fork server of warm children (:mod:`lpgame.sweep.forkserver`), started on
    first use (a new one if the last has gone) and kept while this process lives: started from a
    thread that lives as long as this process, so that it dies with the process. ``fork``: fork it
    from this process, which has imported lpgame's concepts (:func:`preload`) and, having run no
    other thread before it did (:func:`~lpgame.sweep.forkserver.can_fork_here`), runs no Python
    thread but this one now (the main thread then, whose end ends the server; the BLAS libraries'
    idle threads shut down at a fork); otherwise (or if not) a fresh Python that imports them."""
    with _SERVER_LOCK:
        if not _SERVER or not _SERVER[0].alive:
            if _SERVER:
                _SERVER.pop().close()
            if fork and threading.active_count() == 1:
                _SERVER.append(ForkServer(fork=True))
            else:
                _SERVER.append(ForkServer(
                    lambda *a, **kw: _LAUNCHER.submit(subprocess.Popen, *a, **kw).result()))
        return _SERVER[0]


def close_fork_server() -> None:
    """End this process's fork server, if it has one: its children, busy or idle, die with it (a
    later child starts a new one)."""
    with _SERVER_LOCK:
        if _SERVER:
            _SERVER.pop().close()


class _ChildProcess:
    """A warm child's process id (once forked), its error if it could not be, and its exit code
    once reaped (``returncode``, as :class:`subprocess.Popen`'s)."""

    def __init__(self, spawned):
        self._spawned = spawned
        self.returncode: int | None = None
        self.error = ""

    @property
    def started(self) -> bool:
        """Whether the fork server has answered (with the process id or an error)."""
        return self._spawned.done()

    def when_started(self, action) -> None:
        """Call ``action()`` once the fork server has answered (now if it has)."""
        self._spawned.add_done_callback(lambda _: action())

    @property
    def pid(self) -> int:
        try:
            return self._spawned.result()
        except Exception as exc:     # the fork server has gone, or refused: no child
            self.error = f"{type(exc).__name__}: {exc}"
            return 0


class WarmChild:
    """One long-lived child process that runs ``"module:function"`` targets one at a time (module
    docstring), forked by this process's fork server (:func:`fork_server`). ``warm_up``: a target
    run once at start (e.g. a tiny solve, which starts the solver's threads). The child is asked
    for at once and forked as soon as the server is ready; :attr:`pid` waits for it."""

    def __init__(self, warm_up: str | None = None):
        from multiprocessing import Pipe

        self._folder = tempfile.TemporaryDirectory(prefix="lpgame-warm-")
        self._stderr = open(Path(self._folder.name) / "stderr.txt", "w+b")   # noqa: SIM115
        self._connection, child_end = Pipe()
        self._server = fork_server()

        def spawn() -> int:
            try:
                return self._server.spawn(child_end.fileno(), self._stderr.fileno(), warm_up)
            finally:
                child_end.close()      # the child holds it now (or, failing, nobody: EOF here)
        self.process = _ChildProcess(_LAUNCHER.submit(spawn))
        self.points = 0
        self.alive = True

    @property
    def pid(self) -> int:
        """The child's process id (0 if the fork server could not start it)."""
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
            peak = peak_rss(self.pid)
            self._end()
            self.close()
            return ChildResult("timeout", data=progress, error=f"did not finish in {timeout:g} s",
                               wall_seconds=wall, peak_rss_bytes=peak, pid=self.pid)
        if reply == "crashed":
            status, peak = self._end()
            error = self._crash_text(status, stderr_start)
            self.close()
            return ChildResult("crashed", data=progress, wall_seconds=wall, pid=self.pid,
                               error=error, peak_rss_bytes=peak)
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
        if self.process.error:
            return f"the child did not start: {self.process.error}"[:400]
        if status is None:
            how = "ended with its fork server"
        else:
            code = os.waitstatus_to_exitcode(status)
            how = f"killed by signal {-code}" if code < 0 else f"exit code {code}"
        return f"{how}: {' | '.join(tail)}"[:400]

    def _end(self) -> tuple[int | None, int]:
        """Kill the child (by its id; a child that has died keeps its own exit status) and have the
        fork server reap it; (wait status, peak resident set in bytes), or (None, 0) if it was
        already reaped (or never started)."""
        self.alive = False
        self._connection.close()
        if self.process.returncode is not None:
            return None, 0
        if not self.pid:
            self.process.returncode = -signal.SIGKILL
            return None, 0
        self._signal(signal.SIGKILL)
        status, peak = self._server.reap(self.pid)
        self.process.returncode = (os.waitstatus_to_exitcode(status) if status is not None
                                   else -signal.SIGKILL)
        return status, peak

    def _signal(self, number: int) -> None:
        if not self.pid:
            return
        try:
            os.kill(self.pid, number)
        except ProcessLookupError:
            pass

    def kill(self) -> None:
        """Kill the child now, from any thread (the thread waiting in :meth:`run` reaps it)."""
        if self.process.returncode is None:
            self._signal(signal.SIGKILL)

    def close(self) -> None:
        """End the child (killed: it holds nothing to save) and remove its folder; a child still
        being forked is ended once it is (this returns at once)."""
        if not self.process.started:
            self.alive = False
            self._connection.close()
            self.process.when_started(self.close)
            return
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
