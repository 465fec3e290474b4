"""Optimal EFCE of an n-player game: column generation over joint pure plans.

**Why this formulation.** The thesis's three-player rows of Table 10.1 (D32, K35, GL33, L3132,
L3133, L3223) use the correlation-plan representation of Zhang, Farina, Celli & Sandholm (EC 2022),
which the thesis cites (L4667) but does not write out; the notes (farina-thesis.md §1.8 "n
players") say so, and it cannot be reconstructed from the notes and seeds. So the thesis's LP
baseline for those rows is *not* reproduced here. Instead lpgame states the optimal EFCE exactly by
the definition: a distribution μ over joint reduced pure plans (Farina 2023, Def. 8.2, L3263;
notes §1.6), whose support is grown by column generation.

**Master LP** over the current columns (joint pure plans π^k = (π_1^k, …, π_n^k)), with the
trigger constraints of Lemma 9.2 dualised as in Prop. 9.1 (L3865–3881; notes §1.8): for each
player i and trigger σ̂ = (j, a) ∈ Σ_i*, v[i, σ̂, j'] (free, one per own information set j' ⪰ j) is
the value of the best continuation from j' of a deviator triggered at σ̂, and with
h_i^k[s] = Σ_{z: σ_i(z) = s} p_c(z) u_i(z) Π_{l≠i} π_l^k[σ_l(z)]:

    max   Σ_k μ_k c^k − [phase 1] Σ e[i,σ̂]        c^k = Σ_z p_c(z) (w·u(z)) Π_l π_l^k[σ_l(z)]
    s.t.  v[i,σ̂,j'] − Σ_{j'' ∈ C_{j'a'}} v[i,σ̂,j''] − Σ_k μ_k π_i^k[σ̂] h_i^k[j'a'] ≥ 0
                                                       for every j' ⪰ j and a' ∈ A_{j'}
          Σ_k μ_k Σ_{s ⪰ σ̂} π_i^k[s] h_i^k[s] − v[i,σ̂,j] + e[i,σ̂] ≥ 0
          Σ_k μ_k = 1,   μ ≥ 0,   e ≥ 0 (phase 1), e = 0 (phase 2).

Phase 1 maximises −Σ e (the total trigger violation; one slack per trigger converged about twice
as fast as a single largest-violation slack on GL33) until the columns hold an EFCE; phase 2
maximises the objective Σ_i w_i u_i with e = 0. With every joint pure plan as a column this is the
exact optimal-EFCE LP (for fixed μ, the v-rows are the dual of the deviator's best continuation on
𝒬_{i,⪰j}, so they hold iff no trigger deviation gains).

**The master as solved: trigger cuts.** The LP above is what is priced, but the master that
HiGHS solves does not carry the v-variables (on GL33 and L3223 the compact master has 19 000 and
37 000 rows, and solving it took 94 % of the run). It eliminates v: for a pure continuation q of
player i below j (a pure plan of i's subtree at j), the obedience row of σ̂ plus q·(the
deviation rows of σ̂) is the cut

    Σ_k μ_k π_i^k[σ̂] (O_i^k[σ̂] − Σ_s q[s] h_i^k[s]) + e[i,σ̂] ≥ 0,    O_i^k[σ̂] = Σ_{s⪰σ̂} π_i^k[s] h_i^k[s],

and the v-rows hold iff every such cut holds. After each master solve the cuts are separated
against μ: for every trigger recommended by some column, and with a choice (an information set
of two or more actions) at or below j, the deviator's best continuation is found bottom-up (all
triggers at once, as in the independent check) and its cut is added when it gains more than
``CUT_TOLERANCE``·``column_tolerance``·R over the slack. A cut's dual d maps to the compact LP's
duals as y_obey[σ̂] += d, y_dev[σ̂, s] += d·q[s]; since q is a treeplex plan, these satisfy every
v-column's dual constraint exactly, so everything below (pricing, Lagrangian bounds) works in the
compact LP's dual space whatever cuts the master holds. Nothing is concluded (phase switch,
optimality, target) from a master to which the round added cuts, but its duals are priced.

**Pricing.** With the master's row duals y, the reduced cost of a joint pure plan π is

    rc(π) = −y_conv + Σ_z Π_l π_l[σ_l(z)] p_c(z) [ w·u(z) − Σ_i u_i(z) Σ_{t ⪯ σ_i(z)} y_obey[i,t] ]
            + Σ_i Σ_{(σ̂, s) rows} y_dev[i,σ̂,s] π_i[σ̂] Σ_{z: σ_i(z) = s} p_c(z) u_i(z) Π_{l≠i} π_l[σ_l(z)],

a sum of monomials, each a product of one sequence per player. Two oracles:
(1) alternation: with the others' plans fixed rc is linear in π_i, so each player in turn plays a
best pure plan (bottom-up on its own tree), from several starts (the master's support); (2) when
alternation finds no improving column, an exact MILP on HiGHS (``scipy.optimize.milp``): binary
sequence-form plans x_l (F_l x_l = f_l) and one variable w_m ∈ [0, 1] per monomial of two or more
non-empty sequences, with w_m ≤ x_l[σ_l] for positive coefficients and
w_m ≥ Σ_l x_l[σ_l] − (d − 1) for negative ones (the standard product linearisation, as in the
TMECor oracle of Farina et al. 2018/2021).

**Bounds and stopping.** The master's right-hand sides are 0 except the convexity row, so any
duals y that are feasible for the v-columns (y ≤ 0 on the ≥ rows) give the Lagrangian bound
max_π (c(π) − Σ_{r≠conv} y_r a_r(π)) on the full optimum; the MILP gives it exactly, or an upper
bound on it (its dual bound) when it stops at its limit. In phase 2 a bounding round (the MILP at
duals smoothed towards the best-bound duals, Wentges, factors 0.5 then 0) runs when alternation
finds no column, and also every ``BOUND_SPACING`` times its own duration while alternation still
finds columns. It prices at duals halfway between the master's simplex duals and the master's
optimal duals of smallest Σ|y| (a small LP over the cut duals): on one GL33 master (max P2,
1 723 columns) that took the bound's distance to the master from 1.07 to 0.41 (R = 4.5). The
run stops, certified optimal, when the smallest bound − z_RMP ≤ ``column_tolerance``·R
(R = payoff range). At the time or column limit it returns the best phase-2 μ (or the phase-1 μ,
labelled as not an EFCE) with its objective, the smallest upper bound seen and their
difference. The bounds are the Lagrangian ones, the tuple relaxation's (below), and the trivial
max_z w·u(z) over the leaves chance reaches (the objective is an expectation of w·u(z)), which
the run starts from: the MILP's dual bound can be far above it (197.8 against 14 at zero duals
on L3132 max P1, R = 21).

**Elastic master (target gap).** With ``target_gap`` = t (a fraction of R; default None: the
exact two-phase run above, to ``column_tolerance``), the two phases are replaced by one elastic
(penalty) master over the same columns and cuts:

    max   Σ_k μ_k c^k − M Σ_{i,σ̂} e[i,σ̂]
    s.t.  the trigger cuts above (each with its trigger's slack e[i,σ̂] ≥ 0),  Σ_k μ_k = 1,  μ ≥ 0,

priced with the objective included (as in phase 2). Its μ is in general an ε-EFCE, not an EFCE.
*Bound.* The elastic master's row duals y are ≤ 0 on the cuts (≥ rows of a maximisation) and map
to the compact LP exactly as above, so they satisfy every v-column's dual constraint; the slack
columns e add only Σ_{cuts of σ̂} y_c ≥ −M, a constraint of the elastic problem that the exact
problem (e = 0) does not have. Hence for the EXACT optimal-EFCE LP, with L(μ, v; y) =
Σ_k μ_k c^k − Σ_r y_r g_r(μ, v) (g_r ≥ 0 the compact rows), every EFCE has L ≥ its objective, and
sup over μ ∈ Δ, v free is y_conv + max_π rc_y(π): the same Lagrangian bound on the exact optimum
as in phase 2, whatever M (and for convex combinations of such y, so the Wentges smoothing and
the smallest-|y| duals, which here also keep the e-columns' constraints, stay valid). The one
difference: the bound is *not* maxed with the master's value z, because z = Σ μ c − M Σ e over
the restricted columns is no lower bound on the exact optimum (μ may violate the triggers).
*Stopping.* The run stops, status ``target_gap``, at the first master whose μ has independently
measured EFCE gap ε ≤ t·R (below) and objective within t·R of the smallest bound U, on either
side: |U − objective(μ)| ≤ t·R, since an objective above U ≥ optimum is as far off as one below
(the two-player learner's ``Checkpoint.score`` rule in :mod:`lpgame.equilibria.correlated.efce_learning`).
This is the criterion of the thesis's Table 10.1, "1 % of the payoff range for both optimality
and feasibility" (Farina 2023 §10.4). The answer is labelled an ε-EFCE (``extra``: ``mode``
elastic, ``exact_efce`` False, ``epsilon`` = ``gap``, the measured one), not an exact EFCE.
*Penalty.* M starts at ``penalty`` (default 10, in objective units per unit of trigger violation;
both are payoff units, so M is unit-free, as the learner's λ₀ = 10). lpgame's rule, where the
thesis is silent (its learner's λ plays the same role, Prop. 10.1: exact above a finite critical
value): M is doubled (i) when μ's objective is within t·R of U but its measured gap is above t·R
and the round added no cut (the master's slacks then are μ's true violations, so only a larger M
removes them; not again before a column has been added, since the columns may hold no μ of
smaller violation), and (ii) when no column improves the elastic master (the MILP proves it
optimal over all joint plans for this M) and μ still misses the target; never past
``MAX_PENALTY``. Doubling changes only the slacks' costs; the columns, cuts and every bound found
so far stay valid.
*Rounds.* Pricing is phase 2's (alternation, then the MILP at Wentges-smoothed duals halfway to
the smallest-|y| optimal duals of the elastic master). Bounding rounds run when alternation finds
no column, and, while it still finds columns, first at ``ELASTIC_FIRST_BOUND`` of the time (early
duals give slow MILPs and useless bounds: on L3132 the first one took 35 s for a bound of 1 183
against an objective of 4.1, R = 21) and then every ``BOUND_SPACING`` times the last round's
duration, with the MILP limited to ``PERIODIC_MILP_SHARE`` of the time so far (its dual bound is
still valid). Since every dual point bounds, a periodic round does not wait for a master to which
no cut was added. At a time or column limit the run returns, of the last master's μ and the
measured μ with the smallest max(ε, |U − objective|), the one with the smaller such score,
labelled as partial. Column dropping (``ELASTIC_DROP_AFTER``: μ = 0 and a clearly negative reduced
cost for that many masters; each column at most once, so it cannot cycle) is implemented but off
by default: it did not pay (constant's docstring).

**Balanced mix and the lower bound** (since 2026-11-27;
:mod:`lpgame.equilibria.correlated.efce_balanced_mix`). The elastic master prices the *sum* of the trigger
violations, the criterion bounds their *largest*, so the master's μ is rarely the mix of its
columns that best meets the criterion. After each bounding round (and at the time limit, in half
of the reserved time) the run solves the balanced LP: μ over the columns minimising s subject to
every trigger slack ≤ s·R and U − s·R ≤ objective ≤ U, with the master's cut separation; a μ
that, measured independently, has ε ≤ t·R and U − objective ≤ t·R ends the run (status
``target_gap``), as the master's own μ does. That rule bounds the objective from below only
(objective ≥ U − t·R ≥ OPT − t·R): an ε-EFCE's objective can lie *above* OPT, and violation buys
much objective on these games. So every answer of a target-gap run also reports ``lower_bound``
L, the objective of the best exact EFCE over the final columns (the restricted exact master,
f(0) of :func:`~lpgame.equilibria.correlated.efce_balanced_mix.best_within_violation`; L ≤ OPT),
``two_sided_gap`` = max(U − objective, objective − L) ≥ |objective − OPT|, and ``two_sided``
(that and ε within the target). With ``two_sided=True`` the rule is two-sided: each balancing
step first solves f(0) (kept as ``_Bounds.lower``; its exact EFCE is a candidate too), the
balanced LP adds objective ≤ L + s·R, and a μ stops the run only when max(ε, |U − objective|,
objective − L) ≤ t·R. ``BALANCE = False`` turns the balanced mix off.

**Tuple-relaxation bound** (since 2026-11-25). Before the first master, the run solves the LP of
:mod:`lpgame.equilibria.correlated.efce_tuple_relaxation`: Prop. 9.1 over the relevant sequence *tuples*
with the n-player von Stengel–Forges rows, a relaxation of the optimal-EFCE LP (Ξ_n ⊆ 𝒱_n), so
its optimum U_tuple bounds the optimum. It starts the run's smallest upper bound (both modes);
every Lagrangian bound is still computed and kept when smaller, and the Wentges centre is the
duals of the best *Lagrangian* bound, as before. ``tuple_bound=False`` turns it off; it is skipped
(the reason in ``extra["tuple_relaxation"]``) above ``max_tuples`` tuples or when its LP does not
finish in ``tuple_seconds`` (by default ``TUPLE_BOUND_SHARE`` of the time limit,
``TUPLE_BOUND_SECONDS`` without one). On K35,
D32 and GL33 it is 0.01–0.43 % of R above the best EFCE values the runs find, where the
Lagrangian bounds ended 0.2–18 % above (90 s), so the elastic run meets 1 % on all nine of their
cases, and the exact run certifies an exact EFCE within 1 % of the bound on all nine (D32 max P2
to optimality) (docs/efce_three_player.md, "Tuple relaxation"). On L3132 its LP takes about
270 s, so the Leduc rows need a time limit of about 20 minutes; with 1 500 s the elastic run
meets 1 % on max P1 (353 s) and, with the balanced mix below, on max P2 (992 s); max P3 met it in
one of two runs (875 s; the other ended 1.95 % of R from the bound). L3133's LP takes 490–670 s;
with ``tuple_seconds=900`` all three of its objectives meet 1 % (638–1 414 s). L3223's
(796 575 tuples) did not finish in 2 000 s.

**Relaxation-guided pricing** (since 2026-11-25). The relaxation's LP duals on its trigger rows
(:class:`~lpgame.equilibria.correlated.efce_tuple_relaxation.TriggerDuals`) live in the same dual space as
the compact LP above: its deviation and obedience rows are the compact rows with ξ in place of
Σ_k μ_k ξ(π^k), and a joint plan's tuple indicator ξ(π) satisfies every 𝒱_n row. So, with ȳ
those duals (rebuilt top-down into exact treeplex flows, :meth:`Model.flow_feasible`, since a
solver's duals meet the v-columns' constraints only to its tolerance), max_π c(π) − Σ ȳ·g(π) is a
Lagrangian bound on the optimal EFCE value, at most U_tuple (the maximum over 𝒱_n ⊇ Ξ_n). lpgame
uses ȳ three ways (``GUIDED``; the thesis does not price this way, it has no column generation):
(1) before the first master, alternation from the first column and the MILP at ȳ (at most
``SEED_MILP_SECONDS``) add the joint plans best at ȳ, and the MILP's dual bound is offered as a
Lagrangian bound; (2) ȳ is the first Wentges centre (``_Bounds.center``, with U_tuple as its
bound), so bounding rounds smooth towards it until a Lagrangian bound beats U_tuple; (3) each
alternation round first runs at the master's duals moved ``GUIDE_SMOOTHING`` of the way to the
centre, keeping a plan only when it improves at the master's own duals (so the master still
grows only by improving columns and every guarantee above stands). Measured (90 s, target
0.1 %, 2 shared cores; docs/efce_three_player.md, "Pricing at the relaxation's duals"): D32 max
P1 is solved in 34 s (objective = U to 10⁻¹⁴, ε = 4·10⁻¹⁴·R; without guidance it had stayed at
0.29688, 0.43 % of R below, even in 600 s), GL33 max P1 and P3 reach 0.1 % in 13 s and 12 s (not
within 90 s before), but GL33 max P2 ends at 0.107 % (0.1 % at 31 s before).

**Independent check.** The returned μ's EFCE gap is computed by
:mod:`lpgame.analysis.n_player_correlated_gaps` from the support alone (exactly with
``exact=True``), never from the LP.

For two-player games the default entry of ``efce`` stays the correlation-plan LP
(:mod:`lpgame.equilibria.correlated.efce`); this entry is chosen there with ``method="column_generation"``.
It is the default for games with three or more players.
"""

