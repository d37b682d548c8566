"""`python -m mancala_host ...` is the same as `mancala-board ...`."""

import sys

from .cli import main

sys.exit(main())
