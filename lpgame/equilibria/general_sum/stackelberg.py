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

**Exact mode and polishing.** With the follower's pure plan y* fixed, the leader's best commitment
is the LP  max xᵀ U_L y*  s.t. the treeplex, F_Fᵀ v − U_F x − r = 0, r ≥ 0, r = 0 on y*'s
sequences. It is solved again in floating point, or with rational matrices and its basis certified
exactly (:func:`lpgame.lp.solve_lp_exact`); the normal-form LPs are certified exactly in the same
way. The certificate gives the follower's best-response gain against the commitment (0: the
follower has no better reply), computed by the independent best-response recursion, and the
leader's value.
"""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from lpgame.equilibria.general_sum.optimal_nash import (
    DEFAULT_MIP_GAP,
    MIP_TOLERANCES,
    SUPPORT_THRESHOLD,
    NotedResult,
    check_two_players,
    payoff_ranges,
)
from lpgame.equilibria.profiles import certified_profile
from lpgame.errors import ExactCheckError, OptionError, SolverError
from lpgame.game.normal_form import NormalFormGame
from lpgame.lp import solve_lp, solve_lp_exact
from lpgame.lp.linear_program import LinearProgram
from lpgame.rational import RationalMatrix
from lpgame.registry import Concept, Option, register
from lpgame.result import Certificate, Result  # noqa: F401  (Result: the return type)
from lpgame.sequence_form import SequenceForm

METHODS = ("multiple_lps", "milp")
TIE_TOLERANCE = 1e-6
"""Follower strategies whose float LP value is this close to the best are re-solved exactly."""


# ------------------------------------------------------------------------------- normal form
def commitment_lp(leader_payoffs, follower_payoffs, response: int, exact: bool = False
                  ) -> LinearProgram:
    """Conitzer & Sandholm's LP for follower pure strategy ``response`` (module docstring).

    ``leader_payoffs``/``follower_payoffs``: arrays with the leader's pure strategies as rows and
    the follower's as columns (Fractions in exact mode)."""
    A = np.asarray(leader_payoffs)
    B = np.asarray(follower_payoffs)
    m, n = A.shape
    lp = LinearProgram(name=f"commitment LP for follower strategy {response}",
                       description="Conitzer & Sandholm (EC 2006): the best commitment that makes "
                                   "the follower's strategy a best response")
    x = lp.add_variables("x", m, 0.0, np.inf)
    gain = (B - B[:, [response]]).T                           # gain[t', s] = B[s, t'] − B[s, t]
    if exact:
        rows, cols = np.nonzero(gain != 0)
        matrix = RationalMatrix((n, m), rows, cols, [Fraction(v) for v in gain[rows, cols]])
        ones = RationalMatrix((1, m), np.zeros(m, dtype=np.int64), np.arange(m), [Fraction(1)] * m)
        lp.add_constraints("follower_best_response", [(x, matrix)], "<=", [Fraction(0)] * n)
        lp.add_constraints("simplex", [(x, ones)], "==", [Fraction(1)])
        lp.set_objective([(x, [Fraction(v) for v in A[:, response]])], "max")
    else:
        lp.add_constraints("follower_best_response", [(x, sp.csr_array(gain.astype(float)))], "<=",
                           0.0)
        lp.add_constraints("simplex", [(x, sp.csr_array(np.ones((1, m))))], "==", 1.0)
        lp.set_objective([(x, A[:, response].astype(float))], "max")
    return lp


def _infeasible(error: SolverError) -> bool:
    return "infeasible" in str(error.status or "").lower()


def stackelberg_multiple_lps(game: NormalFormGame, leader: int, exact: bool = False,
                             **options) -> tuple[list, object, dict]:
    """(plans over the one-level sequence form, leader value, details) by one LP per follower
    pure strategy; ``leader`` 0-based."""
    follower = 1 - leader
    A = game.payoff_array(leader, exact)
    B = game.payoff_array(follower, exact)
    if leader == 1:                                 # rows must be the leader's strategies
        A, B = A.T, B.T
    n = A.shape[1]
    values = np.full(n, -np.inf)
    float_A, float_B = A.astype(float), B.astype(float)
    solutions = {}
    seconds = 0.0
    for t in range(n):
        try:
            sol = solve_lp(commitment_lp(float_A, float_B, t), backend="highs", **options)
        except SolverError as error:
            if _infeasible(error):
                continue
            raise
        values[t] = sol.objective
        solutions[t] = sol.values("x")
        seconds += sol.seconds
    best_t = int(np.argmax(values))
    best = values[best_t]
    commitment = np.clip(solutions[best_t], 0.0, None)
    if exact:
        best = None
        options = {**options, "solver": options.get("solver", "simplex")}
        for t in np.flatnonzero(values >= values.max() - TIE_TOLERANCE * max(1.0, abs(values.max()))):
            lp = commitment_lp(A, B, int(t), exact=True)
            try:
                sol, certified = solve_lp_exact(lp, backend="highs", **options)
            except SolverError as error:
                if _infeasible(error):
                    continue
                raise
            seconds += sol.seconds
            if best is None or certified.objective > best:
                best, best_t, commitment = certified.objective, int(t), certified.values(lp, "x")
        if best is None:
            raise ExactCheckError("exact mode: no follower strategy's commitment LP was certified")
    response = [Fraction(0) if exact else 0.0] * n
    response[best_t] = Fraction(1) if exact else 1.0
    one = Fraction(1) if exact else 1.0
    plans = [None, None]
    plans[leader] = [one] + list(commitment)
    plans[follower] = [one] + response
    if not exact:
        plans = [np.asarray(p, dtype=float) for p in plans]
    details = {"method": "multiple_lps", "lps": n,
               "feasible_responses": int(np.isfinite(values).sum()),
               "values_per_response": [None if not np.isfinite(v) else float(v) for v in values],
               "solve_seconds": seconds}
    return plans, best, details


