"""The registry of solution concepts: each concept module declares one :class:`Concept` and
registers it; :func:`lpgame.solve` and the ``lpgame`` command dispatch through it.

A concept entry says

- ``name``: what the user asks for (``concept="nash"``); several entries may share a name when
  they solve the same concept on different games or by different methods (``variant``), for
  example ``nash`` on two-player zero-sum games (the sequence-form LP) and ``nash`` on two-player
  general-sum games (Lemke's algorithm on the sequence-form LCP);
- ``games``: the games it accepts, a tuple of :data:`GAME_CLASSES`;
- ``options``: its options with types and defaults (:class:`Option`); the CLI turns each into a
  flag (``max_profiles`` → ``--max-profiles``);
- ``solve``: ``solve(game, *, exact, backend, **options) -> result``, where ``game`` is what the
  user passed (a catalog name or file already loaded, a normal-form game kept as such), to be
  compiled with :func:`lpgame.compile.compile_game` where the concept needs the sequence form;
- ``certificate``: in words, the deviations whose largest gain the result's certificate reports,
  computed by :mod:`lpgame.analysis`, independently of the formulation;
- ``source``: paper and section of the formulation;
- ``certify_plans``: for concepts whose answer is a profile of realization plans, the certificate
  recomputed from plans in any game; with it, ``abstraction="gameshrink"`` can wrap the concept
  (solve the abstract game, lift the plans, certify in the original game);
- ``value_only``: ``value_only(game, exact)``, the concept's value alone (no strategies, no
  certificate), for game models whose payoffs are values of smaller games (Dudo's
  continuation values, :func:`lpgame.games.dudo.dudo_value`), which sit below the concepts and so
  reach them through :func:`solve_value`;
- ``requires``: options that select this entry: ``"enumerate"`` (given, not None or False) or
  ``"method=learning"`` (given with that value);
- ``reads_source``: the entry solves the game from its *source*, what the user passed (a rules
  object such as an ordered-signal game, a catalog name with its parameters, a file path), and
  never has its tree expanded: the showdown-operator LP of an ordered-signal game reads the
  deck, the betting rounds and the strength order, and builds no leaf. Such an entry is chosen
  before the game is built (:func:`source_entry`), from the concept's name and the options given
  alone; it refuses a source it cannot read with :class:`~lpgame.errors.InvalidGameError`.

Dispatch (:func:`select`): among the entries of the asked name, those that accept the game's class
and whose ``requires`` options are all given, the most specific first (an entry that needs options
over one that needs none, a narrower game class over a wider one). Unknown options and options of
the wrong type raise :class:`~lpgame.errors.OptionError`; a game that no entry of the name accepts
raises :class:`~lpgame.errors.ConceptMismatchError` naming the concepts that do accept it.

The flow stays one-way for entries that read the source: :func:`lpgame.solve` (and the ``lpgame
solve`` command) first asks :func:`source_entry` whether the options select such an entry; if
one does, the game goes to it as given, and its result and certificate are returned as any other;
otherwise the game is loaded, expanded and classified, and :func:`select` chooses among the
entries. Neither names a concept or a method: the entry's own ``reads_source`` and ``requires``
decide.

A concept module ends with ``register(Concept(...))``. The modules of :mod:`lpgame.equilibria`
are imported by :func:`lpgame.api.load_concepts` (every module of the package, found by
``pkgutil``), so a new concept is one new module and no edit elsewhere.

>>> from lpgame.registry import Concept, Option, register, concept_names
>>> toy = Concept(name="toy", games=("zero_sum",), solve=lambda game, **kw: None,
...               summary="a toy", certificate="none", source="-",
...               options=(Option("rounds", int, 3, "how many rounds"),))
>>> register(toy) is toy
True
>>> "toy" in concept_names()
True
>>> unregister("toy")
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field

from lpgame.errors import ConceptMismatchError, OptionError, did_you_mean

#: The classes of games a concept can accept, from the narrowest.
#: ``zero_sum``: two players, constant-sum payoffs; ``general_sum``: two players, any payoffs (so
#: zero-sum games too); ``n_player``: any number of players; ``normal_form``: a game given in
#: normal (strategic) form; ``team``: a team of players against the others (needs ``team=``).
GAME_CLASSES = ("zero_sum", "general_sum", "n_player", "normal_form", "team")

_CLASS_WORDS = {"zero_sum": "two-player zero-sum", "general_sum": "two-player (general-sum)",
                "n_player": "any number of players", "normal_form": "normal form",
                "team": "a team against an opponent"}

#: Options every concept takes; handled by :func:`lpgame.solve` and passed on to the backend.
SOLVER_OPTIONS = ("solver", "time_limit", "threads", "highs_options", "presolve", "tolerance",
                  "memory_limit", "crossover", "clarabel_options", "verbose")


@dataclass(frozen=True)
class Option:
    """One option of a concept: its name, type, default and help text.

    ``type`` is ``bool``, ``int``, ``float``, ``str``, ``tuple`` (a comma-separated list on the
    command line) or ``object`` (anything; ``parse`` turns the command-line string into a value).
    ``choices`` restricts a ``str`` option. ``minimum`` is the smallest value a number may take
    (1 for counts and limits: a limit of 0 pivots or columns means nothing). ``cli=False`` keeps it
    off the command line; ``flag`` names its command-line flag when the default (``--`` + name with
    dashes) does not fit.
    """

    name: str
    type: type
    default: object = None
    help: str = ""
    choices: tuple | None = None
    parse: Callable[[str], object] | None = None
    cli: bool = True
    flag: str | None = None
    minimum: float | None = None

    @property
    def cli_flag(self) -> str:
        """The command-line flag: ``flag`` when given (``--all``), else ``--`` + the name with
        dashes (``max_profiles`` → ``--max-profiles``)."""
        return self.flag or "--" + self.name.replace("_", "-")

    def check(self, value, concept: str):
        """``value`` converted to this option's type, or :class:`OptionError` naming it."""
        if value is None:
            return None
        where = f"option {self.name!r} of concept {concept!r}"
        if self.choices is not None and value not in self.choices:
            raise OptionError(f"unknown {self.name} {show_value(value)} for concept {concept!r}"
                              f"{did_you_mean(value, self.choices)}; choose one "
                              f"of {', '.join(map(str, self.choices))}")
        if self.type is bool:
            if isinstance(value, bool):
                return value
            raise OptionError(f"{where} must be True or False; got {show_value(value)}")
        if self.type is int:
            if isinstance(value, numbers.Integral) and not isinstance(value, bool):
                return self._at_least_minimum(int(value), where)
            raise OptionError(f"{where} must be an integer; got {show_value(value)}")
        if self.type is float:
            if isinstance(value, numbers.Real) and not isinstance(value, bool) \
                    and math.isfinite(float(value)):
                return self._at_least_minimum(value, where)
            raise OptionError(f"{where} must be a finite number; got {show_value(value)}")
        if self.type is str:
            if isinstance(value, str):
                return value
            raise OptionError(f"{where} must be a string; got {show_value(value)}")
        if self.type is tuple:
            if isinstance(value, (tuple, list)):
                return tuple(value)
            raise OptionError(f"{where} must be a tuple; got {show_value(value)}")
        return value

    def _at_least_minimum(self, value, where: str):
        if self.minimum is not None and value < self.minimum:
            raise OptionError(f"{where} must be at least {show_value(self.minimum)}; got "
                              f"{show_value(value)}")
        return value

    def from_text(self, text: str, concept: str):
        """The value of a command-line string."""
        if self.parse is not None:
            return self.parse(text)
        try:
            if self.type is int:
                return int(text)
            if self.type is float:
                return float(text)
            if self.type is tuple:
                return tuple(_number(t) for t in text.split(","))
        except ValueError:
            raise OptionError(f"--{self.name.replace('_', '-')} of concept {concept!r} "
                              f"must be {_type_words(self.type)}; got {text!r}") from None
        return text


