"""CODA-LM's chance answers for the `chance` provider: a fixed generic answer per question, a uniform rating.

The model side has no official format (free text), so the chance model gives the same generic sentence for every
item of a task; the judge side gets a reply in the official format, `Rating: [[N]]` with N uniform on 1-10, so a
chance run exercises the parser and the aggregation (its expected official score is 5.5 / 10, 55.0 as printed).
"""

from __future__ import annotations

import random

from drive_evals.coda_lm.prompts import JUDGE_USER_TEMPLATE, MODEL_PROMPTS
from drive_evals.coda_lm.rating import SCALE_MAX, SCALE_MIN

JUDGE_OPENING = JUDGE_USER_TEMPLATE.split("{}", 1)[0]
"""How every judge user turn starts: `[The Start of Reference Text]\\n`."""
ANSWERS = {
    "general_perception": "There is a car ahead of the ego car in its lane; the ego car should keep its distance.",
    "region_perception": "The object in the red rectangle is on the road ahead, so the ego car should slow down.",
    "driving_suggestion": "Slow down, keep to the lane and watch the objects ahead before passing them.",
}


def chance_answer(prompt: str, rng: random.Random) -> str | None:
    """A uniform rating for a CODA-LM judge request, the task's generic answer for its question, else None."""
    if prompt.startswith(JUDGE_OPENING):
        return f"A rating drawn at random. Rating: [[{rng.randint(SCALE_MIN, SCALE_MAX)}]]"
    for task, text in MODEL_PROMPTS.items():
        if prompt.strip().endswith(text):
            return ANSWERS[task]
    return None
