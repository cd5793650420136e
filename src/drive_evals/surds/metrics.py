"""SURDS metrics: the six task scores and their equal mean, with clustered standard errors and validity rates.

A sample is one official unit, so these are exactly the official task scores (mean over units) and `overall`
(the unweighted mean of the subsets present). Standard errors are clustered by image: yaw, xy2d and depth units
share images, and so do the pair units of one record.
"""

from __future__ import annotations

import math

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from drive_evals.stats import GroupedEstimate, equal_group_mean
from drive_evals.surds.conventions import DIAGNOSTIC_KEYS

OVERALL = "overall"
SCORE_KEY = "score"
VALID_KEY = "valid"
CONVENTIONS_KEY = "xy2d_conventions"
"""Score.metadata key of an xy2d unit's coordinate-convention diagnostic (`conventions.diagnose`)."""
LOST_KEY = "lost"
"""1.0 for a unit that cannot be scored because its completions were lost (see the scorer), else 0.0."""


def _scored(scores: list[SampleScore]) -> list[SampleScore]:
    """The units that have a score: a unit whose completions were lost in every epoch has none (NaN)."""
    return [s for s in scores if not math.isnan(_value(s, SCORE_KEY))]


def _estimate(scores: list[SampleScore], key: str) -> GroupedEstimate:
    scores = _scored(scores)
    values = [_value(s, key) for s in scores]
    groups = [str(_metadata(s)["subset"]) for s in scores]
    clusters = [str(_metadata(s)["image"]) for s in scores]
    return equal_group_mean(values, groups, clusters)


def _value(score: SampleScore, key: str) -> float:
    value = score.score.value
    if not isinstance(value, dict) or key not in value:
        raise ValueError(f"sample {score.sample_id}: SURDS score value has no '{key}' (got {value!r})")
    return float(value[key] or 0.0)


def _metadata(score: SampleScore) -> dict[str, object]:
    if score.sample_metadata is None:
        raise ValueError(f"sample {score.sample_id}: SURDS metrics need the sample metadata")
    return score.sample_metadata


@metric
def surds_scores() -> Metric:
    """Mean unit score per subset (`yaw`, ..., `front_behind`) and `overall`, their equal mean."""

    def compute(scores: list[SampleScore]) -> Value:
        estimate = _estimate(scores, SCORE_KEY)
        return {**estimate.means, OVERALL: estimate.overall}

    return compute


@metric
def surds_stderr() -> Metric:
    """Standard errors clustered by image: `<subset>_stderr` and `overall_stderr`."""

    def compute(scores: list[SampleScore]) -> Value:
        estimate = _estimate(scores, SCORE_KEY)
        return {**{f"{k}_stderr": v for k, v in estimate.stderrs.items()}, f"{OVERALL}_stderr": estimate.overall_stderr}

    return compute


@metric
def surds_validity() -> Metric:
    """The official diagnostics per subset: valid-response rate and accuracy among valid units.

    `<subset>_valid_rate` = valid units / units (a unit is valid when all its prompts are). `<subset>_valid_accuracy`
    = sum of unit scores / valid units (invalid units score 0), i.e. accuracy (xy2d: mean centerness) over valid
    units; computed from reducible values so that it stays right with epochs.
    """

    def compute(scores: list[SampleScore]) -> Value:
        valid = _estimate(scores, VALID_KEY)
        result: dict[str, float] = {}
        for subset, rate in valid.means.items():
            in_subset = [s for s in _scored(scores) if _metadata(s)["subset"] == subset]
            valid_total = sum(_value(s, VALID_KEY) for s in in_subset)
            score_total = sum(_value(s, SCORE_KEY) for s in in_subset)
            result[f"{subset}_valid_rate"] = rate
            result[f"{subset}_valid_accuracy"] = score_total / valid_total if valid_total else 0.0
        return result

    return compute


@metric(scores="unreduced")
def xy2d_conventions() -> Metric:
    """NON-OFFICIAL coordinate-convention diagnostic over the xy2d units (see `surds.conventions`).

    `xy2d_conv_<c>_score`: the xy2d score if every answer were read in convention c (`official` equals `xy2d`);
    `xy2d_conv_<c>_share`: the share of answers that look like convention c. Empty when xy2d was not run.
    The values live in Score.metadata, not the score value: Inspect's viewer makes every score-value key a
    sample-list column (13 columns, empty on five subsets in six). Metadata is not reduced over epochs, so this
    metric reads every epoch's score (`scores="unreduced"`): the mean over unit-epochs.
    """

    def compute(scores: list[SampleScore]) -> Value:
        rows = [(s.score.metadata or {}).get(CONVENTIONS_KEY) for s in scores if _metadata(s)["subset"] == "xy2d"]
        present = [row for row in rows if isinstance(row, dict) and all(key in row for key in DIAGNOSTIC_KEYS)]
        if not present:
            return {}
        return {key: sum(float(row[key] or 0.0) for row in present) / len(present) for key in DIAGNOSTIC_KEYS}

    return compute


@metric
def surds_lost() -> Metric:
    """`<subset>_lost_units`: units left unscored because their completions were lost, per subset (0 when none).

    `inspect eval-retry` in Inspect 0.3.285 recovers some finished samples without the store that holds a pair
    unit's completions; re-scoring such a log cannot score those units, and they are left out of every score
    above. With epochs the count is the reducer's value (the mean: the share of epochs lost) summed over units.
    """

    def compute(scores: list[SampleScore]) -> Value:
        result: dict[str, float] = {}
        for score in scores:
            key = f"{_metadata(score)['subset']}_lost_units"
            lost = score.score.value.get(LOST_KEY, 0.0) if isinstance(score.score.value, dict) else 0.0
            result[key] = result.get(key, 0.0) + float(lost)
        return result

    return compute
