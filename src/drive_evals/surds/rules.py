"""SURDS answer extraction, validity, normalised matching, point parsing and centerness (pure functions).

These reproduce `evaluation/eval_from_json.py` of the official SURDS code (Drive-MLLM at 7895f99) and evalscope
1.14.1's `surds` scorer, including their quirks: a 0-1000 grid answer is read as pixels, a normalised box
collapses to (0, 0), parentheses are not a point. Model output is untrusted: nothing here raises on any string.
"""

from __future__ import annotations

import ast
import math
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass

IMAGE_WIDTH = 1600
IMAGE_HEIGHT = 900
"""nuScenes camera resolution: the frame the xy2d answer is read in."""

ANSWER_OPEN = "<answer>"
ANSWER_CLOSE = "</answer>"
POINT_PATTERN = re.compile(r"\[[-\d.,\s]+\]")
r"""The official bracket: digits, minus signs, dots, commas and white space only (no `+`). The official pattern
`\[\s*([-\d.,\s]+)\s*\]` matches exactly the same text, but backtracks cubically on a long unclosed bracket."""
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)

MAX_LITERAL_CHARS = 10_000
"""A bracket longer than this cannot be a point; skip evaluating it (guards against huge outputs)."""


def extract_answer(completion: str) -> str | None:
    """The stripped content of the FIRST `<answer>...</answer>` block, or None when there is none.

    Same result as the official `re.search(r"<answer>(.*?)</answer>", re.DOTALL)` (if the first opening tag has
    no closing tag after it, no later one has), but linear: the regex is quadratic on many unclosed opening
    tags, and a megabyte of them took minutes.
    """
    start = completion.find(ANSWER_OPEN)
    end = completion.find(ANSWER_CLOSE, start + len(ANSWER_OPEN)) if start != -1 else -1
    return completion[start + len(ANSWER_OPEN) : end].strip() if end != -1 else None


def normalize(text: str) -> str:
    """Lowercase, delete ASCII punctuation (hyphens too), delete a/an/the, collapse white space."""
    text = text.strip().lower().translate(_PUNCTUATION)
    return " ".join(_ARTICLES.sub("", text).split())


def contains_option(answer: str, option: str) -> bool:
    """Whether `option` occurs in `answer` as a whole phrase, ignoring case (the official validity gate)."""
    return re.search(rf"\b{re.escape(option.strip().lower())}\b", answer.strip().lower()) is not None


def bracket_numbers(answer: str) -> tuple[float, ...] | None:
    """The 2 or 4 numbers of the first official bracket in the answer, not rescaled; None when it holds no such list."""
    match = POINT_PATTERN.search(answer)
    if match is None or len(match.group(0)) > MAX_LITERAL_CHARS:
        return None
    try:
        values = ast.literal_eval(match.group(0))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if not isinstance(values, (list, tuple)) or len(values) not in (2, 4):
        return None
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return None
    try:
        return tuple(float(v) for v in values)
    except OverflowError:  # an integer too large for a float is far outside any frame
        return None


def parse_point(answer: str) -> tuple[float, float] | None:
    """A pixel point from `[x, y]` or the centre of `[x1, y1, x2, y2]`; None when the answer has no valid point.

    Values below 1 are fractions of the image size. The point must lie in the 1600x900 frame.
    """
    values = bracket_numbers(answer)
    if values is None:
        return None
    if len(values) == 2:
        x, y = values
    else:
        x1, y1, x2, y2 = values
        x, y = (x1 + x2) // 2, (y1 + y2) // 2
    x = x * IMAGE_WIDTH if x < 1 else x
    y = y * IMAGE_HEIGHT if y < 1 else y
    if not (0 <= x < IMAGE_WIDTH and 0 <= y < IMAGE_HEIGHT):
        return None
    return float(x), float(y)


def centerness(point: tuple[float, float], box: Sequence[float]) -> float:
    """FCOS-style centerness of a point in a box: 1 at the centre, 0 on the edges and outside."""
    x, y = point
    xmin, ymin, xmax, ymax = box
    if not (xmin <= x <= xmax and ymin <= y <= ymax):
        return 0.0
    left, right, top, bottom = x - xmin, xmax - x, y - ymin, ymax - y
    horizontal = min(left, right) / max(left, right) if max(left, right) else 1.0
    vertical = min(top, bottom) / max(top, bottom) if max(top, bottom) else 1.0
    return math.sqrt(horizontal * vertical)


@dataclass(frozen=True)
class PromptScore:
    """The verdict on one completion of one prompt."""

    answer: str | None
    """The extracted `<answer>` text (None when there was no block)."""
    valid: bool
    score: float
    """1/0 for choice prompts; centerness for xy2d."""
    reason: str | None = None
    """Why the completion is invalid (None when valid)."""
    point: tuple[float, float] | None = None
    """xy2d only: the parsed pixel point."""

    @property
    def correct(self) -> bool:
        return self.valid and self.score > 0


REASON_NO_COMPLETION = "no completion"
REASON_NO_ANSWER_BLOCK = "no <answer>...</answer> block"
REASON_EMPTY_ANSWER = "empty <answer> block"
REASON_NO_OPTION = "answer names none of the options as a whole phrase"
REASON_NO_POINT = "no [x, y] or [x1, y1, x2, y2] inside the 1600x900 frame"


def score_choice(completion: str | None, gold: str, options: Sequence[str]) -> PromptScore:
    """Score a multiple-choice prompt: validity gate, then normalised exact match with the gold."""
    answer, reason = _answer_or_reason(completion)
    if answer is None:
        return PromptScore(None, False, 0.0, reason)
    if not any(contains_option(answer, option) for option in options):
        return PromptScore(answer, False, 0.0, REASON_NO_OPTION)
    return PromptScore(answer, True, float(normalize(answer) == normalize(gold)))


def score_point(completion: str | None, box: Sequence[float]) -> PromptScore:
    """Score an xy2d prompt: a point inside the frame is valid and earns its centerness in the gold box."""
    answer, reason = _answer_or_reason(completion)
    if answer is None:
        return PromptScore(None, False, 0.0, reason)
    point = parse_point(answer)
    if point is None:
        return PromptScore(answer, False, 0.0, REASON_NO_POINT)
    return PromptScore(answer, True, centerness(point, box), point=point)


def _answer_or_reason(completion: str | None) -> tuple[str | None, str | None]:
    if completion is None:
        return None, REASON_NO_COMPLETION
    answer = extract_answer(completion)
    if answer is None:
        return None, REASON_NO_ANSWER_BLOCK
    if not answer:
        return None, REASON_EMPTY_ANSWER
    return answer, None


def unit_score(prompt_scores: Sequence[PromptScore], expected_prompts: int) -> float:
    """Consistency: a unit scores only if every one of its prompts is valid and correct; a missing half is 0."""
    if len(prompt_scores) < expected_prompts or not prompt_scores:
        return 0.0
    if expected_prompts == 1:
        return prompt_scores[0].score if prompt_scores[0].valid else 0.0
    return 1.0 if all(p.valid and p.score == 1.0 for p in prompt_scores) else 0.0
