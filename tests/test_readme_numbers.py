"""The demo numbers quoted in the README and docs come out of today's code (`tools/readme_numbers.py`).

The slow test reruns every measurement and compares it with the documents; the fast tests check that the
comparison catches what it must (a changed digit, a changed sentence, a lost, repeated or unknown marker).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import readme_numbers  # a script in tools/, not a package
from readme_numbers import CHECKED, Expected, drift, passages, read_documents

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
    assert drift({"README.md": unknown}, EXPECTED) == ["unknown marker `<!-- numbers: typo -->` in README.md"]


def test_the_documents_mark_every_checked_passage_once() -> None:
    found: dict[str, int] = {}
    for text in read_documents().values():
        for marker, blocks in passages(text).items():
            found[marker] = found.get(marker, 0) + len(blocks)
    assert found == dict.fromkeys(CHECKED, 1)


@pytest.mark.slow
def test_the_documents_quote_todays_numbers() -> None:
    """About 40 in-process demo runs: 20 chance seeds, blind and normal runs, four judges' meta-evaluations."""
    problems = drift(read_documents(), readme_numbers.measure())
    assert problems == [], "\n\n".join(problems) + "\n\nRemeasure with: python tools/readme_numbers.py"
