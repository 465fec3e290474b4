"""``python -m lpgame`` runs the command line."""

import sys

from lpgame.cli import main

sys.exit(main())
