"""``lpgame sweep``: the command-line side of :func:`lpgame.sweep.sweep`.

    lpgame sweep GAME KEY=VALUES ... [options]        a catalog family over a parameter grid
    lpgame sweep FILE.efg FILE.nfg ... [options]        a list of game files
    lpgame sweep verify GAME [key=value ...] STRATEGY.json ... [options]
                                                       the exploitability of each strategy file

VALUES is ``A..B``, ``A..B:STEP``, ``X,Y,Z`` or one value (:mod:`lpgame.sweep.points`), e.g.
``lpgame sweep one_card_poker N=2..2000 --concept nash`` or ``lpgame sweep dudo K=3..6 D1=1..2
D2=1..2``. Options: ``--out PATH`` (``.csv`` or ``.parquet``; default ``sweep_GAME.csv``),
``--resume``, ``--retry-failed``, ``--plot PATH``, ``--scheduler ADDRESS`` (or a scheduler file),
``--workers N``, ``--task-memory BYTES`` (``2G``), ``--task-time-limit S``, ``--exact``,
``--backend``, ``--solver``, ``--threads``, ``--fresh-child``, ``--in-worker``, ``--missing``,
``--json PATH|-``, ``--quiet``, and ``lpgame solve``'s ``--concept`` with every option of the
registered concepts (``--algorithm``, ``--objective``, ``--team``, ``--leader``, ``--refinement``,
``--worst``, ...; :func:`lpgame.registry.add_concept_flags`). The table's summary goes to standard output,
progress to standard error; errors are :class:`~lpgame.errors.LpgameError` (one ``lpgame: error:``
line from the ``lpgame`` command).

The ``lpgame`` command adds it with ``add_sweep_parser(sub, deferred=True)`` and runs it with
:func:`run_sweep_command`.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from lpgame.errors import OptionError

_GAME_FILE_SUFFIXES = (".efg", ".nfg")


def add_sweep_parser(subparsers, deferred: bool = False) -> argparse.ArgumentParser:
    """Add the ``sweep`` subcommand to an ``argparse`` subparsers object; returns its parser.

    ``--concept`` and the concepts' options are ``lpgame solve``'s, from the registry
    (:func:`lpgame.registry.add_concept_flags`); with ``deferred`` (on lpgame's own parser, whose
    subcommand parsers add ``deferred`` arguments when first used) they are added when ``sweep``
    is parsed, so that other commands need not import every concept."""
    p = subparsers.add_parser(
        "sweep", help="solve a family of games, a list of game files or a pile of strategy files "
        "on a Dask cluster, into one table",
        description="lpgame sweep GAME KEY=A..B ... | FILE ... | verify GAME STRATEGY ...")
    p.add_argument("target", help="catalog game, a game file, or 'verify'")
    p.add_argument("items", nargs="*",
                   help="KEY=VALUES for a game (A..B, A..B:STEP, X,Y,Z); more game files; or, after "
                        "verify, the game, its key=value parameters and the strategy files")
    if deferred and hasattr(p, "deferred"):
        p.deferred = (*p.deferred, _add_concept_flags)
    else:
        _add_concept_flags(p)
    p.add_argument("--exact", action="store_true", help="exact rational answers, certified")
    p.add_argument("--backend", default="highs", choices=["highs", "pyomo", "cvxpy"])
    p.add_argument("--solver", default=None, help="HiGHS's solver (simplex, ipm, pdlp) or clarabel")
    p.add_argument("--threads", type=int, default=None, help="solver threads per task")
    p.add_argument("--out", dest="table", default=None, metavar="PATH",
                   help="the table, .csv or .parquet, written row by row (default sweep_GAME.csv)")
    p.add_argument("--resume", action="store_true",
                   help="keep the rows already in --out and run only the other points")
    p.add_argument("--retry-failed", action="store_true",
                   help="with --resume: run the points whose row failed again")
    p.add_argument("--plot", default=None, metavar="PATH",
                   help="value and time against the swept parameter (.png, .svg, .pdf)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="a running Dask scheduler (tcp://host:8786) or its scheduler file; "
                        "default: a local cluster")
    p.add_argument("--workers", type=int, default=None,
                   help="local cluster: worker processes (default: one per core)")
    p.add_argument("--task-memory", default=None, metavar="BYTES",
                   help="memory limit of each task (e.g. 2G, 512M); default: lpgame's limit "
                        "divided by the local workers")
    p.add_argument("--task-time-limit", type=float, default=None, metavar="S",
                   help="time limit of each task in seconds (the solver's, the task killed a "
                        "little after)")
    p.add_argument("--fresh-child", action="store_true",
                   help="a new child process for every point, instead of warm ones that take "
                        "point after point: nothing shared between points (lpgame's caches), "
                        "1-5 s more each")
    p.add_argument("--in-worker", action="store_true",
                   help="run each point in its worker process, not a child process of it: only "
                        "lpgame's memory prediction and the solver's time limit apply")
    p.add_argument("--missing", default="error", choices=["error", "uniform"],
                   help="verify: information sets absent from a file are an error, or uniform")
    p.add_argument("--json", metavar="PATH|-", help="write the table as one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress on standard error")
    return p


def sweep_arguments(args) -> dict:
    """The keyword arguments of :func:`lpgame.sweep.sweep` from parsed command-line arguments."""
    from lpgame.registry import concept_options_from

    if args.threads is not None and args.threads < 1:
        raise OptionError(f"--threads must be at least 1, got {args.threads}")
    options: dict = concept_options_from(args, args.concept) if args.target != "verify" else {}
    _check_options(args.concept, options)
    if args.solver:
        options["solver"] = args.solver
    if args.threads is not None:
        options["threads"] = args.threads
    kwargs = {"concept": args.concept, "exact": args.exact, "backend": args.backend,
              "options": options, "resume": args.resume, "retry_failed": args.retry_failed,
              "plot": args.plot, "scheduler": args.scheduler, "workers": args.workers,
              "task_memory": args.task_memory, "task_time_limit": args.task_time_limit,
              "missing": args.missing, "isolate": not args.in_worker,
              "fresh_child": args.fresh_child, "progress": not args.quiet}
    if args.fresh_child and args.in_worker:
        raise OptionError("--fresh-child and --in-worker exclude each other: a point runs in a "
                          "child process or in its worker")
    if args.retry_failed and not args.resume:
        raise OptionError("--retry-failed goes with --resume")
    if args.target == "verify":
        if not args.items:
            raise OptionError("sweep verify needs a game and strategy files: lpgame sweep verify "
                              "GAME [key=value ...] STRATEGY.json ...")
        from lpgame.games import parse_params
        game, rest = args.items[0], args.items[1:]
        pairs = [x for x in rest if _is_pair(x)]
        kwargs.update(game=game, params=parse_params(pairs),
                      verify=[x for x in rest if not _is_pair(x)])
        default_out = f"sweep_verify_{Path(game).stem}.csv"
    elif _is_game_file(args.target):
        stray = [x for x in args.items if not _is_game_file(x)]
        if stray:
            raise OptionError(f"sweep of game files: {', '.join(stray)} are not game files "
                              "(.efg, .nfg)")
        kwargs["files"] = [args.target, *args.items]
        default_out = "sweep_files.csv"
    else:
        stray = [x for x in args.items if not _is_pair(x)]
        if stray:
            raise OptionError(f"sweep of {args.target}: {', '.join(stray)} are not KEY=VALUES")
        if not args.items:
            raise OptionError(f"sweep of {args.target}: give at least one parameter KEY=VALUES "
                              "(e.g. N=2..200)")
        kwargs.update(game=args.target, grid=list(args.items))
        default_out = f"sweep_{args.target}.csv"
    kwargs["out"] = args.table or default_out
    return kwargs


def run_sweep_command(args) -> int:
    """Run ``lpgame sweep`` from parsed arguments: the table's summary on standard output."""
    from lpgame.io.json_io import write_json
    from lpgame.sweep.runner import sweep
    from lpgame.sweep.warm import declare_no_solve_yet

    if _is_command_line():     # a command line solves nothing before its sweep
        declare_no_solve_yet()
    result = sweep(**sweep_arguments(args))
    text = result.summary()
    if args.json is None:
        print(text)
        return 0
    obj = {"table": result.path, "plot": result.plot, "columns": result.columns, "rows": result.rows,
           "ran": len(result.ran), "skipped": len(result.skipped),
           "failed": len(result.failed), "seconds": result.seconds}
    if args.json == "-":
        print(write_json(obj, None))
    else:
        write_json(obj, args.json)
        print(text)
    return 0


