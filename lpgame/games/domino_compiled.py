"""Domino(M, N) compiled level by level with numpy, without expanding the tree node by node.

The game is the one of :mod:`lpgame.games.domino` (same rules, same tree: one chance node for the
deal, one per draw, forced moves applied automatically), and the result is the same sequence form:
the same information sets with the same labels and actions, the same leaves with the same chance
probabilities and payoffs (tests/test_domino_compiled.py compares the two on every small instance).
What changes is how it is built: :func:`~lpgame.game.rules.expand` calls the rules' Python methods
once per node and writes a networkx tree, about 60 µs a node (Domino(3,2): 1.05 M nodes, 63 s,
ten times HiGHS's solve); here a whole level of the tree is one set of array operations.

Representation. Every node of a level is a row of integer arrays: the two hands, the boneyard (bit
masks over the T tiles), the open ends, the turn number, the tile just drawn (−1 if none), the number
of trailing passes, the chance denominator (the deal count times the boneyard sizes at each draw, so
that the node's chance probability is exactly 1/den), each player's current sequence and decision
depth, and each player's *observation id*.

Information sets by observation histories. Player i knows their dealt hand and every turn, with the
opponent's drawn tiles hidden (module docstring of :mod:`lpgame.games.domino`). An observation id
is a 64-bit hash of the pair (previous observation id, what i saw of the last turn), so two nodes
have the same id exactly when i's observation histories are equal, unless two different pairs hash
alike: every pair made is kept and checked at the end, and a collision raises
:class:`HashCollisionError` (``domino()`` then expands the tree instead). With the tile just drawn
appended, the history is the information set of :meth:`DominoRules.infoset_tuple` (own hand =
dealt hand − own placed + own drawn). Perfect recall holds by construction and is checked anyway
(every node of a set must have the same parent sequence and actions). Forced moves create no node,
so an opponent's turn can take different numbers of tree levels in one information set: the ids
are global, not per level.

Numbering: information sets get ids in order of discovery while the levels are built; at the end
they, their sequences and the leaves are renumbered in the explicit tree's depth-first preorder
(:meth:`_Compiler._preorder`), so the index, and hence the LP HiGHS solves, is the expansion's own.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from lpgame.errors import InvalidGameError, LpgameError
from lpgame.game.tree import IndexedGame
from lpgame.game.tree_index import CompiledTreeIndex, PlayerIndex
from lpgame.limits import check_prediction

OPEN, LEFT, RIGHT, PASS = 0, 1, 2, 3
SIDE_NAMES = {LEFT: "left", RIGHT: "right"}
BYTES_PER_FRONTIER_NODE = 200   # the level's arrays and their children, with slack
BYTES_PER_LEAF = 40             # two sequences, chance, payoff


class HashCollisionError(LpgameError):
    """Two different observation histories hashed alike (about 1e-7 likely on Domino(3,3))."""


class _Observations:
    """Observation histories of one player, named by a 64-bit hash of (parent hash, token).

    Hashing names equal histories alike wherever they occur in the tree, with array operations only;
    every (hash, parent, token) made is recorded, and :meth:`finish` checks that no two different
    (parent, token) pairs share a hash (a collision raises :class:`HashCollisionError`, and the
    caller falls back to the explicit expansion). The empty history is hash 0.
    """

    GOLDEN = np.uint64(0x9E3779B97F4A7C15)
    MIX1, MIX2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)

    COMPACT_AT = 1 << 23   # records kept before merging (bounds the memory of repeats)

    def __init__(self):
        self.records: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.pending = 0
        self.hashes = self.parents = self.tokens = None

    def extend(self, parents: np.ndarray, tokens: np.ndarray) -> np.ndarray:
        parents = parents.astype(np.uint64)
        z = parents * self.GOLDEN + tokens.astype(np.uint64) + np.uint64(1)   # splitmix64
        z ^= z >> np.uint64(30)
        z *= self.MIX1
        z ^= z >> np.uint64(27)
        z *= self.MIX2
        z ^= z >> np.uint64(31)
        z |= np.uint64(1)          # never 0, the empty history
        self.records.append((z, parents, tokens.astype(np.int64)))
        self.pending += len(z)
        if self.pending > self.COMPACT_AT:
            self.compact()
        return z

    def compact(self) -> None:
        """Merge the records into one sorted, repeat-free record, checking for collisions."""
        h = np.concatenate([r[0] for r in self.records])
        p = np.concatenate([r[1] for r in self.records])
        t = np.concatenate([r[2] for r in self.records])
        order = np.argsort(h)
        h, p, t = h[order], p[order], t[order]
        repeat = np.concatenate([[False], h[1:] == h[:-1]])
        clash = repeat & ((p != np.roll(p, 1)) | (t != np.roll(t, 1)))   # any run with two
        # different (parent, token) pairs has two such neighbours, whatever the order inside it
        if np.any(clash):
            raise HashCollisionError
        keep = ~repeat
        self.records = [(h[keep], p[keep], t[keep])]
        self.pending = 0

    def finish(self) -> None:
        """Compact once more and keep the sorted (hash, parent, token) table for lookups."""
        self.compact()
        self.hashes, self.parents, self.tokens = self.records[0]


def _rank_in_groups(counts: np.ndarray) -> np.ndarray:
    """0, 1, …, c−1 for each group of ``counts`` in turn (a child's rank among its siblings)."""
    return np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)


