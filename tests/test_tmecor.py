"""TMECor (lpgame.equilibria.teams.tmecor) against sources that are not lpgame's formulations.

* Team matching pennies: Farina (2023) Lemmas 11.1/11.2 and notes/farina-thesis.md §1.11 (TMECor 1/2
  with HH and TT at 1/2 each; TME maxmin 1/4 and minmax 1/2, recomputed here by a grid over the
  members' independent mixtures and the opponent's commitments).
* Random small three-player games: the TMECor value recomputed as a matrix game over the team's
  joint reduced plans against the opponent's reduced plans, solved by ``scipy.optimize.linprog``
  (a formulation with no sequence form, no correlation plan and no MILP); LP and column generation
  agree with it, the LP over the von Stengel–Forges polytope bounds it from above, and the
  independent gaps of lpgame.analysis.team_gaps are ≤ the tolerance.
* K33, K34, L3133, D33 (Table 11.2, team = players 1 and 2 against 3): sizes against Table A.1,
  certificates by lpgame.analysis.team_gaps; the bigger ones are in benchmarks/bench_tmecor.py.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from random_team_games import (
    SimultaneousGame,
    matrix_game_value,
    reduced_plans,
    team_games,
)

import lpgame.games
from lpgame.analysis.team_gaps import (
    opponent_best_response,
    team_best_response,
    team_reach_of_distribution,
)
from lpgame.compile import compile_game
from lpgame.equilibria.teams.tmecor import make_team, solve_tmecor, team_plan_space, tmecor_lp
from lpgame.errors import OptionError
from lpgame.game.rules import expand
from lpgame.lp import solve_lp

TOL = 1e-7


SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(team_games())
@pytest.mark.slow
def test_column_generation_matches_the_matrix_game_and_lp_bounds_it(game):
    sf = compile_game(game)
    reference = matrix_game_value(sf, (0, 1), 2)
    cg = solve_tmecor(sf, team=(1, 2), method="column_generation")
    assert cg.extra["status"] == "optimal"
    assert cg.value == pytest.approx(reference, abs=TOL)
    gains = cg.certificate.best_response_gain
    assert max(gains) <= TOL and min(gains) >= -TOL
    # the LP over V is an upper bound (V ⊇ Ξ), exact when the team is triangle-free
    team = make_team(sf, (1, 2))
    space = team_plan_space(team)
    lp, _ = tmecor_lp(team, space)
    bound = solve_lp(lp).objective
    assert bound >= reference - TOL
    if space.triangle_free:
        assert bound == pytest.approx(reference, abs=TOL)
        by_lp = solve_tmecor(sf, team=(1, 2), method="lp")
        assert by_lp.value == pytest.approx(cg.value, abs=TOL)
        assert max(by_lp.certificate.best_response_gain) <= TOL


@SETTINGS
@given(team_games(private=False))
@pytest.mark.slow
def test_with_public_opponent_moves_lp_and_column_generation_agree(game):
    # with the opponent turned into chance, its moves are public chance: the team is triangle-free
    # (Farina 2023, Thm 9.2) and auto picks the LP
    sf = compile_game(game)
    by_lp = solve_tmecor(sf, team=(1, 2))
    assert by_lp.extra["method"] == "lp"
    cg = solve_tmecor(sf, team=(1, 2), method="column_generation")
    reference = matrix_game_value(sf, (0, 1), 2)
    assert by_lp.value == pytest.approx(reference, abs=TOL)
    assert cg.value == pytest.approx(reference, abs=TOL)
    for result in (by_lp, cg):
        gains = result.certificate.best_response_gain
        assert max(gains) <= TOL and min(gains) >= -TOL


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(team_games(), st.integers(0, 2 ** 32 - 1))
def test_team_best_response_enumeration_and_milp_agree(game, seed):
    sf = compile_game(game)
    rng = np.random.default_rng(seed)
    y = sf.plan_from_behaviour(2, _random_behaviour(sf, 2, rng))
    by_enumeration = team_best_response(sf, (0, 1), 2, y, method="enumeration")
    for method in ("milp", "milp_leaves"):
        by_milp = team_best_response(sf, (0, 1), 2, y, method=method)
        assert by_milp.value == pytest.approx(by_enumeration.value, abs=TOL)
        assert by_milp.upper_bound == pytest.approx(by_enumeration.value, abs=TOL)
    # brute force over all joint plans
    seqs = sf.terminal_sequences
    weight = -sf.terminal_chance * sf.terminal_payoffs[:, 2] * y[seqs[:, 2]]
    p1, p2 = reduced_plans(sf, 0), reduced_plans(sf, 1)
    best = max(float(weight @ (a[seqs[:, 0]] * b[seqs[:, 1]])) for a in p1 for b in p2)
    assert by_enumeration.value == pytest.approx(best, abs=TOL)


def _random_behaviour(sf, player, rng):
    p = sf.players[player]
    b = np.ones(p.num_sequences)
    for j in range(p.num_infosets):
        first, k = int(p.infoset_first_seq[j]), int(p.infoset_num_actions[j])
        b[first:first + k] = rng.dirichlet(np.ones(k))
    return b


# ---------------------------------------------------------------- team matching pennies
def test_team_matching_pennies_tmecor_is_one_half_with_hh_and_tt():
    game = lpgame.games.make("team_matching_pennies")
    for method in ("lp", "column_generation"):
        result = solve_tmecor(game, team=(2, 3), method=method)
        assert result.value == pytest.approx(0.5, abs=1e-12)
        assert result.extra["opponent"] == 1
        assert result.strategies[0]["opponent"] == pytest.approx({"H": 0.5, "T": 0.5})
        assert result.certificate.nash_conv == pytest.approx(0.0, abs=1e-12)
    dist = {tuple(d["plans"]): d["probability"] for d in result.extra["team_distribution"]}
    assert dist == pytest.approx({("team member 1:H", "team member 2:H"): 0.5,
                                  ("team member 1:T", "team member 2:T"): 0.5})
    plan = {tuple(e["sequences"]): e["value"]
            for e in solve_tmecor(game, team=(2, 3), method="lp").extra["correlation_plan"]}
    assert plan[("team member 1:H", "team member 2:H")] == pytest.approx(0.5)
    assert plan[("team member 1:T", "team member 2:T")] == pytest.approx(0.5)
    assert ("team member 1:H", "team member 2:T") not in plan


def test_team_matching_pennies_tme_quarter_and_minmax_half_beside_tmecor(capsys):
    """Lemma 11.1 (TME maxmin 1/4) and Lemma 11.2 (minmax 1/2), in exact rationals on a grid that
    contains the optimisers, against the TMECor value 1/2 (notes §1.11)."""
    sf = compile_game(lpgame.games.make("team_matching_pennies"))
    grid = [Fraction(k, 20) for k in range(21)]
    seqs = sf.terminal_sequences
    weight = [-Fraction(int(u)) for u in sf.terminal_payoffs[:, 0]]

    def team_value(p_member1, p_member2, p_opponent):
        total = Fraction(0)
        for z in range(seqs.shape[0]):
            probs = [(p_opponent, 1 - p_opponent), (p_member1, 1 - p_member1),
                     (p_member2, 1 - p_member2)]
            r = Fraction(1)
            for player in range(3):
                r *= probs[player][int(seqs[z, player]) - 1]
            total += r * weight[z]
        return total
    # TME: the members mix independently; the opponent best responds (a pure H or T suffices)
    tme = max(min(team_value(x, y, z) for z in (0, 1)) for x in grid for y in grid)
    # minmax: the opponent commits first; the team best responds with a joint pure plan
    minmax = min(max(team_value(x, y, z) for x in (0, 1) for y in (0, 1)) for z in grid)
    result = solve_tmecor(sf, team=(2, 3), method="column_generation")
    tmecor = result.value
    # exactly 1/2: the returned distribution, in rationals, guarantees 1/2 against both opponent
    # pennies, and the returned opponent strategy holds every joint team plan to 1/2
    dist = [(Fraction(d["probability"]).limit_denominator(100),
             [p.endswith(":H") for p in d["plans"]]) for d in result.extra["team_distribution"]]
    z = Fraction(result.strategies[0]["opponent"]["H"]).limit_denominator(100)
    lower = min(sum(q * team_value(int(h1), int(h2), zz) for q, (h1, h2) in dist)
                for zz in (0, 1))
    upper = max(team_value(x, y, z) for x in (0, 1) for y in (0, 1))
    assert lower == upper == Fraction(1, 2)
    with capsys.disabled():
        print(f"\nteam matching pennies: TME maxmin {tme}, minmax {minmax}, TMECor {tmecor:g}")
    assert tme == Fraction(1, 4)
    assert minmax == Fraction(1, 2)
    assert tmecor == pytest.approx(float(minmax), abs=1e-12)


# ---------------------------------------------------------------- Table 11.2 games
TABLE_11_2 = {   # name: (catalog name, parameters, Table A.1 sizes)
    "K33": ("kuhn_poker", {"players": 3, "cards": 3}, (36, 75, 78)),
    "K34": ("kuhn_poker", {"players": 3, "cards": 4}, (48, 99, 312)),
    "L3133": ("leduc_poker", {"players": 3, "bets": 1, "ranks": 3, "suits": 3}, (684, 1371, 6477)),
    "D33": ("liars_dice", {"players": 3, "faces": 3}, (1536, 3069, 13797)),
}


@pytest.mark.parametrize("label", list(TABLE_11_2))
def test_table_11_2_games_have_table_a1_sizes_and_a_team_with_triangles(label):
    name, params, expected = TABLE_11_2[label]
    game = lpgame.games.make(name, **params)
    s = game.sizes()
    assert (sum(s["infosets"]), sum(s["sequences"]), s["terminals"]) == expected
    if label.startswith("K"):      # private cards: not triangle-free, so auto picks the belief DAG
        space = team_plan_space(make_team(compile_game(game), (1, 2)))
        assert not space.triangle_free


@pytest.mark.parametrize("cards,oracles", [(3, ("pairs", "products")), (4, ("pairs",))])
def test_k33_k34_tmecor_with_certificate(cards, oracles):
    game = lpgame.games.make("kuhn_poker", players=3, cards=cards)
    results = [solve_tmecor(game, team=(1, 2), method="column_generation", oracle=oracle)
               for oracle in oracles]
    for r in results:
        assert r.extra["method"] == "column_generation" and r.extra["status"] == "optimal"
        lower, upper = r.extra["bounds"]
        assert upper - lower <= 1e-8
        # independent certificate: opponent's best response and the team's enumerated deviation
        assert r.extra["team_deviation"]["method"] == "enumeration"
        assert max(r.certificate.best_response_gain) <= TOL
        assert min(r.certificate.best_response_gain) >= -TOL
    assert results[0].value == pytest.approx(results[-1].value, abs=TOL)
    # the relaxation over V bounds the value from above
    sf = compile_game(game)
    team = make_team(sf, (1, 2))
    lp, _ = tmecor_lp(team, team_plan_space(team))
    assert solve_lp(lp).objective >= results[0].value - TOL


def test_team_of_one_is_the_maximin_value():
    # a team of one player is the maximin (security) LP; column generation must agree
    three = lpgame.games.make("kuhn_poker", players=3, cards=3)
    with pytest.raises(OptionError, match="exactly one opponent"):
        solve_tmecor(three, team=(1,))        # players 2 and 3 would both be outside
    kuhn = lpgame.games.make("kuhn_poker")
    by_lp = solve_tmecor(kuhn, team=(1,))
    by_cg = solve_tmecor(kuhn, team=(1,), method="column_generation")
    assert by_lp.value == pytest.approx(-1 / 18, abs=1e-9)          # Kuhn's value (Kuhn 1950)
    assert by_cg.value == pytest.approx(-1 / 18, abs=1e-9)


def test_opponent_best_response_of_a_distribution():
    sf = compile_game(lpgame.games.make("team_matching_pennies"))
    h, t = np.array([1.0, 1.0, 0.0]), np.array([1.0, 0.0, 1.0])
    reach = team_reach_of_distribution(sf, (1, 2), [np.array([h, t]), np.array([h, t])],
                                       np.array([0.5, 0.5]))
    lower, _ = opponent_best_response(sf, (1, 2), 0, reach)
    assert lower == pytest.approx(0.5)


# ---------------------------------------------------------------- bad input
def test_team_with_every_player_is_refused():
    game = lpgame.games.make("team_matching_pennies")
    with pytest.raises(OptionError, match="includes every player"):
        solve_tmecor(game, team=(1, 2, 3))


@pytest.mark.parametrize("team,match", [(None, "needs the team"), ((1, 4), "do not exist"),
                                        ((2, 2), "distinct"), (("a",), "player numbers")])
def test_malformed_teams_are_refused(team, match):
    with pytest.raises(OptionError, match=match):
        solve_tmecor(lpgame.games.make("team_matching_pennies"), team=team)


def test_lp_only_on_a_team_with_triangles_names_column_generation():
    game = lpgame.games.make("kuhn_poker", players=3, cards=3)
    with pytest.raises(OptionError, match="not triangle-free.*method='column_generation'"):
        solve_tmecor(game, team=(1, 2), method="lp")


def test_column_generation_at_its_time_limit_gives_labelled_bounds():
    game = lpgame.games.make("kuhn_poker", players=3, cards=4)
    exact = solve_tmecor(game, team=(1, 2))
    partial = solve_tmecor(game, team=(1, 2), method="column_generation", max_iterations=2)
    assert partial.extra["status"] == "iteration_limit"
    lower, upper = partial.extra["bounds"]
    assert lower <= exact.value + TOL and upper >= exact.value - TOL
    assert partial.value == lower
    # the certificate measures the partial answer: the opponent holds the team to its lower bound
    assert partial.certificate.extra["opponent_best_response_value"] == pytest.approx(lower, abs=TOL)
    timed = solve_tmecor(game, team=(1, 2), method="column_generation", time_limit=0.05)
    assert timed.extra["status"] in ("time_limit", "optimal")
    lower, upper = timed.extra["bounds"]
    assert lower <= exact.value + TOL <= upper + 2 * TOL


@settings(max_examples=10, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=16, max_size=16))
def test_team_of_three_by_column_generation_matches_the_matrix_game(table):
    # four players, team {1, 2, 3} against player 4: the product-form oracle (any team size)
    sf = compile_game(expand(SimultaneousGame(4, table)))
    result = solve_tmecor(sf, team=(1, 2, 3), method="column_generation")
    assert result.extra["method"] == "column_generation" and result.extra["oracle"] == "products"
    assert result.value == pytest.approx(matrix_game_value(sf, (0, 1, 2), 3), abs=TOL)
    assert max(result.certificate.best_response_gain) <= TOL
    with pytest.raises(OptionError, match="column_generation"):
        solve_tmecor(sf, team=(1, 2, 3), method="lp")
