"""DriveLMM-o1 end to end through `inspect_ai.eval()` with Inspect's own `mockllm` provider as both the model and
the judge, their replies from callables: the task's wiring (dataset, solver, judge role, scorer, metrics) with no
provider of this repository involved."""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_models import VALID_SCORES, valid_reply
from inspect_ai.model import ChatMessage
from inspect_runs import eval_in_process, metrics, mockllm

from drive_evals.data import demo_dir
from drive_evals.drivelmm_o1.records import TEST_FILE, load_records

SCORER = "drivelmm_o1_scorer"
ANSWER = "Reasoning Steps:\n1. The light ahead is red.\nFinal Answer: A"


def test_mockllm_model_and_judge(tmp_path: Path) -> None:
    # Its own Inspect cache: judgements are cached, and a cached one never reaches `judge`.
    env = {"INSPECT_CACHE_DIR": str(tmp_path / "cache"), "DRIVE_EVALS_CACHE": str(tmp_path / "derived")}
    judged: list[str] = []

    def judge(messages: list[ChatMessage]) -> str:
        judged.append(messages[-1].text)
        return valid_reply()

    log = eval_in_process(
        "drive_evals/drivelmm_o1",
        tmp_path / "logs",
        env,
        model=mockllm(lambda _: ANSWER),
        model_roles={"grader": mockllm(judge)},
        task_args={"data": "demo"},
    )
    records = load_records(demo_dir("drivelmm_o1") / TEST_FILE)
    assert log.samples is not None and len(log.samples) == len(records)
    assert all(sample.output.completion == ANSWER for sample in log.samples)
    assert len(judged) == len(records) and all(ANSWER in prompt for prompt in judged), "the judge reads each answer"
    values = metrics(log, SCORER)
    assert values["judge_coverage"] == 1.0
    criteria = [value for name, value in VALID_SCORES.items() if name != "Overall Score"]
    assert values["reasoning_score"] == pytest.approx(sum(criteria) / len(criteria) / 10)
