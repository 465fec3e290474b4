"""Correlated equilibria: normal-form CE/CCE, optimal EFCE/EFCCE/NFCCE, gap checkers.

Sources the assertions rest on (none of them lpgame itself):

* Chicken's maximum-welfare CE 10.5 with μ(C,C) = 1/2, μ(C,D) = μ(D,C) = 1/4 (Aumann 1974;
  notes/farina-thesis.md §3.1 and §7); battle of the sexes' CE ψ(ballet, ballet) =
  ψ(baseball, baseball) = 1/2 giving 3/2 each (Rojas Linárez 2020, l. 446; notes rojas §1.3).
* Kuhn poker: 27 and 64 reduced plans (farina §1.2), value −1/18 (Kuhn 1950), not triangle-free
  (farina §1.7 "Warning for lpgame").
* Brute force written here, on the networkx tree only: reduced plans enumerated from full pure
  strategies, trigger deviations of Farina 2023 Def. 8.1/8.2 (EFCE) and coarse trigger deviations
  (EFCCE, Farina, Bianchi & Sandholm 2020) enumerated one by one, LPs solved by scipy's linprog.
* A hand-computed CE/CCE gap of a non-equilibrium distribution of Chicken.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
from scipy.optimize import linprog

import lpgame
from lpgame.analysis.correlated_gaps import cce_gap, ce_gap, efcce_gap, efce_gap, nfcce_gap
from lpgame.equilibria.correlated.ce_cce import CorrelatedResult
from lpgame.equilibria.correlated.efce import CorrelationPlanSpace, decompose_plan
from lpgame.equilibria.correlated.reduced_plans import count_reduced_plans, reduced_normal_form
from lpgame.errors import ModelTooLargeError
from lpgame.game import GameBuilder, NormalFormGame

TOL = 1e-9


# ---------------------------------------------------------------------------------------- games
def staged_game(seed: int, public_chance: bool = True):
    """A public coin (optional), then P1 and P2 move simultaneously (a, b), both see (a, b), then
    P1 moves c, then P2 moves d without seeing c. Integer payoffs drawn from ``seed``.
    Public or no chance: triangle-free by Farina 2023, Thm 9.2."""
    rng = np.random.default_rng(seed)
    b = GameBuilder(2, name=f"staged({seed})")
    coins = ("H", "T") if public_chance else ("-",)
    root = b.chance() if public_chance else None
    for coin in coins:
        if public_chance:
            n1 = b.decision(0, f"P1 {coin}", parent=root, action=coin, prob=Fraction(1, 2))
        else:
            n1 = b.decision(0, f"P1 {coin}")
        for a in ("a0", "a1"):
            n2 = b.decision(1, f"P2 {coin}", parent=n1, action=a)
            for bb in ("b0", "b1"):
                n3 = b.decision(0, f"P1 {coin} {a} {bb}", parent=n2, action=bb)
                for c in ("c0", "c1"):
                    n4 = b.decision(1, f"P2 {coin} {a} {bb}", parent=n3, action=c)
                    for d in ("d0", "d1"):
                        u = rng.integers(-3, 7, size=2)
                        b.terminal((int(u[0]), int(u[1])), parent=n4, action=d)
    return b.build()


def chicken():
    return lpgame.games.make("chicken")


# ---------------------------------------------------------------------------------------- brute force
class BruteForce:
    """Reduced plans, payoffs and trigger deviations computed from the networkx tree alone."""

    def __init__(self, game):
        self.g, self.root = game.graph, game.root
        g = self.g
        self.infosets = [{}, {}]              # label -> list of nodes
        for node, data in g.nodes(data=True):
            if data["kind"] == "decision":
                self.infosets[data["player"]].setdefault(data["infoset"], []).append(node)
        self.actions = [{j: sorted(g.edges[nodes[0], c]["action"] for c in g.successors(nodes[0]))
                         for j, nodes in self.infosets[i].items()} for i in range(2)]
        # below[i][j]: player i's information sets with a node under a node of j (j included)
        self.below = [{}, {}]
        for i in range(2):
            for j, nodes in self.infosets[i].items():
                desc = set(nodes).union(*(nx.descendants(g, n) for n in nodes))
                self.below[i][j] = {k for k, ns in self.infosets[i].items() if ns[0] in desc}
        self.plans = [self._reduced_plans(i) for i in range(2)]
        self.index = [{self._key(p): k for k, p in enumerate(self.plans[i])} for i in range(2)]
        self.payoff = np.array([[self._value(p1, p2) for p2 in self.plans[1]]
                                for p1 in self.plans[0]])                   # (|Π1|, |Π2|, 2)

    def connected(self, j1: str, j2: str) -> bool:
        """j1 ⇌ j2: a node of one lies on the root path of a node of the other."""
        for u in self.infosets[0][j1]:
            above = nx.ancestors(self.g, u)
            for v in self.infosets[1][j2]:
                if v in above or u in nx.ancestors(self.g, v):
                    return True
        return False

    def parent_sequence(self, player: int, j: str):
        """(information set, action) of the player's last move above j, or None."""
        node = self.infosets[player][j][0]
        while True:
            parents = list(self.g.predecessors(node))
            if not parents:
                return None
            up = parents[0]
            data = self.g.nodes[up]
            if data["kind"] == "decision" and data["player"] == player:
                return data["infoset"], self.g.edges[up, node]["action"]
            node = up

    @staticmethod
    def _key(plan: dict) -> tuple:
        return tuple(sorted(plan.items()))

    def _reached(self, player: int, full: dict) -> dict:
        """The reduced plan of a full pure strategy: the information sets its own moves reach."""
        out, stack = {}, [self.root]
        while stack:
            node = stack.pop()
            data = self.g.nodes[node]
            if data["kind"] == "terminal":
                continue
            children = list(self.g.successors(node))
            if data["kind"] == "decision" and data["player"] == player:
                out[data["infoset"]] = full[data["infoset"]]
                children = [c for c in children
                            if self.g.edges[node, c]["action"] == full[data["infoset"]]]
            stack.extend(children)
        return out

    def _reduced_plans(self, player: int) -> list[dict]:
        labels = sorted(self.actions[player])
        seen, plans = set(), []
        for choice in itertools.product(*(self.actions[player][j] for j in labels)):
            reduced = self._reached(player, dict(zip(labels, choice)))
            key = self._key(reduced)
            if key not in seen:
                seen.add(key)
                plans.append(reduced)
        return plans

    def _value(self, p1: dict, p2: dict) -> np.ndarray:
        plans = (p1, p2)

        def walk(node) -> np.ndarray:
            data = self.g.nodes[node]
            if data["kind"] == "terminal":
                return np.array([float(u) for u in data["payoffs"]])
            if data["kind"] == "chance":
                return sum(float(self.g.edges[node, c]["prob"]) * walk(c)
                           for c in self.g.successors(node))
            act = plans[data["player"]][data["infoset"]]
            child = next(c for c in self.g.successors(node) if self.g.edges[node, c]["action"] == act)
            return walk(child)
        return walk(self.root)

    def deviations(self, player: int, coarse: bool):
        """Trigger deviations: (trigger, [(plan k, deviated plan k') for plans the trigger fires
        on]); EFCE triggers are (j, a) and fire when the plan plays a at j; EFCCE triggers are j
        and fire when the plan reaches j. Each continuation is the part below j of a plan
        reaching j (Farina 2023, Def. 8.1)."""
        out = []
        for j in sorted(self.actions[player]):
            sub = self.below[player][j]
            continuations = {self._key({k: v for k, v in p.items() if k in sub})
                             for p in self.plans[player] if j in p}
            for a in ([None] if coarse else self.actions[player][j]):
                for cont in sorted(continuations):
                    pairs = []
                    for k, p in enumerate(self.plans[player]):
                        if j not in p or (a is not None and p[j] != a):
                            continue
                        new = {kk: v for kk, v in p.items() if kk not in sub}
                        new.update(dict(cont))
                        pairs.append((k, self.index[player][self._key(new)]))
                    out.append(((j, a, cont), pairs))
        return out

    def gain_rows(self, coarse: bool) -> np.ndarray:
        """One row per deviation: μ ↦ expected gain (linear in μ over Π1 × Π2, flat)."""
        k1, k2 = len(self.plans[0]), len(self.plans[1])
        rows = []
        for player in range(2):
            for _trigger, pairs in self.deviations(player, coarse):
                row = np.zeros((k1, k2))
                for k, dev in pairs:
                    if player == 0:
                        row[k, :] += self.payoff[dev, :, 0] - self.payoff[k, :, 0]
                    else:
                        row[:, k] += self.payoff[:, dev, 1] - self.payoff[:, k, 1]
                rows.append(row.ravel())
        return np.array(rows)

    def optimum(self, weights, coarse: bool) -> float:
        """max Σ μ (w·u) s.t. every deviation gain ≤ 0 (scipy linprog)."""
        k = len(self.plans[0]) * len(self.plans[1])
        c = -(self.payoff @ np.asarray(weights, float)).ravel()
        rows = self.gain_rows(coarse)
        res = linprog(c, A_ub=rows, b_ub=np.zeros(len(rows)), A_eq=np.ones((1, k)), b_eq=[1.0],
                      bounds=(0, None), method="highs")
        assert res.status == 0, res.message
        return -res.fun

    def plan_of(self, sf, mu: np.ndarray) -> dict:
        """ξ = f(μ) as {(sequence label 1, sequence label 2): value} (Farina 2023, Def. 9.1)."""
        seqs = [[{"∅"} | {f"{j}:{a}" for j, a in p.items()} for p in self.plans[i]]
                for i in range(2)]
        labels = [sf.sequence_labels(i) for i in range(2)]
        member = [np.array([[lab in s for lab in labels[i]] for s in seqs[i]], float)
                  for i in range(2)]
        xi = member[0].T @ mu @ member[1]
        return {(labels[0][a], labels[1][b]): xi[a, b] for a, b in zip(*np.nonzero(xi))}


