"""Real clients through the fake server, with and without faults: every sample scored, results as in-process.

The policy is the same pure function of the request on both sides, so any difference between a run through a
provider SDK (retries, timeouts, rate limits) and the in-process run is the client path losing, repeating or
changing a reply.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fakeserver import FakeModelServer, Fault, FaultPlan
from fakeserver.drive import drive_policy
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_runs import metrics

from drive_evals.surds.rules import REASON_NO_COMPLETION

from .harness import (
    ANTHROPIC_MODEL,
    DRIVELMM_O1_SCORER,
    FAULT_MIX,
    JUDGE,
    MAX_HANGS_PER_SAMPLE,
    O1,
    OPENAI_MODEL,
    SURDS,
    SURDS_SCORER,
    FaultRun,
    Reference,
    count_problems,
    differences,
    every_sample_scored,
    hangs_per_sample,
)

pytestmark = pytest.mark.slow  # fault runs through the fake servers (subprocesses, hangs)

PROVIDERS = ("openai", "anthropic")
STREAMING_MAX_TOKENS = 8192
"""From this `max_tokens` on, Inspect's Anthropic provider streams."""


@pytest.mark.parametrize("provider", PROVIDERS)
def test_fault_mix_loses_nothing_and_changes_nothing(
    provider: str, fault_runs: dict[str, FaultRun], reference: Reference
) -> None:
    run = fault_runs[provider]
    assert set(run.logs) == {SURDS, O1}
    for task, log in run.logs.items():
        assert every_sample_scored(log) == [], task
        assert differences(log, reference.logs[task]) == [], f"{provider} {task} differs from the in-process run"
    faults = run.record.faults()
    assert set(faults) == {fault.value for fault in FAULT_MIX.rates}, f"every kind of fault was served: {faults}"
    assert run.record.rejected == 0


@pytest.mark.parametrize("provider", PROVIDERS)
def test_no_prompt_answered_more_often_than_asked(
    provider: str, fault_runs: dict[str, FaultRun], reference: Reference
) -> None:
    """Each prompt is answered exactly as often as the in-process run asked it (judge validation retries
    included), and every extra request the server saw was a retry of a fault it served."""
    assert count_problems(fault_runs[provider].record, reference.calls) == []


def test_fault_mix_hangs_no_sample_twice(reference: Reference) -> None:
    """The fault runs wait out their hangs at the same time, so a run takes one attempt timeout, not two or more
    in a row: with the demo's prompts, `FAULT_MIX` serves no sample more than `MAX_HANGS_PER_SAMPLE` hangs. (Only
    time is at stake: when the prompts change and this fails, choose a seed that passes, with every kind of fault
    on first attempts and retries of model and judge calls.)"""
    hangs = hangs_per_sample(FAULT_MIX, reference.sample_calls)
    assert sum(hangs.values()) >= 10, "the fault mix still serves hangs"
    assert {sample: n for sample, n in hangs.items() if n > MAX_HANGS_PER_SAMPLE} == {}


def test_reference_run_is_not_trivial(reference: Reference) -> None:
    """The mixed policy gives scores that a lost or changed reply would move (neither 0 nor 1, some failures)."""
    surds, o1 = reference.logs[SURDS], reference.logs[O1]
    overall = metric(surds, SURDS_SCORER, "overall")
    assert 0.2 < overall < 0.8
    assert 0.0 < metric(o1, DRIVELMM_O1_SCORER, "judge_coverage") < 1.0, "some judge replies fail validation"
    reasons = {s.scores[SURDS_SCORER].reason for s in surds.samples or [] if s.scores}
    assert "invalid_response_format" in reasons


def metric(log: EvalLog, scorer: str, name: str) -> float:
    return metrics(log, scorer)[name]


def run_in_process(model: str, base_url: str, log_dir: Path, **options: object) -> list[EvalLog]:
    """Both tasks (two samples each) through a real provider in this process."""
    return inspect_eval(
        [SURDS, O1],
        model=model,
        model_base_url=base_url,
        model_roles={"grader": JUDGE},
        task_args={"data": "demo", "subsets": "depth,distance"},
        limit=2,
        log_dir=str(log_dir),
        display="none",
        max_retries=1,
        **options,  # type: ignore[arg-type]
    )


def test_cut_anthropic_stream_is_a_visible_no_response(
    fake_model_server: FakeModelServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stream cut after `message_start` is an empty completion with no error and no retry: the scorers must
    say `no_response`, not pass it off as a wrong answer. (The judge is on its own server, without faults.)"""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    fake_model_server.policy = drive_policy("correct")
    with FakeModelServer(drive_policy("correct"), FaultPlan(script=[Fault.TRUNCATED_JSON])) as model_server:
        logs = run_in_process(
            ANTHROPIC_MODEL, model_server.anthropic_base_url, tmp_path, max_tokens=STREAMING_MAX_TOKENS
        )
        assert {fault.fault for fault in model_server.injected} == {Fault.TRUNCATED_JSON}
    surds, o1 = (log.samples or [] for log in logs)
    for sample in surds:
        score = sample.scores[SURDS_SCORER]  # type: ignore[index]
        assert score.reason == "no_response" and score.as_dict()["score"] == 0.0
        assert REASON_NO_COMPLETION in (score.explanation or "")
    for sample in o1:
        score = sample.scores[DRIVELMM_O1_SCORER]  # type: ignore[index]
        assert (sample.output.completion, score.reason) == ("", "no_response")
        assert score.as_dict()["judged"] == 1.0, "judged as given, as the official pipeline does"


@pytest.mark.parametrize("retry_on_error", [0, 1])
def test_openai_empty_choices_errors_visibly_and_retries(
    fake_model_server: FakeModelServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, retry_on_error: int
) -> None:
    """`choices: []` fails the sample inside Inspect's generate (IndexError): never a silent score, and
    `--retry-on-error` recovers it."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    fake_model_server.policy = drive_policy("correct")
    fake_model_server.fault_plan = FaultPlan(script=[Fault.EMPTY_CHOICES])
    logs = run_in_process(OPENAI_MODEL, fake_model_server.openai_base_url, tmp_path, retry_on_error=retry_on_error)
    for log in logs:
        if retry_on_error:
            assert every_sample_scored(log) == []
            assert log.samples and all(s.output.completion for s in log.samples)
        else:
            # The faulted sample errors; one running beside it may finish first or be cancelled with the task (a
            # race), so the check is that the error is visible and that no sample holds a score without a reply.
            assert log.status == "error" and log.samples
            assert any(s.error is not None and "IndexError" in s.error.message for s in log.samples)
            assert all(s.output.completion for s in log.samples if s.scores and s.error is None)
