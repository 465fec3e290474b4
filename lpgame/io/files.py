"""Game files by extension: ``.efg`` (Gambit extensive form) and ``.nfg`` (Gambit strategic form).

:func:`read_game_file` is what ``lpgame.games.load("x.efg")`` and ``lpgame.solve("x.nfg")`` call;
the formats are described in :mod:`lpgame.io.gambit`.

:func:`read_game_spec` reads the other ways of naming a game that are not catalog names
(:func:`names_a_game_file` tells them apart):

* a path to a ``.efg``/``.nfg`` file; a bare file name that is not in the current folder is looked
  up among the **bundled models** (:func:`bundled_models_folder`, the files of the repository's
  ``models/`` shipped with the package), so ``lpgame solve kuhn_poker.efg`` works anywhere;
* ``-``: a game file on **standard input**, its format told by its header (``EFG 2 R`` or
  ``NFG 1 R``);
* ``openspiel:NAME(params)``: an **OpenSpiel** game (:func:`lpgame.io.openspiel.game_from_openspiel`).

Example
-------
>>> import tempfile, pathlib, lpgame
>>> path = pathlib.Path(tempfile.mkdtemp()) / "sm2.nfg"
>>> write_game_file(lpgame.games.make("sm2"), path)
>>> lpgame.solve(str(path), exact=True).value
Fraction(5, 7)
"""

from __future__ import annotations

import sys
from pathlib import Path

from lpgame.errors import GameFileError, OptionError, did_you_mean
from lpgame.game.normal_form import NormalFormGame
from lpgame.game.tree import Game
from lpgame.io.gambit import efg_text, nfg_text, parse_efg, parse_nfg, read_efg, read_nfg
from lpgame.io.safe_files import read_cap, write_text_atomic

READERS = {".efg": read_efg, ".nfg": read_nfg}
STDIN = "-"
"""The game name that reads a game file from standard input."""
OPENSPIEL_PREFIX = "openspiel:"
"""The prefix of a game name that loads an OpenSpiel game: ``openspiel:leduc_poker``."""
HEADERS = {"EFG": (parse_efg, ".efg"), "NFG": (parse_nfg, ".nfg")}
STDIN_NAME = "<standard input>"


def read_game_file(path) -> Game | NormalFormGame:
    """Read a game file, choosing the format by its extension (``.efg`` or ``.nfg``)."""
    path = Path(path)
    reader = READERS.get(path.suffix.lower())
    if reader is None:
        raise GameFileError(f"unknown game file type {path.suffix or '(no extension)'!r}; "
                            f"lpgame reads {', '.join(READERS)}", str(path))
    return reader(path)


def write_game_file(game, path, **options) -> None:
    """Write ``game`` in the format of the extension of ``path``.

    ``.efg`` takes a :class:`~lpgame.game.Game` (a NormalFormGame is written as its one-level
    extensive form); ``.nfg`` takes a :class:`~lpgame.game.NormalFormGame` (``form="outcome"`` or
    ``"payoff"`` among ``options``).
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".efg":
        text = efg_text(game)
    elif suffix == ".nfg":
        text = nfg_text(game, **options)
    else:
        raise GameFileError(f"unknown game file type {path.suffix or '(no extension)'!r}; "
                            f"lpgame writes {', '.join(READERS)}", str(path))
    write_text_atomic(path, text)   # the previous file stays whole if the write is interrupted


def names_a_game_file(spec) -> bool:
    """Whether ``spec`` names a game by other means than the catalog: ``-``, ``openspiel:...``, a
    ``.efg``/``.nfg`` name, or an existing file."""
    text = str(spec)
    if text == STDIN or text.startswith(OPENSPIEL_PREFIX):
        return True
    path = Path(text)
    return path.suffix.lower() in READERS or (path.exists() and path.is_file())


def read_game_spec(spec, params: dict | None = None) -> Game | NormalFormGame:
    """The game named by ``spec`` (module docstring): a file, a bundled model, ``-`` for standard
    input or ``openspiel:NAME(params)``; ``params`` (key=value game parameters) apply to OpenSpiel
    games only."""
    text = str(spec)
    params = params or {}
    if text.startswith(OPENSPIEL_PREFIX):
        from lpgame.io.openspiel import game_from_openspiel_spec
        return game_from_openspiel_spec(text[len(OPENSPIEL_PREFIX):], params)
    if params:
        raise OptionError(f"{text} is a game file; game parameters ({', '.join(params)}) apply to "
                          "catalog and OpenSpiel games only")
    if text == STDIN:
        return read_game_stream(sys.stdin)
    return read_game_file(find_game_file(text))


def bundled_models_folder() -> Path:
    """The folder of the model files shipped with lpgame (the repository's ``models/``)."""
    return Path(__file__).resolve().parent.parent / "models"


def bundled_models() -> list[str]:
    """The file names of the bundled models (``kuhn_poker.efg``, ...), sorted."""
    folder = bundled_models_folder()
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if p.suffix.lower() in READERS)


