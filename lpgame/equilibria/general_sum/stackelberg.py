"""Strong Stackelberg equilibrium of a two-player game: the leader commits to a mixed strategy, the
follower best-responds, breaking ties in the leader's favour.

**Normal form: one LP per follower pure strategy** (Conitzer & Sandholm, "Computing the optimal
strategy to commit to", EC 2006). With leader payoffs A and follower payoffs B (rows: the
leader's pure strategies s, columns: the follower's t), for each t

    max_x  Σ_s x_s A[s, t]   s.t.   Σ_s x_s (B[s, t'] − B[s, t]) ≤ 0  ∀ t',   Σ_s x_s = 1,  x ≥ 0,

the best commitment that makes t a best response; the strong Stackelberg equilibrium is the best
of the feasible LPs (the follower's ties go to the leader because the leader picks t).

**Extensive form: the sequence-form MILP** of Bošanský & Čermák ("Sequence-form algorithm for
computing Stackelberg equilibria in extensive-form games", AAAI 2015, their MILP): the
leader's realization plan x ∈ Q_L, the follower's *pure* plan y ∈ Q_F ∩ {0,1}^{Σ_F}, the
follower's best-response values v and regrets r per sequence, and the probability p of each pair
of sequences (σ_L, σ_F) that some leaf ends with (the paper's p(z), merged over leaves with the
same pair: c(σ_L, σ_F) = Σ p_c(z) and ū_L(σ_L, σ_F) = Σ p_c(z) u_L(z) over those leaves):

    max   Σ ū_L(σ_L, σ_F) p(σ_L, σ_F)
    s.t.  F_L x = f_L,   F_F y = f_F,                                            [treeplex]
          F_Fᵀ v − U_F x − r = 0,   0 ≤ r ≤ M (1 − y),                           [regret]
          0 ≤ p(σ_L, σ_F) ≤ x[σ_L],   p(σ_L, σ_F) ≤ y[σ_F],                     [pair_leader/follower]
          Σ c(σ_L, σ_F) p(σ_L, σ_F) = 1,                                         [total]
          y ∈ {0, 1}.

Because y is 0/1, p ≤ min(x, y) = x·y, and the total-probability row Σ c x y = 1 (which every pair
of plans satisfies) forces p = x·y wherever c > 0, so the objective is the leader's expected
payoff. U_F is the follower's sequence-form payoff matrix (rows: its sequences) and M the
follower's payoff range max_z u_F(z) − min_z u_F(z), which bounds every regret (the argument of
:mod:`lpgame.equilibria.general_sum.optimal_nash`).

**Scaling.** Both LP methods see unit-range payoffs (:mod:`lpgame.lp.scaling`: u' = (u − c)/s
per player, which changes no best response; values map back by v = s·v' + c), and the big-M is the
follower's scaled range, at most 2, so HiGHS's tolerances are relative to the payoff range whether
the payoffs are 1e-9 or 1e10. The MILP's gap (``mip_gap`` ∈ [0, 1), a fraction of the leader's
payoff range) is passed as an absolute gap on the scaled objective.

**Exact mode and polishing.** With the follower's pure plan y* fixed, the leader's best commitment
is the LP  max xᵀ U_L y*  s.t. the treeplex, F_Fᵀ v − U_F x − r = 0, r ≥ 0, r = 0 on y*'s
sequences. It is solved again in floating point, or with rational matrices and its basis certified
exactly (:func:`lpgame.lp.solve_lp_exact`).

**Certificate: the whole claim.** The follower's best-response gain against the commitment (0: the
follower has no better reply), by the independent best-response recursion, relative to the
follower's payoff range; and the leader's optimality, by a bound from code that does not read the
MILP (:mod:`~lpgame.equilibria.general_sum.stackelberg_certificate`): one LP per follower pure
strategy (normal form) or reduced plan (the reduced normal form of an extensive game, up to
:data:`~lpgame.equilibria.general_sum.stackelberg_certificate.CHECK_MAX_PROFILES` profiles), each
LP's optimum proven by its duals (checked in rationals in exact mode, by weak duality in floats).
A commitment found better there replaces the MILP's. Beyond that size, the bound is the MILP's
proven dual bound (floating point; in exact mode the answer then says optimality is not proven
exactly). The answer is labelled optimal only when the bound meets the leader's value within
:data:`~lpgame.equilibria.general_sum.stackelberg_certificate.OPTIMALITY_TOLERANCE` of the leader's
payoff range (exactly, in exact mode).
"""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from lpgame.equilibria.general_sum.milp_options import LP_SOLVERS, check_mip_gap, check_solver_options
from lpgame.equilibria.general_sum.optimal_nash import (
    DEFAULT_MIP_GAP,
    MIP_TOLERANCES,
    SUPPORT_THRESHOLD,
    NotedResult,
    check_two_players,
    payoff_range_of,
    payoff_ranges,
)
from lpgame.equilibria.general_sum.stackelberg_certificate import (
    OPTIMALITY_TOLERANCE,
    CommitmentBound,
    ReducedCommitment,
    commitment_lp,
    realization_of,
    reduced_commitment_game,
    solve_commitment_lps,
)
from lpgame.equilibria.profiles import certified_profile
from lpgame.equilibria.profiles import relative as relative_to_range
from lpgame.equilibria.zero_sum.security import payoff_scaling, scaled_payoff_matrix
from lpgame.errors import ExactCheckError, ModelTooLargeError, OptionError
from lpgame.game.normal_form import NormalFormGame
from lpgame.lp import TIGHT_TOLERANCES, solve_lp, solve_lp_exact
from lpgame.lp.linear_program import LinearProgram
from lpgame.registry import Concept, Option, register
from lpgame.result import Certificate, Result  # noqa: F401  (Result: the return type)
from lpgame.sequence_form import SequenceForm