def _is_command_line() -> bool:
    """Whether this process is lpgame's command line (``lpgame``, ``python -m lpgame`` or ``python
    -m lpgame.sweep.command``), not a program that called this function after solving."""
    import sys

    main_module = sys.modules.get("__main__")
    spec = getattr(main_module, "__spec__", None)
    if spec is not None and spec.name in ("lpgame.__main__", "lpgame.sweep.command"):
        return True
    cli = sys.modules.get("lpgame.cli")
    return cli is not None and any(getattr(main_module, name, None) is getattr(cli, name, 0)
                                   for name in ("run", "main"))


def _is_pair(text: str) -> bool:
    return re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", text) is not None


def _is_game_file(text: str) -> bool:
    return Path(text).suffix.lower() in _GAME_FILE_SUFFIXES


def _check_options(concept: str, options: dict) -> None:
    """The concept's own check of each option's value (its choices), before any point runs: the
    error of the first entry of ``concept`` that declares the option, unless one accepts it."""
    from lpgame.registry import entries

    for name, value in options.items():
        errors = []
        for entry in entries(concept):
            declared = entry.option(name)
            if declared is None:
                continue
            try:
                declared.check(value, concept)
                break
            except OptionError as exc:
                errors.append(exc)
        else:
            if errors:
                raise errors[0]


def _add_concept_flags(parser) -> None:
    """``lpgame solve``'s concept flags; not ``--checkpoint``, a file that belongs to one solve."""
    from lpgame.registry import add_concept_flags
    add_concept_flags(parser, leave_out=("checkpoint",))


def main(argv: list[str] | None = None) -> int:
    """``python -m lpgame.sweep.command ...``: the same as ``lpgame sweep ...``."""
    import sys

    from lpgame.errors import LpgameError

    parser = argparse.ArgumentParser(prog="lpgame")
    add_sweep_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["sweep", *(sys.argv[1:] if argv is None else argv)])
    try:
        return run_sweep_command(args)
    except LpgameError as exc:
        print(f"lpgame: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