@dataclass(frozen=True)
class Concept:
    """One registered solution concept (see the module docstring)."""

    name: str
    games: tuple[str, ...]
    solve: Callable
    summary: str
    certificate: str
    source: str
    options: tuple[Option, ...] = ()
    variant: str = "default"
    requires: tuple[str, ...] = ()
    certify_plans: Callable | None = None
    value_only: Callable | None = None
    exact: bool = True
    backends: tuple[str, ...] = ("highs", "pyomo", "cvxpy")
    #: HiGHS methods (the ``solver`` option: simplex, ipm, pdlp, ...) the concept can use; None: any,
    #: ``()``: it chooses its own and refuses a ``solver`` option
    solvers: tuple[str, ...] | None = None
    #: the entry takes the game as the user gave it, not expanded (module docstring)
    reads_source: bool = False
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        unknown = [g for g in self.games if g not in GAME_CLASSES]
        if unknown:
            raise ValueError(f"concept {self.name!r}: unknown game classes {unknown}; "
                             f"choose from {GAME_CLASSES}")

    @property
    def liftable(self) -> bool:
        """Whether ``abstraction=`` can wrap this concept: its certificate can be recomputed from
        realization plans in another game (``certify_plans(sf, plans, exact, result)`` returns the
        values and the :class:`~lpgame.result.Certificate` there)."""
        return self.certify_plans is not None

    @property
    def key(self) -> tuple[str, str]:
        return (self.name, self.variant)

    def option(self, name: str) -> Option | None:
        return next((o for o in self.options if o.name == name), None)

    def accepts(self, info: GameInfo) -> bool:
        """Whether this concept applies to a game of these properties."""
        if "normal_form" in self.games and not info.normal_form and len(self.games) == 1:
            return False
        if "team" in self.games:
            return info.players >= 2
        if "n_player" in self.games:
            return True
        if info.players != 2:
            return False
        if "general_sum" in self.games:
            return True
        if "zero_sum" in self.games:
            return info.zero_sum
        return "normal_form" in self.games and info.normal_form

    def games_text(self) -> str:
        return ", ".join(_CLASS_WORDS[g] for g in self.games)


