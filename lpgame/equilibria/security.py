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
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import scipy.sparse as sp

from lpgame.lp.linear_program import LinearProgram
from lpgame.rational import RationalMatrix
from lpgame.sequence_form import SequenceForm

IPM_SIGNALS_THRESHOLD = 2000
"""From this many private signals the compressed LP is solved by the interior-point method."""


@dataclass
class SecurityLP:
    """The LP and how to read it back."""

    lp: LinearProgram
    player: int           # the optimiser i
    opponent: int         # o
    value_scale: float = 1.0   # the game value is value_scale × the LP's optimum
    preferred_solver: str | None = None   # HiGHS solver to use when the caller names none

    def solve_options(self, options: dict) -> dict:
        """``options`` for :func:`lpgame.lp.solve_lp`, with the preferred solver where none is named."""
        if self.preferred_solver is None or "solver" in options:
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
    if compress and not exact and sf.payoff_structure is not None:
        return compressed_security_lp(sf, player, payoff_player)
    opponent = 1 - player
    if exact:
        U = sf.payoff_matrix_exact(payoff_player)   # rows: player 1's sequences
        if player == 1:
            U = U.T
        minus_Ut = -U.T
    else:
        U = sf.payoff_matrix(payoff_player)
        if player == 1:
            U = U.T
        minus_Ut = -(U.T.tocsr())
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
        lhs_v = F_o.T.tocsr()
    lp.add_constraints("best_response", [(v, lhs_v), (x, minus_Ut)], "<=",
                       [Fraction(0)] * sf.num_sequences(opponent) if exact
                       else np.zeros(sf.num_sequences(opponent)),
                       labels=sf.sequence_labels(opponent))
    objective = np.zeros(v.size)
    objective[0] = 1.0
    lp.set_objective([(v, objective)], "max")
    return SecurityLP(lp, player, opponent)


