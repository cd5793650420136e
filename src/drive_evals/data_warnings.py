"""Anomalies in data the official code never reads (or reads without harm): counted, shown once, kept in the log.

Validation is never stricter than the official code on data that code accepts. A problem in a value a reported
number depends on is a `DataValidationError`; anything else is collected here, recorded in the task metadata as
`data_warnings` (per kind: a count, what it means, the first few examples) and printed as ONE short line, once
per process: an eval-set builds each task once per model, and a resume builds them all again.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TypedDict

MAX_EXAMPLES = 5
"""Examples kept per kind: enough to find the records, short enough for the log header."""
_printed: set[str] = set()
"""Lines already printed in this process."""


class KindSummary(TypedDict):
    """One kind of warning as recorded in the log."""

    count: int
    meaning: str
    examples: list[str]


@dataclass
class _Kind:
    meaning: str
    count: int = 0
    examples: list[str] = field(default_factory=list)


class DataWarnings:
    """Collects warnings by kind; `summary()` goes into the task metadata, `log()` prints one line per kind."""

    def __init__(self, benchmark: str) -> None:
        self.benchmark = benchmark
        self._kinds: dict[str, _Kind] = {}

    def add(self, kind: str, meaning: str, example: str) -> None:
        """Count one occurrence of `kind`; `meaning` says what it does to the run (the same text for every call)."""
        entry = self._kinds.setdefault(kind, _Kind(meaning))
        entry.count += 1
        if len(entry.examples) < MAX_EXAMPLES:
            entry.examples.append(example)

    def count(self, kind: str) -> int:
        entry = self._kinds.get(kind)
        return entry.count if entry else 0

    def __bool__(self) -> bool:
        return bool(self._kinds)

    def summary(self) -> dict[str, KindSummary]:
        """`{kind: {"count": n, "meaning": ..., "examples": [...]}}`, for the log's task metadata."""
        return {
            kind: KindSummary(count=entry.count, meaning=entry.meaning, examples=list(entry.examples))
            for kind, entry in self._kinds.items()
        }

    def log(self, logger: logging.Logger) -> None:
        """One warning line with the count of each kind, unless this process printed the same line already."""
        if not self._kinds:
            return
        counts = ", ".join(f"{entry.count} x {kind}" for kind, entry in self._kinds.items())
        line = (
            f"{self.benchmark} data: {counts}. What each means, and the records: the log's task metadata, data_warnings"
        )
        if line not in _printed:
            _printed.add(line)
            logger.warning(line)
