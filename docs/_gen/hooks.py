"""MkDocs hooks: the generated part of lpgame's documentation site.

Run by ``mkdocs build`` / ``mkdocs serve`` (``hooks:`` in mkdocs.yml). At every build, from lpgame's
own registries and code, with no page written by hand:

* ``reference/api.md``: one mkdocstrings block per name of ``lpgame.__all__`` (a new public name
  appears with no docs edit), and the modules the how-to guides use;
* ``reference/cli.md``: every subcommand of ``lpgame.cli.build_parser()`` with every argument, its
  default, choices and help; the concept flags come from the registry, so they appear here too;
* ``reference/concepts.md``: the concept registry (``lpgame.concepts()``): name, variant, games
  accepted, options, certificate, source;
* ``reference/catalog.md``: the games registry (``lpgame.games.catalog()``): parameters with kinds,
  defaults, ranges and choices, sizes of the default instance, known values from
  ``models/catalog.toml``, and a picture of the tree of every small game;
* ``reference/json.md``: the JSON schema, from ``lpgame.result``'s docstring and from results
  computed at build time (the keys are read off real ``to_dict()`` output);
* ``reference/errors.md``: the exception classes of ``lpgame.errors`` as a hierarchy;
* the benchmark tables of ``explanation/benchmarks.md``: each ``<!-- table: NAME -->`` becomes the
  table of ``benchmarks/results/NAME.json`` with its command and commit (``benchmarks.results_io``);
* ``javascripts/mathjax/tex-svg.js``: MathJax 3, copied from the ``django-static-mathjax`` wheel
  (a static MathJax with no dependencies) so that pages render math offline.

The page hook also turns the Sphinx roles of lpgame's docstrings (``:class:`~x.Y```), which
mkdocstrings shows verbatim, into code spans.
"""

from __future__ import annotations

import argparse
import html
import io
import json
import logging
import os
import re
import sys
import time
import tomllib
from fractions import Fraction
from pathlib import Path

log = logging.getLogger("mkdocs.hooks.lpgame")
ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: games drawn on the catalog page: explicit trees with at most this many nodes
MAX_PICTURE_NODES = 60
#: default instances whose predicted build is larger than this are not built for their sizes
MAX_SIZE_BYTES = 8_000_000
#: extra modules the how-to guides and tutorials use, documented after lpgame.__all__
EXTRA_MODULES = [
    ("lpgame.draw", ["draw_tree", "draw_strategy_heatmap"]),
    ("lpgame.analysis.verify", ["verify"]),
    ("lpgame.learning", ["run"]),
    ("lpgame.io.files", ["read_game_file", "write_game_file"]),
    ("lpgame.io.openspiel", None),
    ("lpgame.lp", ["LinearProgram"]),
]


# ---------------------------------------------------------------- helpers

def _cell(text) -> str:
    """Text safe inside a Markdown table cell."""
    text = "" if text is None else str(text)
    return html.escape(text.replace("\n", " "), quote=False).replace("|", "\\|")


def _code(text) -> str:
    text = "" if text is None else str(text)
    return "<code>" + html.escape(text) + "</code>"


def _value(value) -> str:
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, float):
        return f"{value:.6g}"
    return repr(value) if isinstance(value, str) else str(value)


# ---------------------------------------------------------------- Python API

