"""The documentation: its examples run, its generated reference is complete, the site builds.

* Every code example of README.md and docs/ runs: each fenced ``python`` block (the blocks of one
  page run in order in one namespace, in a scratch folder where ``models/`` is at hand) and each
  ``$ lpgame ...`` line of a ``console`` block (through ``lpgame.cli.main``, exit status 0). A
  block preceded by ``<!-- docs-test: needs MODULE -->`` is skipped when MODULE is not installed.
* The generated reference (docs/_gen/hooks.py, run by mkdocs at build time) covers every name of
  ``lpgame.__all__``, every registered concept, every catalog game, every CLI subcommand and every
  option of the parser, the concept flags included.
* The benchmark tables of ``explanation/benchmarks.md`` are generated: every file of
  ``benchmarks/results/`` is a well-formed result with a placeholder on the page, rendered there by
  the hook with its command and commit, and the page holds no table written by hand.
* README.md is one screen (at most 150 lines) and keeps the two quickstart commands verbatim.
* ``@pytest.mark.docs``: ``mkdocs build --strict`` succeeds (the ``docs`` extra; skipped without
  it), the built reference pages hold every public name and concept, and every ``<img>`` of the
  site resolves to a file; with Debian's ``chromium``, the home page, a tutorial and a reference
  page are loaded headless from a local server and checked for missing images and math errors,
  and the committed screenshots exist.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import importlib
import importlib.util
import os
import re
import shlex
import shutil
import socketserver
import subprocess
import sys
import threading
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
QUICKSTART = (
    'pip install . && lpgame solve kuhn_poker --exact           # install, solve Kuhn poker, '
    'print the equilibrium',
    'pip install ".[test]" && python -m pytest                  # install the test tools and '
    'run the tests',
)
SCREENSHOT_PAGES = {"home": "", "tutorial": "tutorials/02_sequence_form_kuhn/",
                    "reference": "reference/concepts/"}
BUILD_TIMEOUT = 1500


# ---------------------------------------------------------------- examples

def _pages() -> list[Path]:
    pages = [README] + sorted(p for p in DOCS.rglob("*.md") if "_gen" not in p.parts)
    return pages


_FENCE = re.compile(r"(?P<before>(?:<!--[^\n]*-->\s*\n)?)```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)\n```",
                    re.S)
_NEEDS = re.compile(r"<!--\s*docs-test:\s*needs\s+([\w.]+)\s*-->")


def _blocks(page: Path, lang: str) -> list[tuple[str, str | None]]:
    """(code, needed module or None) of each fenced block of ``lang`` in ``page``."""
    out = []
    for m in _FENCE.finditer(page.read_text(encoding="utf-8")):
        if m.group("lang") == lang:
            needs = _NEEDS.search(m.group("before") or "")
            out.append((m.group("body"), needs.group(1) if needs else None))
    return out


def _commands(page: Path) -> list[tuple[str, str | None]]:
    """The ``$ lpgame ...`` lines of the console blocks of ``page``."""
    out = []
    for body, needs in _blocks(page, "console"):
        for line in body.splitlines():
            if line.startswith("$ lpgame"):
                out.append((line[2:], needs))
    return out


def _page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


PY_PAGES = [p for p in _pages() if _blocks(p, "python")]
CLI_PAGES = [p for p in _pages() if _commands(p)]


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    """A scratch working folder where ``models/`` (the shipped game files) is at hand."""
    (tmp_path / "models").symlink_to(ROOT / "models")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    return tmp_path


def _skip_unless(module: str | None):
    if module is not None:
        pytest.importorskip(module)


def test_the_docs_have_examples():
    assert len(PY_PAGES) >= 12 and len(CLI_PAGES) >= 12


@pytest.mark.parametrize("page", PY_PAGES, ids=_page_id)
def test_python_examples_run(page, scratch, capsys):
    namespace: dict = {"__name__": "__docs__"}
    for number, (code, needs) in enumerate(_blocks(page, "python")):
        _skip_unless(needs)
        try:
            exec(compile(code, f"{_page_id(page)}[python block {number}]", "exec"), namespace)
        except Exception as exc:
            pytest.fail(f"{_page_id(page)}, python block {number} raised {exc!r}:\n{code}")
        finally:
            import matplotlib.pyplot as plt
            plt.close("all")


@pytest.mark.parametrize("page", CLI_PAGES, ids=_page_id)
def test_console_examples_run(page, scratch, capsys):
    from lpgame.cli import main

    for command, needs in _commands(page):
        _skip_unless(needs)
        argv = shlex.split(command)[1:]
        try:
            status = main(argv)
        except SystemExit as exc:
            status = exc.code
        out = capsys.readouterr()
        assert status in (0, None), f"{_page_id(page)}: `{command}` exited {status}:\n{out.err[-2000:]}"


# ---------------------------------------------------------------- README

def test_readme_is_one_screen_with_the_quickstart_unchanged():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    for command in QUICKSTART:
        assert command in text, command
    assert "mkdocs build --strict" in text and "mkdocs serve" in text


# ---------------------------------------------------------------- generated reference

@functools.cache
def _hooks():
    spec = importlib.util.spec_from_file_location("lpgame_docs_hooks", DOCS / "_gen" / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_api_reference_covers_every_public_name():
    import lpgame
    page = _hooks().api_page()
    for name in lpgame.__all__:
        assert f"{{ #lpgame.{name} }}" in page, name
    directives = re.findall(r"^::: ([\w.]+)$", page, re.M)
    documented = [n for n in lpgame.__all__ if not n.endswith("Error")]  # errors: on errors.md
    assert len(directives) >= len(documented)
    for target in directives:     # each target resolves to a real object
        module, _, attr = target.rpartition(".")
        try:
            obj = importlib.import_module(target)
        except ImportError:
            obj = getattr(importlib.import_module(module), attr)
        assert obj is not None


def test_concept_reference_covers_every_registered_concept():
    import lpgame
    page = _hooks().concepts_page()
    for c in lpgame.concepts():
        assert f"{{ #{c.name}-{c.variant} }}" in page, (c.name, c.variant)
        for o in c.options:
            assert f"| `{o.name}` |" in page, (c.name, o.name)


def test_cli_reference_covers_every_subcommand_and_option():
    import argparse

    from lpgame.cli import build_parser
    page = _hooks().cli_page()
    parser = build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    for name, sub in subs.items():
        assert f"`lpgame {name}`" in page, name
        for action in sub._actions:
            for flag in action.option_strings:
                if flag not in ("-h", "--help"):
                    assert flag in page, (name, flag)
    for c in __import__("lpgame").concepts():
        for o in c.options:
            if o.cli:
                assert o.cli_flag in page, o.cli_flag


def test_catalog_reference_covers_every_game():
    from lpgame.games import catalog
    page = _hooks().catalog_page({}, measure=False)
    for name in catalog():
        assert f"{{ #{name} }}" in page, name


def test_errors_reference_covers_every_error_class():
    import lpgame.errors as errors
    page = _hooks().errors_page()
    for name, obj in vars(errors).items():
        if isinstance(obj, type) and issubclass(obj, errors.LpgameError):
            assert name in page


# ---------------------------------------------------------------- benchmark tables

BENCHMARKS_PAGE = DOCS / "explanation" / "benchmarks.md"
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$", re.M)


def _results_io():
    return _hooks()._results_io()


def test_every_benchmark_result_is_well_formed_and_on_the_page():
    results_io = _results_io()
    names = results_io.names()
    assert len(names) >= 8, names
    text = BENCHMARKS_PAGE.read_text(encoding="utf-8")
    placeholders = results_io.PLACEHOLDER.findall(text)
    assert sorted(placeholders) == names, "one placeholder per file of benchmarks/results/"
    assert _TABLE_ROW.findall(text) == [], "a table written by hand on the benchmarks page"
    rendered = _hooks().on_page_markdown(text, None, None, None)
    assert "<!-- table:" not in rendered
    for name in names:
        data = results_io.load(name)        # raises on a malformed file
        assert results_io.markdown(data) in rendered, name
        assert f"`{data['command']}` · commit {data['commit']}" in rendered, name
    rows = sum(len(results_io.load(n)["rows"]) + 2 for n in names)
    assert len(_TABLE_ROW.findall(rendered)) == rows


def test_a_malformed_benchmark_result_is_refused(tmp_path):
    results_io = _results_io()
    good = results_io.load("bench_refinements")
    assert results_io.problems(good) == []
    assert results_io.problems({**good, "rows": [["K23", "0.10 s"]]})
    assert results_io.problems({k: v for k, v in good.items() if k != "commit"})
    assert results_io.problems({**good, "columns": []})
    path = results_io.save({**good, "benchmark": "renamed"}, tmp_path)
    assert results_io.load(path)["rows"] == good["rows"]
    path.write_text(path.read_text().replace('"renamed"', '"other"'))
    with pytest.raises(ValueError):
        results_io.load(path)
    with pytest.raises(FileNotFoundError):
        results_io.render("<!-- table: no_such_benchmark -->")


# ---------------------------------------------------------------- the site

def _mkdocs() -> None:
    for module in ("mkdocs", "material", "mkdocstrings", "mkdocs_jupyter"):
        pytest.importorskip(module, reason="the docs extra is not installed: pip install -e '.[docs]'")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site built once with ``mkdocs build --strict``."""
    _mkdocs()
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "LPGAME_DOCS_CACHE": "false", "LPGAME_DOCS_EXECUTE": "true",
           "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=BUILD_TIMEOUT, env=env)
    assert proc.returncode == 0, proc.stderr[-6000:]
    return out


