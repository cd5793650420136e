"""VLADBench's `total` is the mean of the per-question credits, whose bounds hold (`vladbench.credits`)."""

from __future__ import annotations

import math
import random

import pytest

from drive_evals.vladbench.credits import question_credits
from drive_evals.vladbench.metrics import TOTAL, official_scores, task_results
from drive_evals.vladbench.taxonomy import TASKS

LOCATE = "Where is the car located in the image? The output format should be [x1, y1, x2, y2]."
CLASSIFY = "What is the object in the red box? ['car', 'bus']. Note that no explantion is needed."

Row = tuple[dict[str, float], dict[str, object]]


def random_run(rng: random.Random, samples: int) -> list[Row]:
    """Samples (dindex) of 1-6 questions of random tasks, with every kind of question and verdict: box and class
    questions, yes/no and descriptive references, tip pairs, relation credits above 1, rows out of file order."""
    rows: list[Row] = []
    number = 0
    for dindex in range(samples):
        task = rng.choice(TASKS)
        for _ in range(rng.randint(1, 6)):
            number += 1
            question = LOCATE if task.scorer == "grounding" and rng.random() < 0.4 else CLASSIFY
            answer = rng.choice(["yes", "no", "car"]) if task.scorer == "judge" else "car"
            correct = rng.choice([0.0, 0.5, 1.0, 1.5 if task.scorer == "relation" else 1.0])
            value = {"correct": correct, "obey": float(rng.random() < 0.7), "iou": rng.random(), "paired": 1.0}
            metadata = {"task": task.name, "row": number, "dindex": str(dindex), "question": question, "answer": answer}
            rows.append((value, metadata))
    rng.shuffle(rows)
    return rows


@pytest.mark.parametrize("seed", range(20))
def test_the_mean_of_the_credits_is_the_official_total(seed: int) -> None:
    rows = random_run(random.Random(seed), 40)
    credits = [credit for credit in question_credits(rows) if credit is not None]
    total = official_scores(task_results(rows))[TOTAL]
    assert math.isclose(sum(c.value for c in credits) / len(credits), total, rel_tol=1e-12)
    assert all(0.0 <= c.value <= c.upper + 1e-12 for c in credits)


def test_a_task_undefined_on_its_questions_gets_no_credits() -> None:
    """A Grounding task without its box question: `total` leaves the task out, and so do the credits."""
    rows: list[Row] = [
        ({"correct": 1.0, "obey": 1.0}, {"task": "Vehicle_Recognition", "row": 1, "dindex": "0", "question": CLASSIFY,
                                         "answer": "car"}),
        ({"correct": 1.0, "obey": 0.0}, {"task": "Weather", "row": 2, "dindex": "1", "question": CLASSIFY,
                                         "answer": "car"}),
    ]  # fmt: skip
    first, second = question_credits(rows)
    assert first is None and second is not None
    assert math.isclose(second.value, official_scores(task_results(rows))[TOTAL]) and second.upper == 1.0


def test_a_box_question_carries_its_tasks_mean_iou() -> None:
    """One box question among four of a Grounding task: its IoU is the task's mean IoU, weighed by n / boxes = 4."""

    def question(number: int, text: str, iou: float = 0.0) -> Row:
        metadata: dict[str, object] = {"task": "Vehicle_Recognition", "row": number, "dindex": "0", "question": text}
        return {"correct": 0.0, "obey": 0.0, "iou": iou}, {**metadata, "answer": "car"}

    rows = [question(1, LOCATE, 0.5), *(question(i, CLASSIFY) for i in (2, 3, 4))]
    box = question_credits(rows)[0]
    assert box is not None and math.isclose(box.value, 0.3 * 0.5 * 4) and math.isclose(box.upper, 0.5 + 0.2 + 1.2)
