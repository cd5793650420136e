"""DriveBench's judge reply is read raw, as `evaluate/request.py` reads `message.content`: through Inspect's real
`openai/` provider (which moves a `<think>` block out of `output.completion`) against the fake server."""

from __future__ import annotations

import re

import anyio
import pytest
from fakeserver import FakeModelServer, FakeRequest
from inspect_ai.model import get_model

from drive_evals.drivebench.judge import Judgement, judge_reply

JUDGE = "openai/gpt-4o-2024-08-06"
"""A name Inspect sends to Chat Completions, the path where it splits `<think>` blocks off."""


def official_score(content: str) -> int | None:
    """The official reading, restated from the protocol (request.py L106-114, L159): the stripped raw content,
    first match of `Total Score:\\s*(\\d{1,3})\\b`, as an int; None where it would raise."""
    match = re.search(r"Total Score:\s*(\d{1,3})\b", content.strip())
    return int(match.group(1)) if match else None


def judged(server: FakeModelServer, reply: str, attempts: int = 3) -> Judgement:
    def policy(request: FakeRequest) -> str:
        return reply

    server.policy = policy
    model = get_model(JUDGE, base_url=server.openai_base_url, memoize=False)
    return anyio.run(judge_reply, model, "the rubric", attempts, False)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        pytest.param("<think>Draft: Total Score: 40</think>\nTotal Score: 85", 40, id="draft-in-think-then-final"),
        pytest.param("<think>Weighing it: Total Score: 55</think>", 55, id="only-a-think-block"),
        pytest.param("Total Score: 70\n<think>Or Total Score: 20?</think>", 70, id="final-then-think"),
        pytest.param("1. Correctness: 50\nTotal Score: 64", 64, id="no-think"),
    ],
)
def test_the_judge_reply_is_read_as_the_official_code_reads_it(
    fake_model_server: FakeModelServer, reply: str, expected: int
) -> None:
    assert official_score(reply) == expected  # the case states what the official code reads
    judgement = judged(fake_model_server, reply)
    assert judgement.score == expected and judgement.failure is None
    assert len(fake_model_server.requests) == 1


def test_replies_kept_on_grader_failed_are_raw(fake_model_server: FakeModelServer) -> None:
    """Three replies without a score outside the block nor inside it: the kept text is the provider's, block included
    (Inspect's completion would be only `No score.`)."""
    reply = "<think>A total score of maybe 60.</think>\n\nNo score."
    assert official_score(reply) is None
    judgement = judged(fake_model_server, reply)
    assert judgement.score is None and judgement.failure == "no 'Total Score: N' in the judge's reply"
    assert judgement.raw_replies == [reply] * 3
    assert len(fake_model_server.requests) == 3