__all__ = ["commitment_lp", "stackelberg_milp", "solve_stackelberg", "stackelberg_multiple_lps",
           "commitment_to_pure_response_lp", "stackelberg_extensive"]

METHODS = ("multiple_lps", "milp")


# ------------------------------------------------------------------------------- normal form
def stackelberg_multiple_lps(game: NormalFormGame, leader: int, exact: bool = False,
                             **options) -> tuple[list, object, dict, CommitmentBound]:
    """(plans over the one-level sequence form, leader value, details, bound) by one LP per
    follower pure strategy (:func:`~lpgame.equilibria.general_sum.stackelberg_certificate.
    solve_commitment_lps`: unit-range payoffs, each LP's optimum proven by its duals); ``leader``
    0-based."""
    follower = 1 - leader
    A = game.payoff_array(leader, exact)
    B = game.payoff_array(follower, exact)
    if leader == 1:                                 # rows must be the leader's strategies
        A, B = A.T, B.T
    found = solve_commitment_lps(A, B, exact, **options)
    n = A.shape[1]
    one = Fraction(1) if exact else 1.0
    response = [one * 0] * n
    response[found.best] = one
    plans = [None, None]
    plans[leader] = [one] + list(found.commitment)
    plans[follower] = [one] + response
    if not exact:
        plans = [np.asarray(p, dtype=float) for p in plans]
    details = {"method": "multiple_lps", **found.summary(), "solve_seconds": found.seconds}
    return plans, found.value, details, found


# ------------------------------------------------------------------------------- extensive form
def _scalings(sf: SequenceForm, leader: int, exact: bool = False):
    """The unit-range scalings of the leader's and the follower's payoffs (module docstring)."""
    return payoff_scaling(sf, leader, exact), payoff_scaling(sf, 1 - leader, exact)