from __future__ import annotations

import numbers
import sys
import time
from dataclasses import dataclass

import highspy
import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, milp

from lpgame.analysis.n_player_correlated_gaps import n_player_efce_gap
from lpgame.compile import compile_game
from lpgame.equilibria.correlated.ce_cce import (
    OBJECTIVE_OPTION,
    SUPPORT_TOLERANCE,
    CorrelatedResult,
    objective_name,
    objective_weights,
    plan_label,
)
from lpgame.equilibria.correlated.efce_balanced_mix import balanced_mix, best_within_violation
from lpgame.equilibria.correlated.efce_tuple_relaxation import DEFAULT_MAX_TUPLES, tuple_relaxation_bound
from lpgame.errors import (
    LpgameError,
    ModelTooLargeError,
    OptionError,
    SolverError,
    SolverTimeLimitError,
)
from lpgame.lp.highs_backend import quiet_highs
from lpgame.registry import Concept, Option, register
from lpgame.result import Certificate, register_result_kind
from lpgame.sequence_form import SequenceForm

DEFAULT_COLUMN_TOLERANCE = 1e-7
"""Reduced costs at or below this fraction of the payoff range count as non-improving."""
DEFAULT_MAX_COLUMNS = 20_000
DEFAULT_PENALTY = 10.0
"""The elastic master's first penalty M per unit of trigger violation (objective units; both are
in payoff units, so M is unit-free, as the two-player learner's λ₀ = 10 is)."""
TUPLE_BOUND_SHARE = 0.25
"""With a time limit, the tuple relaxation's LP gets at most this share of it (then the run goes
on without that bound), unless ``tuple_seconds`` says otherwise."""
TUPLE_BOUND_SECONDS = 120.0
"""Without a time limit, the tuple relaxation's LP gets at most this many seconds, unless
``tuple_seconds`` says otherwise."""
MAX_PENALTY = 1e8
"""The elastic master's penalty is not doubled past this (the LP's numerics)."""
ELASTIC_DROP_AFTER = 0
"""Elastic run: a column with μ = 0 and reduced cost below −``DROP_REDUCED_COST``·R at this many
masters in a row is removed from the master (0: never, the default). Tried with 20: GL33 max P1's
master LP time halved (30 → 15 s of 82 s) with the same bound at the end, but K35 max P1 reached
1 % in 20.2 s instead of 2.3 s (the later duals missed the first bounding round), and D32's bound
was no better; so it is off (docs/efce_three_player.md, branch i23-elastic)."""
DROP_EVERY = 10
DROP_REDUCED_COST = 1e-3
ELASTIC_FIRST_BOUND = 0.2
"""Elastic run with a time limit: while alternation finds columns, the first bounding round waits
until this fraction of the column generation's time (later ones: ``BOUND_SPACING``)."""
ELASTIC_FIRST_BOUND_SECONDS = 20.0
"""The same without a time limit, in seconds."""
PERIODIC_MILP_SHARE = 0.25
PERIODIC_MILP_SECONDS = 2.0
"""A bounding round run while alternation still finds columns gives its MILP at most
max(``PERIODIC_MILP_SECONDS``, ``PERIODIC_MILP_SHARE`` × the run's time so far); its dual bound
is a valid bound when it stops at that limit."""
COLUMNS_PER_ROUND = 16
CUT_TOLERANCE = 0.1
"""A trigger cut is added when its deviation gains more than this fraction of the column
tolerance (times R) over the trigger's slack."""
STATUSES = ("optimal", "target_gap", "time_limit", "column_limit")
BOUND_RESERVE = 0.15
SMOOTHING = (0.5, 0.0)
"""Wentges smoothing factors tried in turn by the phase-2 MILP pricing (0: the current duals)."""
BOUND_SPACING = 2.0
"""In phase 2, while alternation finds columns, the bounding MILP runs again only after this many
times its last duration (so at most about a third of the time goes to bounds)."""
BALANCE = True
"""Whether the target-gap run also tries the balanced mix of its columns after each bounding
round and at its time limit (:mod:`lpgame.equilibria.correlated.efce_balanced_mix`)."""
GUIDED = True
"""Price with the tuple relaxation's duals (module docstring, "Relaxation-guided pricing")."""
GUIDE_SMOOTHING = 0.5
"""Alternation first prices at the master's duals moved this far towards the Wentges centre."""
SEED_MILP_SECONDS = 20.0
"""The MILP at the relaxation's duals before the first master gets at most this many seconds
(and a tenth of the time left)."""
MAX_CLOSURE = 3_000_000
"""Largest closure (tuples of sequences) of the tight pricing MILP; above it, the product form."""
"""With a time limit, this fraction of it is kept for a last MILP that bounds the optimum."""


# ---------------------------------------------------------------------------------------- trees
@dataclass
class OwnTree:
    """One player's tree: information-set levels, the information sets below each one, and the
    trigger rows of the master LP (one per (trigger σ̂, sequence s below σ̂'s information set))."""

    player: int
    num_sequences: int
    parent: np.ndarray            # infoset -> parent sequence
    seq_infoset: np.ndarray       # sequence -> infoset (-1 for ∅)
    levels: list
    # rows: (trigger, sequence) pairs; v: (trigger, infoset) pairs
    row_trigger: np.ndarray
    row_seq: np.ndarray
    v_trigger: np.ndarray
    v_infoset: np.ndarray

    @classmethod
    def build(cls, sf: SequenceForm, player: int) -> OwnTree:
        p = sf.players[player]
        m = p.num_infosets
        parent = np.asarray(p.infoset_parent_seq, dtype=np.int64)
        seq_infoset = np.asarray(p.seq_infoset, dtype=np.int64)
        # ancestors-or-self of each infoset (own tree)
        anc_j, desc_j = [], []
        for j in range(m):
            k = j
            while k >= 0:
                anc_j.append(k)
                desc_j.append(j)
                s = int(parent[k])
                k = int(seq_infoset[s]) if s > 0 else -1
        anc_j = np.asarray(anc_j, dtype=np.int64)
        desc_j = np.asarray(desc_j, dtype=np.int64)
        order = np.lexsort((desc_j, anc_j))
        anc_j, desc_j = anc_j[order], desc_j[order]             # grouped by the top infoset
        starts = np.searchsorted(anc_j, np.arange(m + 1))
        counts = np.asarray(p.infoset_num_actions, dtype=np.int64)
        first = np.asarray(p.infoset_first_seq, dtype=np.int64)
        v_trig, v_inf, r_trig, r_seq = [], [], [], []
        for t in range(1, p.num_sequences):
            j = int(seq_infoset[t])
            below = desc_j[starts[j]:starts[j + 1]]
            v_trig.append(np.full(below.size, t))
            v_inf.append(below)
            n_rows = counts[below]
            r_trig.append(np.full(int(n_rows.sum()), t))
            r_seq.append(np.repeat(first[below], n_rows) + _ranges(n_rows))
        return cls(player, p.num_sequences, parent, seq_infoset, sf.infoset_levels(player),
                   _cat(r_trig), _cat(r_seq), _cat(v_trig), _cat(v_inf))

    @property
    def num_triggers(self) -> int:
        return self.num_sequences - 1


def highs_matrix(lp: highspy.HighsLp) -> sp.csc_array:
    """The constraint matrix of a HiGHS LP as a scipy array. HiGHS may hold it row-wise (it
    can switch after rows are added: L3133's master came back with 44 row starts for 1 372
    columns), so the format is read, not assumed."""
    m = lp.a_matrix_
    parts = (np.asarray(m.value_), np.asarray(m.index_), np.asarray(m.start_))
    if m.format_ == highspy.MatrixFormat.kRowwise:
        return sp.csr_array(parts, shape=(lp.num_row_, lp.num_col_)).tocsc()
    return sp.csc_array(parts, shape=(lp.num_row_, lp.num_col_))


def _cat(parts: list) -> np.ndarray:
    return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)


def _ranges(counts: np.ndarray) -> np.ndarray:
    """[0..c0-1, 0..c1-1, ...]."""
    if counts.size == 0:
        return np.zeros(0, np.int64)
    ends = np.cumsum(counts)
    return np.arange(ends[-1]) - np.repeat(ends - counts, counts)


def best_pure_plan(tree: OwnTree, coef: np.ndarray) -> tuple[np.ndarray, float]:
    """argmax over the player's reduced pure plans of Σ_s coef[s] π[s] (bottom-up, the first best
    action at ties), and its value."""
    q = np.array(coef, dtype=float)
    choice = np.zeros(tree.parent.size, dtype=np.int64)
    for js, seqs, starts in tree.levels:
        vals = q[seqs]
        best = np.maximum.reduceat(vals, starts)
        counts = np.diff(np.append(starts, vals.size))
        rep = np.repeat(best, counts)
        hit = vals >= rep - 1e-12 * (1 + np.abs(rep))
        pos = np.flatnonzero(hit)
        seg = np.searchsorted(starts, pos, side="right") - 1
        firsts = pos[np.unique(seg, return_index=True)[1]]
        choice[js] = seqs[firsts]
        np.add.at(q, tree.parent[js], best)
    plan = np.zeros(tree.num_sequences, dtype=np.int8)
    plan[0] = 1
    for js, _seqs, _starts in reversed(tree.levels):
        reached = js[plan[tree.parent[js]] == 1]
        plan[choice[reached]] = 1
    return plan, float(q[0])


# ---------------------------------------------------------------------------------------- model
def _column_key(plans) -> bytes:
    """A joint pure plan's identity: its players' int8 plans, joined (the master's column set)."""
    return b"|".join(np.asarray(p, np.int8).tobytes() for p in plans)


class _MasterTimeLimitError(Exception):
    """The restricted master LP reached the run's time limit."""


