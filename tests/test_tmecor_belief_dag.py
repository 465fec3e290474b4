"""TMECor over the team belief DAG (lpgame.equilibria.teams.team_belief_dag, method="belief_dag") against
references that do not use it: the brute-force matrix game over joint reduced plans (scipy's linprog), column
generation, the sequence form (a team of one is its treeplex), team matching pennies (Farina 2023,
Lemma 11.2: 1/2) and the independent certificate of lpgame.analysis.team_gaps.

L3133 and D33 (Table 11.2) with their full certificates are in benchmarks/bench_tmecor.py (the
certificate's MILP takes about a minute each); here L3133's value is checked against the bounds that
column generation proved and against the opponent's independent best response.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from random_team_games import SimultaneousGame, matrix_game_value, team_games

import lpgame.games
from lpgame.analysis.team_gaps import opponent_best_response
from lpgame.compile import as_game, compile_game
from lpgame.equilibria.teams.team_belief_dag import build_team_belief_dag, team_tree_game
from lpgame.equilibria.teams.tmecor import solve_tmecor
from lpgame.errors import InvalidGameError, ModelTooLargeError, OptionError
from lpgame.game import GameBuilder
from lpgame.game.rules import expand

TOL = 1e-7
SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _check_distribution(result):
    """The returned distribution is a probability vector over joint plans and the certificate's
    realization vector came from it (the decomposition reproduces the DAG flow's ω)."""
    dist = result.extra["team_distribution"]
    assert sum(d["probability"] for d in dist) == pytest.approx(1.0, abs=1e-9)
    assert result.extra["belief_dag"]["decomposition_error"] <= 1e-9
    assert "note" not in result.extra["belief_dag"]


@SETTINGS
@given(team_games())
@pytest.mark.slow
def test_belief_dag_matches_the_matrix_game_and_column_generation(game):
    sf = compile_game(game)
    reference = matrix_game_value(sf, (0, 1), 2)
    dag = solve_tmecor(sf, team=(1, 2), method="belief_dag")
    cg = solve_tmecor(sf, team=(1, 2), method="column_generation")
    assert dag.extra["method"] == "belief_dag" and dag.extra["status"] == "optimal"
    assert dag.value == pytest.approx(reference, abs=TOL)
    assert dag.value == pytest.approx(cg.value, abs=TOL)
    gains = dag.certificate.best_response_gain
    assert max(gains) <= TOL and min(gains) >= -TOL
    _check_distribution(dag)


@SETTINGS
@given(team_games(private=False))
def test_belief_dag_equals_the_lp_on_triangle_free_teams(game):
    sf = compile_game(game)
    by_lp = solve_tmecor(sf, team=(1, 2), method="lp")
    dag = solve_tmecor(sf, team=(1, 2), method="belief_dag")
    assert dag.value == pytest.approx(by_lp.value, abs=TOL)
    assert max(dag.certificate.best_response_gain) <= TOL


@pytest.mark.parametrize("method", ["belief_dag", "lp", "column_generation"])
def test_team_matching_pennies_is_one_half_with_hh_and_tt(method):
    game = lpgame.games.make("team_matching_pennies")
    result = solve_tmecor(game, team=(2, 3), method=method)
    assert result.value == pytest.approx(0.5, abs=1e-12)
    assert result.certificate.nash_conv == pytest.approx(0.0, abs=1e-12)
    if method != "lp":
        dist = {tuple(d["plans"]): d["probability"] for d in result.extra["team_distribution"]}
        assert dist == pytest.approx({("team member 1:H", "team member 2:H"): 0.5,
                                      ("team member 1:T", "team member 2:T"): 0.5})
        # exactly 1/2 in rationals: the distribution against both opponent pennies
        sf = compile_game(game)
        seqs = sf.terminal_sequences
        for penny in (1, 2):
            total = Fraction(0)
            for d in result.extra["team_distribution"]:
                q = Fraction(d["probability"]).limit_denominator(100)
                picks = [1 if p.endswith(":H") else 2 for p in d["plans"]]
                for z in range(seqs.shape[0]):
                    if (seqs[z, 0], seqs[z, 1], seqs[z, 2]) == (penny, picks[0], picks[1]):
                        total += q * Fraction(int(-sf.terminal_payoffs[z, 0]))
            assert total == Fraction(1, 2)


@pytest.mark.parametrize("cards", [3, 4])
def test_k33_k34_belief_dag_equals_column_generation(cards):
    game = lpgame.games.make("kuhn_poker", players=3, cards=cards)
    auto = solve_tmecor(game, team=(1, 2))
    cg = solve_tmecor(game, team=(1, 2), method="column_generation")
    assert auto.extra["method"] == "belief_dag"      # not triangle-free: auto takes the DAG
    assert cg.extra["status"] == "optimal"
    assert auto.value == pytest.approx(cg.value, abs=TOL)
    assert auto.extra["team_deviation"]["method"] == "enumeration"
    assert max(auto.certificate.best_response_gain) <= TOL
    assert min(auto.certificate.best_response_gain) >= -TOL
    _check_distribution(auto)
    if cards == 4:
        assert auto.value == pytest.approx(-1 / 24, abs=TOL)


@pytest.mark.parametrize("name,params,team", [
    ("kuhn_poker", {"players": 3, "cards": 4}, (1, 3)),
    ("kuhn_poker", {"players": 3, "cards": 4}, (2, 3)),
    ("leduc_poker", {"players": 3, "bets": 1, "ranks": 2, "suits": 2}, (1, 3)),
])
@pytest.mark.slow
def test_other_teams_and_two_round_leduc_equal_column_generation(name, params, team):
    # the opponent between the members (K34) and two betting rounds with a public board (L3122):
    # beliefs over several team decisions, where column generation still converges
    game = lpgame.games.make(name, **params)
    dag = solve_tmecor(game, team=team, method="belief_dag")
    cg = solve_tmecor(game, team=team, method="column_generation")
    assert cg.extra["status"] == "optimal"
    assert dag.value == pytest.approx(cg.value, abs=TOL)
    assert max(dag.certificate.best_response_gain) <= TOL
    _check_distribution(dag)


# ---------------------------------------------------------------- the DAG itself
@pytest.mark.parametrize("name,params", [
    ("kuhn_poker", {"players": 3, "cards": 3}),
    ("leduc_poker", {"players": 3, "bets": 1, "ranks": 2, "suits": 2}),
    ("liars_dice", {"players": 3, "faces": 2, "structured": False}),
])
def test_a_team_of_one_gets_its_treeplex(name, params):
    """With one member nothing connects histories of different information sets: the beliefs are
    the player's information sets and the prescriptions its sequences (Zhang, Farina & Sandholm
    2023: the TB-DAG generalises the sequence form)."""
    game = as_game(lpgame.games.make(name, **params))
    for player in range(3):
        dag = build_team_belief_dag(game, (player,))
        p = game.index.players[player]
        assert dag.num_beliefs == p.num_infosets
        assert dag.num_edges == p.num_sequences - 1
        assert sorted(b for (b,) in dag.belief_infosets) == [(player, j)
                                                             for j in range(p.num_infosets)]


def test_a_team_of_one_by_the_belief_dag_is_the_maximin_value():
    kuhn = lpgame.games.make("kuhn_poker")
    result = solve_tmecor(kuhn, team=(1,), method="belief_dag")
    assert result.value == pytest.approx(-1 / 18, abs=1e-9)          # Kuhn's value (Kuhn 1950)
    assert max(result.certificate.best_response_gain) <= TOL
    _check_distribution(result)


def test_table_11_2_kuhn_sizes():
    """Our TB-DAG sizes for K33 and K34 (team {1, 2}); Table 11.2 lists 487/918 and 2,100/6,711
    with another convention (docs/explanation/benchmarks.md explains the difference)."""
    sizes = {}
    for cards in (3, 4):
        game = as_game(lpgame.games.make("kuhn_poker", players=3, cards=cards))
        dag = build_team_belief_dag(game, (0, 1))
        sizes[cards] = (dag.num_beliefs, dag.num_edges)
        # every belief decides at most one information set per card of the acting member
        assert dag.stats["max_infosets_per_belief"] == cards
        # flows of the DAG: the uniform pure flow is a valid one (A x = b has solutions ≥ 0)
        A, b = dag.flow_matrix()
        assert A.shape == (dag.num_beliefs, dag.num_edges)
    assert sizes == {3: (78, 240), 4: (315, 1408)}


def test_structured_games_are_re_expanded_with_the_same_value():
    structured = lpgame.games.make("liars_dice", players=3, faces=2)
    tree = lpgame.games.make("liars_dice", players=3, faces=2, structured=False)
    a = solve_tmecor(structured, team=(1, 2), method="belief_dag")
    b = solve_tmecor(tree, team=(1, 2), method="belief_dag")
    assert a.extra["belief_dag"]["re_expanded"] and not b.extra["belief_dag"]["re_expanded"]
    assert a.value == pytest.approx(b.value, abs=TOL)
    assert max(a.certificate.best_response_gain) <= TOL


def _untimeable_game():
    """Chance picks who of the two team members moves first; member 1 sees nothing, so its one
    information set is met after zero or after one team decision."""
    b = GameBuilder(num_players=3, name="untimeable")
    root = b.chance()
    for order in ("12", "21"):
        first = b.decision(player=int(order[0]) - 1, infoset=f"P{order[0]}", parent=root,
                           action=order, prob=Fraction(1, 2))
        for a in "HT":
            second = b.decision(player=int(order[1]) - 1, infoset=f"P{order[1]}", parent=first,
                                action=a)
            for c in "HT":
                opp = b.decision(player=2, infoset="P3", parent=second, action=c)
                for d in "HT":
                    u = 1 if a == c == d else 0
                    b.terminal((u, 0, -u), parent=opp, action=d)
    return b.build()


def test_a_game_not_timeable_for_the_team_is_refused_and_auto_falls_back():
    game = _untimeable_game()
    with pytest.raises(InvalidGameError, match="timeable"):
        solve_tmecor(game, team=(1, 2), method="belief_dag")
    result = solve_tmecor(game, team=(1, 2))
    assert result.extra["method"] in ("column_generation", "lp")
    assert result.value == pytest.approx(matrix_game_value(compile_game(game), (0, 1), 2), abs=TOL)


def test_dag_size_limit():
    game = lpgame.games.make("kuhn_poker", players=3, cards=4)
    with pytest.raises(ModelTooLargeError, match="column_generation"):
        solve_tmecor(game, team=(1, 2), method="belief_dag", max_dag_edges=100)
    fallback = solve_tmecor(game, team=(1, 2), max_dag_edges=100)
    assert fallback.extra["method"] == "column_generation"
    assert "belief_dag_refused" in fallback.extra


@SETTINGS
@given(st.lists(st.integers(-3, 3), min_size=16, max_size=16))
def test_team_of_three_belief_dag_matches_the_matrix_game(table):
    sf = compile_game(expand(SimultaneousGame(4, table)))
    result = solve_tmecor(sf, team=(1, 2, 3))
    assert result.extra["method"] == "belief_dag"
    assert result.value == pytest.approx(matrix_game_value(sf, (0, 1, 2), 3), abs=TOL)
    assert max(result.certificate.best_response_gain) <= TOL
    _check_distribution(result)


def test_lp_on_a_team_with_triangles_names_both_other_methods():
    game = lpgame.games.make("kuhn_poker", players=3, cards=3)
    with pytest.raises(OptionError, match="method='belief_dag'.*method='column_generation'"):
        solve_tmecor(game, team=(1, 2), method="lp")
    with pytest.raises(OptionError, match="includes every player"):
        solve_tmecor(game, team=(1, 2, 3), method="belief_dag")


@pytest.mark.slow
def test_l3133_within_the_column_generation_bounds():
    """L3133 (Table 11.2) by the DAG LP: inside the bounds [0.158572, 0.241459] that column
    generation proved in 180 s (docs/explanation/benchmarks.md), and the opponent's independent best response
    to the returned distribution gives the same value."""
    game = lpgame.games.make("leduc_poker", players=3, bets=1, ranks=3, suits=3)
    sf = compile_game(game)
    dag = build_team_belief_dag(team_tree_game(sf.game), (0, 1))
    from lpgame.equilibria.teams.tmecor_lp import belief_dag_lp
    from lpgame.equilibria.teams.tmecor_team import make_team
    from lpgame.lp import solve_lp
    solution = solve_lp(belief_dag_lp(make_team(sf, (1, 2)), dag))
    value = float(solution.objective)
    assert 0.158572 <= value <= 0.241459
    omega = dag.realization(np.clip(solution.values("x"), 0.0, None))
    lower, _ = opponent_best_response(sf, (0, 1), 2, omega)
    assert lower == pytest.approx(value, abs=1e-7)
