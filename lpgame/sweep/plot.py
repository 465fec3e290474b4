"""Plot a sweep's table: the value and the time of each point against the swept parameter.

The horizontal axis is the swept numeric parameter with the most distinct values (for a family),
the number in each strategy file's name (for verify sweeps of checkpoints ``ckpt_100.json``, ...),
or the file's position (for game files). Every other parameter that varies gives its own line,
labelled ``D1=1 D2=2``. The top panel shows player 1's value for a solved point (for verify sweeps,
the exploitability ε = NashConv / n on a log scale, since the value of a checkpoint is not the
question); the bottom panel the task's seconds, with a cross where the point failed. A positive
horizontal axis spanning two decades or more is drawn on a log scale.
"""

from __future__ import annotations

from pathlib import Path

from lpgame.errors import OptionError
from lpgame.sweep.points import last_integer

PLOT_FORMATS = (".png", ".svg", ".pdf")


def check_plot_path(path: str | Path) -> None:
    if Path(path).suffix.lower() not in PLOT_FORMATS:
        raise OptionError(f"sweep plot {path}: the file name must end in .png, .svg or .pdf")


def plot_sweep(rows: list[dict], parameters: list[str], path: str | Path) -> None:
    """Draw the value and seconds of ``rows`` against the swept parameter into ``path``."""
    check_plot_path(path)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x_name, xs, ticks = _horizontal_axis(rows, parameters)
    others = [p for p in parameters if p != x_name and len({r.get(p) for r in rows}) > 1]
    verify = bool(rows) and all(r.get("kind") == "verify" for r in rows)
    quantity = "exploitability" if verify else "value"
    figure, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(7, 6))
    groups: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        groups.setdefault(" ".join(f"{p}={row.get(p)}" for p in others), []).append(i)
    for label, members in groups.items():
        members.sort(key=lambda i: xs[i])
        solved = [i for i in members if row_solved(rows[i]) and rows[i].get(quantity) is not None]
        top.plot([xs[i] for i in solved], [rows[i][quantity] for i in solved], "o-", markersize=3,
                 label=label or None)
        timed = [i for i in members if rows[i].get("seconds") is not None]
        line, = bottom.plot([xs[i] for i in timed if row_solved(rows[i])],
                            [rows[i]["seconds"] for i in timed if row_solved(rows[i])], "o-",
                            markersize=3)
        failed = [i for i in timed if not row_solved(rows[i])]
        if failed:
            bottom.plot([xs[i] for i in failed], [rows[i]["seconds"] for i in failed], "x",
                        color=line.get_color(), markersize=8,
                        label=f"{label + ': ' if label else ''}not solved")
    if verify:
        top.set_yscale("log")
    if ticks is None and xs and min(xs) > 0 and max(xs) >= 100 * min(xs):
        bottom.set_xscale("log")          # checkpoints 10, 100, 1000, ... or N over decades
    top.set_ylabel("exploitability (NashConv / n)" if verify else "value for player 1")
    bottom.set_ylabel("seconds (task)")
    bottom.set_xlabel(x_name)
    if ticks is not None:
        bottom.set_xticks(range(len(ticks)), ticks, rotation=45, ha="right", fontsize=7)
    if any(groups) and len(groups) > 1:
        top.legend(fontsize=7)
    if bottom.get_legend_handles_labels()[0]:
        bottom.legend(fontsize=7)
    game = rows[0].get("game") if rows else ""
    top.set_title(f"sweep of {game}" if not verify else f"strategy files in {game}")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def row_solved(row: dict) -> bool:
    return row.get("status") in ("solved", "evaluated")


def _horizontal_axis(rows: list[dict], parameters: list[str]):
    """(axis name, x of each row, tick labels or None)."""
    numeric = [p for p in parameters
               if all(isinstance(r.get(p), (int, float)) and not isinstance(r.get(p), bool)
                      for r in rows)]
    if numeric:
        name = max(numeric, key=lambda p: len({r[p] for r in rows}))
        return name, [r[name] for r in rows], None
    if rows and all(r.get("kind") == "verify" for r in rows):
        numbers = [last_integer(r.get("strategy") or "") for r in rows]
        if all(n is not None for n in numbers) and len(set(numbers)) == len(numbers):
            return "number in the strategy file's name", numbers, None
        return "strategy file", list(range(len(rows))), [Path(r["strategy"]).name for r in rows]
    return "point", list(range(len(rows))), [Path(r["point"]).name for r in rows]
