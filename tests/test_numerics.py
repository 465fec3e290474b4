"""Numbers at every scale (issue 20): the reported value is the returned profile's value, payoffs
are put in unit range before the solver sees them, certificates are relative to the payoff range,
exact mode does not give up on small games with awkward numbers, and the input/output edges.

Independent sources: the closed-form value of a 2×2 zero-sum game without a saddle point,
v = (ad − bc)/(a + d − b − c) (von Neumann & Morgenstern 1944; any game-theory text), computed here
in exact rationals; the games' own best responses (lpgame.analysis, no LP); nashpy's support
enumeration; and power-of-ten rescaling of a game, whose equilibria are the same strategies.
"""

from __future__ import annotations

import os
import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lpgame
from lpgame.errors import ExactCheckError, GameFileError, InvalidGameError, OptionError
from lpgame.game import NormalFormGame
from lpgame.io.gambit import parse_nfg, read_nfg
from lpgame.io.json_io import write_json
from lpgame.lp.scaling import check_float_payoffs, unit_range_scaling

SETTINGS = settings(max_examples=12, deadline=None)


def zero_sum(matrix, name="game") -> NormalFormGame:
    matrix = [list(row) for row in matrix]
    return NormalFormGame([matrix, [[-v for v in row] for row in matrix]], name=name)


def random_matrix(seed: int, rows: int = 3, cols: int = 4) -> np.ndarray:
    """Continuous payoffs: the equilibrium is unique with probability one."""
    return np.random.default_rng(seed).normal(size=(rows, cols))


def strategy_vectors(result) -> list[np.ndarray]:
    return [np.array([float(p) for row in s.values() for p in row.values()])
            for s in result.strategies]


def closed_form_2x2(a, b, c, d) -> Fraction:
    """The value of the zero-sum game [[a, b], [c, d]] for the row player, exactly: a saddle point
    if there is one, else (ad − bc)/(a + d − b − c)."""
    lower = max(min(a, b), min(c, d))      # maximin in pure strategies
    upper = min(max(a, c), max(b, d))      # minimax in pure strategies
    if lower == upper:
        return Fraction(lower)
    return Fraction(a * d - b * c) / (a + d - b - c)


# ------------------------------------------------------------------------------------ scaling
@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(-12, 12))
def test_float_equilibrium_is_the_same_at_every_power_of_ten(seed, k):
    """Payoffs × 10^k: the same strategies up to the solver's tolerance, the value × 10^k, and a
    relative NashConv ≤ 1e-9 (the issue's 1e-12 game had NashConv 7.9 at its own scale)."""
    matrix = random_matrix(seed)
    base = lpgame.solve(zero_sum(matrix))
    scaled = lpgame.solve(zero_sum(matrix * 10.0 ** k))
    for s, b in zip(strategy_vectors(scaled), strategy_vectors(base)):
        np.testing.assert_allclose(s, b, atol=1e-7)
    spread = 2 * float(np.abs(matrix).max())      # the range over both players' payoffs (u, −u)
    assert scaled.value / 10.0 ** k == pytest.approx(base.value, abs=1e-9 * spread)
    cert = scaled.certificate
    assert cert.extra["payoff_range"] == pytest.approx(spread * 10.0 ** k, rel=1e-12)
    assert cert.extra["relative_nash_conv"] <= 1e-9
    assert cert.extra["relative_nash_conv"] == pytest.approx(cert.nash_conv / (spread * 10.0 ** k))


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(-12, 12))
def test_exact_equilibrium_is_the_same_at_every_power_of_ten(seed, k):
    rng = random.Random(seed)        # wide random rationals: a unique equilibrium, almost surely
    matrix = [[Fraction(rng.randint(-10**6, 10**6), rng.randint(1, 997)) for _ in range(3)]
              for _ in range(3)]
    factor = Fraction(10) ** k
    base = lpgame.solve(zero_sum(matrix), exact=True)
    scaled = lpgame.solve(zero_sum([[v * factor for v in row] for row in matrix]), exact=True)
    assert scaled.value == base.value * factor
    assert scaled.certificate.nash_conv == 0 and scaled.certificate.extra["relative_nash_conv"] == 0
    # the scaled game's strategies are an exact equilibrium of the unscaled game (best responses)
    assert lpgame.evaluate(zero_sum(matrix), scaled.strategies, exact=True).nash_conv == 0
    assert scaled.strategies == base.strategies


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(-12, 12))
def test_maximin_and_correlated_values_scale_with_the_payoffs(seed, k):
    """General-sum concepts at 10^k: maximin values (what the strategies guarantee, by independent
    best responses) and the CE welfare objective are the unscaled ones × 10^k."""
    rng = np.random.default_rng(seed)
    payoffs = rng.normal(size=(2, 3, 3))
    factor = 10.0 ** k
    base = lpgame.solve(NormalFormGame(payoffs), concept="maximin")
    scaled = lpgame.solve(NormalFormGame(payoffs * factor), concept="maximin")
    spread = float(payoffs.max() - payoffs.min())
    for s, b in zip(scaled.values, base.values):
        assert s / factor == pytest.approx(b, abs=1e-9 * spread)
    assert max(abs(g) for g in scaled.certificate.extra["security_gap"]) <= 1e-9 * spread * factor
    base = lpgame.solve(NormalFormGame(payoffs), concept="ce")
    scaled = lpgame.solve(NormalFormGame(payoffs * factor), concept="ce")
    assert scaled.objective / factor == pytest.approx(base.objective, abs=1e-9 * spread)
    assert scaled.extra["relative_gap"] <= 1e-9