def compressed_security_lp(sf: SequenceForm, player: int, payoff_player: int) -> SecurityLP:
    """The security LP with showdown payoffs in cumulative-sum form (linear in the signals).

    Same LP as :func:`security_lp`, with the term (Uᵀx)[s_o, σ_o] of each ``best_response`` row
    rewritten through auxiliary variables C_τ[s] = Σ_{s' ≤ s} x[s', τ] (one chain per public
    sequence τ of the optimiser that ends at a leaf), defined by the rows
    C_τ[s] − C_τ[s−1] − x[s, τ] = 0  [cumulative]. For a leaf ℓ with comparison payoffs
    (h, l, e) of the optimiser (see :mod:`lpgame.game.showdown`) and deal probability p:

        Σ_{s_i} W_ℓ[s_i, s_o] x[s_i, τ] = p·( h·(C_τ[N−1] − C_τ[s_o]) + l·C_τ[s_o − 1] + e·x[s_o, τ] ),

    the e-term only when equal signals can be dealt. Every row keeps O(1) nonzeros per leaf, so the
    LP has O(N·L) nonzeros instead of O(N²·L) (Farina 2023, §13.2.4 sparsification). For scaling,
    the LP writes p = 1/N in place of the deal probability and v in the same units (``value_scale``
    converts back); the ``best_response`` rows are the true ones times a positive constant and the
    objective is scaled alike, so their duals are still the opponent's realization plan.
    """
    st = sf.payoff_structure
    opponent = 1 - player
    N = st.num_signals
    # Scaling: each deal's probability 1/num_deals ≈ 1/N² is written as p = 1/N (the LP's payoff
    # coefficients are payoff/N, its values v are the true values × num_deals/N = (N−1) or N).
    # Then C (up to N), p·C and v are all O(1) per signal: with p = 1 (payoffs per deal) v[∅] is
    # O(N²) and HiGHS's interior-point method wrongly reported OCP(5000) dual infeasible; with
    # p = 1/num_deals the coefficients would fall under HiGHS's small_matrix_value (1e-9) for
    # N > 3·10⁴. Scaling the best_response rows and v together leaves their duals unchanged.
    p = 1.0 / N
    F_i, F_o = sf.treeplex_matrix(player), sf.treeplex_matrix(opponent)
    name = f"security LP of {sf.game.player_names[player]} in {sf.game.name} (compressed payoffs)"
    lp = LinearProgram(name=name, description=(
        "  max f_oᵀv  s.t.  F_i x = f_i,  F_oᵀv − (cumulative-sum form of Uᵀx) ≤ 0,  "
        "C_τ[s] − C_τ[s−1] − x[s, τ] = 0"))
    x = lp.add_variables("x", sf.num_sequences(player), lower=0.0, labels=sf.sequence_labels(player))
    v = lp.add_variables("v", sf.num_infosets(opponent) + 1, lower=-np.inf,
                         labels=["∅"] + sf.infoset_labels(opponent))
    leaves = st.leaf_sequences
    own_col, opp_col = (0, 1) if player == 0 else (1, 0)
    chains = sorted({int(t) for t in leaves[:, own_col] if t})
    chain_of = {t: k for k, t in enumerate(chains)}
    C = lp.add_variables("C", N * len(chains), lower=-np.inf,
                         labels=[f"{t}:{s}" for t in chains for s in range(N)])
    lp.add_constraints("treeplex", [(x, F_i)], "==", sf.treeplex_rhs(player),
                       labels=["∅"] + sf.infoset_labels(player))
    # best_response rows: F_oᵀ v − (Uᵀ x) ≤ 0, the U-part as triplets on x and C
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
                dc.append(np.full(N, -p * h))
                # +p·h·C[s_o]
                rc.append(rows)
                cc.append(base + signals)
                dc.append(np.full(N, p * h))
                # −p·l·C[s_o − 1]
                rc.append(rows[1:])
                cc.append(base + signals[:-1])
                dc.append(np.full(N - 1, -p * low))
                if e:
                    rx.append(rows)
                    cx.append(st.sequence_block(player, tau))
                    dx.append(np.full(N, -p * e))
            else:   # the optimiser has not acted: x[∅] for every one of its signals
                coef = -p * (h * below + low * above + e)
                rx.append(rows)
                cx.append(np.zeros(N, dtype=np.int64))
                dx.append(coef)
        else:       # the opponent has not acted: the ∅ row sums over the opponent's signals
            coef = -p * (h * below + low * above + e)    # indexed by the optimiser's signal
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

    lp.add_constraints("best_response", [(v, F_o.T.tocsr()), (x, triplets(rx, cx, dx, x.size)),
                                         (C, triplets(rc, cc, dc, C.size))], "<=", np.zeros(m_o),
                       labels=sf.sequence_labels(opponent))
    if chains:
        # cumulative rows: C[k·N + s] − C[k·N + s − 1] − x[block_τ(s)] = 0
        n_c = C.size
        diag = sp.identity(n_c, format="csr")
        prev = sp.eye(n_c, k=-1, format="csr").tolil()
        for k in range(1, len(chains)):
            prev[k * N, k * N - 1] = 0.0   # chains do not link
        pick_cols = np.concatenate([st.sequence_block(player, t) for t in chains])
        pick = sp.csr_array((np.full(n_c, -1.0), (np.arange(n_c), pick_cols)), shape=(n_c, x.size))
        lp.add_constraints("cumulative", [(C, sp.csr_array(diag - prev.tocsr())), (x, pick)], "==",
                           np.zeros(n_c), labels=C.labels)
    objective = np.zeros(v.size)
    objective[0] = 1.0
    lp.set_objective([(v, objective)], "max")
    # Dual simplex needs O(N) iterations of O(N) work on the cumulative chains; the interior-point
    # method needs ~25 iterations of near-linear work. Measured (OCP(N), one core): N = 2000 the
    # same, N = 3000 5.8 s against 2.6 s, N = 5000 14.2 s against 4.7 s.
    preferred = "ipm" if N >= IPM_SIGNALS_THRESHOLD else None
    return SecurityLP(lp, player, opponent, value_scale=1.0 / (p * st.num_deals),
                      preferred_solver=preferred)
