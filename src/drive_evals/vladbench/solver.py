"""The VLADBench solver: one generation on the sample's input (the official prompt), the raw reply kept."""

from __future__ import annotations

from inspect_ai.solver import Generate, Solver, TaskState, solver

from drive_evals.replies import REBUILT_STORE_KEY, REPLY_STORE_KEY, generate_reply


@solver
def answer_question() -> Solver:
    """`generate()` on the images and the question; the reply as the provider returned it goes to the store."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state, reply = await generate_reply(state, generate)
        state.store.set(REPLY_STORE_KEY, reply.text)
        state.store.set(REBUILT_STORE_KEY, [reply.why])
        return state

    return solve