# ---------------------------------------------------------------------------------------- normal form
def test_chicken_max_welfare_ce_is_10_5():
    r = lpgame.solve(chicken(), concept="ce", objective="welfare")
    assert isinstance(r, CorrelatedResult)
    assert r.objective == pytest.approx(10.5, abs=1e-9)
    assert r.payoffs == pytest.approx([5.25, 5.25], abs=1e-9)
    # actions [C, D]: μ(C,C) = 1/2, μ(C,D) = μ(D,C) = 1/4, μ(D,D) = 0
    np.testing.assert_allclose(r.raw, [[0.5, 0.25], [0.25, 0.0]], atol=1e-9)
    assert r.gap <= TOL and r.optimal and not r.exact     # optimal, in floating point


def test_chicken_efce_equals_ce_in_the_one_shot_game():
    for concept in ("efce", "efcce", "nfcce", "cce"):
        r = lpgame.solve(chicken(), concept=concept)
        assert r.gap <= TOL
    assert lpgame.solve(chicken(), concept="efce").objective == pytest.approx(10.5, abs=1e-9)


def test_battle_of_the_sexes_ce_gives_three_halves_each():
    game = lpgame.games.make("battle_of_the_sexes")
    best = lpgame.solve(game, concept="ce", objective="welfare")
    assert best.objective == pytest.approx(3.0, abs=1e-9)
    r1 = lpgame.solve(game, concept="ce", objective="player1")
    r2 = lpgame.solve(game, concept="ce", objective="player2")
    assert r1.objective == pytest.approx(2.0) and r2.objective == pytest.approx(2.0)
    mixed = (r1.raw + r2.raw) / 2       # the CE set is convex (Rojas Thm 1.15)
    np.testing.assert_allclose(mixed, [[0.5, 0.0], [0.0, 0.5]], atol=1e-9)
    assert ce_gap(game, mixed).gap <= TOL
    payoffs = [float(np.sum(mixed * game.payoff_array(i))) for i in range(2)]
    assert payoffs == pytest.approx([1.5, 1.5])


