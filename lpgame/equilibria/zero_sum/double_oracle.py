"""Nash equilibrium of a two-player zero-sum game by the sequence-form double oracle.

The sequence-form LP (:mod:`lpgame.equilibria.zero_sum.nash`) has one variable per sequence. In games
such as Dudo the equilibria use a tiny part of the tree: Dudo(4,1,2) has 16,381 + 40,951
sequences and an optimal vertex puts weight on 46 + 389 of them. The double oracle (McMahan,
Gordon & Blum 2003 for matrix games; Bošanský, Kiekintveld, Lisý & Pěchouček 2014, JAIR 51, for
the sequence form) solves the LP of a *restricted game* and lets best responses in the full game
say which sequences to add:

* the restricted game lets player i use only sequences in a set S_i that is closed under the
  player's own play (every information set whose parent sequence is in S_i has an action in S_i:
  S_i is a union of pure strategies' sequences), so its realization plans are the plans of Q_i
  that vanish outside S_i;
* its equilibrium (x', y') is the security LP of Koller, Megiddo & von Stengel (1996) on the
  submatrices F_1[·, S_1], F_2[·, S_2], U[S_1, S_2] (rows: the information sets whose parent
  sequence is kept):

      max f_2ᵀ v   s.t.   F_1' x = f_1,   F_2'ᵀ v − U'ᵀ x ≤ 0,   x ≥ 0;

* x' and y', padded with zeros, are strategies of the full game, so their best-response values
  in the full game bound the value v* from both sides:

      lower = min_{y ∈ Q_2} x'ᵀ U y   ≤   v*   ≤   max_{x ∈ Q_1} xᵀ U y' = upper;

  ``upper − lower`` is the profile's NashConv. If it exceeds the tolerance, the two pure best
  responses (their own-reachable sequences) join S_1 and S_2 and the loop repeats.

If neither best response brings a new sequence, the restricted equilibrium is an equilibrium of the
full game (a best response inside the restricted game is then one in the full game), so the loop
ends after finitely many rounds. Where several actions are best, the best responses prefer
sequences already kept, then the action with the smallest own subtree, so that information sets
the opponent never reaches add as little as possible (a challenge rather than a raise in Dudo).
Each round costs two products with U and two bottom-up recursions
(:func:`lpgame.analysis.best_response.best_response_to_payoffs`); the LPs stay small while the
equilibrium's support is small. U is a sparse matrix, or, for a private-signal game too large for
it, the deals × public-leaves payoff table (:class:`PayoffOperator`,
:mod:`lpgame.game.signal_payoffs`), so the loop's memory is that table and the two treeplexes.
The answer is certified like every other one, by the independent best responses of
:mod:`lpgame.analysis.exploitability`.

Exact mode (``exact=True``): once the floating-point rounds have converged, the restricted LP is
stated with rational payoffs U[S_1, S_2] read from the game's exact leaves, its optimal basis is
certified in rational arithmetic (:mod:`lpgame.lp.exact`), and both best responses to the padded
rational plans are computed exactly in the full game. Equal exact bounds (lower = upper = the
restricted value) prove an exact equilibrium of the full game; otherwise the best responses'
new sequences join the restricted game and the exact round repeats.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from lpgame import progress
from lpgame.analysis.best_response import best_response_to_payoffs
from lpgame.equilibria.zero_sum.solution import ZeroSumSolution, check_two_player_constant_sum
from lpgame.errors import ExactCheckError, LpgameError, SolverTimeLimitError
from lpgame.game.signal_payoffs import SignalPayoffs
from lpgame.limits import memory_limit
from lpgame.lp import solve_lp, solve_lp_exact
from lpgame.lp.linear_program import LinearProgram
from lpgame.lp.scaling import unit_range_scaling
from lpgame.rational import RationalMatrix
from lpgame.sequence_form import BYTES_PER_PAYOFF_ENTRY, SequenceForm

TIE_TOLERANCE = 1e-13
"""Best-response actions within this fraction of the payoff range of the best count as ties, so
that rounding in the products cannot override the preference for kept and small subtrees."""


@dataclass
class OracleRound:
    """One round: restricted sizes, the restricted value and the full-game bounds."""

    round: int
    kept_sequences: tuple[int, int]
    lp_size: dict
    restricted_value: float
    lower: float
    upper: float
    seconds: float          # the whole round
    lp_seconds: float       # the restricted LP's solve (HiGHS) alone

    @property
    def gap(self) -> float:
        return self.upper - self.lower


def own_subtree_sizes(sf: SequenceForm, player: int) -> np.ndarray:
    """Number of the player's sequences in the subtree of each sequence (itself included)."""
    p = sf.players[player]
    size = np.ones(p.num_sequences, dtype=np.int64)
    for js, seqs, starts in sf.infoset_levels(player):     # deepest first
        np.add.at(size, p.infoset_parent_seq[js], np.add.reduceat(size[seqs], starts))
    return size


