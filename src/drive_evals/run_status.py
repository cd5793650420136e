"""`inspect eval` and `inspect eval-retry` exit 1 when a drive_evals run failed, where Inspect exits 0.

Inspect 0.3.285's `eval` command returns normally after a task that failed once started (its log says `error`),
so a script or CI job saw exit 0; only `inspect eval-set` exits 1. An Inspect hook on `on_run_end` reads the run's
log statuses and, when one is not `success`, has the command exit 1 (`errors.exit_nonzero`). Registered while a
drive_evals task is built, so runs of other suites keep Inspect's rule; not for an `eval-set`, whose own exit
status already says it and whose later attempt may still succeed. Through the Python API nothing changes: `eval()`
returns the logs.
"""

from __future__ import annotations

import functools

from inspect_ai.hooks import Hooks, RunEnd, hooks

from drive_evals.errors import exit_nonzero


class FailedRunExit(Hooks):
    """Exit 1 after a run with a log that did not succeed (error, cancelled), under Inspect's command line."""

    async def on_run_end(self, data: RunEnd) -> None:
        failed = data.exception is not None or any(log.status != "success" for log in data.logs)
        if failed and data.eval_set_id is None:  # exit_nonzero acts under `inspect eval`/`eval-retry` only
            exit_nonzero()


@functools.cache
def exit_nonzero_on_failure() -> None:
    """Register `FailedRunExit`, once per process; called while a task is built (see waiting.watch)."""
    hooks(name="drive_evals_exit_status", description="inspect eval exits 1 when a drive_evals run failed")(
        FailedRunExit
    )
