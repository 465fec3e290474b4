"""The bulk path of the ``.efg`` reader: a whole Gambit file split by one regular expression, the
tree built with numpy, the work in Python done once per distinct node entry.

The format is Gambit's ``EFG 2 R`` (Gambit documentation, "Game representation formats", *The
extensive game (.efg) file format*; the full description is in :mod:`lpgame.io.gambit`): the nodes
in depth-first preorder, one entry each::

    c "node name" event ["event name" { "action" prob ... }] outcome ["name" { payoffs }]
    p "node name" player infoset ["infoset name" { "action" ... }] outcome ["name" { payoffs }]
    t "node name" outcome ["outcome name" { payoffs }]

Files written by a program repeat the same entry many times (every node of an information set
names the same set; most leaves the same outcome), so the work is split as follows.

1. One ``re.findall`` over the text (C speed) cuts it into entries (their texts); an alternative
   that takes any other character marks text that is not a well-formed entry.
2. Each *distinct* entry text is split into its fields (a second regular expression) and read once,
   in order of first appearance (which is the order of the careful reader's declarations): numbers
   become exact :class:`fractions.Fraction`, each list of labels or numbers is read once however
   many declarations repeat it, and every declaration is checked against the first one of its
   number.
3. The tree's shape follows from the children counts alone
   (:func:`~lpgame.game.flat_bulk.preorder_parents`); the node records are zipped together from
   per-entry columns, and the flat index is built one depth level at a time
   (:func:`~lpgame.game.flat_bulk.index_preorder_arrays`).

The result is the :class:`~lpgame.game.Game` of the careful reader (the same records, labels,
exact payoffs and index arrays). Whatever this path does not handle with certainty (backslash
escapes, a fault of any kind, outcomes on non-terminal nodes, numbers with leading zeros, a
redeclaration spelled differently, a payoff beyond the float range, imperfect recall) makes
:func:`bulk_parse_efg` return ``None``, and the caller reads the text with the other paths of
:mod:`lpgame.io.gambit_efg_reader`, which report every fault with its line.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter

import numpy as np

from lpgame.game.flat_bulk import (
    CHANCE_CODE,
    DECISION_CODE,
    TERMINAL_CODE,
    index_preorder_arrays,
    preorder_parents,
)
from lpgame.game.flat_tree import FlatTree
from lpgame.game.tree import CHANCE, DECISION, TERMINAL, Game
from lpgame.io.gambit_tokens import parse_number, unique_labels, unique_player_names

_S = r'"([^"]*+)"'                                    # a quoted string (no escapes), its body
_L = r'(\{[^{}"]*+(?:"[^"]*+"[^{}"]*+)*+\})'          # a list in braces, braces included
_N = r'(0|[1-9]\d{0,17})(?![^\s{}",])'                # a count, canonical, at most 18 digits
_D = rf'(?:\s*+{_S}\s*+{_L})?'                        # an optional name and list
_KINDS = (rf'(t)\s*+{_S}\s*+{_N}{_D}'                                       # groups 0..4
          rf'|(c)\s*+{_S}\s*+{_N}{_D}\s*+{_N}{_D}'                             # groups 5..12
          rf'|(p)\s*+{_S}\s*+{_N}\s*+{_N}{_D}\s*+{_N}{_D}')                    # groups 13..21
_ENTRY = re.compile(_KINDS + r'|(\S)')                  # one entry's fields; 22: anything else
_ENTRIES = re.compile(r'\s*+(' + re.sub(r'\((?!\?)', '(?:', _KINDS) + r'|\S)')  # whole entries
_LINE = re.compile(rf'\s*+(?:{_KINDS}|(?!)(.))?\s*+')  # a line: one entry or blank (22 unused)
BLANK_CODE = -1
_PROLOGUE = re.compile(rf'\s*+EFG\s++2\s++[RD](?![^\s{{}}",])\s*+{_S}\s*+{_L}(?:\s*+{_S})?')
_LIST_TOKEN = re.compile(r'"([^"]*)"|([^\s{}",]+)')


class _Unusual(Exception):  # noqa: N818  (a signal, not an error)
    """Something the bulk path does not handle: the caller reads the text another way."""


def _labels(raw: str) -> tuple:
    out = []
    for body, atom in _LIST_TOKEN.findall(raw[1:-1]):
        if atom:
            raise _Unusual
        out.append(body)
    return tuple(out)


def _numbers(raw: str) -> tuple:
    out = []
    for _body, atom in _LIST_TOKEN.findall(raw[1:-1]):
        value = parse_number(atom) if atom else None
        if value is None:
            raise _Unusual
        out.append(value)
    return tuple(out)


def _event(raw: str) -> tuple:
    """(labels as written, probabilities, labels made unique, float probabilities) of a chance
    event's list; non-negative probabilities that sum to exactly 1."""
    tokens = _LIST_TOKEN.findall(raw[1:-1])
    if not tokens or len(tokens) % 2:
        raise _Unusual
    labels, probs = [], []
    for k in range(0, len(tokens), 2):
        (label, atom), (_, number) = tokens[k], tokens[k + 1]
        value = parse_number(number) if number else None
        if atom or value is None or value < 0:
            raise _Unusual
        labels.append(label)
        probs.append(value)
    if sum(probs) != 1:
        raise _Unusual
    return tuple(labels), tuple(probs), tuple(unique_labels(labels)), tuple(map(float, probs))


