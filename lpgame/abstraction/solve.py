"""Shrink → solve → lift: ``lpgame.solve(game, abstraction="gameshrink")``.

1. The game is read as a game with ordered signals (:func:`as_ordered_game`): an
   :class:`~lpgame.abstraction.ordered_game.OrderedSignalGame`, a catalog name
   (``kuhn_poker``, ``one_card_poker``, ``leduc_poker``, ``rhode_island_holdem``, ``gameshrink_toy``)
   or a game built by one of those catalog entries (recognised by its name and checked label by
   label against the signal form). Anything else raises
   :class:`~lpgame.errors.InvalidGameError`.
2. GameShrink (:func:`~lpgame.abstraction.gameshrink.gameshrink`) gives the sound filter; the
   filtered game is compiled and solved by the sequence-form LP (:mod:`lpgame.equilibria.zero_sum.nash`).
3. The abstract equilibrium is lifted (Theorem 2, :mod:`lpgame.abstraction.lifting`) and the
   **certificate is computed in the original game** by independent best responses — in the game the
   caller passed when it was an explicit tree, else in the compiled signal form. When the original
   game is too large to compile (Rhode Island Hold'em: 4·10⁹ leaves) the result keeps the abstract
   strategies and the certificate is computed in the abstract game, and says so
   (``abstraction["certificate_game"]``).

The result's ``extra["abstraction"]`` is :meth:`~lpgame.abstraction.gameshrink.Abstraction.report`
plus ``certificate_game``.

>>> import lpgame
>>> result = lpgame.solve("gameshrink_toy", abstraction="gameshrink", exact=True)
>>> result.value, result.certificate.nash_conv
(Fraction(0, 1), Fraction(0, 1))
>>> result.extra["abstraction"]["after"]["game_tree_internal_nodes"]
19
"""

from __future__ import annotations

import re
import time

from lpgame.abstraction.compile import OrderedIndexedGame
from lpgame.abstraction.gameshrink import Abstraction, gameshrink
from lpgame.abstraction.lifting import lift_behaviour
from lpgame.abstraction.ordered_game import (
    OrderedSignalGame,
    kuhn_ordered,
    leduc_ordered,
    toy_ordered,
)
from lpgame.errors import InvalidGameError, LpgameError, ModelTooLargeError

ABSTRACTIONS = ("gameshrink",)
_EXPRESSIBLE = ("kuhn_poker", "one_card_poker", "leduc_poker", "rhode_island_holdem",
                "gameshrink_toy")


def ordered_from_catalog(name: str, **params) -> OrderedSignalGame:
    """The signal form of a catalog game (two-player Kuhn, One-Card Poker, Leduc, Rhode Island
    Hold'em, the Figure 1 toy game)."""
    def take(key, default):
        return params.pop(key, default)

    if name == "kuhn_poker":
        players, cards = take("players", 2), take("cards", 3)
        take("structured", None)
        if players != 2:
            raise InvalidGameError(f"kuhn_poker with {players} players: games with ordered signals "
                                   "are implemented for two players")
        game = kuhn_ordered(cards, name=f"kuhn_poker(players=2, cards={cards})")
    elif name == "one_card_poker":
        n = take("N", 3)
        take("structured", None)
        game = kuhn_ordered(n, name=f"one_card_poker(N={n})")
    elif name == "leduc_poker":
        players, bets = take("players", 2), take("bets", 2)
        ranks, suits, deal = take("ranks", 3), take("suits", 2), take("deal", "ranks")
        if players != 2:
            raise InvalidGameError(f"leduc_poker with {players} players: games with ordered signals "
                                   "are implemented for two players")
        game = leduc_ordered(bets, ranks, suits)
        game.name = f"leduc_poker(players=2, bets={bets}, ranks={ranks}, suits={suits}, deal=cards)"
        if deal != "cards":
            game.name += " [card-level: deal=ranks is already the rank-level abstraction]"
    elif name == "rhode_island_holdem":
        from lpgame.games.rhode_island import rhode_island_ordered
        game = rhode_island_ordered(take("ranks", 13), take("suits", 4), take("max_bets", 3))
    elif name == "gameshrink_toy":
        game = toy_ordered()
    else:
        raise InvalidGameError(
            f"{name!r} is not expressible as a game with ordered signals here (GameShrink needs "
            f"dealt signals and public actions); catalog games that are: {', '.join(_EXPRESSIBLE)}")
    if params:
        raise InvalidGameError(f"{name}: parameters {', '.join(sorted(params))} are not "
                               "understood")
    return game


def _parse_catalog_name(text: str) -> tuple[str, dict] | None:
    match = re.fullmatch(r"([a-z_]+)\((.*)\)", text.strip())
    if not match:
        return None
    params = {}
    for part in filter(None, (p.strip() for p in match.group(2).split(","))):
        key, _, value = part.partition("=")
        params[key] = int(value) if value.lstrip("-").isdigit() else value
    return match.group(1), params


