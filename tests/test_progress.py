"""Progress of long work (lpgame.progress): a live display on a terminal, nothing in pipes and files,
nothing from the library unless asked; ``--quiet`` silences everything and ``--verbose`` shows the
solver's own log."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time

import pytest

import lpgame
from lpgame import progress

LONG_SOLVE = ["solve", "leduc_poker", "ranks=13", "bets=3"]
"""About 17 s of CPU on the 2-core machine: a large tree expanded in Python, then HiGHS (Leduc with
13 ranks and 2 bets became too quick, 5 s, once trees were built flat)."""

ENV = {**os.environ, "TERM": "xterm", "COLUMNS": "120", "PYTHONWARNINGS": "ignore"}


def run_with_terminal_stderr(*argv: str, timeout: float = 300) -> tuple[int, list[tuple[float, bytes]]]:
    """Run ``lpgame argv`` with standard error on a pseudo-terminal (standard output to the null
    device); the exit status and every chunk read from the terminal with the second it came."""
    pty = pytest.importorskip("pty")           # POSIX only
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "lpgame", *argv], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=slave, env=ENV)
    os.close(slave)
    chunks, start = [], time.monotonic()
    try:
        while time.monotonic() - start < timeout:
            ready, _, _ = select.select([master], [], [], 0.2)
            if ready:
                try:
                    data = os.read(master, 65536)
                except OSError:          # the child closed the terminal (Linux: EIO)
                    break
                if not data:
                    break
                chunks.append((time.monotonic(), data))
            elif proc.poll() is not None:
                break
        status = proc.wait(timeout=max(timeout - (time.monotonic() - start), 1))
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    chunks.append((time.monotonic(), b""))     # the exit, for the last gap
    return status, chunks


def run_with_pipes(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lpgame", *argv], capture_output=True, text=True,
                          env=ENV, timeout=300)


# ------------------------------------------------------------------------------------ the library
def test_report_without_a_reporter_does_nothing(capfd):
    progress.report("anything", figure=1)
    progress.stage("a stage")
    lpgame.solve(lpgame.games.make("kuhn_poker"))
    assert capfd.readouterr() == ("", "")


def test_solve_reports_to_a_callable_and_restores_the_previous_reporter():
    seen = []
    lpgame.solve("leduc_poker", progress=lambda what, figures: seen.append((what, figures)))
    whats = [what for what, _ in seen]
    assert "expanding the game tree" in whats and "compiling the sequence form" in whats
    solver = [figures for what, figures in seen if what.startswith("HiGHS")]
    assert any("iteration" in figures for figures in solver)
    assert progress.current() is None


def test_the_terminal_display_is_drawn_only_on_a_terminal():
    assert isinstance(progress.as_reporter(True), progress.Reporter)
    assert not isinstance(progress.command_line_reporter(stream=open(os.devnull, "w")),
                          progress.TerminalProgress)
    assert progress.command_line_reporter(quiet=True, verbose=True).silent
    assert isinstance(progress.command_line_reporter(verbose=True, stream=open(os.devnull, "w")),
                      progress.SolverLogReporter)


def test_live_line_names_the_stage_and_its_figures():
    reporter = progress.TerminalProgress(stream=open(os.devnull, "w"))
    try:
        reporter.stage("solving")
        reporter.update("double oracle", {"round": 12, "lower": -0.05555555555, "kept": "3+4"})
        line = reporter.line()
    finally:
        reporter.finish()
    assert line.startswith("solving — double oracle: round 12 · lower -0.0555556 · kept 3+4 (")


def test_a_bad_progress_argument_is_refused():
    with pytest.raises(lpgame.LpgameError, match="progress must be"):
        lpgame.solve("kuhn_poker", progress="yes")


# ------------------------------------------------------------------------------------ the command
@pytest.mark.slow
def test_a_long_solve_shows_progress_on_a_terminal_at_least_every_five_seconds():
    status, chunks = run_with_terminal_stderr(*LONG_SOLVE)
    assert status == 0
    text = b"".join(data for _, data in chunks).decode(errors="replace")
    assert "building leduc_poker" in text and "expanding the game tree" in text
    assert "solving" in text and "HiGHS" in text
    times = [t for t, _ in chunks]
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert times[-1] - times[0] > 5, "the run is too short to show anything"
    assert max(gaps) <= 5.0, f"no progress for {max(gaps):.1f} s"


def test_nothing_on_standard_error_when_it_is_a_pipe():
    proc = run_with_pipes("solve", "leduc_poker", "ranks=6", "--json", "-")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert json.loads(proc.stdout)["concept"] == "nash"


def test_quiet_prints_nothing_on_a_terminal_either():
    status, chunks = run_with_terminal_stderr("solve", "kuhn_poker", "--quiet", "--verbose")
    assert status == 0
    assert b"".join(data for _, data in chunks) == b""


def test_verbose_shows_the_solver_log_and_keeps_standard_output_clean():
    proc = run_with_pipes("solve", "kuhn_poker", "--verbose", "--json", "-")
    assert proc.returncode == 0, proc.stderr
    assert "Model status" in proc.stderr and "Objective value" in proc.stderr
    assert json.loads(proc.stdout)["value"] is not None


def test_verbose_on_a_terminal_shows_the_log_above_the_progress():
    status, chunks = run_with_terminal_stderr("solve", "kuhn_poker", "--verbose")
    text = b"".join(data for _, data in chunks).decode(errors="replace")
    assert status == 0
    assert "building kuhn_poker" in text and "Model status" in text
