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

:func:`correlation_chain` runs the recursion breadth-first: all calls of one depth are rows of
integer arrays (Decompose (σ1, σ2), FillOutRow (σ1, σ2, j1), FillOutColumn (σ1, σ2, j2)), and a
frontier is expanded with sort-merge joins (children of a sequence from a CSR grouping, j1 ⇌ j2 by
binary search in the sorted connected pairs, each star's centre from the ranks counted once per
(j, parent of the other's information set)). The number of numpy steps is the depth of the
recursion, not the number of pairs: S2254's 13.3 M relevant pairs are filled without a Python
loop over them (the recursive walk, kept as :func:`correlation_chain_recursive` for the tests,
took 52 s on B2323's 3.9 M pairs against 18 s, loaded). The learning iterations on the chain are
vectorised too (:mod:`lpgame.equilibria.correlated.scaled_extension`). The build's keys are int64
(σ1·|Σ2| + σ2 exceeds int32 on the big rows); the chain it returns stores int32 positions into
the relevant pairs while they fit (int64 otherwise).
"""

from __future__ import annotations

import sys

import numpy as np
import scipy.sparse as sp

from lpgame.equilibria.correlated.efce import CorrelationPlanSpace
from lpgame.equilibria.correlated.scaled_extension import ScaledExtensionChain
from lpgame.errors import InvalidGameError, LpgameError
from lpgame.lp.sorted_keys import expand, member, unique


def correlation_chain(space: CorrelationPlanSpace) -> ScaledExtensionChain:
    """The chain of splits and sums whose points are the plans of 𝒱 = Ξ, indexed like
    ``space.pairs`` (module docstring). Raises InvalidGameError when the game is not
    triangle-free (then 𝒱 ≠ Ξ in general and no such chain of this form exists).

    Algorithm 9.3 run breadth-first: every call of ``Decompose``, ``FillOutRow`` and
    ``FillOutColumn`` at one depth of the recursion is a row of an integer array, and a whole
    frontier is expanded by joins on sorted keys (no per-pair Python). The chain is the same as
    :func:`correlation_chain_recursive`'s (same splits and sums, another order).
    """
    _refuse_triangles(space)
    t1, t2 = space.trees
    m1, m2 = t1.num_infosets, t2.num_infosets
    n1, n2 = t1.num_sequences, space.n2
    inf1, inf2 = t1.seq_infoset, t2.seq_infoset                  # ∅ -> m_i
    first1, first2 = t1.infoset_first, t2.infoset_first
    size1, size2 = t1.infoset_size, t2.infoset_size
    par1, par2 = t1.infoset_parent[:m1], t2.infoset_parent[:m2]
    kids1 = _groups(par1, n1)                                    # sequence -> child infosets
    kids2 = _groups(par2, n2)
    cj1, cj2 = space.connected[:, 0], space.connected[:, 1]
    conn_keys = np.sort(cj1 * (m2 + 1) + cj2)

    def connected(j1, j2):
        return member(conn_keys, j1 * (m2 + 1) + j2)

    # edges j1 ⇌ j2 grouped by their parents' pair; rank of each end among the other's siblings
    edge_parent = par1[cj1] * n2 + par2[cj2]
    edge_order = np.argsort(edge_parent, kind="stable")
    edge_sorted = edge_parent[edge_order]
    key1 = cj1 * n2 + par2[cj2]                                  # (j1, parent of j2)
    key2 = cj2 * n1 + par1[cj1]                                  # (j2, parent of j1)
    u1, inv1, cnt1 = unique(key1, return_inverse=True, return_counts=True)
    u2, inv2, cnt2 = unique(key2, return_inverse=True, return_counts=True)
    centre1 = cnt1[inv1] >= cnt2[inv2]                           # j1 is the star's centre

    out = _ChainParts(n2)
    dec = (np.zeros(1, np.int64), np.zeros(1, np.int64))         # Decompose((∅, ∅))
    row = (np.zeros(0, np.int64),) * 3                           # FillOutRow(σ1, σ2, j1)
    col = (np.zeros(0, np.int64),) * 3                           # FillOutColumn(σ1, σ2, j2)
    while dec[0].size or row[0].size or col[0].size:
        new_dec1, new_dec2, new_row, new_col = [], [], [], []
        # ---- Decompose(σ1, σ2)
        d1, d2 = dec
        if d1.size:
            # children of σ1 joinable with σ2 that have no neighbour among σ2's children (rank 0)
            call, j = _children(kids1, d1)
            ok = (d2[call] == 0) | connected(j, inf2[d2[call]])
            call, j = call[ok], j[ok]
            lone = ~member(u1, j * n2 + d2[call])
            c_call1, c_j1 = call[lone], j[lone]
            call, j = _children(kids2, d2)
            ok = (d1[call] == 0) | connected(inf1[d1[call]], j)
            call, j = call[ok], j[ok]
            lone = ~member(u2, j * n1 + d1[call])
            c_call2, c_j2 = call[lone], j[lone]
            # the edges between the two groups of children, each with its star's centre
            lo = np.searchsorted(edge_sorted, d1 * n2 + d2, "left")
            hi = np.searchsorted(edge_sorted, d1 * n2 + d2, "right")
            e_call, loc = expand(hi - lo)
            e = edge_order[lo[e_call] + loc]
            by1 = centre1[e]
            c_call1 = np.concatenate([c_call1, e_call[by1]])
            c_j1 = np.concatenate([c_j1, cj1[e[by1]]])
            c_call2 = np.concatenate([c_call2, e_call[~by1]])
            c_j2 = np.concatenate([c_j2, cj2[e[~by1]]])
            # centres of player 1: split ξ[σ1, σ2] over ξ[(I, a), σ2]; recurse
            u = unique(c_call1 * (m1 + 1) + c_j1)
            call, big = u // (m1 + 1), u % (m1 + 1)
            kids = out.split(0, d1[call] * n2 + d2[call], first1[big], size1[big], d2[call])
            new_dec1.append(kids)
            new_dec2.append(np.repeat(d2[call], size1[big]))
            # ... and for each of its leaves j2 and a2: a sum, then FillOutRow
            sel = by1
            ec, ej1, ej2 = e_call[sel], cj1[e[sel]], cj2[e[sel]]
            s2 = out.sums_over(0, d1[ec], first2[ej2], size2[ej2], first1[ej1], size1[ej1])
            new_row.append((np.repeat(d1[ec], size2[ej2]), s2, np.repeat(ej1, size2[ej2])))
            # centres of player 2 (symmetric)
            u = unique(c_call2 * (m2 + 1) + c_j2)
            call, big = u // (m2 + 1), u % (m2 + 1)
            kids = out.split(1, d1[call] * n2 + d2[call], first2[big], size2[big], d1[call])
            new_dec1.append(np.repeat(d1[call], size2[big]))
            new_dec2.append(kids)
            sel = ~by1
            ec, ej1, ej2 = e_call[sel], cj1[e[sel]], cj2[e[sel]]
            s1 = out.sums_over(1, d2[ec], first1[ej1], size1[ej1], first2[ej2], size2[ej2])
            new_col.append((s1, np.repeat(d2[ec], size1[ej1]), np.repeat(ej2, size1[ej1])))
        # ---- FillOutRow(σ1, σ2, j1): the children j2 of σ2 joinable with σ1
        r1, r2, rj = row
        if r1.size:
            call, j = _children(kids2, r2)
            ok = (r1[call] == 0) | connected(inf1[r1[call]], j)
            call, j = call[ok], j[ok]
            conn = connected(rj[call], j)
            c, jj = call[conn], j[conn]
            a2 = out.sums_over(0, r1[c], first2[jj], size2[jj], first1[rj[c]], size1[rj[c]])
            c2, jj2 = call[~conn], j[~conn]
            b2 = out.split(1, r1[c2] * n2 + r2[c2], first2[jj2], size2[jj2], r1[c2])
            cc = np.concatenate([np.repeat(c, size2[jj]), np.repeat(c2, size2[jj2])])
            new_row.append((r1[cc], np.concatenate([a2, b2]), rj[cc]))
        # ---- FillOutColumn(σ1, σ2, j2): the children j1 of σ1 joinable with σ2
        q1, q2, qj = col
        if q1.size:
            call, j = _children(kids1, q1)
            ok = (q2[call] == 0) | connected(j, inf2[q2[call]])
            call, j = call[ok], j[ok]
            conn = connected(j, qj[call])
            c, jj = call[conn], j[conn]
            a1 = out.sums_over(1, q2[c], first1[jj], size1[jj], first2[qj[c]], size2[qj[c]])
            c2, jj2 = call[~conn], j[~conn]
            b1 = out.split(0, q1[c2] * n2 + q2[c2], first1[jj2], size1[jj2], q2[c2])
            cc = np.concatenate([np.repeat(c, size1[jj]), np.repeat(c2, size1[jj2])])
            new_col.append((np.concatenate([a1, b1]), q2[cc], qj[cc]))
        dec = (np.concatenate(new_dec1) if new_dec1 else np.zeros(0, np.int64),
               np.concatenate(new_dec2) if new_dec2 else np.zeros(0, np.int64))
        row = tuple(np.concatenate([r[k] for r in new_row]) if new_row else np.zeros(0, np.int64)
                    for k in range(3))
        col = tuple(np.concatenate([r[k] for r in new_col]) if new_col else np.zeros(0, np.int64)
                    for k in range(3))
    return out.chain(space)


def _refuse_triangles(space: CorrelationPlanSpace) -> None:
    triangle = space.triangle()
    if triangle is not None:
        raise InvalidGameError(
            f"{space.sf.game.name}: not triangle-free (Farina 2023, Def. 9.5; witness "
            f"{' / '.join(triangle)}), so its correlation plans have no scaled-extension chain "
            f"of Algorithm 9.3; optimal EFCE by learning needs a triangle-free two-player game")


def _groups(keys: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Items grouped by key in [0, n): (items in key order, indptr)."""
    order = np.argsort(keys, kind="stable")
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(keys, minlength=n), out=indptr[1:])
    return order, indptr


def _children(groups: tuple[np.ndarray, np.ndarray], seqs: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """(call, child information set) for every child information set of every call's sequence."""
    order, indptr = groups
    call, local = expand(indptr[seqs + 1] - indptr[seqs])
    return call, order[indptr[seqs][call] + local]


class _ChainParts:
    """Splits and sums gathered as arrays of pair keys σ1·|Σ2| + σ2."""

    def __init__(self, n2: int):
        self.n2 = n2
        self.parents: list[np.ndarray] = []
        self.slots: list[np.ndarray] = []
        self.counts: list[np.ndarray] = []
        self.targets: list[np.ndarray] = []
        self.members: list[np.ndarray] = []
        self.lengths: list[np.ndarray] = []

    def _key(self, side: int, varying: np.ndarray, fixed: np.ndarray) -> np.ndarray:
        return varying * self.n2 + fixed if side == 0 else fixed * self.n2 + varying

    def split(self, side: int, parent: np.ndarray, first: np.ndarray, size: np.ndarray,
              fixed: np.ndarray) -> np.ndarray:
        """Splits of ``parent`` over the actions first..first+size−1 of one player (``side``),
        the other's sequence ``fixed``; returns the new sequences of that player, split by split."""
        owner, local = expand(size)
        seqs = first[owner] + local
        self.parents.append(parent)
        self.counts.append(np.asarray(size, np.int64))
        self.slots.append(self._key(side, seqs, fixed[owner]))
        return seqs

    def sums_over(self, side: int, fixed: np.ndarray, first: np.ndarray, size: np.ndarray,
                  m_first: np.ndarray, m_size: np.ndarray) -> np.ndarray:
        """For every call k and every action σ of the *other* player's group
        first[k]..first[k]+size[k]−1: ξ[fixed_k ⊕ σ] = Σ_a ξ[(m_first[k]+a) ⊕ σ], the summed
        sequences being ``side``'s (side 0: fixed is σ1, summands (a, σ); side 1: the mirror).
        Returns the σ, call by call."""
        owner, local = expand(size)
        other = first[owner] + local
        fx = fixed[owner]
        self.targets.append(fx * self.n2 + other if side == 0 else other * self.n2 + fx)
        mo, ml = expand(m_size[owner])
        summand = m_first[owner][mo] + ml
        self.members.append(summand * self.n2 + other[mo] if side == 0
                            else other[mo] * self.n2 + summand)
        self.lengths.append(m_size[owner])
        return other

    def chain(self, space: CorrelationPlanSpace) -> ScaledExtensionChain:
        def cat(parts: list[np.ndarray]) -> np.ndarray:
            return np.concatenate(parts) if parts else np.zeros(0, np.int64)

        n2 = self.n2
        index = space.index
        parents, slots, counts = cat(self.parents), cat(self.slots), cat(self.counts)
        targets, members, lengths = cat(self.targets), cat(self.members), cat(self.lengths)
        rows = np.repeat(np.arange(targets.size), lengths)
        matrix = sp.csr_array((np.ones(members.size), (rows, index(members // n2, members % n2))),
                              shape=(targets.size, space.num_pairs))
        try:
            return ScaledExtensionChain(
                space.num_pairs, index([0], [0]), index(parents // n2, parents % n2),
                np.repeat(np.arange(counts.size), counts), index(slots // n2, slots % n2),
                index(targets // n2, targets % n2), matrix)
        except LpgameError as exc:
            raise LpgameError(f"{space.sf.game.name}: the decomposition of Algorithm 9.3 did "
                              f"not fill every relevant pair once ({exc})") from exc


def correlation_chain_recursive(space: CorrelationPlanSpace) -> ScaledExtensionChain:
    """Algorithm 9.3 as the thesis writes it, a recursive walk of the pairs in Python: the
    reference that :func:`correlation_chain` (breadth-first, vectorised) is tested against."""
    _refuse_triangles(space)
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
    from lpgame.equilibria.correlated.reduced_plans import count_reduced_plans, enumerate_reduced_plans
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