def test_the_issues_scaled_games_solve():
    """1e-12 gave value 0 with NashConv 7.9 at the original scale; 1e12 gave 'Unbounded', 1e20
    'Empty'. Now each is the unscaled answer scaled."""
    matrix = random_matrix(20)
    base = lpgame.solve(zero_sum(matrix))
    for factor in (1e-12, 1e12, 1e20, 1e250):
        result = lpgame.solve(zero_sum(matrix * factor))
        assert result.value / factor == pytest.approx(base.value, rel=1e-9)
        assert result.certificate.extra["relative_nash_conv"] <= 1e-12


def test_unit_range_scaling_is_a_power_of_two_and_maps_back():
    scaling = unit_range_scaling(Fraction(4999999999999, 10**6), Fraction(5000000000001, 10**6),
                                 exact=True)
    assert scaling.shift == 5000000 and Fraction(1, 10**6) <= scaling.scale < Fraction(2, 10**6)
    assert scaling.to_unit(Fraction(5000000000001, 10**6)) <= 1
    assert scaling.from_unit(scaling.to_unit(Fraction(7, 3))) == Fraction(7, 3)
    tiny = unit_range_scaling(-3e-12, 5e-12)      # near zero: scaled, not shifted
    assert tiny.shift == 0 and tiny.float_scale == 2.0 ** -37
    assert unit_range_scaling(-2, 2).exponent == 0     # near unit range: left as it is


@pytest.mark.parametrize("payoffs, words", [
    ([[1e300, 0], [0, 1]], r"magnitude 1e\+300"),
    ([[1e16, 1e16 + 2], [1e16 + 4, 1e16]], "range ratio"),
    ([[5e-310, 0], [0, 1e-310]], "below 1e-300"),
])
def test_float_mode_refuses_payoffs_floats_cannot_hold_and_exact_mode_takes_them(payoffs, words):
    game = zero_sum(payoffs)
    with pytest.raises(InvalidGameError, match=words):
        lpgame.solve(game)
    exact = [[Fraction(v) for v in row] for row in payoffs]
    a, b, c, d = exact[0] + exact[1]
    assert lpgame.solve(zero_sum(exact), exact=True).value == closed_form_2x2(a, b, c, d)


def test_check_float_payoffs_accepts_ordinary_ranges():
    check_float_payoffs(-1e299, 1e299, "a game")
    check_float_payoffs(5000000.000001, 5000000.000009, "a game")   # ratio 6e11
    with pytest.raises(InvalidGameError, match="not a number"):
        check_float_payoffs(float("nan"), 1.0, "a game")


# ------------------------------------------------------------------ value = profile's value
def _independent_value(game, result) -> float:
    return lpgame.evaluate(game, result.strategies).values[0]


