"""The MME-RealWorld AD scorer: the official reading of the raw reply (the headline), the corrected reading, and
the flags the parser rates count. Registered, so `inspect score` can re-score a log."""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from drive_evals.kit import TRUNCATED_KEY, TRUNCATED_REASON, stopped_at_token_limit, truncation
from drive_evals.mme_realworld_ad.dataset import CHOICES_KEY
from drive_evals.mme_realworld_ad.extract import corrected_letter, official_letter
from drive_evals.mme_realworld_ad.metrics import (
    CORRECTED_KEY,
    CORRECTED_UNPARSED_KEY,
    E_KEY,
    EMPTY_KEY,
    OFFICIAL_KEY,
    UNPARSED_KEY,
    ad_scores,
)
from drive_evals.replies import (
    NO_CALL,
    REBUILT_STORE_KEY,
    REPLY_STORE_KEY,
    rebuilt_note,
    rebuilt_text,
    replies_rebuilt,
)

NO_RESPONSE_REASON = "no_response"


def verdict(official: str, corrected: str | None, target: str, empty: bool) -> str:
    """The viewer's one line: both readings and the answer."""
    read = f"official reads {official or 'nothing'}" + (" (an empty reply matches option A)" if empty else "")
    fixed = f"corrected reads {corrected or 'nothing'}"
    return f"{read} · {fixed} · answer {target}"


@scorer(metrics=[ad_scores(), truncation(), replies_rebuilt()])
def mme_realworld_ad_scorer() -> Scorer:
    """`eval_your_results.py`'s letter rule on the reply as the provider returned it, and the corrected rule."""

    async def score(state: TaskState, target: Target) -> Score:
        stored = state.store.get(REPLY_STORE_KEY)
        reply = stored if stored is not None else rebuilt_text(state.output)
        choices = [str(c) for c in state.metadata[CHOICES_KEY]]
        official, corrected = official_letter(reply, choices), corrected_letter(reply, choices)
        empty = not reply.strip()
        truncated = stopped_at_token_limit(state.output)
        return Score(
            value={
                OFFICIAL_KEY: 1.0 if official == target.text else 0.0,
                CORRECTED_KEY: 1.0 if corrected == target.text else 0.0,
                UNPARSED_KEY: 0.0 if official else 1.0,
                EMPTY_KEY: 1.0 if empty else 0.0,
                E_KEY: 1.0 if official == "E" else 0.0,
                CORRECTED_UNPARSED_KEY: 0.0 if corrected else 1.0,
                TRUNCATED_KEY: 1.0 if truncated else 0.0,
            },
            answer=reply,
            explanation=verdict(official, corrected, target.text, empty),
            reason=TRUNCATED_REASON if truncated else (NO_RESPONSE_REASON if empty else None),
            metadata=rebuilt_note(state.store.get(REBUILT_STORE_KEY) or [NO_CALL]) or None,
        )

    return score
