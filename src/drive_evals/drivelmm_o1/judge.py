"""Calling the rubric judge: the official prompt and schema, validated replies, retries that bypass the cache.

The judge sees text only (as in the official pipeline). A reply that is not valid JSON, misses a criterion or is
out of range is asked again, each attempt under its own cache scope so a retry never gets the cached bad reply
back, while a re-run or a re-score gets every good reply from the cache for free. After the last attempt the
judgement fails with a reason and the raw replies are kept: nothing is dropped silently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from inspect_ai.model import (
    BatchConfig,
    CachePolicy,
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ResponseSchema,
)
from inspect_ai.model._generate_config import active_generate_config
from inspect_ai.util import JSONSchema, LimitExceededError, json_schema

from drive_evals.drivelmm_o1.prompts import (
    JUDGE_MAX_TOKENS,
    JUDGE_SCHEMA_NAME,
    JUDGE_SYSTEM_PROMPT,
    JUDGE_TEMPERATURE,
    judge_user_message,
)
from drive_evals.drivelmm_o1.rubric import EvaluationScores, RubricParse, parse_judge_reply
from drive_evals.judge_guard import JudgeBreaker, plain_reason
from drive_evals.judge_guard import graders as bound_graders
from drive_evals.judge_guard import preflight_graders as preflight_bound_graders

DEFAULT_GRADER = "openai/gpt-4o-mini-2024-07-18"
"""The pinned snapshot of `gpt-4o-mini`, the judge the released evaluation script calls (the paper's text says
GPT-4o: bind `--model-role grader=openai/gpt-4o-2024-08-06` to follow the text)."""
JUDGE_OFF_ADVICE = "Pass -T judge=false to score MCQ accuracy only."
"""The way around a missing judge for `drivelmm_o1`; a task that cannot run without one passes its own advice."""
JUDGE_ATTEMPTS = 3
"""One call plus two retries for a reply that fails validation (API errors are retried by Inspect itself)."""
ATTEMPT_SCOPE = "drive_evals_judge_attempt"
RAW_REPLY_CHARS = 4000
"""Raw judge replies are kept in the log up to this length (a runaway reply is cut, with a marker)."""


def graders() -> list[Model]:
    """The models bound to the `grader` role, else DriveLMM-o1's default judge."""
    return bound_graders(DEFAULT_GRADER)


def preflight_graders(advice: str = JUDGE_OFF_ADVICE) -> list[str]:
    """`judge_guard.preflight_graders` with DriveLMM-o1's default judge."""
    return preflight_bound_graders(DEFAULT_GRADER, advice)


@dataclass
class Judgement:
    """What one judge said about one response, after validation and retries."""

    judge: str
    parse: RubricParse | None = None
    raw_replies: list[str] = field(default_factory=list)
    failure: str | None = None
    """Why no valid judgement was obtained (last validation error or the API error); None on success."""

    @property
    def ok(self) -> bool:
        return self.parse is not None and self.parse.ok


@cache
def _judge_schema() -> JSONSchema:
    """`EvaluationScores` as a JSON schema, built once: `judge_config` runs for every judge call, and building the
    schema anew each time (0.5 ms, 1 ms under coverage) cost the judge meta-evaluation's runs about 4 s. One instance
    is shared by every config; Inspect's providers copy a response schema before they adapt it to their API."""
    return json_schema(EvaluationScores)


def judge_config(batch: bool | int | BatchConfig | None = None) -> GenerateConfig:
    """Official judge settings: temperature 0, 500 tokens, strict `EvaluationScores` structured output."""
    return GenerateConfig(
        batch=batch,
        temperature=JUDGE_TEMPERATURE,
        max_tokens=JUDGE_MAX_TOKENS,
        response_schema=ResponseSchema(name=JUDGE_SCHEMA_NAME, json_schema=_judge_schema(), strict=True),
    )


def eval_batch(model: Model) -> bool | int | BatchConfig | None:
    """The eval's `--batch` for a judge whose own config leaves batching open.

    Inspect hands `--batch` to the model under test only (a role model inherits connections, retries, timeout and
    cache, not batch), so without this a `--batch` run would pay full price for every judge call. A grader bound
    with its own `batch` setting (`--model-role 'grader={model: ..., batch: false}'`) keeps it.
    """
    return active_generate_config().batch if model.config.batch is None else None


def _kept(reply: str) -> str:
    return reply if len(reply) <= RAW_REPLY_CHARS else reply[:RAW_REPLY_CHARS] + f"… [{len(reply)} chars]"


async def judge_response(
    model: Model,
    question: str,
    steps: str,
    final_answer: str,
    response: str,
    attempts: int = JUDGE_ATTEMPTS,
    cache: bool = True,
    breaker: JudgeBreaker | None = None,
) -> Judgement:
    """Ask one judge to score one response; validate, retry invalid replies, never raise on what it says.

    `breaker` counts the calls that fail with an API error; once it has tripped, no further call is made.
    """
    judgement = Judgement(judge=str(model))
    messages: list[ChatMessage] = [
        ChatMessageSystem(content=JUDGE_SYSTEM_PROMPT),
        ChatMessageUser(content=judge_user_message(question, steps, final_answer, response)),
    ]
    # A judge bound with its own `timeout` keeps it: Inspect would replace it by the run's (the task default too).
    config = judge_config(eval_batch(model)).merge(GenerateConfig(timeout=model.config.timeout))
    for attempt in range(attempts):
        if breaker is not None and breaker.stopped is not None:
            judgement.failure = breaker.stopped
            break
        policy = CachePolicy(expiry=None, per_epoch=False, scopes={ATTEMPT_SCOPE: str(attempt)}) if cache else False
        try:
            output = await model.generate(messages, config=config, cache=policy)
        except LimitExceededError:
            raise
        except Exception as error:  # an error Inspect does not retry (e.g. a broken body): one failed attempt
            judgement.failure = f"judge call failed: {type(error).__name__}: {plain_reason(error)}"
            if breaker is not None:
                breaker.record(judgement.judge, error)
            continue
        if breaker is not None:
            breaker.record(judgement.judge, None)
        reply = output.completion
        judgement.raw_replies.append(_kept(reply))
        parsed = parse_judge_reply(reply)
        judgement.parse = parsed
        if parsed.ok:
            judgement.failure = None
            return judgement
        judgement.failure = f"invalid judge reply: {parsed.error}"
    return judgement
