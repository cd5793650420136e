"""Errors raised before any model call, so that bad input never costs money or half a run."""

from __future__ import annotations

from collections.abc import Sequence


class DriveEvalsError(Exception):
    """Base class of the errors this package raises on purpose."""


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
