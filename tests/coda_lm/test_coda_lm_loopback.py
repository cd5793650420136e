"""CODA-LM through Inspect's real OpenAI provider against the loopback server: the judge requests as sent over
HTTP equal the official requests (the `messages` list byte for byte, temperature 0 and no other sampling
parameter), the model's request is the image then the official question, and the reply is rated as the official
parser reads it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fakeserver import FakeModelServer, FakeRequest
from fakeserver.offline import PROXY_VARS, refuse_other_hosts
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model
from inspect_runs import QUIET

from coda_lm.test_coda_lm_prompts import REFERENCE, STAGES, official_request
from drive_evals.coda_lm.prompts import MODEL_PROMPTS

MODEL = "openai/gpt-4o-2024-08-06"
JUDGE = "openai/gpt-4o-2024-05-13"
KEY = "sk-coda-lm-loopback"
ANSWER = "A construction vehicle blocks the lane ahead; the ego car should slow down and pass with care."
SAMPLING = {"temperature", "top_p", "max_tokens", "max_completion_tokens", "seed", "frequency_penalty", "n"}


UNREAD = 'Following the "[[rating]]" format, I give [[4]].'
"""A reply the official parser drops (its first `[[...]]` is the placeholder): sent for one region."""


def policy(request: FakeRequest) -> str:
    if request.model != JUDGE.split("/")[1]:
        return ANSWER
    if len(request.raw["messages"]) == 2 and "suitcase lies" in request.texts[0]:
        return UNREAD
    return "Close to the reference. Rating: [[7]]"


def test_requests_over_http(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    refuse_other_hosts(monkeypatch)
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("DRIVE_EVALS_CACHE", str(tmp_path / "derived"))
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    with FakeModelServer(policy=policy, api_keys={KEY}) as server:
        model = get_model(MODEL, api_key=KEY, base_url=server.openai_base_url, memoize=False)
        judge = get_model(JUDGE, api_key=KEY, base_url=server.openai_base_url, memoize=False)
        [log] = inspect_eval(
            "drive_evals/coda_lm",
            model=model,
            model_roles={"grader": judge},
            task_args={"data": "demo"},
            log_dir=str(tmp_path / "logs"),
            **QUIET,
        )
        requests = list(server.requests)
    assert log.status == "success", log.error
    assert log.samples is not None and len(log.samples) == 21
    judged = [r for r in requests if r.model == "gpt-4o-2024-05-13"]
    generated = [r for r in requests if r.model == "gpt-4o-2024-08-06"]
    assert len(judged) == len(generated) == 21
    expected = sorted(
        json.dumps(official_request(REFERENCE["judge"][STAGES[s.metadata["task"]]], s.metadata["reference"], ANSWER))
        for s in log.samples
    )
    assert sorted(json.dumps(r.raw["messages"]) for r in judged) == expected
    for request in judged:
        assert request.raw["temperature"] == 0.0 and SAMPLING & set(request.raw) == {"temperature"}
    prompts = set(MODEL_PROMPTS.values())
    for request in generated:
        assert request.part_order == ["image", "text"] and request.texts[-1] in prompts
    assert log.results is not None
    metrics = {name: metric.value for name, metric in log.results.scores[0].metrics.items()}
    assert metrics["final_score"] == pytest.approx(0.7)
    assert (metrics["dropped"], metrics["unparsed"], metrics["judge_failed"]) == (2, 1, 0)  # + the unmapped region
    assert metrics["strict_region_perception"] == pytest.approx(0.7 * 8 / 9)  # the unmapped one is rated too
