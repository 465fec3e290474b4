"""The points of a sweep: a catalog family over a parameter grid, a list of game files, or strategy files.

A family is swept over the Cartesian product of its parameters' value lists,

    points = { (p_1 = v_1, ..., p_k = v_k) : v_j ∈ V_j },    |points| = Π_j |V_j|,

each V_j written on the command line as ``KEY=LIST`` where LIST is

* ``A..B``       the integers A, A+1, ..., B (both included), e.g. ``N=2..2000``;
* ``A..B:S``     the integers A, A+S, ..., up to B, e.g. ``N=100..5000:100``;
* ``X,Y,Z``      the listed values (each may itself be ``A..B``), e.g. ``N=3,12,50,200``;
* ``X``          one value (ints, floats, true/false and text as for ``lpgame solve``).

Every point has an identifier, :attr:`SweepPoint.id` (``"one_card_poker N=12"``,
``"dudo K=3 D1=1 D2=2"``, a file path, or ``"verify kuhn_poker ckpt_100.json"``), which is how a
resumed sweep recognises the points it has finished.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path

from lpgame.errors import OptionError, UnknownGameError

KINDS = ("family", "file", "verify")
_RANGE = re.compile(r"^(-?\d+)\.\.(-?\d+)(?::(\d+))?$")
# two integers joined by something other than "..": a range written the wrong way (2-10, 2:10, 2–10)
_MISWRITTEN_RANGE = re.compile(r"^(-?\d+)\s*(?:-|–|—|:|…|\bto\b)\s*(-?\d+)$")


@dataclass(frozen=True)
class SweepPoint:
    """One task of a sweep.

    ``kind``: ``"family"`` (catalog ``game`` with ``params``), ``"file"`` (``game`` is a game file
    path) or ``"verify"`` (evaluate the strategy file ``strategy`` in ``game`` with ``params``).
    ``options``: per-point solve options (e.g. ``{"algorithm": "double_oracle"}``), which override
    the sweep's own.
    """

    kind: str
    game: str
    params: dict = field(default_factory=dict)
    strategy: str | None = None
    options: dict = field(default_factory=dict)
    label: str | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise OptionError(f"sweep point kind {self.kind!r} is not one of {', '.join(KINDS)}")

    @property
    def id(self) -> str:
        """The point's identifier (module docstring); unique within a sweep."""
        if self.label:
            return self.label
        params = " ".join(f"{k}={_text(v)}" for k, v in self.params.items())
        if self.kind == "verify":
            return " ".join(x for x in ("verify", self.game, params, str(self.strategy)) if x)
        options = " ".join(f"{k}={_text(v)}" for k, v in sorted(self.options.items()))
        return " ".join(x for x in (self.game, params, options) if x)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "game": self.game, "params": dict(self.params),
                "strategy": self.strategy, "options": dict(self.options), "label": self.label}

    @classmethod
    def from_dict(cls, data: dict) -> SweepPoint:
        return cls(data["kind"], data["game"], dict(data.get("params") or {}), data.get("strategy"),
                   dict(data.get("options") or {}), data.get("label"))