MATRIX_MEMORY_FRACTION = 0.25
"""A private-signal game's U is built as CSR (products about 4× faster than from the payoff table)
when its predicted memory is at most this fraction of the memory limit."""


class PayoffOperator:
    """Products with U = U_1 and its restricted submatrices, for the double oracle's rounds.

    An explicit game's U is built once as CSR. A two-player private-signal game keeps its payoffs as
    deals × public leaves (:class:`lpgame.game.signal_payoffs.SignalPayoffs`); where U would take
    more than :data:`MATRIX_MEMORY_FRACTION` of the memory limit (Dudo(5,2,2): 236 million leaves,
    about 11 GB), the products and submatrices come from that table instead, so neither the
    product leaves nor U are built.
    """

    def __init__(self, sf: SequenceForm):
        structure = sf.payoff_structure
        self.structure = self.matrix = None
        predicted = BYTES_PER_PAYOFF_ENTRY * sf.game.index.num_terminals
        if (isinstance(structure, SignalPayoffs)
                and predicted > MATRIX_MEMORY_FRACTION * memory_limit()):
            self.structure = structure
        else:
            self.matrix = sf.payoff_matrix(0).tocsr()

    def row_payoffs(self, y: np.ndarray) -> np.ndarray:
        """U y: player 1's payoff per sequence against player 2's plan y."""
        if self.matrix is not None:
            return self.matrix @ y
        return self.structure.sequence_payoffs(0, [None, y], payoff_of=0)

    def column_losses(self, x: np.ndarray) -> np.ndarray:
        """−Uᵀ x: player 2's payoff per sequence against player 1's plan x (zero-sum)."""
        if self.matrix is not None:
            return -(self.matrix.T @ x)
        return self.structure.sequence_payoffs(1, [x, None], payoff_of=0, sign=-1.0)

    def submatrix(self, kept: list[np.ndarray]) -> sp.csr_array:
        """U[S_1, S_2] for sorted sequence sets."""
        if self.matrix is not None:
            return self.matrix[kept[0]][:, kept[1]]
        return self.structure.payoff_submatrix(0, kept)