# ------------------------------------------------------------------------------- extensive form
def stackelberg_milp(sf: SequenceForm, leader: int) -> LinearProgram:
    """Bošanský & Čermák's MILP (module docstring); ``leader`` 0-based."""
    check_two_players(sf, "Stackelberg equilibrium")
    follower = 1 - leader
    big_m = payoff_ranges(sf)[follower]
    lp = LinearProgram(name=f"Stackelberg MILP of {sf.game.name} (leader player {leader + 1})",
                       description="Bošanský & Čermák (AAAI 2015) sequence-form MILP; big-M = "
                                   f"follower's payoff range {big_m:g}")
    x = lp.add_variables("x", sf.num_sequences(leader), 0.0, 1.0,
                         labels=sf.sequence_labels(leader))
    y = lp.add_variables("y", sf.num_sequences(follower), kind="binary",
                         labels=sf.sequence_labels(follower))
    nf = sf.num_sequences(follower)
    v = lp.add_variables("v", sf.num_infosets(follower) + 1, -np.inf, np.inf,
                         labels=["∅"] + list(sf.players[follower].infoset_labels))
    r = lp.add_variables("r", nf, 0.0, big_m, labels=sf.sequence_labels(follower))
    pairs, chance, leader_payoff = _sequence_pairs(sf, leader)
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


def _sequence_pairs(sf: SequenceForm, leader: int):
    """(pairs (σ_L, σ_F), c, ū_L) merged over the leaves with positive chance (module docstring)."""
    seqs = np.asarray(sf.terminal_sequences)[:, [leader, 1 - leader]]
    chance = np.asarray(sf.terminal_chance, dtype=float)
    keep = chance > 0
    pairs, inverse = np.unique(seqs[keep], axis=0, return_inverse=True)
    inverse = np.asarray(inverse).ravel()
    c = np.bincount(inverse, weights=chance[keep], minlength=len(pairs))
    u = np.bincount(inverse, weights=chance[keep] * sf.terminal_payoffs[keep, leader],
                    minlength=len(pairs))
    return pairs, c, u


def _follower_matrix(sf: SequenceForm, leader: int, exact: bool):
    """U_F with the follower's sequences as rows (u_F = yᵀ U_F x)."""
    follower = 1 - leader
    U = sf.payoff_matrix_exact(follower) if exact else sf.payoff_matrix(follower)
    if follower == 1:
        return U.T if exact else sp.csr_array(U.T)
    return U


def commitment_to_pure_response_lp(sf: SequenceForm, leader: int, response, exact: bool = False
                                   ) -> LinearProgram:
    """The leader's best commitment against which the follower's pure plan ``response`` (0/1 per
    sequence) is a best response (module docstring, **Exact mode**)."""
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
    if exact:
        U_L = sf.payoff_matrix_exact(leader)
        coef = U_L.matvec(pure) if leader == 0 else U_L.rmatvec(pure)
    else:
        U_L = sf.payoff_matrix(leader)
        coef = U_L @ pure if leader == 0 else U_L.T @ pure
    lp.set_objective([(x, coef)], "max")
    return lp