def stackelberg_milp(sf: SequenceForm, leader: int) -> LinearProgram:
    """Bošanský & Čermák's MILP (module docstring) on unit-range payoffs; ``leader`` 0-based. Its
    objective is the leader's value in unit range, ``lp.objective_scaling.from_unit`` maps it back."""
    check_two_players(sf, "Stackelberg equilibrium")
    follower = 1 - leader
    scale_l, scale_f = _scalings(sf, leader)
    big_m = payoff_ranges(sf)[follower] / scale_f.float_scale
    lp = LinearProgram(name=f"Stackelberg MILP of {sf.game.name} (leader player {leader + 1})",
                       description="Bošanský & Čermák (AAAI 2015) sequence-form MILP on unit-range "
                                   f"payoffs; big-M = follower's payoff range {big_m:g} (scaled)")
    lp.objective_scaling = scale_l
    x = lp.add_variables("x", sf.num_sequences(leader), 0.0, 1.0,
                         labels=sf.sequence_labels(leader))
    y = lp.add_variables("y", sf.num_sequences(follower), kind="binary",
                         labels=sf.sequence_labels(follower))
    nf = sf.num_sequences(follower)
    v = lp.add_variables("v", sf.num_infosets(follower) + 1, -np.inf, np.inf,
                         labels=["∅"] + list(sf.players[follower].infoset_labels))
    r = lp.add_variables("r", nf, 0.0, big_m, labels=sf.sequence_labels(follower))
    pairs, chance, leader_payoff = _sequence_pairs(sf, leader, scale_l)
    k = len(chance)
    p = lp.add_variables("p", k, 0.0, 1.0)
    lp.add_constraints("treeplex_leader", [(x, sf.treeplex_matrix(leader))], "==",
                       sf.treeplex_rhs(leader))
    lp.add_constraints("treeplex_follower", [(y, sf.treeplex_matrix(follower))], "==",
                       sf.treeplex_rhs(follower))
    U_F = _follower_matrix(sf, leader, exact=False)
    eye = sp.eye_array(nf, format="csr")
    lp.add_constraints("regret", [(v, sf.treeplex_matrix(follower).T), (x, -U_F), (r, -eye)],
                       "==", 0.0)
    lp.add_constraints("regret_bound", [(r, eye), (y, big_m * eye)], "<=", big_m)
    eye_p = sp.eye_array(k, format="csr")
    select_l = sp.csr_array((-np.ones(k), (np.arange(k), pairs[:, 0])),
                            shape=(k, sf.num_sequences(leader)))
    select_f = sp.csr_array((-np.ones(k), (np.arange(k), pairs[:, 1])), shape=(k, nf))
    lp.add_constraints("pair_leader", [(p, eye_p), (x, select_l)], "<=", 0.0)
    lp.add_constraints("pair_follower", [(p, eye_p), (y, select_f)], "<=", 0.0)
    lp.add_constraints("total", [(p, sp.csr_array(chance[None, :]))], "==", 1.0)
    lp.set_objective([(p, leader_payoff)], "max")
    return lp


def _sequence_pairs(sf: SequenceForm, leader: int, scaling):
    """(pairs (σ_L, σ_F), c, ū_L) merged over the leaves with positive chance (module docstring),
    ū_L of the leader's payoffs in unit range."""
    seqs = np.asarray(sf.terminal_sequences)[:, [leader, 1 - leader]]
    chance = np.asarray(sf.terminal_chance, dtype=float)
    keep = chance > 0
    pairs, inverse = np.unique(seqs[keep], axis=0, return_inverse=True)
    inverse = np.asarray(inverse).ravel()
    c = np.bincount(inverse, weights=chance[keep], minlength=len(pairs))
    unit = scaling.to_unit_array(sf.terminal_payoffs[keep, leader])
    u = np.bincount(inverse, weights=chance[keep] * unit, minlength=len(pairs))
    return pairs, c, u


def _follower_matrix(sf: SequenceForm, leader: int, exact: bool):
    """U_F of the unit-range follower payoffs, the follower's sequences as rows (u_F = yᵀ U_F x)."""
    follower = 1 - leader
    U, _ = scaled_payoff_matrix(sf, follower, exact)
    if follower == 1:
        return U.T if exact else sp.csr_array(U.T)
    return U


