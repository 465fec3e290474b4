"""nash/operator_cfr: CFR through the showdown operator, reachable from lpgame.solve and the CLI.

Values from the literature: Kuhn poker −1/18 (Kuhn 1950), Leduc Hold'em −0.0856064240780 (the
value OpenSpiel's sequence-form LP reports; Southey et al. 2005 for the rules)."""

from __future__ import annotations

import json

import pytest

import lpgame
from lpgame.cli import main
from lpgame.errors import OptionError

KUHN = -1 / 18
LEDUC = -0.0856064240780


@pytest.mark.parametrize("algorithm", ["dcfr", "cfr+", "pcfr+"])
def test_kuhn_value_lies_in_the_certified_interval(algorithm):
    r = lpgame.solve(lpgame.games.make("kuhn_poker"), method="operator_cfr", algorithm=algorithm,
                     target_nash_conv=1e-4)
    cert = r.certificate
    low, high = cert.extra["value_interval"]
    assert r.variant == "operator_cfr" and not r.exact
    assert r.extra["status"] == "converged" and r.extra["optimal"] is False
    assert cert.extra["relative_nash_conv"] <= 1e-4
    assert low <= KUHN <= high and high - low == pytest.approx(cert.nash_conv)
    # the returned strategies, evaluated on the tree by lpgame's best responses
    evaluation = lpgame.evaluate(lpgame.games.make("kuhn_poker"), r.strategies)
    assert evaluation.nash_conv == pytest.approx(cert.nash_conv, abs=1e-9)


def test_leduc_value_lies_in_the_certified_interval():
    r = lpgame.solve(lpgame.games.make("leduc_poker", deal="cards"), method="operator_cfr",
                     target_nash_conv=2e-4)
    low, high = r.certificate.extra["value_interval"]
    assert r.extra["status"] == "converged"
    assert low <= LEDUC <= high and high - low <= 2e-4 * r.certificate.extra["payoff_range"]


def test_the_iteration_limit_is_labelled_not_converged():
    r = lpgame.solve(lpgame.games.make("leduc_poker", deal="cards"), method="operator_cfr",
                     iterations=5, target_nash_conv=1e-9)
    assert r.extra["status"] == "iteration limit" and r.extra["iterations"] == 5
    low, high = r.certificate.extra["value_interval"]
    assert low <= LEDUC <= high and high - low > 1e-9 * 26


@pytest.mark.parametrize("options", [{"algorithm": "cfr"}, {"target_nash_conv": 1.5},
                                     {"iterations": 0}, {"solver": "ipm"}])
def test_bad_options_are_refused(options):
    with pytest.raises(OptionError):
        lpgame.solve(lpgame.games.make("kuhn_poker"), method="operator_cfr", **options)


def test_exact_mode_is_refused():
    with pytest.raises(OptionError, match="exact"):
        lpgame.solve(lpgame.games.make("kuhn_poker"), method="operator_cfr", exact=True)


def test_cli_solves_leduc(capsys):
    code = main(["solve", "leduc_poker", "deal=cards", "--method", "operator_cfr",
                 "--algorithm", "cfr+", "--target-nash-conv", "1e-3", "--json", "-"])
    out = capsys.readouterr().out
    assert code == 0
    data = json.loads(out)
    low, high = data["certificate"]["value_interval"]
    assert data["status"] == "converged" and data["optimal"] is False
    assert low <= LEDUC <= high
    assert data["variant"] == "operator_cfr"


def test_cli_help_lists_the_options(capsys):
    assert main(["solve", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    for text in ("operator_cfr", "--target-nash-conv", "dcfr, cfr+ or pcfr+"):
        assert text in out


@pytest.mark.parametrize("args", [["--algorithm", "foo"], ["--target-nash-conv", "2"],
                                  ["--iterations", "0"], ["--solver", "ipm"]])
def test_cli_bad_option_is_one_error_line(capsys, args):
    code = main(["solve", "kuhn_poker", "--method", "operator_cfr", *args])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("lpgame: error:"), err


def test_progress_reports_the_certified_figures():
    seen = []
    lpgame.solve(lpgame.games.make("kuhn_poker"), method="operator_cfr", target_nash_conv=1e-3,
                 progress=lambda what, figures: seen.append((what, figures)))
    figures = [f for what, f in seen if what.startswith("operator CFR")]
    assert figures and figures[-1]["relative_nash_conv"] <= 1e-3
    assert figures[-1]["value_low"] <= KUHN <= figures[-1]["value_high"]


def test_the_time_limit_is_labelled_and_still_certified():
    r = lpgame.solve(lpgame.games.make("leduc_poker", deal="cards"), method="operator_cfr",
                     target_nash_conv=1e-9, time_limit=1e-6)
    # the time is checked after every iteration, and at least one is run
    assert r.extra["status"] == "time limit" and r.extra["iterations"] == 1
    low, high = r.certificate.extra["value_interval"]
    assert low <= LEDUC <= high
