"""API keys never reach a log, an error message, a trace or the console, including when authentication fails."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakeserver import OPENAI_API_SERVICE, FakeModelServer
from fakeserver.drive import drive_policy
from inspect_ai.log import list_eval_logs, read_eval_log

from drive_evals.endpoints import SWITCH_ENV

from .harness import (
    ANTHROPIC_MODEL,
    DRIVELMM_O1_SCORER,
    O1,
    OPENAI_MODEL,
    POLICY,
    SECRET_KEY,
    SURDS,
    TASKS,
    FaultRun,
    cli_env,
    run_cli,
)

WRONG_OPENAI_KEY = "sk-judge-wrong-91d2c7f04e6b3a58-revoked"
WRONG_ANTHROPIC_KEY = "sk-ant-wrong-5e0b8d2a7c4f1963-revoked"
WRONG_GEMINI_KEY = "AIzaSy-wrong-0c7e4b9a2d6f1385-revoked"
KEYS = (SECRET_KEY, WRONG_OPENAI_KEY, WRONG_ANTHROPIC_KEY, WRONG_GEMINI_KEY)
GEMINI_MODEL = "google/gemini-2.0-flash"
GEMINI_JUDGE = "google/gemini-2.5-flash"
ZIP_MAGIC = b"PK\x03\x04"


def contents(root: Path) -> Iterator[tuple[str, bytes]]:
    """Every file under `root` as bytes, and every member of every zip (`.eval` logs, sample buffers) unpacked."""
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        yield str(path), data
        if data.startswith(ZIP_MAGIC):
            with zipfile.ZipFile(path) as archive:  # zstd members: Inspect patches zipfile to read them
                for name in archive.namelist():
                    yield f"{path}!{name}", archive.read(name)


def leaks(texts: dict[str, bytes]) -> list[str]:
    return [f"{key[:12]}… in {where}" for where, data in texts.items() for key in KEYS if key.encode() in data]


def everything_written(tmp: Path, stdout: str, stderr: str) -> dict[str, bytes]:
    written = dict(contents(tmp))
    assert any(name.endswith(".eval") for name in written), "the run wrote no log"
    assert any("!samples/" in name for name in written), "the logs hold no samples to scan"
    return {**written, "stdout": stdout.encode(), "stderr": stderr.encode()}


def test_scan_finds_a_key_in_a_compressed_log_member(tmp_path: Path) -> None:
    """The scan is not blind: a key inside a compressed `.eval` member is found there."""
    with zipfile.ZipFile(tmp_path / "run.eval", "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("samples/s_epoch_1.json", json.dumps({"error": f"401 for Bearer {SECRET_KEY}"}))
    assert f"{SECRET_KEY[:12]}… in {tmp_path / 'run.eval'}!samples/s_epoch_1.json" in leaks(dict(contents(tmp_path)))


@pytest.mark.slow  # reads the fault runs
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_fault_runs_never_write_the_key(provider: str, fault_runs: dict[str, FaultRun]) -> None:
    run = fault_runs[provider]
    assert leaks(everything_written(run.tmp, run.cli.stdout, run.cli.stderr)) == []


@pytest.mark.slow  # an `inspect` subprocess
def test_failed_authentication_is_reported_without_the_key(tmp_path: Path, derived_cache: Path) -> None:
    """The model under test on OpenAI (key accepted) and on Anthropic (key refused), the judge on an
    OpenAI-compatible service with a refused key: the failures are visible, the keys are nowhere."""
    judge = f"openai-api/{OPENAI_API_SERVICE}/gpt-4o-mini-judge"
    with FakeModelServer(policy=drive_policy(POLICY), api_keys={SECRET_KEY}) as server:
        env = cli_env(server, tmp_path, DRIVE_EVALS_CACHE=str(derived_cache))
        env.update(
            {f"{OPENAI_API_SERVICE.upper()}_API_KEY": WRONG_OPENAI_KEY, "ANTHROPIC_API_KEY": WRONG_ANTHROPIC_KEY}
        )
        env[SWITCH_ENV] = "0"  # the refused keys must reach the generation and judge calls, past the endpoint check
        models = f"{OPENAI_MODEL},{ANTHROPIC_MODEL}"
        args = ["eval", *TASKS, "--model", models, "--model-role", f"grader={judge}", "-T", "data=demo"]
        run = run_cli([*args, "--limit", "2", "--max-retries", "1", "--log-dir", str(tmp_path / "logs")], env, tmp_path)
        refused = server.rejections
    assert run.returncode == 1, "a task failed: `inspect eval` exits 1 (drive_evals.run_status)"
    assert {rejection.status for rejection in refused} == {401}
    by_model = {
        (log.eval.model, log.eval.task): log for log in map(read_eval_log, list_eval_logs(str(tmp_path / "logs")))
    }
    assert by_model[(OPENAI_MODEL, SURDS)].status == "success"
    judged = by_model[(OPENAI_MODEL, O1)]
    for sample in judged.samples or []:
        score = sample.scores[DRIVELMM_O1_SCORER]  # type: ignore[index]
        assert score.reason == "grader_failed"
        assert "Incorrect API key provided: sk-" in str(score.metadata), "the judge's 401 is kept, key masked"
    for task in TASKS:
        failed = by_model[(ANTHROPIC_MODEL, task)]
        assert failed.status == "error" and failed.error is not None and "invalid x-api-key" in failed.error.message
    assert leaks(everything_written(tmp_path, run.stdout, run.stderr)) == []


@pytest.mark.slow  # two `inspect` subprocesses
def test_gemini_runs_never_write_the_key(tmp_path: Path, derived_cache: Path) -> None:
    """Both tasks on Gemini with a Gemini judge (key accepted), then a run whose key is refused: Google's 400 is
    reported, and neither key is anywhere in what the runs wrote or printed (the key travels in `x-goog-api-key`)."""
    with FakeModelServer(policy=drive_policy(POLICY), api_keys={SECRET_KEY}) as server:
        env = cli_env(server, tmp_path, DRIVE_EVALS_CACHE=str(derived_cache))
        args = ["eval", *TASKS, "--model", GEMINI_MODEL, "--model-role", f"grader={GEMINI_JUDGE}", "-T", "data=demo"]
        accepted = run_cli([*args, "--limit", "2", "--log-dir", str(tmp_path / "logs")], env, tmp_path)
        refused_env = {**env, "GOOGLE_API_KEY": WRONG_GEMINI_KEY}
        refused_args = ["eval", SURDS, "--model", GEMINI_MODEL, "-T", "data=demo", "--limit", "1", "--max-retries", "1"]
        refused = run_cli([*refused_args, "--log-dir", str(tmp_path / "refused")], refused_env, tmp_path)
        requests, rejections = server.requests, server.rejections
    assert (accepted.returncode, refused.returncode) == (0, 1), accepted.stderr[-2000:] + refused.stderr[-2000:]
    assert {request.raw.get("systemInstruction") is not None for request in requests} == {False, True}, "the judge ran"
    assert {rejection.status for rejection in rejections} == {400}
    logs = {log.eval.task: log for log in map(read_eval_log, list_eval_logs(str(tmp_path / "logs")))}
    assert {logs[task].status for task in TASKS} == {"success"}
    judged = [sample.scores[DRIVELMM_O1_SCORER] for sample in logs[O1].samples or [] if sample.scores]
    assert judged and all(score.reason != "grader_failed" for score in judged)
    (failed,) = map(read_eval_log, list_eval_logs(str(tmp_path / "refused")))
    assert failed.status == "error" and failed.error is not None and "API key not valid" in failed.error.message
    written = everything_written(tmp_path, accepted.stdout + refused.stdout, accepted.stderr + refused.stderr)
    assert leaks(written) == []
