"""Sweeps: a family of games over a parameter grid, a list of game files, or a pile of strategy files,
solved (or evaluated) one Dask task per point, into one table.

    from lpgame.sweep import sweep
    table = sweep("one_card_poker", {"N": "2..200"}, out="ocp.parquet", plot="ocp.png")

Each point runs in a child process of a Dask worker (a warm one, which takes point after point),
under a memory limit (lpgame's own prediction first, then an address-space cap) and a time limit,
and ends as one row of the table, solved or with its status and error (:mod:`lpgame.sweep.task`).
Rows are written as they finish; ``resume=True`` runs only the points without one. Modules:
:mod:`~lpgame.sweep.points` (grids and point identifiers), :mod:`~lpgame.sweep.child` (one point
inside its child process), :mod:`~lpgame.sweep.warm` (warm child processes),
:mod:`~lpgame.sweep.isolation` (a fresh child process), :mod:`~lpgame.sweep.task` (the Dask task),
:mod:`~lpgame.sweep.table` (CSV/Parquet), :mod:`~lpgame.sweep.runner` (the Dask client, progress,
resume), :mod:`~lpgame.sweep.plot` and :mod:`~lpgame.sweep.command` (``lpgame sweep``).

This package imports Dask only when a sweep runs, so that the child processes start quickly.
"""

from __future__ import annotations

import sys
import types

from lpgame.sweep.points import SweepPoint


def sweep(*args, **kwargs):
    """Run a sweep; see :func:`lpgame.sweep.runner.sweep` for the arguments."""
    from lpgame.sweep.runner import sweep as run
    return run(*args, **kwargs)


def __getattr__(name: str):
    if name in ("SweepResult",):
        from lpgame.sweep import runner
        return getattr(runner, name)
    if name in ("read_table",):
        from lpgame.sweep import table
        return getattr(table, name)
    if name in ("add_sweep_parser", "run_sweep_command"):
        from lpgame.sweep import command
        return getattr(command, name)
    raise AttributeError(f"module 'lpgame.sweep' has no attribute {name!r}")


class _CallableModule(types.ModuleType):
    """``lpgame.sweep(...)`` runs a sweep whether ``lpgame.sweep`` names this package (as it does once
    any of its modules is imported) or the function."""

    def __call__(self, *args, **kwargs):
        return sweep(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule

__all__ = ["SweepPoint", "sweep", "SweepResult", "read_table", "add_sweep_parser",
           "run_sweep_command"]
