"""The lexical layer of Gambit's game files: tokens, exact numbers and the parser's cursor.

Shared by the ``.efg`` and ``.nfg`` readers (:mod:`lpgame.io.gambit_efg_reader`,
:mod:`lpgame.io.gambit_nfg_reader`) and the writer's number check. The lexical rules are those of
the Gambit documentation ("Game representation formats", *The extensive game (.efg) file format*
and *The strategic game (.nfg) file format*; gambitproject.readthedocs.io), implemented
independently from that text:

* a quoted string ``"..."`` may span lines and contain ``\\"`` and ``\\\\``;
* ``{``, ``}`` and ``,`` are tokens of their own (commas may separate list entries);
* every other run of non-blank characters is an atom: a keyword, a node type or a number;
* a number is an integer, a decimal (``.80``, ``1.5e-3``) or a rational (``1/3``), read as an
  exact :class:`fractions.Fraction` however many digits it has (decimal exponents beyond
  :data:`MAX_DECIMAL_EXPONENT` are refused).

Both formats open with the prologue ``<EFG 2 | NFG 1> <R | D> "title" { "player" ... }``
(:func:`read_prologue`). Every fault raises :class:`~lpgame.errors.GameFileError` with the path
and the line number.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

from lpgame.errors import GameFileError
from lpgame.io.safe_files import read_text_bounded
from lpgame.rational import integer_from_text

MAX_COUNT_DIGITS = 100   # counts and outcome numbers; longer ones cannot be meant

# ----------------------------------------------------------------------------------------------
# tokenizer

STRING, LBRACE, RBRACE, COMMA, ATOM = "string", "{", "}", ",", "atom"

_TOKEN = re.compile(r'''
    (?P<space>\s*)
    (?: "(?P<string>(?:[^"\\]|\\.)*)"
      | (?P<open>"(?:[^"\\]|\\.)*\\?\Z)
      | (?P<brace>[{}])
      | (?P<comma>,)
      | (?P<atom>[^\s{}",]+) )
''', re.VERBOSE | re.DOTALL)

_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_RATIONAL = re.compile(r"[+-]?\d+/\d+")
_INTEGER = re.compile(r"[+-]?\d+")
MAX_DECIMAL_EXPONENT = 1000
_UNESCAPE = re.compile(r'\\(["\\])')


def unescape(body: str) -> str:
    """The text of a quoted string's body: ``\\"`` and ``\\\\`` unescaped."""
    return _UNESCAPE.sub(r"\1", body) if "\\" in body else body


class Token(NamedTuple):
    """One token: its kind (string, ``{``, ``}``, ``,``, atom), its text and its line (1-based)."""

    kind: str
    text: str
    line: int


def tokenize(text: str, path: str | None = None) -> list[Token]:
    """Split a Gambit file into tokens, each with its line number.

    Quoted strings may span lines and contain ``\\"`` (an escaped quote) and ``\\\\``; braces and
    commas are tokens of their own; every other run of non-blank characters is an atom (a keyword,
    a node type or a number, checked by the parser).
    """
    tokens: list[Token] = []
    append = tokens.append
    line = 1
    pos = 0
    for match in _TOKEN.finditer(text):
        if match.start() != pos:   # cannot happen: the atom class takes everything else
            raise GameFileError(f"unexpected character {text[pos]!r}", path, line)
        pos = match.end()
        space = match.group("space")
        if "\n" in space:
            line += space.count("\n")
        kind = match.lastgroup
        if kind == "atom":
            append(Token(ATOM, match.group("atom"), line))
        elif kind == "string":
            body = match.group("string")
            append(Token(STRING, _UNESCAPE.sub(r"\1", body) if "\\" in body else body, line))
            line += body.count("\n")
        elif kind == "brace":
            brace = match.group("brace")
            append(Token(brace, brace, line))
        elif kind == "comma":
            append(Token(COMMA, ",", line))
        else:
            raise GameFileError("a quoted label is never closed (the file ends inside it)",
                                path, line)
    return tokens


@lru_cache(maxsize=4096)
def parse_number(text: str) -> Fraction | None:
    """An integer, decimal (``.8``, ``1.5e-3``) or rational (``-2/3``) as a Fraction, else None."""
    if _INTEGER.fullmatch(text):
        return Fraction(integer_from_text(text))      # any number of digits, exactly
    if _NUMBER.fullmatch(text):
        decimal = Decimal(text)
        if abs(decimal.as_tuple().exponent) > MAX_DECIMAL_EXPONENT:
            return None   # 1e999999999 would build a gigantic integer
        return Fraction(decimal)
    if _RATIONAL.fullmatch(text):
        numerator, denominator = (integer_from_text(part) for part in text.split("/"))
        if denominator == 0:
            return None
        return Fraction(numerator, denominator)
    return None


