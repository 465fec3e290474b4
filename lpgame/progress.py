"""Progress of long work, reported from anywhere in lpgame and shown only when asked.

Code deep in the library (tree expansion, the solver's log, double-oracle and column-generation
rounds, CFR iterations, sweep points) calls :func:`report` with what it is doing and its figures::

    progress.report("double oracle", round=12, lower=-0.0561, upper=-0.0554)

and an entry point announces the stages of a run with :func:`stage` ("building", "solving").
Both do nothing unless a :class:`Reporter` is installed with :func:`reporting`: the library is
quiet unless asked. :func:`lpgame.solve` installs one for ``progress=`` (True: a live line on a
terminal; a callable ``f(what, figures)``; a :class:`Reporter`), and the ``lpgame`` command does
when standard error is a terminal (:func:`command_line_reporter`): one line per stage with its
start time, and below them one line of figures, redrawn four times a second (rich), that is erased
when the run ends. Output to a pipe or a file gets none of it. A reporter whose ``solver_log`` is
set also receives the solver's own log, line by line (``lpgame ... --verbose``).

>>> seen = []
>>> report("nothing installed: ignored", figure=1)
>>> with reporting(lambda what, figures: seen.append((what, figures))):
...     stage("building")
...     report("expanding the game tree", nodes=65536)
>>> seen
[('building', {}), ('expanding the game tree', {'nodes': 65536})]
>>> current() is None
True
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class Reporter:
    """What receives progress. This base class ignores everything (a silent reporter)."""

    solver_log: bool = False
    """Whether the solver's own log lines should come to :meth:`log`."""

    silent: bool = True
    """Whether it ignores everything (then reporting code may skip its work, such as asking the
    solver for its log)."""

    def stage(self, name: str) -> None:
        """A new stage of the run begins."""

    def update(self, what: str, figures: dict) -> None:
        """Figures of the work under way (the latest replace the earlier ones)."""

    def log(self, text: str) -> None:
        """One line of the solver's own log (only where :attr:`solver_log` is set)."""

    def finish(self) -> None:
        """The run's output follows: stop drawing (idempotent)."""


class CallbackReporter(Reporter):
    """Hands every stage and update to ``callback(what, figures)`` (a stage comes with no figures)."""

    silent = False

    def __init__(self, callback: Callable[[str, dict], None]):
        self.callback = callback

    def stage(self, name: str) -> None:
        self.callback(name, {})

    def update(self, what: str, figures: dict) -> None:
        self.callback(what, dict(figures))


class SolverLogReporter(Reporter):
    """Only the solver's own log, as plain lines on ``stream`` (``--verbose`` into a file or pipe)."""

    solver_log = True
    silent = False

    def __init__(self, stream=None):
        self.stream = stream

    def log(self, text: str) -> None:
        stream = self.stream or sys.stderr
        stream.write(text if text.endswith("\n") else text + "\n")
        stream.flush()


class TerminalProgress(Reporter):
    """Stage lines and one live line of figures on a terminal, drawn by rich.

    The live line shows a spinner, the stage, the latest figures and the seconds spent in the stage;
    rich redraws it ``refresh_per_second`` times a second from its own thread (HiGHS releases the
    interpreter while it solves), so it moves even while one long computation runs. Writes from
    Python to standard error during the run go above the live line.
    """

    silent = False

    def __init__(self, stream=None, solver_log: bool = False, refresh_per_second: float = 4.0):
        self.stream = stream if stream is not None else sys.stderr
        self.solver_log = solver_log
        self.refresh_per_second = refresh_per_second
        self.start = time.perf_counter()
        self.stage_name = ""
        self.stage_start = self.start
        self.latest: dict[str, dict] = {}     # what → its latest figures, in first-seen order
        self._live = None
        self._spinner = None
        self._finished = False
        self._lock = threading.Lock()

    def _started(self):
        """The live display, started on first use; None once :meth:`finish` has run."""
        with self._lock:
            if self._live is None and not self._finished:
                from rich.console import Console
                from rich.live import Live
                from rich.spinner import Spinner
                console = Console(file=self.stream, highlight=False, soft_wrap=False)
                self._spinner = Spinner("dots", text="")
                self._live = Live(console=console, get_renderable=self._render, transient=True,
                                  refresh_per_second=self.refresh_per_second,
                                  redirect_stdout=False,
                                  redirect_stderr=self.stream is sys.stderr)
                self._live.start()
            return self._live

    def _print(self, text: str) -> None:
        live = self._started()
        if live is not None:
            live.console.print(text, markup=False, highlight=False, soft_wrap=True)

    def stage(self, name: str) -> None:
        now = time.perf_counter()
        self.stage_name, self.stage_start, self.latest = name, now, {}
        self._print(f"[{now - self.start:7.2f}s] {name}")
        live = self._started()
        if live is not None:
            live.refresh()       # the live line names the new stage at once

    def update(self, what: str, figures: dict) -> None:
        latest = dict(self.latest)            # replaced whole: the drawing thread reads it
        latest[what] = dict(figures)
        while len(latest) > self.SHOWN:
            del latest[next(iter(latest))]
        self.latest = latest
        self._started()

    def log(self, text: str) -> None:
        self._print(text.rstrip("\n"))

    SHOWN = 2
    """How many kinds of work the live line shows (an outer loop and the solver inside it)."""

    def line(self) -> str:
        """The live line's text: the stage, each kind of work under way with its latest figures,
        and the seconds spent in the stage."""
        parts = [self.stage_name] if self.stage_name else []
        for what, figures in self.latest.items():
            shown = " · ".join(f"{key.replace('_', ' ')} {format_figure(value)}"
                               for key, value in figures.items())
            if shown:
                parts.append(f"{what}: {shown}")
            elif what != self.stage_name:
                parts.append(what)
        seconds = time.perf_counter() - self.stage_start
        return f"{' — '.join(parts) or 'working'} ({seconds:.1f} s)"

    def _render(self):
        from rich.text import Text
        self._spinner.update(text=Text(self.line(), no_wrap=True, overflow="ellipsis"))
        return self._spinner

    def finish(self) -> None:
        """Erase the live line and stop drawing; what is reported afterwards is dropped."""
        with self._lock:
            live, self._live, self._finished = self._live, None, True
        if live is not None:
            live.stop()


