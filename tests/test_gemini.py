"""Both tasks through Inspect's real `google/` provider (google-genai) against the fake Gemini server, judge included.

A run through the fake server must score exactly as the same policy served in-process (`policy/<name>`): any
difference is the Gemini path losing, repeating or changing a reply. Thinking (`thought: true` parts) is kept in
the log and never scored; what is scored is the answer text.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fakeserver import FakeModelServer, FakeRequest, Reply
from fakeserver.drive import drive_policy, drivelmm_o1_prompts, drivelmm_o1_reply, lookup_key, normalise, surds_prompts
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ContentReasoning, Model, get_model
from inspect_runs import QUIET, metrics
from reliability.batch_runs import FAST_BATCH
from reliability.harness import differences

from drive_evals.drivelmm_o1.prompts import JUDGE_SCHEMA_KEYS, JUDGE_SYSTEM_PROMPT

GEMINI_MODEL = "google/gemini-2.0-flash"
GEMINI_JUDGE = "google/gemini-2.5-flash"
SURDS, O1 = "drive_evals/surds", "drive_evals/drivelmm_o1"
SURDS_SCORER, DRIVELMM_O1_SCORER = "surds_scorer", "drivelmm_o1_scorer"
POLICY = "mixed"
"""Right, wrong, malformed and chance replies, and judge replies that are not JSON: scores are neither 0 nor 1."""
SURDS_SAMPLES = ["surds-*-000[0-2]"]
"""Three units of each of the six subsets (the pair subsets ask two prompts each)."""
THOUGHT_MARK = "Thinking it over"
DRIVELMM_O1_BATCH_LIMIT = 6


def is_judge(request: FakeRequest) -> bool:
    return request.system is not None and normalise(request.system) == normalise(JUDGE_SYSTEM_PROMPT)


def judge_role(server: FakeModelServer) -> dict[str, Model]:
    return {"grader": get_model(GEMINI_JUDGE, base_url=server.gemini_base_url)}


def run(task: str, server: FakeModelServer, tmp_path: Path, name: str, model: str, **options: Any) -> EvalLog:
    """One in-process run; Google models get the server's URL explicitly (Inspect caches models by name and base
    URL, so a model made for an earlier test's server would otherwise be reused)."""
    google = model.startswith("google/")
    if google and options.pop("judge", False):
        options["model_roles"] = judge_role(server)
    (log,) = inspect_eval(
        task,
        model=model,
        model_base_url=server.gemini_base_url if google else None,
        task_args={"data": "demo", **options.pop("task_args", {})},
        log_dir=str(tmp_path / name),
        **QUIET,
        max_retries=1,
        **options,
    )
    assert log.status == "success", log.error
    return log


@pytest.mark.parametrize("streaming", [False, True], ids=["generateContent", "streamGenerateContent"])
def test_surds_through_gemini_scores_as_in_process(
    fake_model_server: FakeModelServer, tmp_path: Path, streaming: bool
) -> None:
    fake_model_server.policy = drive_policy(POLICY)
    model_args = {"streaming": True} if streaming else {}
    log = run(
        SURDS, fake_model_server, tmp_path, "gemini", GEMINI_MODEL, sample_id=SURDS_SAMPLES, model_args=model_args
    )
    reference = run(SURDS, fake_model_server, tmp_path, "reference", f"policy/{POLICY}", sample_id=SURDS_SAMPLES)
    assert differences(log, reference) == []
    assert 0 < metrics(log, SURDS_SCORER)["overall"] < 1
    requests = fake_model_server.requests
    assert requests and {(r.api, r.model, r.config.stream) for r in requests} == {
        ("gemini", "gemini-2.0-flash", streaming)
    }
    assert all(r.part_order == ["text", "image"] for r in requests), "the prompt, then the frame"
    inline = [part["inlineData"] for r in requests for part in r.raw["contents"][-1]["parts"] if "inlineData" in part]
    assert len(inline) == len(requests), "one inline image a request (its type checked against its bytes)"
    assert not any(set("+/") & set(blob["data"]) for blob in inline), "JSON bytes go as URL-safe base64"
    assert any(set("-_") & set(blob["data"]) for blob in inline), "the URL-safe alphabet was exercised"


def test_drivelmm_o1_with_a_gemini_judge_scores_as_in_process(
    fake_model_server: FakeModelServer, tmp_path: Path
) -> None:
    fake_model_server.policy = drive_policy(POLICY)
    log = run(O1, fake_model_server, tmp_path, "gemini", GEMINI_MODEL, judge=True)
    reference = run(
        O1, fake_model_server, tmp_path, "reference", f"policy/{POLICY}", model_roles={"grader": f"policy/{POLICY}"}
    )
    assert differences(log, reference) == []
    assert log.samples is not None
    judged = [r for r in fake_model_server.requests if is_judge(r)]
    assert {r.model for r in judged} == {GEMINI_JUDGE.split("/")[1]}
    assert len({r.key for r in judged}) == len(log.samples), "one judge prompt per sample (retries repeat it)"
    for request in judged:
        assert request.raw["systemInstruction"]["parts"][0]["text"] == request.system
        response_format = request.config.response_format or {}
        assert response_format["responseMimeType"] == "application/json"
        assert set(response_format["responseJsonSchema"]["properties"]) == set(JUDGE_SCHEMA_KEYS)
    models = {r.model for r in fake_model_server.requests if not is_judge(r)}
    assert models == {GEMINI_MODEL.split("/")[1]}


