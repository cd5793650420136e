"""Reading the judge's `[[N]]` rating exactly as the official scripts do (stage1 L210-219, stage2 L208-217,
stage3 L255-264, identical in all three).

Three splits, tried in order, each kept only if Python's `int()` accepts what lies between the marker and the next
`]]`: after `Rating: [[`, after `rating is: [[`, after the first `[[`. No regex and no range check: `int()` takes
surrounding whitespace, a sign, Unicode digits and `_` between digits, so `[[ 7 ]]`, `[[８]]`, `[[1_0]]`, `[[0]]`,
`[[-3]]` and `[[100]]` are all ratings; a judge that first echoes the `"[[rating]]"` placeholder and then gives no
`Rating: [[` is dropped. Ported as the same three splits, not as a regex, so that every edge agrees.
"""

from __future__ import annotations

from dataclasses import dataclass

MARKERS = ("Rating: [[", "rating is: [[", "[[")
CLOSE = "]]"
SCALE_MIN, SCALE_MAX = 1, 10
"""The scale the judge prompts ask for; the official mean keeps ratings outside it (defect 3)."""


def official_rating(reply: str) -> int | None:
    """The rating the official parser reads from `reply`, or None where it prints `Missing extract score`."""
    for marker in MARKERS:
        parts = reply.split(marker)
        if len(parts) < 2:
            continue
        try:
            return int(parts[1].split(CLOSE)[0])
        except ValueError:  # what the official bare `except` catches here; int() of a str raises nothing else
            continue
    return None


@dataclass(frozen=True)
class Rating:
    """What one judge reply gives: the official rating (None: dropped) and whether it lies on the 1-10 scale."""

    value: int | None

    @property
    def parsed(self) -> bool:
        return self.value is not None

    @property
    def in_range(self) -> bool:
        return self.value is not None and SCALE_MIN <= self.value <= SCALE_MAX


def read_rating(reply: str) -> Rating:
    return Rating(official_rating(reply))
