"""The von Stengel–Forges polytope of a triangle-free two-player game as a chain of scaled
extensions (Farina 2023, §9.4.4, Algorithms 9.1–9.3 *FillOutRow*, *FillOutColumn*, *Decompose*;
Thm 9.3, L4274).

Starting from ξ[∅, ∅] = 1, ``Decompose((σ1, σ2))`` fills every relevant pair below (σ1, σ2):

1. B ← the child information sets I of σ_i (p_I = σ_i, σ_{-i} ⋈ I) whose σ_{-i}-rank (Def. 9.4:
   the number of j_{-i} ⇌ I with p_{j_{-i}} = σ_{-i}) is 0, and, for every connected pair
   j1 ⇌ j2 of children of σ1 and σ2, the one of larger rank (j1 on ties);
2. for I ∈ B of player 1 (player 2 symmetric): split ξ[σ1, σ2] over {ξ[(I, a), σ2]}_a (a simplex),
   recurse into ((I, a), σ2) for every a, then for every child j2 ⇌ I of σ2 and each (j2, a2) fill
   ξ[σ1, (j2, a2)] = Σ_{a'} ξ[(I, a'), (j2, a2)] (a sum) and *FillOutRow*((σ1, (j2, a2)), I);
3. *FillOutRow*((σ1, σ2), j1): for every child j2 of σ2 with σ1 ⋈ j2: a sum as above if
   j1 ⇌ j2, otherwise a split of ξ[σ1, σ2] over {ξ[σ1, (j2, a)]}_a; then recurse on each (j2, a).

In a triangle-free game (Def. 9.5) the bipartite "connected" graph between the children of σ1 and
of σ2 is a union of stars, so step 1 picks exactly the star centres and every relevant pair is
filled exactly once; the resulting chain describes 𝒱 = Ξ (Thms 9.3–9.5). The thesis's loop in step
2 ranges over "j2 : σ1 ⋈ j2, p_{j2} = σ2"; only the j2 ⇌ I have the summands ((I, a'), (j2, a2))
as relevant pairs, so the loop here takes those (the others are centres or leaves of other stars,
filled by their own I). A game that is not triangle-free is refused, and the build checks that
every relevant pair is filled once.

The recursion visits each relevant pair a constant number of times, in Python (the decomposition
is a recursive walk of the pairs, built once); the learning iterations on the chain are vectorised
(:mod:`lpgame.equilibria.scaled_extension`).
"""

from __future__ import annotations

import sys

import numpy as np
import scipy.sparse as sp

from lpgame.equilibria.efce import CorrelationPlanSpace
from lpgame.equilibria.scaled_extension import ScaledExtensionChain
from lpgame.errors import InvalidGameError, LpgameError


