"""The fork server of warm children, and what a warm child does (:mod:`lpgame.sweep.warm`).

Importing lpgame and its concepts (numpy, scipy, HiGHS, every concept module) takes about 1 s of
CPU. A warm child pays it once instead of once per point; the fork server makes the children pay
it not at all: one process per parent (started with ``python -c``, so that it holds nothing of the
parent: no threads, no sockets) imports lpgame, its concepts and :mod:`lpgame.sweep.child` once and
then **forks** each warm child from itself on request. It never solves anything and starts no
thread of its own (the BLAS libraries' idle threads, started by importing numpy and scipy, are shut
down by their own fork handlers), so that forking it is safe; the child starts the solver's threads
itself, in its warm-up. Where the parent itself runs no other thread and has solved nothing (a
local sweep in a process of one thread, or ``lpgame sweep``'s command line), the server is instead
forked from the parent once the parent has imported lpgame's concepts (``ForkServer(fork=True)``,
:func:`can_fork_here`): lpgame is then imported once, not twice.

The parent talks to it over a Unix socket: ``spawn`` hands it the child's end of the child's pipe
and the file for its standard error (``SCM_RIGHTS``) with the parent's environment, working
directory and ``sys.path`` of that moment, which the child takes over (variables read at import
time, such as ``OPENBLAS_NUM_THREADS``, keep the server's values); the answer is the child's process
id. ``reap`` waits for a child that has ended (the parent killed it, by its id, or it crashed) and
answers its wait status and peak resident set. A child dies with the server and the server with the
parent (``PR_SET_PDEATHSIG``, :func:`~lpgame.sweep.isolation.die_with_parent`); the server also
leaves when its socket closes. Both ignore SIGINT: the parent decides when they end (Ctrl-C).

The child's side (:func:`serve_points`): run one request at a time from the pipe under its memory
cap and environment (see :mod:`lpgame.sweep.warm`).
"""

from __future__ import annotations

import os
import pickle
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
from pathlib import Path

from lpgame.sweep.isolation import PARENT_VARIABLE, call_target, die_with_parent

ADDRESS_SPACE_SLACK = 256 << 20   # growth past the warm baseline that retires a child after a point
PRELOAD = ("lpgame.sweep.child", "lpgame.games")   # imported by the server, with lpgame's concepts
_PACKAGE_ROOT = Path(__file__).resolve().parent.parent.parent   # the directory holding lpgame/
_HEADER = struct.Struct("!I")


