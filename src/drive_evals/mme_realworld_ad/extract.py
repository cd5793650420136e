"""Reading the answer letter from a reply: the official script's way, defects kept, and a corrected way.

`official_letter` is `extract_characters_regex` of the official `evaluation/eval_your_results.py` (L23-L46 @11af66f)
restated: the prefix list with its two missing commas (D1), case-sensitive unanchored prefix removal (D5), the
first capital A-E anywhere (D2), and the fallback over the full option texts, where an empty reply matches option A
(D3, D4). The headline is computed with it, on the raw reply.

`corrected_letter` is the protocol's proposal (D2, D3, D11): reasoning dropped, then an `<answer>` tag, an explicit
`answer/option/choice ... X` cue (the last one), `\\boxed{X}`, a leading letter, a reply that is only a letter
(any case), or a reply that is exactly one option's text; anything else, empty replies and refusals included, is
unparsed (None) and scores 0.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

LETTERS = "ABCDE"
OFFICIAL_PREFIXES = (
    "The best answer is",
    "The correct answer is",
    "The answer is",
    "The answer",
    "The best option isThe correct option is",
    "Best answer:Best option:",
)
"""The official `answer_prefixes` as Python reads them: six entries, two of them concatenations."""
INTENDED_PREFIXES = (
    "The best answer is",
    "The correct answer is",
    "The answer is",
    "The answer",
    "The best option is",
    "The correct option is",
    "Best answer:",
    "Best option:",
)
"""The list as meant (commas restored: lmms-eval since 92b15c1c, VLMEvalKit since 1445ec4f)."""
LONG_REPLY_WORDS = 10
_CAPITAL = re.compile(r"[ABCDE]")


def official_letter(reply: str, choices: Sequence[str]) -> str:
    """The official reading of `reply` against the item's `"(X) text"` options; "" when nothing is read."""
    text = reply.strip()
    for prefix in OFFICIAL_PREFIXES:
        text = text.replace(prefix, "")
    found = _CAPITAL.search(text)
    if found:
        return found.group(0)
    if len(text.split()) > LONG_REPLY_WORDS:
        return ""
    lowered = text.lower()
    return next((choice[1] for choice in choices if lowered in choice.lower()), "")


_THINK_END = re.compile(r"</think\s*>", re.IGNORECASE)
_ANSWER_TAG = re.compile(r"<answer>(.*?)</answer>", re.IGNORECASE | re.DOTALL)
_LETTER = r"[(\[（]?\s*\**\s*([A-E])\s*\**\s*[)\]）]?(?![A-Za-z0-9])"
_CUE = re.compile(
    r"(?:\b(?:answer|option|choice)\b(?:\s+is)?\s*[:：]?|答案(?:是|为)?\s*[:：]?)\s*\**\s*" + _LETTER, re.IGNORECASE
)
_BOXED = re.compile(r"\\boxed\{\s*([A-E])\s*\}")
_LEADING = re.compile(r"^[\s*#>(\[（]*([A-E])(?:[\s).:：,\]）*]|$)")
_ONLY_LETTER = re.compile(r"^[\W_]*([A-Ea-e])[\W_]*$")
_NON_WORD = re.compile(r"[\W_]+")


def _normal(text: str) -> str:
    return _NON_WORD.sub(" ", text.lower()).strip()


def corrected_letter(reply: str, choices: Sequence[str]) -> str | None:
    """The letter a reader would take `reply` to give, or None (empty, refusal, no clear answer)."""
    text = _THINK_END.split(reply)[-1]
    tags = _ANSWER_TAG.findall(text)
    if tags:
        text = tags[-1]
    text = text.strip()
    if not text:
        return None
    cues = [match.group(1).upper() for match in _CUE.finditer(text) if match.group(1).isupper()]
    if cues:
        return cues[-1]
    for pattern in (_BOXED, _LEADING, _ONLY_LETTER):
        found = pattern.search(text)
        if found:
            return found.group(1).upper()
    wanted = _normal(text)
    for choice in choices:
        letter, body = choice[1:2], choice[3:] if choice[2:3] in (")", "）") else choice
        if letter in LETTERS and wanted and wanted in (_normal(body), _normal(choice)):
            return letter
    return None
