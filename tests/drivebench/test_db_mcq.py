"""DriveBench MCQ parsing: the official `preprocess_answer` exactly (fuzzed against an independent statement of
its algorithm), and the corrected parser on the replies the official one misreads."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drive_evals.drivebench.mcq import (
    NO_LETTER,
    corrected_letter,
    corrected_result,
    official_letter,
    official_result,
    question_options,
)

QUESTION = (
    "What is the moving status of object <c1,CAM_BACK,0.5073,0.5778>? Please select the correct answer from the "
    "following options: A. Going ahead. B. Turn left. C. Turn right."
)


def is_word_char(char: str) -> bool:
    """Python's `\\w` for one character: alphanumeric or the underscore."""
    return char.isalnum() or char == "_"


def restated_official(reply: str) -> str:
    """The official algorithm, restated without regular expressions: lower-case the stripped reply, then the first
    of a, b, c, d (in that order) that stands alone as a word anywhere ('option x' is the same test: the letter is
    then a word by itself)."""
    text = reply.strip().lower()
    for letter in "abcd":
        for i, char in enumerate(text):
            before = i == 0 or not is_word_char(text[i - 1])
            after = i + 1 == len(text) or not is_word_char(text[i + 1])
            if char == letter and before and after:
                return letter.upper()
    return ""


TOKENS = st.sampled_from(
    ["a", "A", "b", "B", "c", "C", "d", "D", "e", "option", "Option", "I'd", "an", "cab", "_a", "a_", "a1", "é",
     "ß", "ａ", "ab", "the", "answer", "is", ".", ",", "(", ")", "**", ":", "-", "'", "\n", "\t", " ", "  ", "2"]
)  # fmt: skip


@settings(max_examples=600, deadline=None)
@given(st.lists(TOKENS, max_size=12).map("".join))
def test_official_parser_equals_its_restatement_on_token_soup(reply: str) -> None:
    assert official_letter(reply) == restated_official(reply)


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=40))
def test_official_parser_equals_its_restatement_on_any_text(reply: str) -> None:
    assert official_letter(reply) == restated_official(reply)


@pytest.mark.parametrize(
    ("reply", "official"),
    [
        ("A", "A"),
        (" A. Going ahead.", "A"),
        ("C. Turn right.", "C"),
        ("C. Turn right. The car is making a right turn.", "A"),
        ("B. Turn left. Explanation: the object is a sedan turning left.", "A"),
        ("The correct answer is C.", "C"),
        ("Option B", "B"),
        ("(B) Turn left", "B"),
        ("**B. Turn left**", "B"),
        ("Answer: B", "B"),
        ("I'd pick C", "C"),
        ("The ego vehicle is going straight.", ""),
        ("C, Explanation: The object is a white truck moving ahead, ...", "A"),
        ("No.", ""),
        ("Yes", ""),
    ],
)
def test_official_parser_on_the_reference_table(reply: str, official: str) -> None:
    """The protocol reference's §4.2 table, each row checked there by running the official function."""
    assert official_letter(reply) == official


def test_the_project_page_example_is_misread_officially_and_read_right_when_corrected() -> None:
    reply = (
        "The moving status of object (c2,CAM_FRONT,0.4651,0.5658) is B. Going ahead.\n\nExplanation: The object is "
        "positioned in the lane with a straight arrow marking"
    )
    assert official_result(reply, "A").correct, "official: the article 'a' reads as A, the gold"
    corrected = corrected_result(reply, "A", QUESTION)
    assert corrected.model_letter == "B" and not corrected.correct


@pytest.mark.parametrize(
    ("reply", "letter"),
    [
        ("C. Turn right. The car is making a right turn.", "C"),
        ("(B) Turn left, a sedan", "B"),
        ("**D. The ego vehicle is steering to the left.**", "D"),
        ("Option b: a car turning", "B"),
        ("Answer: C", "C"),
        ("The correct answer is C.", "C"),
        ("I think the answer would be (A) since a car ...", "A"),
        ("A car is ahead, so the status is Going ahead.", "A"),
        ("The object is making a turn left.", "B"),
        ("A car is ahead of a truck.", ""),
        ("", ""),
        ("Going ahead or turn left, hard to say.", ""),
        ("The answer is B. A car ...", "B"),
    ],
)
def test_corrected_parser(reply: str, letter: str) -> None:
    assert corrected_letter(reply, QUESTION) == letter


def test_question_options() -> None:
    assert question_options(QUESTION) == {"A": "Going ahead", "B": "Turn left", "C": "Turn right"}


def test_empty_match_is_official_but_flagged_and_never_corrected() -> None:
    official = official_result("The ego vehicle is going straight.", "unknown")
    assert official.correct and official.empty_match
    assert not corrected_result("", "", QUESTION).correct
    assert official_result("", "B").model_letter == NO_LETTER
