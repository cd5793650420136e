"""The DriveLMM-o1 twelve-criterion rubric: judge-reply parsing and validation, aggregation, display.

A judge reply is untrusted text, so `parse_judge_reply` never raises: it returns the twelve scores or a short,
loggable failure reason, and the caller decides whether to retry. It is never stricter than the official parser
(`ast.literal_eval` of the reply, evaluation_script.py at 338d6b3): what that accepts counts as it counts there,
a Python-literal dict and a criterion outside 1-10 included (the latter flagged, see `RubricParse.out_of_range`);
what it rejects (no dict, a missing criterion, a value that is not a number) is retried rather than guessed at.
The reply is the judge's raw text: a `<think>` block in it is set aside (`without_think_blocks`), so a draft
written inside one is never read as the verdict.
"""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from statistics import fmean

from pydantic import BaseModel, ConfigDict, Field

from .prompts import CRITERIA, CRITERION_ALIASES, CRITERION_MAX, CRITERION_MIN, OVERALL_SCORE_KEY

MAX_JSON_CANDIDATES = 64
"""How many `{` positions are tried as the start of a JSON object; bounds the work on adversarial replies."""
MAX_LITERAL_CHARS = 20_000
"""Longest reply read with `ast.literal_eval` (the official parser); far above the judge's 500 tokens, and a
bound on the parser's work and recursion on a runaway reply."""

THINK_TAG = re.compile(r"<(/?)think>")
"""The tags of a reasoning block a judge may write into its reply text (`<think>...</think>`, nestable)."""

SCORE_SCALE = CRITERION_MAX
"""Scores are divided by this to map the 1-10 scale into (0, 1]."""

_MAX_SHOWN_VALUE_CHARS = 40

EMPTY = "empty"
INVALID_JSON = "invalid_json"
MISSING_KEYS = "missing_keys"
NON_NUMERIC = "non_numeric"
"""Failure reason prefixes; a reason may join several problems with `; `."""


@dataclass(frozen=True)
class RubricParse:
    """One parsed judge reply: the twelve criterion scores, or the reason they could not be read."""

    scores: dict[str, float] = field(default_factory=dict)
    """The twelve criteria keyed by schema key (1-10), empty on failure."""
    reported_overall: float | None = None
    """The judge's `Overall Score` when it is a finite number (not range-checked); None if absent or on failure."""
    out_of_range: dict[str, float] = field(default_factory=dict)
    """Criteria (and `Overall Score`) outside 1-10: counted as given, as the official script counts them."""
    error: str | None = None
    """Why the reply was rejected, e.g. `missing_keys: ['Relevance']`; None when the reply is valid."""

    @property
    def ok(self) -> bool:
        """The reply carried twelve valid scores."""
        return self.error is None


def parse_judge_reply(text: str) -> RubricParse:
    """Read the twelve criteria (and the judge's Overall Score) from a judge reply; never raises.

    The first JSON object that decodes outside any `<think>` block is used, wherever it is: alone, inside prose,
    or in a ```json fence; else the whole reply read as a Python literal, as the official script reads it (single
    quotes, `True`).
    `Commonsense Reasoning` (the prompt's wording) is read as `Commonsense`; the schema key wins if both are given.
    Each criterion must be a finite number (int or float, not a boolean). A value outside [1, 10] is kept as given
    and listed in `out_of_range`. Numeric strings such as `"7.5"` are rejected: the official mean of such values
    fails, and a retry is safer than guessing what `float()` should accept. Extra keys are ignored.
    """
    if not text.strip():
        return RubricParse(error=EMPTY)
    visible = without_think_blocks(text)
    obj = find_json_object(visible)
    if obj is None:
        obj = python_literal_dict(visible)
    if obj is None:
        return RubricParse(error=INVALID_JSON)
    values = _canonical_keys(obj)
    numbers = {key: _as_number(values[key]) for key in CRITERIA if key in values}
    problems = _problems(values, numbers)
    if problems:
        return RubricParse(error="; ".join(problems))
    scores = {key: number for key, number in numbers.items() if number is not None}
    overall = _as_number(values.get(OVERALL_SCORE_KEY))
    given = {**scores, **({OVERALL_SCORE_KEY: overall} if overall is not None else {})}
    return RubricParse(
        scores=scores,
        reported_overall=overall,
        out_of_range={key: number for key, number in given.items() if not _in_range(number)},
    )


def without_think_blocks(text: str) -> str:
    """`text` with each closed `<think>...</think>` block (nested ones as one) blanked out, positions kept.

    The official script's `ast.literal_eval` of the whole reply fails on any reply holding such a block (the item
    is dropped); read leniently, as JSON inside prose is, the verdict is what stands outside the block. An
    unclosed `<think>` is left as it is.
    """
    depth, start, spans = 0, 0, []
    for tag in THINK_TAG.finditer(text):
        if not tag.group(1):
            if depth == 0:
                start = tag.start()
            depth += 1
        elif depth:
            depth -= 1
            if depth == 0:
                spans.append((start, tag.end()))
    for first, end in spans:
        text = text[:first] + " " * (end - first) + text[end:]
    return text


def python_literal_dict(text: str) -> dict[str, object] | None:
    """The reply as the official parser reads it: `ast.literal_eval` of the whole reply, when that is a dict."""
    if len(text) > MAX_LITERAL_CHARS:
        return None
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, dict) and all(isinstance(key, str) for key in value) else None