def commitment_to_pure_response_lp(sf: SequenceForm, leader: int, response, exact: bool = False
                                   ) -> LinearProgram:
    """The leader's best commitment against which the follower's pure plan ``response`` (0/1 per
    sequence) is a best response (module docstring, **Exact mode**), on unit-range payoffs
    (``lp.objective_scaling.from_unit`` maps the optimum back)."""
    follower = 1 - leader
    nf = sf.num_sequences(follower)
    lp = LinearProgram(name=f"commitment LP of {sf.game.name} for a fixed follower plan",
                       description="the leader's best commitment that keeps the follower's pure "
                                   "plan a best response")
    x = lp.add_variables("x", sf.num_sequences(leader), 0.0, np.inf,
                         labels=sf.sequence_labels(leader))
    v = lp.add_variables("v", sf.num_infosets(follower) + 1, -np.inf, np.inf)
    played = np.asarray(response, dtype=float) > SUPPORT_THRESHOLD
    r = lp.add_variables("r", nf, 0.0, np.where(played, 0.0, np.inf))
    lp.add_constraints("treeplex_leader", [(x, sf.treeplex_matrix(leader))], "==",
                       sf.treeplex_rhs(leader))
    U_F = _follower_matrix(sf, leader, exact)
    lp.add_constraints("regret", [(v, sf.treeplex_matrix(follower).T), (x, -U_F),
                                  (r, -sp.eye_array(nf, format="csr"))], "==", 0.0)
    pure = [Fraction(int(b)) for b in played] if exact else played.astype(float)
    U_L, lp.objective_scaling = scaled_payoff_matrix(sf, leader, exact)
    if exact:
        coef = U_L.matvec(pure) if leader == 0 else U_L.rmatvec(pure)
    else:
        coef = U_L @ pure if leader == 0 else U_L.T @ pure
    lp.set_objective([(x, coef)], "max")
    return lp


def _milp_options(sf: SequenceForm, leader: int, mip_gap: float | None, options: dict):
    """HiGHS's options for the MILP: the gap as an absolute gap on the unit-range objective, the
    user's relative gap (default 0) times the leader's scaled payoff range."""
    scale_l = payoff_scaling(sf, leader)
    span = payoff_ranges(sf)[leader] / scale_l.float_scale
    gap = DEFAULT_MIP_GAP if mip_gap is None else mip_gap
    highs = {**MIP_TOLERANCES, "mip_rel_gap": 0.0,
             "mip_abs_gap": max(gap, OPTIMALITY_TOLERANCE / 10) * max(span, 1e-300),
             **options.pop("highs_options", {})}
    return highs


def stackelberg_extensive(sf: SequenceForm, leader: int, exact: bool = False,
                          mip_gap: float | None = None, **options) -> tuple[list, object, dict]:
    """(plans, leader value, details, MILP) by the MILP, then the commitment LP for the follower's
    plan it found (floats, or certified in rationals when ``exact``)."""
    milp = stackelberg_milp(sf, leader)
    highs_options = _milp_options(sf, leader, mip_gap, options)
    lp_options = {k: v for k, v in options.items() if k != "solver"}
    mip = solve_lp(milp, backend="highs", highs_options=highs_options, mip_gap=0.0, **lp_options)
    response = mip.values("y")
    fixed = commitment_to_pure_response_lp(sf, leader, response, exact)
    follower = 1 - leader
    one = Fraction(1) if exact else 1.0
    pure = [one if b > SUPPORT_THRESHOLD else one * 0 for b in response]
    if exact:
        solution, certified = solve_lp_exact(fixed, backend="highs",
                                             **{**options, "solver": options.get("solver", "simplex")})
        commitment, value = certified.values(fixed, "x"), certified.objective
    else:
        solution = solve_lp(fixed, backend="highs",
                            **{**options, "highs_options": dict(TIGHT_TOLERANCES)})
        commitment, value = np.clip(solution.values("x"), 0.0, None), solution.objective
    value = fixed.objective_scaling.from_unit(value)
    plans = [None, None]
    plans[leader], plans[follower] = commitment, pure
    if not exact:
        plans = [np.asarray(q, dtype=float) for q in plans]
    scale = milp.objective_scaling
    partial = mip.status != "optimal"
    details = {"method": "milp",
               "milp": {"status": mip.status, "partial": partial,
                        "mip_gap": mip.info.get("mip_gap"),
                        "dual_bound": scale.from_unit(mip.info.get("mip_dual_bound")),
                        "primal_bound": None if mip.info.get("primal_bound") is None
                        else scale.from_unit(mip.info["primal_bound"]),
                        "nodes": mip.info.get("mip_node_count"), "size": milp.size(),
                        "seconds": mip.seconds, "scaling": scale.to_dict()},
               "big_m": payoff_ranges(sf)[follower],
               "solve_seconds": mip.seconds + solution.seconds}
    if partial:
        details["status"] = (f"partial: HiGHS stopped ({mip.status}); the "
                             f"commitment returned "
                             f"is the incumbent's, and the leader's optimal value is at most "
                             f"{details['milp']['dual_bound']:.9g}")
    return plans, value, details, milp


