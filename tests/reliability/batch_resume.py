"""A `--batch` run killed with some jobs returned and others in flight, then `inspect eval-retry`: what is paid twice.

The fake server processes (and so bills) every job when it is created, lets only the first `returned_jobs` jobs
complete and keeps the later ones in flight. The run is killed (SIGKILL) once its state can no longer change: those
jobs' results were downloaded, `in_flight_jobs` more are waiting, the samples they finished are in the log and,
with `--cache`, their replies are in Inspect's cache. Jobs hold exactly `size` requests (`size` = `max_size`, and
every round's request count is a multiple of it), so the counts are the same on every run. The resumed run's
requests are then compared with the killed run's, prompt by prompt.

As a script, `PYTHONPATH=tests python -m reliability.batch_resume [openai|anthropic]` (from the repository root)
prints the table docs/batch.md shows.
"""

from __future__ import annotations

import contextlib
import json
import signal
import sqlite3
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from fakeserver import FakeModelServer
from fakeserver.batches import FakeBatch
from fakeserver.drive import drive_policy, surds_request_keys
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log
from inspect_runs import RUNNER
from waiting import wait_for

from .harness import (
    ANTHROPIC_MODEL,
    JUDGE,
    O1,
    OPENAI_MODEL,
    SURDS,
    check,
    cli_env,
    every_sample_scored,
    run_cli,
    samples_on_disk,
)

MODELS = {"openai": OPENAI_MODEL, "anthropic": ANTHROPIC_MODEL}
POLICY = "correct"
"""Every judge reply is valid, so no judge retry adds a job whose size depends on the policy."""
JOB_SIZE = 4
SEND_DELAY_SECONDS = 15.0
"""Inspect's default: far longer than a run takes to queue a round of requests (well under a second), so a job is
sent when it holds `JOB_SIZE` requests, never part-full on a timer (a resumed run may send one part-full job)."""
TICK_SECONDS = 0.05
"""How often the batcher polls (Inspect's default is 15 s)."""
KILL_WAIT_SECONDS = 300
"""Only a bound: the killed run reaches its planned state within seconds."""


@dataclass(frozen=True)
class Scenario:
    name: str
    task: str
    task_args: tuple[str, ...]
    limit: int | None
    returned_jobs: int
    in_flight_jobs: int
    cache: bool
    flushed: bool = True
    """--log-buffer 1 writes each finished sample to the log at once; without it (Inspect's default buffer) the
    samples the killed run finished are only in Inspect's sample buffer, from which eval-retry recovers them."""

    def args(self, tmp: Path) -> list[str]:
        """`inspect eval` arguments."""
        batch_file = tmp / "batch.json"  # the CLI takes a batch config as a file
        batch = {"size": JOB_SIZE, "max_size": JOB_SIZE, "send_delay": SEND_DELAY_SECONDS, "tick": TICK_SECONDS}
        batch_file.write_text(json.dumps(batch))
        args = [self.task, "--batch", str(batch_file), "--model-role", f"grader={JUDGE}"]
        args += ["--log-buffer", "1"] if self.flushed else []
        for arg in self.task_args:
            args += ["-T", arg]
        args += ["--limit", str(self.limit)] if self.limit else []
        return args + (["--cache"] if self.cache else [])


SURDS_ARGS = ("data=demo", "subsets=distance")
"""16 pair units, 32 prompts: 8 jobs of 4, all sent at once (a pair's prompts are asked together)."""
DRIVELMM_O1_ARGS = ("data=demo",)
DRIVELMM_O1_LIMIT = 16
"""16 answers (4 jobs), then a judge call for each answer that returned."""

SCENARIOS = {
    # 2 of the 8 jobs returned (8 prompts), 6 in flight (24 prompts)
    "surds": Scenario("surds", SURDS, SURDS_ARGS, None, returned_jobs=2, in_flight_jobs=6, cache=False),
    "surds-cache": Scenario("surds-cache", SURDS, SURDS_ARGS, None, returned_jobs=2, in_flight_jobs=6, cache=True),
    # 2 of the 4 answer jobs returned (8 answers), their 8 judge calls in 2 jobs in flight, 2 answer jobs in flight
    "drivelmm_o1": Scenario(
        "drivelmm_o1", O1, DRIVELMM_O1_ARGS, DRIVELMM_O1_LIMIT, returned_jobs=2, in_flight_jobs=4, cache=False
    ),
    "drivelmm_o1-cache": Scenario(
        "drivelmm_o1-cache", O1, DRIVELMM_O1_ARGS, DRIVELMM_O1_LIMIT, returned_jobs=2, in_flight_jobs=4, cache=True
    ),
}
UNFLUSHED = Scenario(
    "surds-unflushed", SURDS, SURDS_ARGS, None, returned_jobs=2, in_flight_jobs=6, cache=False, flushed=False
)
"""The default SURDS run killed with its 4 finished units in Inspect's sample buffer only, not in the log."""


def buffered_samples(data_home: Path) -> int:
    """Finished samples in Inspect's sample-buffer databases under `data_home` (its `XDG_DATA_HOME`)."""
    total = 0
    for database in data_home.rglob("*.db"):
        with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as connection:
            try:
                rows = connection.execute("SELECT data FROM samples").fetchall()
            except sqlite3.Error:  # not a sample buffer, or not created yet
                continue
        total += sum(bool(json.loads(data).get("completed")) for (data,) in rows)
    return total


