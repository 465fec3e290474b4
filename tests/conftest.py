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


# ------------------------------------------------------------------------------------ markers
# Tests that need an optional extra (OpenSpiel, pygambit, the notebook kernel, the docs tools) skip
# cleanly where it is missing, so the README's test command passes on a fresh machine with only the
# test extra. They are marked ``interop`` here, from their own source, so that CI's second stage
# (extras installed) can run exactly them and the ``slow`` ones: ``python -m pytest -m "slow or
# interop"``. A new test that calls ``pytest.importorskip`` of an extra joins with no edit.
EXTRAS = ("pyspiel", "open_spiel", "pygambit", "nbclient", "nbformat", "ipykernel", "mkdocs")


def _needs_an_extra(source: str) -> bool:
    return "importorskip(" in source and any(f'"{name}' in source for name in EXTRAS)


def pytest_collection_modifyitems(config, items):
    import inspect

    module_needs: dict = {}
    for item in items:
        module = getattr(item, "module", None)
        if module is None:
            continue
        if module not in module_needs:
            try:
                top = "\n".join(line for line in inspect.getsource(module).splitlines()
                                if line and not line[0].isspace())
            except (OSError, TypeError):
                top = ""
            module_needs[module] = _needs_an_extra(top)
        needs = module_needs[module]
        if not needs:
            try:
                needs = _needs_an_extra(inspect.getsource(item.function))
            except (OSError, TypeError, AttributeError):
                needs = False
        if needs:
            item.add_marker(pytest.mark.interop)
