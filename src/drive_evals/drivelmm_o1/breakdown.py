"""Where a model fails on DriveLMM-o1: per-item facts kept in the sample metadata, and the levels the report uses.

Question type (perception, prediction, planning) is not reported: the data does not name it, and no rule from the
question number or text could be checked against the real question templates (only the synthetic demo set is
available offline, and there the same question number holds both kinds, e.g. question 8 asks "Is the truck ... a
risk" in one frame and "What is the pedestrian ... most likely to do" in another). The report breaks down by
question number instead, which is what the official MCQ rule keys on.

The one scene property the record has is the city: each nuScenes file name starts with its log name, which ends
in the log's UTC offset (`n015-2018-07-24-11-22-45+0800` is Singapore, `...-0400` is Boston). Singapore drives on
the left, Boston on the right, so a gap between the two is worth seeing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

BREAKDOWN_KEY = "breakdown"
QUESTION = "question number"
CITY = "city"
DIMENSIONS = (QUESTION, CITY)

UNKNOWN = "unknown"
CITY_BY_UTC_OFFSET = {"+0800": "Singapore", "-0400": "Boston", "-0500": "Boston"}
"""nuScenes was recorded in Boston (EDT in the recording season, EST otherwise) and Singapore."""
_LOG_OFFSET = re.compile(r"^n\d+-\d{4}(?:-\d{2}){5}([+-]\d{4})__")


def city_of(image_paths: Sequence[str]) -> str:
    """The city of the frame, from the UTC offset in its camera file names; `unknown` when they do not agree."""
    cities = set()
    for path in image_paths:
        match = _LOG_OFFSET.match(path.rsplit("/", 1)[-1])
        cities.add(CITY_BY_UTC_OFFSET.get(match.group(1), UNKNOWN) if match else UNKNOWN)
    return cities.pop() if len(cities) == 1 else UNKNOWN


def record_facts(image_paths: Sequence[str]) -> dict[str, Any]:
    """The facts kept in the sample metadata (the question number is there already)."""
    return {"city": city_of(image_paths)}


def item_levels(metadata: Mapping[str, Any]) -> dict[str, str]:
    """Dimension -> level from a sample's metadata; logs written before `breakdown` existed still give the
    question number."""
    levels: dict[str, str] = {}
    number = metadata.get("question_number")
    if isinstance(number, int) and not isinstance(number, bool):
        levels[QUESTION] = f"Q{number}"
    facts = metadata.get(BREAKDOWN_KEY)
    if isinstance(facts, Mapping) and isinstance(facts.get("city"), str):
        levels[CITY] = facts["city"]
    return levels
