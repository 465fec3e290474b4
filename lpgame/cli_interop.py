"""What Gambit and OpenSpiel users reach for on the command line (issue 35): ``lpgame convert``,
``lpgame solve --format csv`` and "did you mean" for misspelt choices.

    lpgame convert GAME OUT.efg|OUT.nfg [key=value ...] [--max-profiles N]
    lpgame solve GAME --format csv [--exact] [--all]

``convert`` writes any game lpgame accepts (a catalog name, a game file, ``-`` for standard input,
``openspiel:NAME(params)``) as a Gambit file. An extensive game written as ``.nfg`` becomes its
reduced normal form, with exact payoffs, when it has at most ``--max-profiles`` pure profiles; a
larger one is refused by name. Labels are written on one line (:func:`lpgame.io.gambit.quote`), so
Gambit reads back OpenSpiel's multi-line information-state strings.

``--format csv`` prints Gambit's one line per equilibrium, ``NE,p1,p2,...``: the behaviour
probabilities of player 1's information sets, then player 2's, ..., each set's actions in order,
the sets in order of first appearance in a depth-first walk of the tree (the order Gambit numbers
them in, and the order lpgame's ``.efg`` writer uses); for a strategic-form game, each player's mixed
strategy. Exact answers print as fractions (``1/3``), floating-point ones with ``--decimals`` digits
after the point (Gambit's ``-d``; default 6). With ``--all``, one line per extreme equilibrium.
"""

from __future__ import annotations

import argparse
import math
import os
import re
from fractions import Fraction
from pathlib import Path

from lpgame.errors import LpgameError, ModelTooLargeError, OptionError, did_you_mean

FORMATS = ("table", "csv")
CSV_DECIMALS = 6               # gambit-lcp's and gambit-enummixed's default -d
DEFAULT_MAX_PROFILES = 100_000  # pure profiles of a reduced normal form written as .nfg
GAME_SUFFIXES = (".efg", ".nfg")

_INVALID_CHOICE = re.compile(r"invalid choice: '(?P<word>[^']*)' \(choose from (?P<choices>.*)\)")


# ------------------------------------------------------------------------- did you mean
def suggest_choice(message: str) -> str:
    """argparse's "invalid choice: 'nsh' (choose from 'ce', 'nash', ...)" with " (did you mean
    'nash'?)" added where a choice is close; other messages unchanged."""
    found = _INVALID_CHOICE.search(message)
    if not found:
        return message
    choices = re.findall(r"'([^']*)'", found["choices"]) or found["choices"].split(", ")
    return message + did_you_mean(found["word"], choices)


# ------------------------------------------------------------------------- solve --format csv
def add_format_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", default="table", choices=FORMATS,
                        help="table (default), or csv: Gambit's one line per equilibrium, "
                             "NE,p1,p2,... (behaviour probabilities, player by player)")


def check_format(args) -> None:
    """Refuse, before any work, a CSV request that cannot be met."""
    if getattr(args, "format", "table") != "csv":
        return
    if args.concept != "nash":
        raise OptionError(f"--format csv prints Gambit's NE lines, for concept nash only (not "
                          f"{args.concept!r}); use the table or --json")
    if args.json == "-":
        raise OptionError("--format csv and --json - both write to standard output; give "
                          "--json a file name or leave one out")


def equilibrium_csv(result, game, decimals: int | None = None) -> str:
    """Gambit's ``NE,...`` lines for a solve result (module docstring): one line, or one per
    extreme equilibrium of an enumeration (``--all``)."""
    from lpgame.compile import as_game

    tree = as_game(game)
    listed = (getattr(result, "extra", None) or {}).get("equilibria")
    profiles = [entry["strategies"] for entry in listed] if listed else [result.strategies]
    exact = bool(getattr(result, "exact", False))
    places = CSV_DECIMALS if decimals is None else decimals
    return "\n".join("NE," + ",".join(_csv_number(p, exact, places)
                                      for p in _profile_probabilities(tree, profile))
                     for profile in profiles)


def _profile_probabilities(tree, strategies) -> list:
    """The probabilities of ``strategies`` in Gambit's order: players, their information sets in
    the order of the game's index (first appearance, depth first), each set's actions."""
    if strategies is None or len(strategies) != tree.num_players:
        raise OptionError("--format csv needs one behaviour strategy per player; this result has "
                          "none")
    out = []
    for i, player in enumerate(tree.index.players):
        for label, actions in zip(player.infoset_labels, player.infoset_actions):
            row = strategies[i].get(label)
            if row is None:
                raise LpgameError(f"the result has no strategy at information set {label!r} of "
                                  f"player {i + 1}")
            out.extend(row.get(action, 0) for action in actions)
    return out


def _csv_number(value, exact: bool, places: int) -> str:
    if exact or isinstance(value, str):
        number = Fraction(value)
        if exact:
            return str(number)
        value = float(number)
    text = f"{float(value):.{places}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


# ------------------------------------------------------------------------- convert
def add_convert_parser(sub) -> None:
    p = sub.add_parser("convert", help="write a game as a Gambit file (.efg, or .nfg: the reduced "
                                       "normal form of an extensive game)")
    p.add_argument("name", help="catalog name, game file, - (standard input) or "
                                "openspiel:NAME(params)")
    p.add_argument("output", metavar="OUT", help="the file to write: OUT.efg or OUT.nfg")
    p.add_argument("params", nargs="*", help="game parameters key=value")
    p.add_argument("--max-profiles", type=int, default=DEFAULT_MAX_PROFILES, metavar="N",
                   help="largest reduced normal form (pure profiles) written as .nfg "
                        f"(default {DEFAULT_MAX_PROFILES:,})")
    p.add_argument("--json", metavar="PATH|-", help="write one JSON object (- for stdout)")
    p.add_argument("--quiet", action="store_true", help="no progress on standard error")


