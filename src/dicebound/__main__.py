"""``python -m dicebound``: the command line."""

import sys

from dicebound.edge.cli import main

sys.exit(main())
