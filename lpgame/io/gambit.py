"""Gambit's game files: extensive form ``.efg`` and strategic form ``.nfg``, read and written.

The formats are those of the Gambit documentation ("Game representation formats": *The extensive
game (.efg) file format*, *The strategic game (.nfg) file format, payoff version* and *outcome
version*; gambitproject.readthedocs.io). This is an independent implementation from that text.

Extensive form (``EFG 2 R``)
    Prologue: ``EFG 2 R "title" { "player 1" "player 2" ... }`` and an optional comment string.
    Body: the nodes in prefix (depth-first, first child first) order, one entry each::

        c "node name" event ["event name" { "action" prob ... }] outcome ["name" { payoffs }]
        p "node name" player infoset ["infoset name" { "action" ... }] outcome ["name" { payoffs }]
        t "node name" outcome ["outcome name" { payoffs }]

    A chance node has one child per action of its event, a personal node one per action of its
    information set. The bracketed descriptions may be left out where the event, information set
    or outcome appeared before; when repeated they must match the first declaration exactly.
    Outcome 0 is the null outcome. Outcomes may sit on non-terminal nodes: a leaf's payoff is the
    sum of the outcomes on its path (Gambit's incremental payoffs). Payoffs may be separated by
    commas.

Strategic form (``NFG 1 R``)
    ``NFG 1 R "title" { players }`` then either strategy counts ``{ 3 2 }`` or strategy labels
    ``{ { "a" "b" "c" } { "x" "y" } }``, an optional comment, then either a flat payoff list
    (payoff version) or an outcome list ``{ { "name" u1, u2 } ... }`` followed by one outcome
    number per profile (outcome version). Profiles are listed with player 1's strategy varying
    fastest (column-major / Fortran order over ``(|S_1|, ..., |S_n|)``).

Reading
    Numbers (integers, decimals such as ``.80`` or ``1.5e-3``, rationals such as ``1/3``) become
    exact :class:`fractions.Fraction`, however large: ``1e400`` or a 5,001-digit integer is read
    exactly (exact mode solves with it; floating-point mode refuses it by name,
    :mod:`lpgame.lp.scaling`). An ``.efg`` becomes a :class:`~lpgame.game.Game` whose
    nodes are numbered 0, 1, ... in file order. Node attributes keep Gambit's labels: ``label``
    (the node name, when not empty), ``outcome`` (the name of a leaf's outcome); the game keeps
    the title as ``name``, the players' names and, in ``graph.graph``, ``title`` and ``comment``.
    Information-set labels are Gambit's information-set names where a name is non-empty and used
    by exactly one information set in the whole game, else ``"P<player>:<number>"`` (the file's
    player and information-set numbers). Empty or repeated action, strategy and player labels are
    made unique (action ``k`` becomes ``"<k>:<label>"``; players become ``"Player <k>"``) since
    lpgame identifies actions by label.

Faults
    Every fault in a file raises :class:`~lpgame.errors.GameFileError` with the path and the line
    number: a file that ends early, a bad number, a wrong count (payoffs per outcome vs players,
    actions vs probabilities, payoff or outcome entries vs profiles, strategy lists vs players),
    an unknown node type, a re-declared outcome, event or information set that differs from its
    first declaration, an undeclared reference, a chance event whose probabilities are negative or
    do not sum to exactly 1, and text after the end of the tree.

Writing
    :func:`write_efg` writes a :class:`~lpgame.game.Game`: outcomes on the leaves, one outcome per
    distinct payoff vector, one chance event per chance node, information sets numbered per player
    in order of first appearance. Every description is written in full at every node, as Gambit
    itself does, since some readers (OpenSpiel's) do not accept the short forms. :func:`write_nfg`
    writes a :class:`~lpgame.game.NormalFormGame`, in the outcome version by default (it keeps the
    strategy labels). Rationals are written ``p/q``, floats as plain decimals (no exponent), so
    Gambit reads back the same numbers. Float chance probabilities are written as the nearby
    rationals when those sum to exactly 1 (Gambit refuses probabilities that do not).

Example
-------
>>> from lpgame.io.gambit import parse_efg
>>> game = parse_efg('''EFG 2 R "sequential matching pennies" { "Ann" "Bob" }
... p "" 1 1 "Ann" { "H" "T" } 0
... p "" 2 1 "Bob" { "h" "t" } 0
... t "" 1 "Ann wins" { 1, -1 }
... t "" 2 "Bob wins" { -1, 1 }
... p "" 2 1 "Bob" { "h" "t" } 0
... t "" 2
... t "" 1
... ''')
>>> game.sizes()["sequences"], game.player_names
([3, 3], ['Ann', 'Bob'])
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from numbers import Integral, Rational
from typing import NamedTuple

import networkx as nx
import numpy as np

from lpgame.errors import GameFileError, InvalidGameError
from lpgame.game.normal_form import NormalFormGame
from lpgame.game.tree import CHANCE, DECISION, TERMINAL, Game, IndexedGame
from lpgame.io.safe_files import read_text_bounded, write_text_atomic
from lpgame.limits import check_prediction
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
            raise self.error(f"expected {what}, found {_show(token)}", token.line)
        return token

    def string(self, what: str) -> str:
        return self.expect(STRING, what).text

    def keyword(self, allowed: Sequence[str], what: str) -> Token:
        token = self.next(what)
        if token.kind != ATOM or token.text not in allowed:
            raise self.error(f"expected {what} ({' or '.join(allowed)}), found {_show(token)}",
                             token.line)
        return token

    def number(self, what: str) -> Fraction:
        token = self.next(what)
        if token.kind != ATOM:
            raise self.error(f"expected {what} (a number), found {_show(token)}", token.line)
        value = parse_number(token.text)
        if value is None:
            raise self.error(f"bad number {token.text!r} ({what})", token.line)
        return value

    def integer(self, what: str, minimum: int = 0) -> int:
        token = self.next(what)
        if token.kind != ATOM or not _INTEGER.fullmatch(token.text):
            shown = repr(token.text) if token.kind == ATOM else _show(token)
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
                raise self.error(f"expected a quoted label in {what}, found {_show(token)}",
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


def _show(token: Token) -> str:
    return f'"{token.text}"' if token.kind == STRING else repr(token.text)


def _read_text(path) -> str:
    """The file's text, at most a memory-bounded number of bytes (an endless stream such as
    /dev/zero is refused, :func:`lpgame.io.safe_files.read_text_bounded`)."""
    return read_text_bounded(path)


# ----------------------------------------------------------------------------------------------
# labels


def unique_labels(labels: Sequence[str]) -> list[str]:
    """The labels when all are non-empty and distinct, else ``"<k>:<label>"`` (k 1-based)."""
    labels = list(labels)
    if all(labels) and len(set(labels)) == len(labels):
        return labels
    return [f"{k + 1}:{label}" for k, label in enumerate(labels)]


def _player_names(names: Sequence[str]) -> list[str]:
    names = list(names)
    if all(names) and len(set(names)) == len(names):
        return names
    return [f"Player {k + 1}" for k in range(len(names))]


def _prologue(stream: TokenStream, magic: str, version: str) -> tuple[str, list[str]]:
    stream.keyword([magic], f"the format tag {magic}")
    stream.keyword([version], f"the {magic} format version")
    stream.keyword(["R", "D"], "the number type")
    title = stream.string("the game title")
    players = stream.string_list("the list of players")
    if not players:
        raise stream.error("the game has no players")
    return title, players


def _check_payoffs(stream: TokenStream, payoffs: list, num_players: int, what: str,
                   line: int) -> tuple:
    if len(payoffs) != num_players:
        raise stream.error(f"{what} has {len(payoffs)} payoffs but the game has {num_players} "
                           "players", line)
    return tuple(payoffs)


# ----------------------------------------------------------------------------------------------
# .efg reading


@dataclass
class _Declaration:
    """First declaration of an outcome, chance event or information set in a file."""

    name: str
    content: tuple       # payoffs, or (labels, probabilities), or labels
    line: int
    labels: tuple = ()   # the action labels as used by lpgame (made unique)


class _EfgParser:
    def __init__(self, text: str, path: str | None):
        self.stream = TokenStream(text, path)
        self.path = path
        self.graph = nx.DiGraph()
        self.node_line: list[int] = []
        self.outcomes: dict[int, _Declaration] = {}
        self.events: dict[int, _Declaration] = {}
        self.infosets: dict[tuple[int, int], _Declaration] = {}
        self.decision_nodes: list[tuple[int, int, int]] = []   # (node, player, infoset number)

    # -- pieces of a node entry
    def _outcome(self) -> tuple[int, tuple | None]:
        """The outcome number and its payoffs (None for the null outcome)."""
        s = self.stream
        line = s.line
        number = s.integer("the outcome number", minimum=0)
        described = s.peek_kind() == STRING
        if described:
            name = s.string("the outcome name")
            payoff_line = s.line
            payoffs = _check_payoffs(s, s.number_list(f"the payoffs of outcome {number}"),
                                     self.num_players, f"outcome {number}", payoff_line)
        if number == 0:
            if described:
                raise s.error("outcome 0 is the null outcome and cannot have a name or payoffs",
                              line)
            return 0, None
        known = self.outcomes.get(number)
        if described:
            if known is None:
                self.outcomes[number] = _Declaration(name, payoffs, line)
            elif known.content != payoffs or known.name != name:
                raise s.error(
                    f"outcome {number} is declared again as {name!r} {_fmt_tuple(payoffs)}, "
                    f"different from its declaration at line {known.line} "
                    f"({known.name!r} {_fmt_tuple(known.content)})", line)
            return number, payoffs
        if known is None:
            raise s.error(f"outcome {number} is used before its name and payoffs are given",
                          line)
        return number, known.content

    def _chance_event(self) -> _Declaration:
        s = self.stream
        line = s.line
        number = s.integer("the chance event number", minimum=1)
        if s.peek_kind() != STRING:
            known = self.events.get(number)
            if known is None:
                raise s.error(f"chance event {number} is used before its actions and "
                              "probabilities are given", line)
            return known
        name = s.string("the chance event name")
        s.expect(LBRACE, "'{' opening the chance actions")
        labels, probs = [], []
        while True:
            s.skip_commas()
            token = s.next("a chance action label or '}'")
            if token.kind == RBRACE:
                break
            if token.kind != STRING:
                raise s.error(f"expected a quoted chance action label, found {_show(token)} "
                              f"(each action needs a label and a probability)", token.line)
            s.skip_commas()
            following = s.peek()
            if following is None or following.kind != ATOM:
                where = following.line if following is not None else s.line
                raise s.error(
                    f"chance action {token.text!r} has no probability: {len(labels) + 1} "
                    f"action labels but {len(probs)} probabilities", where)
            labels.append(token.text)
            probs.append(s.number(f"the probability of chance action {token.text!r}"))
        if not labels:
            raise s.error(f"chance event {number} has no actions", line)
        for label, p in zip(labels, probs):
            if p < 0:
                raise s.error(f"chance event {number}: probability {p} of {label!r} is "
                              "negative", line)
        total = sum(probs)
        if total != 1:
            raise s.error(f"chance event {number}: the probabilities {_fmt_tuple(probs)} sum "
                          f"to {total}, not 1", line)
        content = (tuple(labels), tuple(probs))
        known = self.events.get(number)
        if known is None:
            known = _Declaration(name, content, line, tuple(unique_labels(labels)))
            self.events[number] = known
        elif known.name != name or known.content != content:
            raise s.error(f"chance event {number} is declared again with a different name, "
                          f"actions or probabilities than at line {known.line}", line)
        return known

    def _infoset(self, player: int) -> tuple[int, _Declaration]:
        """The information set number and its declaration."""
        s = self.stream
        line = s.line
        number = s.integer(f"the information set number of player {player}", minimum=1)
        key = (player, number)
        if s.peek_kind() != STRING:
            known = self.infosets.get(key)
            if known is None:
                raise s.error(f"information set {number} of player {player} is used before "
                              "its actions are given", line)
            return number, known
        name = s.string("the information set name")
        labels = tuple(s.string_list(f"the actions of information set {number}"))
        if not labels:
            raise s.error(f"information set {number} of player {player} has no actions", line)
        known = self.infosets.get(key)
        if known is None:
            known = _Declaration(name, labels, line, tuple(unique_labels(labels)))
            self.infosets[key] = known
        elif known.name != name or known.content != labels:
            raise s.error(
                f"information set {number} of player {player} is declared again as {name!r} "
                f"{list(labels)}, different from line {known.line} ({known.name!r} "
                f"{list(known.content)})", line)
        return number, known

    # -- one node entry
    def _node(self, accumulated: tuple | None):
        """Read one node; returns (node id, child labels, child probabilities, payoffs so far)."""
        s = self.stream
        token = s.next("a node (c, p or t)")
        if token.kind != ATOM or token.text not in ("c", "p", "t"):
            raise s.error(f"unknown node type {_show(token)}: a node starts with c (chance), "
                          "p (personal) or t (terminal)", token.line)
        node = len(self.node_line)
        self.node_line.append(token.line)
        name = s.string("the node name")
        attrs = {"label": name} if name else {}
        if token.text == "t":
            number, payoffs = self._outcome()
            total = _add(accumulated, payoffs)
            if total is None:
                total = (Fraction(0),) * self.num_players
            if number:
                attrs["outcome"] = self.outcomes[number].name
            self.graph.add_node(node, kind=TERMINAL, payoffs=total, **attrs)
            return node, (), None, None
        if token.text == "c":
            event = self._chance_event()
            self.graph.add_node(node, kind=CHANCE, **attrs)
            labels, probs = event.labels, event.content[1]
        else:
            player_line = s.line
            player = s.integer("the player number", minimum=1)
            if player > self.num_players:
                raise s.error(f"player {player} does not exist: the game has "
                              f"{self.num_players} players", player_line)
            number, infoset = self._infoset(player)
            self.decision_nodes.append((node, player - 1, number))
            self.graph.add_node(node, kind=DECISION, player=player - 1, **attrs)
            labels, probs = infoset.labels, None
        _, payoffs = self._outcome()
        return node, labels, probs, _add(accumulated, payoffs)

    def parse(self) -> Game:
        s = self.stream
        title, players = _prologue(s, "EFG", "2")
        self.num_players = len(players)
        comment = s.string("the comment") if s.peek_kind() == STRING else ""
        if s.at_end():
            raise s.error("the file ends early: the game tree has no nodes")
        root, labels, probs, acc = self._node(None)
        # explicit stack of nodes whose children are still being read: [node, labels, probs,
        # next child, payoffs accumulated from non-terminal outcomes]
        pending = [[root, labels, probs, 0, acc]] if labels else []
        while pending:
            top = pending[-1]
            node, labels, probs, k, acc = top
            if k == len(labels):
                pending.pop()
                continue
            if s.at_end():
                raise s.error(
                    f"the file ends early: the node at line {self.node_line[node]} still "
                    f"expects {len(labels) - k} more child node(s) ({len(pending)} node(s) "
                    "are unfinished)")
            child, child_labels, child_probs, child_acc = self._node(acc)
            edge = {"action": labels[k]}
            if probs is not None:
                edge["prob"] = probs[k]
            self.graph.add_edge(node, child, **edge)
            top[3] = k + 1
            if child_labels:
                pending.append([child, child_labels, child_probs, 0, child_acc])
        if not s.at_end():
            token = s.peek()
            raise s.error(f"unexpected {_show(token)} after the last node (the tree is "
                          "complete)", token.line)
        self._label_infosets()
        self.graph.graph.update(title=title, comment=comment)
        try:
            return Game(self.graph, self.num_players, root=0, name=title or "gambit game",
                        player_names=_player_names(players))
        except InvalidGameError as exc:
            raise self._located(exc) from None

    def _label_infosets(self) -> None:
        by_name: dict[str, set] = {}
        for key, decl in self.infosets.items():
            if decl.name:
                by_name.setdefault(decl.name, set()).add(key)
        fallback = {f"P{p}:{k}" for p, k in self.infosets}
        labels = {}
        for (p, k), decl in self.infosets.items():
            unique = decl.name and len(by_name[decl.name]) == 1 and decl.name not in fallback
            labels[(p, k)] = decl.name if unique else f"P{p}:{k}"
        for node, player, number in self.decision_nodes:
            self.graph.nodes[node]["infoset"] = labels[(player + 1, number)]

    def _located(self, exc: InvalidGameError) -> GameFileError:
        """A validation error of the built game, with the file line of the node it names."""
        message = str(exc)
        match = re.search(r"node (\d+)", message)
        line = None
        if match and int(match.group(1)) < len(self.node_line):
            line = self.node_line[int(match.group(1))]
            message += " (nodes are numbered 0, 1, ... in file order)"
        return GameFileError(f"not a valid game: {message}", self.path, line)


def _add(a: tuple | None, b: tuple | None) -> tuple | None:
    if a is None:
        return b
    if b is None:
        return a
    return tuple(x + y for x, y in zip(a, b))


def _fmt_tuple(values) -> str:
    return "(" + ", ".join(_fmt_number(v) for v in values) + ")"


def _fmt_number(value) -> str:
    """A number for a message; one too long to print (Python converts at most 4,300 digits) is
    described by its size."""
    if isinstance(value, Rational) and max(abs(value.numerator), value.denominator).bit_length() > 3000:
        return f"(a number of about {int(abs(value.numerator).bit_length() * 0.30103) + 1} digits)"
    return str(value)


def parse_efg(text: str, path: str | None = None) -> Game:
    """A :class:`~lpgame.game.Game` from the text of a Gambit ``.efg`` file."""
    return _EfgParser(text, path).parse()


def read_efg(path) -> Game:
    """Read a Gambit ``.efg`` file (see the module docstring)."""
    return parse_efg(_read_text(path), str(path))


# ----------------------------------------------------------------------------------------------
# .nfg reading


BYTES_PER_NFG_PROFILE = 64   # per player and profile: a list entry, a tuple slot, two object cells


def parse_nfg(text: str, path: str | None = None) -> NormalFormGame:
    """A :class:`~lpgame.game.NormalFormGame` from the text of a Gambit ``.nfg`` file.

    The strategy counts are checked against the memory limit
    (:func:`lpgame.limits.check_prediction`, about 64 bytes per player and profile) before any
    table is allocated, so a file declaring 10⁹ × 10⁹ strategies is refused with
    :class:`~lpgame.errors.ModelTooLargeError` naming the line."""
    s = TokenStream(text, path)
    title, players = _prologue(s, "NFG", "1")
    n = len(players)
    list_line = s.line
    s.expect(LBRACE, "'{' opening the strategy counts or labels")
    if s.peek_kind() == LBRACE:
        strategies = []
        while s.peek_kind() == LBRACE:
            strategies.append(s.string_list(f"the strategies of player {len(strategies) + 1}"))
        s.expect(RBRACE, "'}' closing the strategy lists")
        counts = [len(labels) for labels in strategies]
    else:
        counts = []
        while s.peek_kind() != RBRACE:
            counts.append(s.integer("a number of strategies", minimum=1))
            s.skip_commas()
        s.next("'}'")
        strategies = None
    if len(counts) != n:
        raise s.error(f"{len(counts)} strategy lists/counts for {n} players", list_line)
    for i, m in enumerate(counts):
        if m == 0:
            raise s.error(f"player {i + 1} has no strategies", list_line)
    profiles = math.prod(counts)
    check_prediction(f"{path or 'the .nfg text'}: line {list_line}: the payoff table of "
                     f"{' × '.join(map(str, counts))} strategy profiles",
                     profiles * BYTES_PER_NFG_PROFILE * (n + 1) + sum(counts) * BYTES_PER_NFG_PROFILE)
    if strategies is None:
        strategies = [[str(k + 1) for k in range(m)] for m in counts]
    comment = s.string("the comment") if s.peek_kind() == STRING else ""
    if s.peek_kind() == LBRACE:                    # outcome version
        s.next("'{'")
        outcomes: list[tuple] = []
        while True:
            s.skip_commas()
            token = s.next("an outcome '{' or '}'")
            if token.kind == RBRACE:
                break
            if token.kind != LBRACE:
                raise s.error(f"expected '{{' opening outcome {len(outcomes) + 1}, found "
                              f"{_show(token)}", token.line)
            if s.peek_kind() == STRING:
                s.next("the outcome name")
            values = []
            while True:
                s.skip_commas()
                if s.peek_kind() == RBRACE:
                    s.next("'}'")
                    break
                values.append(s.number(f"a payoff of outcome {len(outcomes) + 1}"))
            outcomes.append(_check_payoffs(s, values, n, f"outcome {len(outcomes) + 1}",
                                           token.line))
        table = []
        for k in range(profiles):
            token_line = s.line
            if s.at_end():
                raise s.error(f"the file ends early: {k} of the {profiles} outcome numbers "
                              "(one per strategy profile) are given")
            index = s.integer("an outcome number")
            if index > len(outcomes):
                raise s.error(f"outcome {index} does not exist: the file declares "
                              f"{len(outcomes)} outcomes", token_line)
            table.append(outcomes[index - 1] if index else (Fraction(0),) * n)
    else:                                          # payoff version
        flat = []
        for k in range(profiles * n):
            if s.at_end():
                raise s.error(f"the file ends early: {k} of the {profiles * n} payoffs "
                              f"({profiles} profiles x {n} players) are given")
            flat.append(s.number("a payoff"))
            s.skip_commas()
        table = [tuple(flat[k * n:(k + 1) * n]) for k in range(profiles)]
    if not s.at_end():
        token = s.peek()
        raise s.error(f"unexpected {_show(token)} after the {profiles} profiles of the table",
                      token.line)
    by_profile = np.array(table, dtype=object).reshape(profiles, n)
    payoffs = np.empty((n, *counts), dtype=object)
    for i in range(n):
        payoffs[i] = by_profile[:, i].reshape(counts, order="F")
    try:
        game = NormalFormGame(payoffs, actions=[unique_labels(a) for a in strategies],
                              name=title or "gambit game", player_names=_player_names(players))
    except InvalidGameError as exc:
        raise GameFileError(f"not a valid game: {exc}", path) from None
    game.comment = comment
    return game


def read_nfg(path) -> NormalFormGame:
    """Read a Gambit ``.nfg`` file (see the module docstring)."""
    return parse_nfg(_read_text(path), str(path))


# ----------------------------------------------------------------------------------------------
# writing


def quote(text) -> str:
    """A Gambit text label: in double quotes, with ``\\`` and ``"`` escaped."""
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def format_number(value) -> str:
    """An int or rational as ``p`` / ``p/q``; a float as a plain decimal (exact, no exponent)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, Integral):
        return str(int(value))
    if isinstance(value, Rational):
        value = Fraction(value)
        return str(value.numerator) if value.denominator == 1 else str(value)
    if isinstance(value, str):
        exact = parse_number(value.strip())
        if exact is None:
            raise InvalidGameError(f"cannot write {value!r} as a number")
        return format_number(exact)
    number = float(value)
    if number != number or number in (float("inf"), float("-inf")):
        raise InvalidGameError(f"cannot write the non-finite number {number!r}")
    text = format(Decimal(repr(number)), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _chance_probabilities(node, probs: list) -> list:
    """Probabilities to write: exact values, or for floats nearby rationals summing to 1."""
    if all(isinstance(p, (Rational, str)) and not isinstance(p, bool) for p in probs):
        return probs
    as_decimal = [Fraction(format_number(p)) if not isinstance(p, Fraction) else p for p in probs]
    if sum(as_decimal) == 1:
        return as_decimal
    near = [Fraction(float(p)).limit_denominator(10 ** 9) for p in probs]
    if sum(near) == 1 and all(abs(float(q) - float(p)) <= 1e-9 for q, p in zip(near, probs)):
        return near
    raise InvalidGameError(
        f"chance node {node!r}: the float probabilities {probs} do not sum to 1 exactly and have "
        "no nearby rationals that do; Gambit would refuse them (give Fractions)")


def efg_text(game: Game) -> str:
    """The ``.efg`` text of ``game`` (see the module docstring)."""
    if not isinstance(game, Game):
        if isinstance(game, NormalFormGame):
            game = game.to_extensive()
        elif isinstance(game, IndexedGame):
            raise InvalidGameError(
                f"{game.name}: writing an .efg needs the explicit tree (a Game); this game is "
                "compiled without one (build it with structured=False)")
        else:
            raise InvalidGameError(f"cannot write a {type(game).__name__} as an .efg")
    graph, index = game.graph, game.index
    n = game.num_players
    comment = graph.graph.get("comment", "")
    lines = [f"EFG 2 R {quote(game.name)} {{ "
             + " ".join(quote(p) for p in game.player_names) + " }",
             quote(comment), ""]
    infoset_numbers: list[dict[str, int]] = [{} for _ in range(n)]
    outcome_numbers: dict[tuple, tuple[int, str]] = {}
    outcome_names: set[str] = set()
    events = 0
    stack = [game.root]
    while stack:
        node = stack.pop()
        data = graph.nodes[node]
        name = quote(data.get("label", ""))
        kind = data["kind"]
        children = list(graph.successors(node))
        if kind == TERMINAL:
            payoffs = tuple(Fraction(format_number(u)) for u in data["payoffs"])
            label = data.get("outcome") or ""
            key = (label, payoffs)
            if key not in outcome_numbers:
                number = len(outcome_numbers) + 1
                if not label or label in outcome_names:
                    label = f"{label or 'Outcome'} {number}".strip()
                outcome_names.add(label)
                outcome_numbers[key] = (number, f"{number} {quote(label)} {{ "
                                        + ", ".join(format_number(u) for u in payoffs) + " }")
            lines.append(f"t {name} {outcome_numbers[key][1]}")
            continue
        if kind == CHANCE:
            events += 1
            probs = _chance_probabilities(node, [graph.edges[node, c]["prob"] for c in children])
            body = " ".join(f"{quote(graph.edges[node, c]['action'])} {format_number(p)}"
                            for c, p in zip(children, probs))
            lines.append(f"c {name} {events} \"\" {{ {body} }} 0")
        else:
            player = data["player"]
            label = str(data["infoset"])
            pidx = index.players[player]
            actions = pidx.infoset_actions[pidx.infoset_of_label[label]]
            by_action = {str(graph.edges[node, c]["action"]): c for c in children}
            children = [by_action[a] for a in actions]
            number = infoset_numbers[player].setdefault(label, len(infoset_numbers[player]) + 1)
            lines.append(f"p {name} {player + 1} {number} {quote(label)} {{ "
                         + " ".join(quote(a) for a in actions) + " } 0")
        stack.extend(reversed(children))
    return "\n".join(lines) + "\n"


def nfg_text(game: NormalFormGame, form: str = "outcome") -> str:
    """The ``.nfg`` text of ``game``: ``form="outcome"`` (keeps strategy labels) or ``"payoff"``."""
    if not isinstance(game, NormalFormGame):
        raise InvalidGameError(f"cannot write a {type(game).__name__} as an .nfg (it needs a "
                               "NormalFormGame)")
    n, shape = game.num_players, game.shape
    head = (f"NFG 1 R {quote(game.name)} {{ " + " ".join(quote(p) for p in game.player_names)
            + " }")
    profiles = [tuple(format_number(game.payoffs[(i, *np.unravel_index(k, shape, order="F"))])
                      for i in range(n)) for k in range(int(np.prod(shape)))]
    comment = quote(getattr(game, "comment", ""))
    if form == "payoff":
        lines = [head, "{ " + " ".join(str(m) for m in shape) + " }", comment, ""]
        lines.append(" ".join(" ".join(p) for p in profiles))
        return "\n".join(lines) + "\n"
    if form != "outcome":
        raise InvalidGameError(f"unknown .nfg form {form!r}; use 'outcome' or 'payoff'")
    lines = [head, "{"]
    lines += ["{ " + " ".join(quote(a) for a in acts) + " }" for acts in game.actions]
    lines += ["}", comment, "", "{"]
    numbers: dict[tuple, int] = {}
    table = []
    for payoff in profiles:
        number = numbers.get(payoff)
        if number is None:
            number = numbers[payoff] = len(numbers) + 1
            lines.append(f"{{ {quote(f'Outcome {number}')} {', '.join(payoff)} }}")
        table.append(str(number))
    lines.append("}")
    lines.append(" ".join(table))
    return "\n".join(lines) + "\n"


def write_efg(game: Game, path) -> None:
    """Write ``game`` as a Gambit ``.efg`` file."""
    write_text_atomic(path, efg_text(game))


def write_nfg(game: NormalFormGame, path, form: str = "outcome") -> None:
    """Write ``game`` as a Gambit ``.nfg`` file (``form``: ``"outcome"`` or ``"payoff"``)."""
    write_text_atomic(path, nfg_text(game, form))


__all__ = ["parse_efg", "read_efg", "parse_nfg", "read_nfg", "efg_text", "nfg_text", "write_efg",
           "write_nfg", "tokenize", "parse_number", "Token", "unique_labels", "format_number"]
