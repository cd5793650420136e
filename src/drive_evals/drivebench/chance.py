"""Chance answers to DriveBench prompts, for the `chance/` provider: the official answer formats, random content.

A multiple-choice question gets a uniform option as `X. <option text>` (the format of the official example
`" A. Going ahead."`, which both MCQ parsers read), a yes/no question a uniform `Yes.` or `No.`, an open question a
fixed generic sentence, and the judge a uniform `Total Score` from 0 to 100 in the rubric's scoring-sheet format.
"""

from __future__ import annotations

import random

from drive_evals.drivebench.mcq import question_options
from drive_evals.drivebench.prompts import JUDGE_SYSTEM_SENTENCE, SYSTEM_PROMPT

PROMPT_OPENING = SYSTEM_PROMPT[:60]
"""How a DriveBench model prompt starts (before the per-question camera sentence)."""
QUESTION_AFTER = "based on the question requirements.\n"
"""The system prompt's last words: the question follows them directly."""
OPEN_ANSWER = "Keep going at the same speed and watch the surrounding vehicles."
YES_NO_OPENINGS = ("Is ", "Are ", "Does ", "Do ", "Will ", "Would ", "Can ")


def answer(prompt: str, rng: random.Random) -> str | None:
    """A random answer if `prompt` is a DriveBench model or judge prompt, else None."""
    if prompt.startswith(JUDGE_SYSTEM_SENTENCE):
        return f"Total Score: {rng.randint(0, 100)}\n\nBrief Summary: a score drawn at random."
    if not prompt.startswith(PROMPT_OPENING) or QUESTION_AFTER not in prompt:
        return None
    question = prompt.split(QUESTION_AFTER, 1)[1]
    options = question_options(question)
    if options:
        letter = rng.choice(sorted(options))
        return f"{letter}. {options[letter]}."
    if question.startswith(YES_NO_OPENINGS):
        return rng.choice(("Yes.", "No."))
    return OPEN_ANSWER
