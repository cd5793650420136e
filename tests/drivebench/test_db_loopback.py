"""DriveBench through Inspect's real OpenAI provider against the loopback server: the model's and the judge's
requests as sent over HTTP (message layout, sampling, the judge's one user message byte for byte)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakeserver import FakeModelServer, FakeRequest
from fakeserver.offline import PROXY_VARS, refuse_other_hosts
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model
from inspect_runs import QUIET

from drive_evals.drivebench.prompts import JUDGE_SYSTEM_SENTENCE, judge_message, prompt_text

MODEL = "openai/gpt-4o-2024-08-06"
JUDGE = "openai/gpt-3.5-turbo-0125"
KEY = "sk-drivebench-loopback"
REPLY = "B. Turn left, as a car would."


def policy(request: FakeRequest) -> str:
    return "Total Score: 70" if request.texts[0].startswith(JUDGE_SYSTEM_SENTENCE) else REPLY


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
            "drive_evals/drivebench",
            model=model,
            model_roles={"grader": judge},
            task_args={"data": "demo"},
            log_dir=str(tmp_path / "logs"),
            **QUIET,
        )
        requests = list(server.requests)
    assert log.status == "success", log.error
    assert log.samples is not None
    judged = [r for r in requests if r.model == "gpt-3.5-turbo-0125"]
    generated = [r for r in requests if r.model == "gpt-4o-2024-08-06"]
    assert len(judged) == len(generated) == len(log.samples) == 15
    expected_judge, expected_model = set(), set()
    for sample in log.samples:
        meta = sample.metadata
        expected_judge.add(
            judge_message(
                meta["task"], meta["kind"], meta["question"], meta["answer"], REPLY, meta["judge_description"]
            )
        )
        expected_model.add((prompt_text(meta["cameras"], meta["question"]), len(meta["cameras"])))
    for request in judged:
        assert request.raw["messages"] == [{"role": "user", "content": request.texts[0]}]
        assert request.raw["temperature"] == 0.0 and request.raw["max_tokens"] == 3000
    assert {r.texts[0] for r in judged} == expected_judge
    for request in generated:
        assert request.part_order[-1] == "text" and set(request.part_order[:-1]) == {"image"}
        assert request.raw["temperature"] == 0.2 and request.raw["top_p"] == 0.2 and request.raw["max_tokens"] == 512
        assert all((image.width, image.height) == (224, 224) for image in request.images)
    assert {(r.texts[-1], len(r.images)) for r in generated} == expected_model
