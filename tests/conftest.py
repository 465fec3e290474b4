"""Makes ``tests/random_games.py`` importable by name under pytest's ``--import-mode=importlib``,
and records the SIGINT disposition this test process started with (:func:`sigint_at_start`)."""

import signal
import sys
from pathlib import Path

import pytest

_HERE = str(Path(__file__).parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

# Read when pytest (or a pytest-xdist worker) imports this file, before any test runs. It is SIG_IGN
# when pytest was started as an asynchronous command (``python -m pytest ... &``) of a shell without
# job control (a script, ``bash -c``, a CI or agent runner): POSIX starts such a command with SIGINT
# and SIGQUIT ignored, Python keeps an inherited SIG_IGN for SIGINT (it installs its
# KeyboardInterrupt handler only over SIG_DFL), and pytest-xdist's workers and every child a test
# starts inherit it. ``timeout CMD`` and ``set -m`` start CMD with SIGINT at its default instead.
_SIGINT_AT_START = signal.getsignal(signal.SIGINT)


@pytest.fixture
def sigint_at_start():
    """The SIGINT handler this test process started with: ``signal.default_int_handler``, or
    ``signal.SIG_IGN`` when it inherited an ignored SIGINT from the shell that started pytest."""
    return _SIGINT_AT_START