def _domino_index(*, players, num_nodes, num_chance_nodes, sequences, denominators,
                  payoffs) -> CompiledTreeIndex:
    """The index, with chance 1/den per leaf; exact leaf data (Fractions) made when asked for."""

    def exact_data():
        cache: dict[int, Fraction] = {}
        chance = [cache.get(d) or cache.setdefault(d, Fraction(1, d)) for d in denominators.tolist()]
        return chance, [(Fraction(a), Fraction(b)) for a, b in payoffs.tolist()]

    return CompiledTreeIndex(players=players, num_nodes=num_nodes,
                             num_chance_nodes=num_chance_nodes, sequences=sequences,
                             chance=1.0 / denominators.astype(float),
                             payoffs=payoffs.astype(float), exact_builder=exact_data)


class CompiledDomino(IndexedGame):
    """Domino(M, N) as a compiled index (module docstring); no networkx tree is built."""

    def __init__(self, rules, memory_limit: int | None = None):
        self.rules = rules
        self.name = rules.name
        self.num_players = 2
        self.player_names = ["player 1", "player 2"]
        self.index = _Compiler(rules, memory_limit).run()

    def __repr__(self) -> str:
        s = self.sizes()
        return (f"CompiledDomino({self.name!r}, nodes={s['nodes']}, infosets={s['infosets']}, "
                f"sequences={s['sequences']})")


