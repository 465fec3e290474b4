"""GameShrink (Gilpin & Sandholm, EC'06, Algorithm 2) with an information filter that is sound.

**What the paper does.** Algorithm 2 walks the signal tree (Definition 4) and merges every pair of
*sibling* nodes whose subtrees are ordered game isomorphic (Definition 5, decided by Algorithm 1;
here by :func:`~lpgame.abstraction.signal_tree.canonical_classes`, checked against the literal
Algorithm 1 on small games). Theorem 2 says an equilibrium of the filtered game, copied to every
member of each merged class, is an equilibrium of the original game.

**The pitfall.** The signal tree holds both players' signals, but an information filter F^j is a
partition of one player's *view* (public signals + own private signals, Definition 2) applied to
every context that player cannot tell apart. A sibling merge of player 2's K1 ~ K2 below player 1's
J1 is not a filter: below player 1's K1, player 2's K1 is impossible. Merging player 2's cards only
where the merge was found would give player 2 information sets that depend on player 1's card.

**The filter built here** (per player i and round j a partition of i's views,
:class:`~lpgame.abstraction.views.ViewPartition`) is computed in two steps.

1. *GameShrink's proposal, lifted to views.* Two views w, w' of player i at the end of round j are
   proposed for one class when their round j − 1 views are already in one class and the signal-tree
   nodes consistent with them (the contexts i cannot tell apart: all deals of the other player's
   private signals) can be matched one to one with equal conditional probability P(node | view) and
   ordered game isomorphic subtrees — Algorithm 1's perfect matching applied to the set of contexts
   instead of a single node. When a view is a single node (player 1's first card) this is exactly
   Definition 5, so on the Figure 1 game it merges J1 ~ J2 and K1 ~ K2 for both players.

2. *Refinement to a sound filter.* The proposal is split until it is **stable**: for every player i,
   round j and class c, all views v ∈ c have

   * j < r: the same conditional distribution of i's next class, P(C_i^{j+1} = · | v), and
   * j = r: the same conditional distribution of (the other player's class C_{−i}^r, showdown
     payoff class O), P(C_{−i}^r, O | v)

   (and every class of round j lies in one class of round j − 1). Splitting is iterated to the
   fixed point (coarsest stable refinement, as in partition refinement / bisimulation).

**Why a stable filter is lossless (Theorem 2 for this filter).** Let Z = (both players' class paths,
O). By backward induction over rounds the stability conditions give, for every view v of player i
at round j in class c, P(Z_rest | v) = g_c(Z_rest) with Z_rest = (C_{−i}^{1..r}, C_i^{j+1..r}, O):
at j = r it is the condition itself (C_{−i}^r determines C_{−i}^{1..r} because classes refine
earlier ones), and for j < r, P(Z_rest | v) = Σ_{c'} P(C_i^{j+1} = c' | v)·δ_{c'} ⊗ g_{c'}.
By Bayes' rule this means P(V_i^j = v | V_i^{<j}, Z) = P(V_i^j = v | V_i^{<j}, C_i^j): given the
filtered game's chance outcomes Z, player i's real signals are private noise drawn from i's own
classes only. Payoffs depend on the betting and O, the other player's lifted strategy on its classes
and the betting. So any strategy of i in the original game Γ — a function of real signals — is a
mixed strategy of the filtered game Γ_F (sample the noise, then play), with the same payoff against
the lifted opponent; by Kuhn's theorem (Γ_F has perfect recall) a behaviour strategy does as well.
Conversely a lifted strategy earns in Γ what it earns in Γ_F. Hence the lifted profile has the same
values and the same best-response gains in Γ as in Γ_F: NashConv is preserved exactly, and an
equilibrium of Γ_F lifts to an equilibrium of Γ. The tests check this numerically and in exact
arithmetic on the toy game, on card-level Leduc and on random small ordered games.

``refinement_splits`` in the report counts the classes step 2 had to add to GameShrink's proposal:
0 on the Figure 1 game, Kuhn and One-Card Poker; 4 on Leduc, where the proposal merges player 1's J
with a Q and with a K on the board (both lose 3/4 and tie 1/4) although player 2's classes tell the
boards apart — unrefined, that filter's lifted equilibrium has NashConv 0.76 in Leduc; 12,630 on
Rhode Island Hold'em, where the unrefined proposal has exactly the paper's LP size (1,237,238 rows,
50,428,638 nonzeros) and the sound filter 5,498,768 rows.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from lpgame.abstraction.compile import (
    OrderedIndexedGame,
    compile_ordered_game,
    sequence_form_sizes,
    view_index,
)
from lpgame.abstraction.ordered_game import OrderedSignalGame
from lpgame.abstraction.signal_tree import (
    canonical_classes,
    filtered_signal_tree_sizes,
    multiset_ids,
    pair_items,
    payoff_classes,
    quantize,
)
from lpgame.abstraction.views import ViewPartition
from lpgame.limits import check_prediction

IDENTITY_MESSAGE = "no isomorphic signals: the abstraction is the identity"
BYTES_PER_DEAL = 400     # peak memory per signal-tree leaf (Rhode Island: 6.5e6 leaves, ~2 GB)


def _views_at(game: OrderedSignalGame, player: int, round_index: int, depth: int) -> np.ndarray:
    """View of ``player`` at round ``round_index`` of every deal at ``depth`` (cached)."""
    cache = game.__dict__.setdefault("_views_at_cache", {})
    key = (player, round_index, depth)
    if key not in cache:
        views = view_index(game)
        if depth == game.round_end_depth[round_index]:
            cache[key] = views.of_deal[player][round_index]
        else:
            cache[key] = views.views_of(player, round_index, game.deals(depth)[0])
    return cache[key]


def _conditional(views: np.ndarray, items: np.ndarray, prob: np.ndarray, num_views: int,
                 aggregate: bool) -> tuple[np.ndarray, np.ndarray]:
    """(groups, items) for the multiset of (item, P(item | view)) of every view; with ``aggregate``
    the weights of equal items are summed first (a distribution), else one entry per context."""
    total = np.bincount(views, weights=prob, minlength=num_views)
    if not aggregate:
        return views, pair_items(items, quantize(prob / total[views]))
    width = int(items.max()) + 1 if len(items) else 1
    key = views.astype(np.int64) * width + items
    uniq, inverse = np.unique(key, return_inverse=True)
    weight = np.bincount(inverse.reshape(-1), weights=prob, minlength=len(uniq))
    groups = uniq // width
    return groups, pair_items(uniq % width, quantize(weight / total[groups]))


def propose_view_partition(game: OrderedSignalGame, classes: list[np.ndarray]) -> list[list[np.ndarray]]:
    """Step 1 of the module docstring: labels of each view from GameShrink's isomorphism classes."""
    views = view_index(game)
    r = len(game.rounds)
    labels = [[None] * r for _ in range(2)]
    for i in range(2):
        for j in range(r):
            depth = game.round_end_depth[j]
            _, prob, _ = game.deals(depth)
            v = views.of_deal[i][j]
            groups, items = _conditional(v, classes[depth], prob, views.num_views(i, j), False)
            prefix = labels[i][j - 1][views.parent[i][j]] if j else None
            labels[i][j] = multiset_ids(groups, items, views.num_views(i, j), prefix=prefix)
    return labels


