"""DriveBench as shared code sees it (`drive_evals.benchmark.Benchmark`): what the report shows, the chance
answers, the estimate's model and judge requests, the README's rows. Listed in `drive_evals._registry.BENCHMARKS`.

Across runs, units pair by sample id: a one-setting run's ids are the question keys, so a `text_only` run (marked
blind in its metadata) is shown beside the clean run of the same model with the paired blind gap, and two models
are compared question by question. Within a run of several settings the log's own paired contrasts
(`<setting>_vs_clean_...`) are shown as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage, ChatMessageUser

from drive_evals.benchmark import (
    Benchmark,
    BreakdownSpec,
    Column,
    ConsoleLine,
    EstimateInputs,
    OfficialCount,
    Reference,
    TableSpec,
    UnitMetric,
    paper_percent,
)
from drive_evals.drivebench.chance import answer as chance_answer
from drive_evals.drivebench.dataset import PLANNED_TASKS_KEY
from drive_evals.drivebench.metrics import (
    GPT,
    GPT_SCORE,
    JUDGE_COVERAGE,
    JUDGED,
    MCQ_ACCURACY,
    MCQ_ACCURACY_CORRECTED,
    MCQ_CORRECT,
    MCQ_CORRECTED,
    OFFICIAL_ITEM,
    metric_name,
)
from drive_evals.drivebench.outcomes import DIMENSIONS, JUDGE_OUTCOME, MCQ_OUTCOME, OUTCOME_ORDER, levels, outcomes
from drive_evals.drivebench.prompts import JUDGE_MAX_TOKENS, judge_message
from drive_evals.drivebench.records import TASKS
from drive_evals.drivebench.settings import CLEAN, SETTINGS
from drive_evals.drivebench.solver import input_images, official_message
from drive_evals.drivebench.task import DESCRIPTION_KEY, DRIVEBENCH_TASK

TASK_GPT = tuple(metric_name(task, GPT) for task in TASKS)
"""`perception_gpt`, ...: the README table's columns."""
QUESTION_GPT = "question_gpt"
"""Unit metric of the breakdowns: the mean GPT score of the officially scored questions at a level."""
CONTRASTS = {f"{s.name}_vs_{CLEAN}_{GPT_SCORE}": s.name for s in SETTINGS if s.name != CLEAN}
"""Within-run paired differences against clean (log metric -> the short column label: the setting)."""


def _readme(model: str, *percent: float) -> Reference:
    """A row of the README's "Benchmark Study" table, Clean columns (Perception, Prediction, Planning, Behavior)."""
    return Reference(model, {name: paper_percent(value) for name, value in zip(TASK_GPT, percent, strict=True)})


def model_requests(sample: Sample) -> list[list[ChatMessage]]:
    """The one message the `official_prompt` solver sends for `sample`."""
    assert not isinstance(sample.input, str) and isinstance(sample.input[0], ChatMessageUser)
    meta = sample.metadata or {}
    return [[official_message(meta["cameras"], meta["question"], input_images(sample.input[0]))]]


def judge_request(sample: Sample) -> list[ChatMessage]:
    """The judge's one message, without the model's reply (which the estimate adds)."""
    meta = sample.metadata or {}
    reply = ""
    message = judge_message(
        meta["task"], meta["kind"], meta["question"], meta["answer"], reply, meta.get(DESCRIPTION_KEY)
    )
    return [ChatMessageUser(content=message)]


def officially_scored(metadata: Mapping[str, Any]) -> bool:
    """A question the official evaluation scores (not a prediction yes/no one): it counts in `gpt_score`."""
    return bool(metadata.get("officially_scored"))


def gpt_score_meaning(metrics: Mapping[str, float], metadata: Mapping[str, Any]) -> str:
    """What `gpt_score` is in the end-of-run headline; with several settings, that it pools them."""
    settings = [str(name) for name in metadata.get("settings") or []]
    pooled = f", pooled over {', '.join(settings)} (each: `<setting>_gpt_score`)" if len(settings) > 1 else ""
    return f"the judge's GPT score, equal mean of the 4 tasks{pooled}: the headline"


OFFICIAL_FRAMES = 200
"""Key frames of `drivebench-test.json` (the paper). Its question count (about 1,461) is not verified: not checked."""


def official_counts(metadata: Mapping[str, Any]) -> list[OfficialCount]:
    """The official question file's frames (the loader's summary of the whole file, the same in every setting)."""
    return [OfficialCount("frames", int(metadata["frames"]), (OFFICIAL_FRAMES,))] if "frames" in metadata else []


