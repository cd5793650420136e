"""The report's plots drawn in forked worker processes, one per core.

Drawing is most of a report's time (24 breakdown plots and 4 score plots for one demo run of each benchmark: some
12 of 15 s, matplotlib building ticks and text), and each plot is independent of the others. The jobs are closures
over the report's views, which do not pickle: they are left in a module global, the workers are forked with it,
and only an index goes to them and the PNG bytes come back. Without fork (macOS's default, Windows), with threads
running (a fork copies only the calling thread) or with one core, the plots are drawn here, one after another.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor

PlotJob = Callable[[], bytes | None]
"""Draws one plot: its PNG, or None when it has nothing to show."""
PROCESSES_ENV = "DRIVE_EVALS_REPORT_PROCESSES"
"""Worker processes (default: the cores this process may use); 1 draws every plot in this process."""

_JOBS: Sequence[PlotJob] = ()
"""The jobs of the `draw_all` call in progress, inherited by its forked workers."""


def draw_all(jobs: Sequence[PlotJob]) -> list[bytes | None]:
    """Every job's result, in order."""
    global _JOBS
    processes = min(len(jobs), _processes())
    if processes < 2 or not sys.platform.startswith("linux") or threading.active_count() > 1:
        return [job() for job in jobs]
    _JOBS = jobs
    try:
        with ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("fork")) as pool:
            return list(pool.map(_draw, range(len(jobs))))
    finally:
        _JOBS = ()


def _draw(index: int) -> bytes | None:
    return _JOBS[index]()


def _processes() -> int:
    given = os.environ.get(PROCESSES_ENV, "")
    if given.isdigit() and int(given) > 0:
        return int(given)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
