"""Test-only model providers with known behaviour, for end-to-end runs whose scores are known in advance.

`oracle/<data>` answers every SURDS prompt correctly (xy2d: the centre of the gold box), looking the answer up by
prompt text and image bytes. `unclosed/any` opens `<answer>` and never closes it. `grader/<script>` is a judge
whose replies follow a named script (see `GRADER_SCRIPTS`). All report usage, so Inspect never needs a tokenizer
download. Set `FAKE_MODEL_CALLS` to a file path to get one line per call appended there (calls across processes).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageUser,
    ContentImage,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from drive_evals.data import open_snapshot
from drive_evals.surds.dataset import load_surds
from drive_evals.surds.units import SUBSETS

TEST_USAGE = ModelUsage(input_tokens=10, output_tokens=10, total_tokens=20)


def image_digest(image: str) -> str:
    """sha256 of an image given as a data URI or a file path."""
    data = base64.b64decode(image.split(",", 1)[1]) if image.startswith("data:") else Path(image).read_bytes()
    return hashlib.sha256(data).hexdigest()


def surds_answer_key(data: str = "demo") -> dict[tuple[str, str], str]:
    """(prompt text, image digest) -> the completion that answers correctly."""
    key: dict[tuple[str, str], str] = {}
    for sample in load_surds(open_snapshot(data, "surds"), list(SUBSETS), "metadata").dataset:
        metadata = sample.metadata or {}
        first = sample.input[0]
        assert not isinstance(first, str) and isinstance(first.content, list)
        image = next(part for part in first.content if isinstance(part, ContentImage))
        digest = image_digest(image.image)
        for prompt, target in zip(metadata["prompts"], metadata["targets"], strict=True):
            if metadata["subset"] == "xy2d":
                x0, y0, x1, y1 = metadata["bbox"]
                target = f"[{(x0 + x1) / 2}, {(y0 + y1) / 2}]"
            key[(prompt, digest)] = f"<think>I know this one.</think>\n<answer>{target}</answer>"
    return key


def request_key(messages: list[ChatMessage]) -> tuple[str, str]:
    user = next(m for m in messages if isinstance(m, ChatMessageUser))
    assert isinstance(user.content, list), "SURDS prompts carry an image"
    image = next(part for part in user.content if isinstance(part, ContentImage))
    return user.text, image_digest(image.image)


class _TestModel(ModelAPI):
    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None, **_: Any) -> None:
        super().__init__(model_name, base_url, api_key, [], GenerateConfig())

    def reply(self, messages: list[ChatMessage]) -> str:
        raise NotImplementedError

    async def generate(
        self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        output = ModelOutput.from_content(model=self.model_name, content=self.reply(input))
        output.usage = TEST_USAGE
        return output


@modelapi(name="oracle")
class OracleModel(_TestModel):
    """Answers every SURDS prompt of the named data source (`oracle/demo`) correctly."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None, **_: Any) -> None:
        super().__init__(model_name, base_url, api_key)
        self.key = surds_answer_key(model_name)

    def reply(self, messages: list[ChatMessage]) -> str:
        return self.key[request_key(messages)]


@modelapi(name="unclosed")
class UnclosedModel(_TestModel):
    """Opens an `<answer>` block and never closes it."""

    def reply(self, messages: list[ChatMessage]) -> str:
        return "<think>Looking at the image.</think>\n<answer>The white car"


VALID_SCORES = {
    "Faithfulness-Step": 7.0,
    "Informativeness-Step": 6.0,
    "Risk Assessment Accuracy": 8.0,
    "Traffic Rule Adherence": 9.0,
    "Scene Awareness & Object Understanding": 5.0,
    "Repetition-Token": 10.0,
    "Hallucination": 4.0,
    "Semantic Coverage-Step": 6.0,
    "Commonsense": 7.0,
    "Missing Step": 8.0,
    "Relevance": 3.0,
    "Missing Details": 9.0,
    "Overall Score": 6.8,
}
"""Twelve criteria with mean 6.833..., and a reported overall of 6.8 (the judge's own arithmetic is not trusted)."""


def valid_reply() -> str:
    return json.dumps(VALID_SCORES)


def _with(**changes: object) -> str:
    return json.dumps({**VALID_SCORES, **changes})


GRADER_SCRIPTS: dict[str, list[str]] = {
    "valid": [valid_reply()],
    "alias": [json.dumps({("Commonsense Reasoning" if k == "Commonsense" else k): v for k, v in VALID_SCORES.items()})],
    "prose": ["Sure! Here is my evaluation:\n```json\n" + valid_reply() + "\n```\nHope this helps."],
    "invalid-then-valid": ["I cannot produce JSON today.", valid_reply()],
    "always-invalid": ["{not json"],
    "out-of-range": [_with(Relevance=11.0)],
    "missing-key": [json.dumps({k: v for k, v in VALID_SCORES.items() if k != "Hallucination"})],
    "low": [json.dumps({k: 2.0 for k in VALID_SCORES})],
}
"""Replies per script, by the number of times the same judge prompt was asked (the last reply repeats)."""


def record_call(model: str, text: str) -> None:
    path = os.environ.get("FAKE_MODEL_CALLS")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps({"model": model, "prompt": hashlib.sha256(text.encode()).hexdigest()}) + "\n")


@modelapi(name="grader")
class ScriptedGrader(_TestModel):
    """A judge that replies by script: `grader/invalid-then-valid` fails once per prompt, then answers."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None, **_: Any) -> None:
        super().__init__(model_name, base_url, api_key)
        self.script = GRADER_SCRIPTS[model_name]
        self.asked: Counter[str] = Counter()

    def reply(self, messages: list[ChatMessage]) -> str:
        text = "\n".join(m.text for m in messages)
        record_call(f"grader/{self.model_name}", text)
        attempt = self.asked[text]
        self.asked[text] += 1
        return self.script[min(attempt, len(self.script) - 1)]
