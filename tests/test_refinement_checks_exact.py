"""The refinement checks in integers and python-flint (lpgame.analysis.refinement_checks) give the
same answers as the literal Fraction arithmetic they replace.

Reference: ``tests/refinement_checks_reference.py``, the checks as first written, every series product
and sum done term by term in Python ``Fraction`` (exact rationals, no common denominators, no
python-flint). Both are run on the same inputs and must agree field by field: pass/fail, the number
of information sets checked, the order, every failure message in order, every witness problem.

Inputs:
* the perturbed strategies and limit behaviours the solver hands to the checks (captured) on Kuhn
  (K23), Goofspiel 3 (G23) and Leduc L2232 of Farina's Table 13.1, QPE, EFPE and one-sided QPE;
* the same inputs altered so that the checks fail: every action played (uniform behaviour), the
  opponent's series reversed in ε, a coefficient of the plan changed (treeplex rows fail) and a
  leading coefficient made negative (below the lower bound);
* random series with coefficients in {−1, 0, 1} (many lexicographic ties) times scales 10⁻¹²…10¹²
  on hypothesis's random imperfect-information trees, and the solver's own inputs on those trees.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import refinement_checks_reference as reference
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from random_games import imperfect_information_games

import lpgame
from lpgame.analysis import refinement_checks as fast
from lpgame.compile import compile_game
from lpgame.equilibria.refinements import refined_equilibrium

SETTINGS = settings(max_examples=15, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
NAMES = ("quasi_perfect_check", "perfect_check", "witness_check")


def _captured(monkeypatch, game, refinement, trembling_player=None):
    """Solve ``refinement`` and return the compiled game and the checks' calls (name, args, kwargs)."""
    calls = []

    def recorder(name):
        original = getattr(refined_equilibrium, name)

        def record(sf, *args, **kwargs):
            calls.append((name, args, kwargs))
            return original(sf, *args, **kwargs)
        return record

    for name in NAMES:
        monkeypatch.setattr(refined_equilibrium, name, recorder(name))
    result = refined_equilibrium.solve_refinement(game, refinement, trembling_player=trembling_player)
    monkeypatch.undo()
    return compile_game(game), calls, result


def _same(sf, name, args, kwargs):
    """Run both implementations; they must agree exactly. Returns the fast one's answer."""
    new = getattr(fast, name)(sf, *args, **kwargs)
    old = getattr(reference, name)(sf, *args, **kwargs)
    if name == "witness_check":
        assert new == old
    else:
        assert new.__dict__ == old.__dict__
    return new


def _altered(sf, name, args, kwargs):
    """Inputs that make each check fail somewhere (module docstring)."""
    if name == "witness_check":
        player, series, lower = args
        changed = [list(term) for term in series]
        changed[-1][-1] += Fraction(1, 3)                     # a treeplex row fails
        negative = [list(term) for term in series]
        negative[0][-1] = -abs(negative[0][-1]) - 1            # below the lower bound
        yield name, (player, changed, lower), kwargs
        yield name, (player, negative, lower), kwargs
        return
    player, behaviour = args[0], args[1]
    uniform = [Fraction(1)] * len(behaviour)
    yield name, (player, uniform, *args[2:]), kwargs
    flipped = list(args[2:])
    flipped[-1] = list(reversed(flipped[-1]))                  # the opponent's series reversed in ε
    yield name, (player, uniform, *flipped), kwargs


ROWS = [("kuhn_poker", {}, "qpe", None), ("kuhn_poker", {}, "efpe", None),
        ("kuhn_poker", {}, "os-qpe", 0), ("goofspiel", {"cards": 3}, "qpe", None),
        ("goofspiel", {"cards": 3}, "os-qpe", 1),
        pytest.param("goofspiel", {"cards": 3}, "efpe", None, marks=pytest.mark.slow),
        pytest.param("leduc_poker", {"bets": 2, "ranks": 3, "suits": 2}, "qpe", None,
                     marks=pytest.mark.slow),
        pytest.param("leduc_poker", {"bets": 2, "ranks": 3, "suits": 2}, "efpe", None,
                     marks=pytest.mark.slow)]


