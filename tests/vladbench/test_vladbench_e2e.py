"""VLADBench end to end on the demo data, in-process: chance (recomputed independently), a perfect model, and the
prompt as VLMEvalKit sends it."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
import vladbench_official as vk
from fake_models import image_digest
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, ChatMessageUser, ContentImage, ContentText
from inspect_runs import eval_in_process, metrics, mockllm

from drive_evals.data import demo_dir
from drive_evals.data_warnings import DataWarnings
from drive_evals.vladbench.records import TSV_FILE, load_records
from drive_evals.vladbench.rules import gold_box
from drive_evals.vladbench.taxonomy import BY_NAME, TASKS, parse_tasks

SCORER = "vladbench_scorer"
TASK = "drive_evals/vladbench"
DEMO = {"data": "demo"}


def demo_records() -> dict[tuple[str, str], tuple[str, str, tuple[float, float] | None]]:
    """(question text, first image digest) -> (task, answer, dimension) over the demo (tasks share questions)."""
    root = demo_dir("vladbench")
    records = load_records(root / TSV_FILE, parse_tasks(None), DataWarnings("test"))
    return {(r.question, image_digest(str(root / r.images[0]))): (r.task, r.answer, r.dimension) for r in records}


def perfect_reply(messages: list[ChatMessage]) -> str:
    """The reference, boxes on VLMEvalKit's 0-1000 grid; the request must be the images and then the question."""
    (message,) = messages
    assert isinstance(message, ChatMessageUser) and isinstance(message.content, list)
    *parts, question = message.content
    images = [part for part in parts if isinstance(part, ContentImage)]
    assert images and len(images) == len(parts) and isinstance(question, ContentText)
    task, answer, dimension = demo_records()[(question.text, image_digest(images[0].image))]
    if BY_NAME[task].scorer == "grounding" and answer.startswith("[") and dimension is not None:
        return str(gold_box(answer, dimension, "norm1000"))
    return answer


def test_perfect_model(tmp_path: Path) -> None:
    """Every task scores 1, except Risk_Prediction: its verbatim option holds `;`, which fails VLMEvalKit's obey
    check (70 * 1 + 10 * 1 + 20 * 0.5 = 90)."""
    log = eval_in_process(TASK, tmp_path / "logs", model=mockllm(perfect_reply), task_args=DEMO)
    values = metrics(log, SCORER)
    for task in TASKS:
        expected = 0.9 if task.name == "Risk_Prediction" else 1.0
        assert values[task.name] == pytest.approx(expected), task.name
    assert 0.99 < values["total"] < 1.0
    assert log.eval.metadata is not None and log.eval.metadata["data"]["source"] == "demo"


def xlsx_round_trip(replies: list[str], folder: Path) -> list[object]:
    """VLMEvalKit's prediction column written as `dump_xlsx` writes it and read back as `load_xlsx` reads it."""
    path = folder / "model_VLADBench.xlsx"
    options = {"options": {"strings_to_formulas": False}}
    with pd.ExcelWriter(path, engine="xlsxwriter", engine_kwargs=options) as writer:
        pd.DataFrame({"prediction": replies}).to_excel(writer, index=False)
    return [math.nan if pd.isna(value) else str(value) for value in pd.read_excel(path)["prediction"]]


def official_numbers(log: EvalLog, folder: Path) -> tuple[dict[str, float], float]:
    """Regroup the logged replies as VLMEvalKit does, read them back from its xlsx file, and score them with the
    restated official functions: each task's score and the total."""
    assert log.samples is not None
    samples = sorted(log.samples, key=lambda s: s.metadata["row"])
    predictions = xlsx_round_trip([str(sample.store["reply_text"]) for sample in samples], folder)
    by_task: dict[str, list[dict[str, list[object]]]] = {}
    for sample, prediction in zip(samples, predictions, strict=True):
        meta = sample.metadata
        groups = by_task.setdefault(meta["task"], [])
        if not groups or groups[-1]["dindex"][0] != meta["dindex"]:
            groups.append(
                {"dindex": [meta["dindex"]], "questions": [], "reference": [], "prediction": [], "dimension": []}
            )
        groups[-1]["questions"].append(meta["question"])
        groups[-1]["reference"].append(meta["answer"])
        groups[-1]["prediction"].append(prediction)
        groups[-1]["dimension"].append(meta["dimension"])
    functions = {"general": vk.general, "relation": vk.relation, "road_change": vk.road_change,
                 "road_speed": vk.road_speed, "judge": vk.judge}  # fmt: skip
    weighted = questions = 0.0
    scores: dict[str, float] = {}
    for task in TASKS:
        groups = by_task[task.name]
        if task.scorer == "grounding":
            result = vk.grounding(groups, box_format="norm1000")
        else:
            result = functions[task.scorer](groups)
        scores[task.name] = vk.composite(result, task.weights) / 100
        weighted += result[0] * scores[task.name]
        questions += result[0]
    return scores, weighted / questions