@pytest.mark.parametrize("options", [
    {"solver": "simplex"},
    {"solver": "ipm", "highs_options": {"run_crossover": "off"}},
    {"solver": "pdlp"},
    {"solver": "clarabel"},
    {"algorithm": "double_oracle"},
], ids=["simplex", "ipm-no-crossover", "pdlp", "clarabel", "double-oracle"])
def test_every_solver_path_reports_the_profiles_value(options):
    """The reported value is the returned profile's value, evaluated independently (1e-12
    relative); the LP objective is kept beside it and the certificate holds their difference.
    PDLP's objective differed from its profile's value by up to 1.4e-6 in the issue."""
    for seed in range(3):
        game = zero_sum(random_matrix(100 + seed, 4, 3))
        spread = float(game.payoffs.astype(float).max() - game.payoffs.astype(float).min())
        result = lpgame.solve(game, **options)
        assert result.value == pytest.approx(_independent_value(game, result), abs=1e-12 * spread)
        lp_objective = result.extra["lp_objective"]
        assert result.certificate.extra["value_gap"] == pytest.approx(
            abs(lp_objective - result.value), abs=1e-15)
        assert result.certificate.extra["relative_value_gap"] <= 1e-3


def test_maximin_reports_what_its_strategies_guarantee():
    rng = np.random.default_rng(5)
    game = NormalFormGame([rng.normal(size=(3, 3)), rng.normal(size=(3, 3))])
    result = lpgame.solve(game, concept="maximin", solver="pdlp")
    for i in range(2):     # an independent best response of the opponent to the returned strategy
        profile = [dict(s) for s in result.strategies]
        own = np.array([float(p) for p in next(iter(result.strategies[i].values())).values()])
        payoff = game.payoffs[i].astype(float)
        worst = (own @ payoff).min() if i == 0 else (payoff @ own).min()
        assert result.values[i] == pytest.approx(worst, abs=1e-12)
        assert profile     # strategies returned for both players
    assert len(result.extra["lp_objective"]) == 2


def test_exact_value_is_the_exact_profile_value_and_names_its_path():
    game = zero_sum([[Fraction(3, 7), -1, 2], [0, Fraction(5, 11), -2]])
    result = lpgame.solve(game, exact=True)
    assert result.value == lpgame.evaluate(game, result.strategies, exact=True).values[0]
    assert result.certificate.extra["value_gap"] == 0
    assert result.certificate.extra["exact_path"] in ("reconstruction", "fmpq_solve")


@pytest.mark.parametrize("concept", ["ce", "cce"])
def test_correlated_objective_is_the_returned_distributions(concept):
    rng = np.random.default_rng(11)
    payoffs = rng.normal(size=(2, 3, 3)) * 1e-11
    game = NormalFormGame(payoffs)
    result = lpgame.solve(game, concept=concept)
    evaluated = [sum(entry["probability"] * payoffs[i][tuple(int(a) for a in entry["profile"])]
                     for entry in result.distribution) for i in range(2)]
    assert result.objective == pytest.approx(sum(evaluated), abs=1e-9 * 1e-11)
    assert "lp_objective" in result.extra and "objective_gap" in result.extra
    assert result.extra["relative_gap"] == pytest.approx(result.gap / result.extra["payoff_range"])
    assert result.extra["relative_gap"] <= 1e-7


# ------------------------------------------------------------------------------ exact mode
def test_exact_mode_solves_the_5000000_000001_family():
    """The issue's family: 20 of 30 failed with ExactCheckError. Each answer is checked by exact
    best responses (NashConv exactly 0), independent of the LP."""
    rng = random.Random(2026)
    for _ in range(30):
        matrix = [[Fraction(5000000) + Fraction(rng.randint(-9, 9), 10**6) for _ in range(4)]
                  for _ in range(4)]
        result = lpgame.solve(zero_sum(matrix), exact=True)
        assert result.certificate.nash_conv == 0
        assert result.value == lpgame.evaluate(zero_sum(matrix), result.strategies,
                                               exact=True).values[0]


def test_exact_mode_solves_2x2_games_with_300_digit_rationals():
    rng = random.Random(300)
    for _ in range(10):
        a, b, c, d = (Fraction(rng.randrange(-10**300, 10**300), rng.randrange(10**299, 10**300))
                      for _ in range(4))
        result = lpgame.solve(zero_sum([[a, b], [c, d]]), exact=True)
        assert result.value == closed_form_2x2(a, b, c, d)
        assert result.certificate.nash_conv == 0


