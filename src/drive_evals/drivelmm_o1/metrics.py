"""DriveLMM-o1 metrics over per-sample score dicts whose NaN entries mean 'not applicable' (not judged, not MCQ).

Every sample reaches these metrics, judged or not, so `judge_coverage` is honest; a sample that errored
(`--fail-on-error` below 1, `--continue-on-fail`) reaches none, so `drive_evals.started_samples` finds it: it counts as
unjudged in `judge_coverage` and in `missing_units`. The reasoning score and MCQ accuracy keep the official
denominators (the judged items: the official script drops an item it could not judge from both). Means skip NaN;
standard errors are clustered by frame (a frame's questions share the same scene).

The log holds what a user reads at a glance (the official numbers, their standard errors, coverage, the lenient
MCQ diagnostic; with a panel, agreement). The twelve criteria and per-question breakdowns are per-sample values
that `drive-evals report` aggregates; ~50 metric columns made the viewer's metrics window unreadable. Counts of
anomalies (errored samples, out-of-range or missing judge values, the `none == none` quirk, unreadable gold
answers) are logged only when they are not 0: Inspect prints every metric with three decimals, a count too. The
standard errors are `drive_evals.precision`'s (absent where the report prints no informative interval), and while
samples are still running the headline numbers are NaN, so that Inspect's live progress line never shows a value
the final one contradicts (`attempts.running`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from drive_evals.drivelmm_o1.agreement import krippendorff_alpha_interval
from drive_evals.drivelmm_o1.prompts import CRITERIA
from drive_evals.precision import reported_stderr
from drive_evals.started_samples import MISSING_UNITS, missing_units, running

REASONING = "reasoning_score"
JUDGE_OVERALL = "judge_overall"
JUDGE_OVERALL_COUNT = "judge_overall_count"
JUDGED = "judged"
JUDGE_COVERAGE = "judge_coverage"
"""Planned samples without a score because they errored (never judged, in no mean)."""
MCQ_ACCURACY = "mcq_accuracy"
MCQ_ITEMS = "mcq_items"
JUDGE_OUT_OF_RANGE = "judge_out_of_range"
"""Score.value flag: a judge gave a criterion or Overall Score outside 1-10 (counted as given, as officially)."""
OUT_OF_RANGE_KEY = "out_of_range"
"""Score.metadata key: per judge, the values it gave outside 1-10."""
MCQ_COUNTED = "mcq_counted"
MCQ_CORRECT = "mcq_correct"
MCQ_LENIENT = "mcq_correct_lenient"
NONE_QUIRK = "mcq_none_quirk"
MCQ_ACCURACY_LENIENT = "mcq_accuracy_lenient"
NONE_QUIRK_COUNT = "mcq_none_quirk_count"
MCQ_GOLD_UNREADABLE = "mcq_gold_unreadable"
"""Sample metadata flag: an MCQ gold answer without an option letter (see dataset.gold_unreadable)."""
PANEL_KEY = "panel"
"""Score.metadata key holding each judge's twelve criteria and raw replies (for the viewer)."""
MIN_PANEL = 2
"""Judges that make a panel: per-judge values and agreement statistics appear from two judges on."""


def judge_key(index: int, name: str) -> str:
    """Score.value key (and metric name) of judge `index`'s value `name`: `judge1_reasoning_score`."""
    return f"judge{index}_{name}"


def criterion_metric_name(criterion: str) -> str:
    """`Scene Awareness & Object Understanding` -> `scene_awareness_object_understanding`."""
    return re.sub(r"[^a-z0-9]+", "_", criterion.lower()).strip("_")


CRITERION_NAMES = {criterion: criterion_metric_name(criterion) for criterion in CRITERIA}


def _value(score: SampleScore, key: str) -> float:
    value = score.score.value
    if not isinstance(value, dict):
        return math.nan
    item = value.get(key)
    return float(item) if isinstance(item, (int, float)) else math.nan


def _frame(score: SampleScore) -> str:
    return str((score.sample_metadata or {}).get("frame", score.sample_id))


def _mean(scores: list[SampleScore], key: str, where: Callable[[SampleScore], bool] | None = None) -> float:
    values = [_value(s, key) for s in scores if where is None or where(s)]
    present = [v for v in values if not math.isnan(v)]
    return sum(present) / len(present) if present else math.nan


def _stderr(
    scores: list[SampleScore],
    metric: str,
    key: str,
    continuous: bool,
    where: Callable[[SampleScore], bool] | None = None,
) -> dict[str, float]:
    """`{<metric>_stderr: SE}` of the mean of `key`, clustered by frame (`precision.reported_stderr`), or {} where the
    report prints no informative interval."""
    rows = [(_value(s, key), _frame(s)) for s in scores if where is None or where(s)]
    values = [v for v, _ in rows if not math.isnan(v)]
    frames = [f for v, f in rows if not math.isnan(v)]
    mean = sum(values) / len(values) if values else math.nan
    stderr = reported_stderr(mean, values, [""] * len(values), frames, continuous)
    return {} if stderr is None else {f"{metric}_stderr": stderr}


def _nonzero(name: str, count: float) -> dict[str, int | float]:
    """`{name: count}` when the count is not 0, else {} (the console prints no line of 0.000)."""
    return {name: _count(count)} if count else {}