def check_extensive(sf: SequenceForm, leader: int, exact: bool, options: dict
                    ) -> tuple[CommitmentBound | None, ReducedCommitment | None, str]:
    """The independent check of an extensive game's commitment: the multiple LPs on its reduced
    normal form (:mod:`~lpgame.equilibria.general_sum.stackelberg_certificate`); (None, None,
    why) where the reduced normal form is beyond the check's limits."""
    try:
        reduced = reduced_commitment_game(sf, leader, exact)
    except ModelTooLargeError as error:
        return None, None, str(error)
    lp_options = {k: v for k, v in options.items() if k in ("time_limit", "threads", "solver")}
    return solve_commitment_lps(reduced.leader_payoffs, reduced.follower_payoffs, exact,
                                **lp_options), reduced, ""


def _adopt_check(sf: SequenceForm, leader: int, found: CommitmentBound,
                 reduced: ReducedCommitment, exact: bool) -> list:
    """Plans of the check's best commitment and reply (when it beats the MILP's)."""
    plans = [None, None]
    plans[leader] = realization_of(reduced.leader_plans, found.commitment, exact)
    reply = reduced.follower_plans[found.best]
    plans[1 - leader] = ([Fraction(int(b)) for b in reply] if exact
                         else reply.astype(float))
    if not exact:
        plans = [np.asarray(q, dtype=float) for q in plans]
    return plans


def _optimality(value, bound, exact: bool, leader_range, method: str, proven_parts: bool) -> dict:
    """Whether ``bound`` meets ``value``: exactly in exact mode, else within
    OPTIMALITY_TOLERANCE × the leader's payoff range."""
    if bound is None:
        return {"proven": False, "bound": None, "method": method}
    if exact and isinstance(bound, Fraction) and isinstance(value, Fraction):
        gap = bound - value
        proven = proven_parts and gap <= 0
        relative = relative_to_range(gap, leader_range)
    else:
        gap = float(bound) - float(value)
        relative = relative_to_range(gap, float(leader_range))
        proven = proven_parts and not exact and relative <= OPTIMALITY_TOLERANCE
    return {"proven": bool(proven), "bound": _number(bound), "gap": _number(gap),
            "relative_gap": _number(relative), "method": method,
            "tolerance": "exact" if exact else f"{OPTIMALITY_TOLERANCE:g} of the leader's payoff "
                                               "range"}