@dataclass(frozen=True)
class GameInfo:
    """What dispatch needs to know about a game."""

    name: str
    players: int
    zero_sum: bool
    normal_form: bool = False

    def describe(self) -> str:
        if self.players != 2:
            kind = f"{self.players}-player"
        else:
            kind = "zero-sum" if self.zero_sum else "general-sum: not zero-sum or constant-sum"
        form = " normal-form" if self.normal_form else ""
        return f"{self.name} ({kind}{form} game)"


_REGISTRY: dict[tuple[str, str], Concept] = {}
_LOADERS: list[Callable[[], None]] = []


def add_loader(loader: Callable[[], None]) -> None:
    """Run ``loader`` (once) before the registry is next read: a plug-in package outside lpgame
    can register its concepts lazily this way. The modules of :mod:`lpgame.equilibria` are always
    loaded (:func:`load_builtin_concepts`), so lower layers (``analysis.verify``,
    ``games.dudo``) can dispatch through the registry without importing the layers above them."""
    _LOADERS.append(loader)


_BUILTIN_LOADED = False


def load_builtin_concepts() -> None:
    """Import every module of :mod:`lpgame.equilibria` and of its family packages (``zero_sum``,
    ``general_sum``, ``correlated``, ``teams``, ``refinements``) once; each registers its concepts.

    The package is found by name (plug-in discovery, as entry points would), so the registry
    itself imports nothing above it."""
    global _BUILTIN_LOADED
    if _BUILTIN_LOADED:
        return
    _BUILTIN_LOADED = True
    import importlib
    import pkgutil
    package = importlib.import_module("lpgame.equilibria")
    for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
        importlib.import_module(module.name)


def _load() -> None:
    load_builtin_concepts()
    while _LOADERS:
        _LOADERS.pop(0)()


def register(concept: Concept) -> Concept:
    """Add ``concept`` (replacing an entry of the same name and variant); returns it."""
    _REGISTRY[concept.key] = concept
    return concept


def unregister(name: str, variant: str | None = None) -> None:
    """Remove the entries of ``name`` (only ``variant`` when given)."""
    for key in [k for k in _REGISTRY if k[0] == name and (variant is None or k[1] == variant)]:
        del _REGISTRY[key]


def concepts() -> list[Concept]:
    """Every registered entry, by name then variant."""
    _load()
    return sorted(_REGISTRY.values(), key=lambda c: (c.name, c.variant))


def concept_names() -> list[str]:
    _load()
    return sorted({c.name for c in _REGISTRY.values()})


def entries(name: str) -> list[Concept]:
    return [c for c in concepts() if c.name == name]


def fitting_names(info: GameInfo) -> list[str]:
    """The concepts with an entry that accepts a game of ``info``, by name; a concept whose only
    such entries are selected by options says which (``efce (method=column_generation)``)."""
    _load()
    fitting: dict[str, list[Concept]] = {}
    for c in _REGISTRY.values():
        if c.accepts(info):
            fitting.setdefault(c.name, []).append(c)
    out = []
    for name, found in sorted(fitting.items()):
        if any(not c.requires for c in found):
            out.append(name)
        else:
            out.append(f"{name} ({' or '.join(sorted(', '.join(c.requires) for c in found))})")
    return out


