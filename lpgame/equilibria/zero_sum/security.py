"""The sequence-form security LP: a player's maximin strategy against a minimising opponent.

For two players with sequence-form payoff matrix U (rows: the optimiser i's sequences, columns:
the opponent o's sequences; u_i(x, y) = xᵀ U y), the maximin value max_x min_y xᵀUy is the LP of
Koller, Megiddo & von Stengel (1996), written as in notes/farina-thesis.md §1.4:

    max_{x, v}  f_oᵀ v
    s.t.        F_i x = f_i,                     (treeplex of the optimiser)       [treeplex]
                F_oᵀ v − Uᵀ x ≤ 0,               (one row per opponent sequence)   [best_response]
                x ≥ 0,  v free  (one entry per opponent information set, plus one for ∅).

The inner minimisation over y ∈ Q_o has been replaced by its LP dual, so v are the opponent's
information-set values and v[∅] is the game value. The duals of the ``best_response`` rows
(∂value/∂rhs ≥ 0) satisfy F_o y = f_o: they are the opponent's realization plan y that holds the
optimiser to the value (its minimax strategy against i).

In a two-player zero-sum (or constant-sum) game with U = U_1 this LP gives the value for player 1
and both players' Nash equilibrium strategies (von Neumann's minimax theorem; Rojas Linárez 2020,
Thm C.3). In a general-sum game, U = U_i gives player i's maximin (security) value and strategy.

Scaling: U is built from the payoffs in unit-range form u' = (u − c)/2^k
(:mod:`lpgame.lp.scaling`), so the LP's optimum is v' = (v − c)/2^k; :meth:`SecurityLP.value`
maps it back. x and the duals y are unchanged by the change of scale. Payoffs whose half-range is
at most :data:`LARGEST_UNSCALED_HALF_RANGE` are not scaled down (issue 40).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from lpgame.errors import InvalidGameError
from lpgame.game.showdown import ShowdownPayoffs
from lpgame.lp.linear_program import LinearProgram
from lpgame.lp.scaling import (
    BAND,
    IDENTITY,
    PayoffScaling,
    check_float_payoffs,
    exact_bounds,
    float_bounds,
    unit_range_scaling,
)
from lpgame.rational import RationalMatrix, sparse_from_coo
from lpgame.sequence_form import SequenceForm

IPM_SIGNALS_THRESHOLD = 2000
"""From this many private signals the compressed LP is solved by an interior-point method
(Clarabel's, to tolerance 1e-12: :mod:`lpgame.lp.clarabel_backend`)."""

LARGEST_UNSCALED_HALF_RANGE = 2 ** 10
"""Payoffs whose half-range is at most this are not scaled down before the security LP (the
common band of :mod:`lpgame.lp.scaling` stops at 16). Dividing moderate payoffs by a power of two
only makes the payoff block's smallest entries (chance reach × payoff) smaller, and HiGHS's
absolute tolerances coarser relative to the payoffs; it changed the presolve and the simplex path
of the thesis's Domino LPs (half-range 19, scaled by 1/32: Domino(3,2)'s postsolved basis had
1,274 infeasible rows and needed 573 more iterations on the original LP; Domino(3,4), whose LP it
changed too, took more than twice as long, issue 40). Up to 2^10 the LP is the game's own, as
before issue 20; HiGHS's answer is then polished (:func:`lpgame.lp.highs_backend.polish_basis`)."""

BLOCKED_SIGNALS_THRESHOLD = 10000
"""From this many private signals the cumulative sums are kept in two levels of ⌈√N⌉ (see
:func:`compressed_security_lp`): one chain of N loses the interior point's accuracy."""


@dataclass
class SecurityLP:
    """The LP and how to read it back."""

    lp: LinearProgram
    player: int           # the optimiser i
    opponent: int         # o
    value_scale: float = 1.0   # the game value is value_scale × the LP's optimum (in unit range)
    preferred_solver: str | None = None   # solver (HiGHS's or "clarabel") when the caller names none
    scaling: PayoffScaling = IDENTITY    # the payoffs' unit-range form (lpgame.lp.scaling)

    def value(self, objective):
        """The game value of an LP optimum: s·(value_scale·objective) + c (exact for Fractions)."""
        if isinstance(objective, Fraction):
            return self.scaling.from_unit(objective * Fraction(self.value_scale))
        return self.scaling.from_unit(float(objective) * self.value_scale)

    def lp_value(self, value: float) -> float:
        """The inverse of :meth:`value`: a game value in the LP's units (for a bound on v[∅])."""
        return self.scaling.to_unit(float(value)) / self.value_scale

    def solve_options(self, options: dict, backend: str = "highs") -> dict:
        """``options`` for :func:`lpgame.lp.solve_lp`, with the preferred solver where none is
        named (HiGHS backend only: Pyomo and CVXPY hand the LP to HiGHS themselves)."""
        if self.preferred_solver is None or "solver" in options or backend != "highs":
            return dict(options)
        return {**options, "solver": self.preferred_solver}


def security_lp(sf: SequenceForm, player: int, payoff_player: int | None = None,
                exact: bool = False, compress: bool = True) -> SecurityLP:
    """Build the security LP of ``player`` (see module docstring).

    ``payoff_player`` selects whose payoff the optimiser maximises (default: its own). ``exact``
    states the payoff matrix with rational entries so that the basis can be certified exactly.
    ``compress`` uses the cumulative-sum form of showdown payoffs when the game has one
    (:func:`compressed_security_lp`); the value and the strategies are the same.
    """
    if payoff_player is None:
        payoff_player = player
    if compress and not exact and isinstance(sf.payoff_structure, ShowdownPayoffs):
        return compressed_security_lp(sf, player, payoff_player)
    opponent = 1 - player
    U, scaling = scaled_payoff_matrix(sf, payoff_player, exact,    # rows: player 1's sequences
                                      largest=LARGEST_UNSCALED_HALF_RANGE)
    if exact:
        if player == 1:
            U = U.T
        minus_Ut = -U.T
    elif player == 1:
        minus_Ut = -(U.tocsr())          # U is transposed twice
    else:
        minus_Ut = _transposed(U, -1.0)
    F_i, F_o = sf.treeplex_matrix(player), sf.treeplex_matrix(opponent)
    name = f"security LP of {sf.game.player_names[player]} in {sf.game.name}"
    lp = LinearProgram(name=name, description=(
        "  max f_oᵀv  s.t.  F_i x = f_i,  F_oᵀv − Uᵀx ≤ 0,  x ≥ 0,  v free "
        "(Koller–Megiddo–von Stengel 1996)"))
    x = lp.add_variables("x", sf.num_sequences(player), lower=0.0,
                         labels=sf.sequence_labels(player))
    v = lp.add_variables("v", sf.num_infosets(opponent) + 1, lower=-np.inf,
                         labels=["∅"] + sf.infoset_labels(opponent))
    lp.add_constraints("treeplex", [(x, F_i)], "==", sf.treeplex_rhs(player),
                       labels=["∅"] + sf.infoset_labels(player))
    if isinstance(minus_Ut, RationalMatrix):
        lhs_v = RationalMatrix.from_scipy(F_o.T)
    else:
        lhs_v = _transposed(F_o)
    lp.add_constraints("best_response", [(v, lhs_v), (x, minus_Ut)], "<=",
                       [Fraction(0)] * sf.num_sequences(opponent) if exact
                       else np.zeros(sf.num_sequences(opponent)),
                       labels=sf.sequence_labels(opponent))
    objective = np.zeros(v.size)
    objective[0] = 1.0
    lp.set_objective([(v, objective)], "max")
    return SecurityLP(lp, player, opponent, scaling=scaling)


def _transposed(matrix, sign: float = 1.0) -> sp.csr_array:
    """``sign · Mᵀ`` (M = ``matrix``) as a CSR array, the same array as ``(sign · M).T.tocsr()``,
    made from the triples of a CSR M without scipy's conversions (a fixed cost on tiny games)."""
    if not (sp.issparse(matrix) and matrix.format == "csr"):
        return sp.csr_array(matrix.T * sign) if sign != 1.0 else matrix.T.tocsr()
    n_rows, n_cols = matrix.shape
    nnz = int(matrix.indptr[-1])
    rows = np.repeat(np.arange(n_rows, dtype=matrix.indices.dtype), np.diff(matrix.indptr))
    cols, data = matrix.indices[:nnz], matrix.data[:nnz]
    data = data if sign == 1.0 else -data if sign == -1.0 else sign * data
    if not matrix.has_canonical_format:
        return sparse_from_coo(data, cols, rows, (n_cols, n_rows))
    # canonical M (rows in order, columns sorted, no duplicates): a stable sort of the entries by
    # column lists each new row's entries in increasing old row, the canonical transpose
    order = cols.argsort(kind="stable")
    indptr = np.zeros(n_cols + 1, dtype=np.promote_types(cols.dtype, np.int32))
    indptr[1:] = np.bincount(cols, minlength=n_cols).cumsum()
    out = sp.csr_array((data[order], rows[order].astype(indptr.dtype), indptr),
                       shape=(n_cols, n_rows))
    out.has_canonical_format = True
    return out


def payoff_scaling(sf: SequenceForm, payoff_player: int, exact: bool = False,
                   largest=BAND) -> PayoffScaling:
    """The unit-range scaling of ``payoff_player``'s payoffs (:mod:`lpgame.lp.scaling`).

    Plain leaves are shifted and scaled; structured payoffs (showdown or signal tables, whose LP
    terms are not one reach-weighted leaf payoff each) are scaled only, by all players' bounds. In
    floating-point mode, payoffs that floats cannot carry are refused by name first. Half-ranges up
    to ``largest`` are not scaled down (the security LP passes :data:`LARGEST_UNSCALED_HALF_RANGE`;
    the default is the common band, for the Stackelberg MILPs that read this too).
    """
    game = sf.game
    structured = sf.payoff_structure is not None
    what = f"{game.name}, payoffs of {game.player_names[payoff_player]}"
    if exact and not structured:
        lo, hi = float_bounds(sf.terminal_payoffs[:, payoff_player])
        magnitude = max(abs(lo), abs(hi))
        if not (np.isfinite(lo) and np.isfinite(hi)) or hi - lo <= 1e-12 * magnitude:
            # beyond the double range, or differences floats do not resolve: the exact bounds
            # (any shift is exact in rationals, so float bounds serve where they resolve)
            _, payoffs = sf.exact_terminal_data()
            lo, hi = exact_bounds(row[payoff_player] for row in payoffs)
        return unit_range_scaling(lo, hi, exact=True, largest=largest)
    if structured:
        lo, hi = game._payoff_bounds()
    else:
        lo, hi = float_bounds(sf.terminal_payoffs[:, payoff_player])
    if not exact:
        check_float_payoffs(lo, hi, what)
    elif not (np.isfinite(lo) and np.isfinite(hi)):
        raise InvalidGameError(f"{what}: structured payoff tables must be finite floats")
    return unit_range_scaling(lo, hi, exact=exact, shift=not structured, largest=largest)


def scaled_payoff_matrix(sf: SequenceForm, payoff_player: int, exact: bool = False,
                         largest=BAND):
    """(U', scaling): the sequence-form payoff matrix of the payoffs in unit-range form,
    U'[σ_1, σ_2] = Σ_z p_c(z) (u_i(z) − c) / s, as floats or (``exact``) a RationalMatrix."""
    scaling = payoff_scaling(sf, payoff_player, exact, largest)
    if sf.payoff_structure is not None:         # scale only: multiplying by 2^−k is exact
        if exact:
            U = sf.payoff_matrix_exact(payoff_player)
            inverse = 1 / Fraction(scaling.scale)
            out = RationalMatrix(U.shape, U.rows, U.cols, [v * inverse for v in U.data])
            return out, scaling
        U = sf.payoff_matrix(payoff_player)
        return sp.csr_array(U * (1.0 / scaling.float_scale)), scaling
    seqs = sf.terminal_sequences
    shape = (sf.num_sequences(0), sf.num_sequences(1))
    if exact and scaling.shift == 0 and scaling.exponent == 0:
        return sf.payoff_matrix_exact(payoff_player), scaling     # integer fast path, unscaled
    if exact:
        chance, payoffs = sf.exact_terminal_data()
        c, inverse = Fraction(scaling.shift), 1 / Fraction(scaling.scale)
        cache: dict = {}
        data = []
        for p, row in zip(chance, payoffs):
            key = (p, row[payoff_player])
            value = cache.get(key)
            if value is None:
                value = cache[key] = p * (Fraction(row[payoff_player]) - c) * inverse
            data.append(value)
        return RationalMatrix(shape, seqs[:, 0], seqs[:, 1], data), scaling
    unit = np.ldexp(sf.terminal_payoffs[:, payoff_player] - scaling.shift, -scaling.exponent)
    data = sf.terminal_chance * unit
    return sparse_from_coo(data, seqs[:, 0], seqs[:, 1], shape), scaling


class _PrefixLayout:
    """Sparse matrices of the cumulative sums of :func:`compressed_security_lp` for ``chains``
    chains of N = ``signals`` signals in blocks of ``block`` (one block of N: the plain chain).

    Variables are c (``chains``·N, chain-major) and P (``chains``·num_blocks, none for one block).
    ``within_rows`` (on c) are the [cumulative] rows' c-part; ``block_rows_on_blocks`` and
    ``block_rows_on_within`` the [block_cumulative] rows; ``sum_from_blocks`` maps P to its part
    of the sums, C = c + P[k(s) − 1] (c enters C with coefficient one).
    """

    def __init__(self, signals: int, chains: int, block: int):
        N = signals
        self.num_blocks = -(-N // block)
        n_c = N * chains
        g = np.arange(n_c)
        s = g % N
        chain = g // N
        first_in_block = s % block == 0
        # c[g] − c[g − 1] (not at a block's first signal)
        prev_rows = g[~first_in_block]
        self.within_rows = sp.csr_array(
            (np.concatenate([np.ones(n_c), -np.ones(len(prev_rows))]),
             (np.concatenate([g, prev_rows]), np.concatenate([g, prev_rows - 1]))),
            shape=(n_c, n_c))
        if self.num_blocks == 1:
            self.num_block_sums = 0
            return
        nb = self.num_blocks
        n_p = nb * chains
        j = np.arange(n_p)
        k = j % nb
        later = j[k > 0]
        self.num_block_sums = n_p
        self.block_rows_on_blocks = sp.csr_array(
            (np.concatenate([np.ones(n_p), -np.ones(len(later))]),
             (np.concatenate([j, later]), np.concatenate([j, later - 1]))), shape=(n_p, n_p))
        last_signal = np.minimum((k + 1) * block, N) - 1
        self.block_rows_on_within = sp.csr_array(
            (-np.ones(n_p), (j, (j // nb) * N + last_signal)), shape=(n_p, n_c))
        in_later_block = g[s >= block]
        self.sum_from_blocks = sp.csr_array(
            (np.ones(len(in_later_block)),
             (in_later_block, chain[in_later_block] * nb + s[in_later_block] // block - 1)),
            shape=(n_c, n_p))


def compressed_security_lp(sf: SequenceForm, player: int, payoff_player: int,
                           block: int | None = None) -> SecurityLP:
    """The security LP with showdown payoffs in cumulative-sum form (linear in the signals).

    Same LP as :func:`security_lp`, with the term (Uᵀx)[s_o, σ_o] of each ``best_response`` row
    rewritten through cumulative sums C_τ[s] = Σ_{s' ≤ s} x[s', τ] (one per public sequence τ of
    the optimiser that ends at a leaf). For a leaf ℓ with comparison payoffs (h, l, e) of the
    optimiser (see :mod:`lpgame.game.showdown`) and deal probability p:

        Σ_{s_i} W_ℓ[s_i, s_o] x[s_i, τ] = p·( h·(C_τ[N−1] − C_τ[s_o]) + l·C_τ[s_o − 1] + e·x[s_o, τ] ),

    the e-term only when equal signals can be dealt. Every row keeps O(1) nonzeros per leaf, so the
    LP has O(N·L) nonzeros instead of O(N²·L) (Farina 2023, §13.2.4 sparsification).

    Layout of the cumulative sums. With ``block`` ≥ N (the default below
    :data:`BLOCKED_SIGNALS_THRESHOLD` signals) C_τ is one chain of auxiliary variables,
    C_τ[s] − C_τ[s−1] − x[s, τ] = 0  [cumulative]. A chain of length N makes the constraint
    matrix's condition number grow like N (its inverse, the summation operator, has norm ≈ 2N/π),
    and an interior-point method loses its accuracy on it: Clarabel stalls on OCP(100000). With
    ``block`` = b < N the sums are kept in two levels: c_τ[s] = Σ of x[·, τ] from the start of s's
    block of b signals up to s, by c_τ[s] − c_τ[s−1] − x[s, τ] = 0 with c_τ[s−1] left out at a
    block's first signal [cumulative], and P_τ[k] = Σ of the blocks 0…k, by
    P_τ[k] − P_τ[k−1] − c_τ[last signal of block k] = 0 [block_cumulative]; then
    C_τ[s] = c_τ[s] + P_τ[k(s) − 1]. Chains are now at most max(b, N/b) long (b = ⌈√N⌉ by
    default), and each C-term of a payoff row costs two nonzeros instead of one.

    For scaling, the LP writes p = 1/N in place of the deal probability and v in the same units
    (``value_scale`` converts back); the ``best_response`` rows are the true ones times a positive
    constant and the objective is scaled alike, so their duals are still the opponent's
    realization plan.
    """
    st = sf.payoff_structure
    opponent = 1 - player
    N = st.num_signals
    if block is None:
        block = math.isqrt(N - 1) + 1 if N >= BLOCKED_SIGNALS_THRESHOLD else N
    block = max(1, min(int(block), N))
    # Scaling: each deal's probability 1/num_deals ≈ 1/N² is written as p = 1/N (the LP's payoff
    # coefficients are payoff/N, its values v are the true values × num_deals/N = (N−1) or N).
    # Then C (up to N), p·C and v are all O(1) per signal: with p = 1 (payoffs per deal) v[∅] is
    # O(N²) and HiGHS's interior-point method wrongly reported OCP(5000) dual infeasible; with
    # p = 1/num_deals the coefficients would fall under HiGHS's small_matrix_value (1e-9) for
    # N > 3·10⁴. Scaling the best_response rows and v together leaves their duals unchanged.
    p = 1.0 / N
    scaling = payoff_scaling(sf, payoff_player,     # payoffs / 2^k (lpgame.lp.scaling)
                             largest=LARGEST_UNSCALED_HALF_RANGE)
    unit_p = p / scaling.float_scale                # exact: a power-of-two factor
    F_i, F_o = sf.treeplex_matrix(player), sf.treeplex_matrix(opponent)
    name = f"security LP of {sf.game.player_names[player]} in {sf.game.name} (compressed payoffs)"
    description = ("  max f_oᵀv  s.t.  F_i x = f_i,  F_oᵀv − (cumulative-sum form of Uᵀx) ≤ 0,  "
                   + ("C_τ[s] − C_τ[s−1] − x[s, τ] = 0" if block == N else
                      f"c_τ[s] − c_τ[s−1] − x[s, τ] = 0 in blocks of {block} signals, "
                      "P_τ[k] − P_τ[k−1] − c_τ[end of block k] = 0"))
    lp = LinearProgram(name=name, description=description)
    x = lp.add_variables("x", sf.num_sequences(player), lower=0.0, labels=sf.sequence_labels(player))
    v = lp.add_variables("v", sf.num_infosets(opponent) + 1, lower=-np.inf,
                         labels=["∅"] + sf.infoset_labels(opponent))
    leaves = st.leaf_sequences
    own_col, opp_col = (0, 1) if player == 0 else (1, 0)
    chains = sorted({int(t) for t in leaves[:, own_col] if t})
    chain_of = {t: k for k, t in enumerate(chains)}
    layout = _PrefixLayout(N, len(chains), block)
    C = lp.add_variables("C", N * len(chains), lower=-np.inf,
                         labels=[f"{t}:{s}" for t in chains for s in range(N)])
    P = (lp.add_variables("P", layout.num_block_sums, lower=-np.inf,
                          labels=[f"{t}:block {k}" for t in chains for k in range(layout.num_blocks)])
         if layout.num_block_sums else None)
    lp.add_constraints("treeplex", [(x, F_i)], "==", sf.treeplex_rhs(player),
                       labels=["∅"] + sf.infoset_labels(player))
    # best_response rows: F_oᵀ v − (Uᵀ x) ≤ 0, the U-part as triplets on x and on the sums C_τ[s]
    rx, cx, dx, rc, cc, dc = [], [], [], [], [], []
    signals = np.arange(N)
    below = signals.astype(float)            # #{s' < s}
    above = (N - 1 - signals).astype(float)  # #{s' > s}
    for leaf in range(len(leaves)):
        tau, sigma = int(leaves[leaf, own_col]), int(leaves[leaf, opp_col])
        h, low, e = st.coefficients(leaf, player, payoff_player)
        if not st.distinct and e:
            pass
        else:
            e = 0.0
        if sigma:
            rows = st.sequence_block(opponent, sigma)
            if tau:
                base = chain_of[tau] * N
                # −p·h·C[N−1]
                rc.append(rows)
                cc.append(np.full(N, base + N - 1))
                dc.append(np.full(N, -unit_p * h))
                # +p·h·C[s_o]
                rc.append(rows)
                cc.append(base + signals)
                dc.append(np.full(N, unit_p * h))
                # −p·l·C[s_o − 1]
                rc.append(rows[1:])
                cc.append(base + signals[:-1])
                dc.append(np.full(N - 1, -unit_p * low))
                if e:
                    rx.append(rows)
                    cx.append(st.sequence_block(player, tau))
                    dx.append(np.full(N, -unit_p * e))
            else:   # the optimiser has not acted: x[∅] for every one of its signals
                coef = -unit_p * (h * below + low * above + e)
                rx.append(rows)
                cx.append(np.zeros(N, dtype=np.int64))
                dx.append(coef)
        else:       # the opponent has not acted: the ∅ row sums over the opponent's signals
            coef = -unit_p * (h * below + low * above + e)    # indexed by the optimiser's signal
            if tau:
                rx.append(np.zeros(N, dtype=np.int64))
                cx.append(st.sequence_block(player, tau))
                dx.append(coef)
            else:
                rx.append(np.zeros(1, dtype=np.int64))
                cx.append(np.zeros(1, dtype=np.int64))
                dx.append(np.array([coef.sum()]))
    m_o = sf.num_sequences(opponent)

    def triplets(r, c, d, cols):
        if not r:
            return sp.csr_array((m_o, cols))
        return sp.csr_array((np.concatenate(d), (np.concatenate(r), np.concatenate(c))),
                            shape=(m_o, cols))

    on_sums = triplets(rc, cc, dc, C.size)          # coefficients of the sums C_τ[s]
    on_sums.eliminate_zeros()   # terms of one leaf that cancel (e.g. −h·C[N−1] + h·C[s_o] at s_o = N−1)
    terms = [(v, F_o.T.tocsr()), (x, triplets(rx, cx, dx, x.size)),
             (C, on_sums)]
    if P is not None:
        terms.append((P, sp.csr_array(on_sums @ layout.sum_from_blocks)))
    lp.add_constraints("best_response", terms, "<=", np.zeros(m_o),
                       labels=sf.sequence_labels(opponent))
    if chains:
        pick_cols = np.concatenate([st.sequence_block(player, t) for t in chains])
        pick = sp.csr_array((np.full(C.size, -1.0), (np.arange(C.size), pick_cols)),
                            shape=(C.size, x.size))
        lp.add_constraints("cumulative", [(C, layout.within_rows), (x, pick)], "==",
                           np.zeros(C.size), labels=C.labels)
        if P is not None:
            lp.add_constraints("block_cumulative", [(P, layout.block_rows_on_blocks),
                                                    (C, layout.block_rows_on_within)], "==",
                               np.zeros(P.size), labels=P.labels)
    objective = np.zeros(v.size)
    objective[0] = 1.0
    lp.set_objective([(v, objective)], "max")
    # Dual simplex needs O(N) iterations of O(N) work on the cumulative chains; an interior-point
    # method needs ~15–25 iterations of near-linear work. HiGHS's IPX solves its normal equations
    # iteratively and slows down on the chains (OCP(20000): 104 s); Clarabel factorises them
    # directly (5 s) to tolerance 1e-12 (an interior point; crossover=True asks HiGHS for a vertex).
    preferred = "clarabel" if N >= IPM_SIGNALS_THRESHOLD else None
    return SecurityLP(lp, player, opponent, value_scale=1.0 / (p * st.num_deals),
                      preferred_solver=preferred, scaling=scaling)
