"""The trembling LPs of two-player zero-sum refinements, over the sequence form (Farina 2023, §13.2).

Notation (notes/farina-thesis.md §1.2–1.4, §1.13): F_i x = f_i is player i's treeplex (row 0:
x[∅] = 1), U = U_1 is player 1's sequence-form payoff matrix (rows σ_1, columns σ_2; a constant-sum
game has the same equilibria as (U_1, −U_1)), depth(σ) is the number of the player's own actions in
σ. Each builder returns a :class:`~lpgame.equilibria.refinements.limit.TremblingLP` whose ε⁰ part is the plain
sequence-form LP and whose higher powers are added as terms on the same named blocks.

**QPE** (Prop. 13.2, L5443; Miltersen–Sørensen lower bounds (13.2): ℓ_i(ε)[σ] = ε^depth(σ)), for
player 1, x = x̃ + ℓ_1(ε):

    max_{x̃, v, z}  f_2ᵀ v + ℓ_2(ε)ᵀ z
    s.t.  F_2ᵀ v + z − Uᵀ x̃ ≤ Uᵀ ℓ_1(ε)          [best_response]   (its duals: y ≥ ℓ_2(ε), F_2 y = f_2)
          F_1 x̃ = f_1 − F_1 ℓ_1(ε)                [treeplex]
          x̃, z ≥ 0.

ε is in b and c only. The duals of ``best_response`` are player 2's perturbed strategy y(ε): the
LP's dual is min over y ≥ ℓ_2(ε) of max over x ≥ ℓ_1(ε), the same perturbed saddle point (13.3).

**EFPE** (Prop. 13.1, L5387, in its inverse-free form): behavioural trembles x[ja] ≥ ε·x[p_j],
i.e. R_i(ε) x ≥ 0 with R = I − εQ, Q[ja, p_j] = 1 (L5019–5030):

    max_{x, v, w}  f_2ᵀ v
    s.t.  F_2ᵀ v + R_2(ε)ᵀ w − Uᵀ x = 0          [best_response]   (duals: y with R_2(ε) y ≥ 0)
          F_1 x = f_1                              [treeplex]
          R_1(ε) x ≥ 0  (rows ja ≠ ∅)              [tremble]
          x free (R_1 x ≥ 0 and x[∅] = 1 give x ≥ 0),  w ≥ 0.

This is the dual of the inner min_y {xᵀUy : F_2 y = f_2, R_2(ε) y ≥ 0} written into the maximin
problem (13.1); ε is in A, linearly.

**One-sided QPE** (Prop. 13.3, L5485, with erratum 7 of the notes: F_hᵀ v, not F_h v): only the
trembling player h has lower bounds ℓ_h; the machine m (the other player) maximises its payoff
U_m (rows σ_m; U_m = U_1 for m = player 1, −U_1ᵀ for m = player 2):

    max_{x_m, v}  (U_m ℓ_h(ε))ᵀ x_m + (f_h − F_h ℓ_h(ε))ᵀ v
    s.t.  F_hᵀ v − U_mᵀ x_m ≤ 0                   [best_response]   (duals: x̃_h = x_h − ℓ_h(ε))
          F_m x_m = f_m,  x_m ≥ 0                  [treeplex]

ε is in c only.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from lpgame.equilibria.refinements.limit import TremblingLP
from lpgame.lp.linear_program import LinearProgram
from lpgame.rational import RationalMatrix, distinct_map
from lpgame.sequence_form import SequenceForm

REFINEMENTS = ("qpe", "efpe", "os-qpe")


def sequence_depths(sf: SequenceForm, player: int) -> np.ndarray:
    """depth(σ): the number of the player's own actions in σ (∅ → 0)."""
    p = sf.players[player]
    depth = np.zeros(p.num_sequences, dtype=np.int64)
    depth[1:] = p.infoset_depth[p.seq_infoset[1:]] + 1
    return depth


def lower_bounds(sf: SequenceForm, player: int) -> dict[int, np.ndarray]:
    """ℓ(ε) = Σ_k ε^k e_k: {k: indicator of the sequences of depth k} (Miltersen–Sørensen (13.2))."""
    depth = sequence_depths(sf, player)
    return {int(k): (depth == k).astype(np.int64) for k in np.unique(depth)}


def _fractions(values) -> list[Fraction]:
    return [v if type(v) is Fraction else Fraction(v) for v in values]


def _perturbation_matrix(sf: SequenceForm, player: int) -> sp.csr_array:
    """Q with Q[ja, p_j] = 1 (square over the player's sequences; row ∅ empty): R(ε) = I − εQ."""
    p = sf.players[player]
    rows = np.arange(1, p.num_sequences)
    cols = p.infoset_parent_seq[p.seq_infoset[1:]]
    return sp.csr_array((np.ones(len(rows)), (rows, cols)), shape=(p.num_sequences,) * 2)