def api_page() -> str:
    import lpgame
    from lpgame import _PUBLIC

    lines = ["# Python API", "",
             "Generated at build time from the docstrings of every name in `lpgame.__all__` "
             "(then of the modules the how-to guides use). Every name below is importable as "
             "`lpgame.NAME`; the heading gives the module that defines it.", ""]
    errors = [n for n in lpgame.__all__ if n not in _PUBLIC and n != "games"]
    groups = [("Solving and evaluating", [n for n in _PUBLIC if _PUBLIC[n] == "lpgame.api"]),
              ("Games", [n for n in _PUBLIC if _PUBLIC[n] == "lpgame.game"]),
              ("Sequence form and results", [n for n in _PUBLIC if _PUBLIC[n]
                                             in ("lpgame.sequence_form", "lpgame.result")]),
              ("The game catalog", ["games"])]
    seen = {n for _, names in groups for n in names} | set(errors)
    rest = [n for n in lpgame.__all__ if n not in seen]
    groups.append(("Sweeps and the rest", rest))
    groups.append(("Errors", errors))
    for title, names in groups:
        if not names:
            continue
        lines += [f"## {title}", ""]
        for name in names:
            obj = getattr(lpgame, name)
            if name == "games":
                target = "lpgame.games"
                lines += [f"### `lpgame.games` {{ #lpgame.{name} }}", "",
                          f"::: {target}", "    options:", "      show_root_heading: false",
                          "      members: [make, load, catalog, register, parse_params]", ""]
                continue
            module = getattr(obj, "__module__", None) or _PUBLIC.get(name, "lpgame")
            qual = getattr(obj, "__qualname__", name)
            if name in errors:      # documented once, on the errors page
                doc = (obj.__doc__ or "").strip().split("\n\n")[0]
                lines += [f"### `lpgame.{name}` {{ #lpgame.{name} }}", "",
                          f"{_cell(doc)} Defined in `{module}`; see "
                          f"[Errors](errors.md#{module}.{qual}).", ""]
                continue
            target = f"{module}.{qual}" if not isinstance(obj, type(lpgame)) else obj.__name__
            lines += [f"### `lpgame.{name}` {{ #lpgame.{name} }}", "",
                      f"::: {target}", "    options:", "      show_root_heading: false",
                      "      heading_level: 4", ""]
    lines += ["## Modules used in the guides", ""]
    for module, members in EXTRA_MODULES:
        lines += [f"### `{module}`", "", f"::: {module}", "    options:",
                  "      show_root_heading: false", "      heading_level: 4"]
        if members:
            lines.append("      members: [" + ", ".join(members) + "]")
        else:
            lines.append("      members: false")
        lines.append("")
    return "\n".join(lines)


# ---------------------------------------------------------------- command line

def _subparsers(parser: argparse.ArgumentParser) -> dict:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _subcommand_help(parser: argparse.ArgumentParser) -> dict:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {a.dest: a.help for a in action._choices_actions}
    return {}


def _argument_rows(parser: argparse.ArgumentParser, concept_flags: set) -> list[str]:
    rows = ["| argument | values | default | help |", "|---|---|---|---|"]
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        if action.option_strings:
            name = ", ".join(action.option_strings)
        else:
            name = action.dest.upper() + (" ..." if action.nargs in ("*", "+") else "")
        if action.choices:
            values = ", ".join(str(c) for c in action.choices)
        elif isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction,
                                 argparse.BooleanOptionalAction, argparse._VersionAction)):
            values = "flag"
        else:
            values = action.metavar or (getattr(action.type, "__name__", None)
                                        if action.type else "text") or "text"
        default = "" if action.default in (None, argparse.SUPPRESS, False) else _value(action.default)
        text = action.help or ""
        if action.dest in concept_flags:
            text = "*concept option* — " + text
        rows.append(f"| {_code(name)} | {_cell(values)} | {_cell(default)} | {_cell(text)} |")
    return rows


