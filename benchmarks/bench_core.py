"""Nash equilibria of two-player zero-sum games: lpgame, OpenSpiel and Gambit on the identical game.

Run from the repository root::

    python -m benchmarks.bench_core                         # every row, best of 3
    python -m benchmarks.bench_core --peer-timeout 90 --save   # and write benchmarks/results/bench_core.json

Options: ``--repeats N`` (best of up to N runs of each case, default 3; a case stops repeating once
its runs have taken ``--repeat-budget`` seconds, default 10), ``--peer-timeout S`` (wall-clock limit
of each peer case, default 300 s), ``--lpgame-timeout S`` (the same for lpgame's cases and the
untimed preparations, default 600 s), ``--memory-cap G`` (address-space cap of every case's process,
GiB, default 6), ``--only TEXT`` (the games whose label contains TEXT), ``--save``.

**The same game on every row.** Each game is one of lpgame's catalog, and every peer solves that
game, not a relative of it (``../shared/GAMES.md``, "The peers' versions of the same games"):

* Kuhn: OpenSpiel's ``kuhn_poker``; lpgame's ``kuhn_poker``.
* Leduc: OpenSpiel's ``leduc_poker`` deals cards; lpgame's ``leduc_poker(deal="cards")`` (the tree
  path: rules → explicit tree) and ``lpgame.abstraction.leduc_ordered()`` (the same game in signal
  form, its deal × betting index built by broadcasting; the tests check it equals the tree), and
  the signal form through lossless abstraction (``abstraction="gameshrink"``: shrink, solve, lift,
  certify in the card-level game).
* Goofspiel 4: OpenSpiel's ``goofspiel(imp_info=True, num_cards=4, points_order=random,
  returns_type=point_difference)`` made turn-based, whose information states hold the prizes, one's
  own bids and who won each turn: lpgame's ``goofspiel_limited(cards=4)`` (Farina's GL24). OpenSpiel
  plays the last, forced bid itself, where lpgame keeps it as a one-action decision (as the thesis
  counts); its payoff is u ↦ 2u − k(k+1)/2 of lpgame's (value 0 against 5). OpenSpiel's default
  ``imp_info=False`` game has imperfect recall in its information states once made turn-based.
* Liar's dice: OpenSpiel's ``liars_dice`` (two players, one six-sided die each, the six wild):
  lpgame's ``liars_dice(faces=6, wild=True)``. The catalog's default ``wild=False`` is Farina's D26.
* OCP(100): One-Card Poker with 100 cards (notes §1.7), which neither peer has: lpgame's explicit
  tree written as an ``.efg`` file, read by OpenSpiel (``pyspiel.load_efg_game``) and by Gambit.

**The same-game check** (a "check" row per game, untimed): OpenSpiel's game is imported into lpgame
(``lpgame.io.openspiel.game_from_openspiel``) and compared with lpgame's: information sets,
sequences and terminals, each without the one-action decisions ("sizes", with the full counts in
brackets where they differ), and the value of the imported game solved by lpgame, mapped to
lpgame's payoffs, beside lpgame's.

**The cases** (each in its own child process, :mod:`benchmarks.isolated`, so that a peer that runs
out of memory or time ends its case only):

* **lpgame**: build the game and ``lpgame.solve`` it (sequence form, LP, HiGHS, behaviour
  strategies and the certificate: NashConv by the independent best-response path).
* **OpenSpiel** 2.0.2 ``sequence_form_lp.solve_zero_sum_game`` (two LPs with dense matrices, in
  cvxpy) after loading the game. Its default cvxpy solver ECOS is not installed with current cvxpy
  and its ECOS options are passed to any solver, so it runs on cvxpy's HiGHS with those options
  emptied (notes/peers.md).
* **Gambit** (pygambit) ``nash.lp_solve`` and ``nash.lcp_solve`` (sequence form) in floating
  point on lpgame's explicit tree written as ``.efg`` (reading the file is in its time; writing it
  is not).

"seconds" is the best of the runs; the ratio is the peer's seconds over lpgame's on the same game
(Leduc: over the signal-form, tree and GameShrink rows, in that order). "NashConv" is the sum of
both players' best-response gains against the answer, computed by lpgame's independent best
response (``lpgame.evaluate``) on the identical game, in lpgame's payoffs: OpenSpiel's policy is
read onto the imported game (``strategies_from_openspiel_policy``), Gambit's profile onto lpgame's
game by information-set and action labels. "OpenSpiel's NashConv" is OpenSpiel's own
``exploitability.nash_conv`` of its answer (the cross-check), in lpgame's payoffs too.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):        # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.isolated import run_isolated  # noqa: E402

EFG = "efg:"     # an OpenSpiel game read from the row's .efg file


@dataclass
class Row:
    """One game: lpgame's cases, the peers' game and how its payoffs map to lpgame's."""

    label: str
    lpgame: list                  # (tool, game name or "module:function", params, solve options)
    check: tuple                  # (name, params): lpgame's game for the same-game check
    tree: tuple | None            # (name, params): the explicit tree written for Gambit (or None)
    openspiel: str                # OpenSpiel game string, or EFG: read the row's .efg file
    scale: tuple = (1, 0)         # lpgame's payoff = a · OpenSpiel's + b
    gambit: tuple = ("lp", "lcp")
    notes: list = field(default_factory=list)


