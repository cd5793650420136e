"""The end-of-run hook: each benchmark log's headline, then the truncation and missing-unit warnings.

An Inspect hook on `on_run_end`, which receives every log of the run with its metrics, after Inspect's own task
summaries: metrics cannot print, and the task's own code has finished before its results exist. The registry gives
this module the benchmarks whose headlines it prints (`report_on`); the tasks switch the hook on (`enable`).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Sequence

from inspect_ai.hooks import Hooks, RunEnd, hooks
from inspect_ai.util import display_type

from drive_evals.benchmark import Benchmark
from drive_evals.headline import print_headlines
from drive_evals.started_samples import missing_warning
from drive_evals.truncation import truncation_warning

logger = logging.getLogger(__name__)
_reported: list[Benchmark] = []
"""The benchmarks whose logs get a headline: `drive_evals._registry.BENCHMARKS`, given by the registry."""


def report_on(benchmarks: Sequence[Benchmark]) -> None:
    """Print the headline of the logs of `benchmarks` at the end of a run (the registry calls it once)."""
    _reported[:] = benchmarks


class EndOfRunWarnings(Hooks):
    """Prints each benchmark log's headline (`drive_evals.headline`, not under `--display none`), then
    `truncation_warning` and `started_samples.missing_warning` for each log of a finished run (other suites' logs
    are left alone)."""

    async def on_run_end(self, data: RunEnd) -> None:
        if display_type() != "none":
            print_headlines([log.location for log in data.logs if log.location], _reported, last=True)
        for log in data.logs:
            for message in (truncation_warning(log), missing_warning(log)):
                if message is not None:
                    logger.warning(message)


@functools.cache
def enable_end_of_run_warnings() -> None:
    """Register `EndOfRunWarnings` with Inspect, once per process; each drive_evals task calls this when built.

    Not at import: Inspect imports installed packages' registries when any run starts and announces every hook it
    finds (`hooks enabled: 1`) before anything else the run prints, parameter errors included, in runs of every
    suite. Registered while a drive_evals task is built, the hook is silent until that run ends.
    """
    hooks(
        name="drive_evals_end_of_run_warnings",
        description="prints the headline at the end of a drive_evals run, and warns when over 1% of completions "
        "hit --max-tokens or samples errored",
    )(EndOfRunWarnings)
