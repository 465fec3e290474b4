"""Memory limits: predict what a model will need and refuse it before the machine runs out.

lpgame never lets a model grow until the operating system kills the process: the expansion of a
rules object, the broadcast compilation of a private-signal game and the rendering of an LP each
predict their memory first and raise :class:`~lpgame.errors.ModelTooLargeError`, with the prediction
and the limit in the message, when it exceeds the limit.

The limit defaults to 75 % of the memory the operating system reports as available
(``MemAvailable`` in /proc/meminfo) and can be set with the environment variable
``LPGAME_MEMORY_LIMIT`` (bytes, or with a suffix K, M, G) or per call.

The per-item costs below were measured on this project's machines (CPython 3.11, networkx 3.6,
HiGHS 1.15): an explicit tree node with its edge costs about 1.9 KB (OCP(300), 807,301 nodes), a
leaf of a compiled index about 8·(2n + 2) bytes, and a nonzero of an LP, counting our sparse copies
and HiGHS's column- and row-wise matrices and factorisation, well under 100 bytes.
"""

from __future__ import annotations

import os

from lpgame.errors import ModelTooLargeError, OptionError

BYTES_PER_TREE_NODE = 1900
BYTES_PER_LP_NONZERO = 100
BYTES_PER_LP_ROW_OR_COLUMN = 400
DEFAULT_FRACTION_OF_AVAILABLE = 0.75


def parse_bytes(text: str, what: str = "memory limit") -> int:
    """Bytes from ``text``: a number, optionally with the suffix K, M or G (binary units).

    Raises :class:`~lpgame.errors.OptionError` (naming ``what``) for anything else, NaN and
    infinity included.
    """
    spelled = str(text).strip().upper()
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(spelled[-1:], 1)
    try:
        value = float(spelled[:-1] if spelled[-1:] in ("K", "M", "G") else spelled) * scale
    except ValueError:
        value = float("nan")
    if value != value or value in (float("inf"), float("-inf")):
        raise OptionError(f"{what} {text!r} is not a number of bytes (e.g. 2G, 512M, 1000000)")
    return int(value)


def available_memory() -> int:
    """Bytes the operating system reports as available (MemAvailable), or 8 GiB if unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 8 << 30


def memory_limit(limit: int | None = None) -> int:
    """The limit in bytes: ``limit`` if given, else ``LPGAME_MEMORY_LIMIT``, else 75 % available."""
    if limit is not None:
        return int(limit)
    env = os.environ.get("LPGAME_MEMORY_LIMIT")
    if env:
        return parse_bytes(env, "LPGAME_MEMORY_LIMIT")
    return int(available_memory() * DEFAULT_FRACTION_OF_AVAILABLE)


def _gib(n: int) -> str:
    if n >= 1 << 60:
        return f"{n / (1 << 60):.3g} EiB" if n < 1 << 70 else f"2^{n.bit_length() - 1} bytes or more"
    for unit, size in (("PiB", 1 << 50), ("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20),
                       ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"


def _bytes(n: int) -> str:
    """A byte count in digits, or as a power of two when it is too long to read."""
    return str(n) if n < 10 ** 18 else f"about 2^{n.bit_length() - 1}"


SMALL_PREDICTION = 1 << 20
"""A prediction of at most this many bytes (1 MiB) is not compared with the memory the operating
system reports as available: reading /proc/meminfo costs tens of µs, a fixed cost of every small
game's build and solve, and no machine that runs Python has less than this to spare. A limit given
per call or by ``LPGAME_MEMORY_LIMIT`` still applies to every prediction."""


def os_limit_unread(limit: int | None, predicted: int) -> bool:
    """Whether ``predicted`` bytes pass without reading the operating system's available memory
    (:data:`SMALL_PREDICTION`; no limit given per call or by the environment)."""
    return limit is None and predicted <= SMALL_PREDICTION and not os.environ.get(
        "LPGAME_MEMORY_LIMIT")


def check_prediction(what: str, predicted: int, limit: int | None = None) -> None:
    """Raise :class:`ModelTooLargeError` when ``predicted`` bytes exceed the limit (predictions up
    to :data:`SMALL_PREDICTION` pass unread where no limit is set)."""
    if os_limit_unread(limit, predicted):
        return
    allowed = memory_limit(limit)
    if predicted > allowed:
        raise ModelTooLargeError(
            f"{what} would need about {_gib(predicted)}, more than the limit of {_gib(allowed)} "
            f"({_bytes(predicted)} > {allowed} bytes); raise LPGAME_MEMORY_LIMIT or use a smaller "
            "or structured model")


def tree_node_limit(limit: int | None = None) -> int:
    """How many explicit tree nodes fit in the limit."""
    return max(memory_limit(limit) // BYTES_PER_TREE_NODE, 1)


def first_tree_node_check(limit: int | None = None) -> tuple[int, bool]:
    """(nodes, final): where a tree walk first checks its size. ``final`` is False where the
    limit comes from the operating system and the walk has not yet passed
    :data:`SMALL_PREDICTION` bytes of nodes; the walk then reads :func:`tree_node_limit` at
    that node count (so a small tree never reads /proc/meminfo)."""
    small = SMALL_PREDICTION // BYTES_PER_TREE_NODE
    if os_limit_unread(limit, small * BYTES_PER_TREE_NODE):
        return small, False
    return tree_node_limit(limit), True


def predict_lp_bytes(rows: int, cols: int, nnz: int) -> int:
    return nnz * BYTES_PER_LP_NONZERO + (rows + cols) * BYTES_PER_LP_ROW_OR_COLUMN
