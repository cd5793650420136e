"""A NON-OFFICIAL xy2d diagnostic: which coordinate convention an answer seems to use, and its score under each.

The official rule reads `[x, y]` as pixels of the 1600x900 image (a value below 1 as a fraction). Many models
answer in another frame: Qwen2-VL and Qwen3-VL on a 0-1000 grid, Gemini on a 0-1000 grid in `[y, x]` order,
others in [0, 1], and models behind a provider that resizes the image in pixels of the resized image. The official
rule then scores them near 0 (or invalid) and nobody notices. This module re-reads the bracket the official rule
reads under each convention, rescales the point to 1600x900, and scores it with the official centerness. Nothing
here feeds an official metric: the values are reported beside them as `xy2d_conv_<convention>_score` and
`xy2d_conv_<convention>_share`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from drive_evals.surds.rules import IMAGE_HEIGHT, IMAGE_WIDTH, bracket_numbers, centerness

OFFICIAL = "official"
"""The official reading (pixels, values below 1 as fractions): its score equals the official xy2d unit score."""
UNREADABLE = "none"
"""The share of answers with no usable point under any convention."""
GRID1000 = "grid1000"
UNIT = "unit"
METRIC_PREFIX = "xy2d_conv_"


@dataclass(frozen=True)
class Convention:
    """A coordinate frame an answer may refer to; the point is rescaled from it to 1600x900."""

    name: str
    width: float
    height: float
    yx: bool = False
    """The answer gives `[y, x]` (and `[ymin, xmin, ymax, xmax]`)."""


CONVENTIONS: tuple[Convention, ...] = (
    Convention(GRID1000, 1000, 1000),
    Convention("anthropic", 1456, 819),
    Convention("qwen25vl", 1316, 728),
    Convention("grid1000_yx", 1000, 1000, yx=True),
    Convention(UNIT, 1, 1),
)
"""Alternative readings, in tie-break order after the official one.

- `grid1000`: `[x, y]` on a 0-1000 grid (Qwen2-VL's and Qwen3-VL's grounding format).
- `anthropic`: pixels of the image Claude sees. Anthropic scales an image down until its long edge is at most
  1568 px AND it is at most ~1.15 megapixels (~1,600 tokens); its documented maximum for 16:9 is 1456x819, which
  is what a 1600x900 frame becomes. (The long-edge cap alone would give 1568x882, 2% off the original: the same
  as the official reading for scoring purposes, so it is not a separate convention.)
- `qwen25vl`: pixels of Qwen2.5-VL's resized input with the model card's suggested `max_pixels = 1280*28*28`
  (sides rounded to multiples of 28, then scaled to fit): 1316x728. With the processor's default cap
  (16384*28*28) the input is 1596x896, indistinguishable from the official reading.
- `grid1000_yx`: `[y, x]` on a 0-1000 grid (Gemini's pointing and box format).
- `unit`: normalised [0, 1] coordinates; unlike the official rule, a normalised box keeps its centre instead of
  collapsing to (0, 0) by floor division.
"""

NAMES: tuple[str, ...] = (OFFICIAL, *(c.name for c in CONVENTIONS))
_GRID = next(c for c in CONVENTIONS if c.name == GRID1000)
SHARE_NAMES: tuple[str, ...] = (*NAMES, UNREADABLE)


def score_key(name: str) -> str:
    return f"{METRIC_PREFIX}{name}_score"


def share_key(name: str) -> str:
    return f"{METRIC_PREFIX}{name}_share"


DIAGNOSTIC_KEYS: tuple[str, ...] = (*(score_key(n) for n in NAMES), *(share_key(n) for n in SHARE_NAMES))
"""Every key `diagnose` adds to an xy2d unit's score value, in report order."""


def read_numbers(answer: str | None) -> tuple[float, ...] | None:
    """The 2 or 4 numbers of the bracket the official rule reads (its first match), not rescaled."""
    return None if answer is None else bracket_numbers(answer)


def convention_point(values: Sequence[float], convention: Convention) -> tuple[float, float] | None:
    """The point in 1600x900 pixels if the numbers are read in `convention`'s frame; None outside that frame.

    A box becomes its exact centre (the official floor division would move a normalised box to (0, 0)).
    """
    first, second = (values[0], values[1]) if len(values) == 2 else _centre(values)
    x, y = (second, first) if convention.yx else (first, second)
    if not (0 <= x <= convention.width and 0 <= y <= convention.height):
        return None
    return x * IMAGE_WIDTH / convention.width, y * IMAGE_HEIGHT / convention.height


def _centre(box: Sequence[float]) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def convention_scores(
    values: Sequence[float] | None, official: tuple[float, float] | None, box: Sequence[float]
) -> dict[str, float]:
    """Centerness in the gold box under each reading; 0 when the reading has no point.

    `values` are the bracket's numbers (`read_numbers`), `official` the official rule's point (the scorer's).
    """
    scores = {OFFICIAL: centerness(official, box) if official is not None else 0.0}
    for convention in CONVENTIONS:
        point = convention_point(values, convention) if values is not None else None
        scores[convention.name] = centerness(point, box) if point is not None else 0.0
    return scores


def classify(values: Sequence[float] | None, official: tuple[float, float] | None, scores: dict[str, float]) -> str:
    """The one convention the answer looks like.

    1. No readable bracket: `none`. 2. Every number in [0, 1]: `unit`. 3. Otherwise the reading that puts the point
    deepest inside the gold box (highest centerness; ties go to the earlier name in `NAMES`, official first).
    4. No reading hits the box: `official` if the official rule finds a point in the frame (a plain miss), else
    `grid1000` if the numbers fit a 0-1000 grid (e.g. y in (900, 1000], invalid as pixels), else `none`.
    """
    if values is None:
        return UNREADABLE
    if all(0 <= v <= 1 for v in values):
        return UNIT
    best = max(NAMES, key=lambda name: (scores[name], -NAMES.index(name)))
    if scores[best] > 0:
        return best
    if official is not None:
        return OFFICIAL
    if convention_point(values, _GRID) is not None:
        return GRID1000
    return UNREADABLE


def diagnose(answer: str | None, official: tuple[float, float] | None, box: Sequence[float]) -> dict[str, float]:
    """The flat score-value entries for one xy2d unit: each reading's centerness and a one-hot convention.

    `answer` is the extracted `<answer>` text and `official` the point the official rule read from it (both from
    the scorer's `PromptScore`), so the official parse is not repeated.
    """
    values = read_numbers(answer)
    scores = convention_scores(values, official, box)
    looks_like = classify(values, official, scores)
    return {
        **{score_key(name): scores[name] for name in NAMES},
        **{share_key(name): float(name == looks_like) for name in SHARE_NAMES},
    }


def describe(values: dict[str, float]) -> str:
    """One Markdown paragraph for the sample's explanation (empty for non-xy2d units)."""
    if not values:
        return ""
    looks_like = next(name for name in SHARE_NAMES if values[share_key(name)] == 1.0)
    readings = ", ".join(f"{name} {values[score_key(name)]:.3f}" for name in NAMES)
    return (
        f"\n\n**Coordinate conventions (non-official diagnostic)**: looks like `{looks_like}`; "
        f"centerness when read as {readings}."
    )
