"""CODA-LM aggregation: the official task scores, the final score, the strict scores beside them, and the counts.

Official (stage1 L224-226, stage2 L221-223, stage3 L243-282): a task's score is the mean of the ratings the parser
read, over the items that have one (failed calls and unparsed replies are not in the denominator); region
perception is the micro-mean over every parsed region of the seven super-categories (not the mean of the category
means), each category's own mean printed beside it; the final score is the unweighted mean of the three task
scores (checked on the four reference rows). Ratings are kept as the parser read them, 0, 11 or 100 included
(defect 3). Logged as fractions (mean rating / 10), which the report prints x100: the paper's 0-100 scale.

Differences, each in docs/coda_lm.md's Fidelity table: a task or category without a parsed rating is NaN, not a
`ZeroDivisionError` (defect 8) or `0.0` (defect 11); a region of an unmapped category is judged and counted in the
strict score, and left out of the official mean as the official script leaves it out (defect 10).

Strict (`strict_*`): the mean over every planned item (errored samples included) of the rating / 10 when it lies on
the 1-10 scale, else 0: a failed call, an unparsed reply and an out-of-range rating earn nothing. `dropped` counts
the items the official rule leaves out of its means.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from drive_evals.coda_lm.prompts import TASKS
from drive_evals.coda_lm.records import SUPERCATEGORIES
from drive_evals.precision import reported_stderr
from drive_evals.started_samples import missing_units, running

RATING = "rating"
"""Score.value key: the official rating / 10 (NaN where the official parser reads none)."""
COUNTED = "counted"
"""Score.value key: 1 when the rating enters the official mean (parsed; for a region, of a mapped category)."""
STRICT = "strict"
"""Score.value key: the rating / 10 on the 1-10 scale, else 0."""
JUDGED = "judged"
"""Score.value key: 1 when the judge replied (a reply that may still not parse), 0 when the call failed."""
OUT_OF_RANGE = "out_of_range"
"""Score.value key: 1 for a parsed rating outside 1-10."""

FINAL = "final_score"
STRICT_FINAL = "strict_final_score"
DROPPED, FAILED, UNPARSED, OUT_OF_RANGE_COUNT = "dropped", "judge_failed", "unparsed", "out_of_range_count"
MISSING_SAMPLES = "missing_samples"
TASK_KEY, IMAGE_KEY, GROUP_KEY = "task", "image_id", "supercategory"
"""Sample metadata keys: the CODA-LM task, the image (the cluster), a region's super-category."""


def strict_name(task: str) -> str:
    return f"strict_{task}"


def category_name(group: str) -> str:
    """The metric of one super-category's official region mean: `region_vehicle`."""
    return f"region_{group}"


@dataclass(frozen=True)
class Item:
    """One scored item (or a planned one whose sample errored: `values` empty)."""

    task: str
    group: str | None
    image: str
    values: Mapping[str, float]

    def value(self, key: str) -> float:
        item = self.values.get(key)
        return float(item) if isinstance(item, (int, float)) else math.nan

    @property
    def counted(self) -> bool:
        return self.value(COUNTED) == 1.0 and not math.isnan(self.value(RATING))

    @property
    def strict(self) -> float:
        value = self.value(STRICT)
        return 0.0 if math.isnan(value) else value


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def _stderr(items: Sequence[Item], values: Sequence[float], estimate: float, grouped: bool = False) -> float | None:
    """The standard error `drive_evals.precision` logs for a mean over `items` (clustered by image; `grouped`: the
    equal mean over tasks). None where the report prints no interval, or a rating lies outside 1-10: no interval
    method here holds for values outside [0, 1]."""
    if any(not 0.0 <= v <= 1.0 for v in values):
        return None
    groups = [i.task if grouped else "" for i in items]
    return reported_stderr(estimate, list(values), groups, [i.image for i in items], continuous=True)


