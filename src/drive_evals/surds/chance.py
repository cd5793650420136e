"""SURDS's official random baseline for the `chance` provider: a uniform option per prompt, a uniform pixel for xy2d.

Answers are in the official `<think>...</think><answer>...</answer>` format the templates ask for.
"""

from __future__ import annotations

import random
import re

from drive_evals.surds.prompts import TEMPLATES, XY2D_TEMPLATE
from drive_evals.surds.rules import IMAGE_HEIGHT, IMAGE_WIDTH

OPTION_LINE = re.compile(r"^- (.+)$", re.MULTILINE)
"""An option line of the templates (`- {}`)."""


def _common_ending(texts: list[str]) -> str:
    """The longest string every text ends with."""
    ending = ""
    for characters in zip(*(reversed(text) for text in texts), strict=False):
        if len(set(characters)) > 1:
            break
        ending = characters[0] + ending
    return ending


ANSWER_FORMAT = _common_ending(list(TEMPLATES.values()))
"""The instructions every template ends with: how a SURDS prompt is recognised."""
XY2D_TASK = XY2D_TEMPLATE.split("{}", 1)[0]
"""The xy2d template up to its object: the one prompt answered with a pixel."""


def chance_answer(prompt: str, rng: random.Random) -> str | None:
    """The official random baseline's answer to a SURDS prompt; None for any other prompt."""
    if ANSWER_FORMAT not in prompt:
        return None
    if XY2D_TASK in prompt:
        x, y = rng.randrange(IMAGE_WIDTH), rng.randrange(IMAGE_HEIGHT)
        return f"<think>A uniformly random pixel.</think>\n<answer>[{x}, {y}]</answer>"
    options = OPTION_LINE.findall(prompt)
    if not options:
        return None
    return f"<think>A uniformly random option.</think>\n<answer>{rng.choice(options).strip()}</answer>"
