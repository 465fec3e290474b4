"""The ``lpgame`` command.

    lpgame games                                   list the catalog with parameters
    lpgame info NAME [key=value ...] [--abstraction gameshrink] [--json PATH|-]
    lpgame solve NAME [key=value ...] [--concept nash|maximin|ce|cce|efce|efcce|nfcce]
                 [--abstraction gameshrink] [--algorithm lp|double_oracle]
                 [--objective welfare|player1|player2|w1,w2] [--exact]
                 [--backend highs|pyomo|cvxpy] [--solver simplex|ipm|pdlp|choose|clarabel]
                 [--time-limit S] [--threads N] [--checkpoint PATH] [--json PATH|-]
                 [--save-lp PATH]
    lpgame evaluate NAME STRATEGY.json [key=value ...] [--exact] [--json PATH|-]
    lpgame export NAME [key=value ...] (--lp PATH | --mps PATH | --latex PATH)
    lpgame draw NAME [key=value ...] --out PATH [--exact] [--no-solve] [--heatmap]
    lpgame verify NAME STRATEGY [key=value ...] [--top K] [--rank-by loss|guarantee_gain]
    lpgame cfr NAME [key=value ...] [--algo cfr+] [--iterations N] [--plot PATH] [--json PATH|-]
    lpgame convert NAME OUT.efg|OUT.nfg [key=value ...]   (lpgame.cli_interop; solve --format csv)

NAME is a catalog name (``lpgame games``), a game file (``.efg``, ``.nfg``; a bundled model such as
``kuhn_poker.efg`` by its name), ``-`` (a game file on standard input) or ``openspiel:NAME(params)``
(an OpenSpiel game). Tables go to standard output; ``--json -`` writes one JSON object to standard
output instead (its keys: the JSON page of the documentation's reference) and
``--json PATH`` writes it to a file. Progress (stages with timings and a live line of figures,
:mod:`lpgame.progress`) goes to standard error when it is a terminal; ``--verbose`` adds the solver's
own log (also into a pipe or file), ``--quiet`` silences both. Errors are reported in one line,
``lpgame: error: ...``, with exit status 2.

This module is the command line itself: the grammar (:func:`build_parser`), the checks made before
any work, the error convention and the process exit (:func:`main`, :func:`run`); what each
subcommand does is :mod:`lpgame.cli_commands`, imported only once a command has been parsed.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from lpgame.errors import LpgameError
from lpgame.number_format import parse_decimals


class _Parser(argparse.ArgumentParser):
    """argparse with lpgame's error convention: one ``lpgame: error:`` line, exit status 2."""

    def error(self, message: str):
        from lpgame.cli_interop import suggest_choice
        sys.stderr.write(f"lpgame: error: {suggest_choice(message)} (see '{self.prog} --help')\n")
        raise SystemExit(2)

    deferred: tuple = ()
    """Functions that add arguments when this parser is first used (see :meth:`add_deferred`)."""

    def parse_known_args(self, args=None, namespace=None):
        self.add_deferred()
        return super().parse_known_args(args, namespace)

    def add_deferred(self) -> None:
        """Add the arguments whose building was put off: the flags built from the concept registry
        import every concept module, which ``lpgame --version`` and the other commands need not do."""
        deferred, self.deferred = self.deferred, ()
        for add in deferred:
            add(self)


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value >= 0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a non-negative number of seconds")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive whole number")
    return value


def _decimals(text: str) -> int:
    try:
        return parse_decimals(text)
    except LpgameError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _add_decimals(p: argparse.ArgumentParser) -> None:
    p.add_argument("--decimals", type=_decimals, default=None, metavar="N",
                   help="print numbers with N digits after the point (default: 6 significant "
                        "digits, no more than the certificate supports)")


def _add_concept_flags(p: argparse.ArgumentParser) -> None:
    """``--concept`` and one flag per registered option (:func:`lpgame.registry.add_concept_flags`,
    which ``lpgame sweep`` shares), built at run time so that a newly registered concept needs no
    edit here."""
    from lpgame.registry import add_concept_flags
    add_concept_flags(p)


GAME_HELP = ("catalog name, game file (.efg, .nfg; bundled models by name), - (a game file on "
             "standard input) or openspiel:NAME(params)")


