"""Optimal EFCE of n-player games by column generation (lpgame.equilibria.correlated.efce_n_player), and the
independent n-player EFCE gap (lpgame.analysis.n_player_correlated_gaps).

The reference in this file is written from the definition (Farina 2023, Def. 8.1–8.2; notes
§1.6), not from lpgame's formulation: every player's pure strategies are enumerated here
(one action per information set, then reduced to the sequences they reach), every trigger
σ̂ = (j, a) and every pure continuation π̂ at j, and scipy's ``linprog`` solves

    max Σ_π μ(π) w·u(π)  s.t.  Σ_π μ(π) [u_i(φ_{σ̂→π̂}(π_i), π_{-i}) − u_i(π)] ≤ 0,  μ ∈ Δ

over ALL joint reduced plans. Random games: three-player normal forms (played as one-level trees)
and tiny three-player trees with chance and perfect recall (each player's information set is its
view of the history, as in tests/test_properties.py).
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

import lpgame
from lpgame import Game, NormalFormGame
from lpgame.analysis.n_player_correlated_gaps import n_player_efce_gap
from lpgame.cli import main
from lpgame.compile import compile_game
from lpgame.equilibria.correlated.ce_cce import objective_weights
from lpgame.equilibria.correlated.efce import solve_correlation_plan
from lpgame.equilibria.correlated.efce_n_player import solve_efce_column_generation
from lpgame.errors import ConceptMismatchError, LpgameError, OptionError
from lpgame.result import SolveResult

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ---------------------------------------------------------------------------- random games
@st.composite
def normal_form_games(draw, players: int = 3) -> NormalFormGame:
    shape = tuple(draw(st.integers(1, 3)) for _ in range(players))
    size = int(np.prod(shape)) * players
    entries = draw(st.lists(st.integers(-4, 4), min_size=size, max_size=size))
    return NormalFormGame(np.array(entries, dtype=object).reshape((players,) + shape),
                          name="random normal form")


@st.composite
def tree_games(draw, players: int = 3, max_depth: int = 3) -> Game:
    graph = nx.DiGraph()
    counter = itertools.count()
    num_actions: dict[str, int] = {}

    def grow(views: tuple, depth: int) -> int:
        node = next(counter)
        choice = 0 if depth >= max_depth else draw(st.integers(0 if depth else 1, players + 1))
        if choice == 0:
            graph.add_node(node, kind="terminal",
                           payoffs=tuple(draw(st.integers(-3, 3)) for _ in range(players)))
            return node
        if choice == players + 1:
            graph.add_node(node, kind="chance")
            weights = draw(st.lists(st.integers(1, 3), min_size=2, max_size=2))
            seen = [draw(st.booleans()) for _ in range(players)]
            for o, w in enumerate(weights):
                child_views = tuple(v + (("c", o),) if seen[i] else v for i, v in enumerate(views))
                graph.add_edge(node, grow(child_views, depth + 1), action=f"o{o}",
                               prob=Fraction(w, sum(weights)))
            return node
        player = choice - 1
        label = f"P{player + 1} {views[player]}"
        if label not in num_actions:
            num_actions[label] = draw(st.integers(2, 3))
        graph.add_node(node, kind="decision", player=player, infoset=label)
        sees = [draw(st.booleans()) for _ in range(players)]
        for a in range(num_actions[label]):
            child_views = tuple(
                v + (("own", a),) if i == player else (v + ((player, a),) if sees[i] else v)
                for i, v in enumerate(views))
            graph.add_edge(node, grow(child_views, depth + 1), action=f"a{a}")
        return node

    grow(tuple(() for _ in range(players)), 0)
    return Game(graph, players, root=0, name="random tree")


# ---------------------------------------------------------------------------- reference
def pure_plans(sf, player: int) -> np.ndarray:
    """Every reduced pure plan: one action per information set, then the sequences reached."""
    p = sf.players[player]
    plans = set()
    for choice in itertools.product(*[range(k) for k in p.infoset_num_actions]):
        x = [1] + [0] * (p.num_sequences - 1)
        for s in range(1, p.num_sequences):          # parents come before children
            j = int(p.seq_infoset[s])
            x[s] = int(x[p.infoset_parent_seq[j]] and choice[j] == p.seq_action[s])
        plans.add(tuple(x))
    return np.array(sorted(plans), dtype=np.int64)


def below(sf, player: int, j: int) -> np.ndarray:
    """The sequences at or below information set j (own tree)."""
    p = sf.players[player]
    out = []
    for s in range(1, p.num_sequences):
        k = int(p.seq_infoset[s])
        while k >= 0:
            if k == j:
                out.append(s)
                break
            parent = int(p.infoset_parent_seq[k])
            k = int(p.seq_infoset[parent]) if parent else -1
    return np.array(out, dtype=np.int64)


def utilities(sf, plans: list[np.ndarray]) -> np.ndarray:
    """u(π) for each joint plan of the arrays (one row per joint plan and player)."""
    seqs = sf.terminal_sequences
    reach = np.ones((plans[0].shape[0], seqs.shape[0]))
    for ell, pl in enumerate(plans):
        reach *= pl[:, seqs[:, ell]]
    return (reach * sf.terminal_chance) @ sf.terminal_payoffs


def brute_force(sf, weights):
    """The optimal EFCE over all joint reduced plans (module docstring): (optimum, plans, rows)."""
    n = sf.num_players
    own = [pure_plans(sf, i) for i in range(n)]
    joint = list(itertools.product(*[range(len(o)) for o in own]))
    plans = [np.array([own[i][c[i]] for c in joint]) for i in range(n)]
    base = utilities(sf, plans)
    rows = []
    for i in range(n):
        p = sf.players[i]
        for t in range(1, p.num_sequences):
            j = int(p.seq_infoset[t])
            sub = below(sf, i, j)
            reach_j = own[i][own[i][:, p.infoset_parent_seq[j]] == 1]
            for cont in {tuple(r[sub]) for r in reach_j}:
                dev = plans[i].copy()
                hit = dev[:, t] == 1
                dev[np.ix_(hit, sub)] = np.array(cont)
                moved = utilities(sf, [dev if ell == i else plans[ell] for ell in range(n)])
                rows.append(moved[:, i] - base[:, i])
    a_ub = np.array(rows) if rows else np.zeros((0, len(joint)))
    res = linprog(-(base @ weights), A_ub=a_ub, b_ub=np.zeros(a_ub.shape[0]),
                  A_eq=np.ones((1, len(joint))), b_eq=[1.0], bounds=(0, None), method="highs")
    assert res.status == 0, res.message
    return -res.fun, plans, a_ub


def brute_gap(a_ub: np.ndarray, mu: np.ndarray) -> float:
    return max(0.0, float((a_ub @ mu).max())) if a_ub.shape[0] else 0.0


# ---------------------------------------------------------------------------- the must-show tests
@SETTINGS
@given(game=st.one_of(normal_form_games().map(lambda g: g.to_extensive()), tree_games()),
       objective=st.sampled_from(["welfare", "player1", "player2", "player3"]))
@pytest.mark.slow
def test_column_generation_equals_the_brute_force_lp_on_random_three_player_games(game, objective):
    sf = compile_game(game)
    result = solve_efce_column_generation(game, objective=objective)
    w = np.zeros(3) if objective != "welfare" else np.ones(3)
    if objective != "welfare":
        w[int(objective[-1]) - 1] = 1.0
    optimum, _, _ = brute_force(sf, w)
    scale = max(1.0, float(np.ptp(sf.terminal_payoffs)))
    assert result.extra["status"] == "optimal"
    assert result.objective == pytest.approx(optimum, abs=1e-6 * scale)
    assert result.gap <= 1e-7 * scale
    assert result.extra["upper_bound"] >= optimum - 1e-6 * scale
    # every Lagrangian bound of the run (taken at mapped cut duals, possibly of a master whose
    # cuts were still incomplete) is an upper bound on the brute-force optimum
    bounds = [h["bound"] for h in result.extra["history"] if h.get("bound") is not None]
    assert all(b >= optimum - 1e-6 * scale for b in bounds)
    assert result.extra["cuts"] >= 0


@SETTINGS
@given(game=tree_games(), seed=st.integers(0, 2**31 - 1))
def test_cut_duals_map_to_dual_feasible_compact_duals(game, seed):
    """The master keeps trigger constraints as cuts; its row duals, mapped to the compact
    (v-form) LP, must satisfy every v-column's dual constraint exactly (written here from the
    formulation: for trigger t at j and j' ⪰ j, Σ_{a'} y_dev[t, j'a'] equals y_obey[t] when
    j' = j and y_dev[t, parent sequence of j'] otherwise) and have the sign of ≥ rows."""
    from lpgame.equilibria.correlated.efce_pricing import Model

    sf = compile_game(game)
    rng = np.random.default_rng(seed)
    model = Model(sf, np.ones(3))
    own = [pure_plans(sf, i) for i in range(3)]
    for _ in range(4):
        model.add([o[rng.integers(len(o))].astype(np.int8) for o in own], 1)
    for _ in range(3):
        _, mu, y, _ = model.solve_master(None)
        model.separate(mu, 1e-9)
    _, mu, y, _ = model.solve_master(None)
    for i, tr in enumerate(model.trees):
        p = sf.players[i]
        dev = y[model.dev_offset[i]:model.dev_offset[i] + tr.row_trigger.size]
        obey = y[model.obey_offset[i]:model.obey_offset[i] + tr.num_triggers]
        assert np.all(dev <= 1e-12) and np.all(obey <= 1e-12)
        table = {(int(t), int(q)): float(v) for t, q, v in zip(tr.row_trigger, tr.row_seq, dev)}
        for t in range(1, p.num_sequences):
            j = int(p.seq_infoset[t])
            seqs = set(below(sf, i, j).tolist())
            for jp in {int(p.seq_infoset[q]) for q in seqs}:
                first = int(p.infoset_first_seq[jp])
                out = sum(table[(t, first + a)] for a in range(int(p.infoset_num_actions[jp])))
                parent = int(p.infoset_parent_seq[jp])
                into = obey[t - 1] if jp == j else table[(t, parent)]
                assert out == pytest.approx(into, abs=1e-12)


@SETTINGS
@given(game=tree_games(), seed=st.integers(0, 2**31 - 1))
def test_independent_gap_equals_the_definition_on_random_distributions(game, seed):
    """n_player_efce_gap of a random μ equals the largest row of the brute-force constraints;
    exact mode agrees with floats."""
    sf = compile_game(game)
    _, plans, a_ub = brute_force(sf, np.ones(3))
    rng = np.random.default_rng(seed)
    k = plans[0].shape[0]
    support = rng.choice(k, size=min(k, 4), replace=False)
    mu = np.zeros(k)
    mu[support] = rng.integers(1, 5, size=support.size)
    mu /= mu.sum()
    check = n_player_efce_gap(sf, [p[support] for p in plans], mu[support])
    assert check.gap == pytest.approx(brute_gap(a_ub, mu), abs=1e-9)
    exact_mu = [Fraction(x).limit_denominator(100) for x in mu[support]]   # sums to 1 exactly
    exact = n_player_efce_gap(sf, [p[support] for p in plans], exact_mu, exact=True)
    assert isinstance(exact.gap, Fraction)
    assert float(exact.gap) == pytest.approx(check.gap, abs=1e-9)


@pytest.mark.parametrize("name,params", [("chicken", {}), ("kuhn_poker_rake", {}),
                                         ("sheriff", {"N": 1, "B": 2, "rounds": 2})])
@pytest.mark.parametrize("objective", ["welfare", "player1", "player2"])
def test_two_player_column_generation_equals_the_efce_lp(name, params, objective):
    game = lpgame.games.make(name, **params)
    lp = solve_correlation_plan(game, "efce", objective)
    assert lp.optimal
    cg = lpgame.solve(game, concept="efce", method="column_generation", objective=objective)
    assert cg.variant == "column_generation" and cg.extra["status"] == "optimal"
    assert cg.objective == pytest.approx(lp.objective, abs=1e-7)
    assert cg.gap <= 1e-7


@SETTINGS
@given(game=tree_games(players=2, max_depth=3))
@pytest.mark.slow
def test_two_player_random_trees_match_the_lp_where_it_is_exact(game):
    lp = solve_correlation_plan(game, "efce", "welfare")
    cg = solve_efce_column_generation(game, objective="welfare")
    if lp.optimal:
        assert cg.objective == pytest.approx(lp.objective, abs=1e-6)
    else:                       # the von Stengel–Forges relaxation bounds the optimum
        assert cg.objective <= lp.objective + 1e-6


# ---------------------------------------------------------------------------- dispatch, CLI
def test_three_player_efce_dispatches_to_column_generation_and_two_players_keep_the_lp():
    three = lpgame.games.make("kuhn_poker", players=3, cards=3)
    r = lpgame.solve(three, concept="efce", objective="player2", method="column_generation")
    assert r.variant == "column_generation" and r.extra["status"] == "optimal"
    assert r.gap <= 1e-7 and len(r.payoffs) == 3
    assert sum(d["probability"] for d in r.distribution) == pytest.approx(1.0)
    assert lpgame.solve("chicken", concept="efce").variant == "default"
    back = SolveResult.from_dict(json.loads(r.to_json()))
    assert type(back).__name__ == "ColumnGenerationCorrelatedResult"
    assert back.objective == pytest.approx(r.objective)


def test_cli_solves_three_player_kuhn(capsys):
    assert main(["solve", "kuhn_poker", "players=3", "cards=3", "--concept", "efce",
                 "--method", "column_generation",
                 "--objective", "player1", "--json", "-", "--quiet"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["variant"] == "column_generation" and obj["status"] == "optimal"
    assert obj["certificate"]["gain"] <= 1e-7


def test_exact_gap_where_asked():
    game = lpgame.games.make("kuhn_poker", players=3, cards=3)
    r = lpgame.solve(game, concept="efce", objective="player1", exact_gap=True)
    assert r.certificate.exact and isinstance(r.certificate.gain, Fraction)
    assert float(r.certificate.gain) <= 1e-7


# ---------------------------------------------------------------------------- bad input
def test_bad_objective_names_are_refused():
    game = lpgame.games.make("kuhn_poker", players=3, cards=3)
    with pytest.raises(LpgameError, match="players 1..3"):
        solve_efce_column_generation(game, objective="player4")
    with pytest.raises(LpgameError, match="unknown objective"):
        solve_efce_column_generation(game, objective="happiness")


def test_a_game_with_the_wrong_number_of_players_is_refused():
    with pytest.raises(LpgameError, match="has 2 players; this run needs 3"):
        solve_efce_column_generation(lpgame.games.make("chicken"), players=3)
    with pytest.raises(OptionError, match="column_generation"):
        lpgame.solve(lpgame.games.make("kuhn_poker", players=3), concept="efce",
                     method="learning")


def test_learning_still_refuses_three_players():
    with pytest.raises((ConceptMismatchError, OptionError)):
        lpgame.solve(lpgame.games.make("kuhn_poker", players=3), concept="efce",
                     method="learning", target_gap=0.01)


def test_time_limit_gives_a_labelled_partial_answer_with_its_measured_gap():
    game = lpgame.games.make("liars_dice", players=3, faces=2)
    r = solve_efce_column_generation(game, objective="player1", time_limit=3)
    assert r.extra["status"] == "time_limit" and not r.optimal
    assert "partial" in r.bound and "time_limit" in r.bound
    assert np.isfinite(r.gap) and r.gap >= 0
    assert r.gap_detail["gap"] == pytest.approx(r.gap)
    if r.extra["upper_bound"] is not None:
        assert r.extra["bound_gap"] == pytest.approx(r.extra["upper_bound"] - r.objective)
        if r.extra["phase"] == 2:
            assert r.extra["upper_bound"] >= r.objective - 1e-9


@SETTINGS
@given(game=tree_games(), objective=st.sampled_from(["welfare", "player1", "player3"]))
@pytest.mark.slow
def test_the_reported_bound_is_never_above_the_best_leaf(game, objective):
    """The objective is an expectation of w·u(z), so the bound a run reports is at most the best
    leaf's w·u (read here from the networkx tree): exactly that when the run stops before any
    Lagrangian round and without the tuple relaxation (max_columns=1), at most that otherwise;
    and always at least the brute-force optimal EFCE value."""
    sf = compile_game(game)
    w = objective_weights(objective, 3)
    best_leaf = max(float(np.dot(w, [float(u) for u in data["payoffs"]]))
                    for _, data in game.graph.nodes(data=True) if data["kind"] == "terminal")
    optimum, _, _ = brute_force(sf, w)
    stopped = solve_efce_column_generation(game, objective=objective, max_columns=1,
                                           tuple_bound=False)
    assert stopped.extra["status"] in ("column_limit", "optimal")
    if stopped.extra["status"] == "column_limit":
        assert stopped.extra["upper_bound"] == pytest.approx(best_leaf, abs=1e-12)
    for r in (stopped, solve_efce_column_generation(game, objective=objective, target_gap=0.01,
                                                    tuple_bound=False)):
        assert optimum - 1e-7 <= r.extra["upper_bound"] <= best_leaf + 1e-12


# ---------------------------------------------------------------------------- target gap
@SETTINGS
@given(game=tree_games(), objective=st.sampled_from(["welfare", "player1"]))
@pytest.mark.slow
def test_target_gap_stops_within_one_percent_of_the_brute_force_optimum(game, objective):
    """target_gap=0.01 (the elastic master): the returned μ is an ε-EFCE with ε ≤ 1 % of R
    (measured independently) and its objective is within 1 % of R of the brute-force optimal EFCE
    LP and of the upper bound (above or below: μ need not be an exact EFCE)."""
    sf = compile_game(game)
    w = np.ones(3) if objective == "welfare" else np.array([1.0, 0.0, 0.0])
    optimum, _, _ = brute_force(sf, w)
    r = solve_efce_column_generation(game, objective=objective, target_gap=0.01)
    scale = r.extra["payoff_range"]
    assert r.extra["status"] == "target_gap" and r.extra["target_gap"] == 0.01
    assert r.extra["mode"] == "elastic" and r.extra["exact_efce"] is False
    assert r.gap <= 0.01 * scale and r.extra["epsilon"] == r.gap
    assert abs(r.objective - optimum) <= 0.01 * scale + 1e-9
    assert abs(r.extra["upper_bound"] - r.objective) <= 0.01 * scale + 1e-9
    assert r.extra["upper_bound"] >= optimum - 1e-6 * max(1.0, scale)


ELASTIC_CASES = st.one_of(normal_form_games().map(lambda g: g.to_extensive()), tree_games())


@SETTINGS
@given(game=ELASTIC_CASES, objective=st.sampled_from(["welfare", "player1", "player2", "player3"]),
       target=st.sampled_from([0.01, 0.001]), penalty=st.sampled_from([0.01, 1.0, 10.0]))
@pytest.mark.slow
def test_elastic_runs_bound_the_brute_force_optimum_and_meet_the_target(game, objective, target,
                                                                        penalty):
    """The elastic master's Lagrangian bounds (at its row duals, whose slack columns only add
    y ≥ −M on the trigger rows) are upper bounds on the EXACT optimal EFCE value, whatever M; the
    returned μ has measured gap ≤ target·R and |objective − brute-force optimum| ≤ target·R. A
    small first penalty (0.01) makes the run double M."""
    sf = compile_game(game)
    w = np.zeros(3) if objective != "welfare" else np.ones(3)
    if objective != "welfare":
        w[int(objective[-1]) - 1] = 1.0
    optimum, plans, a_ub = brute_force(sf, w)
    r = solve_efce_column_generation(game, objective=objective, target_gap=target,
                                     penalty=penalty)
    scale = r.extra["payoff_range"]
    slack = 1e-6 * max(1.0, scale)
    bounds = [h["bound"] for h in r.extra["history"] if h.get("bound") is not None]
    bounds += [h["upper_bound"] for h in r.extra["history"] if h.get("event") == "check"]
    assert bounds and all(b >= optimum - slack for b in bounds)
    assert r.extra["upper_bound"] >= optimum - slack
    assert r.extra["status"] == "target_gap" and r.extra["penalty"] >= penalty
    assert r.extra["penalties"][0] == penalty
    assert r.gap <= target * scale
    assert abs(r.objective - optimum) <= target * scale + 1e-9
    assert abs(r.extra["upper_bound"] - r.objective) <= target * scale + 1e-9
    assert "ε-EFCE" in r.bound and not r.optimal


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(game=ELASTIC_CASES, objective=st.sampled_from(["welfare", "player1"]))
def test_elastic_runs_that_drop_columns_at_every_master_keep_the_guarantees(game, objective):
    """Column dropping made as aggressive as possible (every master, after one idle master, any
    negative reduced cost): the bounds still bound the brute-force optimum and the answer still
    meets the target (dropped columns come back through pricing)."""
    import lpgame.equilibria.correlated.efce_elastic_run as elastic
    import lpgame.equilibria.correlated.efce_n_player as cg

    sf = compile_game(game)
    w = np.ones(3) if objective == "welfare" else np.array([1.0, 0.0, 0.0])
    optimum, _, _ = brute_force(sf, w)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(elastic, "ELASTIC_DROP_AFTER", 1)
        mp.setattr(elastic, "DROP_EVERY", 1)
        mp.setattr(elastic, "DROP_REDUCED_COST", 0.0)
        r = cg.solve_efce_column_generation(game, objective=objective, target_gap=0.001)
    scale = r.extra["payoff_range"]
    bounds = [h["bound"] for h in r.extra["history"] if h.get("bound") is not None]
    assert all(b >= optimum - 1e-6 * max(1.0, scale) for b in bounds)
    assert r.extra["status"] == "target_gap" and r.gap <= 0.001 * scale
    assert abs(r.objective - optimum) <= 0.001 * scale + 1e-9
    assert r.extra["dropped_columns"] >= 0


@pytest.mark.slow
def test_elastic_time_limit_is_labelled_as_an_epsilon_efce():
    game = lpgame.games.make("liars_dice", players=3, faces=2)
    r = solve_efce_column_generation(game, objective="player1", time_limit=3, target_gap=1e-4)
    assert r.extra["status"] == "time_limit" and r.extra["mode"] == "elastic"
    assert r.extra["exact_efce"] is False and not r.optimal
    assert "partial" in r.bound and "ε-EFCE" in r.bound
    assert np.isfinite(r.gap) and r.gap == r.extra["epsilon"]


@pytest.mark.parametrize("objective", ["welfare", "player1"])
def test_target_gap_on_three_player_kuhn_is_within_one_percent_of_the_exact_run(objective):
    game = lpgame.games.make("kuhn_poker", players=3, cards=3)
    r = solve_efce_column_generation(game, objective=objective, target_gap=0.01)
    exact = solve_efce_column_generation(game, objective=objective)
    scale = r.extra["payoff_range"]
    assert exact.extra["status"] == "optimal" and exact.extra["target_gap"] is None
    assert r.extra["status"] == "target_gap" and r.extra["mode"] == "elastic"
    assert exact.extra["mode"] == "two_phase"
    assert r.gap <= 0.01 * scale
    assert abs(r.objective - exact.objective) <= 0.01 * scale + 1e-9
    assert abs(r.extra["upper_bound"] - r.objective) <= 0.01 * scale + 1e-9
    assert r.extra["upper_bound"] >= exact.objective - 1e-6 * scale


def test_target_gap_through_solve_and_the_cli(capsys):
    game = lpgame.games.make("kuhn_poker", players=3, cards=3)
    r = lpgame.solve(game, concept="efce", target_gap=0.01)
    assert r.variant == "column_generation" and r.extra["target_gap"] == 0.01
    assert r.extra["status"] in ("target_gap", "optimal")
    assert main(["solve", "kuhn_poker", "players=3", "cards=3", "--concept", "efce",
                 "--target-gap", "0.01", "--json", "-", "--quiet"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["variant"] == "column_generation"
    assert obj["status"] in ("target_gap", "optimal")
    assert obj["certificate"]["gain"] <= 0.01 * r.extra["payoff_range"]


@pytest.mark.parametrize("bad", [-0.01, 0, 1.5, "0.01", "abc", True, float("nan")])
def test_bad_target_gaps_are_refused(bad):
    game = lpgame.games.make("kuhn_poker", players=3, cards=3)
    with pytest.raises(OptionError, match="target_gap"):
        solve_efce_column_generation(game, target_gap=bad)
    with pytest.raises(OptionError, match="target_gap"):
        lpgame.solve(game, concept="efce", target_gap=bad)


@pytest.mark.parametrize("bad", [-1.0, 0, 0.0, "10", None, True, float("nan"), float("inf")])
def test_bad_penalties_are_refused(bad):
    game = lpgame.games.make("kuhn_poker", players=3, cards=3)
    with pytest.raises(OptionError, match="penalty"):
        solve_efce_column_generation(game, target_gap=0.01, penalty=bad)
    with pytest.raises(OptionError, match="penalty"):
        lpgame.solve(game, concept="efce", target_gap=0.01, penalty=bad)


@pytest.mark.slow
def test_cli_json_on_stdout_is_clean_json_for_three_players():
    """HiGHS's C-level banner must not reach standard output (capsys cannot see it: a subprocess)."""
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "lpgame", "solve", "kuhn_poker", "players=3",
                          "cards=3", "--concept", "efce", "--objective", "player1", "--json", "-"],
                         capture_output=True, text=True, timeout=300, check=True)
    data = json.loads(out.stdout)
    assert data["concept"] == "efce"


