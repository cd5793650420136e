"""The aggregation reproduces the paper's Table 10 from its per-task scores (protocol reference, section 5.2).

Question-weighted means of task scores, with the released per-task question counts, give the published TOTAL of
IVL2-8B, Qwen2-VL-7B, Qwen2.5-VL-7B and Qwen2.5-VL-72B to the printed two decimals; GPT-4o comes out at 55.88
against 56.00 published. A task-count (macro) mean does not reproduce them.
"""

from __future__ import annotations

import pytest

from drive_evals.vladbench.aggregate import TaskResult, aspect_scores, task_result, total_score
from drive_evals.vladbench.rules import Verdict
from drive_evals.vladbench.taxonomy import BY_NAME, TASKS

QUESTIONS = {
    "Traffic_Light": 795, "Pavement_Marking": 564, "Traffic_Sign": 701, "Right_Of_Way": 309,
    "VRU_Recognition": 424, "Vehicle_Recognition": 223, "Vehicle_Status": 257, "Lane_Recognition": 780,
    "Obstruction_Recognition": 680, "Light": 200, "Weather": 248, "Sign_Sign_Relation": 192,
    "Sign_Lane_Relation": 1072, "Light_Lane_Relation": 702, "Lane_Speed_Relation": 340, "Lane_Change_Relation": 784,
    "VRU_Cutin": 267, "Vehicle_Cutin": 261, "VRU_Cross": 276, "Long_Short_Parking": 320, "Vehicle_Bahavior": 80,
    "VRU_Bahavior": 99, "Key_Obsturction_Detection": 547, "Spatial_Temporal_Reasoning": 161, "Risk_Prediction": 272,
    "Drive_Efficiency": 303, "Longitudinal": 101, "Lateral": 235,
}  # fmt: skip
"""Per-task question counts of the released annotation (HF revision 1895f22), protocol reference section 1.4."""

TABLE10_ORDER = (
    "Traffic_Light", "Pavement_Marking", "Traffic_Sign", "Right_Of_Way", "VRU_Recognition", "Vehicle_Recognition",
    "Vehicle_Status", "Lane_Recognition", "Obstruction_Recognition", "Light", "Weather", "Sign_Sign_Relation",
    "Light_Lane_Relation", "Sign_Lane_Relation", "Lane_Change_Relation", "Lane_Speed_Relation", "VRU_Cutin",
    "VRU_Cross", "Vehicle_Cutin", "Long_Short_Parking", "VRU_Bahavior", "Vehicle_Bahavior",
    "Key_Obsturction_Detection", "Risk_Prediction", "Drive_Efficiency", "Spatial_Temporal_Reasoning", "Lateral",
    "Longitudinal",
)  # fmt: skip
"""The row order of the paper's Table 10 (as the reference prints it)."""

TABLE10 = {
    "IVL2-8B": (67.70, 46.38, 47.45, 69.45, 38.34, 61.92, 49.26, 48.62, 52.94, 66.30, 73.87, 21.02, 34.77, 31.84,
                38.96, 39.94, 62.53, 45.49, 24.14, 53.25, 45.86, 48.00, 69.73, 59.29, 54.85, 53.06, 41.45, 39.41),
    "QW2-VL-7B": (65.11, 57.38, 40.94, 71.52, 45.24, 66.07, 47.16, 52.51, 48.95, 70.40, 71.61, 20.00, 33.44, 33.48,
                  37.75, 44.46, 61.07, 82.52, 39.31, 58.75, 44.04, 39.00, 62.41, 41.91, 51.68, 57.59, 30.21, 46.93),
    "QW2.5-VL-7B": (62.77, 62.91, 61.71, 80.32, 39.79, 52.54, 52.61, 63.49, 51.74, 68.40, 70.00, 20.73, 31.85, 28.21,
                    37.77, 45.60, 53.76, 70.98, 25.52, 60.75, 44.04, 40.00, 58.17, 55.40, 61.19, 62.72, 33.62, 39.80),
    "GPT-4o": (67.72, 71.17, 68.96, 78.96, 40.58, 58.75, 54.86, 63.49, 48.97, 67.20, 69.27, 31.87, 42.90, 41.84,
               49.58, 54.87, 54.96, 51.07, 23.54, 58.75, 58.79, 45.00, 70.60, 66.57, 53.61, 62.71, 43.83, 57.82),
    "QW2.5-VL-72B": (74.54, 72.45, 65.11, 80.58, 38.85, 58.78, 55.95, 70.87, 50.51, 73.20, 70.97, 21.45, 43.65, 41.19,
                     54.62, 55.19, 59.38, 54.46, 28.28, 71.00, 52.93, 47.00, 75.72, 54.60, 63.70, 65.71, 44.85, 54.85),
}  # fmt: skip
"""Per-task scores of five models, paper Table 10 (arXiv 2503.21505 v1), in `TABLE10_ORDER`."""

