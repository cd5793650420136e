"""Test-only model providers with known behaviour, for end-to-end runs whose scores are known in advance.

`oracle/<data>` answers every SURDS prompt correctly (xy2d: the centre of the gold box), looking the answer up by
prompt text and image bytes. `unclosed/any` opens `<answer>` and never closes it. Both report usage, so Inspect
never needs a tokenizer download.
"""

from __future__ import annotations

import base64
import hashlib
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
