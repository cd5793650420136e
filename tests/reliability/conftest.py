"""The runs several reliability tests read, made once per session.

`reference`: both tasks on the demo data with the in-process provider `policy/mixed` (model and judge), no
network, no faults. `fault_runs`: the same two tasks as one `inspect eval` subprocess per provider (OpenAI Chat
Completions, Anthropic Messages), the judge on OpenAI, through the fake server serving the same policy with the
fault mix (the two at the same time). The tests then compare results and the server's counts with the reference.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

import pytest
from fakeserver import FakeModelServer
from fakeserver.drive import drive_policy
from fakeserver.offline import refuse_other_hosts
from inspect_ai import eval as inspect_eval
from inspect_runs import QUIET

from .harness import (
    ANTHROPIC_MODEL,
    FAULT_MIX,
    JUDGE_ROLE,
    OPENAI_MODEL,
    POLICY,
    RETRY_ARGS,
    SECRET_KEY,
    TASKS,
    FaultRun,
    Reference,
    ServerRecord,
    check,
    cli_env,
    logs_by_task,
    run_cli,
)


@pytest.fixture(scope="session")
def derived_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One drive_evals cache (stitched grids) for every run of the session, in-process and subprocess."""
    return tmp_path_factory.mktemp("derived")


@pytest.fixture(scope="session")
def reference(tmp_path_factory: pytest.TempPathFactory, derived_cache: Path) -> Reference:
    tmp = tmp_path_factory.mktemp("reference")
    calls = tmp / "calls.txt"
    with pytest.MonkeyPatch.context() as patch:
        refuse_other_hosts(patch)
        patch.setenv("POLICY_CALLS", str(calls))
        patch.setenv("INSPECT_CACHE_DIR", str(tmp / "inspect-cache"))
        patch.setenv("DRIVE_EVALS_CACHE", str(derived_cache))
        logs = inspect_eval(
            list(TASKS),
            model=f"policy/{POLICY}",
            model_roles={"grader": f"policy/{POLICY}"},
            task_args={"data": "demo"},
            log_dir=str(tmp / "logs"),
            **QUIET,
        )
    assert all(log.status == "success" for log in logs), [log.error for log in logs]
    asked = [line.split(" ", 1) for line in calls.read_text().splitlines()]
    by_sample: dict[str, list[str]] = {}
    for key, sample in asked:
        by_sample.setdefault(sample, []).append(key)
    return Reference({log.eval.task: log for log in logs}, Counter(key for key, _ in asked), by_sample)


def run_with_faults(model: str, tmp: Path, derived_cache: Path, server: FakeModelServer) -> FaultRun:
    """Both tasks in one `inspect eval` (one start-up), the model and the judge served with the fault mix."""
    env = cli_env(server, tmp, DRIVE_EVALS_CACHE=str(derived_cache))
    args = ["eval", *TASKS, "--model", model, "--model-role", JUDGE_ROLE, "-T", "data=demo", *RETRY_ARGS]
    cli = run_cli([*args, "--max-tasks", "2", "--log-dir", str(tmp / "logs")], env, tmp)
    record = ServerRecord.of(server)
    check(cli, f"inspect eval with {model} and faults")
    return FaultRun(model, logs_by_task(tmp / "logs"), record, server, env, cli, tmp)


@pytest.fixture(scope="session")
def fault_runs(
    tmp_path_factory: pytest.TempPathFactory, derived_cache: Path, reference: Reference
) -> Iterator[dict[str, FaultRun]]:
    """Provider name -> its run with faults (the reference is made first: it builds the grids both share).

    The two runs go at the same time, each against its own server: most of a run's wall time is waiting out the
    hangs it is served (an attempt timeout each), which the two runs can wait out together."""
    with ExitStack() as servers, ThreadPoolExecutor(max_workers=2) as pool:
        futures = {}
        for model in (OPENAI_MODEL, ANTHROPIC_MODEL):
            provider = model.split("/")[0]
            server = servers.enter_context(
                FakeModelServer(policy=drive_policy(POLICY), fault_plan=FAULT_MIX, api_keys={SECRET_KEY})
            )
            tmp = tmp_path_factory.mktemp(provider)
            futures[provider] = pool.submit(run_with_faults, model, tmp, derived_cache, server)
        yield {provider: future.result() for provider, future in futures.items()}
