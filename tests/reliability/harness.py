"""Running `inspect` as a subprocess against the fake servers, and comparing what two runs logged.

Subprocess runs go through Inspect's real command line and the real provider SDKs; the only thing fake is the
server. Every run gets its own Inspect cache and a distinctive API key, and no proxy or hub access.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
import time
import zipfile
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fakeserver import FakeModelServer, Fault, FaultPlan, InjectedFault, PromptCounts
from fakeserver.offline import PROXY_VARS
from inspect_ai.log import EvalLog, EvalSample, list_eval_logs, read_eval_log
from inspect_runs import RUNNER

TASKS = ("drive_evals/surds", "drive_evals/drivelmm_o1")
SURDS, O1 = TASKS
SURDS_SCORER = "surds_scorer"
DRIVELMM_O1_SCORER = "drivelmm_o1_scorer"
JUDGE = "openai/gpt-4o-mini-judge"
"""A gpt-4o-style name: Inspect sends unknown OpenAI names to the Responses API, which the fake server lacks."""
OPENAI_MODEL = "openai/gpt-4o-mini"
ANTHROPIC_MODEL = "anthropic/claude-sonnet-4-6"
POLICY = "mixed"
SECRET_KEY = "sk-drive-evals-3f9c1e7a5b2d4086-not-for-logs"
"""A distinctive fake key: it must never appear in a log, an error or the console."""
SUBPROCESS_TIMEOUT_SECONDS = 1200
"""Only a bound for a run that never ends: a fault run on a loaded 2-core machine takes a few minutes."""
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)

ATTEMPT_TIMEOUT_SECONDS = 30
"""Far longer than an honest answer ever takes (the server answers in milliseconds; a loaded machine adds seconds
at most), so only a scheduled hang outlasts it. At 3 s, an answer slowed by load was retried and answered twice."""
FAULT_MIX = FaultPlan(
    rates={Fault.SERVER_ERROR: 0.2, Fault.RATE_LIMIT: 0.1, Fault.HANG: 0.05},
    seed=6,
    max_consecutive=2,
    hang_seconds=20 * ATTEMPT_TIMEOUT_SECONDS,
)
"""20% 5xx, 10% 429, 5% hangs that outlast the attempt timeout many times over (the server ends them when it
stops). At most two faults in a row per prompt, so a run needs at most two retries of any request; `RETRY_ARGS`
allows three.

The seed gives the demo runs 19 hangs, 57 5xx and 35 429s, on first attempts and on retries, of model and judge
calls alike, and no sample more than one hang (`MAX_HANGS_PER_SAMPLE`): the samples wait out their hangs at the
same time, so a fault run takes about one attempt timeout. Seed 11 (20 hangs, 53 5xx, 27 429s) gave one
DriveLMM-o1 sample a hung model call and then a hung judge call, two attempt timeouts one after the other, which
doubled the run's wall time (80 s against 40 s)."""
MAX_HANGS_PER_SAMPLE = 1
"""A fault run's wall time is about this many attempt timeouts (and Inspect's backoff after each)."""
RETRY_ARGS = ("--max-retries", "3", "--attempt-timeout", str(ATTEMPT_TIMEOUT_SECONDS))
"""Inspect gives up a hung attempt after `ATTEMPT_TIMEOUT_SECONDS` (then backs off 3-6 s); the SDKs retry 5xx and
429 twice themselves."""
JUDGE_ROLE = f"grader={{model: {JUDGE}, attempt_timeout: {ATTEMPT_TIMEOUT_SECONDS}}}"
"""Role models inherit `--max-retries` but not `--attempt-timeout` (Inspect 0.3.285): the judge needs its own, or
a hung judge call waits for the SDK's ten-minute timeout."""


def cli_env(server: FakeModelServer, tmp: Path, api_key: str = SECRET_KEY, **extra: str) -> dict[str, str]:
    """The environment of an `inspect` subprocess: provider variables aimed at `server`, its own model cache and
    Inspect data directory (traces, sample buffers), so everything the run writes is under `tmp`."""
    env = {name: value for name, value in os.environ.items() if name not in PROXY_VARS}
    env.update(server.client_env(api_key))
    env.update(
        INSPECT_DISPLAY="plain",
        NO_COLOR="1",
        HF_HUB_OFFLINE="1",
        INSPECT_CACHE_DIR=str(tmp / "inspect-cache"),
        XDG_DATA_HOME=str(tmp / "data-home"),
    )
    env.update(extra)
    return env


@dataclass
class CliRun:
    returncode: int
    stdout: str
    stderr: str
    seconds: float


def run_cli(args: Sequence[str], env: Mapping[str, str], cwd: Path) -> CliRun:
    """`inspect <args>` with the test-only providers registered, run in `cwd` (so no project `.env` applies)."""
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, str(RUNNER), *args],
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT_SECONDS,
        env=dict(env),
        cwd=cwd,
    )
    return CliRun(result.returncode, result.stdout, result.stderr, time.monotonic() - started)


def check(run: CliRun, what: str) -> CliRun:
    assert run.returncode == 0, f"{what} failed ({run.returncode}):\n{run.stdout[-4000:]}\n{run.stderr[-4000:]}"
    return run


def logs_by_task(log_dir: Path) -> dict[str, EvalLog]:
    """Task name -> the newest log of it in `log_dir`."""
    logs: dict[str, EvalLog] = {}
    for info in sorted(list_eval_logs(str(log_dir)), key=lambda info: info.mtime or 0):
        log = read_eval_log(info)
        logs[log.eval.task] = log
    return logs


