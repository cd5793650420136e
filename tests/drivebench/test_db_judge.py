"""DriveBench judge: the official score pattern, retries on unreadable replies, nothing aborts the run."""

from __future__ import annotations

import anyio
import pytest
from inspect_ai.model import ChatMessage, ChatMessageUser, Model
from inspect_runs import mockllm

from drive_evals.drivebench.judge import judge_config, judge_reply, read_score
from drive_evals.judge_guard import JudgeBreaker


@pytest.mark.parametrize(
    ("reply", "score"),
    [
        ("1. Answer Correctness (50 points): 50\nTotal Score: 85\n\nBrief Summary: good", 85),
        ("Total Score: 85/100", 85),
        ("Total Score: 45.5", 45),
        ("Total Score:\n\n72", 72),
        ("  Total Score: 7  ", 7),
        ("Total Score: 999", 999),
        ("Total Score: 1000", None),
        ("total score: 50", None),
        ("**Total Score:** 85", None),
        ("Total Score: 12 then Total Score: 90", 12),
        ("", None),
    ],
)
def test_read_score_is_the_official_pattern(reply: str, score: int | None) -> None:
    """The reference's §4.3.4 cases, each checked there by running the official regex."""
    assert read_score(reply) == score


def test_judge_settings_are_the_official_payload() -> None:
    config = judge_config()
    assert config.temperature == 0.0 and config.max_tokens == 3000


def replies(*texts: str) -> tuple[list[list[ChatMessage]], Model]:
    seen: list[list[ChatMessage]] = []

    def reply(messages: list[ChatMessage]) -> str:
        seen.append(messages)
        return texts[min(len(seen) - 1, len(texts) - 1)]

    return seen, mockllm(reply)


def test_one_user_message_as_official() -> None:
    seen, model = replies("Total Score: 64")
    judgement = anyio.run(judge_reply, model, "the message", 3, False)
    assert judgement.score == 64 and judgement.failure is None
    (messages,) = seen
    assert len(messages) == 1 and isinstance(messages[0], ChatMessageUser) and messages[0].text == "the message"


def test_unreadable_reply_is_asked_again() -> None:
    seen, model = replies("I would give it a high score.", "Total Score: 40")
    judgement = anyio.run(judge_reply, model, "m", 3, False)
    assert judgement.score == 40 and len(seen) == 2
    assert judgement.raw_replies == ["I would give it a high score.", "Total Score: 40"]


def test_never_readable_fails_with_the_raw_replies_kept() -> None:
    seen, model = replies("no score here")
    judgement = anyio.run(judge_reply, model, "m", 2, False)
    assert judgement.score is None and len(seen) == 2
    assert judgement.failure is not None and "Total Score" in judgement.failure
    assert judgement.raw_replies == ["no score here"] * 2


def test_tripped_breaker_makes_no_call() -> None:
    seen, model = replies("Total Score: 1")
    breaker = JudgeBreaker(1)
    breaker.record("judge", RuntimeError("down"))
    judgement = anyio.run(judge_reply, model, "m", 3, False, breaker)
    assert not seen and judgement.score is None and judgement.failure == breaker.stopped
