"""A model or judge that stops answering mid-run stops the run after a bounded time, with one line on stderr (also
under `--display none`), and the finished samples stay in the log for `inspect eval-retry`.

Before (main at 2c3e92f): no call timeout by default (Inspect retries a refused connection or a hung attempt
forever); with `--timeout` the run stopped silently under `--display none` with `RetryError(<Future ...>)` in the log.
The bounds here are small (`--timeout 4`, attempt timeout 1 s); the default is `CALL_TIMEOUT_SECONDS`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fakeserver import FakeModelServer
from fakeserver.drive import drive_policy
from fakeserver.offline import PROXY_VARS
from inspect_ai.log import list_eval_logs, read_eval_log
from inspect_runs import RUNNER

MODEL = "openai/gpt-4o-2024-08-06"
BOUNDS = ["--timeout", "4", "--attempt-timeout", "1", "--max-connections", "2", "--display", "none"]
TIMEOUT_SECONDS = 300


def run(args: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in PROXY_VARS and not k.endswith("_API_KEY")}
    environment.update(NO_COLOR="1", HF_HUB_OFFLINE="1", DRIVE_EVALS_CACHE=str(tmp_path / "derived"), **env)
    environment.update(INSPECT_CACHE_DIR=str(tmp_path / "cache"))
    command = [sys.executable, str(RUNNER), *args]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=TIMEOUT_SECONDS, env=environment, cwd=tmp_path
    )


@pytest.mark.slow
def test_a_model_that_stops_answering_stops_the_run_and_eval_retry_finishes_it(tmp_path: Path) -> None:
    with FakeModelServer(policy=drive_policy("correct")) as server:
        server.silent_after = 6
        env = {"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": server.openai_base_url}
        args = ["eval", "drive_evals/surds", "--model", MODEL, "-T", "data=demo", "--limit", "12", *BOUNDS]
        stopped = run([*args, "--log-dir", "logs/stopped"], tmp_path, **env)
        output = stopped.stdout + stopped.stderr
        assert stopped.stdout == "" and stopped.returncode == 1, output
        expected = f"Run stopped: the model under test {MODEL} at {server.openai_base_url.rstrip('/')} gave no answer"
        expected += " within --timeout 4 s"
        assert " ".join(stopped.stderr.split()).count(expected) == 1 and "Traceback" not in output, output
        assert len(stopped.stderr.strip().splitlines()) == 1, "one line"
        [location] = list_eval_logs(str(tmp_path / "logs" / "stopped"))
        resume = f"inspect eval-retry logs/stopped/{Path(location.name).name} --log-dir logs/stopped"
        assert stopped.stderr.strip().endswith(f"Once it answers: {resume}"), output
        log = read_eval_log(location)
        assert log.status == "error" and log.error is not None and expected in log.error.message
        finished = {str(s.id) for s in log.samples or [] if s.error is None}
        assert finished, "samples answered before the server stopped answering are kept"

        server.silent_after = None
        answered_before = len(server.requests)
        retried = run(resume.split()[1:], tmp_path, **env)  # the command the message gives, as given
        assert retried.returncode == 0, retried.stdout + retried.stderr
        asked_again = {r.key for r in server.requests[answered_before:]}
        every_prompt = {r.key for r in server.requests}
    logs = [read_eval_log(info) for info in list_eval_logs(str(tmp_path / "logs" / "stopped"))]
    [final] = [log for log in logs if log.status == "success"]  # beside the stopped one, where the report looks
    assert len(logs) == 2 and len(final.samples or []) == 12
    assert len(asked_again) < len(every_prompt), "the finished samples' prompts were not asked again"


@pytest.mark.slow
def test_a_judge_that_stops_answering_trips_the_breaker_at_its_first_unanswered_call(tmp_path: Path) -> None:
    with (
        FakeModelServer(policy=drive_policy("correct")) as model_server,
        FakeModelServer(policy=drive_policy("correct")) as judge_server,
    ):
        judge_server.silent_after = 0
        env = {"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": model_server.openai_base_url}
        env |= {"JUDGE_API_KEY": "sk-judge", "JUDGE_BASE_URL": judge_server.openai_base_url}
        args = ["eval", "drive_evals/drivelmm_o1", "--model", MODEL, "-T", "data=demo"]
        args += ["--model-role", "grader={model: openai-api/judge/gpt-4o-mini, attempt_timeout: 1}", *BOUNDS]
        result = run([*args, "--log-dir", str(tmp_path / "logs")], tmp_path, **env)
    output = result.stdout + result.stderr
    assert result.stdout == "" and result.returncode == 1, output
    expected = "Run stopped: the judge openai-api/judge/gpt-4o-mini gave no answer within --timeout 4 s"
    assert " ".join(result.stderr.split()).count(expected) == 1, "the first unanswered call trips the breaker"
    assert len(result.stderr.strip().splitlines()) == 1, output
    [log] = [read_eval_log(info) for info in list_eval_logs(str(tmp_path / "logs"))]
    assert log.status == "error"
    assert any(s.scores and s.scores["drivelmm_o1_scorer"].reason == "grader_failed" for s in log.samples or [])


def test_every_task_bounds_each_call_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without `--timeout`, Inspect retries forever; the tasks set a bound, which role models inherit."""
    from inspect_ai._util.registry import registry_create

    from drive_evals._registry import benchmark_tasks
    from drive_evals.endpoints import SWITCH_ENV
    from drive_evals.unanswered import CALL_TIMEOUT_SECONDS

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")  # the default judges are built (no request is sent)
    monkeypatch.setenv(SWITCH_ENV, "0")
    for task in benchmark_tasks():
        built = registry_create("task", task.qualified, data="demo")
        assert built.config.timeout == CALL_TIMEOUT_SECONDS, task.name


def test_only_errors_that_mean_no_answer_stop_the_run() -> None:
    import openai
    from inspect_ai.model._model import AttemptTimeoutError
    from tenacity import Future, RetryError

    from drive_evals.unanswered import gave_up

    attempt = Future(1)
    attempt.set_exception(AttemptTimeoutError(1))
    assert gave_up(RetryError(attempt))
    assert gave_up(openai.APIConnectionError(request=None))  # type: ignore[arg-type]
    assert not gave_up(ValueError("a broken body"))