class _Grow:
    """A K × width array that grows by rows (capacity doubling)."""

    def __init__(self, width: int, dtype):
        self.data = np.zeros((16, width), dtype=dtype)
        self.size = 0

    def append(self, row: np.ndarray) -> None:
        if self.size == self.data.shape[0]:
            self.data = np.concatenate([self.data, np.zeros_like(self.data)])
        self.data[self.size] = row
        self.size += 1

    @property
    def view(self) -> np.ndarray:
        return self.data[:self.size]


class Model:
    """The master LP (highspy; joint-plan columns and trigger cuts added in place), the column
    data, and the dual space of the compact (v-form) LP in which pricing works.

    The master holds the trigger constraints as cuts (module docstring): for player i, trigger
    t = σ̂ and a pure continuation q below j (t's information set),
    Σ_k μ_k π_i^k[t] (O_i^k[t] − Σ_s q[s] h_i^k[s]) + e[i,t] ≥ 0, with
    O_i^k[t] = Σ_{s ⪰ t} π_i^k[s] h_i^k[s]. Row 0 is the convexity row. A cut is the obedience
    row of trigger t plus q·(the deviation rows of t) of the compact LP, the v-variables
    cancelling; so a cut's dual d maps to compact duals y_obey[t] += d, y_dev[t, s] += d q[s],
    which satisfy the v-columns' dual constraints exactly (q is a treeplex plan)."""

    def __init__(self, sf: SequenceForm, weights: np.ndarray):
        self.sf = sf
        self.n = sf.num_players
        self.weights = weights
        self.trees = [OwnTree.build(sf, i) for i in range(self.n)]
        seqs = sf.terminal_sequences
        self.leaf_seqs = seqs
        self.leaf_w = sf.terminal_chance[:, None] * sf.terminal_payoffs     # p_c u_i
        self.leaf_obj = self.leaf_w @ weights
        # compact (v-form) dual space: deviation rows of each player, obedience rows, convexity
        self.dev_offset, self.obey_offset, self.e_offset, self.dev_key = [], [], [], []
        nr = ne = 0
        for tr in self.trees:
            self.dev_offset.append(nr)
            nr += tr.row_trigger.size
            key = tr.row_trigger * tr.num_sequences + tr.row_seq
            self.dev_key.append((np.sort(key), np.argsort(key)))
        for tr in self.trees:
            self.obey_offset.append(nr)
            self.e_offset.append(ne)
            nr += tr.num_triggers
            ne += tr.num_triggers
        self.conv_row = nr
        self.num_rows = nr + 1
        self.num_e = ne                                          # one slack per trigger
        self.mu_offset = ne
        self.columns: list[list[np.ndarray]] = []
        self.keys: set[bytes] = set()
        self.dropped_keys: set[bytes] = set()           # columns dropped once (elastic runs)
        self.costs: list[float] = []
        # per player: π^k (K × Σ_i), h^k, O^k
        self.pi = [_Grow(tr.num_sequences, np.int8) for tr in self.trees]
        self.h = [_Grow(tr.num_sequences, float) for tr in self.trees]
        self.obey = [_Grow(tr.num_sequences, float) for tr in self.trees]
        # cuts: global order = master rows 1, 2, ...
        self.num_cuts = 0
        self.cut_keys: set[bytes] = set()
        self.cut_rows = [np.zeros(0, np.int64) for _ in self.trees]     # master rows per player
        self.cut_trigger = [np.zeros(0, np.int64) for _ in self.trees]
        self.cut_q: list[sp.csr_array] = [sp.csr_array((0, tr.num_sequences))
                                          for tr in self.trees]
        self.cut_dev_rows: list[np.ndarray] = [np.zeros(0, np.int64) for _ in self.trees]
        self.e = np.zeros(ne)
        self._highs = self._build_master()

    # -------------------------------------------------------------- master
    def _build_master(self) -> highspy.Highs:
        h = quiet_highs()
        inf = highspy.kHighsInf
        lp = highspy.HighsLp()
        lp.num_col_ = self.num_e
        lp.num_row_ = 1
        lp.col_cost_ = -np.ones(self.num_e)
        lp.col_lower_ = np.zeros(self.num_e)
        lp.col_upper_ = np.full(self.num_e, inf)
        lp.row_lower_ = np.ones(1)
        lp.row_upper_ = np.ones(1)
        lp.sense_ = highspy.ObjSense.kMaximize
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = np.zeros(self.num_e + 1, dtype=np.int32)
        lp.a_matrix_.index_ = np.zeros(0, dtype=np.int32)
        lp.a_matrix_.value_ = np.zeros(0)
        h.passModel(lp)
        return h

    def column(self, plans: list[np.ndarray]) -> tuple[float, list, list]:
        """The objective coefficient of a joint pure plan and, per player, h^k and O^k."""
        seqs = self.leaf_seqs
        reach = np.ones(seqs.shape[0], dtype=bool)
        for ell in range(self.n):
            reach &= plans[ell][seqs[:, ell]].astype(bool)
        cost = float(self.leaf_obj[reach].sum())
        hs, obeys = [], []
        for i, tr in enumerate(self.trees):
            others = np.ones(seqs.shape[0], dtype=bool)
            for ell in range(self.n):
                if ell != i:
                    others &= plans[ell][seqs[:, ell]].astype(bool)
            h = np.bincount(seqs[others, i], weights=self.leaf_w[others, i],
                            minlength=tr.num_sequences)
            obey = plans[i] * h
            for js, s_lv, starts in tr.levels:
                np.add.at(obey, tr.parent[js], np.add.reduceat(obey[s_lv], starts))
            hs.append(h)
            obeys.append(obey)
        return cost, hs, obeys

    def add(self, plans: list[np.ndarray], phase: int) -> bool:
        key = _column_key(plans)
        if key in self.keys:
            return False
        self.keys.add(key)
        plans = [np.asarray(p, np.int8) for p in plans]
        cost, hs, obeys = self.column(plans)
        rows, vals = [np.zeros(1, np.int64)], [np.ones(1)]
        for i in range(self.n):
            self.pi[i].append(plans[i])
            self.h[i].append(hs[i])
            self.obey[i].append(obeys[i])
            t = self.cut_trigger[i]
            if t.size:
                a = plans[i][t] * (obeys[i][t] - self.cut_q[i] @ hs[i])
                nz = np.flatnonzero(a)
                rows.append(self.cut_rows[i][nz])
                vals.append(a[nz])
        self.columns.append(plans)
        self.costs.append(cost)
        rows, vals = np.concatenate(rows).astype(np.int32), np.concatenate(vals)
        self._highs.addCol(cost if phase == 2 else 0.0, 0.0, highspy.kHighsInf, rows.size, rows,
                           vals)
        return True

    def start_phase_two(self) -> None:
        h = self._highs
        e = np.arange(self.num_e, dtype=np.int32)
        h.changeColsCost(e.size, e, np.zeros(e.size))
        h.changeColsBounds(e.size, e, np.zeros(e.size), np.zeros(e.size))
        self.e = np.zeros(self.num_e)
        k = len(self.columns)
        if k:
            idx = self.mu_offset + np.arange(k, dtype=np.int32)
            h.changeColsCost(k, idx, np.asarray(self.costs, dtype=float))

    def start_elastic(self, penalty: float) -> None:
        """The elastic master of a target_gap run: every μ column at its objective coefficient
        c^k and every trigger slack e ≥ 0 at cost −``penalty`` (module docstring)."""
        h = self._highs
        self.set_penalty(penalty)
        k = len(self.columns)
        if k:
            idx = self.mu_offset + np.arange(k, dtype=np.int32)
            h.changeColsCost(k, idx, np.asarray(self.costs, dtype=float))

    def set_penalty(self, penalty: float) -> None:
        """Cost −``penalty`` on every trigger slack e (elastic master)."""
        e = np.arange(self.num_e, dtype=np.int32)
        self._highs.changeColsCost(e.size, e, np.full(e.size, -float(penalty)))

    def droppable(self) -> np.ndarray:
        """Mask over the columns: never dropped before."""
        return np.array([_column_key(c) not in self.dropped_keys for c in self.columns],
                        dtype=bool)

    def drop_columns(self, drop: np.ndarray) -> np.ndarray:
        """Remove the μ columns where ``drop`` (a mask over the columns) from the master and the
        column data; their keys are forgotten, so pricing may bring them back, but remembered as
        dropped: a column is dropped at most once (``droppable``), so dropping cannot cycle. The
        mask of the columns kept."""
        idx = (self.mu_offset + np.flatnonzero(drop)).astype(np.int32)
        self._highs.deleteCols(idx.size, idx)
        keep = ~drop
        for i in range(self.n):
            for grow in (self.pi[i], self.h[i], self.obey[i]):
                kept = grow.view[keep]
                grow.data[:kept.shape[0]] = kept
                grow.size = kept.shape[0]
        for k in np.flatnonzero(drop):
            key = _column_key(self.columns[k])
            self.keys.discard(key)
            self.dropped_keys.add(key)
        self.columns = [c for c, k in zip(self.columns, keep) if k]
        self.costs = [c for c, k in zip(self.costs, keep) if k]
        return keep

    def _levels(self, i: int) -> list:
        """Player i's levels (deepest first) with each level's information sets grouped by
        parent sequence: (js, seqs, starts, order, parents, group starts)."""
        if not hasattr(self, "_level_cache"):
            self._level_cache = {}
        if i not in self._level_cache:
            tr = self.trees[i]
            out = []
            for js, seqs, starts in tr.levels:
                order = np.argsort(tr.parent[js], kind="stable")
                par = tr.parent[js][order]
                first = np.flatnonzero(np.r_[True, par[1:] != par[:-1]])
                counts = np.diff(np.append(starts, seqs.size))
                width = int(counts[0]) if np.all(counts == counts[0]) else 0
                out.append((js, seqs, starts, order, par[first], first, width))
            self._level_cache[i] = out
        return self._level_cache[i]

    def _deviable(self, i: int) -> np.ndarray:
        """Per trigger t (index t − 1): whether some information set at or below t's has two or
        more actions. Otherwise every continuation is the recommendation and t never gains."""
        if not hasattr(self, "_deviable_cache"):
            self._deviable_cache = {}
        if i not in self._deviable_cache:
            tr = self.trees[i]
            p = self.sf.players[i]
            choice = np.asarray(p.infoset_num_actions) >= 2
            for js, _seqs, _starts in tr.levels:                  # deepest first
                par = tr.parent[js]
                up = par > 0
                np.logical_or.at(choice, tr.seq_infoset[par[up]], choice[js[up]])
            self._deviable_cache[i] = choice[tr.seq_infoset[1:]]
        return self._deviable_cache[i]

    def _best_continuations(self, i: int, g: np.ndarray, choose: bool):
        """Bottom-up on player i's tree for every column of g (rows: sequences, columns:
        triggers; g is overwritten): the value V[j, col] of every information set and, with
        ``choose``, the first best action's sequence at every information set."""
        tr = self.trees[i]
        values = np.zeros((tr.parent.size, g.shape[1]))
        choice = np.zeros((tr.parent.size, g.shape[1]), dtype=np.int64) if choose else None
        for js, seqs, starts, order, parents, gstarts, width in self._levels(i):
            vals = g[seqs]
            if width == 1:
                best = vals
            elif width:
                best = vals.reshape(js.size, width, -1).max(axis=1)
            else:
                best = np.maximum.reduceat(vals, starts, axis=0)
            values[js] = best
            if choose:
                counts = np.diff(np.append(starts, seqs.size))
                rep = np.repeat(best, counts, axis=0)
                pos = np.where(vals >= rep - 1e-12 * (1 + np.abs(rep)),
                               np.arange(seqs.size)[:, None], seqs.size)
                choice[js] = seqs[np.minimum.reduceat(pos, starts, axis=0)]
            g[parents] += np.add.reduceat(best[order], gstarts, axis=0)
        return values, choice

    def separate(self, mu: np.ndarray, tol: float) -> int:
        """Add, for every trigger whose best deviation against μ gains more than its slack + tol,
        the cut of that best continuation (when not already in the master). The number added."""
        added = 0
        ks = np.flatnonzero(mu > 0)
        for i, tr in enumerate(self.trees):
            if tr.num_triggers == 0:
                continue
            nseq = tr.num_sequences
            weighted = self.pi[i].view[ks] * mu[ks, None]           # μ_k π^k[t]
            active = np.flatnonzero((weighted[:, 1:].sum(axis=0) > 0) & self._deviable(i)) + 1
            if active.size == 0:
                continue
            hk = self.h[i].view[ks]
            obey = (weighted[:, active] * self.obey[i].view[ks][:, active]).sum(axis=0)
            values, _ = self._best_continuations(i, hk.T @ weighted[:, active], False)
            gain = values[tr.seq_infoset[active], np.arange(active.size)] - obey
            slack = self.e[self.e_offset[i] + active - 1]
            viol = active[gain - slack > tol]
            if viol.size == 0:
                continue
            _, choice = self._best_continuations(i, hk.T @ weighted[:, viol], True)
            # the best continuations below each violated trigger's information set, top-down
            q = np.zeros((viol.size, nseq), dtype=np.int8)
            top = tr.seq_infoset[viol]
            for js, _seqs, _starts in reversed(tr.levels):          # shallowest first
                reached = (js[None, :] == top[:, None]) | (q[:, tr.parent[js]] == 1)
                r, c = np.nonzero(reached)
                q[r, choice[js[c], r]] = 1
            new = []
            for r in range(viol.size):                              # dedup (one per trigger)
                key = np.int64(i).tobytes() + np.int64(viol[r]).tobytes() + q[r].tobytes()
                if key not in self.cut_keys:
                    self.cut_keys.add(key)
                    new.append(r)
            if not new:
                continue
            new = np.asarray(new)
            trig, qn = viol[new], sp.csr_array(q[new].astype(float))
            all_pi = self.pi[i].view
            coef = all_pi[:, trig] * (self.obey[i].view[:, trig] - self.h[i].view @ qn.T)
            coef = sp.csr_array(np.asarray(coef).T)                 # cuts × K
            e_col = self.e_offset[i] + trig - 1
            mat = sp.hstack([sp.csr_array((np.ones(trig.size), (np.arange(trig.size), e_col)),
                                          shape=(trig.size, self.num_e)), coef], format="csr")
            inf = highspy.kHighsInf
            self._highs.addRows(trig.size, np.zeros(trig.size), np.full(trig.size, inf),
                                mat.nnz, mat.indptr.astype(np.int32),
                                mat.indices.astype(np.int32), mat.data.astype(float))
            rows = 1 + self.num_cuts + np.arange(trig.size)
            self.num_cuts += trig.size
            self.cut_rows[i] = np.concatenate([self.cut_rows[i], rows])
            self.cut_trigger[i] = np.concatenate([self.cut_trigger[i], trig])
            self.cut_q[i] = sp.vstack([self.cut_q[i], qn], format="csr")
            # each cut nonzero's compact deviation row (for the dual map)
            qc = qn.tocoo()
            sorted_key, order = self.dev_key[i]
            dev = order[np.searchsorted(sorted_key, trig[qc.row] * nseq + qc.col)]
            self.cut_dev_rows[i] = np.concatenate([self.cut_dev_rows[i],
                                                   self.dev_offset[i] + dev])
            added += trig.size
        return added

    def compact_duals(self, row_dual: np.ndarray) -> np.ndarray:
        """The master's row duals mapped to the compact LP's rows (class docstring); a cut's
        dual of the wrong sign (rounding) is taken as 0, which keeps the map dual feasible."""
        y = np.zeros(self.num_rows)
        y[self.conv_row] = row_dual[0]
        for i, tr in enumerate(self.trees):
            if self.cut_rows[i].size == 0:
                continue
            d = np.minimum(row_dual[self.cut_rows[i]], 0.0)
            y[self.obey_offset[i]:self.obey_offset[i] + tr.num_triggers] = np.bincount(
                self.cut_trigger[i] - 1, weights=d, minlength=tr.num_triggers)
            per_nz = np.repeat(d, np.diff(self.cut_q[i].indptr))
            y += np.bincount(self.cut_dev_rows[i], weights=per_nz, minlength=self.num_rows)
        return y

    def relaxation_duals(self, found) -> np.ndarray:
        """The tuple relaxation's trigger duals (``found.trigger_duals``,
        :class:`~lpgame.equilibria.correlated.efce_tuple_relaxation.TriggerDuals`) as a point of the compact
        LP's dual space (module docstring, "Relaxation-guided pricing"): the same rows, made
        exactly dual feasible by :meth:`flow_feasible`, with y_conv = the relaxation's bound U."""
        y = np.zeros(self.num_rows)
        for i, (tr, d) in enumerate(zip(self.trees, found.trigger_duals)):
            sorted_key, order = self.dev_key[i]
            pos = np.searchsorted(sorted_key, d.keys)
            if (d.keys.size != sorted_key.size or d.obedience.size != tr.num_triggers
                    or np.any(sorted_key[np.minimum(pos, sorted_key.size - 1)] != d.keys)):
                raise LpgameError(f"{self.sf.game.name}: the tuple relaxation's trigger rows of "
                                  f"player {i + 1} do not match the master's")
            y[self.dev_offset[i] + order[pos]] = d.deviation
            y[self.obey_offset[i]:self.obey_offset[i] + tr.num_triggers] = d.obedience
        y = self.flow_feasible(y)
        y[self.conv_row] = found.upper_bound
        return y

    def flow_feasible(self, y: np.ndarray) -> np.ndarray:
        """``y`` with every trigger dual ≤ 0 and each trigger σ̂'s deviation duals rebuilt top-down
        as y_obey[σ̂] times a sequence-form plan of the subtree at σ̂'s decision node (each
        information set keeps the ratios of its actions' duals, uniform where none is negative).
        Such a y satisfies every v-column's dual constraint exactly (Σ_{a'} y_dev[σ̂, j'a'] equals
        the dual of j''s parent row, or y_obey[σ̂] at σ̂'s own decision node), so its Lagrangian
        bound is valid; a solver's duals satisfy them only to its tolerance."""
        y = y.copy()
        for i, tr in enumerate(self.trees):
            if tr.row_trigger.size == 0:
                continue
            obey_rows = slice(self.obey_offset[i], self.obey_offset[i] + tr.num_triggers)
            dev_rows = slice(self.dev_offset[i], self.dev_offset[i] + tr.row_trigger.size)
            obey = np.minimum(y[obey_rows], 0.0)
            dev = np.minimum(y[dev_rows], 0.0)
            node = tr.seq_infoset[tr.row_seq]
            depth = np.asarray(self.sf.players[i].infoset_depth)[node]
            top = node == tr.seq_infoset[tr.row_trigger]
            sorted_key, order = self.dev_key[i]
            for d in np.unique(depth):                       # shallow first: parents are done
                rows = np.flatnonzero(depth == d)
                t, j = tr.row_trigger[rows], node[rows]
                first = np.flatnonzero(np.r_[True, (t[1:] != t[:-1]) | (j[1:] != j[:-1])])
                size = np.diff(np.append(first, rows.size))
                head = rows[first]
                parent = np.where(top[head], obey[np.maximum(tr.row_trigger[head] - 1, 0)], 0.0)
                below = ~top[head]
                if below.any():
                    pkey = tr.row_trigger[head[below]] * tr.num_sequences + tr.parent[j[first[below]]]
                    parent[below] = dev[order[np.searchsorted(sorted_key, pkey)]]
                mass = -dev[rows]
                total = np.add.reduceat(mass, first)
                share = np.where(np.repeat(total, size) > 0,
                                 mass / np.repeat(np.where(total > 0, total, 1.0), size),
                                 1.0 / np.repeat(size, size))
                dev[rows] = np.repeat(parent, size) * share
            y[obey_rows], y[dev_rows] = obey, dev
        return y

    def small_duals(self, z: float, time_limit: float | None,
                    penalty: float | None = None) -> np.ndarray | None:
        """Among the optimal duals of the current phase-2 master (objective z), ones of smallest
        total size Σ_c |y_c| (an LP over the cut duals), mapped to the compact LP; None when
        that LP fails. Every such y is dual feasible, so it gives a valid Lagrangian bound.
        With ``penalty`` (the elastic master) the slack columns' dual constraints
        Σ_{cuts of σ̂} y_c ≥ −penalty are kept too, so y is an optimal dual of that master."""
        lp = self._highs.getLp()
        a = highs_matrix(lp)
        first = 0 if penalty is not None else self.mu_offset
        at = sp.csc_array(a[:, first:].T)                   # columns × rows: y·a_k ≥ c_k
        costs = np.asarray(self.costs, dtype=float)
        if penalty is not None:
            costs = np.r_[np.full(self.num_e, -float(penalty)), costs]
        nr = a.shape[0]
        inf = highspy.kHighsInf
        d = highspy.HighsLp()
        d.num_col_, d.num_row_ = nr, at.shape[0]
        d.col_cost_ = np.r_[0.0, -np.ones(nr - 1)]
        d.col_lower_ = np.full(nr, -inf)
        d.col_upper_ = np.r_[z + 1e-9 * max(1.0, abs(z)), np.zeros(nr - 1)]
        d.row_lower_ = costs
        d.row_upper_ = np.full(at.shape[0], inf)
        d.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        d.a_matrix_.start_ = at.indptr.astype(np.int32)
        d.a_matrix_.index_ = at.indices.astype(np.int32)
        d.a_matrix_.value_ = at.data.astype(float)
        h = quiet_highs()
        if time_limit is not None:
            h.setOptionValue("time_limit", max(float(time_limit), 0.1))
        h.passModel(d)
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None
        return self.compact_duals(np.asarray(h.getSolution().col_value))

    def solve_master(self, time_limit: float | None) -> tuple[float, np.ndarray, np.ndarray, float]:
        """(objective, μ, row duals mapped to the compact LP, largest slack e)."""
        h = self._highs
        # HiGHS measures its time limit on the instance's clock, which runs across solves
        h.setOptionValue("time_limit", h.getRunTime() + float(time_limit) if time_limit
                         else highspy.kHighsInf)
        h.run()
        status = h.getModelStatus()
        if status == highspy.HighsModelStatus.kTimeLimit:
            raise _MasterTimeLimitError()
        if status != highspy.HighsModelStatus.kOptimal:
            raise SolverError(f"{self.sf.game.name}: the restricted master LP ended with status "
                              f"{h.modelStatusToString(status)}", status=str(status))
        sol = h.getSolution()
        x = np.asarray(sol.col_value)
        self.column_duals = np.asarray(sol.col_dual)[self.mu_offset:]    # reduced costs of μ
        mu = np.clip(x[self.mu_offset:], 0.0, None)
        self.e = np.clip(x[:self.num_e], 0.0, None)
        return (float(h.getInfo().objective_function_value), mu,
                self.compact_duals(np.asarray(sol.row_dual)), float(self.e.max(initial=0.0)))

    # -------------------------------------------------------------- pricing
    def monomials(self, duals: np.ndarray, phase: int) -> tuple[np.ndarray, np.ndarray, float]:
        """The reduced cost as (tuples of sequences (M × n), coefficients, constant)."""
        seqs = self.leaf_seqs
        leaf_coef = self.leaf_obj.copy() if phase == 2 else np.zeros(seqs.shape[0])
        tuples, coefs = [seqs], []
        for i, tr in enumerate(self.trees):
            y_obey = np.zeros(tr.num_sequences)
            y_obey[1:] = duals[self.obey_offset[i]:self.obey_offset[i] + tr.num_triggers]
            cum = y_obey.copy()                                    # Σ over own ancestors-or-self
            for js, s_lv, starts in reversed(tr.levels):           # shallow first
                cum[s_lv] += np.repeat(cum[tr.parent[js]], np.diff(np.append(starts, s_lv.size)))
            leaf_coef -= self.leaf_w[:, i] * cum[seqs[:, i]]
        coefs.append(leaf_coef)
        for i, tr in enumerate(self.trees):
            y = duals[self.dev_offset[i]:self.dev_offset[i] + tr.row_trigger.size]
            nz = np.flatnonzero(np.abs(y) > 1e-13)
            if nz.size == 0:
                continue
            leaf_order = np.argsort(seqs[:, i], kind="stable")
            own_sorted = seqs[leaf_order, i]
            lo = np.searchsorted(own_sorted, tr.row_seq[nz], side="left")
            hi = np.searchsorted(own_sorted, tr.row_seq[nz], side="right")
            cnt = hi - lo
            leaves = leaf_order[np.repeat(lo, cnt) + _ranges(cnt)]
            tup = seqs[leaves].copy()
            tup[:, i] = np.repeat(tr.row_trigger[nz], cnt)
            tuples.append(tup)
            coefs.append(np.repeat(y[nz], cnt) * self.leaf_w[leaves, i])
        allt = np.concatenate(tuples)
        allc = np.concatenate(coefs)
        keep = allc != 0
        uniq, inv = np.unique(allt[keep], axis=0, return_inverse=True)
        c = np.bincount(inv.ravel(), weights=allc[keep], minlength=uniq.shape[0])
        keep = np.abs(c) > 1e-15
        return uniq[keep], c[keep], -float(duals[self.conv_row])

    def evaluate(self, tuples, coefs, const, plans) -> float:
        prod = np.ones(tuples.shape[0], dtype=bool)
        for ell in range(self.n):
            prod &= plans[ell][tuples[:, ell]].astype(bool)
        return const + float(coefs[prod].sum())

    def alternate(self, tuples, coefs, const, plans, max_sweeps: int = 30):
        plans = [np.array(p, np.int8) for p in plans]
        value = self.evaluate(tuples, coefs, const, plans)
        for _ in range(max_sweeps):
            improved = False
            for i, tr in enumerate(self.trees):
                others = np.ones(tuples.shape[0], dtype=bool)
                for ell in range(self.n):
                    if ell != i:
                        others &= plans[ell][tuples[:, ell]].astype(bool)
                lin = np.bincount(tuples[others, i], weights=coefs[others],
                                  minlength=tr.num_sequences)
                plan, v = best_pure_plan(tr, lin)
                v += const
                if v > value + 1e-12 * (1 + abs(value)) and not np.array_equal(plan, plans[i]):
                    plans[i], value, improved = plan, v, True
            if not improved:
                break
        return plans, value

    def _path_sequences(self) -> list[list[np.ndarray]]:
        """Per player and own sequence s: ∅ and every action of every information set on the
        path to s (s's own information set included)."""
        if getattr(self, "_paths", None) is None:
            out = []
            for tr in self.trees:
                p = self.sf.players[tr.player]
                first = np.asarray(p.infoset_first_seq)
                counts = np.asarray(p.infoset_num_actions)
                lists = [np.zeros(1, np.int64)]
                for seq in range(1, tr.num_sequences):
                    j = int(tr.seq_infoset[seq])
                    par = int(tr.parent[j])
                    lists.append(np.concatenate([lists[par], first[j] + np.arange(counts[j])]))
                out.append(lists)
            self._paths = out
        return self._paths

    def milp_oracle(self, tuples, coefs, const, time_limit: float | None):
        """max rc by MILP: the tight formulation when its closure is small enough, otherwise the
        product linearisation (module docstring). (plans, value, upper bound, proved)."""
        tight = self._tight_model(tuples, coefs)
        if tight is not None:
            return self._tight_oracle(tight, tuples, coefs, const, time_limit)
        return self._product_oracle(tuples, coefs, const, time_limit)

    def _tight_model(self, tuples, coefs):
        """Variables w[τ] for every tuple τ of sequences in the closure of the leaves' and the
        monomials' tuples under "replace a coordinate by ∅ or by any action of an information
        set on its path", with w[∅,…,∅] = 1 and, for every τ and player l with τ_l = (j, a),
        Σ_{a'} w[τ with τ_l = (j, a')] = w[τ with τ_l = p_j] (valid for products of pure plans;
        with τ's other coordinates ∅ these are the treeplex constraints of the plans, whose
        entries are the binaries). None when the closure exceeds MAX_CLOSURE."""
        paths = self._path_sequences()
        base = np.unique(np.concatenate([self.leaf_seqs, tuples]), axis=0)
        lens = np.ones(base.shape[0])
        for ell in range(self.n):
            lens *= np.array([paths[ell][s].size for s in range(len(paths[ell]))])[base[:, ell]]
        if lens.sum() > MAX_CLOSURE:
            return None
        cur = base
        for ell in range(self.n):
            sizes = np.array([paths[ell][s].size for s in range(len(paths[ell]))])[cur[:, ell]]
            rep = np.repeat(cur, sizes, axis=0)
            rep[:, ell] = np.concatenate([paths[ell][s] for s in cur[:, ell].tolist()])
            cur = np.unique(rep, axis=0)
        sizes = [tr.num_sequences for tr in self.trees]
        mult = np.ones(self.n, np.int64)
        for ell in range(self.n - 2, -1, -1):
            mult[ell] = mult[ell + 1] * sizes[ell + 1]
        keys = cur @ mult                                   # sorted, as cur is sorted
        return cur, keys, mult

    def _tight_oracle(self, tight, tuples, coefs, const, time_limit):
        cur, keys, mult = tight
        nw = cur.shape[0]
        rows, cols, vals = [], [], []
        r = 0
        for ell, tr in enumerate(self.trees):
            nz = np.flatnonzero(cur[:, ell] != 0)
            j = tr.seq_infoset[cur[nz, ell]]
            parent_keys = keys[nz] - (cur[nz, ell] - tr.parent[j]) * mult[ell]
            group_key = parent_keys * (tr.parent.size + 1) + j
            groups, gid = np.unique(group_key, return_inverse=True)
            gid = gid.ravel()
            rows.append(r + gid)
            cols.append(nz)
            vals.append(np.ones(nz.size))
            first_member = np.unique(gid, return_index=True)[1]
            parent_pos = np.searchsorted(keys, parent_keys[first_member])
            rows.append(r + np.arange(groups.size))
            cols.append(parent_pos)
            vals.append(-np.ones(groups.size))
            r += groups.size
        a_eq = sp.csr_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                            shape=(r, nw))
        obj = np.zeros(nw)
        np.add.at(obj, np.searchsorted(keys, tuples @ mult), coefs)
        lower = np.zeros(nw)
        lower[0] = 1.0                                      # w[∅, …, ∅] = 1 (the smallest key)
        nonempty = (cur != 0).sum(axis=1)
        integrality = (nonempty == 1).astype(float)
        options = {"disp": False, "mip_rel_gap": 1e-9}
        if time_limit is not None:
            options["time_limit"] = max(float(time_limit), 1.0)
        res = milp(-obj, integrality=integrality, bounds=Bounds(lower, 1.0),
                   constraints=[LinearConstraint(a_eq, 0.0, 0.0)], options=options)
        if res.x is None:
            return None, -np.inf, np.inf, False
        w = np.round(res.x)
        plans = []
        for ell, tr in enumerate(self.trees):
            x = np.zeros(tr.num_sequences, np.int8)
            single = np.flatnonzero((nonempty <= 1) & ((cur != 0).sum(axis=1) == (cur[:, ell] != 0)))
            x[cur[single, ell]] = w[single].astype(np.int8)
            x[0] = 1
            plans.append(x)
        return self._oracle_answer(res, plans, tuples, coefs, const, const)

    def _oracle_answer(self, res, plans, tuples, coefs, const, bound_const):
        value = self.evaluate(tuples, coefs, const, plans)
        bound = getattr(res, "mip_dual_bound", None)
        upper = np.inf if bound is None or not np.isfinite(bound) else bound_const - float(bound)
        proved = res.status == 0
        if proved:
            upper = max(value, min(upper, value + 1e-9 * (1 + abs(value))))
        return plans, value, max(upper, value), proved

    def _product_oracle(self, tuples, coefs, const, time_limit: float | None):
        """max rc by the product linearisation of the module docstring."""
        sf = self.sf
        sizes = [sf.num_sequences(i) for i in range(self.n)]
        off = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        nx_ = int(off[-1])
        glob = np.stack([off[ell] + tuples[:, ell] for ell in range(self.n)], axis=1)
        nonempty = tuples != 0
        degree = nonempty.sum(axis=1)
        lin = np.zeros(nx_)
        const2 = const + float(coefs[degree == 0].sum())
        one = np.flatnonzero(degree == 1)
        if one.size:
            which = np.argmax(nonempty[one], axis=1)
            np.add.at(lin, glob[one, which], coefs[one])
        multi = np.flatnonzero(degree >= 2)
        nw = multi.size
        c = np.concatenate([-lin, -coefs[multi]])
        a_eq = sp.hstack([sp.block_diag([sf.treeplex_matrix(i) for i in range(self.n)]),
                          sp.csr_array((sum(sf.num_infosets(i) + 1 for i in range(self.n)), nw))],
                         format="csr")
        b_eq = np.concatenate([sf.treeplex_rhs(i) for i in range(self.n)])
        rows, cols, vals, rhs = [], [], [], []
        r = 0
        pos = multi[coefs[multi] > 0]
        wpos = np.flatnonzero(coefs[multi] > 0)
        for ell in range(self.n):          # w ≤ x_l[σ_l] for non-empty σ_l
            sel = nonempty[pos, ell]
            k = int(sel.sum())
            rr = r + np.arange(k)
            rows += [rr, rr]
            cols += [nx_ + wpos[sel], glob[pos[sel], ell]]
            vals += [np.ones(k), -np.ones(k)]
            rhs.append(np.zeros(k))
            r += k
        neg = multi[coefs[multi] < 0]
        wneg = np.flatnonzero(coefs[multi] < 0)
        if neg.size:                       # Σ x − w ≤ d − 1
            rr = r + np.arange(neg.size)
            rows.append(rr)
            cols.append(nx_ + wneg)
            vals.append(-np.ones(neg.size))
            for ell in range(self.n):
                sel = nonempty[neg, ell]
                rows.append(rr[sel])
                cols.append(glob[neg[sel], ell])
                vals.append(np.ones(int(sel.sum())))
            rhs.append(degree[neg] - 1.0)
            r += neg.size
        a_ub = sp.csr_array((np.concatenate(vals) if vals else np.zeros(0),
                             (np.concatenate(rows) if rows else np.zeros(0, int),
                              np.concatenate(cols) if cols else np.zeros(0, int))),
                            shape=(r, nx_ + nw))
        constraints = [LinearConstraint(a_eq, b_eq, b_eq)]
        if r:
            constraints.append(LinearConstraint(a_ub, -np.inf, np.concatenate(rhs)))
        options = {"disp": False, "mip_rel_gap": 1e-9}
        if time_limit is not None:
            options["time_limit"] = max(float(time_limit), 1.0)
        res = milp(c, integrality=np.concatenate([np.ones(nx_), np.zeros(nw)]),
                   bounds=Bounds(0.0, 1.0), constraints=constraints, options=options)
        if res.x is None:
            return None, -np.inf, np.inf, False
        x = np.round(res.x[:nx_]).astype(np.int8)
        plans = [x[off[ell]:off[ell + 1]] for ell in range(self.n)]
        return self._oracle_answer(res, plans, tuples, coefs, const, const2)