def _infoset(raw: str) -> tuple:
    labels = _labels(raw)
    if not labels:
        raise _Unusual
    return labels, tuple(unique_labels(labels))


class _Reader:
    """The declarations met so far; :meth:`entry` reads one distinct entry into a row."""

    def __init__(self, num_players: int):
        self.n = num_players
        self.zero = ((parse_number("0"),) * num_players, (0.0,) * num_players)
        self.outcomes: dict[int, tuple] = {}     # number -> (name, raw, payoffs, floats)
        self.events: dict[int, tuple] = {}       # number -> (name, raw, parsed event)
        self.infosets: dict[tuple, list] = {}    # (player, number) -> [name, raw, parsed, id]
        self.set_keys: list[tuple] = []          # information sets in order of first appearance
        self.event_memo: dict[str, tuple] = {}   # list text -> its parsed content
        self.infoset_memo: dict[str, tuple] = {}

    def outcome(self, number_text: str, name: str, raw: str) -> tuple | None:
        """(name, raw, payoffs, floats) of an outcome, None for outcome 0."""
        number = int(number_text)
        known = self.outcomes.get(number)
        if not raw:
            if number == 0:
                return None
            if known is None:
                raise _Unusual
            return known
        if number == 0:
            raise _Unusual
        if known is None:
            payoffs = _numbers(raw)
            if len(payoffs) != self.n:
                raise _Unusual
            try:
                floats = tuple(map(float, payoffs))
            except OverflowError:
                raise _Unusual from None
            known = self.outcomes[number] = (name, raw, payoffs, floats)
        elif known[0] != name or known[1] != raw:
            raise _Unusual
        return known

    def entry(self, g: tuple) -> tuple:
        """One distinct entry (the groups of :data:`_ENTRY`) as a row ``(kind, children, record
        fields after parent and position, attributes, information set, floats)``; the floats are
        a leaf's payoffs or a chance node's probabilities."""
        if g[0]:                                                   # terminal
            name = g[1]
            attrs = {"label": name} if name else None
            outcome = None if g[2] == "0" and not g[4] else self.outcome(g[2], g[3], g[4])
            if outcome is None:
                values, floats = self.zero
            else:
                _, _, values, floats = outcome
                attrs = attrs or {}
                attrs["outcome"] = outcome[0]
            return TERMINAL_CODE, 0, (TERMINAL, (), values, None, None), attrs, -1, floats
        if g[5]:                                                   # chance
            number, ename, raw = int(g[7]), g[8], g[9]
            if number < 1 or not (g[10] == "0" and not g[12]):
                raise _Unusual
            known = self.events.get(number)
            if not raw:
                if known is None:
                    raise _Unusual
            elif known is None:
                parsed = self.event_memo.get(raw)
                if parsed is None:
                    parsed = self.event_memo[raw] = _event(raw)
                known = self.events[number] = (ename, raw, parsed)
            elif known[0] != ename or known[1] != raw:
                raise _Unusual
            _, probs, labels, floats = known[2]
            return (CHANCE_CODE, len(labels), (CHANCE, labels, probs, None, None),
                    {"label": g[6]} if g[6] else None, -1, floats)
        if g[13]:                                                  # personal
            player, number, iname, raw = int(g[15]), int(g[16]), g[17], g[18]
            if not 1 <= player <= self.n or number < 1 or not (g[19] == "0" and not g[21]):
                raise _Unusual
            key = (player, number)
            known = self.infosets.get(key)
            if not raw:
                if known is None:
                    raise _Unusual
            elif known is None:
                parsed = self.infoset_memo.get(raw)
                if parsed is None:
                    parsed = self.infoset_memo[raw] = _infoset(raw)
                known = self.infosets[key] = [iname, raw, parsed, len(self.set_keys)]
                self.set_keys.append(key)
            elif known[0] != iname or known[1] != raw:
                raise _Unusual
            labels = known[2][1]
            return (DECISION_CODE, len(labels), (DECISION, labels, None, player - 1, key),
                    {"label": g[14]} if g[14] else None, known[3], None)
        if g[22] is not None:                                      # anything else
            raise _Unusual
        return BLANK_CODE, 0, (None,) * 5, None, -1, None          # a blank line


def bulk_parse_efg(text: str) -> Game | None:
    """The game of a well-formed ``.efg`` text (module docstring), or None where the text is
    anything this path does not handle with certainty."""
    if "\\" in text:
        return None
    head = _PROLOGUE.match(text)
    if head is None:
        return None
    try:
        players = _labels(head.group(2))
        if not players:
            return None
        return _build(text, head, players)
    except _Unusual:
        return None


