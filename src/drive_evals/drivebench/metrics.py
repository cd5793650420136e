"""DriveBench aggregation: the official per-bucket numbers, the per-task GPT scores, and paired setting contrasts.

Official (`evaluate/eval.py` L144-223): per bucket (perception MCQ/VQA, prediction VQA, planning VQA, behavior MCQ)
the mean GPT score over its questions (0-100; logged here / 100 like every score of the suite) and, for the two
MCQ buckets, the official-parser accuracy. Decided here (docs/drivebench.md, reference §7.11): a task's GPT score
(the README table's Perception, Prediction, Planning, Behavior) is the mean over all its judged questions (for
Perception, MCQ and VQA together, item-weighted; the data has one of each per frame); `gpt_score`, the headline,
is the equal mean of the four task scores. Prediction yes/no questions, which the official code never scores,
are in none of these: they have their own `prediction_yes_no_*` numbers.

BLEU-1..4, ROUGE-L and CIDEr (`perception_vqa_bleu_4`, ...) are corpus numbers per open-question bucket and
setting, computed from every reply as `language_evaluation` computes them (`language.py`); with several settings
only per setting (`fog_planning_vqa_cider`).

With several settings in one run, the unprefixed numbers pool all of them, which for `setting=corruptions` is the
README's "Corr." (the mean over the corruptions, every setting asking the same questions); `<setting>_...` gives
each setting's own, and `<setting>_vs_<reference>_...` the paired difference per question against the reference
setting (`clean` if in the run, else the first), with a standard error clustered by scene.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from drive_evals.drivebench.language import language_scores_of_buckets
from drive_evals.drivebench.records import TASKS
from drive_evals.drivebench.settings import CLEAN
from drive_evals.precision import reported_stderr
from drive_evals.started_samples import MISSING_UNITS, missing_units, running
from drive_evals.stats.clustered import clustered_stderr, equal_group_mean

GPT = "gpt"
"""Score.value key: the judge's Total Score / 100 (NaN when not judged)."""
JUDGED = "judged"
OFFICIAL_ITEM = "official_item"
"""Score.value key: 1 for a question the official evaluation scores, 0 for a prediction yes/no question (the
report's unit metrics count the former only)."""
OUT_OF_RANGE = "judge_out_of_range"
MCQ_CORRECT = "mcq_correct"
MCQ_CORRECTED = "mcq_correct_corrected"
MCQ_EMPTY_MATCH = "mcq_empty_match"
YES_NO_CORRECT = "yes_no_correct"

GPT_SCORE = "gpt_score"
MCQ_ACCURACY = "mcq_accuracy"
MCQ_ACCURACY_CORRECTED = "mcq_accuracy_corrected"
JUDGE_COVERAGE = "judge_coverage"
OFFICIAL_BUCKETS = ("perception MCQ", "perception VQA", "prediction VQA", "planning VQA", "behavior MCQ")
MCQ_BUCKETS = ("perception MCQ", "behavior MCQ")
YES_NO_BUCKET = "prediction yes/no"
VQA_BUCKETS = ("perception VQA", "prediction VQA", "planning VQA")
PRED_KEY = "pred"
"""Score.metadata key of an open question's reply, which the language metrics read with the gold."""


def metric_name(*parts: str) -> str:
    """`perception MCQ`, `gpt` -> `perception_mcq_gpt`."""
    return "_".join(p.lower().replace("/", "_").replace(" ", "_") for p in parts if p)


@dataclass(frozen=True)
class Row:
    """One scored sample: its metadata, its values (NaN where not applicable), an open question's reply."""

    meta: Mapping[str, Any]
    values: Mapping[str, float]
    pred: str | None = None

    def value(self, key: str) -> float:
        item = self.values.get(key)
        return float(item) if isinstance(item, (int, float)) else math.nan

    @property
    def official(self) -> bool:
        return bool(self.meta.get("officially_scored"))


def _present(rows: Sequence[Row], key: str, where: Callable[[Row], bool]) -> list[Row]:
    return [r for r in rows if where(r) and not math.isnan(r.value(key))]


def _mean(rows: Sequence[Row], key: str, where: Callable[[Row], bool]) -> float:
    kept = _present(rows, key, where)
    return sum(r.value(key) for r in kept) / len(kept) if kept else math.nan


def _stderr(rows: Sequence[Row], key: str, where: Callable[[Row], bool], continuous: bool) -> float | None:
    """The standard error `drive_evals.precision` logs for the mean of `key` (clustered by scene); None for none."""
    kept = _present(rows, key, where)
    if not kept:
        return None
    values = [r.value(key) for r in kept]
    one_group = [""] * len(kept)
    return reported_stderr(
        sum(values) / len(values), values, one_group, [r.meta.get("scene") for r in kept], continuous
    )