# ---------------------------------------------------------------------------------------- result
@register_result_kind
@dataclass(kw_only=True)
class ColumnGenerationCorrelatedResult(CorrelatedResult):
    """An optimal EFCE of an n-player game by column generation: a :class:`CorrelatedResult` with
    ``distribution`` over joint pure plans, and in ``extra``: ``status`` (optimal, time_limit,
    column_limit), ``upper_bound`` (the smallest upper bound: Lagrangian or the tuple
    relaxation's, None before any), ``bound_gap`` (upper bound − objective), ``tuple_relaxation``
    (its bound, tuples and seconds, or why it was skipped), ``columns``, ``cuts`` (trigger cuts in
    the master), ``iterations`` and the per-phase history."""

    kind = "correlated_column_generation"

    @property
    def bound(self) -> str:
        status = self.extra.get("status", "?")
        if status == "optimal":
            return "optimal (column generation certified by the MILP oracle)"
        if status == "target_gap" and self.extra.get("mode") == "elastic":
            lower = self.extra.get("lower_bound")
            sides = ("objective within target of the optimum on both sides"
                     if self.extra.get("two_sided") else
                     "the objective's distance above the optimum is not certified"
                     if lower is not None else "no exact EFCE among the columns, so the "
                     "objective's distance above the optimum is not certified")
            return (f"ε-EFCE (not an exact EFCE) within target_gap {self.extra.get('target_gap')} "
                    f"of the payoff range: measured EFCE gap ε = {self.gap:.3g}, objective "
                    f"{self.objective:.6g}, upper bound {self.extra.get('upper_bound')}, "
                    f"bound gap {self.extra.get('bound_gap')}, lower bound (best exact EFCE) "
                    f"{lower}; {sides}")
        if status == "target_gap":
            return (f"within target_gap {self.extra.get('target_gap')} of the payoff range: "
                    f"objective {self.objective:.6g}, upper bound {self.extra.get('upper_bound')}, "
                    f"bound gap {self.extra.get('bound_gap')}, EFCE gap {self.gap:.3g}")
        gap = self.extra.get("bound_gap")
        where = ("no EFCE found yet: " if self.extra.get("phase") == 1 else
                 "ε-EFCE of the elastic master, ε = its measured gap: "
                 if self.extra.get("mode") == "elastic" else "")
        return (f"partial, {where}{status}: objective {self.objective:.6g}, upper bound "
                f"{self.extra.get('upper_bound')}, bound gap {gap}")


