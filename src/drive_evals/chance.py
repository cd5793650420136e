"""The chance provider: `--model chance/random`, an Inspect model provider with no network and no key.

It asks each benchmark in the registry for its chance answer (`Benchmark.chance`: SURDS's is its official random
baseline, a uniform option per prompt and a uniform pixel for xy2d; DriveLMM-o1's a uniform option letter and a
short generic reasoning) and, when asked for a JSON schema (a judge call), for a random in-range judge reply
(`Benchmark.chance_judge`). Answers use each benchmark's official format, so a chance run exercises the whole
pipeline. Every answer is a pure function of the seed, the prompt text and the images, so runs are reproducible
whatever the concurrency, and two units that share a prompt text but not an image (the xy2d question about "the
white car" in two pictures) get independent answers; `-M seed=N` draws another replicate.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from typing import Any

from inspect_ai.log._samples import sample_active
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

from drive_evals.benchmark import Benchmark
from drive_evals.errors import ParameterError

CHARS_PER_TOKEN = 4
"""OpenAI's and Google's rule of thumb for English text, used by `drive-evals estimate` too; the provider reports
usage by it so Inspect never needs a tokenizer download (exact counts need each model's own tokenizer)."""
UNKNOWN_PROMPT_REPLY = "No benchmark of drive_evals asks this prompt, so there is no chance answer to it."
UNKNOWN_SCHEMA_REPLY = "{}"


def running_benchmark(benchmarks: Sequence[Benchmark]) -> Sequence[Benchmark]:
    """The benchmark of the sample this call is made for (its task, or one of its judge meta-evaluations), as the
    one benchmark to ask; all of them outside a sample (`drive-evals estimate`, a direct call), first claim first.

    Asked by sample, not by prompt: one benchmark's answerer may claim another's prompt (VLADBench's claims any
    "Answer 'yes' or 'no'")."""
    active = sample_active()
    if active is None:
        return benchmarks
    for benchmark in benchmarks:
        names = benchmark.task_names | {name for task in benchmark.meta_tasks for name in (task.name, task.qualified)}
        if active.task in names:
            return [benchmark]
    return benchmarks


def answer(prompt: str, rng: random.Random, benchmarks: Sequence[Benchmark]) -> str:
    """A random answer in the official format of the benchmark whose prompt this is (the first that claims it)."""
    for benchmark in benchmarks:
        reply = benchmark.chance(prompt, rng)
        if reply is not None:
            return reply
    return UNKNOWN_PROMPT_REPLY


def judge_reply(schema: dict[str, Any], rng: random.Random, benchmarks: Sequence[Benchmark]) -> str:
    """A random in-range reply from the judge whose JSON schema this is (the first that claims it)."""
    for benchmark in benchmarks:
        reply = benchmark.chance_judge(schema, rng) if benchmark.chance_judge else None
        if reply is not None:
            return reply
    return UNKNOWN_SCHEMA_REPLY


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
CHANCE_MODEL = "random"
"""The provider's one model: any other name (`chance/randon`) is refused, or it would run and be reported as
another model."""
DEFAULT_SEED = 0
"""The seed when `-M seed=N` is not given; the report names it, so replicates are told apart."""


def check_chance_model(name: str, option: str = "--model") -> None:
    """Raise `ParameterError` for any model of the chance provider but its one."""
    if name != CHANCE_MODEL:
        model = f"{CHANCE_PROVIDER}/{name}"
        raise ParameterError(
            f"{option} {model}: unknown model '{name}' (did you mean '{CHANCE_PROVIDER}/{CHANCE_MODEL}'?); "
            f"the chance provider has one model, {CHANCE_MODEL}"
        )


def effective_model_args(model: str, model_args: dict[str, Any]) -> dict[str, Any]:
    """The model args a run used, with the chance provider's default seed filled in (Inspect logs only those given)."""
    if model.split("/", 1)[0] == CHANCE_PROVIDER:
        return {"seed": DEFAULT_SEED, **model_args}
    return dict(model_args)


def chance_model(benchmarks: Sequence[Benchmark]) -> type[ModelAPI]:
    """Register the `chance` provider, answering as `benchmarks`' chance answerers do; returns its class."""

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
            check_chance_model(model_name)
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
            asked = running_benchmark(benchmarks)
            if config.response_schema is not None and config.response_schema.json_schema is not None:
                schema = config.response_schema.json_schema.model_dump(exclude_none=True)
                completion = judge_reply(schema, rng, asked)
            else:
                completion = answer(text, rng, asked)
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

    return ChanceModel