# ---------------------------------------------------------------------------- tuple relaxation
def tuple_marginals(space, plans: list[np.ndarray], mu: np.ndarray) -> np.ndarray:
    """ξ[σ_1..σ_n] = Σ_k μ_k Π_l π_l^k[σ_l], straight from the definition (Def. 9.1)."""
    prod = np.ones((mu.size, space.num_tuples))
    for ell, pl in enumerate(plans):
        prod *= pl[:, space.component(ell)]
    return mu @ prod


@pytest.mark.parametrize("name,params", [("kuhn_poker", {}), ("chicken", {}),
                                         ("sheriff", {"N": 3, "B": 2, "rounds": 2}),
                                         ("battleship", {"rows": 2, "cols": 2, "shots": 2})])
@pytest.mark.slow
def test_the_tuple_relaxation_of_a_two_player_game_is_the_correlation_plan_lp(name, params):
    """With two players the relevant tuples are the relevant pairs of efce.py (built by other
    code) and the relaxation's optimum is the von Stengel–Forges LP's, for every objective."""
    from lpgame.equilibria.correlated.efce import CorrelationPlanSpace
    from lpgame.equilibria.correlated.efce_tuple_relaxation import TupleSpace, tuple_relaxation_bound

    sf = compile_game(lpgame.games.make(name, **params))
    assert np.array_equal(TupleSpace(sf).keys, CorrelationPlanSpace(sf).keys)
    for objective in ("welfare", "player1", "player2"):
        lp = solve_correlation_plan(sf, "efce", objective, decompose=False)
        bound = tuple_relaxation_bound(sf, objective)
        scale = float(np.ptp(sf.terminal_payoffs)) or 1.0
        assert bound.upper_bound == pytest.approx(lp.extra["lp_objective"], abs=1e-7 * scale)


