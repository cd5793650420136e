"""DriveLMM-o1 end to end on the demo data: in-process, except re-judging through `inspect score` as subprocesses
(slow tier). The task's command-line smoke test is in tests/test_cli_smoke.py."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log
from inspect_runs import eval_in_process, metrics, only_log, run_inspect

from drive_evals.data import demo_dir
from drive_evals.drivelmm_o1.records import CAMERAS, TEST_FILE, load_records

SCORER = "drivelmm_o1_scorer"
TASK = "drive_evals/drivelmm_o1"
DEMO = {"data": "demo"}


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"INSPECT_CACHE_DIR": str(tmp_path / "cache"), "DRIVE_EVALS_CACHE": str(tmp_path / "derived")}


def demo_records() -> int:
    return len(load_records(demo_dir("drivelmm_o1") / TEST_FILE))


def test_offline_chance_pipeline(tmp_path: Path, env: dict[str, str]) -> None:
    roles = {"grader": "chance/random"}
    log = eval_in_process(TASK, tmp_path / "logs", env, model="chance/random", model_roles=roles, task_args=DEMO)
    values = metrics(log, SCORER)
    assert values["judge_coverage"] == 1.0
    assert 0.1 <= values["reasoning_score"] <= 1.0
    assert 0.0 <= values["mcq_accuracy"] <= 1.0
    assert log.samples is not None and len(log.samples) == demo_records()
    value = log.samples[0].scores[SCORER].value  # type: ignore[index]
    assert isinstance(value, dict) and [k for k in value if k.startswith("reasoning")] == ["reasoning_score"]
    meta = log.eval.metadata or {}
    assert meta["image_mode"] == "grid" and meta["cell_size"] == [800, 450]
    assert meta["frames"] == len({s.metadata["frame"] for s in log.samples})
    assert log.eval.model_roles is not None and "grader" in log.eval.model_roles
    assert (Path(env["DRIVE_EVALS_CACHE"]) / "grids").is_dir()


def test_failed_judge_is_counted_not_dropped(tmp_path: Path, env: dict[str, str]) -> None:
    roles = {"grader": "grader/always-invalid"}
    log = eval_in_process(TASK, tmp_path / "logs", env, model="chance/random", model_roles=roles, task_args=DEMO)
    values = metrics(log, SCORER)
    assert values["judge_coverage"] == 0.0
    assert math.isnan(values["reasoning_score"])
    assert values["mcq_items"] == 0.0, "official MCQ accuracy only counts judged items"
    assert log.samples is not None
    score = log.samples[0].scores[SCORER]  # type: ignore[index]
    assert score.reason == "grader_failed"
    panel = score.metadata["panel"]  # type: ignore[index]
    assert panel[0]["raw_replies"] == ["{not json"] * 3 and "invalid_json" in panel[0]["failure"]


def test_panel_of_two_judges(tmp_path: Path, env: dict[str, str]) -> None:
    panel = {"grader": ["grader/valid", "grader/low"]}
    log = eval_in_process(TASK, tmp_path / "logs", env, model="chance/random", model_roles=panel, task_args=DEMO)
    values = metrics(log, SCORER)
    assert values["judge0_reasoning_score"] == pytest.approx(82 / 120)
    assert values["judge1_reasoning_score"] == pytest.approx(0.2)
    assert values["reasoning_score"] == pytest.approx((82 / 120 + 0.2) / 2)
    assert "alpha_relevance" in values


@pytest.mark.slow
def test_inspect_score_rejudges_a_log(tmp_path: Path, env: dict[str, str]) -> None:
    log_dir = tmp_path / "logs"
    args = ["eval", TASK, "--model", "chance/random", "--model-role", "grader=grader/always-invalid", "-T", "data=demo"]
    run_inspect(args, log_dir, env)
    first = only_log(log_dir)
    rescored = tmp_path / "rescored.eval"
    calls = tmp_path / "calls.jsonl"
    rescore = [
        "score",
        first.location,
        "--scorer",
        "drive_evals/drivelmm_o1_scorer",
        "--model-role",
        "grader=grader/valid",
        "--action",
        "overwrite",
        "--output-file",
        str(rescored),
    ]
    run_inspect(rescore, tmp_path / "score-logs", {**env, "FAKE_MODEL_CALLS": str(calls)})
    values = metrics(read_eval_log(str(rescored)), SCORER)
    assert values["judge_coverage"] == 1.0
    assert values["reasoning_score"] == pytest.approx(82 / 120)
    first_calls = len(calls.read_text().splitlines())
    assert first_calls == demo_records()
    again = [*rescore[:-1], str(tmp_path / "rescored-again.eval")]
    run_inspect(again, tmp_path / "score-logs", {**env, "FAKE_MODEL_CALLS": str(calls)})
    assert len(calls.read_text().splitlines()) == first_calls, "re-scoring again must reuse cached judgements"


def test_views_mode_and_lidar(tmp_path: Path, env: dict[str, str]) -> None:
    task_args = {**DEMO, "judge": False, "image_mode": "views", "lidar": True}
    log = eval_in_process(TASK, tmp_path / "logs", env, model="chance/random", task_args=task_args, limit=2)
    assert log.samples is not None
    content = log.samples[0].input[0].content  # type: ignore[union-attr]
    texts = [part.text for part in content if part.type == "text"]  # type: ignore[union-attr]
    assert texts[1:7] == [f"{camera}:" for camera in CAMERAS]
    assert texts[7].startswith("LIDAR_TOP bird's-eye view")
    assert sum(part.type == "image" for part in content) == 7  # type: ignore[union-attr]
    meta = log.eval.metadata or {}
    assert meta["lidar"] is True and meta["image_mode"] == "views"
    assert metrics(log, SCORER)["judge_coverage"] == 0.0
