"""A profile of realization plans → strategies and a certificate by the independent path.

Shared by the general-sum concepts that return one strategy profile (optimal Nash by MILP,
Stackelberg). The plans an LP or MILP found are turned into behavioural strategies
(b[ja] = x[ja] / x[p_j], Farina 2023, L753–755), rebuilt into plans from that behaviour (what the
user gets is what is certified), and evaluated by the best-response recursion of
:mod:`lpgame.analysis.best_response`, which uses no LP: for each player i

    δ_i = max_{x'_i ∈ Q_i} u_i(x'_i, x_{-i}) − u_i(x),     nash_conv = Σ_i δ_i,

in floats, or in rationals when the plans are Fractions (exact mode).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lpgame.analysis.exploitability import Evaluation, evaluate_plans, evaluate_plans_exact
from lpgame.sequence_form import SequenceForm


@dataclass
class CertifiedProfile:
    """Strategies (one {information set: {action: probability}} per player), the information sets
    each player's own plan never reaches, the plans rebuilt from the strategies, and their
    evaluation (values, best-response gains, NashConv)."""

    strategies: list
    unreached: list[list[str]]
    plans: list
    evaluation: Evaluation


def certify_profile(sf: SequenceForm, plans: list, exact: bool) -> CertifiedProfile:
    """Behaviour, rebuilt plans and independent evaluation of ``plans`` (see module docstring)."""
    strategies, unreached, rebuilt = [], [], []
    for i, plan in enumerate(plans):
        if exact:
            behaviour, mask = sf.behaviour_from_plan_exact(i, plan)
            rebuilt.append(sf.plan_from_behaviour_exact(i, behaviour))
        else:
            behaviour, mask = sf.behaviour_from_plan(i, plan)
            rebuilt.append(sf.plan_from_behaviour(i, behaviour))
        strategies.append(sf.strategy_to_dict(i, behaviour))
        labels = sf.players[i].infoset_labels
        unreached.append([labels[j] for j in np.flatnonzero(np.asarray(mask, dtype=bool)).tolist()])
    evaluation = evaluate_plans_exact(sf, rebuilt) if exact else evaluate_plans(sf, rebuilt)
    return CertifiedProfile(strategies, unreached, rebuilt, evaluation)


def support_labels(sf: SequenceForm, player: int, plan, tol: float = 1e-9) -> list[str]:
    """Labels of the player's sequences played with positive probability (∅ left out)."""
    p = sf.players[player]
    values = np.asarray([float(v) for v in plan])
    return [p.sequence_label(s) for s in np.flatnonzero(values > tol).tolist() if s != 0]