def restricted_security_lp(sf: SequenceForm, payoffs: sp.csr_array | PayoffOperator | None,
                           kept: list[np.ndarray], round_: int = 0,
                           exact: bool = False) -> LinearProgram:
    """The security LP of player 1 in the game restricted to the sorted sequence sets ``kept``
    (module); ``payoffs`` is U = U_1 as CSR, or a :class:`PayoffOperator`. ``exact`` states
    U[S_1, S_2] with rational entries, read from the game's exact leaves (``payoffs`` unused), so
    that the basis can be certified exactly."""
    lp = LinearProgram(name=f"restricted sequence-form LP of {sf.game.name} (round {round_})",
                       description="  max f_2ᵀv  s.t.  F_1'x = f_1,  F_2'ᵀv − U'ᵀx ≤ 0,  x ≥ 0 "
                                   "(sequences restricted to S_1 × S_2; double oracle)")
    rows = []
    for i in range(2):
        parent = sf.players[i].infoset_parent_seq
        in_kept = np.zeros(sf.num_sequences(i), dtype=bool)
        in_kept[kept[i]] = True
        infosets = np.flatnonzero(in_kept[parent])
        rows.append(np.concatenate([[0], infosets + 1]))
    F1 = sf.treeplex_matrix(0)[rows[0]][:, kept[0]]
    F2 = sf.treeplex_matrix(1)[rows[1]][:, kept[1]]
    if exact:
        minus_Ut = -exact_payoff_submatrix(sf, kept).T
        F2_T = RationalMatrix.from_scipy(F2.T)
        zeros = [Fraction(0)] * len(kept[1])
    else:
        if isinstance(payoffs, PayoffOperator):
            U_kept = payoffs.submatrix(kept)
        else:
            U_kept = payoffs[kept[0]][:, kept[1]]
        # payoffs divided by a power of two into unit range (exact; lpgame.lp.scaling), so that
        # games scaled by 1e-12 or 1e12 are the same LP; the optimum is scaled back by
        # lp.objective_scaling
        lo, hi = sf.game._payoff_bounds()
        scaling = unit_range_scaling(lo, hi, shift=False)
        lp.objective_scaling = scaling
        minus_Ut = -sp.csr_array(U_kept.T) * (1.0 / scaling.float_scale)
        F2_T, zeros = sp.csr_array(F2.T), np.zeros(len(kept[1]))
    labels = [[sf.players[i].sequence_label(int(s)) for s in kept[i]] for i in range(2)]
    infoset_labels = [["∅"] + [sf.players[i].infoset_labels[int(r) - 1] for r in rows[i][1:]]
                      for i in range(2)]
    x = lp.add_variables("x", len(kept[0]), lower=0.0, labels=labels[0])
    v = lp.add_variables("v", len(rows[1]), lower=-np.inf, labels=infoset_labels[1])
    f1 = np.zeros(len(rows[0]))
    f1[0] = 1.0
    lp.add_constraints("treeplex", [(x, sp.csr_array(F1))], "==", f1, labels=infoset_labels[0])
    lp.add_constraints("best_response", [(v, F2_T), (x, minus_Ut)], "<=", zeros, labels=labels[1])
    objective = np.zeros(v.size)
    objective[0] = 1.0
    lp.set_objective([(v, objective)], "max")
    return lp


def exact_payoff_submatrix(sf: SequenceForm, kept: list[np.ndarray]) -> RationalMatrix:
    """U_1[S_1, S_2] = Σ_z p_c(z) u_1(z) over the leaves z whose two sequences are kept, with
    rational entries (rows and columns numbered within ``kept``); only those leaves are read."""
    chance, chance_den, payoffs, payoff_den = sf.exact_terminal_scaled()
    seqs = sf.terminal_sequences
    position = []
    for i in range(2):
        at = np.full(sf.num_sequences(i), -1, dtype=np.int64)
        at[kept[i]] = np.arange(len(kept[i]))
        position.append(at[seqs[:, i]])
    leaves = np.flatnonzero((position[0] >= 0) & (position[1] >= 0))
    den = chance_den * payoff_den
    data = [Fraction(int(n), den) for n in (chance[leaves] * payoffs[leaves, 0]).tolist()]
    return RationalMatrix((len(kept[0]), len(kept[1])), position[0][leaves], position[1][leaves],
                          data)