def _counted(score: SampleScore) -> bool:
    """An MCQ item that counts (judged, or the judge is off): its correctness is a number, not NaN."""
    return not math.isnan(_value(score, MCQ_CORRECT))


def _coverage(scores: list[SampleScore], missing: int) -> float:
    """Judged / planned samples: the mean of `judged` (a fraction per sample under epochs), errored ones 0."""
    planned = len(scores) + missing
    return sum(_value(s, JUDGED) for s in scores) / planned if planned else 0.0


@metric
def reasoning_metrics() -> Metric:
    """`reasoning_score` (mean of the 12 criteria / 10, the headline), `judge_overall` (the judge's own Overall /
    10, the official computation over the judged samples: the paper's Table 1 "Overall"), `judge_coverage` (judged
    / planned samples: errored samples count as unjudged). When not 0: `judge_overall_count` (the samples
    `judge_overall` averages, logged when judgements without a numeric Overall leave some out),
    `judge_out_of_range_count` (samples where a judge went outside 1-10, counted as given) and `missing_units`
    (errored). The report shows each criterion. `reasoning_score` is NaN while samples are still running."""

    def compute(scores: list[SampleScore]) -> Value:
        missing = len(missing_units(scores))
        with_overall = sum(not math.isnan(_value(s, JUDGE_OVERALL)) for s in scores)
        with_reasoning = sum(not math.isnan(_value(s, REASONING)) for s in scores)
        return {
            REASONING: math.nan if running(scores) else _mean(scores, REASONING),
            JUDGE_OVERALL: _mean(scores, JUDGE_OVERALL),
            JUDGE_COVERAGE: _coverage(scores, missing),
            **({JUDGE_OVERALL_COUNT: with_overall} if with_overall != with_reasoning else {}),
            **_nonzero(f"{JUDGE_OUT_OF_RANGE}_count", sum(_value(s, JUDGE_OUT_OF_RANGE) > 0 for s in scores)),
            **_nonzero(MISSING_UNITS, missing),
        }

    return compute


@metric
def mcq_metrics() -> Metric:
    """`mcq_accuracy` by the official rules and denominator (MCQ items that were judged), the lenient diagnostic
    on the same items, how many items count; when not 0, how often the official `none == none` quirk counted as
    correct (the lenient reading never does, so it can read lower) and how many counted items have a gold answer
    without an option letter (where that quirk can fire). `mcq_accuracy` is NaN while samples are still running
    (the headline when the judge is off)."""

    def compute(scores: list[SampleScore]) -> Value:
        return {
            MCQ_ACCURACY: math.nan if running(scores) else _mean(scores, MCQ_CORRECT, _counted),
            MCQ_ACCURACY_LENIENT: _mean(scores, MCQ_LENIENT, _counted),
            MCQ_ITEMS: sum(_counted(s) for s in scores),
            **_nonzero(NONE_QUIRK_COUNT, sum(_value(s, NONE_QUIRK) for s in scores if _counted(s))),
            **_nonzero("mcq_gold_unreadable_count", sum(_gold_unreadable(s) for s in scores if _counted(s))),
        }

    return compute


def _count(total: float) -> int | float:
    """A count as an integer; a sum of per-epoch shares (with epochs) stays a float."""
    return int(total) if float(total).is_integer() else total


def _gold_unreadable(score: SampleScore) -> bool:
    """The item's gold answer has no option letter (flagged at load): any unreadable reply counts as correct."""
    return bool((score.sample_metadata or {}).get(MCQ_GOLD_UNREADABLE))


@metric
def drivelmm_o1_stderr() -> Metric:
    """Standard errors clustered by frame for the headline numbers, as `drive_evals.precision` defines them: each
    absent where the report prints no informative interval (judge scores: the betting interval; MCQ accuracy:
    Korn-Graubard's)."""

    def compute(scores: list[SampleScore]) -> Value:
        if running(scores):
            return {}
        return {
            **_stderr(scores, REASONING, REASONING, True),
            **_stderr(scores, JUDGE_OVERALL, JUDGE_OVERALL, True),
            **_stderr(scores, MCQ_ACCURACY, MCQ_CORRECT, False, _counted),
        }

    return compute


@metric
def panel_agreement() -> Metric:
    """With several judges: each judge's reasoning score and Krippendorff's alpha (interval) per criterion.

    Empty with a single judge. Judge i is the i-th model bound to the `grader` role (names in Score.metadata).
    Reads the per-judge values in `Score.value`, so with `--epochs` they are reduced like every other value
    (mean, median, mode, max or majority) and alpha is computed over the reduced ratings, one unit per sample.
    """

    def compute(scores: list[SampleScore]) -> Value:
        judges = _panel_size(scores)
        if judges < MIN_PANEL:
            return {}
        result: dict[str, float] = {}
        for index in range(judges):
            result[judge_key(index, REASONING)] = _mean(scores, judge_key(index, REASONING))
        for name in CRITERION_NAMES.values():
            ratings = [[_value(s, judge_key(j, name)) for s in scores] for j in range(judges)]
            result[f"alpha_{name}"] = krippendorff_alpha_interval(ratings)
        return result

    return compute


def _panel_size(scores: list[SampleScore]) -> int:
    """How many judges have per-judge values (`judge<i>_reasoning_score`); every sample has the same panel."""
    value = scores[0].score.value if scores else None
    if not isinstance(value, dict):
        return 0
    size = 0
    while judge_key(size, REASONING) in value:
        size += 1
    return size
