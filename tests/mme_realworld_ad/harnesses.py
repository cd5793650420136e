"""The three published readings of an MME-RealWorld reply, each stated on its own from the protocol
(the project's MME-RealWorld AD protocol reference, sections 3.1-3.3), independently of drive_evals' code.

- `official_script`: `evaluation/eval_your_results.py` @11af66f, `extract_characters_regex(s, choices)` with the
  item's full `"(X) text"` options, the prefix list with its two missing commas.
- `lmms_eval`: lmms-eval `utils.py` @75571cf (commas restored in 92b15c1c), `choices` not passed, so the fallback
  searches the tokens `(A)`..`(E)`; a dict reply is read as "".
- `vlmevalkit`: VLMEvalKit @e8e78f0: an `<answer>` tag's content (stripped, upper-cased) first, then the same
  function as lmms-eval (commas restored in 1445ec4f); `defective=True` gives the version before that commit.
"""

from __future__ import annotations

import re

SCRIPT_PREFIXES = [
    "The best answer is",
    "The correct answer is",
    "The answer is",
    "The answer",
    "The best option isThe correct option is",
    "Best answer:Best option:",
]
FIXED_PREFIXES = [
    "The best answer is",
    "The correct answer is",
    "The answer is",
    "The answer",
    "The best option is",
    "The correct option is",
    "Best answer:",
    "Best option:",
]
TOKENS = ["(A)", "(B)", "(C)", "(D)", "(E)"]


def _extract(s: str, choices: list[str], prefixes: list[str]) -> str:
    s = s.strip()
    for prefix in prefixes:
        s = s.replace(prefix, "")
    if len(s.split()) > 10 and not re.search("[ABCDE]", s):
        return ""
    matches = re.search(r"[ABCDE]", s)
    if matches is None:
        for choice in choices:
            if s.lower() in choice.lower():
                return choice[1]
        return ""
    return matches[0]


def official_script(reply: str, choices: list[str]) -> str:
    return _extract(reply, choices, SCRIPT_PREFIXES)


def lmms_eval(reply: object, defective: bool = False) -> str:
    """`defective=True`: the version before 92b15c1c (2024-11-15), with the official prefix list."""
    text = "" if isinstance(reply, dict) else str(reply)
    return _extract(text, TOKENS, SCRIPT_PREFIXES if defective else FIXED_PREFIXES)


def vlmevalkit(reply: str, defective: bool = False) -> str:
    if "<answer>" in reply and "</answer>" in reply:
        reply = reply.split("<answer>")[1].split("</answer>")[0].strip().upper()
    return _extract(reply, TOKENS, SCRIPT_PREFIXES if defective else FIXED_PREFIXES)