def _enforce_refinement(game: OrderedSignalGame, labels: list[list[np.ndarray]]) -> ViewPartition:
    views = view_index(game)
    r = len(game.rounds)
    fixed = [[None] * r for _ in range(2)]
    for i in range(2):
        for j in range(r):
            if j == 0:
                fixed[i][j] = np.asarray(labels[i][j], dtype=np.int64)
                continue
            parent = fixed[i][j - 1][views.parent[i][j]]
            _, inv = np.unique(np.stack([parent, labels[i][j]], axis=1), axis=0,
                               return_inverse=True)
            fixed[i][j] = inv.reshape(-1)
    return ViewPartition.from_labels(views, fixed)


def refine_to_stable(game: OrderedSignalGame, partition: ViewPartition,
                     max_iterations: int = 100) -> tuple[ViewPartition, int]:
    """Step 2 of the module docstring: split classes until the stability conditions hold.
    Returns the stable partition and the number of sweeps."""
    views = view_index(game)
    r = len(game.rounds)
    S = game.depth
    cards_S, prob_S, _ = game.deals(S)
    outcome_class = payoff_classes(game)[game.outcomes(cards_S)]
    for sweep in range(1, max_iterations + 1):
        before = partition.counts()
        labels = [[None] * r for _ in range(2)]
        for i in range(2):
            for j in range(r):
                V = views.num_views(i, j)
                if j == r - 1:
                    v = views.of_deal[i][j]
                    opp = partition.view_class[1 - i][j][views.of_deal[1 - i][j]]
                    items = opp.astype(np.int64) * 3 + outcome_class
                    prob = prob_S
                else:
                    depth = game.round_end_depth[j + 1]
                    _, prob, _ = game.deals(depth)
                    v = _views_at(game, i, j, depth)
                    items = partition.view_class[i][j + 1][views.of_deal[i][j + 1]].astype(np.int64)
                groups, hashed = _conditional(v, items, prob, V, True)
                labels[i][j] = multiset_ids(groups, hashed, V, prefix=partition.view_class[i][j])
        partition = _enforce_refinement(game, labels)
        if partition.counts() == before:
            return partition, sweep
    raise RuntimeError(f"{game.name}: refinement did not stabilise in {max_iterations} sweeps")


