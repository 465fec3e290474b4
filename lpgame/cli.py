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
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from lpgame.errors import LpgameError
from lpgame.number_format import format_number, parse_decimals, rounding_tolerance


class Progress:
    """Stage lines, with their start times, through :mod:`lpgame.progress`: on standard error when
    it is a terminal and not ``--quiet`` (:func:`main` installs the reporter)."""

    def __init__(self, quiet: bool):
        self.quiet = quiet

    def __call__(self, message: str) -> None:
        from lpgame.progress import stage
        stage(message)


def _load(name: str, params: list[str], progress: Progress):
    """The game by catalog name or file, as a tree (``lpgame solve`` loads its own: it may keep
    a normal form, or hand the rules to an entry that reads them)."""
    from lpgame.api import as_game
    from lpgame.games import load, parse_params

    progress(f"building {name} {' '.join(params)}".rstrip())
    return as_game(load(name, **parse_params(params)))


def _emit(obj: dict, json_path: str | None, text: str) -> None:
    from lpgame.io.json_io import write_json
    from lpgame.progress import finish
    finish()        # the live progress line goes before the results are printed
    if json_path is None:
        print(text)
    elif json_path == "-":
        print(write_json(obj, None))
    else:
        write_json(obj, json_path)
        print(text)


def cmd_games(args) -> int:
    from lpgame.games import catalog
    rows = []
    for name, entry in catalog().items():
        params = ", ".join(f"{k}={v!r}" for k, v in entry.parameters().items()) or "-"
        rows.append({"name": name, "parameters": entry.parameters(), "summary": entry.summary,
                     "source": entry.source})
        if args.json is None:
            print(f"{name:<24} {params:<46} {entry.summary}")
    if args.json is not None:
        _emit({"games": rows}, args.json, "")
    return 0


def cmd_info(args) -> int:
    from lpgame.equilibria.zero_sum.security import security_lp
    from lpgame.sequence_form import SequenceForm

    progress = Progress(args.quiet)
    if args.abstraction:
        return _info_abstraction(args, progress)
    game = _load(args.name, args.params, progress)
    progress("compiling the sequence form")
    sf = SequenceForm.from_game(game)
    info = {"game": game.name, **game.sizes()}
    if game.num_players == 2:
        info["lp"] = security_lp(sf, 0).lp.size()
    text = [f"{game.name}",
            f"  nodes {info['nodes']}, terminals {info['terminals']}, chance nodes "
            f"{info['chance_nodes']}"]
    for i in range(game.num_players):
        text.append(f"  {game.player_names[i]}: {info['decision_nodes'][i]} decision nodes, "
                    f"{info['infosets'][i]} information sets, {info['sequences'][i]} sequences")
    if "lp" in info:
        lp = info["lp"]
        text.append(f"  sequence-form LP: {lp['rows']} rows, {lp['cols']} columns, "
                    f"{lp['nnz']} nonzeros")
    _emit(info, args.json, "\n".join(text))
    return 0


def _info_abstraction(args, progress: Progress) -> int:
    """``lpgame info NAME --abstraction gameshrink``: sizes before and after, without solving."""
    from lpgame.abstraction.solve import as_ordered_game, check_abstraction_name
    from lpgame.games import load, parse_params

    check_abstraction_name(args.abstraction)
    progress(f"building {args.name} {' '.join(args.params)}".rstrip())
    ordered, _ = as_ordered_game(load(args.name, **parse_params(args.params)))
    progress("GameShrink: signal tree, isomorphism classes, sound view filter")
    from lpgame.abstraction.gameshrink import gameshrink
    report = gameshrink(ordered).report()
    lines = [f"{report['game']}: GameShrink ({report['seconds']:.2f} s) — {report['message']}",
             f"  {'':<26}{'before':>16}{'after':>16}"]
    for key, label in (("signal_tree_nodes", "signal-tree nodes"),
                       ("game_tree_internal_nodes", "game-tree inner nodes")):
        lines.append(f"  {label:<26}{report['before'][key]:>16,}{report['after'][key]:>16,}")
    for key, label in (("infosets", "information sets"), ("sequences", "sequences")):
        lines.append(f"  {label:<26}{sum(report['before'][key]):>16,}{sum(report['after'][key]):>16,}")
    for key in ("rows", "cols", "nnz"):
        lines.append(f"  {'LP ' + key:<26}{report['before']['lp'][key]:>16,}"
                     f"{report['after']['lp'][key]:>16,}")
    proposal = report["signal_tree"]["proposal_without_refinement"]
    lines.append(f"  GameShrink's merges without the soundness refinement would give "
                 f"{proposal['lp']['rows']:,} LP rows (not lossless in general)")
    lines.append("  (sizes from counts; the games are not built)")
    _emit({"game": report["game"], "abstraction": report}, args.json, "\n".join(lines))
    return 0


def _solver_options(args) -> dict:
    options = {}
    if args.solver:
        options["solver"] = args.solver
    if args.time_limit is not None:
        options["time_limit"] = args.time_limit
    if args.threads is not None:
        options["threads"] = args.threads
    return options


