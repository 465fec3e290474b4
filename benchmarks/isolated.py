"""Run one benchmark case in its own child process: lpgame's child-process runner, from the benchmarks.

The runner itself is :mod:`lpgame.sweep.isolation` (wall-clock limit, address-space cap, the child's
own peak memory from :func:`os.wait4`, figures noted before a kill); a sweep runs every point through
it on Dask workers (:mod:`lpgame.sweep`), and ``benchmarks/bench_tables.py`` is such a sweep. The
other benchmarks still run their rows one after another through :func:`run_isolated`, from the
repository root so that their ``benchmarks.*`` targets import.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parent.parent
if str(REPOSITORY) not in sys.path:
    sys.path.insert(0, str(REPOSITORY))

from lpgame.sweep.isolation import ChildResult, gib, note_progress  # noqa: E402
from lpgame.sweep.isolation import run_isolated as _run_isolated  # noqa: E402

__all__ = ["ChildResult", "gib", "note_progress", "run_isolated", "REPOSITORY"]


def run_isolated(target: str, kwargs: dict | None = None, timeout: float = 600.0,
                 memory_cap: int | None = None, env: dict | None = None) -> ChildResult:
    """Run ``target`` (``"module:function"``) with ``kwargs`` in a child process started in the
    repository root (see :func:`lpgame.sweep.isolation.run_isolated`)."""
    return _run_isolated(target, kwargs, timeout=timeout, memory_cap=memory_cap, env=env,
                         cwd=REPOSITORY)
