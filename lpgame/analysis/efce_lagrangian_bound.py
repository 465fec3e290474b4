"""A certified upper bound on the optimal EFCE objective: weak duality of the Lagrangian.

Farina 2023, eq. (10.3). For any λ ≥ 0 and deviator points x_{i,σ̂} of the sets
co{0, 𝒬_{i,⪰j}}, OPT ≤ max_{ξ∈Ξ} cᵀξ − λ Σ ξᵀA_{i,σ̂}x_{i,σ̂}, because an EFCE has every trigger
gain ξᵀA x ≤ 0. The deviator points are rebuilt into their sets from whatever is given
(:meth:`lpgame.analysis.correlation_plan_gaps.TriggerGains.deviator_point`); the max is bounded
over S = {Mξ = e_0, 0 ≤ ξ ≤ 1} ⊇ Ξ (M: the von Stengel–Forges rows,
:func:`lpgame.analysis.correlation_plan_gaps.vsf_rows`) by any dual vector y, as

    max_S gᵀξ ≤ y_root + Σ max(0, g − Mᵀy),

so neither the points nor the maximiser need to be trusted. M is stored in CSR with int32
positions while they fit (float64 entries ±1), built one part at a time; g, y and the bound are
float64.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from lpgame.analysis.correlation_plan_gaps import TriggerGains, vsf_rows
from lpgame.errors import InvalidGameError, StrategyError
from lpgame.lp.sorted_keys import index_dtype, unique
from lpgame.sequence_form import SequenceForm


@dataclass
class CertifiedBound:
    """A certified upper bound on the optimal EFCE objective (see :class:`LagrangianBound`)."""

    value: float            # the bound: y_root + correction
    dual_value: float       # y_root (the maximiser's claimed max of the Lagrangian)
    correction: float       # Σ max(0, g − Mᵀy): what the dual vector fails to cover
    multiplier: float
    method: str             # "dual" (a given dual vector) or "lp" (HiGHS over V, its duals)
    ignored_rows: int = 0   # dual entries naming rows that are not von Stengel–Forges rows

    def to_dict(self) -> dict:
        return {"value": self.value, "dual_value": self.dual_value,
                "correction": self.correction, "lambda": self.multiplier,
                "method": self.method, "ignored_rows": self.ignored_rows}


class LagrangianBound:
    """Weak duality of the Lagrangian (Farina 2023, eq. (10.3)) as a certificate.

    For any λ ≥ 0 and any deviator points x_{i,σ̂} ∈ 𝒬_{i,σ̂} = co{0, 𝒬_{i,⪰j}}, every EFCE ξ
    has ξᵀA_{i,σ̂}x_{i,σ̂} ≤ 0 (its trigger gains are ≤ 0), so

        OPT ≤ max_{ξ ∈ Ξ} L(ξ) = max_{ξ ∈ Ξ} gᵀξ,   g = c − λ Σ_i Σ_σ̂ A_{i,σ̂} x_{i,σ̂}.

    Ξ ⊆ S = {ξ : Mξ = e_0, 0 ≤ ξ ≤ 1}, M the von Stengel–Forges rows (:func:`vsf_rows`) and
    the root row ξ[∅, ∅] = 1 (every pair's entry of a distribution's plan is a probability). For
    any vector y over M's rows, LP duality over S gives max_S gᵀξ ≤ y_root + Σ_pairs
    max(0, g − Mᵀy). That is the certified value: it holds for *every* y, so a wrong or inexact
    y (from a learner's dynamic programme, or HiGHS's duals) only loosens it.

    In triangle-free games S's projection on the relevant pairs is 𝒱 = Ξ (Thms 9.3–9.5) and the
    bound can close on the optimum (strong LP duality for the optimal-EFCE LP); in games with a
    triangle it is an upper bound on max over 𝒱 ⊇ Ξ, which can stay above the optimum.

    Everything here is computed from the game's leaves (payoffs, chance) by this module's own
    code; the deviator points are rebuilt by :meth:`TriggerGains.deviator_point`.
    """

    def __init__(self, sf: SequenceForm, kind: str = "efce",
                 gains: list[TriggerGains] | None = None):
        if sf.num_players != 2:
            raise InvalidGameError(f"{sf.game.name}: correlation plans are defined here for two "
                                   f"players, the game has {sf.num_players}")
        self.sf = sf
        self.gains = gains if gains is not None else [TriggerGains(sf, i, kind) for i in range(2)]
        n1, n2 = sf.num_sequences(0), sf.num_sequences(1)
        self.n2 = n2
        key_parts = [np.zeros(1, np.int64),
                     sf.terminal_sequences[:, 0].astype(np.int64) * n2 + sf.terminal_sequences[:, 1]]
        # the columns: every pair a trigger queries, the leaves, the rows' entries; merged one
        # part at a time (sorted unions) so that no concatenation of all parts is held at once
        keys = unique(np.concatenate(key_parts))
        for g in self.gains:
            if g.num_triggers:
                keys = unique(np.concatenate(
                    [keys, unique(g.query[0].astype(np.int64) * n2 + g.query[1])]))
        row_entries = []
        self.row_keys: list[np.ndarray] = []
        self.row_offset: list[int] = []
        offset = 1
        for i in range(2):
            p = self.sf.players[i]
            n_other = (n2, n1)[i]
            j, tau = vsf_rows(sf, i)
            self.row_keys.append(j * n_other + tau)
            na = p.infoset_num_actions[j]
            r = np.repeat(np.arange(j.size), na)
            loc = np.arange(int(na.sum())) - np.repeat(np.cumsum(na) - na, na)
            own = np.concatenate([p.infoset_first_seq[j][r] + loc, p.infoset_parent_seq[j]])
            del loc
            other = np.concatenate([tau[r], tau])
            k = own.astype(np.int64) * n2 + other if i == 0 else other * n2 + own
            del own, other
            row_entries.append((offset + np.concatenate([r, np.arange(j.size)]), k, r.size))
            keys = unique(np.concatenate([keys, unique(k)]))
            self.row_offset.append(offset)
            offset += j.size
        self.keys = keys
        del key_parts, keys
        # M in CSR with int32 positions while they fit (int64 otherwise); entries ±1 in float64
        ix = index_dtype(max(offset, self.keys.size))
        rows, cols, vals = [np.zeros(1, ix)], [np.zeros(1, ix)], [np.ones(1)]
        while row_entries:
            r, k, n_pos = row_entries.pop(0)
            rows.append(r.astype(ix))
            cols.append(np.searchsorted(self.keys, k).astype(ix))
            del r, k
            v = np.ones(cols[-1].size)
            v[n_pos:] = -1.0
            vals.append(v)
        self.num_rows = offset
        coo = sp.coo_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                           shape=(offset, self.keys.size))
        del rows, cols, vals
        self.matrix = sp.csr_array(coo)
        del coo
        self.leaf_col = np.searchsorted(
            self.keys, sf.terminal_sequences[:, 0].astype(np.int64) * n2 + sf.terminal_sequences[:, 1])
        self._transpose_cols: list[np.ndarray | None] = [None, None]

    @property
    def num_pairs(self) -> int:
        return int(self.keys.size)

    def lagrangian(self, weights, multiplier: float, deviators) -> np.ndarray:
        """g = c − λ Σ A x over this bound's pairs; ``deviators[i]`` = (deviate weights per
        trigger, continuation (triggers × sequences)) of player i, rebuilt into the sets."""
        if not float(multiplier) >= 0:
            raise StrategyError(f"the multiplier λ must be ≥ 0 for weak duality; got {multiplier}")
        w = np.asarray(weights, dtype=float)
        sf = self.sf
        g = np.bincount(self.leaf_col, weights=sf.terminal_chance * (sf.terminal_payoffs @ w),
                        minlength=self.num_pairs)
        for i, (check, dev) in enumerate(zip(self.gains, deviators)):
            if check.num_triggers == 0:
                continue
            e, y = check.deviator_point(*dev)
            s1, s2, v = check.transpose(e, y)
            if self._transpose_cols[i] is None:
                self._transpose_cols[i] = np.searchsorted(self.keys, s1.astype(np.int64) * self.n2 + s2)
            g -= float(multiplier) * np.bincount(self._transpose_cols[i], weights=v,
                                                 minlength=self.num_pairs)
        return g

    def certify(self, g: np.ndarray, root: float, rows: list[tuple[np.ndarray, np.ndarray,
                                                                   np.ndarray]]) -> tuple:
        """(bound, correction, ignored): y_root + Σ max(0, g − Mᵀy) for the dual vector given as
        the root's value and, per player, (information set j, other's sequence τ, value) rows."""
        y = np.zeros(self.num_rows)
        y[0] = float(root)
        ignored = 0
        for i, (j, tau, val) in enumerate(rows):
            n_other = (self.n2, self.sf.num_sequences(0))[i]
            keys = np.asarray(j, np.int64) * n_other + np.asarray(tau, np.int64)
            pos = np.searchsorted(self.row_keys[i], keys)
            pos_c = np.minimum(pos, max(self.row_keys[i].size - 1, 0))
            ok = (self.row_keys[i].size > 0) & (self.row_keys[i][pos_c] == keys)
            ignored += int((~ok).sum())
            np.add.at(y, self.row_offset[i] + pos_c[ok], np.asarray(val, float)[ok])
        slack = g - self.matrix.T @ y
        correction = float(np.maximum(slack, 0.0).sum())
        return float(root) + correction, correction, ignored

    def bound(self, weights, multiplier: float, deviators, dual=None) -> CertifiedBound:
        """The certified upper bound for (λ, x): with ``dual`` = (root value, rows) as in
        :meth:`certify`, or, when ``dual`` is None, HiGHS's max over S and its dual values
        (scipy's linprog; for small games)."""
        g = self.lagrangian(weights, multiplier, deviators)
        if dual is not None:
            value, corr, ignored = self.certify(g, dual[0], dual[1])
            return CertifiedBound(value, float(dual[0]), corr, float(multiplier), "dual", ignored)
        from scipy.optimize import linprog

        rhs = np.zeros(self.num_rows)
        rhs[0] = 1.0
        res = linprog(-g, A_eq=self.matrix, b_eq=rhs, bounds=(0.0, 1.0), method="highs")
        if res.status != 0:
            raise InvalidGameError(f"{self.sf.game.name}: HiGHS could not maximise the "
                                   f"Lagrangian over the von Stengel–Forges polytope: {res.message}")
        y = -np.asarray(res.eqlin.marginals)
        slack = g - self.matrix.T @ y
        correction = float(np.maximum(slack, 0.0).sum())
        return CertifiedBound(float(y[0]) + correction, float(y[0]), correction,
                              float(multiplier), "lp")
