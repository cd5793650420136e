"""VLADBench as shared code sees it (`drive_evals.benchmark.Benchmark`): the official total, aspect and task scores
beside the paper's Tables 3/4 and 10, breakdowns by domain, aspect and task clustered by scene, the chance answers
and the estimate's requests. Listed in `drive_evals._registry.BENCHMARKS`.

The official scores are ratios of sums with a pair term (`metrics`), not means over questions. `total` is also the
mean of per-question credits with known bounds (`credits`), which gives it an interval and a paired test; the aspect
and task scores are shown as logged, without an interval (none has been shown to cover for them). The breakdowns
estimate, per level, the per-question obey rate and each outcome's share, which are means over questions: their
intervals are the suite's, clustered by scene (one image or frame sequence of one task, the official `dindex` sample).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage

from drive_evals.benchmark import (
    Benchmark,
    BreakdownSpec,
    Column,
    ConsoleLine,
    CreditMetric,
    EstimateInputs,
    OfficialCount,
    Reference,
    TableSpec,
    UnitMetric,
    paper_percent,
)
from drive_evals.errors import ParameterError
from drive_evals.vladbench.chance import answer as chance_answer
from drive_evals.vladbench.credits import unit_credits
from drive_evals.vladbench.dataset import PLANNED_TASKS_KEY, SCENE_KEY, TASK_KEY
from drive_evals.vladbench.metrics import MISSING_VALUE, OBEY_KEY, TOTAL
from drive_evals.vladbench.outcomes import (
    ASPECT,
    DIMENSIONS,
    DOMAIN,
    OBEY_RATE,
    OUTCOME,
    OUTCOMES,
    TASK,
    levels,
    outcomes,
)
from drive_evals.vladbench.task import VLADBENCH_TASK
from drive_evals.vladbench.taxonomy import ASPECTS, DOMAINS, TASKS

TABLE10_TASKS = (
    "Traffic_Light", "Pavement_Marking", "Traffic_Sign", "Right_Of_Way", "VRU_Recognition", "Vehicle_Recognition",
    "Vehicle_Status", "Lane_Recognition", "Obstruction_Recognition", "Light", "Weather", "Sign_Sign_Relation",
    "Light_Lane_Relation", "Sign_Lane_Relation", "Lane_Change_Relation", "Lane_Speed_Relation", "VRU_Cutin",
    "VRU_Cross", "Vehicle_Cutin", "Long_Short_Parking", "VRU_Bahavior", "Vehicle_Bahavior",
    "Key_Obsturction_Detection", "Risk_Prediction", "Drive_Efficiency", "Spatial_Temporal_Reasoning", "Lateral",
    "Longitudinal",
)  # fmt: skip
"""The row order of the paper's Table 10."""


def _total(model: str, total: float) -> Reference:
    return Reference(model, {TOTAL: paper_percent(total)})


def _table10(model: str, total: float, *tasks: float) -> Reference:
    values = {name: paper_percent(score) for name, score in zip(TABLE10_TASKS, tasks, strict=True)}
    return Reference(model, {TOTAL: paper_percent(total), **values})


PAPER_ROWS: tuple[Reference, ...] = (
    _total("IXC2.5 8B", 30.93),
    _total("CogVLM2 8B", 35.85),
    _total("LongVILA 8B", 38.67),
    _total("Qwen-VL 7B", 43.24),
    _total("InternVL2 4B", 44.97),
    _total("MiniCPM-V-2.6 8B", 45.45),
    _table10("InternVL2 8B", 48.58, 67.70, 46.38, 47.45, 69.45, 38.34, 61.92, 49.26, 48.62, 52.94, 66.30, 73.87,
             21.02, 34.77, 31.84, 38.96, 39.94, 62.53, 45.49, 24.14, 53.25, 45.86, 48.00, 69.73, 59.29, 54.85, 53.06,
             41.45, 39.41),
    _table10("Qwen2-VL 7B", 49.40, 65.11, 57.38, 40.94, 71.52, 45.24, 66.07, 47.16, 52.51, 48.95, 70.40, 71.61,
             20.00, 33.44, 33.48, 37.75, 44.46, 61.07, 82.52, 39.31, 58.75, 44.04, 39.00, 62.41, 41.91, 51.68, 57.59,
             30.21, 46.93),
    _total("LLaVA-OneVision 7B", 49.97),
    _table10("Qwen2.5-VL 7B", 50.75, 62.77, 62.91, 61.71, 80.32, 39.79, 52.54, 52.61, 63.49, 51.74, 68.40, 70.00,
             20.73, 31.85, 28.21, 37.77, 45.60, 53.76, 70.98, 25.52, 60.75, 44.04, 40.00, 58.17, 55.40, 61.19, 62.72,
             33.62, 39.80),
    _total("LLaVA-Video 7B", 51.73),
    _total("Gemini-1.5-pro", 54.23),
    _table10("GPT-4o", 56.00, 67.72, 71.17, 68.96, 78.96, 40.58, 58.75, 54.86, 63.49, 48.97, 67.20, 69.27, 31.87,
             42.90, 41.84, 49.58, 54.87, 54.96, 51.07, 23.54, 58.75, 58.79, 45.00, 70.60, 66.57, 53.61, 62.71, 43.83,
             57.82),
    _total("Senna 7B", 20.21),
    _total("Dolphins 9B", 33.87),
    _total("DriveLM 4B", 44.86),
    _total("DriveMM 7B", 47.45),
    _total("DriveLM-B 4B", 49.83),
    _total("VLADBench authors' InternVL2-4B", 57.39),
    _total("VILA-U 40B", 38.76),
    _total("LLaVA-OneVision 72B", 50.21),
    _total("LLaVA-Video 72B", 51.62),
    _total("InternVL2 76B", 53.20),
    _total("Qwen2-VL 72B", 56.51),
    _table10("Qwen2.5-VL 72B", 58.00, 74.54, 72.45, 65.11, 80.58, 38.85, 58.78, 55.95, 70.87, 50.51, 73.20, 70.97,
             21.45, 43.65, 41.19, 54.62, 55.19, 59.38, 54.46, 28.28, 71.00, 52.93, 47.00, 75.72, 54.60, 63.70, 65.71,
             44.85, 54.85),
)  # fmt: skip
"""Totals of Tables 3 (small, closed-source and driving models) and 4 (large models), and the per-task scores of
Table 10 for five commonly run models (arXiv 2503.21505 v1, as docs/vladbench.md lists them)."""

