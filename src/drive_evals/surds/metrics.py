"""SURDS metrics: the six task scores and their equal mean, with clustered standard errors and validity rates.

A sample is one official unit, so these are exactly the official task scores (mean over units) and `overall`
(the unweighted mean of the subsets present). Standard errors are clustered by image: yaw, xy2d and depth units
share images, and so do the pair units of one record.

Denominators are the planned units: a unit whose sample errored (`--fail-on-error` below 1, `--continue-on-fail`)
has no score in Inspect, and counts here as the official scorer counts a missing reply, invalid and 0
(`drive_evals.started_samples` finds them). `missing_units` counts them; `overall_complete_case`, the mean over the
units that have a reply, is logged beside the headline when any is missing.

The log holds the set a person reads at a glance: `overall` first, the six subsets, `overall_stderr` (the
standard error `drive_evals.precision` defines: absent where the report prints no informative interval),
`valid_rate`; `missing_units` and `truncated_rate` only when they are not 0. Per-subset standard errors, validity
rates and accuracies are computed from the per-unit values by `drive-evals report` (see `diagnostics`), with the
xy2d convention readings.

`overall` is defined on the subsets the run planned (`-T subsets`, default all six; each sample names them in its
metadata, `RUN_SUBSETS_KEY`). A run without units of some of them (`--limit 12` gives only yaw units) has no
headline: `overall` is NaN and each missing subset's score is NaN, so the log says which are missing, and the
end-of-run summary says why (`drive_evals.headline`). While samples are still running (Inspect's live progress
line) `overall` is NaN too: the progress line never shows a value that the final one then contradicts.
"""

from __future__ import annotations

import math

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from drive_evals.precision import reported_stderr
from drive_evals.started_samples import MissingUnit, missing_units, running
from drive_evals.stats.clustered import GroupedEstimate, equal_group_mean
from drive_evals.surds.conventions import DIAGNOSTIC_KEYS
from drive_evals.truncation import TRUNCATED_KEY

OVERALL = "overall"
OVERALL_COMPLETE_CASE = "overall_complete_case"
"""`overall` over the units that have a reply only; logged when some unit is missing."""
VALID_RATE = "valid_rate"
MISSING_UNITS = "missing_units"
MISSING_UNIT_KEYS = ("subset", "image")
"""The sample metadata the metrics group (subset) and cluster (image) a unit without a score by."""
"""Planned units without a score because their sample errored: they count as invalid and 0."""
SCORE_KEY = "score"
VALID_KEY = "valid"
CONVENTIONS_KEY = "xy2d_conventions"
"""Score.metadata key of an xy2d unit's coordinate-convention diagnostic (`conventions.diagnose`)."""
LOST_KEY = "lost"
"""1.0 for a unit that cannot be scored because its completions were lost (see the scorer), else 0.0."""
RUN_SUBSETS_KEY = "run_subsets"
"""Sample metadata: the subsets the run planned, on which `overall` is defined (logs before task version 5: none)."""


def _scored(scores: list[SampleScore]) -> list[SampleScore]:
    """The units that have a score: a unit whose completions were lost in every epoch has none (NaN)."""
    return [s for s in scores if not math.isnan(_value(s, SCORE_KEY))]


def _units(
    scores: list[SampleScore], key: str, missing: list[MissingUnit] | None = None
) -> tuple[list[float], list[str], list[str]]:
    """Values of `key`, subsets and images of the scored units, then of the `missing` ones (counted as 0)."""
    scores = _scored(scores)
    missing = missing or []
    values = [_value(s, key) for s in scores] + [0.0] * len(missing)
    groups = [str(_metadata(s)["subset"]) for s in scores] + [str(unit.get("subset")) for unit in missing]
    clusters = [str(_metadata(s)["image"]) for s in scores] + [str(unit.get("image", unit["id"])) for unit in missing]
    return values, groups, clusters


def _estimate(scores: list[SampleScore], key: str, missing: list[MissingUnit] | None = None) -> GroupedEstimate:
    """Equal mean over subsets of `key`, each `missing` unit counted as 0 in its subset."""
    return equal_group_mean(*_units(scores, key, missing))


def planned_subsets(scores: list[SampleScore]) -> list[str]:
    """The subsets the run planned (its samples' `RUN_SUBSETS_KEY`); those with units, for logs without it."""
    for score in scores:
        planned = _metadata(score).get(RUN_SUBSETS_KEY)
        if isinstance(planned, list):
            return [str(subset) for subset in planned]
    return list(dict.fromkeys(str(_metadata(s)["subset"]) for s in scores))


def _value(score: SampleScore, key: str) -> float:
    value = score.score.value
    if not isinstance(value, dict) or key not in value:
        raise ValueError(f"sample {score.sample_id}: SURDS score value has no '{key}' (got {value!r})")
    return float(value[key] or 0.0)


def _metadata(score: SampleScore) -> dict[str, object]:
    if score.sample_metadata is None:
        raise ValueError(f"sample {score.sample_id}: SURDS metrics need the sample metadata")
    return score.sample_metadata


def absent_subsets(scores: list[SampleScore]) -> list[str]:
    """The planned subsets without a single unit in `scores` (scored or missing): `overall` is not defined."""
    present = {str(_metadata(s)["subset"]) for s in scores} | {str(u.get("subset")) for u in missing_units(scores)}
    return [subset for subset in planned_subsets(scores) if subset not in present]