def test_chance_total_matches_the_restated_official_scorer(tmp_path: Path) -> None:
    log = eval_in_process(TASK, tmp_path / "logs", model="chance/random", task_args=DEMO)
    assert log.samples is not None and len(log.samples) == len(demo_records())
    values = metrics(log, SCORER)
    scores, total = official_numbers(log, tmp_path)
    for task in TASKS:
        assert values[task.name] == pytest.approx(scores[task.name], abs=1e-12), task.name
    assert values["total"] == pytest.approx(total, abs=1e-12)


def read_back_reply(messages: list[ChatMessage]) -> str:
    """Replies whose xlsx read-back differs from the text: pandas missing-value strings where the official scorer
    reads them (option questions), carriage returns where the number and pair rules read the `_x000D_` left."""
    text = messages[0].text
    perfect = perfect_reply(messages)
    task = demo_records()[(_question(messages), _digest(messages))][0]
    kind = BY_NAME[task].scorer
    pick = sum(map(ord, text)) % 4
    if kind in ("general", "judge", "road_change"):
        return ("None", "N/A", "nan", perfect + "\r")[pick]
    if kind in ("relation", "road_speed"):
        return (perfect + "\r", "\r" + perfect, perfect + "\r\n", perfect)[pick]
    return perfect


def _question(messages: list[ChatMessage]) -> str:
    question = messages[0].content[-1]
    assert isinstance(question, ContentText)
    return question.text


def _digest(messages: list[ChatMessage]) -> str:
    image = messages[0].content[0]
    assert isinstance(image, ContentImage)
    return image_digest(image.image)


def test_replies_are_read_back_as_from_vlmevalkit_xlsx(tmp_path: Path) -> None:
    """`None`, `N/A`, `nan` and carriage returns: every task and the total as VLMEvalKit scores its xlsx file."""
    log = eval_in_process(TASK, tmp_path / "logs", model=mockllm(read_back_reply), task_args=DEMO)
    values = metrics(log, SCORER)
    scores, total = official_numbers(log, tmp_path)
    for task in TASKS:
        assert values[task.name] == pytest.approx(scores[task.name], abs=1e-12), task.name
    assert values["total"] == pytest.approx(total, abs=1e-12)
    assert values["total"] < 0.9  # the read-back costs credit: the replies are the references otherwise


def test_task_selection_by_aspect(tmp_path: Path) -> None:
    log = eval_in_process(
        TASK, tmp_path / "logs", model="chance/random", task_args={**DEMO, "tasks": "Behavior_Understanding"}
    )
    values = metrics(log, SCORER)
    assert {"total", "Behavior_Understanding", "Vehicle_Bahavior", "VRU_Bahavior"} <= set(values)
    assert "Traffic_Light" not in values


def test_errored_questions_count_as_failed_calls(tmp_path: Path) -> None:
    """A question whose call fails stays in its task's denominator with no credit, as VLMEvalKit scores its failure
    text; `missing_units` counts it."""

    def reply(messages: list[ChatMessage]) -> str:
        if "What is the weather in the image?" in messages[0].text:
            raise RuntimeError("simulated provider failure")
        return perfect_reply(messages)

    log = eval_in_process(TASK, tmp_path / "logs", model=mockllm(reply), task_args=DEMO, fail_on_error=False)
    values = metrics(log, SCORER)
    assert values["missing_units"] == 1 and values["Weather"] == 0.0
    # 58 questions at 100, Risk_Prediction's 2 at 90, the failed one at 0
    assert values["total"] == pytest.approx((58 * 1.0 + 2 * 0.9) / 61)


def test_a_limit_run_without_every_planned_task_has_no_total(tmp_path: Path) -> None:
    """`--limit 5` (spread order: five tasks' first questions) logs the tasks it has and no `total`; the same run
    planning only those five tasks has one."""
    log = eval_in_process(TASK, tmp_path / "limited", model="chance/random", task_args=DEMO, limit=5)
    values = metrics(log, SCORER)
    assert log.samples is not None
    asked = sorted({sample.metadata["task"] for sample in log.samples})
    assert len(asked) == 5 and all(not math.isnan(values[task]) for task in asked)
    assert math.isnan(values["total"]), "a total over 5 of 28 planned tasks"
    planned = eval_in_process(TASK, tmp_path / "planned", model="chance/random", task_args={**DEMO, "tasks": asked})
    assert not math.isnan(metrics(planned, SCORER)["total"])
