"""Plot a learning run: NashConv of the average strategy and player 1's value against iterations.

Left panel: NashConv (Σ of best-response gains, the seeds' exploitability) on log–log axes, as in
the thesis's figures (Rojas Linárez 2020, Fig. 5.1; Farina 2023's regret plots). Right panel: u_1
of the average profile with the exact LP value as a horizontal line (the value the dynamics
approach). Needs matplotlib (the ``notebooks`` extra).
"""

from __future__ import annotations

from lpgame.errors import LpgameError
from lpgame.learning.base import LearningResult
from lpgame.number_format import format_number


def plot_learning_curve(result: LearningResult, path=None, equilibrium_value=None,
                        title: str | None = None, decimals: int | None = None):
    """Draw ``result``'s curve; save to ``path`` when given. Returns the matplotlib figure. The
    legend prints the LP value by :mod:`lpgame.number_format` (``decimals`` after the point when
    given, else 6 significant digits; an exact value as its fraction)."""
    try:
        import matplotlib
        if path is not None:
            matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the optional extra
        raise LpgameError("plotting needs matplotlib: pip install matplotlib") from exc
    iterations = [row[0] for row in result.curve]
    nash_conv = [max(row[2], 1e-300) for row in result.curve]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.loglog(iterations, nash_conv, marker="o", markersize=3)
    left.set_xlabel("iteration")
    left.set_ylabel("NashConv of the average strategy")
    left.grid(True, which="both", alpha=0.3)
    right.semilogx(iterations, result.values, marker="o", markersize=3, label="average strategy")
    if equilibrium_value is not None:
        right.axhline(float(equilibrium_value), color="black", linestyle="--",
                      label=f"LP value {format_number(equilibrium_value, decimals=decimals)}")
    right.set_xlabel("iteration")
    right.set_ylabel("value for player 1")
    right.legend()
    right.grid(True, which="both", alpha=0.3)
    fig.suptitle(title or f"{result.algorithm} on {result.game}")
    fig.tight_layout()
    if path is not None:
        from lpgame.io.safe_files import atomic_path
        with atomic_path(path) as temp:  # the previous picture stays whole if this is interrupted
            fig.savefig(temp)
        plt.close(fig)
    return fig


__all__ = ["plot_learning_curve"]
