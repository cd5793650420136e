"""The report's first screen: per benchmark, each model's headline with its interval, which models the paired test
tells apart from the best and which it does not, and the warnings that change how the numbers read.

Built from what every benchmark declares (its headline metric and cluster key) and from the comparisons the report
already makes, so a new benchmark gets its screen without code here.
"""

from __future__ import annotations

import math

from drive_evals.report.compare import BenchmarkView, Comparison
from drive_evals.report.runs import Run, missing_count
from drive_evals.report.tables import FLAG, NO_INTERVAL, Table, estimate, label, p_text, percent, show_estimate
from drive_evals.stats.intervals import CONFIDENCE, MIN_SCORE_CLUSTERS
from drive_evals.stats.paired import min_clusters

ALPHA = 1 - CONFIDENCE
BEST = "best"
SAME = "not distinguishable"
LOWER = "lower"
HIGHER = "higher on common units"
UNCOMPARED = "not compared"
WARNING = "⚠"
"""Notes that start with it are warnings: the HTML page sets them apart from the reading notes."""


HOW_TO_READ = (
    "At a glance: x100, best first. Distinguishable from the best (the highest headline among the runs that can be "
    "compared): the report's paired test on the headline (Paired comparisons in each benchmark's section) finds a "
    "difference at the 5% level after Holm's adjustment over every pair of models (p (Holm) < 0.05); not "
    "distinguishable: it does not. − best: the pair's difference and 95% interval, not adjusted over the pairs, so "
    "among many models an interval can exclude 0 where p (Holm) finds no difference."
)
"""Said once above the first screen's tables; each table says only which test and clusters it uses."""


def demo_warning(runs: list[Run]) -> str | None:
    """The demo-data warning for `runs`, None when none read the demo data."""
    demo = [run for run in runs if run.demo]
    if not demo:
        return None
    who = "every run" if len(demo) == len(runs) else f"{len(demo)} of {len(runs)} runs"
    return (
        f"{WARNING} Demo data: {who} read the synthetic demo data shipped with the package (`-T data=demo`), "
        "made to exercise the pipeline: the scores say nothing about the models and are not comparable with "
        "the papers' numbers."
    )


def glance_table(view: BenchmarkView, demo_said: bool = False) -> Table:
    """One row per normal run in headline order: the headline [95% CI], its paired difference from the best run of
    the main comparable group, the Holm-adjusted p-value and the verdict; reading notes, then warnings (the demo-data
    one only unless `demo_said`: the page said it once for every run)."""
    benchmark = view.benchmark
    headline = benchmark.headline
    runs = [run for run in view.runs if not run.blind]
    best = next((run for run in runs if run.label not in view.flags and _has_headline(run, headline)), None)
    pairs = {(c.a.label, c.b.label): c for c in view.comparisons if c.metric == headline}
    header = ["model", f"{headline} [95% CI]", "− best [95% CI]", "p (Holm)", "vs best"]
    rows = []
    for run in runs:
        cells = [label(view, run), show_estimate(estimate(run, headline))]
        comparison = None if best is None else pairs.get((best.label, run.label)) or pairs.get((run.label, best.label))
        if run is best:
            cells += ["", "", BEST]
        elif comparison is None or best is None:
            if run.label in view.flags:
                reason = "not comparable, see Runs"
            elif headline not in benchmark.paired:
                reason = f"no paired test on {headline}"
            else:
                reason = "no common units"
            cells += ["", "", f"{UNCOMPARED} ({reason})"]
        else:
            cells += _versus_best(comparison, best)
        rows.append(cells)
    verdicts = [row[-1] for row in rows]
    lead = verdict_line(best, [label(view, run) for run in runs], verdicts) if best is not None else ""
    if best is not None and headline not in benchmark.paired:
        lead = f"Highest: {best.label} (`{headline}` has no paired test: ranked, not tested)."
    if headline not in benchmark.paired:
        notes = [
            f"x100, best first. `{headline}` is not a mean over units, so it has no interval and no paired test: "
            "the runs are ranked, not tested against each other (the breakdowns below compare what can be)."
        ]
        return Table(benchmark.title, header, rows, [*notes, *warnings(view, best, demo_said)], lead=lead)
    notes = [f"Paired test on `{headline}` over the units both runs answered, clustered by {benchmark.cluster_key}."]
    return Table(benchmark.title, header, rows, [*notes, *warnings(view, best, demo_said)], lead=lead)


