"""Errors raised before any model call, so that bad input never costs money or half a run.

Every error here is an Inspect `PrerequisiteError`: raised while a task is built, `inspect eval` then prints its
message alone and exits 1, instead of a traceback of 200 lines that prints the message twice. That class is not
part of Inspect's public API (0.3.285 keeps it in `inspect_ai._util.error`); `tests/test_errors.py` runs the
command line to catch a change in that behaviour.
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai._util.error import PrerequisiteError
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