@metric
def surds_scores() -> Metric:
    """`overall` (the equal mean of the planned subsets, the headline) first, then the mean unit score per planned
    subset (`yaw`, ..., `front_behind`), over the planned units; `overall_complete_case` too when some are missing.
    NaN for a subset without units, and `overall` NaN then and while samples are still running (module docstring)."""

    def compute(scores: list[SampleScore]) -> Value:
        missing = missing_units(scores)
        estimate = _estimate(scores, SCORE_KEY, missing)
        complete = not absent_subsets(scores) and not running(scores)
        result = {OVERALL: estimate.overall if complete else math.nan}
        result.update({subset: estimate.means.get(subset, math.nan) for subset in planned_subsets(scores)})
        if missing:
            result[OVERALL_COMPLETE_CASE] = _estimate(scores, SCORE_KEY).overall if complete else math.nan
        return result

    return compute


@metric
def surds_stderr() -> Metric:
    """`overall_stderr` over the planned units, clustered by image, as `drive_evals.precision` defines it: absent
    where the report prints no informative interval and while `overall` is NaN (the report shows each subset's)."""

    def compute(scores: list[SampleScore]) -> Value:
        if absent_subsets(scores) or running(scores):
            return {}
        values, groups, clusters = _units(scores, SCORE_KEY, missing_units(scores))
        overall = equal_group_mean(values, groups, clusters).overall
        stderr = reported_stderr(overall, values, groups, clusters, continuous=False)
        return {} if stderr is None else {f"{OVERALL}_stderr": stderr}

    return compute


@metric
def surds_validity() -> Metric:
    """`valid_rate`: valid units / planned units over the whole run (a missing unit is invalid), and, when there
    are any, `missing_units`, the planned units without a score."""

    def compute(scores: list[SampleScore]) -> Value:
        missing = missing_units(scores)
        scored = _scored(scores)
        valid = sum(_value(s, VALID_KEY) for s in scored)
        planned = len(scored) + len(missing)
        return {VALID_RATE: valid / planned if planned else 0.0, **({MISSING_UNITS: len(missing)} if missing else {})}

    return compute


def subset_validity(rows: list[tuple[str, float, float]]) -> dict[str, float]:
    """The official diagnostics per subset from (subset, valid, score) per unit, for the report.

    `<subset>_valid_rate` = valid units / units (a unit is valid when all its prompts are). `<subset>_valid_accuracy`
    = sum of unit scores / valid units (invalid units score 0), i.e. accuracy (xy2d: mean centerness) over valid
    units; from reducible values, so it stays right with epochs.
    """
    result: dict[str, float] = {}
    for subset in dict.fromkeys(subset for subset, _, _ in rows):
        in_subset = [(valid, score) for name, valid, score in rows if name == subset]
        valid_total = sum(valid for valid, _ in in_subset)
        result[f"{subset}_valid_rate"] = valid_total / len(in_subset)
        result[f"{subset}_valid_accuracy"] = sum(score for _, score in in_subset) / valid_total if valid_total else 0.0
    return result


def diagnostics(rows: list[tuple[str, dict[str, float], dict[str, object]]]) -> dict[str, float]:
    """The report's SURDS diagnostics from (subset, score value, score metadata) per scored unit-epoch.

    Per subset: `<subset>_valid_rate`, `<subset>_valid_accuracy` (see `subset_validity`), `<subset>_truncated_rate`
    and `<subset>_lost_units`; and the NON-OFFICIAL xy2d coordinate-convention readings (see `surds.conventions`):
    `xy2d_conv_<c>_score`, the xy2d score if every answer were read in convention c (`official` equals `xy2d`), and
    `xy2d_conv_<c>_share`, the share of answers that look like c, over the xy2d unit-epochs. Once log metrics, they
    made a SURDS console 54 lines long; the values are in every sample, so nothing is lost by computing them here.
    """
    kept = [(subset, value) for subset, value, _ in rows if not math.isnan(value.get(SCORE_KEY, math.nan))]
    result = subset_validity([(subset, value.get(VALID_KEY, 0.0), value[SCORE_KEY]) for subset, value in kept])
    for subset in dict.fromkeys(subset for subset, _, _ in rows):
        in_subset = [value for name, value, _ in rows if name == subset]
        result[f"{subset}_truncated_rate"] = sum(v.get(TRUNCATED_KEY, 0.0) for v in in_subset) / len(in_subset)
        result[f"{subset}_lost_units"] = sum(v.get(LOST_KEY, 0.0) for v in in_subset)
    readings = [meta.get(CONVENTIONS_KEY) for subset, _, meta in rows if subset == "xy2d"]
    present = [row for row in readings if isinstance(row, dict) and all(key in row for key in DIAGNOSTIC_KEYS)]
    if present:
        result.update({key: sum(float(row[key] or 0.0) for row in present) / len(present) for key in DIAGNOSTIC_KEYS})
    return result


@metric
def surds_lost() -> Metric:
    """`lost_units`: units left unscored because their completions were lost; logged only when there are some.

    `inspect eval-retry` in Inspect 0.3.285 recovers some finished samples without the store that holds a pair
    unit's completions; re-scoring such a log cannot score those units, and they are left out of every score
    above (the report counts them per subset). With epochs the count is the reducer's value (the mean: the share
    of epochs lost) summed over units.
    """

    def compute(scores: list[SampleScore]) -> Value:
        lost = sum(_lost(score) for score in scores)
        return {"lost_units": lost} if lost else {}

    return compute


def _lost(score: SampleScore) -> float:
    return float(score.score.value.get(LOST_KEY, 0.0)) if isinstance(score.score.value, dict) else 0.0
