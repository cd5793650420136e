"""What `drive-evals estimate` counts for DriveBench: the official message per question, and the judge's prompt."""

from __future__ import annotations

from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage, ChatMessageUser

from drive_evals.drivebench.prompts import JUDGE_MAX_TOKENS, judge_message

__all__ = ["JUDGE_MAX_TOKENS", "judge_chars", "model_messages"]
from drive_evals.drivebench.solver import input_images, official_message


def model_messages(sample: Sample) -> list[ChatMessage]:
    """The one message the `official_prompt` solver sends for `sample`."""
    assert not isinstance(sample.input, str) and isinstance(sample.input[0], ChatMessageUser)
    meta = sample.metadata or {}
    return [official_message(meta["cameras"], meta["question"], input_images(sample.input[0]))]


def judge_chars(sample: Sample) -> int:
    """Characters of the judge's message without the model's reply (which the estimate adds)."""
    meta = sample.metadata or {}
    return len(
        judge_message(meta["task"], meta["kind"], meta["question"], meta["answer"], "", meta.get("judge_description"))
    )
