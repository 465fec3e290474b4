"""Reading a user's file with a bounded number of bytes, and replacing a user's file atomically.

**Bounded reads.** A game path may name something that never ends (a symlink to ``/dev/zero``, a
pipe fed by an endless process). :func:`read_text_bounded` reads at most a cap of bytes, the memory
limit (:mod:`lpgame.limits`) divided by :data:`BYTES_PER_FILE_BYTE`, the memory one byte of game
text costs once parsed (tokens, Fractions, the tree), and refuses a longer input by name
(:class:`~lpgame.errors.GameFileError`) instead of reading until the memory runs out.

**Atomic writes.** :func:`write_text_atomic` and :func:`atomic_path` write to a temporary file in
the destination's folder and then rename it over the destination with ``os.replace`` (atomic on
POSIX within one file system, and on Windows for files on one volume). An interrupted write (Ctrl-C,
SIGTERM, a full disk) leaves the previous file whole and no partly written one; the temporary file
is removed on error.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from lpgame.errors import GameFileError
from lpgame.limits import memory_limit

BYTES_PER_FILE_BYTE = 64
"""Memory per byte of a game file once read and parsed (tokens, numbers and the tree: a Gambit
leaf line of ~30 bytes becomes a node of ~1.9 KB, :data:`lpgame.limits.BYTES_PER_TREE_NODE`)."""

CHUNK = 1 << 20


def read_cap(limit: int | None = None) -> int:
    """The most bytes a game file may have under the memory limit (``limit`` bytes if given)."""
    return max(memory_limit(limit) // BYTES_PER_FILE_BYTE, 1 << 16)


def read_text_bounded(path, limit: int | None = None, encoding: str = "utf-8") -> str:
    """The text of ``path``, read in chunks up to :func:`read_cap` bytes; a longer input (or an
    endless stream) raises :class:`~lpgame.errors.GameFileError` naming the cap.

    A missing file, a folder or an unreadable file also raise GameFileError; so does text that is
    not ``encoding``.
    """
    cap = read_cap(limit)
    chunks: list[bytes] = []
    size = 0
    try:
        with open(path, "rb") as handle:
            while True:
                chunk = handle.read(min(CHUNK, cap + 1 - size))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
                if size > cap:
                    raise GameFileError(
                        f"the input is longer than {cap:,} bytes, the most a game file may have "
                        f"under the memory limit of {memory_limit(limit):,} bytes (an endless "
                        "stream such as /dev/zero?); raise LPGAME_MEMORY_LIMIT for a larger file",
                        str(path))
    except FileNotFoundError:
        raise GameFileError("no such file", str(path)) from None
    except IsADirectoryError:
        raise GameFileError("is a folder, not a game file", str(path)) from None
    except OSError as exc:
        raise GameFileError(f"cannot read the file: {exc.strerror}", str(path)) from None
    data = b"".join(chunks)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise GameFileError(f"not a UTF-8 text file ({exc.reason} at byte {exc.start})",
                            str(path)) from None


@contextlib.contextmanager
def atomic_path(path) -> Iterator[Path]:
    """A temporary path beside ``path`` (same folder, same suffix, so that writers choosing a
    format by extension still do) to write to; on success it replaces ``path`` atomically, on an
    exception it is removed and ``path`` is left as it was.

    A new file gets the permissions a plain ``open(path, "w")`` would give (0o666 less the
    umask); an existing one keeps its permissions.
    """
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a folder; give a file name", str(target))
    try:
        fd, temp_name = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=target.suffix)
    except OSError as exc:       # name the user's path, not the temporary one
        raise type(exc)(exc.errno, exc.strerror, str(target)) from None
    os.close(fd)
    temp = Path(temp_name)
    try:
        yield temp
        try:
            mode = target.stat().st_mode & 0o7777
        except OSError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise


def write_text_atomic(path, text: str, encoding: str = "utf-8") -> None:
    """Replace ``path`` by a file holding ``text``, atomically (module docstring)."""
    with atomic_path(path) as temp:
        with open(temp, "w", encoding=encoding) as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())


__all__ = ["read_text_bounded", "read_cap", "write_text_atomic", "atomic_path",
           "BYTES_PER_FILE_BYTE"]
