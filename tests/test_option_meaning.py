"""Options are checked against their meaning (issue 34, build item 5): counts and limits are
positive, players are numbered from 1 on every flag, and a ``solver`` the concept does not use is
refused, from Python (:class:`lpgame.OptionError`) and from the command line (one
``lpgame: error:`` line, exit status 2)."""

from __future__ import annotations

from fractions import Fraction

import pytest

import lpgame
from lpgame.cli import main
from lpgame.errors import OptionError


def cli_error(capsys, *argv) -> str:
    code = main(list(argv))
    err = capsys.readouterr().err
    assert code == 2
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("lpgame: error:"), err
    return lines[0]


@pytest.mark.parametrize("argv, words", [
    (["solve", "kuhn_poker", "--refinement", "qpe", "--solver", "pdlp"], "does not apply"),
    (["solve", "kuhn_poker", "--refinement", "os-qpe", "--trembling-player", "0"], "1, 2"),
    (["solve", "kuhn_poker", "--refinement", "os-qpe", "--trembling-player", "3"], "1, 2"),
    (["solve", "battle_of_the_sexes", "--max-pivots", "0"], "at least 1"),
    (["solve", "battle_of_the_sexes", "--max-pivots", "-5"], "at least 1"),
    (["solve", "kuhn_poker", "--time-limit", "-1"], "time"),
])
def test_meaningless_options_are_one_line_errors(capsys, argv, words):
    assert words in cli_error(capsys, *argv)


@pytest.mark.parametrize("option", ["max_iterations", "max_distribution_plans", "max_certificate_plans",
                                    "max_dag_edges"])
@pytest.mark.parametrize("value", [0, -1])
def test_tmecor_plan_limits_must_be_positive(option, value):
    game = lpgame.games.make("kuhn_poker", players=3)
    with pytest.raises(OptionError, match="at least 1"):
        lpgame.solve(game, concept="tmecor", team=(1, 2), **{option: value})


def test_the_trembling_player_is_numbered_from_one_and_reported_so():
    """One-sided QPE of Kuhn with player 2 trembling (the default) and with player 1: both are
    equilibria of value −1/18 (Kuhn 1950), and the answer names the player as given."""
    for player in (1, 2):
        result = lpgame.solve("kuhn_poker", concept="nash", refinement="os-qpe",
                              trembling_player=player, exact=True)
        assert result.value == Fraction(-1, 18)
        assert result.extra["refinement"]["trembling_player"] == player
        assert result.certificate.nash_conv == 0


def test_a_solver_the_refinement_does_not_use_is_refused_from_python():
    with pytest.raises(OptionError, match="does not apply"):
        lpgame.solve("kuhn_poker", concept="nash", refinement="qpe", solver="ipm")
