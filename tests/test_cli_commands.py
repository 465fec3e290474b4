"""The split of the command line (lpgame.cli: grammar, checks, errors, exit) from what each
subcommand does (lpgame.cli_commands): every subcommand of the parser has its handler, and the
handlers are not imported before a command has been parsed."""

from __future__ import annotations

import argparse
import subprocess
import sys

from lpgame import cli, cli_commands


def test_every_subcommand_of_the_parser_has_a_handler():
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) == set(cli.COMMANDS)
    for name in cli.COMMANDS:
        assert callable(getattr(cli_commands, f"cmd_{name}"))


def test_the_handlers_are_imported_only_once_a_command_is_parsed():
    code = ("import sys\nfrom lpgame.cli import main\n"
            "assert main(['--version']) == 0\n"
            "assert main(['no-such-command']) == 2\n"
            "print('before:', 'lpgame.cli_commands' in sys.modules)\n"
            "assert main(['games', '--json', '-']) == 0\n"
            "print('after:', 'lpgame.cli_commands' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert "before: False" in lines and lines[-1] == "after: True"
