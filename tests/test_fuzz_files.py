"""File fuzz test (issue 19): mutated Gambit files from models/.

Each example takes one ``.efg``/``.nfg`` file of models/ and applies a few mutations: truncate it,
flip a byte, insert a huge number (10⁴⁰⁰, a 5,001-digit integer, 1e400), duplicate or delete a
line, or change a count (any integer token, strategy counts of an ``.nfg`` included, becomes a
random one up to 10¹⁵). Reading and solving the result has exactly three allowed outcomes:

* a game, which then solves (or, for a game that the default concept does not fit, is refused
  with ConceptMismatchError naming the concepts that do; a valid game either way); a game whose
  numbers floating point cannot carry (10⁴⁰⁰) is refused by name in float mode and solves in
  exact mode;
* :class:`~lpgame.errors.GameFileError` whose message and ``line`` name the line (the byte, for
  bytes that are not UTF-8 text);
* :class:`~lpgame.errors.ModelTooLargeError` (a declared size beyond the memory limit, 256 MiB
  here).

Anything else, a foreign exception included, fails the test. Derandomised with a bounded number
of examples for CI; ``pytest --hypothesis-seed=N tests/test_fuzz_files.py`` explores others.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

import lpgame
from lpgame.errors import (
    ConceptMismatchError,
    GameFileError,
    InvalidGameError,
    ModelTooLargeError,
    SolverError,
)
from lpgame.io.files import read_game_file

MAX_EXAMPLES = 80
MODELS = Path(__file__).resolve().parent.parent / "models"
GAME_FILES = sorted(p for p in MODELS.iterdir() if p.suffix in (".efg", ".nfg"))
BEYOND_FLOATS = ["1" + "0" * 400, "9" * 5001, "1e400", "-1" + "0" * 400, "1/" + "3" * 320]
# Numbers beyond the double range are read exactly and refused by name in float mode by the
# numerics branch (issue 19; lpgame/io/safe_files.py comes with it). Until it is merged they
# raise OverflowError, so the fuzzer uses them only once that work is present, and the explicit
# test below may fail before it (xfail) and is a plain test after.
NUMBERS_AT_EVERY_SCALE = importlib.util.find_spec("lpgame.io.safe_files") is not None
HUGE_NUMBERS = (BEYOND_FLOATS if NUMBERS_AT_EVERY_SCALE else []) + \
    ["0." + "1" * 400, "1e-400", "99999999999999999999999", "123456789012345678901234567890"]
NUMBER = re.compile(rb"(?<![\w.])-?\d+(?:[./]\d+)?(?:e-?\d+)?(?![\w.])")


@st.composite
def mutations(draw, text: bytes) -> bytes:
    """``text`` after one to three mutations (module docstring)."""
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["truncate", "flip", "huge", "duplicate", "delete", "count"]))
        lines = text.split(b"\n")
        numbers = list(NUMBER.finditer(text))
        if kind == "truncate" and text:
            text = text[:draw(st.integers(0, len(text) - 1))]
        elif kind == "flip" and text:
            at = draw(st.integers(0, len(text) - 1))
            text = text[:at] + bytes([text[at] ^ draw(st.integers(1, 255))]) + text[at + 1:]
        elif kind == "huge" and numbers:
            match = draw(st.sampled_from(numbers))
            text = text[:match.start()] + draw(st.sampled_from(HUGE_NUMBERS)).encode() + \
                text[match.end():]
        elif kind == "duplicate" and lines:
            k = draw(st.integers(0, len(lines) - 1))
            text = b"\n".join(lines[:k + 1] + [lines[k]] + lines[k + 1:])
        elif kind == "delete" and len(lines) > 1:
            k = draw(st.integers(0, len(lines) - 1))
            text = b"\n".join(lines[:k] + lines[k + 1:])
        elif kind == "count" and numbers:
            match = draw(st.sampled_from(numbers))
            value = draw(st.one_of(st.integers(0, 5), st.integers(0, 10 ** 15)))
            text = text[:match.start()] + str(value).encode() + text[match.end():]
    return text


@st.composite
def mutated_files(draw) -> tuple[str, bytes]:
    path = draw(st.sampled_from(GAME_FILES))
    return path.name, draw(mutations(path.read_bytes()))


def check_mutated(name: str, data: bytes, folder: Path) -> str:
    """Read and solve one mutated file; the outcome's name, or an AssertionError."""
    path = folder / name
    path.write_bytes(data)
    try:
        game = read_game_file(path)
    except GameFileError as exc:
        # the line; for bytes that are not UTF-8 text, the byte offset
        located = exc.line is not None or re.search(r"\b(line|byte) \d+", str(exc))
        assert located, f"{name}: no line named: {exc}"
        assert str(path) in str(exc), f"{name}: the file is not named: {exc}"
        return "file error"
    except ModelTooLargeError:
        return "too large"
    try:
        lpgame.solve(game)
    except ConceptMismatchError:
        return "valid game, another concept"
    except ModelTooLargeError:
        return "too large"
    except (InvalidGameError, SolverError) as exc:
        # numbers beyond floating point: refused by name in float mode, solved in exact mode
        assert "exact" in str(exc), f"{name}: {exc}"
        try:
            lpgame.solve(game, exact=True)
        except ConceptMismatchError:
            return "valid game, another concept"
        except InvalidGameError as exact_exc:      # the zero-sum LP's own refusal, also by name
            assert "not zero-sum" in str(exact_exc), f"{name}: {exact_exc}"
            return "valid game, another concept"
        return "solved exactly"
    return "solved"


def test_file_fuzz(request, tmp_path, monkeypatch):
    monkeypatch.setenv("LPGAME_MEMORY_LIMIT", "256M")
    chosen = request.config.getoption("hypothesis_seed", default=None)
    seen: dict[str, int] = {}

    @settings(max_examples=MAX_EXAMPLES, deadline=None, database=None, derandomize=chosen is None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(case=mutated_files())
    def fuzz(case):
        outcome = check_mutated(*case, tmp_path)
        seen[outcome] = seen.get(outcome, 0) + 1

    if chosen is not None:
        fuzz = seed(int(chosen))(fuzz)
    fuzz()
    # the mutations reach both sides: files that still read and files that do not
    assert seen.get("file error") and (seen.get("solved") or seen.get("valid game, another concept"))


@pytest.mark.xfail(not NUMBERS_AT_EVERY_SCALE, strict=False,
                   reason="numbers beyond floats are the numerics branch's part of issue 19")
@pytest.mark.parametrize("name", [p.name for p in GAME_FILES])
@pytest.mark.parametrize("number", BEYOND_FLOATS[:2])
def test_huge_number_in_every_file(name, number, tmp_path, monkeypatch):
    """The issue's cases: 10⁴⁰⁰ and a 5,001-digit integer, as the first payoff of each file."""
    monkeypatch.setenv("LPGAME_MEMORY_LIMIT", "256M")
    text = (MODELS / name).read_bytes()
    last = list(NUMBER.finditer(text))[-1]        # the last number: a payoff or outcome index
    mutated = text[:last.start()] + number.encode() + text[last.end():]
    check_mutated(name, mutated, tmp_path)


def test_nfg_declaring_huge_strategy_counts_is_refused_at_once(tmp_path):
    path = tmp_path / "huge.nfg"
    path.write_text('NFG 1 R "huge" { "1" "2" } { 1000000000 1000000000 }\n1 2 3 4\n')
    with pytest.raises(ModelTooLargeError, match="1000000000 × 1000000000"):
        read_game_file(path)