@dataclass(frozen=True)
class ResumeCost:
    """Requests (one per prompt: the fake server keys each by its content) before and after the kill."""

    paid_before_kill: int
    returned: int
    """Requests of the jobs whose results the killed run downloaded."""
    in_flight: int
    """Requests of the jobs still running at the kill (paid, their results never read)."""
    finished_samples: int
    """Samples the killed run had finished (eval-retry keeps them)."""
    resumed: int
    """Requests the resumed run sent."""
    paid_twice: int
    """Requests the resumed run sent that the killed run had already paid for."""
    in_flight_paid_twice: int
    returned_paid_twice: int
    """Of `paid_twice`: requests whose reply the killed run had received."""


def cache_entries(cache_dir: Path) -> int:
    """Replies in Inspect's cache (one file each)."""
    return sum(1 for path in cache_dir.rglob("*") if path.is_file()) if cache_dir.exists() else 0


def keys_of(jobs: list[FakeBatch]) -> set[str]:
    return {key for job in jobs for key in job.keys}


def finished_units(answered: set[str]) -> int:
    """Demo SURDS units every prompt of which is in `answered`."""
    return sum(all(key in answered for key in keys) for keys in surds_request_keys().values())


def kill_and_resume(server: FakeModelServer, scenario: Scenario, model: str, tmp: Path, **env_extra: str) -> ResumeCost:
    """Run `scenario` on `server`, kill it in its planned state, resume it with eval-retry: what each paid."""
    return kill_and_retry(server, scenario, model, tmp, **env_extra)[0]


def kill_and_retry(
    server: FakeModelServer, scenario: Scenario, model: str, tmp: Path, **env_extra: str
) -> tuple[ResumeCost, EvalLog]:
    """`kill_and_resume`, also giving the resumed run's log."""
    log_dir, resumed_dir = tmp / "logs", tmp / "resumed"
    env = cli_env(server, tmp, **env_extra)
    cache_dir = Path(env["INSPECT_CACHE_DIR"])
    store = server.batch_store
    store.complete_first = scenario.returned_jobs
    planned_jobs = scenario.returned_jobs + scenario.in_flight_jobs

    def settled() -> bool:
        """The planned jobs exist, the returned ones' replies are where a retry can find them."""
        returned = store.returned
        if len(returned) < scenario.returned_jobs or len(store.batches) < planned_jobs:
            return False
        answered = keys_of(returned)  # the first jobs are the model's: the judge's come after them
        if scenario.cache and cache_entries(cache_dir) < len(answered):
            return False
        finished = samples_on_disk(log_dir) if scenario.flushed else buffered_samples(Path(env["XDG_DATA_HOME"]))
        return scenario.task != SURDS or finished >= finished_units(answered)

    command = [sys.executable, str(RUNNER), "eval", *scenario.args(tmp), "--model", model, "--log-dir", str(log_dir)]
    process = subprocess.Popen(command, env=env, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(settled, KILL_WAIT_SECONDS, f"{scenario.name}: {planned_jobs} jobs, {scenario.returned_jobs} returned")
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    jobs, returned = store.batches, store.returned
    assert (len(jobs), len(returned)) == (planned_jobs, scenario.returned_jobs), "the run went past its plan"
    before = {key: counts.received for key, counts in server.counts.items()}
    requests_before = len(server.requests)
    returned_keys = keys_of(returned)
    in_flight_keys = keys_of([job for job in jobs if job not in returned])
    finished = samples_on_disk(log_dir) if scenario.flushed else buffered_samples(Path(env["XDG_DATA_HOME"]))
    assert scenario.flushed or samples_on_disk(log_dir) == 0, "finished samples reached the log: nothing to recover"
    store.complete_first = None
    (killed,) = list_eval_logs(str(log_dir))
    # eval-retry has no --batch: it takes the batch config (and --cache) from the killed run's log
    check(run_cli(["eval-retry", killed.name, "--log-dir", str(resumed_dir)], env, tmp), f"{scenario.name} retry")
    again = {key for key, count in before.items() if server.counts[key].received > count}
    (resumed,) = list_eval_logs(str(resumed_dir))
    resumed_log = read_eval_log(resumed)
    problems = every_sample_scored(resumed_log)
    assert problems == [], problems
    cost = ResumeCost(
        paid_before_kill=requests_before,
        returned=len(returned_keys),
        in_flight=len(in_flight_keys),
        finished_samples=finished,
        resumed=len(server.requests) - requests_before,
        paid_twice=len(again),
        in_flight_paid_twice=len(again & in_flight_keys),
        returned_paid_twice=len(again & returned_keys),
    )
    return cost, resumed_log


def main() -> None:
    provider = sys.argv[1] if len(sys.argv) > 1 else "openai"
    print("| scenario | paid before the kill | returned / in flight | samples kept | resumed run sent | paid twice |")
    print("|---|---|---|---|---|---|")
    for scenario in SCENARIOS.values():
        with tempfile.TemporaryDirectory() as tmp, FakeModelServer(drive_policy(POLICY)) as server:
            cost = kill_and_resume(server, scenario, MODELS[provider], Path(tmp))
        print(
            f"| {scenario.name} | {cost.paid_before_kill} | {cost.returned} / {cost.in_flight} | "
            f"{cost.finished_samples} | {cost.resumed} | {cost.paid_twice} "
            f"({cost.in_flight_paid_twice} in flight + {cost.returned_paid_twice} returned) |"
        )


if __name__ == "__main__":
    main()