# ---------------------------------------------------------------------------------------- elastic
@dataclass
class _Bounds:
    """The run's upper bounds (module docstring, "Bounds and stopping"): ``upper``, the smallest
    of all (the best leaf's, the tuple relaxation's, every Lagrangian one); ``lagrangian``, the
    smallest Lagrangian bound, and ``center``, its duals (the Wentges centre). ``lower``: the
    target-gap run's lower bound on the optimum, the best exact EFCE over its columns
    (:func:`~lpgame.equilibria.correlated.efce_balanced_mix.best_within_violation` at 0), None before any."""

    upper: float | None
    lagrangian: float | None = None
    center: np.ndarray | None = None
    milp_seconds: float = 0.0
    lower: float | None = None

    def offer(self, bound: float | None, duals: np.ndarray) -> None:
        """Keep a Lagrangian ``bound`` found at ``duals`` when it is the smallest so far."""
        if bound is None or (self.lagrangian is not None and bound >= self.lagrangian):
            return
        self.lagrangian, self.center = bound, duals.copy()
        self.upper = bound if self.upper is None else min(self.upper, bound)


def _bounding_round(model: Model, bounds: _Bounds, z: float, duals: np.ndarray, monomials: tuple,
                    milp_limit: float | None, small_limit: float | None, *, penalty: float | None,
                    floor: float | None, tol: float, added: bool, reference: float,
                    within: float, history: list, entry: dict, start: float,
                    verbose: bool) -> tuple[bool, bool]:
    """One bounding round of phase 2 or of the elastic run (module docstring, "Bounds and
    stopping"): price at duals halfway to the master's smallest-|y| optimal duals
    (:meth:`Model.small_duals`, with the elastic ``penalty``), then run the MILP at those duals
    smoothed towards ``bounds.center`` by each factor of ``SMOOTHING`` in turn (Wentges). Every
    MILP's dual bound, minus the constant, is a Lagrangian bound, maxed with ``floor`` (phase 2's
    master value; None in the elastic run, whose master value bounds nothing) and offered to
    ``bounds``. A column is added only when it improves at the halfway duals (not smoothed).
    The round stops at an added column (or at once when ``added``: alternation already added
    one), when the smallest bound is within ``within`` of ``reference`` (the run's stopping
    rule), or at a MILP that did not finish. Each MILP is logged in ``history`` as ``entry`` and
    its outcome (seconds since ``start``). Returns (a column was added, the last MILP
    finished)."""
    small = model.small_duals(z, small_limit, penalty)
    if small is not None:                          # halfway to the smallest optimal duals
        duals = 0.5 * small + 0.5 * duals
        monomials = model.monomials(duals, 2)
    tuples, coefs, const = monomials
    proved = False
    for alpha in SMOOTHING if bounds.center is not None else (0.0,):
        y = duals if alpha == 0.0 else alpha * bounds.center + (1.0 - alpha) * duals
        t_y, c_y, k_y = monomials if alpha == 0.0 else model.monomials(y, 2)
        t_m = time.perf_counter()
        plans, value, upper, proved = model.milp_oracle(t_y, c_y, k_y, milp_limit)
        bounds.milp_seconds += time.perf_counter() - t_m
        bound = None
        if np.isfinite(upper):
            bound = upper - k_y if floor is None else max(floor, upper - k_y)
        bounds.offer(bound, y)
        true_rc = model.evaluate(tuples, coefs, const, plans) if plans is not None else -np.inf
        history.append({**entry, "smoothing": alpha, "oracle_value": true_rc,
                        "oracle_upper": upper, "bound": bound, "proved": proved,
                        "seconds": time.perf_counter() - start})
        if verbose:
            print(f"[efce cg] bounding at alpha {alpha}: bound {bound} "
                  f"({time.perf_counter() - t_m:.2f}s)", file=sys.stderr, flush=True)
        if true_rc > tol and model.add(plans, 2) or added:
            return True, proved
        if bounds.upper is not None and abs(bounds.upper - reference) <= within or not proved:
            break
    return False, proved


