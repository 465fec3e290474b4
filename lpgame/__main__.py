"""``python -m lpgame`` runs the command line."""

from lpgame.cli import run

run()
