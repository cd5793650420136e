"""The DriveLMM-o1 prompt: the official message, built from the sample's question and images just before generation.

A sample's input holds the question and the frame's image parts, so the viewer's sample list (which previews the
input's text) shows the question rather than the instruction shared by every sample. The model receives the
official layout `model_prompt + "\\n<image>\\n" + question.strip()`, byte for byte.
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai.model import ChatMessageUser, Content, ContentText
from inspect_ai.solver import Generate, Solver, TaskState, solver

from drive_evals.drivelmm_o1.prompts import MODEL_PROMPT


def official_message(question: str, images: Sequence[Content]) -> ChatMessageUser:
    """The instruction, the image part(s) where `<image>` stands (views mode: labelled), then the question."""
    return ChatMessageUser(
        content=[ContentText(text=MODEL_PROMPT + "\n"), *images, ContentText(text="\n" + question.strip())]
    )


def input_parts(message: ChatMessageUser) -> tuple[str, list[Content]]:
    """A sample input message -> (question, image parts): the inverse of how the dataset builds it."""
    assert isinstance(message.content, list) and isinstance(message.content[0], ContentText)
    return message.content[0].text, list(message.content[1:])


@solver
def official_prompt() -> Solver:
    """Replace the input message with the official one; the images are those Inspect already materialised."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        message = state.messages[0]
        if not isinstance(message, ChatMessageUser):
            raise ValueError("a DriveLMM-o1 sample input is one user message")
        question, images = input_parts(message)
        state.messages = [official_message(question, images)]
        return state

    return solve
