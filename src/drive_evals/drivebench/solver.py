"""The DriveBench prompt: the official message, built from the sample's question and images just before generation.

A sample's input holds the question, then the images, so the viewer's sample list shows the question. The model
receives what `inference/llava1.5.py` sends, in a chat API's shape: one user message with the images (in
`image_path` order, no camera labels), then one text part, the system prompt with its per-question camera sentence
followed directly by the question. The LLaVA template pieces (`USER: `, one `<image>\\n` per image, `\\nASSISTANT:`)
are the chat template's job in a chat API, so they are not sent as text (docs/drivebench.md, Fidelity).
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai.model import ChatMessageUser, Content, ContentImage, ContentText
from inspect_ai.solver import Generate, Solver, TaskState, solver

from drive_evals.drivebench.prompts import prompt_text


def official_message(cameras: Sequence[str], question: str, images: Sequence[Content]) -> ChatMessageUser:
    """The images, then the rewritten system prompt and the question as one text part."""
    return ChatMessageUser(content=[*images, ContentText(text=prompt_text(cameras, question))])


def input_images(message: ChatMessageUser) -> list[Content]:
    """The image parts of a sample's input message (already materialised by Inspect)."""
    assert isinstance(message.content, list)
    return [part for part in message.content if isinstance(part, ContentImage)]


@solver
def official_prompt() -> Solver:
    """Replace the input message with the official one."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        message = state.messages[0]
        if not isinstance(message, ChatMessageUser):
            raise ValueError("a DriveBench sample input is one user message")
        meta = state.metadata
        state.messages = [official_message(meta["cameras"], meta["question"], input_images(message))]
        return state

    return solve