def correlation_chain(space: CorrelationPlanSpace) -> ScaledExtensionChain:
    """The chain of splits and sums whose points are the plans of 𝒱 = Ξ, indexed like
    ``space.pairs`` (module docstring). Raises InvalidGameError when the game is not
    triangle-free (then 𝒱 ≠ Ξ in general and no such chain of this form exists)."""
    triangle = space.triangle()
    if triangle is not None:
        raise InvalidGameError(
            f"{space.sf.game.name}: not triangle-free (Farina 2023, Def. 9.5; witness "
            f"{' / '.join(triangle)}), so its correlation plans have no scaled-extension chain "
            f"of Algorithm 9.3; optimal EFCE by learning needs a triangle-free two-player game")
    t1, t2 = space.trees
    m1, m2 = t1.num_infosets, t2.num_infosets
    n2 = space.n2
    first = [t1.infoset_first[:m1].tolist(), t2.infoset_first[:m2].tolist()]
    size = [t1.infoset_size[:m1].tolist(), t2.infoset_size[:m2].tolist()]
    inf = [t1.seq_infoset.tolist(), t2.seq_infoset.tolist()]          # ∅ -> m_i
    kids: list[dict[int, list[int]]] = [{}, {}]
    for i, tree in enumerate((t1, t2)):
        for j, parent in enumerate(tree.infoset_parent[:tree.num_infosets].tolist()):
            kids[i].setdefault(parent, []).append(j)
    conn = [dict(), dict()]
    for a, b in space.connected.tolist():
        conn[0].setdefault(a, set()).add(b)
        conn[1].setdefault(b, set()).add(a)
    empty: frozenset = frozenset()

    def connected(j1: int, j2: int) -> bool:
        return j2 in conn[0].get(j1, empty)

    def joinable(i: int, j: int, other_seq: int) -> bool:
        """j (player i's information set) ⋈ the other player's sequence."""
        if other_seq == 0:
            return True
        other = inf[1 - i][other_seq]
        return connected(j, other) if i == 0 else connected(other, j)

    def actions(i: int, j: int) -> range:
        return range(first[i][j], first[i][j] + size[i][j])

    split_parent: list[int] = []
    slot_entry: list[int] = []
    slot_count: list[int] = []
    sum_target: list[int] = []
    sum_members: list[list[int]] = []

    def key(s1: int, s2: int) -> int:
        return s1 * n2 + s2

    def split(parent: int, children: list[int]) -> None:
        split_parent.append(parent)
        slot_entry.extend(children)
        slot_count.append(len(children))

    def fill_row(s1: int, s2: int, j1: int) -> None:
        for j2 in kids[1].get(s2, ()):
            if not joinable(1, j2, s1):
                continue
            acts = actions(1, j2)
            if connected(j1, j2):
                for a2 in acts:
                    sum_target.append(key(s1, a2))
                    sum_members.append([key(a1, a2) for a1 in actions(0, j1)])
            else:
                split(key(s1, s2), [key(s1, a2) for a2 in acts])
            for a2 in acts:
                fill_row(s1, a2, j1)

    def fill_column(s1: int, s2: int, j2: int) -> None:
        for j1 in kids[0].get(s1, ()):
            if not joinable(0, j1, s2):
                continue
            acts = actions(0, j1)
            if connected(j1, j2):
                for a1 in acts:
                    sum_target.append(key(a1, s2))
                    sum_members.append([key(a1, a2) for a2 in actions(1, j2)])
            else:
                split(key(s1, s2), [key(a1, s2) for a1 in acts])
            for a1 in acts:
                fill_column(a1, s2, j2)

    def decompose(s1: int, s2: int) -> None:
        c1 = [j for j in kids[0].get(s1, ()) if joinable(0, j, s2)]
        c2 = [j for j in kids[1].get(s2, ()) if joinable(1, j, s1)]
        set2 = set(c2)
        set1 = set(c1)
        rank1 = {j: len(conn[0].get(j, empty) & set2) for j in c1}
        rank2 = {j: len(conn[1].get(j, empty) & set1) for j in c2}
        chosen: dict[tuple[int, int], None] = {}
        for j in c1:
            if rank1[j] == 0:
                chosen[(0, j)] = None
        for j in c2:
            if rank2[j] == 0:
                chosen[(1, j)] = None
        for j1 in c1:
            for j2 in conn[0].get(j1, empty) & set2:
                chosen[(0, j1) if rank1[j1] >= rank2[j2] else (1, j2)] = None
        for i, big in chosen:
            if i == 0:
                acts = actions(0, big)
                split(key(s1, s2), [key(a, s2) for a in acts])
                for a in acts:
                    decompose(a, s2)
                for j2 in c2:
                    if connected(big, j2):
                        for a2 in actions(1, j2):
                            sum_target.append(key(s1, a2))
                            sum_members.append([key(a, a2) for a in acts])
                            fill_row(s1, a2, big)
            else:
                acts = actions(1, big)
                split(key(s1, s2), [key(s1, a) for a in acts])
                for a in acts:
                    decompose(s1, a)
                for j1 in c1:
                    if connected(j1, big):
                        for a1 in actions(0, j1):
                            sum_target.append(key(a1, s2))
                            sum_members.append([key(a1, a) for a in acts])
                            fill_column(a1, s2, big)

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        decompose(0, 0)
    finally:
        sys.setrecursionlimit(limit)
    # keys -> positions among the relevant pairs
    index = space.index
    parent_pos = index(np.asarray(split_parent, np.int64) // n2, np.asarray(split_parent, np.int64) % n2)
    slot_keys = np.asarray(slot_entry, np.int64)
    slot_pos = index(slot_keys // n2, slot_keys % n2)
    slot_split = np.repeat(np.arange(len(slot_count)), slot_count)
    target_keys = np.asarray(sum_target, np.int64)
    target_pos = index(target_keys // n2, target_keys % n2)
    lengths = np.fromiter((len(s) for s in sum_members), np.int64, len(sum_members))
    member_keys = np.fromiter((k for s in sum_members for k in s), np.int64, int(lengths.sum()))
    member_pos = index(member_keys // n2, member_keys % n2)
    rows = np.repeat(np.arange(len(sum_members)), lengths)
    matrix = sp.csr_array((np.ones(member_pos.size), (rows, member_pos)),
                          shape=(len(sum_members), space.num_pairs))
    root = index([0], [0])
    try:
        return ScaledExtensionChain(space.num_pairs, root, parent_pos, slot_split, slot_pos,
                                    target_pos, matrix)
    except LpgameError as exc:
        raise LpgameError(f"{space.sf.game.name}: the decomposition of Algorithm 9.3 did not "
                          f"fill every relevant pair once ({exc})") from exc


DEFAULT_MAX_ENUMERATED_PROFILES = 50_000
"""Largest |Π_1|·|Π_2| for which :func:`enumerated_chain` builds Ξ from the pure plan pairs."""


def enumerated_chain(space: CorrelationPlanSpace,
                     max_profiles: int = DEFAULT_MAX_ENUMERATED_PROFILES) -> ScaledExtensionChain:
    """Ξ of *any* small two-player game, triangle-free or not, as a chain: one simplex over the
    pairs of reduced plans (π_1, π_2) (a distribution μ), then every relevant pair as the sum
    ξ[σ1, σ2] = Σ_{π_1 ∋ σ1, π_2 ∋ σ2} μ[π_1, π_2] (Farina 2023, Def. 9.1–9.2: Ξ = f(Δ(Π_1 × Π_2))).

    Entries 0..P−1 are the relevant pairs (indexed like ``space.pairs``), entry P the root, then
    the |Π_1|·|Π_2| plan pairs. Exponential in general; refused with ModelTooLargeError above
    ``max_profiles`` plan pairs.
    """
    from lpgame.equilibria.correlated import count_reduced_plans, enumerate_reduced_plans
    from lpgame.errors import ModelTooLargeError

    sf = space.sf
    counts = [count_reduced_plans(sf, i) for i in range(2)]
    if counts[0] * counts[1] > max_profiles:
        raise ModelTooLargeError(
            f"{sf.game.name}: not triangle-free, and enumerating its correlation plans needs "
            f"{counts[0]:,} × {counts[1]:,} = {counts[0] * counts[1]:,} pure plan pairs, more than "
            f"the limit of {max_profiles:,} (Farina 2023, §9.5: Ξ has no polynomial description "
            f"in general)")
    plans = [enumerate_reduced_plans(sf, i, max_plans=max_profiles) for i in range(2)]
    holders = [sp.csr_array(plans[i].T.astype(np.int8)) for i in range(2)]   # sequence -> plans
    s1, s2 = space.pairs[:, 0], space.pairs[:, 1]
    c1 = np.diff(holders[0].indptr)[s1]
    c2 = np.diff(holders[1].indptr)[s2]
    per = c1.astype(np.int64) * c2
    P, K = space.num_pairs, counts[0] * counts[1]
    row = np.repeat(np.arange(P), per)
    local = np.arange(int(per.sum())) - np.repeat(np.cumsum(per) - per, per)
    first = holders[0].indices[holders[0].indptr[s1][row] + local // c2[row]]
    second = holders[1].indices[holders[1].indptr[s2][row] + local % c2[row]]
    profile = first.astype(np.int64) * counts[1] + second
    matrix = sp.csr_array((np.ones(row.size), (row, P + 1 + profile)), shape=(P, P + 1 + K))
    return ScaledExtensionChain(P + 1 + K, np.array([P]), np.array([P]), np.zeros(K, np.int64),
                                P + 1 + np.arange(K), np.arange(P), matrix)