def _concept_options(args) -> dict:
    """The registered options given on the command line, converted by the chosen concept's
    declared types (one flag per option name across the registry)."""
    from lpgame.registry import concept_options_from
    options = concept_options_from(args, args.concept)
    if getattr(args, "checkpoint", None):
        from pathlib import Path
        if Path(args.checkpoint).exists():
            options["initial_sequences"] = args.checkpoint
    return options


def cmd_solve(args) -> int:
    import lpgame

    progress = Progress(args.quiet)
    options = {**_solver_options(args), **_concept_options(args)}
    from lpgame.cli_interop import check_format, equilibrium_csv
    check_format(args)      # --format csv: before any work
    from lpgame.api import as_game
    from lpgame.game import NormalFormGame
    from lpgame.games import load, parse_params
    from lpgame.registry import source_entry
    if args.abstraction:
        from lpgame.abstraction.solve import check_abstraction_name
        check_abstraction_name(args.abstraction)
    progress(f"building {args.name} {' '.join(args.params)}".rstrip())
    game = load(args.name, **parse_params(args.params))     # rules objects are not expanded yet
    reader = None if args.abstraction else source_entry(args.concept, options,
                                                        getattr(game, "name", args.name))
    if args.abstraction or reader is not None:   # solved from the rules: this tree is not built
        progress(f"shrinking ({args.abstraction}), solving the abstract game, lifting"
                 if args.abstraction else f"solving from the game's rules ({args.concept}, "
                 f"{reader.variant}), without its tree")
        result = lpgame.solve(game, concept=args.concept, exact=args.exact, backend=args.backend,
                              abstraction=args.abstraction, **options)
        names = None
    else:
        if not isinstance(game, NormalFormGame):
            game = as_game(game)
        progress(f"solving ({args.concept}, backend {args.backend}"
                 + (", exact" if args.exact else "") + ")")
        result = lpgame.solve(game, concept=args.concept, exact=args.exact, backend=args.backend,
                              **options)
        names = getattr(game, "player_names", None)
    progress("done")
    if args.save_lp and getattr(result, "lp", None) is not None:
        _write_lp_file(result.lp, args.save_lp)
    if args.format == "csv":
        _emit(result.to_dict(), args.json, equilibrium_csv(result, game, args.decimals))
        return 0
    _emit(result.to_dict(), args.json, result.summary(player_names=names, decimals=args.decimals))
    return 0


def cmd_concepts(args) -> int:
    """``lpgame concepts``: the registry, one entry per name and variant."""
    from lpgame.api import concepts
    rows, lines = [], []
    for c in concepts():
        options = [{"name": o.name, "flag": o.cli_flag, "type": getattr(o.type, "__name__", "any"),
                    "default": o.default if isinstance(o.default, (int, float, str, bool))
                    or o.default is None else str(o.default), "help": o.help,
                    **({"choices": list(o.choices)} if o.choices else {})} for o in c.options]
        rows.append({"name": c.name, "variant": c.variant, "games": list(c.games),
                     "requires": list(c.requires), "summary": c.summary, "options": options,
                     "certificate": c.certificate, "source": c.source, "exact": c.exact,
                     "abstraction": c.liftable})
        head = c.name + ("" if c.variant == "default" else f" [{c.variant}]")
        lines.append(f"{head}: {c.summary}")
        lines.append(f"    games: {c.games_text()}"
                     + (f"; selected by {', '.join(c.requires)}" if c.requires else "")
                     + ("; exact mode" if c.exact else "; floating point only")
                     + ("; abstraction=gameshrink" if c.liftable else ""))
        for o in c.options:
            if o.cli:
                lines.append(f"    {o.cli_flag}: {o.help}" + (f" (default {o.default})"
                                                             if o.default is not None else ""))
        lines.append(f"    certificate: {c.certificate}")
        lines.append(f"    source: {c.source}")
    _emit({"concepts": rows}, args.json, "\n".join(lines))
    return 0


def cmd_evaluate(args) -> int:
    import lpgame
    from lpgame.io.strategy_files import load_strategies

    progress = Progress(args.quiet)
    game = _load(args.name, args.params, progress)
    strategies = load_strategies(args.strategy, game)
    progress("computing best responses")
    ev = lpgame.evaluate(game, strategies, exact=args.exact)
    text = ev.summary(f"{game.name}: evaluation of {args.strategy}", game.player_names,
                      args.decimals, rounding_tolerance(game.payoff_range()))
    _emit(ev.to_dict(), args.json, text)
    return 0


def cmd_verify(args) -> int:
    from lpgame.analysis.verify import verify
    from lpgame.io.strategy_files import load_strategies

    progress = Progress(args.quiet)
    game = _load(args.name, args.params, progress)
    strategies = load_strategies(args.strategy, game, missing=args.missing)
    progress("best responses, the exact equilibrium value and the worst information sets")
    report = verify(game, strategies, top=args.top, exact=args.exact, rank_by=args.rank_by,
                    refinement=args.refinement)
    _emit(report.to_dict(), args.json, report.summary(
        decimals=args.decimals, tolerance=rounding_tolerance(game.payoff_range())))
    return 0