@dataclass
class RefinementLP:
    """A trembling LP and how to read the two players' perturbed strategies from its solution.

    ``read[i]`` is (kind, block, shift): player i's plan is the ``primal`` values or row ``duals``
    of ``block`` plus ``shift`` (ℓ_i(ε) as {power: vector}, or None).
    """

    refinement: str
    tlp: TremblingLP
    read: list[tuple[str, str, dict[int, np.ndarray] | None]]
    trembling: tuple[int, ...]          # players whose strategies are perturbed


#: Payoff matrices whose largest entry lies within 2^±LARGEST_UNSCALED_EXPONENT of 1 are used as
#: they are; others are scaled by a power of two (exact) into [1/2, 1) before HiGHS sees P(ξ).
LARGEST_UNSCALED_EXPONENT = 4


def _payoff(sf: SequenceForm) -> RationalMatrix:
    """U = U_1, scaled by a power of two 2^−k so that its largest entry lies in [1/2, 1) when it is
    far from 1 (payoffs of 10¹² or 10⁻¹²: HiGHS's absolute tolerances would otherwise decide P(ξ)).

    The limit strategies do not change: the refinements are defined by best responses, which a
    positive scaling of one player's payoffs (and, zero-sum, the other's) leaves as they are, and
    the duals that are player 2's strategy satisfy F_2 y = f_2 whatever the scale. The answer's
    value is not read off the LP: it is the independent evaluation of the limit profile on the
    game's own payoffs."""
    U = sf.payoff_matrix_exact(0)
    if not U.data:
        return U
    largest = max(abs(v) for v in U.data)
    exponent = largest.numerator.bit_length() - largest.denominator.bit_length()
    if abs(exponent) <= LARGEST_UNSCALED_EXPONENT:
        return U
    factor = Fraction(1, 2 ** exponent) if exponent > 0 else Fraction(2 ** -exponent)
    return RationalMatrix(U.shape, U.rows, U.cols, distinct_map(lambda v: v * factor, U.data))


def qpe_lp(sf: SequenceForm) -> RefinementLP:
    """The QPE trembling LP for player 1 (module docstring); player 2 from its duals."""
    U = _payoff(sf)
    Ut = U.T
    ell1, ell2 = lower_bounds(sf, 0), lower_bounds(sf, 1)
    F1, F2 = sf.treeplex_matrix(0), sf.treeplex_matrix(1)
    n1, n2 = sf.num_sequences(0), sf.num_sequences(1)
    lp = LinearProgram(name=f"QPE trembling LP of {sf.game.name}", description=(
        "  max f_2ᵀv + ℓ_2(ε)ᵀz  s.t.  F_2ᵀv + z − Uᵀx̃ ≤ Uᵀℓ_1(ε),  F_1x̃ = f_1 − F_1ℓ_1(ε),  "
        "x̃, z ≥ 0;  x = x̃ + ℓ_1(ε),  ℓ(ε)[σ] = ε^depth(σ) (Farina 2023, Prop. 13.2)"))
    x = lp.add_variables("x_tilde", n1, lower=0.0, labels=sf.sequence_labels(0))
    v = lp.add_variables("v", sf.num_infosets(1) + 1, lower=-np.inf,
                         labels=["∅"] + sf.infoset_labels(1))
    z = lp.add_variables("z", n2, lower=0.0, labels=sf.sequence_labels(1))

    def treeplex_rhs(k: int) -> list[Fraction]:
        rhs = -(F1 @ ell1[k].astype(float))
        if k == 0:
            rhs = rhs + sf.treeplex_rhs(0)
        return _fractions(rhs.tolist())

    lp.add_constraints("treeplex", [(x, F1)], "==", treeplex_rhs(0),
                       labels=["∅"] + sf.infoset_labels(0))
    lp.add_constraints("best_response",
                       [(v, RationalMatrix.from_scipy(F2.T)),
                        (z, RationalMatrix.from_scipy(sp.eye_array(n2))), (x, -Ut)], "<=",
                       Ut.matvec(_fractions(ell1[0].tolist())), labels=sf.sequence_labels(1))
    objective_v = np.zeros(v.size)
    objective_v[0] = 1.0
    lp.set_objective([(v, objective_v), (z, ell2[0].astype(float))], "max")
    tlp = TremblingLP(lp)
    for k in sorted(ell1):
        if k:
            tlp.perturb_rows("treeplex", k, rhs=treeplex_rhs(k))
            tlp.perturb_rows("best_response", k, rhs=Ut.matvec(_fractions(ell1[k].tolist())))
    for k in sorted(ell2):
        if k:
            tlp.perturb_objective(k, "z", ell2[k].tolist())
    return RefinementLP("qpe", tlp, [("primal", "x_tilde", ell1), ("duals", "best_response", None)],
                        (0, 1))


