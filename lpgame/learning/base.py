"""What every learning algorithm shares: the result record, the checkpoint schedule and the CFR skeleton.

**The CFR skeleton** (Zinkevich et al. 2007; Rojas Linárez 2020, Ch. V, Alg. 1–2; Farina 2023,
Algs 4.3/4.4). One iteration t updates every player i in turn (alternating updates, as the thesis's
Algorithm 1 and OpenSpiel do; ``alternating=False`` gives the simultaneous updates of Zinkevich et
al.): from the others' current realization plans it forms i's sequence payoffs g_i (exact, or a
sampled estimate: :meth:`CFRSkeleton.sequence_payoffs`), the counterfactual values and regrets of
:mod:`lpgame.learning.treeplex`, adds w_t·x_i^t to i's cumulative plan S_i, updates the regrets
(:meth:`CFRSkeleton.update_regrets`) and computes the next behaviour
(:meth:`CFRSkeleton.next_behaviour`). The subclasses differ only in these hooks.

**The average strategy** (Rojas Linárez 2020, eq. 5.2): σ̄_i(j)(a) = Σ_t w_t π_i^t(j) σ_i^t(j)(a) /
Σ_t w_t π_i^t(j), i.e. the realization plan S_i / S_i[∅] with S_i = Σ_t w_t x_i^t. Every variant
here accumulates i's exact own-reach plan x_i^t at each of i's updates (also the sampling ones: an
O(|Σ_i|) numpy step, so no sampling noise enters the average).

**Checkpoints.** At each checkpoint the average profile is evaluated by the independent best-response
path of :mod:`lpgame.analysis` (NashConv = Σ_i best-response gains, the seeds' exploitability ε);
the clock measures the training only, not these evaluations.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from lpgame.analysis.exploitability import evaluate_plans
from lpgame.errors import LpgameError
from lpgame.learning.treeplex import PlayerTreeplex, SequencePayoffs
from lpgame.progress import report as progress_report
from lpgame.sequence_form import SequenceForm

DEFAULT_CHECKPOINTS = 30


@dataclass
class LearningResult:
    """The average strategies a learning run produced and its convergence curve.

    ``curve`` rows are (iteration, seconds of training so far, NashConv of the average profile);
    ``values`` holds player 1's value u_1 of the average profile at the same checkpoints.
    ``nash_conv`` is Σ_i best-response gains of the final average (the seeds' exploitability);
    ``exploitability`` is nash_conv / n (OpenSpiel's convention).
    """

    algorithm: str
    game: str
    iterations: int
    strategies: list[dict]
    curve: list[tuple[int, float, float]]
    values: list[float]
    nash_conv: float
    exploitability: float
    value: float
    seconds: float
    params: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)
    plans: list | None = field(default=None, repr=False)

    def to_dict(self) -> dict:
        """JSON object: ``algorithm``, ``game``, ``iterations``, ``nash_conv`` (of the final average
        strategy), ``exploitability``, ``value``, ``seconds``, ``curve`` (rows of iteration,
        seconds, nash_conv), ``values``, ``strategies``, ``params`` and algorithm-specific extras."""
        from lpgame.io.json_io import number_to_json, strategies_to_json
        out = {
            "algorithm": self.algorithm,
            "game": self.game,
            "iterations": int(self.iterations),
            "nash_conv": float(self.nash_conv),
            "exploitability": float(self.exploitability),
            "value": float(self.value),
            "seconds": float(self.seconds),
            "curve": [[int(t), float(s), float(c)] for t, s, c in self.curve],
            "values": [float(v) for v in self.values],
            "strategies": strategies_to_json(self.strategies),
            "params": {k: number_to_json(v) if isinstance(v, (int, float)) else v
                       for k, v in self.params.items()},
        }
        for key, value in self.extra.items():
            out[key] = value
        return out

    def save(self, path) -> None:
        """Write :meth:`to_dict` as JSON."""
        from lpgame.io.json_io import write_json
        write_json(self.to_dict(), path)


def checkpoint_schedule(iterations: int, checkpoints: int | Sequence[int] | None) -> list[int]:
    """Iterations at which to evaluate: ``None`` → about 30 log-spaced ones, an int k → about k
    log-spaced ones, a sequence → those (within 1..iterations); the last iteration always."""
    if iterations < 1:
        raise LpgameError(f"iterations must be at least 1, got {iterations}")
    if checkpoints is None or isinstance(checkpoints, (int, np.integer)):
        k = DEFAULT_CHECKPOINTS if checkpoints is None else int(checkpoints)
        if k < 1:
            raise LpgameError(f"checkpoints must be at least 1, got {k}")
        points = np.unique(np.round(np.geomspace(1, iterations, k)).astype(int))
    else:
        points = np.array(sorted({int(c) for c in checkpoints if 1 <= int(c) <= iterations}),
                          dtype=int)
    return sorted(set(points.tolist()) | {iterations})


class Learner:
    """Interface of one learning algorithm on one game (see :func:`lpgame.learning.run`)."""

    name = "learner"

    def __init__(self, sf: SequenceForm, rng: np.random.Generator):
        self.sf = sf
        self.rng = rng

    def iterate(self, t: int) -> None:
        """Perform iteration t (1, 2, ...)."""
        raise NotImplementedError

    def average_plans(self) -> list[np.ndarray]:
        """The average profile as realization plans."""
        raise NotImplementedError

    def should_stop(self) -> bool:
        """True when the algorithm's own stopping rule holds (checked after every iteration)."""
        return False

    def extra(self) -> dict:
        """Algorithm-specific entries of the result."""
        return {}


class CFRSkeleton(Learner):
    """The shared CFR loop (module docstring); subclasses override the hooks."""

    name = "cfr-skeleton"

    def __init__(self, sf: SequenceForm, rng: np.random.Generator, alternating: bool = True):
        super().__init__(sf, rng)
        self.alternating = bool(alternating)
        self.treeplexes = [PlayerTreeplex(sf, i) for i in range(sf.num_players)]
        self.regrets = [np.zeros(tp.num_sequences) for tp in self.treeplexes]
        self.behaviours = [tp.uniform.copy() for tp in self.treeplexes]
        self.plans = [tp.plan(b) for tp, b in zip(self.treeplexes, self.behaviours)]
        self.cumulative = [np.zeros(tp.num_sequences) for tp in self.treeplexes]
        self._payoffs = None

    # ------------------------------------------------------------------ hooks
    def sequence_payoffs(self, player: int, plans: list[np.ndarray], t: int) -> np.ndarray:
        """g_i against ``plans`` (exact here; sampled estimates in the Monte Carlo variants)."""
        if self._payoffs is None:       # built at first use: the sampling variants never need it
            self._payoffs = SequencePayoffs(self.sf)
        return self._payoffs(player, plans)

    def average_weight(self, t: int) -> float:
        """w_t of iteration t in the average strategy (1: uniform averaging)."""
        return 1.0

    def accumulate_average(self, player: int, t: int) -> None:
        weight = self.average_weight(t)
        if weight == 1.0:
            self.cumulative[player] += self.plans[player]
        else:
            self.cumulative[player] += weight * self.plans[player]

    def update_regrets(self, player: int, regrets: np.ndarray, instantaneous: np.ndarray,
                       t: int) -> np.ndarray:
        """Cumulative regrets after iteration t (vanilla: R + r)."""
        return regrets + instantaneous

    def next_behaviour(self, player: int, instantaneous: np.ndarray, t: int) -> np.ndarray:
        """The next behaviour (vanilla: regret matching on the cumulative regrets)."""
        return self.treeplexes[player].regret_matching(self.regrets[player])

    # ------------------------------------------------------------------ loop
    def _observe(self, player: int, plans: list[np.ndarray], t: int) -> np.ndarray:
        g = self.sequence_payoffs(player, plans, t)
        return self.treeplexes[player].regrets(g, self.behaviours[player])

    def _apply(self, player: int, instantaneous: np.ndarray, t: int) -> None:
        self.accumulate_average(player, t)
        self.regrets[player] = self.update_regrets(player, self.regrets[player], instantaneous, t)
        self.behaviours[player] = self.next_behaviour(player, instantaneous, t)
        self.plans[player] = self.treeplexes[player].plan(self.behaviours[player])

    def iterate(self, t: int) -> None:
        n = self.sf.num_players
        if self.alternating:
            for i in range(n):
                self._apply(i, self._observe(i, self.plans, t), t)
        else:
            snapshot = list(self.plans)
            observed = [self._observe(i, snapshot, t) for i in range(n)]
            for i in range(n):
                self._apply(i, observed[i], t)

    def average_plans(self) -> list[np.ndarray]:
        out = []
        for S, x in zip(self.cumulative, self.plans):
            out.append(S / S[0] if S[0] > 0 else x.copy())
        return out


def drive(learner: Learner, algorithm: str, iterations: int,
          checkpoints: int | Sequence[int] | None = None, target: float | None = None,
          progress: Callable[[int, float, float], None] | None = None,
          params: dict | None = None) -> LearningResult:
    """Run ``learner`` for up to ``iterations`` iterations, evaluating at the checkpoints.

    Stops early when the NashConv at a checkpoint is ≤ ``target`` or when the learner's own stopping
    rule holds (then the stopping iteration is evaluated too). ``progress(iteration, seconds,
    nash_conv)`` is called at every checkpoint.
    """
    sf = learner.sf
    schedule = checkpoint_schedule(iterations, checkpoints)
    next_index = 0
    curve: list[tuple[int, float, float]] = []
    values: list[float] = []
    seconds = 0.0
    evaluation = None
    done = 0
    for t in range(1, iterations + 1):
        start = time.perf_counter()
        learner.iterate(t)
        seconds += time.perf_counter() - start
        done = t
        if curve:       # the NashConv of the latest checkpoint
            progress_report(algorithm, iteration=t, nash_conv=curve[-1][2])
        else:
            progress_report(algorithm, iteration=t)
        stop_rule = learner.should_stop()
        if stop_rule or t == schedule[next_index]:
            evaluation = evaluate_plans(sf, learner.average_plans())
            curve.append((t, seconds, float(evaluation.nash_conv)))
            values.append(float(evaluation.values[0]))
            if progress is not None:
                progress(t, seconds, float(evaluation.nash_conv))
            while next_index < len(schedule) - 1 and schedule[next_index] <= t:
                next_index += 1
            if stop_rule or (target is not None and evaluation.nash_conv <= target):
                break
    plans = learner.average_plans()
    strategies = []
    for i, plan in enumerate(plans):
        behaviour, _ = sf.behaviour_from_plan(i, plan)
        strategies.append(sf.strategy_to_dict(i, behaviour.tolist()))
    extra = learner.extra()
    if target is not None:
        extra["target_reached"] = bool(evaluation.nash_conv <= target)
    return LearningResult(
        algorithm=algorithm, game=sf.game.name, iterations=done, strategies=strategies,
        curve=curve, values=values, nash_conv=float(evaluation.nash_conv),
        exploitability=float(evaluation.exploitability), value=float(evaluation.values[0]),
        seconds=seconds, params=dict(params or {}), extra=extra, plans=plans)