def stackelberg_extensive(sf: SequenceForm, leader: int, exact: bool = False,
                          mip_gap: float | None = None, **options) -> tuple[list, object, dict]:
    """(plans, leader value, details) by the MILP, then the commitment LP for the follower's plan
    it found (floats, or certified in rationals when ``exact``)."""
    milp = stackelberg_milp(sf, leader)
    highs_options = {**MIP_TOLERANCES, **options.pop("highs_options", {})}
    lp_options = {k: v for k, v in options.items() if k != "solver"}
    mip = solve_lp(milp, backend="highs", highs_options=highs_options,
                   mip_gap=DEFAULT_MIP_GAP if mip_gap is None else mip_gap, **lp_options)
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
        solution = solve_lp(fixed, backend="highs", **options)
        commitment, value = np.clip(solution.values("x"), 0.0, None), solution.objective
    plans = [None, None]
    plans[leader], plans[follower] = commitment, pure
    if not exact:
        plans = [np.asarray(q, dtype=float) for q in plans]
    partial = mip.status != "optimal"
    details = {"method": "milp",
               "milp": {"status": mip.status, "partial": partial, "mip_gap": mip.info.get("mip_gap"),
                        "dual_bound": mip.info.get("mip_dual_bound"),
                        "primal_bound": mip.info.get("primal_bound"),
                        "nodes": mip.info.get("mip_node_count"), "size": milp.size(),
                        "seconds": mip.seconds},
               "big_m": payoff_ranges(sf)[follower],
               "solve_seconds": mip.seconds + solution.seconds}
    if partial:
        details["status"] = (f"partial: HiGHS stopped ({mip.status}); the "
                             f"commitment returned "
                             f"is the incumbent's, and the leader's optimal value is at most "
                             f"{mip.info.get('mip_dual_bound')}")
    return plans, value, details, milp


# ------------------------------------------------------------------------------- entry point
def solve_stackelberg(game, leader: int = 1, method: str | None = None, exact: bool = False,
                      backend: str = "highs", mip_gap: float | None = None, **options) -> Result:
    """The strong Stackelberg equilibrium with player ``leader`` (1 or 2) committing.

    ``method``: ``"multiple_lps"`` (normal-form games, the default there) or ``"milp"`` (the
    default for extensive games; a normal-form game is then solved as its one-level extensive
    form). Returns a :class:`~lpgame.result.Result` with ``concept="stackelberg"``; ``extra``
    holds the leader, both values, the method's details and the commitment.
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
    if method == "multiple_lps":
        if mip_gap is not None:
            raise OptionError("option 'mip_gap' applies to method 'milp' only")
        plans, leader_value, details = stackelberg_multiple_lps(game, lead, exact, **options)
    else:
        plans, leader_value, details, milp = stackelberg_extensive(sf, lead, exact, mip_gap,
                                                                   **options)
    strategies, unreached, plans, ev, _ = certified_profile(sf, plans, exact)
    follower_gain = ev.best_response_gain[1 - lead]
    if exact and (follower_gain != 0 or ev.values[lead] != leader_value):
        raise ExactCheckError(f"exact mode: the follower gains {follower_gain} by deviating and "
                              f"the leader's value is {ev.values[lead]} against the LP's "
                              f"{leader_value}")
    cert = Certificate(ev.nash_conv, ev.exploitability, ev.best_response_gain, exact,
                       extra={"follower_best_response_gain": follower_gain,
                              "leader_value": ev.values[lead]},
                       gain=follower_gain,
                       deviations="the follower's best responses to the leader's commitment "
                                  "(lpgame.analysis.best_response); nash_conv is informative only")
    extra = {"leader": leader, "follower": 3 - leader,
             "leader_value": _number(ev.values[lead]), "follower_value": _number(ev.values[1 - lead]),
             "commitment_strategies": [strategies[lead]],
             "follower_response": strategies[1 - lead], **details}
    size = milp.size() if milp is not None else {"lps": details["lps"]}
    solver = {"name": "highs-mip" if milp is not None else "highs", "backend": "highs",
              "crossover": None, "tolerance": None, "exact_certification": exact,
              "method": details["method"]}
    extra["notes"] = [f"leader: player {leader} commits; leader's value {extra['leader_value']}, "
                      f"follower's value {extra['follower_value']} (method {details['method']})"]
    if "status" in details:
        extra["notes"].append(details["status"].upper())
    return NotedResult(
        game=sf.game.name, concept="stackelberg", variant="strong", value=ev.values[0],
        values=list(ev.values), strategies=strategies, certificate=cert, size=size,
        seconds={"solve": details.pop("solve_seconds"), "total": time.perf_counter() - start},
        backend=backend, exact=exact, unreached=unreached, extra=extra, plans=plans, lp=milp,
        solver=solver)


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
                "mode) and the leader's value, by the independent best-response recursion",
    source="Conitzer & Sandholm, EC 2006 (normal form: one LP per follower pure strategy); "
           "Bošanský & Čermák, AAAI 2015 (extensive form: sequence-form MILP)",
    options=(
        Option("leader", int, 1, "the committing player, 1 or 2", choices=(1, 2)),
        Option("method", str, None, "multiple_lps (normal form) or milp (any game)",
               choices=METHODS),
        Option("mip_gap", float, None, "relative MIP gap at which HiGHS stops (method milp; "
               "default 0: a proven optimum)"),
    ),
    backends=("highs",),
))