def _task_mean(rows: Sequence[Row]) -> tuple[float, float | None]:
    """The equal mean of the four task GPT scores (NaN unless all four have one) and the standard error
    `drive_evals.precision` logs for it (None where the report prints no informative interval)."""
    kept = _present(rows, GPT, lambda r: r.official)
    tasks = [str(r.meta.get("task")) for r in kept]
    if set(tasks) != set(TASKS):
        return math.nan, None
    values, scenes = [r.value(GPT) for r in kept], [r.meta.get("scene") for r in kept]
    overall = equal_group_mean(values, tasks, scenes).overall
    return overall, reported_stderr(overall, values, tasks, scenes, continuous=True)


def where(key: str, level: str, official_only: bool = False) -> Callable[[Row], bool]:
    """Rows whose metadata `key` is `level` (and, if asked, that the official evaluation scores)."""
    return lambda row: row.meta.get(key) == level and (row.official or not official_only)


def _is_mcq(row: Row) -> bool:
    return row.meta.get("bucket") in MCQ_BUCKETS


def setting_numbers(rows: Sequence[Row], prefix: str = "") -> dict[str, float]:
    """The official bucket numbers, the task scores and the headline for `rows` (one setting or pooled)."""
    out: dict[str, float] = {}
    headline, headline_stderr = _task_mean(rows)
    out[metric_name(prefix, GPT_SCORE)] = headline
    if not prefix and headline_stderr is not None:
        out[f"{GPT_SCORE}_stderr"] = headline_stderr
    for task in TASKS:
        in_task = where("task", task, official_only=True)
        out[metric_name(prefix, task, GPT)] = _mean(rows, GPT, in_task)
        if not prefix and (task_stderr := _stderr(rows, GPT, in_task, continuous=True)) is not None:
            out[metric_name(task, GPT, "stderr")] = task_stderr
    for bucket in (*OFFICIAL_BUCKETS, YES_NO_BUCKET):
        out[metric_name(prefix, bucket, GPT)] = _mean(rows, GPT, where("bucket", bucket))
    out[metric_name(prefix, MCQ_ACCURACY)] = _mean(rows, MCQ_CORRECT, _is_mcq)
    out[metric_name(prefix, MCQ_ACCURACY_CORRECTED)] = _mean(rows, MCQ_CORRECTED, _is_mcq)
    for bucket in MCQ_BUCKETS:
        out[metric_name(prefix, bucket, "accuracy")] = _mean(rows, MCQ_CORRECT, where("bucket", bucket))
    out[metric_name(prefix, "prediction_yes_no_accuracy")] = _mean(rows, YES_NO_CORRECT, lambda r: True)
    if not prefix and (mcq_stderr := _stderr(rows, MCQ_CORRECT, _is_mcq, continuous=False)) is not None:
        out[f"{MCQ_ACCURACY}_stderr"] = mcq_stderr
    return out


def reference_setting(settings: Sequence[str]) -> str:
    """The setting the others are compared with: `clean` when the run has it, else the first."""
    return CLEAN if CLEAN in settings else settings[0]


def paired_numbers(rows: Sequence[Row], setting: str, reference: str) -> dict[str, float]:
    """`<setting>_vs_<reference>_gpt_score` (the headline's paired difference: the equal mean over tasks of the
    per-question differences) with its clustered standard error, per task, and the MCQ accuracy difference."""
    by_key: dict[tuple[str, str], Row] = {
        (str(r.meta.get("question_key")), str(r.meta.get("setting"))): r for r in rows
    }
    pairs = [
        (row, by_key[(key, reference)])
        for (key, name), row in by_key.items()
        if name == setting and (key, reference) in by_key
    ]
    name = f"{setting}_vs_{reference}"
    out: dict[str, float] = {}
    judged = [(a, b) for a, b in pairs if a.official and not math.isnan(a.value(GPT) + b.value(GPT))]
    tasks = [str(a.meta.get("task")) for a, _ in judged]
    differences = [a.value(GPT) - b.value(GPT) for a, b in judged]
    scenes = [a.meta.get("scene") for a, _ in judged]
    if judged and set(tasks) == set(TASKS):
        estimate = equal_group_mean(differences, tasks, scenes)
        out[f"{name}_{GPT_SCORE}"], out[f"{name}_{GPT_SCORE}_stderr"] = estimate.overall, estimate.overall_stderr
    else:
        out[f"{name}_{GPT_SCORE}"], out[f"{name}_{GPT_SCORE}_stderr"] = math.nan, math.nan
    for task in TASKS:
        kept = [(d, s) for d, s, t in zip(differences, scenes, tasks, strict=True) if t == task]
        out[f"{name}_{task}_{GPT}"] = sum(d for d, _ in kept) / len(kept) if kept else math.nan
    mcq = [
        (a.value(MCQ_CORRECT) - b.value(MCQ_CORRECT), a.meta.get("scene"))
        for a, b in pairs
        if not math.isnan(a.value(MCQ_CORRECT) + b.value(MCQ_CORRECT))
    ]
    out[f"{name}_{MCQ_ACCURACY}"] = sum(d for d, _ in mcq) / len(mcq) if mcq else math.nan
    out[f"{name}_{MCQ_ACCURACY}_stderr"] = (
        clustered_stderr([d for d, _ in mcq], [s for _, s in mcq]) if mcq else math.nan
    )
    return out


