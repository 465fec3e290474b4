"""Every ``--help`` of the lpgame command renders: the top level and every subcommand (found by
walking argparse's subparsers, so a new subcommand is covered without an edit here), and
``lpgame solve --help`` lists every option of every registered concept."""

import argparse
import re

import pytest

from lpgame.api import concepts
from lpgame.cli import build_parser, main


def subcommands() -> list[str]:
    """The subcommands of the ``lpgame`` parser, read from argparse."""
    actions = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    assert len(actions) == 1, "the lpgame parser has one set of subcommands"
    return sorted(actions[0].choices)


def test_the_subcommands_are_found():
    # the walk must see the commands a user reads about in the README, or it covers nothing
    assert {"solve", "evaluate", "verify", "cfr", "info", "sweep", "concepts"} <= set(subcommands())


def test_top_level_help_renders(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: lpgame") and "solve" in out


@pytest.mark.parametrize("command", subcommands())
def test_every_subcommand_help_renders(capsys, command):
    code = main([command, "--help"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert captured.out.startswith(f"usage: lpgame {command}")
    assert "internal error" not in captured.err


def test_solve_help_lists_every_registry_option(capsys):
    assert main(["solve", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())      # argparse wraps lines
    flags = {o.cli_flag for c in concepts() for o in c.options if o.cli}
    assert flags, "the registry declares command-line options"
    missing = sorted(flag for flag in flags
                     if not re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", out))
    assert not missing, f"lpgame solve --help does not list {missing}"
    assert "25% of the time limit" in out        # tuple_seconds' help, % kept literal


def test_a_percent_sign_in_an_option_help_cannot_break_help(capsys):
    from lpgame.registry import Concept, Option, register, unregister

    register(Concept(name="percent_probe", games=("zero_sum",), solve=lambda game, **kw: None,
                     summary="a probe", certificate="none", source="-",
                     options=(Option("probe_share", float, None, "100% of it, %d %s %(x)s %"),)))
    try:
        assert main(["solve", "--help"]) == 0
        assert "100% of it, %d %s %(x)s %" in " ".join(capsys.readouterr().out.split())
    finally:
        unregister("percent_probe")