def _text(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def parse_value(text: str):
    """One parameter value: int, float, true/false, or the text itself."""
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            continue
    return text


def parse_values(key: str, text: str) -> list:
    """The value list of ``KEY=TEXT`` (module docstring); OptionError names a malformed one."""
    values: list = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            raise OptionError(f"sweep parameter {key}={text!r}: empty value in the list")
        match = _RANGE.match(part)
        if match:
            low, high, step = int(match[1]), int(match[2]), int(match[3] or 1)
            if high < low:
                raise OptionError(f"sweep parameter {key}={text!r}: the range {part} is empty "
                                  f"({high} < {low})")
            if step < 1:
                raise OptionError(f"sweep parameter {key}={text!r}: the step must be at least 1")
            values.extend(range(low, high + 1, step))
        elif ".." in part:
            raise OptionError(f"sweep parameter {key}={text!r}: {part!r} is not a range of "
                              "integers A..B or A..B:STEP")
        elif _MISWRITTEN_RANGE.match(part):
            low, high = _MISWRITTEN_RANGE.match(part).groups()
            raise OptionError(f"sweep parameter {key}={text!r}: {part!r} is not a value; a range "
                              f"of integers is written A..B (here {low}..{high}) or A..B:STEP")
        else:
            values.append(parse_value(part))
    return values


def parse_grid(pairs: list[str]) -> dict[str, list]:
    """``["K=3..6", "D1=1..2"]`` -> ``{"K": [3, 4, 5, 6], "D1": [1, 2]}``, in the order given."""
    grid: dict[str, list] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise OptionError(f"sweep parameter {pair!r} is not of the form KEY=VALUES "
                              "(e.g. N=2..200, D1=1,2)")
        if key in grid:
            raise OptionError(f"sweep parameter {key} is given twice")
        grid[key] = parse_values(key, text)
    return grid


def grid_size(grid: dict[str, list]) -> int:
    size = 1
    for values in grid.values():
        size *= len(values)
    return size


def family_points(game: str, grid: dict[str, list], options: dict | None = None) -> list[SweepPoint]:
    """One point per element of the grid's Cartesian product (the last parameter varies fastest).

    Raises UnknownGameError for a game or a parameter name the catalog does not know, and
    OptionError for text where the parameter is a number or true/false (``N=ten``): the whole
    sweep would be wrong. Other bad values (``N=1`` below a game's range) are left for their own
    tasks, whose rows record the error.
    """
    from lpgame.games import catalog

    entries = catalog()
    if game not in entries:
        raise UnknownGameError(f"unknown game {game!r}; known games: {', '.join(entries)}")
    known = entries[game].parameters()
    unknown = [k for k in grid if k not in known]
    if unknown:
        raise UnknownGameError(
            f"game {game!r} has no parameter(s) {', '.join(unknown)}; its parameters are "
            + (", ".join(f"{k}={v!r}" for k, v in known.items()) or "none"))
    for key, values in grid.items():
        default = known[key]
        if isinstance(default, (bool, int, float)):
            text = [v for v in values if isinstance(v, str)]
            if text:
                kind = "true or false" if isinstance(default, bool) else "a number"
                raise OptionError(f"sweep parameter {key} of {game} is {kind} (default "
                                  f"{default!r}); {', '.join(map(repr, text))} is not")
    keys = list(grid)
    return [SweepPoint("family", game, dict(zip(keys, combination)), options=dict(options or {}))
            for combination in itertools.product(*(grid[k] for k in keys))]


def file_points(paths: list[str]) -> list[SweepPoint]:
    """One point per game file (each must exist and hold something)."""
    check_files(paths, "game file")
    return [SweepPoint("file", str(p)) for p in _unique(paths)]


def verify_points(game: str, params: dict, strategy_files: list[str]) -> list[SweepPoint]:
    """One point per strategy file, each evaluated in ``game`` with ``params``."""
    if not strategy_files:
        raise OptionError("sweep verify needs at least one strategy file after the game")
    check_files(strategy_files, "strategy file")
    return [SweepPoint("verify", game, dict(params), strategy=str(p)) for p in _unique(strategy_files)]


def check_files(paths: list[str], what: str) -> None:
    """OptionError naming the paths that are missing, folders, or empty (``/dev/null``, a file of
    0 bytes): what a sweep would otherwise only find in its tasks. Their contents are each point's
    own business (an unreadable file gives that point an ``invalid`` row)."""
    problems = {"missing": [], "folders": [], "empty": []}
    for path in map(str, paths):
        where = Path(path)
        if not where.exists():
            problems["missing"].append(path)
        elif where.is_dir():
            problems["folders"].append(path)
        elif not where.is_file() or where.stat().st_size == 0:
            problems["empty"].append(path)
    lines = []
    if problems["missing"]:
        lines.append(f"no such {what}(s): {', '.join(problems['missing'])}")
    if problems["folders"]:
        lines.append(f"folder(s), not a {what}: {', '.join(problems['folders'])}")
    if problems["empty"]:
        lines.append(f"empty, not a {what}: {', '.join(problems['empty'])} (a {what} holds "
                     + ("a game in Gambit's .efg or .nfg format)" if what == "game file" else
                        "JSON or CSV strategies)"))
    if lines:
        raise OptionError("; ".join(lines))


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(str(i) for i in items))


def check_unique(points: list[SweepPoint]) -> None:
    """Raise OptionError if two points share an identifier."""
    seen: set[str] = set()
    for point in points:
        if point.id in seen:
            raise OptionError(f"sweep point {point.id!r} appears twice")
        seen.add(point.id)


def parameter_names(points: list[SweepPoint]) -> list[str]:
    """Every parameter name of the points, in first-seen order (the table's parameter columns)."""
    return list(dict.fromkeys(k for p in points for k in p.params))


def last_integer(text: str) -> int | None:
    """The last integer in a file name's stem (``ckpt_000300.json`` -> 300), or None."""
    found = re.findall(r"\d+", Path(text).stem)
    return int(found[-1]) if found else None