def official_scores(items: Sequence[Item]) -> dict[str, float]:
    """Each task's official mean, the final score (NaN unless all three have one), and the region category means."""
    out: dict[str, float] = {}
    for task in TASKS:
        counted = [i for i in items if i.task == task and i.counted]
        out[task] = _mean([i.value(RATING) for i in counted])
        if (stderr := _stderr(counted, [i.value(RATING) for i in counted], out[task])) is not None:
            out[f"{task}_stderr"] = stderr
    scores = [out[task] for task in TASKS]
    out[FINAL] = _mean(scores) if not any(math.isnan(s) for s in scores) else math.nan
    counted = [i for i in items if i.counted]
    if (stderr := _stderr(counted, [i.value(RATING) for i in counted], out[FINAL], grouped=True)) is not None:
        out[f"{FINAL}_stderr"] = stderr
    for group in SUPERCATEGORIES:
        kept = [i.value(RATING) for i in items if i.task == "region_perception" and i.group == group and i.counted]
        out[category_name(group)] = _mean(kept)
    return out


def strict_scores(items: Sequence[Item]) -> dict[str, float]:
    """Each task's strict mean over its planned items, and their mean (NaN unless all three tasks have items: the
    final score is defined over all three)."""
    out: dict[str, float] = {}
    for task in TASKS:
        in_task = [i for i in items if i.task == task]
        out[strict_name(task)] = _mean([i.strict for i in in_task])
        if (stderr := _stderr(in_task, [i.strict for i in in_task], out[strict_name(task)])) is not None:
            out[f"{strict_name(task)}_stderr"] = stderr
    scores = [out[strict_name(task)] for task in TASKS]
    out[STRICT_FINAL] = _mean(scores) if not any(math.isnan(s) for s in scores) else math.nan
    if (stderr := _stderr(items, [i.strict for i in items], out[STRICT_FINAL], grouped=True)) is not None:
        out[f"{STRICT_FINAL}_stderr"] = stderr
    return out


def counts(items: Sequence[Item], missing: int) -> dict[str, float]:
    """How many items the official rule dropped, and why: the judge failed (or the sample errored), the reply did
    not parse; and how many parsed ratings lie outside 1-10 (kept in the official mean)."""
    failed = sum(1 for i in items if i.value(JUDGED) != 1.0)  # an errored sample has no judged value
    parsed = [i for i in items if not math.isnan(i.value(RATING))]
    return {
        DROPPED: float(sum(1 for i in items if not i.counted)),
        FAILED: float(failed),
        UNPARSED: float(sum(1 for i in items if i.value(JUDGED) == 1.0 and math.isnan(i.value(RATING)))),
        OUT_OF_RANGE_COUNT: float(sum(1 for i in parsed if i.value(OUT_OF_RANGE) == 1.0)),
        MISSING_SAMPLES: float(missing),
    }


def summarise(items: Sequence[Item], missing: int = 0) -> dict[str, float]:
    """Every logged number of a run from its items (errored samples already among them, with no values)."""
    return {**official_scores(items), **strict_scores(items), **counts(items, missing)}


def _item(metadata: Mapping[str, Any], values: Mapping[str, Any]) -> Item:
    group = metadata.get(GROUP_KEY)
    return Item(
        task=str(metadata.get(TASK_KEY)),
        group=group if isinstance(group, str) else None,
        image=str(metadata.get(IMAGE_KEY)),
        values={k: float(v) for k, v in values.items() if isinstance(v, (int, float)) and not isinstance(v, bool)},
    )


def items_of(scores: Sequence[SampleScore]) -> tuple[list[Item], int]:
    """The scored items and the errored ones (as items without values), and how many errored."""
    items = [_item(s.sample_metadata or {}, s.score.value if isinstance(s.score.value, dict) else {}) for s in scores]
    missing = missing_units(scores)
    items.extend(_item(unit, {}) for unit in missing)
    return items, len(missing)


@metric
def coda_lm_metrics() -> Metric:
    """The official task and final scores, the region category means, the strict scores and the dropped counts."""

    def compute(scores: list[SampleScore]) -> Value:
        items, missing = items_of(scores)
        numbers = summarise(items, missing)
        if running(scores):  # Inspect's live progress line: no headline that the final one would contradict
            numbers.update({FINAL: math.nan, STRICT_FINAL: math.nan})
        return numbers

    return compute