@SETTINGS
@given(game=ELASTIC_CASES, seed=st.integers(0, 2**31 - 1),
       objective=st.sampled_from(["welfare", "player1", "player2", "player3"]))
def test_every_distribution_is_feasible_for_the_tuple_relaxation(game, seed, objective):
    """Ξ_n ⊆ 𝒱_n: the tuple marginals of a random distribution over joint plans satisfy every
    polytope row, and the relaxation's optimum is at least the brute-force optimal EFCE value
    (the LP over all joint reduced plans, written from the definition)."""
    from lpgame.equilibria.correlated.efce_tuple_relaxation import TupleSpace, tuple_relaxation_bound

    sf = compile_game(game)
    space = TupleSpace(sf)
    w = np.ones(3) if objective == "welfare" else np.eye(3)[int(objective[-1]) - 1]
    optimum, plans, _ = brute_force(sf, w)
    mu = np.random.default_rng(seed).dirichlet(np.ones(plans[0].shape[0]))
    matrix, rhs = space.polytope()
    assert np.abs(matrix @ tuple_marginals(space, plans, mu) - rhs).max() <= 1e-9
    scale = float(np.ptp(sf.terminal_payoffs)) or 1.0
    assert tuple_relaxation_bound(sf, w).upper_bound >= optimum - 1e-7 * scale


