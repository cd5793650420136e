"""DriveBench end to end on the demo data, in process: chance model and judge, a paired design, judge failures,
and the judge's request byte for byte."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from inspect_ai.log import EvalSample
from inspect_ai.model import ChatMessage
from inspect_runs import eval_in_process, metrics, mockllm

from drive_evals.drivebench.language import language_scores
from drive_evals.drivebench.prompts import judge_message

TASK = "drive_evals/drivebench"
SCORER = "drivebench_scorer"


def mcq_verdicts(sample: EvalSample) -> tuple[float, float]:
    """(official, corrected) MCQ correctness of one sample."""
    assert sample.scores is not None
    value = sample.scores[SCORER].value
    assert isinstance(value, dict)
    return float(value["mcq_correct"]), float(value["mcq_correct_corrected"])


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"INSPECT_CACHE_DIR": str(tmp_path / "cache"), "DRIVE_EVALS_CACHE": str(tmp_path / "derived")}


def test_chance_run_with_a_paired_design(tmp_path: Path, env: dict[str, str]) -> None:
    args = {"data": "demo", "setting": "clean,text_only,fog"}
    log = eval_in_process(
        TASK, tmp_path / "logs", env, model="chance/random", model_roles={"grader": "chance/random"}, task_args=args
    )
    values = metrics(log, SCORER)
    assert log.samples is not None and len(log.samples) == 45
    assert values["judge_coverage"] == 1.0
    assert 0.0 <= values["gpt_score"] <= 1.0 and 0.0 <= values["mcq_accuracy"] <= 1.0
    for name in ("text_only_vs_clean_gpt_score", "fog_vs_clean_gpt_score", "fog_vs_clean_mcq_accuracy"):
        assert not math.isnan(values[name]), name
    meta = log.eval.metadata or {}
    assert meta["settings"] == ["clean", "text_only", "fog"] and meta["buckets"]["prediction yes/no"] == 2
    assert meta["visual_description"]["source"] == "beside the question file"
    assert log.eval.config is not None
    task_config = log.plan.config if log.plan else None
    assert task_config is not None and task_config.temperature == 0.2 and task_config.top_p == 0.2
    assert task_config.max_tokens == 512


def test_judge_receives_the_official_message(tmp_path: Path, env: dict[str, str]) -> None:
    seen: list[str] = []

    def grade(messages: list[ChatMessage]) -> str:
        seen.append(messages[-1].text)
        return "Total Score: 50"

    replies: dict[str, str] = {}

    def answer(messages: list[ChatMessage]) -> str:
        reply = f"Reply number {len(replies)}: B. Turn left, a car."
        replies[messages[-1].text] = reply
        return reply

    log = eval_in_process(
        TASK,
        tmp_path / "logs",
        env,
        model=mockllm(answer),
        model_roles={"grader": mockllm(grade)},
        task_args={"data": "demo"},
    )
    assert log.samples is not None and len(seen) == len(log.samples) == 15
    expected = set()
    for sample in log.samples:
        meta = sample.metadata
        reply = sample.scores[SCORER].metadata.get("pred") or next(  # type: ignore[union-attr,index]
            r for text, r in replies.items() if text.endswith(meta["question"])
        )
        expected.add(
            judge_message(
                meta["task"], meta["kind"], meta["question"], meta["answer"], reply, meta["judge_description"]
            )
        )
    assert set(seen) == expected
    values = metrics(log, SCORER)
    assert values["gpt_score"] == pytest.approx(0.5)
    planning = [s for s in log.samples if s.metadata["bucket"] == "planning VQA"]
    replies_and_golds = [(s.scores[SCORER].metadata["pred"], s.metadata["answer"]) for s in planning]  # type: ignore[index]
    official = language_scores([p for p, _ in replies_and_golds], [g for _, g in replies_and_golds])
    assert values["planning_vqa_cider"] == pytest.approx(official["cider"])
    assert values["planning_vqa_bleu_1"] == pytest.approx(official["bleu_1"]) and len(planning) == 6
    # Every reply chooses B and contains the article "a": the official parser reads A, the corrected one B.
    verdicts = {str(s.id): mcq_verdicts(s) for s in log.samples if s.metadata["bucket"] == "perception MCQ"}
    assert verdicts == {"drivebench-7e4c32-q2": (1.0, 0.0), "drivebench-c2b4f6-q2": (0.0, 1.0)}


def test_failed_judge_is_counted_not_dropped(tmp_path: Path, env: dict[str, str]) -> None:
    log = eval_in_process(
        TASK,
        tmp_path / "logs",
        env,
        model="chance/random",
        model_roles={"grader": mockllm(lambda messages: "I refuse to grade.")},
        task_args={"data": "demo", "judge_attempts": 2},
    )
    values = metrics(log, SCORER)
    assert values["judge_coverage"] == 0.0 and math.isnan(values["gpt_score"])
    assert not math.isnan(values["mcq_accuracy"]), "MCQ accuracy does not depend on the judge"
    assert log.samples is not None
    score = log.samples[0].scores[SCORER]  # type: ignore[index]
    assert score.reason == "grader_failed"
    assert score.metadata["judges"][0]["raw_replies"] == ["I refuse to grade."] * 2  # type: ignore[index]


def test_judge_off_needs_no_descriptions(tmp_path: Path, env: dict[str, str]) -> None:
    log = eval_in_process(
        TASK, tmp_path / "logs", env, model="chance/random", task_args={"data": "demo", "judge": False}
    )
    values = metrics(log, SCORER)
    assert math.isnan(values["judge_coverage"]) and not math.isnan(values["mcq_accuracy"])
    assert log.results is not None