def test_ce_gap_of_hand_made_distribution():
    # rows P1 ∈ {C, D}, columns P2 ∈ {C, D}; gains computed by hand in the comments
    psi = np.array([[0.4, 0.1], [0.3, 0.2]])
    # P1: told C: 0.4·7 − (0.4·6 + 0.1·2) = 0.2; told D: 0.3·6 + 0.2·2 − 0.3·7 = 0.1
    # P2: told C: 0.4·7 − (0.4·6 + 0.3·2) = −0.2; told D: 0.1·6 + 0.2·2 − 0.1·7 = 0.3
    g = ce_gap(chicken(), psi)
    assert g.gap == pytest.approx(0.3) and g.gains == pytest.approx([0.2, 0.3])
    assert g.worst == {"player": 2, "recommended": "D", "deviation": "C"}
    # CCE: P1 value 4.7, always-D against P2's marginal (0.7, 0.3) gives 4.9; P2 value 3.7,
    # always-C against P1's marginal (0.5, 0.5) gives 4.0
    c = cce_gap(chicken(), psi)
    assert c.gains == pytest.approx([0.2, 0.3]) and c.gap == pytest.approx(0.3)
    assert ce_gap(chicken(), [[0.5, 0.25], [0.25, 0.0]]).gap == pytest.approx(0.0, abs=1e-12)


