"""Sheriff S2*NBr* compiled in closed form with numpy, without expanding the tree node by node.

What is built. The game is the one of :mod:`lpgame.games.sheriff` (Farina 2023, App. A.1.9,
L6699–6703; notes/farina-thesis.md §2.7): the Smuggler loads n ∈ {0, …, N} items unseen, then r
rounds of a bribe b ∈ {0, …, B} by the Smuggler (who sees n) and an answer accept/decline by the
Sheriff (who does not); only the last round decides the payoffs. :func:`compile_sheriff` returns a
:class:`CompiledSheriff`, an :class:`~lpgame.game.tree.IndexedGame` whose
:class:`~lpgame.game.tree_index.CompiledTreeIndex` is filled from arrays: no state, no networkx
node and no per-node Python call. :func:`lpgame.compile.compile_game` takes it as it takes
:class:`~lpgame.games.domino_compiled.CompiledDomino`.

Numbering. Let K = B + 1 and W = 2K. A round's outcome is the digit c = 2b + a (bribe b, answer a:
0 accept, 1 decline), so a public history of k rounds is a k-digit mixed-radix number m ∈ [0, W^k)
(first round most significant) and a leaf is (n, m) with m < W^r, leaf number n·W^r + m. The tree
is complete with the same branching at every level, so depth-first preorder is lexicographic order
and every count below is a geometric sum: M_k = Σ_{j<r−k} W^j is the number of the Smuggler's
decision nodes in the subtree of one of them after k rounds, and likewise of the Sheriff's
information sets below and at one of round k + 1.

* Smuggler: set 0 is the loading (actions ``load 0`` … ``load N``, sequences 1 … N + 1); set
  (n, m) after k rounds is ``1 + n·M_0 + pos(m)`` with pos(∅) = 0 and pos(m·W + c) =
  pos(m) + 1 + c·M_{k+1} (its earlier siblings' subtrees come first); its sequences start at
  N + 2 + (id − 1)·K; its parent sequence is ``load n`` (k = 0) or the parent set's first
  sequence + b (the last bribe); its depth is k + 1.
* Sheriff: the set (m, b) of round k + 1 (k earlier rounds m, current bribe b) is first met under
  n = 0, at position q(∅, b) = b·M_0 and q(m·W + 2b + a, b') = q(m, b) + 1 + (a·K + b')·M_{k+1}
  (after answer a comes the Smuggler's node, then its bribes b'); sequences 1 + 2q, 2 + 2q; parent
  sequence 0 (k = 0) or the previous set's sequence 1 + 2q(m, b) + a; depth k.
* Leaves: the Smuggler's last sequence is the first sequence of (n, m') plus b_r, the Sheriff's
  1 + 2q(m', b_r) + a_r (m' the first r − 1 rounds); the payoffs depend on (n, b_r, a_r) only and
  come from a table of (N + 1)·K·2 entries filled by the rules' own :meth:`SheriffRules.payoffs`
  (the same Python numbers, hence the same floats and exact Fractions); no chance, every leaf
  reached with probability 1.

Why it equals the rules expansion. :func:`~lpgame.game.rules.expand` walks the rules depth first
with children in action order and :func:`~lpgame.game.tree_index.build_tree_index` numbers the
information sets in order of first visit, their sequences contiguously in action order, the leaves
in visit order. Every Smuggler node is alone in its set (it sees n and all public actions), so its
first visit is its preorder; every Sheriff set (m, b) holds one node per n and is first visited
under n = 0, whose subtree comes first. Hence the positions above are the expansion's numbers. The
labels are assembled from the rules' own texts (:meth:`SheriffRules.history_text` of each round
outcome and bribe, the actions of :meth:`SheriffRules.legal_actions`) with vectorised string
concatenation over the W^k histories. tests/test_sheriff_compiled.py compares the two index by
index on every small instance (all N ≤ 3, B ≤ 2, rounds ≤ 3, and non-default v, p, s), on S2133
and, marked slow, on S2254.

Timing: make + :func:`~lpgame.compile.compile_game` with
``python -m benchmarks.bench_game_build sheriff N=20 B=5 rounds=4`` (add ``structured=false`` for
the expansion), one process at a time on 2 cores shared with two other heavy jobs, so rough:
S2133 0.19 s → 0.02 s, S2254 17.7 s (1.31 GiB) → 0.14 s (0.11 GiB), S2264 33.6 s (2.24 GiB) →
0.19 s (0.15 GiB); docs/explanation/benchmarks.md, "Building the Sheriff rows without the tree".
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from lpgame.game.tree import IndexedGame
from lpgame.game.tree_index import CompiledTreeIndex, PlayerIndex, checked_payoffs
from lpgame.limits import check_prediction
from lpgame.rational import to_fraction

BYTES_PER_LEAF = 40     # two sequences, chance, two payoffs: what the index keeps per leaf


class CompiledSheriff(IndexedGame):
    """Sheriff as a compiled index (module docstring); no networkx tree is built. ``rules`` is the
    :class:`~lpgame.games.sheriff.SheriffRules`, so the explicit tree can still be expanded."""

    def __init__(self, rules, memory_limit: int | None = None):
        self.rules = rules
        self.name = rules.name
        self.num_players = 2
        self.player_names = list(rules.player_names)
        self.index = _compile(rules, memory_limit)

    def __repr__(self) -> str:
        s = self.sizes()
        return (f"CompiledSheriff({self.name!r}, nodes={s['nodes']}, infosets={s['infosets']}, "
                f"sequences={s['sequences']})")


def compile_sheriff(rules, memory_limit: int | None = None) -> CompiledSheriff:
    """Compile a :class:`~lpgame.games.sheriff.SheriffRules` (module docstring)."""
    return CompiledSheriff(rules, memory_limit)


def _payoff_table(rules) -> tuple[list[tuple], list[tuple]]:
    """The payoffs (as given, and as floats) of a leaf ending in (n, bribe b, answer a), entry
    (n·K + b)·2 + a, from the rules, checked by :func:`~lpgame.game.tree_index.checked_payoffs`
    as :func:`~lpgame.game.tree_index.build_tree_index` checks every leaf."""
    table, floats = [], []
    for n in range(rules.N + 1):
        for b in range(rules.B + 1):
            for accepted in (True, False):
                payoffs = tuple(rules.payoffs((n, ((b, accepted),))))
                state = f"(n={n}, last bribe {b} {'accepted' if accepted else 'declined'})"
                floats.append(checked_payoffs(payoffs, 2, f"{rules.name}: leaf {state}"))
                table.append(payoffs)
    return table, floats


def _player_index(labels, actions, parent_seq, first_seq, depth, num_sequences,
                  num_decision_nodes) -> PlayerIndex:
    pidx = PlayerIndex(infoset_labels=labels.tolist(), infoset_actions=actions,
                       infoset_parent_seq=parent_seq, infoset_first_seq=first_seq,
                       infoset_depth=depth, num_sequences=int(num_sequences),
                       num_decision_nodes=int(num_decision_nodes))
    pidx.finalize()
    return pidx


def _compile(rules, memory_limit: int | None) -> CompiledTreeIndex:
    N, K, r = rules.N, rules.B + 1, rules.rounds   # noqa: N806
    W = 2 * K   # noqa: N806
    num_leaves = (N + 1) * W ** r
    check_prediction(f"compiling {rules.name} ({num_leaves} leaves)", num_leaves * BYTES_PER_LEAF,
                     memory_limit)
    M = [sum(W ** j for j in range(r - k)) for k in range(r + 1)]   # noqa: N806 (M[r] = 0)
    add = np.char.add
    # texts from the rules: a round's outcome c = 2b + a, a pending bribe b; histories of k rounds
    outcome = np.array([rules.history_text(((b, a == 0),)) for b in range(K) for a in range(2)])
    offer = np.array([rules.history_text(((b, None),)) for b in range(K)])
    history = [np.array([""])]
    for k in range(1, r):
        history.append(add(add(history[-1][:, None], ", " if k > 1 else ""),
                           outcome[None, :]).ravel())
    load_actions = tuple(rules.legal_actions(rules.initial_state()))
    bribe_actions = tuple(rules.legal_actions((0, ())))
    answer_actions = tuple(rules.legal_actions((0, ((0, None),))))

    # ---- Smuggler: set 0 the loading, then (n, m) after k rounds
    J0 = 1 + (N + 1) * M[0]   # noqa: N806
    labels0 = np.empty(J0, dtype=object)
    parent0 = np.zeros(J0, dtype=np.int64)
    depth0 = np.zeros(J0, dtype=np.int64)
    labels0[0] = rules.infoset_key(rules.initial_state())
    prefix = np.array([rules.infoset_key((n, ())) for n in range(N + 1)])   # "Smuggler n items"
    b_of = np.arange(W) // 2                                                # bribe of an outcome
    ids = 1 + np.arange(N + 1, dtype=np.int64)[:, None] * M[0]             # (N + 1, W^k)
    parents = 1 + np.arange(N + 1, dtype=np.int64)[:, None]                 # the load sequences

    def first0(j):
        return N + 2 + (j - 1) * K

    for k in range(r):
        if k:
            parents = (first0(ids)[:, :, None] + b_of).reshape(N + 1, -1)
            ids = (ids[:, :, None] + 1 + np.arange(W) * M[k]).reshape(N + 1, -1)
            text = add(prefix[:, None], add(" | ", history[k])[None, :])
        else:
            text = prefix[:, None]
        flat = ids.ravel()
        labels0[flat] = text.ravel()
        parent0[flat] = parents.ravel()
        depth0[flat] = k + 1
    first_seq0 = np.concatenate([[1], first0(np.arange(1, J0, dtype=np.int64))])
    smuggler = _player_index(
        labels0, [load_actions] + [bribe_actions] * (J0 - 1), parent0, first_seq0, depth0,
        1 + (N + 1) + (J0 - 1) * K, J0)
    last_smuggler = ids                                                     # (N + 1, W^(r−1))

    # ---- Sheriff: (m, b) of round k + 1
    J1 = K * M[0]   # noqa: N806
    labels1 = np.empty(J1, dtype=object)
    parent1 = np.zeros(J1, dtype=np.int64)
    depth1 = np.zeros(J1, dtype=np.int64)
    child = (np.arange(2)[:, None] * K + np.arange(K)[None, :])             # (a, b') → a·K + b'
    q = np.arange(K, dtype=np.int64)[None, :] * M[0]                        # (W^k, K)
    parents = np.zeros_like(q)
    for k in range(r):
        if k:
            parents = np.broadcast_to(1 + 2 * q[:, :, None, None] + np.arange(2)[:, None],
                                      q.shape + (2, K)).reshape(-1, K)
            q = (q[:, :, None, None] + 1 + child * M[k]).reshape(-1, K)
            text = add(add("Sheriff | ", history[k])[:, None], add(", ", offer)[None, :])
        else:
            text = add("Sheriff | ", offer)[None, :]
        flat = q.ravel()
        labels1[flat] = text.ravel()
        parent1[flat] = parents.ravel()
        depth1[flat] = k
    sheriff = _player_index(labels1, [answer_actions] * J1, parent1,
                            1 + 2 * np.arange(J1, dtype=np.int64), depth1, 1 + 2 * J1,
                            (N + 1) * J1)

    # ---- leaves (n, m', b_r, a_r) in that mixed-radix order, the expansion's visit order
    P = W ** (r - 1)   # noqa: N806
    shape = (N + 1, P, K, 2)
    seq0 = np.broadcast_to(first0(last_smuggler)[:, :, None, None] + np.arange(K)[:, None], shape)
    seq1 = np.broadcast_to(1 + 2 * q[:, :, None] + np.arange(2), shape)
    sequences = np.stack([seq0.ravel(), seq1.ravel()], axis=1)
    table, float_table = _payoff_table(rules)
    floats = np.array(float_table).reshape(N + 1, 1, K, 2, 2)
    payoffs = np.broadcast_to(floats, shape + (2,)).reshape(-1, 2)

    def exact_data():
        exact = [tuple(to_fraction(u) for u in row) for row in table]
        entry = np.broadcast_to(np.arange(len(table)).reshape(N + 1, 1, K, 2), shape)
        return [Fraction(1)] * num_leaves, [exact[t] for t in entry.ravel().tolist()]

    return CompiledTreeIndex(players=[smuggler, sheriff],
                             num_nodes=J0 + (N + 1) * J1 + num_leaves, num_chance_nodes=0,
                             sequences=sequences, chance=np.ones(num_leaves), payoffs=payoffs,
                             exact_builder=exact_data)


__all__ = ["CompiledSheriff", "compile_sheriff"]
