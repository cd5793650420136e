"""Errors raised before any model call, so that bad input never costs money or half a run.

Every error here is an Inspect `PrerequisiteError`: raised while a task is built, `inspect eval` then prints its
message alone and exits 1, instead of a traceback of 200 lines that prints the message twice. That class is not
part of Inspect's public API (0.3.285 keeps it in `inspect_ai._util.error`); `tests/test_errors.py` runs the
command line to catch a change in that behaviour.

Inspect's exception hook (installed by its command line, and by `eval()`) prints such a message through its rich
console: on stdout, and not at all under `--display none`, where a script or CI job would see a failed run and no
reason. So an uncaught `DriveEvalsError` is printed on stderr, as plain text, instead, in every display mode, and
so is Inspect's own `PrerequisiteError` (a missing key of a judge bound with `--model-role`):
`route_errors_to_stderr`. Under the command line a run stopped midway (the judge breaker) is reported there too
when the process exits (`report_at_exit`). `eval()` still raises the error with its message unchanged.
"""

from __future__ import annotations

import atexit
import sys
from collections.abc import Callable, Sequence
from types import TracebackType

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
STOPPED_RUN_NOTE = (
    "The log's status is 'error'. `inspect eval` exits 0 for a task that fails after it started (Inspect's rule); "
    "`inspect eval-set` exits 1."
)


def inspect_hook_installed() -> bool:
    """Whether Inspect's exception hook is in place: `inspect` and `eval()` install it before building any task."""
    return bool(getattr(inspect_errors, "_exception_hook_set", False))


def under_inspect_cli() -> bool:
    """Whether this process is Inspect's command line (`eval()` never imports it)."""
    return "inspect_ai._cli.main" in sys.modules


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


def report_at_exit(message: str) -> None:
    """Under Inspect's command line, print `message` on stderr when the process ends, after Inspect's display.

    For errors that do not end the process: Inspect records them in the log and its display shows them, except
    under `--display none`. Through the Python API the returned log (`EvalLog.error`) carries the message.
    """
    if not under_inspect_cli():
        return
    if not _EXIT_REPORTS:
        atexit.register(_print_exit_reports)
    _EXIT_REPORTS[message] = None


def _print_exit_reports() -> None:
    for message in _EXIT_REPORTS:
        print_on_stderr(f"{message}\n{STOPPED_RUN_NOTE}")