def format_figure(value) -> str:
    """A figure for the live line: integers with thousands separators, floats to 6 digits."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


_current: Reporter | None = None


def current() -> Reporter | None:
    """The installed reporter, or None (progress is ignored)."""
    return _current


def listening() -> Reporter | None:
    """The installed reporter unless there is none or it is silent: for code that would do extra
    work to report (subscribe to the solver's log)."""
    reporter = _current
    return None if reporter is None or reporter.silent else reporter


def report(what: str, **figures) -> None:
    """Figures of the work under way, for the installed reporter; nothing when none is installed.

    Cheap enough for a loop: without a reporter it returns at once; with one it stores the figures,
    which the display reads when it next redraws."""
    reporter = _current
    if reporter is not None:
        reporter.update(what, figures)


def stage(name: str) -> None:
    """A new stage of the run ("building kuhn_poker", "solving"), for the installed reporter."""
    reporter = _current
    if reporter is not None:
        reporter.stage(name)


def finish() -> None:
    """Stop drawing progress: the run's results are printed next."""
    reporter = _current
    if reporter is not None:
        reporter.finish()


def as_reporter(progress) -> Reporter | None:
    """The reporter for a ``progress=`` argument: None keeps whatever is installed (None returned),
    False silences, True draws on standard error when it is a terminal, a callable receives
    ``(what, figures)``, a :class:`Reporter` is used as it is."""
    if progress is None:
        return None
    if progress is False:
        return Reporter()
    if progress is True:
        return TerminalProgress() if stream_is_terminal(sys.stderr) else Reporter()
    if isinstance(progress, Reporter):
        return progress
    if callable(progress):
        return CallbackReporter(progress)
    from lpgame.errors import OptionError
    raise OptionError(f"progress must be True, False, a callable f(what, figures) or a Reporter; "
                      f"got {type(progress).__name__}")


@contextmanager
def reporting(progress) -> Iterator[Reporter | None]:
    """Install the reporter of ``progress`` (see :func:`as_reporter`) for the ``with`` block, then
    finish it and put the previous one back. ``progress=None`` changes nothing."""
    global _current
    reporter = as_reporter(progress)
    if reporter is None:
        yield _current
        return
    previous, _current = _current, reporter
    try:
        yield reporter
    finally:
        _current = previous
        reporter.finish()


def stream_is_terminal(stream) -> bool:
    """Whether ``stream`` is an open terminal (not a pipe, a file or an in-memory buffer)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):     # closed, or not a real file
        return False


def command_line_reporter(quiet: bool = False, verbose: bool = False, stream=None) -> Reporter:
    """The ``lpgame`` command's reporter: with ``quiet`` a silent one; on a terminal the live
    display (with the solver's log above it under ``verbose``); elsewhere the solver's log alone
    under ``verbose``, else a silent one, so that pipes and files stay clean."""
    stream = stream if stream is not None else sys.stderr
    if quiet:
        return Reporter()
    if stream_is_terminal(stream):
        return TerminalProgress(stream, solver_log=verbose)
    return SolverLogReporter(stream) if verbose else Reporter()


__all__ = ["Reporter", "CallbackReporter", "SolverLogReporter", "TerminalProgress", "report",
           "stage", "finish", "current", "listening", "reporting", "as_reporter", "command_line_reporter",
           "format_figure", "stream_is_terminal"]
