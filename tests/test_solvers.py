"""The two solvers, each in a minimal task run in-process with Inspect's `mockllm`: what they send and keep."""

from __future__ import annotations

from pathlib import Path

from inspect_ai import Task
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage, ChatMessageUser, ContentImage, ContentText
from inspect_runs import eval_in_process, mockllm
from PIL import Image

from drive_evals.drivelmm_o1.judge_meta.task import RESPONSE_SOURCE, replay_response
from drive_evals.surds.solver import COMPLETIONS_KEY, answer_each_prompt

PROMPTS = ["Is the car left of the truck?", "Is the truck left of the car?"]


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


def test_replay_response_answers_without_calling_a_model(tmp_path: Path) -> None:
    def never(messages: list[ChatMessage]) -> str:
        raise AssertionError("replay_response must not call the model")

    task = Task(dataset=[Sample(id="v", input="q", metadata={"response": "Final Answer: B"})], solver=replay_response())
    log = eval_in_process(task, tmp_path / "logs", model=mockllm(never))
    (result,) = log.samples or []
    assert result.output.completion == "Final Answer: B" and result.output.model == RESPONSE_SOURCE
    assert result.messages[-1].role == "assistant" and result.messages[-1].text == "Final Answer: B"