@dataclass
class Abstraction:
    """The result of :func:`gameshrink`: the sound filter, sizes before/after and timings."""

    game: OrderedSignalGame
    partition: ViewPartition
    identity: bool
    signal_tree: dict
    before: dict
    after: dict
    seconds: float
    proposal_classes: list
    refinement_splits: int
    sweeps: int
    message: str = ""
    refined: bool = True
    _compiled: dict = field(default_factory=dict, repr=False)

    def compile(self, memory_limit: int | None = None) -> OrderedIndexedGame:
        """The filtered (abstract) game Γ_F as a flat index."""
        if "abstract" not in self._compiled:
            self._compiled["abstract"] = compile_ordered_game(self.game, self.partition,
                                                              memory_limit=memory_limit)
        return self._compiled["abstract"]

    def compile_original(self, memory_limit: int | None = None) -> OrderedIndexedGame:
        """The original game Γ as a flat index (raises ModelTooLargeError when too large)."""
        if "original" not in self._compiled:
            self._compiled["original"] = compile_ordered_game(self.game, None,
                                                              memory_limit=memory_limit)
        return self._compiled["original"]

    def report(self) -> dict:
        """The JSON ``abstraction`` object: method, sizes ``before`` and ``after`` (information sets,
        sequences, LP rows/cols/nnz, signal-tree nodes, ...), ``seconds`` and notes."""
        def part(sizes: dict, signal_nodes: int, how: str) -> dict:
            return {"infosets": sizes["infosets"], "sequences": sizes["sequences"],
                    "lp": dict(sizes["lp"]), "signal_tree_nodes": signal_nodes,
                    "game_tree_internal_nodes": sizes["internal_nodes"],
                    "terminals": sizes["terminals"], "view_classes": sizes["classes"],
                    "payoff_nonzeros": sizes["payoff_nonzeros"], "computed": how}
        return {
            "method": "gameshrink",
            "game": self.game.name,
            "identity": self.identity,
            "message": self.message,
            "before": part(self.before, self.signal_tree["nodes_before"],
                           "from counts (the original game's sequence form by formula)"),
            "after": part(self.after, self.signal_tree["nodes_after_sound_filter"],
                          "from counts (the abstract game's sequence form by formula)"),
            "signal_tree": dict(self.signal_tree),
            "refined": self.refined,
            "refinement_splits": self.refinement_splits,
            "seconds": self.seconds,
        }