class _Images(HTMLParser):
    def __init__(self):
        super().__init__()
        self.sources: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.sources.append(dict(attrs).get("src") or "")


def _missing_images(site_dir: Path, page: Path, html_text: str) -> list[str]:
    parser = _Images()
    parser.feed(html_text)
    missing = []
    for src in parser.sources:
        if src.startswith("data:"):
            continue
        url = urlparse(src)
        if url.scheme or url.netloc:
            missing.append(src + " (not served by the site)")
            continue
        target = (page.parent / unquote(url.path)).resolve()
        if not target.is_file() or site_dir.resolve() not in target.parents:
            missing.append(src)
    return missing


@pytest.mark.docs
def test_site_builds_strict_with_the_complete_reference(site):
    import lpgame
    api = (site / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    for name in lpgame.__all__:
        assert f'id="lpgame.{name}"' in api, name
    concepts = (site / "reference" / "concepts" / "index.html").read_text(encoding="utf-8")
    for c in lpgame.concepts():
        assert f'id="{c.name}-{c.variant}"' in concepts
    for tutorial in ("01_matrix_games_as_lps", "05_verifying_cfr"):
        assert (site / "tutorials" / tutorial / "index.html").is_file()
    assert (site / "javascripts" / "mathjax" / "tex-svg.js").is_file()


@pytest.mark.docs
def test_the_benchmark_tables_are_built(site):
    results_io = _results_io()
    page = (site / "explanation" / "benchmarks" / "index.html").read_text(encoding="utf-8")
    assert page.count("<table>") == len(results_io.names())
    assert "<!-- table:" not in page


@pytest.mark.docs
def test_every_image_of_the_site_resolves(site):
    missing = {}
    for page in site.rglob("*.html"):
        bad = _missing_images(site, page, page.read_text(encoding="utf-8"))
        if bad:
            missing[str(page.relative_to(site))] = bad
    assert not missing


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no chromium: apt-get install chromium")


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def _serve(directory: Path):
    handler = functools.partial(_QuietHandler, directory=str(directory))
    with socketserver.TCPServer(("127.0.0.1", 0), handler) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}/"
        finally:
            server.shutdown()


CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run",
                  "--disable-dev-shm-usage", "--virtual-time-budget=15000"]


@pytest.mark.docs
@pytest.mark.parametrize("which", list(SCREENSHOT_PAGES))
def test_pages_render_in_a_headless_browser(site, which, tmp_path):
    browser = _chromium()
    path = SCREENSHOT_PAGES[which]
    with _serve(site) as base:
        proc = subprocess.run([browser, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path}",
                               "--dump-dom", base + path],
                              capture_output=True, text=True, timeout=180)
    dom = proc.stdout
    assert "</html>" in dom, proc.stderr[-2000:]
    assert _missing_images(site, site / path / "index.html", dom) == []
    assert "mjx-merror" not in dom and "data-mjx-error" not in dom, "MathJax reported an error"
    if which != "reference":           # pages with math: MathJax ran and typeset it
        assert "<mjx-container" in dom, "MathJax did not typeset the page"
        left = re.findall(r"\\\(|\\\[|\$[^$\s][^$]{0,80}\$", _visible_text(dom))
        assert not left, f"math left as TeX source: {left[:5]}"


def _visible_text(dom: str) -> str:
    dom = re.sub(r"<(script|style|code|pre|mjx-container|svg)\b.*?</\1>", " ", dom, flags=re.S)
    return re.sub(r"<[^>]+>", " ", dom)


@pytest.mark.docs
def test_the_screenshots_are_committed():
    for which in SCREENSHOT_PAGES:
        shot = DOCS / "screenshots" / f"{which}.png"
        assert shot.is_file() and shot.stat().st_size > 10_000, shot

