"""Pictures for teaching: the game tree with information sets and strategy probabilities.

:func:`draw_tree` lays the explicit tree out top-down (leaves spaced evenly, each inner node centred
over its children, the usual tidy layout), draws chance nodes as circles, decision nodes as squares
coloured by player and leaves as payoffs, joins the nodes of each information set by a dashed line
labelled with the set's name, and writes on every edge its action and, when strategies are given,
the probability the strategy (or chance) puts on it. :func:`draw_strategy_heatmap` shows one
player's behavioural strategy as an information set × action table. Both use matplotlib (the
``notebooks`` extra) and refuse trees too large to read (:class:`~lpgame.errors.LpgameError`).

Layout of the labels: an edge's action (and probability) sits at :data:`EDGE_LABEL_POSITION` of
the way from parent to child, where siblings are farther apart than at the middle, and the figure
is made wide enough that on every level the estimated text widths of neighbouring labels
(:data:`CHARACTER_WIDTH` of the font size per character) fit between their anchors; the tests
measure the drawn boxes with matplotlib's renderer. Titles print values as short fractions
(``-1/18``) or four decimals (``-0.0556``), never a float's full repr (:func:`format_value`).

Refusals name the fix (issue 19): a compiled game is drawn with ``structured=False``; a game
without a two-player zero-sum equilibrium to show is drawn with ``--no-solve`` (Python:
``draw_tree(game)`` without strategies); an unknown picture format is refused by
:func:`check_picture_path` before anything is solved.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from lpgame.errors import ConceptMismatchError, LpgameError, OptionError
from lpgame.game.tree import CHANCE, DECISION, TERMINAL, Game

MAX_DRAWN_NODES = 400
PLAYER_COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]
EDGE_LABEL_POSITION = 0.65
EDGE_FONT_SIZE = 7
CHARACTER_WIDTH = 0.62          # average glyph width / font size of matplotlib's default font
LABEL_GAP_POINTS = 4.0
LEVEL_HEIGHT_INCHES = 1.6
PICTURE_FORMATS = ("png", "svg", "pdf", "eps", "ps", "jpg", "jpeg", "tif", "tiff", "webp", "svgz",
                   "pgf", "raw", "rgba")


def _pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - optional extra
        raise LpgameError("drawing needs matplotlib: pip install 'lpgame[notebooks]'") from exc
    return plt


def _fmt(p) -> str:
    if isinstance(p, Fraction):
        return str(p)
    p = float(p)
    return f"{p:.3g}"


def format_value(value) -> str:
    """A value for a title: a Fraction of at most 12 characters as it is (``-1/18``), anything
    else with four decimals (``-0.0556``), or 4 significant digits when very large or small."""
    if isinstance(value, Fraction) and len(str(value)) <= 12:
        return str(value)
    number = float(value)
    if number == 0:
        return "0"
    if 1e-4 <= abs(number) < 1e4:
        return f"{number:.4f}".rstrip("0").rstrip(".")
    return f"{number:.4g}"


def equilibrium_title(name: str, value) -> str:
    """``"kuhn_poker: equilibrium, value -1/18"`` (see :func:`format_value`)."""
    return f"{name}: equilibrium, value {format_value(value)}"


def check_picture_path(path: str | Path) -> None:
    """Refuse (:class:`~lpgame.errors.OptionError`) a picture path whose extension matplotlib
    cannot write, before anything is solved."""
    suffix = Path(path).suffix.lower().lstrip(".")
    try:
        from matplotlib.backend_bases import FigureCanvasBase
        formats = tuple(sorted(FigureCanvasBase.get_supported_filetypes()))
    except ImportError:  # pragma: no cover - optional extra; drawing itself will say so
        formats = PICTURE_FORMATS
    if suffix not in formats:
        shown = f".{suffix}" if suffix else "no extension"
        raise OptionError(f"picture {path}: unknown picture format ({shown}); use one of "
                          + ", ".join(formats))


def tree_layout(game: Game) -> dict:
    """x, y positions: leaves at consecutive x in depth-first order, parents centred above."""
    graph, pos = game.graph, {}
    next_x = [0.0]

    def place(node, depth):  # recursion depth = tree depth, small for drawable trees
        children = list(graph.successors(node))
        if not children:
            pos[node] = (next_x[0], -depth)
            next_x[0] += 1.0
            return
        for child in children:
            place(child, depth + 1)
        xs = [pos[c][0] for c in children]
        pos[node] = ((min(xs) + max(xs)) / 2, -depth)

    place(game.root, 0)
    return pos


def check_drawable(game, solve: bool = False) -> None:
    """Raise :class:`~lpgame.errors.LpgameError` unless ``game`` is an explicit tree small enough to
    read as a picture (at most ``MAX_DRAWN_NODES`` nodes); with ``solve=True`` also
    :class:`~lpgame.errors.ConceptMismatchError` unless it is a two-player zero-sum game, whose
    equilibrium the picture would show. Each message names the fix."""
    name = getattr(game, "name", type(game).__name__)
    if not isinstance(game, Game):
        raise LpgameError(f"drawing needs an explicit game tree; {name} is compiled (from its "
                          "signal form or rules) and has no tree to draw: build it with "
                          "structured=False (command line: add structured=false after the game "
                          "name, e.g. lpgame draw one_card_poker N=3 structured=false)")
    n = game.graph.number_of_nodes()
    if n > MAX_DRAWN_NODES:
        raise LpgameError(f"{name} has {n} nodes; trees over {MAX_DRAWN_NODES} nodes are not "
                          "readable as a picture (draw a smaller instance)")
    if solve and not _two_player_zero_sum(game):
        raise ConceptMismatchError(
            f"drawing solves for a two-player zero-sum equilibrium, and {name} is "
            f"{'a ' + str(game.num_players) + '-player' if game.num_players != 2 else 'a general-sum'}"
            " game: draw its tree alone with --no-solve (Python: draw_tree(game)), or pass the "
            "strategies of another concept to draw_tree")


def _two_player_zero_sum(game: Game) -> bool:
    if game.num_players != 2:
        return False
    return bool(game.is_constant_sum(tol=1e-9 * max(game.payoff_range(), 1.0)))


def _edge_label_point(parent: tuple, child: tuple) -> tuple[float, float]:
    (x0, y0), (x1, y1) = parent, child
    t = EDGE_LABEL_POSITION
    return x0 + t * (x1 - x0), y0 + t * (y1 - y0)


def _text_width_points(text: str, size: float = EDGE_FONT_SIZE) -> float:
    return max(len(line) for line in text.split("\n")) * size * CHARACTER_WIDTH + 2 * 0.15 * size


def _inches_per_unit(labels: list[tuple[float, float, str]]) -> float:
    """The horizontal scale (inches per layout unit) at which neighbouring edge labels on one
    level do not overlap: for anchors at x_a < x_b with widths w_a, w_b (points),
    (x_b − x_a)·scale·72 ≥ (w_a + w_b)/2 + gap."""
    by_level: dict[float, list[tuple[float, float]]] = {}
    for x, y, text in labels:
        by_level.setdefault(round(y, 6), []).append((x, _text_width_points(text)))
    needed = 0.0
    for row in by_level.values():
        row.sort()
        for (xa, wa), (xb, wb) in zip(row, row[1:]):
            if xb - xa > 1e-9:
                needed = max(needed, ((wa + wb) / 2 + LABEL_GAP_POINTS) / 72.0 / (xb - xa))
    return needed


def draw_tree(game: Game, strategies: list[dict] | None = None, path: str | Path | None = None,
              title: str | None = None, width: float | None = None,
              unreached: list[list[str]] | None = None, value=None):
    """Draw ``game`` (and ``strategies``' probabilities) to ``path`` (PNG/SVG/PDF) or return the figure.

    ``unreached[i]`` lists player i's information sets that the profile never reaches (as in
    :attr:`lpgame.result.Result.unreached`): their probabilities are arbitrary, so they are drawn in
    grey and the set's name says "unreached". Without a ``title``, the title is the game's name,
    with the equilibrium ``value`` when given (:func:`equilibrium_title`).
    """
    check_drawable(game)
    if path is not None:
        check_picture_path(path)
    plt = _pyplot()
    from matplotlib.patches import PathPatch
    from matplotlib.path import Path
    graph, pos = game.graph, tree_layout(game)
    num_leaves = sum(1 for v in graph if graph.out_degree(v) == 0)
    depth = -min(y for _, y in pos.values())
    unreached_sets = {(i, label) for i, labels in enumerate(unreached or []) for label in labels}
    edge_labels = []
    for u, v, data in graph.edges(data=True):
        kind = graph.nodes[u]["kind"]
        text = data["action"]
        ink = "black"
        if kind == CHANCE:
            text += f"\n{_fmt(data['prob'])}"
        elif strategies is not None and kind == DECISION:
            node = graph.nodes[u]
            prob = strategies[node["player"]].get(node["infoset"], {}).get(data["action"])
            if prob is not None:
                text += f"\n{_fmt(prob)}"
            if (node["player"], node["infoset"]) in unreached_sets:
                ink = "#999999"
        edge_labels.append((u, v, text, ink))
    anchors = [(*_edge_label_point(pos[u], pos[v]), text) for u, v, text, _ in edge_labels]
    span = max(x for x, _ in pos.values()) - min(x for x, _ in pos.values()) + 1.0
    fit = _inches_per_unit(anchors) * span + 1.0
    fig, ax = plt.subplots(figsize=(width or max(8.0, 0.55 * num_leaves, fit),
                                    LEVEL_HEIGHT_INCHES * depth + 2))
    ax.set_xlim(min(x for x, _ in pos.values()) - 0.5, max(x for x, _ in pos.values()) + 0.5)
    for (u, v, text, ink), (lx, ly, _) in zip(edge_labels, anchors):
        (x0, y0), (x1, y1) = pos[u], pos[v]
        ax.plot([x0, x1], [y0, y1], color="#888888", lw=1, zorder=1)
        ax.text(lx, ly, text, fontsize=EDGE_FONT_SIZE, ha="center", va="center", color=ink,
                bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.85},
                zorder=3, gid="edge-label")
    members: dict[tuple[int, str], list] = {}
    for v, data in graph.nodes(data=True):
        x, y = pos[v]
        if data["kind"] == CHANCE:
            ax.scatter([x], [y], s=120, marker="o", color="white", edgecolor="black", zorder=4)
        elif data["kind"] == DECISION:
            colour = PLAYER_COLOURS[data["player"] % len(PLAYER_COLOURS)]
            ax.scatter([x], [y], s=120, marker="s", color=colour, zorder=4)
            members.setdefault((data["player"], data["infoset"]), []).append(v)
        elif data["kind"] == TERMINAL:
            ax.text(x, y - 0.25, ",".join(_fmt(u) for u in data["payoffs"]), fontsize=7,
                    ha="center", va="top", rotation=90)
    for (player, label), nodes in members.items():
        nodes = sorted(nodes, key=lambda v: pos[v][0])
        xs = [pos[v][0] for v in nodes]
        ys = [pos[v][1] for v in nodes]
        colour = PLAYER_COLOURS[player % len(PLAYER_COLOURS)]
        for (xa, ya), (xb, yb) in zip(zip(xs, ys), zip(xs[1:], ys[1:])):
            # a dashed arc above the level, so sets on one level stay apart
            bulge = 0.12 + 0.04 * (xb - xa)
            arc = Path([(xa, ya), ((xa + xb) / 2, max(ya, yb) + bulge), (xb, yb)],
                       [Path.MOVETO, Path.CURVE3, Path.CURVE3])
            ax.add_patch(PathPatch(arc, fill=False, ls="--", lw=1, edgecolor=colour, zorder=2))
        name = f"{label} (unreached)" if (player, label) in unreached_sets else label
        for x, y in zip(xs, ys):   # every member names its set, just above the node
            ax.text(x, y + 0.09, name, fontsize=6, color=colour, ha="center", va="bottom",
                    bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.8},
                    zorder=5)
    handles = [plt.Line2D([], [], marker="s", ls="", color=PLAYER_COLOURS[i % len(PLAYER_COLOURS)],
                          label=game.player_names[i]) for i in range(game.num_players)]
    handles.append(plt.Line2D([], [], marker="o", ls="", color="white", markeredgecolor="black",
                              label="chance"))
    ax.legend(handles=handles, loc="upper right", fontsize=8)
    ax.set_title(title or (equilibrium_title(game.name, value) if value is not None else game.name))
    ax.axis("off")
    return _finish(plt, fig, path)


def _finish(plt, fig, path):
    """Save and close the figure when a path is given, else return it."""
    fig.tight_layout()
    if path is None:
        return fig
    from lpgame.io.safe_files import atomic_path
    with atomic_path(path) as temp:      # the previous picture stays whole if this is interrupted
        fig.savefig(temp, dpi=130)
    plt.close(fig)
    return None


def draw_strategy_heatmap(strategy: dict, path: str | Path | None = None, title: str = ""):
    """Heat map of one player's behavioural strategy: rows information sets, columns actions."""
    plt = _pyplot()
    actions: list[str] = []
    for row in strategy.values():
        for a in row:
            if a not in actions:
                actions.append(a)
    infosets = list(strategy)
    import numpy as np

    grid = np.full((len(infosets), len(actions)), np.nan)
    for i, label in enumerate(infosets):
        for a, p in strategy[label].items():
            grid[i, actions.index(a)] = float(p)
    fig, ax = plt.subplots(figsize=(1.2 * len(actions) + 3, 0.35 * len(infosets) + 1.5))
    image = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(actions)), actions)
    ax.set_yticks(range(len(infosets)), infosets, fontsize=7)
    for (i, j), value in np.ndenumerate(grid):
        if not np.isnan(value):
            ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=7,
                    color="white" if value < 0.5 else "black")
    fig.colorbar(image, ax=ax, label="probability")
    ax.set_title(title)
    return _finish(plt, fig, path)
