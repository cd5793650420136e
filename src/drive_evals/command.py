"""The `drive-evals` command's entry point (`python -m drive_evals.cli` too), outside `drive_evals.cli` so that it
runs before that package's imports: Inspect and every benchmark, some 2 s of which the garbage collector took a
fifth, collecting nothing (everything imported stays alive)."""

from __future__ import annotations

import gc
import sys


def entry() -> None:
    """Import the command line with the collector paused, run it, exit with its status."""
    gc.disable()
    try:
        from drive_evals.cli import main
    finally:
        gc.enable()
    status = main()
    # Exiting, Python collects every object one last time: after Inspect's imports that is some 1.3 s of a
    # `drive-evals run`, for memory the process gives back anyway. Frozen objects are not collected.
    gc.freeze()
    sys.exit(status)
