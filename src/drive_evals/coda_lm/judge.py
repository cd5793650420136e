"""Calling the CODA-LM judge through the shared pipeline (`drive_evals.kit`): the official text-only request, one
call per item, the raw reply read by the official rating rule.

The official scripts send each request once (`GPTBatcher`, stage1 L92-123) and drop an item whose call fails
(defects 1, 5, 6); here API errors are retried by Inspect, and a call that still fails is a `judge_failed` item
the strict score counts. A reply that does not parse is not asked again (`attempts=1`): the official parser drops
it, and asking again would change which replies the official number is over.
"""

from __future__ import annotations

from inspect_ai.model import GenerateConfig, Model

from drive_evals.coda_lm.prompts import DEFAULT_JUDGE, JUDGE_TEMPERATURE, TaskName, judge_messages
from drive_evals.coda_lm.rating import official_rating
from drive_evals.kit import Invalid, JudgeBreaker, JudgeResult, call_judge, graders, preflight_graders

JUDGE_ADVICE = "CODA-LM has no score without its judge: bind one with --model-role grader=<provider>/<model>."
JUDGE_ATTEMPTS = 1
JUDGE_CONFIG = GenerateConfig(temperature=JUDGE_TEMPERATURE)
"""Temperature 0 and nothing else: the official call sets no max_tokens, seed or other parameter."""
UNREAD = Invalid("no rating the official parser reads")


def grader() -> Model:
    """The first model bound to the `grader` role, else the pinned `gpt-4o-2024-05-13`."""
    return graders(DEFAULT_JUDGE)[0]


def preflight_grader() -> list[str]:
    return preflight_graders(DEFAULT_JUDGE, JUDGE_ADVICE)


def parse_rating(reply: str) -> int | Invalid:
    rating = official_rating(reply)
    return UNREAD if rating is None else rating


async def judge_item(
    model: Model, task: TaskName, reference: str, prediction: str, breaker: JudgeBreaker, cache: bool = True
) -> JudgeResult[int]:
    """One official judge request for one item; never raises on what the judge says."""
    messages = judge_messages(task, reference, prediction)
    return await call_judge(
        model, messages, parse_rating, config=JUDGE_CONFIG, attempts=JUDGE_ATTEMPTS, cache=cache, breaker=breaker
    )
