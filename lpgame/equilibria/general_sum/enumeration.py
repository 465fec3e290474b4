"""All extreme Nash equilibria of a bimatrix game, and its maximal Nash subsets, in exact arithmetic.

Formulation: vertex enumeration of the best-response polytopes (Mangasarian 1964; von Stengel,
"Computing equilibria for two-person games", Handbook of Game Theory 3, 2002;
Avis, Rosenberg, Savani & von Stengel, "Enumeration of Nash equilibria for two-player games",
Economic Theory 42, 2010, the lrsnash method). For an m × n game (A, B), shifted so that A > 0 and
B > 0 (which changes no best response),

    P = { x ∈ R^m :  x ≥ 0,  Bᵀx ≤ 1 },        Q = { y ∈ R^n :  A y ≤ 1,  y ≥ 0 },

with labels 1..m for the strategies of player 1 and m+1..m+n for those of player 2: a point x ∈ P
has label i when x_i = 0 and label m+j when (Bᵀx)_j = 1; y ∈ Q has label m+j when y_j = 0 and
label i when (Ay)_i = 1. A pair (x, y) ∈ P × Q − {(0, 0)} with every label is a Nash equilibrium
after normalising x/Σx, y/Σy (each pure strategy is unplayed or a best response), and the
**extreme equilibria** are exactly the completely labelled pairs of *vertices* (Avis et al. 2010;
this holds for degenerate games too, where a vertex may have more than m labels).
The set of equilibria is the union of the **maximal Nash subsets** conv(X') × conv(Y'), one for
each maximal complete bipartite subgraph (X', Y') of the graph whose edges are the extreme
equilibria (Avis et al. 2010; what Gambit's and lrsnash's "cliques" report);
found here as the maximal cliques (networkx) of that graph with each side made complete.

Vertices are enumerated by a breadth-first search over the lexicographically feasible bases of
{v ≥ 0, Cv + s = 1} (:mod:`lpgame.equilibria.general_sum.enumeration_vertices` and, float-first,
:mod:`lpgame.equilibria.general_sum.enumeration_float`, where the formulation and the completeness
argument are stated): by default float-first, each basis solved in
floats with an a posteriori error bound, a decision taken in floats only where the bound separates
it and in exact integer arithmetic otherwise (near-degenerate bases, ties, near-zero pivots), so
the search visits exactly the bases of the exact one; each vertex of a reported equilibrium is then
recomputed in rationals and its labels checked. ``method="exact"`` pivots on integers throughout.
Coordinates are Fractions either way, and the two methods give identical results.

Why vertex enumeration and not support enumeration: support enumeration solves one linear system
per pair of equal-size supports and so, on a degenerate game, misses extreme equilibria whose
supports differ in size or are not unique (every game with a continuum of equilibria); an LP per
support pair finds one point per support, not its extreme points. Vertex enumeration is correct on
degenerate games by the theorem above. Measured against nashpy's support and vertex enumeration and
Gambit's enummixed in benchmarks/bench_general_sum.py.

Extensive games go through their reduced normal form (plans counted first by
:func:`lpgame.equilibria.correlated.reduced_plans.count_reduced_plans`; too many is refused with
:class:`~lpgame.errors.ModelTooLargeError`). Each equilibrium, mixed over reduced plans, is mapped to
realization plans (x = Σ_π μ(π)·π) and to behaviour strategies, and certified exactly by the
independent best-response path (:mod:`lpgame.analysis`): NashConv exactly 0.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from lpgame.equilibria.correlated.reduced_plans import (
    count_reduced_plans,
    enumerate_reduced_plans,
    plan_label,
)
from lpgame.equilibria.general_sum.enumeration_float import certified_vertex_sets
from lpgame.equilibria.general_sum.enumeration_vertices import (
    VertexSet,
    polytope_vertices,
    vertex_set,
)
from lpgame.equilibria.general_sum.lemke import solver_report
from lpgame.equilibria.profiles import certified_profile
from lpgame.errors import (
    ConceptMismatchError,
    ExactCheckError,
    ModelTooLargeError,
    OptionError,
)
from lpgame.io.json_io import number_to_json, strategies_to_json
from lpgame.rational import common_denominator
from lpgame.registry import Concept, Option, register
from lpgame.result import Certificate, Result, format_number, register_result_kind
from lpgame.sequence_form import SequenceForm

#: Default limit on |S_1|·|S_2| for enumeration (the number of vertices of P and Q can grow
#: exponentially in min(|S_1|, |S_2|); 10,000 pure profiles keeps a run of random games to minutes).
DEFAULT_MAX_PROFILES = 10_000

#: Vertices of P per block of the label matching (a block × |Q| × words int64 array of bit masks,
#: 62 labels a word).
PAIR_BLOCK = 2048


def _positive_integer_matrix(matrix: np.ndarray) -> np.ndarray:
    """A positive integer matrix with the same best responses: (M − min M + 1)·D for the common
    denominator D of the Fraction matrix M."""
    entries = matrix.ravel().tolist()
    if all(type(v) is int for v in entries):                 # integers already: D = 1
        values = matrix
    else:
        values, _ = common_denominator(entries)
        values = values.reshape(matrix.shape)
    low = min(values.ravel().tolist())
    return values - low + 1


# ------------------------------------------------------------------------------------ equilibria
@dataclass
class BimatrixEquilibria:
    """The extreme equilibria (pairs of indices into ``strategies``) and maximal Nash subsets."""

    strategies: list[list[tuple]]          # per player, its distinct extreme mixed strategies
    equilibria: list[tuple[int, int]]      # (index into strategies[0], index into strategies[1])
    nash_subsets: list[tuple[list[int], list[int]]]
    vertices: tuple[int, int]              # vertices of P and Q (0 included)
    seconds: float
    method: str = "exact"                  # how the vertices were found (VertexSet.method)
    exact_bases: tuple[int, int] = (0, 0)  # bases of P and Q decided in exact arithmetic
    bases: tuple[int, int] = (0, 0)        # bases of P and Q visited


def bimatrix_extreme_equilibria(a: np.ndarray, b: np.ndarray, time_limit: float | None = None,
                                method: str = "float") -> BimatrixEquilibria:
    """All extreme equilibria of the bimatrix game (A, B) (Fraction or integer object arrays).

    ``method="float"``: the vertices are enumerated float-first with exact decisions where the
    floats are unsure, and each reported vertex recomputed and checked in rationals
    (:func:`~lpgame.equilibria.general_sum.enumeration_float.certified_vertices`);
    ``method="exact"``: integer pivoting throughout. Both give the same answer, exactly.
    """
    if method not in ("float", "exact"):
        raise OptionError(f"enumeration method {method!r}: expected 'float' or 'exact'")
    start = time.perf_counter()
    deadline = None if time_limit is None else start + time_limit
    pa, pb = _positive_integer_matrix(np.asarray(a, dtype=object)), \
        _positive_integer_matrix(np.asarray(b, dtype=object))
    matrices = (pb.T.copy(), pa.copy())
    sets = [None, None] if method == "exact" else certified_vertex_sets(list(matrices), deadline)
    sets = [vs if vs is not None else _exact_vertices(c, deadline) for c, vs in zip(matrices, sets)]
    try:
        found = _complete_pairs(sets, a.shape, start)
    except ExactCheckError:
        if method == "exact":
            raise
        # a float bound failed its exact check (module docstring): the exact search decides
        found = _complete_pairs([_exact_vertices(c, deadline) for c in matrices], a.shape, start)
    return found


def _exact_vertices(matrix: np.ndarray, deadline: float | None) -> VertexSet:
    return vertex_set(matrix, polytope_vertices(matrix, deadline))


def _complete_pairs(sets: list[VertexSet], shape: tuple[int, int], start: float) -> BimatrixEquilibria:
    """The completely labelled pairs of nonzero vertices of P (``sets[0]``) and Q (``sets[1]``)."""
    m, n = shape
    p_set, q_set = sets
    # labels 0..m-1 (player 1's strategies), m..m+n-1 (player 2's): P's variables (x, s) are in
    # that order already, Q's (y, r) are not
    p_index = np.flatnonzero(~p_set.zero[:, :m].all(axis=1))         # the vertex 0 left out
    q_index = np.flatnonzero(~q_set.zero[:, :n].all(axis=1))
    mask_p = _label_masks(~p_set.zero[p_index])                     # the labels each one misses
    mask_q = _label_masks(~np.concatenate([q_set.zero[q_index, n:], q_set.zero[q_index, :n]], axis=1))
    pairs = []
    for lo in range(0, len(p_index), PAIR_BLOCK):                     # no label missing on both sides
        block = (mask_p[lo:lo + PAIR_BLOCK, None, :] & mask_q[None, :, :]).any(axis=2)
        pairs.extend((lo + i, j) for i, j in np.argwhere(~block).tolist())
    used_p = sorted({i for i, _ in pairs})
    used_q = sorted({j for _, j in pairs})
    index_p = {v: k for k, v in enumerate(used_p)}
    index_q = {v: k for k, v in enumerate(used_q)}
    strategies = [p_set.normalised(p_index[used_p].tolist()), q_set.normalised(q_index[used_q].tolist())]
    equilibria = sorted((index_p[i], index_q[j]) for i, j in pairs)
    return BimatrixEquilibria(strategies, equilibria, maximal_nash_subsets(equilibria),
                              (len(p_index) + 1, len(q_index) + 1),
                              time.perf_counter() - start,
                              method=" and ".join(sorted({p_set.method, q_set.method})),
                              exact_bases=(p_set.exact_bases, q_set.exact_bases),
                              bases=(p_set.bases_visited, q_set.bases_visited))


def _label_masks(missing: np.ndarray) -> np.ndarray:
    """Each row of a boolean matrix as bit masks, 62 labels per int64 word (integer arithmetic: no
    BLAS call, whose threads cost more than the work on small games)."""
    words = [(missing[:, lo:lo + 62] << np.arange(min(62, missing.shape[1] - lo), dtype=np.int64)
              ).sum(axis=1) for lo in range(0, missing.shape[1], 62)]
    return np.stack(words, axis=1) if words else np.zeros((len(missing), 1), dtype=np.int64)


def maximal_nash_subsets(equilibria: list[tuple[int, int]]) -> list[tuple[list[int], list[int]]]:
    """Maximal complete bipartite subgraphs (X', Y'), both sides non-empty, of the graph of
    extreme equilibria. These are the pairs with Y' = N(X') and X' = N(Y') (N: the common
    neighbours), so the sets Y' are the non-empty intersections of neighbourhoods N(x) of
    player-1 strategies (Ganter & Wille's formal concepts); each is found once, as bit masks."""
    neighbours: dict[int, int] = {}
    for i, j in equilibria:
        neighbours[i] = neighbours.get(i, 0) | (1 << j)
    intents: set[int] = set()
    for mask in neighbours.values():
        intents |= {mask & other for other in intents} | {mask}
    intents.discard(0)
    subsets = []
    for intent in intents:
        left = sorted(i for i, mask in neighbours.items() if mask & intent == intent)
        right = [j for j in range(intent.bit_length()) if intent >> j & 1]
        subsets.append((left, right))
    return sorted(subsets)


# ------------------------------------------------------------------------------------ the concept
@register_result_kind
@dataclass(kw_only=True)
class EquilibriaResult(Result):
    """Every extreme equilibrium (``extra["equilibria"]``) and the maximal Nash subsets
    (``extra["nash_subsets"]``); ``strategies``, ``values`` and ``certificate`` are the first
    equilibrium's. Printed as the list of equilibria."""

    kind = "equilibria"
    shown: int = field(default=20, repr=False)

    def headline(self) -> str:
        count = len(self.extra.get("equilibria", []))
        return f"{self.game}: nash, all {count} extreme equilibria"

    def body_lines(self, names: list[str], **options) -> list[str]:
        listed = self.extra.get("equilibria", [])
        lines = []
        for entry in listed[:self.shown]:
            values = ", ".join(f"{n} {format_number(_number(v))}" for n, v in zip(names, entry["values"]))
            lines.append("")
            lines.append(f"equilibrium {entry['index'] + 1}: {values}; NashConv {entry['nash_conv']}")
            for name, strategy in zip(names, entry["strategies"]):
                for infoset, row in strategy.items():
                    probs = "  ".join(f"{a}={p}" for a, p in row.items())
                    label = name if infoset == name else f"{name} at {infoset}"
                    lines.append(f"  {label}: {probs}")
        if len(listed) > self.shown:
            lines.append(f"... {len(listed) - self.shown} more equilibria; --json lists every one")
        subsets = self.extra.get("nash_subsets", [])
        lines.append("")
        lines.append(f"maximal Nash subsets ({len(subsets)}; each is every mix of its player-1 "
                     "strategies against every mix of its player-2 strategies):")
        for k, subset in enumerate(subsets):
            lines.append(f"  {k + 1}: equilibria {', '.join(str(i + 1) for i in subset['equilibria'])}"
                         f" (extreme strategies {subset['player_1']} × {subset['player_2']})")
        return lines


def _number(text):
    return Fraction(text) if isinstance(text, str) else text


def exact_reduced_payoffs(sf: SequenceForm, plans: list[np.ndarray]) -> list[np.ndarray]:
    """Both players' payoffs over pairs of reduced plans, as Fractions:
    u_i(π_1, π_2) = Σ_z p_c(z) u_i(z) π_1[σ_1(z)] π_2[σ_2(z)], accumulated per distinct
    sequence pair (σ_1, σ_2) on the blocks of plans that play to it."""
    chance, chance_den, payoffs, payoff_den = sf.exact_terminal_scaled()
    seqs = sf.terminal_sequences
    key = seqs[:, 0].astype(np.int64) * sf.num_sequences(1) + seqs[:, 1]
    unique, inverse = np.unique(key, return_inverse=True)
    out = []
    for i in range(2):
        weight = np.zeros(len(unique), dtype=object)
        weight[:] = 0
        np.add.at(weight, inverse, chance * payoffs[:, i])
        total = np.zeros((len(plans[0]), len(plans[1])), dtype=object)
        total[:, :] = 0
        for k, w in zip(unique.tolist(), weight.tolist()):
            if w:
                s1, s2 = divmod(k, sf.num_sequences(1))
                rows, cols = np.flatnonzero(plans[0][:, s1]), np.flatnonzero(plans[1][:, s2])
                total[np.ix_(rows, cols)] += w
        den = chance_den * payoff_den
        out.append(np.vectorize(lambda v, den=den: Fraction(v, den), otypes=[object])(total))
    return out


def check_enumeration_size(sf: SequenceForm, max_profiles: int) -> list[int]:
    """The reduced plan counts, or :class:`ModelTooLargeError` when |Π_1|·|Π_2| > max_profiles."""
    counts = [count_reduced_plans(sf, i) for i in range(2)]
    if math.prod(counts) > max_profiles:
        raise ModelTooLargeError(
            f"{sf.game.name}: enumerating all equilibria works on the (reduced) normal form, here "
            f"{counts[0]:,} × {counts[1]:,} = {math.prod(counts):,} pure profiles, more than "
            f"max_profiles = {max_profiles:,} (the number of vertices can grow exponentially); "
            "drop --all for one equilibrium by Lemke's algorithm, or raise max_profiles")
    return counts


def solve_enumeration(game, *, exact: bool = True, backend: str = "highs",
                      max_profiles: int = DEFAULT_MAX_PROFILES, **options) -> EquilibriaResult:
    """``concept="nash", enumerate=True``: every extreme equilibrium of a two-player game (of its
    reduced normal form for an extensive game), with the maximal Nash subsets, exactly certified.

    Enumeration is exact whatever ``exact`` says (there is no floating-point variant); the
    result's numbers are Fractions. ``options`` holds ``enumerate`` (which selected this entry)
    and the solver options, which enumeration does not use.
    """
    from lpgame.compile import compile_game

    started = time.perf_counter()
    sf = compile_game(game)
    if sf.num_players != 2:
        raise ConceptMismatchError(
            f"{sf.game.name}: enumerating Nash equilibria needs a two-player game; the game has "
            f"{sf.num_players} players (concepts for n players: 'ce', 'cce', 'efce', 'efcce')")
    check_enumeration_size(sf, max_profiles)
    plans = [enumerate_reduced_plans(sf, i, max_plans=max_profiles) for i in range(2)]
    a, b = exact_reduced_payoffs(sf, plans)
    found = bimatrix_extreme_equilibria(a, b, time_limit=options.get("time_limit"))
    labels = [[plan_label(sf, i, row) for row in plans[i]] for i in range(2)]
    plan_matrices = [p.astype(int).astype(object) for p in plans]
    listed, first = [], None
    for k, (i, j) in enumerate(found.equilibria):
        mixed = [found.strategies[0][i], found.strategies[1][j]]
        realization = [list(np.asarray(mu, dtype=object) @ plan_matrices[p])
                       for p, mu in enumerate(mixed)]
        strategies, unreached, rebuilt, ev, _ = certified_profile(sf, realization, exact=True)
        if ev.nash_conv != 0:
            raise ExactCheckError(f"enumeration: extreme equilibrium {k} has exact NashConv "
                                  f"{ev.nash_conv}, not 0")
        entry = {
            "index": k, "extreme_strategies": [i, j],
            "strategies": strategies_to_json(strategies),
            "values": [number_to_json(v) for v in ev.values],
            "best_response_gain": [number_to_json(g) for g in ev.best_response_gain],
            "nash_conv": number_to_json(ev.nash_conv),
        }
        if not _is_normal_form(game):
            entry["mixed_plans"] = [{labels[p][s]: number_to_json(q) for s, q in enumerate(mu) if q}
                                    for p, mu in enumerate(mixed)]
        listed.append(entry)
        if first is None:
            first = (strategies, unreached, rebuilt, ev)
    strategies, unreached, rebuilt, ev = first
    subsets = [{"player_1": left, "player_2": right,
                "equilibria": [e["index"] for e in listed
                               if e["extreme_strategies"][0] in left
                               and e["extreme_strategies"][1] in right]}
               for left, right in found.nash_subsets]
    cert = Certificate(ev.nash_conv, ev.exploitability, ev.best_response_gain, True,
                       extra={"equilibria_certified": len(listed)})
    m, n = len(plans[0]), len(plans[1])
    return EquilibriaResult(
        game=sf.game.name, concept="nash", variant="enumeration", value=ev.values[0],
        values=list(ev.values), strategies=strategies, certificate=cert,
        size={"rows": m, "cols": n, "nnz": m * n},
        seconds={"solve": found.seconds, "total": time.perf_counter() - started},
        backend=backend, exact=True, unreached=unreached, plans=rebuilt,
        solver=solver_report(True, "vertex enumeration of the best-response polytopes "
                                   f"({found.method})"),
        extra={"equilibria": listed, "nash_subsets": subsets,
               "enumeration": {"method": "vertex enumeration of the best-response polytopes "
                                         "(lexicographic basis search; float-first with exact "
                                         "decisions where unsure, or integer pivoting): "
                                         + found.method,
                               "strategies": [m, n], "vertices": list(found.vertices),
                               "count": len(listed),
                               "source": "Avis, Rosenberg, Savani & von Stengel 2010"}})


def _is_normal_form(game) -> bool:
    from lpgame.game.normal_form import NormalFormGame
    return isinstance(game, NormalFormGame)


register(Concept(
    name="nash", variant="enumeration", games=("general_sum",), requires=("enumerate",),
    solve=solve_enumeration,
    summary="every extreme Nash equilibrium of a two-player game (of the reduced normal form of an "
            "extensive game) and the maximal Nash subsets, in exact arithmetic",
    certificate="each extreme equilibrium's best-response gains, exactly 0, by the independent "
                "best-response path",
    source="Avis, Rosenberg, Savani & von Stengel 2010 (lrsnash); von Stengel 2002",
    options=(
        Option("enumerate", bool, False, "list every extreme equilibrium (vertex enumeration)",
               flag="--all"),
        Option("max_profiles", int, DEFAULT_MAX_PROFILES,
               "refuse games whose (reduced) normal form has more pure profiles than this"),
    ),
))
