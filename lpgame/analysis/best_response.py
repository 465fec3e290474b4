"""Best responses and profile values computed bottom-up on the sequence form, without any LP.

This is the independent check of every LP answer. For player i facing the other players' fixed
realization plans x_{-i}, the expected payoff is linear in x_i (Farina 2023, eq. (11.2)):

    u_i(x_i, x_{-i}) = Σ_σ x_i[σ] g_i[σ],   g_i[σ] = Σ_{z: σ_i(z) = σ} p_c(z) u_i(z) Π_{k≠i} x_k[σ_k(z)].

A best response maximises this over the treeplex Q_i by dynamic programming from the deepest
information sets up (the best-response recursion of the sequence form; the dual of the LP
BR_i of Farina 2023, L5087–5090, solved in closed form):

    V(j) = max_{a ∈ A_j} ( g_i[ja] + Σ_{j' : p_{j'} = ja} V(j') ),
    BR value = g_i[∅] + Σ_{j : p_j = ∅} V(j).

Each depth level is one vectorised numpy step (``maximum.reduceat`` over the contiguous action
blocks). The exact variants do the same recursion, and the profile values, without Fraction
arithmetic: chance, payoffs and each plan are written as integers over a common denominator
(:func:`lpgame.rational.common_denominator`), so every leaf weight is an integer over the product
D of those denominators, and the sums and maxima over leaves and actions, all over the same D, are
exact integer operations (numpy object arrays of Python integers); the result is one Fraction
(value / D).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from lpgame.rational import common_denominator, to_fraction
from lpgame.sequence_form import SequenceForm


def sequence_payoffs(sf: SequenceForm, player: int, plans: list[np.ndarray],
                     payoff_of: int | None = None, sign: float = 1.0) -> np.ndarray:
    """g_i: ``player``'s payoff per own sequence against the others' plans ``plans``.

    ``payoff_of`` and ``sign`` select another objective (``sign=-1, payoff_of=k``: the responder
    minimises player k's payoff, as in a security computation).
    """
    payoff_of = player if payoff_of is None else payoff_of
    if sf.payoff_structure is not None:   # O(N) products by cumulative sums (lpgame.game.showdown)
        return sf.payoff_structure.sequence_payoffs(player, plans, payoff_of, sign)
    weight = sign * sf.terminal_chance * sf.terminal_payoffs[:, payoff_of]
    for k, x in enumerate(plans):
        if k != player:
            weight = weight * np.asarray(x, dtype=float)[sf.terminal_sequences[:, k]]
    return np.bincount(sf.terminal_sequences[:, player], weights=weight,
                       minlength=sf.num_sequences(player))


@dataclass
class BestResponse:
    """A pure best response of one player and the values it gets."""

    player: int
    value: float
    behaviour: np.ndarray          # pure behavioural strategy (0/1 per sequence)
    infoset_values: np.ndarray     # V(j): best continuation value at each information set


def best_response(sf: SequenceForm, player: int, plans: list[np.ndarray],
                  payoff_of: int | None = None, sign: float = 1.0) -> BestResponse:
    """Best response of ``player`` to the other players' realization plans (see module).

    With ``payoff_of``/``sign`` the responder maximises ``sign`` × that player's payoff.
    """
    return best_response_to_payoffs(sf, player, sequence_payoffs(sf, player, plans, payoff_of,
                                                                 sign))


def best_response_value(sf: SequenceForm, player: int, plans: list[np.ndarray]) -> float:
    """The value of :func:`best_response` alone: the same recursion (module docstring), without
    recording which action attains each maximum (what a certificate needs, at half the work)."""
    total = np.array(sequence_payoffs(sf, player, plans), dtype=float)   # g, then + children
    parent = sf.players[player].infoset_parent_seq
    for js, seqs, starts in sf.infoset_levels(player):
        np.add.at(total, parent[js], np.maximum.reduceat(total[seqs], starts))
    return float(total[0])


def best_response_to_payoffs(sf: SequenceForm, player: int, g: np.ndarray,
                             preference: np.ndarray | None = None,
                             tie_tolerance: float = 0.0) -> BestResponse:
    """Best response of ``player`` when its sequences earn ``g`` (the recursion of the module).

    Among maximising actions the first is taken, or, with ``preference`` (one integer per sequence,
    lower preferred), the most preferred one and then the first. Actions within ``tie_tolerance``
    of the maximum count as maximising (rounding in ``g`` then cannot override the preference);
    the value is the recursion's maximum either way.
    """
    p = sf.players[player]
    total = np.array(g, dtype=float)       # g[σ] + Σ of children's values, filled bottom-up
    values = np.zeros(p.num_infosets)
    behaviour = np.zeros(p.num_sequences)
    behaviour[0] = 1.0
    for js, seqs, starts in sf.infoset_levels(player):
        block = total[seqs]
        best = np.maximum.reduceat(block, starts)
        values[js] = best
        counts = p.infoset_num_actions[js]
        is_best = block >= np.repeat(best, counts) - tie_tolerance
        if preference is not None:
            key = np.where(is_best, preference[seqs], np.iinfo(np.int64).max)
            is_best = key == np.repeat(np.minimum.reduceat(key, starts), counts)
        # first (most preferred) maximising action of each information set
        first_best = np.minimum.reduceat(np.where(is_best, np.arange(block.size), block.size),
                                         starts)
        behaviour[seqs[first_best]] = 1.0
        np.add.at(total, p.infoset_parent_seq[js], best)
    return BestResponse(player, float(total[0]), behaviour, values)


def _leaf_reach_scaled(sf: SequenceForm, plans, skip: int | None = None):
    """(r, D, u): each leaf's chance reach times the plans' reach (all players but ``skip``) as
    integers r over one denominator, and the integer payoffs u, so that r[z]·u[z, i] / D is leaf
    z's exact contribution to player i's utility (module docstring)."""
    reach, chance_den, payoffs, payoff_den = sf.exact_terminal_scaled()
    den = chance_den * payoff_den
    seqs = sf.terminal_sequences
    for k, plan in enumerate(plans):
        if k != skip:
            nums, d = common_denominator(plan)
            reach = reach * nums[seqs[:, k]]
            den *= d
    return reach, den, payoffs


def best_response_value_exact(sf: SequenceForm, player: int, plans: list[list[Fraction]],
                              payoff_of: int | None = None, sign: int = 1) -> Fraction:
    """The best-response value in exact rational arithmetic (plans as lists of Fractions).

    Computed on integers over one common denominator (module docstring): the leaf weights
    p_c(z)·u(z)·Π_k x_k[σ_k(z)] are integers over the product of the denominators, so the sums g
    and the maxima of the recursion are integer sums and maxima; one Fraction is formed at the end.
    """
    payoff_of = player if payoff_of is None else payoff_of
    chance, den, payoffs = _leaf_reach_scaled(sf, plans, skip=player)
    s = to_fraction(sign)
    weight = chance * payoffs[:, payoff_of] * s.numerator
    den *= s.denominator
    seqs = sf.terminal_sequences
    p = sf.players[player]
    total = np.zeros(p.num_sequences, dtype=object)    # g[σ] + Σ of children's values
    np.add.at(total, seqs[:, player], weight)
    for js, block, starts in sf.infoset_levels(player):
        best = np.maximum.reduceat(total[block], starts)
        np.add.at(total, p.infoset_parent_seq[js], best)
    return Fraction(total[0], den)


def profile_values_exact(sf: SequenceForm, plans: list[list[Fraction]]) -> list[Fraction]:
    """u_i(x_1, ..., x_n) for every player, exactly (on integers, as the best response)."""
    reach, den, payoffs = _leaf_reach_scaled(sf, plans)
    return [Fraction(sum((reach * payoffs[:, i]).tolist(), 0), den) for i in range(sf.num_players)]
