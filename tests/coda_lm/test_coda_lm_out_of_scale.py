"""A judge that rates outside 1-10 (`[[100]]`, counted as given by the official parser) breaks no table: the
official mean keeps it, no interval or paired test is printed where no method holds, and the report is written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fake_models import TEST_USAGE
from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput, modelapi
from inspect_ai.tool import ToolChoice, ToolInfo
from inspect_runs import eval_in_process, metrics

from drive_evals._registry import BENCHMARKS
from drive_evals.report.write import write_report


@modelapi(name="coda_generous_judge")
class GenerousJudge(ModelAPI):
    """Rates the general perception of image 0007 `[[100]]`, everything else `[[5]]`."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None, **_: Any) -> None:
        super().__init__(model_name, base_url, api_key, [], GenerateConfig())

    async def generate(
        self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        generous = len(input) == 6 and "A yellow excavator works in the lane ahead." in input[-1].text
        output = ModelOutput.from_content(model=self.model_name, content=f"Rating: [[{100 if generous else 5}]]")
        output.usage = TEST_USAGE
        return output


def test_out_of_scale_rating_in_the_report(tmp_path: Path) -> None:
    env = {"INSPECT_CACHE_DIR": str(tmp_path / "cache"), "DRIVE_EVALS_CACHE": str(tmp_path / "derived")}
    for seed in (0, 1):  # two models judged by the same judge: comparable, so the paired test is tried
        log = eval_in_process(
            "drive_evals/coda_lm",
            tmp_path / "logs" / str(seed),
            env,
            model="chance/random",
            model_args={"seed": seed},
            model_roles={"grader": "coda_generous_judge/x"},
            task_args={"data": "demo"},
        )
        if seed == 0:
            found = metrics(log, "coda_lm_scorer")
            assert found["general_perception"] == pytest.approx((10.0 + 5 * 0.5) / 6)
            assert found["out_of_range_count"] == 1 and "general_perception_stderr" not in found
            assert found["strict_general_perception"] == pytest.approx(5 * 0.5 / 6)
    write_report(tmp_path / "logs", tmp_path / "out", BENCHMARKS)
    report = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "208.3 (no CI)" in report  # the official mean as the parser reads it, x100
    assert "general_perception not compared: a unit value lies outside [0, 1]" in report
