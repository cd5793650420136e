"""MME-RealWorld AD metrics: official and corrected accuracy per task (micro, as the paper), and parser rates.

`perception` and `reasoning` are the paper's AD cells: correct / items of the task under the official reading
(every item in the denominator, unparsed replies wrong). `*_corrected` are the same under the corrected reading.
`overall` and `overall_corrected` (correct / all items) are not paper numbers. The rates show how much of a score
the parser decides: `unparsed_rate` (the official reading found no letter), `empty_as_a_rate` (empty or blank
replies, which the official reading takes as A), `e_rate` (read as E), `corrected_unparsed_rate`.
A question whose sample errored counts as wrong and unparsed (`missing_units` counts them). While the run is
going the accuracies are NaN.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from drive_evals.kit import MISSING_UNITS, missing_units, running
from drive_evals.mme_realworld_ad.dataset import TASK_KEY
from drive_evals.mme_realworld_ad.taxonomy import PERCEPTION, REASONING

OFFICIAL_KEY, CORRECTED_KEY = "official", "corrected"
UNPARSED_KEY, EMPTY_KEY, E_KEY, CORRECTED_UNPARSED_KEY = "unparsed", "empty_as_a", "e_answer", "corrected_unparsed"
PERCEPTION_METRIC, REASONING_METRIC = "perception", "reasoning"
ACCURACIES = {PERCEPTION_METRIC: PERCEPTION, REASONING_METRIC: REASONING}
CORRECTED_SUFFIX = "_corrected"
OVERALL = "overall"
OVERALL_CORRECTED = OVERALL + CORRECTED_SUFFIX
RATES = {"unparsed_rate": UNPARSED_KEY, "empty_as_a_rate": EMPTY_KEY, "e_rate": E_KEY,
         "corrected_unparsed_rate": CORRECTED_UNPARSED_KEY}  # fmt: skip
MISSING_UNIT_KEYS = (TASK_KEY,)
MISSING_VALUE = {OFFICIAL_KEY: 0.0, CORRECTED_KEY: 0.0, UNPARSED_KEY: 1.0, EMPTY_KEY: 0.0, E_KEY: 0.0,
                 CORRECTED_UNPARSED_KEY: 1.0}  # fmt: skip
"""A question without a reply: no letter, no credit (never read as A, unlike an empty reply)."""


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def ad_numbers(rows: Sequence[tuple[Mapping[str, Any], str]]) -> dict[str, float]:
    """(score value, task) per question -> every metric; a task without questions is NaN."""
    numbers: dict[str, float] = {}
    for name, task in ACCURACIES.items():
        of_task = [value for value, t in rows if t == task]
        numbers[name] = _mean([float(v.get(OFFICIAL_KEY, 0.0)) for v in of_task])
        numbers[name + CORRECTED_SUFFIX] = _mean([float(v.get(CORRECTED_KEY, 0.0)) for v in of_task])
    numbers[OVERALL] = _mean([float(value.get(OFFICIAL_KEY, 0.0)) for value, _ in rows])
    numbers[OVERALL_CORRECTED] = _mean([float(value.get(CORRECTED_KEY, 0.0)) for value, _ in rows])
    for name, key in RATES.items():
        numbers[name] = _mean([float(value.get(key, 0.0)) for value, _ in rows])
    return numbers


@metric
def ad_scores() -> Metric:
    """`perception` (the headline), `reasoning`, their corrected readings, `overall`, the parser rates and
    `missing_units`."""

    def compute(scores: list[SampleScore]) -> Value:
        rows = [(s.score.value, str((s.sample_metadata or {}).get(TASK_KEY))) for s in scores
                if isinstance(s.score.value, dict)]  # fmt: skip
        missing = missing_units(scores)
        rows.extend((MISSING_VALUE, str(unit.get(TASK_KEY))) for unit in missing)
        numbers: dict[str, float] = {**ad_numbers(rows), MISSING_UNITS: float(len(missing))}
        if running(scores):  # Inspect's live progress line: no headline that the final one would contradict
            for name in (*ACCURACIES, OVERALL):  # the corrected ones too
                numbers[name + CORRECTED_SUFFIX] = math.nan
                numbers[name] = math.nan
        return numbers

    return compute
