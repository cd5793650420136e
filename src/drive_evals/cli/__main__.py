"""`python -m drive_evals.cli`: the `drive-evals` command without its console script (used by subprocess tests)."""

from drive_evals.command import entry

entry()