def check_output_file(path: str) -> None:
    """Refuse, before any work, an output file lpgame cannot write: not .efg/.nfg, a folder, a
    missing or read-only folder."""
    target = Path(path)
    if target.is_dir():
        raise OptionError(f"{path}: is a folder; give a file name")
    if target.suffix.lower() not in GAME_SUFFIXES:
        raise OptionError(f"{path}: unknown game file type {target.suffix or '(no extension)'!r}; "
                          f"lpgame convert writes {', '.join(GAME_SUFFIXES)}")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise OptionError(f"{path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise OptionError(f"{path}: the folder {folder} is not writable")


def convert_command(args, progress, emit) -> int:
    """``lpgame convert``: ``progress(message)`` reports stages, ``emit(obj, json, text)`` the
    outcome (the CLI's helpers)."""
    from lpgame.games import load, parse_params
    from lpgame.io.files import write_game_file

    check_output_file(args.output)
    if args.max_profiles < 1:
        raise OptionError(f"--max-profiles must be a positive whole number; got {args.max_profiles}")
    progress(f"building {args.name} {' '.join(args.params)}".rstrip())
    params = parse_params(args.params)
    game = load(args.name, **params)
    if Path(args.output).suffix.lower() == ".efg":
        game = explicit_tree(game, args.name, params)
    else:
        game = normal_form(game, args.name, params, args.max_profiles, progress)
    write_game_file(game, args.output)
    obj = {"game": game.name, "file": args.output, "players": game.num_players}
    emit(obj, args.json, f"written: {args.output} ({game.name})")
    return 0


def explicit_tree(game, name: str, params: dict):
    """A :class:`~lpgame.game.Game` (or NormalFormGame) to write as ``.efg``: a catalog game built
    in structured form is rebuilt with ``structured=False``."""
    from lpgame.compile import as_game
    from lpgame.game import Game, NormalFormGame

    if isinstance(game, (Game, NormalFormGame)):
        return game
    tree = as_game(game)
    if isinstance(tree, Game):
        return tree
    from lpgame.games import catalog, make
    entry = catalog().get(name)
    if entry is not None and "structured" in entry.parameters():
        return make(name, **{**params, "structured": False})
    raise OptionError(f"{tree.name}: writing an .efg needs the game's explicit tree, which lpgame "
                      "does not build for this game")


def normal_form(game, name: str, params: dict, max_profiles: int, progress):
    """A :class:`~lpgame.game.NormalFormGame` to write as ``.nfg``: the game itself, or the reduced
    normal form of an extensive game with exact payoffs (refused past ``max_profiles``)."""
    from lpgame.compile import compile_game
    from lpgame.equilibria.correlated.reduced_plans import (
        count_reduced_plans,
        enumerate_reduced_plans,
        plan_label,
    )
    from lpgame.game import NormalFormGame

    if isinstance(game, NormalFormGame):
        return game
    sf = compile_game(game)
    counts = [count_reduced_plans(sf, i) for i in range(sf.num_players)]
    total = math.prod(counts)
    if total > max_profiles:
        raise ModelTooLargeError(
            f"{sf.game.name}: its reduced normal form has {' × '.join(map(_count, counts))} = "
            f"{_count(total)} pure profiles, more than --max-profiles {max_profiles:,}; write it as "
            ".efg, or raise --max-profiles")
    progress(f"reduced normal form: {' × '.join(map(str, counts))} plans")
    plans = [enumerate_reduced_plans(sf, i, max_plans=max_profiles) for i in range(sf.num_players)]
    payoffs = exact_plan_payoffs(sf, plans)
    labels = [[plan_label(sf, i, row) for row in plans[i]] for i in range(sf.num_players)]
    return NormalFormGame(payoffs, labels, name=f"{sf.game.name} (reduced normal form)",
                          player_names=list(sf.game.player_names))


def _count(number: int) -> str:
    """A count with thousands separators, or its order of magnitude when it is huge."""
    digits = len(str(number))
    return f"{number:,}" if digits <= 12 else f"about 10^{digits - 1}"


def exact_plan_payoffs(sf, plans) -> list:
    """u_i(π_1, ..., π_n) = Σ_z p_c(z) u_i(z) Π_k π_k[σ_k(z)] over every profile of reduced plans,
    shape (players, |Π_1|, ..., |Π_n|): in Fractions
    (:func:`lpgame.equilibria.correlated.reduced_payoffs.reduced_payoffs_exact`), or summed in
    floats for a game whose float chance probabilities have no exact reading."""
    import numpy as np

    from lpgame.equilibria.correlated.reduced_payoffs import reduced_payoffs_exact
    from lpgame.errors import InvalidGameError
    try:
        return reduced_payoffs_exact(sf, plans)
    except InvalidGameError:
        pass
    n = sf.num_players
    table = np.zeros((n, *(len(p) for p in plans)), dtype=object)
    for z, (reach, leaf) in enumerate(zip(sf.terminal_chance.tolist(), sf.terminal_payoffs.tolist())):
        if reach == 0:
            continue
        block = np.ix_(*[np.flatnonzero(plans[k][:, sf.terminal_sequences[z, k]]) for k in range(n)])
        for i in range(n):
            if leaf[i]:
                table[i][block] += reach * leaf[i]
    return table
