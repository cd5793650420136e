"""Errors raised before any model call, so that bad input never costs money or half a run.

Every error here is an Inspect `PrerequisiteError`: raised while a task is built, `inspect eval` then prints its
message alone and exits 1, instead of a traceback of 200 lines that prints the message twice. That class is not
part of Inspect's public API (0.3.285 keeps it in `inspect_ai._util.error`); `tests/test_errors.py` runs the
command line to catch a change in that behaviour.

Inspect's exception hook (installed by its command line, and by `eval()`) prints such a message through its rich
console: on stdout, and not at all under `--display none`, where a script or CI job would see a failed run and no
reason. So an uncaught `DriveEvalsError` is printed on stderr, as plain text, instead, in every display mode, and
so is Inspect's own `PrerequisiteError` (a missing key of a judge bound with `--model-role`):
`route_errors_to_stderr`. Under the command line a run stopped midway (the judge breaker, a model that stopped
answering) is reported there too when the process exits (`report_at_exit`), and the command exits 1 instead of the
0 Inspect's `eval` and `eval-retry` give a task that failed once started (`exit_nonzero`). `eval()` still raises
the error with its message unchanged.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import NoReturn

import inspect_ai._util.error as inspect_errors
from inspect_ai._util.error import PrerequisiteError
from rich.console import Console
from rich.markup import escape


class DriveEvalsError(PrerequisiteError):
    """Base class of the errors this package raises on purpose; `str(error)` is the plain message."""

    def __init__(self, message: str) -> None:
        super().__init__(escape(message))  # Inspect prints `.message` with rich: brackets in it are not markup
        self.args = (message,)

    def __str__(self) -> str:
        return str(self.args[0])


class DataValidationError(DriveEvalsError, ValueError):
    """Input data breaks the benchmark's schema; the message lists each problem with its record and field."""

    def __init__(self, source: str, problems: Sequence[str], limit: int = 50) -> None:
        self.source = source
        self.problems = list(problems)
        shown = self.problems[:limit]
        more = len(self.problems) - len(shown)
        lines = [f"{len(self.problems)} problem(s) in {source}:", *(f"  - {p}" for p in shown)]
        if more:
            lines.append(f"  ... and {more} more")
        super().__init__("\n".join(lines))


class DataSourceError(DriveEvalsError, RuntimeError):
    """A data source could not be reached or resolved; the message says how to work offline."""


class ParameterError(DriveEvalsError, ValueError):
    """A task parameter has a value the task cannot use; the message names the parameter and valid values."""


class JudgeUnavailableError(DriveEvalsError, RuntimeError):
    """A judge model cannot be used (no API key, unknown provider): found before the first generation is paid."""


_TRANSLATORS: list[Callable[[BaseException], str | None]] = []
"""Turn another library's uncaught exception into one line (or None): see `translate_uncaught`."""


def translate_uncaught(translator: Callable[[BaseException], str | None]) -> None:
    """Have the stderr hook print `translator(error)` instead of a traceback whenever it returns a line (e.g.
    Inspect's unknown-provider `ValueError`, drive_evals.model_names)."""
    _TRANSLATORS.append(translator)


def _translated(error: BaseException) -> str | None:
    return next((line for translate in _TRANSLATORS if (line := translate(error)) is not None), None)


_EXIT_REPORTS: dict[str, None] = {}
"""Messages `report_at_exit` prints, in order and each once (an `eval-set` retry can stop the same way again)."""
SHARD_ENV = "DRIVE_EVALS_RUN_SHARD"
"""Set in the shard processes of `drive-evals run`, whose runs resume with that command."""
STOPPED_EXIT_STATUS = 1
"""The command's exit status after a run stopped midway (Inspect's `eval` and `eval-retry` would exit 0)."""


def inspect_hook_installed() -> bool:
    """Whether Inspect's exception hook is in place: `inspect` and `eval()` install it before building any task."""
    return bool(getattr(inspect_errors, "_exception_hook_set", False))


