"""Optimal (and worst) Nash equilibrium of a two-player general-sum game by a MILP over the
sequence form.

Sandholm, Gilpin & Conitzer ("Mixed-integer programming methods for finding Nash equilibria",
AAAI 2005, their first formulation) write a Nash equilibrium of a bimatrix game as: each action's regret
r_a = (best-response value) − (action's value) ≥ 0, and a binary s_a per action with p_a ≤ 1 − s_a
and r_a ≤ M s_a, so that an action with positive regret is never played. Over the sequence form
(Koller, Megiddo & von Stengel 1996; notes/farina-thesis.md §1.4 and §1.12) the same conditions
read, with realization plans x ∈ Q_1, y ∈ Q_2, payoff matrices U_1, U_2 (u_i = xᵀ U_i y),
best-response values v_i (one per information set, plus v_i[∅]) and regrets r_i ≥ 0 per sequence:

    F_1 x = f_1,                    F_2 y = f_2,                       x, y ≥ 0     [treeplex_i]
    F_1ᵀ v_1 − U_1 y − r_1 = 0,     F_2ᵀ v_2 − U_2ᵀ x − r_2 = 0,       r_i ≥ 0      [regret_i]
    x − b_1 ≤ 0,                    y − b_2 ≤ 0                                     [support_i]
    r_1 + M_1 b_1 ≤ M_1,            r_2 + M_2 b_2 ≤ M_2,          b_i ∈ {0, 1}^{Σ_i} [regret_bound_i]

(b_i = 1 − s: b_i[σ] = 1 allows σ to be played and forces its regret to 0). Row σ = ja of
F_1ᵀ v_1 − U_1 y is v_1[j] − Σ_{j': p_{j'} = ja} v_1[j'] − (U_1 y)[ja], so r_1 ≥ 0 makes v_1 an upper
bound on the best-response recursion of :mod:`lpgame.analysis.best_response` and r_1[σ] = 0 on the
played sequences makes x a best response; then xᵀ r_1 = 0 gives u_1(x, y) = f_1ᵀ v_1 = v_1[∅], so
the players' equilibrium payoffs are the linear expressions v_i[∅] and the objective

    max (or, ``worst=True``, min)   Σ_i w_i v_i[∅]

is linear (the weights w as in :func:`lpgame.equilibria.correlated.ce_cce.objective_weights`: welfare,
one player's payoff, or any weights). The best and the worst welfare of the equilibria give the
price of stability and of anarchy.

**Big-M.** Take v_i at the true best-response values. Below information set j, every pure
continuation of player i reaches leaves of the same total weight W_j = Σ_z p_c(z) y[σ_2(z)] ≤ 1
(the mass of the histories through j), so every continuation value lies in
[W_j min_z u_i(z), W_j max_z u_i(z)] and every regret is at most

    M_i = max_z u_i(z) − min_z u_i(z),

player i's payoff range over the leaves. With this M_i no equilibrium is cut off; the result
states M_i.

**Scaling** (:mod:`lpgame.lp.scaling`, issue 34). The MILP never sees the game's payoffs: each
player's are put in unit range, u'_i = (u_i − c_i)/s_i (an affine change of i's utility, which
leaves every equilibrium unchanged; :func:`lpgame.equilibria.zero_sum.security.scaled_payoff_matrix`),
so the big-M constants are M_i/s_i ≤ 2, and the objective Σ_i w_i v_i = K·Σ_i (w_i s_i/K) v'_i +
Σ_i w_i c_i with K a power of two near max_i |w_i| s_i. HiGHS's feasibility tolerance (1e-9) is then
1e-9 of each payoff range, whether the payoffs are 1e-9 or 1e10.

**Gap, bound and the word optimal.** ``mip_gap`` g ∈ [0, 1) is a fraction of the objective's range
R = Σ_i |w_i| R_i (R_i: player i's payoff range): HiGHS stops when its proven dual bound is within
max(g, OPTIMALITY_TOLERANCE/10)·R of its incumbent (an absolute gap on the unit-range objective; no
relative gap, which means nothing near an objective of 0). The answer is labelled optimal only when
that bound, reported in the game's units, meets the returned objective within
:data:`~lpgame.equilibria.general_sum.optimal_nash_proof.OPTIMALITY_TOLERANCE`·R; otherwise the
result says "not proven optimal" and gives the bound.

**Polishing and exact mode.** The MILP's binaries fix a support S_i = {σ : b_i[σ] = 1}. The LP with
r_i[σ] = 0 on S_i and x[σ] = 0 (y[σ] = 0) off it, and the same objective, is the MILP with the
binaries fixed: every feasible point is an equilibrium and its optimum is the MILP's. It is solved
again in floating point at HiGHS's tightest tolerances (clean plans, NashConv at the LP's accuracy)
or, with ``exact=True``, with rational payoff matrices and its optimal basis certified in rational
arithmetic (:func:`lpgame.lp.solve_lp_exact`); the certificate's exact NashConv must then be 0.
A floating-point MILP bound proves nothing exactly, so exact mode proves the optimum by enumerating
every extreme equilibrium of small games
(:mod:`~lpgame.equilibria.general_sum.optimal_nash_proof`; a better equilibrium found there is
returned instead) and otherwise says plainly that the optimum is not proven exactly.

A MILP that reaches its time limit with an incumbent returns that equilibrium labelled as partial,
with HiGHS's bound on the optimum; without one it raises
:class:`~lpgame.errors.SolverTimeLimitError` carrying the bound. The correlated equilibrium shown
beside the answer is a side quantity: if it fails, the answer carries a note saying why.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from lpgame.equilibria.correlated.ce_cce import objective_name, objective_weights
from lpgame.equilibria.general_sum.milp_options import LP_SOLVERS, check_mip_gap, check_solver_options
from lpgame.equilibria.general_sum.optimal_nash_proof import (
    OPTIMALITY_TOLERANCE,
    exact_optimality,
    float_optimality,
)
from lpgame.equilibria.profiles import certified_profile, payoff_range, relative
from lpgame.errors import ConceptMismatchError, ExactCheckError, LpgameError, OptionError, SolverError
from lpgame.lp import TIGHT_TOLERANCES, LPSolution, solve_lp, solve_lp_exact
from lpgame.lp.linear_program import LinearProgram
from lpgame.lp.solution import solver_report
from lpgame.number_format import format_number
from lpgame.registry import Concept, Option, register
from lpgame.result import Certificate, Result
from lpgame.sequence_form import SequenceForm

SUPPORT_THRESHOLD = 0.5
"""A binary above this counts as 1 when the support is read from the MILP."""
DEFAULT_MIP_GAP = 0.0
"""Relative MIP gap at which HiGHS stops by default: 0, a proven optimum (HiGHS's own is 1e-4)."""
CE_BESIDE_MAX_PROFILES = 20_000
"""Up to this many joint reduced plans, the optimal correlated equilibrium (CE) for the same
objective is solved too and shown beside the Nash optimum (every Nash equilibrium is a CE, so it
bounds the Nash optimum: max-welfare CE ≥ best Nash welfare)."""
MIP_TOLERANCES = {"mip_feasibility_tolerance": 1e-9}
"""HiGHS options of the MILP: tight feasibility, so that b = 1 really forces a regret of 0 (on
unit-range payoffs, 1e-9 of the payoff range)."""


@dataclass
class NashMILP:
    """The MILP (or, with a support fixed, the LP) on unit-range payoffs, its big-M constants
    M_i / s_i, and the map of its objective back to the game's units: Σ_i w_i v_i[∅] =
    ``objective_scale`` · (LP objective) + ``objective_shift`` (module docstring, **Scaling**)."""

    lp: LinearProgram
    big_m: tuple[float, float]
    weights: np.ndarray
    objective_scale: object = 1
    objective_shift: object = 0
    objective_range: float = 0.0

    def to_game(self, value):
        """An objective value of the (scaled) LP in the game's units."""
        if value is None:
            return None
        if isinstance(value, Fraction):
            return value * Fraction(self.objective_scale) + Fraction(self.objective_shift)
        return float(value) * float(self.objective_scale) + float(self.objective_shift)


def payoff_ranges(sf: SequenceForm) -> tuple[float, float]:
    """M_i = max_z u_i(z) − min_z u_i(z) for the two players (module docstring, **Big-M**)."""
    u = np.asarray(sf.terminal_payoffs, dtype=float)
    return tuple(float(u[:, i].max() - u[:, i].min()) if len(u) else 0.0 for i in range(2))


def payoff_range_of(sf: SequenceForm, player: int, exact: bool = False):
    """Player ``player``'s payoff range over the leaves: a Fraction in exact mode, else a float."""
    if exact and sf.payoff_structure is None:
        _, payoffs = sf.exact_terminal_data()
        values = [Fraction(row[player]) for row in payoffs]
        return max(values) - min(values) if values else Fraction(0)
    spread = payoff_ranges(sf)[player] if sf.payoff_structure is None else \
        float(np.subtract(*sf.game._payoff_bounds()[::-1]))
    return Fraction(spread) if exact else spread


def check_two_players(sf: SequenceForm, what: str) -> None:
    """Refuse a game that does not have exactly two players."""
    if sf.num_players != 2:
        raise ConceptMismatchError(
            f"{sf.game.name}: {what} is defined here for two-player games; the game has "
            f"{sf.num_players} players (correlated concepts 'ce'/'cce' take any number)")


def _objective_map(weights, scalings, ranges, exact: bool):
    """(coefficients of v_i[∅] in the LP, scale K, shift) with Σ_i w_i v_i = K·(Σ_i c_i v'_i) +
    shift, where v_i = s_i v'_i + c_i and c_i = w_i s_i / K, K a power of two near max |w_i| s_i."""
    sizes = [abs(float(w)) * sc.float_scale for w, sc in zip(weights, scalings)]
    top = max(sizes) if max(sizes) > 0 else 1.0
    k = 2 ** int(np.round(np.log2(top)))
    K = Fraction(k) if exact else float(k)
    if exact:
        w = [Fraction(float(v)) for v in weights]
        coef = [wi * Fraction(sc.scale) / K for wi, sc in zip(w, scalings)]
        shift = sum((wi * Fraction(sc.shift) for wi, sc in zip(w, scalings)), Fraction(0))
    else:
        coef = [float(wi) * sc.float_scale / K for wi, sc in zip(weights, scalings)]
        shift = sum(float(wi) * float(sc.shift) for wi, sc in zip(weights, scalings))
    span = sum(abs(float(wi)) * r for wi, r in zip(weights, ranges))
    return coef, K, shift, span


def nash_milp(sf: SequenceForm, weights, worst: bool = False, exact: bool = False,
              support: tuple[np.ndarray, np.ndarray] | None = None) -> NashMILP:
    """The MILP of the module docstring on unit-range payoffs, or, with ``support`` (one boolean
    mask per player over its sequences), the LP with that support fixed. ``exact`` states the
    payoff matrices in rationals (for :func:`lpgame.lp.solve_lp_exact`; support LP only)."""
    from lpgame.equilibria.zero_sum.security import scaled_payoff_matrix

    check_two_players(sf, "optimal Nash equilibrium by MILP")
    weights = np.asarray(weights, dtype=float)
    scaled = [scaled_payoff_matrix(sf, i, exact) for i in range(2)]
    scalings = [sc for _, sc in scaled]
    ranges = payoff_ranges(sf)
    big_m = tuple(r / sc.float_scale for r, sc in zip(ranges, scalings))
    kind = "MILP" if support is None else "support LP"
    unit = "" if all(sc.exponent == 0 and sc.shift == 0 for sc in scalings) else \
        " (unit-range payoffs)"
    lp = LinearProgram(name=f"optimal Nash {kind} of {sf.game.name}",
                       description="Sandholm, Gilpin & Conitzer (AAAI 2005) over the sequence form; "
                                   f"big-M = payoff ranges {big_m[0]:g}, {big_m[1]:g}{unit}")
    if exact:
        U = [scaled[0][0], scaled[1][0].T]
    else:
        U = [scaled[0][0], sp.csr_array(scaled[1][0].T)]
    # U[i]: rows player i's sequences, columns the opponent's; i's payoff per sequence is U[i] @ plan_o
    plans, values, regrets = [], [], []
    for i in range(2):
        n = sf.num_sequences(i)
        labels = sf.sequence_labels(i)
        upper = 1.0 if support is None else np.where(support[i], np.inf, 0.0)
        plans.append(lp.add_variables("xy"[i], n, 0.0, upper, labels=labels))
    for i in range(2):
        infosets = ["∅"] + list(sf.players[i].infoset_labels)
        values.append(lp.add_variables(f"v{i + 1}", len(infosets), -np.inf, np.inf, labels=infosets))
    for i in range(2):
        n = sf.num_sequences(i)
        upper = big_m[i] if support is None else np.where(support[i], 0.0, np.inf)
        regrets.append(lp.add_variables(f"r{i + 1}", n, 0.0, upper, labels=sf.sequence_labels(i)))
    for i in range(2):
        lp.add_constraints(f"treeplex_{i + 1}", [(plans[i], sf.treeplex_matrix(i))], "==",
                           sf.treeplex_rhs(i))
    for i in range(2):
        n = sf.num_sequences(i)
        lp.add_constraints(f"regret_{i + 1}",
                           [(values[i], sf.treeplex_matrix(i).T), (plans[1 - i], -U[i]),
                            (regrets[i], -sp.eye_array(n, format="csr"))], "==", 0.0)
    if support is None:
        for i in range(2):
            n = sf.num_sequences(i)
            labels = sf.sequence_labels(i)
            binary = lp.add_variables(f"b{i + 1}", n, kind="binary", labels=labels)
            eye = sp.eye_array(n, format="csr")
            lp.add_constraints(f"support_{i + 1}", [(plans[i], eye), (binary, -eye)], "<=", 0.0)
            lp.add_constraints(f"regret_bound_{i + 1}", [(regrets[i], eye), (binary, big_m[i] * eye)],
                               "<=", big_m[i])
    coef, scale, shift, span = _objective_map(weights, scalings, ranges, exact)
    terms = []
    for i in range(2):
        c = [Fraction(0)] * values[i].size if exact else np.zeros(values[i].size)
        c[0] = coef[i]
        terms.append((values[i], c))
    lp.set_objective(terms, sense="min" if worst else "max")
    return NashMILP(lp, big_m, weights, scale, shift, span)


@dataclass(kw_only=True)
class NotedResult(Result):
    """A profile result whose report opens with the concept's own lines (``extra["notes"]``: the
    objective and its optimum, the MILP's status, gap and bound, a partial answer's label). It is
    a ``"profile"`` result in JSON (read back as :class:`~lpgame.result.Result`, notes kept)."""

    def body_lines(self, names: list[str], **options) -> list[str]:
        return [str(note) for note in self.extra.get("notes", [])] + super().body_lines(names,
                                                                                         **options)


def support_labels(sf: SequenceForm, player: int, plan, tol: float = 1e-9) -> list[str]:
    """Labels of the player's sequences played with positive probability (∅ left out)."""
    p = sf.players[player]
    values = np.asarray([float(v) for v in plan])
    return [p.sequence_label(s) for s in np.flatnonzero(values > tol).tolist() if s != 0]


def parse_objective(text: str):
    """The command-line value of ``--objective``: ``welfare``, ``player1``, ``player2`` or
    ``w1,w2`` (kept as text; :func:`~lpgame.equilibria.correlated.ce_cce.objective_weights` reads it)."""
    return text.strip()


def objective_weights_checked(objective, num_players: int = 2) -> np.ndarray:
    """:func:`~lpgame.equilibria.correlated.ce_cce.objective_weights`, its errors as OptionError."""
    if objective is None or isinstance(objective, bool):
        raise OptionError(f"option 'objective' must be 'welfare', 'player1', 'player2' or two "
                          f"weights 'w1,w2'; got {objective!r}")
    if not isinstance(objective, (str, tuple, list, np.ndarray)):
        raise OptionError(f"option 'objective' must be a string or a sequence of {num_players} "
                          f"numbers; got {objective!r} ({type(objective).__name__})")
    try:
        return objective_weights(objective, num_players)
    except LpgameError as exc:
        raise OptionError(f"option 'objective': {exc}") from exc


def _solver_options(options: dict) -> dict:
    out = {k: v for k, v in options.items() if v is not None and k != "tolerance"}
    return out


def _mip_highs_options(milp: NashMILP, gap: float, options: dict) -> dict:
    """HiGHS's MILP options: the gap as an absolute gap on the unit-range objective (the user's
    fraction of the objective's range, at least OPTIMALITY_TOLERANCE / 10), no relative gap."""
    span = milp.objective_range / float(milp.objective_scale)
    return {**MIP_TOLERANCES, "mip_rel_gap": 0.0,
            "mip_abs_gap": max(gap, OPTIMALITY_TOLERANCE / 10) * max(span, 1e-300),
            **options.pop("highs_options", {})}


def solve_optimal_nash(sf: SequenceForm, objective="welfare", worst: bool = False,
                       exact: bool = False, backend: str = "highs", mip_gap: float | None = None,
                       beside_ce: bool = True, pair: bool = True, **options) -> Result:
    """The optimal (``worst=True``: the worst) Nash equilibrium for ``objective`` (module
    docstring). Returns a :class:`~lpgame.result.Result` whose ``extra`` holds the objective, its
    value, the MILP's gap and bound (in the game's units), the big-M constants, the support and
    ``optimality`` (the bound, and whether it meets the value: within OPTIMALITY_TOLERANCE of the
    objective's range in floating point, exactly by enumeration in exact mode); with
    ``beside_ce`` also the optimal correlated equilibrium's objective for the same weights
    (:func:`correlated_beside`). With ``worst`` and ``pair``, the best equilibrium's objective is
    solved too and reported beside the worst, with the social optimum and the prices of anarchy
    and stability where they are defined (:func:`price_of_anarchy`).
    """
    start = time.perf_counter()
    raw_options = dict(options)
    check_two_players(sf, "optimal Nash equilibrium by MILP")
    if not isinstance(worst, bool):
        raise OptionError(f"option 'worst' must be True or False; got {worst!r}")
    weights = objective_weights_checked(objective)
    if backend != "highs":
        raise OptionError(f"optimal Nash equilibrium: the MILP is solved by HiGHS's branch and "
                          f"bound; use backend='highs' (got {backend!r})")
    options = _solver_options(options)
    check_solver_options(options, "optimal Nash equilibrium")
    gap = check_mip_gap(mip_gap)
    gap = DEFAULT_MIP_GAP if gap is None else gap
    milp = nash_milp(sf, weights, worst)
    highs_options = _mip_highs_options(milp, gap, options)
    lp_options = {k: v for k, v in options.items() if k != "solver"}
    mip = solve_lp(milp.lp, backend="highs", mip_gap=0.0, highs_options=highs_options,
                   **lp_options)
    support = tuple(mip.values(f"b{i + 1}") > SUPPORT_THRESHOLD for i in range(2))
    polish, plans, objective_value = _solve_support_lp(sf, weights, worst, exact, support, options)
    if polish is None:     # the support LP failed in floating point: keep the MILP's point
        plans = [np.clip(mip.values("x"), 0.0, None), np.clip(mip.values("y"), 0.0, None)]
        objective_value = milp.to_game(mip.objective)
    bound = milp.to_game(mip.info.get("mip_dual_bound"))
    if exact:
        optimality, plans, objective_value = exact_optimality(sf, weights, worst, plans,
                                                               objective_value, bound)
    else:
        optimality = float_optimality(objective_value, bound, worst, milp.objective_range,
                                       mip.status == "optimal")
    strategies, unreached, plans, ev, _ = certified_profile(sf, plans, exact)
    if exact and ev.nash_conv != 0:
        raise ExactCheckError(f"exact mode: the support LP's profile has exact NashConv "
                              f"{ev.nash_conv}, not 0")
    # partial: HiGHS stopped at a limit, or (floating point) its bound does not meet the answer
    partial = mip.status != "optimal" or (not exact and not optimality["proven"])
    extra = {
        "objective": objective_name(objective),
        "weights": [float(w) for w in weights],
        "worst": worst,
        "objective_value": _number(objective_value),
        "milp": {"status": mip.status, "partial": partial,
                 "mip_gap": mip.info.get("mip_gap"), "dual_bound": bound,
                 "primal_bound": milp.to_game(mip.info.get("primal_bound")),
                 "requested_gap": gap,
                 "nodes": mip.info.get("mip_node_count"), "seconds": mip.seconds,
                 "size": milp.lp.size()},
        "optimality": optimality,
        "big_m": list(payoff_ranges(sf)),
        "big_m_scaled": list(milp.big_m),
        "big_m_rule": "M_i = max_z u_i(z) − min_z u_i(z), player i's payoff range (bounds every "
                      "regret of a best-response value); the MILP sees it divided by the payoff "
                      "scale s_i",
        "support": [support_labels(sf, i, plans[i]) for i in range(2)],
        "polished": polish is not None,
    }
    direction = "most" if not worst else "least"
    if mip.status != "optimal":
        extra["status"] = (f"partial: HiGHS stopped ({mip.status}) before "
                           f"proving the optimum; the equilibrium returned is "
                           f"the incumbent, objective {extra['milp']['primal_bound']}, and the best "
                           f"{'equilibrium' if not worst else 'worst equilibrium'} has objective at "
                           f"{direction} {bound}")
    elif not optimality["proven"]:
        extra["status"] = (f"not proven optimal: the {'best' if not worst else 'worst'} "
                           f"equilibrium's objective is at {direction} "
                           f"{optimality.get('bound')} ({optimality['method']})")
    cert = Certificate(ev.nash_conv, ev.exploitability, ev.best_response_gain, exact,
                       extra={"payoff_range": payoff_range(sf, exact),
                              "relative_nash_conv": relative(ev.nash_conv, payoff_range(sf, exact)),
                              "objective_bound": optimality.get("bound"),
                              "optimality_proven": optimality["proven"]},
                       deviations="each player's best responses (lpgame.analysis.best_response), "
                                  "relative to the payoff range; the objective against "
                                  + optimality["method"])
    if worst and pair:
        best = solve_optimal_nash(sf, objective, worst=False, exact=exact, backend=backend,
                                  mip_gap=mip_gap, beside_ce=False, pair=False, **raw_options)
        extra["best_objective_value"] = best.extra["objective_value"]
        try:
            extra.update(price_of_anarchy(sf, weights, best.extra["objective_value"],
                                          extra["objective_value"], exact=exact))
        except LpgameError as error:          # a side quantity never sinks the answer
            extra["price_of_anarchy_failed"] = f"{type(error).__name__}: {error}"
    if beside_ce:
        try:
            beside = correlated_beside(sf, weights, worst, exact=exact)
        except LpgameError as error:          # a side quantity never sinks the answer
            beside = None
            extra["correlated_beside_failed"] = f"{type(error).__name__}: {error}"
        if beside is not None:
            extra["correlated_beside"] = beside
    extra["notes"] = _notes(extra, worst)
    return NotedResult(
        game=sf.game.name, concept="nash", variant="optimal", value=ev.values[0],
        values=list(ev.values), strategies=strategies, certificate=cert, size=milp.lp.size(),
        seconds={"solve": mip.seconds + (polish.seconds if polish is not None else 0.0),
                 "milp": mip.seconds, "total": time.perf_counter() - start},
        backend=backend, exact=exact, unreached=unreached, extra=extra, plans=plans, lp=milp.lp,
        solver=solver_report(polish, exact, name="highs-mip", mip_gap=mip.info.get("mip_gap"),
                             then=("the LP with the MILP's support fixed" if polish is not None
                                   else None)))


def _solve_support_lp(sf: SequenceForm, weights, worst: bool, exact: bool, support, options: dict
                      ) -> tuple[LPSolution | None, list | None, object]:
    """Solve the LP with the MILP's support fixed (module docstring): (solution, plans, optimum);
    (None, None, None) where the floating-point LP fails (the caller keeps the MILP's point)."""
    fixed = nash_milp(sf, weights, worst, exact=exact, support=support)
    lp_options = {k: v for k, v in options.items() if k not in ("highs_options",)}
    if exact:
        lp_options.setdefault("solver", "simplex")
        try:
            solution, certified = solve_lp_exact(fixed.lp, backend="highs", **lp_options)
        except SolverError as exc:
            raise ExactCheckError(f"exact mode: the LP with the MILP's support fixed failed: {exc}"
                                  ) from exc
        plans = [certified.values(fixed.lp, "x"), certified.values(fixed.lp, "y")]
        return solution, plans, fixed.to_game(certified.objective)
    try:
        solution = solve_lp(fixed.lp, backend="highs",
                            **{**lp_options, "highs_options": dict(TIGHT_TOLERANCES)})
    except SolverError:
        return None, None, None
    plans = [np.clip(solution.values("x"), 0.0, None), np.clip(solution.values("y"), 0.0, None)]
    return solution, plans, fixed.to_game(solution.objective)


def price_of_anarchy(sf: SequenceForm, weights, best, worst, exact: bool = False) -> dict:
    """The social optimum max_{π_1, π_2} Σ_i w_i u_i(π) over pure (reduced) plan pairs, where the
    reduced normal form has at most :data:`CE_BESIDE_MAX_PROFILES` joint plans (mixing cannot do
    better), and, for the welfare objective with every quantity positive, the price of anarchy
    optimum / worst equilibrium and the price of stability optimum / best equilibrium
    (Koutsoupias & Papadimitriou 1999; Anshelevich et al. 2004). Empty where not computed.

    ``exact``: the optimum and both prices are Fractions: the pairs within a rounding margin of
    the floating-point maximum are re-evaluated in rational arithmetic
    (:func:`~lpgame.analysis.best_response.profile_values_exact`) and the largest is kept."""
    from lpgame.equilibria.correlated.reduced_plans import count_reduced_plans, reduced_normal_form

    if count_reduced_plans(sf, 0) * count_reduced_plans(sf, 1) > CE_BESIDE_MAX_PROFILES:
        return {}
    form = reduced_normal_form(sf, max_profiles=CE_BESIDE_MAX_PROFILES)
    welfare = np.tensordot(np.asarray(weights, dtype=float), form.payoffs, axes=1)
    optimum = float(welfare.max())
    if exact:
        optimum = _exact_social_optimum(sf, weights, welfare)
        best, worst = Fraction(best), Fraction(worst)
    else:
        best, worst = float(Fraction(best)), float(Fraction(worst))
    out = {"social_optimum": optimum}
    if np.all(np.asarray(weights) == 1) and min(optimum, best, worst) > 0:
        out["price_of_anarchy"] = optimum / worst
        out["price_of_stability"] = optimum / best
    return out


def _exact_social_optimum(sf: SequenceForm, weights, welfare: np.ndarray) -> Fraction:
    """max over pure plan pairs of Σ_i w_i u_i in rationals: the candidates are the pairs whose
    floating-point welfare is within 1e-9 of the span of the largest (far above rounding)."""
    from lpgame.analysis.best_response import profile_values_exact
    from lpgame.equilibria.correlated.reduced_plans import enumerate_reduced_plans

    plans = [enumerate_reduced_plans(sf, i, max_plans=CE_BESIDE_MAX_PROFILES) for i in range(2)]
    margin = 1e-9 * max(float(np.abs(welfare).max()), 1.0)
    exact_weights = [Fraction(float(w)) for w in weights]
    candidates = np.argwhere(welfare >= welfare.max() - margin)
    return max(sum((w * v for w, v in zip(exact_weights, profile_values_exact(
        sf, [[Fraction(int(b)) for b in plans[0][k]], [Fraction(int(b)) for b in plans[1][m]]]))),
        Fraction(0)) for k, m in candidates)


def correlated_beside(sf: SequenceForm, weights, worst: bool, exact: bool = False) -> dict | None:
    """The optimal CE's objective for the same weights (the worst CE with ``worst``), on the normal
    form or the reduced normal form, where it has at most :data:`CE_BESIDE_MAX_PROFILES` joint
    plans; None otherwise (:func:`lpgame.equilibria.correlated.ce_cce.solve_normal_form`; with
    ``exact``, :func:`lpgame.equilibria.correlated.ce_cce_exact.solve_normal_form_exact`, a
    Fraction)."""
    from lpgame.equilibria.correlated.ce_cce import solve_normal_form
    from lpgame.equilibria.correlated.ce_cce_exact import solve_normal_form_exact
    from lpgame.equilibria.correlated.reduced_plans import count_reduced_plans

    if count_reduced_plans(sf, 0) * count_reduced_plans(sf, 1) > CE_BESIDE_MAX_PROFILES:
        return None
    sign = -1 if worst else 1
    run = solve_normal_form_exact if exact else solve_normal_form
    ce = run(sf, "ce", objective=[sign * w for w in weights])
    bound = "lower" if worst else "upper"
    return {"concept": "ce",
            "objective_value": sign * (ce.objective if exact else float(ce.objective)),
            "meaning": f"{'worst' if worst else 'best'} correlated equilibrium for the same "
                       f"objective: a {bound} bound on every Nash equilibrium's"}


def _notes(extra: dict, worst: bool) -> list[str]:
    milp = extra["milp"]
    which = "worst" if worst else "best"
    optimality = extra["optimality"]
    lines = [f"{which} Nash equilibrium for objective {extra['objective']} (weights "
             f"{', '.join(f'{w:g}' for w in extra['weights'])}): {_shown(extra['objective_value'])}",
             f"MILP (HiGHS, unit-range payoffs): stopped with status {milp['status']} at requested "
             f"gap {milp['requested_gap']:g} of the objective's range, bound {milp['dual_bound']:.9g}, "
             f"{milp['nodes']} nodes; big-M = payoff ranges {', '.join(f'{m:g}' for m in extra['big_m'])}",
             (f"optimal: proven by {optimality['method']}" if optimality["proven"] else
              f"NOT PROVEN OPTIMAL: {optimality['method']}; bound {optimality.get('bound')}")]
    if "best_objective_value" in extra:
        line = ("best Nash equilibrium for the same objective: "
                f"{_shown(extra['best_objective_value'])}")
        if "social_optimum" in extra:
            line += f"; social optimum (pure plans) {format_number(extra['social_optimum'], 9)}"
        if "price_of_anarchy" in extra:
            line += (f"; price of anarchy {format_number(extra['price_of_anarchy'], 9)}, price "
                     f"of stability {format_number(extra['price_of_stability'], 9)}")
        lines.append(line)
    beside = extra.get("correlated_beside")
    if beside is not None:
        lines.append(f"beside it, the {'worst' if worst else 'best'} correlated equilibrium (ce) for "
                     f"the same objective: {format_number(beside['objective_value'], 9)}")
    if "price_of_anarchy_failed" in extra:
        lines.append(f"the social optimum and price of anarchy were not computed: "
                     f"{extra['price_of_anarchy_failed']}")
    if "correlated_beside_failed" in extra:
        lines.append(f"the correlated equilibrium beside it was not computed: "
                     f"{extra['correlated_beside_failed']}")
    if "status" in extra:
        lines.append(extra["status"].upper() if extra["status"].startswith("partial") else
                     extra["status"])
    return lines


def _number(value):
    return str(value) if isinstance(value, Fraction) else float(value)


def _shown(value) -> str:
    """An objective value for the notes: a JSON-ready "p/q" string as a Fraction (≈ decimal when
    long), a float to 9 significant digits."""
    return format_number(Fraction(value) if isinstance(value, str) else value, 9)


def _solve_registered(game, *, exact: bool = False, backend: str = "highs", objective=None,
                      worst: bool = False, mip_gap: float | None = None, **options) -> Result:
    from lpgame.compile import compile_game
    return solve_optimal_nash(compile_game(game), objective=objective, worst=worst, exact=exact,
                              backend=backend, mip_gap=mip_gap, **options)


register(Concept(
    name="nash", variant="optimal", games=("general_sum",), requires=("objective",),
    solve=_solve_registered,
    summary="the Nash equilibrium maximising (or with --worst minimising) an objective: welfare, "
            "player1, player2 or weights w1,w2; by a MILP over the sequence form",
    certificate="each player's best-response gain against the returned profile (exactly 0 in "
                "exact mode), by the independent best-response recursion, relative to the "
                "payoff range; optimality: the MILP's proven bound (floats) or the exact "
                "enumeration of all extreme equilibria (exact mode, small games), else 'not "
                "proven'",
    source="Sandholm, Gilpin & Conitzer, AAAI 2005 (the regret MILP), written over the sequence "
           "form (Koller, Megiddo & von Stengel 1996)",
    options=(
        Option("objective", object, None, "what the equilibrium optimises: welfare, player1, "
               "player2 or weights w1,w2", parse=parse_objective),
        Option("worst", bool, False, "minimise the objective instead: the worst equilibrium (with "
               "welfare, the denominator of the price of anarchy; the best one gives the price "
               "of stability's)"),
        Option("mip_gap", float, None, "MIP gap at which HiGHS stops, a fraction of the "
               "objective's payoff range in [0, 1) (default 0: a proven optimum)"),
    ),
    backends=("highs",), solvers=LP_SOLVERS,
))
