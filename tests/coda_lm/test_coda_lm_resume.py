"""Errored CODA-LM samples: outside the official mean (as the official scripts leave a missing item out), 0 in the
strict score, counted; recomputed from the log alone they still count; `inspect eval-retry` brings every number
back to the full run's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fake_models import TEST_USAGE
from inspect_ai import eval_retry
from inspect_ai.log import recompute_metrics
from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput, modelapi
from inspect_ai.tool import ToolChoice, ToolInfo
from inspect_runs import QUIET, eval_in_process, metrics

from drive_evals.coda_lm.prompts import MODEL_PROMPTS
from drive_evals.started_samples import missing_from_log

ANSWER = "A construction vehicle blocks the lane; slow down."


class Switch:
    failing = True


@modelapi(name="coda_failing")
class FailingRegions(ModelAPI):
    """Answers every CODA-LM question, but fails every region question while `Switch.failing`."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None, **_: Any) -> None:
        super().__init__(model_name, base_url, api_key, [], GenerateConfig())

    async def generate(
        self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        if Switch.failing and input[-1].text == MODEL_PROMPTS["region_perception"]:
            raise RuntimeError("simulated provider failure")
        output = ModelOutput.from_content(model=self.model_name, content=ANSWER)
        output.usage = TEST_USAGE
        return output


def test_errored_items_count_until_retried(tmp_path: Path) -> None:
    Switch.failing = True
    env = {"INSPECT_CACHE_DIR": str(tmp_path / "cache"), "DRIVE_EVALS_CACHE": str(tmp_path / "derived")}
    options = {"model": "coda_failing/x", "model_roles": {"grader": "chance/random"}}
    log = eval_in_process(
        "drive_evals/coda_lm", tmp_path / "logs", env, task_args={"data": "demo"}, fail_on_error=0.6, **options
    )
    assert log.samples is not None and sum(s.error is not None for s in log.samples) == 9
    found = metrics(log, "coda_lm_scorer")
    assert found["missing_samples"] == 9 and found["judge_failed"] == 9 and found["dropped"] == 9
    assert found["strict_region_perception"] == 0.0
    assert found["region_perception"] != found["region_perception"]  # NaN: no region rated, no final either
    assert found["final_score"] != found["final_score"]
    general = found["general_perception"]
    with missing_from_log(log):
        recompute_metrics(log)
    assert metrics(log, "coda_lm_scorer")["missing_samples"] == 9

    Switch.failing = False
    with pytest.MonkeyPatch.context() as patch:
        for name, value in env.items():
            patch.setenv(name, value)
        (retried,) = eval_retry(log.location, log_dir=str(tmp_path / "retry"), **QUIET)
    assert retried.status == "success"
    found = metrics(retried, "coda_lm_scorer")
    assert found["missing_samples"] == 0 and found["dropped"] == 1  # the unmapped region only
    assert found["general_perception"] == general and found["final_score"] == found["final_score"]