def under_inspect_cli() -> bool:
    """Whether this process is Inspect's command line (`eval()` never imports it)."""
    return "inspect_ai._cli.main" in sys.modules


RUN_COMMANDS = ("eval", "eval-retry", "eval-set")
"""Inspect's commands that run tasks."""


def inspect_run_command() -> str | None:
    """The Inspect command this process runs (`eval`, `eval-retry`, `eval-set`), or None: not Inspect's command
    line, or a process that has merely imported it (a test runner, `drive-evals run` before it forks)."""
    command = sys.argv[1] if len(sys.argv) > 1 else None
    return command if under_inspect_cli() and command in RUN_COMMANDS else None


def print_on_stderr(message: str) -> None:
    """One message on stderr, plain and flushed: the process may be about to exit."""
    print(f"\n{message}\n", file=sys.stderr, flush=True)


def route_errors_to_stderr() -> None:
    """Where Inspect's exception hook is in place, make it print a `PrerequisiteError` on stderr, once.

    Called by `_registry` (Inspect loads it after installing its hook, and before it builds the judge a
    `--model-role` binds, whose missing key is Inspect's own `PrerequisiteError`) and first thing in each task
    function (the registry may have been imported before `eval()` installed the hook). Other exceptions keep
    Inspect's hook.
    """
    if under_inspect_cli():
        _resume_in_place()
    previous = sys.excepthook
    if not inspect_hook_installed() or getattr(previous, "drive_evals", False):
        return

    def hook(kind: type[BaseException], error: BaseException, traceback: TracebackType | None) -> None:
        # Instead of Inspect's console, which prints on stdout and is silenced by `--display none`.
        if isinstance(error, DriveEvalsError):
            print_on_stderr(str(error))
        elif (line := _translated(error)) is not None:
            print_on_stderr(line)
        elif isinstance(error, PrerequisiteError):  # Inspect's own: its message may be rich markup
            Console(stderr=True, highlight=False).print(
                f"\n{error.message}\n" if isinstance(error.message, str) else error.message
            )
        else:
            previous(kind, error, traceback)

    hook.drive_evals = True  # type: ignore[attr-defined]
    sys.excepthook = hook


def _resume_in_place() -> None:
    """Make the resume command Inspect's display suggests for an interrupted task land beside the original log.

    Inspect suggests `inspect eval-retry LOG`, which writes to `./logs` (`.env`), not to the run's `--log-dir`; its
    display appends a suffix to that command (meant for scanner options), which is set here while the task is built,
    in the context the display renders in. Inside an `eval-set` the suffix says to run the eval-set again instead.
    """
    from inspect_ai._display.core.results import _retry_args_suffix, set_retry_args_suffix  # private in 0.3.285

    current = _retry_args_suffix.get()
    if LOG_DIR_OPTION in current or EVAL_SET_ADVICE.strip() in current:
        return
    in_place = f"{LOG_DIR_OPTION} {shlex.quote(_command_log_dir())}"
    addition = EVAL_SET_ADVICE if EVAL_SET_COMMAND in sys.argv[1:2] else in_place
    set_retry_args_suffix(f"{current} {addition}".strip())


EVAL_SET_COMMAND = "eval-set"
EVAL_SET_ADVICE = "  # inside an eval-set: run the same eval-set command again instead"
LOG_DIR_OPTION = "--log-dir"
DEFAULT_LOG_DIR = "./logs"
"""Inspect's default when neither `--log-dir` nor `INSPECT_LOG_DIR` is set."""


def _command_log_dir() -> str:
    """The log directory of this `inspect` command: `--log-dir`, else `INSPECT_LOG_DIR`, else Inspect's default."""
    arguments = sys.argv[1:]
    for index, argument in enumerate(arguments):
        if argument == LOG_DIR_OPTION and index + 1 < len(arguments):
            return arguments[index + 1]
        if argument.startswith(f"{LOG_DIR_OPTION}="):
            return argument.split("=", 1)[1]
    return os.environ.get("INSPECT_LOG_DIR") or DEFAULT_LOG_DIR