def build_parser(deferred: bool = False) -> argparse.ArgumentParser:
    """The ``lpgame`` parser; with ``deferred`` (as :func:`main` builds it, to start fast) the flags
    read from the concept registry are added when their subcommand is parsed, not now."""
    from lpgame import __version__
    parser = _Parser(prog="lpgame", description="Solve games exactly with LP.")
    parser.add_argument("--version", action="version", version=f"lpgame {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def common(p, params=True):
        if params:
            p.add_argument("name", help=GAME_HELP)
            p.add_argument("params", nargs="*", help="game parameters key=value")
        p.add_argument("--json", metavar="PATH|-", help="write one JSON object (- for stdout)")
        p.add_argument("--quiet", action="store_true", help="no progress on standard error")
        p.add_argument("--verbose", action="store_true", help="the solver's own log on standard error")

    common(sub.add_parser("games", help="list the game catalog"), params=False)
    common(sub.add_parser("concepts", help="list the solution concepts: games, options, sources"),
           params=False)
    p = sub.add_parser("info", help="sizes of a game and its LP, without solving")
    common(p)
    p.add_argument("--abstraction", default=None, metavar="NAME",
                   help="gameshrink: sizes before and after lossless abstraction")
    p = sub.add_parser("solve", help="solve a game and print the equilibrium")
    common(p)
    p.add_argument("--abstraction", default=None, metavar="NAME",
                   help="gameshrink: shrink losslessly, solve, lift, certify in the original game")
    p.deferred = (_add_concept_flags,)
    if not deferred:
        p.add_deferred()
    p.add_argument("--exact", action="store_true", help="exact rational answer, certified")
    p.add_argument("--backend", default="highs", choices=["highs", "pyomo", "cvxpy"])
    p.add_argument("--solver", default=None, choices=["choose", "simplex", "ipm", "pdlp", "clarabel"],
                   help="HiGHS's solver, or clarabel (an interior point with a direct "
                        "factorisation; lpgame's choice for compressed LPs of 2000+ signals)")
    p.add_argument("--time-limit", type=_positive_float, default=None, help="solver time limit (s)")
    p.add_argument("--threads", type=_positive_int, default=None)
    p.add_argument("--save-lp", default=None, metavar="PATH", help="also write the LP (.lp/.mps)")
    from lpgame.cli_interop import add_convert_parser, add_format_flag
    add_format_flag(p)
    _add_decimals(p)
    p = sub.add_parser("evaluate", help="value, best responses and NashConv of a strategy file")
    p.add_argument("name", help=GAME_HELP)
    p.add_argument("strategy", help="strategy JSON (a solve result or {'strategies': [...]})")
    p.add_argument("params", nargs="*")
    p.add_argument("--exact", action="store_true")
    p.add_argument("--json", metavar="PATH|-")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--verbose", action="store_true", help="the solver's own log on standard error")
    _add_decimals(p)
    p = sub.add_parser("verify", help="how far a strategy file is from equilibrium, and where")
    p.add_argument("name", help=GAME_HELP)
    p.add_argument("strategy", help="strategy file: JSON (result or strategies), CSV, or an "
                   "OpenSpiel policy as JSON (TabularPolicy.to_dict())")
    p.add_argument("params", nargs="*")
    p.add_argument("--top", type=int, default=5, help="how many worst information sets to list")
    p.add_argument("--rank-by", default="loss", choices=["loss", "guarantee_gain"],
                   help="order of the worst information sets: loss (regret against the exploiting "
                   "best response, the default) or guarantee gain (0 at every equilibrium)")
    p.add_argument("--missing", default="error", choices=["error", "uniform"],
                   help="information sets absent from the file: an error, or played uniformly")
    p.add_argument("--exact", action="store_true", help="exact equilibrium value")
    p.add_argument("--refinement", default=None, choices=["qpe", "efpe", "os-qpe"],
                   help="also compare with this refined equilibrium, whose play is rational at "
                        "unreached information sets too")
    p.add_argument("--json", metavar="PATH|-")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--verbose", action="store_true", help="the solver's own log on standard error")
    _add_decimals(p)
    p = sub.add_parser("cfr", help="run CFR or regret matching and record exploitability")
    common(p)
    p.add_argument("--algo", default="cfr+", help="rm, rm+, cfr, cs-cfr, cfr+, dcfr, pcfr+, "
                   "es-mccfr, os-mccfr, ...")
    p.add_argument("--iterations", type=int, default=1000)
    p.add_argument("--target", type=float, default=None, help="stop at this nash_conv")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--plot", metavar="PATH", help="convergence plot against the LP value")
    p.add_argument("--no-lp", action="store_true", help="do not solve the LP for comparison")
    _add_decimals(p)
    p = sub.add_parser("export", help="write the sequence-form LP as .lp and/or .mps")
    common(p)
    p.add_argument("--lp", metavar="PATH")
    p.add_argument("--mps", metavar="PATH")
    p.add_argument("--latex", metavar="PATH", help="LaTeX of the LP (row by row when small)")
    p = sub.add_parser("draw", help="picture of the game tree with the equilibrium (small games)")
    common(p)
    p.add_argument("--out", required=True, metavar="PATH", help="image file (.png, .svg, .pdf)")
    p.add_argument("--exact", action="store_true", help="label edges with exact probabilities")
    p.add_argument("--no-solve", action="store_true", help="draw the tree only")
    p.add_argument("--refinement", default=None, choices=["qpe", "efpe", "os-qpe"],
                   help="draw the refined equilibrium (rational play at unreached sets too)")
    p.add_argument("--heatmap", action="store_true", help="also a strategy heat map per player")
    from lpgame.sweep.command import add_sweep_parser
    add_sweep_parser(sub, deferred=deferred)
    add_convert_parser(sub)
    return parser


COMMANDS = ("convert", "sweep", "concepts", "games", "info", "solve", "evaluate", "export",
            "draw", "verify", "cfr")
"""The subcommands: ``lpgame NAME`` runs :func:`lpgame.cli_commands.cmd_NAME`, imported once the
command line has been parsed (not at start-up)."""


OUTPUT_PATHS = ("json", "save_lp", "lp", "mps", "latex", "out", "plot")
"""The arguments, across commands, that name files lpgame writes."""


def _check_output_paths(args, *attributes: str) -> None:
    """Refuse, before any work, output paths that cannot be written: a missing or read-only
    folder, a folder where a file is expected."""
    import os
    from pathlib import Path
    for attribute in attributes:
        path = getattr(args, attribute, None)
        if path is None or path == "-":
            continue
        target = Path(path)
        flag = "--" + attribute.replace("_", "-")
        if target.is_dir():
            raise LpgameError(f"{flag} {path}: is a folder; give a file name")
        folder = target.parent if str(target.parent) else Path(".")
        if not folder.is_dir():
            raise LpgameError(f"{flag} {path}: the folder {folder} does not exist")
        if not os.access(folder, os.W_OK):
            raise LpgameError(f"{flag} {path}: the folder {folder} is not writable")
        if attribute in ("out", "plot"):
            _check_picture_format(flag, path)


def _check_picture_format(flag: str, path: str) -> None:
    """Refuse a picture file whose format matplotlib cannot write (by its suffix)."""
    from lpgame.draw import check_picture_path
    try:
        check_picture_path(path)
    except LpgameError as exc:
        raise LpgameError(f"{flag} {exc}") from None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``lpgame`` command. Every error ends as one ``lpgame: error: ...`` line on
    standard error with exit status 2 (this is the one place where exceptions become lines);
    Ctrl-C ends with one line and status 130."""
    import os
    try:
        parser = build_parser(deferred=True)
        args = parser.parse_args(argv)
        if args.command == "export" and not (args.lp or args.mps or args.latex):
            parser.error("export needs --lp PATH, --mps PATH and/or --latex PATH")
        _check_output_paths(args, *OUTPUT_PATHS)     # before any work, so none is lost
        from lpgame.progress import command_line_reporter, reporting
        with reporting(command_line_reporter(getattr(args, "quiet", False),
                                             getattr(args, "verbose", False))):
            from lpgame import cli_commands
            return getattr(cli_commands, "cmd_" + args.command)(args)
    except SystemExit as exc:       # argparse: --help, --version (0) or a usage error (2)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except KeyboardInterrupt:
        print("lpgame: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into a pager or head that closed early
        sys.stderr.close()
        return 0
    except LpgameError as exc:
        print(f"lpgame: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except OSError as exc:           # files: missing, a folder, no permission, disk full
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        print(f"lpgame: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except MemoryError:
        print("lpgame: error: out of memory (a model larger than lpgame's memory prediction "
              "allowed for; try a smaller game)", file=sys.stderr)
        return 2
    except Exception as exc:         # a bug: one line, and the traceback with LPGAME_DEBUG=1
        if os.environ.get("LPGAME_DEBUG"):
            raise
        print(f"lpgame: error: internal error {type(exc).__name__}: {_one_line(exc)} (a bug in "
              "lpgame; LPGAME_DEBUG=1 shows the traceback)", file=sys.stderr)
        return 2


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def run() -> None:
    """The ``lpgame`` executable and ``python -m lpgame``: :func:`main`, then the exit handlers
    and a flush of the output, then an exit that skips the interpreter's teardown of every module
    and object (after a sweep about a second of a 3-second command: Dask, HiGHS and flint objects
    freed one by one). Nothing is lost: lpgame's files are written and closed inside
    :func:`main`, and the warm children and the Dask cluster are closed before it returns."""
    import atexit
    import os

    status = main()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):    # a closed pipe, or stderr closed after one
            pass
    os._exit(status)


if __name__ == "__main__":
    run()