@pytest.mark.parametrize(("game", "params", "refinement", "trembling"), ROWS)
def test_checks_equal_the_fraction_reference_on_table_13_1_rows(monkeypatch, game, params,
                                                                 refinement, trembling):
    sf, calls, result = _captured(monkeypatch, lpgame.games.make(game, **params), refinement,
                                  trembling)
    assert result.extra["refinement"]["status"] == "certified"
    assert {name for name, _, _ in calls} >= {"witness_check"}
    failed = 0
    for name, args, kwargs in calls:
        answer = _same(sf, name, args, kwargs)
        assert answer == [] if name == "witness_check" else answer.passed     # the solver's own
        for altered in _altered(sf, name, args, kwargs):
            answer = _same(sf, *altered)
            failed += bool(answer) if altered[0] == "witness_check" else not answer.passed
    assert failed > 0          # the altered inputs do make the checks fail, identically


def test_sequence_payoff_series_equals_the_reference(monkeypatch):
    sf, calls, _ = _captured(monkeypatch, lpgame.games.make("kuhn_poker"), "efpe")
    _, (player, _, own, opponent), _ = next(c for c in calls if c[0] == "perfect_check")
    assert fast.sequence_payoff_series(sf, player, opponent) == \
        reference.sequence_payoff_series(sf, player, opponent)


@st.composite
def _random_inputs(draw):
    """A random game, a player, its behaviour, random series of 1–6 terms (its own, the opponent's,
    a lower bound) and random reached information sets (module docstring)."""
    sf = compile_game(draw(imperfect_information_games()))
    player = draw(st.integers(0, 1))
    coefficient = st.sampled_from([-1, 0, 0, 1])

    def series(size, terms):
        scale = Fraction(10) ** draw(st.integers(-12, 12))
        return [[scale * c for c in draw(st.lists(coefficient, min_size=size, max_size=size))]
                for _ in range(terms)]

    reached = draw(st.lists(st.booleans(), min_size=sf.num_infosets(player),
                            max_size=sf.num_infosets(player)))
    terms = draw(st.integers(1, 6))
    behaviour = [Fraction(v) for v in draw(st.lists(st.sampled_from([0, 1]),
                                                    min_size=sf.num_sequences(player),
                                                    max_size=sf.num_sequences(player)))]
    own = series(sf.num_sequences(player), terms)
    own[0] = [abs(v) + 1 for v in own[0]]                  # x > 0, as the EFPE check assumes
    opponent = series(sf.num_sequences(1 - player), draw(st.integers(1, 6)))
    lower = series(sf.num_sequences(player), draw(st.integers(1, 6)))
    return sf, player, behaviour, own, opponent, reached, lower


@SETTINGS
@given(_random_inputs())
def test_checks_equal_the_fraction_reference_on_random_series(inputs):
    sf, player, behaviour, own, opponent, reached, lower = inputs
    _same(sf, "quasi_perfect_check", (player, behaviour, opponent), {})
    _same(sf, "quasi_perfect_check", (player, behaviour, opponent), {"reached_only": reached})
    _same(sf, "perfect_check", (player, behaviour, own, opponent), {})
    _same(sf, "witness_check", (player, own, None), {})
    _same(sf, "witness_check", (player, own, lower), {})


@SETTINGS
@given(imperfect_information_games(), st.sampled_from(["qpe", "efpe", "os-qpe"]))
@pytest.mark.slow
def test_checks_equal_the_fraction_reference_on_the_solvers_inputs(game, refinement):
    with pytest.MonkeyPatch.context() as monkeypatch:
        sf, calls, _ = _captured(monkeypatch, game, refinement)
    for name, args, kwargs in calls:
        _same(sf, name, args, kwargs)
        for altered in _altered(sf, name, args, kwargs):
            _same(sf, *altered)
