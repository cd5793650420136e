"""Reading the option letter of a multiple-choice reply: the official parser, flaw included, and a corrected one.

The official `preprocess_answer` (`evaluate/utils.py` L38-61) lower-cases the stripped text and returns the first
of A, B, C, D (in that order, wherever it stands) that occurs as a word, `option x` included, or "" when none
does. So the English article "a" reads as option A: `C. Turn right. The car is making a right turn.` parses as A.
Official accuracy compares the letters read from the gold and the reply with this parser (`eval.py` L152-161),
so "" equals "" too (counted as correct, and flagged).

The corrected parser reads what a reader would: a leading option letter (`C.`, `(B)`, `**D**`), an explicit
`answer is X` / `option X` / `Answer: X`, an upper-case letter used as an option label (`is B. Going ahead`), and
failing those, the one option whose text the reply quotes. It never reads the lower-case article.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

LETTERS = ("A", "B", "C", "D")
NO_LETTER = ""
OFFICIAL_PATTERNS = {letter: re.compile(rf"\b({letter.lower()}|option {letter.lower()})\b") for letter in LETTERS}
"""`evaluate/utils.py` L52-57, tested in this order on the lower-cased reply."""


def official_letter(text: str) -> str:
    """`preprocess_answer`, exactly."""
    lowered = text.strip().lower()
    for letter, pattern in OFFICIAL_PATTERNS.items():
        if pattern.search(lowered):
            return letter
    return NO_LETTER


LEADING = re.compile(r"^[\s*_(\[]*(?:option\s+|answer\s*:?\s*)?[\s*_(\[]*([A-D])(?=\s*(?:[.):,*_\]]|$))", re.IGNORECASE)
"""`C`, `C.`, `(B) Turn left`, `**D. ...**`, `Option B`, `Answer: b`: a letter first, then punctuation or the end
(`A car ...` opens with the article)."""
EXPLICIT = re.compile(
    r"\b(?:answer|choice|option)\s*(?:is|would be|:)?\s*[*_(\[]*([A-D])(?![A-Za-z0-9'])", re.IGNORECASE
)
"""`the correct answer is C`, `option b`, `Answer: (D)`: a letter a keyword names."""
LABEL = re.compile(r"(?<![A-Za-z0-9'])([A-D])[.)](?=\s|$)")
"""`... is B. Going ahead.`: an upper-case letter used as an option label (the article "A" opens a sentence
without a full stop after it)."""
OPTION_TEXT = re.compile(r"(?:^|\s)([A-D])\.\s+(.+?)(?=\s+[A-D]\.\s|$)")
"""The question's options: `A. Going ahead. B. Turn left. C. Turn right.` -> (A, Going ahead.), ..."""


def question_options(question: str) -> dict[str, str]:
    """Letter -> option text (without its final full stop), read from the question after `options:`."""
    _, _, listed = question.partition("options:")
    return {letter: text.strip().rstrip(".").strip() for letter, text in OPTION_TEXT.findall(listed.strip())}


def corrected_letter(text: str, question: str = "") -> str:
    """The letter the reply chooses, by the first rule that reads one (see the module docstring); "" if none."""
    for pattern in (LEADING, EXPLICIT, LABEL):
        match = pattern.search(text)
        if match:
            return match.group(1).upper()
    lowered = text.lower()
    quoted = [letter for letter, option in question_options(question).items() if option and option.lower() in lowered]
    return quoted[0] if len(quoted) == 1 else NO_LETTER


@dataclass(frozen=True)
class MCQResult:
    """One reply read against its gold letter by one parser."""

    model_letter: str
    gold_letter: str
    correct: bool

    @property
    def empty_match(self) -> bool:
        """Both letters unreadable: the official comparison counts `"" == ""` as correct."""
        return self.model_letter == self.gold_letter == NO_LETTER


def official_result(reply: str, gold: str) -> MCQResult:
    """Official accuracy's comparison (`eval.py` L155-159): both sides through `preprocess_answer`."""
    model, gold_letter = official_letter(reply), official_letter(gold)
    return MCQResult(model, gold_letter, model == gold_letter)


def corrected_result(reply: str, gold: str, question: str) -> MCQResult:
    """The corrected parser on both sides; an unreadable side is never correct."""
    model, gold_letter = corrected_letter(reply, question), corrected_letter(gold, question)
    return MCQResult(model, gold_letter, model == gold_letter != NO_LETTER)


YES_NO = re.compile(r"^[\s*_(\[\"']*(yes|no)\b", re.IGNORECASE)
"""The leading Yes or No of a reply or a gold (`No.`). The official `preprocess_answer_yes_no` is never called and
reads any "yes" anywhere first (D20: `No, ... yes, a car` -> Yes), so the yes/no extension reads the leading one."""


def leading_yes_no(text: str) -> str:
    """`yes`, `no`, or "" when the text does not open with either."""
    match = YES_NO.match(text)
    return match.group(1).lower() if match else ""


def yes_no_correct(reply: str, gold: str) -> bool:
    """The reply opens with the gold's Yes or No (an unreadable side is never correct)."""
    return leading_yes_no(reply) == leading_yes_no(gold) != ""
