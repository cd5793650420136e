"""Parameter, data and judge errors print one short message through `inspect eval`, exit 1 and write no log."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.log import list_eval_logs
from inspect_runs import RUNNER

from drive_evals.errors import DataValidationError, DriveEvalsError, ParameterError

SHORT_OUTPUT_LINES = 12
"""Before: 200 to 270 lines of traceback. The message alone, wrapped at 80 columns, fits in this."""
TIMEOUT_SECONDS = 300


def test_errors_are_inspect_prerequisite_errors_with_a_plain_message() -> None:
    error = ParameterError("subsets: unknown subset(s) ['bogus'] [bold]x[/bold]")
    assert isinstance(error, PrerequisiteError) and isinstance(error, ValueError)
    assert str(error) == "subsets: unknown subset(s) ['bogus'] [bold]x[/bold]"
    assert error.message == "subsets: unknown subset(s) ['bogus'] \\[bold]x\\[/bold]", "brackets are not markup"


def test_data_validation_error_lists_problems() -> None:
    error = DataValidationError("metadata.jsonl", [f"line {n}: bad" for n in range(3)], limit=2)
    assert str(error) == "3 problem(s) in metadata.jsonl:\n  - line 0: bad\n  - line 1: bad\n  ... and 1 more"
    assert isinstance(error, DriveEvalsError)


def inspect_cli(args: list[str], tmp_path: Path, **env: str) -> tuple[int, str]:
    """`inspect <args>` as a user runs it (no API key, no network); returns the exit code and all output."""
    environment = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    environment.update(INSPECT_DISPLAY="plain", NO_COLOR="1", HF_HUB_OFFLINE="1", **env)
    result = subprocess.run(
        [sys.executable, str(RUNNER), *args, "--log-dir", str(tmp_path / "logs")],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
        env=environment,
        cwd=tmp_path,
    )
    return result.returncode, result.stdout + result.stderr


def assert_short_failure(code: int, output: str, tmp_path: Path, *expected: str) -> None:
    assert code != 0, output
    assert "Traceback" not in output and len(output.strip().splitlines()) <= SHORT_OUTPUT_LINES, output
    flat = " ".join(output.split())
    for text in expected:
        assert text in flat, output
    assert not list_eval_logs(str(tmp_path / "logs")), "no sample ran, no log was written"


@pytest.mark.slow
def test_misspelt_parameter_fails_at_once(tmp_path: Path) -> None:
    args = ["eval", "drive_evals/surds", "--model", "chance/random", "-T", "data=demo", "-T", "subset=yaw"]
    code, output = inspect_cli(args, tmp_path)
    assert_short_failure(code, output, tmp_path, "unknown parameter 'subset' (did you mean 'subsets'?)")


@pytest.mark.slow
def test_missing_judge_key_fails_before_any_sample(tmp_path: Path) -> None:
    code, output = inspect_cli(
        ["eval", "drive_evals/drivelmm_o1", "--model", "chance/random", "-T", "data=demo"], tmp_path
    )
    assert_short_failure(code, output, tmp_path, "role 'grader'", "OPENAI_API_KEY")
    assert "[bold]" not in output


@pytest.mark.slow
def test_data_error_is_short(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "validation").mkdir(parents=True)
    (data / "validation" / "metadata.jsonl").write_text("not json\n")
    code, output = inspect_cli(
        ["eval", "drive_evals/surds", "--model", "chance/random", "-T", f"data={data}"], tmp_path
    )
    assert_short_failure(code, output, tmp_path, "1 problem(s) in", "invalid JSON")
