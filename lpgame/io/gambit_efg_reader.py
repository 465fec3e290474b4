"""Reading Gambit's extensive-form ``.efg`` files (``EFG 2 R``) into a :class:`~lpgame.game.Game`.

The format is that of the Gambit documentation ("Game representation formats", *The extensive
game (.efg) file format*; gambitproject.readthedocs.io), implemented independently from that text
(the full description, with the labels kept and the faults refused, is in :mod:`lpgame.io.gambit`):
the prologue, then the nodes in prefix (depth-first, first child first) order::

    c "node name" event ["event name" { "action" prob ... }] outcome ["name" { payoffs }]
    p "node name" player infoset ["infoset name" { "action" ... }] outcome ["name" { payoffs }]
    t "node name" outcome ["outcome name" { payoffs }]

A chance node has one child per action of its event, a personal node one per action of its
information set; a bracketed description may be left out where it appeared before and must match
it when repeated. Outcome 0 is the null outcome; a leaf's payoff is the sum of the outcomes on its
path (Gambit's incremental payoffs). Nodes are numbered 0, 1, ... in file order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from numbers import Rational

from lpgame.errors import GameFileError, InvalidGameError
from lpgame.game.flat_tree import FlatTree, paused_gc
from lpgame.game.tree import CHANCE, DECISION, TERMINAL, Game
from lpgame.io.gambit_efg_fast import bulk_parse_efg
from lpgame.io.gambit_tokens import (
    ATOM,
    LBRACE,
    RBRACE,
    STRING,
    TokenStream,
    check_payoff_count,
    parse_number,
    read_game_text,
    read_prologue,
    show_token,
    unescape,
    unique_labels,
    unique_player_names,
)


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
        self.records: list[tuple] = []        # FlatTree records, infosets as (player, number)
        self.node_attrs: dict[int, dict] = {}
        self.node_line: list[int] = []
        self.outcomes: dict[int, _Declaration] = {}
        self.events: dict[int, _Declaration] = {}
        self.infosets: dict[tuple[int, int], _Declaration] = {}

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
            payoffs = check_payoff_count(s, s.number_list(f"the payoffs of outcome {number}"),
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
                raise s.error(f"expected a quoted chance action label, found {show_token(token)} "
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
                raise s.error(f"chance event {number}: probability {_fmt_number(p)} of {label!r} is "
                              "negative", line)
        total = sum(probs)
        if total != 1:
            raise s.error(f"chance event {number}: the probabilities {_fmt_tuple(probs)} sum "
                          f"to {_fmt_number(total)}, not 1", line)
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
    def _node(self, accumulated: tuple | None, parent: int, position: int):
        """Read one node, the child ``position`` of ``parent``, and record it; returns (node id,
        child labels, child probabilities, payoffs so far)."""
        s = self.stream
        token = s.next("a node (c, p or t)")
        if token.kind != ATOM or token.text not in ("c", "p", "t"):
            raise s.error(f"unknown node type {show_token(token)}: a node starts with c (chance), "
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
            if attrs:
                self.node_attrs[node] = attrs
            self.records.append((parent, position, TERMINAL, (), total, None, None))
            return node, (), None, None
        if attrs:
            self.node_attrs[node] = attrs
        if token.text == "c":
            event = self._chance_event()
            labels, probs = event.labels, event.content[1]
            self.records.append((parent, position, CHANCE, labels, probs, None, None))
        else:
            player_line = s.line
            player = s.integer("the player number", minimum=1)
            if player > self.num_players:
                raise s.error(f"player {player} does not exist: the game has "
                              f"{self.num_players} players", player_line)
            number, infoset = self._infoset(player)
            labels, probs = infoset.labels, None
            self.records.append((parent, position, DECISION, labels, None, player - 1,
                                 (player, number)))
        _, payoffs = self._outcome()
        return node, labels, probs, _add(accumulated, payoffs)

    def parse(self) -> Game:
        s = self.stream
        title, players = read_prologue(s, "EFG", "2")
        self.num_players = len(players)
        comment = s.string("the comment") if s.peek_kind() == STRING else ""
        if s.at_end():
            raise s.error("the file ends early: the game tree has no nodes")
        root, labels, probs, acc = self._node(None, -1, 0)
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
            child, child_labels, child_probs, child_acc = self._node(acc, node, k)
            top[3] = k + 1
            if child_labels:
                pending.append([child, child_labels, child_probs, 0, child_acc])
        if not s.at_end():
            token = s.peek()
            raise s.error(f"unexpected {show_token(token)} after the last node (the tree is "
                          "complete)", token.line)
        tree = FlatTree(label_infosets(self.records, infoset_labels(self.infosets)),
                        self.node_attrs, {"title": title, "comment": comment})
        try:
            return Game.from_flat_tree(tree, self.num_players, name=title or "gambit game",
                                       player_names=unique_player_names(players))
        except InvalidGameError as exc:
            raise self._located(exc) from None

    def _located(self, exc: InvalidGameError) -> GameFileError:
        """A validation error of the built game, with the file line of the node it names."""
        message = str(exc)
        match = re.search(r"node (\d+)", message)
        line = None
        if match and int(match.group(1)) < len(self.node_line):
            line = self.node_line[int(match.group(1))]
            message += " (nodes are numbered 0, 1, ... in file order)"
        return GameFileError(f"not a valid game: {message}", self.path, line)


def infoset_labels(infosets: dict) -> dict:
    """lpgame's label of each information set ``(player, number)`` (1-based): its name when no
    other set has it, else ``P<player>:<number>``; ``infosets`` maps the keys to declarations
    with a ``name``."""
    by_name: dict[str, set] = {}
    for key, decl in infosets.items():
        if decl.name:
            by_name.setdefault(decl.name, set()).add(key)
    fallback = {f"P{p}:{k}" for p, k in infosets}
    labels = {}
    for (p, k), decl in infosets.items():
        unique = decl.name and len(by_name[decl.name]) == 1 and decl.name not in fallback
        labels[(p, k)] = decl.name if unique else f"P{p}:{k}"
    return labels


def label_infosets(records: list[tuple], labels: dict) -> list[tuple]:
    """The records with each decision node's ``(player, number)`` key replaced by its label."""
    return [r if r[2] != DECISION else r[:6] + (labels[r[6]],) for r in records]