PUBLISHED_TOTAL = {"IVL2-8B": 48.58, "QW2-VL-7B": 49.40, "QW2.5-VL-7B": 50.75, "GPT-4o": 56.00, "QW2.5-VL-72B": 58.00}
GPT4O_REAGGREGATED = 55.88
"""The one model whose published total the question weighting misses (by 0.12), as the reference found too."""


def results(model: str) -> dict[str, TaskResult]:
    scores = dict(zip(TABLE10_ORDER, TABLE10[model], strict=True))
    return {name: TaskResult(name, QUESTIONS[name], 0.0, 0.0, 0.0, scores[name]) for name in QUESTIONS}


def test_question_counts_cover_the_28_tasks() -> None:
    assert set(QUESTIONS) == {task.name for task in TASKS}
    assert sum(QUESTIONS.values()) == 11_193


@pytest.mark.parametrize("model", ["IVL2-8B", "QW2-VL-7B", "QW2.5-VL-7B", "QW2.5-VL-72B"])
def test_total_reproduces_table10(model: str) -> None:
    assert round(total_score(results(model)), 2) == PUBLISHED_TOTAL[model]


def test_gpt4o_total_is_off_by_the_reference_amount() -> None:
    assert round(total_score(results("GPT-4o")), 2) == GPT4O_REAGGREGATED


def test_task_macro_mean_would_not_reproduce() -> None:
    macro = sum(TABLE10["QW2.5-VL-72B"]) / len(TABLE10_ORDER)
    assert round(macro, 2) == 57.16 != PUBLISHED_TOTAL["QW2.5-VL-72B"]


def test_aspect_means_are_question_weighted() -> None:
    aspects = aspect_scores(results("QW2.5-VL-72B"))
    assert round(aspects["Intention_Judgment"], 2) == 54.26
    assert round(aspects["Signal_Element_Relation"], 2) == 40.14
    assert round(aspects["Ego_Action_Reasoning"], 2) == 67.15
    assert list(aspects) == list(dict.fromkeys(task.aspect for task in TASKS))  # official order, 10 aspects


def test_task_score_weights() -> None:
    """100 * (w0 * others + w1 * accuracy + w2 * obey) with the task's official weights."""
    judge = [[Verdict(1.0, True, yes_no=True), Verdict(0.0, False, yes_no=True), Verdict(1.0, True)]]
    result = task_result(BY_NAME["VRU_Cutin"], judge)  # [0.7, 0.1, 0.2]: yes/no 0.5, descriptive 1.0, obey 2/3
    assert result.score == pytest.approx(70 * 0.5 + 10 * 1.0 + 20 * 2 / 3)
    only_yes_no = task_result(BY_NAME["Key_Obsturction_Detection"], [judge[0][:2]])
    assert only_yes_no.accuracy == 0  # the official fallback when there is no descriptive question
    boxes = [[Verdict(1.0, True, localisation=True, iou=0.8), Verdict(1.0, True)]]
    grounded = task_result(BY_NAME["Vehicle_Recognition"], boxes)  # mean IoU over the box question only
    assert grounded.others == 0.8 and grounded.score == pytest.approx(30 * 0.8 + 50 + 20)