class _Compiler:
    """One compilation (module docstring); :meth:`run` returns the index."""

    def __init__(self, rules, memory_limit):
        self.rules = rules
        self.memory_limit = memory_limit
        T = self.T = rules.num_tiles
        self.tile_a = np.array([a for a, _ in rules.tiles], dtype=np.int64)
        self.tile_b = np.array([b for _, b in rules.tiles], dtype=np.int64)
        pips = np.array(rules.pips, dtype=np.int64)
        masks = np.arange(1 << T, dtype=np.int64)
        self.pip_sum = ((masks[:, None] >> np.arange(T)) & 1) @ pips    # pips of every hand mask
        # has_pip[k, t]: tile t shows pip k
        k = np.arange(rules.M + 1)[:, None]
        self.has_pip = (self.tile_a[None, :] == k) | (self.tile_b[None, :] == k)
        # tokens: a turn (drawn seen, placed, side), a pending draw, a dealt hand
        self.turn_tokens = (T + 2) * (T + 1) * 4
        self.hand_token0 = self.turn_tokens + T
        self.obs = [_Observations() for _ in range(2)]
        # information sets found so far, per player: sorted obs hashes → ids, and their data
        self.registry = [{"key": np.zeros(0, dtype=np.uint64), "id": np.zeros(0, dtype=np.int64)}
                         for _ in range(2)]
        self.infosets: list[list[dict]] = [[], []]
        self.num_infosets = [0, 0]
        self.num_sequences = [1, 1]
        self.first_seq = [np.zeros(0, dtype=np.int64) for _ in range(2)]
        self.parent_seq = [np.zeros(0, dtype=np.int64) for _ in range(2)]
        self.width = [np.zeros(0, dtype=np.int64) for _ in range(2)]
        self.leaves: list[tuple] = []
        self.tree: list[tuple[np.ndarray, np.ndarray]] = []    # (parent, rank) of each level
        self.decision_nodes: list[list[tuple]] = [[], []]     # (node, information set) pairs
        self.num_nodes = 1
        self.num_chance = 1
        self.num_decisions = [0, 0]

    # ---- helpers on arrays of states (a dict of equal-length arrays)
    @staticmethod
    def _take(state: dict, rows) -> dict:
        return {key: value[rows] for key, value in state.items()}

    @staticmethod
    def _concat(states: list[dict]) -> dict:
        states = [s for s in states if len(s["turn"])]
        if not states:
            return {}
        return {key: np.concatenate([s[key] for s in states]) for key in states[0]}

    def _options(self, s: dict) -> np.ndarray:
        """(F, T, 2) legal plays: [.., t, 0] open or left, [.., t, 1] right (left before right)."""
        T = self.T
        player = s["turn"] % 2
        hand = np.where(player == 0, s["h0"], s["h1"])
        drawn = s["drawn"]
        hand = np.where(drawn >= 0, np.left_shift(1, np.maximum(drawn, 0)), hand)
        in_hand = ((hand[:, None] >> np.arange(T)) & 1).astype(bool)
        left, right = s["left"], s["right"]
        opening = left < 0
        fits_left = self.has_pip[np.maximum(left, 0)] & in_hand
        fits_right = self.has_pip[np.maximum(right, 0)] & in_hand & (left != right)[:, None]
        slot0 = np.where(opening[:, None], in_hand, fits_left)
        slot1 = np.where(opening[:, None], False, fits_right)
        return np.stack([slot0, slot1], axis=2)

    def _play(self, s: dict, tile: np.ndarray, side: np.ndarray) -> dict:
        """The states after the player to move places ``tile`` (−1: passes) on ``side``."""
        s = {key: value.copy() for key, value in s.items()}
        player = s["turn"] % 2
        drawn = s["drawn"]
        has_drawn = drawn >= 0
        drawn_bit = np.where(has_drawn, np.left_shift(1, np.maximum(drawn, 0)), 0)
        placed = tile >= 0
        tile_bit = np.where(placed, np.left_shift(1, np.maximum(tile, 0)), 0)
        s["bone"] &= ~drawn_bit
        for p, key in ((0, "h0"), (1, "h1")):
            mine = player == p
            s[key] = np.where(mine, (s[key] | drawn_bit) & ~tile_bit, s[key])
        a, b = self.tile_a[np.maximum(tile, 0)], self.tile_b[np.maximum(tile, 0)]
        left, right = s["left"], s["right"]
        new_left = np.where(side == OPEN, a, np.where(side == LEFT, np.where(a == left, b, a), left))
        new_right = np.where(side == OPEN, b,
                             np.where(side == RIGHT, np.where(a == right, b, a), right))
        s["left"] = np.where(placed, new_left, left)
        s["right"] = np.where(placed, new_right, right)
        # what each player saw of this turn
        T = self.T
        for p in (0, 1):
            seen = np.where(player == p, drawn, np.where(has_drawn, -2, -1))
            token = ((seen + 2) * (T + 1) + (tile + 1)) * 4 + side
            s[f"obs{p}"] = self.obs[p].extend(s[f"obs{p}"], token)
        s["streak"] = np.where(placed, 0, s["streak"] + 1)
        s["turn"] = s["turn"] + 1
        s["drawn"] = np.full_like(drawn, -1)
        return s

    def _advance(self, s: dict) -> dict:
        """Apply forced moves until every state is a leaf, a draw or a real choice."""
        done = []
        while len(s.get("turn", ())):
            over = self._over(s)
            options = self._options(s)
            count = options.reshape(len(over), -1).sum(axis=1)
            forced_play = ~over & (count == 1)
            forced_pass = ~over & (count == 0) & (s["drawn"] < 0) & (s["bone"] == 0)
            forced = forced_play | forced_pass
            s["options"] = options
            done.append(self._take(s, ~forced))
            if not np.any(forced):
                break
            rows = np.flatnonzero(forced)
            s = self._take(s, rows)
            del s["options"]
            flat = options[rows].reshape(len(rows), -1)
            only = np.argmax(flat, axis=1)
            tile = np.where(forced_play[rows], only // 2, -1)
            side = np.where(forced_pass[rows], PASS,
                            np.where(only % 2 == 1, RIGHT, np.where(s["left"] < 0, OPEN, LEFT)))
            s = self._play(s, tile, side)
        return self._concat(done)

    @staticmethod
    def _over(s: dict) -> np.ndarray:
        return (s["h0"] == 0) | (s["h1"] == 0) | ((s["bone"] == 0) & (s["streak"] >= 2))

    # ---- the levels
    def run(self) -> CompiledTreeIndex:
        rules = self.rules
        deals = np.array(rules.deals(), dtype=np.int64).reshape(-1, 2)
        D = len(deals)
        if D == 0:
            raise InvalidGameError(f"{rules.name}: no deal")
        zeros = np.zeros(D, dtype=np.int64)
        s = {"h0": deals[:, 0].copy(), "h1": deals[:, 1].copy(),
             "bone": rules.all_tiles & ~(deals[:, 0] | deals[:, 1]),
             "left": zeros - 1, "right": zeros - 1, "turn": zeros.copy(), "drawn": zeros - 1,
             "streak": zeros.copy(), "den": np.full(D, D, dtype=np.int64),
             "seq0": zeros.copy(), "seq1": zeros.copy(), "depth0": zeros.copy(),
             "depth1": zeros.copy(), "parent": zeros.copy(), "rank": np.arange(D)}
        for p in (0, 1):
            s[f"obs{p}"] = self.obs[p].extend(zeros.astype(np.uint64), self.hand_token0 + s[f"h{p}"])
        frontier = self._advance(s)
        while frontier:
            F = len(frontier["turn"])
            frontier["node"] = self.num_nodes + np.arange(F)
            self.tree.append((frontier["parent"], frontier["rank"]))
            self.num_nodes += F
            check_prediction(f"compiling {rules.name} ({self.num_nodes} nodes so far)",
                             F * BYTES_PER_FRONTIER_NODE + self.num_nodes * BYTES_PER_LEAF,
                             self.memory_limit)
            over = self._over(frontier)
            options = frontier.pop("options")
            count = options.reshape(F, -1).sum(axis=1)
            draw = ~over & (count == 0)
            decide = ~over & (count > 0)
            self._leaves(self._take(frontier, over))
            children = [self._draws(self._take(frontier, draw))]
            for p in (0, 1):
                rows = decide & (frontier["turn"] % 2 == p)
                if np.any(rows):
                    children.append(self._decisions(self._take(frontier, rows), options[rows], p))
            frontier = self._concat([self._advance(c) for c in children if c])
        return self._index()

    def _leaves(self, s: dict) -> None:
        if not len(s["turn"]):
            return
        h0, h1 = s["h0"], s["h1"]
        p0, p1 = self.pip_sum[h0], self.pip_sum[h1]
        u = np.where(h0 == 0, p1, np.where(h1 == 0, -p0,
                     np.where(p0 == p1, 0, np.where(p0 < p1, p1, -p0))))
        self.leaves.append((s["seq0"], s["seq1"], s["den"], u, s["node"]))

    def _draws(self, s: dict) -> dict:
        """Children of the draw chance nodes: one per boneyard tile, ascending."""
        if not len(s["turn"]):
            return {}
        self.num_chance += len(s["turn"])
        in_bone = ((s["bone"][:, None] >> np.arange(self.T)) & 1).astype(bool)
        rows, tiles = np.nonzero(in_bone)
        c = self._take(s, rows)
        per_node = in_bone.sum(axis=1)
        c["parent"], c["rank"] = c["node"], _rank_in_groups(per_node)
        size = per_node[rows]
        if np.any(c["den"] > (1 << 62) // size):
            raise InvalidGameError(f"{self.rules.name}: chance denominators overflow 64 bits")
        c["den"] = c["den"] * size
        c["drawn"] = tiles
        options = self._options(c)
        cannot_play = ~options[np.arange(len(tiles)), tiles].any(axis=1)
        passed = self._play(self._take(c, cannot_play), np.full(int(cannot_play.sum()), -1),
                            np.full(int(cannot_play.sum()), PASS))
        return self._concat([passed, self._take(c, ~cannot_play)])

    def _decisions(self, s: dict, options: np.ndarray, p: int) -> dict:
        """Register the information sets of player ``p``'s decision nodes; their children."""
        F = len(s["turn"])
        self.num_decisions[p] += F
        obs = s[f"obs{p}"]
        pending = s["drawn"] >= 0
        if np.any(pending):
            obs = obs.copy()
            obs[pending] = self.obs[p].extend(obs[pending], self.turn_tokens + s["drawn"][pending])
        flat = options.reshape(F, -1)
        count = flat.sum(axis=1)
        reg = self.registry[p]
        uniq, first, inverse = np.unique(obs, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
        pos = np.searchsorted(reg["key"], uniq)
        found = pos < len(reg["key"])
        found[found] = reg["key"][pos[found]] == uniq[found]
        infoset = np.empty(len(uniq), dtype=np.int64)
        infoset[found] = reg["id"][pos[found]]
        new = np.flatnonzero(~found)
        if len(new):
            rows = first[new]
            widths = count[rows]
            start = self.num_sequences[p] + np.concatenate([[0], np.cumsum(widths)[:-1]])
            ids = self.num_infosets[p] + np.arange(len(new))
            infoset[new] = ids
            self.num_infosets[p] += len(new)
            self.num_sequences[p] += int(widths.sum())
            self.infosets[p].append({
                "obs": uniq[new], "hand": s[f"h{p}"][rows], "drawn": s["drawn"][rows],
                "depth": s[f"depth{p}"][rows], "slots": flat[rows],
                "opening": s["left"][rows] < 0})
            self.first_seq[p] = np.concatenate([self.first_seq[p], start])
            self.parent_seq[p] = np.concatenate([self.parent_seq[p], s[f"seq{p}"][rows]])
            self.width[p] = np.concatenate([self.width[p], widths])
            keys = np.concatenate([reg["key"], uniq[new]])
            order = np.argsort(keys, kind="stable")
            reg["key"], reg["id"] = keys[order], np.concatenate([reg["id"], ids])[order]
        node_infoset = infoset[inverse]
        self.decision_nodes[p].append((s["node"], node_infoset))
        bad = (self.parent_seq[p][node_infoset] != s[f"seq{p}"]) | (self.width[p][node_infoset]
                                                                    != count)
        if np.any(bad):
            for observations in self.obs:   # two histories hashed alike merge two sets: say so
                observations.compact()
            raise InvalidGameError(f"{self.rules.name}: an information set of player {p + 1} "
                                   "violates perfect recall or has unequal actions (a bug here)")
        rows, slot = np.nonzero(flat)
        c = self._take(s, rows)
        rank = _rank_in_groups(count)
        c["parent"], c["rank"] = c["node"], rank
        c[f"seq{p}"] = self.first_seq[p][node_infoset[rows]] + rank
        c[f"depth{p}"] = c[f"depth{p}"] + 1
        side = np.where(slot % 2 == 1, RIGHT, np.where(c["left"] < 0, OPEN, LEFT))
        return self._play(c, slot // 2, side)

    # ---- labels and the index
    def _turn_texts(self, obs: _Observations, starts: np.ndarray) -> dict[int, str]:
        """What the player had seen at each history in ``starts``: the turns as in
        :meth:`DominoRules.infoset_key`, keyed by hash (the ancestors looked up level by level)."""
        moves: dict[int, str] = {}
        links: dict[int, tuple[int, int]] = {}
        wanted = np.unique(starts)
        while len(wanted):
            k = np.searchsorted(obs.hashes, wanted)
            parents, tokens = obs.parents[k], obs.tokens[k]
            links.update(zip(wanted.tolist(), zip(parents.tolist(), tokens.tolist())))
            up = np.unique(parents[tokens < self.hand_token0])
            wanted = up[[h not in links for h in up.tolist()]] if len(up) else up
        texts: dict[int, str] = {}
        for o in links:
            chain = []
            while o not in texts:
                parent, token = links[o]
                if token >= self.hand_token0:    # the dealt hand: no turn seen yet
                    texts[o] = ""
                    break
                chain.append((o, parent, token))
                o = parent
            for child, parent, token in reversed(chain):
                move = moves.get(token)
                if move is None:
                    move = moves[token] = self._move_text(token)
                before = texts[parent]
                texts[child] = f"{before}; {move}" if before else move
        return texts

    def _move_text(self, token: int) -> str:
        names, T = self.rules.tile_names, self.T
        side, rest = token % 4, token // 4
        placed, seen = rest % (T + 1) - 1, rest // (T + 1) - 2
        if side == PASS:
            move = "pass"
        elif side == OPEN:
            move = names[placed]
        else:
            move = f"{names[placed]} {SIDE_NAMES[side]}"
        if seen >= 0:
            return f"drew {names[seen]}, {move}"
        return f"drew, {move}" if seen == -2 else move

    def _preorder(self) -> np.ndarray:
        """Each node's number in the explicit tree's depth-first preorder (root 0).

        Children are made in the explicit tree's order (deals, tiles drawn and plays ascending), so
        a node's preorder number is its parent's + 1 + the sizes of the subtrees of its earlier
        siblings: subtree sizes bottom-up, then the numbers top-down, a level at a time.
        """
        n = self.num_nodes
        bounds = np.cumsum([1] + [len(parent) for parent, _ in self.tree])
        size = np.ones(n, dtype=np.int64)
        for k in range(len(self.tree) - 1, -1, -1):
            parent, _ = self.tree[k]
            size += np.bincount(parent, weights=size[bounds[k]:bounds[k + 1]],
                                minlength=n).astype(np.int64)
        pre = np.zeros(n, dtype=np.int64)
        for k, (parent, rank) in enumerate(self.tree):
            nodes = np.arange(bounds[k], bounds[k + 1])
            order = np.lexsort((rank, parent))
            sizes = size[nodes[order]]
            before = np.cumsum(sizes) - sizes              # subtree sizes before, in the level
            group_start = np.concatenate([[True], parent[order][1:] != parent[order][:-1]])
            first_of_group = np.maximum.accumulate(np.where(group_start, np.arange(len(order)), 0))
            earlier_siblings = before - before[first_of_group]
            pre[nodes[order]] = pre[parent[order]] + 1 + earlier_siblings
        return pre

    def _player_index(self, p: int, pre: np.ndarray) -> tuple[PlayerIndex, np.ndarray]:
        """Player ``p``'s information sets in depth-first order of first visit (the explicit
        tree's numbering) and the map from this compiler's sequence numbers to that numbering."""
        rules, names = self.rules, self.rules.tile_names
        obs = self.obs[p]
        parts = self.infosets[p]
        pidx = PlayerIndex()
        if not parts:
            pidx.finalize()
            return pidx, np.zeros(1, dtype=np.int64)
        data = {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}
        # ids in order of discovery: the registry's arrays and the parts are in that order
        data["parent_seq"], data["first_seq"] = self.parent_seq[p], self.first_seq[p]
        data["width"] = self.width[p]
        first_visit = np.full(len(data["obs"]), np.iinfo(np.int64).max)
        for node, infoset in self.decision_nodes[p]:
            np.minimum.at(first_visit, infoset, pre[node])
        order = np.argsort(first_visit, kind="stable")
        data = {key: value[order] for key, value in data.items()}
        widths = data["width"]
        first_seq = 1 + np.cumsum(widths) - widths
        seq_map = np.zeros(self.num_sequences[p], dtype=np.int64)
        offsets = _rank_in_groups(widths)
        seq_map[np.repeat(data["first_seq"], widths) + offsets] = np.repeat(first_seq, widths) + offsets
        starts = data["obs"].copy()
        pending = data["drawn"] >= 0
        if np.any(pending):   # the history before the draw
            starts[pending] = obs.parents[np.searchsorted(obs.hashes, starts[pending])]
        texts = self._turn_texts(obs, starts)
        hand_text, prefix = rules.hand_text, f"P{p + 1} ["
        labels = []
        for start, hand, drawn in zip(starts.tolist(), data["hand"].tolist(),
                                      data["drawn"].tolist()):
            label = f"{prefix}{hand_text(hand)}] | {texts[start]}".rstrip(" |")
            labels.append(label + (f" | drew {names[drawn]}" if drawn >= 0 else ""))
        slot_names = {False: [f"{names[k // 2]} {'right' if k % 2 else 'left'}"
                              for k in range(2 * self.T)],
                      True: [names[k // 2] for k in range(2 * self.T)]}
        slot_list = np.nonzero(data["slots"])[1].tolist()
        actions, at = [], 0
        for width, opening in zip(widths.tolist(), data["opening"].tolist()):
            table = slot_names[opening]
            actions.append(tuple(table[k] for k in slot_list[at:at + width]))
            at += width
        pidx.infoset_labels = labels
        pidx.infoset_actions = actions
        pidx.infoset_parent_seq = seq_map[data["parent_seq"]]
        pidx.infoset_first_seq = first_seq
        pidx.infoset_depth = data["depth"]
        pidx.num_sequences = self.num_sequences[p]
        pidx.num_decision_nodes = self.num_decisions[p]
        pidx.finalize()
        return pidx, seq_map

    def _index(self) -> CompiledTreeIndex:
        for obs in self.obs:
            obs.finish()
        pre = self._preorder()
        (p0, map0), (p1, map1) = (self._player_index(p, pre) for p in (0, 1))
        seq0, seq1, den, u, node = (np.concatenate(parts) for parts in zip(*self.leaves))
        order = np.argsort(pre[node])      # leaves in depth-first order, as the explicit tree's
        return _domino_index(players=[p0, p1], num_nodes=self.num_nodes,
                             num_chance_nodes=self.num_chance,
                             sequences=np.stack([map0[seq0[order]], map1[seq1[order]]], axis=1),
                             denominators=den[order],
                             payoffs=np.stack([u[order], -u[order]], axis=1))


def compile_domino(rules, memory_limit: int | None = None) -> CompiledDomino:
    """Compile a :class:`~lpgame.games.domino.DominoRules` (module docstring)."""
    return CompiledDomino(rules, memory_limit)


__all__ = ["CompiledDomino", "HashCollisionError", "compile_domino"]
