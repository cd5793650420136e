"""Completions cut by the output token limit: reason `truncated`, `truncated_rate`, and the end-of-run warning.

The fake server cuts a reply longer than `max_tokens` as the real APIs do (OpenAI `finish_reason: "length"`,
Anthropic `stop_reason: "max_tokens"`, Gemini `finishReason: MAX_TOKENS`), so these runs go through Inspect's real
`openai/`, `anthropic/` and `google/` clients.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import pytest
from fakeserver import FakeModelServer, FakeRequest
from fakeserver.drive import lookup_key, surds_prompts, surds_request_keys
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.scorer import SampleScore, Score
from inspect_runs import QUIET, metrics, only_log, run_inspect

from drive_evals.surds.rules import PromptScore
from drive_evals.surds.scorer import INVALID_REASON, NO_RESPONSE_REASON, unit_reason
from drive_evals.truncation import TRUNCATED_REASON, truncation, truncation_warning

OPENAI_MODEL = "openai/gpt-4o-mini"
ANTHROPIC_MODEL = "anthropic/claude-sonnet-4-6"
GEMINI_MODEL = "google/gemini-2.0-flash"
SURDS_SCORER = "surds_scorer"
DRIVELMM_O1_SCORER = "drivelmm_o1_scorer"
MAX_TOKENS = 64
"""Room for a short answer; the runaway replies below are far longer."""
RUNAWAY = "<think>" + "Let me look at the scene again. " * 200
"""A reply still thinking when the limit cuts it: no `<answer>`."""
CUT_PAIR = "surds-yaw-0000"
"""Its first prompt runs away, its second answers: one truncated prompt in a two-prompt unit."""
SAMPLES = ["surds-yaw-000[01]", "surds-depth-000[01]"]

VALID = PromptScore("left", True, 1.0)
NO_BLOCK = PromptScore(None, False, 0.0, "no <answer>...</answer> block")


@pytest.mark.parametrize(
    ("verdicts", "completions", "truncated", "reason"),
    [
        ([VALID, VALID], ["a", "b"], [True, False], None),  # cut after its answer: valid, counted in the rate
        ([NO_BLOCK, VALID], ["a", "b"], [True, False], TRUNCATED_REASON),
        ([NO_BLOCK, NO_BLOCK], ["a", "b"], [False, True], TRUNCATED_REASON),
        ([NO_BLOCK, VALID], ["a", "b"], [False, True], INVALID_REASON),  # the invalid prompt was not cut
        ([NO_BLOCK], [None], [True], TRUNCATED_REASON),  # all tokens spent on hidden reasoning: empty and cut
        ([NO_BLOCK], [None], [False], NO_RESPONSE_REASON),
    ],
)
def test_unit_reason(
    verdicts: list[PromptScore], completions: list[str | None], truncated: list[bool], reason: str | None
) -> None:
    assert unit_reason(verdicts, completions, truncated) == reason


def sample_score(truncated: float, subset: str) -> SampleScore:
    return SampleScore(score=Score(value={"score": 0.0, "truncated": truncated}), sample_metadata={"subset": subset})


def test_truncation_metric_pools_all_samples() -> None:
    scores = [
        sample_score(1.0, "yaw"),
        sample_score(0.0, "yaw"),
        sample_score(0.0, "depth"),
        sample_score(0.5, "depth"),
    ]
    assert truncation()(scores) == {"truncated_rate": pytest.approx(1.5 / 4)}  # type: ignore[arg-type]
    old = SampleScore(score=Score(value={"score": 1.0}), sample_metadata={"subset": "yaw"})
    assert truncation()([old]) == {}, "a log scored before the key existed: none truncated, no line"  # type: ignore[list-item]


def surds_policy(runaway: Callable[[FakeRequest], bool]) -> Callable[[FakeRequest], str]:
    """The gold answer, or `RUNAWAY` where `runaway(request)`."""

    def policy(request: FakeRequest) -> str:
        if runaway(request):
            return RUNAWAY
        prompt = surds_prompts()[lookup_key(request.texts, [image.sha256 for image in request.images])]
        return f"<think>Easy.</think><answer>{prompt.target}</answer>"

    return policy


def runs_away(request: FakeRequest) -> bool:
    """Every depth prompt, and the first prompt of `CUT_PAIR`."""
    prompt = surds_prompts()[lookup_key(request.texts, [image.sha256 for image in request.images])]
    return prompt.subset == "depth" or request.key == surds_request_keys()[CUT_PAIR][0]


def base_url(server: FakeModelServer, model: str) -> str:
    if model.startswith("google/"):
        return server.gemini_base_url
    return server.anthropic_base_url if model.startswith("anthropic/") else server.openai_base_url


def run_surds(server: FakeModelServer, model: str, tmp_path: Path) -> EvalLog:
    (log,) = inspect_eval(
        "drive_evals/surds",
        model=model,
        model_base_url=base_url(server, model),
        task_args={"data": "demo", "subsets": "yaw,depth"},
        sample_id=SAMPLES,
        max_tokens=MAX_TOKENS,
        log_dir=str(tmp_path / "logs"),
        **QUIET,
        max_retries=1,
    )
    assert log.status == "success", log.error
    return log


@pytest.mark.parametrize("model", [OPENAI_MODEL, ANTHROPIC_MODEL, GEMINI_MODEL])
def test_surds_truncated_units(
    fake_model_server: FakeModelServer, tmp_path: Path, caplog: pytest.LogCaptureFixture, model: str
) -> None:
    fake_model_server.policy = surds_policy(runs_away)
    with caplog.at_level(logging.WARNING, logger="drive_evals"):
        log = run_surds(fake_model_server, model, tmp_path)
    assert {r.config.max_tokens for r in fake_model_server.requests} == {MAX_TOKENS}
    values = metrics(log, SURDS_SCORER)
    assert values["truncated_rate"] == 0.75
    assert (values["depth"], values["yaw"], values["valid_rate"]) == (0.0, 0.5, 0.25), "official rules: no <answer>"
    assert log.samples is not None
    reasons = {s.id: s.scores[SURDS_SCORER].reason for s in log.samples if s.scores}
    assert reasons == {
        "surds-depth-0000": TRUNCATED_REASON,
        "surds-depth-0001": TRUNCATED_REASON,
        CUT_PAIR: TRUNCATED_REASON,
        "surds-yaw-0001": None,
    }
    cut = next(s for s in log.samples if s.id == CUT_PAIR)
    assert cut.store["surds_truncated"] == [True, False]
    assert "Prompt 1/2 stopped at the output token limit" in (cut.scores or {})[SURDS_SCORER].explanation  # type: ignore[operator]
    warnings = [r.getMessage() for r in caplog.records if r.name == "drive_evals.run_end"]
    assert len(warnings) == 1 and "75.0% of samples" in warnings[0] and "--max-tokens" in warnings[0]


def test_no_warning_at_or_below_one_percent(
    fake_model_server: FakeModelServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    fake_model_server.policy = surds_policy(lambda request: False)
    with caplog.at_level(logging.WARNING, logger="drive_evals"):
        log = run_surds(fake_model_server, OPENAI_MODEL, tmp_path)
    assert "truncated_rate" not in metrics(log, SURDS_SCORER)
    assert truncation_warning(log) is None
    assert not [r for r in caplog.records if r.name == "drive_evals.run_end"]


def test_drivelmm_o1_truncated_response(fake_model_server: FakeModelServer, tmp_path: Path) -> None:
    """Judged as written (here the judge is off: MCQ only); the reason says it was cut."""
    fake_model_server.policy = lambda request: "Reasoning Steps: " + "I keep reasoning. " * 100
    (log,) = inspect_eval(
        "drive_evals/drivelmm_o1",
        model=ANTHROPIC_MODEL,
        model_base_url=fake_model_server.anthropic_base_url,
        task_args={"data": "demo", "judge": False},
        limit=3,
        max_tokens=MAX_TOKENS,
        log_dir=str(tmp_path / "logs"),
        **QUIET,
        max_retries=1,
    )
    assert log.status == "success", log.error
    assert metrics(log, DRIVELMM_O1_SCORER)["truncated_rate"] == 1.0
    assert log.samples is not None and len(log.samples) == 3
    for sample in log.samples:
        assert sample.output.stop_reason == "max_tokens"
        assert (sample.scores or {})[DRIVELMM_O1_SCORER].reason == TRUNCATED_REASON
    assert truncation_warning(log) is not None


@pytest.mark.slow
def test_cli_prints_the_warning_last(fake_model_server: FakeModelServer, tmp_path: Path) -> None:
    """`inspect eval` as users run it: the warning comes after the task's results and names `--max-tokens`."""
    fake_model_server.policy = lambda request: RUNAWAY
    log_dir = tmp_path / "logs"
    args = ["eval", "drive_evals/surds", "--model", OPENAI_MODEL, "-T", "data=demo", "-T", "subsets=depth"]
    result = run_inspect(
        [*args, "--limit", "2", "--max-tokens", str(MAX_TOKENS)], log_dir, fake_model_server.client_env()
    )
    words = " ".join(result.stdout.split())  # rich wraps the warning to the terminal width
    warning = words.index("100.0% of samples stopped at the output token limit (max_tokens=64)")
    assert words.index("truncated_rate 1.000") < warning, "after the task's results"
    assert "Re-run with a higher --max-tokens" in words[warning:]
    assert only_log(log_dir).results is not None
