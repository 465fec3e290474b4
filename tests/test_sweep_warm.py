"""Warm child processes (lpgame.sweep.warm): one child takes point after point, and each point keeps
its own memory cap, time limit, peak memory figure and environment; a point that breaks a child
(a kill at the time limit, a crash, a MemoryError, memory it keeps) leaves the next point a fresh one.

The targets below run inside the children (imported there as ``tests.test_sweep_warm``).
"""

from __future__ import annotations

import os
import time

import pytest

import lpgame
from lpgame.games import make
from lpgame.sweep.points import SweepPoint
from lpgame.sweep.task import WARM_UP_TARGET, run_point_task
from lpgame.sweep.warm import ADDRESS_SPACE_SLACK, WarmChild, WarmPool, fork_server, shared_pool

HERE = "tests.test_sweep_warm"
_KEPT: list[bytearray] = []


# ---------------------------------------------------------------- targets (run in the children)


def report(variable: str = "LPGAME_MEMORY_LIMIT") -> dict:
    """The child's process id, its parent's, an environment variable, its working directory and
    whether lpgame's concepts were imported before the child ran anything."""
    import sys
    return {"pid": os.getpid(), "parent": os.getppid(), "value": os.environ.get(variable),
            "cwd": os.getcwd(), "preloaded": "lpgame.sweep.child" in sys.modules}


def touch_memory(mib: int) -> dict:
    """Allocate and write ``mib`` MiB, then let it go."""
    block = bytearray(mib << 20)
    block[::4096] = b"x" * len(block[::4096])
    return {"pid": os.getpid()}


def keep_memory(mib: int) -> dict:
    """Allocate ``mib`` MiB and keep it (a cache that grows)."""
    _KEPT.append(bytearray(mib << 20))
    return {"pid": os.getpid()}


def sleep(seconds: float) -> dict:
    time.sleep(seconds)
    return {"pid": os.getpid()}


def linear_algebra() -> dict:
    """numpy's and scipy's BLAS and LAPACK with their threads, in a forked child."""
    import numpy as np
    import scipy.linalg
    a = np.random.default_rng(0).random((400, 400)) + 400 * np.eye(400)
    x = scipy.linalg.solve(a, a @ np.ones(400))
    return {"error": float(np.abs(x - 1).max())}


def crash() -> dict:
    print("about to crash", file=__import__("sys").stderr, flush=True)
    os.abort()


# ---------------------------------------------------------------- the pool


@pytest.fixture
def pool():
    warm = WarmPool()
    yield warm
    warm.close()


def test_points_reuse_one_child_and_each_gets_its_own_environment(pool, monkeypatch):
    monkeypatch.setenv("LPGAME_MEMORY_LIMIT", "7G")
    first = pool.run(f"{HERE}:report", env={"LPGAME_MEMORY_LIMIT": "100M"})
    second = pool.run(f"{HERE}:report", env={"LPGAME_MEMORY_LIMIT": "200M"})
    third = pool.run(f"{HERE}:report")
    assert [r.status for r in (first, second, third)] == ["ok", "ok", "ok"]
    assert first.data["pid"] == second.data["pid"] == third.data["pid"] == first.pid
    assert first.pid != os.getpid() and pool.idle == 1
    # each point sees its own value, and the next point without one sees the child's own again
    assert [first.data["value"], second.data["value"], third.data["value"]] == ["100M", "200M",
                                                                               "7G"]


def test_each_point_reports_its_own_peak_memory(pool):
    big = pool.run(f"{HERE}:touch_memory", {"mib": 300})
    small = pool.run(f"{HERE}:touch_memory", {"mib": 1})
    assert big.pid == small.pid                            # the same child, peak reset between
    assert big.peak_rss_bytes - small.peak_rss_bytes > 250 << 20
    assert small.peak_rss_bytes > 5 << 20                  # the interpreter counts, as before


def test_a_point_past_its_time_limit_is_killed_and_the_next_point_gets_a_new_child(pool):
    slow = pool.run(f"{HERE}:sleep", {"seconds": 60}, timeout=1.0)
    assert slow.status == "timeout" and "1 s" in slow.error and slow.wall_seconds < 30
    with pytest.raises(ProcessLookupError):
        os.kill(slow.pid, 0)                               # killed and reaped
    after = pool.run(f"{HERE}:sleep", {"seconds": 0})
    assert after.status == "ok" and after.data["pid"] != slow.pid