def _exact_rounds(sf: SequenceForm, payoffs: PayoffOperator, kept_mask: list[np.ndarray],
                  rounds: list[OracleRound], max_rounds: int, backend: str, options: dict,
                  pure_best_response, deadline: float | None = None) -> ZeroSumSolution:
    """Exact mode, after the floating-point rounds have converged on ``kept_mask``: certify the
    restricted LP's optimal basis in rational arithmetic (:mod:`lpgame.lp.exact`), pad its plans
    with exact zeros, and compute both best responses in the full game exactly. Equal bounds prove
    the profile an exact equilibrium of the full game; otherwise the floating-point best responses
    to the exact plans bring their new sequences and the round repeats."""
    from lpgame.analysis.best_response import best_response_value_exact

    options = {**options, "solver": options.get("solver", "simplex")}
    while len(rounds) < max_rounds:
        t0 = time.perf_counter()
        kept = [np.flatnonzero(m) for m in kept_mask]
        lp = restricted_security_lp(sf, None, kept, len(rounds) + 1, exact=True)
        solution, certified = solve_lp_exact(lp, backend=backend, **options)
        plans = [[Fraction(0)] * sf.num_sequences(i) for i in range(2)]
        for i, values in enumerate((certified.values(lp, "x"),
                                    certified.duals(lp, "best_response"))):
            for s, value in zip(kept[i].tolist(), values):
                plans[i][s] = value
        upper = best_response_value_exact(sf, 0, plans, payoff_of=0)
        lower = -best_response_value_exact(sf, 1, plans, payoff_of=0, sign=-1)
        rounds.append(OracleRound(len(rounds) + 1, (len(kept[0]), len(kept[1])), lp.size(),
                                  float(certified.objective), float(lower), float(upper),
                                  time.perf_counter() - t0, solution.seconds))
        if lower == upper == certified.objective:
            return ZeroSumSolution(certified.objective, plans, lp, solution, True, rounds=rounds,
                                   exact_path=certified.path)
        floats = [np.array([float(v) for v in plan]) for plan in plans]
        seqs1 = pure_best_response(0, payoffs.row_payoffs(floats[1]), kept_mask[0],
                                   exact_ties=True)[1]
        seqs2 = pure_best_response(1, payoffs.column_losses(floats[0]), kept_mask[1],
                                   exact_ties=True)[1]
        if not ((seqs1 & ~kept_mask[0]).any() or (seqs2 & ~kept_mask[1]).any()):
            raise ExactCheckError(
                f"exact double oracle on {sf.game.name}: the certified restricted equilibrium "
                f"leaves the exact bounds [{lower}, {upper}] apart, and the floating-point best "
                "responses add no sequence; use algorithm='lp' with exact=True")
        kept_mask = [kept_mask[0] | seqs1, kept_mask[1] | seqs2]
        if deadline is not None and time.perf_counter() > deadline:
            break
    raise SolverTimeLimitError(
        f"exact double oracle on {sf.game.name}: no exact equilibrium after {len(rounds)} rounds",
        status="round or time limit", size=rounds[-1].lp_size if rounds else None,
        kept_sequences=[np.flatnonzero(m) for m in kept_mask])


def check_closed_sequence_set(sf: SequenceForm, player: int, kept_mask: np.ndarray) -> None:
    """Raise unless ``kept_mask`` holds the empty sequence and, for every information set whose
    parent sequence it holds, at least one of the set's actions (the restricted game's condition,
    module docstring). The support of any realization plan passes."""
    p = sf.players[player]
    if not kept_mask[0]:
        raise LpgameError(f"{sf.game.player_names[player]}: the kept sequences must include the "
                          "empty sequence")
    if p.num_infosets == 0:
        return
    actions_kept = np.add.reduceat(kept_mask.astype(np.int64), p.infoset_first_seq)
    open_sets = np.flatnonzero(kept_mask[p.infoset_parent_seq] & (actions_kept == 0))
    if open_sets.size:
        raise LpgameError(
            f"{sf.game.player_names[player]}: the kept sequences are not closed under the "
            f"player's own play: {open_sets.size} information set(s) have their parent sequence "
            f"kept and no action kept, e.g. {p.infoset_labels[int(open_sets[0])]!r}")


def save_checkpoint(path, sf: SequenceForm, kept: list[np.ndarray], rounds: int,
                    bounds: tuple[float, float]) -> None:
    """Write the kept sequence sets (and the round and best bounds, for the record) to ``path``
    (``.npz``), replacing it only once the new file is complete."""
    path = Path(path)
    partial = path.with_name(path.name + ".partial.npz")
    np.savez_compressed(partial, game=np.array(sf.game.name),
                        sequences=np.array([sf.num_sequences(0), sf.num_sequences(1)]),
                        kept_1=kept[0], kept_2=kept[1], rounds=np.array(rounds),
                        bounds=np.array(bounds, dtype=float))
    os.replace(partial, path)


def load_checkpoint(path, sf: SequenceForm) -> list[np.ndarray]:
    """The kept sequence sets written by :func:`save_checkpoint` for the game of ``sf``."""
    try:
        with np.load(Path(path)) as data:
            game, sizes = str(data["game"]), data["sequences"].tolist()
            kept = [data["kept_1"].astype(np.int64), data["kept_2"].astype(np.int64)]
    except (OSError, KeyError, ValueError) as error:
        raise LpgameError(f"double-oracle checkpoint {path}: cannot read it ({error})") from error
    expected = [sf.num_sequences(0), sf.num_sequences(1)]
    if game != sf.game.name or sizes != expected:
        raise LpgameError(f"double-oracle checkpoint {path} is for {game} ({sizes[0]} + {sizes[1]} "
                          f"sequences), not {sf.game.name} ({expected[0]} + {expected[1]})")
    return kept


