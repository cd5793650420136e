"""The one place where the report's paired intervals are known to fall short of 95%, said where it applies.

`paired-judge-harsh` (two judge-scored models near 0.97 with a heavy tail of poor frames) is covered at 0.931-0.937
from 6 to 20 frames and at 0.944-0.951 from 50 (docs/statistics.md, Measured coverage). Fixing it would cost the
paired test its power on judge scores, so the procedure is kept (issue 38) and the note goes under each table that
prints such an interval: a judge-score comparison with an interval, from fewer than `FULL_COVERAGE_CLUSTERS`.
"""

from __future__ import annotations

from collections.abc import Iterable

from drive_evals.benchmark import UnitMetric
from drive_evals.stats.paired import PairedDifference

FULL_COVERAGE_CLUSTERS = 50
"""From 50 frames the stress shape's paired intervals cover 0.944-0.951 (docs/statistics.md)."""
STRESS_COVERAGE = "93%"
"""0.931-0.937 measured at 6-20 frames of `paired-judge-harsh` (4,000 draws a cell, docs/statistics.md)."""


def short_of_nominal(metric: UnitMetric | None, result: PairedDifference) -> bool:
    """A printed interval on a judge's scores from fewer clusters than the stress shape needs to reach 95%."""
    return metric is not None and metric.judged and not result.no_interval and result.clusters < FULL_COVERAGE_CLUSTERS


def judge_interval_note(rows: Iterable[tuple[UnitMetric | None, PairedDifference]], cluster_key: str) -> list[str]:
    """The note, once, when some row of a paired table is `short_of_nominal`; nothing otherwise."""
    if not any(short_of_nominal(metric, result) for metric, result in rows):
        return []
    return [
        f"Judge scores compared on fewer than {FULL_COVERAGE_CLUSTERS} {cluster_key}s: such intervals cover about "
        f"{STRESS_COVERAGE} (not 95%) when both models score near 100 with a heavy tail of poor {cluster_key}s "
        "(`paired-judge-harsh` in docs/statistics.md, Measured coverage), and 95% where the published models' judge "
        "scores lie (`paired-judge`)."
    ]
