"""The sweep's table: one row per point, written as it goes so that a killed sweep keeps every finished row.

Columns, in order: ``point`` (the point's identifier, :attr:`~lpgame.sweep.points.SweepPoint.id`),
``kind``, ``game``, one column per swept parameter, ``strategy`` (verify sweeps), ``concept``,
``variant`` (the registry entry that ran, e.g. ``lp`` or ``double_oracle``), ``exact``, ``backend``,
``status``, ``error``; the answer: ``value`` for player 1, ``values`` as a JSON list,
``value_exact`` in exact mode; the certificate: ``nash_conv``, ``nash_conv_exact`` and
``exploitability`` for profiles, ``gain`` (the certificate's common figure, e.g. a correlated
equilibrium's largest deviation gain), ``payoff_range`` of the game to judge them by; for a solver
stopped at its time limit ``objective_reached`` and ``best_bound``; the LP size (``rows``,
``cols``, ``nnz``); the game's ``nodes``; the ``solver`` that ran (its name, e.g. ``HiGHS
simplex``); times: ``build_seconds``, ``solve_seconds``, ``seconds`` in the task, ``wall_seconds``
with the child process's start; ``peak_mib`` (the child process's peak resident memory); the
``worker`` (host:pid); ``finished_at`` (UTC, ISO 8601); ``extra`` (JSON of other small entries of
the result).

Formats, by the path's suffix:

* ``.csv``: one line appended and flushed per finished row (a kill can cut at most the line being
  written; :func:`read_table` drops a final line without its newline, and a resumed sweep rewrites
  the file without it);
* ``.parquet``: the whole table rewritten to a temporary file and renamed over the old one after every
  row (:func:`os.replace` is atomic, so the file on disk is always a complete table).
"""

from __future__ import annotations

import csv
import io
import os
import re
from pathlib import Path

from lpgame.errors import OptionError
from lpgame.sweep.points import parse_value

FLOAT_COLUMNS = ("value", "nash_conv", "exploitability", "gain", "payoff_range", "objective_reached",
                 "best_bound", "build_seconds", "solve_seconds", "seconds", "wall_seconds", "peak_mib")
INT_COLUMNS = ("rows", "cols", "nnz", "nodes")
BOOL_COLUMNS = ("exact",)
HEAD_COLUMNS = ("point", "kind", "game")
TAIL_COLUMNS = ("strategy", "concept", "variant", "exact", "backend", "status", "error", "value",
                "values", "value_exact", "nash_conv", "nash_conv_exact", "exploitability", "gain",
                "payoff_range",
                "objective_reached", "best_bound", "rows", "cols", "nnz", "nodes", "solver",
                "build_seconds", "solve_seconds", "seconds", "wall_seconds", "peak_mib", "worker",
                "finished_at", "extra")
FORMATS = (".csv", ".parquet")
_LINE_BREAKS = re.compile(r"[\r\n]+")


def columns_for(parameters: list[str]) -> list[str]:
    """The table's columns for a sweep over ``parameters`` (module docstring)."""
    clash = [p for p in parameters if p in HEAD_COLUMNS or p in TAIL_COLUMNS]
    if clash:
        raise OptionError(f"sweep parameter name(s) {', '.join(clash)} clash with the table's own "
                          "columns")
    return [*HEAD_COLUMNS, *parameters, *TAIL_COLUMNS]


def table_format(path: str | Path) -> str:
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise OptionError(f"sweep table {path}: the file name must end in .csv or .parquet")
    return suffix


class TableWriter:
    """Appends rows to a CSV or Parquet table as they come (module docstring).

    ``rows`` are rows the table keeps (a resumed sweep's finished rows): the file is rewritten with
    them first, atomically (a temporary file renamed over the old one), so that a line cut by a kill
    or a failed row run again leaves nothing behind.
    """

    def __init__(self, path: str | Path, columns: list[str], rows: list[dict] | None = None):
        self.path = Path(path)
        self.format = table_format(self.path)
        self.columns = list(columns)
        self.rows: list[dict] = [dict(r) for r in rows or []]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._rewrite()

    def append(self, row: dict) -> None:
        """Add one row and put it on disk before returning."""
        self.rows.append(dict(row))
        if self.format == ".csv":
            with open(self.path, "a", newline="", encoding="utf-8") as fh:
                csv.writer(fh).writerow(_csv_cells(row, self.columns))
                fh.flush()
        else:
            self._rewrite()

    def _rewrite(self) -> None:
        tmp = self.path.with_name(self.path.name + ".tmp")
        if self.format == ".csv":
            with open(tmp, "w", newline="", encoding="utf-8") as fh:
                writer = csv.writer(fh)
                writer.writerow(self.columns)
                for row in self.rows:
                    writer.writerow(_csv_cells(row, self.columns))
        else:
            import pyarrow.parquet as pq
            pq.write_table(to_arrow(self.rows, self.columns), tmp)
        os.replace(tmp, self.path)


def _csv_cells(row: dict, columns: list[str]) -> list:
    """Cells of one CSV line: None as empty, line breaks in text as " | " (one row, one line)."""
    cells = []
    for column in columns:
        value = row.get(column)
        if value is None:
            cells.append("")
        elif isinstance(value, str):
            cells.append(_LINE_BREAKS.sub(" | ", value))
        else:
            cells.append(value)
    return cells


def to_arrow(rows: list[dict], columns: list[str]):
    """The rows as a :class:`pyarrow.Table` with typed columns (parameters typed by their values)."""
    import pyarrow as pa

    fields, arrays = [], []
    for column in columns:
        values = [row.get(column) for row in rows]
        kind = _arrow_type(column, values)
        if kind == pa.string():
            values = [None if v is None else str(v) for v in values]
        elif kind == pa.float64():
            values = [None if v is None else float(v) for v in values]
        fields.append(pa.field(column, kind))
        arrays.append(pa.array(values, type=kind))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def _arrow_type(column: str, values: list):
    import pyarrow as pa

    if column in FLOAT_COLUMNS:
        return pa.float64()
    if column in INT_COLUMNS:
        return pa.int64()
    if column in BOOL_COLUMNS:
        return pa.bool_()
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return pa.bool_()
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return pa.int64()
    if present and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return pa.float64()
    return pa.string()


def read_table(path: str | Path) -> list[dict]:
    """The rows of a sweep table (CSV or Parquet), typed as written; [] when there is no file."""
    path = Path(path)
    kind = table_format(path)
    if not path.exists():
        return []
    if kind == ".parquet":
        import pyarrow.parquet as pq
        # from one open file: given the path, pyarrow opens it more than once (footer, then
        # pages), and a running sweep's os.replace in between mixes two versions ("Page was
        # smaller than expected"); an open handle keeps the one version it opened
        with open(path, "rb") as fh:
            return pq.read_table(fh).to_pylist()
    text = path.read_text(encoding="utf-8")
    if text and not text.endswith("\n"):
        text = text[: text.rfind("\n") + 1]       # a last line cut by a kill
    reader = csv.DictReader(io.StringIO(text, newline=""))
    return [{k: _from_csv(k, v) for k, v in row.items()} for row in reader
            if None not in row and all(v is not None for v in row.values())]


def _from_csv(column: str, text: str):
    if text == "":
        return None
    if column in FLOAT_COLUMNS:
        return float(text)
    if column in INT_COLUMNS:
        return int(text)
    if column in BOOL_COLUMNS:
        return text == "True"
    if column in HEAD_COLUMNS or column in TAIL_COLUMNS:
        return text
    return parse_value(text)          # a parameter column