def _paper_internal_nodes(game: OrderedSignalGame, per_depth: list[int]) -> int:
    """Chance + decision nodes of the game tree whose signal tree has ``per_depth`` nodes per depth."""
    tree = game.tree
    total = 0
    for j in range(len(game.rounds)):
        lo = game.round_end_depth[j - 1] if j else 0
        total += sum(per_depth[lo:game.round_end_depth[j]]) * len(tree.starts[j])
        total += per_depth[game.round_end_depth[j]] * (len(tree.decisions[j][0])
                                                        + len(tree.decisions[j][1]))
    return total


def gameshrink(game: OrderedSignalGame, refine: bool = True) -> Abstraction:
    """Run GameShrink on ``game`` and return the sound abstraction (module docstring).

    ``refine=False`` stops after step 1 and returns GameShrink's proposal as the filter: on Rhode
    Island Hold'em it reproduces the paper's LP size exactly, but it is *not* lossless (on Leduc its
    lifted equilibrium has NashConv 0.76 in the original game); it is there to show the difference.

    >>> from lpgame.abstraction.ordered_game import toy_ordered
    >>> a = gameshrink(toy_ordered())
    >>> a.before["internal_nodes"], a.after["internal_nodes"], a.partition.counts()
    (53, 19, [[2], [2]])
    """
    from lpgame.abstraction.compile import joint_states_at_depth

    if not isinstance(game, OrderedSignalGame):
        from lpgame.errors import InvalidGameError
        raise InvalidGameError(f"GameShrink needs a game with ordered signals, got {type(game).__name__}")
    check_prediction(f"GameShrink on {game.name} ({game.num_deals(game.depth)} signal-tree leaves)",
                     game.num_deals(game.depth) * BYTES_PER_DEAL)
    start = time.perf_counter()
    views = view_index(game)
    classes = canonical_classes(game)
    paper_sizes = filtered_signal_tree_sizes(game, classes)
    labels = propose_view_partition(game, classes)
    proposal = _enforce_refinement(game, labels)
    partition, sweeps = refine_to_stable(game, proposal) if refine else (proposal, 0)
    seconds = time.perf_counter() - start
    r = len(game.rounds)
    identity = all(partition.num_classes(i, j) == views.num_views(i, j)
                   for i in range(2) for j in range(r))
    before = sequence_form_sizes(game, None, count_nonzeros=True)
    after = sequence_form_sizes(game, partition, count_nonzeros=True)
    paper = after if not refine else sequence_form_sizes(game, proposal, count_nonzeros=True)
    full_sizes = [game.num_deals(k) for k in range(game.depth + 1)]
    sound_sizes = [joint_states_at_depth(game, partition, k) for k in range(game.depth + 1)]
    signal_tree = {
        "nodes_before": sum(full_sizes),
        "nodes_before_formula": game.signal_tree_size(),
        "nodes_after_paper_merges": sum(paper_sizes),
        "nodes_after_sound_filter": sum(sound_sizes),
        "per_depth_before": full_sizes,
        "per_depth_after_paper_merges": paper_sizes,
        "per_depth_after_sound_filter": sound_sizes,
        "game_tree_internal_nodes_after_paper_merges": _paper_internal_nodes(game, paper_sizes),
    }
    splits = sum(map(sum, partition.counts())) - sum(map(sum, proposal.counts()))
    signal_tree["proposal_without_refinement"] = {
        "view_classes": paper["classes"], "infosets": paper["infosets"],
        "sequences": paper["sequences"], "lp": dict(paper["lp"]),
        "payoff_nonzeros": paper["payoff_nonzeros"],
        "note": "GameShrink's merges lifted to views without the soundness refinement (step 1 "
                "only); not lossless in general (Leduc: lifted NashConv 0.76)"}
    message = IDENTITY_MESSAGE if identity else (
        "merged " + ", ".join(f"player {i + 1} round {j + 1}: {views.num_views(i, j)} → "
                              f"{partition.num_classes(i, j)} views" for i in range(2)
                              for j in range(r)))
    return Abstraction(game, partition, identity, signal_tree, before, after, seconds,
                       proposal.counts(), splits, sweeps, message, refine)


__all__ = ["gameshrink", "Abstraction", "propose_view_partition", "refine_to_stable",
           "IDENTITY_MESSAGE"]
