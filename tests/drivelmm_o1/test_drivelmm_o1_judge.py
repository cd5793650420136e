"""The rubric judge with scripted graders: validation, retries that bypass the cache, failures kept visible."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from fake_models import ScriptedGrader
from inspect_ai.model import GenerateConfig, Model

from drive_evals.drivelmm_o1.judge import Judgement, judge_response
from drive_evals.drivelmm_o1.rubric import reasoning_score
from drive_evals.drivelmm_o1.scorer import rubric_values


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    calls = tmp_path / "calls.jsonl"
    monkeypatch.setenv("FAKE_MODEL_CALLS", str(calls))
    return calls


def judge(
    script: str, cache: bool = True, response: str = "Reasoning Steps: 1. ok Final Answer: A) Stop."
) -> Judgement:
    model = Model(ScriptedGrader(model_name=script), GenerateConfig())  # no registry lookup: see fake_models

    async def call() -> Judgement:
        return await judge_response(model, "What now?", "\n1. Look.", "A) Stop.", response, attempts=3, cache=cache)

    return anyio.run(call)


def call_count(calls: Path) -> int:
    return len(calls.read_text(encoding="utf-8").splitlines()) if calls.exists() else 0


@pytest.mark.parametrize("script", ["valid", "alias", "prose"])
def test_valid_replies(script: str) -> None:
    judgement = judge(script)
    assert judgement.ok and judgement.failure is None
    assert judgement.parse is not None
    assert reasoning_score(judgement.parse.scores) == pytest.approx(82 / 12 / 10)
    assert judgement.parse.reported_overall == 6.8
    assert len(judgement.raw_replies) == 1


def test_retry_bypasses_cache_and_rerun_is_free(isolated: Path) -> None:
    first = judge("invalid-then-valid")
    assert first.ok
    assert first.raw_replies[0] == "I cannot produce JSON today."
    assert call_count(isolated) == 2, "the retry must reach the model, not the cached bad reply"
    second = judge("invalid-then-valid")
    assert second.ok and second.raw_replies == first.raw_replies
    assert call_count(isolated) == 2, "a re-run must take both replies from the cache"


def test_without_cache_every_attempt_calls(isolated: Path) -> None:
    judge("valid", cache=False)
    judge("valid", cache=False)
    assert call_count(isolated) == 2


@pytest.mark.parametrize(
    ("script", "reason"),
    [("always-invalid", "invalid_json"), ("missing-key", "missing_keys")],
)
def test_failures_are_kept_with_reason(script: str, reason: str, isolated: Path) -> None:
    judgement = judge(script)
    assert not judgement.ok
    assert judgement.failure is not None and reason in judgement.failure
    assert len(judgement.raw_replies) == 3
    assert call_count(isolated) == 3
    values = rubric_values([judgement])
    assert values["judged"] == 0.0
    assert values["reasoning_score"] != values["reasoning_score"]  # NaN: not a zero


def test_an_out_of_range_reply_is_counted_as_given_and_flagged(isolated: Path) -> None:
    """The official parser keeps a criterion of 11: no retry, the value averaged as given, the sample flagged."""
    judgement = judge("out-of-range")
    assert judgement.ok and call_count(isolated) == 1
    assert judgement.parse is not None and judgement.parse.out_of_range == {"Relevance": 11.0}
    values = rubric_values([judgement])
    assert values["judged"] == 1.0 and values["relevance"] == 1.1 and values["judge_out_of_range"] == 1.0


def test_panel_values_average_judges() -> None:
    values = rubric_values([judge("valid"), judge("low"), judge("always-invalid")])
    assert values["judged"] == 1.0
    assert values["reasoning_score"] == pytest.approx((82 / 120 + 0.2) / 2)
    assert values["relevance"] == pytest.approx((0.3 + 0.2) / 2)
    assert values["judge_overall"] == pytest.approx((0.68 + 0.2) / 2)
