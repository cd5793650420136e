"""The shared judge pipeline (`drive_evals.kit.judge`): raw replies, retries per attempt scope, cache, breaker,
`--batch` and the judge's own timeout. Through Inspect's real `openai/` provider against the fake server."""

from __future__ import annotations

import contextvars
import re
from collections.abc import Sequence
from pathlib import Path

import anyio
import pytest
from fakeserver import FakeModelServer, FakeRequest
from inspect_ai.model import GenerateConfig, Model, get_model
from inspect_ai.model._generate_config import set_active_generate_config

from drive_evals.kit.judge import Invalid, JudgeBreaker, JudgeResult, call_judge, judge_generate_config
from drive_evals.replies import NO_CALL

JUDGE = "openai/gpt-4o-2024-08-06"
RATING = re.compile(r"Rating: \[\[(\d+)\]\]")


def read_rating(text: str) -> int | Invalid:
    match = RATING.search(text)
    return int(match.group(1)) if match else Invalid("no rating")


def scripted(server: FakeModelServer, replies: Sequence[str]) -> None:
    """The fake judge answers `replies` in turn (the last one from then on)."""
    seen: list[FakeRequest] = []

    def policy(request: FakeRequest) -> str:
        seen.append(request)
        return replies[min(len(seen), len(replies)) - 1]

    server.policy = policy


def judge(server: FakeModelServer, cache: bool = False, breaker: JudgeBreaker | None = None) -> JudgeResult[int]:
    model = get_model(JUDGE, base_url=server.openai_base_url, memoize=False)

    async def call() -> JudgeResult[int]:
        return await call_judge(
            model, "rate it", read_rating, config=GenerateConfig(temperature=0), attempts=3, cache=cache,
            breaker=breaker,
        )  # fmt: skip

    return anyio.run(call)


def test_an_invalid_reply_is_asked_again_and_every_reply_is_kept_raw(fake_model_server: FakeModelServer) -> None:
    first, second = "<think>Rating: maybe</think>\nI cannot say.", "<think>Hmm.</think>\nRating: [[7]]"
    scripted(fake_model_server, [first, second])
    result = judge(fake_model_server)
    assert result.verdict == 7 and result.failure is None and result.rebuilt == []
    assert result.raw_replies == [first, second]
    assert len(fake_model_server.requests) == 2


def test_the_last_reason_is_kept_when_no_attempt_parses(fake_model_server: FakeModelServer) -> None:
    scripted(fake_model_server, ["no rating here"])
    result = judge(fake_model_server)
    assert result.verdict is None and result.failure == "no rating" and result.raw_replies == ["no rating here"] * 3


def test_a_retry_bypasses_the_cache_and_a_rerun_reads_raw_replies_from_it(
    fake_model_server: FakeModelServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "inspect-cache"))
    monkeypatch.setenv("DRIVE_EVALS_CACHE", str(tmp_path / "drive-cache"))
    replies = ["<think>two, maybe</think>\nunsure", "<think>nine</think>\nRating: [[9]]"]
    scripted(fake_model_server, replies)
    first = judge(fake_model_server, cache=True)
    assert first.verdict == 9 and len(fake_model_server.requests) == 2, "the retry must reach the judge"
    second = judge(fake_model_server, cache=True)
    assert len(fake_model_server.requests) == 2, "a re-run takes both replies from the cache"
    assert second.verdict == 9 and second.raw_replies == replies and second.rebuilt == []
    monkeypatch.setenv("DRIVE_EVALS_CACHE", str(tmp_path / "empty"))  # Inspect's cache without the raw texts
    third = judge(fake_model_server, cache=True)
    assert third.verdict == 9 and third.rebuilt == [NO_CALL, NO_CALL], "a rebuilt reply says so"


def test_a_tripped_breaker_makes_no_call(fake_model_server: FakeModelServer) -> None:
    breaker = JudgeBreaker(limit=1)
    breaker.record(JUDGE, RuntimeError("down"))
    scripted(fake_model_server, ["Rating: [[5]]"])
    result = judge(fake_model_server, breaker=breaker)
    assert result.verdict is None and result.failure == breaker.stopped and fake_model_server.requests == []


def batch_of(model: Model, config: GenerateConfig, run: GenerateConfig) -> GenerateConfig:
    def inside_run() -> GenerateConfig:
        set_active_generate_config(run)
        return judge_generate_config(model, config)

    return contextvars.copy_context().run(inside_run)


def test_the_runs_batch_reaches_the_judge_unless_it_has_its_own() -> None:
    plain = get_model("mockllm/model", memoize=False)
    own = get_model("mockllm/model", config=GenerateConfig(batch=False, timeout=7), memoize=False)
    assert batch_of(plain, GenerateConfig(temperature=0), GenerateConfig(batch=True)).batch is True
    assert batch_of(plain, GenerateConfig(batch=4), GenerateConfig(batch=True)).batch == 4
    assert batch_of(own, GenerateConfig(), GenerateConfig(batch=True)).batch is None  # the judge's own config rules
    assert batch_of(own, GenerateConfig(), GenerateConfig()).timeout == 7
    assert batch_of(plain, GenerateConfig(temperature=0), GenerateConfig()).model_dump(exclude_none=True) == {
        "temperature": 0
    }