def find_json_object(text: str) -> dict[str, object] | None:
    """The first JSON object that decodes, trying each `{` in turn (at most `MAX_JSON_CANDIDATES`)."""
    decoder = json.JSONDecoder()
    start = text.find("{")
    for _ in range(MAX_JSON_CANDIDATES):
        if start == -1:
            break
        try:
            value, _end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            start = text.find("{", start + 1)
            continue
        return value if isinstance(value, dict) else None
    return None


def _canonical_keys(obj: Mapping[str, object]) -> dict[str, object]:
    """Map alias keys to schema keys, keeping the schema key's value when both are present."""
    values: dict[str, object] = {}
    for key, value in obj.items():
        canonical = CRITERION_ALIASES.get(key, key)
        if canonical == key or canonical not in obj:
            values[canonical] = value
    return values


def _problems(values: Mapping[str, object], numbers: Mapping[str, float | None]) -> list[str]:
    """Every reason the twelve criteria are unusable, grouped by kind (empty when they are valid)."""
    missing = [key for key in CRITERIA if key not in values]
    non_numeric = {key: _shown(values[key]) for key, number in numbers.items() if number is None}
    problems = []
    if missing:
        problems.append(f"{MISSING_KEYS}: {missing}")
    if non_numeric:
        problems.append(f"{NON_NUMERIC}: {non_numeric}")
    return problems


def _as_number(value: object) -> float | None:
    """The value as a finite float if it is a JSON number (bool excluded), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _in_range(number: float) -> bool:
    return CRITERION_MIN <= number <= CRITERION_MAX


def _shown(value: object) -> str:
    """A short repr for a failure reason, so a huge bogus value cannot bloat the log."""
    shown = repr(value)
    return shown if len(shown) <= _MAX_SHOWN_VALUE_CHARS else shown[: _MAX_SHOWN_VALUE_CHARS - 3] + "..."


# --- aggregation --------------------------------------------------------------------------------------------------


def reasoning_score(scores: Mapping[str, float]) -> float:
    """This project's final reasoning score: the mean of the twelve criteria, divided by 10 (in [0.1, 1] unless
    the judge went outside 1-10). Computed in decimal, as `scaled` is, so that the stored value is the float nearest
    the exact mean: a criteria sum of 729 is 0.6075, which the viewer prints as such, not 0.6074999999..."""
    values = [scores[key] for key in CRITERIA]
    if not all(math.isfinite(value) for value in values):
        return fmean(values) / SCORE_SCALE
    total = sum(Fraction(Decimal(repr(value))) for value in values)
    return float(total / (len(values) * Fraction(Decimal(repr(SCORE_SCALE)))))


def scaled(value: float) -> float:
    """`value / 10` in decimal, so the stored fraction reads as the judge's number does (9.4 -> 0.94, not
    0.9400000000000001): the shortest repr of the float, shifted one place."""
    return float(Decimal(repr(value)) / Decimal(repr(SCORE_SCALE)))


def judge_overall(reported: float | None) -> float | None:
    """The judge's own Overall Score divided by 10, as given (the paper's headline), or None if absent."""
    return None if reported is None else scaled(reported)


def criterion_fractions(scores: Mapping[str, float]) -> dict[str, float]:
    """Each criterion divided by 10 (exactly, `scaled`), in schema order (the paper's columns are these x 100)."""
    return {key: scaled(scores[key]) for key in CRITERIA}


def rubric_table(scores: Mapping[str, float], reported_overall: float | None) -> str:
    """A Markdown table of the twelve criteria, their mean and the judge's Overall Score (for Score.explanation)."""
    rows = ["| Criterion | Score (1-10) |", "|---|---|"]
    rows += [f"| {key} | {scores[key]:g} |" for key in CRITERIA]
    rows.append(f"| **Mean of the 12 (computed)** | {fmean(scores[key] for key in CRITERIA):.2f} |")
    shown_overall = "not reported" if reported_overall is None else f"{reported_overall:g}"
    rows.append(f"| {OVERALL_SCORE_KEY} (judge) | {shown_overall} |")
    return "\n".join(rows)


# --- structured output --------------------------------------------------------------------------------------------


class EvaluationScores(BaseModel):
    """The judge's structured-output schema: the 13 official keys, all required numbers, nothing else.

    Pass it to `inspect_ai.util.json_schema` and name the schema `JUDGE_SCHEMA_NAME`; fields are populated by
    their schema keys (aliases), and by their Python names too. The aliases are literals because type checkers
    require them to be; a test pins them to `JUDGE_SCHEMA_KEYS`.
    """

    model_config = ConfigDict(populate_by_name=True, extra="forbid")

    faithfulness_step: float = Field(alias="Faithfulness-Step")
    informativeness_step: float = Field(alias="Informativeness-Step")
    risk_assessment_accuracy: float = Field(alias="Risk Assessment Accuracy")
    traffic_rule_adherence: float = Field(alias="Traffic Rule Adherence")
    scene_awareness_object_understanding: float = Field(alias="Scene Awareness & Object Understanding")
    repetition_token: float = Field(alias="Repetition-Token")
    hallucination: float = Field(alias="Hallucination")
    semantic_coverage_step: float = Field(alias="Semantic Coverage-Step")
    commonsense: float = Field(alias="Commonsense")
    missing_step: float = Field(alias="Missing Step")
    relevance: float = Field(alias="Relevance")
    missing_details: float = Field(alias="Missing Details")
    overall_score: float = Field(alias="Overall Score")
