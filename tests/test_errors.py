"""Parameter, data and judge errors print one short message on stderr in every display mode, exit 1 and write no
log; through the Python API they are raised with the same message; a run the judge breaker stops says so on
stderr too."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
import threading
from pathlib import Path
from typing import get_args

import pytest
from fakeserver import FakeModelServer
from fakeserver.drive import drive_policy
from inspect_ai import eval as inspect_eval
from inspect_ai import eval_set
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.log import list_eval_logs, read_eval_log
from inspect_ai.util._display import DisplayType
from inspect_runs import RUNNER

import drive_evals.errors as errors
from drive_evals.endpoints import SWITCH_ENV
from drive_evals.errors import DataValidationError, DriveEvalsError, ParameterError

SHORT_OUTPUT_LINES = 12
"""Before: 200 to 270 lines of traceback. The message alone, wrapped at 80 columns, fits in this."""
TIMEOUT_SECONDS = 300
DISPLAYS = get_args(DisplayType)
"""Every display mode Inspect offers (0.3.285: full, conversation, rich, plain, log, none)."""
MISSPELT = ["drive_evals/surds", "--model", "chance/random", "-T", "data=demo", "-T", "subset=yaw"]
MISSPELT_MESSAGE = "unknown parameter 'subset' (did you mean 'subsets'?)"
TERMINAL_SIZE = (24, 80)


def test_errors_are_inspect_prerequisite_errors_with_a_plain_message() -> None:
    error = ParameterError("subsets: unknown subset(s) ['bogus'] [bold]x[/bold]")
    assert isinstance(error, PrerequisiteError) and isinstance(error, ValueError)
    assert str(error) == "subsets: unknown subset(s) ['bogus'] [bold]x[/bold]"
    assert error.message == "subsets: unknown subset(s) ['bogus'] \\[bold]x\\[/bold]", "brackets are not markup"


def test_data_validation_error_lists_problems() -> None:
    error = DataValidationError("metadata.jsonl", [f"line {n}: bad" for n in range(3)], limit=2)
    assert str(error) == "3 problem(s) in metadata.jsonl:\n  - line 0: bad\n  - line 1: bad\n  ... and 1 more"
    assert isinstance(error, DriveEvalsError)


def test_uncaught_error_goes_to_stderr_where_inspects_hook_is(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The hook in isolation (the subprocess tests below are the proof): ours print plainly, others pass through."""
    passed: list[BaseException] = []
    monkeypatch.setattr(sys, "excepthook", lambda kind, error, traceback: passed.append(error))
    monkeypatch.setattr(errors.inspect_errors, "_exception_hook_set", False)
    errors.route_errors_to_stderr()
    assert not getattr(sys.excepthook, "drive_evals", False), "without Inspect's hook, Python's stays"
    monkeypatch.setattr(errors.inspect_errors, "_exception_hook_set", True)
    error = ParameterError("x: unknown [bold]value[/bold]")
    assert not getattr(sys.excepthook, "drive_evals", False), "building an error installs nothing"
    errors.route_errors_to_stderr()
    other = ValueError("not ours")
    sys.excepthook(ParameterError, error, None)
    sys.excepthook(ValueError, other, None)
    captured = capsys.readouterr()
    assert captured.err == "\nx: unknown [bold]value[/bold]\n\n" and captured.out == ""
    assert passed == [other]
    sys.excepthook(PrerequisiteError, PrerequisiteError("[bold]ERROR[/bold]: no key"), None)  # Inspect's own
    assert capsys.readouterr().err.strip() == "ERROR: no key", "Inspect's markup is rendered, not printed"


