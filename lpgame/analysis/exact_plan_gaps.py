"""Trigger gains of a two-player correlation plan in exact rational arithmetic (EFCE, EFCCE, NFCCE).

The same recursion as :mod:`lpgame.analysis.correlation_plan_gaps` (Farina 2023, Def. 8.2 and
App. 9.B with chance; Farina, Bianchi & Sandholm 2020 for EFCCE), run on Python integers over
common denominators instead of floats: for a trigger t of player i with scope j and conditioning
sequence c_t,

    g_t[σ]  = Σ_{z : σ_i(z) = σ} p_c(z) u_i(z) ξ[c_t ⊕ σ_{-i}(z)],
    V_t(j') = max_{a'} ( g_t[j'a'] + Σ_{j'' ∈ C_{j'a'}} V_t(j'') ),
    gain_t  = V_t(j) − Σ_{z obeying t} p_c(z) u_i(z) ξ[σ_1(z), σ_2(z)],

with p_c(z) u_i(z) = c_z u_iz / (C U) from the exact leaves and ξ = N / D. The structure of the
recursion (which leaves feed which node, the bottom-up order) is read from a
:class:`~lpgame.analysis.correlation_plan_gaps.TriggerGains` built for the game; only the values
differ. The plan's membership of the von Stengel–Forges polytope (Farina 2023, Def. 9.3:
ξ[∅, ∅] = 1, Σ_a ξ[ja, τ] = ξ[p_j, τ], ξ ≥ 0) is checked exactly too
(:func:`exact_plan_residual`), since a gain alone does not say that ξ is a correlation plan.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from lpgame.analysis.correlation_plan_gaps import TriggerGains, vsf_rows
from lpgame.analysis.normal_form_correlated_gaps import CorrelatedGap
from lpgame.errors import StrategyError
from lpgame.rational import common_denominator
from lpgame.sequence_form import SequenceForm


def _integer_plan(plan: dict) -> tuple[dict, int]:
    """{(σ1, σ2): N} and D with ξ[σ1, σ2] = N / D (pairs absent from ``plan`` are 0)."""
    keys = list(plan)
    nums, den = common_denominator([Fraction(plan[k]) for k in keys])
    return {(int(a), int(b)): v for (a, b), v in zip(keys, nums.tolist())}, den


def exact_trigger_gains(sf: SequenceForm, plan: dict, player: int, kind: str
                        ) -> tuple[list[Fraction], list[str]]:
    """The gain of every trigger of ``player`` as Fractions. ``plan``: {(σ1, σ2): Fraction} over
    sequence indices."""
    structure = TriggerGains(sf, player, kind)
    T = structure.num_triggers
    if T == 0:
        return [], structure.names
    chance, chance_den, payoffs, payoff_den = sf.exact_terminal_scaled()
    weight = chance * payoffs[:, player]                    # over C·U
    xi, den = _integer_plan(plan)
    q0, q1 = structure.query[0].tolist(), structure.query[1].tolist()
    recommended = np.empty(len(q0), dtype=object)
    recommended[:] = [xi.get((a, b), 0) for a, b in zip(q0, q1)]
    total = np.zeros(structure.num_nodes, dtype=object)
    np.add.at(total, structure.leaf_node, weight[structure.leaf_z] * recommended)
    best = np.zeros(structure.num_groups, dtype=object)
    for nodes, starts, groups, up, parent in structure.steps:
        if nodes.size:
            best[groups] = np.maximum.reduceat(total[nodes], starts)
        if up.size:
            np.add.at(total, parent, best[up])
    deviation = best[structure.deviation_group]
    l0, l1 = (np.asarray(v).tolist() for v in structure.leaf_pairs)
    at_leaves = np.empty(len(l0), dtype=object)
    at_leaves[:] = [xi.get((a, b), 0) for a, b in zip(l0, l1)]
    obey = np.zeros(T, dtype=object)
    np.add.at(obey, structure.obey_t, (weight * at_leaves)[structure.obey_z])
    scale = chance_den * payoff_den * den
    return [Fraction(int(v), scale) for v in (deviation - obey).tolist()], structure.names


def exact_plan_residual(sf: SequenceForm, plan: dict) -> Fraction:
    """The largest violation, exactly, of the von Stengel–Forges constraints by ξ (module
    docstring): 0 for a correlation plan of V."""
    xi = {(int(a), int(b)): Fraction(v) for (a, b), v in plan.items()}
    worst = abs(xi.get((0, 0), Fraction(0)) - 1)
    worst = max([worst] + [-v for v in xi.values() if v < 0])
    for i in range(2):
        p = sf.players[i]
        jr, tau = vsf_rows(sf, i)
        for j, t in zip(jr.tolist(), tau.tolist()):
            first, k = int(p.infoset_first_seq[j]), int(p.infoset_num_actions[j])
            parent = int(p.infoset_parent_seq[j])
            if i == 0:
                total = sum((xi.get((s, t), Fraction(0)) for s in range(first, first + k)),
                            Fraction(0))
                worst = max(worst, abs(total - xi.get((parent, t), Fraction(0))))
            else:
                total = sum((xi.get((t, s), Fraction(0)) for s in range(first, first + k)),
                            Fraction(0))
                worst = max(worst, abs(total - xi.get((t, parent), Fraction(0))))
    return worst


def exact_plan_gap(sf: SequenceForm, plan: dict, kind: str) -> CorrelatedGap:
    """The ``kind`` (``efce``, ``efcce``, ``nfcce``) gap of ``plan`` in Fractions: max(0, largest
    trigger gain), with the exact plan residual. ``plan`` must hold Fractions (or ints)."""
    if any(isinstance(v, float) for v in plan.values()):
        raise StrategyError("an exact plan gap needs exact entries (Fractions), not floats")
    gains, worst, best_all = [], {}, None
    for i in range(2):
        g, names = exact_trigger_gains(sf, plan, i, kind)
        if not g:
            gains.append(Fraction(0))
            continue
        k = max(range(len(g)), key=g.__getitem__)
        gains.append(g[k])
        if best_all is None or g[k] > best_all:
            best_all, worst = g[k], {"player": i + 1, "trigger": names[k]}
    best = max(gains)
    return CorrelatedGap(kind, max(Fraction(0), best), best, gains, worst,
                         exact_plan_residual(sf, plan))