def efpe_lp(sf: SequenceForm) -> RefinementLP:
    """The EFPE trembling LP for player 1 in inverse-free form (module docstring)."""
    U = _payoff(sf)
    F1, F2 = sf.treeplex_matrix(0), sf.treeplex_matrix(1)
    n1, n2 = sf.num_sequences(0), sf.num_sequences(1)
    Q1, Q2 = _perturbation_matrix(sf, 0), _perturbation_matrix(sf, 1)
    lp = LinearProgram(name=f"EFPE trembling LP of {sf.game.name}", description=(
        "  max f_2ᵀv  s.t.  F_2ᵀv + R_2(ε)ᵀw − Uᵀx = 0,  F_1x = f_1,  R_1(ε)x ≥ 0,  w ≥ 0;  "
        "R(ε) = I − εQ, Q[ja, p_j] = 1 (Farina 2023, Prop. 13.1, inverse-free)"))
    x = lp.add_variables("x", n1, lower=-np.inf, labels=sf.sequence_labels(0))
    v = lp.add_variables("v", sf.num_infosets(1) + 1, lower=-np.inf,
                         labels=["∅"] + sf.infoset_labels(1))
    w = lp.add_variables("w", n2, lower=0.0, labels=sf.sequence_labels(1))
    lp.add_constraints("treeplex", [(x, F1)], "==", sf.treeplex_rhs(0),
                       labels=["∅"] + sf.infoset_labels(0))
    own = sp.eye_array(n1, format="csr")[1:]
    lp.add_constraints("tremble", [(x, own)], ">=", np.zeros(n1 - 1),
                       labels=sf.sequence_labels(0)[1:])
    lp.add_constraints("best_response", [(v, RationalMatrix.from_scipy(F2.T)),
                                         (w, RationalMatrix.from_scipy(sp.eye_array(n2))),
                                         (x, -U.T)], "==",
                       [Fraction(0)] * n2, labels=sf.sequence_labels(1))
    objective = np.zeros(v.size)
    objective[0] = 1.0
    lp.set_objective([(v, objective)], "max")
    tlp = TremblingLP(lp)
    tlp.perturb_rows("tremble", 1, [("x", -Q1[1:])])
    tlp.perturb_rows("best_response", 1, [("w", -(Q2.T).tocsr())])
    return RefinementLP("efpe", tlp, [("primal", "x", None), ("duals", "best_response", None)],
                        (0, 1))


def os_qpe_lp(sf: SequenceForm, trembling_player: int = 1) -> RefinementLP:
    """The one-sided QPE trembling LP; ``trembling_player`` h trembles, the other is the machine."""
    h = trembling_player
    m = 1 - h
    U1 = _payoff(sf)
    Um = U1 if m == 0 else -U1.T          # rows: the machine's sequences
    ell = lower_bounds(sf, h)
    Fm, Fh = sf.treeplex_matrix(m), sf.treeplex_matrix(h)
    lp = LinearProgram(name=f"one-sided QPE trembling LP of {sf.game.name} "
                            f"({sf.game.player_names[h]} trembles)", description=(
        "  max (U_mℓ_h(ε))ᵀx_m + (f_h − F_hℓ_h(ε))ᵀv  s.t.  F_hᵀv − U_mᵀx_m ≤ 0,  F_mx_m = f_m,  "
        "x_m ≥ 0 (Farina 2023, Prop. 13.3 with F_hᵀ)"))
    x = lp.add_variables("x", sf.num_sequences(m), lower=0.0, labels=sf.sequence_labels(m))
    v = lp.add_variables("v", sf.num_infosets(h) + 1, lower=-np.inf,
                         labels=["∅"] + sf.infoset_labels(h))
    lp.add_constraints("treeplex", [(x, Fm)], "==", sf.treeplex_rhs(m),
                       labels=["∅"] + sf.infoset_labels(m))
    lp.add_constraints("best_response", [(v, RationalMatrix.from_scipy(Fh.T)), (x, -Um.T)], "<=",
                       [Fraction(0)] * sf.num_sequences(h), labels=sf.sequence_labels(h))

    def v_coefficients(k: int) -> list[Fraction]:
        c = -(Fh @ ell[k].astype(float))
        if k == 0:
            c = c + sf.treeplex_rhs(h)
        return _fractions(c.tolist())

    lp.set_objective([(v, v_coefficients(0)), (x, Um.matvec(_fractions(ell[0].tolist())))], "max")
    tlp = TremblingLP(lp)
    for k in sorted(ell):
        if k:
            tlp.perturb_objective(k, "v", v_coefficients(k))
            tlp.perturb_objective(k, "x", Um.matvec(_fractions(ell[k].tolist())))
    read = [None, None]
    read[m] = ("primal", "x", None)
    read[h] = ("duals", "best_response", ell)
    return RefinementLP("os-qpe", tlp, read, (h,))


def refinement_lp(sf: SequenceForm, refinement: str, trembling_player: int = 1) -> RefinementLP:
    """The trembling LP of ``refinement`` (one of :data:`REFINEMENTS`)."""
    if refinement == "qpe":
        return qpe_lp(sf)
    if refinement == "efpe":
        return efpe_lp(sf)
    return os_qpe_lp(sf, trembling_player)