def surds_thinking(answer_in: str) -> Callable[[FakeRequest], Reply]:
    """The gold answer in the text and a wrong one in the thought, or the other way round (`answer_in="thought"`)."""

    def policy(request: FakeRequest) -> Reply:
        prompt = surds_prompts()[lookup_key(request.texts, [image.sha256 for image in request.images])]
        wrong = next(o for o in prompt.options if normalise(o).lower() != normalise(prompt.target).lower())
        gold, other = f"<answer>{prompt.target}</answer>", f"<answer>{wrong}</answer>"
        if answer_in == "thought":
            return Reply(text="I will not say.", thought=f"{THOUGHT_MARK}: {gold}")
        return Reply(text=gold, thought=f"{THOUGHT_MARK}: {other}")

    return policy


@pytest.mark.parametrize(("answer_in", "expected"), [("text", 1.0), ("thought", 0.0)])
def test_surds_scores_the_answer_text_not_the_thought(
    fake_model_server: FakeModelServer, tmp_path: Path, answer_in: str, expected: float
) -> None:
    """The official rule takes the first `<answer>`: were the thought scored, it would come first and decide."""
    fake_model_server.policy = surds_thinking(answer_in)
    log = run(
        SURDS,
        fake_model_server,
        tmp_path,
        "gemini",
        GEMINI_MODEL,
        task_args={"subsets": "yaw,depth"},
        sample_id=SURDS_SAMPLES,
    )
    values = metrics(log, SURDS_SCORER)
    assert (values["yaw"], values["depth"], values["valid_rate"]) == (expected, expected, expected)
    assert log.samples is not None
    for sample in log.samples:
        assert all(THOUGHT_MARK not in text for text in sample.store["surds_completions"])
        reasoning = [c for c in sample.output.message.content if isinstance(c, ContentReasoning)]
        assert [c.reasoning.split(":")[0] for c in reasoning] == [THOUGHT_MARK], "the thought is kept in the log"


def test_drivelmm_o1_judge_sees_the_answer_not_the_thought(fake_model_server: FakeModelServer, tmp_path: Path) -> None:
    judge = drive_policy("correct")

    def policy(request: FakeRequest) -> str | Reply:
        if is_judge(request):
            return judge(request)
        key = lookup_key(request.texts, [image.sha256 for image in request.images])
        return Reply(
            text=drivelmm_o1_reply("correct", drivelmm_o1_prompts()[key], key),
            thought=f"{THOUGHT_MARK}. Final Answer: Z",
        )

    fake_model_server.policy = policy
    log = run(O1, fake_model_server, tmp_path, "gemini", GEMINI_MODEL, judge=True)
    values = metrics(log, DRIVELMM_O1_SCORER)
    assert (values["mcq_accuracy"], values["judge_coverage"]) == (1.0, 1.0)
    judged = [r for r in fake_model_server.requests if is_judge(r)]
    assert log.samples is not None and len(judged) == len(log.samples)
    for request in judged:
        response = request.texts[0].split("LLM Response:", 1)[1]
        assert "Reasoning Steps:" in response and THOUGHT_MARK not in response
    assert all(THOUGHT_MARK in str(sample.output.message.content) for sample in log.samples)


def test_a_batched_gemini_judge_scores_as_direct_calls(
    fake_model_server: FakeModelServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--batch` through Google's batch API (upload, `batchGenerateContent`, polling, download): every judge call
    in a batch job, the scores those of the same judge called directly."""
    fake_model_server.policy = drive_policy(POLICY)
    model, roles, limit = f"policy/{POLICY}", judge_role(fake_model_server), DRIVELMM_O1_BATCH_LIMIT
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "direct-cache"))
    direct = run(O1, fake_model_server, tmp_path, "direct", model, model_roles=roles, limit=limit)
    direct_calls = len(fake_model_server.requests)
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "batch-cache"))  # the judge's replies are cached
    batched = run(O1, fake_model_server, tmp_path, "batch", model, model_roles=roles, limit=limit, batch=FAST_BATCH)
    assert differences(batched, direct) == []
    jobs = fake_model_server.batch_store.batches
    assert {job.api for job in jobs} == {"gemini"} and 0 < len(jobs) < direct_calls
    assert sum(len(job.results) for job in jobs) == len(fake_model_server.requests) - direct_calls == direct_calls


def test_inspect_cannot_batch_images_to_google(fake_model_server: FakeModelServer, tmp_path: Path) -> None:
    """A known limit of Inspect 0.3.285: its Google batcher dumps requests without encoding bytes, so a request
    with an image fails to serialise (`TypeError`) before anything is uploaded or paid for. Both benchmarks send
    images: batch only the judge on Google. When Inspect fixes this, this test fails: then test the batch run."""
    fake_model_server.policy = drive_policy(POLICY)
    with pytest.raises(TypeError, match="Object of type bytes is not JSON serializable"):
        inspect_eval(
            SURDS,
            model=GEMINI_MODEL,
            model_base_url=fake_model_server.gemini_base_url,
            task_args={"data": "demo", "subsets": "depth"},
            limit=1,
            batch=FAST_BATCH,
            log_dir=str(tmp_path / "logs"),
            **QUIET,
        )
    assert fake_model_server.requests == [] and fake_model_server.batch_store.batches == []