def test_stop_reports_print_once_at_exit_under_the_command_line_only(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    registered: list[object] = []
    monkeypatch.setattr(errors.atexit, "register", registered.append)
    monkeypatch.setattr(errors, "_EXIT_REPORTS", {})
    monkeypatch.delitem(sys.modules, "inspect_ai._cli.main", raising=False)
    errors.report_at_exit("stopped in a script")
    assert not registered, "through the Python API the returned log carries the message"
    monkeypatch.setitem(sys.modules, "inspect_ai._cli.main", sys.modules[__name__])
    for message in ("judge down", "judge down", "judge down again"):
        errors.report_at_exit(message)
    assert registered == [errors._print_exit_reports]
    errors._print_exit_reports()
    err = capsys.readouterr().err
    assert err.count("judge down\n") == 1 and err.count("judge down again") == 1


def test_show_last_prints_at_exit_under_the_command_line_only(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    registered: list[object] = []
    monkeypatch.setattr(errors.atexit, "register", registered.append)
    monkeypatch.setattr(errors, "_LAST_LINES", [])
    monkeypatch.delitem(sys.modules, "inspect_ai._cli.main", raising=False)
    errors.show_last("in a notebook")
    assert capsys.readouterr().out == "in a notebook\n" and not registered
    monkeypatch.setitem(sys.modules, "inspect_ai._cli.main", sys.modules[__name__])
    monkeypatch.setattr(sys, "argv", ["inspect", "eval", "drive_evals/surds"])
    errors.show_last("first headline")
    errors.show_last("second headline")
    assert capsys.readouterr().out == "" and registered == [errors._print_last_lines]
    errors._print_last_lines()
    assert capsys.readouterr().out == "\nfirst headline\n\nsecond headline\n", "after a line of its own"


def test_a_stopped_run_exits_nonzero_where_inspect_would_exit_0(monkeypatch: pytest.MonkeyPatch) -> None:
    exits: list[object] = []
    monkeypatch.setattr(sys, "exit", exits.append)
    monkeypatch.setitem(sys.modules, "inspect_ai._cli.main", sys.modules[__name__])
    monkeypatch.setattr(sys, "argv", ["pytest", "-q"])
    errors.exit_nonzero()
    assert sys.exit == exits.append, "a process that only imported Inspect's command line keeps its exit"
    monkeypatch.setattr(sys, "argv", ["inspect", "eval", "drive_evals/surds"])
    errors.exit_nonzero()
    errors.exit_nonzero()  # wrapped once
    for status in (0, None, 2, "message"):
        sys.exit(status)
    assert exits == [errors.STOPPED_EXIT_STATUS, errors.STOPPED_EXIT_STATUS, 2, "message"]


@pytest.mark.parametrize(
    ("argv", "env", "expected"),
    [
        (["inspect", "eval", "x", "--log-dir", "runs/a b"], {}, "--log-dir 'runs/a b'"),
        (["inspect", "eval", "x", "--log-dir=runs/a"], {}, "--log-dir runs/a"),
        (["inspect", "eval-retry", "x.eval"], {"INSPECT_LOG_DIR": "mine"}, "--log-dir mine"),
        (["inspect", "eval", "x"], {}, "--log-dir ./logs"),
        (["inspect", "eval-set", "x", "--log-dir", "runs/a"], {}, "# inside an eval-set: run the same eval-set"),
    ],
)
def test_inspects_resume_command_names_the_runs_log_dir(
    argv: list[str], env: dict[str, str], expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from inspect_ai._display.core.results import _retry_args_suffix

    monkeypatch.setattr(sys, "argv", argv)
    monkeypatch.delenv("INSPECT_LOG_DIR", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    token = _retry_args_suffix.set("--scanner s.yaml")
    try:
        errors._resume_in_place()
        errors._resume_in_place()  # once per run, however many tasks are built
        suffix = _retry_args_suffix.get()
    finally:
        _retry_args_suffix.reset(token)
    assert suffix.startswith("--scanner s.yaml ") and suffix.count(expected) == 1, suffix


def test_retry_command_writes_beside_the_original(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    inside = tmp_path / "logs" / "ctrlc" / "run.eval"
    assert errors.retry_command(str(inside)) == "inspect eval-retry logs/ctrlc/run.eval --log-dir logs/ctrlc"
    outside = "/elsewhere/runs/run.eval"
    assert errors.retry_command(outside) == f"inspect eval-retry {outside} --log-dir /elsewhere/runs"


def test_eval_and_eval_set_raise_the_same_message(tmp_path: Path) -> None:
    args = {"data": "demo", "subset": "yaw"}
    with pytest.raises(ParameterError, match=r"unknown parameter 'subset' \(did you mean 'subsets'\?\)") as raised:
        inspect_eval("drive_evals/surds", model="chance/random", task_args=args, log_dir=str(tmp_path / "a"))
    with pytest.raises(ParameterError) as raised_by_set:
        eval_set("drive_evals/surds", model="chance/random", task_args=args, log_dir=str(tmp_path / "b"))
    assert str(raised_by_set.value) == str(raised.value)


def inspect_cli(args: list[str], tmp_path: Path, display: str = "none", **env: str) -> tuple[int, str, str]:
    """`inspect <args> --display <display>` as a user runs it (no API key, no network): exit code, stdout, stderr.

    For `full`, stdout is a terminal (a pseudo-terminal), so that Inspect starts its full-screen display as it does
    for a person at a terminal; stderr stays a pipe, as when a script keeps it.
    """
    environment = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    environment.update(NO_COLOR="1", HF_HUB_OFFLINE="1", **env)
    environment.pop("INSPECT_DISPLAY", None)
    command = [sys.executable, str(RUNNER), *args, "--display", display, "--log-dir", str(tmp_path / "logs")]
    if display != "full":
        result = subprocess.run(
            command, capture_output=True, text=True, timeout=TIMEOUT_SECONDS, env=environment, cwd=tmp_path
        )
        return result.returncode, result.stdout, result.stderr
    return _run_on_terminal(command, environment, tmp_path)


def _run_on_terminal(command: list[str], environment: dict[str, str], cwd: Path) -> tuple[int, str, str]:
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", *TERMINAL_SIZE, 0, 0))
    screen: list[bytes] = []

    def drain() -> None:  # a terminal nobody reads fills up and blocks the writer
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed (Linux answers EIO)
                return
            if not chunk:
                return
            screen.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    environment = {**environment, "TERM": "xterm-256color"}
    process = subprocess.Popen(
        command, stdin=follower, stdout=follower, stderr=subprocess.PIPE, env=environment, cwd=cwd, text=True
    )
    os.close(follower)
    _, stderr = process.communicate(timeout=TIMEOUT_SECONDS)
    reader.join(TIMEOUT_SECONDS)
    os.close(leader)
    return process.returncode, b"".join(screen).decode(errors="replace"), stderr


def assert_short_failure(code: int, stdout: str, stderr: str, tmp_path: Path, *expected: str) -> None:
    """Exit 1, each expected text once on stderr and not on stdout, no traceback, nothing run."""
    output = f"stdout:\n{stdout}\nstderr:\n{stderr}"
    assert code == 1, output
    assert "Traceback" not in stderr and len(stderr.strip().splitlines()) <= SHORT_OUTPUT_LINES, output
    flat = " ".join(stderr.split())
    for text in expected:
        assert flat.count(text) == 1 and text not in " ".join(stdout.split()), output
    assert not list_eval_logs(str(tmp_path / "logs")), "no sample ran, no log was written"


@pytest.mark.slow
@pytest.mark.parametrize("display", DISPLAYS)
def test_misspelt_parameter_is_on_stderr_in_every_display_mode(display: str, tmp_path: Path) -> None:
    code, stdout, stderr = inspect_cli(["eval", *MISSPELT], tmp_path, display)
    assert_short_failure(code, stdout, stderr, tmp_path, MISSPELT_MESSAGE)


@pytest.mark.slow
def test_eval_set_prints_the_error_on_stderr(tmp_path: Path) -> None:
    code, stdout, stderr = inspect_cli(["eval-set", *MISSPELT], tmp_path)
    assert_short_failure(code, stdout, stderr, tmp_path, MISSPELT_MESSAGE)


@pytest.mark.slow
def test_missing_judge_key_fails_before_any_sample(tmp_path: Path) -> None:
    code, stdout, stderr = inspect_cli(
        ["eval", "drive_evals/drivelmm_o1", "--model", "chance/random", "-T", "data=demo"], tmp_path
    )
    assert_short_failure(code, stdout, stderr, tmp_path, "role 'grader'", "No OPENAI_API_KEY")
    assert "[bold]" not in stderr


@pytest.mark.slow
def test_missing_key_of_a_bound_judge_is_on_stderr(tmp_path: Path) -> None:
    """Inspect's own error (it builds a `--model-role` judge itself), printed on stderr too."""
    args = ["eval", "drive_evals/drivelmm_o1", "--model", "chance/random", "-T", "data=demo"]
    code, stdout, stderr = inspect_cli([*args, "--model-role", "grader=openai/gpt-4o-2024-08-06"], tmp_path)
    assert_short_failure(code, stdout, stderr, tmp_path, "Unable to initialise OpenAI client", "No OPENAI_API_KEY")


@pytest.mark.slow
def test_data_error_is_short(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "validation").mkdir(parents=True)
    (data / "validation" / "metadata.jsonl").write_text("not json\n")
    code, stdout, stderr = inspect_cli(
        ["eval", "drive_evals/surds", "--model", "chance/random", "-T", f"data={data}"], tmp_path
    )
    assert_short_failure(code, stdout, stderr, tmp_path, "1 problem(s) in", "invalid JSON")


BREAKER_MESSAGE = "Run stopped: 2 consecutive calls to the judge"
LOGGING_DISPLAY = "log"
"""The display that writes Inspect's log records: a failed task is a logging record with its traceback."""


@pytest.mark.slow
@pytest.mark.parametrize("display", DISPLAYS)
def test_judge_breaker_stop_is_short_in_every_display_mode(display: str, tmp_path: Path) -> None:
    """The model's key is accepted, the judge's (another service name, so another key) refused with a 401.

    The stop reads as its message: on stderr once at exit, and where the display draws the failed task, without a
    traceback (before: rich's traceback panel). The log file keeps the traceback, and so does the `log` display's
    logging record. `inspect eval` exits 1 (Inspect alone exits 0 for a task that fails once started); the log says
    `error`.
    """
    good = "sk-breaker-good"
    with FakeModelServer(policy=drive_policy("correct"), api_keys={good}) as server:
        env = {"OPENAI_BASE_URL": server.openai_base_url, "JUDGE_BASE_URL": server.openai_base_url}
        env |= {"DRIVE_EVALS_CACHE": str(tmp_path / "derived"), "INSPECT_CACHE_DIR": str(tmp_path / "cache")}
        env[SWITCH_ENV] = "0"  # the refused judge must reach its calls, past the endpoint check
        args = ["eval", "drive_evals/drivelmm_o1", "--model", "openai/gpt-4o-2024-08-06", "-T", "data=demo"]
        args += ["--model-role", "grader=openai-api/judge/gpt-4o-mini-2024-07-18", "-T", "judge_error_limit=2"]
        code, stdout, stderr = inspect_cli(
            [*args, "--max-samples", "1"], tmp_path, display, **env, OPENAI_API_KEY=good, JUDGE_API_KEY="sk-refused"
        )
    output = f"stdout:\n{stdout}\nstderr:\n{stderr}"
    assert code == 1, output
    assert " ".join(stderr.split()).count(BREAKER_MESSAGE) == 1, output
    if display != LOGGING_DISPLAY:
        assert "Traceback" not in stdout + stderr and "judge_guard.py" not in stdout + stderr, output
    if display == "none":
        assert stdout == "", output
    [log] = list_eval_logs(str(tmp_path / "logs"))
    header = read_eval_log(log, header_only=True)
    assert header.status == "error" and header.error is not None
    assert BREAKER_MESSAGE in header.error.message and "judge_guard.py" in header.error.traceback