def _add(a: tuple | None, b: tuple | None) -> tuple | None:
    if a is None:
        return b
    if b is None:
        return a
    return tuple(x + y for x, y in zip(a, b))


# ----------------------------------------------------------------------------------------------
# the fast path: whole node entries matched by one regular expression each

_S = r'"((?:[^"\\]++|\\.)*+)"'                                 # a quoted string, its body captured
_END = r'(?![^\s{}",])'                                        # an atom ends here
_LIST = r'\{((?:\s*+(?:"(?:[^"\\]++|\\.)*+"|[^\s{}",]++|,))*+)\s*+\}'  # well-formed tokens in braces
_OUTCOME = rf'(\d{{1,18}}){_END}(?:\s*+{_S}\s*+{_LIST})?'
_PROLOGUE = re.compile(rf'\s*+EFG\s++2\s++[RD]{_END}\s*+{_S}\s*+{_LIST}(?:\s*+{_S})?', re.DOTALL)
_NUMBER = rf'(\d{{1,18}}){_END}'                               # a count: 18 digits at most
_DESCRIBED = rf'(?:\s*+{_S}\s*+{_LIST})?'                      # an optional name and list
_NODE = re.compile(                                            # possessive: no backtracking
    rf'\s*+(?:t\s*+{_S}\s*+{_OUTCOME}'                                          # g[0:4]
    rf'|c\s*+{_S}\s*+{_NUMBER}{_DESCRIBED}\s*+{_OUTCOME}'                        # g[4:11]
    rf'|p\s*+{_S}\s*+{_NUMBER}\s*+{_NUMBER}{_DESCRIBED}\s*+{_OUTCOME})',         # g[11:19]
    re.DOTALL)
