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

import networkx as nx

from lpgame.errors import GameFileError, InvalidGameError
from lpgame.game.tree import CHANCE, DECISION, TERMINAL, Game
from lpgame.io.gambit_tokens import (
    ATOM,
    LBRACE,
    RBRACE,
    STRING,
    TokenStream,
    check_payoff_count,
    read_game_text,
    read_prologue,
    show_token,
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
        title, players = read_prologue(s, "EFG", "2")
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
            raise s.error(f"unexpected {show_token(token)} after the last node (the tree is "
                          "complete)", token.line)
        self._label_infosets()
        self.graph.graph.update(title=title, comment=comment)
        try:
            return Game(self.graph, self.num_players, root=0, name=title or "gambit game",
                        player_names=unique_player_names(players))
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
    return parse_efg(read_game_text(path), str(path))
