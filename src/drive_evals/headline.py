"""The end-of-run headline: a benchmark log's headline numbers x100 with the report's 95% intervals, in a few lines.

Inspect's results panel prints every metric as the log holds it: a fraction with three decimals (`task_scores` in
`inspect_ai/_display/core/results.py`, no format hook). The logs keep Inspect's fractions, which `inspect view`,
`evals_df` and `drive-evals report` read; the papers print x100, and so does the report. These lines print the
headline numbers as the report prints them (the same `estimate`: value x100 and 95% interval), say what each one
is, and say why a run has none. `inspect eval` prints them after Inspect's panel (a hook at the end of the run, not
under `--display none`: `drive_evals.run_end`), `drive-evals run` after merging its shards.
What the console shows: docs/console.md.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from drive_evals.benchmark import Benchmark, ConsoleLine
from drive_evals.errors import show_last
from drive_evals.precision import informative
from drive_evals.report.runs import Run, run_of_log
from drive_evals.report.tables import estimate, show_estimate
from drive_evals.stopping.guarantee import stop_note

NAMED_GROUPS = 6
"""Absent groups named in the not-reported line; the rest are counted (VLADBench has 28 tasks)."""


def headline_lines(run: Run) -> list[str]:
    """A title line, then one line per headline number: name, value [95% CI] x100, and what it is."""
    demo = " · demo data" if run.data == "demo" else ""
    partial = f" · partial run: {run.partial}" if run.partial else ""
    title = f"{run.benchmark.title} · {run.model}{demo}{partial} · x100 [95% CI], as drive-evals report prints them"
    rows = _absent_groups_rows(run) or [_row(run, line) for line in _lines(run)]
    width = max(len(name) for name, _, _ in rows)
    lines = [title, *(f"  {name:<{width}}  {value}  {meaning}".rstrip() for name, value, meaning in rows)]
    if differs := run.not_official:
        more = f" and {len(differs) - 1} more count{'s' if len(differs) > 2 else ''}" if len(differs) > 1 else ""
        lines.append(f"  not the official data: {differs[0]}{more}")
    if run.stopping is not None:  # the decision and what it guarantees (a stopped run's headline is its interval)
        lines.extend(f"  {part}" for part in stop_note(run.stopping).split("; ", 1))
    return lines


def _lines(run: Run) -> list[ConsoleLine]:
    """The benchmark's console lines this run can show (judged ones only with a judge)."""
    lines = run.benchmark.console or (ConsoleLine(run.benchmark.headline, "the headline"),)
    return [line for line in lines if run.judge is not None or not line.judged]


def _row(run: Run, line: ConsoleLine) -> tuple[str, str, str]:
    meaning = line.meaning if isinstance(line.meaning, str) else line.meaning(run.metrics, run.metadata)
    if math.isnan(estimate(run, line.metric).value):  # never a bare dash: say why there is no number
        why = "this partial run drew none of its samples (--limit?)" if run.partial else "no sample of it was scored"
        return line.metric, "not reported", f"{why}; {meaning}"
    return line.metric, _shown(run, line.metric), meaning


def _shown(run: Run, metric: str) -> str:
    """The report's cell, and why an interval that covers everything does."""
    value = estimate(run, metric)
    clusters = len({unit.cluster for unit in run.units.values()})
    cell = show_estimate(value)
    if value.interval is not None and not informative(value.interval):
        cell += f" (only {clusters} {run.benchmark.cluster_key}s)"
    return cell


def _absent_groups_rows(run: Run) -> list[tuple[str, str, str]] | None:
    """For a headline averaged over the planned groups when some have no units: why it is not reported, and the
    groups that are there; None when every planned group has units."""
    key, headline = run.benchmark.planned_groups_key, run.benchmark.headline
    if key is None:
        return None
    planned = [str(group) for group in run.metadata.get(key) or []]
    present = {unit.group for unit in run.units.values()}
    absent = [group for group in planned if group not in present]
    if not absent:
        return None
    by_group = {metric.subset: metric.name for metric in run.benchmark.unit_metrics if metric.subset is not None}
    found = ", ".join(
        f"{group} {_shown(run, by_group[group])}" for group in planned if group in by_group.keys() & present
    )
    named = ", ".join(absent[:NAMED_GROUPS]) + (
        f" and {len(absent) - NAMED_GROUPS} more" if len(absent) > NAMED_GROUPS else ""
    )
    reason = f"needs all {len(planned)} {run.benchmark.group_key}s; no units of {named} (--limit?)"
    return [(headline, "not reported", reason), *([("present", found, "")] if found else [])]


def print_headlines(locations: Iterable[str], benchmarks: Sequence[Benchmark], last: bool = False) -> None:
    """Print the headline lines of every finished log of `benchmarks` among `locations` (other logs are skipped);
    with `last`, as the last thing the command shows (`errors.show_last`: after Inspect's results panel, which
    Inspect draws after the end-of-run hooks)."""
    for location in locations:
        run = run_of_log(location, benchmarks)
        if run is not None:
            text = "\n".join(headline_lines(run))
            if last:
                show_last(text)
            else:
                print(text, flush=True)