def _specificity(c: Concept) -> tuple:
    width = min((GAME_CLASSES.index(g) for g in c.games), default=len(GAME_CLASSES))
    return (-len(c.requires), width, c.variant)


def select(name: str, info: GameInfo, options: dict) -> Concept:
    """The entry of concept ``name`` for a game of ``info`` and the given options (see module)."""
    if not isinstance(name, str):
        raise OptionError(f"concept must be a string; got {name!r}")
    _load()
    named = entries(name)
    if not named:
        raise OptionError(f"unknown concept {name!r}{did_you_mean(name, concept_names())}; choose "
                          f"one of {', '.join(concept_names())}")
    given = {k for k, v in options.items() if v is not None and v is not False}
    fitting = [c for c in named if c.accepts(info)]
    if not fitting:
        words = "; ".join(f"{c.variant}: {c.games_text()}" for c in named)
        raise ConceptMismatchError(
            f"concept {name!r} does not apply to {info.describe()} (it takes {words}); concepts "
            f"that apply: {', '.join(fitting_names(info)) or 'none'}")
    for key in sorted(given):     # an option that selects an entry this game does not fit
        def value_selects(c: Concept, key: str = key) -> bool:  # no requirement on key, or met
            return all(_required(r, options, given) for r in c.requires if r.split("=")[0] == key)

        by_key = [c for c in named if any(r.split("=")[0] == key for r in c.requires)]
        selecting = [c for c in by_key if value_selects(c)] or by_key
        if selecting and not any(c.accepts(info) for c in selecting) \
                and not any(c.option(key) is not None and value_selects(c) for c in fitting):
            words = "; ".join(f"{c.variant}: {c.games_text()}" for c in selecting)
            raise ConceptMismatchError(
                f"{name} with option {key!r} does not apply to {info.describe()} (it takes "
                f"{words}); concepts that apply: {', '.join(fitting_names(info)) or 'none'}")
    usable = [c for c in fitting if all(_required(r, options, given) for r in c.requires)]
    usable.sort(key=_specificity)
    for c in usable:
        if all(c.option(k) is not None for k in given):
            return c
    # no entry takes every given option: say which option and where it belongs
    best = usable[0] if usable else fitting[0]
    for key in sorted(given):
        if best.option(key) is None:
            elsewhere = [c for c in named if c.option(key) is not None]
            if elsewhere:
                where = "; ".join(
                    f"{c.variant} ({c.games_text()}"
                    + (f"; selected by {', '.join(c.requires)}" if c.requires else "") + ")"
                    for c in elsewhere)
                raise OptionError(f"option {key!r} of concept {name!r} belongs to {where}; for "
                                  f"{info.describe()} with these options the entry is "
                                  f"{best.variant}")
            others = sorted({c.name for c in _REGISTRY.values() if c.option(key) is not None})
            hint = (f"; it is an option of {', '.join(f'concept {o!r}' for o in others)}"
                    if others else "")
            known = sorted({o.name for c in fitting for o in c.options})
            raise OptionError(f"unknown option {key!r} for concept {name!r}"
                              f"{hint or did_you_mean(key, known)}; its options: "
                              f"{', '.join(known) or 'none'}")
    return best


#: Games of each class, narrowest first, for dispatch before a game is built (:func:`source_entry`)
_SOURCE_INFOS = ((2, True, False), (2, False, False), (3, False, False), (2, True, True))


def source_entry(name: str, options: dict, label: str = "the game") -> Concept | None:
    """The entry of concept ``name`` that reads the game's source (``reads_source``) when the
    options select one, else None (the game is then built and :func:`select` dispatches on it).

    The candidates are the entries of ``name`` that read the source and whose ``requires`` the
    options meet; the game's class is not known yet (finding it would build the game), so the most
    specific candidate is checked by :func:`select` against a game of the narrowest class it
    accepts (named ``label`` in messages): an option it does not take is refused here, before any
    work. Solver options (:data:`SOLVER_OPTIONS`) are left aside, as :func:`select` never sees
    them."""
    if not isinstance(name, str):
        return None
    _load()
    options = {k: v for k, v in options.items() if k not in SOLVER_OPTIONS}
    given = {k for k, v in options.items() if v is not None and v is not False}
    readers = sorted((c for c in _REGISTRY.values() if c.name == name and c.reads_source
                      and all(_required(r, options, given) for r in c.requires)),
                     key=_specificity)
    if not readers:
        return None
    kinds = (GameInfo(label, *kind) for kind in _SOURCE_INFOS)
    info = next((kind for kind in kinds if readers[0].accepts(kind)), None)
    if info is None:
        return None
    entry = select(name, info, options)
    return entry if entry.reads_source else None


