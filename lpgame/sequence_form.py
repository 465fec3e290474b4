"""The sequence form of an extensive-form game with perfect recall.

For each player i (Koller, Megiddo & von Stengel 1996; von Stengel 1996; Farina 2023, §2.1 and
eq. (2.1)) the realization plans form the treeplex

    Q_i = { x ∈ R^{Σ_i}_{≥0} :  x[∅] = 1,   Σ_{a ∈ A_j} x[ja] = x[p_j]  for every j ∈ J_i },

written F_i x = f_i with one row for x[∅] = 1 and one row per information set j
(Farina 2023, L5067; erratum 8 of notes/farina-thesis.md: |J_i| + 1 rows), f_i = e_0.

Payoffs are summarised by the leaves: leaf z contributes p_c(z)·u_i(z) at the tuple of the
players' last sequences (σ_1(z), ..., σ_n(z)) (Farina 2023, eq. (11.2)). For two players this is
the sparse payoff matrix U_i[σ_1, σ_2] = Σ_{z: σ(z) = (σ_1, σ_2)} p_c(z) u_i(z), so that
u_i(x, y) = xᵀ U_i y.

Behavioural strategies are held as one vector per player indexed like the sequences: ``b[ja]`` is
the probability of action a at information set j (``b[∅] = 1``). Conversions
(Farina 2023, L753–755): x[ja] = x[p_j] · b[ja] and b[ja] = x[ja] / x[p_j]. Both are computed level
by level of the player's own tree, one vectorised numpy step per level.

Everything is assembled from the flat arrays of :mod:`lpgame.game.tree_index` (one pass over the
tree), as sparse COO/CSR, without per-entry Python loops. For exact mode the leaves' chance and
payoffs are read once and also held as integers over common denominators
(:meth:`SequenceForm.exact_terminal_scaled`), on which the exact payoff matrix, best responses and
behaviour strategies are computed (:mod:`lpgame.rational`).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from lpgame import progress
from lpgame.errors import InvalidGameError, StrategyError
from lpgame.exact_probabilities import ExactConversion, exact_probability, exact_row
from lpgame.game.normal_form import NormalFormGame
from lpgame.game.signal_payoffs import SignalPayoffs
from lpgame.game.tree import IndexedGame
from lpgame.game.tree_index import PlayerIndex
from lpgame.limits import check_prediction
from lpgame.rational import RationalMatrix, common_denominator, sparse_from_coo

Strategy = dict[str, dict[str, float]]

BYTES_PER_PAYOFF_ENTRY = 48
EXACT_BYTES_PER_LEAF = 100
EXACT_BYTES_PER_LEAF_PAYOFF = 110
"""Exact mode per leaf: chance reach and payoffs as Fractions, then as Python integers over common
denominators, with the temporaries of the exact best responses. Measured with tracemalloc on
OCP(300) and Dudo(4,1,2): a peak of 200–210 bytes per two-player leaf for the data alone."""
"""Memory of one leaf's entry while the payoff matrix is built: the COO triplets (3 × 8 bytes), the
CSR arrays (16) and scipy's conversion buffers."""


_CACHE_ATTRIBUTE = "_lpgame_sequence_form"
"""Where :meth:`SequenceForm.of` keeps a game's sequence form on the game object."""

LAZY_STRATEGY_INFOSETS = 200_000
"""From this many information sets a player's strategy is a :class:`BehaviourStrategy` view."""


class BehaviourStrategy(Mapping):
    """{information-set label: {action label: probability}} read from a behaviour vector.

    A read-only mapping over the player's information sets in their depth-first order; each
    information set's dict is built when it is read. Equal to the dict with the same content.
    """

    def __init__(self, player: PlayerIndex, behaviour):
        self._player = player
        self._behaviour = behaviour

    def __getitem__(self, label: str) -> dict[str, object]:
        p = self._player
        j = p.infoset_of_label[label]
        first = int(p.infoset_first_seq[j])
        row = self._behaviour[first:first + len(p.infoset_actions[j])]
        if isinstance(row, np.ndarray):
            row = row.tolist()
        return dict(zip(p.infoset_actions[j], row))

    def __iter__(self):
        return iter(self._player.infoset_labels)

    def __len__(self) -> int:
        return self._player.num_infosets

    def __repr__(self) -> str:
        return f"BehaviourStrategy({len(self)} information sets)"