def cli_page() -> str:
    from lpgame.api import concepts
    from lpgame.cli import build_parser

    os.environ.setdefault("COLUMNS", "100")
    parser = build_parser()
    concept_flags = {o.name for c in concepts() for o in c.options if o.cli}
    helps = _subcommand_help(parser)
    subs = _subparsers(parser)
    lines = ["# Command line", "",
             "Generated at build time from `lpgame.cli.build_parser()`: every subcommand and every "
             "argument. The option flags of `lpgame solve` marked *concept option* are built from "
             "the concept registry ([Solution concepts](concepts.md) says which concept takes "
             "which), so a new concept's options appear here with no edit.", "",
             "Every error prints one line `lpgame: error: ...` and exits with status 2; Ctrl-C "
             "exits with status 130. `--json -` writes one JSON object to standard output "
             "([JSON results](json.md)).", "",
             "| subcommand | what it does |", "|---|---|"]
    for name in subs:
        lines.append(f"| [`lpgame {name}`](#lpgame-{name}) | {_cell(helps.get(name, ''))} |")
    lines += ["", "```text", parser.format_usage().strip(), "```", ""]
    lines += _argument_rows(parser, set())
    lines.append("")

    def section(prefix: str, name: str, sub: argparse.ArgumentParser, level: int):
        anchor = (prefix + "-" + name).replace(" ", "-")
        lines.extend([f"{'#' * level} `{prefix} {name}` {{ #{anchor} }}", ""])
        if helps.get(name) and level == 2:
            lines.extend([helps[name][0].upper() + helps[name][1:] + ".", ""])
        if sub.description:
            lines.extend([sub.description, ""])
        lines.extend(["```text", sub.format_usage().strip(), "```", ""])
        lines.extend(_argument_rows(sub, concept_flags if name == "solve" else set()))
        lines.append("")
        for child, child_parser in _subparsers(sub).items():
            section(f"{prefix} {name}", child, child_parser, level + 1)

    for name, sub in subs.items():
        section("lpgame", name, sub, 2)
    return "\n".join(lines)


# ---------------------------------------------------------------- concepts

def concepts_page() -> str:
    from lpgame.api import concepts

    entries = concepts()
    lines = ["# Solution concepts", "",
             "Generated at build time from the concept registry (`lpgame.concepts()`, "
             "`lpgame concepts`). A concept module that registers itself appears here with no edit "
             "to the docs. `lpgame.solve(game, concept=NAME, **options)` picks the entry by the "
             "game's class and the options given; the [formulations](../explanation/formulations.md) "
             "page explains each program.", "",
             "| concept | games accepted | selected by | exact | what it computes |",
             "|---|---|---|---|---|"]
    for c in entries:
        title = c.name if c.variant == "default" else f"{c.name} [{c.variant}]"
        summary = c.summary.split(". ")[0]
        summary = summary if len(summary) <= 110 else summary[:107].rsplit(" ", 1)[0] + " …"
        lines.append(f"| [`{title}`](#{c.name}-{c.variant}) | {_cell(c.games_text())} | "
                     f"{_cell(', '.join(c.requires) or '—')} | {'yes' if c.exact else 'no'} | "
                     f"{_cell(summary)} |")
    lines.append("")
    for c in entries:
        title = c.name if c.variant == "default" else f"{c.name} [{c.variant}]"
        lines += [f"## `{title}` {{ #{c.name}-{c.variant} }}", "", _cell(c.summary), "",
                  f"- **games**: {_cell(c.games_text())}",
                  f"- **selected by**: {_cell(', '.join(c.requires) or 'the game class alone')}",
                  f"- **exact mode**: {'yes' if c.exact else 'no (floating point, certified)'}",
                  f"- **abstraction=gameshrink**: {'yes' if c.liftable else 'no'}",
                  *(["- **reads the game's source**: yes (the game as given, its tree never "
                     "built; `reads_source`)"] if c.reads_source else []),
                  f"- **backends**: {', '.join(c.backends)}",
                  f"- **certificate**: {_cell(c.certificate)}",
                  f"- **source**: {_cell(c.source)}",
                  f"- **module**: `{getattr(c.solve, '__module__', '?')}`", ""]
        if c.options:
            lines += ["| option | flag | type | default | help |", "|---|---|---|---|---|"]
            for o in c.options:
                kind = getattr(o.type, "__name__", "any")
                if o.choices:
                    kind += ": " + ", ".join(map(str, o.choices))
                flag = o.cli_flag if o.cli else "(Python only)"
                lines.append(f"| `{o.name}` | {_code(flag)} | {_cell(kind)} | "
                             f"{_cell('' if o.default is None else _value(o.default))} | "
                             f"{_cell(o.help)} |")
            lines.append("")
    return "\n".join(lines)


# ---------------------------------------------------------------- catalog