def test_gambit_numbers_beyond_floats_are_exact_and_refused_in_float_mode(tmp_path):
    path = tmp_path / "big.nfg"
    path.write_text('NFG 1 R "big" { "P1" "P2" } { 2 2 }\n1e400 -1e400 0 0 0 0 3 -3\n')
    game = read_nfg(path)
    big = Fraction(10) ** 400
    assert lpgame.solve(game, exact=True).value == closed_form_2x2(big, 0, 0, 3)
    with pytest.raises(InvalidGameError, match="beyond the double range"):
        lpgame.solve(game)
    digits = "1" + "0" * 4999 + "7"          # 5,001 digits, beyond int()'s 4,300-digit limit
    game = parse_nfg(f'NFG 1 R "long" {{ "P1" "P2" }} {{ 2 2 }}\n{digits} -{digits} 0 0 0 0 3 -3\n')
    huge = 10**5000 + 7
    assert game.payoffs[0][0, 0] == huge
    result = lpgame.solve(game, exact=True)
    assert result.value == closed_form_2x2(huge, 0, 0, 3)
    assert "exact_simplex" in result.certificate.extra["exact_path"]   # floats see 3/10^5000 as 0
    assert len(write_json(result.to_dict(), None)) > 10000      # written in full, not refused


def test_exact_simplex_reaches_the_optimum_from_the_slack_basis():
    """From the all-slack basis (primal infeasible) phase 1 and phase 2 pivot to the exact
    optimum; checked against the closed form and by the independent basis certification."""
    from lpgame.compile import compile_game
    from lpgame.equilibria.zero_sum.security import security_lp
    from lpgame.lp import solve_lp
    from lpgame.lp.exact import certify_basis
    from lpgame.lp.exact_simplex import exact_simplex
    from lpgame.lp.solution import BASIS_BASIC, BASIS_LOWER, BASIS_ZERO

    rng = random.Random(7)
    for _ in range(8):
        a, b, c, d = (Fraction(rng.randint(-20, 20), rng.randint(1, 5)) for _ in range(4))
        built = security_lp(compile_game(zero_sum([[a, b], [c, d]])), 0, exact=True)
        start = solve_lp(built.lp, solver="simplex")
        lower = np.concatenate([blk.lower for blk in built.lp.variables])
        start.col_basis = np.where(np.isinf(lower), BASIS_ZERO, BASIS_LOWER).astype(np.int8)
        start.row_basis = np.full(built.lp.num_rows, BASIS_BASIC, dtype=np.int8)
        pivoted, pivots = exact_simplex(built.lp, start)
        assert pivots > 0
        assert built.value(certify_basis(built.lp, pivoted).objective) == closed_form_2x2(a, b, c, d)


def test_a_basis_that_is_never_optimal_is_pivoted_exactly(monkeypatch):
    """HiGHS's basis and the tight-tolerance one both made to fail certification: the exact
    simplex continues and its basis is certified; the path says so."""
    import lpgame.lp.exact as exact_module
    real = exact_module.certify_basis
    calls = {"n": 0}

    def failing_twice(lp, solution):
        calls["n"] += 1
        if calls["n"] <= 2:
            raise ExactCheckError("exact mode: row 0 has activity 1/10**9 outside its bounds")
        return real(lp, solution)

    monkeypatch.setattr(exact_module, "certify_basis", failing_twice)
    result = lpgame.solve("kuhn_poker", exact=True)
    assert result.value == Fraction(-1, 18) and result.certificate.nash_conv == 0
    assert result.certificate.extra["exact_path"].startswith("exact_simplex+")


# ------------------------------------------------------------------------------ part 4
@pytest.mark.parametrize("threads", [0, -1, 100000, "many", 1.5])
def test_threads_beyond_the_machine_are_refused_by_name(threads):
    with pytest.raises(OptionError, match="threads"):
        lpgame.solve("kuhn_poker", threads=threads)


