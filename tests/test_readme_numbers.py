"""The demo numbers quoted in the README and docs come out of today's code (`doc_numbers.py`).

The slow tests compare the documents with the passages measured from the session's shared runs (the same runs the
judge meta-evaluation and reducer tests read); the fast tests check that the comparison catches what it must (a
changed digit, a changed sentence, a lost, repeated or unknown marker).
"""

from __future__ import annotations

import pytest
from doc_numbers import (
    CHANCE_MARKERS,
    CHANCE_SEED_MARKERS,
    CHECKED,
    JUDGE_META_MARKERS,
    ChanceRuns,
    Expected,
    JudgeRun,
    chance_passages,
    chance_seed_passages,
    drift,
    judge_meta_passages,
    passages,
    read_documents,
    unknown_markers,
)
from inspect_ai.log import EvalLog

TABLE = "| metric | value |\n|---|---|\n| yaw | 0.069 |"
DOCUMENT = f"""Intro.

<!-- numbers: surds-chance -->
{TABLE}

Some prose, then
<!-- numbers: blind-gap -->
SURDS overall 0.083 normal,
  0.104 blind; and more.
"""
EXPECTED = {"surds-chance": Expected(TABLE, True), "blind-gap": Expected("SURDS overall 0.083 normal, 0.104", False)}
REMEASURE = "\n\nRemeasure with: python tools/readme_numbers.py"


def test_matching_documents_pass() -> None:
    assert drift({"README.md": DOCUMENT}, EXPECTED) == []


def test_a_changed_digit_in_a_table_is_drift() -> None:
    [problem] = drift({"README.md": DOCUMENT.replace("0.069", "0.070")}, EXPECTED)
    assert "table `surds-chance`" in problem and "0.070" in problem and "0.069" in problem


def test_a_changed_number_in_prose_is_drift() -> None:
    [problem] = drift({"README.md": DOCUMENT.replace("0.104", "0.105")}, EXPECTED)
    assert "passage `blind-gap`" in problem


def test_lost_repeated_and_unknown_markers_are_drift() -> None:
    lost = DOCUMENT.replace("<!-- numbers: blind-gap -->\n", "")
    assert drift({"README.md": lost}, EXPECTED) == [
        "marker `<!-- numbers: blind-gap -->` appears 0 times, expected once"
    ]
    repeated = {"README.md": DOCUMENT, "docs/other.md": DOCUMENT}
    assert len(drift(repeated, EXPECTED)) == 2
    unknown = DOCUMENT + "\n<!-- numbers: typo -->\n| a |\n"
    assert unknown_markers({"README.md": unknown}) == ["unknown marker `<!-- numbers: typo -->` in README.md"]


def test_the_documents_mark_every_checked_passage_once() -> None:
    found: dict[str, int] = {}
    for text in read_documents().values():
        for marker, blocks in passages(text).items():
            found[marker] = found.get(marker, 0) + len(blocks)
    assert found == dict.fromkeys(CHECKED, 1)


def check(expected: dict[str, Expected], markers: tuple[str, ...]) -> None:
    assert tuple(expected) == markers, "every marker of CHECKED is measured by one of these tests"
    problems = drift(read_documents(), expected)
    assert problems == [], "\n\n".join(problems) + REMEASURE


@pytest.mark.slow
def test_the_chance_table_is_todays(chance_seed_logs: list[EvalLog]) -> None:
    check(chance_seed_passages(chance_seed_logs), CHANCE_SEED_MARKERS)


@pytest.mark.slow
def test_the_blind_gap_and_judge_tokens_are_todays(chance_logs: ChanceRuns) -> None:
    check(chance_passages(chance_logs), CHANCE_MARKERS)


@pytest.mark.slow
def test_the_judge_meta_evaluation_numbers_are_todays(judge_meta_logs: dict[str, JudgeRun]) -> None:
    check(judge_meta_passages(judge_meta_logs), JUDGE_META_MARKERS)
