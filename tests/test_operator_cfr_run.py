"""The certified run of the showdown-operator learner (lpgame.learning.operator_cfr.certified_run):
the one loop of ``method="operator_cfr"`` and of the Rhode Island benchmark; its certificate rule,
its checkpoints (a resumed run continues the iterates of an uninterrupted one, compared array by
array), bad checkpoints refused with OptionError; and the small CLI items of the same clean-up
(the method named in a refusal, the source-reading marker of ``lpgame concepts``).

Values from the literature: Leduc Hold'em −0.0856064240780 (as in tests/test_operator_learning.py;
Southey et al. 2005 for the rules), Kuhn poker −1/18 (Kuhn 1950)."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

import lpgame
from lpgame.abstraction.ordered_game import leduc_ordered
from lpgame.api import concepts
from lpgame.cli import main
from lpgame.errors import OptionError
from lpgame.game.showdown_operator import SignalPayoffOperator
from lpgame.learning.operator_cfr import OperatorCFR, certified_run

LEDUC = -0.0856064240780
KUHN = -1 / 18


@pytest.fixture(scope="module")
def op():
    return SignalPayoffOperator(leduc_ordered())


def _learner(op, algorithm="dcfr"):
    return OperatorCFR([op.treeplex(0), op.treeplex(1)], op.sequence_payoffs, algorithm)


def _certify(op):
    def certify(plans):
        cert = op.nash_conv(*plans)
        return {**cert, "value_bounds": [cert["best_response_2"], cert["best_response_1"]]}
    return certify


def _arrays(path):
    with np.load(path, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


# ------------------------------------------------------------------ resume = uninterrupted
@pytest.mark.parametrize("algorithm", ["dcfr", "pcfr+"])
def test_a_resumed_run_continues_the_iterates_of_an_uninterrupted_one(op, tmp_path, algorithm):
    spread = 26.0
    straight = _learner(op, algorithm)
    whole = certified_run(straight, _certify(op), spread, iterations=37, check_every=5,
                          checkpoint=tmp_path / "straight")
    assert whole.resumed_at == 0 and whole.iterations == 37 and whole.status == "iteration limit"
    first = certified_run(_learner(op, algorithm), _certify(op), spread, iterations=16,
                          check_every=5, checkpoint=tmp_path / "cut")
    assert first.iterations == 16
    resumed = _learner(op, algorithm)
    second = certified_run(resumed, _certify(op), spread, iterations=37, check_every=5,
                           checkpoint=tmp_path / "cut")
    assert second.resumed_at == 16 and second.iterations == 37
    for key, value in straight.state().items():
        assert np.array_equal(np.asarray(value), np.asarray(resumed.state()[key])), key
    for a, b in zip(straight.average(), resumed.average()):
        assert np.array_equal(a, b)
    on_disk = [_arrays(tmp_path / d / "state.npz") for d in ("straight", "cut")]
    assert on_disk[0].keys() == on_disk[1].keys()
    for key in on_disk[0]:
        assert np.array_equal(on_disk[0][key], on_disk[1][key]), key
    # the final certificates agree, and the value lies in their interval
    assert whole.history[-1][0] == second.history[-1][0] == 37
    assert whole.history[-1][2] == second.history[-1][2]
    low, high = whole.best["value_bounds"]
    assert low <= LEDUC <= high


def test_the_api_resumes_from_its_checkpoint(tmp_path):
    game = lpgame.games.make("leduc_poker", deal="cards")
    options = dict(method="operator_cfr", target_nash_conv=1e-9)
    lpgame.solve(game, iterations=20, checkpoint=str(tmp_path / "cut"), **options)
    resumed = lpgame.solve(game, iterations=45, checkpoint=str(tmp_path / "cut"), **options)
    straight = lpgame.solve(game, iterations=45, checkpoint=str(tmp_path / "straight"), **options)
    assert resumed.extra["resumed_at"] == 20 and straight.extra["resumed_at"] == 0
    assert resumed.extra["iterations"] == straight.extra["iterations"] == 45
    a, b = (_arrays(tmp_path / d / "state.npz") for d in ("straight", "cut"))
    for key in a:
        assert np.array_equal(a[key], b[key]), key
    assert resumed.certificate.nash_conv == straight.certificate.nash_conv
    low, high = resumed.certificate.extra["value_interval"]
    assert low <= LEDUC <= high
    # a run already past its iteration limit only certifies
    again = lpgame.solve(game, iterations=10, checkpoint=str(tmp_path / "cut"), **options)
    assert again.extra["iterations"] == 45 and again.extra["status"] == "iteration limit"


# ------------------------------------------------------------------ bad checkpoints
def test_bad_checkpoints_are_refused(op, tmp_path):
    kuhn = lpgame.games.make("kuhn_poker")
    a_file = tmp_path / "file"
    a_file.write_text("not a folder")
    for bad in (a_file, 5, ""):
        with pytest.raises(OptionError, match="checkpoint"):
            lpgame.solve(kuhn, method="operator_cfr", checkpoint=bad)
    garbled = tmp_path / "garbled"
    garbled.mkdir()
    (garbled / "state.npz").write_bytes(b"not a zip file")
    with pytest.raises(OptionError, match="cannot read"):
        lpgame.solve(kuhn, method="operator_cfr", checkpoint=str(garbled))
    partial = tmp_path / "partial"
    partial.mkdir()
    np.savez(partial / "state.npz", regret_1=np.zeros(3))
    with pytest.raises(OptionError, match="missing"):
        lpgame.solve(kuhn, method="operator_cfr", checkpoint=str(partial))
    # a state of Kuhn poker is not one of Leduc Hold'em, nor of another algorithm
    kept = tmp_path / "kuhn"
    lpgame.solve(kuhn, method="operator_cfr", iterations=10, checkpoint=str(kept))
    leduc = lpgame.games.make("leduc_poker", deal="cards")
    with pytest.raises(OptionError, match="another game"):
        lpgame.solve(leduc, method="operator_cfr", iterations=10, checkpoint=str(kept))
    with pytest.raises(OptionError, match="dcfr, not cfr"):
        lpgame.solve(kuhn, method="operator_cfr", algorithm="cfr+", checkpoint=str(kept))
    # same game, other payoffs: the fingerprint of U·y tells them apart
    cfr = _learner(op)
    certified_run(cfr, _certify(op), 26.0, iterations=3, checkpoint=tmp_path / "leduc")

    def doubled(player, plan):
        return 2.0 * op.sequence_payoffs(player, plan)
    other = OperatorCFR([op.treeplex(0), op.treeplex(1)], doubled, "dcfr")
    with pytest.raises(OptionError, match="payoffs differ"):
        certified_run(other, _certify(op), 26.0, iterations=6, checkpoint=tmp_path / "leduc")
    # a run without a limit, or without checks
    with pytest.raises(OptionError, match="limit"):
        certified_run(_learner(op), _certify(op), 26.0)
    with pytest.raises(OptionError, match="check_every"):
        certified_run(_learner(op), _certify(op), 26.0, iterations=5, check_every=0)


def test_cli_bad_checkpoint_is_one_error_line(capsys, tmp_path):
    a_file = tmp_path / "file"
    a_file.write_text("x")
    code = main(["solve", "kuhn_poker", "--method", "operator_cfr", "--checkpoint", str(a_file)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("lpgame: error:"), err
    assert "is a file, not a folder" in err[0]


def test_a_state_from_before_fingerprints_resumes_when_its_identity_matches(op, tmp_path):
    """The benchmark's earlier state files held the learner's arrays and ``ranks`` only."""
    cut = _learner(op)
    cut.iterate(8)
    np.savez(tmp_path / "state.npz", ranks=np.array(3), **cut.state())
    resumed = _learner(op)
    run = certified_run(resumed, _certify(op), 26.0, iterations=12, checkpoint=tmp_path,
                        identity={"ranks": 3})
    straight = _learner(op)
    straight.iterate(12)
    assert run.resumed_at == 8
    for a, b in zip(straight.average(), resumed.average()):
        assert np.array_equal(a, b)
    np.savez(tmp_path / "state.npz", ranks=np.array(4), **cut.state())
    with pytest.raises(OptionError, match="ranks differs"):
        certified_run(_learner(op), _certify(op), 26.0, iterations=12, checkpoint=tmp_path,
                      identity={"ranks": 3})


# ------------------------------------------------------------------ the certificate rule
def test_certificates_wait_spacing_times_their_duration(op):
    spans = []
    certify = _certify(op)

    def slow(plans):
        t0 = time.perf_counter()
        time.sleep(0.02)
        out = certify(plans)
        spans.append((t0, time.perf_counter()))
        return out
    falling = iter(range(10 ** 6, 0, -1))
    run = certified_run(_learner(op), slow, 26.0, iterations=150, check_every=1,
                        screen=lambda plans: next(falling), spacing=4.0)
    assert run.history[-1][0] == 150 and len(run.history) == len(spans)
    assert 2 <= len(spans) < 150
    for (s0, e0), (s1, _) in zip(spans, spans[1:-1]):   # the final one is always taken
        assert s1 - e0 >= 4.0 * (e0 - s0)
    # a screen that never improves (and is above the target): the first check and the end only
    run = certified_run(_learner(op), certify, 26.0, iterations=40, check_every=5,
                        screen=lambda plans: 1.0, target=1e-3)
    assert [row[0] for row in run.history] == [5, 40] and run.status == "iteration limit"
    # no screen, no spacing (the benchmark): every check, and the best is kept
    run = certified_run(_learner(op), certify, 26.0, iterations=40, check_every=5, spacing=0.0)
    assert [row[0] for row in run.history] == list(range(5, 45, 5))
    assert run.best["nash_conv"] / 26.0 == min(row[2] for row in run.history)


def test_the_target_stops_the_run_as_converged(op):
    run = certified_run(_learner(op), _certify(op), 26.0, iterations=5000, check_every=10,
                        target=2e-3)
    assert run.status == "converged" and run.iterations < 5000
    assert run.best["nash_conv"] <= 2e-3 * 26.0
    low, high = run.best["value_bounds"]
    assert low <= LEDUC <= high


# ------------------------------------------------------------------ the CLI items
@pytest.mark.parametrize("method", ["operator_cfr", "signal_operator"])
def test_a_game_the_operator_cannot_take_names_the_chosen_method(capsys, method):
    code = main(["solve", "matching_pennies", "--method", method])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("lpgame: error:"), err
    assert f"method={method!r}" in err[0]
    other = {"operator_cfr": "signal_operator", "signal_operator": "operator_cfr"}[method]
    assert f"method={other!r}" not in err[0]


def test_concepts_marks_the_entries_that_read_the_source(capsys):
    readers = {(c.name, c.variant) for c in concepts() if c.reads_source}
    assert ("nash", "operator_cfr") in readers and ("nash", "signal_operator") in readers
    assert main(["concepts"]) == 0
    lines = capsys.readouterr().out.splitlines()
    marked = set()
    for head, games in zip(lines, lines[1:]):
        if not head.startswith(" ") and games.startswith("    games:"):
            name, _, rest = head.partition(":")[0].partition(" [")
            if "reads the game's source" in games:
                marked.add((name, rest.rstrip("]") or "default"))
    assert marked == readers
    assert main(["concepts", "--json", "-"]) == 0
    listed = json.loads(capsys.readouterr().out)["concepts"]
    assert {(c["name"], c["variant"]) for c in listed if c["reads_source"]} == readers


def test_the_suit_group_of_a_twelve_card_deck_is_found_without_twelve_factorial():
    """signal_operator tried 12 cards as 12 suits (12! permutations, out of memory) before the
    deck's 4 suits; now groups of at most 4 suits are tried. The boards by orbit are checked
    against a brute-force count of the orbits of the flop card and the (flop, turn) pairs under
    the 24 suit permutations of a 3-rank × 4-suit deck (card = rank·4 + suit)."""
    from itertools import permutations

    from lpgame.equilibria.zero_sum.signal_operator_lp import signal_operator
    from lpgame.games.rhode_island import rhode_island_ordered

    op, _ = signal_operator(rhode_island_ordered(3, 4, 3))
    group = [[r * 4 + p[s] for r in range(3) for s in range(4)] for p in permutations(range(4))]
    flops = {min((g[a],) for g in group) for a in range(12)}
    pairs = {min((g[a], g[b]) for g in group) for a in range(12) for b in range(12) if a != b}
    assert [len(rd.boards) for rd in op.rounds][-2:] == [len(flops), len(pairs)] == [3, 15]