LEDUC_TREE = ("leduc_poker", {"deal": "cards"})
GOOFSPIEL = ("goofspiel_limited", {"cards": 4})
LIARS_DICE = ("liars_dice", {"players": 2, "faces": 6, "wild": True})
OCP = ("one_card_poker", {"N": 100})
ROWS = [
    Row("Kuhn", [("lpgame", "kuhn_poker", {}, None)], ("kuhn_poker", {}), ("kuhn_poker", {}),
        "kuhn_poker"),
    Row("Leduc", [("lpgame, signal form", "lpgame.abstraction:leduc_ordered", {}, None),
                  ("lpgame, tree", *LEDUC_TREE, None),
                  ("lpgame, GameShrink", "lpgame.abstraction:leduc_ordered", {},
                   {"abstraction": "gameshrink"})],
        LEDUC_TREE, LEDUC_TREE, "leduc_poker", gambit=("lp",)),
    Row("Goofspiel 4", [("lpgame", *GOOFSPIEL, None)], GOOFSPIEL, GOOFSPIEL,
        "turn_based_simultaneous_game(game=goofspiel(imp_info=True,num_cards=4,"
        "points_order=random,returns_type=point_difference))", scale=(0.5, 5)),
    Row("Liar's dice", [("lpgame", *LIARS_DICE, None)], LIARS_DICE,
        (LIARS_DICE[0], {**LIARS_DICE[1], "structured": False}), "liars_dice", gambit=("lp",)),
    Row("OCP(100)", [("lpgame", *OCP, None)], OCP, (OCP[0], {**OCP[1], "structured": False}), EFG),
]


def _best_of(repeats: int, budget: float, run) -> dict:
    """The fastest of up to ``repeats`` runs, stopping once the runs have taken ``budget`` s."""
    best, spent, runs = None, 0.0, 0
    while runs < max(repeats, 1) and (runs == 0 or spent < budget):
        start = time.perf_counter()
        out = run()
        out["seconds"] = time.perf_counter() - start
        spent += out["seconds"]
        runs += 1
        if best is None or out["seconds"] < best["seconds"]:
            best = out
    best["runs"] = runs
    return best


def _make(name: str, params: dict):
    """A catalog game, or ``"module:function"`` called with ``params`` (a signal-form game)."""
    if ":" in name:
        import importlib
        module, function = name.split(":")
        return getattr(importlib.import_module(module), function)(**params)
    import lpgame
    return lpgame.games.make(name, **params)


def _load_openspiel(spec: str, efg_path: str | None):
    import pyspiel
    if spec == EFG:
        return pyspiel.load_efg_game(Path(efg_path).read_text(encoding="utf-8"))
    return pyspiel.load_game(spec)


def _sizes(game) -> dict:
    """Information sets, sequences and terminals (summed over players), also without the
    one-action decisions (a peer may play forced moves itself)."""
    s = game.sizes()
    forced = sum(int((p.infoset_num_actions == 1).sum()) for p in game.index.players)
    infosets, sequences = sum(s["infosets"]), sum(s["sequences"])
    return {"infosets": infosets, "sequences": sequences, "terminals": int(s["terminals"]),
            "reduced": [infosets - forced, sequences - forced, int(s["terminals"])]}


