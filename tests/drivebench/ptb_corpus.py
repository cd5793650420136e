"""A seeded generator of model-like DriveBench answers mixing what tokenizers disagree on.

Markdown (`**`, `###`, lists), abbreviations, hyphenated and unit-bearing numbers, punctuation runs, reasoning
tags, quotes, brackets, the official object ids, contractions, non-ASCII text, URLs and stray whitespace: each
answer strings together pieces drawn at random, so a corpus holds constructs no fixed list anticipates.
"""

from __future__ import annotations

import random

WORDS = (
    "the", "ego", "vehicle", "should", "slow", "down", "because", "a", "pedestrian", "is", "crossing", "ahead",
    "car", "truck", "bus", "lane", "left", "right", "front", "back", "traffic", "light", "red", "green", "yellow",
    "stop", "sign", "intersection", "merge", "overtake", "keep", "going", "same", "speed", "brake", "gently",
    "accelerate", "turn", "parked", "moving", "stationary", "sedan", "SUV", "cyclist", "crosswalk", "visible",
    "CAM_FRONT",
)  # fmt: skip
ABBREVIATIONS = ("etc.", "e.g.", "i.e.", "ft.", "no.", "No.", "Mr.", "vs.", "U.S.", "approx.", "St.", "a.m.", "Jr.")
NUMBERS = (
    "2-lane", "50-60%", "3-way", "4-door", "10-15", "3.5", "1,000", "12:30", "-5", "+3", "10km/h", "30 mph", "45°",
    "0.5073", "1st", "2nd", "#3", "$20", "100%", "1/2", "2x", "v2.0", "1e-3", "5m", "20-30m",
)  # fmt: skip
PUNCTUATION = ("!!!", "??", "?!", "...", "..", "--", "---", "—", "–", ";", ":", ",", ".", "!", "?", "&", "@", "~")
TAGS = ("<think>", "</think>", "<answer>", "</answer>", "<br>", "<c1,CAM_BACK,0.5073,0.5778>", "<|im_end|>")
MARKDOWN = ("**", "###", "##", "# ", "- ", "* ", "1. ", "2) ", "`", "```", "__", "> ", "|", "[x]")
QUOTES = ('"', "'", "``", "''", "“", "”", "‘", "’", "«", "»")
BRACKETS = ("(", ")", "[", "]", "{", "}")
CONTRACTIONS = ("can't", "it's", "won't", "cannot", "gonna", "I'd", "they're", "we've", "isn't", "o'clock", "y'all")
OTHER = (
    "naïve", "café", "中文", "🚗", "Straße", "https://example.com/a?b=c", "user@example.com", "A/B", "and/or", "w/",
    "\t", "  ", "\\", "_UNK", "&amp;", "&lt;", "=>", "->", "+/-", "x_1", "C++", "CAN'T", "ID:42",
)  # fmt: skip
KINDS = (
    WORDS,
    WORDS,
    WORDS,
    ABBREVIATIONS,
    NUMBERS,
    PUNCTUATION,
    TAGS,
    MARKDOWN,
    QUOTES,
    BRACKETS,
    CONTRACTIONS,
    OTHER,
)
LINE_BREAKS = ("\r", "\r\n", "\x0b", "\x0c", "\u2028", "\u2029")


def answer(rng: random.Random, line_breaks: bool = False) -> str:
    """One answer of 0 to 40 pieces; pieces are glued together or spaced at random."""
    parts: list[str] = []
    for _ in range(rng.randint(0, 40)):
        piece = rng.choice(rng.choice(KINDS))
        piece = piece.capitalize() if rng.random() < 0.1 else piece.upper() if rng.random() < 0.03 else piece
        glue = rng.choice(("", " ", " ", " ", "\n")) if parts else ""
        if line_breaks and rng.random() < 0.05:
            glue = rng.choice(LINE_BREAKS)
        parts.append(glue + piece)
    return "".join(parts)


def corpus(seed: int, size: int, line_breaks: bool = False) -> list[str]:
    rng = random.Random(seed)
    return [answer(rng, line_breaks) for _ in range(size)]