@pytest.mark.slow
def test_the_tuple_relaxation_is_tight_on_k33_and_bounds_the_exact_run():
    """Three-player Kuhn (3 cards): the relaxation's optimum is the exact optimal EFCE value found
    by the two-phase column generation (certified by its Lagrangian bound) for every player."""
    from lpgame.equilibria.correlated.efce_tuple_relaxation import tuple_relaxation_bound

    sf = compile_game(lpgame.games.make("kuhn_poker", players=3, cards=3))
    for objective in ("player1", "player2", "player3"):
        exact = solve_efce_column_generation(sf, objective=objective, tuple_bound=False)
        assert exact.extra["status"] == "optimal"
        bound = tuple_relaxation_bound(sf, objective).upper_bound
        assert bound >= exact.objective - 1e-7
        assert bound - exact.objective <= 1e-3 * exact.extra["payoff_range"]


@pytest.mark.slow
def test_column_generation_reports_the_tuple_bound_and_runs_without_it():
    game = lpgame.games.make("kuhn_poker", players=3, cards=5)
    r = solve_efce_column_generation(game, objective="player1", target_gap=0.01)
    relaxation = r.extra["tuple_relaxation"]
    assert relaxation["tuples"] > 0 and relaxation["upper_bound"] is not None
    assert r.extra["status"] == "target_gap"
    assert r.extra["upper_bound"] <= relaxation["upper_bound"]
    assert abs(r.extra["upper_bound"] - r.objective) <= 0.01 * r.extra["payoff_range"]
    assert r.gap <= 0.01 * r.extra["payoff_range"]
    small = solve_efce_column_generation(lpgame.games.make("kuhn_poker", players=3, cards=3),
                                         objective="player1", max_tuples=10)
    assert small.extra["tuple_relaxation"]["upper_bound"] is None
    assert "ModelTooLargeError" in small.extra["tuple_relaxation"]["skipped"]
    assert small.extra["status"] == "optimal"
    off = solve_efce_column_generation(lpgame.games.make("kuhn_poker", players=3, cards=3),
                                       objective="player1", tuple_bound=False)
    assert off.extra["tuple_relaxation"] == {"upper_bound": None, "skipped": "tuple_bound=False"}


