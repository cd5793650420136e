"""Resuming: a run killed mid-way finishes with `inspect eval-retry` without asking for finished samples again, and
re-scoring a log with the same judge costs no judge request at all."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from fakeserver import FakeModelServer, Gate
from fakeserver.drive import drive_policy, surds_request_keys
from inspect_ai.log import list_eval_logs, read_eval_log
from inspect_runs import RUNNER
from waiting import wait_for

from .harness import (
    DRIVELMM_O1_SCORER,
    JUDGE_ROLE,
    O1,
    OPENAI_MODEL,
    POLICY,
    SECRET_KEY,
    SURDS,
    FaultRun,
    Reference,
    check,
    cli_env,
    differences,
    every_sample_scored,
    logs_by_task,
    run_cli,
    samples_on_disk,
)

pytestmark = pytest.mark.slow  # kills and resumes `inspect` subprocesses

ANSWERS_BEFORE_KILL = 60
"""Of the 160 SURDS demo prompts: the run is then well under way and far from done."""
FINISHED_BEFORE_KILL = 10
"""Samples the log must hold (durably, on disk) before the kill."""
HOLD_LIMIT_SECONDS = 1200
"""Only a bound: held requests are released right after the kill."""
STALL_TIMEOUT_SECONDS = 600
"""Only a bound for a run that never stalls as planned (it does within a minute on a loaded 2-core machine)."""


def test_killed_run_resumes_without_asking_finished_samples_again(
    tmp_path: Path, derived_cache: Path, reference: Reference
) -> None:
    gate = Gate(drive_policy(POLICY), ANSWERS_BEFORE_KILL, HOLD_LIMIT_SECONDS)
    log_dir = tmp_path / "logs"
    with FakeModelServer(policy=gate, api_keys={SECRET_KEY}) as server:
        env = cli_env(server, tmp_path, DRIVE_EVALS_CACHE=str(derived_cache))
        # --log-buffer 1: every finished sample is written to the log at once (the default buffers up to 10).
        args = ["eval", SURDS, "--model", OPENAI_MODEL, "-T", "data=demo", "--log-buffer", "1", "--log-dir"]
        process = subprocess.Popen(
            [sys.executable, str(RUNNER), *args, str(log_dir)],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_for(
                lambda: gate.held > 0 and samples_on_disk(log_dir) >= FINISHED_BEFORE_KILL,
                STALL_TIMEOUT_SECONDS,
                "the run to stall with finished samples in its log",
            )
        finally:
            process.kill()
            process.wait()
        gate.released.set()
        (killed_info,) = list_eval_logs(str(log_dir))
        killed = read_eval_log(killed_info)
        finished = {str(sample.id) for sample in killed.samples or []}
        before = server.counts

        check(run_cli(["eval-retry", killed_info.name, "--log-dir", str(tmp_path / "resumed")], env, tmp_path), "retry")
        after = server.counts

    assert killed.status == "started" and FINISHED_BEFORE_KILL <= len(finished) < len(
        reference.logs[SURDS].samples or []
    )
    resumed = logs_by_task(tmp_path / "resumed")[SURDS]
    assert every_sample_scored(resumed) == []
    # Scores and metrics only: samples that finished but were not yet written when the run died are recovered by
    # eval-retry from Inspect's sample buffer without their store, which holds a pair's two completions (see
    # MISSING_COMPLETIONS in the SURDS scorer); their scores are the original run's.
    assert differences(resumed, reference.logs[SURDS], completions=False) == []
    keys = surds_request_keys()
    repeated = [(i, k) for i in finished for k in keys[i] if after[k].received != before[k].received]
    assert repeated == [], "a finished sample was asked again"
    assert all(before[k].answered == 1 for i in finished for k in keys[i])


def test_rescoring_reuses_every_judgement(fault_runs: dict[str, FaultRun], tmp_path: Path) -> None:
    """`inspect score` with the same judge reads every judgement from Inspect's cache: no judge request at all,
    failed validations included, and the same scores."""
    run = fault_runs["openai"]
    log = run.logs[O1]
    before = run.server.counts
    rescored = tmp_path / "rescored.eval"
    args = [
        "score",
        log.location,
        "--scorer",
        f"drive_evals/{DRIVELMM_O1_SCORER}",
        "--model-role",
        JUDGE_ROLE,
        "--action",
        "overwrite",
    ]
    check(run_cli([*args, "--output-file", str(rescored)], run.env, run.tmp), "inspect score")
    assert run.server.counts == before, "re-scoring sent judge requests"
    assert differences(read_eval_log(str(rescored)), log) == []