def samples_on_disk(log_dir: Path) -> int:
    """Samples in the `.eval` log as written so far (Inspect replaces the file atomically on each flush)."""
    logs = list(log_dir.glob("*.eval"))
    if not logs:
        return 0
    with zipfile.ZipFile(logs[0]) as archive:
        return sum(name.startswith("samples/") for name in archive.namelist())


# --- comparing runs ---------------------------------------------------------------------------------------------


def same_number(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)
    return a == b


def metric_values(log: EvalLog) -> dict[str, float]:
    assert log.results is not None, log.error
    return {f"{s.name}/{name}": m.value for s in log.results.scores for name, m in s.metrics.items()}


def sample_record(sample: EvalSample, completions: bool = True) -> dict[str, Any]:
    """What a sample's result consists of: every score's value, answer and reason, and the model's completions.

    Inspect's OpenAI provider moves the first `<think>...</think>` block of a reply into a reasoning part, and the
    SURDS solver puts it back with its own line breaks; completions are compared without that block.
    """
    scores = sample.scores or {}
    record: dict[str, Any] = {"scores": {n: (s.value, s.answer, s.reason) for n, s in scores.items()}}
    if completions:
        texts = sample.store.get("surds_completions") or [sample.output.completion]
        record["completions"] = [_THINK.sub("", text, count=1).strip() for text in texts]
    return record


def differences(log: EvalLog, reference: EvalLog, completions: bool = True) -> list[str]:
    """Every way `log` differs from `reference` in results (empty when they are identical)."""
    found: list[str] = []
    ours, theirs = metric_values(log), metric_values(reference)
    if ours.keys() != theirs.keys():
        found.append(f"metrics {sorted(ours.keys() ^ theirs.keys())}")
    found += [
        f"metric {k}: {ours[k]} != {theirs[k]}"
        for k in sorted(ours.keys() & theirs.keys())
        if not same(ours[k], theirs[k])
    ]
    samples = {s.id: sample_record(s, completions) for s in log.samples or []}
    expected = {s.id: sample_record(s, completions) for s in reference.samples or []}
    if samples.keys() != expected.keys():
        found.append(f"sample ids {sorted(map(str, samples.keys() ^ expected.keys()))}")
    found += [f"sample {i}" for i in samples.keys() & expected.keys() if not same(samples[i], expected[i])]
    return found


def same(a: object, b: object) -> bool:
    """Deep equality with NaN equal to NaN (unjudged samples carry NaN scores)."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return same_number(a, b)


def every_sample_scored(log: EvalLog) -> list[str]:
    """Problems that would make a run lose a sample: run not successful, a sample errored or without a score."""
    problems = [] if log.status == "success" else [f"status {log.status}: {log.error}"]
    for sample in log.samples or []:
        if sample.error is not None:
            problems.append(f"{sample.id}: error {sample.error.message}")
        if not sample.scores:
            problems.append(f"{sample.id}: no score")
    return problems


# --- server counts ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ServerRecord:
    """What the server saw during one run, kept after the server stopped."""

    counts: dict[str, PromptCounts]
    injected: list[InjectedFault]
    rejected: int

    @classmethod
    def of(cls, server: FakeModelServer) -> ServerRecord:
        return cls(server.counts, server.injected, len(server.rejections))

    def faults(self) -> Counter[str]:
        return Counter(fault.fault.value for fault in self.injected)


def count_problems(record: ServerRecord, expected_calls: Counter[str]) -> list[str]:
    """Prompts answered more or less often than the in-process run asked them, and requests neither answered nor
    faulted (every request beyond the answers must be the retry of a fault the server served)."""
    problems = [f"{key}: never asked" for key in expected_calls.keys() - record.counts.keys()]
    for key, counts in record.counts.items():
        if counts.answered != expected_calls[key]:
            problems.append(f"{key}: answered {counts.answered} times, the in-process run asked {expected_calls[key]}")
        if counts.received != counts.answered + counts.faulted:
            problems.append(f"{key}: {counts} (a request neither answered nor faulted)")
    return problems


def hangs_per_sample(plan: FaultPlan, sample_calls: Mapping[str, Sequence[str]]) -> dict[str, int]:
    """Sample -> how many hangs `plan` serves it (one after another: a sample asks its prompts in turn), given the
    prompt keys each sample asks (`Reference.sample_calls`). As the server decides: every request of a prompt is
    its next attempt, and a fault follows at most `plan.max_consecutive` others for that prompt."""
    attempts: Counter[str] = Counter()
    hangs: dict[str, int] = {}
    for sample, keys in sample_calls.items():
        hangs[sample] = 0
        for key in keys:
            consecutive = 0
            while True:
                attempts[key] += 1
                fault = plan.decide(key, attempts[key], consecutive)
                if fault is None:
                    break
                consecutive += 1
                hangs[sample] += fault.fault is Fault.HANG
    return hangs


# --- the session's runs (made in conftest.py) -------------------------------------------------------------------


@dataclass(frozen=True)
class Reference:
    logs: dict[str, EvalLog]
    calls: Counter[str]
    """Prompt key -> how many times the in-process run asked it (the server's `counts` keys)."""
    sample_calls: dict[str, list[str]]
    """Sample (`<id>#<epoch>`) -> the prompt keys it asked, in order."""


@dataclass(frozen=True)
class FaultRun:
    model: str
    logs: dict[str, EvalLog]
    record: ServerRecord
    """What the server saw during the run."""
    server: FakeModelServer
    """Still running (until the session ends), at the same address: re-scoring hits the same cache keys."""
    env: dict[str, str]
    cli: CliRun
    tmp: Path
