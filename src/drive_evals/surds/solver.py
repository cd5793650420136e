"""The SURDS solver: every prompt of a unit as its own single-turn request on the same image, all sent at once."""

from __future__ import annotations

import copy

from inspect_ai.model import ChatMessage, ChatMessageUser, ContentImage, ContentText
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import collect

from drive_evals.replies import REBUILT_STORE_KEY, Reply, generate_reply, stopped_at_token_limit

COMPLETIONS_KEY = "surds_completions"
"""Store key of the per-prompt replies as the provider returned them (`drive_evals.replies`), which the scorer
reads (also when re-scoring a log)."""
TRUNCATED_STORE_KEY = "surds_truncated"
"""Store key of the per-prompt flags: did the completion stop at the output token limit."""


@solver
def answer_each_prompt() -> Solver:
    """Send each prompt of the unit in a fresh conversation: text first, then the image, no system prompt.

    A pair's two prompts are independent conversations, so they are asked concurrently rather than one after the
    other: under `--batch` both go into the same batch window, a run is one round of jobs instead of two, and a
    unit is finished (and kept by `eval-retry`) as soon as that window returns (docs/batch.md). The image is the
    one Inspect already materialised for the sample's input, so it is encoded once per unit. Both conversations
    stay in `state.messages`, in prompt order, so the viewer shows a pair's answers side by side.
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        image = _first_image(state.messages)

        async def ask(prompt: str) -> tuple[TaskState, Reply]:
            # a shallow copy: its own messages and output, the sample's store, limits and metadata
            conversation = copy.copy(state)
            conversation.messages = [ChatMessageUser(content=[ContentText(text=prompt), image])]
            return await generate_reply(conversation, generate)

        answered = await collect(*(ask(prompt) for prompt in state.metadata["prompts"]))
        state.messages = [message for conversation, _ in answered for message in conversation.messages]
        state.output = answered[-1][0].output
        state.store.set(COMPLETIONS_KEY, [reply.text for _, reply in answered])
        state.store.set(
            TRUNCATED_STORE_KEY, [stopped_at_token_limit(conversation.output) for conversation, _ in answered]
        )
        state.store.set(REBUILT_STORE_KEY, [reply.why for _, reply in answered])
        return state

    return solve


def _first_image(messages: list[ChatMessage]) -> ContentImage:
    for message in messages:
        if isinstance(message.content, list):
            for part in message.content:
                if isinstance(part, ContentImage):
                    return part
    raise ValueError("SURDS sample input has no image")
