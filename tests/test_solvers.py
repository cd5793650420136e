"""The two solvers, each in a minimal task run in-process with Inspect's `mockllm`: what they send and keep."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
from inspect_ai import Task
from inspect_ai.dataset import Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageUser,
    Content,
    ContentImage,
    ContentText,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    get_model,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo
from inspect_runs import eval_in_process, mockllm
from PIL import Image

from drive_evals.drivelmm_o1.judge_meta.task import RESPONSE_SOURCE, replay_response
from drive_evals.replies import REBUILT_STORE_KEY, REPLY_STORE_KEY, generate_raw_reply
from drive_evals.started_samples import StartedSamples, record_start
from drive_evals.surds.solver import COMPLETIONS_KEY, answer_each_prompt

PROMPTS = ["Is the car left of the truck?", "Is the truck left of the car?"]
PARTNER_WAIT_SECONDS = 60
"""Only a bound: a concurrent partner arrives within milliseconds; a sequential solver never sends one."""


def describe(messages: list[ChatMessage]) -> str:
    """The parts of the one message the mock model saw, in order (a fresh conversation: no history, no system)."""
    (message,) = messages
    parts = message.content if isinstance(message.content, list) else []
    return " + ".join(part.text if isinstance(part, ContentText) else part.type for part in parts)


def test_answer_each_prompt_sends_each_prompt_alone_with_the_image(tmp_path: Path) -> None:
    image = tmp_path / "scene.png"
    Image.new("RGB", (16, 9), (10, 20, 30)).save(image)
    sample = Sample(
        id="unit",
        input=[ChatMessageUser(content=[ContentText(text="shown in the viewer"), ContentImage(image=str(image))])],
        metadata={"prompts": PROMPTS},
    )
    task = Task(dataset=[sample], solver=answer_each_prompt())
    log = eval_in_process(task, tmp_path / "logs", model=mockllm(describe))
    (result,) = log.samples or []
    assert result.store[COMPLETIONS_KEY] == [f"{prompt} + image" for prompt in PROMPTS]
    assert [message.role for message in result.messages] == ["user", "assistant", "user", "assistant"]


@modelapi(name="pair-waiting")
class PairWaitingModel(ModelAPI):
    """Answers a request only once another is in flight at the same time (or after `PARTNER_WAIT_SECONDS`), and
    says which: under `--batch` only requests in flight together can share a batch window."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None, **_: Any) -> None:
        super().__init__(model_name, base_url, api_key, [], GenerateConfig())
        self.in_flight = 0
        self.partner = anyio.Event()

    async def generate(
        self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice, config: GenerateConfig
    ) -> ModelOutput:
        self.in_flight += 1
        if self.in_flight == len(PROMPTS):
            self.partner.set()
        with anyio.move_on_after(PARTNER_WAIT_SECONDS):
            await self.partner.wait()
        output = ModelOutput.from_content(self.model_name, "together" if self.partner.is_set() else "alone")
        output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return output


def test_answer_each_prompt_asks_a_pairs_prompts_at_the_same_time(tmp_path: Path) -> None:
    image = tmp_path / "scene.png"
    Image.new("RGB", (16, 9), (10, 20, 30)).save(image)
    shown: list[Content] = [ContentText(text="shown in the viewer"), ContentImage(image=str(image))]
    sample = Sample(id="unit", input=[ChatMessageUser(content=shown)], metadata={"prompts": PROMPTS})
    model = get_model("pair-waiting/model", memoize=False)
    log = eval_in_process(Task(dataset=[sample], solver=answer_each_prompt()), tmp_path / "logs", model=model)
    (result,) = log.samples or []
    assert result.store[COMPLETIONS_KEY] == ["together", "together"]
    # the conversations stay in prompt order
    assert [message.text for message in result.messages] == [PROMPTS[0], "together", PROMPTS[1], "together"]


def test_replay_response_answers_without_calling_a_model(tmp_path: Path) -> None:
    def never(messages: list[ChatMessage]) -> str:
        raise AssertionError("replay_response must not call the model")

    task = Task(dataset=[Sample(id="v", input="q", metadata={"response": "Final Answer: B"})], solver=replay_response())
    log = eval_in_process(task, tmp_path / "logs", model=mockllm(never))
    (result,) = log.samples or []
    assert result.output.completion == "Final Answer: B" and result.output.model == RESPONSE_SOURCE
    assert result.messages[-1].role == "assistant" and result.messages[-1].text == "Final Answer: B"


def test_generate_raw_reply_keeps_the_reply_and_says_when_it_had_no_raw_response(tmp_path: Path) -> None:
    task = Task(dataset=[Sample(id="q", input="Which way?")], solver=generate_raw_reply())
    log = eval_in_process(task, tmp_path / "logs", model=mockllm(lambda _: "Final Answer: (B) go"))
    (result,) = log.samples or []
    assert result.store[REPLY_STORE_KEY] == "Final Answer: (B) go"
    # mockllm records no API call, and nothing was split off its text: the reply is Inspect's text, not a rebuild
    assert result.store[REBUILT_STORE_KEY] == [None]


def test_record_start_notes_each_started_sample_with_the_keys_metrics_group_by(tmp_path: Path) -> None:
    started = StartedSamples(kept=("subset", "image", "frame"))
    samples = [
        Sample(id="a", input="x", metadata={"subset": "yaw", "image": "i1.webp", "prompts": PROMPTS}),
        Sample(id="b", input="y", metadata={"frame": "f2", "question": "not kept"}),
    ]
    eval_in_process(Task(dataset=samples, solver=record_start(started)), tmp_path / "logs", model=mockllm(str))
    ((model, units),) = started.by_model.items()
    assert model.startswith("mockllm/model#"), "keyed by the model object too: replicates of one name are told apart"
    assert units == {"a": {"id": "a", "subset": "yaw", "image": "i1.webp"}, "b": {"id": "b", "frame": "f2"}}
