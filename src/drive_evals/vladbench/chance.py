"""Chance answers to VLADBench questions, in the format each question asks for (the chance provider asks here).

Options: a uniform pick from the question's last `[...]` list; yes/no questions: yes or no; box questions: a
uniform box inside the stated image size; relation questions: a uniform id among 0-3 or -1; lane speeds: a
uniform `[X,Y]` of common limits. `answer` returns None for a prompt that is not a VLADBench question.
"""

from __future__ import annotations

import random
import re

from drive_evals.vladbench.rules import LOCALISATION_MARKER, extract_options

_SIZE = re.compile(r"The width and height of the image are (\d+) and (\d+)")
_YES_NO = re.compile(r"Answer\s*'yes'\s*or\s*'no'|answer 'yes' or 'no'", re.IGNORECASE)
RELATION_MARKER = "separate them with the '/' symbol"
SPEED_MARKER = "The response format should be '[X,Y]'"
RELATION_IDS = ("-1", "0", "1", "2", "3")
SPEED_LIMITS = ("0", "30", "40", "50", "60", "80", "100", "120")


def answer(prompt: str, rng: random.Random) -> str | None:
    """A uniformly random answer in the asked format, or None when `prompt` is not a VLADBench question."""
    if LOCALISATION_MARKER in prompt.lower() and (size := _SIZE.search(prompt)):
        width, height = int(size.group(1)), int(size.group(2))
        x1, x2 = sorted(rng.randrange(width) for _ in range(2))
        y1, y2 = sorted(rng.randrange(height) for _ in range(2))
        return f"[{x1}, {y1}, {x2}, {y2}]"
    if RELATION_MARKER in prompt:
        return rng.choice(RELATION_IDS)
    if SPEED_MARKER in prompt:
        return f"[{rng.choice(SPEED_LIMITS)},{rng.choice(SPEED_LIMITS)}]"
    if _YES_NO.search(prompt):
        return rng.choice(("yes", "no"))
    if "['True','False']" in prompt:
        return rng.choice(("True", "False"))
    if "no expla" in prompt.lower() or "no explantion" in prompt.lower():
        options = [option for option in extract_options(prompt) if option.strip()]
        if options:
            return rng.choice(options).strip()
    return None