# ------------------------------------------------------------------------------- entry point
def solve_stackelberg(game, leader: int = 1, method: str | None = None, exact: bool = False,
                      backend: str = "highs", mip_gap: float | None = None, **options) -> Result:
    """The strong Stackelberg equilibrium with player ``leader`` (1 or 2) committing.

    ``method``: ``"multiple_lps"`` (normal-form games, the default there) or ``"milp"`` (the
    default for extensive games; a normal-form game is then solved as its one-level extensive
    form). Returns a :class:`~lpgame.result.Result` with ``concept="stackelberg"``; ``extra``
    holds the leader, both values, the method's details, the commitment, and ``optimality``: the
    bound on the leader's value that independent code checked and whether it meets the value.
    """
    from lpgame.compile import compile_game

    start = time.perf_counter()
    if isinstance(leader, bool) or leader not in (1, 2):
        raise OptionError(f"option 'leader' must be 1 or 2 (players are counted from 1); got "
                          f"{leader!r}")
    if method is not None and method not in METHODS:
        raise OptionError(f"option 'method' of concept 'stackelberg' must be one of "
                          f"{', '.join(METHODS)}; got {method!r}")
    if backend != "highs":
        raise OptionError(f"Stackelberg equilibrium: solved with HiGHS; use backend='highs' "
                          f"(got {backend!r})")
    options = {k: v for k, v in options.items() if v is not None and k != "tolerance"}
    check_solver_options(options, "Stackelberg equilibrium")
    mip_gap = check_mip_gap(mip_gap)
    normal_form = isinstance(game, NormalFormGame)
    if method is None:
        method = "multiple_lps" if normal_form else "milp"
    if method == "multiple_lps" and not normal_form:
        raise OptionError("method 'multiple_lps' needs a normal-form game; extensive games are "
                          "solved by method 'milp'")
    sf = compile_game(game)
    check_two_players(sf, "Stackelberg equilibrium")
    lead = leader - 1
    milp = None
    leader_range = payoff_range_of(sf, lead, exact)
    if method == "multiple_lps":
        if mip_gap is not None:
            raise OptionError("option 'mip_gap' applies to method 'milp' only")
        plans, leader_value, details, found = stackelberg_multiple_lps(game, lead, exact, **options)
        claim = (found.bound, "the LP of every follower strategy, each optimum proven by its "
                 + ("duals certified in rational arithmetic" if exact else
                    "duals checked against the data (weak duality)"),
                 details["unresolved"] == 0 or not exact, {})
    else:
        plans, leader_value, details, milp = stackelberg_extensive(sf, lead, exact, mip_gap,
                                                                   **options)
        claim, plans, leader_value = _check_milp_answer(sf, lead, exact, plans, leader_value,
                                                        details, leader_range, options)
    strategies, unreached, plans, ev, _ = certified_profile(sf, plans, exact)
    follower_gain = ev.best_response_gain[1 - lead]
    if exact and (follower_gain != 0 or ev.values[lead] != leader_value):
        raise ExactCheckError(f"exact mode: the follower gains {follower_gain} by deviating and "
                              f"the leader's value is {ev.values[lead]} against the LP's "
                              f"{leader_value}")
    follower_range = payoff_range_of(sf, 1 - lead, exact)
    # the whole claim: the certified leader's value against the bound, and the follower obeying
    obeys = exact or relative_to_range(follower_gain, follower_range) <= OPTIMALITY_TOLERANCE
    bound, method, parts, more = claim
    optimality = {**_optimality(ev.values[lead], bound, exact, leader_range, method,
                                parts and obeys), **more}
    if not obeys:
        optimality["method"] += ("; the follower gains more than the tolerance by deviating, so "
                                 "the commitment is not certified")
    cert = Certificate(ev.nash_conv, ev.exploitability, ev.best_response_gain, exact,
                       extra={"follower_best_response_gain": follower_gain,
                              "relative_follower_gain": relative_to_range(follower_gain,
                                                                          follower_range),
                              "follower_payoff_range": follower_range,
                              "leader_value": ev.values[lead],
                              "leader_bound": optimality.get("bound"),
                              "leader_optimality_proven": optimality["proven"]},
                       gain=follower_gain,
                       deviations="the follower's best responses to the leader's commitment "
                                  "(lpgame.analysis.best_response), relative to the follower's "
                                  "payoff range; the leader's value against the bound of the "
                                  "multiple LPs (or the MILP's bound); nash_conv is informative "
                                  "only")
    extra = {"leader": leader, "follower": 3 - leader,
             "leader_value": _number(ev.values[lead]), "follower_value": _number(ev.values[1 - lead]),
             "commitment_strategies": [strategies[lead]],
             "follower_response": strategies[1 - lead], **details, "optimality": optimality}
    size = milp.size() if milp is not None else {"lps": details["lps"]}
    solver = {"name": "highs-mip" if milp is not None else "highs", "backend": "highs",
              "crossover": None, "tolerance": None, "exact_certification": exact,
              "method": details["method"]}
    extra["notes"] = [f"leader: player {leader} commits; leader's value {extra['leader_value']}, "
                      f"follower's value {extra['follower_value']} (method {details['method']})",
                      _optimality_note(optimality, exact)]
    if "status" in details:
        extra["notes"].append(details["status"].upper())
    return NotedResult(
        game=sf.game.name, concept="stackelberg", variant="strong", value=ev.values[0],
        values=list(ev.values), strategies=strategies, certificate=cert, size=size,
        seconds={"solve": details.pop("solve_seconds"), "total": time.perf_counter() - start},
        backend=backend, exact=exact, unreached=unreached, extra=extra, plans=plans, lp=milp,
        solver=solver)


