"""`python -m mancala_host ...` is the same as `mancala-board ...`."""

import sys

from .commands.cli import main

sys.exit(main())
