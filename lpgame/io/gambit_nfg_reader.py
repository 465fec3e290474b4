"""Reading Gambit's strategic-form ``.nfg`` files (``NFG 1 R``) into a :class:`~lpgame.game.NormalFormGame`.

The format is that of the Gambit documentation ("Game representation formats", *The strategic
game (.nfg) file format, payoff version* and *outcome version*; gambitproject.readthedocs.io),
implemented independently from that text: the prologue, then either strategy counts ``{ 3 2 }``
or strategy labels ``{ { "a" "b" "c" } { "x" "y" } }``, an optional comment, then either a flat
payoff list (payoff version) or an outcome list ``{ { "name" u1, u2 } ... }`` followed by one
outcome number per profile (outcome version; 0 is the null outcome). Profiles are listed with
player 1's strategy varying fastest: column-major (Fortran) order over ``(|S_1|, ..., |S_n|)``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from lpgame.errors import GameFileError, InvalidGameError
from lpgame.game.normal_form import NormalFormGame
from lpgame.io.gambit_tokens import (
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
from lpgame.limits import check_prediction

BYTES_PER_NFG_PROFILE = 64   # per player and profile: a list entry, a tuple slot, two object cells


def parse_nfg(text: str, path: str | None = None) -> NormalFormGame:
    """A :class:`~lpgame.game.NormalFormGame` from the text of a Gambit ``.nfg`` file.

    The strategy counts are checked against the memory limit
    (:func:`lpgame.limits.check_prediction`, about 64 bytes per player and profile) before any
    table is allocated, so a file declaring 10⁹ × 10⁹ strategies is refused with
    :class:`~lpgame.errors.ModelTooLargeError` naming the line."""
    s = TokenStream(text, path)
    title, players = read_prologue(s, "NFG", "1")
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
                              f"{show_token(token)}", token.line)
            if s.peek_kind() == STRING:
                s.next("the outcome name")
            values = []
            while True:
                s.skip_commas()
                if s.peek_kind() == RBRACE:
                    s.next("'}'")
                    break
                values.append(s.number(f"a payoff of outcome {len(outcomes) + 1}"))
            outcomes.append(check_payoff_count(s, values, n, f"outcome {len(outcomes) + 1}",
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
        raise s.error(f"unexpected {show_token(token)} after the {profiles} profiles of the table",
                      token.line)
    by_profile = np.array(table, dtype=object).reshape(profiles, n)
    payoffs = np.empty((n, *counts), dtype=object)
    for i in range(n):
        payoffs[i] = by_profile[:, i].reshape(counts, order="F")
    try:
        game = NormalFormGame(payoffs, actions=[unique_labels(a) for a in strategies],
                              name=title or "gambit game",
                              player_names=unique_player_names(players))
    except InvalidGameError as exc:
        raise GameFileError(f"not a valid game: {exc}", path) from None
    game.comment = comment
    return game


def read_nfg(path) -> NormalFormGame:
    """Read a Gambit ``.nfg`` file (see the module docstring)."""
    return parse_nfg(read_game_text(path), str(path))