def test_a_memory_error_under_the_cap_retires_the_child_and_the_cap_is_per_point(pool):
    refused = pool.run(f"{HERE}:touch_memory", {"mib": 3000}, memory_cap=2 << 30)
    assert refused.status == "out of memory" and "2.0 GiB" in refused.error
    assert pool.idle == 0                                  # not kept after a MemoryError
    # the same request without a cap, in a fresh child: the cap was that point's alone
    allowed = pool.run(f"{HERE}:touch_memory", {"mib": 300}, memory_cap=None)
    assert allowed.status == "ok" and allowed.pid != refused.pid
    capped = pool.run(f"{HERE}:touch_memory", {"mib": 3000}, memory_cap=2 << 30)
    assert capped.status == "out of memory"


def test_a_crash_is_a_crashed_result_with_what_the_child_wrote(pool):
    crashed = pool.run(f"{HERE}:crash")
    assert crashed.status == "crashed"
    assert "signal 6" in crashed.error and "about to crash" in crashed.error
    assert pool.run(f"{HERE}:report").status == "ok"


def test_a_child_that_keeps_memory_is_replaced_after_its_point(pool):
    kept = pool.run(f"{HERE}:keep_memory", {"mib": (ADDRESS_SPACE_SLACK >> 20) + 64})
    assert kept.status == "ok" and pool.idle == 0          # its address space grew past the slack
    small = pool.run(f"{HERE}:keep_memory", {"mib": 1})
    assert small.pid != kept.pid and pool.idle == 1


def test_children_started_ahead_wait_idle_and_are_not_started_twice(pool):
    pool.start(2, wait=True)
    assert pool.idle == 2
    pids = {pool.run(f"{HERE}:report").pid, pool.run(f"{HERE}:report").pid}
    assert len(pids) == 1                       # one thread: the same idle child each time
    pool.start(2)                               # already two idle: none started
    assert pool.idle == 2


def test_closing_the_pool_with_kill_busy_ends_the_running_points(pool):
    import threading
    results = []
    runner = threading.Thread(target=lambda: results.append(
        pool.run(f"{HERE}:sleep", {"seconds": 120})))
    runner.start()
    deadline = time.monotonic() + 60
    while pool.busy == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.5)
    pool.close(kill_busy=True)
    runner.join(timeout=60)
    assert not runner.is_alive() and results[0].status == "crashed"
    assert "signal 9" in results[0].error and pool.idle == pool.busy == 0


def test_a_closed_child_refuses_work_and_leaves_no_process():
    child = WarmChild()
    assert child.run(f"{HERE}:report").status == "ok"
    child.close()
    assert child.process.returncode is not None and not child.alive
    with pytest.raises(ProcessLookupError):
        os.kill(child.pid, 0)                              # killed and reaped
    with pytest.raises(RuntimeError, match="ended"):
        child.run(f"{HERE}:report")


# ---------------------------------------------------------------- the fork server


def _gone(pid: int) -> bool:
    """Whether a process has ended (a zombie waiting for init counts as ended)."""
    try:
        text = open(f"/proc/{pid}/status").read()     # noqa: SIM115
    except OSError:
        return True
    return "\nState:\tZ" in text


