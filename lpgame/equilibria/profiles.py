"""Strategy profiles from realization plans, and the Nash certificate of a profile.

The concepts whose answer is a pair of realization plans (zero-sum Nash, maximin, the double
oracle, the abstraction wrapper, refinements) return the **behaviour** those plans induce
(Koller, Megiddo & von Stengel 1996: b(ja) = x[σ_j a] / x[σ_j] where x[σ_j] > 0, uniform at
information sets the player's own plan never reaches), and certify the plans *rebuilt from that
behaviour*, so that what the user gets is what is certified. The certificate is the sum of the
players' best-response gains, computed bottom-up on the tree by :mod:`lpgame.analysis`, never by
the LP.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from lpgame.analysis.exploitability import Evaluation, evaluate_plans, evaluate_plans_exact
from lpgame.result import Certificate
from lpgame.sequence_form import SequenceForm


def behaviours(sf: SequenceForm, plans, exact: bool) -> list[tuple[object, object]]:
    """(behaviour vector, mask of unreached information sets) of each player's plan."""
    if exact:
        return [sf.behaviour_from_plan_exact(i, plan) for i, plan in enumerate(plans)]
    return [sf.behaviour_from_plan(i, plan) for i, plan in enumerate(plans)]


def strategies_and_unreached(sf: SequenceForm, behaviour_pairs) -> tuple[list, list]:
    """Each player's strategy as {information set: {action: probability}} and the labels of the
    information sets its own plan never reaches."""
    strategies, unreached = [], []
    for i, (b, mask) in enumerate(behaviour_pairs):
        strategies.append(sf.strategy_to_dict(i, b))
        labels = sf.players[i].infoset_labels      # read, not copied
        unreached.append([labels[j] for j in np.flatnonzero(mask).tolist()])
    return strategies, unreached


def plans_from_behaviours(sf: SequenceForm, behaviour_pairs, exact: bool) -> list:
    """Plans rebuilt from the returned behaviour (what the user gets is what is certified)."""
    return [sf.plan_from_behaviour_exact(i, b) if exact else sf.plan_from_behaviour(i, b)
            for i, (b, _) in enumerate(behaviour_pairs)]


def nash_certificate(sf: SequenceForm, plans, exact: bool) -> tuple[Evaluation, Certificate]:
    """Values and best-response gains of a profile of plans (exact: in rationals).

    The certificate is reported in the game's units and relative to its payoff range R =
    max u − min u over all players and leaves (``extra["payoff_range"]`` and
    ``extra["relative_nash_conv"]`` = nash_conv / R): a NashConv of 7.9e-12 means nothing in a
    game whose payoffs are 1e-12, and tolerances are judged on the relative number.
    """
    ev = (evaluate_plans_exact if exact else evaluate_plans)(sf, plans)
    certificate = Certificate(ev.nash_conv, ev.exploitability, ev.best_response_gain, exact)
    spread = payoff_range(sf, exact)
    certificate.extra["payoff_range"] = spread
    certificate.extra["relative_nash_conv"] = relative(ev.nash_conv, spread)
    return ev, certificate


def payoff_range(sf: SequenceForm, exact: bool = False):
    """max u − min u over all players and leaves: a Fraction in exact mode (exact even for payoffs
    beyond the double range), else a float."""
    if exact and sf.payoff_structure is None:
        _, payoffs = sf.exact_terminal_data()
        values = [u for row in payoffs for u in row]
        if not values:
            return Fraction(0)
        return Fraction(max(values)) - Fraction(min(values))
    lo, hi = sf.game._payoff_bounds()
    return Fraction(hi) - Fraction(lo) if exact else hi - lo


def relative(amount, spread):
    """``amount`` / ``spread`` (the amount itself where the payoffs have no range)."""
    if not spread:
        return amount
    if isinstance(amount, Fraction) or isinstance(spread, Fraction):
        return Fraction(amount) / Fraction(spread)
    return float(amount) / float(spread)


def certified_profile(sf: SequenceForm, plans, exact: bool
                      ) -> tuple[list, list, list, Evaluation, Certificate]:
    """(strategies, unreached information sets, plans rebuilt from the strategies, evaluation,
    certificate) of a profile given by realization plans: the behaviour they induce, and the
    plans rebuilt from it evaluated by the independent best-response path (what the user gets is
    what is certified)."""
    pairs = behaviours(sf, plans, exact)
    strategies, unreached = strategies_and_unreached(sf, pairs)
    rebuilt = plans_from_behaviours(sf, pairs, exact)
    ev, certificate = nash_certificate(sf, rebuilt, exact)
    return strategies, unreached, rebuilt, ev, certificate


def certify_nash_plans(sf: SequenceForm, plans, exact: bool, result=None):
    """``Concept.certify_plans`` of the Nash concepts: (values, certificate) of ``plans`` in ``sf``."""
    ev, certificate = nash_certificate(sf, plans, exact)
    return list(ev.values), certificate