def _target_score(objective: float, gap: float, bounds: _Bounds, two_sided: bool) -> float:
    """How far a μ is from the target-gap criterion, in payoff units: max(ε, |U − objective|)
    and, with ``two_sided``, objective − L (infinite while there is no L)."""
    score = max(gap, abs(bounds.upper - objective))
    if two_sided:
        score = max(score, np.inf if bounds.lower is None else objective - bounds.lower)
    return score


def _lower_bound(model: Model, bounds: _Bounds, measure, tol: float,
                 limit: float | None) -> tuple[float, float, np.ndarray] | None:
    """The best exact EFCE over the columns (the violation frontier at 0), offered to
    ``bounds.lower`` when separation closed: (objective, measured gap, μ), or None."""
    found = best_within_violation(model, 0.0, CUT_TOLERANCE * tol, limit)
    if found is None or not found[2]:
        return None
    objective, gap = measure(found[0])
    bounds.lower = objective if bounds.lower is None else max(bounds.lower, objective)
    return objective, gap, found[0]


def _elastic_run(model: Model, start: float, main_limit: float | None, tol: float, target: float,
                 penalty: float, max_columns: int, verbose: bool, measure, scale: float,
                 drop_after: int, bounds: _Bounds, two_sided: bool = False) -> dict:
    """The target_gap run (module docstring, "Elastic master"): one master with the slacks e at
    cost −M, the penalty M doubled by lpgame's rule, stopped at the first μ that is an ε-EFCE
    with ε ≤ target and whose objective is within target of the smallest upper bound (Lagrangian,
    or the one ``bounds`` starts from: the tuple relaxation's or the best leaf's, whichever is
    smaller); ``bounds`` is updated in place."""
    history: list[dict] = []
    iterations = 0
    # no bounding round while alternation finds columns before this (early duals give slow
    # MILPs and useless bounds: 35 s and a bound of 1 183 against an objective of 4.1 on L3132)
    next_bound_at = start + (ELASTIC_FIRST_BOUND * main_limit if main_limit is not None
                             else ELASTIC_FIRST_BOUND_SECONDS)
    status, last, best, e = None, None, None, 0.0
    penalties = [penalty]
    dropped = [0]
    parts = {"master": 0.0, "separation": 0.0, "check": 0.0, "alternation": 0.0, "bounding": 0.0,
             "balance": 0.0}
    priced_since_doubling = True
    model.start_elastic(penalty)

    def left() -> float | None:
        return None if main_limit is None else main_limit - (time.perf_counter() - start)

    def model_objective(mu_: np.ndarray) -> float:
        return float(np.dot(mu_, model.costs[:mu_.size]) / mu_.sum())

    def check(mu_: np.ndarray, z_: float) -> tuple[bool, float | None]:
        """(stop?, measured gap or None): μ is measured (independently) only when its objective is
        within target of the smallest bound; it stops the run when its gap is within target too
        (Checkpoint.score of the two-player learner: max(gap, |U − objective|) ≤ target)."""
        nonlocal best
        if bounds.upper is None or abs(bounds.upper - model_objective(mu_)) > target:
            return False, None
        obj_, gap_ = measure(mu_)
        score = _target_score(obj_, gap_, bounds, two_sided)
        history.append({"iteration": iterations, "event": "check", "master": z_,
                        "objective": obj_, "measured_gap": gap_, "upper_bound": bounds.upper,
                        "lower_bound": bounds.lower, "penalty": penalty,
                        "columns": len(model.columns),
                        "seconds": time.perf_counter() - start})
        if best is None or score <= best[0]:
            best = (score, mu_.copy())
        return score <= target, gap_

    def balance(limit: float | None) -> bool:
        """The balanced mix over the current columns (:mod:`lpgame.equilibria.correlated.efce_balanced_mix`):
        μ minimising max(ε, |U − objective|) against the cuts, measured independently and kept as
        ``best`` when it scores better; True when it meets the target."""
        nonlocal best
        if (not (BALANCE or two_sided) or bounds.upper is None
                or best is not None and best[0] <= target):
            return False
        t_part = time.perf_counter()
        entry = {"iteration": iterations, "event": "balance", "upper_bound": bounds.upper,
                 "columns": len(model.columns)}
        met = False
        # the lower bound L only where the rule needs it (its LP, separated, cost a default
        # L3132 max P2 run its 1 % within 1 500 s); default runs compute it once, at the end
        exact = _lower_bound(model, bounds, measure, tol, limit) if two_sided else None
        if exact is not None:                  # the best exact EFCE may meet the target itself
            score = _target_score(exact[0], exact[1], bounds, two_sided)
            if best is None or score <= best[0]:
                best = (score, exact[2])
            met = score <= target
            entry.update({"exact_objective": exact[0], "exact_gap": exact[1]})
            if met:
                entry.update({"answer": "exact", "objective": exact[0], "measured_gap": exact[1]})
        remaining = None if limit is None else limit - (time.perf_counter() - t_part)
        found = (None if met or not BALANCE or two_sided and bounds.lower is None
                 or remaining is not None and remaining <= 0
                 else balanced_mix(model, bounds.upper, scale, CUT_TOLERANCE * tol, remaining,
                                   bounds.lower if two_sided else None))
        entry["lower_bound"] = bounds.lower
        if found is not None:
            obj_, gap_ = measure(found.mu)
            score = _target_score(obj_, gap_, bounds, two_sided)
            entry.update({"answer": "balanced", "lp_score": found.score * scale,
                          "closed": found.closed, "rounds": found.rounds,
                          "cuts_added": found.cuts_added, "objective": obj_,
                          "measured_gap": gap_})
            if best is None or score <= best[0]:
                best = (score, found.mu.copy())
            met = score <= target
        parts["balance"] += time.perf_counter() - t_part
        history.append({**entry, "met": met, "seconds": time.perf_counter() - start})
        if verbose:
            print(f"[efce cg] balanced mix: {entry}", file=sys.stderr, flush=True)
        return met

    idle = np.zeros(0, dtype=np.int64)

    def drop_idle_columns(mu_: np.ndarray) -> np.ndarray:
        """Count, per column, the masters in a row where it had μ = 0 and reduced cost below
        −DROP_REDUCED_COST·R; every DROP_EVERY masters remove those idle for ``drop_after`` (not
        the best measured μ's support). μ over the columns kept."""
        nonlocal idle, best
        idle = np.r_[idle, np.zeros(mu_.size - idle.size, dtype=np.int64)]
        out = (mu_ <= 0.0) & (model.column_duals < -DROP_REDUCED_COST * scale)
        idle = np.where(out, idle + 1, 0)
        if iterations % DROP_EVERY:
            return mu_
        drop = (idle >= drop_after) & model.droppable()
        if best is not None:
            drop[:best[1].size] &= best[1] <= 0.0
        drop[0] = False                                      # the first column stays
        if not drop.any():
            return mu_
        keep = model.drop_columns(drop)
        dropped[0] += int(drop.sum())
        idle = idle[keep]
        if best is not None:
            best = (best[0], np.r_[best[1], np.zeros(keep.size - best[1].size)][keep])
        return mu_[keep]

    def double(reason: str) -> None:
        nonlocal penalty, priced_since_doubling
        if penalty * 2.0 > MAX_PENALTY:
            return
        priced_since_doubling = False
        penalty *= 2.0
        penalties.append(penalty)
        model.set_penalty(penalty)
        history.append({"iteration": iterations, "event": "penalty", "penalty": penalty,
                        "reason": reason, "seconds": time.perf_counter() - start})
        if verbose:
            print(f"[efce cg] penalty doubled to {penalty:g} ({reason})", file=sys.stderr,
                  flush=True)

    while True:
        remaining = left()
        if remaining is not None and remaining <= 0:
            status = "time_limit"
            break
        t_part = time.perf_counter()
        try:
            z, mu, duals, e = model.solve_master(remaining)
        except _MasterTimeLimitError:
            status = "time_limit"
            break
        parts["master"] += time.perf_counter() - t_part
        iterations += 1
        if drop_after:
            mu = drop_idle_columns(mu)
        last = (z, mu.copy(), duals)
        t_part = time.perf_counter()
        cuts = model.separate(mu, CUT_TOLERANCE * tol)
        parts["separation"] += time.perf_counter() - t_part
        if verbose:
            print(f"[efce cg] it {iterations} elastic M {penalty:g} cols {len(model.columns)} "
                  f"cuts {model.num_cuts} (+{cuts}) master {z:.6g} objective "
                  f"{model_objective(mu):.6g} e {e:.3g} bound {bounds.upper} "
                  f"t {time.perf_counter() - start:.1f}s", file=sys.stderr, flush=True)
        t_part = time.perf_counter()
        stop, gap = check(mu, z)
        parts["check"] += time.perf_counter() - t_part
        if stop:
            status = "target_gap"
            break
        if gap is not None and not cuts and priced_since_doubling:
            # the objective is close to the bound but μ violates the triggers by more than the
            # target, and the master's slacks are complete (no cut added): M is too small. Not
            # again before a column is added: the columns may hold no μ of smaller violation.
            double("objective within target of the bound, measured gap above it")
            continue
        if len(model.columns) >= max_columns:
            status = "column_limit"
            break
        t_part = time.perf_counter()
        (tuples, coefs, const), added = _price_by_alternation(model, duals, mu, 2, tol,
                                                              bounds.center)
        parts["alternation"] += time.perf_counter() - t_part
        priced_since_doubling = priced_since_doubling or added > 0
        # every dual point gives a valid bound (cuts just added or not), so a periodic bounding
        # round does not wait for a master without new cuts; a stalled alternation does
        if (cuts or added) and time.perf_counter() < next_bound_at or cuts and not added:
            continue
        # bounding round, as in phase 2; the bound is y_conv + max rc (no max with z: the
        # elastic master's value is not a lower bound on the optimal EFCE value)
        t_round = time.perf_counter()
        added = bool(added)
        # a periodic round (alternation still finds columns) gives its MILP a share of the time
        # so far; a round where alternation stalled needs the MILP's answer (a column or a proof)
        share = max(PERIODIC_MILP_SECONDS, PERIODIC_MILP_SHARE * (t_round - start))
        milp_limit = (left() if not added else share if left() is None
                      else min(left(), share))
        objective = model_objective(mu)
        added, proved = _bounding_round(
            model, bounds, z, duals, (tuples, coefs, const), milp_limit, left(),
            penalty=penalty, floor=None, tol=tol, added=added, reference=objective,
            within=target, history=history, start=start, verbose=verbose,
            entry={"iteration": iterations, "phase": "elastic", "columns": len(model.columns),
                   "master": z, "objective": objective, "penalty": penalty})
        priced_since_doubling = priced_since_doubling or added
        next_bound_at = time.perf_counter() + BOUND_SPACING * (time.perf_counter() - t_round)
        parts["bounding"] += time.perf_counter() - t_round
        if balance(left()):
            status = "target_gap"
            break
        if added or cuts:
            continue
        stop, gap = check(mu, z)
        if stop:
            status = "target_gap"
            break
        if not proved:
            status = "time_limit"
            break
        # no column improves: the elastic master is optimal over all joint plans for this M,
        # and μ still misses the target (too much violation, or objective above the bound)
        double("elastic master optimal over all columns, target not met")
    if status == "time_limit" and main_limit is not None:
        # half of the time kept back for the last bound: the balanced mix of the final columns
        if balance(0.5 * BOUND_RESERVE / (1.0 - BOUND_RESERVE) * main_limit):
            status = "target_gap"
    return {"status": status, "last": last, "best": best, "history": history,
            "iterations": iterations, "violation": e, "penalty": penalty, "penalties": penalties,
            "seconds": parts, "dropped_columns": dropped[0]}


