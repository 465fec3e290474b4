"""The payoffs of an extensive game's reduced normal form, summed exactly in rationals.

For reduced plans π = (π_1, …, π_n) (0/1 rows over each player's sequences; Farina 2023, Def. 2.5)
the expected payoff is (Farina 2023, eq. (11.2))

    u_i(π) = Σ_z p_c(z) u_i(z) Π_k π_k[σ_k(z)],

a sum over the leaves z that every plan plays towards. With the leaves' chance reach and payoffs
as integers over common denominators (p_c(z) = c_z / C, u_i(z) = u_iz / U;
:meth:`lpgame.sequence_form.SequenceForm.exact_terminal_scaled`), each leaf adds the integer
c_z·u_iz to the block of plan profiles that reach it, and the tensor is divided by C·U once.

The floating-point reduced normal form sums products of rounded chance probabilities, so a player
whose payoff is the same at every leaf (chance probabilities summing to one) gets values that differ
in the last bit, which the float LP then refuses as unresolvable. Summed here exactly and rounded
once, those values are equal again: :func:`lpgame.equilibria.correlated.reduced_plans.reduced_normal_form`
takes them where the work, Σ_z Π_k |{π_k reaching z}|, is at most :data:`EXACT_SUM_WORK`.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from lpgame.sequence_form import SequenceForm

EXACT_SUM_WORK = 2_000_000
"""Largest number of (leaf, plan profile) incidences summed exactly for the float reduced form."""


def _reach(sf: SequenceForm, plans: list[np.ndarray]) -> list[np.ndarray]:
    """reach[k][π, z]: whether plan π of player k plays towards leaf z."""
    return [np.asarray(plans[k])[:, sf.terminal_sequences[:, k]].astype(bool)
            for k in range(sf.num_players)]


def exact_sum_work(sf: SequenceForm, plans: list[np.ndarray]) -> int:
    """Σ_z Π_k |{π_k reaching z}|: the number of additions :func:`reduced_payoffs_exact` makes."""
    counts = [r.sum(axis=0).astype(object) for r in _reach(sf, plans)]
    return int(sum(np.prod(np.stack(counts), axis=0).tolist(), 0))


def reduced_payoffs_exact(sf: SequenceForm, plans: list[np.ndarray]) -> np.ndarray:
    """The tensor u of shape (n, |Π_1|, …, |Π_n|) with Fraction entries (module docstring)."""
    c, chance_den, u, payoff_den = sf.exact_terminal_scaled()
    reach = _reach(sf, plans)
    n = sf.num_players
    shape = tuple(int(np.asarray(p).shape[0]) for p in plans)
    sums = np.zeros((n,) + shape, dtype=object)
    for z, cz in enumerate(c.tolist()):
        if not cz:
            continue
        block = np.ix_(*[np.flatnonzero(reach[k][:, z]) for k in range(n)])
        for i in range(n):
            v = cz * u[z, i]
            if v:
                sums[i][block] += v
    den = chance_den * payoff_den
    distinct: dict = {}
    flat = [distinct.setdefault(v, Fraction(v, den)) for v in sums.ravel().tolist()]
    out = np.empty(len(flat), dtype=object)
    out[:] = flat
    return out.reshape(sums.shape)
