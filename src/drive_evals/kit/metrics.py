"""The suite's two metric rules in one place: an errored unit counts as the official scorer counts a missing reply,
and no headline is shown while samples are still running.

Inspect computes metrics over the samples that have a score, and also while a run is going (its live progress
line). The official scorers' denominators are the planned units, so `planned_values` adds the started units that
errored (`started_samples.missing_units`, valued `missing`), and `planned_mean` is NaN while samples of the run are
still running: a live number the final one would contradict is worse than none.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from drive_evals.precision import reported_stderr
from drive_evals.started_samples import MISSING_UNITS, missing_units, running


def planned_values(
    scores: Sequence[SampleScore], value_key: str, cluster_key: str, missing: float
) -> tuple[list[float], list[Hashable]]:
    """Every planned unit's value under `value_key` and its cluster: scored ones as scored, errored ones `missing`."""
    values: list[float] = []
    clusters: list[Hashable] = []
    for score in scores:
        value = score.score.value
        number = value.get(value_key) if isinstance(value, dict) else value
        values.append(float(number) if isinstance(number, (int, float)) else missing)
        clusters.append((score.sample_metadata or {}).get(cluster_key, score.sample_id))
    for unit in missing_units(scores):
        values.append(missing)
        clusters.append(unit.get(cluster_key, unit["id"]))
    return values, clusters


@metric
def planned_mean(name: str, value_key: str, cluster_key: str, missing: float = 0.0) -> Metric:
    """`name`: the mean of `value_key` over the planned units (errored ones count `missing`), with
    `{name}_stderr` clustered by `cluster_key` where an interval holds, and `missing_units` when any errored.

    `cluster_key` must be among the task's `kept` metadata (`make_task(kept=...)`), so an errored unit keeps it.
    """

    def compute(scores: list[SampleScore]) -> Value:
        values, clusters = planned_values(scores, value_key, cluster_key, missing)
        if not values or running(scores):
            return {name: math.nan}
        mean = sum(values) / len(values)
        continuous = any(v not in (0.0, 1.0) for v in values)
        numbers: dict[str, float] = {name: mean}
        stderr = reported_stderr(mean, values, ["all"] * len(values), clusters, continuous)
        if stderr is not None:
            numbers[f"{name}_stderr"] = stderr
        errored = len(values) - len(scores)
        if errored:
            numbers[MISSING_UNITS] = errored
        return numbers

    return compute