# ---------------------------------------------------------------------------------------- solve
def _tuple_bound(sf: SequenceForm, w: np.ndarray, wanted: bool, max_tuples: int,
                 time_limit: float | None, verbose: bool, seconds: float | None = None) -> tuple:
    """The tuple relaxation's upper bound (:mod:`lpgame.equilibria.correlated.efce_tuple_relaxation`) as a
    report: ``upper_bound`` (None when not computed) and why not, tuples, seconds; and the
    relaxation's result (None when not computed). Its LP gets
    ``seconds`` (at most the run's ``time_limit``), or by default ``TUPLE_BOUND_SHARE`` of the time
    limit (``TUPLE_BOUND_SECONDS`` without one)."""
    if not wanted:
        return {"upper_bound": None, "skipped": "tuple_bound=False"}, None
    t0 = time.perf_counter()
    if seconds is not None:
        limit = seconds if time_limit is None else min(seconds, time_limit)
    else:
        limit = TUPLE_BOUND_SECONDS if time_limit is None else TUPLE_BOUND_SHARE * time_limit
    try:
        found = tuple_relaxation_bound(sf, w, time_limit=limit, max_tuples=max_tuples)
    except (ModelTooLargeError, SolverTimeLimitError, SolverError) as exc:
        return {"upper_bound": None, "skipped": f"{type(exc).__name__}: {exc}",
                "seconds": time.perf_counter() - t0}, None
    if verbose:
        print(f"[efce cg] tuple relaxation bound {found.upper_bound:.6g} ({found.tuples} tuples, "
              f"{found.seconds:.2f}s)", file=sys.stderr, flush=True)
    return ({"upper_bound": found.upper_bound, "tuples": found.tuples, "seconds": found.seconds},
            found)


def _seed_columns(model: Model, guide: np.ndarray, first: list, remaining: float | None,
                  bounds: _Bounds, history: list, start: float, verbose: bool) -> int:
    """Columns priced at the tuple relaxation's duals before the first master (module docstring,
    "Relaxation-guided pricing"): alternation from the first column, then the MILP at those
    duals (at most ``SEED_MILP_SECONDS``, and a tenth of the time left), whose dual bound is a
    Lagrangian bound (offered to ``bounds`` and logged in ``history``). The number of columns
    added."""
    tuples, coefs, const = model.monomials(guide, 2)
    added = 0
    plans, value = model.alternate(tuples, coefs, const, first)
    added += model.add(plans, 1)
    limit = SEED_MILP_SECONDS if remaining is None else min(SEED_MILP_SECONDS, 0.1 * remaining)
    t_m = time.perf_counter()
    plans, value, upper, proved = model.milp_oracle(tuples, coefs, const, limit)
    bounds.milp_seconds += time.perf_counter() - t_m
    if plans is not None:
        added += model.add(plans, 1)
    bound = float(upper - const) if np.isfinite(upper) else None
    bounds.offer(bound, guide)
    history.append({"event": "seed", "columns": len(model.columns), "bound": bound,
                    "proved": proved, "seconds": time.perf_counter() - start})
    if verbose:
        print(f"[efce cg] seeded {added} columns at the relaxation's duals; Lagrangian bound "
              f"{upper - const:.6g} ({time.perf_counter() - t_m:.2f}s)", file=sys.stderr,
              flush=True)
    return added


def _price_by_alternation(model: Model, duals, mu: np.ndarray, phase: int,
                          tol: float, center: np.ndarray | None = None) -> tuple[tuple, int]:
    """The reduced cost's monomials at ``duals``, and the columns alternation adds from the
    ``COLUMNS_PER_ROUND`` largest-μ columns and the last one (module docstring, "Pricing" 1.);
    with a ``center``, alternation first runs at duals smoothed towards it by
    ``GUIDE_SMOOTHING`` (a column is added only when it improves at ``duals``)."""
    monomials = model.monomials(duals, phase)
    support = np.argsort(-mu)[:COLUMNS_PER_ROUND]
    starts = [model.columns[k] for k in support if mu[k] > SUPPORT_TOLERANCE]
    starts.append(model.columns[-1])
    added = 0
    if center is not None and GUIDE_SMOOTHING > 0:
        smooth = model.monomials(GUIDE_SMOOTHING * center + (1 - GUIDE_SMOOTHING) * duals, phase)
        for s in starts:
            plans, _ = model.alternate(*smooth, s)
            if model.evaluate(*monomials, plans) > tol and model.add(plans, phase):
                added += 1
    for s in starts:
        plans, value = model.alternate(*monomials, s)
        if value > tol and model.add(plans, phase):
            added += 1
    return monomials, added


