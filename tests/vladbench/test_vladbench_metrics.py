"""The metric regroups questions as VLMEvalKit does and never fails on a partial set of questions."""

from __future__ import annotations

import math

from drive_evals.vladbench.metrics import official_scores, task_results

LOCATE = "Where is the car located in the image? The output format should be [x1, y1, x2, y2]."
CLASSIFY = "What is the object in the red box? ['car', 'bus']. Note that no explantion is needed."


Row = tuple[dict[str, float], dict[str, object]]


def row(task: str, number: int, dindex: str, question: str, answer: str, **value: float) -> Row:
    metadata = {"task": task, "row": number, "dindex": dindex, "question": question, "answer": answer}
    return {"correct": 0.0, "obey": 0.0, "iou": 0.0, "paired": 0.0, **value}, metadata


def test_a_task_undefined_on_the_questions_present_is_left_out() -> None:
    rows = [
        row("Vehicle_Recognition", 1, "0", CLASSIFY, "car", correct=1.0, obey=1.0),  # no box question yet
        row("Weather", 2, "0", CLASSIFY, "car", correct=1.0, obey=1.0),
    ]
    scores = official_scores(task_results(rows))
    assert "Vehicle_Recognition" not in scores and scores["Weather"] == 1.0 and scores["total"] == 1.0


def test_no_question_scored_still_logs_the_headline_as_nan() -> None:
    """Inspect warns, and shows another metric, when the headline `total` is missing from a computation."""
    scores = official_scores(task_results([]))
    assert list(scores) == ["total"] and math.isnan(scores["total"])


def test_samples_split_where_dindex_changes_in_file_order() -> None:
    """Rows given out of order are put in file order; each change of dindex starts a sample (the pairing unit)."""
    question = "Analyze which lane corresponds to No.0 traffic sign."
    rows = [
        row("Sign_Sign_Relation", 4, "1", question, "1", correct=1.0, paired=1.0),
        row("Sign_Sign_Relation", 1, "0", question, "1", correct=0.0, paired=1.0),
        row("Sign_Sign_Relation", 2, "0", question, "1", correct=1.0, paired=1.0),
        row("Sign_Sign_Relation", 3, "1", question, "1", correct=1.0, paired=1.0),
    ]
    result = task_results(rows)["Sign_Sign_Relation"]
    # sample 0: untipped 0, tipped 1 -> counts (tipped higher); sample 1: both 1 -> counts; others = 2 * 2 / 4
    assert result.others == 1.0 and result.accuracy == 0.75
