"""Benchmark outputs: one JSON file per table in ``benchmarks/results/``, rendered on the docs site.

A file ``benchmarks/results/<benchmark>.json`` holds one table and where it came from::

    {"benchmark": "bench_startup",                  # the file's stem
     "command": "python -m benchmarks.bench_startup --save",
     "commit": "77c61f2",                           # git sha of the run ("before SHA" if unknown)
     "date": "2026-11-28",
     "machine": "2 cores, Linux x86_64, Python 3.11",
     "columns": ["command", "CPU s (median)", ...],
     "rows": [["lpgame --version", 0.21, ...], ...],   # cells: text, numbers or null ("—")
     "notes": "what the figures are, how to read them"}

A benchmark script writes its table with :func:`save` (its ``--save`` option); the docs hook
(``docs/_gen/hooks.py``) replaces each ``<!-- table: NAME -->`` of a page by :func:`markdown` of
``NAME.json``. Cells are written on the page as stored: text as is (so a hand-measured ``0.20``
keeps its digits), numbers as stored up to :data:`DIGITS` significant digits (a script rounds
what it saves).
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
REPOSITORY = RESULTS.parent.parent
KEYS = ("benchmark", "command", "commit", "date", "machine", "columns", "rows", "notes")
#: significant digits of a float cell on the page
DIGITS = 6
PLACEHOLDER = re.compile(r"<!--\s*table:\s*([\w.-]+)\s*-->")


def commit() -> str:
    """The short git sha of the working tree, ``+`` when it has uncommitted changes."""
    try:
        sha = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPOSITORY, text=True,
                             capture_output=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=REPOSITORY, text=True, capture_output=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return sha + ("+" if dirty else "")


def machine() -> str:
    """The machine in words: cores, system, Python."""
    return (f"{os.cpu_count()} cores, {platform.system()} {platform.machine()}, "
            f"Python {platform.python_version()}")


def command(module: str, argv: list[str] | None = None) -> str:
    """The command line that ran ``module`` with ``argv`` (default: this process's arguments)."""
    args = sys.argv[1:] if argv is None else list(argv)
    return " ".join(["python", "-m", module] + args)


def result(benchmark: str, command: str, columns: list[str], rows: list[list],
           notes: str = "") -> dict:
    """A result of this run: its provenance (commit, date, machine) filled in."""
    return {"benchmark": benchmark, "command": command, "commit": commit(),
            "date": datetime.date.today().isoformat(), "machine": machine(),
            "columns": list(columns), "rows": [list(r) for r in rows], "notes": notes}


def problems(data) -> list[str]:
    """What is wrong with a result (empty when it is well formed)."""
    if not isinstance(data, dict):
        return ["not a JSON object"]
    out = [f"missing key {k!r}" for k in KEYS if k not in data]
    out += [f"unknown key {k!r}" for k in data if k not in KEYS]
    for key in ("benchmark", "command", "commit", "date", "machine", "notes"):
        if key in data and not isinstance(data[key], str):
            out.append(f"{key} is not a string")
    for key in ("benchmark", "command", "commit", "date", "machine"):
        if isinstance(data.get(key), str) and not data[key].strip():
            out.append(f"{key} is empty")
    columns, rows = data.get("columns"), data.get("rows")
    if not (isinstance(columns, list) and columns and all(isinstance(c, str) for c in columns)):
        out.append("columns is not a non-empty list of strings")
    elif not (isinstance(rows, list) and rows):
        out.append("rows is not a non-empty list")
    else:
        for i, row in enumerate(rows):
            if not isinstance(row, list) or len(row) != len(columns):
                out.append(f"row {i} does not have {len(columns)} cells")
            elif not all(c is None or isinstance(c, (str, int, float)) for c in row):
                out.append(f"row {i} has a cell that is not text, a number or null")
    return out


def save(data: dict, folder: Path | None = None) -> Path:
    """Write ``data`` to ``<folder>/<benchmark>.json`` (default ``benchmarks/results/``)."""
    bad = problems(data)
    if bad:
        raise ValueError("benchmark result: " + "; ".join(bad))
    path = (folder or RESULTS) / f"{data['benchmark']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(data), encoding="utf-8")
    return path


def dumps(data: dict) -> str:
    """JSON text of a result, one line per key and per row (short diffs)."""
    def one(value) -> str:
        return json.dumps(value, ensure_ascii=False)

    lines = [f" {one(k)}: {one(data[k])}," for k in KEYS if k != "rows"]
    rows = ",\n".join(f"  {one(row)}" for row in data["rows"])
    lines.append(f' "rows": [\n{rows}\n ]')
    return "{\n" + "\n".join(lines) + "\n}\n"


def load(name_or_path: str | Path) -> dict:
    """Read a result by benchmark name or path; a malformed file raises :class:`ValueError`."""
    path = Path(name_or_path)
    if path.suffix != ".json":
        path = RESULTS / f"{name_or_path}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    bad = problems(data)
    if not bad and data["benchmark"] != path.stem:
        bad = [f"benchmark {data['benchmark']!r} is not the file's name"]
    if bad:
        raise ValueError(f"{path}: " + "; ".join(bad))
    return data


def names() -> list[str]:
    """The benchmarks with a result file."""
    return sorted(p.stem for p in RESULTS.glob("*.json"))


def _cell(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{DIGITS}g}"
    return str(value).replace("\n", " ").replace("|", "\\|")


def markdown(data: dict) -> str:
    """The table as Markdown, with the command, commit, date and machine under it."""
    lines = ["| " + " | ".join(_cell(c) for c in data["columns"]) + " |",
             "|" + "---|" * len(data["columns"])]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in data["rows"]]
    lines += ["", f"<small>`{data['command']}` · commit {data['commit']} · {data['date']} · "
                  f"{_cell(data['machine'])}"
                  + (f" · {data['notes']}" if data["notes"] else "") + "</small>"]
    return "\n".join(lines)


def render(text: str) -> str:
    """``text`` with each ``<!-- table: NAME -->`` replaced by :func:`markdown` of NAME's file
    (a missing or malformed file raises, so that a strict docs build fails)."""
    return PLACEHOLDER.sub(lambda m: markdown(load(m.group(1))), text)