def solve_efce_column_generation(game, objective="welfare", time_limit: float | None = None,
                                 max_columns: int = DEFAULT_MAX_COLUMNS,
                                 column_tolerance: float = DEFAULT_COLUMN_TOLERANCE,
                                 exact: bool = False, players: int | None = None,
                                 verbose: bool = False, target_gap: float | None = None,
                                 penalty: float = DEFAULT_PENALTY, tuple_bound: bool = True,
                                 max_tuples: int = DEFAULT_MAX_TUPLES,
                                 tuple_seconds: float | None = None, two_sided: bool = False
                                 ) -> ColumnGenerationCorrelatedResult:
    """An optimal EFCE of ``game`` (any number of players) by column generation (module docstring).

    ``objective``: ``welfare``, ``player1`` … ``playerN`` or N weights. ``time_limit`` (seconds,
    the whole run) and ``max_columns`` end the run with a labelled partial answer. ``players``:
    when given, the game must have that many players (the benchmark of Table 10.1's three-player
    rows asks for 3). ``exact=True`` also computes the returned μ's gap in rational arithmetic.
    ``target_gap`` (a fraction of the payoff range R in (0, 1)): solve the elastic master
    instead of the two phases and stop, status ``target_gap``, once μ's measured EFCE gap and
    |upper bound − objective| are both at most ``target_gap``·R: μ is then an ε-EFCE
    (ε = its measured ``gap``), not an exact EFCE (module docstring). ``penalty``: the elastic
    master's first M (objective units per unit of trigger violation; doubled by the run).
    ``tuple_bound``: first solve the relaxation over relevant sequence tuples
    (:mod:`lpgame.equilibria.correlated.efce_tuple_relaxation`, at most ``max_tuples`` tuples, in
    ``tuple_seconds`` seconds, by default ``TUPLE_BOUND_SHARE`` of the time limit); its optimum is
    an upper bound beside the Lagrangian ones. The Leduc rows need minutes for it (L3132: about
    270 s), so ``tuple_seconds`` lets them keep the rest of a shorter limit for the columns.
    ``two_sided`` (with ``target_gap``): stop only when the objective is also within the target
    above the best exact EFCE among the columns, a lower bound L on the optimum, so that
    |objective − optimum| ≤ ``target_gap``·R is certified (module docstring, "Balanced mix and
    the lower bound"); by default the objective is bounded from below only.
    """
    start = time.perf_counter()
    sf = compile_game(game)
    n = sf.num_players
    if players is not None and n != players:
        raise LpgameError(f"{sf.game.name} has {n} players; this run needs {players}")
    if n < 2:
        raise LpgameError(f"{sf.game.name} has {n} player; EFCE needs at least two")
    if time_limit is not None and time_limit <= 0:
        raise OptionError(f"time_limit must be positive; got {time_limit}")
    if max_columns < 1:
        raise OptionError(f"max_columns must be at least 1; got {max_columns}")
    if not column_tolerance > 0:
        raise OptionError(f"column_tolerance must be positive; got {column_tolerance}")
    if target_gap is not None and (not isinstance(target_gap, numbers.Real)
                                   or isinstance(target_gap, bool)
                                   or not 0 < float(target_gap) < 1):
        raise OptionError(f"target_gap is a fraction of the payoff range in (0, 1); got "
                          f"{target_gap!r}")
    if (not isinstance(penalty, numbers.Real) or isinstance(penalty, bool)
            or not 0 < float(penalty) < np.inf):
        raise OptionError(f"penalty (the elastic master's first M) must be a positive finite "
                          f"number; got {penalty!r}")
    if not isinstance(tuple_bound, bool):
        raise OptionError(f"tuple_bound must be True or False; got {tuple_bound!r}")
    if not isinstance(two_sided, bool):
        raise OptionError(f"two_sided must be True or False; got {two_sided!r}")
    if two_sided and target_gap is None:
        raise OptionError("two_sided is a rule of the target-gap run: give target_gap too "
                          "(without it the run certifies an exact EFCE against the bound)")
    if (not isinstance(max_tuples, numbers.Integral) or isinstance(max_tuples, bool)
            or max_tuples < 1):
        raise OptionError(f"max_tuples must be a positive integer; got {max_tuples!r}")
    if tuple_seconds is not None and (not isinstance(tuple_seconds, numbers.Real)
                                      or isinstance(tuple_seconds, bool)
                                      or not 0 < float(tuple_seconds) < np.inf):
        raise OptionError(f"tuple_seconds (the tuple relaxation's time) must be a positive finite "
                          f"number of seconds or None; got {tuple_seconds!r}")
    w = objective_weights(objective, n)
    payoffs = sf.terminal_payoffs
    scale = float(payoffs.max() - payoffs.min()) if payoffs.size else 1.0
    scale = scale if scale > 0 else 1.0
    tol = column_tolerance * scale
    target = None if target_gap is None else float(target_gap) * scale
    model = Model(sf, w)
    built = time.perf_counter()
    relaxation, found = _tuple_bound(sf, w, tuple_bound, max_tuples, time_limit, verbose,
                                     None if tuple_seconds is None else float(tuple_seconds))
    guide = (model.relaxation_duals(found) if GUIDED and found is not None
             and found.trigger_duals is not None else None)
    # the objective is an expectation of w·u(z), so its largest value over the leaves that chance
    # reaches bounds it too: the reported bound is never above it (the Lagrangian bounds of the
    # MILP's dual bound can be: 197.8 against 14 at zero duals on L3132 max P1)
    reached = sf.terminal_chance > 0
    payoff_bound = float((payoffs[reached] @ w).max()) if reached.any() else None
    built_bound = min((b for b in (relaxation.get("upper_bound"), payoff_bound) if b is not None),
                      default=None)

    main_limit = None if time_limit is None else time_limit * (1.0 - BOUND_RESERVE)

    def left(limit: float | None = None) -> float | None:
        # the reserve for the last bounding MILP is kept only once phase 2 has a master
        limit = limit if limit is not None else (main_limit if phase == 2 else time_limit)
        return None if limit is None else limit - (time.perf_counter() - start)

    # the first column: alternation on the objective alone (a good pure profile)
    first = [best_pure_plan(tr, np.zeros(tr.num_sequences))[0] for tr in model.trees]
    t0, c0, _ = model.monomials(np.zeros(model.num_rows), 2)
    first, _ = model.alternate(t0, c0, 0.0, first)
    model.add(first, 1)
    phase, status = 1, None
    history, iterations = [], 0
    # either run's bounds and MILP seconds; the relaxation's duals are the first Wentges centre
    bounds = _Bounds(built_bound, None if guide is None else found.upper_bound, guide)
    if guide is not None:
        relaxation["seeded_columns"] = _seed_columns(model, guide, first, left(), bounds,
                                                     history, start, verbose)
    mu, z, e = None, None, None
    last_phase2 = None
    next_bound_at = 0.0

    def summarise(mu_: np.ndarray):
        """μ's support as (probabilities, plans per player, independent EFCE gap check, expected
        payoffs, objective)."""
        keep_ = np.flatnonzero(mu_ > SUPPORT_TOLERANCE)
        probs_ = mu_[keep_] / mu_[keep_].sum()
        plans_ = [np.stack([model.columns[k][i] for k in keep_]) for i in range(n)]
        check_ = n_player_efce_gap(sf, plans_, probs_)
        reach_ = np.ones((keep_.size, sf.terminal_sequences.shape[0]), dtype=bool)
        for i in range(n):
            reach_ &= plans_[i][:, sf.terminal_sequences[:, i]].astype(bool)
        values_ = ((probs_ @ reach_) * sf.terminal_chance) @ payoffs
        return probs_, plans_, check_, values_, float(np.dot(w, values_))

    def measure(mu_: np.ndarray) -> tuple[float, float]:
        """(objective, independent EFCE gap) of the master's support."""
        summary = summarise(mu_)
        return summary[4], float(summary[2].gap)

    elastic = target is not None
    elastic_run = None
    if elastic:
        elastic_run = _elastic_run(model, start, main_limit, tol, target, float(penalty),
                                   max_columns, verbose, measure, scale, ELASTIC_DROP_AFTER,
                                   bounds, two_sided)
        status, e, phase = elastic_run["status"], elastic_run["violation"], "elastic"
        history, iterations = history + elastic_run["history"], elastic_run["iterations"]
        if elastic_run["last"] is not None:
            z, mu, _ = elastic_run["last"]
            last_phase2 = elastic_run["last"]

    while not elastic:            # the exact run: phase 1, then phase 2
        remaining = left()
        if remaining is not None and remaining <= 0:
            status = "time_limit"
            break
        try:
            z, mu, duals, e = model.solve_master(remaining)
        except _MasterTimeLimitError:
            status = "time_limit"
            break
        iterations += 1
        cuts = model.separate(mu, CUT_TOLERANCE * tol)
        if verbose:
            print(f"[efce cg] it {iterations} phase {phase} cols {len(model.columns)} "
                  f"cuts {model.num_cuts} (+{cuts}) master {z:.6g} e {e:.3g} "
                  f"t {time.perf_counter() - start:.1f}s", file=sys.stderr, flush=True)
        # with new cuts the master is a relaxation over its columns: columns are still priced
        # at its duals (any cut duals give a valid Lagrangian bound), but nothing is concluded
        if not cuts and phase == 1 and e <= 1e-9 * scale:
            phase = 2
            model.start_phase_two()
            history.append({"iteration": iterations, "event": "phase 2", "columns":
                            len(model.columns), "seconds": time.perf_counter() - start})
            continue
        if not cuts and phase == 2:
            last_phase2 = (z, mu.copy(), duals)
            # a phase-2 master is an EFCE: its value against the smallest bound so far
            history.append({"iteration": iterations, "event": "master", "master": z,
                            "upper_bound": bounds.upper, "seconds": time.perf_counter() - start})
            if bounds.upper is not None and bounds.upper - z <= tol:
                status = "optimal"
                break
        if len(model.columns) >= max_columns:
            status = "column_limit"
            break
        (tuples, coefs, const), added = _price_by_alternation(model, duals, mu, phase, tol,
                                                              bounds.center)
        if cuts or added and (phase == 1 or time.perf_counter() < next_bound_at):
            continue
        if phase == 1:
            t_m = time.perf_counter()
            plans, value, upper, proved = model.milp_oracle(tuples, coefs, const, left())
            bounds.milp_seconds += time.perf_counter() - t_m
            history.append({"iteration": iterations, "phase": 1, "columns": len(model.columns),
                            "master": z, "oracle_value": value, "oracle_upper": upper,
                            "proved": proved, "seconds": time.perf_counter() - start})
            if plans is not None and value > tol and model.add(plans, phase):
                continue
            if proved and upper <= tol:
                raise SolverError(f"{sf.game.name}: column generation certified no EFCE "
                                  f"(violation {e:.3g}); numerical trouble in the master LP")
            status = "time_limit"
            break
        # phase 2: a bounding round (the MILP at Wentges-smoothed duals; every dual point gives a
        # Lagrangian bound, maxed with z, since z is an EFCE's value; a column only when it
        # improves at the current duals). While alternation still finds columns, it runs only
        # every BOUND_SPACING times its own duration, so that the bound tightens during the tail.
        # (|U − z| ≤ tol is U − z ≤ tol here: U ≥ the optimum ≥ z.)
        t_round = time.perf_counter()
        added, _ = _bounding_round(
            model, bounds, z, duals, (tuples, coefs, const), left(), left(), penalty=None,
            floor=z, tol=tol, added=bool(added), reference=z, within=tol, history=history,
            start=start, verbose=verbose,
            entry={"iteration": iterations, "phase": 2, "columns": len(model.columns),
                   "master": z})
        next_bound_at = time.perf_counter() + BOUND_SPACING * (time.perf_counter() - t_round)
        if added:
            continue
        status = "optimal" if bounds.upper is not None and bounds.upper - z <= tol \
            else "time_limit"
        break
    if status not in ("optimal", "target_gap") and last_phase2 is not None \
            and time_limit is not None \
            and not any(h.get("master") == last_phase2[0] and h.get("bound") is not None
                        for h in history):
        # the reserved time: one MILP on the last phase-2 duals gives a Lagrangian bound
        t_m = time.perf_counter()
        tuples, coefs, const = model.monomials(last_phase2[2], 2)
        _, value, bound_upper, proved = model.milp_oracle(tuples, coefs, const,
                                                          left(time_limit))
        bounds.milp_seconds += time.perf_counter() - t_m
        if np.isfinite(bound_upper):
            bounds.offer(last_phase2[0] + max(0.0, bound_upper), last_phase2[2])
        history.append({"event": "final bound", "master": last_phase2[0],
                        "oracle_value": value, "oracle_upper": bound_upper, "proved": proved,
                        "seconds": time.perf_counter() - start})
    if elastic:
        # the best exact EFCE over the final columns: a lower bound on the optimum, so the answer's
        # objective is bracketed from both sides (module docstring, "Elastic master")
        remaining = left(time_limit)
        if remaining is None or remaining > 0:
            _lower_bound(model, bounds, measure, tol, remaining)
    upper_bound, milp_seconds = bounds.upper, bounds.milp_seconds
    end_solve = time.perf_counter()
    if mu is None:                       # the time limit came before the first master
        mu, z = np.ones(1), model.costs[0]
    if phase == 2 and last_phase2 is not None:
        z, mu = last_phase2[0], last_phase2[1]
    k_cols = len(mu)
    probs, plans, check, values, obj = summarise(mu)
    if elastic and elastic_run["best"] is not None and upper_bound is not None:
        # the measured μ closest to the target (_target_score): at a limit, or when a balanced
        # mix or the best exact EFCE met the target
        other = summarise(elastic_run["best"][1])
        if (_target_score(other[4], other[2].gap, bounds, two_sided)
                < _target_score(obj, check.gap, bounds, two_sided)):
            probs, plans, check, values, obj = other
    certificate = Certificate(gain=check.gap, exact=False,
                              deviations="trigger deviations of every player at every sequence, "
                                         "against μ's support (lpgame.analysis."
                                         "n_player_correlated_gaps)")
    extra = {"status": status, "phase": phase, "upper_bound": upper_bound,
             "bound_gap": None if upper_bound is None else upper_bound - obj,
             "master_objective": z, "columns": k_cols, "iterations": iterations,
             "payoff_range": scale, "column_tolerance": column_tolerance,
             "target_gap": target_gap,
             "cuts": model.num_cuts, "milp_seconds": milp_seconds, "history": history,
             "tuple_relaxation": relaxation}
    if phase == 1:
        extra["violation"] = e
    if elastic:
        # an ε-EFCE, not an exact one: ε is the measured gap (Farina 2023 §10.4's criterion)
        extra.update({"mode": "elastic", "exact_efce": False, "epsilon_efce": True,
                      "epsilon": float(check.gap), "relative_epsilon": float(check.gap) / scale,
                      "penalty": elastic_run["penalty"], "penalties": elastic_run["penalties"],
                      "master_violation": e, "elastic_seconds": elastic_run["seconds"],
                      "dropped_columns": elastic_run["dropped_columns"],
                      "lower_bound": bounds.lower, "two_sided_target": two_sided})
        # both sides of "within target of the optimum": L ≤ OPT ≤ U, so max(U − obj, obj − L)
        # bounds |obj − OPT|; None without an exact EFCE among the columns
        two_sided = (None if bounds.lower is None or upper_bound is None
                     else max(upper_bound - obj, obj - bounds.lower))
        extra["two_sided_gap"] = two_sided
        extra["two_sided"] = bool(two_sided is not None and target is not None
                                  and two_sided <= target and check.gap <= target)
    else:
        extra["mode"] = "two_phase"
    if exact:
        exact_check = n_player_efce_gap(sf, plans, probs, exact=True)
        extra["exact_gap"] = str(exact_check.gap)
        certificate = Certificate(gain=exact_check.gap, exact=True,
                                  deviations=certificate.deviations)
    order = np.argsort(-probs, kind="stable")
    distribution = [{"profile": [plan_label(sf, i, plans[i][q]) for i in range(n)],
                     "probability": float(probs[q])} for q in order]
    end = time.perf_counter()
    return ColumnGenerationCorrelatedResult(
        game=sf.game.name, concept="efce", variant="column_generation", objective=obj,
        objective_spec=objective_name(objective), weights=w.tolist(),
        payoffs=[float(v) for v in values], gap=float(check.gap),
        optimal=status == "optimal", certificate=certificate,
        size={"rows": int(model._highs.getNumRow()), "cols": int(model._highs.getNumCol()),
              "nnz": int(model._highs.getNumNz()), "joint_plan_columns": k_cols},
        solver={"name": "HiGHS (master LP) + HiGHS MILP (pricing)", "status": status},
        seconds={"build": built - start, "tuple_bound": relaxation.get("seconds", 0.0),
                 "solve": end_solve - built, "milp": milp_seconds,
                 "check": end - end_solve, "total": end - start},
        distribution=distribution, gap_detail=check.to_dict(), extra=extra)


def _solve_entry(game, *, exact: bool = False, backend: str = "highs", method: str | None = None,
                 objective="welfare", time_limit: float | None = None,
                 max_columns: int = DEFAULT_MAX_COLUMNS,
                 column_tolerance: float = DEFAULT_COLUMN_TOLERANCE, exact_gap: bool = False,
                 target_gap: float | None = None, penalty: float = DEFAULT_PENALTY,
                 tuple_bound: bool = True, max_tuples: int = DEFAULT_MAX_TUPLES,
                 tuple_seconds: float | None = None, two_sided: bool = False,
                 **_solver_options) -> ColumnGenerationCorrelatedResult:
    if method not in (None, "column_generation"):
        raise OptionError(f"efce with method={method!r} takes two-player games; for three or more "
                          "players use method='column_generation' (the default there)")
    if backend != "highs":
        raise OptionError("efce by column generation runs on HiGHS only (backend='highs')")
    return solve_efce_column_generation(game, objective=objective, time_limit=time_limit,
                                        max_columns=max_columns,
                                        column_tolerance=column_tolerance,
                                        exact=exact or bool(exact_gap), target_gap=target_gap,
                                        penalty=penalty, tuple_bound=tuple_bound,
                                        max_tuples=max_tuples, tuple_seconds=tuple_seconds,
                                        two_sided=two_sided)


register(Concept(
    name="efce", variant="column_generation", games=("n_player",),
    requires=("method=column_generation",),
    solve=_solve_entry, exact=False, backends=("highs",),
    summary="optimal extensive-form correlated equilibrium of an n-player game: column "
            "generation over joint pure plans (default for three or more players)",
    certificate="largest gain of any trigger deviation (EFCE gap) of the returned distribution, "
                "by lpgame.analysis.n_player_correlated_gaps",
    source="Farina 2023 Def. 8.2 and Lemma 9.2 / Prop. 9.1 (dualised trigger constraints) over "
           "a distribution on joint pure plans; column generation with a MILP oracle",
    options=(
        Option("method", str, None, "column_generation (default for three or more players; "
               "for two players the default is the correlation-plan LP)",
               choices=("column_generation",)),
        OBJECTIVE_OPTION,
        Option("max_columns", int, DEFAULT_MAX_COLUMNS,
               "column generation: stop with a partial answer at this many joint plans"),
        Option("column_tolerance", float, DEFAULT_COLUMN_TOLERANCE,
               "column generation: reduced costs at most this fraction of the payoff range "
               "count as non-improving"),
        Option("target_gap", float, None,
               "column generation: solve the elastic (penalty) master and stop (status "
               "target_gap) at an ε-EFCE whose measured gap ε and |upper bound − "
               "objective| are both at most this fraction of the payoff range (default: the "
               "exact two-phase run to column_tolerance)"),
        Option("penalty", float, DEFAULT_PENALTY,
               "column generation with target_gap: the elastic master's first penalty M per "
               "unit of trigger violation (doubled by the run when too small)"),
        Option("tuple_bound", bool, True,
               "column generation: first solve the relaxation over relevant sequence tuples "
               "(lpgame.equilibria.correlated.efce_tuple_relaxation); its optimum is an upper bound beside "
               "the Lagrangian ones"),
        Option("max_tuples", int, DEFAULT_MAX_TUPLES,
               "column generation: the tuple relaxation is skipped above this many relevant "
               "sequence tuples"),
        Option("tuple_seconds", float, None,
               f"column generation: seconds for the tuple relaxation's LP, at most the time "
               f"limit (default: {TUPLE_BOUND_SHARE:.0%} of the time limit, "
               f"{TUPLE_BOUND_SECONDS:g} s without one)"),
        Option("two_sided", bool, False,
               "column generation with target_gap: also require the objective within the target "
               "above the best exact EFCE among the columns (a lower bound on the optimum), so "
               "|objective − optimum| is certified from both sides"),
        Option("exact_gap", bool, False, "also compute the returned distribution's EFCE gap in "
               "rational arithmetic (the distribution itself is the LP's floats)"),
    ),
))