# ---------------------------------------------------------------- cases (each in a child process)
def lpgame_case(name: str, params: dict, repeats: int, budget: float,
                solve_options: dict | None = None) -> dict:
    """lpgame's case: build the game and solve it, certificate included."""
    import lpgame

    def run() -> dict:
        start = time.perf_counter()
        game = _make(name, params)
        built = time.perf_counter() - start
        result = lpgame.solve(game, **(solve_options or {}))
        return {"value": float(result.value), "build": built, "solve": result.seconds["solve"],
                "nash_conv": float(result.certificate.nash_conv)}
    return _best_of(repeats, budget, run)


def write_efg_case(name: str, params: dict, path: str) -> dict:
    """Write lpgame's explicit tree of the game to ``path`` (untimed preparation)."""
    import lpgame
    from lpgame.io.files import write_game_file
    write_game_file(lpgame.games.make(name, **params), path)
    return {"bytes": Path(path).stat().st_size}


def same_game_case(name: str, params: dict, spec: str, scale: tuple,
                   efg_path: str | None = None) -> dict:
    """Import OpenSpiel's game into lpgame; its sizes and value beside lpgame's game's."""
    import lpgame
    from lpgame.io.openspiel import game_from_openspiel

    start = time.perf_counter()
    imported = game_from_openspiel(_load_openspiel(spec, efg_path))
    imported_seconds = time.perf_counter() - start
    ours = lpgame.games.make(name, **params)
    a, b = scale
    value = a * float(lpgame.solve(imported).value) + b
    return {"seconds": imported_seconds, "openspiel": _sizes(imported), "lpgame": _sizes(ours),
            "value": value, "lpgame_value": float(lpgame.solve(ours).value)}


def openspiel_case(spec: str, scale: tuple, repeats: int, budget: float,
                   efg_path: str | None = None) -> dict:
    """OpenSpiel's case: load the game and run its two dense LPs on cvxpy's HiGHS (timed); then
    (untimed) the answer's NashConv by lpgame's best response on the imported game, and by
    OpenSpiel's own ``exploitability.nash_conv``."""
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import exploitability, lp_solver, sequence_form_lp

    import lpgame
    from lpgame.io.openspiel import game_from_openspiel, strategies_from_openspiel_policy

    answer = {}

    def run() -> dict:
        solve = lp_solver.LinearProgram.solve
        saved = solve.__defaults__
        solve.__defaults__ = ("HIGHS", {})
        try:
            game = _load_openspiel(spec, efg_path)
            value, _, policy0, policy1 = sequence_form_lp.solve_zero_sum_game(game, solver="HIGHS")
        finally:
            solve.__defaults__ = saved
        answer.update(game=game, policies=(policy0, policy1))
        return {"value": scale[0] * float(value) + scale[1]}

    out = _best_of(repeats, budget, run)
    game = answer["game"]
    merged = os_policy.merge_tabular_policies(list(answer["policies"]), game)
    imported = game_from_openspiel(game)
    strategies = strategies_from_openspiel_policy(imported, game, merged)
    out["nash_conv"] = scale[0] * float(lpgame.evaluate(imported, strategies).nash_conv)
    out["openspiel_nash_conv"] = scale[0] * float(exploitability.nash_conv(game, merged))
    return out


def gambit_case(method: str, efg_path: str, tree: tuple, repeats: int, budget: float) -> dict:
    """Gambit's case: read the .efg and run ``lp_solve`` or ``lcp_solve`` in floats (timed); then
    (untimed) the profile's NashConv by lpgame's best response on lpgame's game."""
    import pygambit

    import lpgame

    answer = {}

    def run() -> dict:
        game = pygambit.read_efg(efg_path)
        start = time.perf_counter()
        if method == "lp":
            result = pygambit.nash.lp_solve(game, rational=False)
        else:
            result = pygambit.nash.lcp_solve(game, rational=False)
        solved = time.perf_counter() - start
        answer.update(game=game, profile=result.equilibria[0])
        return {"value": float(answer["profile"].payoff(list(game.players)[0])), "solve": solved}

    out = _best_of(repeats, budget, run)
    game, profile = answer["game"], answer["profile"]
    strategies = [{infoset.label: {action.label: float(profile[action]) for action in infoset.actions}
                   for infoset in player.infosets} for player in game.players]
    ours = lpgame.games.make(tree[0], **tree[1])
    out["nash_conv"] = float(lpgame.evaluate(ours, strategies).nash_conv)
    return out


def _available(module: str) -> bool:
    import importlib.util
    return importlib.util.find_spec(module) is not None


