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

The code is split by responsibility and this module offers all of it under one name:
:mod:`lpgame.io.gambit_tokens` (tokens, exact numbers, the parser's cursor),
:mod:`lpgame.io.gambit_efg_reader` (with its bulk path for large files,
:mod:`lpgame.io.gambit_efg_fast`), :mod:`lpgame.io.gambit_nfg_reader` and
:mod:`lpgame.io.gambit_writer`.

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

from lpgame.io.gambit_efg_reader import parse_efg, read_efg
from lpgame.io.gambit_nfg_reader import BYTES_PER_NFG_PROFILE as BYTES_PER_NFG_PROFILE
from lpgame.io.gambit_nfg_reader import parse_nfg, read_nfg
from lpgame.io.gambit_tokens import ATOM as ATOM
from lpgame.io.gambit_tokens import COMMA as COMMA
from lpgame.io.gambit_tokens import LBRACE as LBRACE
from lpgame.io.gambit_tokens import MAX_COUNT_DIGITS as MAX_COUNT_DIGITS
from lpgame.io.gambit_tokens import MAX_DECIMAL_EXPONENT as MAX_DECIMAL_EXPONENT
from lpgame.io.gambit_tokens import RBRACE as RBRACE
from lpgame.io.gambit_tokens import STRING as STRING
from lpgame.io.gambit_tokens import Token, parse_number, tokenize, unique_labels
from lpgame.io.gambit_tokens import TokenStream as TokenStream
from lpgame.io.gambit_writer import efg_text, format_number, nfg_text, write_efg, write_nfg
from lpgame.io.gambit_writer import quote as quote

# ``import *`` gives the names it gave before the split; the ``X as X`` imports above are the other
# public names of the old module, still importable from here
__all__ = ["parse_efg", "read_efg", "parse_nfg", "read_nfg", "efg_text", "nfg_text", "write_efg",
           "write_nfg", "tokenize", "parse_number", "Token", "unique_labels", "format_number"]
