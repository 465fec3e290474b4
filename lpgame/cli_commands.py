"""What each ``lpgame`` subcommand does: one ``cmd_NAME(args)`` per subcommand of
:func:`lpgame.cli.build_parser`, given the parsed arguments, returning the exit status.

:mod:`lpgame.cli` holds the command line itself (the grammar, the checks made before any work,
the one-line error convention, the process exit) and imports this module only once a command
has been parsed, so ``lpgame --version`` and usage errors never load it. Each handler imports
what it needs when it runs (a fast start: ``python -m benchmarks.bench_startup``).

The output convention shared by every handler (:func:`_emit`): a table or summary on standard
output; ``--json -`` writes one JSON object to standard output instead, ``--json PATH`` writes
it to a file and prints the table; progress goes through :mod:`lpgame.progress` (standard
error, only when it is a terminal, nothing with ``--quiet``). ``convert`` and ``--format csv``
are :mod:`lpgame.cli_interop`, ``sweep`` is :mod:`lpgame.sweep.command`.
"""

from __future__ import annotations

from lpgame.errors import LpgameError
from lpgame.number_format import format_number, rounding_tolerance


class Progress:
    """Stage lines, with their start times, through :mod:`lpgame.progress`: on standard error when
    it is a terminal and not ``--quiet`` (:func:`lpgame.cli.main` installs the reporter)."""

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
    if getattr(args, "checkpoint", None) and options.get("algorithm") == "double_oracle":
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
                     "abstraction": c.liftable, "reads_source": c.reads_source})
        head = c.name + ("" if c.variant == "default" else f" [{c.variant}]")
        lines.append(f"{head}: {c.summary}")
        lines.append(f"    games: {c.games_text()}"
                     + (f"; selected by {', '.join(c.requires)}" if c.requires else "")
                     + ("; exact mode" if c.exact else "; floating point only")
                     + ("; abstraction=gameshrink" if c.liftable else "")
                     + ("; reads the game's source (rules, name or file; no tree built)"
                        if c.reads_source else ""))
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


def cmd_sweep(args) -> int:
    """``lpgame sweep``: families of games or piles of strategy files on Dask (lpgame.sweep)."""
    from lpgame.sweep.command import run_sweep_command
    return run_sweep_command(args)


def cmd_convert(args) -> int:
    """``lpgame convert``: a game written as a Gambit .efg/.nfg file (lpgame.cli_interop)."""
    from lpgame.cli_interop import convert_command
    return convert_command(args, Progress(args.quiet), _emit)