def _build(text: str, head, players: tuple) -> Game | None:
    n = len(players)
    title, comment = head.group(1), head.group(3) or ""
    # one entry per line (how programs write the format): the lines split in C, each distinct
    # line matched once; otherwise the entries cut out of the text by one findall
    entries = text[head.end():].split("\n")
    first: dict[str, int] = {}          # entry text -> the node of its first appearance
    firsts = np.fromiter(map(first.setdefault, entries, itertools.count()), dtype=np.int64,
                         count=len(entries))
    matches = list(map(_LINE.fullmatch, first))
    if None in matches:
        entries = _ENTRIES.findall(text, head.end())
        first = {}
        firsts = np.fromiter(map(first.setdefault, entries, itertools.count()), dtype=np.int64,
                             count=len(entries))
        matches = list(map(_ENTRY.fullmatch, first))
    reader = _Reader(n)
    # each distinct entry read once, in order of first appearance (declarations before uses)
    rows = list(map(reader.entry, map(re.Match.groups, matches)))
    kinds, arities, tails, attrs, sets, floats = zip(*rows)
    row = np.zeros(len(entries), dtype=np.int64)
    row[np.fromiter(first.values(), dtype=np.int64, count=len(first))] = np.arange(len(first))
    row_kind = np.array(kinds, dtype=np.int8)
    ids = row[firsts]
    ids = ids[row_kind[ids] != BLANK_CODE]
    if not ids.size:
        return None
    ids_list = ids.tolist()
    kind = row_kind[ids]
    shape = preorder_parents(np.array(arities, dtype=np.int64)[ids])
    if shape is None:
        return None
    parent, position = shape

    # the records: per-entry fields (information sets labelled as the careful reader does)
    set_label = _set_labels(reader.infosets)
    tails = [t if t[0] != DECISION else t[:4] + (set_label[t[4]],) for t in tails]
    records = list(zip(parent.tolist(), position.tolist(), *zip(*map(tails.__getitem__, ids_list))))
    node_attrs = {}
    marked = np.fromiter((a is not None for a in attrs), dtype=bool, count=len(attrs))
    if marked.any():
        nodes = np.flatnonzero(marked[ids])
        node_attrs = dict(zip(nodes.tolist(), map(dict.copy, map(attrs.__getitem__,
                                                                 ids[nodes].tolist()))))
    tree = FlatTree(records, node_attrs, {"title": title, "comment": comment})

    # the chance probability of each edge, the leaves' payoffs
    chance_rows = np.flatnonzero(row_kind == CHANCE_CODE).tolist()
    sizes = np.zeros(len(rows), dtype=np.int64)
    sizes[chance_rows] = np.array(arities, dtype=np.int64)[chance_rows]
    offsets = np.cumsum(sizes) - sizes
    flat = np.array([p for k in chance_rows for p in floats[k]], dtype=float)
    edge_prob = np.ones(parent.size, dtype=float)
    below = np.flatnonzero(kind[parent] == CHANCE_CODE)
    below = below[below > 0]
    edge_prob[below] = flat[offsets[ids[parent[below]]] + position[below]]
    leaves = np.flatnonzero(kind == TERMINAL_CODE)
    leaf_rows = ids[leaves].tolist()
    zero = (0.0,) * n
    payoff_table = np.array([f if k == TERMINAL_CODE else zero for k, f in zip(kinds, floats)],
                            dtype=float).reshape(-1, n)
    values = [t[2] for t in tails]
    index = index_preorder_arrays(
        tree, n, parent, position, kind, np.array(sets, dtype=np.int64)[ids],
        np.array([key[0] - 1 for key in reader.set_keys], dtype=np.int64),
        [set_label[key] for key in reader.set_keys],
        [reader.infosets[key][2][1] for key in reader.set_keys],
        edge_prob, payoff_table[ids[leaves]], list(map(values.__getitem__, leaf_rows)))
    if index is None:
        return None
    return Game.from_flat_tree(tree, n, name=title or "gambit game",
                               player_names=unique_player_names(players), index=index)


_FALLBACK = re.compile(r"P([1-9]\d*):([1-9]\d*)")


def _set_labels(infosets: dict) -> dict:
    """lpgame's label of each information set ``(player, number)``: the rule of
    :func:`~lpgame.io.gambit_efg_reader.infoset_labels` (its name when non-empty, used by no other
    set and not some set's ``P<player>:<number>``, else ``P<player>:<number>``), with the names
    counted in C and only the names that look like ``P<player>:<number>`` checked one by one."""
    names = [decl[0] for decl in infosets.values()]
    count = Counter(names)
    taken = set()
    for name in count:
        match = _FALLBACK.fullmatch(name) if name[:1] == "P" else None
        if match and (int(match.group(1)), int(match.group(2))) in infosets:
            taken.add(name)
    return {key: name if name and count[name] == 1 and name not in taken else f"P{key[0]}:{key[1]}"
            for key, name in zip(infosets, names)}


__all__ = ["bulk_parse_efg"]
