"""`python -m drive_evals.cli`: the `drive-evals` command without its console script (used by subprocess tests)."""

import sys

from drive_evals.cli import main

sys.exit(main())