def _known_values() -> dict:
    """Known values of catalog games, from models/catalog.toml (literature, never lpgame)."""
    path = ROOT / "models" / "catalog.toml"
    if not path.exists():
        return {}
    out: dict = {}
    for model in tomllib.loads(path.read_text()).get("model", []):
        match = re.search(r"make\('(\w+)'(.*?)\)", model.get("made_by", ""))
        if not match:
            continue
        params = match.group(2).strip(", ")
        params = ", ".join(p for p in params.split(", ") if not p.startswith("structured"))
        value = model.get("value") or ", ".join(model.get("values", []))
        what = f"{value} ({model.get('concept', 'nash')}" + (f", {params})" if params else ")")
        out.setdefault(match.group(1), []).append((what, model.get("value_source", "")))
    return out


def _sizes(name: str, entry) -> dict | None:
    import lpgame
    from lpgame.games.registry import predicted_bytes

    try:
        predicted = predicted_bytes(name)
    except Exception:
        return None
    if name == "rhode_island_holdem" or (predicted or 0) > MAX_SIZE_BYTES:
        return None
    game = lpgame.games.make(name)
    sf = lpgame.compile_game(game)
    players = range(sf.num_players)
    return {"players": sf.num_players,
            "infosets": [sf.num_infosets(p) for p in players],
            "sequences": [sf.num_sequences(p) for p in players],
            "leaves": len(sf.terminal_payoffs),
            "nodes": getattr(getattr(game, "index", None), "num_nodes", None),
            "game": game}


def _picture(name: str, game) -> bytes | None:
    """A PNG of the tree of a small explicit game, with an equilibrium where one is defined."""
    import lpgame
    from lpgame.draw import check_drawable, draw_tree
    from lpgame.game.tree import Game

    if not isinstance(game, Game):
        try:
            game = lpgame.games.make(name, structured=False)
        except Exception:
            return None
    if not isinstance(game, Game) or game.index.num_nodes > MAX_PICTURE_NODES:
        return None
    strategies, title = None, name
    try:
        check_drawable(game, solve=True)
        result = lpgame.solve(game, exact=True)
        strategies = result.strategies
        title = f"{name}: an equilibrium, value {result.value}"
    except Exception:
        pass
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    buffer = io.BytesIO()
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"lpgame-docs-{os.getpid()}-{name}.png"
    try:
        draw_tree(game, strategies, path, title=title)
        buffer.write(path.read_bytes())
    except Exception as exc:  # a picture is an extra: the page says none was drawn
        log.info("no picture of %s: %s", name, exc)
        return None
    finally:
        plt.close("all")
        path.unlink(missing_ok=True)
    return buffer.getvalue()


def catalog_page(pictures: dict, measure: bool = True) -> str:
    """The catalog page; ``measure=False`` leaves out sizes and pictures (quick, for tests)."""
    from lpgame.games.registry import catalog

    known = _known_values()
    lines = ["# Game catalog", "",
             "Generated at build time from the games registry (`lpgame.games.catalog()`, "
             "`lpgame games`). A generator module that registers itself appears here with no edit "
             "to the docs. Build a game with `lpgame.games.make(NAME, **params)` or name it on the "
             "command line (`lpgame solve NAME key=value ...`). Sizes are of the default instance, "
             "counted by lpgame at build time (`lpgame info NAME` prints them for any instance); "
             "known values come from `models/catalog.toml`, whose values are taken from the "
             "literature or from independent solvers, never from lpgame.", "",
             "| game | known value | parameters (defaults) | information sets per player "
             "| sequences per player | leaves |",
             "|---|---|---|---|---|---|"]
    details = []
    for name, entry in catalog().items():
        params = entry.params()
        shown = ", ".join(f"{k}={_value(p.default)}" for k, p in params.items()
                          if k != "structured") or "—"
        t = time.perf_counter()
        try:
            sizes = _sizes(name, entry) if measure else None
        except Exception as exc:
            log.info("no sizes for %s: %s", name, exc)
            sizes = None
        values = "; ".join(v for v, _ in known.get(name, [])) or "—"
        if sizes:
            row = (f"{' / '.join(map(str, sizes['infosets']))} | "
                   f"{' / '.join(map(str, sizes['sequences']))} | {sizes['leaves']}")
            picture = _picture(name, sizes["game"])
            if picture:
                pictures[name] = picture
        else:
            row = "— | — | — (`lpgame info`)"
        log.debug("catalog %s: %.2f s", name, time.perf_counter() - t)
        lines.append(f"| [`{name}`](#{name}) | {_cell(values)} | {_cell(shown)} | {row} |")
        details += [f"## `{name}` {{ #{name} }}", "", _cell(entry.summary), ""]
        if entry.source:
            details += [f"Source: {_cell(entry.source)}", ""]
        if params:
            details += ["| parameter | kind | default | accepts |", "|---|---|---|---|"]
            for key, p in params.items():
                kind = getattr(p.kind, "__name__", str(p.kind))
                details.append(f"| `{key}` | {kind} | {_cell(_value(p.default))} | "
                               f"{_cell(p.expected())} |")
            details.append("")
        for what, source in known.get(name, []):
            details += [f"Known: {_cell(what)} — {_cell(source)}", ""]
        if name in pictures:
            details += [f"![The game tree of {name}](../assets/trees/{name}.png)", ""]
    lines.append("")
    return "\n".join(lines + details)


