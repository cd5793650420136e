"""DriveLMM-o1 multiple-choice scoring: the official final-answer and option-letter rules, and a lenient diagnostic.

The official rules (`official_*`) reproduce `evaluation/evaluation_script.py` exactly, quirks included, because
they produce the headline MCQ accuracy. They are very format-sensitive (`Final Answer: B` scores as wrong), so a
separate lenient extraction (`lenient_*`) is offered as a clearly labelled diagnostic; it never feeds the
official number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .prompts import FINAL_ANSWER_SPLITTERS, MCQ_QUESTION_NUMBERS, OPTION_PATTERN

NO_LETTER = "none"
"""Sentinel letter when no option can be read (the official code's value)."""

NONE_OF_THE_LETTER = "F"
"""Letter the official code assigns to a reply that says `none of the ...` without an option letter."""

NONE_OF_THE_TEXT = "none of the "
"""Lowercased phrase that maps to `NONE_OF_THE_LETTER` when no `X)` option is present."""

MCQ_QUESTION_MARKER = "Choose from the following answers only"
"""Phrase that introduces the options of a multiple-choice question."""

_OPTION_RE = re.compile(OPTION_PATTERN)
OPTION_LINE = re.compile(rf"^\s*{OPTION_PATTERN}$", re.MULTILINE)
"""A line of a question that is one option: the official pattern, alone on its line (group 2 keeps trailing
spaces)."""


@dataclass(frozen=True)
class MCQResult:
    """The outcome of scoring one multiple-choice answer against the ground truth."""

    final_answer: str
    """The model's extracted final-answer text."""
    model_letter: str
    """`A`-`F`, or `NO_LETTER`."""
    gt_letter: str
    """`A`-`F`, or `NO_LETTER`."""
    correct: bool
    none_quirk: bool
    """Both letters are `NO_LETTER` (official: counted as correct; lenient: counted as wrong)."""


# --- official rules ---------------------------------------------------------------------------------------------


def official_final_answer(model_output: str) -> str:
    """The text after the last occurrence of the first splitter (in protocol order) present anywhere; else ``""``."""
    for marker in FINAL_ANSWER_SPLITTERS:
        if marker in model_output:
            return model_output.rsplit(marker, 1)[1]
    return ""


def official_letter(text: str) -> str:
    """The letter of the first `X) <something>` match; else `F` for `none of the `; else `NO_LETTER`."""
    match = _OPTION_RE.search(text)
    if match:
        return match.group(1)
    if NONE_OF_THE_TEXT in text.lower():
        return NONE_OF_THE_LETTER
    return NO_LETTER


def official_correct(model_output: str, gt_final_answer: str) -> MCQResult:
    """Official MCQ correctness: equal letters, so `none` == `none` counts as correct (flagged as `none_quirk`)."""
    final_answer = official_final_answer(model_output)
    model_letter = official_letter(final_answer)
    gt_letter = official_letter(gt_final_answer)
    return MCQResult(
        final_answer=final_answer,
        model_letter=model_letter,
        gt_letter=gt_letter,
        correct=model_letter == gt_letter,
        none_quirk=model_letter == gt_letter == NO_LETTER,
    )


# --- which items are multiple choice ----------------------------------------------------------------------------


def question_number(idx: str) -> int:
    """The question number within its frame: the last `_`-separated field of `idx`."""
    _, sep, number = idx.rpartition("_")
    if not sep or not number.isdecimal():
        raise ValueError(f"idx {idx!r} does not end in `_<question number>`")
    return int(number)


def is_mcq_by_number(idx: str) -> bool:
    """The official MCQ rule: the question number is one of `MCQ_QUESTION_NUMBERS`."""
    return question_number(idx) in MCQ_QUESTION_NUMBERS


def is_mcq_by_text(question: str) -> bool:
    """Cross-check of the official rule: the question text introduces a list of options."""
    return MCQ_QUESTION_MARKER in question


# --- lenient diagnostic -----------------------------------------------------------------------------------------

LENIENT_MARKERS: tuple[str, ...] = ("<answer>", *FINAL_ANSWER_SPLITTERS)
"""Lenient final-answer markers: an `<answer>` tag, then the official splitters, all matched case-insensitively."""

_LENIENT_MARKER_RES = tuple(re.compile(re.escape(marker), re.IGNORECASE) for marker in LENIENT_MARKERS)
_TAG_RE = re.compile(r"</?[A-Za-z][A-Za-z_-]*>")
_LEADING_NOISE = " \t\r\n*_:#>-\"'`"
# A letter opening the answer: optional `(`/`[`, the letter, then `)`, `]`, `.`, `:`, `*`, a line end or the end.
_LEADING_LETTER_RE = re.compile(r"[(\[]?([A-F])(?:[).\]:*]|[ \t]*(?:\r?\n|$))")
# "Option B" / "choice (C)" at the start of the answer.
_OPTION_WORD_RE = re.compile(r"(?:option|choice)\s*[(\[]?([A-F])\b", re.IGNORECASE)
# The official `X)` form anywhere, also when nothing follows the parenthesis.
ANY_OPTION_RE = re.compile(r"([A-F])\)")
# A standalone letter closing the answer, e.g. `... is B.` or `... is (B)`; may also catch `Plan A`.
_TRAILING_LETTER_RE = re.compile(r"(?:^|[\s(\[*])([A-F])[).\]*]*\s*$")


def lenient_final_answer(model_output: str) -> str:
    """The lenient final-answer text, with XML-like tags removed.

    Like the official rule (first marker present wins, text after its last occurrence), but markers are
    `LENIENT_MARKERS` matched case-insensitively; with no marker the whole output is the final answer, so a bare
    `B` reply can be read.
    """
    text = model_output
    for marker_re in _LENIENT_MARKER_RES:
        matches = list(marker_re.finditer(model_output))
        if matches:
            text = model_output[matches[-1].end() :]
            break
    return _TAG_RE.sub(" ", text).strip()


def lenient_letter(text: str) -> str:
    """A diagnostic option letter, tried in this order (the first rule that matches wins):

    1. a letter opening the text (after spaces, `*`, `_`, `:`, `#`, `>`, `-` and quotes): `B`, `B.`, `B:`, `B)`,
       `(B)`, `[B]`, `**B)**`, `**B**`, `B` alone on its line; a word such as `A car` is not a letter;
    2. `option B` / `choice (B)` opening the text (any case);
    3. the official `X)` anywhere (first one), even with nothing after the parenthesis;
    4. a standalone capital letter closing the text, e.g. `... is B.` or `... is (B)` (this can misread
       `... Plan A`: a diagnostic, not the headline);
    5. `F` when the lowercased text contains `none of the `;
    6. otherwise `NO_LETTER`.
    Letters are capital `A`-`F` only, so lowercase words are never read as options.
    """
    head = text.lstrip(_LEADING_NOISE)
    for pattern in (_LEADING_LETTER_RE, _OPTION_WORD_RE):
        match = pattern.match(head)
        if match:
            return match.group(1)
    for pattern in (ANY_OPTION_RE, _TRAILING_LETTER_RE):
        match = pattern.search(text)
        if match:
            return match.group(1)
    if NONE_OF_THE_TEXT in text.lower():
        return NONE_OF_THE_LETTER
    return NO_LETTER


def lenient_correct(model_output: str, gt_final_answer: str) -> MCQResult:
    """Lenient diagnostic correctness: the model's lenient letter equals the official ground-truth letter.

    Unlike the official rule, an unreadable answer is never correct, even when the ground truth is unreadable too.
    """
    final_answer = lenient_final_answer(model_output)
    model_letter = lenient_letter(final_answer)
    gt_letter = official_letter(gt_final_answer)
    return MCQResult(
        final_answer=final_answer,
        model_letter=model_letter,
        gt_letter=gt_letter,
        correct=model_letter == gt_letter != NO_LETTER,
        none_quirk=model_letter == gt_letter == NO_LETTER,
    )