def test_n_player_ce_and_cce_match_a_dense_formulation():
    rng = np.random.default_rng(3)
    shape = (2, 3, 2)
    payoffs = rng.integers(-4, 5, size=(3,) + shape)
    game = NormalFormGame(payoffs, name="random 2x3x2")
    profiles = list(itertools.product(*map(range, shape)))
    for concept in ("ce", "cce"):
        rows = []
        for i in range(3):
            for x in range(shape[i]):
                for y in range(shape[i]):
                    if concept == "ce" and x == y:
                        continue
                    row = np.zeros(len(profiles))
                    for k, s in enumerate(profiles):
                        if concept == "ce" and s[i] != x:
                            continue
                        dev = list(s)
                        dev[i] = y
                        row[k] = payoffs[i][tuple(dev)] - payoffs[i][s]
                    if concept == "ce" or x == 0:
                        rows.append(row)
        for objective, w in (("welfare", [1, 1, 1]), ("player3", [0, 0, 1]), ((1, 2, 0), [1, 2, 0])):
            c = -np.array([sum(w[i] * payoffs[i][s] for i in range(3)) for s in profiles])
            ref = linprog(c, A_ub=np.array(rows), b_ub=np.zeros(len(rows)),
                          A_eq=np.ones((1, len(profiles))),
                          b_eq=[1], bounds=(0, None), method="highs")
            r = lpgame.solve(game, concept=concept, objective=objective)
            assert r.objective == pytest.approx(-ref.fun, abs=1e-9)
            assert r.gap <= TOL


# ---------------------------------------------------------------------------------------- Kuhn
def test_kuhn_reduced_plan_counts_and_refusal():
    sf = lpgame.compile_game(lpgame.games.make("kuhn_poker"))
    assert [count_reduced_plans(sf, i) for i in range(2)] == [27, 64]
    form = reduced_normal_form(sf)
    assert form.shape == (27, 64)
    with pytest.raises(ModelTooLargeError, match=r"27 × 64 = 1,728"):
        lpgame.solve(lpgame.games.make("kuhn_poker"), concept="ce", max_profiles=1000)


def test_kuhn_normal_form_ce_pays_the_game_value():
    game = lpgame.games.make("kuhn_poker")
    for concept in ("ce", "cce"):
        r = lpgame.solve(game, concept=concept, objective="player1")
        assert r.objective == pytest.approx(-1 / 18, abs=1e-9)
        assert r.gap <= TOL