def _check_milp_answer(sf, lead, exact, plans, leader_value, details, leader_range, options):
    """The MILP's answer against the independent multiple LPs on the reduced normal form (a
    better commitment found there replaces it), or, beyond the check's size, against the MILP's
    own bound (floating point: never an exact proof). ((bound, method, whether every part of the
    bound is proven, more fields), plans, leader value)."""
    found, reduced, why = check_extensive(sf, lead, exact, options)
    if found is not None:
        details["check"] = {"method": "one LP per follower reduced plan on the reduced normal "
                                      "form (Conitzer & Sandholm 2006)", **found.summary()}
        tol = 0 if exact else OPTIMALITY_TOLERANCE * float(leader_range)
        if found.value > leader_value + tol:
            details["check"]["replaced"] = (f"the MILP's commitment (leader's value "
                                            f"{_number(leader_value)}) was improved by the check's")
            plans, leader_value = _adopt_check(sf, lead, found, reduced, exact), found.value
        method = ("the LP of every follower reduced plan, each optimum proven by its " +
                  ("duals certified in rational arithmetic" if exact
                   else "duals checked against the data (weak duality)"))
        unresolved = details["check"]["unresolved"]
        return (found.bound, method, unresolved == 0 or not exact, {}), plans, leader_value
    milp = details["milp"]
    return ((milp["dual_bound"], "the MILP's proven dual bound (HiGHS, floating point)",
             not milp["partial"], {"check_skipped": why}), plans, leader_value)


def _optimality_note(optimality: dict, exact: bool) -> str:
    if optimality["proven"]:
        return (f"optimal: the leader's value meets the bound {optimality['bound']} "
                f"({'exactly' if exact else 'within ' + optimality['tolerance']}), by "
                f"{optimality['method']}")
    return (f"NOT PROVEN OPTIMAL: the leader's value is at most {optimality['bound']} by "
            f"{optimality['method']}" + (" (a floating-point bound, not an exact proof)"
                                         if exact else ""))


def _number(value):
    return str(value) if isinstance(value, Fraction) else float(value)


def _solve_registered(game, *, exact: bool = False, backend: str = "highs", leader: int = 1,
                      method: str | None = None, mip_gap: float | None = None, **options) -> Result:
    return solve_stackelberg(game, leader=leader, method=method, exact=exact, backend=backend,
                             mip_gap=mip_gap, **options)


register(Concept(
    name="stackelberg", variant="strong", games=("general_sum",), solve=_solve_registered,
    summary="strong Stackelberg equilibrium: the leader's optimal commitment and the follower's "
            "best response (ties broken for the leader)",
    certificate="the follower's best-response gain against the commitment (0; exactly 0 in exact "
                "mode), relative to its payoff range, by the independent best-response recursion; "
                "the leader's value against the bound of one LP per follower (reduced) plan, each "
                "optimum proven by its duals (or, beyond the check's size, the MILP's bound)",
    source="Conitzer & Sandholm, EC 2006 (normal form: one LP per follower pure strategy); "
           "Bošanský & Čermák, AAAI 2015 (extensive form: sequence-form MILP)",
    options=(
        Option("leader", int, 1, "the committing player, 1 or 2", choices=(1, 2)),
        Option("method", str, None, "multiple_lps (normal form) or milp (any game)",
               choices=METHODS),
        Option("mip_gap", float, None, "MIP gap at which HiGHS stops (method milp), a fraction "
               "of the leader's payoff range in [0, 1) (default 0: a proven optimum)"),
    ),
    backends=("highs",), solvers=LP_SOLVERS,
))