def solve_value(name: str, game, info: GameInfo, exact: bool = False):
    """The value of ``game`` for concept ``name`` by the entry's ``value_only`` (see the module
    docstring); for layers below the concepts, which dispatch by name instead of importing them."""
    entry = select(name, info, {})
    if entry.value_only is None:
        raise OptionError(f"concept {name!r} ({entry.variant}) has no value-only solver")
    return entry.value_only(game, exact)


def checked_options(concept: Concept, options: dict) -> dict:
    """``options`` with defaults filled in and each value checked against its declared type."""
    out = {}
    for opt in concept.options:
        value = options.get(opt.name, opt.default)
        out[opt.name] = opt.check(value, concept.name) if value is not opt.default else value
    return out


def show_value(value) -> str:
    """A value for a message: numpy scalars as plain numbers, not ``np.float64(...)``."""
    if hasattr(value, "item") and hasattr(value, "dtype") and getattr(value, "ndim", 1) == 0:
        value = value.item()
    return repr(value)


def _required(requirement: str, options: dict, given: set) -> bool:
    """``"name"``: the option is given (not None or False); ``"name=value"``: it equals value."""
    if "=" in requirement:
        key, value = requirement.split("=", 1)
        return key in given and str(options[key]) == value
    return requirement in given


def _number(text: str):
    text = text.strip()
    try:
        return int(text)
    except ValueError:
        return float(text)


def _type_words(kind: type) -> str:
    return {int: "an integer", float: "a number", tuple: "comma-separated numbers"}.get(
        kind, kind.__name__)


# ---------------------------------------------------------------- command-line flags of the options


def option_flags() -> dict[str, tuple[str, bool, list[str]]]:
    """Every registered option that has a command-line flag, by name: (flag, whether it is an
    on/off flag, its help as "concept: help" for each concept that declares it)."""
    flags: dict = {}
    for c in concepts():
        for o in c.options:
            if not o.cli:
                continue
            flag, is_bool, helps = flags.get(o.name, (o.cli_flag, o.type is bool, []))
            helps.append(f"{c.name}: {o.help}")
            flags[o.name] = (flag, is_bool and o.type is bool, helps)
    return flags


def add_concept_flags(parser, leave_out: tuple[str, ...] = ()) -> None:
    """Add ``--concept`` and one flag per registered option (except the names in ``leave_out``)
    to an :class:`argparse.ArgumentParser`: ``lpgame solve`` and ``lpgame sweep`` take the same
    ones, and a newly registered concept needs no edit to either."""
    import argparse

    names = concept_names()
    parser.add_argument("--concept", default="nash", choices=names, metavar="CONCEPT",
                        help="one of " + ", ".join(names) + " (default nash; 'lpgame concepts' "
                             "describes each)")
    for name, (flag, is_bool, helps) in sorted(option_flags().items()):
        if name in leave_out:
            continue
        text = "; ".join(helps).replace("%", "%%")   # argparse formats help with %: keep % literal
        if is_bool:     # --flag / --no-flag: options whose default is True can be turned off
            parser.add_argument(flag, dest=name, action=argparse.BooleanOptionalAction,
                                default=None, help=text)
        else:
            parser.add_argument(flag, dest=name, default=None, metavar=name.upper(), help=text)


def concept_options_from(arguments, concept: str) -> dict:
    """The registered options given on a command line (parsed ``arguments`` of a parser with
    :func:`add_concept_flags`), converted by ``concept``'s declared types; OptionError for a flag
    that ``concept`` does not take, naming the concepts that do."""
    options = {}
    named = entries(concept)
    flags = option_flags()
    for name, (flag, _, _) in flags.items():
        text = getattr(arguments, name, None)
        if text is None:
            continue
        declared = next((c.option(name) for c in named if c.option(name) is not None), None)
        if declared is None:
            owners = sorted({c.name for c in concepts() if c.option(name) is not None})
            raise OptionError(f"{flag} is an option of {', '.join(owners)}, not of concept "
                              f"{concept!r}")
        options[name] = text if declared.type is bool else declared.from_text(text, concept)
    return options