SCORES, ASPECT_TABLE, TASK_TABLE = "Official scores", "Aspects", "Tasks"
TABLES = {SCORES: (TOTAL,), ASPECT_TABLE: ASPECTS, TASK_TABLE: tuple(task.name for task in TASKS)}
"""Each table's columns: the logged official scores; `total` with its interval on the question credits, the aspect
and task scores as logged (no interval has been shown to cover for them)."""
COMPARABILITY = ("tasks", "box_format", "obey_semicolons", "prompt")
MISSING_VALUES = MISSING_VALUE
"""A question whose sample errored: a failed call, no credit and no obey, 0 in the tip pairs (`metrics`)."""
REFERENCE_SOURCE = "paper Tables 3, 4 (totals) and 10 (per task), arXiv 2503.21505 v1; x100"
LEVEL_ORDER = {DOMAIN: DOMAINS, ASPECT: ASPECTS, TASK: TABLES[TASK_TABLE], OUTCOME: OUTCOMES}


def input_requests(sample: Sample) -> list[list[ChatMessage]]:
    """One request: the sample's input exactly as the task sends it (the images, then the question)."""
    if isinstance(sample.input, str):
        raise ParameterError(f"sample {sample.id}: expected a multimodal input")
    return [list(sample.input)]


OFFICIAL_QUESTIONS: dict[str, int] = {
    "Traffic_Light": 795,
    "Pavement_Marking": 564,
    "Traffic_Sign": 701,
    "Right_Of_Way": 309,
    "VRU_Recognition": 424,
    "Vehicle_Recognition": 223,
    "Vehicle_Status": 257,
    "Lane_Recognition": 780,
    "Obstruction_Recognition": 680,
    "Light": 200,
    "Weather": 248,
    "Sign_Sign_Relation": 192,
    "Sign_Lane_Relation": 1072,
    "Light_Lane_Relation": 702,
    "Lane_Speed_Relation": 340,
    "Lane_Change_Relation": 784,
    "VRU_Cutin": 267,
    "Vehicle_Cutin": 261,
    "VRU_Cross": 276,
    "Long_Short_Parking": 320,
    "Vehicle_Bahavior": 80,
    "VRU_Bahavior": 99,
    "Key_Obsturction_Detection": 547,
    "Spatial_Temporal_Reasoning": 161,
    "Risk_Prediction": 272,
    "Drive_Efficiency": 303,
    "Longitudinal": 101,
    "Lateral": 235,
}
"""Questions of each task in the released data, 11,193 in all (the paper's total; the per-task counts are a third
party's count of the Hugging Face JSON, and they add up to it)."""


def official_counts(metadata: Mapping[str, Any]) -> list[OfficialCount]:
    """The official questions of each task the run selected (the loader's summary counts the whole file)."""
    questions = metadata.get("questions") or {}
    return [
        OfficialCount(f"{task} questions", int(n), (OFFICIAL_QUESTIONS[task],))
        for task, n in questions.items()
        if task in OFFICIAL_QUESTIONS
    ]


VLADBENCH = Benchmark(
    task=VLADBENCH_TASK,
    title="VLADBench",
    cluster_key=SCENE_KEY,
    group_key=TASK_KEY,
    headline=TOTAL,
    unit_metrics=(UnitMetric(OBEY_RATE, OBEY_KEY),),
    tables=tuple(
        TableSpec(t, tuple(Column(m, m, "estimate" if m == TOTAL else "rate") for m in columns))
        for t, columns in TABLES.items()
    ),
    paired=(TOTAL, OBEY_RATE),
    comparability=COMPARABILITY,
    missing_values=MISSING_VALUES,
    reference_source=REFERENCE_SOURCE,
    references=PAPER_ROWS,
    breakdown=BreakdownSpec(
        levels=levels,
        outcomes=outcomes,
        dimensions=DIMENSIONS,
        outcome_dimensions=(OUTCOME,),
        metrics=(OBEY_RATE,),
        paired=(OBEY_RATE,),
        level_order=LEVEL_ORDER,
    ),
    console=(ConsoleLine(TOTAL, "the official total over the questions of the planned tasks: the headline"),),
    planned_groups_key=PLANNED_TASKS_KEY,
    credit_metrics=(CreditMetric(TOTAL, unit_credits),),
    official=official_counts,
    chance=chance_answer,
    estimate=EstimateInputs(requests=input_requests),
)