def test_kuhn_is_not_triangle_free_and_its_efce_is_a_relaxation_bound():
    game = lpgame.games.make("kuhn_poker")
    r = lpgame.solve(game, concept="efce", objective="player1")
    assert r.triangle_free is False and r.exact is False
    d = r.to_dict()
    # the relaxation's plan decomposes into a distribution over pure plan pairs, so its bound is
    # attained: the optimum is the EFCE optimum, and the result says so
    assert r.realisable is True and r.optimal is True and d["optimal"] is True
    assert d["bound"].startswith("optimal (the relaxation's bound is attained")
    r = lpgame.solve(game, concept="efce", objective="player1", decompose=False)
    assert r.realisable is None and r.optimal is False
    assert r.to_dict()["bound"] == "upper bound (relaxation)"
    assert d["triangle_free"] is False
    for key in ("objective", "payoffs", "gap", "correlation_plan"):
        assert key in d
    # zero-sum: every EFCE pays the value, and so does the relaxation (its ∅-marginals are plans)
    assert r.objective == pytest.approx(-1 / 18, abs=1e-9)
    assert r.gap <= TOL
    # the witness satisfies Def. 9.5, checked on the tree: j1⇌j2, j1'⇌j2', j1⇌j2', with equal
    # parent sequences within each player
    sf = lpgame.compile_game(game)
    j1, j2, j1p, j2p = CorrelationPlanSpace(sf).triangle()
    brute = BruteForce(game)
    assert [len(p) for p in brute.plans] == [27, 64]
    assert brute.connected(j1, j2) and brute.connected(j1p, j2p) and brute.connected(j1, j2p)
    assert j1 != j1p and j2 != j2p
    assert brute.parent_sequence(0, j1) == brute.parent_sequence(0, j1p)
    assert brute.parent_sequence(1, j2) == brute.parent_sequence(1, j2p)


# ---------------------------------------------------------------------------------------- EFCE
@pytest.mark.parametrize("seed", [8, 12])
@pytest.mark.slow
def test_efce_and_efcce_equal_brute_force_on_triangle_free_game(seed):
    game = staged_game(seed)
    sf = lpgame.compile_game(game)
    assert CorrelationPlanSpace(sf).triangle_free
    brute = BruteForce(game)
    assert [len(p) for p in brute.plans] == [count_reduced_plans(sf, i) for i in range(2)]
    for objective, w in (("welfare", (1, 1)), ("player1", (1, 0)), ((2, 1), (2, 1))):
        efce = lpgame.solve(game, concept="efce", objective=objective)
        efcce = lpgame.solve(game, concept="efcce", objective=objective)
        assert efce.optimal and efce.triangle_free
        brute_efce, brute_efcce = brute.optimum(w, coarse=False), brute.optimum(w, coarse=True)
        assert efce.objective == pytest.approx(brute_efce, abs=1e-7)
        assert efcce.objective == pytest.approx(brute_efcce, abs=1e-7)
        assert efce.gap <= TOL and efcce.gap <= TOL
        if objective == "player1":      # these games separate the two concepts
            assert brute_efce < brute_efcce - 1e-4


@pytest.mark.parametrize("seed", [5, 8, 12])
@pytest.mark.slow
def test_optima_are_ordered_nfce_efce_efcce_nfcce(seed):
    game = staged_game(seed)
    for objective in ("welfare", "player1"):
        values = {c: lpgame.solve(game, concept=c, objective=objective).objective
                  for c in ("ce", "efce", "efcce", "nfcce", "cce")}
        slack = 1e-8
        assert values["ce"] <= values["efce"] + slack
        assert values["efce"] <= values["efcce"] + slack
        assert values["efcce"] <= values["nfcce"] + slack
        # triangle-free: the correlation-plan NFCCE equals the CCE of the reduced normal form
        assert values["nfcce"] == pytest.approx(values["cce"], abs=1e-7)


def test_gap_checkers_agree_with_enumerated_deviations():
    game = staged_game(11)
    sf = lpgame.compile_game(game)
    brute = BruteForce(game)
    rng = np.random.default_rng(0)
    for _ in range(3):
        mu = rng.dirichlet(np.full(len(brute.plans[0]) * len(brute.plans[1]), 0.3))
        plan = brute.plan_of(sf, mu.reshape(len(brute.plans[0]), -1))
        for coarse, checker in ((False, efce_gap), (True, efcce_gap)):
            expected = (brute.gain_rows(coarse) @ mu).max()
            got = checker(sf, plan)
            assert got.largest_gain == pytest.approx(expected, abs=1e-9)
            assert got.plan_residual <= 1e-12
        # NFCCE: deviating to a fixed reduced plan, against the opponent's marginal
        value = np.einsum("ab,abi->i", mu.reshape(len(brute.plans[0]), -1), brute.payoff)
        marg2, marg1 = mu.reshape(len(brute.plans[0]), -1).sum(0), \
            mu.reshape(len(brute.plans[0]), -1).sum(1)
        best = max((brute.payoff[:, :, 0] @ marg2).max() - value[0],
                   (marg1 @ brute.payoff[:, :, 1]).max() - value[1])
        assert nfcce_gap(sf, plan).largest_gain == pytest.approx(best, abs=1e-9)


