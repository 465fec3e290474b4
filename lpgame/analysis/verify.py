"""Verification report of an outside strategy profile: how far it is from equilibrium, and where.

For a profile σ (e.g. the output of CFR or of a notebook) the report gives, computed by the
independent best-response path of :mod:`lpgame.analysis.best_response` (no LP):

* ``value`` = u_1(σ) (and ``values``, one per player);
* ``best_response_value`` v_i = max_{σ'_i} u_i(σ'_i, σ_{−i}) (Hoehn 2006 calls v_i the
  "exploitability" of σ_{−i}, notes/gameshrink-and-hoehn.md §B.4) and ``best_response_gain``
  δ_i = v_i − u_i(σ) ≥ 0;
* ``nash_conv`` = Σ_i δ_i: the seeds' exploitability ε_σ = v_1 + v_2 in a zero-sum game (Rojas
  Linárez 2020, §3.2, notes §3.4; Farina 2023's Nash gap, Thm 5.1; OpenSpiel's ``nash_conv``);
* ``exploitability`` = nash_conv / n (OpenSpiel's ``exploitability``; for two players the average
  gain);

and, for a two-player constant-sum game, from the exact sequence-form LP (:func:`lpgame.solve`):

* ``equilibrium_value`` v* (player 1's) and ``value_gap`` = u_1(σ) − v*;
* ``guaranteed`` g_i = min_{σ'_{−i}} u_i(σ_i, σ'_{−i}), what σ_i secures against a worst-case
  opponent, and ``concession`` = v*_i − g_i ≥ 0, what σ_i gives away relative to the value (in a
  zero-sum game concession_1 + concession_2 = nash_conv).

**Worst information sets.** For a player i, let y* be the opponent's pure best response to σ_i (the
first maximising action at ties, :func:`~lpgame.analysis.best_response.best_response`). With the
counterfactual values of i's sequences against y* and with i's own strategy b_i below
(:mod:`lpgame.learning.treeplex`; Zinkevich et al. 2007),

    q[ja] = g_i[ja] + Σ_{j': p_{j'} = ja} Σ_{a'} b_i[j'a'] q[j'a'],   g_i = U_i y* per sequence,

the reach-weighted loss of i at information set j is

    L(j) = x_i[p_j] · ( max_a q[ja] − Σ_a b_i[ja] q[ja] )  ≥ 0,

i's own probability of reaching j times the immediate counterfactual regret of its action mix against
the exploiting opponent. L(j) is exactly what i would gain against y* by changing its behaviour at j
alone to the best action there (everything else fixed): u_i(σ_i[j → a*], y*) − u_i(σ_i, y*), in the
game's payoff units.

Because a best response jumps when the strategy crosses an indifference, L(j) is large wherever
σ_i's choice is right only because the exploiter is (nearly) indifferent: at an exact or near
equilibrium it flags such *threats* (e.g. Kuhn's J bluff, which is correct only while player 2 calls
with Q at exactly 1/3), not losses. The report therefore also gives, per listed information set, the
**guarantee gain**

    Δ(j) = max_{b_j ∈ Δ(A_j)} g(σ_i[j → b_j]) − g(σ_i) ≥ 0,    g(σ_i) = min_{σ_o} u_i(σ_i, σ_o),

the increase of the strategy's worst-case value from changing its behaviour at j alone, the
opponent re-optimising (one small LP per set: the plan is linear in b_j, so g is the security LP of
:mod:`lpgame.equilibria.zero_sum.security` over the simplex of b_j). Δ is continuous in σ_i and zero at every
equilibrium. ``rank_by`` selects which of the two orders the list (the loss L by default).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from lpgame.analysis.best_response import best_response, sequence_payoffs
from lpgame.analysis.exploitability import evaluate_plans
from lpgame.errors import LpgameError, StrategyError
from lpgame.exact_probabilities import ExactConversion
from lpgame.number_format import format_number
from lpgame.sequence_form import SequenceForm

CONVENTIONS = {
    "nash_conv": "sum over players of the best-response gains (Rojas Linárez's exploitability "
                 "ε = v1 + v2 in a zero-sum game; OpenSpiel's nash_conv; Farina's Nash gap)",
    "exploitability": "nash_conv / number of players (OpenSpiel's exploitability)",
    "best_response_value": "value of each player's best response to the others (Hoehn's "
                           "'exploitability' of the opponent's strategy)",
}


@dataclass
class InfosetLoss:
    """Where a strategy loses against the opponent's best response (see module docstring)."""

    player: int
    infoset: str
    loss: float                       # L(j) = x_i[p_j] (max_a q[ja] − Σ_a b[ja] q[ja])
    reach: float                      # x_i[p_j], the player's own probability of reaching j
    best_action: str
    strategy: dict[str, float]        # the strategy's action probabilities at j
    counterfactual_values: dict[str, float]   # q[ja] against the best response
    guarantee_gain: float | None = None       # Δ(j): worst-case gain of fixing j alone

    def to_dict(self) -> dict:
        return {"player": self.player + 1, "infoset": self.infoset, "loss": self.loss,
                "guarantee_gain": self.guarantee_gain,
                "reach": self.reach, "best_action": self.best_action,
                "strategy": dict(self.strategy),
                "counterfactual_values": dict(self.counterfactual_values)}


