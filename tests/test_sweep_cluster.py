"""lpgame.sweep on Dask clusters: a local cluster from the command line, a scheduler and two workers
started here on 127.0.0.1, a sweep killed halfway and resumed, a sweep with failing points.

Every value is checked against single solves (``lpgame.solve``) and its certificate (NashConv by
independent best responses); One-Card Poker with 3 cards is Kuhn poker, whose value is -1/18
(Kuhn 1950).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import lpgame
from lpgame.games import make
from lpgame.sweep import SweepPoint, add_sweep_parser, read_table, run_sweep_command, sweep
from lpgame.sweep.task import WARM_UP_TARGET
from lpgame.sweep.warm import shared_pool

pytestmark = pytest.mark.slow        # Dask clusters and child processes: about a minute of CPU
REPOSITORY = Path(__file__).resolve().parent.parent
OCP_RANGE = range(2, 13)
COMPARED = ("point", "N", "status", "value", "values", "rows", "cols", "nnz", "nodes",
            "payoff_range", "concept", "exact")


def _args(argv):
    parser = argparse.ArgumentParser(prog="lpgame")
    add_sweep_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["sweep", *argv])


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPOSITORY)] + ([env["PYTHONPATH"]]
                                                             if env.get("PYTHONPATH") else []))
    return env


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    """``lpgame sweep one_card_poker N=2..12 --workers 2`` on a local cluster, table and plot."""
    tmp = tmp_path_factory.mktemp("local")
    out, plot = tmp / "ocp.parquet", tmp / "ocp.png"
    rc = run_sweep_command(_args(["one_card_poker", f"N={OCP_RANGE[0]}..{OCP_RANGE[-1]}",
                                  "--concept", "nash", "--workers", "2", "--out", str(out),
                                  "--plot", str(plot), "--quiet"]))
    return rc, out, plot


@pytest.fixture(scope="module")
def loopback_cluster(tmp_path_factory):
    """A ``dask scheduler`` and two ``dask worker`` processes on 127.0.0.1; their scheduler file."""
    from distributed import Client

    dask = shutil.which("dask", path=str(Path(sys.executable).parent)) or shutil.which("dask")
    if dask is None:
        pytest.fail("the dask command is not installed next to this Python")
    tmp = tmp_path_factory.mktemp("dask")
    scheduler_file = tmp / "scheduler.json"
    log = open(tmp / "dask.log", "wb")
    started: list[subprocess.Popen] = []
    try:
        started.append(subprocess.Popen(
            [dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", str(scheduler_file)], env=_env(), stdout=log, stderr=log))
        deadline = time.monotonic() + 90
        while not scheduler_file.exists():
            if time.monotonic() > deadline or started[0].poll() is not None:
                pytest.fail("dask scheduler did not start: "
                            + (tmp / "dask.log").read_text(errors="replace")[-2000:])
            time.sleep(0.1)
        for _ in range(2):
            started.append(subprocess.Popen(
                [dask, "worker", "--scheduler-file", str(scheduler_file), "--host", "127.0.0.1",
                 "--nworkers", "1", "--nthreads", "1", "--no-dashboard", "--memory-limit", "0"],
                env=_env(), stdout=log, stderr=log))
        with Client(scheduler_file=str(scheduler_file), timeout=60) as client:
            client.wait_for_workers(2, timeout=120)
            addresses = list(client.scheduler_info()["workers"])
        assert all(a.startswith("tcp://127.0.0.1:") for a in addresses), addresses
        yield str(scheduler_file)
    finally:
        for process in reversed(started):        # the processes started here, by their ids
            process.send_signal(signal.SIGTERM)
        for process in reversed(started):
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        log.close()


def _compared(rows):
    return [{k: r.get(k) for k in COMPARED} for r in rows]


def test_local_sweep_from_the_command_line_is_certified_and_equals_single_solves(local_run):
    rc, out, plot = local_run
    assert rc == 0
    rows = read_table(out)
    assert sorted(r["N"] for r in rows) == list(OCP_RANGE)
    assert len({r["worker"] for r in rows}) >= 1           # the warm children that ran the points
    assert shared_pool(WARM_UP_TARGET).idle == 0            # and ended with the local cluster
    for row in rows:
        assert row["status"] == "solved", row
        single = lpgame.solve(make("one_card_poker", N=row["N"]))
        assert row["value"] == pytest.approx(float(single.value), abs=1e-9)
        assert row["nash_conv"] <= 1e-9 * row["payoff_range"]
        assert (row["rows"], row["cols"], row["nnz"]) == (single.size["rows"], single.size["cols"],
                                                          single.size["nnz"])
        assert row["peak_mib"] > 10 and row["seconds"] > 0
    kuhn = next(r for r in rows if r["N"] == 3)
    assert kuhn["value"] == pytest.approx(-1 / 18, abs=1e-12)
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and plot.stat().st_size > 10_000


def test_a_scheduler_and_two_workers_on_loopback_give_the_local_table(local_run, loopback_cluster,
                                                                        tmp_path):
    _, local_out, _ = local_run
    n_range = OCP_RANGE[:6]                   # the same sweep over N=2..7, to keep the test short
    result = sweep("one_card_poker", {"N": f"{n_range[0]}..{n_range[-1]}"},
                   scheduler=loopback_cluster, out=tmp_path / "remote.csv", progress=False)
    local = sorted((r for r in read_table(local_out) if r["N"] in n_range), key=lambda r: r["N"])
    remote = sorted(read_table(tmp_path / "remote.csv"), key=lambda r: r["N"])
    assert _compared(remote) == _compared(local)
    assert _compared(result.rows) == _compared(local)
    assert {r["worker"] for r in remote}.isdisjoint({r["worker"] for r in local})


def test_a_sweep_killed_halfway_resumes_with_only_the_missing_points(loopback_cluster, tmp_path):
    """Three quick points, then four that take about a second each: with warm workers the quick
    ones finish within a fraction of a second, so the kill comes while the slow ones run."""
    out = tmp_path / "killed.parquet"
    n_range = [2, 3, 4, 2000, 2500, 3000, 3500]
    command = [sys.executable, "-m", "lpgame.sweep.command", "one_card_poker",
               "N=2..4,2000..3500:500", "--scheduler", loopback_cluster, "--out", str(out),
               "--quiet"]
    errors = open(tmp_path / "sweep.err", "wb")
    sweeper = subprocess.Popen(command, env=_env(), stdout=subprocess.DEVNULL, stderr=errors)
    deadline = time.monotonic() + 300
    try:
        while not (out.exists() and len(read_table(out)) >= 2):
            assert sweeper.poll() is None, ("the sweep ended before it could be killed: "
                                            + (tmp_path / "sweep.err").read_text()[-1500:])
            assert time.monotonic() < deadline, "the sweep wrote no rows in time"
            time.sleep(0.1)
    finally:
        sweeper.kill()                           # the sweep started here, by its id
        sweeper.wait()
        errors.close()
    before = read_table(out)
    finished = {r["point"] for r in before}
    assert 2 <= len(finished) < len(n_range)
    result = sweep("one_card_poker", {"N": n_range}, scheduler=loopback_cluster, out=out,
                   resume=True, progress=False)
    assert set(result.skipped) == finished
    assert set(result.ran) == {f"one_card_poker N={n}" for n in n_range} - finished
    after = read_table(out)
    assert sorted(r["N"] for r in after) == n_range                  # every point once
    kept = {r["point"]: r["finished_at"] for r in after if r["point"] in finished}
    assert kept == {r["point"]: r["finished_at"] for r in before}    # not solved again
    for row in after:
        assert row["status"] == "solved"
        assert row["value"] == pytest.approx(float(lpgame.solve(make("one_card_poker",
                                                                     N=row["N"])).value), abs=1e-9)


def test_points_too_large_timed_out_or_with_bad_parameters_are_marked_rows(loopback_cluster,
                                                                           tmp_path):
    good = [SweepPoint("family", "one_card_poker", {"N": n}) for n in (3, 4)]
    bad_value = SweepPoint("family", "one_card_poker", {"N": 1})
    bad_type = SweepPoint("family", "one_card_poker", {"N": "abc"})
    too_large = SweepPoint("family", "one_card_poker", {"N": 5000})      # LP of ~114 MiB
    too_slow = SweepPoint("family", "dudo", {"K": 3, "D1": 2, "D2": 2})  # HiGHS needs > 1 s
    points = [good[0], bad_value, too_large, too_slow, bad_type, good[1]]
    result = sweep(points=points, scheduler=loopback_cluster, task_memory="100M",
                   task_time_limit=1.0, out=tmp_path / "failures.csv", progress=False)
    status = {r["point"]: r for r in read_table(tmp_path / "failures.csv")}
    assert len(status) == len(points)
    for point in good:
        row = status[point.id]
        assert row["status"] == "solved"
        assert row["value"] == pytest.approx(float(lpgame.solve(make(point.game, **point.params))
                                                   .value), abs=1e-9)
    assert status[bad_value.id]["status"] == "invalid"
    assert "OptionError" in status[bad_value.id]["error"]   # below the declared range (issue 19)
    assert status[bad_type.id]["status"] == "invalid"
    assert status[too_large.id]["status"] == "too_large"
    assert "ModelTooLargeError" in status[too_large.id]["error"]
    assert status[too_slow.id]["status"] == "time_limit"
    assert [r["point"] for r in result.failed] == [p.id for p in points[1:5]]