def language_numbers(settings: Sequence[tuple[str, Sequence[Row]]]) -> dict[str, float]:
    """BLEU-1..4, ROUGE-L and CIDEr per open-question bucket of each (prefix, rows) setting, as `eval.py` L163-171
    computes them (over every reply the run has, judged or not); one tokenizer JVM for them all."""
    names, buckets = [], []
    for prefix, rows in settings:
        for bucket in VQA_BUCKETS:
            kept = [r for r in rows if r.meta.get("bucket") == bucket and r.pred is not None]
            names.append((prefix, bucket))
            buckets.append(([str(r.pred) for r in kept], [str(r.meta.get("answer")) for r in kept]))
    out: dict[str, float] = {}
    for (prefix, bucket), scores in zip(names, language_scores_of_buckets(buckets), strict=True):
        out.update({metric_name(prefix, bucket, name): value for name, value in scores.items()})
    return out


def summarise(rows: Sequence[Row], missing: int = 0, language: bool = True) -> dict[str, float]:
    """Every logged number of a run from its scored samples; `missing` errored samples count as unjudged.
    `language=False` leaves out the language metrics (a JVM run) for Inspect's live progress line."""
    out = setting_numbers(rows)
    planned = len(rows) + missing
    judged = [r.value(JUDGED) for r in rows if not math.isnan(r.value(JUDGED))]
    out[JUDGE_COVERAGE] = sum(judged) / planned if judged and planned else math.nan
    out[f"{OUT_OF_RANGE}_count"] = sum(r.value(OUT_OF_RANGE) > 0 for r in rows)
    out[f"{MCQ_EMPTY_MATCH}_count"] = sum(r.value(MCQ_EMPTY_MATCH) > 0 for r in rows)
    out[MISSING_UNITS] = missing
    settings = list(dict.fromkeys(str(r.meta.get("setting")) for r in rows))
    if len(settings) == 1 and language:
        out.update(language_numbers([("", rows)]))
    if len(settings) > 1:
        by_setting: dict[str, list[Row]] = defaultdict(list)
        for row in rows:
            by_setting[str(row.meta.get("setting"))].append(row)
        for setting in settings:
            out.update(setting_numbers(by_setting[setting], setting))
        if language:
            out.update(language_numbers([(setting, by_setting[setting]) for setting in settings]))
        reference = reference_setting(settings)
        for setting in settings:
            if setting != reference:
                out.update(paired_numbers(rows, setting, reference))
    return out


def rows_of(scores: Sequence[SampleScore]) -> list[Row]:
    rows = []
    for score in scores:
        value = score.score.value
        values = (
            {k: float(v) for k, v in value.items() if isinstance(v, (int, float))} if isinstance(value, dict) else {}
        )
        pred = (score.score.metadata or {}).get(PRED_KEY)
        rows.append(Row(score.sample_metadata or {}, values, pred if isinstance(pred, str) else None))
    return rows


@metric
def drivebench_metrics() -> Metric:
    """The official per-bucket GPT scores and MCQ accuracy, task scores, the headline `gpt_score`, coverage, and
    with several settings each setting's numbers and the paired differences against the reference setting."""

    def compute(scores: list[SampleScore]) -> Value:
        live = running(scores)  # Inspect's live progress line: no headline that the final one would contradict
        numbers = summarise(rows_of(scores), len(missing_units(scores)), language=not live)
        if live:
            numbers.update({GPT_SCORE: math.nan, MCQ_ACCURACY: math.nan})
        return numbers

    return compute
