"""Chance answers to MME-RealWorld AD questions: a uniform letter A-E, the format the prompt asks for."""

from __future__ import annotations

import random

from drive_evals.mme_realworld_ad.prompts import CN_SUFFIXES, EN_SUFFIXES

LETTERS = "ABCDE"


def answer(prompt: str, rng: random.Random) -> str | None:
    """A uniformly random option letter, or None when `prompt` is not an MME-RealWorld question (any variant)."""
    if not prompt.endswith((*EN_SUFFIXES, *CN_SUFFIXES)):
        return None
    return rng.choice(LETTERS)