@pytest.mark.parametrize("option,bad", [("tuple_bound", "yes"), ("tuple_bound", 1),
                                        ("tuple_bound", None), ("max_tuples", 0),
                                        ("max_tuples", -5), ("max_tuples", 1.5),
                                        ("max_tuples", True), ("max_tuples", "many"),
                                        ("tuple_seconds", 0), ("tuple_seconds", -1.0),
                                        ("tuple_seconds", "60"), ("tuple_seconds", True),
                                        ("tuple_seconds", float("nan")),
                                        ("tuple_seconds", float("inf"))])
def test_bad_tuple_bound_options_are_refused(option, bad):
    game = lpgame.games.make("kuhn_poker", players=3, cards=3)
    with pytest.raises(OptionError, match=option):
        solve_efce_column_generation(game, **{option: bad})
    with pytest.raises(OptionError, match=option):
        lpgame.solve(game, concept="efce", **{option: bad})


@pytest.mark.parametrize("time_limit,tuple_seconds,given", [(100.0, None, 25.0), (100.0, 7.0, 7.0),
                                                            (100.0, 500.0, 100.0),
                                                            (None, None, 120.0),
                                                            (None, 900.0, 900.0)])
@pytest.mark.slow
def test_the_relaxation_gets_tuple_seconds_within_the_time_limit(monkeypatch, time_limit,
                                                                 tuple_seconds, given):
    """The relaxation's LP gets ``tuple_seconds`` when given, never more than the run's time
    limit, and by default a quarter of the limit (120 s without one): the limit it is called
    with is recorded here in place of the LP."""
    import lpgame.equilibria.correlated.efce_bounds as module

    seen = []

    def record(sf, w, time_limit=None, max_tuples=None):
        seen.append(time_limit)
        raise lpgame.errors.SolverTimeLimitError("recorded, not solved")

    monkeypatch.setattr(module, "tuple_relaxation_bound", record)
    r = solve_efce_column_generation(lpgame.games.make("kuhn_poker", players=3, cards=3),
                                     objective="player1", time_limit=time_limit,
                                     tuple_seconds=tuple_seconds)
    assert seen == [pytest.approx(given)]
    assert "SolverTimeLimitError" in r.extra["tuple_relaxation"]["skipped"]