def test_threads_within_the_machine_solve():
    """Up to 4 threads per core (HiGHS shares them out); beyond, refused before any solver starts,
    also where the LP layer is called directly."""
    from lpgame.compile import compile_game
    from lpgame.equilibria.zero_sum.security import security_lp
    from lpgame.lp import solve_lp

    assert lpgame.solve("kuhn_poker", threads=os.cpu_count()).value == pytest.approx(-1 / 18)
    lp = security_lp(compile_game("kuhn_poker"), 0).lp
    assert solve_lp(lp, threads=4 * os.cpu_count()).objective == pytest.approx(-1 / 18)
    for threads in (4 * os.cpu_count() + 1, 0, 10**5, "many"):
        with pytest.raises(OptionError, match=f"this machine has {os.cpu_count()} cores"):
            solve_lp(lp, threads=threads)


@pytest.mark.parametrize("name, words", [
    ("nosuchgame", "Unknown game 'nosuchgame'"),
    ("kuhn_poker(", "closing bracket"),
    ("", "empty"),
    ("kuhn_poker(players=1)", "num_players"),
    ("matrix_rps", "not turn-based"),
])
def test_openspiel_errors_are_lpgame_errors(name, words):
    pytest.importorskip("pyspiel")
    from lpgame.io.openspiel import game_from_openspiel
    with pytest.raises(InvalidGameError, match=words):
        game_from_openspiel(name)


def test_an_endless_game_file_is_refused_not_read_until_memory_runs_out(tmp_path, monkeypatch):
    monkeypatch.setenv("LPGAME_MEMORY_LIMIT", "64M")        # a read cap of 1 MiB
    link = tmp_path / "endless.efg"
    link.symlink_to("/dev/zero")
    with pytest.raises(GameFileError, match="longer than 1,048,576 bytes"):
        lpgame.games.load(str(link))
    big = tmp_path / "big.nfg"
    big.write_bytes(b" " * (2 << 20))
    with pytest.raises(GameFileError, match="endless stream"):
        read_nfg(big)


