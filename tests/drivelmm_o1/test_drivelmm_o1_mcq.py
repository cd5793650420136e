"""The official DriveLMM-o1 MCQ rules (pinned by the protocol table) and the lenient diagnostic."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drive_evals.drivelmm_o1.mcq import (
    NO_LETTER,
    is_mcq_by_number,
    is_mcq_by_text,
    lenient_correct,
    lenient_final_answer,
    lenient_letter,
    official_correct,
    official_final_answer,
    official_letter,
    question_number,
)

REASONING = "Reasoning Steps:\n1. The top middle image shows a pedestrian crossing.\n2. Braking is safest.\n"
LETTERS = {"A", "B", "C", "D", "E", "F", NO_LETTER}

# The protocol's table of official behaviour: (model output tail, official letter, lenient letter).
PROTOCOL_TABLE = [
    ("Final Answer: A) Slow down and assess the situation.", "A", "A"),
    ("**Final Answer**: B) Yield to the pedestrian.", "B", "B"),
    ("Final Answer: (B) Yield to the pedestrian.", "B", "B"),
    ("Final Answer: B", NO_LETTER, "B"),
    ("Final Answer: B. Yield to the pedestrian.", NO_LETTER, "B"),
    ("Final Answer: (B)", NO_LETTER, "B"),
    ("final answer: A) Slow down and assess the situation.", NO_LETTER, "A"),
    ("<answer>C) Change lanes to the left.</answer>", NO_LETTER, "C"),
    ("Final Answer: C) Change lanes rather than A) slow down.", "C", "C"),
    ("Final Answer: None of the options apply.", "F", "F"),
]


@pytest.mark.parametrize(("tail", "official", "lenient"), PROTOCOL_TABLE)
def test_protocol_table(tail: str, official: str, lenient: str) -> None:
    output = REASONING + tail
    assert official_letter(official_final_answer(output)) == official
    assert lenient_letter(lenient_final_answer(output)) == lenient


def test_lowercase_marker_gives_empty_final_answer() -> None:
    assert official_final_answer(REASONING + "final answer: A) Slow down.") == ""


def test_answer_tag_only_gives_empty_final_answer() -> None:
    assert official_final_answer("<answer>C) Change lanes.</answer>") == ""


@pytest.mark.parametrize(
    ("output", "final_answer"),
    [
        ("no marker here", ""),
        ("Final Answer: A) x", ": A) x"),
        ("Final Answer: A) x\nFinal Answer: B) y", ": B) y"),
        # "Final Answer" precedes "Answer" in the splitter order, even though "Answer:" occurs later.
        ("Final Answer: A) x\nAnswer: B) y", ": A) x\nAnswer: B) y"),
        # The first splitter present wins, wherever it occurs.
        ("Final Answer: A) x. The final answer is: B) y", " B) y"),
        ("**Final Answer:** D) z", " D) z"),
        ("<CONCLUSION>E) w</CONCLUSION>", "E) w</CONCLUSION>"),
        ("Why take this action?: C) because", " C) because"),
    ],
)
def test_official_final_answer(output: str, final_answer: str) -> None:
    assert official_final_answer(output) == final_answer


@pytest.mark.parametrize(
    ("text", "letter"),
    [
        ("A) Slow down and assess the situation.", "A"),
        ("F) None of the options.", "F"),
        ("  D)Turn right", "D"),
        ("G) not an option letter", NO_LETTER),
        ("a) lowercase is not a letter", NO_LETTER),
        ("B)\nthe option text on the next line", "B"),
        ("B)", NO_LETTER),
        ("NONE OF THE ABOVE", "F"),
        ("none of them", NO_LETTER),
        ("Slow down.", NO_LETTER),
        ("", NO_LETTER),
    ],
)
def test_official_letter(text: str, letter: str) -> None:
    assert official_letter(text) == letter


def test_official_correct() -> None:
    result = official_correct(REASONING + "Final Answer: A) Slow down.", "A) Slow down and assess the situation.")
    assert (result.model_letter, result.gt_letter, result.correct, result.none_quirk) == ("A", "A", True, False)
    assert result.final_answer == ": A) Slow down."
    wrong = official_correct(REASONING + "Final Answer: B) Go.", "A) Slow down.")
    assert not wrong.correct
    assert not wrong.none_quirk


def test_none_quirk_counts_as_correct_officially_but_not_leniently() -> None:
    output, gt = REASONING + "I would slow down.", "Slow down and keep a safe distance."
    official = official_correct(output, gt)
    assert (official.model_letter, official.gt_letter) == (NO_LETTER, NO_LETTER)
    assert official.correct
    assert official.none_quirk
    lenient = lenient_correct(output, gt)
    assert lenient.none_quirk
    assert not lenient.correct


def test_unreadable_answer_against_letter_is_wrong_without_quirk() -> None:
    result = official_correct(REASONING + "Final Answer: B", "B) Yield.")
    assert (result.correct, result.none_quirk) == (False, False)
    assert lenient_correct(REASONING + "Final Answer: B", "B) Yield.").correct


@pytest.mark.parametrize(
    ("idx", "number", "is_mcq"),
    [
        ("a" * 32 + "_" + "b" * 32 + "_2", 2, True),
        ("a" * 32 + "_" + "b" * 32 + "_3", 3, True),
        ("a" * 32 + "_" + "b" * 32 + "_8", 8, True),
        ("a" * 32 + "_" + "b" * 32 + "_1", 1, False),
        ("a" * 32 + "_" + "b" * 32 + "_7", 7, False),
        ("a" * 32 + "_" + "b" * 32 + "_12", 12, False),
    ],
)
def test_mcq_by_number(idx: str, number: int, is_mcq: bool) -> None:
    assert question_number(idx) == number
    assert is_mcq_by_number(idx) is is_mcq


@pytest.mark.parametrize("idx", ["no-underscore", "token_", "token_x2", "token_-1"])
def test_bad_idx_raises(idx: str) -> None:
    with pytest.raises(ValueError, match="question number"):
        question_number(idx)


def test_mcq_by_text() -> None:
    question = "What should the ego vehicle do? Choose from the following answers only:\nA) Stop.\nB) Go."
    assert is_mcq_by_text(question)
    assert not is_mcq_by_text("What is the ego vehicle doing? Describe it.")
    assert not is_mcq_by_text("choose from the following answers only")


@pytest.mark.parametrize(
    ("output", "letter"),
    [
        ("B", "B"),
        ("B.", "B"),
        ("B:", "B"),
        ("(B)", "B"),
        ("[B]", "B"),
        ("**B)** Yield", "B"),
        ("**B**", "B"),
        ("Final Answer:\nB\nbecause the pedestrian is crossing", "B"),
        ("FINAL ANSWER: **C)**", "C"),
        ("Final Answer: Option D, turn right.", "D"),
        ("final answer: choice (E)", "E"),
        ("Final Answer: I choose C) and slow down", "C"),
        ("Final Answer: the best option is B.", "B"),
        ("Final Answer: the best option is (B)", "B"),
        ("The final answer is: B. Yield.", "B"),
        ("<answer>D</answer>", "D"),
        ("<ANSWER> E. stop </ANSWER>", "E"),
        ("<CONCLUSION> A) Slow down. </CONCLUSION>", "A"),
        ("Final Answer: B. Yield, rather than A) speeding up.", "B"),
        ("Final Answer: None of the options.", "F"),
        ("Final Answer: A car is crossing, so slow down.", NO_LETTER),
        ("Final Answer: Slow down and yield.", NO_LETTER),
        ("Final Answer: b) lowercase", NO_LETTER),
        ("", NO_LETTER),
    ],
)
def test_lenient_letter(output: str, letter: str) -> None:
    assert lenient_letter(lenient_final_answer(output)) == letter


def test_lenient_without_marker_reads_whole_output() -> None:
    assert lenient_final_answer("  B  ") == "B"
    assert lenient_correct("B", "B) Yield.").correct


def test_lenient_keeps_official_answers() -> None:
    for tail, official, _ in PROTOCOL_TABLE:
        if official != NO_LETTER:
            assert lenient_correct(REASONING + tail, f"{official}) x").correct


@given(st.text())
def test_rules_never_raise(text: str) -> None:
    for result in (official_correct(text, text), lenient_correct(text, text)):
        assert result.model_letter in LETTERS
        assert result.gt_letter in LETTERS
        assert result.none_quirk == (result.model_letter == result.gt_letter == NO_LETTER)


@given(st.text(alphabet="ABCDEFabc()[]*.:_ \n<>/answerFinalAnswer", max_size=80))
def test_rules_never_raise_on_answer_like_text(text: str) -> None:
    assert official_letter(official_final_answer(text)) in LETTERS
    assert lenient_letter(lenient_final_answer(text)) in LETTERS
