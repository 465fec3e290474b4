"""Size predictions of catalog games from their parameters, before anything is built.

Each generator declares ``size=`` in :func:`lpgame.games.registry.register`: a function of its
parameters that returns the bytes its build needs *at least*, from the game's closed-form counts
(cited in each generator's docstring). The registry hands the prediction to
:func:`lpgame.limits.check_prediction`, which refuses an absurd size with
:class:`~lpgame.errors.ModelTooLargeError` in microseconds instead of letting the build run until
the operating system kills it (issue 19).

The counts are lower bounds, so a game that fits is never refused here; games near the limit are
still stopped by the checks inside the builders (:func:`lpgame.game.rules.expand` counts nodes as it
goes). The combinatorial helpers saturate at :data:`SATURATION` (2¹²⁸ bytes, far beyond any memory)
using log-gamma, so that parameters such as ``N=10**23`` or ``K=10**9`` never make Python compute a
number with billions of digits:

* ``log₂ n! = lgamma(n + 1) / ln 2`` for :func:`permutations` ``n!/(n−k)!`` and :func:`binomial`;
* ``log₂ bᵉ = e · log₂ b`` for :func:`power`.

Costs per item (lpgame.limits): an explicit tree node ``BYTES_PER_TREE_NODE`` (1.9 KB, measured);
a node of a public tree (a Python tuple and its dictionary entries) :data:`BYTES_PER_PUBLIC_NODE`;
a (private signal, public sequence) pair of a compiled game, held in a few int64 arrays,
:data:`BYTES_PER_SIGNAL_SEQUENCE`.
"""

from __future__ import annotations

import math

from lpgame.limits import BYTES_PER_TREE_NODE

SATURATION = 1 << 128
_LOG2_SATURATION = 128
BYTES_PER_PUBLIC_NODE = 200
BYTES_PER_SIGNAL_SEQUENCE = 32


def _log2_factorial(n: int) -> float:
    return math.lgamma(n + 1) / math.log(2) if n > 0 else 0.0


def saturate(value: int) -> int:
    """``value`` capped at :data:`SATURATION`."""
    return min(int(value), SATURATION)


def power(base: int, exponent: int) -> int:
    """``base ** exponent``, saturated (never computed when its log₂ exceeds 128)."""
    if base <= 1 or exponent <= 0:
        return 1 if exponent <= 0 or base == 1 else 0
    if exponent * math.log2(base) > _LOG2_SATURATION:
        return SATURATION
    return base ** exponent


def permutations(n: int, k: int) -> int:
    """``n! / (n − k)!`` ordered choices of k out of n (0 when k > n), saturated."""
    if k < 0 or k > n:
        return 0
    if _log2_factorial(n) - _log2_factorial(n - k) > _LOG2_SATURATION:
        return SATURATION
    return math.perm(n, k)


def binomial(n: int, k: int) -> int:
    """``C(n, k)`` (0 when k > n), saturated."""
    if k < 0 or k > n:
        return 0
    k = min(k, n - k)
    if _log2_factorial(n) - _log2_factorial(n - k) - _log2_factorial(k) > _LOG2_SATURATION:
        return SATURATION
    return math.comb(n, k)


def tree_bytes(nodes: int) -> int:
    """Bytes of an explicit (networkx) tree of ``nodes`` nodes."""
    return saturate(saturate(nodes) * BYTES_PER_TREE_NODE)


def compiled_bytes(public_nodes: int, signal_sequences: int) -> int:
    """Bytes of a compiled private-signal game: its public tree and its (signal, public sequence)
    arrays."""
    return saturate(saturate(public_nodes) * BYTES_PER_PUBLIC_NODE
                    + saturate(signal_sequences) * BYTES_PER_SIGNAL_SEQUENCE)


__all__ = ["power", "permutations", "binomial", "saturate", "tree_bytes", "compiled_bytes",
           "SATURATION", "BYTES_PER_PUBLIC_NODE", "BYTES_PER_SIGNAL_SEQUENCE"]
