"""lpgame.sweep without a cluster: grids and point identifiers, the table on disk (kills included), one
task's limits, verify points against OpenSpiel's exploitability, the command line's parsing.

The tests that start Dask clusters are in tests/test_sweep_cluster.py.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lpgame
from lpgame.errors import OptionError, UnknownGameError
from lpgame.games import make
from lpgame.sweep import SweepPoint, add_sweep_parser
from lpgame.sweep.child import run_point
from lpgame.sweep.command import sweep_arguments
from lpgame.sweep.points import (
    family_points,
    file_points,
    parse_grid,
    parse_values,
    verify_points,
)
from lpgame.sweep.table import TableWriter, columns_for, read_table
from lpgame.sweep.task import run_point_task

# ---------------------------------------------------------------- grids and points


@pytest.mark.parametrize("text, expected", [
    ("2..5", list(range(2, 6))),
    ("2..10:3", list(range(2, 11, 3))),
    ("3,12,50", [3, 12, 50]),
    ("1..2,7", [1, 2, 7]),
    ("0.5", [0.5]),
    ("true", [True]),
    ("cards", ["cards"]),
])
def test_parse_values_against_python_ranges(text, expected):
    assert parse_values("N", text) == expected


@pytest.mark.parametrize("text", ["5..2", "a..b", "1..2:0", "", "1,,2", "1...3"])
def test_parse_values_refuses_malformed_lists_with_the_parameter_named(text):
    with pytest.raises(OptionError, match="N="):
        parse_values("N", text)


@pytest.mark.parametrize("text, fix", [("2-10", "2..10"), ("2:10", "2..10"), ("2–10", "2..10"),
                                       ("2 - 10", "2..10"), ("3 to 5", "3..5"), ("1,4-6", "4..6")])
def test_a_range_written_with_another_separator_is_refused_with_its_right_form(text, fix):
    with pytest.raises(OptionError, match=rf"not a value; a range of integers is written A\.\.B "
                                          rf"\(here {re.escape(fix)}\)"):
        parse_values("N", text)


def test_negative_numbers_floats_and_text_with_dashes_are_values_not_ranges():
    assert parse_values("x", "-3,1e-5,2.5,-1..1") == [-3, 1e-5, 2.5, -1, 0, 1]
    assert parse_values("deal", "ranks-only") == ["ranks-only"]


def test_parse_grid_refuses_a_pair_without_value_and_a_repeated_key():
    with pytest.raises(OptionError, match="KEY=VALUES"):
        parse_grid(["N"])
    with pytest.raises(OptionError, match="twice"):
        parse_grid(["N=2", "N=3"])


def test_family_points_refuse_an_unknown_game_or_parameter_before_any_task():
    with pytest.raises(UnknownGameError, match="unknown game"):
        family_points("no_such_game", {"N": [2]})
    with pytest.raises(UnknownGameError, match="no parameter"):
        family_points("dudo", {"X": [2]})
    with pytest.raises(OptionError, match=r"parameter N of one_card_poker is a number \(default "
                                          r"3\); 'ten' is not"):
        family_points("one_card_poker", parse_grid(["N=2,ten"]))
    with pytest.raises(OptionError, match="structured of dudo is true or false"):
        family_points("dudo", {"structured": ["yes"]})
    assert family_points("leduc_poker", {"deal": ["ranks"]})[0].params == {"deal": "ranks"}
    assert family_points("kuhn_poker_rake", {"rake": [0, 0.5]})[1].params == {"rake": 0.5}


ranges = st.tuples(st.integers(-3, 6), st.integers(0, 4), st.integers(1, 3))


@settings(max_examples=40, deadline=None)
@given(st.lists(ranges, min_size=1, max_size=3))
def test_grid_points_are_the_cartesian_product_with_unique_ids_that_parse_back(specs):
    keys = ["K", "D1", "D2"][: len(specs)]
    pairs = [f"{k}={low}..{low + width}:{step}" for k, (low, width, step) in zip(keys, specs)]
    grid = parse_grid(pairs)
    expected = list(itertools.product(*(range(low, low + width + 1, step)
                                        for low, width, step in specs)))
    points = family_points("dudo", grid)
    assert [tuple(p.params.values()) for p in points] == expected
    assert len({p.id for p in points}) == len(points) == math.prod(len(v) for v in grid.values())
    for point in points:
        game, *rest = point.id.split()
        assert game == "dudo"
        assert parse_grid(rest) == {k: [v] for k, v in point.params.items()}
        assert SweepPoint.from_dict(point.to_dict()) == point


# ---------------------------------------------------------------- the table on disk

cell_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
row_strategy = st.fixed_dictionaries({
    "point": st.text("abcN=0123456789 ", min_size=1, max_size=10),
    "N": st.integers(-5, 10**6),
    "status": st.sampled_from(["solved", "too_large", "time_limit", "invalid"]),
    "error": st.one_of(st.none(), cell_text),
    "value": st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False)),
    "rows": st.one_of(st.none(), st.integers(0, 10**9)),
    "exact": st.booleans(),
    "extra": st.one_of(st.none(), st.just(json.dumps({"a": [1, 2]}))),
})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(row_strategy, max_size=6), st.sampled_from([".csv", ".parquet"]))
def test_table_rows_read_back_as_written(tmp_path_factory, rows, suffix):
    path = tmp_path_factory.mktemp("table") / f"t{suffix}"
    columns = columns_for(["N"])
    writer = TableWriter(path, columns)
    for row in rows:
        writer.append(row)
    back = read_table(path)
    assert len(back) == len(rows)
    for written, read in zip(rows, back):
        for key, value in written.items():
            if key == "error" and value is not None and suffix == ".csv":
                value = re.sub(r"[\r\n]+", " | ", value) or None    # one line a row; "" is empty
            assert read[key] == value, (key, written, read)


def test_a_csv_line_cut_by_a_kill_is_dropped_and_appending_goes_on_cleanly(tmp_path):
    path = tmp_path / "t.csv"
    columns = columns_for(["N"])
    writer = TableWriter(path, columns)
    for n in (2, 3, 4):
        writer.append({"point": f"g N={n}", "N": n, "status": "solved", "value": -1 / n})
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("g N=5,family,g,5,,nash,False,highs,solv")      # the kill, mid-line
    assert [r["N"] for r in read_table(path)] == [2, 3, 4]
    resumed = TableWriter(path, columns, read_table(path))
    resumed.append({"point": "g N=5", "N": 5, "status": "solved", "value": -0.2})
    rows = read_table(path)
    assert [r["N"] for r in rows] == [2, 3, 4, 5] and rows[-1]["value"] == -0.2


def test_a_parquet_table_read_while_a_sweep_rewrites_it_is_always_whole(tmp_path):
    """A sweep rewrites its .parquet after every row (a temporary file renamed over it), and
    its progress is read while it runs (the cluster test's resume, a user watching). Every read
    returns a complete table: reading by path had pyarrow open the file twice, and a rename in
    between failed about half the reads ("Page was smaller than expected")."""
    import threading

    path = tmp_path / "t.parquet"
    columns = columns_for(["N"])
    writer = TableWriter(path, columns)
    done = threading.Event()

    def rewrite():
        n = 0
        while not done.is_set():
            n += 1
            if n % 40 == 0:
                writer.rows.clear()
            writer.append({"point": f"g N={n}", "N": n, "status": "solved", "value": -1 / n,
                           "error": "x" * (n % 13)})

    thread = threading.Thread(target=rewrite, daemon=True)
    thread.start()
    try:
        sizes = [len(read_table(path)) for _ in range(400)]
    finally:
        done.set()
        thread.join()
    assert max(sizes) > 0


def test_table_formats_are_checked():
    with pytest.raises(OptionError, match=r"\.csv or \.parquet"):
        TableWriter("table.xlsx", columns_for([]))
    with pytest.raises(OptionError, match="clash"):
        columns_for(["status"])


# ---------------------------------------------------------------- one point, one task


def test_a_point_solved_in_process_matches_a_single_solve_and_kuhns_value():
    row = run_point(SweepPoint("family", "one_card_poker", {"N": 3}).to_dict(),
                    {"concept": "nash", "exact": True})
    assert row["value_exact"] == "-1/18"                 # Kuhn poker (Kuhn 1950): -1/18
    assert row["nash_conv_exact"] == "0"
    single = lpgame.solve(make("one_card_poker", N=3), exact=True)
    assert row["value_exact"] == str(single.value)
    assert (row["rows"], row["cols"], row["nnz"]) == tuple(single.size[k]
                                                           for k in ("rows", "cols", "nnz"))


def test_game_file_points_give_the_literature_values():
    models = Path(__file__).resolve().parent.parent / "models"
    points = file_points([str(models / "kuhn_poker.efg"), str(models / "matching_pennies.nfg")])
    kuhn, pennies = (run_point(p.to_dict(), {"concept": "nash", "exact": True}) for p in points)
    assert kuhn["value_exact"] == "-1/18" and kuhn["nash_conv_exact"] == "0"   # Kuhn 1950
    assert pennies["value_exact"] == "0" and pennies["nash_conv_exact"] == "0"
    assert points[0].id == str(models / "kuhn_poker.efg")


def test_a_correlated_equilibrium_point_has_the_payoffs_and_gain_of_a_single_solve():
    row = run_point(SweepPoint("family", "chicken", {}).to_dict(), {"concept": "ce"})
    single = lpgame.solve(make("chicken"), concept="ce")
    assert json.loads(row["values"]) == pytest.approx([float(v) for v in single.values], abs=1e-12)
    assert row["gain"] is not None and abs(row["gain"]) <= 1e-9
    assert row["solver"] == single.solver["name"] and row["variant"] == single.variant


def test_verify_points_match_openspiel_exploitability(tmp_path):
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python import policy
    from open_spiel.python.algorithms import exploitability

    game = make("kuhn_poker")
    solved = lpgame.solve(game)
    solved.save(tmp_path / "ckpt_0002.json")
    uniform = [{j: {a: 1 / len(acts) for a in acts} for j, acts in strategy.items()}
               for strategy in solved.strategies]
    (tmp_path / "ckpt_0001.json").write_text(json.dumps({"strategies": uniform}))
    points = verify_points("kuhn_poker", {}, [str(tmp_path / "ckpt_0001.json"),
                                              str(tmp_path / "ckpt_0002.json")])
    rows = [run_point(p.to_dict(), {"exact": False}) for p in points]
    spiel = pyspiel.load_game("kuhn_poker")
    expected = exploitability.nash_conv(spiel, policy.UniformRandomPolicy(spiel))
    assert rows[0]["nash_conv"] == pytest.approx(expected, abs=1e-12)
    assert rows[0]["exploitability"] == pytest.approx(expected / 2, abs=1e-12)
    assert abs(rows[1]["nash_conv"]) < 1e-9


def test_a_task_past_its_time_limit_is_killed_and_becomes_a_time_limit_row():
    point = SweepPoint("family", "dudo", {"K": 3, "D1": 2, "D2": 2})
    row = run_point_task(point.to_dict(), {"concept": "nash", "time_limit": 0.2,
                                           "solver_time_limit": False, "kill_grace": 0.5})
    assert row["status"] == "time_limit"
    assert row["error"].startswith("killed") and row.get("value") is None
    assert row["wall_seconds"] < 30


def test_points_run_in_the_worker_process_give_the_same_rows_and_restore_the_memory_limit(monkeypatch):
    monkeypatch.setenv("LPGAME_MEMORY_LIMIT", "7G")
    settings = {"concept": "nash", "isolate": False, "task_memory": 100 << 20}
    solved = run_point_task(SweepPoint("family", "one_card_poker", {"N": 12}).to_dict(), settings)
    single = lpgame.solve(make("one_card_poker", N=12))
    assert solved["status"] == "solved" and solved["peak_mib"] > 10
    assert solved["value"] == pytest.approx(float(single.value), abs=1e-12)
    too_large = run_point_task(SweepPoint("family", "one_card_poker", {"N": 5000}).to_dict(),
                               settings)          # its LP would need about 114 MiB
    assert too_large["status"] == "too_large" and "100.0 MiB" in too_large["error"]
    invalid = run_point_task(SweepPoint("family", "one_card_poker", {"N": 1}).to_dict(), settings)
    # N=1 is below one_card_poker's declared range: refused by the catalog (issue 19) before building
    assert invalid["status"] == "invalid" and "parameter N=1" in invalid["error"]
    import os
    assert os.environ["LPGAME_MEMORY_LIMIT"] == "7G"


def test_plots_of_a_grid_and_of_checkpoints_are_written(tmp_path):
    from lpgame.sweep.plot import _horizontal_axis, plot_sweep
    grid = [{"point": f"dudo K={k} D1={d}", "kind": "family", "game": "dudo", "K": k, "D1": d,
             "status": "solved" if k < 5 else "time_limit", "value": 0.1 * k - d,
             "seconds": float(k)} for k in (3, 4, 5, 6) for d in (1, 2)]
    name, xs, _ = _horizontal_axis(grid, ["K", "D1"])
    assert name == "K" and xs == [3, 3, 4, 4, 5, 5, 6, 6]
    plot_sweep(grid, ["K", "D1"], tmp_path / "grid.png")
    checkpoints = [{"point": f"verify g ckpt_{i}.json", "kind": "verify", "game": "g",
                    "strategy": f"ckpt_{i}.json", "status": "evaluated", "exploitability": 1 / i,
                    "seconds": 0.1} for i in (10, 100, 1000)]
    name, xs, _ = _horizontal_axis(checkpoints, [])
    assert xs == [10, 100, 1000]
    plot_sweep(checkpoints, [], tmp_path / "eps.svg")
    assert (tmp_path / "grid.png").read_bytes()[:4] == b"\x89PNG"
    assert b"<svg" in (tmp_path / "eps.svg").read_bytes()[:2000]


# ---------------------------------------------------------------- the command line


def _args(argv):
    parser = argparse.ArgumentParser(prog="lpgame")
    add_sweep_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["sweep", *argv])


def test_command_line_forms_become_sweep_arguments(tmp_path):
    kwargs = sweep_arguments(_args(["dudo", "K=3..6", "D1=1..2", "D2=1..2", "--exact",
                                    "--task-time-limit", "60", "--task-memory", "2G"]))
    assert kwargs["game"] == "dudo" and kwargs["grid"] == ["K=3..6", "D1=1..2", "D2=1..2"]
    assert kwargs["exact"] and kwargs["task_time_limit"] == 60 and kwargs["task_memory"] == "2G"
    assert kwargs["out"] == "sweep_dudo.csv"
    files = [str(tmp_path / "a.efg"), str(tmp_path / "b.nfg")]
    assert sweep_arguments(_args(files))["files"] == files
    kwargs = sweep_arguments(_args(["verify", "one_card_poker", "N=4", "x.json", "y.csv"]))
    assert kwargs["params"] == {"N": 4} and kwargs["verify"] == ["x.json", "y.csv"]
    with pytest.raises(OptionError, match="not KEY=VALUES"):
        sweep_arguments(_args(["dudo", "K"]))
    with pytest.raises(OptionError, match="--retry-failed goes with --resume"):
        sweep_arguments(_args(["dudo", "K=3", "--retry-failed"]))


def test_the_command_refuses_a_miswritten_range_before_writing_anything(tmp_path, capsys):
    from lpgame.cli import main
    out = tmp_path / "t.csv"
    assert main(["sweep", "one_card_poker", "N=2-10", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("lpgame: error: sweep parameter N='2-10'") and "(here 2..10)" in err
    assert len(err.splitlines()) == 1 and not out.exists()


def test_strategy_and_game_files_that_are_empty_or_folders_are_named_for_what_they_are(tmp_path,
                                                                                        capsys):
    from lpgame.cli import main
    empty_json, empty_efg = tmp_path / "empty.json", tmp_path / "empty.efg"
    empty_json.write_text("")
    empty_efg.write_text("")
    with pytest.raises(OptionError, match="^empty, not a strategy file: /dev/null "
                                          r"\(a strategy file holds JSON or CSV"):
        verify_points("kuhn_poker", {}, ["/dev/null"])
    with pytest.raises(OptionError, match="empty, not a strategy file: .*empty.json"):
        verify_points("kuhn_poker", {}, [str(empty_json)])
    with pytest.raises(OptionError, match="^folder.*not a strategy file"):
        verify_points("kuhn_poker", {}, [str(tmp_path)])
    with pytest.raises(OptionError, match="^no such strategy file.*missing.json; empty"):
        verify_points("kuhn_poker", {}, [str(tmp_path / "missing.json"), "/dev/null"])
    with pytest.raises(OptionError, match="empty, not a game file: .*empty.efg"):
        file_points([str(empty_efg)])
    assert main(["sweep", "verify", "kuhn_poker", "/dev/null", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lpgame: error: empty, not a strategy file: /dev/null")
    assert "no such" not in err


def test_the_concept_options_of_the_registry_are_sweep_flags_as_for_solve():
    from lpgame.equilibria.correlated.ce_cce import parse_objective

    def options(*argv):
        kwargs = sweep_arguments(_args(["kuhn_poker", "players=3", "cards=3..4", *argv]))
        return kwargs["concept"], kwargs["options"]

    assert options("--concept", "tmecor", "--team", "1,2") == ("tmecor", {"team": (1, 2)})
    assert options("--concept", "stackelberg", "--leader", "2") == ("stackelberg", {"leader": 2})
    assert options("--refinement", "qpe", "--worst") == ("nash", {"refinement": "qpe",
                                                                   "worst": True})
    assert options("--algorithm", "double_oracle", "--threads", "2") == (
        "nash", {"algorithm": "double_oracle", "threads": 2})
    assert options("--concept", "ce", "--objective", "1,2") == ("ce", {"objective":
                                                                     parse_objective("1,2")})
    with pytest.raises(OptionError, match="--team is an option of tmecor, not of concept 'nash'"):
        options("--team", "1,2")
    with pytest.raises(OptionError, match="--leader of concept 'stackelberg' must be an integer"):
        options("--concept", "stackelberg", "--leader", "first")
    with pytest.raises(OptionError, match="unknown algorithm 'simplex' for concept 'nash'"):
        options("--algorithm", "simplex")       # refused before any point runs, as by solve
    with pytest.raises(OptionError, match="unknown method 'nope' for concept 'efce'"):
        options("--concept", "efce", "--method", "nope")
    assert options("--concept", "efce", "--method", "column_generation")[1] == {
        "method": "column_generation"}         # one entry's choice is enough
    with pytest.raises(OptionError, match="exclude each other"):
        options("--fresh-child", "--in-worker")
    with pytest.raises(OptionError, match="--threads must be at least 1"):
        options("--threads", "0")
    for refused in (["--concept", "nope"], ["--checkpoint", "c.json"]):   # a checkpoint is one solve's
        with pytest.raises(SystemExit):
            _args(["kuhn_poker", "cards=3", *refused])


def test_lpgame_sweep_help_lists_the_registry_flags(capsys):
    from lpgame.cli import main
    assert main(["sweep", "--help"]) == 0
    text = capsys.readouterr().out
    for flag in ("--concept", "--team", "--leader", "--refinement", "--worst", "--objective",
                 "--fresh-child"):
        assert flag in text


def test_an_unreachable_scheduler_leaves_the_table_as_it_was(tmp_path, monkeypatch):
    import distributed

    from lpgame.sweep import sweep

    def refuse(*args, **kwargs):
        raise OSError("connection refused")

    monkeypatch.setattr(distributed, "Client", refuse)
    out = tmp_path / "new.csv"
    with pytest.raises(OptionError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        sweep("one_card_poker", {"N": [3]}, scheduler="tcp://127.0.0.1:9", out=out, progress=False)
    assert not out.exists()
    kept = tmp_path / "kept.csv"              # a table being resumed is not rewritten either
    TableWriter(kept, columns_for(["N"]), [{"point": "one_card_poker N=4", "N": 4,
                                            "concept": "nash", "exact": False,
                                            "status": "error", "error": "x"}])
    before = kept.read_bytes()
    with pytest.raises(OptionError, match="cannot reach"):
        sweep("one_card_poker", {"N": [3, 4]}, scheduler="tcp://127.0.0.1:9", out=kept,
              resume=True, retry_failed=True, progress=False)
    assert kept.read_bytes() == before


def test_sweep_refuses_bad_settings_before_starting_a_cluster(tmp_path):
    from lpgame.sweep import sweep
    with pytest.raises(OptionError, match="task memory"):
        sweep("one_card_poker", {"N": [3]}, task_memory="lots", progress=False)
    with pytest.raises(OptionError, match="time limit"):
        sweep("one_card_poker", {"N": [3]}, task_time_limit=0, progress=False)
    with pytest.raises(OptionError, match="exactly one"):
        sweep("one_card_poker", progress=False)
    with pytest.raises(OptionError, match="no such game file"):
        sweep(files=[str(tmp_path / "missing.efg")], progress=False)
    with pytest.raises(OptionError, match=r"\.png"):
        sweep("one_card_poker", {"N": [3]}, plot=tmp_path / "p.gif", progress=False)


# ---------------------------------------------------------------- resuming (an in-process Dask client)


@pytest.fixture(scope="module")
def threads_client():
    """A Dask client on one worker thread in this process (no processes to start)."""
    from distributed import Client
    with Client(processes=False, n_workers=1, threads_per_worker=1, dashboard_address=None) as client:
        yield client


def test_resume_keeps_finished_rows_other_points_and_retries_failed_ones_on_request(threads_client,
                                                                                 tmp_path):
    from lpgame.sweep import sweep
    out = tmp_path / "resume.csv"

    def run(ns, **kwargs):
        return sweep("one_card_poker", {"N": ns}, out=out, client=threads_client, isolate=False,
                     progress=False, **kwargs)

    first = run([1, 3])
    assert [r["status"] for r in first.rows] == ["invalid", "solved"]
    second = run([1, 3, 4], resume=True)
    assert second.ran == ["one_card_poker N=4"] and len(read_table(out)) == 3
    third = run([3, 4], resume=True, retry_failed=True)        # N=1 is not in this sweep: kept
    assert third.ran == [] and sorted(r["N"] for r in read_table(out)) == [1, 3, 4]
    fourth = run([1, 3, 4], resume=True, retry_failed=True)
    assert fourth.ran == ["one_card_poker N=1"]
    assert sorted(r["N"] for r in read_table(out)) == [1, 3, 4]            # no row twice
    assert [r["value"] for r in fourth.rows[1:]] == [r["value"] for r in second.rows[1:]]
    with pytest.raises(OptionError, match="concept 'nash'"):
        run([3], resume=True, concept="maximin")
    with pytest.raises(OptionError, match="resume needs"):
        sweep("one_card_poker", {"N": [3]}, resume=True, client=threads_client, progress=False)


def test_a_tmecor_sweep_from_the_command_line_gives_the_rows_of_single_solves(threads_client,
                                                                            tmp_path):
    from lpgame.sweep import sweep
    kwargs = sweep_arguments(_args(["kuhn_poker", "players=3", "cards=3..4", "--concept", "tmecor",
                                    "--team", "1,2", "--in-worker", "--quiet",
                                    "--out", str(tmp_path / "t.csv")]))
    result = sweep(**kwargs, client=threads_client)
    for row in result.rows:
        single = lpgame.solve(make("kuhn_poker", players=3, cards=row["cards"]), concept="tmecor",
                              team=(1, 2))
        assert row["status"] == "solved", row["error"]
        assert row["value"] == pytest.approx(float(single.value), abs=1e-9)
        assert row["gain"] is not None and abs(row["gain"]) <= 1e-9


def _matrix_game_value(a: np.ndarray) -> float:
    """max_x min_j (xᵀA)_j over mixed x, by scipy's linprog (independent of lpgame's LPs)."""
    from scipy.optimize import linprog
    m, n = a.shape
    # variables (x_1..x_m, v): maximise v s.t. v − (Aᵀx)_j ≤ 0, Σx = 1, x ≥ 0
    res = linprog(np.r_[np.zeros(m), -1.0], A_ub=np.c_[-a.T, np.ones(n)], b_ub=np.zeros(n),
                  A_eq=np.r_[np.ones(m), 0.0][None, :], b_eq=[1.0],
                  bounds=[(0, None)] * m + [(None, None)], method="highs")
    assert res.status == 0
    return -res.fun


matrices = st.integers(2, 4).flatmap(lambda m: st.integers(2, 4).flatmap(
    lambda n: st.lists(st.lists(st.integers(-5, 5), min_size=n, max_size=n), min_size=m, max_size=m)))


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(matrices, min_size=1, max_size=3))
def test_a_sweep_of_random_matrix_game_files_gives_their_lp_values(threads_client, tmp_path_factory,
                                                                   games):
    from lpgame.game import NormalFormGame
    from lpgame.io.files import write_game_file
    from lpgame.sweep import sweep
    tmp = tmp_path_factory.mktemp("games")
    paths = []
    for k, rows in enumerate(games):
        a = np.array(rows)
        paths.append(str(tmp / f"g{k}.nfg"))
        write_game_file(NormalFormGame([a, -a], name=f"g{k}"), paths[-1])
    result = sweep(files=paths, exact=True, client=threads_client, isolate=False, progress=False,
                   out=tmp / "t.csv")
    table = {r["point"]: r for r in read_table(tmp / "t.csv")}
    for rows, path in zip(games, paths):
        row = table[path]
        assert row["status"] == "solved" and row["nash_conv_exact"] == "0"
        assert float(Fraction(row["value_exact"])) == pytest.approx(
            _matrix_game_value(np.array(rows, dtype=float)), abs=1e-9)
    assert result.ran == paths