def _initial_masks(sf: SequenceForm, initial_sequences) -> list[np.ndarray]:
    """Kept masks from ``initial_sequences``: a checkpoint path or one index array per player."""
    if isinstance(initial_sequences, (str, Path)):
        initial_sequences = load_checkpoint(initial_sequences, sf)
    if len(initial_sequences) != 2:
        raise LpgameError("initial_sequences: give one array of sequence indices per player")
    masks = []
    for i, seqs in enumerate(initial_sequences):
        seqs = np.asarray(seqs, dtype=np.int64).ravel()
        n = sf.num_sequences(i)
        if seqs.size and (seqs.min() < 0 or seqs.max() >= n):
            raise LpgameError(f"initial_sequences of {sf.game.player_names[i]}: indices must lie "
                              f"in [0, {n}), got [{seqs.min()}, {seqs.max()}]")
        mask = np.zeros(n, dtype=bool)
        mask[seqs] = True
        check_closed_sequence_set(sf, i, mask)
        masks.append(mask)
    return masks


def solve_zero_sum_double_oracle(sf: SequenceForm, tolerance: float = 1e-10,
                                 max_rounds: int = 10_000, time_limit: float | None = None,
                                 exact: bool = False, backend: str = "highs", verbose: bool = False,
                                 initial_sequences=None, checkpoint=None,
                                 **options) -> ZeroSumSolution:
    """Solve a two-player zero-sum game by the double oracle (see module docstring).

    Stops when the full-game gap ``upper − lower`` is at most ``tolerance`` × the payoff range, or
    when no best response adds a sequence. ``time_limit`` (seconds, whole loop; each restricted LP
    gets what is left) and ``max_rounds`` raise :class:`~lpgame.errors.SolverTimeLimitError` with
    the best bounds of all rounds (``objective`` the lower, ``best_bound`` the upper) and, in
    ``plans``, the strategies that reach them: player 1's guarantees it at least the lower bound,
    player 2's holds it to at most the upper one.
    ``options`` go to each restricted LP's solve (:func:`lpgame.lp.solve_lp`). The solution's
    ``rounds`` lists every round.

    A long run can be split: ``checkpoint`` (a path) is rewritten after every round with the kept
    sequence sets (:func:`save_checkpoint`), and ``initial_sequences`` (such a path, or one array of
    sequence indices per player, e.g. the supports of a stopped run's ``plans`` or of a CFR
    strategy; each must be closed under the player's own play) adds those sequences to the first
    restricted game, so a run resumed from its checkpoint goes on where it stopped.

    >>> import lpgame
    >>> sf = lpgame.compile_game(lpgame.games.make("dudo", K=3, D1=1, D2=1))
    >>> sol = solve_zero_sum_double_oracle(sf)
    >>> round(sol.value, 12)          # Dudo(3,1,1) is liar's dice with one 3-sided die: −1/9
    -0.111111111111
    >>> kept = sol.rounds[-1].kept_sequences     # the last restricted game, of 190 + 190 sequences
    >>> kept[0] < sf.num_sequences(0) and kept[1] < sf.num_sequences(1)
    True
    """
    if exact and backend != "highs":
        raise ExactCheckError("exact mode reads HiGHS's optimal basis: use backend='highs'")
    check_two_player_constant_sum(sf, exact)
    start = time.perf_counter()
    scale = sf.game.payoff_range() or 1.0
    tie_tolerance = TIE_TOLERANCE * scale
    U = PayoffOperator(sf)
    preference = []                  # kept sequences first, then the smallest own subtree
    for i in range(2):
        size = own_subtree_sizes(sf, i)
        preference.append(size * sf.num_sequences(i) + np.arange(sf.num_sequences(i)))
    big = [int(pref.max()) + 1 for pref in preference]

    def pure_best_response(i: int, g: np.ndarray, kept_mask: np.ndarray,
                           exact_ties: bool = False):
        br = best_response_to_payoffs(sf, i, g, np.where(kept_mask, preference[i],
                                                         preference[i] + big[i]),
                                      0.0 if exact_ties else tie_tolerance)
        return br, sf.plan_from_behaviour(i, br.behaviour) > 0.5

    # start from each player's best response to the other's uniform behaviour
    uniform = [sf.plan_from_behaviour(i, sf.uniform_behaviour(i)) for i in range(2)]
    start_mask = ([np.zeros(sf.num_sequences(i), dtype=bool) for i in range(2)]
                  if initial_sequences is None else _initial_masks(sf, initial_sequences))
    kept_mask = [start_mask[0] | pure_best_response(0, U.row_payoffs(uniform[1]), start_mask[0])[1],
                 start_mask[1] | pure_best_response(1, U.column_losses(uniform[0]),
                                                    start_mask[1])[1]]
    rounds: list[OracleRound] = []
    # the best bounds so far and the plans behind them (player 1's lower, player 2's upper)
    lower_best, upper_best, best_plans = -np.inf, np.inf, [None, None]
    for round_ in range(1, max_rounds + 1):
        t0 = time.perf_counter()
        kept = [np.flatnonzero(m) for m in kept_mask]
        lp = restricted_security_lp(sf, U, kept, round_)
        limit = {}
        if time_limit is not None:     # the restricted LP gets what is left of the loop's time
            limit["time_limit"] = max(time_limit - (time.perf_counter() - start), 1e-3)
        try:
            solution = solve_lp(lp, backend=backend, **options, **limit)
        except SolverTimeLimitError:
            break
        plans = [np.zeros(sf.num_sequences(i)) for i in range(2)]
        plans[0][kept[0]] = np.clip(solution.values("x"), 0.0, None)
        plans[1][kept[1]] = np.clip(solution.duals("best_response"), 0.0, None)
        br1, seqs1 = pure_best_response(0, U.row_payoffs(plans[1]), kept_mask[0])
        br2, seqs2 = pure_best_response(1, U.column_losses(plans[0]), kept_mask[1])
        upper, lower = br1.value, -br2.value
        if lower > lower_best:
            lower_best, best_plans[0] = lower, plans[0]
        if upper < upper_best:
            upper_best, best_plans[1] = upper, plans[1]
        restricted_value = lp.objective_scaling.from_unit(solution.objective)
        rounds.append(OracleRound(round_, (len(kept[0]), len(kept[1])), lp.size(),
                                  restricted_value, lower, upper,
                                  time.perf_counter() - t0, solution.seconds))
        progress.report("double oracle", round=round_, lower=lower_best, upper=upper_best,
                        kept_sequences=f"{len(kept[0])}+{len(kept[1])}")
        if verbose:
            r = rounds[-1]
            print(f"double oracle round {round_}: kept {r.kept_sequences}, LP {r.lp_size['rows']}"
                  f"×{r.lp_size['cols']}, restricted {r.restricted_value:.12g}, bounds "
                  f"[{lower:.12g}, {upper:.12g}], gap {r.gap:.3g}, {r.seconds:.2f} s", flush=True)
        new = [seqs1 & ~kept_mask[0], seqs2 & ~kept_mask[1]]
        if upper - lower <= tolerance * scale or not (new[0].any() or new[1].any()):
            if exact:
                return _exact_rounds(sf, U, kept_mask, rounds, max_rounds, backend, options,
                                     pure_best_response,
                                     None if time_limit is None else start + time_limit)
            return ZeroSumSolution(restricted_value, plans, lp, solution, False, rounds=rounds)
        kept_mask = [kept_mask[0] | seqs1, kept_mask[1] | seqs2]
        if checkpoint is not None:
            save_checkpoint(checkpoint, sf, [np.flatnonzero(m) for m in kept_mask], round_,
                            (lower_best, upper_best))
        if time_limit is not None and time.perf_counter() - start > time_limit:
            break
    raise SolverTimeLimitError(
        f"double oracle on {sf.game.name}: stopped after {len(rounds)} rounds "
        f"({time.perf_counter() - start:.1f} s) with the value in [{lower_best:.12g}, "
        f"{upper_best:.12g}]", status="round or time limit",
        size=rounds[-1].lp_size if rounds else None, best_bound=upper_best, objective=lower_best,
        plans=best_plans if rounds else None,
        kept_sequences=[np.flatnonzero(m) for m in kept_mask])


__all__ = ["solve_zero_sum_double_oracle", "restricted_security_lp", "own_subtree_sizes",
           "OracleRound", "PayoffOperator", "check_closed_sequence_set", "save_checkpoint",
           "load_checkpoint"]
