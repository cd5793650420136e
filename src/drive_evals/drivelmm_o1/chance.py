"""DriveLMM-o1's chance answers for the `chance` provider: a uniform option letter, or a random rubric verdict.

Both use the official formats (the `Reasoning Steps: ... Final Answer: X) text` layout the model prompt asks for,
and the judge schema's criteria on their 1-10 scale), so a chance run exercises the whole pipeline.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any

from drive_evals.drivelmm_o1.mcq import OPTION_LINE
from drive_evals.drivelmm_o1.prompts import CRITERIA, CRITERION_MAX, CRITERION_MIN, MODEL_PROMPT, OVERALL_SCORE_KEY


def chance_answer(prompt: str, rng: random.Random) -> str | None:
    """A uniformly random option of a multiple-choice question, a generic reasoning otherwise; None for a prompt
    that is not DriveLMM-o1's official one."""
    if MODEL_PROMPT not in prompt:
        return None
    letters = OPTION_LINE.findall(prompt)
    if letters:
        letter, text = rng.choice(letters)
        return (
            "Reasoning Steps: 1. Look at the six camera views. 2. Pick one of the options at random.\n"
            f"Final Answer: {letter}) {text.strip()}"
        )
    return (
        "Reasoning Steps: 1. Look at the scene. 2. Keep a safe distance and follow traffic rules.\n"
        "Final Answer: Proceed with caution."
    )


def chance_verdict(schema: Mapping[str, Any], rng: random.Random) -> str | None:
    """Random in-range scores for every property of the judge schema; its `Overall Score` is their mean. None for
    a schema that names neither a criterion nor the overall score."""
    properties = schema.get("properties", {})
    if OVERALL_SCORE_KEY not in properties and not set(CRITERIA) & set(properties):
        return None
    criteria = [key for key in properties if key != OVERALL_SCORE_KEY]
    scores = {key: round(rng.uniform(CRITERION_MIN, CRITERION_MAX), 1) for key in criteria}
    if OVERALL_SCORE_KEY in properties:
        scores[OVERALL_SCORE_KEY] = round(sum(scores.values()) / max(len(scores), 1), 2)
    return json.dumps(scores)