class SequenceForm:
    """Sequences, information sets, treeplex constraints and payoffs of a game.

    Build it with :meth:`from_game` (a :class:`~lpgame.game.Game` or a
    :class:`~lpgame.game.NormalFormGame`).
    """

    def __init__(self, game: IndexedGame):
        self.game = game
        self.num_players = game.num_players
        index = game.index
        self.players: list[PlayerIndex] = index.players
        self.payoff_structure = getattr(game, "payoff_structure", None)
        self._levels = [self._build_levels(p) for p in self.players]
        self._F = [self._build_treeplex(p) for p in self.players]
        self._infoset_levels_cache: dict[int, list] = {}
        self._exact_terminals = None
        self._exact_scaled = None
        self._index = index
        self._derived: dict = {}

    @classmethod
    def from_game(cls, game: IndexedGame | NormalFormGame) -> SequenceForm:
        if isinstance(game, NormalFormGame):
            game = game.to_extensive()
        if not isinstance(game, IndexedGame):
            raise InvalidGameError(f"cannot build a sequence form from {type(game).__name__}")
        progress.report("compiling the sequence form")
        return cls(game)

    def __getstate__(self) -> dict:
        """Pickled without what :meth:`derived` keeps (rebuilt on demand after unpickling)."""
        state = dict(self.__dict__)
        state["_derived"] = {}
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    @classmethod
    def of(cls, game: IndexedGame) -> SequenceForm:
        """The sequence form of ``game``, built once and kept on the game object.

        A game's flat index is built when the game is and not changed afterwards, so its sequence
        form (and what :meth:`derived` keeps beside it) is reused by every later solve,
        evaluation or learning run on the same object; a game whose ``index`` was replaced gets a
        new one.
        """
        held = getattr(game, "__dict__", None)
        cached = held.get(_CACHE_ATTRIBUTE) if held is not None else None
        if cached is not None and cached._index is game.index:
            return cached
        sf = cls.from_game(game)
        if held is not None:
            held[_CACHE_ATTRIBUTE] = sf
        return sf

    def derived(self, key, build, valid=None, keep=None):
        """``build()`` computed once per sequence form and ``key`` (per-game structures the later
        stages reuse: the LP of a concept, its solver arrays, best-response layouts); with
        ``valid``, a kept value for which ``valid(value)`` is false is built again; with ``keep``,
        a value for which ``keep(value)`` is false is returned without being kept."""
        try:
            value = self._derived[key]
        except KeyError:
            pass
        else:
            if valid is None or valid(value):
                return value
        value = build()
        if keep is None or keep(value):
            self._derived[key] = value
        return value

    # ------------------------------------------------------------------ leaves (lazy for structured games)
    @property
    def terminal_sequences(self) -> np.ndarray:
        return self.game.index.terminal_sequences

    @property
    def terminal_chance(self) -> np.ndarray:
        return self.game.index.terminal_chance

    @property
    def terminal_payoffs(self) -> np.ndarray:
        return self.game.index.terminal_payoffs

    # ------------------------------------------------------------------ sizes
    def num_sequences(self, player: int) -> int:
        return self.players[player].num_sequences

    def num_infosets(self, player: int) -> int:
        return self.players[player].num_infosets

    def sequence_labels(self, player: int) -> list[str]:
        p = self.players[player]
        return [p.sequence_label(s) for s in range(p.num_sequences)]

    def infoset_labels(self, player: int) -> list[str]:
        return list(self.players[player].infoset_labels)

    # ------------------------------------------------------------------ treeplex
    @staticmethod
    def _build_treeplex(p: PlayerIndex) -> sp.csr_array:
        counts = p.infoset_num_actions
        m = p.num_infosets
        parents = p.infoset_parent_seq
        if m and not (parents < p.infoset_first_seq).all():     # never in preorder numbering
            rows = np.concatenate([[0], np.arange(1, m + 1), np.repeat(np.arange(1, m + 1), counts)])
            cols = np.concatenate([[0], parents, np.arange(1, p.num_sequences)])
            vals = np.concatenate([[1.0], -np.ones(m), np.ones(p.num_sequences - 1)])
            return sparse_from_coo(vals, rows, cols, (m + 1, p.num_sequences))
        # row 1 + j holds −1 at the parent sequence, then +1 at j's own (contiguous) sequences:
        # already in column order, so the CSR arrays are written directly
        indptr = np.empty(m + 2, dtype=np.int64)
        indptr[:2] = (0, 1)
        indptr[2:] = (counts + 1).cumsum() + 1
        starts = indptr[1:-1]
        indices = np.empty(int(indptr[-1]), dtype=np.int64)
        values = np.ones(len(indices))
        own = np.ones(len(indices), dtype=bool)
        own[0] = False
        own[starts] = False
        indices[0] = 0
        indices[starts] = parents
        values[starts] = -1.0
        indices[own] = np.arange(1, p.num_sequences)
        F = sp.csr_array((values, indices, indptr), shape=(m + 1, p.num_sequences))
        F.has_canonical_format = True
        return F

    def treeplex_matrix(self, player: int) -> sp.csr_array:
        """F_i: (|J_i| + 1) × |Σ_i|, row 0 is x[∅] = 1, row 1 + j is Σ_a x[ja] − x[p_j] = 0."""
        return self._F[player]

    def treeplex_rhs(self, player: int) -> np.ndarray:
        """f_i = e_0."""
        f = np.zeros(self.num_infosets(player) + 1)
        f[0] = 1.0
        return f

    # ------------------------------------------------------------------ payoffs
    def payoff_matrix(self, player: int) -> sp.csr_array:
        """U_i[σ_1, σ_2] = Σ_z p_c(z) u_i(z) (two-player games), as a float CSR array."""
        self._require_two_players()
        check_prediction(f"the payoff matrix of {self.game.name} ({self.game.index.num_terminals} "
                         "leaves)", BYTES_PER_PAYOFF_ENTRY * self.game.index.num_terminals)
        if isinstance(self.payoff_structure, SignalPayoffs):     # deals × public leaves
            return self.payoff_structure.payoff_submatrix(player)
        data = self.terminal_chance * self.terminal_payoffs[:, player]
        shape = (self.num_sequences(0), self.num_sequences(1))
        seqs = self.terminal_sequences
        return sparse_from_coo(data, seqs[:, 0], seqs[:, 1], shape)

    def payoff_matrix_exact(self, player: int) -> RationalMatrix:
        """The same matrix with exact rational entries (requires rational chance probabilities)."""
        self._require_two_players()
        chance, chance_den, payoffs, payoff_den = self.exact_terminal_scaled()
        den = chance_den * payoff_den
        fractions: dict[int, Fraction] = {}      # leaves share few distinct values
        data = []
        for v in (chance * payoffs[:, player]).tolist():
            f = fractions.get(v)
            if f is None:
                f = fractions[v] = Fraction(v, den)
            data.append(f)
        seqs = self.terminal_sequences
        return RationalMatrix((self.num_sequences(0), self.num_sequences(1)),
                              seqs[:, 0], seqs[:, 1], data)

    def exact_terminal_data(self) -> tuple[list[Fraction], list[tuple[Fraction, ...]]]:
        """The game's chance reach and payoffs of every leaf as Fractions (read once, cached).

        Exact arithmetic keeps Python objects per leaf; the memory is predicted first
        (:data:`EXACT_BYTES_PER_LEAF` and :data:`EXACT_BYTES_PER_LEAF_PAYOFF`) and a game too
        large for it is refused with :class:`~lpgame.errors.ModelTooLargeError`.
        """
        if self._exact_terminals is None:
            leaves = self.game.index.num_terminals
            check_prediction(
                f"exact arithmetic on the {leaves:,} leaves of {self.game.name}",
                leaves * (EXACT_BYTES_PER_LEAF + EXACT_BYTES_PER_LEAF_PAYOFF * self.num_players))
            self._exact_terminals = self.game.index.exact_terminal_data()
        return self._exact_terminals

    def exact_terminal_scaled(self) -> tuple[np.ndarray, int, np.ndarray, int]:
        """(c, C, u, U): the leaves' chance reach as integers c over one denominator C and their
        payoffs as an integer array u (leaves × players) over one denominator U, so that
        p_c(z) = c[z] / C and u_i(z) = u[z, i] / U exactly (numpy object arrays of Python
        integers; see :mod:`lpgame.rational`). Cached."""
        if self._exact_scaled is None:
            chance, payoffs = self.exact_terminal_data()
            c, chance_den = common_denominator(chance)
            u, payoff_den = common_denominator([v for row in payoffs for v in row])
            self._exact_scaled = (c, chance_den, u.reshape(len(payoffs), self.num_players),
                                  payoff_den)
        return self._exact_scaled

    def _require_two_players(self) -> None:
        if self.num_players != 2:
            raise InvalidGameError(
                f"{self.game.name}: payoff matrices are defined for two players, "
                f"the game has {self.num_players}")

    def expected_payoffs(self, plans: list[np.ndarray]) -> np.ndarray:
        """u_i(x_1, ..., x_n) = Σ_z p_c(z) u_i(z) Π_k x_k[σ_k(z)] for every player i."""
        if self.payoff_structure is not None:
            return self.payoff_structure.expected_payoffs(plans)
        reach = self.terminal_chance.copy()
        for k, x in enumerate(plans):
            reach = reach * np.asarray(x, dtype=float)[self.terminal_sequences[:, k]]
        return reach @ self.terminal_payoffs

    # ------------------------------------------------------------------ strategies
    @staticmethod
    def _build_levels(p: PlayerIndex) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per depth of the player's own tree: (sequences, their parent sequences)."""
        if p.num_infosets == 0:
            return []
        seq_depth = p.infoset_depth[p.seq_infoset[1:]]
        parent = p.infoset_parent_seq[p.seq_infoset[1:]]
        seqs = np.arange(1, p.num_sequences)
        levels = []
        for d in range(int(seq_depth.max()) + 1):
            mask = seq_depth == d
            levels.append((seqs[mask], parent[mask]))
        return levels

    def infoset_levels(self, player: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Per depth of the player's own tree, deepest first: (infosets, their sequences
        concatenated, start of each infoset's run within that array) for ``reduceat``."""
        cached = self._infoset_levels_cache.get(player)
        if cached is not None:
            return cached
        p = self.players[player]
        levels = []
        if p.num_infosets:
            for d in range(int(p.infoset_depth.max()), -1, -1):
                js = np.flatnonzero(p.infoset_depth == d)
                counts = p.infoset_num_actions[js]
                starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
                seqs = np.repeat(p.infoset_first_seq[js] - starts, counts) + np.arange(counts.sum())
                levels.append((js, seqs, starts))
        self._infoset_levels_cache[player] = levels
        return levels

    def uniform_behaviour(self, player: int) -> np.ndarray:
        """The behaviour that plays every action of an information set j with 1/|A_j|."""
        return self._uniform(player).copy()

    def _uniform(self, player: int) -> np.ndarray:
        def build():
            p = self.players[player]
            b = np.ones(p.num_sequences)
            b[1:] = 1.0 / np.repeat(p.infoset_num_actions, p.infoset_num_actions)
            b.flags.writeable = False
            return b
        return self.derived(("uniform_behaviour", player), build)

    def plan_from_behaviour(self, player: int, behaviour: np.ndarray) -> np.ndarray:
        """Realization plan x with x[ja] = x[p_j] · b[ja] (Farina 2023, L753)."""
        b = np.asarray(behaviour, dtype=float)
        x = np.empty(self.num_sequences(player))
        x[0] = 1.0
        for seqs, parents in self._levels[player]:
            x[seqs] = x[parents] * b[seqs]
        return x

    def plan_from_behaviour_exact(self, player: int, behaviour) -> list[Fraction]:
        """The same in rational arithmetic."""
        zero, one = Fraction(0), Fraction(1)
        x = [zero] * self.num_sequences(player)
        x[0] = one
        for seqs, parents in self._levels[player]:
            for s, q in zip(seqs.tolist(), parents.tolist()):
                b = behaviour[s]
                if type(b) is not Fraction:
                    b = Fraction(b)
                xq = x[q]
                if not xq or not b:
                    x[s] = zero
                elif b.numerator == b.denominator:    # b = 1, common in equilibria
                    x[s] = xq
                else:
                    x[s] = xq * b
        return x

    def reach_of_infosets(self, player: int, plan: np.ndarray) -> np.ndarray:
        """x[p_j] for every information set j: the player's own probability of reaching it."""
        return np.asarray(plan, dtype=float)[self.players[player].infoset_parent_seq]

    def behaviour_from_plan(self, player: int, plan: np.ndarray,
                            tol: float = 1e-12) -> tuple[np.ndarray, np.ndarray]:
        """Behavioural strategy b[ja] = x[ja] / x[p_j] and the mask of unreached information sets.

        Tiny negative entries (solver noise) are clipped to 0 and each information set is
        renormalised, so the result is a valid probability vector everywhere. Where the player's
        own plan does not reach j (x[p_j] ≤ tol) the plan says nothing: the behaviour there is
        uniform and the set is reported in the returned mask.
        """
        p = self.players[player]
        x = np.maximum(np.asarray(plan, dtype=float), 0.0)
        b = np.empty(p.num_sequences)
        b[0] = 1.0
        if p.num_infosets == 0:
            return b, np.zeros(0, dtype=bool)
        block = x[1:]
        sums = np.add.reduceat(block, p.infoset_first_seq - 1)
        unreached = sums <= tol
        owner = np.asarray(p.seq_infoset)[1:]            # information set of each sequence
        if unreached.any():
            lost = unreached[owner]
            b[1:] = block / np.where(unreached, 1.0, sums)[owner]
            b[1:][lost] = self._uniform(player)[1:][lost]
        else:
            np.divide(block, sums[owner], out=b[1:])
        return b, unreached

    def behaviour_from_plan_exact(self, player: int, plan) -> tuple[list[Fraction], list[bool]]:
        """Exact version of :meth:`behaviour_from_plan` (plans in Fractions, no clipping).

        With the plan as integers X over one denominator, b[ja] = X[ja] / Σ_a' X[ja'] (one
        normalised Fraction per sequence, no Fraction sums).
        """
        p = self.players[player]
        one = Fraction(1)
        b = [one] * p.num_sequences
        if not p.num_infosets:
            return b, []
        X, _ = common_denominator(plan[:p.num_sequences])
        totals = np.zeros(p.num_infosets, dtype=object)
        np.add.at(totals, p.seq_infoset[1:], X[1:])
        totals = totals.tolist()
        X = X.tolist()
        uniform: dict[int, Fraction] = {}
        ratios: dict[tuple[int, int], Fraction] = {}     # equal probabilities: one Fraction
        unreached = []
        for j, (first, k) in enumerate(zip(p.infoset_first_seq.tolist(),
                                            p.infoset_num_actions.tolist())):
            total = totals[j]
            unreached.append(total == 0)
            if total == 0:
                u = uniform.get(k)
                if u is None:
                    u = uniform[k] = Fraction(1, k)
                b[first:first + k] = [u] * k
                continue
            for s in range(first, first + k):
                v = X[s]
                if v == total:
                    b[s] = one
                else:
                    f = ratios.get((v, total))
                    if f is None:
                        f = ratios[v, total] = Fraction(v, total)
                    b[s] = f
        return b, unreached

    def strategy_to_dict(self, player: int, behaviour) -> Mapping[str, dict[str, object]]:
        """{information-set label: {action label: probability}} from a behaviour vector.

        A dict; for a player with more than :data:`LAZY_STRATEGY_INFOSETS` information sets a
        read-only :class:`BehaviourStrategy` view that builds each information set's dict when it is
        read (``dict(view)`` copies it), so that millions of sets cost no Python objects.
        """
        p = self.players[player]
        if p.num_infosets > LAZY_STRATEGY_INFOSETS:
            return BehaviourStrategy(p, behaviour)
        if isinstance(behaviour, np.ndarray):
            behaviour = behaviour.tolist()
        out: dict[str, dict[str, object]] = {}
        for j, label in enumerate(p.infoset_labels):
            first = int(p.infoset_first_seq[j])
            out[label] = {a: behaviour[first + k] for k, a in enumerate(p.infoset_actions[j])}
        return out

    def behaviour_from_dict(self, player: int, strategy: Mapping[str, Mapping[str, float]],
                            missing: str = "error") -> np.ndarray:
        """Behaviour vector from {infoset: {action: prob}}; checks labels and probabilities.

        ``missing="error"`` refuses a strategy that leaves out an information set;
        ``missing="uniform"`` plays uniformly there.
        """
        p = self.players[player]
        b = np.ones(p.num_sequences)
        unknown = [k for k in strategy if k not in p.infoset_of_label]
        if unknown:
            raise StrategyError(
                f"{self.game.player_names[player]}: unknown information set(s) "
                f"{', '.join(map(str, unknown[:5]))} in "
                f"{self.game.name}")
        for j, label in enumerate(p.infoset_labels):
            first, actions = int(p.infoset_first_seq[j]), p.infoset_actions[j]
            row = strategy.get(label)
            if row is None:
                if missing == "uniform":
                    b[first:first + len(actions)] = 1.0 / len(actions)
                    continue
                raise StrategyError(
                    f"{self.game.player_names[player]}: no probabilities for information set "
                    f"{label!r}")
            bad = [a for a in row if a not in actions]
            if bad:
                raise StrategyError(
                    f"information set {label!r}: unknown action(s) {', '.join(map(str, bad))}; "
                    f"actions are {', '.join(actions)}")
            probs = np.array([_float_probability(row.get(a, 0.0), label) for a in actions])
            if not np.all(np.isfinite(probs)) or np.any(probs < 0):
                shown = ", ".join(f"{float(q):.6g}" for q in probs)
                raise StrategyError(
                    f"information set {label!r}: probabilities {shown} must be finite and"
                    " non-negative")
            total = float(probs.sum())
            if abs(total - 1.0) > 1e-6:
                raise StrategyError(
                    f"information set {label!r}: probabilities sum to {total:.12g}, not 1")
            b[first:first + len(actions)] = probs / total
        return b

    def behaviour_from_dict_exact(self, player: int, strategy: Mapping[str, Mapping[str, object]],
                                  conversion: ExactConversion | None = None) -> list[Fraction]:
        """Exact behaviour vector. Exact numbers must sum to exactly 1; floats are taken at their
        exact binary values and a row summing to 1 within 10⁻⁹ is divided by its exact sum, as
        :mod:`lpgame.exact_probabilities` states; ``conversion`` records what was done."""
        p = self.players[player]
        b = [Fraction(1)] * p.num_sequences
        name = self.game.player_names[player]
        unknown = [str(k) for k in strategy if k not in p.infoset_of_label]
        if unknown:
            raise StrategyError(f"{name}: unknown information set(s) {', '.join(unknown[:5])} in "
                                f"{self.game.name}")
        for j, label in enumerate(p.infoset_labels):
            first, actions = int(p.infoset_first_seq[j]), p.infoset_actions[j]
            row = strategy.get(label)
            if row is None:
                raise StrategyError(f"{name}: no probabilities for information set {label}")
            bad = [str(a) for a in row if a not in actions]
            if bad:
                raise StrategyError(f"{name}, information set {label}: unknown action(s) "
                                    f"{', '.join(bad)}; its actions are {', '.join(actions)}")
            b[first:first + len(actions)] = exact_row([row.get(a, 0) for a in actions],
                                                      f"{name}, information set {label}",
                                                      conversion)
        return b

    def size(self) -> dict:
        return {
            "infosets": [p.num_infosets for p in self.players],
            "sequences": [p.num_sequences for p in self.players],
            "terminals": self.game.index.num_terminals,
        }


def _float_probability(value, label: str) -> float:
    """A probability as a float; StrategyError for text, booleans, None or numbers too large."""
    if type(value) is float or isinstance(value, np.floating):
        return float(value)
    q, _ = exact_probability(value, f"information set {label!r}")
    try:
        return float(q)
    except OverflowError:
        raise StrategyError(f"information set {label!r}: probability {str(value)[:40]} is too "
                            "large") from None