def report_at_exit(message: str) -> None:
    """Under Inspect's command line, print `message` on stderr when the process ends, after Inspect's display.

    For errors that do not end the process: Inspect records them in the log and its display shows them, except
    under `--display none`. Through the Python API the returned log (`EvalLog.error`) carries the message.
    """
    if not under_inspect_cli():
        return
    if not _EXIT_REPORTS:
        atexit.register(_print_exit_reports)
        if inspect_run_command() != EVAL_SET_COMMAND:  # an eval-set exits 1 itself, unless a later attempt succeeds
            exit_nonzero()
    _EXIT_REPORTS[message] = None


def _print_exit_reports() -> None:
    for message in _EXIT_REPORTS:
        print_on_stderr(message)


_LAST_LINES: list[str] = []
"""What `show_last` keeps for the end of the process, in order."""


def show_last(text: str) -> None:
    """Print `text` on stdout as the last thing the command shows: at exit under Inspect's command line, now otherwise.

    Inspect's display draws its results panel when the task display closes, after the run's `on_run_end` hooks:
    lines printed from a hook came above the panel (and scrolled off with DriveBench's 159 metric lines), and, piped,
    were glued to the end of the progress line. At exit the display is gone; the stop reports (stderr) still follow.
    """
    if inspect_run_command() is None:
        print(text, flush=True)
        return
    if not _LAST_LINES:
        atexit.register(_print_last_lines)  # registered after the stop reports' handler if any: runs before it
    _LAST_LINES.append(text)


def _print_last_lines() -> None:
    print("\n" + "\n\n".join(_LAST_LINES), flush=True)


def exit_nonzero() -> None:
    """Have the command line exit with `STOPPED_EXIT_STATUS` where it would exit 0.

    Inspect's `eval` command returns normally after a task failed, and click then calls `sys.exit(0)`; an atexit
    handler cannot change that status (only end the interpreter's shutdown early), and a task has no other say
    in it. So `sys.exit` is wrapped, in a process running Inspect's `eval` or `eval-retry` only (not a test runner
    that imported it), once a run has stopped.
    """
    original = sys.exit
    if getattr(original, "drive_evals", False) or inspect_run_command() is None:
        return

    def exit_status(status: str | int | None = None) -> NoReturn:
        original(STOPPED_EXIT_STATUS if status in (None, 0) else status)

    exit_status.drive_evals = True  # type: ignore[attr-defined]
    sys.exit = exit_status


def resume_advice() -> str:
    """How to finish the run a sample belongs to, paying only for what it did not finish.

    `inspect eval-retry LOG` writes the resumed log to `--log-dir`, by default `./logs` (`.env`), not beside the
    original, so the command names the original's directory; inside an `eval-set` the same `eval-set` command
    resumes every task it holds (`drive-evals run`: the same `drive-evals run` command).
    """
    from inspect_ai.log._samples import sample_active  # private in 0.3.285: the sample this call serves

    active = sample_active()
    if os.environ.get(SHARD_ENV):
        return "Once it answers, run the same drive-evals run command again: finished samples are not run again."
    if active is not None and active.eval_set_id is not None:
        return "Once it answers, run the same eval-set command again: it resumes where this run stopped."
    if active is None or not active.log_location:
        return "Once it answers, `inspect eval-retry <log> --log-dir <its directory>` runs only the rest."
    return f"Once it answers: {retry_command(active.log_location)}"


def retry_command(log_location: str) -> str:
    """`inspect eval-retry LOG --log-dir DIR`, DIR the log's own directory (shown relative to here when inside)."""
    log = Path(log_location.removeprefix("file://"))
    with contextlib.suppress(ValueError):  # outside the working directory: the path as Inspect gave it
        log = log.resolve().relative_to(Path.cwd())
    return f"inspect eval-retry {shlex.quote(str(log))} --log-dir {shlex.quote(str(log.parent))}"