DRIVEBENCH = Benchmark(
    task=DRIVEBENCH_TASK,
    title="DriveBench",
    cluster_key="scene",
    group_key="task",
    headline=GPT_SCORE,
    unit_metrics=(
        UnitMetric(GPT_SCORE, GPT, grouped=True, counted_key=OFFICIAL_ITEM, continuous=True),
        *(
            UnitMetric(name, GPT, subset=task, counted_key=OFFICIAL_ITEM, continuous=True)
            for name, task in zip(TASK_GPT, TASKS, strict=True)
        ),
        UnitMetric(QUESTION_GPT, GPT, counted_key=OFFICIAL_ITEM, stderr_logged=False, continuous=True),
        UnitMetric(MCQ_ACCURACY, MCQ_CORRECT),
        UnitMetric(MCQ_ACCURACY_CORRECTED, MCQ_CORRECTED, stderr_logged=False),
    ),
    tables=(
        TableSpec(
            "GPT score",
            (
                Column(GPT_SCORE, GPT_SCORE),
                *(Column(name, name) for name in TASK_GPT),
                Column(JUDGE_COVERAGE, JUDGE_COVERAGE, "rate"),
            ),
        ),
        TableSpec(
            "Multiple choice and yes/no",
            (
                Column(MCQ_ACCURACY, MCQ_ACCURACY),
                Column(MCQ_ACCURACY_CORRECTED, MCQ_ACCURACY_CORRECTED),
                Column("prediction_yes_no_accuracy", "yes/no (extension)", "rate"),
            ),
        ),
        TableSpec(
            "Language metrics (open questions)",
            tuple(
                Column(metric_name(bucket, name), f"{bucket.split()[0]} {label}", "rate")
                for bucket in ("perception VQA", "prediction VQA", "planning VQA")
                for name, label in (("bleu_4", "BLEU-4"), ("rouge_l", "ROUGE-L"))
            ),
        ),
        TableSpec(
            "Within-run settings against clean (GPT score difference, `<setting>_vs_clean_gpt_score`)",
            tuple(Column(metric, label, "rate") for metric, label in CONTRASTS.items()),
        ),
    ),
    paired=(GPT_SCORE, *TASK_GPT, MCQ_ACCURACY),
    comparability=("image_size",),
    judged=True,
    reference_source="DriveBench README, Benchmark Study table, Clean columns (GPT score x100; paper PDF not checked)",
    references=(
        _readme("GPT-4o", 35.37, 51.30, 75.75, 45.40),
        _readme("LLaVA-1.5-7B", 23.22, 22.02, 29.15, 13.60),
        _readme("LLaVA-1.5-13B", 23.35, 36.98, 34.26, 32.99),
        _readme("LLaVA-NeXT-7B", 24.15, 35.07, 45.27, 48.16),
        _readme("InternVL2-8B", 32.36, 45.52, 53.27, 54.58),
        _readme("Phi-3 (4.2B)", 22.88, 40.11, 60.03, 45.20),
        _readme("Phi-3.5 (4.2B)", 27.52, 45.13, 31.91, 37.89),
        _readme("Oryx-7B", 17.02, 48.13, 53.57, 33.92),
        _readme("Qwen2-VL-7B", 28.99, 37.89, 57.04, 49.07),
        _readme("Qwen2-VL-72B", 30.13, 49.35, 61.30, 51.26),
        _readme("DriveLM-7B", 16.85, 44.33, 68.71, 42.78),
        _readme("Dolphins-7B", 9.59, 32.66, 52.91, 8.81),
    ),
    plots=("GPT score",),
    breakdown=BreakdownSpec(
        levels=levels,
        outcomes=outcomes,
        dimensions=DIMENSIONS,
        outcome_dimensions=(JUDGE_OUTCOME, MCQ_OUTCOME),
        metrics=(QUESTION_GPT, MCQ_ACCURACY),
        paired=(QUESTION_GPT, MCQ_ACCURACY),
        level_order={
            "task": TASKS,
            "setting": tuple(s.name for s in SETTINGS),
            JUDGE_OUTCOME: OUTCOME_ORDER,
            MCQ_OUTCOME: OUTCOME_ORDER,
        },
    ),
    missing_values={JUDGED: 0.0},
    console=(
        ConsoleLine(GPT_SCORE, gpt_score_meaning, judged=True),
        ConsoleLine(MCQ_ACCURACY, "multiple choice, official parser"),
    ),
    planned_groups_key=PLANNED_TASKS_KEY,
    chance=chance_answer,
    estimate=EstimateInputs(requests=model_requests, judge_request=judge_request, judge_max_tokens=JUDGE_MAX_TOKENS),
    stop_eligible=officially_scored,
    official=official_counts,
)