LISTED = 4
"""Runs named in the verdict line; beyond that, counted (the table names them all)."""


def verdict_line(best: Run, labels: list[str], verdicts: list[str]) -> str:
    """`Best: m. Not distinguishable from it: a, b. Lower: c.`, counting instead of naming past LISTED runs."""

    def named(verdict: str) -> str:
        chosen = [name for name, v in zip(labels, verdicts, strict=True) if v == verdict]
        if not chosen:
            return "none"
        return ", ".join(chosen) if len(chosen) <= LISTED else f"{len(chosen)} runs"

    parts = [f"Best: {best.label}.", f"Not distinguishable from it: {named(SAME)}.", f"Lower: {named(LOWER)}."]
    if HIGHER in verdicts:
        parts.append(f"Higher on the units both answered: {named(HIGHER)}.")
    return " ".join(parts)


def _has_headline(run: Run, headline: str) -> bool:
    return not math.isnan(run.metrics.get(headline, math.nan))


def _versus_best(comparison: Comparison, best: Run) -> list[str]:
    """The run minus the best (comparisons store A − B with A first in the view's order), p (Holm) and verdict."""
    result = comparison.result
    sign = -1.0 if comparison.a is best else 1.0
    difference = percent(sign * result.estimate)
    if result.no_interval:
        interval = f"{difference} ({NO_INTERVAL})"
    else:
        low, high = sorted((sign * result.ci_low, sign * result.ci_high))
        interval = f"{difference} [{percent(low)}, {percent(high)}]"
    if math.isnan(comparison.p_holm) or comparison.p_holm >= ALPHA:
        verdict = SAME
    else:
        verdict = LOWER if sign * result.estimate < 0 else HIGHER
    return [interval, p_text(comparison.p_holm, result.exact_p), verdict]


def warnings(view: BenchmarkView, best: Run | None, demo_said: bool = False) -> list[str]:
    """What changes how the screen reads: demo or other than the official data, too few clusters, missing units,
    runs not comparable."""
    benchmark = view.benchmark
    runs = [run for run in view.runs if not run.blind]
    cluster = benchmark.cluster_key
    found = []
    if not demo_said and (demo := demo_warning(runs)) is not None:
        found.append(demo)
    if other := [run.label for run in runs if run.not_official]:
        found.append(
            f"{WARNING} Not the official data: {', '.join(other)} read a copy whose counts differ from the official "
            "set (see the scores table): not comparable with the papers' numbers."
        )
    headline = [c for c in view.comparisons if c.metric == benchmark.headline]
    untestable = [c for c in headline if c.result.no_interval and c.result.clusters < min_clusters()]
    p_only = [c for c in headline if c.result.no_interval and c.result.clusters >= min_clusters()]
    clusters = sorted({len({u.cluster for u in run.units.values()}) for run in runs})
    if untestable:
        fewest = min(c.result.clusters for c in untestable)
        found.append(
            f"{WARNING} Too few {cluster}s: {len(untestable)} of {len(headline)} paired comparisons share only "
            f"{fewest} {cluster}(s), too few for the paired test to find any difference (it needs "
            f"{min_clusters()}); no interval there."
        )
    elif p_only:
        reasons = "; ".join(dict.fromkeys(c.result.no_interval for c in p_only))
        found.append(
            f"{WARNING} No interval on {len(p_only)} of {len(headline)} paired comparisons: {reasons}; "
            "their p-values hold, so the verdicts stand."
        )
    elif clusters and clusters[0] < MIN_SCORE_CLUSTERS:
        found.append(f"{WARNING} Too few {cluster}s: a run with {clusters[0]} has no interval.")
    missing = [(run, count) for run in runs if (count := missing_count(run))]
    if missing:
        listed = ", ".join(f"{run.label} {count}" for run, count in missing)
        found.append(
            f"{WARNING} Missing units (errored samples, counted as the official scorer counts a missing reply): "
            f"{listed}; `inspect eval-retry` runs them."
        )
    if view.flags:
        found.append(
            f"{WARNING} Not comparable with the main group, so not tested against the best ({FLAG} in the tables): "
            + "; ".join(f"{name}: {why}" for name, why in view.flags.items())
            + "."
        )
    if best is None and runs:
        found.append(f"{WARNING} No run has a `{benchmark.headline}` to rank by.")
    return found