_LIST_TOKEN = re.compile(r'"((?:[^"\\]|\\.)*)"|([^\s{}",]+)', re.DOTALL)


class _UnusualError(Exception):
    """Something the fast path does not handle: the careful parser reads the file instead."""


@dataclass
class _FastDeclaration:
    name: str
    raw: str
    content: tuple
    labels: tuple = ()


def _strings(raw: str) -> tuple:
    out = []
    for body, atom in _LIST_TOKEN.findall(raw):
        if atom:
            raise _UnusualError
        out.append(unescape(body))
    return tuple(out)


def _numbers(raw: str) -> tuple:
    out = []
    for _body, atom in _LIST_TOKEN.findall(raw):
        value = parse_number(atom) if atom else None
        if value is None:
            raise _UnusualError
        out.append(value)
    return tuple(out)


def _fast_parse(text: str) -> Game:
    """The game of a well-formed ``.efg`` text, each node entry matched whole by a regular
    expression; anything unusual (a fault, an odd but valid spelling) raises :class:`_UnusualError`
    and :func:`parse_efg` reads the file with the careful token parser, which gives the same game
    or the located fault."""
    head = _PROLOGUE.match(text)
    if head is None:
        raise _UnusualError
    title, players = unescape(head.group(1)), _strings(head.group(2))
    comment = unescape(head.group(3)) if head.group(3) is not None else ""
    n = len(players)
    if not n:
        raise _UnusualError
    outcomes: dict[int, _FastDeclaration] = {}
    events: dict[int, _FastDeclaration] = {}
    infosets: dict[tuple[int, int], _FastDeclaration] = {}
    records: list[tuple] = []
    record = records.append
    node_attrs: dict[int, dict] = {}
    match = _NODE.match

    def outcome(number_text, name, raw):
        number = int(number_text)
        known = outcomes.get(number)
        if name is None:
            if number == 0:
                return 0, None
            if known is None:
                raise _UnusualError
            return number, known.content
        if number == 0:
            raise _UnusualError
        name = unescape(name)
        if known is None:
            payoffs = _numbers(raw)
            if len(payoffs) != n:
                raise _UnusualError
            outcomes[number] = known = _FastDeclaration(name, raw, payoffs)
        elif known.raw != raw or known.name != name:
            raise _UnusualError
        return number, known.content

    def declared(table, memo, key, name, raw, read):
        known = table.get(key)
        if name is None:
            if known is None:
                raise _UnusualError
            return known
        name = unescape(name)
        if known is None:
            parsed = memo.get(raw)          # the same list text declares the same content
            if parsed is None:
                parsed = memo[raw] = read(raw)
            table[key] = known = _FastDeclaration(name, raw, *parsed)
            return known
        if known.raw != raw or known.name != name:
            raise _UnusualError
        return known

    def event_content(raw):
        tokens = _LIST_TOKEN.findall(raw)
        if not tokens or len(tokens) % 2:
            raise _UnusualError
        labels, probs = [], []
        for k in range(0, len(tokens), 2):
            (label, atom), (_, number) = tokens[k], tokens[k + 1]
            value = parse_number(number) if number else None
            if atom or value is None or value < 0:
                raise _UnusualError
            labels.append(unescape(label))
            probs.append(value)
        if sum(probs) != 1:
            raise _UnusualError
        return (tuple(labels), tuple(probs)), tuple(unique_labels(labels))

    def infoset_content(raw):
        labels = _strings(raw)
        if not labels:
            raise _UnusualError
        return labels, tuple(unique_labels(labels))

    event_memo: dict[str, tuple] = {}
    infoset_memo: dict[str, tuple] = {}

    pos = head.end()
    pending: list[list] = []        # [node, number of children, next child, accumulated payoffs]
    parent, position, acc = -1, 0, None
    while True:
        m = match(text, pos)
        if m is None:
            raise _UnusualError
        pos = m.end()
        node = len(records)
        g = m.groups()
        if g[0] is not None:                                   # terminal
            if g[0]:
                node_attrs[node] = {"label": unescape(g[0])}
            if g[2] is None and g[1] == "0":
                number, payoffs = 0, None
            else:
                number, payoffs = outcome(g[1], g[2], g[3])
            total = _add(acc, payoffs)
            if total is None:
                total = (Fraction(0),) * n
            if number:
                node_attrs.setdefault(node, {})["outcome"] = outcomes[number].name
            record((parent, position, TERMINAL, (), total, None, None))
            children = 0
        elif g[4] is not None:                                 # chance
            if g[4]:
                node_attrs[node] = {"label": unescape(g[4])}
            event_number = int(g[5])
            if event_number < 1:
                raise _UnusualError
            event = declared(events, event_memo, event_number, g[6], g[7], event_content)
            record((parent, position, CHANCE, event.labels, event.content[1], None, None))
            payoffs = None if g[9] is None and g[8] == "0" else outcome(g[8], g[9], g[10])[1]
            children = len(event.labels)
        else:                                                  # personal
            if g[11]:
                node_attrs[node] = {"label": unescape(g[11])}
            player, number = int(g[12]), int(g[13])
            if not 1 <= player <= n or number < 1:
                raise _UnusualError
            infoset = declared(infosets, infoset_memo, (player, number), g[14], g[15],
                               infoset_content)
            record((parent, position, DECISION, infoset.labels, None, player - 1,
                    (player, number)))
            payoffs = None if g[17] is None and g[16] == "0" else outcome(g[16], g[17], g[18])[1]
            children = len(infoset.labels)
        if children:
            pending.append([node, children, 0, _add(acc, payoffs)])
        while pending and pending[-1][2] == pending[-1][1]:
            pending.pop()
        if not pending:
            break
        top = pending[-1]
        parent, position, acc = top[0], top[2], top[3]
        top[2] += 1
    if text[pos:].strip():
        raise _UnusualError
    tree = FlatTree(label_infosets(records, infoset_labels(infosets)), node_attrs,
                    {"title": title, "comment": comment})
    try:
        return Game.from_flat_tree(tree, n, name=title or "gambit game",
                                   player_names=unique_player_names(players))
    except InvalidGameError:
        raise _UnusualError from None