def find_game_file(spec) -> Path:
    """``spec`` as a path when the file exists, else the bundled model of that name (a bare file
    name); a clear :class:`~lpgame.errors.GameFileError` ("no such file", with close bundled names)
    when neither exists."""
    path = Path(spec)
    if path.exists() or path.suffix.lower() not in READERS:
        return path                 # read_game_file names a folder or an unknown type
    bundled = bundled_models()
    if path.name == str(spec) and path.name in bundled:
        return bundled_models_folder() / path.name
    hint = did_you_mean(path.name, bundled) if path.name == str(spec) else ""
    listing = f"; bundled models: {', '.join(bundled)}" if bundled and path.name == str(spec) else ""
    raise GameFileError(f"no such file{hint}{listing}", str(spec))


def read_game_stream(stream, name: str = STDIN_NAME) -> Game | NormalFormGame:
    """A game file read from an open text stream (standard input for ``-``), its format told by
    its header: ``EFG 2 R ...`` (extensive form) or ``NFG 1 R ...`` (strategic form). At most the
    bytes a game file may have under the memory limit are read (:func:`~lpgame.io.safe_files.read_cap`)."""
    if stream is None or getattr(stream, "closed", False):
        raise GameFileError("there is no standard input to read the game from ('-' reads a .efg "
                            "or .nfg file piped into lpgame)", name)
    isatty = getattr(stream, "isatty", None)
    if callable(isatty) and isatty():
        raise GameFileError("standard input is a terminal; '-' reads a game file piped into "
                            "lpgame, e.g. lpgame solve - < game.efg", name)
    cap = read_cap()
    source = getattr(stream, "buffer", None)
    try:
        data = (source or stream).read(cap + 1)
    except (OSError, ValueError) as exc:
        raise GameFileError(f"cannot read standard input: {exc}", name) from None
    if len(data) > cap:
        raise GameFileError(f"the input is longer than {cap:,} bytes, the most a game file may "
                            "have under the memory limit; raise LPGAME_MEMORY_LIMIT", name)
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise GameFileError(f"the input is not UTF-8 text (byte {exc.start})", name) from None
    return parse_game_text(data, name)


def parse_game_text(text: str, name: str = STDIN_NAME) -> Game | NormalFormGame:
    """A game from the text of a Gambit file, ``.efg`` or ``.nfg`` told by its first word."""
    words = text.lstrip("\ufeff").split(None, 1)
    if not words:
        raise GameFileError("the input is empty; expected a Gambit game file starting with "
                            "'EFG 2 R' (extensive form) or 'NFG 1 R' (strategic form)", name)
    kind = HEADERS.get(words[0])
    if kind is None:
        start = text.strip().splitlines()[0][:40]
        raise GameFileError(f"not a Gambit game file: it starts with {start!r}; expected 'EFG 2 R' "
                            "(extensive form) or 'NFG 1 R' (strategic form)", name)
    return kind[0](text, name)


__all__ = ["read_game_file", "write_game_file", "read_game_spec", "names_a_game_file",
           "find_game_file", "bundled_models", "bundled_models_folder", "read_game_stream",
           "parse_game_text"]
