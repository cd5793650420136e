"""The end-of-run headline: a benchmark log's headline numbers x100 with the report's 95% intervals, in a few lines.

Inspect's results panel prints every metric as the log holds it: a fraction with three decimals (`task_scores` in
`inspect_ai/_display/core/results.py`, no format hook). The logs keep Inspect's fractions, which `inspect view`,
`evals_df` and `drive-evals report` read; the papers print x100, and so does the report. These lines print the
headline numbers as the report prints them (the same `estimate`: value x100 and 95% interval), say what each one
is, and say why a run has none. `inspect eval` prints them after Inspect's panel (a hook at the end of the run, not
under `--display none`; `drive_evals._registry` imports this module), `drive-evals run` after merging its shards.
What the console shows: docs/console.md.
"""

from __future__ import annotations

from collections.abc import Iterable

from drive_evals.drivelmm_o1.metrics import JUDGE_OVERALL, MCQ_ACCURACY, REASONING
from drive_evals.precision import informative
from drive_evals.report.runs import Run, run_of_log
from drive_evals.report.tables import estimate, percent, show_estimate
from drive_evals.surds.metrics import OVERALL
from drive_evals.truncation import RUN_END_PRINTERS

MCQ_LENIENT = "mcq_accuracy_lenient"


def headline_lines(run: Run) -> list[str]:
    """A title line, then one line per headline number: name, value [95% CI] x100, and what it is."""
    demo = " · demo data" if run.data == "demo" else ""
    title = f"{run.benchmark.title} · {run.model}{demo} · x100 [95% CI], as drive-evals report prints them"
    rows = _surds_rows(run) if run.benchmark.headline == OVERALL else _o1_rows(run)
    width = max(len(name) for name, _, _ in rows)
    return [title, *(f"  {name:<{width}}  {value}  {meaning}".rstrip() for name, value, meaning in rows)]


def _shown(run: Run, metric: str) -> str:
    """The report's cell, and why an interval that covers everything does."""
    value = estimate(run, metric)
    clusters = len({unit.cluster for unit in run.units.values()})
    cell = show_estimate(value)
    if value.interval is not None and not informative(value.interval):
        cell += f" (only {clusters} {run.benchmark.cluster_key}s)"
    return cell


def _surds_rows(run: Run) -> list[tuple[str, str, str]]:
    planned = [str(subset) for subset in run.metadata.get("subsets") or []]
    present = {unit.group for unit in run.units.values()}
    absent = [subset for subset in planned if subset not in present]
    if not absent:
        return [(OVERALL, _shown(run, OVERALL), f"the equal mean of the {len(planned)} subsets: the headline")]
    found = ", ".join(f"{subset} {_shown(run, subset)}" for subset in planned if subset in present)
    return [
        (
            OVERALL,
            "not reported",
            f"needs all {len(planned)} subsets; no units of {', '.join(absent)} (--limit?)",
        ),
        ("present", found, ""),
    ]


def _o1_rows(run: Run) -> list[tuple[str, str, str]]:
    items = run.metrics.get("mcq_items", 0.0)
    quirk = run.metrics.get("mcq_none_quirk_count", 0.0)
    lenient = percent(run.metrics.get(MCQ_LENIENT))
    quirks = f" ({quirk:g} right only by none == none)" if quirk else ""
    mcq = (
        MCQ_ACCURACY,
        _shown(run, MCQ_ACCURACY),
        f"{items:g} items; lenient reading {lenient}{quirks}",
    )
    if run.judge is None:
        return [mcq]
    return [
        (REASONING, _shown(run, REASONING), "mean of the judge's 12 criteria: the headline"),
        (JUDGE_OVERALL, _shown(run, JUDGE_OVERALL), "the judge's own Overall: the paper's Table 1 number"),
        mcq,
    ]


def print_headlines(locations: Iterable[str]) -> None:
    """Print the headline lines of every finished benchmark log among `locations` (other logs are skipped)."""
    for location in locations:
        run = run_of_log(location)
        if run is not None:
            print("\n".join(headline_lines(run)), flush=True)


RUN_END_PRINTERS.append(print_headlines)  # `inspect eval` ends on the headline (truncation.TruncationWarning)