def test_json_is_replaced_atomically(tmp_path, monkeypatch):
    """A write interrupted after the text is written but before the rename (as by SIGTERM or
    Ctrl-C) leaves the previous file whole and no temporary file behind."""
    import lpgame.io.safe_files as safe_files
    path = tmp_path / "result.json"
    write_json({"value": 1}, path)
    os.chmod(path, 0o640)
    before = path.read_text()

    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(safe_files.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_json({"value": 2, "long": "x" * 100000}, path)
    assert path.read_text() == before and os.listdir(tmp_path) == ["result.json"]
    monkeypatch.undo()
    write_json({"value": 3}, path)
    assert '"value": 3' in path.read_text() and (os.stat(path).st_mode & 0o777) == 0o640


def test_safe_best_responses_read_the_scaled_lp_in_the_games_units():
    """The ε-safe best response bounds v[∅] of the security LP, which holds the payoffs in
    unit-range form: at every scale its guarantee is the security value less ε, by an independent
    best response (the issue's scales 1e-12 and 1e12, and a shifted game)."""
    from lpgame.equilibria.zero_sum.safe_best_response import safe_best_response

    matrix = random_matrix(31, 3, 3)
    for factor, shift in ((1e-12, 0.0), (1.0, 0.0), (1e12, 0.0), (1.0, 1e6)):
        game = zero_sum(matrix * factor + shift)
        value = lpgame.solve(game).value
        model = np.array([1.0, 1.0, 0.0, 0.0])       # the opponent always plays its first action
        epsilon = 0.1 * factor
        point = safe_best_response(game, model, epsilon)
        assert point.guaranteed >= value - epsilon - 1e-9 * factor
        assert point.guaranteed <= value + 1e-9 * factor


def test_exact_mode_pivots_exactly_where_highs_fails_on_the_float_lp(monkeypatch):
    """HiGHS made to fail outright (as it did with 'Solve error' on the 5000000.000001 family
    before scaling): a small LP is solved by exact pivots from the all-slack basis."""
    import lpgame.lp as lp_module
    from lpgame.errors import SolverError

    def failing(*args, **kwargs):
        raise SolverError("HiGHS returned status 'Solve error'", status="Solve error")

    monkeypatch.setattr(lp_module, "solve_lp", failing)
    result = lpgame.solve("kuhn_poker", exact=True)
    assert result.value == Fraction(-1, 18) and result.certificate.nash_conv == 0
    assert result.certificate.extra["exact_path"].startswith("exact_simplex_from_slack+")


def test_an_unwritable_destination_names_the_users_path(tmp_path):
    with pytest.raises(FileNotFoundError) as missing:
        write_json({"value": 1}, tmp_path / "no such folder" / "result.json")
    assert missing.value.filename == str(tmp_path / "no such folder" / "result.json")
    with pytest.raises(IsADirectoryError):
        write_json({"value": 1}, tmp_path)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("signal_name, inherited", [("SIGTERM", "as started"), ("SIGINT", "as started"),
                                                   ("SIGINT", "ignored")])
@pytest.mark.slow
def test_a_signal_during_json_writes_never_leaves_a_cut_file(tmp_path, signal_name, inherited,
                                                             sigint_at_start):
    """The issue's run: SIGTERM (or SIGINT) while --json was being written left the previous file
    empty or cut short in most runs. A child rewrites a 4 MB result file in a loop and is killed
    mid-way; the file is always complete JSON, and no temporary file is left but the one the
    kill may have interrupted before its rename (never the user's file).

    ``inherited="ignored"`` starts the child from a worker whose SIGINT is ignored, as every
    worker's is when pytest itself was started with ``&`` from a script (``conftest.py``): the
    child still stops on SIGINT."""
    import json
    import signal
    import subprocess
    import sys
    import time
    import warnings

    path = tmp_path / "result.json"
    write_json({"round": -1}, path)
    # the child starts as a shell would start it in the foreground, with SIGINT and SIGTERM
    # neither ignored nor blocked. A child inherits an ignored SIGINT (and blocked signals) from
    # the process that starts it, and so from the shell that started pytest: ``python -m pytest
    # ... &`` from a script or ``bash -c`` runs with SIGINT ignored (tests/conftest.py), and then
    # this child ignored SIGINT and the test hung for 30 s. What the child inherited is printed.
    script = ("import signal, sys\n"
              "handler = signal.getsignal(signal.SIGINT)\n"
              "inherited = ('ignored' if handler == signal.SIG_IGN else 'default'\n"
              "             if handler is signal.default_int_handler else repr(handler),\n"
              "             sorted(signal.pthread_sigmask(signal.SIG_BLOCK, [])))\n"
              "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})\n"
              "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
              "signal.signal(signal.SIGTERM, signal.SIG_DFL)\n"
              "from lpgame.io.json_io import write_json\n"
              "big = ['x' * 1000] * 4000\n"
              "for k in range(10**6):\n"
              "    write_json({'round': k, 'payload': big}, sys.argv[1])\n"
              "    if k == 0:\n"
              "        print('writing', *inherited, flush=True)\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    # what the child may inherit: SIGINT ignored here on purpose; else at Python's default, or
    # ignored when the shell started pytest so (an earlier test may have reset it since: nbclient's
    # asyncio loop does, whose remove_signal_handler installs default_int_handler, whatever was before)
    if inherited == "ignored":
        expected = {"writing ignored []"}
    elif sigint_at_start == signal.SIG_IGN:
        expected = {"writing ignored []", "writing default []"}
    else:
        expected = {"writing default []"}
    for _ in range(3):
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if inherited == "ignored" else None
        try:
            child = subprocess.Popen([sys.executable, "-c", script, str(path)], env=env,
                                     stdout=subprocess.PIPE, text=True)
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
        # the signal is sent while the child is in its write loop, not while it is still
        # importing (on a loaded machine the imports alone can take more than a second)
        started = child.stdout.readline().strip()
        assert started.startswith("writing")
        if started not in expected:      # a test before this one ignored or blocked a signal
            warnings.warn(f"the test worker passes its child a SIGINT/SIGTERM state it did not "
                          f"start with: {started!r} (expected one of {sorted(expected)})",
                          stacklevel=1)
        time.sleep(0.3)
        child.send_signal(getattr(signal, signal_name))
        try:
            child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
            pytest.fail(f"the child did not stop within 30 s of {signal_name} (its inherited "
                        f"SIGINT handler and blocked signals: {started})")
        finally:
            child.stdout.close()
        data = json.loads(path.read_text())          # complete, whichever round it holds
        assert "round" in data