class ForkServer:
    """The parent's handle on one fork server (module docstring); its methods may be called from
    any thread. ``launch``: how to start a process (``subprocess.Popen`` or a function calling it
    from a thread that lives as long as this process, for ``PR_SET_PDEATHSIG``)."""

    def __init__(self, launch=subprocess.Popen, fork: bool = False):
        self._socket, server_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self._lock = threading.Lock()
        self.alive = True
        if fork:
            try:
                self.process = _fork_server(self._socket, server_end)
            finally:
                server_end.close()
            return
        env = dict(os.environ)
        env[PARENT_VARIABLE] = str(os.getpid())
        env["PYTHONPATH"] = os.pathsep.join(
            [str(_PACKAGE_ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        code = ("from lpgame.sweep.forkserver import serve_forks; "
                f"serve_forks({server_end.fileno()})")
        try:
            self.process = launch([sys.executable, "-c", code], pass_fds=(server_end.fileno(),),
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=env)
        finally:
            server_end.close()

    def spawn(self, pipe_fd: int, stderr_fd: int, warm_up: str | None) -> int:
        """Fork a warm child that serves the pipe ``pipe_fd`` (:func:`serve_points`), its standard
        error ``stderr_fd``; its process id (once the server has imported lpgame)."""
        request = ("spawn", warm_up or "", dict(os.environ), os.getcwd(), list(sys.path))
        return self._ask(request, (pipe_fd, stderr_fd))

    def reap(self, pid: int) -> tuple[int | None, int]:
        """Wait for the ended child ``pid``: (its wait status, its peak resident set in bytes), or
        (None, 0) where the server has gone (and the child with it)."""
        try:
            status, max_rss_kib = self._ask(("reap", pid))
        except OSError:
            return None, 0
        return status, max_rss_kib * 1024

    def _ask(self, request: tuple, fds: tuple[int, ...] = ()):
        with self._lock:
            try:
                _send(self._socket, request, fds)
                reply = _receive(self._socket)[0]
            except (OSError, EOFError) as exc:
                self.alive = False
                raise OSError(f"the fork server of warm children has gone: {exc}") from exc
        if isinstance(reply, Exception):
            raise reply
        return reply

    def close(self) -> None:
        """End the server (its children die with it) and reap it."""
        self.alive = False
        self._socket.close()
        try:
            self.process.kill()
            self.process.wait()
        except OSError:
            pass


def _send(sock: socket.socket, message, fds: tuple[int, ...] = ()) -> None:
    data = pickle.dumps(message)
    socket.send_fds(sock, [_HEADER.pack(len(data))], list(fds))
    sock.sendall(data)


def _receive(sock: socket.socket) -> tuple[object, list[int]]:
    """(message, file descriptors that came with it); EOFError when the other end has closed."""
    header, fds, _, _ = socket.recv_fds(sock, _HEADER.size, 2)
    while header and len(header) < _HEADER.size:
        more = sock.recv(_HEADER.size - len(header))
        if not more:
            break
        header += more
    if len(header) < _HEADER.size:
        raise EOFError("the socket closed")
    (size,) = _HEADER.unpack(header)
    data = bytearray()
    while len(data) < size:
        more = sock.recv(size - len(data))
        if not more:
            raise EOFError("the socket closed")
        data += more
    return pickle.loads(data), fds


# ---------------------------------------------------------------- the server's side


def serve_forks(fd: int) -> None:
    """The fork server's loop (module docstring): import lpgame once, then fork and reap children
    on request until the parent closes the socket ``fd``."""
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sock = socket.socket(fileno=fd)
    preload()
    while True:
        try:
            message, fds = _receive(sock)
        except (OSError, EOFError):
            os._exit(0)
        try:
            if message[0] == "spawn":
                reply = _fork_child(sock, fds, *message[1:])
            else:
                reply = _reap(message[1])
        except Exception as exc:      # the parent raises it
            reply = OSError(f"{type(exc).__name__}: {exc}")
        finally:
            for received in fds:
                os.close(received)
        _send(sock, reply)


class _ForkedServer:
    """The process handle of a server forked from this process (as :class:`subprocess.Popen`'s)."""

    def __init__(self, pid: int):
        self.pid = pid

    def kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def wait(self) -> None:
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


_NO_SOLVE_YET = [False]


def declare_no_solve_yet() -> None:
    """Say that this process has run no solve (``lpgame sweep``'s command line, which has only
    imported lpgame and its concepts): the threads it holds are the BLAS libraries' idle ones, and
    :func:`can_fork_here` may answer True."""
    _NO_SOLVE_YET[0] = True


def can_fork_here() -> bool:
    """Whether this process may fork the server from itself once it has imported lpgame's
    concepts: it runs no Python thread but this one, and no other thread of the kernel's count
    yet (no solver's pool: nothing that a fork would copy half-way; Linux only), or only the BLAS
    libraries' idle threads (:func:`declare_no_solve_yet`). Those imports start only the BLAS
    libraries' idle threads, which their own fork handlers shut down at a fork."""
    if threading.active_count() != 1:
        return False
    if _NO_SOLVE_YET[0]:
        return True
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def preload() -> None:
    """Import what every child needs; a failure leaves it to the children (their first point)."""
    import importlib
    try:
        for module in PRELOAD:
            importlib.import_module(module)
        import lpgame
        lpgame.concepts()
    except Exception:     # shown again where a child imports it
        pass


def _fork_server(parent_end: socket.socket, server_end: socket.socket) -> _ForkedServer:
    """Fork the server from this process, which has imported what the children need (preload):
    the module docstring's server without a second import of lpgame."""
    parent = os.getpid()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    pid = os.fork()
    if pid:
        return _ForkedServer(pid)
    try:                          # the server: never returns
        parent_end.close()
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        os.close(devnull)
        os.environ[PARENT_VARIABLE] = str(parent)
        serve_forks(server_end.fileno())
    finally:
        os._exit(1)




def _fork_child(sock: socket.socket, fds: list[int], warm_up: str, env: dict, cwd: str,
                path: list[str]) -> int:
    if len(fds) != 2:
        raise ValueError(f"spawn needs 2 file descriptors, got {len(fds)}")
    server = os.getpid()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        return pid
    try:                          # the child: never returns
        sock.close()
        pipe_fd, stderr_fd = fds
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        os.dup2(stderr_fd, 2)
        for unused in (devnull, stderr_fd):
            os.close(unused)
        os.environ.clear()
        os.environ.update(env)
        os.environ[PARENT_VARIABLE] = str(server)
        try:
            os.chdir(cwd)
        except OSError:
            pass
        sys.path[:0] = [p for p in path if p not in sys.path]
        if "numpy.random" in sys.modules:     # not the server's random state in every child
            sys.modules["numpy.random"].seed()
        serve_points(pipe_fd, warm_up)
    finally:
        os._exit(1)


def _reap(pid: int) -> tuple[int | None, int]:
    try:
        _, status, usage = os.wait4(pid, 0)
    except ChildProcessError:
        return None, 0
    return status, int(usage.ru_maxrss)


# ---------------------------------------------------------------- the child's side


def status_kib(pid: int | str, field: str) -> int:
    """A ``kB`` figure of ``/proc/PID/status`` in bytes (0 where it is missing)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    found = re.search(rf"^{field}:\s+(\d+) kB", text, re.MULTILINE)
    return int(found[1]) * 1024 if found else 0


def peak_rss(pid: int | str) -> int:
    """The peak resident set (``VmHWM``) of a process in bytes (0 where it is missing)."""
    return status_kib(pid, "VmHWM")


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
    peak = peak_rss("self")
    if not reset or not peak:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    reply["peak_rss_bytes"] = peak
    grown = status_kib("self", "VmSize") - baseline
    reply["keep"] = reply.get("kind") != "MemoryError" and grown <= ADDRESS_SPACE_SLACK
    return reply


def serve_points(fd: int, warm_up: str) -> None:
    """A warm child's loop: run the warm-up, then each request from the pipe ``fd`` until it
    closes (then leave at once: nothing to flush or finalise)."""
    from multiprocessing.connection import Connection

    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # the parent decides when this child ends
    connection = Connection(fd)
    if warm_up:
        call_target(warm_up, {})         # a failure here shows again in the first point's row
    baseline = status_kib("self", "VmSize")
    while True:
        try:
            request = connection.recv()
        except (EOFError, OSError):
            request = None
        if request is None:
            sys.stderr.flush()
            os._exit(0)
        connection.send(_run_request(request, baseline))