# ---------------------------------------------------------------- JSON schema

def _keys(obj, prefix="") -> list[tuple[str, str]]:
    rows = []
    for key, value in obj.items():
        kind = type(value).__name__
        if isinstance(value, dict) and prefix.count(".") < 1 and key not in ("strategies",):
            rows.append((prefix + key, "object"))
            rows += _keys(value, prefix + key + ".")
        else:
            rows.append((prefix + key, {"str": "string", "NoneType": "null", "list": "array",
                                        "dict": "object", "float": "number", "int": "integer",
                                        "bool": "boolean"}.get(kind, kind)))
    return rows


def json_page() -> str:
    import lpgame

    profile = lpgame.solve(lpgame.games.make("kuhn_poker"), exact=True).to_dict()
    correlated = lpgame.solve(lpgame.games.make("chicken"), concept="ce",
                              objective="welfare").to_dict()
    evaluation = lpgame.evaluate(lpgame.games.make("kuhn_poker"),
                                 lpgame.solve("kuhn_poker").strategies)
    lines = ["# JSON results", "",
             "Every `lpgame solve --json PATH|-` writes one object, `SolveResult.to_dict()`; "
             "`SolveResult.load(path)` reads it back. The keys below are read at build time off "
             "real results (Kuhn poker's exact Nash equilibrium, a profile; Chicken's "
             "welfare-optimal correlated equilibrium, a correlated result), so they cannot drift "
             "from the code. Numbers are JSON numbers in floating-point mode and strings such as "
             "`\"-1/18\"` in exact mode (the profile example is exact). The meaning of each key is "
             "in the module docstring after the tables.",
             ""]
    for title, obj in (("Profile results (`kind: profile`)", profile),
                       ("Correlated results (`kind: correlated`)", correlated)):
        lines += [f"## {title}", "", "| key | JSON type | example |", "|---|---|---|"]
        flat = obj
        for key, kind in _keys(obj):
            value = flat
            for part in key.split("."):
                value = value.get(part) if isinstance(value, dict) else None
            example = json.dumps(value, default=str)
            if len(example) > 60:
                example = example[:57] + "..."
            lines.append(f"| `{key}` | {kind} | {_code(example)} |")
        lines.append("")
    ev = getattr(evaluation, "to_dict", lambda: None)()
    if isinstance(ev, dict):
        lines += ["## `lpgame evaluate --json`", "", "| key | JSON type |", "|---|---|"]
        lines += [f"| `{k}` | {t} |" for k, t in _keys(ev)]
        lines.append("")
    lines += ["## Example", "", "```json", json.dumps(profile, indent=1, default=str)[:3000]
              + ("\n..." if len(json.dumps(profile, indent=1, default=str)) > 3000 else ""),
              "```", "", "## The schema in words", "", "::: lpgame.result", "    options:",
              "      show_root_heading: false", "      members: false", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------- errors

def errors_page() -> str:
    import lpgame.errors as errors

    classes = [c for c in vars(errors).values()
               if isinstance(c, type) and issubclass(c, errors.LpgameError)]
    lines = ["# Errors", "",
             "Generated from `lpgame.errors`. Every error lpgame raises is one of these classes "
             "(all subclasses of `LpgameError`, each also a subclass of the matching built-in "
             "exception, so `except ValueError` still works). On the command line each becomes "
             "one line `lpgame: error: ...` and exit status 2; `LPGAME_DEBUG=1` shows the "
             "traceback of an internal error.", "", "```text"]

    def tree(cls, depth):
        bases = [b.__name__ for b in cls.__bases__ if not issubclass(b, errors.LpgameError)]
        lines.append("    " * depth + cls.__name__ + (f"  ({', '.join(bases)})" if bases else ""))
        for sub in sorted((c for c in classes if cls in c.__bases__), key=lambda c: c.__name__):
            tree(sub, depth + 1)

    tree(errors.LpgameError, 0)
    lines += ["```", "", "| class | raised when |", "|---|---|"]
    for cls in classes:
        doc = (cls.__doc__ or "").strip().split("\n\n")[0]
        lines.append(f"| [`{cls.__name__}`](#lpgame.errors.{cls.__name__}) | {_cell(doc)} |")
    lines += ["", "::: lpgame.errors", "    options:", "      show_root_heading: false",
              "      heading_level: 2", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------- MathJax

def _mathjax() -> bytes | None:
    try:
        import mathjax  # the django-static-mathjax distribution: static files only
    except ImportError:
        log.warning("MathJax is not installed (pip install -e '.[docs]'): math will not render")
        return None
    base = Path(mathjax.__file__).resolve().parent
    for candidate in base.rglob("es5/tex-svg.js"):
        return candidate.read_bytes()
    log.warning("tex-svg.js not found in %s", base)
    return None


# ---------------------------------------------------------------- hooks

def on_files(files, config):
    """Add the generated pages, pictures and MathJax to the site."""
    from mkdocs.structure.files import File

    started = time.perf_counter()
    pictures: dict = {}
    pages = {"reference/api.md": api_page(), "reference/cli.md": cli_page(),
             "reference/concepts.md": concepts_page(),
             "reference/catalog.md": catalog_page(pictures), "reference/json.md": json_page(),
             "reference/errors.md": errors_page()}
    for uri, text in pages.items():
        files.append(File.generated(config, uri, content=text))
    for name, data in pictures.items():
        files.append(File.generated(config, f"assets/trees/{name}.png", content=data))
    script = _mathjax()
    if script is not None:
        files.append(File.generated(config, "javascripts/mathjax/tex-svg.js", content=script))
    log.info("lpgame reference generated in %.1f s", time.perf_counter() - started)
    return files


def on_page_markdown(markdown, page, config, files):
    """Benchmark tables: ``<!-- table: NAME -->`` becomes ``benchmarks/results/NAME.json``'s table
    (a missing or malformed file raises, and the build fails)."""
    if "<!-- table:" not in markdown:
        return markdown
    return _results_io().render(markdown)


def _results_io():
    """``benchmarks/results_io.py``, loaded by its path (mkdocs plugins may change sys.path)."""
    import importlib.util

    name = "lpgame_docs_results_io"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / "results_io.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


_ROLE = re.compile(r":(?:py:)?(?:mod|class|func|meth|data|attr|exc|obj|const):"
                   r"<code>~?([\w.]+?)(\(\))?</code>")


def _short(match: re.Match) -> str:
    return "<code>" + match.group(1) + (match.group(2) or "") + "</code>"


def on_page_content(html_text, page, config, files):
    """Sphinx roles in docstrings (``:class:`~a.B```) become code spans."""
    return _ROLE.sub(_short, html_text)