def as_ordered_game(game) -> tuple[OrderedSignalGame, object]:
    """(signal form, the explicit game to certify in or None) of anything :func:`solve` accepts."""
    from lpgame.game.tree import IndexedGame

    if isinstance(game, OrderedSignalGame):
        return game, None
    if isinstance(game, OrderedIndexedGame):
        return game.ordered, game
    if isinstance(game, str):
        from lpgame.games import registry
        parsed = _parse_catalog_name(game)
        name, params = parsed if parsed else (game, {})
        if name not in _EXPRESSIBLE and name in registry.catalog():
            raise InvalidGameError(
                f"{name!r} is not expressible as a game with ordered signals here (GameShrink needs "
                f"dealt signals and public actions); catalog games that are: {', '.join(_EXPRESSIBLE)}")
        return ordered_from_catalog(name, **params), None
    if isinstance(game, IndexedGame):
        parsed = _parse_catalog_name(game.name)
        if parsed is None or parsed[0] not in _EXPRESSIBLE:
            raise InvalidGameError(
                f"game {game.name!r} is not a game with ordered signals that lpgame recognises; pass "
                "an OrderedSignalGame (lpgame.abstraction) or a catalog name such as 'leduc_poker'")
        ordered = ordered_from_catalog(parsed[0], **parsed[1])
        compiled = ordered.compile()
        for i in range(2):
            if set(compiled.infosets(i)) != set(game.infosets(i)):
                hint = (" (leduc_poker with deal=ranks is already the rank-level abstraction; "
                        "shrink deal=cards)" if "deal=ranks" in game.name else "")
                raise InvalidGameError(f"game {game.name!r} does not match its signal form: the "
                                       f"information sets of player {i + 1} differ{hint}")
        return ordered, game
    raise InvalidGameError(f"cannot shrink a {type(game).__name__}: GameShrink needs a game with "
                           "ordered signals (lpgame.abstraction.OrderedSignalGame or a catalog name)")


def shrink(game) -> Abstraction:
    """GameShrink's sound abstraction of anything :func:`as_ordered_game` accepts."""
    ordered, _ = as_ordered_game(game)
    return gameshrink(ordered)


def check_abstraction_name(abstraction: str) -> None:
    if abstraction not in ABSTRACTIONS:
        raise LpgameError(f"unknown abstraction {abstraction!r}; choose one of "
                          f"{', '.join(ABSTRACTIONS)}")


def solve_with_abstraction(game, concept, abstraction: str = "gameshrink", exact: bool = False,
                           backend: str = "highs", **options):
    """Shrink, solve the abstract game with the registered ``concept`` (a
    :class:`~lpgame.registry.Concept` whose certificate can be lifted), lift its plans and
    certify them in the original game (module docstring)."""
    from lpgame.errors import ExactCheckError
    from lpgame.sequence_form import SequenceForm

    check_abstraction_name(abstraction)
    if not concept.liftable:
        raise LpgameError(f"abstraction={abstraction!r} wraps concepts whose certificate can be "
                          f"lifted from the abstract game (nash, maximin); not {concept.name!r}")
    start = time.perf_counter()
    ordered, explicit = as_ordered_game(game)
    shrunk = gameshrink(ordered)
    abstract = shrunk.compile()
    report = shrunk.report()
    try:
        original = shrunk.compile_original()
    except ModelTooLargeError as exc:
        result = concept.solve(SequenceForm(abstract), exact=exact, backend=backend, **options)
        report["certificate_game"] = ("abstract game: the original is too large to compile here "
                                      f"({exc}); strategies are the abstract game's")
        result.extra["abstraction"] = report
        result.seconds["total"] = time.perf_counter() - start
        return result
    # the abstract game's answer is certified only after lifting, in the original game
    sf_a, sf_o = SequenceForm(abstract), SequenceForm(original)
    result = concept.solve(sf_a, exact=exact, backend=backend, **options)
    target = explicit if explicit is not None and not isinstance(explicit, OrderedIndexedGame) \
        else original
    sf_t = sf_o if target is original else SequenceForm(target)
    strategies, plans, unreached = [], [], []
    for i, plan_a in enumerate(result.plans):
        b = (sf_a.behaviour_from_plan_exact(i, plan_a)[0] if exact
             else sf_a.behaviour_from_plan(i, plan_a)[0])
        lifted = lift_behaviour(original, abstract, i, b)
        strategy = sf_o.strategy_to_dict(i, lifted)
        strategies.append(strategy)
        if target is original:      # same sequence numbering: the lifted vector is the behaviour
            behaviour = lifted
        else:                       # an explicit tree numbers its sequences its own way: by labels
            behaviour = (sf_t.behaviour_from_dict_exact(i, strategy) if exact
                         else sf_t.behaviour_from_dict(i, strategy))
        if exact:
            plan = sf_t.plan_from_behaviour_exact(i, behaviour)
            reach = [plan[int(q)] for q in sf_t.players[i].infoset_parent_seq]
        else:
            plan = sf_t.plan_from_behaviour(i, behaviour)
            reach = sf_t.reach_of_infosets(i, plan).tolist()
        plans.append(plan)
        labels = sf_t.infoset_labels(i)
        unreached.append([labels[j] for j, x in enumerate(reach) if x == 0])
    values, certificate = concept.certify_plans(sf_t, plans, exact, result)
    if exact and (certificate.gain != 0 or values[0] != result.values[0]):
        raise ExactCheckError(
            f"exact mode: the lifted {concept.name} profile of {ordered.name} has exact deviation "
            f"gain {certificate.gain} and value {values[0]} in the original game; the abstract "
            f"game's value is {result.values[0]}")
    report["certificate_game"] = ("original game (the explicit tree passed in)" if target is explicit
                                  else "original game (compiled from the signal form)")
    result.extra["abstraction"] = report
    result.game = getattr(target, "name", ordered.name)
    result.values, result.certificate = list(values), certificate
    if concept.name == "nash":
        result.value = values[0]
    result.strategies, result.plans, result.unreached = strategies, plans, unreached
    result.seconds["total"] = time.perf_counter() - start
    return result


__all__ = ["solve_with_abstraction", "as_ordered_game", "ordered_from_catalog", "shrink",
           "ABSTRACTIONS", "check_abstraction_name"]