def _same_game_text(check: dict) -> str:
    """The same-game check in words: sizes compared, values compared."""
    os_sizes, our_sizes = check["openspiel"], check["lpgame"]
    values = f"value {check['value']:.10g} (imported) vs {check['lpgame_value']:.10g}"
    same_value = abs(check["value"] - check["lpgame_value"]) <= 1e-7 * max(
        1.0, abs(check["lpgame_value"]))
    full = [our_sizes[k] for k in ("infosets", "sequences", "terminals")]
    if os_sizes["reduced"] != our_sizes["reduced"] or not same_value:
        return (f"NOT the same game: OpenSpiel {os_sizes['reduced']}, lpgame {our_sizes['reduced']} "
                f"(infosets, sequences, terminals without one-action decisions); {values}")
    os_full = [os_sizes[k] for k in ("infosets", "sequences", "terminals")]
    if os_full == full:
        return f"same game: {full[0]} infosets, {full[1]} sequences, {full[2]} terminals; {values}"
    infosets, sequences, terminals = our_sizes["reduced"]
    text = (f"same game: {infosets} infosets, {sequences} sequences, {terminals} terminals "
            f"without one-action decisions (with them: lpgame {full[0]}/{full[1]}, OpenSpiel "
            f"{os_full[0]}/{os_full[1]})")
    return f"{text}; {values}"


def _number(x: float, digits: int = 4):
    return float(f"{x:.{digits}g}")


def _ratio(seconds: float, references: list[float], at_least: bool = False) -> str:
    refs = [r for r in references if r]
    if not refs:
        return ""
    def fmt(x: float) -> str:
        return f"{x:.3g}" if x < 1000 else f"{x:.0f}"
    return ("> " if at_least else "") + " / ".join(fmt(seconds / r) for r in refs)


COLUMNS = ["game", "tool", "seconds", "peer / lpgame", "value", "NashConv", "OpenSpiel's NashConv",
           "notes"]


def run_row(row: Row, args, have_openspiel: bool, have_gambit: bool, folder: Path) -> list[list]:
    """Every case of one game; prints each line as it comes and returns the table's rows."""
    cap = int(args.memory_cap * 2**30)
    table: list[list] = []

    def child(function: str, kwargs: dict, timeout: float):
        return run_isolated(f"benchmarks.bench_core:{function}", kwargs, timeout=timeout,
                            memory_cap=cap)

    def emit(tool, seconds, ratio, value, nash_conv, os_nash_conv, notes):
        cells = [row.label, tool, seconds, ratio, value, nash_conv, os_nash_conv, notes]
        table.append(cells)
        shown = ["—" if c is None else (f"{c:.4g}" if isinstance(c, float) else str(c))
                 for c in cells]
        print(f"{shown[0]:<12} {shown[1]:<26} {shown[2]:>9} {shown[3]:>17} {shown[4]:>15} "
              f"{shown[5]:>9} {shown[6]:>9}  {shown[7]}", flush=True)

    def failed(tool, result, timeout, references):
        at_least = result.status == "timeout"
        ratio = _ratio(result.wall_seconds, references, at_least=True) if at_least else ""
        reason = f"timeout ({timeout:g} s)" if at_least else f"{result.status}: {result.error[:120]}"
        emit(tool, None, ratio, None, None, None, reason)

    repeat = {"repeats": args.repeats, "budget": args.repeat_budget}
    references: list[float] = []
    for tool, name, params, options in row.lpgame:
        r = child("lpgame_case", {"name": name, "params": params, "solve_options": options,
                                  **repeat}, args.lpgame_timeout)
        if r.status != "ok":
            failed(tool, r, args.lpgame_timeout, [])
            references.append(0.0)
            continue
        d = r.data
        references.append(d["seconds"])
        emit(tool, _number(d["seconds"]), "", d["value"], _number(d["nash_conv"], 2), None,
             f"build {d['build']:.3g} s, HiGHS {d['solve']:.3g} s; best of {d['runs']}")

    efg_path = str(folder / f"{row.label.replace(' ', '_').replace(chr(39), '')}.efg")
    need_efg = row.tree is not None and (have_gambit or (have_openspiel and row.openspiel == EFG))
    efg_ok = False
    if need_efg:
        r = child("write_efg_case", {"name": row.tree[0], "params": row.tree[1], "path": efg_path},
                  args.lpgame_timeout)
        efg_ok = r.status == "ok"
        if not efg_ok:
            emit("(writing the .efg)", None, "", None, None, None, f"{r.status}: {r.error[:120]}")

    if have_openspiel and (row.openspiel != EFG or efg_ok):
        r = child("same_game_case", {"name": row.check[0], "params": row.check[1],
                                     "spec": row.openspiel, "scale": row.scale,
                                     "efg_path": efg_path}, args.lpgame_timeout)
        if r.status == "ok":
            emit("check: OpenSpiel's game", None, "", r.data["value"], None, None,
                 _same_game_text(r.data) + f"; imported in {r.data['seconds']:.3g} s")
        else:
            failed("check: OpenSpiel's game", r, args.lpgame_timeout, [])
        r = child("openspiel_case", {"spec": row.openspiel, "scale": row.scale,
                                     "efg_path": efg_path, **repeat}, args.peer_timeout)
        tool = "OpenSpiel sequence_form_lp"
        if r.status == "ok":
            d = r.data
            emit(tool, _number(d["seconds"]), _ratio(d["seconds"], references), d["value"],
                 _number(d["nash_conv"], 2), _number(d["openspiel_nash_conv"], 2),
                 f"best of {d['runs']}")
        else:
            failed(tool, r, args.peer_timeout, references)

    if have_gambit and efg_ok:
        for method in row.gambit:
            tool = f"Gambit {method}_solve (float)"
            r = child("gambit_case", {"method": method, "efg_path": efg_path, "tree": row.tree,
                                      **repeat}, args.peer_timeout)
            if r.status == "ok":
                d = r.data
                emit(tool, _number(d["seconds"]), _ratio(d["seconds"], references), d["value"],
                     _number(d["nash_conv"], 2), None,
                     f"{method}_solve {d['solve']:.3g} s; best of {d['runs']}")
            else:
                failed(tool, r, args.peer_timeout, references)
    return table


