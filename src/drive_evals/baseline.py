"""The chance baseline as an Inspect model provider: `--model chance/random`, no network, no key.

It is the official random baseline of SURDS (a uniform option per prompt, a uniform pixel for xy2d), answers
DriveLMM-o1 questions with a uniform option letter and a short generic reasoning, and, when asked for a JSON
schema (a judge call), returns in-range random criteria. Answers use each benchmark's official format, so a
chance run exercises the whole pipeline. Every answer is a pure function of the seed, the prompt text and the
images, so runs are reproducible whatever the concurrency, and two units that share a prompt text but not an image
(the xy2d question about "the white car" in two pictures) get independent answers; `-M seed=N` draws another
replicate.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageUser,
    ContentImage,
    ContentText,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from drive_evals.surds.rules import IMAGE_HEIGHT, IMAGE_WIDTH
from drive_evals.vladbench import chance as vladbench_chance

SURDS_OPTION = re.compile(r"^- (.+)$", re.MULTILINE)
LETTER_OPTION = re.compile(r"^\s*([A-F])\)\s*(.+)$", re.MULTILINE)
XY2D_MARKER = "coordinates [x, y]"
IMAGE_SIZE = (IMAGE_WIDTH, IMAGE_HEIGHT)
RUBRIC_RANGE = (1.0, 10.0)
OVERALL_KEY = "Overall Score"
CHARS_PER_TOKEN = 4
"""OpenAI's and Google's rule of thumb for English text, used by `drive-evals estimate` too; the baseline reports
usage by it so Inspect never needs a tokenizer download (exact counts need each model's own tokenizer)."""


def answer(prompt: str, rng: random.Random) -> str:
    """A random answer to a benchmark prompt in that benchmark's official output format."""
    letters = LETTER_OPTION.findall(prompt)
    if letters:
        letter, text = rng.choice(letters)
        return (
            "Reasoning Steps: 1. Look at the six camera views. 2. Pick one of the options at random.\n"
            f"Final Answer: {letter}) {text.strip()}"
        )
    if XY2D_MARKER in prompt:
        x, y = rng.randrange(IMAGE_SIZE[0]), rng.randrange(IMAGE_SIZE[1])
        return f"<think>A uniformly random pixel.</think>\n<answer>[{x}, {y}]</answer>"
    options = SURDS_OPTION.findall(prompt)
    if options:
        return f"<think>A uniformly random option.</think>\n<answer>{rng.choice(options).strip()}</answer>"
    if (vladbench := vladbench_chance.answer(prompt, rng)) is not None:
        return vladbench
    return (
        "Reasoning Steps: 1. Look at the scene. 2. Keep a safe distance and follow traffic rules.\n"
        "Final Answer: Proceed with caution."
    )


def rubric_reply(schema: dict[str, Any], rng: random.Random) -> str:
    """Random in-range scores for every number property of a judge schema; the overall is their mean."""
    properties = schema.get("properties", {})
    scores = {key: round(rng.uniform(*RUBRIC_RANGE), 1) for key in properties if key != OVERALL_KEY}
    if OVERALL_KEY in properties:
        scores[OVERALL_KEY] = round(sum(scores.values()) / max(len(scores), 1), 2)
    return json.dumps(scores)


def prompt_text(messages: list[ChatMessage]) -> str:
    """All text of the conversation's user messages, which is what the answer's options come from."""
    return "\n".join(m.text for m in messages if isinstance(m, ChatMessageUser))


def seeded_rng(seed: int, messages: list[ChatMessage]) -> random.Random:
    """A generator keyed by the seed and every user message's text and images."""
    digest = hashlib.sha256(str(seed).encode())
    for message in messages:
        if not isinstance(message, ChatMessageUser):
            continue
        parts = [message.content] if isinstance(message.content, str) else message.content
        for part in parts:
            if isinstance(part, str):
                digest.update(part.encode())
            elif isinstance(part, ContentImage):
                digest.update(part.image.encode())
            elif isinstance(part, ContentText):
                digest.update(part.text.encode())
            digest.update(b"\0")
    return random.Random(int.from_bytes(digest.digest()[:8], "big"))


CHANCE_PROVIDER = "chance"
DEFAULT_SEED = 0
"""The seed when `-M seed=N` is not given; the report names it, so replicates are told apart."""


def effective_model_args(model: str, model_args: dict[str, Any]) -> dict[str, Any]:
    """The model args a run used, with the chance provider's default seed filled in (Inspect logs only those given)."""
    if model.split("/", 1)[0] == CHANCE_PROVIDER:
        return {"seed": DEFAULT_SEED, **model_args}
    return dict(model_args)


@modelapi(name=CHANCE_PROVIDER)
class ChanceModel(ModelAPI):
    """Answers uniformly at random in the benchmarks' official formats (the official random baseline)."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig | None = None,
        seed: int = DEFAULT_SEED,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())
        self.seed = int(seed)

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        text = prompt_text(input)
        rng = seeded_rng(self.seed if config.seed is None else config.seed, input)
        if config.response_schema is not None and config.response_schema.json_schema is not None:
            schema = config.response_schema.json_schema.model_dump(exclude_none=True)
            completion = rubric_reply(schema, rng)
        else:
            completion = answer(text, rng)
        output = ModelOutput.from_content(model=self.model_name, content=completion)
        input_chars = sum(len(message.text) for message in input)
        output.usage = ModelUsage(
            input_tokens=input_chars // CHARS_PER_TOKEN,
            output_tokens=len(completion) // CHARS_PER_TOKEN,
            total_tokens=(input_chars + len(completion)) // CHARS_PER_TOKEN,
        )
        return output

    def max_connections(self) -> int:
        return 64