def _wait_gone(pid: int, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return _gone(pid)


def test_children_are_forked_by_one_server_that_imported_lpgame_before(pool):
    server = fork_server()
    first = pool.run(f"{HERE}:report")
    killed = pool.run(f"{HERE}:sleep", {"seconds": 60}, timeout=0.5)
    second = pool.run(f"{HERE}:report")
    assert first.status == second.status == "ok" and killed.status == "timeout"
    assert first.pid != second.pid                        # a new child after the kill
    assert first.data["parent"] == second.data["parent"] == server.process.pid != os.getpid()
    assert first.data["preloaded"] and second.data["preloaded"]
    assert fork_server() is server


def test_blas_and_lapack_work_in_a_forked_child(pool):
    out = pool.run(f"{HERE}:linear_algebra", timeout=120)
    assert out.status == "ok" and out.data["error"] < 1e-9


def test_a_child_takes_the_environment_and_directory_of_the_moment_it_is_asked_for(
        pool, monkeypatch, tmp_path):
    fork_server()                                          # started before the changes below
    monkeypatch.setenv("LPGAME_TEST_VARIABLE", "asked")
    monkeypatch.chdir(tmp_path)
    out = pool.run(f"{HERE}:report", {"variable": "LPGAME_TEST_VARIABLE"})
    assert out.status == "ok" and out.data["value"] == "asked"
    assert os.path.samefile(out.data["cwd"], tmp_path)


def test_ctrl_c_does_not_end_the_server_or_its_children(pool):
    import signal
    before = pool.run(f"{HERE}:report")
    os.kill(fork_server().process.pid, signal.SIGINT)
    os.kill(before.pid, signal.SIGINT)
    time.sleep(0.3)
    after = pool.run(f"{HERE}:report")
    assert after.status == "ok" and after.pid == before.pid
    assert after.data["parent"] == fork_server().process.pid


def _assert_server_and_child_die_with_the_killed_parent(script: str) -> None:
    """Run ``script`` (it prints the fork server's and a child's pid, then SIGKILLs itself) in a
    fresh Python and check that both processes are gone afterwards."""
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == -9, done.stderr
    server, child = (int(x) for x in done.stdout.split())
    assert _wait_gone(server) and _wait_gone(child)


def test_the_server_and_its_children_die_with_their_parent(tmp_path):
    script = (
        "import os, signal\n"
        "from lpgame.sweep.warm import WarmPool, fork_server\n"
        "pool = WarmPool()\n"
        "pool.start(2, wait=True)\n"
        f"out = pool.run('{HERE}:report')\n"
        "print(fork_server().process.pid, out.pid, flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n")
    _assert_server_and_child_die_with_the_killed_parent(script)


def test_a_sweep_in_a_process_of_one_thread_forks_its_server_which_dies_with_it():
    script = (
        "import os, signal, threading\n"
        "from lpgame.sweep import sweep\n"
        "from lpgame.sweep.forkserver import can_fork_here\n"
        "assert can_fork_here()\n"
        "result = sweep('one_card_poker', {'N': '2..4'}, workers=1, progress=False)\n"
        "from lpgame.sweep.warm import fork_server, shared_pool\n"
        "from lpgame.sweep.task import WARM_UP_TARGET\n"
        f"out = shared_pool(WARM_UP_TARGET).run('{HERE}:report')\n"
        "server = fork_server()\n"
        "assert out.data['parent'] == server.process.pid != os.getpid(), out\n"
        "assert out.data['preloaded'], out\n"
        "assert type(server.process).__name__ == '_ForkedServer'\n"
        "assert [r['status'] for r in result.rows] == ['solved'] * 3, result.summary()\n"
        "assert not can_fork_here()       # threads now (the cluster's, the launcher's)\n"
        "print(server.process.pid, out.pid, flush=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n")
    _assert_server_and_child_die_with_the_killed_parent(script)


def test_closing_a_child_still_being_forked_returns_at_once_and_ends_it_later():
    from lpgame.sweep.warm import close_fork_server
    close_fork_server()
    child = WarmChild()                 # the new server is still importing lpgame
    child.close()
    assert not child.alive
    deadline = time.monotonic() + 120
    while child.process.returncode is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert child.process.returncode is not None and _wait_gone(child.pid)


def test_a_server_that_has_gone_is_replaced(pool):
    old = fork_server()
    first = pool.run(f"{HERE}:report")
    old.process.kill()
    assert _wait_gone(first.pid)                           # its children die with it
    results = [pool.run(f"{HERE}:report") for _ in range(2)]
    assert results[-1].status == "ok"                      # (the first may find its child gone)
    assert fork_server() is not old and results[-1].data["parent"] == fork_server().process.pid


# ---------------------------------------------------------------- sweep tasks in warm children


def test_sweep_tasks_in_a_warm_child_give_the_rows_of_fresh_children():
    point = SweepPoint("family", "one_card_poker", {"N": 7}).to_dict()
    settings = {"concept": "nash", "task_memory": 500 << 20}
    warm = [run_point_task(point, settings) for _ in range(2)]
    fresh = run_point_task(point, {**settings, "fresh_child": True})
    single = lpgame.solve(make("one_card_poker", N=7))
    assert warm[0]["worker"] == warm[1]["worker"] != fresh["worker"]    # one warm child, reused
    for row in (*warm, fresh):
        assert row["status"] == "solved"
        assert row["value"] == pytest.approx(float(single.value), abs=1e-12)
        assert row["peak_mib"] > 10
    too_large = run_point_task(SweepPoint("family", "one_card_poker", {"N": 5000}).to_dict(),
                               {"concept": "nash", "task_memory": 100 << 20})
    assert too_large["status"] == "too_large" and "100.0 MiB" in too_large["error"]
    assert shared_pool(WARM_UP_TARGET).idle >= 1
    shared_pool(WARM_UP_TARGET).close()
    assert shared_pool(WARM_UP_TARGET).idle == 0
