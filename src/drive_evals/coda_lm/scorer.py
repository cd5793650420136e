"""The CODA-LM scorer: the official judge request for the item, the official rating rule, the values the metrics
aggregate. Registered, so `inspect score` can re-judge a log (the judge's replies are cached per request)."""

from __future__ import annotations

import math

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from drive_evals.coda_lm.judge import grader, judge_item
from drive_evals.coda_lm.metrics import COUNTED, JUDGED, OUT_OF_RANGE, RATING, STRICT, coda_lm_metrics
from drive_evals.coda_lm.rating import Rating
from drive_evals.coda_lm.records import UNMAPPED
from drive_evals.kit import DEFAULT_JUDGE_ERROR_LIMIT, JudgeBreaker, JudgeResult
from drive_evals.replies import (
    NO_CALL,
    REBUILT_STORE_KEY,
    REPLY_STORE_KEY,
    rebuilt_note,
    rebuilt_text,
    replies_rebuilt,
    stopped_at_token_limit,
)
from drive_evals.truncation import TRUNCATED_KEY, TRUNCATED_REASON, truncation

GRADER_FAILED = "grader_failed"
UNPARSED_REASON = "rating_unparsed"
JUDGE_KEY = "judge"
ANSWER_CHARS = 300


def item_values(judged: JudgeResult[int], rating: Rating, unmapped: bool, truncated: bool) -> dict[str, float]:
    """Score.value: the official rating / 10 (NaN where dropped), whether it counts officially, the strict value."""
    value = rating.value
    return {
        RATING: value / 10 if value is not None else math.nan,
        COUNTED: 1.0 if value is not None and not unmapped else 0.0,
        STRICT: value / 10 if value is not None and rating.in_range else 0.0,
        JUDGED: 1.0 if judged.raw_replies else 0.0,
        OUT_OF_RANGE: 1.0 if value is not None and not rating.in_range else 0.0,
        TRUNCATED_KEY: 1.0 if truncated else 0.0,
    }


def explain(judged: JudgeResult[int], rating: Rating, unmapped: bool) -> str:
    """The viewer's verdict line, then the judge's raw reply (its explanation is the judge's own text)."""
    if not judged.raw_replies:
        return f"**Judge {judged.judge}**: no reply ({judged.failure}); the official mean drops this item."
    if rating.value is None:
        verdict = "no rating the official parser reads: the official mean drops this item, the strict score counts 0"
    elif not rating.in_range:
        verdict = f"rating {rating.value}, outside 1-10: kept in the official mean as the official parser keeps it"
    else:
        verdict = f"rating {rating.value} / 10"
    if unmapped:
        verdict += "; an unmapped category, which the official stage 3 never judges (not in its mean)"
    return f"**Judge {judged.judge}**: {verdict}.\n\n{judged.raw_replies[-1]}"


def judge_note(judged: JudgeResult[int]) -> dict[str, dict[str, object]]:
    """Score.metadata: the judge, why its call failed, why its reply was rebuilt (the reply is in the explanation)."""
    return {
        JUDGE_KEY: {
            "judge": judged.judge,
            "failure": judged.failure if not judged.raw_replies else None,
            "rebuilt": judged.rebuilt,
        }
    }


def reason(judged: JudgeResult[int], rating: Rating, truncated: bool) -> str | None:
    if not judged.raw_replies:
        return GRADER_FAILED
    if truncated:
        return TRUNCATED_REASON
    return UNPARSED_REASON if rating.value is None else None


@scorer(metrics=[coda_lm_metrics(), truncation(), replies_rebuilt()])
def coda_lm_scorer(
    judge_cache: bool = True,
    judge_error_limit: int = DEFAULT_JUDGE_ERROR_LIMIT,
    breaker: JudgeBreaker | None = None,
) -> Scorer:
    """The official judge (the `grader` role; default `gpt-4o-2024-05-13`) rates the raw reply against the reference.

    Args:
        judge_cache: Cache judge replies (re-runs and re-scoring reuse them).
        judge_error_limit: Consecutive judge API errors after which no judge call is made (`grader_failed`).
        breaker: The task's breaker, shared with its `stop_when_judge_down` solver (default: one of its own).
    """
    breaker = breaker if isinstance(breaker, JudgeBreaker) else JudgeBreaker(judge_error_limit)

    async def score(state: TaskState, target: Target) -> Score:
        meta = state.metadata
        stored = state.store.get(REPLY_STORE_KEY)
        response = stored if isinstance(stored, str) else rebuilt_text(state.output)
        rebuilt = state.store.get(REBUILT_STORE_KEY) if isinstance(stored, str) else [NO_CALL]
        truncated = stopped_at_token_limit(state.output)
        judged = await judge_item(grader(), meta["task"], meta["reference"], response, breaker, judge_cache)
        rating = Rating(judged.verdict)
        unmapped = meta.get("supercategory") == UNMAPPED
        return Score(
            value=item_values(judged, rating, unmapped, truncated),
            answer=response[:ANSWER_CHARS],
            explanation=explain(judged, rating, unmapped),
            reason=reason(judged, rating, truncated),
            metadata={**rebuilt_note(rebuilt), **judge_note(judged)},
        )

    return score