def test_decomposition_realises_the_plan_on_a_triangle_free_game():
    game = staged_game(4)
    sf = lpgame.compile_game(game)
    r = lpgame.solve(game, concept="efce", objective="welfare", decompose=True)
    assert r.realisable is True and r.extra["decomposition_residual"] <= 1e-7
    dec = decompose_plan(sf, r.raw)
    # the decomposed distribution is itself an EFCE by the enumerated deviations
    brute = BruteForce(game)
    mu = np.zeros((len(brute.plans[0]), len(brute.plans[1])))
    labels = [sf.sequence_labels(i) for i in range(2)]
    for a in range(dec.distribution.shape[0]):
        for b in range(dec.distribution.shape[1]):
            if dec.distribution[a, b] > 0:
                keys = []
                for i, row in enumerate((dec.plans[0][a], dec.plans[1][b])):
                    chosen = [labels[i][s] for s in np.flatnonzero(row) if s]
                    keys.append(brute.index[i][BruteForce._key(
                        dict(lab.rsplit(":", 1) for lab in chosen))])
                mu[keys[0], keys[1]] += dec.distribution[a, b]
    assert (brute.gain_rows(False) @ mu.ravel()).max() <= 1e-7
    assert float(np.sum(mu * (brute.payoff @ np.ones(2)))) == pytest.approx(r.objective, abs=1e-7)


def test_no_chance_games_are_triangle_free():
    for seed in range(3):
        assert CorrelationPlanSpace(lpgame.compile_game(staged_game(seed, False))).triangle_free


def test_result_json_keys():
    r = lpgame.solve(staged_game(3), concept="efce", objective=(1, 2))
    d = r.to_dict()
    for key in ("objective", "payoffs", "gap", "optimal", "triangle_free", "correlation_plan"):
        assert key in d
    assert d["optimal"] is True and d["exact"] is False and d["triangle_free"] is True
    assert len(d["payoffs"]) == 2
    assert d["weights"] == [1.0, 2.0]
    ce = lpgame.solve(chicken(), concept="ce").to_dict()
    assert {"objective", "payoffs", "gap", "optimal", "triangle_free", "distribution"} <= set(ce)


# ---------------------------------------------------------------------------------------- benchmarks
@pytest.mark.slow
def test_battleship_b2222_optimal_efce_three_objectives():
    game = lpgame.games.make("battleship", rows=2, cols=2, shots=2)
    sf = lpgame.compile_game(game)
    for objective in ("player1", "player2", "welfare"):
        r = lpgame.solve(sf, concept="efce", objective=objective)
        assert r.triangle_free and r.optimal
        assert r.gap <= TOL
        assert r.gap_detail["plan_residual"] <= 1e-9


def test_sheriff_s2122_optimal_efce_three_objectives():
    game = lpgame.games.make("sheriff", N=10, B=2, rounds=2)
    sf = lpgame.compile_game(game)
    assert sf.size()["terminals"] == 396                      # S2122 (farina §2.7)
    for objective in ("player1", "player2", "welfare"):
        r = lpgame.solve(sf, concept="efce", objective=objective)
        assert r.triangle_free and r.optimal                   # no chance: Farina 2023, Thm 9.2
        assert r.gap <= TOL
        assert r.gap_detail["plan_residual"] <= 1e-9


def test_interior_point_without_crossover_is_close_and_certified_by_the_gap():
    game = staged_game(8)
    basic = lpgame.solve(game, concept="efce", objective="player1")
    interior = lpgame.solve(game, concept="efce", objective="player1", crossover=False)
    assert interior.objective == pytest.approx(basic.objective, abs=1e-6)
    assert interior.gap <= 1e-6 and interior.gap_detail["plan_residual"] <= 1e-6
