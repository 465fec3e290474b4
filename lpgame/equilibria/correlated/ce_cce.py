"""Normal-form correlated (CE) and coarse correlated (CCE) equilibria of n-player games by LP.

A mediator draws a joint pure profile s ∈ S = S_1 × … × S_n from ψ ∈ Δ(S) and tells each player
only its own component. ψ is a **correlated equilibrium** (Aumann 1974; Rojas Linárez 2020, Def. 1.12,
l. 398–401; notes/rojas-linarez-and-notebook.md §3.1) when no player gains by replacing a
recommendation x by another action y:

    Σ_{s_{-i}} ψ(x, s_{-i}) · [ u_i(x, s_{-i}) − u_i(y, s_{-i}) ] ≥ 0      ∀ i, x ≠ y ∈ S_i,

and a **coarse correlated equilibrium** (Moulin & Vial 1978; notes/farina-thesis.md §1.9) when no
player gains by committing to one action y before hearing anything:

    Σ_s ψ(s) · [ u_i(s) − u_i(y, s_{-i}) ] ≥ 0                              ∀ i, y ∈ S_i.

Both sets are polytopes, so an optimal equilibrium for any linear objective Σ_i w_i u_i(ψ)
(social welfare w = 1, one player's payoff w = e_k, or any weights) is the LP

    max_ψ  Σ_s ψ(s) Σ_i w_i u_i(s)   s.t.  the incentive rows above,  Σ_s ψ(s) = 1,  ψ ≥ 0.

The incentive matrices are built in one vectorised step per player from the payoff tensor (the
player's axis moved to the front), as sparse COO, with no per-entry Python loop.

**Extensive games** are solved over their reduced normal form
(:mod:`lpgame.equilibria.correlated.reduced_plans`, refused beyond a number of joint profiles);
there the CE is the *normal-form* correlated equilibrium (NFCE), the smallest set of the
hierarchy NFCE ⊆ EFCE ⊆ EFCCE ⊆ NFCCE (von Stengel & Forges 2008); the extensive-form concepts
are in :mod:`lpgame.equilibria.correlated.efce`.

Every result carries the gap of the returned distribution — the largest gain of any deviation —
computed by :mod:`lpgame.analysis.correlated_gaps`, independently of the LP, and a weak-duality
bound on the objective from the LP's duals (:mod:`lpgame.equilibria.correlated.ce_optimality`):
"optimal" only where it meets the value. Exact mode: :mod:`lpgame.equilibria.correlated.ce_cce_exact`.

Example
-------
>>> import lpgame
>>> r = lpgame.solve(lpgame.games.make("chicken"), concept="ce", objective="welfare")
>>> round(r.objective, 9), [round(p, 9) for p in r.payoffs]
(10.5, [5.25, 5.25])
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from lpgame.equilibria.correlated.ce_optimality import (
    incentive_duals,
    multipliers_from_duals,
    optimality_certificate,
)
from lpgame.equilibria.correlated.reduced_plans import (
    DEFAULT_MAX_PROFILES,
    StrategicForm,
    as_strategic_form,
)
from lpgame.errors import LpgameError, ModelTooLargeError, OptionError
from lpgame.io.json_io import number_from_json, number_to_json
from lpgame.limits import check_prediction, predict_lp_bytes
from lpgame.lp import LinearProgram, solve_lp
from lpgame.lp.scaling import check_float_payoffs, float_bounds, unit_range_scaling
from lpgame.lp.solution import solver_report
from lpgame.number_format import format_number
from lpgame.rational import RationalMatrix, common_denominator
from lpgame.registry import Option
from lpgame.result import Certificate, SolveResult, register_result_kind

CORRELATED_CONCEPTS = ("ce", "cce", "efce", "efcce", "nfcce")
SUPPORT_TOLERANCE = 1e-12
"""Probabilities (or plan entries) at or below this are left out of reported distributions."""


# ---------------------------------------------------------------------------------------- objective
def objective_weights(objective, num_players: int) -> np.ndarray:
    """The weights w of the objective Σ_i w_i u_i.

    ``"welfare"`` (all ones), ``"player1"`` … ``"playerN"`` (that player's payoff), a sequence of
    ``num_players`` numbers, or the same numbers as a comma-separated string (``"1,2"``).
    """
    if isinstance(objective, str):
        text = objective.strip().lower()
        if text in ("welfare", "social_welfare", "sw"):
            return np.ones(num_players)
        if text.startswith("player"):
            try:
                k = int(text[len("player"):])
            except ValueError:
                k = 0
            if not 1 <= k <= num_players:
                raise LpgameError(f"objective {objective!r}: the game has players 1..{num_players}")
            w = np.zeros(num_players)
            w[k - 1] = 1.0
            return w
        if "," in text:
            objective = text.split(",")
        else:
            raise LpgameError(f"unknown objective {objective!r}; use 'welfare', 'player1'.."
                              f"'player{num_players}' or {num_players} weights 'w1,...'")
    try:
        w = np.array([float(v) for v in objective], dtype=float)
    except (TypeError, ValueError) as exc:
        raise LpgameError(f"objective {objective!r} is not a list of numbers") from exc
    if w.shape != (num_players,) or not np.all(np.isfinite(w)):
        raise LpgameError(f"objective {objective!r}: need {num_players} finite weights, one per "
                          "player")
    return w


def objective_name(objective) -> str:
    """A readable name of the objective, for reports."""
    if isinstance(objective, str):
        return objective
    return ",".join(f"{float(v):g}" for v in objective)


def objective_report(lp: LinearProgram, lp_optimum: float, weights, payoffs, all_payoffs,
                     deviation_gap: float | None = None) -> dict:
    """What a correlated result reports beside its objective: the objective is Σ_i w_i u_i of the
    returned distribution or plan (evaluated from it, not read from the LP); ``lp_objective`` is the
    LP's optimum in the game's units, ``objective_gap`` their difference, ``payoff_range`` the
    range of the payoffs, ``relative_objective_gap`` the difference relative to it and
    ``relative_gap`` the largest deviation gain (the certificate) relative to it."""
    lp_objective = float(lp.objective_scaling.from_unit(lp_optimum))
    evaluated = float(np.dot(weights, payoffs))
    lo, hi = float_bounds(np.asarray(all_payoffs, dtype=float))
    spread = hi - lo
    gap = evaluated - lp_objective
    out = {"lp_objective": lp_objective, "objective_gap": gap, "payoff_range": spread,
           "relative_objective_gap": gap / spread if spread > 0 else abs(gap)}
    if deviation_gap is not None:
        out["relative_gap"] = float(deviation_gap) / spread if spread > 0 else float(deviation_gap)
    return out


# ---------------------------------------------------------------------------------------- result
@register_result_kind
@dataclass(kw_only=True)
class CorrelatedResult(SolveResult):
    """An optimal correlated equilibrium (or a relaxation bound on one) with its independent gap.

    ``objective`` is the LP optimum of Σ_i w_i u_i; ``payoffs`` (also ``values``) the players'
    expected payoffs under the returned distribution or plan; ``gap`` (also ``certificate.gain``)
    the largest gain of any deviation allowed by the concept, computed by
    :mod:`lpgame.analysis.correlated_gaps` (not by the LP); ``optimal`` is True only when a dual
    bound checked by independent code meets the value (``certificate.extra["objective_bound"]``;
    :mod:`~lpgame.equilibria.correlated.ce_optimality`,
    :mod:`~lpgame.equilibria.correlated.plan_optimality`), False when that is not proven or the
    value is only an upper bound (the von Stengel–Forges relaxation of a game that is not
    triangle-free, unless the plan was decomposed into a distribution, which proves the bound
    attained). ``exact``: rational arithmetic, with Fraction entries. ``distribution`` lists the
    support of a distribution over joint pure profiles (normal form, or a decomposition of a plan);
    ``correlation_plan`` lists the nonzero entries ξ[σ1, σ2] of a two-player correlation plan.
    """

    kind = "correlated"

    objective: float = 0.0
    objective_spec: str = "welfare"
    weights: list = field(default_factory=list)
    payoffs: list = field(default_factory=list)
    gap: float = 0.0
    optimal: bool = True
    triangle_free: bool | None = None
    distribution: list[dict] | None = None
    correlation_plan: list[dict] | None = None
    realisable: bool | None = None
    gap_detail: dict = field(default_factory=dict)
    # raw arrays (not written to JSON): ψ over the profile tensor, or ξ over the relevant pairs
    raw: np.ndarray | None = field(default=None, repr=False)
    model: object = field(default=None, repr=False)
    lp: LinearProgram | None = field(default=None, repr=False)

    def __post_init__(self):
        if not self.values:
            self.values = list(self.payoffs)
        if self.certificate.gain is None:
            self.certificate = Certificate(
                gain=self.gap, exact=isinstance(self.gap, Fraction),
                deviations=DEVIATIONS.get(self.concept, "the concept's deviations"))
        super().__post_init__()

    @property
    def bound(self) -> str:
        """``"optimal"``, ``"optimal (the relaxation's bound is attained)"`` or
        ``"upper bound (relaxation)"``."""
        if self.certificate.extra.get("optimality_proven") is False:
            return ("optimality not proven: the checked dual bound "
                    f"{format_number(self.certificate.extra.get('objective_bound'), 9)} does not "
                    "meet the value")
        if not self.optimal:
            return "upper bound (relaxation)"
        if self.triangle_free is False:
            return "optimal (the relaxation's bound is attained: the plan is realisable)"
        return "optimal"

    def _own_dict(self) -> dict:
        out = {"objective": number_to_json(self.objective), "objective_spec": self.objective_spec,
               "weights": [float(w) for w in self.weights],
               "payoffs": [number_to_json(p) for p in self.payoffs],
               "gap": number_to_json(self.gap),
               "optimal": bool(self.optimal), "bound": self.bound,
               "triangle_free": self.triangle_free, "realisable": self.realisable,
               "gap_detail": self.gap_detail}
        if self.distribution is not None:
            out["distribution"] = [{**e, "probability": number_to_json(e["probability"])}
                                   for e in self.distribution]
        if self.correlation_plan is not None:
            out["correlation_plan"] = [{**e, "value": number_to_json(e["value"])}
                                       for e in self.correlation_plan]
        return out

    @classmethod
    def _from_dict(cls, data: dict) -> CorrelatedResult:
        own = ("objective", "objective_spec", "weights", "payoffs", "gap", "optimal", "bound",
               "triangle_free", "realisable", "gap_detail", "distribution", "correlation_plan")
        common = cls._common(data)
        extra = {k: v for k, v in data.items()
                 if k not in own and k not in common and k not in ("kind", "variant")}
        def entries(key, value_key):      # exact probabilities come back as Fractions
            rows = data.get(key)
            return None if rows is None else [
                {**e, value_key: number_from_json(e.get(value_key))} for e in rows]
        return cls(**common, objective=number_from_json(data.get("objective", 0.0)),
                   objective_spec=data.get("objective_spec", "welfare"),
                   weights=data.get("weights", []),
                   payoffs=[number_from_json(p) for p in data.get("payoffs", [])],
                   gap=number_from_json(data.get("gap", 0.0)),
                   optimal=bool(data.get("optimal", True)),
                   triangle_free=data.get("triangle_free"), realisable=data.get("realisable"),
                   gap_detail=data.get("gap_detail", {}),
                   distribution=entries("distribution", "probability"),
                   correlation_plan=entries("correlation_plan", "value"), extra=extra)

    def headline(self) -> str:
        return f"{self.game}: {self.concept} maximising {self.objective_spec} ({self.bound})"

    def body_lines(self, names: list[str], digits: int = 6, max_entries: int = 20,
                   **options) -> list[str]:
        lines = [f"objective: {format_number(self.objective, digits)}"]
        lines += [f"note: {note}" for note in self.extra.get("notes", [])]
        if self.triangle_free is not None:
            lines.append(f"triangle-free: {self.triangle_free}")
        if self.realisable is not None:
            lines.append(f"realisable as a distribution over pure plan pairs: {self.realisable}")
        entries = self.distribution if self.distribution is not None else self.correlation_plan
        if entries:
            key = "probability" if self.distribution is not None else "value"
            what = "distribution" if self.distribution is not None else "correlation plan"
            lines.append(f"{what} ({len(entries)} nonzero entries, largest first):")
            for e in entries[:max_entries]:
                who = " | ".join(e.get("profile", e.get("sequences", [])))
                lines.append(f"  {format_number(e[key], digits)}  {who}")
            if len(entries) > max_entries:
                lines.append(f"  ... {len(entries) - max_entries} more")
        return lines


DEVIATIONS = {
    "ce": "every player's swap of a recommended action (lpgame.analysis.correlated_gaps)",
    "cce": "every player's commitment to an action before hearing anything "
           "(lpgame.analysis.correlated_gaps)",
    "efce": "trigger deviations at every information set (lpgame.analysis.correlated_gaps)",
    "efcce": "coarse trigger deviations (lpgame.analysis.correlated_gaps)",
    "nfcce": "every player's commitment to a pure plan (lpgame.analysis.correlated_gaps)",
}


# ---------------------------------------------------------------------------------------- LP
def _profile_index(shape: tuple[int, ...], player: int) -> np.ndarray:
    """(|S_i|, Π_{k≠i}|S_k|) matrix of flat profile indices, row x = profiles where i plays x."""
    total = math.prod(shape)
    return np.moveaxis(np.arange(total).reshape(shape), player, 0).reshape(shape[player], -1)


def incentive_matrix(form: StrategicForm, player: int, coarse: bool, exact: bool = False
                     ) -> tuple[sp.coo_array | RationalMatrix, list]:
    """The incentive rows of one player (``≥ 0``) as a sparse matrix over the flat ψ.

    CE: one row per (recommended x, deviation y ≠ x), entries u_i(x, s_{-i}) − u_i(y, s_{-i}) at the
    profiles (x, s_{-i}). CCE: one row per deviation y, entries u_i(s) − u_i(y, s_{-i}) at every s.
    Returns the matrix and row labels ``(x, y)`` (CE) or ``y`` (CCE) as strategy indices.
    ``exact``: from ``form.exact_payoffs``, as a :class:`~lpgame.rational.RationalMatrix`.
    """
    shape = form.shape
    m = shape[player]
    total = math.prod(shape)
    index = _profile_index(shape, player)                                  # (m, R)
    tensor, den = form.payoffs[player], 1
    if exact:   # integers over one denominator: the differences are integer operations
        nums, den = common_denominator(form.exact_payoffs[player].ravel().tolist())
        tensor = nums.reshape(shape)
    u = np.moveaxis(tensor, player, 0).reshape(m, -1)                     # (m, R)
    if coarse:
        data = u[None, :, :] - u[:, None, :]          # [y, x, r] = u(x, r) − u(y, r)
        rows = np.repeat(np.arange(m), m * u.shape[1])
        cols = np.broadcast_to(index, (m,) + index.shape).ravel()
        keys = list(range(m))
    else:
        rec, dev = np.nonzero(~np.eye(m, dtype=bool))
        data = u[rec] - u[dev]                                            # (m(m−1), R)
        rows = np.repeat(np.arange(rec.size), u.shape[1])
        cols = index[rec].ravel()
        keys = list(zip(rec.tolist(), dev.tolist()))
    data = data.ravel()
    keep = np.asarray(data != 0, dtype=bool)
    if exact:
        distinct: dict = {}
        values = [distinct.setdefault(v, Fraction(v, den)) for v in data[keep].tolist()]
        return RationalMatrix((len(keys), total), rows[keep], cols[keep], values), keys
    matrix = sp.coo_array((data[keep], (rows[keep], cols[keep])), shape=(len(keys), total))
    return matrix, keys


def correlated_lp(form: StrategicForm, concept: str = "ce", objective="welfare",
                  exact: bool = False) -> LinearProgram:
    """The CE (``concept="ce"``) or CCE (``"cce"``) LP of the module docstring.

    ``exact``: every coefficient a rational from ``form.exact_payoffs`` (the same unit-range
    scaling with an exact shift), for the certified basis of
    :mod:`lpgame.equilibria.correlated.ce_cce_exact`."""
    if concept not in ("ce", "cce"):
        raise LpgameError(f"normal-form correlated LP: concept must be 'ce' or 'cce', got {concept!r}")
    coarse = concept == "cce"
    shape = form.shape
    total = math.prod(shape)
    n = form.num_players
    w = objective_weights(objective, n)
    rows = sum(s if coarse else s * (s - 1) for s in shape)
    nnz = total * sum(s if coarse else s - 1 for s in shape)
    check_prediction(f"{form.name}: {concept.upper()} LP over {total:,} joint profiles",
                     3 * predict_lp_bytes(rows, total, nnz))
    # payoffs in unit range (lpgame.lp.scaling): the incentive rows are homogeneous, so each
    # player's rows are divided by a power of two; the objective is shifted and scaled (Σψ = 1)
    scalings = []
    for i in range(n):
        if exact:
            values = form.exact_payoffs[i].ravel().tolist()
            scalings.append(unit_range_scaling(min(values), max(values), exact=True))
            continue
        lo, hi = float_bounds(form.payoffs[i])
        check_float_payoffs(lo, hi, f"{form.name}, payoffs of player {i + 1}")
        scalings.append(unit_range_scaling(lo, hi))
    lp = LinearProgram(name=f"{concept}:{form.name}", description=(
        f"{'coarse ' if coarse else ''}correlated equilibrium over {total} joint pure profiles "
        f"(Aumann 1974; rojas §3.1): max Σ_s ψ(s) Σ_i w_i u_i(s), w = {w.tolist()}"))
    small = total <= 20_000
    profile_labels = None
    if small:
        grids = np.unravel_index(np.arange(total), shape)
        profile_labels = [",".join(form.labels[i][grids[i][k]] for i in range(n))
                          for k in range(total)]
    psi = lp.add_variables("psi", total, lower=0.0, labels=profile_labels)
    lp.add_constraints("probability", [(psi, sp.csr_array(np.ones((1, total))))], "==", 1.0,
                       labels=["Σψ"])
    for i in range(n):
        matrix, keys = incentive_matrix(form, i, coarse, exact)
        labels = None
        if small:
            names = form.labels[i]
            labels = ([f"P{i + 1}:{names[y]}" for y in keys] if coarse else
                      [f"P{i + 1}:{names[x]}→{names[y]}" for x, y in keys])
        if matrix.shape[0] and exact:
            inverse = 1 / Fraction(scalings[i].scale)
            unit = RationalMatrix(matrix.shape, matrix.rows, matrix.cols,
                                  [v * inverse for v in matrix.data])
            lp.add_constraints(f"incentive_p{i + 1}", [(psi, unit)], ">=",
                               [Fraction(0)] * matrix.shape[0], labels=labels)
        elif matrix.shape[0]:
            unit = sp.coo_array((np.ldexp(matrix.data, -scalings[i].exponent),
                                 (matrix.row, matrix.col)), shape=matrix.shape)
            lp.add_constraints(f"incentive_p{i + 1}", [(psi, unit)], ">=", 0.0, labels=labels)
    lp.row_scalings = scalings      # player i's rows are A_i / 2^k_i (the duals' units)
    if exact:
        nums, den = common_denominator(form.exact_payoffs.ravel().tolist())
        w_nums, w_den = common_denominator([Fraction(v) for v in w])
        coef_nums = np.tensordot(w_nums, nums.reshape(form.exact_payoffs.shape), axes=1).ravel()
        lo, hi = min(coef_nums.tolist()), max(coef_nums.tolist())
        lp.objective_scaling = unit_range_scaling(Fraction(lo, den * w_den),
                                                  Fraction(hi, den * w_den), exact=True)
        distinct: dict = {}
        unit = [distinct.setdefault(c, lp.objective_scaling.to_unit(Fraction(c, den * w_den)))
                for c in coef_nums.tolist()]
        lp.set_objective([(psi, unit)], sense="max")
        return lp
    coef = np.tensordot(w, form.payoffs, axes=1).ravel()
    lp.objective_scaling = unit_range_scaling(*float_bounds(coef))
    lp.set_objective([(psi, lp.objective_scaling.to_unit_array(coef))], sense="max")
    return lp


def solve_normal_form(game, concept: str = "ce", objective="welfare", backend: str = "highs",
                      max_profiles: int = DEFAULT_MAX_PROFILES, **options) -> CorrelatedResult:
    """An optimal CE or CCE of a normal-form game, or of an extensive game's reduced normal form.

    ``game``: a NormalFormGame, StrategicForm, or anything :func:`lpgame.as_game` accepts (then its
    reduced normal form, refused beyond ``max_profiles`` joint profiles). ``objective``: see
    :func:`objective_weights`. ``options`` go to the LP backend.
    """
    from lpgame.analysis.correlated_gaps import cce_gap, ce_gap

    start = time.perf_counter()
    form = as_strategic_form(game, max_profiles=max_profiles)
    total = math.prod(form.shape)
    if total > max_profiles:
        raise ModelTooLargeError(
            f"{form.name}: {' × '.join(map(str, form.shape))} = {total:,} joint pure profiles, more "
            f"than the limit of {max_profiles:,}")
    built = time.perf_counter()
    lp = correlated_lp(form, concept, objective)
    solution = solve_lp(lp, backend=backend, **options)
    psi = np.clip(solution.values("psi"), 0.0, None)
    psi = (psi / psi.sum()).reshape(form.shape)
    payoffs = [float(np.sum(psi * form.payoffs[i])) for i in range(form.num_players)]
    check = (cce_gap if concept == "cce" else ce_gap)(form, psi)
    w = objective_weights(objective, form.num_players)
    value = float(np.dot(w, payoffs))
    optimality = optimality_certificate(
        form.payoffs, w, multipliers_from_duals(
            form.shape, incentive_duals(lp, solution.duals, form.num_players),
            [sc.exponent for sc in lp.row_scalings], lp.objective_scaling.float_scale,
            concept == "cce"), concept == "cce", value)
    flat = psi.ravel()
    support = np.flatnonzero(flat > SUPPORT_TOLERANCE)
    support = support[np.argsort(-flat[support], kind="stable")]
    grids = np.unravel_index(support, form.shape)
    distribution = [{"profile": [form.labels[i][grids[i][k]] for i in range(form.num_players)],
                     "probability": float(flat[s])} for k, s in enumerate(support)]
    certificate = Certificate(gain=check.gap, exact=False, deviations=DEVIATIONS[concept],
                              extra=dict(optimality))
    return CorrelatedResult(
        game=form.name, concept=concept, objective=value,
        objective_spec=objective_name(objective), weights=w.tolist(), payoffs=payoffs,
        gap=check.gap, optimal=optimality["optimality_proven"], triangle_free=None,
        size=lp.size(), certificate=certificate,
        seconds={"build": built - start, "solve": solution.seconds,
                 "total": time.perf_counter() - start},
        backend=backend, distribution=distribution, realisable=True,
        gap_detail=check.to_dict(), raw=psi, model=form, lp=lp,
        solver=solver_report(solution),
        extra={"strategies_per_player": list(form.shape),
               **objective_report(lp, solution.objective, w, payoffs, form.payoffs, check.gap)})


def parse_objective(text: str):
    """The command-line form of an objective: ``welfare``, ``playerK`` or weights ``w1,w2,...``."""
    if "," not in text:
        return text
    try:
        return tuple(float(w) for w in text.split(","))
    except ValueError:
        raise OptionError(f"objective {text!r} is not welfare, playerK or comma-separated "
                          "weights") from None


OBJECTIVE_OPTION = Option("objective", object, "welfare",
                          "welfare (default), player1, player2, ... or weights w1,w2,...",
                          parse=parse_objective)
"""The objective option shared by the correlated concepts (Σ_i w_i u_i, :func:`objective_weights`)."""