def test_cli_turns_the_tuple_bound_off_and_refuses_bad_max_tuples(capsys):
    """Boolean options are --flag / --no-flag on the command line, so an option whose default is
    True (tuple_bound) can be turned off there; a bad --max-tuples is one error line, exit 2."""
    assert main(["solve", "kuhn_poker", "players=3", "cards=3", "--concept", "efce",
                 "--no-tuple-bound", "--json", "-", "--quiet"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["tuple_relaxation"] == {"upper_bound": None, "skipped": "tuple_bound=False"}
    assert main(["solve", "kuhn_poker", "players=3", "cards=3", "--concept", "efce",
                 "--max-tuples", "0", "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("lpgame: error:") and "max_tuples" in err[0]
    assert main(["solve", "kuhn_poker", "players=3", "cards=3", "--concept", "efce",
                 "--tuple-seconds", "0", "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("lpgame: error:") and "tuple_seconds" in err[0]


# ---------------------------------------------------------------------------- relaxation-guided pricing
def lagrangian_by_enumeration(sf, weights, plans, y_dev: dict, y_obey: dict) -> float:
    """max over every joint reduced plan π of w·u(π) − Σ_{i,t} λ_t π_i[t] (u_i(x_t after t) −
    u_i(π)), written from the definition: λ_t = −y_obey[i, t] ≥ 0 and x_t = y_dev[i, t, ·]/y_obey
    is a mixed continuation of player i below trigger t's information set j (the deviator plays x_t
    there instead of π_i; leaves not below j keep their value)."""
    seqs = sf.terminal_sequences
    reach = np.ones((plans[0].shape[0], seqs.shape[0]))
    for ell, pl in enumerate(plans):
        reach *= pl[:, seqs[:, ell]]
    value = (reach * sf.terminal_chance) @ sf.terminal_payoffs @ weights
    for i in range(sf.num_players):
        p = sf.players[i]
        others = np.ones_like(reach)
        for ell, pl in enumerate(plans):
            if ell != i:
                others *= pl[:, seqs[:, ell]]
        weight = others * sf.terminal_chance * sf.terminal_payoffs[:, i]
        for t in range(1, p.num_sequences):
            lam = -y_obey[i, t]
            if lam <= 0:
                continue
            sub = below(sf, i, int(p.seq_infoset[t]))
            x = np.zeros(p.num_sequences)
            x[sub] = [y_dev[i, t, int(s)] / y_obey[i, t] for s in sub]
            moved = np.isin(seqs[:, i], sub)
            gain = ((x[seqs[moved, i]] - plans[i][:, seqs[moved, i]]) * weight[:, moved]).sum(axis=1)
            value = value - lam * plans[i][:, t] * gain
    return float(value.max())


@SETTINGS
@given(game=ELASTIC_CASES, objective=st.sampled_from(["welfare", "player1", "player2", "player3"]))
def test_the_relaxation_duals_price_joint_plans_and_bound_the_optimum(game, objective):
    """The tuple relaxation's trigger duals, mapped into the column generation's dual space
    (Model.relaxation_duals), satisfy every v-column's dual constraint exactly and give a
    Lagrangian bound that lies between the brute-force optimal EFCE value and the relaxation's U.
    The bound is computed here by enumerating every joint plan, with each trigger's deviation
    read off the duals as a mixed continuation, and equals what the pricing MILP finds."""
    from lpgame.equilibria.correlated.efce_pricing import Model
    from lpgame.equilibria.correlated.efce_tuple_relaxation import tuple_relaxation_bound

    sf = compile_game(game)
    w = np.ones(3) if objective == "welfare" else np.eye(3)[int(objective[-1]) - 1]
    optimum, plans, _ = brute_force(sf, w)
    found = tuple_relaxation_bound(sf, w)
    model = Model(sf, w)
    y = model.relaxation_duals(found)
    y_dev, y_obey = {}, {}
    for i, tr in enumerate(model.trees):
        p = sf.players[i]
        dev = y[model.dev_offset[i]:model.dev_offset[i] + tr.row_trigger.size]
        obey = y[model.obey_offset[i]:model.obey_offset[i] + tr.num_triggers]
        assert np.all(dev <= 0) and np.all(obey <= 0)
        y_dev.update({(i, int(t), int(q)): float(v)
                      for t, q, v in zip(tr.row_trigger, tr.row_seq, dev)})
        y_obey.update({(i, t): float(obey[t - 1]) for t in range(1, p.num_sequences)})
        for t in range(1, p.num_sequences):
            j = int(p.seq_infoset[t])
            for jp in {int(p.seq_infoset[q]) for q in below(sf, i, j)}:
                first = int(p.infoset_first_seq[jp])
                out = sum(y_dev[i, t, first + a] for a in range(int(p.infoset_num_actions[jp])))
                into = obey[t - 1] if jp == j else y_dev[i, t, int(p.infoset_parent_seq[jp])]
                assert out == pytest.approx(into, rel=1e-12, abs=1e-12)
    scale = float(np.ptp(sf.terminal_payoffs)) or 1.0
    bound = lagrangian_by_enumeration(sf, w, plans, y_dev, y_obey)
    assert optimum - 1e-7 * scale <= bound <= found.upper_bound + 1e-6 * scale
    tuples, coefs, const = model.monomials(y, 2)
    _, _, upper, proved = model.milp_oracle(tuples, coefs, const, None)
    assert proved and upper - const == pytest.approx(bound, abs=1e-7 * scale)


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(game=ELASTIC_CASES, objective=st.sampled_from(["welfare", "player1", "player2"]))
def test_relaxation_guided_and_plain_pricing_reach_the_brute_force_optimum(game, objective):
    """The exact run certifies the brute-force optimum with pricing at the relaxation's duals (the
    default: seeded columns, the duals as the first Wentges centre, smoothed alternation) and
    without it; every bound either run records is above the optimum."""
    import lpgame.equilibria.correlated.efce_n_player as module

    sf = compile_game(game)
    w = np.ones(3) if objective == "welfare" else np.eye(3)[int(objective[-1]) - 1]
    optimum, _, _ = brute_force(sf, w)
    scale = max(1.0, float(np.ptp(sf.terminal_payoffs)))
    for guided in (True, False):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(module, "GUIDED", guided)
            r = solve_efce_column_generation(game, objective=objective)
        assert r.extra["status"] == "optimal"
        assert r.objective == pytest.approx(optimum, abs=1e-6 * scale)
        assert ("seeded_columns" in r.extra["tuple_relaxation"]) == guided
        bounds = [h["bound"] for h in r.extra["history"] if h.get("bound") is not None]
        assert all(b >= optimum - 1e-6 * scale for b in bounds)


@pytest.mark.parametrize("rowwise", [False, True])
def test_the_master_matrix_is_read_in_either_highs_format(rowwise):
    """HiGHS may hold a model's matrix row-wise after rows are added (an L3133 run failed on it);
    highs_matrix reads the format and gives the same matrix either way."""
    import highspy

    from lpgame.equilibria.correlated.efce_master import highs_matrix

    dense = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]])
    stored = (sp.csr_array(dense) if rowwise else sp.csc_array(dense))
    lp = highspy.HighsLp()
    lp.num_row_, lp.num_col_ = dense.shape
    lp.a_matrix_.format_ = (highspy.MatrixFormat.kRowwise if rowwise
                            else highspy.MatrixFormat.kColwise)
    lp.a_matrix_.start_ = stored.indptr.astype(np.int32)
    lp.a_matrix_.index_ = stored.indices.astype(np.int32)
    lp.a_matrix_.value_ = stored.data
    assert np.array_equal(highs_matrix(lp).toarray(), dense)
