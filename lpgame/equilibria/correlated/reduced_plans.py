"""Reduced plans and the reduced normal form of an extensive game, as a :class:`StrategicForm`.

The pure strategies of player i in the reduced normal form are the reduced plans
Π_i = Q_i ∩ {0,1}^{Σ_i} (Farina 2023, Def. 2.5): 0/1 sequence-form vectors, one chosen action at
every information set the plan itself does not cut off. A joint profile π gets
u_i(π) = Σ_z p_c(z) u_i(z) Π_k π_k[σ_k(z)] (Farina 2023, eq. (11.2)). The plans are counted first
with the sequence-form kernel K_Q(1,1) (Farina 2023, Thm 7.4, eqs. (7.13)–(7.14); notes §1.2):

    count(σ) = Π_{j ∈ C_σ} count(j),      count(j) = Σ_{a ∈ A_j} count(ja),      |Π_i| = count(∅),

(Kuhn poker: 27 plans for player 1, 64 for player 2), and a model with more joint profiles than a
limit is refused with :class:`~lpgame.errors.ModelTooLargeError` giving the counts; then they are
enumerated bottom-up (Farina 2023, Ex. 4.1). The payoff tensor is summed in rationals and rounded
once where that is cheap (:mod:`lpgame.equilibria.correlated.reduced_payoffs`), else in floats.

Used by the normal-form CE/CCE LP (:mod:`lpgame.equilibria.correlated.ce_cce`) and by every
family that enumerates pure plans (equilibrium enumeration, Stackelberg certificates, TMECor,
plan decomposition, the ``.nfg`` writer).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from lpgame.equilibria.correlated.reduced_payoffs import (
    EXACT_SUM_WORK,
    exact_sum_work,
    reduced_payoffs_exact,
)
from lpgame.errors import LpgameError, ModelTooLargeError
from lpgame.game.normal_form import NormalFormGame
from lpgame.sequence_form import SequenceForm

DEFAULT_MAX_PROFILES = 1_000_000
"""Largest number of joint pure profiles (ψ variables) a normal-form CE/CCE LP is built for."""


@dataclass
class StrategicForm:
    """A normal form as float arrays: ``payoffs[i]`` has shape (|S_1|, …, |S_n|).

    ``plans[i]`` (reduced normal form of an extensive game only) holds player i's reduced plans
    as 0/1 rows over its sequences, in the order of the strategy axis.
    """

    name: str
    payoffs: np.ndarray
    labels: list[list[str]]
    plans: list[np.ndarray] | None = None
    exact_payoffs: np.ndarray | None = field(default=None, repr=False)
    """The same tensor with Fraction entries, where it was computed (exact mode reads it)."""
    source: object = field(default=None, repr=False)
    """The NormalFormGame or SequenceForm the form was built from (None for raw arrays)."""

    @property
    def num_players(self) -> int:
        return self.payoffs.shape[0]

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.payoffs.shape[1:])

    @classmethod
    def from_normal_form(cls, game: NormalFormGame) -> StrategicForm:
        return cls(game.name, game.payoffs.astype(float), [list(a) for a in game.actions],
                   source=game)


def count_reduced_plans(sf: SequenceForm, player: int) -> int:
    """|Π_i| = K_Q(1,1), the number of reduced-normal-form plans (see module docstring).

    Computed bottom-up in exact integers, one vectorised step per depth of the player's tree.
    """
    p = sf.players[player]
    count = np.ones(p.num_sequences, dtype=object)
    for js, seqs, starts in sf.infoset_levels(player):      # deepest information sets first
        per_infoset = np.add.reduceat(count[seqs], starts)
        np.multiply.at(count, p.infoset_parent_seq[js], per_infoset)
    return int(count[0])


def enumerate_reduced_plans(sf: SequenceForm, player: int,
                            max_plans: int = DEFAULT_MAX_PROFILES) -> np.ndarray:
    """All reduced plans of ``player`` as a boolean matrix (|Π_i| × |Σ_i|), row k = plan k.

    Built bottom-up (Farina 2023, Ex. 4.1 / Table 4.1): below a sequence the choices at its child
    information sets combine as a Cartesian product; at an information set the plans are the union
    over its actions a of {a} × (plans below ja). Refused when the count exceeds ``max_plans``.
    """
    total = count_reduced_plans(sf, player)
    if total > max_plans:
        raise ModelTooLargeError(
            f"{sf.game.name}: {sf.game.player_names[player]} has {total:,} reduced plans, more than "
            f"the limit of {max_plans:,}")
    p = sf.players[player]
    n = p.num_sequences
    empty = np.zeros((1, n), dtype=bool)
    below: dict[int, np.ndarray] = {}                 # sequence -> plans of the subtree under it
    for js, _seqs, _starts in sf.infoset_levels(player):
        for j in js.tolist():
            first, k = int(p.infoset_first_seq[j]), int(p.infoset_num_actions[j])
            options = []
            for s in range(first, first + k):
                rows = below.pop(s, empty).copy()
                rows[:, s] = True
                options.append(rows)
            options = np.vstack(options)
            parent = int(p.infoset_parent_seq[j])
            acc = below.get(parent)
            below[parent] = options if acc is None else (
                acc[:, None, :] | options[None, :, :]).reshape(-1, n)
    plans = below.get(0, empty).copy()
    plans[:, 0] = True
    return plans


def plan_label(sf: SequenceForm, player: int, plan: np.ndarray) -> str:
    """Readable label of a reduced plan: its chosen ``infoset:action`` sequences."""
    labels = sf.sequence_labels(player)
    chosen = [labels[s] for s in np.flatnonzero(plan) if s != 0]
    return "; ".join(chosen) if chosen else "(no move)"


def reduced_normal_form(sf: SequenceForm, max_profiles: int = DEFAULT_MAX_PROFILES) -> StrategicForm:
    """The reduced normal form of an extensive game (see module docstring).

    The plan counts are computed first (kernel recursion); more than ``max_profiles`` joint pure
    profiles raises :class:`~lpgame.errors.ModelTooLargeError` naming the counts.
    """
    counts = [count_reduced_plans(sf, i) for i in range(sf.num_players)]
    profiles = math.prod(counts)
    if profiles > max_profiles:
        raise ModelTooLargeError(
            f"{sf.game.name}: the reduced normal form has {' × '.join(f'{c:,}' for c in counts)}"
            f" = {profiles:,} joint pure profiles (reduced plans per player: "
            + ", ".join(f"player {i + 1} {c:,}" for i, c in enumerate(counts))
            + f"), more than the limit of {max_profiles:,}; use concept 'efce', 'efcce' or "
              "'nfcce' (correlation plans) or raise max_profiles")
    plans = [enumerate_reduced_plans(sf, i, max_plans=max_profiles) for i in range(sf.num_players)]
    n = sf.num_players
    # reach[k][z, π] = π[σ_k(z)]: whether plan π of player k plays towards leaf z
    exact = None
    if exact_sum_work(sf, plans) <= EXACT_SUM_WORK:
        # summed in rationals and rounded once (lpgame.equilibria.correlated.reduced_payoffs):
        # a payoff that is the same at every leaf stays the same float
        try:
            exact = reduced_payoffs_exact(sf, plans)
        except LpgameError:        # the exact leaves refused (memory): the float sums below
            exact = None
    if exact is not None:
        payoffs = exact.astype(float)
    else:
        reach = [plans[k][:, sf.terminal_sequences[:, k]].T.astype(float) for k in range(n)]
        weights = sf.terminal_chance[:, None] * sf.terminal_payoffs            # (Z, n)
        if n == 2:
            payoffs = np.stack([reach[0].T @ (weights[:, [i]] * reach[1]) for i in range(n)])
        else:
            letters = "abcdefghijklmnopqrstuvwxy"[:n]
            spec = "zi," + ",".join(f"z{c}" for c in letters) + "->i" + letters
            payoffs = np.einsum(spec, weights, *reach, optimize=True)
    labels = [[plan_label(sf, i, row) for row in plans[i]] for i in range(n)]
    return StrategicForm(f"{sf.game.name} (reduced normal form)", payoffs, labels, plans,
                         exact_payoffs=exact, source=sf)


def as_strategic_form(game, max_profiles: int = DEFAULT_MAX_PROFILES) -> StrategicForm:
    """A :class:`StrategicForm` from a NormalFormGame, a StrategicForm, or any extensive game
    (through its reduced normal form)."""
    if isinstance(game, StrategicForm):
        return game
    if isinstance(game, NormalFormGame):
        return StrategicForm.from_normal_form(game)
    from lpgame.compile import compile_game
    return reduced_normal_form(compile_game(game), max_profiles=max_profiles)