def cmd_cfr(args) -> int:
    import lpgame
    from lpgame.learning import run

    progress = Progress(args.quiet)
    game = _load(args.name, args.params, progress)

    def show(iteration, seconds, nash_conv):
        progress(f"iteration {iteration}: nash_conv {nash_conv:.3e} ({seconds:.2f} s)")

    result = run(game, algorithm=args.algo, iterations=args.iterations, seed=args.seed,
                 target=args.target, progress=show)
    obj = result.to_dict()
    equilibrium_value = None
    if args.plot or not args.no_lp:
        try:
            equilibrium_value = float(lpgame.solve(game).value)
            obj["equilibrium_value"] = equilibrium_value
        except LpgameError as exc:   # general-sum or n-player games have no LP value
            progress(f"no LP value to compare with: {exc}")
    if args.plot:
        from lpgame.learning.plot import plot_learning_curve
        plot_learning_curve(result, path=args.plot, equilibrium_value=equilibrium_value,
                            decimals=args.decimals)
        progress(f"plot written to {args.plot}")
    last = obj["curve"][-1] if obj.get("curve") else None
    tolerance = rounding_tolerance(game.payoff_range())
    text = [f"{game.name}: {args.algo}, {obj['iterations']} iterations",
            f"  nash_conv of the average strategy = "
            f"{format_number(obj['nash_conv'], 6, args.decimals, tolerance)}"
            + (f" after {last[1]:.2f} s" if last else "")]
    if equilibrium_value is not None:
        text.append("  LP value for player 1 = "
                    + format_number(equilibrium_value, 6, args.decimals, tolerance))
    _emit(obj, args.json, "\n".join(text))
    return 0


def _write_lp_file(lp, path: str) -> None:
    from lpgame.lp.pyomo_backend import write_lp, write_mps
    if str(path).lower().endswith(".mps"):
        write_mps(lp, path)
    else:
        write_lp(lp, path)


def cmd_export(args) -> int:
    from lpgame.equilibria.zero_sum.security import security_lp
    from lpgame.sequence_form import SequenceForm

    progress = Progress(args.quiet)
    game = _load(args.name, args.params, progress)
    sf = SequenceForm.from_game(game)
    lp = security_lp(sf, 0).lp
    written = []
    if args.lp:
        _write_lp_file(lp, args.lp)
        written.append(args.lp)
    if args.mps:
        _write_lp_file(lp, args.mps)
        written.append(args.mps)
    if args.latex:
        from lpgame.io.safe_files import write_text_atomic
        write_text_atomic(args.latex, lp.to_latex(rows=lp.num_rows <= 200) + "\n")
        written.append(args.latex)
    obj = {"game": game.name, "files": written, "size": lp.size()}
    _emit(obj, args.json, lp.describe() + "\nwritten: " + ", ".join(written))
    return 0


def cmd_draw(args) -> int:
    import lpgame
    from lpgame.draw import check_drawable, draw_strategy_heatmap, draw_tree, equilibrium_title

    progress = Progress(args.quiet)
    game = _load(args.name, args.params, progress)
    check_drawable(game, solve=not args.no_solve)   # before solving: refused at once, with the fix
    strategies = unreached = None
    title = game.name
    if not args.no_solve:
        progress("solving for the equilibrium to draw")
        options = {"refinement": args.refinement} if args.refinement else {}
        result = lpgame.solve(game, exact=args.exact or bool(args.refinement), **options)
        strategies, unreached = result.strategies, result.unreached
        title = equilibrium_title(game.name, result.value)
    draw_tree(game, strategies, args.out, title=title, unreached=unreached)
    written = [args.out]
    if args.heatmap and strategies is not None:
        stem = args.out.rsplit(".", 1)
        for i, strategy in enumerate(strategies):
            path = f"{stem[0]}_player{i + 1}_heatmap.{stem[1] if len(stem) > 1 else 'png'}"
            draw_strategy_heatmap(strategy, path, title=f"{game.player_names[i]}: {game.name}")
            written.append(path)
    _emit({"game": game.name, "files": written}, args.json, "written: " + ", ".join(written))
    return 0


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


def cmd_sweep(args) -> int:
    """``lpgame sweep``: families of games or piles of strategy files on Dask (lpgame.sweep)."""
    from lpgame.sweep.command import run_sweep_command
    return run_sweep_command(args)


def cmd_convert(args) -> int:
    """``lpgame convert``: a game written as a Gambit .efg/.nfg file (lpgame.cli_interop)."""
    from lpgame.cli_interop import convert_command
    return convert_command(args, Progress(args.quiet), _emit)


COMMANDS = {"convert": cmd_convert, "sweep": cmd_sweep, "concepts": cmd_concepts,
            "games": cmd_games, "info": cmd_info,
            "solve": cmd_solve,
            "evaluate": cmd_evaluate, "export": cmd_export, "draw": cmd_draw, "verify": cmd_verify,
            "cfr": cmd_cfr}


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
            return COMMANDS[args.command](args)
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
