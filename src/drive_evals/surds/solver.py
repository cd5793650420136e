"""The SURDS solver: every prompt of a unit as its own single-turn request on the same image."""

from __future__ import annotations

from inspect_ai.model import ChatMessage, ChatMessageUser, ContentImage, ContentText
from inspect_ai.solver import Generate, Solver, TaskState, solver

from drive_evals.replies import REBUILT_STORE_KEY, generate_reply, stopped_at_token_limit

COMPLETIONS_KEY = "surds_completions"
"""Store key of the per-prompt replies as the provider returned them (`drive_evals.replies`), which the scorer
reads (also when re-scoring a log)."""
TRUNCATED_STORE_KEY = "surds_truncated"
"""Store key of the per-prompt flags: did the completion stop at the output token limit."""


@solver
def answer_each_prompt() -> Solver:
    """Send each prompt of the unit in a fresh conversation: text first, then the image, no system prompt.

    The image is the one Inspect already materialised for the sample's input, so it is encoded once per unit.
    Both conversations stay in `state.messages` so the viewer shows a pair's answers side by side.
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        image = _first_image(state.messages)
        conversations: list[ChatMessage] = []
        completions: list[str] = []
        truncated: list[bool] = []
        rebuilt: list[str | None] = []
        for prompt in state.metadata["prompts"]:
            state.messages = [ChatMessageUser(content=[ContentText(text=prompt), image])]
            state, reply = await generate_reply(state, generate)
            conversations.extend(state.messages)
            completions.append(reply.text)
            rebuilt.append(reply.why)
            truncated.append(stopped_at_token_limit(state.output))
        state.messages = conversations
        state.store.set(COMPLETIONS_KEY, completions)
        state.store.set(TRUNCATED_STORE_KEY, truncated)
        state.store.set(REBUILT_STORE_KEY, rebuilt)
        return state

    return solve


def _first_image(messages: list[ChatMessage]) -> ContentImage:
    for message in messages:
        if isinstance(message.content, list):
            for part in message.content:
                if isinstance(part, ContentImage):
                    return part
    raise ValueError("SURDS sample input has no image")
