"""Official extraction, normalisation, validity, point parsing, centerness and consistency, and hostile output."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drive_evals.surds.rules import (
    POINT_PATTERN,
    PromptScore,
    centerness,
    contains_option,
    extract_answer,
    normalize,
    parse_point,
    score_choice,
    score_point,
    unit_score,
)

PAIR_OPTIONS = ["The white car", "The adult wearing red clothes", "Almost the same"]
YAW_CARDINAL = ["South", "East", "West", "North"]
FB_OPTIONS = ["Yes", "No", "Almost the same in terms of front-back position"]


def test_first_answer_block_wins_and_spans_lines() -> None:
    assert extract_answer("<answer> A </answer><answer>B</answer>") == "A"
    assert extract_answer("<think>x</think><answer>\nline1\nline2\n</answer>") == "line1\nline2"
    assert extract_answer("<answer>never closed") is None
    assert extract_answer("") is None


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (" The White Car. ", "white car"),
        ("Between 2 meters, and 8 meters!", "between 2 meters and 8 meters"),
        ("Almost the same in terms of front-back position", "almost same in terms of frontback position"),
        ("An  apple\tA pear", "apple pear"),
    ],
)
def test_normalize(raw: str, expected: str) -> None:
    assert normalize(raw) == expected


def test_validity_gate_is_whole_phrase_case_insensitive() -> None:
    assert contains_option("I think THE WHITE CAR.", "The white car")
    assert not contains_option("white car", "The white car")
    assert not contains_option("Northeast", "North")
    assert not score_choice("<answer>Northeast</answer>", "North", YAW_CARDINAL).valid
    assert not score_choice("<answer>Almost the same</answer>", "Yes", FB_OPTIONS).valid


def test_missing_article_scores_zero() -> None:
    verdict = score_choice("<answer>white car</answer>", "The white car", PAIR_OPTIONS)
    assert (verdict.valid, verdict.score) == (False, 0.0)
    assert verdict.reason is not None


def test_correct_and_wrong_choice() -> None:
    assert score_choice("<answer>The white car.</answer>", "The white car", PAIR_OPTIONS).score == 1.0
    wrong = score_choice("<answer>Almost the same</answer>", "The white car", PAIR_OPTIONS)
    assert (wrong.valid, wrong.score) == (True, 0.0)
    both = score_choice("<answer>The white car or almost the same</answer>", "The white car", PAIR_OPTIONS)
    assert (both.valid, both.score) == (True, 0.0)


@pytest.mark.parametrize(
    ("answer", "point"),
    [
        ("[0.5, 0.5]", (800.0, 450.0)),
        ("[10,20,30,40]", (20.0, 30.0)),
        ("[1,1]", (1.0, 1.0)),
        ("The car is at [812, 525].", (812.0, 525.0)),
        ("[11, 20, 30, 41]", (20.0, 30.0)),
        ("[0.1, 0.2, 0.3, 0.4]", (0.0, 0.0)),
        ("[500, 999]", None),
        ("[1600,450]", None),
        ("(800, 450)", None),
        ("[800]", None),
        ("[1, 2, 3]", None),
        ("[800, 450", None),
        ("[8..0, 450]", None),
        ("[+800, 450]", None),
        ("[-5, 450]", None),
        ("no point here", None),
        ("[1" + "0" * 400 + ", 5]", None),
    ],
)
def test_parse_point(answer: str, point: tuple[float, float] | None) -> None:
    assert parse_point(answer) == point


def test_fidelity_differences_in_xy2d_brackets() -> None:
    """Documented differences (docs/surds.md, Fidelity): the official code evaluates any bracket and crashes on a
    non-number such as `...` (an Ellipsis literal); here it is invalid. A bracket over 10,000 characters, a point
    in the official code and evalscope, is invalid here (not evaluated, to bound the work on runaway output)."""
    assert parse_point("[..., 450]") is None
    padded = "[" + " " * 10_000 + "800, 450]"
    assert re.fullmatch(r"\[[-\d.,\s]+\]", padded) and parse_point(padded) is None
    assert parse_point("[" + " " * 9_000 + "800, 450]") == (800.0, 450.0)


def test_centerness() -> None:
    assert centerness((200, 200), [100, 100, 300, 300]) == 1.0
    assert math.isclose(centerness((150, 150), [100, 100, 300, 300]), 1 / 3)
    assert centerness((100, 200), [100, 100, 300, 300]) == 0.0
    assert centerness((99, 200), [100, 100, 300, 300]) == 0.0
    assert centerness((100, 100), [100, 100, 100, 100]) == 1.0


def test_score_point_uses_box() -> None:
    verdict = score_point("<think>x</think><answer>[400, 450]</answer>", [350, 400, 450, 500])
    assert verdict.valid and verdict.score == 1.0 and verdict.point == (400.0, 450.0)
    grid = score_point("<answer>[500, 500]</answer>", [350, 400, 450, 500])
    assert grid.valid and grid.score == 0.0
    assert not score_point("<answer>(400, 450)</answer>", [350, 400, 450, 500]).valid


def test_consistency_needs_both_prompts() -> None:
    right, wrong = PromptScore("a", True, 1.0), PromptScore("b", True, 0.0)
    invalid = PromptScore(None, False, 0.0, "no block")
    assert unit_score([right, right], 2) == 1.0
    assert unit_score([right, wrong], 2) == 0.0
    assert unit_score([right, invalid], 2) == 0.0
    assert unit_score([right], 2) == 0.0
    assert unit_score([PromptScore("p", True, 0.4, point=(1, 1))], 1) == 0.4


@pytest.mark.parametrize(
    "completion",
    [
        None,
        "",
        "<answer></answer>",
        "<answer>   </answer>",
        "<answer>" + "The white car " * 100_000 + "</answer>",
        "<answer>[" + "1," * 200_000 + "1]</answer>",
        "<answer>[" + "[" * 5000 + "]" * 5000 + "]</answer>",
        "<answer>[1e308, 1e308]</answer>",
        "<answer>[nan, nan]</answer>",
        "<answer>[0x10, 20]</answer>",
        "\x00<answer>\ud800</answer>",
        "<ANSWER>The white car</ANSWER>",
        "</answer>The white car<answer>",
    ],
)
def test_hostile_output_never_raises(completion: str | None) -> None:
    for verdict in (
        score_choice(completion, "The white car", PAIR_OPTIONS),
        score_point(completion, [350, 400, 450, 500]),
    ):
        assert 0.0 <= verdict.score <= 1.0
        assert verdict.valid or verdict.reason


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_arbitrary_text_never_raises(text: str) -> None:
    for completion in (text, f"<answer>{text}</answer>", f"<answer>[{text}]</answer>"):
        choice = score_choice(completion, "The white car", PAIR_OPTIONS)
        point = score_point(completion, [350, 400, 450, 500])
        assert choice.score in (0.0, 1.0)
        assert 0.0 <= point.score <= 1.0
        assert (choice.reason is None) == choice.valid


OFFICIAL_POINT = r"\[\s*([-\d.,\s]+)\s*\]"


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="[] 0123456789.,-+x\n", max_size=40))
def test_point_pattern_matches_the_official_one(text: str) -> None:
    ours, official = POINT_PATTERN.search(text), re.search(OFFICIAL_POINT, text)
    assert (ours.group(0) if ours else None) == (official.group(0) if official else None)
