"""The judge is checked before the first generation, and a judge that keeps failing stops the run.

The breaker run goes through the real `openai/` provider and the fake server: the model under test is accepted,
the judge's key is refused with a 401 (which Inspect does not retry).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from fakeserver import FakeModelServer
from fakeserver.drive import drive_policy
from fakeserver.offline import PROXY_VARS, refuse_other_hosts
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log
from inspect_ai.model import ModelName, get_model
from inspect_ai.solver import TaskState
from inspect_runs import QUIET, RUNNER

from drive_evals.drivelmm_o1.judge import DEFAULT_GRADER
from drive_evals.endpoints import SWITCH_ENV
from drive_evals.errors import JudgeUnavailableError
from drive_evals.judge_guard import JudgeBreaker, JudgeStoppedError, plain_reason, stop_when_judge_down

O1 = "drive_evals/drivelmm_o1"
JUDGE_TASK = "drive_evals/drivelmm_o1_judge"
SCORER = "drivelmm_o1_scorer"
MODEL = "openai/gpt-4o-2024-08-06"
JUDGE = "openai/gpt-4o-mini-2024-07-18"
GOOD_KEY = "sk-good-judge-guard-test"
REFUSED_KEY = "sk-refused-judge-guard-test"
POLICY = "correct"
"""Valid judge replies every time (`mixed` answers a tenth of judge prompts with prose)."""
OPENAI_KEY_VARS = ("OPENAI_API_KEY", "AZUREAI_OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "OPENAI_BASE_URL")


@pytest.fixture
def no_openai_key(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in OPENAI_KEY_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DRIVE_EVALS_CACHE", str(tmp_path / "derived"))
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))


# --- the breaker ---------------------------------------------------------------------------------------------


def test_breaker_trips_on_consecutive_api_errors_of_one_judge() -> None:
    breaker = JudgeBreaker(limit=3)
    error = RuntimeError("Error code: 401 - invalid key")
    for _ in range(2):
        breaker.record("openai/a", error)
    breaker.record("openai/a", None)  # any reply, valid or not, resets the count
    breaker.record("openai/a", error)
    breaker.record("openai/b", error)  # another judge of a panel keeps its own count
    breaker.record("openai/a", error)
    breaker.check()
    breaker.record("openai/a", error)
    with pytest.raises(JudgeStoppedError) as raised:
        breaker.check()
    assert "3 consecutive calls to the judge openai/a failed" in str(raised.value)
    assert "judge_error_limit=3" in str(raised.value) and "401 - invalid key" in str(raised.value)


def test_breaker_is_logged_as_null() -> None:
    assert JudgeBreaker(limit=1)._repr_params_() is None  # type: ignore[func-returns-value]


def test_plain_reason_drops_rich_markup() -> None:
    from inspect_ai._util.error import PrerequisiteError

    error = PrerequisiteError("ERROR: Unable to initialise\n\nNo [bold][blue]KEY[/blue][/bold] defined.")
    assert plain_reason(error) == "Unable to initialise No KEY defined"


# --- preflight -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("task", [O1, JUDGE_TASK])
def test_missing_key_fails_before_any_sample(task: str, tmp_path: Path, no_openai_key: None) -> None:
    with pytest.raises(JudgeUnavailableError) as raised:
        inspect_eval(task, model="chance/random", task_args={"data": "demo"}, log_dir=str(tmp_path / "logs"))
    message = str(raised.value)
    assert f"role 'grader', model {DEFAULT_GRADER} (the default" in message
    assert "OPENAI_API_KEY" in message and "[bold]" not in message
    assert ("-T judge=false" in message) == (task == O1), "only drivelmm_o1 has a `judge` parameter"
    assert not list_eval_logs(str(tmp_path / "logs")), "no log: nothing ran"


def test_judge_off_needs_no_judge(tmp_path: Path, no_openai_key: None) -> None:
    logs = inspect_eval(
        O1,
        model="chance/random",
        task_args={"data": "demo", "judge": False},
        limit=1,
        log_dir=str(tmp_path / "logs"),
        **QUIET,
    )
    assert logs[0].status == "success", logs[0].error


def test_bound_grader_is_used_without_the_default_key(tmp_path: Path, no_openai_key: None) -> None:
    logs = inspect_eval(
        O1,
        model="chance/random",
        model_roles={"grader": "chance/random"},
        task_args={"data": "demo"},
        limit=1,
        log_dir=str(tmp_path / "logs"),
        **QUIET,
    )
    assert logs[0].status == "success", logs[0].error
    assert (logs[0].eval.metadata or {})["judges"] == ["chance/random"]


# --- stop on repeated judge API errors -----------------------------------------------------------------------


def stopped_run(tmp_path: Path, server: FakeModelServer, monkeypatch: pytest.MonkeyPatch) -> EvalLog:
    """DriveLMM-o1 on the demo, one sample at a time, the judge refused: the breaker (limit 2) trips at once."""
    refuse_other_hosts(monkeypatch)
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", GOOD_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
    monkeypatch.setenv("DRIVE_EVALS_CACHE", str(tmp_path / "derived"))
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv(SWITCH_ENV, "0")  # the refused judge must reach its calls, past the endpoint check
    # Not memoized: a cached client would still point at an earlier test's server, and retry it forever.
    model = get_model(MODEL, api_key=GOOD_KEY, base_url=server.openai_base_url, memoize=False)
    judge = get_model(JUDGE, api_key=REFUSED_KEY, base_url=server.openai_base_url, memoize=False)
    [log] = inspect_eval(
        O1,
        model=model,
        model_roles={"grader": judge},
        task_args={"data": "demo", "judge_error_limit": 2},
        max_samples=1,
        log_dir=str(tmp_path / "logs"),
        **QUIET,
    )
    return log


def test_refused_judge_stops_the_run_and_keeps_the_generation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeModelServer(policy=drive_policy(POLICY), api_keys={GOOD_KEY}) as server:
        log = stopped_run(tmp_path, server, monkeypatch)
        generations, refused = server.requests, server.rejections
    assert log.status == "error" and log.error is not None
    assert "2 consecutive calls to the judge" in log.error.message and "judge_error_limit=2" in log.error.message
    assert len(generations) == 1, "one generation was paid for, not one per sample"
    assert [r.status for r in refused] == [401, 401], "the third attempt was not made"
    assert log.samples is not None
    judged = [s for s in log.samples if s.scores and SCORER in s.scores]
    assert len(judged) == 1 and judged[0].scores is not None
    score = judged[0].scores[SCORER]
    assert score.reason == "grader_failed" and judged[0].output.completion, "the generation is kept to judge later"


def inspect_cli(args: list[str], cwd: Path) -> None:
    """`inspect <args>` with stdin closed: a command that stops to ask fails instead of waiting."""
    command = [sys.executable, str(RUNNER), *args]
    result = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300, cwd=cwd)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_recovery_commands_finish_the_run_unattended(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's two commands: `eval-retry` generates and judges what the stopped run never reached, then
    `inspect score` re-judges every sample in place, without a prompt. No sample is generated twice."""
    with FakeModelServer(policy=drive_policy(POLICY), api_keys={GOOD_KEY}) as server:
        stopped = stopped_run(tmp_path, server, monkeypatch)
        retried_dir = tmp_path / "retried"
        inspect_cli(["eval-retry", stopped.location, "--log-dir", str(retried_dir)], tmp_path)
        [retried] = list_eval_logs(str(retried_dir))
        score = ["score", retried.name, "--scorer", "drive_evals/drivelmm_o1_scorer"]
        inspect_cli([*score, "--action", "overwrite", "--overwrite", "--model-role", f"grader={JUDGE}"], tmp_path)
        generations = [r for r in server.requests if r.model == MODEL.split("/")[1]]
    final = read_eval_log(retried.name)
    assert final.status == "success" and final.samples is not None
    assert len(final.samples) == len({r.key for r in generations}) == len(generations), "each generated once"
    assert all(s.scores and s.scores[SCORER].reason != "grader_failed" for s in final.samples)


def test_stop_when_judge_down_passes_until_the_breaker_trips() -> None:
    """The solver step lets a sample through while the judge works and fails it, before generation, once tripped."""
    breaker = JudgeBreaker(limit=1)
    step = stop_when_judge_down(breaker)
    state = TaskState(ModelName("test/x"), "s1", 1, "question", [])
    assert asyncio.run(step(state, generate_nothing)) is state  # type: ignore[arg-type]
    breaker.record("judge/x", RuntimeError("401 invalid key"))
    with pytest.raises(JudgeStoppedError):
        asyncio.run(step(state, generate_nothing))  # type: ignore[arg-type]


async def generate_nothing(state: TaskState) -> TaskState:
    """The `generate` a solver step receives; this step must never call it."""
    raise AssertionError("the breaker step does not generate")
