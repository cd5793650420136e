"""Rebuilt replies are counted: the log metric `replies_rebuilt` (both tasks, only when some are) and the report.

A reply is rebuilt from Inspect's parts only where no raw response exists; an in-process provider whose output
carries a `<think>` block Inspect split off (as the OpenAI-compatible path does) is such a case, so these runs
need no server. Before `replies_rebuilt` existed each sample named its rebuilt replies, and nothing counted them.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from fake_models import TEST_USAGE, image_digest, request_key, surds_answer_key
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ContentImage,
    ContentReasoning,
    ContentText,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo
from inspect_runs import eval_in_process, metrics

from drive_evals._registry import BENCHMARKS
from drive_evals.data import open_snapshot
from drive_evals.replies import NO_CALL, REPLIES_REBUILT, REPLY_REBUILT_KEY, THINK_TAG_SOURCE
from drive_evals.report.write import write_report
from drive_evals.surds.dataset import load_surds

SPLIT_UNITS = 3
"""Of the demo's 16 depth units, these many (the first in order) get split replies."""
SURDS_SCORER = "surds_scorer"
DRIVELMM_O1_SCORER = "drivelmm_o1_scorer"
THINKING = "I know this one."
DRIVELMM_O1_REPLY = "Reasoning Steps: 1. x\nFinal Answer: A) go"


def split_output(model: str, text: str) -> ModelOutput:
    """An output whose `<think>` block Inspect moved into a reasoning part: the raw text is not recoverable."""
    message = ChatMessageAssistant(
        content=[ContentReasoning(reasoning=THINKING, internal=THINK_TAG_SOURCE), ContentText(text=text)], model=model
    )
    output = ModelOutput.from_message(message)
    output.usage = TEST_USAGE
    return output


@modelapi(name="split_oracle")
class SplitOracle(ModelAPI):
    """`split_oracle/N`: answers SURDS demo prompts correctly; the first N depth units' replies come split."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None, **_: Any) -> None:
        super().__init__(model_name, base_url, api_key, [], GenerateConfig())
        self.answers = surds_answer_key("demo")
        self.split = depth_keys(int(model_name))

    async def generate(
        self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        key = request_key(input)
        answer = self.answers[key]
        if key in self.split:
            return split_output(self.model_name, answer.split("</think>", 1)[1])
        output = ModelOutput.from_content(model=self.model_name, content=answer)
        output.usage = TEST_USAGE
        return output


def depth_keys(count: int) -> set[tuple[str, str]]:
    """Request keys (prompt, image digest) of the first `count` demo depth units (one prompt each)."""
    samples = load_surds(open_snapshot("demo", "surds"), ["depth"], "metadata").dataset[:count]
    keys: set[tuple[str, str]] = set()
    for sample in samples:
        assert not isinstance(sample.input, str)
        image = next(part.image for m in sample.input for part in m.content if isinstance(part, ContentImage))
        keys.update((prompt, image_digest(image)) for prompt in (sample.metadata or {})["prompts"])
    return keys


@modelapi(name="split_answerer")
class SplitAnswerer(ModelAPI):
    """`split_answerer/any`: every DriveLMM-o1 reply comes split (the judge is another model)."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None, **_: Any) -> None:
        super().__init__(model_name, base_url, api_key, [], GenerateConfig())

    async def generate(
        self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        return split_output(self.model_name, DRIVELMM_O1_REPLY)


def test_surds_counts_rebuilt_replies_in_the_log_and_the_report(tmp_path: Path) -> None:
    task_args = {"data": "demo", "subsets": "depth"}
    raw = eval_in_process("drive_evals/surds", tmp_path / "raw", model="split_oracle/0", task_args=task_args)
    assert REPLIES_REBUILT not in metrics(raw, SURDS_SCORER), "logged only when some reply was rebuilt"
    log = eval_in_process(
        "drive_evals/surds", tmp_path / "split", model=f"split_oracle/{SPLIT_UNITS}", task_args=task_args
    )
    assert log.samples is not None
    notes = [(s.scores[SURDS_SCORER].metadata or {}).get(REPLY_REBUILT_KEY) for s in log.samples if s.scores]
    assert sorted(notes, key=bool) == [None] * (len(log.samples) - SPLIT_UNITS) + [{"1": NO_CALL}] * SPLIT_UNITS
    found = metrics(log, SURDS_SCORER)
    assert found[REPLIES_REBUILT] == SPLIT_UNITS
    assert found["depth"] == 1.0, "the rebuild puts the think block back before the answer: the same score here"

    write_report(tmp_path, tmp_path / "report", BENCHMARKS)
    with (tmp_path / "report" / "surds-scores.csv").open(encoding="utf-8") as handle:
        rows = [row for row in csv.DictReader(handle) if row["source"] == "log"]
    assert sorted(int(row["rebuilt"]) for row in rows) == [0, SPLIT_UNITS]
    markdown = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    (note,) = [line for line in markdown.splitlines() if "rebuilt: units whose reply was rebuilt" in line]
    assert f"as the provider returned it: split_oracle/{SPLIT_UNITS} {SPLIT_UNITS}. No raw response" in note


def test_drivelmm_o1_counts_rebuilt_replies(tmp_path: Path) -> None:
    options = {"model": "split_answerer/any", "model_roles": {"grader": "chance/random"}}
    env = {"INSPECT_CACHE_DIR": str(tmp_path / "cache"), "DRIVE_EVALS_CACHE": str(tmp_path / "derived")}
    log = eval_in_process("drive_evals/drivelmm_o1", tmp_path / "logs", env, task_args={"data": "demo"}, **options)
    assert log.samples is not None
    found = metrics(log, DRIVELMM_O1_SCORER)
    assert found[REPLIES_REBUILT] == len(log.samples)
    for sample in log.samples:
        assert sample.scores is not None
        assert (sample.scores[DRIVELMM_O1_SCORER].metadata or {})[REPLY_REBUILT_KEY] == {"1": NO_CALL}
        assert sample.store["reply_text"] == f"<think>\n{THINKING}\n</think>\n{DRIVELMM_O1_REPLY}"