@dataclass
class VerificationReport:
    """Everything :func:`verify` measured (see module docstring for each quantity)."""

    game: str
    value: float
    values: list[float]
    best_response_value: list[float]
    best_response_gain: list[float]
    nash_conv: float
    exploitability: float
    equilibrium_value: object = None
    equilibrium_values: list | None = None
    value_gap: float | None = None
    guaranteed: list[float] | None = None
    concession: list[float] | None = None
    worst_infosets: list[InfosetLoss] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)   # e.g. how float input was made exact
    refinement: str | None = None                    # the refined reference, when asked for
    off_reference: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        """JSON object with ``value``, ``best_response_gain`` (one per player), ``nash_conv``,
        ``exploitability``, ``equilibrium_value``, ``worst_infosets`` and the other fields,
        plus ``conventions`` naming what each exploitability number means."""
        from lpgame.io.json_io import number_to_json

        def numbers(seq):
            return None if seq is None else [number_to_json(v) for v in seq]

        return {
            "game": self.game,
            "value": number_to_json(self.value),
            "values": numbers(self.values),
            "best_response_value": numbers(self.best_response_value),
            "best_response_gain": numbers(self.best_response_gain),
            "nash_conv": number_to_json(self.nash_conv),
            "exploitability": number_to_json(self.exploitability),
            "equilibrium_value": number_to_json(self.equilibrium_value),
            "equilibrium_values": numbers(self.equilibrium_values),
            "value_gap": number_to_json(self.value_gap),
            "guaranteed": numbers(self.guaranteed),
            "concession": numbers(self.concession),
            "worst_infosets": [w.to_dict() for w in self.worst_infosets],
            "conventions": dict(CONVENTIONS),
        } | ({"notes": list(self.notes)} if self.notes else {}) | (
            {"refinement": self.refinement, "off_reference": self.off_reference}
            if self.refinement else {})

    def summary(self, digits: int = 6, decimals: int | None = None,
                tolerance: float | None = None) -> str:
        """Readable report (what ``lpgame verify`` prints): numbers by
        :mod:`lpgame.number_format` (``decimals`` after the point when given; floats below
        ``tolerance`` as 0; long fractions with ``≈ decimal``)."""
        def f(v, places=digits, show_tolerance=True):
            return format_number(v, places, decimals, tolerance, show_tolerance)

        n = len(self.values)
        lines = [f"{self.game}: verification of a strategy profile",
                 f"value for player 1: {f(self.value)}"]
        if self.equilibrium_value is not None:
            lines.append(f"equilibrium value (exact LP): {f(self.equilibrium_value, 6)}"
                         f"   gap: {f(self.value_gap)}")
        for i in range(n):
            line = (f"player {i + 1}: best-response value {f(self.best_response_value[i])}, "
                    f"gain {f(self.best_response_gain[i])}")
            if self.guaranteed is not None:
                line += f"; guarantees {f(self.guaranteed[i])}"
                if self.concession is not None:
                    line += f", concedes {f(self.concession[i])} to the value"
            lines.append(line)
        lines.append(f"nash_conv (sum of gains; the seeds' exploitability) = {f(self.nash_conv)}")
        lines.append(f"exploitability (nash_conv / {n}; OpenSpiel's) = {f(self.exploitability)}")
        if self.worst_infosets:
            lines.append("information sets losing the most against a best response "
                         "(loss = own reach × immediate counterfactual regret against the "
                         "exploiter; guarantee gain = worst-case value won by fixing the set "
                         "alone):")
            for w in self.worst_infosets:
                probs = ", ".join(f"{a}={f(p, 3, False)}" for a, p in w.strategy.items())
                gain = "" if w.guarantee_gain is None else f", guarantee gain {f(w.guarantee_gain, 4)}"
                lines.append(f"  player {w.player + 1}  {w.infoset!r:<16} loss {f(w.loss, 4)}{gain}"
                             f"  (reach {f(w.reach, 3, False)}; plays {probs}; best vs exploiter "
                             f"{w.best_action})")
        if self.refinement:
            lines.append(f"information sets whose play differs most from the {self.refinement.upper()} "
                         "(rational play everywhere, unreached sets included):")
            for d in self.off_reference:
                mark = " (unreached by the reference)" if d["unreached_by_reference"] else ""
                plays = ", ".join(f"{a}={f(p, 3, False)}" for a, p in d["plays"].items())
                refined = ", ".join(f"{a}={f(float(p), 3, False)}"
                                    for a, p in d["reference"].items())
                lines.append(f"  player {d['player'] + 1}  {d['infoset']!r:<16} differs by "
                             f"{f(d['difference'], 3)}{mark}: plays {plays}; refined {refined}")
        lines.extend(f"note: {note}" for note in self.notes)
        return "\n".join(lines)