def _fmt_tuple(values) -> str:
    return "(" + ", ".join(_fmt_number(v) for v in values) + ")"


def _fmt_number(value) -> str:
    """A number for a message; one too long to print (Python converts at most 4,300 digits) is
    described by its size."""
    if isinstance(value, Rational) and max(abs(value.numerator), value.denominator).bit_length() > 3000:
        return f"(a number of about {int(abs(value.numerator).bit_length() * 0.30103) + 1} digits)"
    return str(value)


BULK_MIN_CHARS = 16_384
"""Texts of at least this many characters try the bulk path first; below, its numpy steps cost
more than they save (about 500 nodes written by ``efg_text``)."""


def parse_efg(text: str, path: str | None = None) -> Game:
    """A :class:`~lpgame.game.Game` from the text of a Gambit ``.efg`` file: the bulk path
    (:mod:`lpgame.io.gambit_efg_fast`, texts of :data:`BULK_MIN_CHARS` or more), else the fast path
    (each node entry matched whole), else the careful token parser where both find anything unusual
    (so every fault is reported by the careful parser, with its line)."""
    try:
        with paused_gc():
            game = bulk_parse_efg(text) if len(text) >= BULK_MIN_CHARS else None
            return game if game is not None else _fast_parse(text)
    except Exception:   # noqa: BLE001  (_UnusualError, or anything else: the careful parser decides)
        return _EfgParser(text, path).parse()


def read_efg(path) -> Game:
    """Read a Gambit ``.efg`` file (see the module docstring)."""
    return parse_efg(read_game_text(path), str(path))