def save(table: list[list], args, argv: list[str] | None) -> None:
    """Write the table as a benchmark result (:mod:`benchmarks.results_io`)."""
    from benchmarks import results_io

    path = results_io.save(results_io.result(
        "bench_core", results_io.command("benchmarks.bench_core", argv), COLUMNS, table,
        notes=f"best of up to {args.repeats} runs per case (fewer once a case's runs took "
              f"{args.repeat_budget:g} s); peers limited to {args.peer_timeout:g} s and "
              f"{args.memory_cap:g} GiB per case; ratio = peer's seconds / lpgame's on the same "
              "game (Leduc: over the signal-form, tree and GameShrink rows); NashConv by lpgame's "
              "independent best response on the identical game, in lpgame's payoffs; the check "
              "rows import OpenSpiel's game into lpgame and compare sizes and value"))
    print(f"saved {path}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--repeat-budget", type=float, default=10.0,
                        help="stop repeating a case once its runs have taken this many seconds")
    parser.add_argument("--peer-timeout", type=float, default=300.0)
    parser.add_argument("--lpgame-timeout", type=float, default=600.0)
    parser.add_argument("--memory-cap", type=float, default=6.0,
                        help="address-space cap of each case's process, GiB (a peer that needs more "
                             "ends with 'out of memory' instead of meeting the OOM killer)")
    parser.add_argument("--only", default="")
    parser.add_argument("--save", action="store_true",
                        help="write the table to benchmarks/results/bench_core.json (the docs)")
    args = parser.parse_args(argv)
    if args.save and args.only:
        parser.error("--save writes the whole table: run it without --only")
    have_openspiel, have_gambit = _available("pyspiel"), _available("pygambit")
    if not have_openspiel:
        print("OpenSpiel (open-spiel) is not installed: its rows are left out.")
    if not have_gambit:
        print("Gambit (pygambit) is not installed: its rows are left out.")
    print(f"best of up to {args.repeats} runs per case, each case in its own process; peers on a "
          f"{args.peer_timeout:g} s limit")
    print(f"{'game':<12} {'tool':<26} {'seconds':>9} {'peer/lpgame':>17} {'value':>15} "
          f"{'NashConv':>9} {'(OpenSpiel)':>9}  notes")
    table: list[list] = []
    with tempfile.TemporaryDirectory() as tmp:
        for row in ROWS:
            if args.only.lower() in row.label.lower():
                table += run_row(row, args, have_openspiel, have_gambit, Path(tmp))
    if args.save and table:
        save(table, args, argv)


if __name__ == "__main__":
    main()