def infoset_losses(sf: SequenceForm, player: int, plans: Sequence[np.ndarray],
                   behaviour: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(L, q, best action index) for every information set of ``player`` (module docstring).

    ``plans`` is the profile as realization plans, ``behaviour`` the player's behaviour vector.
    Requires two players.
    """
    from lpgame.learning.treeplex import PlayerTreeplex

    if sf.num_players != 2:
        raise LpgameError(f"{sf.game.name}: information-set losses are defined for two players")
    opponent = 1 - player
    response = best_response(sf, opponent, list(plans))
    exploiter = sf.plan_from_behaviour(opponent, response.behaviour)
    profile = list(plans)
    profile[opponent] = exploiter
    g = sequence_payoffs(sf, player, profile)
    tp = PlayerTreeplex(sf, player)
    q, V = tp.counterfactual_values(g, behaviour)
    p = sf.players[player]
    if not p.num_infosets:
        return np.zeros(0), q, np.zeros(0, dtype=np.int64)
    best = np.maximum.reduceat(q[1:], tp.block_starts)
    first_best = np.minimum.reduceat(
        np.where(q[1:] >= np.repeat(best, tp.counts), np.arange(len(q) - 1), len(q)),
        tp.block_starts) - tp.block_starts
    reach = np.asarray(plans[player], dtype=float)[tp.parent]
    losses = reach * np.maximum(best - V, 0.0)
    return losses, q, first_best


def guarantee_gains(sf: SequenceForm, player: int, behaviour: np.ndarray,
                    infosets: Sequence[int] | None = None, **options) -> np.ndarray:
    """Δ(j) = max_{b_j} g(σ_i[j → b_j]) − g(σ_i) for each information set j of ``player``, where
    g(σ_i) = min_{σ_o} u_i(σ_i, σ_o) is the strategy's guarantee (one small LP per set)."""
    from lpgame.lp import LinearProgram, solve_lp

    if sf.num_players != 2:
        raise LpgameError(f"{sf.game.name}: guarantee gains are defined for two players")
    opponent = 1 - player
    U = sf.payoff_matrix(player)
    Ut = (U.T if player == 0 else U).tocsr()          # rows: opponent's sequences
    F_o_t = sf.treeplex_matrix(opponent).T.tocsr()
    plan = sf.plan_from_behaviour(player, behaviour)
    base_profile = [None, None]
    base_profile[player] = plan
    base_profile[opponent] = np.zeros(sf.num_sequences(opponent))
    base = -best_response(sf, opponent, base_profile, payoff_of=player, sign=-1.0).value
    p = sf.players[player]
    js = range(p.num_infosets) if infosets is None else infosets
    out = np.full(p.num_infosets, np.nan)
    objective = np.zeros(sf.num_infosets(opponent) + 1)
    objective[0] = 1.0
    for j in js:
        first, k = int(p.infoset_first_seq[j]), int(p.infoset_num_actions[j])
        columns = []
        for a in range(k):
            b = behaviour.copy()
            b[first:first + k] = 0.0
            b[first + a] = 1.0
            columns.append(sf.plan_from_behaviour(player, b))
        D = np.column_stack(columns)
        lp = LinearProgram(name=f"guarantee of {p.infoset_labels[j]!r}")
        mix = lp.add_variables("b", k, lower=0.0)
        v = lp.add_variables("v", objective.size, lower=-np.inf)
        lp.add_constraints("simplex", [(mix, np.ones((1, k)))], "==", np.ones(1))
        lp.add_constraints("best_response", [(v, F_o_t), (mix, -(Ut @ D))], "<=",
                           np.zeros(Ut.shape[0]))
        lp.set_objective([(v, objective)], "max")
        out[j] = max(float(solve_lp(lp, **options).values("v")[0]) - base, 0.0)
    return out


def verify(game, strategies, top: int = 5, equilibrium: bool = True, exact: bool = False,
           rank_by: str = "loss", guarantee: bool = True, refinement: str | None = None,
           **solve_options) -> VerificationReport:
    """Verify a strategy profile against the game (see module docstring).

    Parameters
    ----------
    game:
        Anything :func:`lpgame.compile_game` accepts.
    strategies:
        One ``{information set: {action: probability}}`` per player (e.g. from
        :func:`lpgame.io.strategy_files.load_strategies`), or an object with ``.strategies``
        (a :class:`~lpgame.result.Result` or :class:`~lpgame.learning.LearningResult`).
    top:
        How many information sets to list per player in ``worst_infosets``.
    equilibrium:
        Solve the sequence-form LP for the exact value (two-player constant-sum games only).
    exact:
        Solve the LP in exact rational arithmetic (``equilibrium_value`` a Fraction).
    rank_by:
        ``"loss"`` (L, the default) or ``"guarantee_gain"`` (Δ; one LP per information set).
    guarantee:
        Compute Δ for the listed information sets (one small LP each).
    refinement:
        ``"qpe"``, ``"efpe"`` or ``"os-qpe"``: also compare the profile, information set by
        information set, with that refined equilibrium
        (:mod:`lpgame.equilibria.refinements.refined_equilibrium`), whose play is rational where
        equilibrium play never goes; ``off_reference`` lists the ``top`` sets that differ most
        (largest total-variation distance of the action distributions).
    solve_options:
        Passed to :func:`lpgame.solve`.
    """
    from lpgame.compile import compile_game

    if rank_by not in ("loss", "guarantee_gain"):
        raise LpgameError(f"rank_by must be 'loss' or 'guarantee_gain', got {rank_by!r}")
    sf = compile_game(game)
    if hasattr(strategies, "strategies"):
        strategies = strategies.strategies
    if len(strategies) != sf.num_players:
        raise StrategyError(f"{sf.game.name} has {sf.num_players} players; got "
                            f"{len(strategies)} strategies")
    notes: list[str] = []
    if exact:   # the exact-input rule of evaluate --exact (lpgame.exact_probabilities)
        conversion = ExactConversion()
        for i, s in enumerate(strategies):
            sf.behaviour_from_dict_exact(i, s, conversion)
        notes = conversion.notes()
    behaviours = [sf.behaviour_from_dict(i, s) for i, s in enumerate(strategies)]
    plans = [sf.plan_from_behaviour(i, b) for i, b in enumerate(behaviours)]
    ev = evaluate_plans(sf, plans)
    report = VerificationReport(
        game=sf.game.name, value=float(ev.values[0]), values=[float(v) for v in ev.values],
        best_response_value=[float(v) for v in ev.best_response_values],
        best_response_gain=[float(v) for v in ev.best_response_gain],
        nash_conv=float(ev.nash_conv), exploitability=float(ev.exploitability), notes=notes)
    if sf.num_players != 2:
        return report
    report.guaranteed = [
        -best_response(sf, 1 - i, plans, payoff_of=i, sign=-1.0).value for i in range(2)]
    constant_sum = sf.game.is_constant_sum(tol=1e-9 * sf.game.payoff_range())
    if equilibrium and constant_sum:
        result = _solve_nash(sf, exact, solve_options)
        report.equilibrium_value = result.value
        report.equilibrium_values = list(result.values)
        report.value_gap = report.value - float(result.value)
        report.concession = [float(result.values[i]) - report.guaranteed[i] for i in range(2)]
    worst: list[InfosetLoss] = []
    for i in range(2):
        losses, q, best = infoset_losses(sf, i, plans, behaviours[i])
        p = sf.players[i]
        reach = plans[i][np.asarray(p.infoset_parent_seq, dtype=np.int64)] if p.num_infosets \
            else np.zeros(0)
        gains = None
        if rank_by == "guarantee_gain":
            gains = guarantee_gains(sf, i, behaviours[i])
            order = np.argsort(-gains, kind="stable")[:max(int(top), 0)]
        else:
            order = np.argsort(-losses, kind="stable")[:max(int(top), 0)]
            if guarantee and len(order):
                gains = guarantee_gains(sf, i, behaviours[i], infosets=order.tolist())
        for j in order.tolist():
            first = int(p.infoset_first_seq[j])
            actions = p.infoset_actions[j]
            worst.append(InfosetLoss(
                player=i, infoset=p.infoset_labels[j], loss=float(losses[j]),
                reach=float(reach[j]), best_action=actions[int(best[j])],
                strategy={a: float(behaviours[i][first + k]) for k, a in enumerate(actions)},
                counterfactual_values={a: float(q[first + k]) for k, a in enumerate(actions)},
                guarantee_gain=None if gains is None else float(gains[j])))
    if rank_by == "guarantee_gain":
        worst.sort(key=lambda w: -w.guarantee_gain)
    else:
        worst.sort(key=lambda w: -w.loss)
    report.worst_infosets = worst
    if refinement is not None:
        report.refinement = refinement
        report.off_reference = _off_reference(sf, strategies, refinement, top, solve_options)
    return report



def _solve_nash(sf, exact: bool, solve_options: dict):
    """The zero-sum Nash equilibrium, through the concept registry (analysis sits below the
    concepts, so it dispatches by name rather than importing them)."""
    from lpgame.registry import GameInfo, checked_options, select

    entry = select("nash", GameInfo(sf.game.name, 2, True), {})
    return entry.solve(sf, exact=exact, backend=solve_options.pop("backend", "highs"),
                       **checked_options(entry, {}), **solve_options)


def _off_reference(sf, strategies, refinement: str, top: int, solve_options: dict) -> list[dict]:
    """The information sets where ``strategies`` differ most from the refined equilibrium,
    reached through the registry (analysis sits below the concepts)."""
    from lpgame.registry import GameInfo, checked_options, select

    options = {"refinement": refinement}
    entry = select("nash", GameInfo(sf.game.name, 2, True), options)
    reference = entry.solve(sf, exact=True, backend="highs", **checked_options(entry, options),
                            **{k: v for k, v in solve_options.items() if k == "time_limit"})
    unreached = [set(u) for u in reference.unreached]
    rows = []
    for i, (mine, ref) in enumerate(zip(strategies, reference.strategies)):
        for infoset, ref_row in ref.items():
            row = mine.get(infoset, {})
            diff = 0.5 * sum(abs(float(row.get(a, 0.0)) - float(p)) for a, p in ref_row.items())
            rows.append({"player": i, "infoset": infoset, "difference": diff,
                         "plays": {a: float(row.get(a, 0.0)) for a in ref_row},
                         "reference": {a: float(p) for a, p in ref_row.items()},
                         "unreached_by_reference": infoset in unreached[i]})
    rows.sort(key=lambda r: -r["difference"])
    return rows[:max(int(top), 0)]
