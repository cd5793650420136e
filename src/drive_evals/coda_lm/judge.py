"""Calling the CODA-LM judge: the official text-only request, one call per item, the raw reply kept.

The official scripts send each request once (`GPTBatcher`, stage1 L92-123) and drop an item whose call fails
(defects 1, 5, 6); here API errors are retried by Inspect, and a call that still fails is a `judge_failed` item
the strict score counts. A reply that does not parse is not asked again: the official parser drops it, and
re-asking would change which replies the official number is over.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspect_ai.model import CachePolicy, GenerateConfig, Model
from inspect_ai.model._generate_config import active_generate_config
from inspect_ai.util import LimitExceededError

from drive_evals.coda_lm.prompts import DEFAULT_JUDGE, JUDGE_TEMPERATURE, TaskName, judge_messages
from drive_evals.judge_guard import JudgeBreaker, plain_reason
from drive_evals.judge_guard import graders as bound_graders
from drive_evals.judge_guard import preflight_graders as preflight_bound_graders

JUDGE_OFF_ADVICE = "CODA-LM has no score without its judge: bind one with --model-role grader=<provider>/<model>."


def grader() -> Model:
    """The first model bound to the `grader` role, else the pinned `gpt-4o-2024-05-13`."""
    return bound_graders(DEFAULT_JUDGE)[0]


def preflight_grader() -> list[str]:
    return preflight_bound_graders(DEFAULT_JUDGE, JUDGE_OFF_ADVICE)


@dataclass(frozen=True)
class JudgeReply:
    judge: str
    reply: str | None
    """The judge's text as it returned it; None when the call failed."""
    failure: str | None = None


def judge_config(model: Model) -> GenerateConfig:
    """Temperature 0 and nothing else (no max_tokens, no seed: the official call sets none); the eval's `--batch`
    when the judge leaves batching open; a judge bound with its own timeout keeps it."""
    batch = active_generate_config().batch if model.config.batch is None else None
    return GenerateConfig(temperature=JUDGE_TEMPERATURE, batch=batch, timeout=model.config.timeout)


async def judge_item(
    model: Model, task: TaskName, reference: str, prediction: str, breaker: JudgeBreaker, cache: bool = True
) -> JudgeReply:
    """One official judge request for one item; never raises on what the judge says."""
    judge = str(model)
    if breaker.stopped is not None:
        return JudgeReply(judge, None, breaker.stopped)
    policy = CachePolicy(expiry=None, per_epoch=False) if cache else False
    try:
        output = await model.generate(
            judge_messages(task, reference, prediction), config=judge_config(model), cache=policy
        )
    except LimitExceededError:
        raise
    except Exception as error:  # an error Inspect does not retry, or retries that ran out
        breaker.record(judge, error)
        return JudgeReply(judge, None, f"judge call failed: {type(error).__name__}: {plain_reason(error)}")
    breaker.record(judge, None)
    return JudgeReply(judge, output.completion)
