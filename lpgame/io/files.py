"""Game files by extension: ``.efg`` (Gambit extensive form) and ``.nfg`` (Gambit strategic form).

:func:`read_game_file` is what ``lpgame.games.load("x.efg")`` and ``lpgame.solve("x.nfg")`` call;
the formats are described in :mod:`lpgame.io.gambit`.

Example
-------
>>> import tempfile, pathlib, lpgame
>>> path = pathlib.Path(tempfile.mkdtemp()) / "sm2.nfg"
>>> write_game_file(lpgame.games.make("sm2"), path)
>>> lpgame.solve(str(path), exact=True).value
Fraction(5, 7)
"""

from __future__ import annotations

from pathlib import Path

from lpgame.errors import GameFileError
from lpgame.game.normal_form import NormalFormGame
from lpgame.game.tree import Game
from lpgame.io.gambit import efg_text, nfg_text, read_efg, read_nfg
from lpgame.io.safe_files import write_text_atomic

READERS = {".efg": read_efg, ".nfg": read_nfg}


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


__all__ = ["read_game_file", "write_game_file"]
