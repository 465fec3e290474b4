"""Learning dynamics for comparison with the exact LP: regret matching and the CFR family.

One algorithm per module, all vectorised with numpy on the sequence form
(:mod:`lpgame.learning.treeplex`), all behind one call:

>>> import lpgame
>>> from lpgame.learning import run
>>> result = run(lpgame.games.make("kuhn_poker"), algorithm="cfr+", iterations=300, seed=0)
>>> result.nash_conv < 1e-2
True

==================  ==========================================================================
``algorithm``       module (formulation and source in its docstring)
==================  ==========================================================================
``rm``              :mod:`~lpgame.learning.regret_matching` procedure C (unconditional regret)
``rm_conditional``  :mod:`~lpgame.learning.regret_matching` procedure A (Hart–Mas-Colell, inertia)
``rm_invariant``    :mod:`~lpgame.learning.regret_matching` procedure B (invariant vector)
``rm+``             :mod:`~lpgame.learning.regret_matching_plus`
``cfr``             :mod:`~lpgame.learning.cfr`
``cs-cfr``          :mod:`~lpgame.learning.chance_sampled_cfr`
``cfr+``            :mod:`~lpgame.learning.cfr_plus`
``dcfr``            :mod:`~lpgame.learning.discounted_cfr` (α = 1.5, β = 0, γ = 2)
``pcfr+``           :mod:`~lpgame.learning.predictive_cfr_plus`
``es-mccfr``        :mod:`~lpgame.learning.external_sampling`
``os-mccfr``        :mod:`~lpgame.learning.outcome_sampling`
==================  ==========================================================================

The regret-matching procedures take two-player normal-form games; the CFR family takes any game
lpgame compiles (a normal-form game becomes its one-level extensive form, where CFR is regret
matching). Every run records (iteration, seconds, NashConv of the average strategy) at the
checkpoints, evaluated by :mod:`lpgame.analysis`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from lpgame.errors import LpgameError
from lpgame.learning.base import LearningResult, checkpoint_schedule, drive
from lpgame.learning.cfr import CFR
from lpgame.learning.cfr_plus import CFRPlus
from lpgame.learning.chance_sampled_cfr import ChanceSampledCFR
from lpgame.learning.discounted_cfr import DiscountedCFR
from lpgame.learning.external_sampling import ExternalSamplingMCCFR
from lpgame.learning.outcome_sampling import OutcomeSamplingMCCFR
from lpgame.learning.predictive_cfr_plus import PredictiveCFRPlus
from lpgame.learning.regret_matching import RegretMatching
from lpgame.learning.regret_matching_plus import RegretMatchingPlus

SEQUENCE_FORM_ALGORITHMS = {
    "cfr": CFR,
    "cs-cfr": ChanceSampledCFR,
    "cfr+": CFRPlus,
    "dcfr": DiscountedCFR,
    "pcfr+": PredictiveCFRPlus,
    "es-mccfr": ExternalSamplingMCCFR,
    "os-mccfr": OutcomeSamplingMCCFR,
}
NORMAL_FORM_ALGORITHMS = {
    "rm": (RegretMatching, {"procedure": "C"}),
    "rm_conditional": (RegretMatching, {"procedure": "A"}),
    "rm_invariant": (RegretMatching, {"procedure": "B"}),
    "rm+": (RegretMatchingPlus, {}),
}
ALGORITHMS = tuple(NORMAL_FORM_ALGORITHMS) + tuple(SEQUENCE_FORM_ALGORITHMS)


def run(game, algorithm: str = "cfr+", iterations: int = 1000,
        checkpoints: int | Sequence[int] | None = None, seed: int | None = None,
        target: float | None = None,
        progress: Callable[[int, float, float], None] | None = None,
        **params) -> LearningResult:
    """Run a learning algorithm and record its convergence.

    Parameters
    ----------
    game:
        A game, normal-form game, catalog name or game file (as :func:`lpgame.solve` accepts), or a
        :class:`~lpgame.sequence_form.SequenceForm`.
    algorithm:
        One of :data:`ALGORITHMS` (table in the module docstring).
    iterations:
        The most iterations to run.
    checkpoints:
        When to evaluate NashConv: ``None`` (about 30 log-spaced iterations), an int k (about k
        log-spaced), or explicit iteration numbers; the last iteration is always evaluated.
    seed:
        Seed of the random generator (sampling algorithms and sampled regret matching).
    target:
        Stop at the first checkpoint whose NashConv is ≤ ``target``.
    progress:
        ``progress(iteration, seconds, nash_conv)``, called at every checkpoint.
    params:
        Algorithm parameters: ``alternating`` (CFR family), ``delay`` (cfr+), ``alpha``, ``beta``,
        ``gamma`` (dcfr), ``exploration`` (os-mccfr), ``stop_regret``, ``sampled``, ``average``,
        ``mu`` (regret matching).

    Returns
    -------
    LearningResult
        Average strategies, the curve of (iteration, seconds, nash_conv), the final NashConv.
    """
    from lpgame.compile import compile_game
    from lpgame.game.normal_form import NormalFormGame
    from lpgame.sequence_form import SequenceForm

    rng = np.random.default_rng(seed)
    if algorithm in NORMAL_FORM_ALGORITHMS:
        if isinstance(game, str):
            from lpgame.games import load
            game = load(game)
        cls, fixed = NORMAL_FORM_ALGORITHMS[algorithm]
        if not isinstance(game, NormalFormGame):
            from lpgame.errors import InvalidGameError
            raise InvalidGameError(
                f"algorithm {algorithm!r} runs on two-player normal-form games; got "
                f"{getattr(game, 'name', type(game).__name__)} (use cfr, cfr+, ... instead)")
        sf = SequenceForm.from_game(game)
        learner = _construct(algorithm, cls, sf, rng, game, **fixed, **params)
    elif algorithm in SEQUENCE_FORM_ALGORITHMS:
        sf = compile_game(game)
        learner = _construct(algorithm, SEQUENCE_FORM_ALGORITHMS[algorithm], sf, rng, **params)
    else:
        raise LpgameError(f"unknown learning algorithm {algorithm!r}; choose one of "
                          f"{', '.join(ALGORITHMS)}")
    recorded = dict(params, seed=seed)
    return drive(learner, algorithm, iterations, checkpoints, target, progress, recorded)


def _construct(algorithm: str, cls, *args, **params):
    import inspect
    accepted = set(inspect.signature(cls.__init__).parameters) - {"self", "sf", "rng", "game"}
    unknown = sorted(set(params) - accepted)
    if unknown:
        raise LpgameError(f"algorithm {algorithm} has no parameter(s) {', '.join(unknown)}; its "
                          f"parameters are {', '.join(sorted(accepted - {'procedure'}))}")
    return cls(*args, **params)


__all__ = ["run", "ALGORITHMS", "LearningResult", "checkpoint_schedule"]