class TokenStream:
    """The parser's cursor over the tokens; every error it raises names the path and line."""

    def __init__(self, text: str, path: str | None = None):
        self.path = path
        self.tokens = tokenize(text, path)
        self.pos = 0
        self.end_line = self.tokens[-1].line if self.tokens else 1

    def error(self, message: str, line: int | None = None) -> GameFileError:
        return GameFileError(message, self.path, self.line if line is None else line)

    @property
    def line(self) -> int:
        """Line of the next token, or of the last token when the file is used up."""
        return self.tokens[self.pos].line if self.pos < len(self.tokens) else self.end_line

    def at_end(self) -> bool:
        return self.pos >= len(self.tokens)

    def peek(self) -> Token | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def peek_kind(self) -> str | None:
        token = self.peek()
        return token.kind if token is not None else None

    def next(self, what: str) -> Token:
        if self.pos >= len(self.tokens):
            raise self.error(f"the file ends early: expected {what}")
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def skip_commas(self) -> None:
        while self.peek_kind() == COMMA:
            self.pos += 1

    def expect(self, kind: str, what: str) -> Token:
        token = self.next(what)
        if token.kind != kind:
            raise self.error(f"expected {what}, found {show_token(token)}", token.line)
        return token

    def string(self, what: str) -> str:
        return self.expect(STRING, what).text

    def keyword(self, allowed: Sequence[str], what: str) -> Token:
        token = self.next(what)
        if token.kind != ATOM or token.text not in allowed:
            raise self.error(f"expected {what} ({' or '.join(allowed)}), found {show_token(token)}",
                             token.line)
        return token

    def number(self, what: str) -> Fraction:
        token = self.next(what)
        if token.kind != ATOM:
            raise self.error(f"expected {what} (a number), found {show_token(token)}", token.line)
        value = parse_number(token.text)
        if value is None:
            raise self.error(f"bad number {token.text!r} ({what})", token.line)
        return value

    def integer(self, what: str, minimum: int = 0) -> int:
        token = self.next(what)
        if token.kind != ATOM or not _INTEGER.fullmatch(token.text):
            shown = repr(token.text) if token.kind == ATOM else show_token(token)
            raise self.error(f"expected {what} (a whole number), found {shown}", token.line)
        if len(token.text.lstrip("+-")) > MAX_COUNT_DIGITS:
            raise self.error(f"{what}: a whole number of {len(token.text.lstrip('+-'))} digits is "
                             "far too large", token.line)
        value = int(token.text)
        if value < minimum:
            raise self.error(f"{what} must be at least {minimum}, found {value}", token.line)
        return value

    def string_list(self, what: str) -> list[str]:
        """``{ "a" "b" ... }`` (commas between entries are tolerated)."""
        self.expect(LBRACE, f"'{{' opening {what}")
        out = []
        while True:
            self.skip_commas()
            token = self.next(f"{what} or '}}'")
            if token.kind == RBRACE:
                return out
            if token.kind != STRING:
                raise self.error(f"expected a quoted label in {what}, found {show_token(token)}",
                                 token.line)
            out.append(token.text)

    def number_list(self, what: str) -> list[Fraction]:
        """``{ 1 2 3 }`` or ``{ 1, 2, 3 }``."""
        self.expect(LBRACE, f"'{{' opening {what}")
        out = []
        while True:
            self.skip_commas()
            if self.peek_kind() == RBRACE:
                self.pos += 1
                return out
            out.append(self.number(f"an entry of {what}"))


def show_token(token: Token) -> str:
    """A token as a fault message shows it: a string in double quotes, anything else quoted."""
    return f'"{token.text}"' if token.kind == STRING else repr(token.text)


def read_game_text(path) -> str:
    """The file's text, at most a memory-bounded number of bytes (an endless stream such as
    /dev/zero is refused, :func:`lpgame.io.safe_files.read_text_bounded`)."""
    return read_text_bounded(path)


# ----------------------------------------------------------------------------------------------
# labels and the prologue


def unique_labels(labels: Sequence[str]) -> list[str]:
    """The labels when all are non-empty and distinct, else ``"<k>:<label>"`` (k 1-based)."""
    labels = list(labels)
    if all(labels) and len(set(labels)) == len(labels):
        return labels
    return [f"{k + 1}:{label}" for k, label in enumerate(labels)]


def unique_player_names(names: Sequence[str]) -> list[str]:
    """The player names when all are non-empty and distinct, else ``"Player <k>"`` (k 1-based)."""
    names = list(names)
    if all(names) and len(set(names)) == len(names):
        return names
    return [f"Player {k + 1}" for k in range(len(names))]


def read_prologue(stream: TokenStream, magic: str, version: str) -> tuple[str, list[str]]:
    """The title and players of ``<magic> <version> <R|D> "title" { "player" ... }``."""
    stream.keyword([magic], f"the format tag {magic}")
    stream.keyword([version], f"the {magic} format version")
    stream.keyword(["R", "D"], "the number type")
    title = stream.string("the game title")
    players = stream.string_list("the list of players")
    if not players:
        raise stream.error("the game has no players")
    return title, players


def check_payoff_count(stream: TokenStream, payoffs: list, num_players: int, what: str,
                       line: int) -> tuple:
    """The payoffs as a tuple, one per player (else a fault at ``line`` naming ``what``)."""
    if len(payoffs) != num_players:
        raise stream.error(f"{what} has {len(payoffs)} payoffs but the game has {num_players} "
                           "players", line)
    return tuple(payoffs)
