"""`--batch` through the fake server's batch APIs: both tasks, both providers, the judge batched too.

Each run is compared with the same run made with direct calls: the scores must be identical, every model and judge
request must have gone through a batch job (none direct), and the number of batch jobs is what the batcher's
settings give. Polling is kept to a fraction of a second through `BatchConfig` (Inspect's default tick is 15 s).
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest
from fakeserver import FakeModelServer
from fakeserver.drive import drive_policy
from fakeserver.offline import refuse_other_hosts
from inspect_ai.log import list_eval_logs
from waiting import wait_for

from .batch_runs import FAST_BATCH_CLI, LIMIT, MODELS, compare
from .harness import (
    OPENAI_MODEL,
    POLICY,
    RUNNER,
    TASKS,
    check,
    cli_env,
    differences,
    every_sample_scored,
    logs_by_task,
    run_cli,
)

KILL_WAIT_SECONDS = 120


@pytest.mark.slow
@pytest.mark.parametrize("provider", sorted(MODELS))
def test_batch_run_scores_as_the_direct_run(provider: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    refuse_other_hosts(monkeypatch)
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path))  # restored after the test; `compare` sets its own
    with FakeModelServer(drive_policy(POLICY)) as server:
        for name, value in server.client_env().items():
            monkeypatch.setenv(name, value)
        result = compare(server, provider, tmp_path)
    direct, batched, jobs = result.direct, result.batched, result.jobs
    direct_requests, batch_requests = result.direct_requests, result.batch_requests

    assert set(batched) == set(direct) == set(TASKS)
    for task, log in batched.items():
        assert every_sample_scored(log) == [], task
        assert differences(log, direct[task]) == [], f"{provider} {task}: batch run differs from the direct run"
    # every request of the batch run (model and judge, judge retries included) was answered inside a batch job
    assert batch_requests == direct_requests == sum(len(job.results) for job in jobs)
    assert len(jobs) < batch_requests, "requests were gathered into jobs"
    apis = {job.api for job in jobs}
    assert apis == {provider, "openai"}, "the model's provider and the judge's (OpenAI) both ran batch jobs"


@pytest.mark.slow
def test_killed_batch_run_resumes_and_pays_in_flight_prompts_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run killed while its batches are in flight loses them: `eval-retry` submits those prompts again."""
    refuse_other_hosts(monkeypatch)
    log_dir = tmp_path / "logs"
    with FakeModelServer(drive_policy(POLICY)) as server:
        env = cli_env(server, tmp_path)
        server.batch_store.hold.set()  # batches are processed (paid) at once but report in_progress
        batch_config = tmp_path / "batch.json"  # the CLI takes a batch config as a file
        batch_config.write_text(FAST_BATCH_CLI)
        command = [sys.executable, str(RUNNER), "eval", TASKS[0], "--model", OPENAI_MODEL, "--batch", str(batch_config)]
        command += ["--limit", str(LIMIT), "--log-dir", str(log_dir), "-T", "data=demo", "-T", "subsets=depth,distance"]
        process = subprocess.Popen(command, env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_for(lambda: len(server.batch_store.batches) >= 1, KILL_WAIT_SECONDS, "a batch job")
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait()
        paid_before = {key: counts.received for key, counts in server.counts.items()}
        jobs_before = len(server.batch_store.batches)
        server.batch_store.hold.clear()
        (killed,) = list_eval_logs(str(log_dir))
        # eval-retry has no --batch: it takes the batch config from the killed run's log
        check(run_cli(["eval-retry", killed.name, "--log-dir", str(tmp_path / "resumed")], env, tmp_path), "retry")
        resumed_jobs = len(server.batch_store.batches) - jobs_before
        paid_twice = [key for key, counts in server.counts.items() if counts.received > 1]
    log = logs_by_task(tmp_path / "resumed")[TASKS[0]]
    assert every_sample_scored(log) == []
    assert paid_before, "the killed run had submitted a batch"
    assert resumed_jobs > 0, "the resumed run batches too"
    assert sorted(paid_twice) == sorted(paid_before), "exactly the prompts in flight at the kill are paid twice"
