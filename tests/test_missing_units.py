"""Errored samples stay in the denominators: a unit without a reply counts as the official scorer counts a missing
reply (SURDS: invalid, 0), is counted (`missing_units`, DriveLMM-o1 `judge_coverage`), and `inspect eval-retry`
brings the headline back to the full run's value."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest
from fake_models import TEST_USAGE, image_digest, request_key, surds_answer_key
from inspect_ai import eval_retry
from inspect_ai.log import recompute_metrics
from inspect_ai.model import ChatMessage, ContentImage, GenerateConfig, ModelAPI, ModelOutput, modelapi
from inspect_ai.tool import ToolChoice, ToolInfo
from inspect_runs import QUIET, eval_in_process, metrics

from drive_evals._registry import BENCHMARKS
from drive_evals.data import open_snapshot
from drive_evals.report.write import write_report
from drive_evals.started_samples import missing_from_log, missing_warning
from drive_evals.surds.dataset import load_surds

FAILING_UNITS = 4
"""Of the demo's 16 depth units, these many fail (the first ones in order) on the first run."""


class Switch:
    """Whether the failing requests still fail: the retry turns it off."""

    failing = True


@modelapi(name="failing_oracle")
class FailingOracle(ModelAPI):
    """`failing_oracle/N`: answers SURDS demo prompts correctly, but fails the first N depth units' requests while
    `Switch.failing` (a provider error that Inspect does not retry)."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None, **_: Any) -> None:
        super().__init__(model_name, base_url, api_key, [], GenerateConfig())
        self.answers = surds_answer_key("demo")
        self.failing = _depth_keys(int(model_name))

    async def generate(
        self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        key = request_key(input)
        if Switch.failing and key in self.failing:
            raise RuntimeError("simulated provider failure")
        output = ModelOutput.from_content(model=self.model_name, content=self.answers[key])
        output.usage = TEST_USAGE
        return output


def _depth_keys(count: int) -> set[tuple[str, str]]:
    """Request keys (prompt, image digest) of the first `count` depth units' prompts."""
    samples = load_surds(open_snapshot("demo", "surds"), ["depth"], "metadata").dataset[:count]
    keys: set[tuple[str, str]] = set()
    for sample in samples:
        assert not isinstance(sample.input, str)
        image = next(part.image for m in sample.input for part in m.content if isinstance(part, ContentImage))
        keys.update((prompt, image_digest(image)) for prompt in (sample.metadata or {})["prompts"])
    return keys


def test_surds_errored_units_count_as_missing_replies_until_retried(tmp_path: Path) -> None:
    Switch.failing = True
    task_args = {"data": "demo", "subsets": "depth"}
    model = f"failing_oracle/{FAILING_UNITS}"
    log = eval_in_process("drive_evals/surds", tmp_path, model=model, task_args=task_args, fail_on_error=0.5)
    assert log.samples is not None and sum(s.error is not None for s in log.samples) == FAILING_UNITS
    found = metrics(log, "surds_scorer")
    assert found["overall"] == pytest.approx(0.75)  # 12 correct of 16 planned; 1.0 before this change
    assert found["depth"] == pytest.approx(0.75)
    assert found["missing_units"] == FAILING_UNITS
    assert found["valid_rate"] == pytest.approx(0.75)
    assert found["overall_complete_case"] == pytest.approx(1.0)
    assert f"{FAILING_UNITS} of 16 samples errored" in (missing_warning(log) or "")

    # Recomputed from the log alone (as `drive-evals merge-shards` does), the errored samples still count.
    with missing_from_log(log):
        recompute_metrics(log)
    assert metrics(log, "surds_scorer")["overall"] == pytest.approx(0.75)
    # The report counts them too: a `missing` column, and the same planned-unit headline.
    write_report(tmp_path, tmp_path / "report", BENCHMARKS)
    with (tmp_path / "report" / "surds-scores.csv").open(encoding="utf-8") as handle:
        (row,) = [row for row in csv.DictReader(handle) if row["source"] == "log"]
    assert (int(row["units"]), int(row["missing"])) == (16, FAILING_UNITS)
    assert float(row["overall"]) == pytest.approx(0.75) and float(row["depth_valid_rate"]) == pytest.approx(0.75)

    Switch.failing = False
    (retried,) = eval_retry(log.location, log_dir=str(tmp_path / "retry"), **QUIET)
    assert retried.status == "success"
    found = metrics(retried, "surds_scorer")
    assert found["overall"] == pytest.approx(1.0)
    assert "missing_units" not in found  # logged only when some are missing
    assert "overall_complete_case" not in found
    assert missing_warning(retried) is None


@modelapi(name="failing_answerer")
class FailingAnswerer(ModelAPI):
    """`failing_answerer/N`: answers DriveLMM-o1 questions with a fixed reply, but fails the first N distinct
    requests it sees (one per sample) while `Switch.failing`."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None, **_: Any) -> None:
        super().__init__(model_name, base_url, api_key, [], GenerateConfig())
        self.limit = int(model_name)
        self.failed: set[str] = set()

    async def generate(
        self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        key = input[-1].text
        if Switch.failing and (key in self.failed or len(self.failed) < self.limit):
            self.failed.add(key)
            raise RuntimeError("simulated provider failure")
        output = ModelOutput.from_content(model=self.model_name, content="Reasoning Steps: 1. x\nFinal Answer: A) go")
        output.usage = TEST_USAGE
        return output


def test_drivelmm_o1_coverage_counts_errored_samples(tmp_path: Path) -> None:
    Switch.failing = True
    env = {"INSPECT_CACHE_DIR": str(tmp_path / "cache"), "DRIVE_EVALS_CACHE": str(tmp_path / "derived")}
    options = {"model": f"failing_answerer/{FAILING_UNITS}", "model_roles": {"grader": "chance/random"}}
    log = eval_in_process(
        "drive_evals/drivelmm_o1", tmp_path / "logs", env, task_args={"data": "demo"}, fail_on_error=0.5, **options
    )
    assert log.samples is not None
    planned = len(log.samples)
    assert sum(s.error is not None for s in log.samples) == FAILING_UNITS
    found = metrics(log, "drivelmm_o1_scorer")
    assert found["judge_coverage"] == pytest.approx((planned - FAILING_UNITS) / planned)  # 1.0 before this change
    assert found["missing_units"] == FAILING_UNITS

    Switch.failing = False
    (retried,) = eval_retry(log.location, log_dir=str(tmp_path / "retry"), **QUIET)
    found = metrics(retried, "drivelmm_o1_scorer")
    assert found["judge_coverage"] == 1.0 and "missing_units" not in found  # logged only when some are missing
