"""Calling the rubric judge: the official prompt and schema, validated replies, retries that bypass the cache.

The judge sees text only (as in the official pipeline) and is called through the shared pipeline (`kit.judge`):
its reply is read raw, as the official script reads `message.content`. A reply that is not valid JSON or misses a
criterion is asked again, each attempt under its own cache scope so a retry never gets the cached bad reply
back, while a re-run or a re-score gets every good reply from the cache for free. After the last attempt the
judgement fails with a reason and the raw replies are kept: nothing is dropped silently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ResponseSchema,
)
from inspect_ai.util import JSONSchema, json_schema

from drive_evals.drivelmm_o1.prompts import (
    JUDGE_MAX_TOKENS,
    JUDGE_SCHEMA_NAME,
    JUDGE_SYSTEM_PROMPT,
    JUDGE_TEMPERATURE,
    judge_user_message,
)
from drive_evals.drivelmm_o1.rubric import EvaluationScores, RubricParse, parse_judge_reply
from drive_evals.kit.judge import Invalid, JudgeBreaker, call_judge
from drive_evals.kit.judge import graders as bound_graders
from drive_evals.kit.judge import preflight_graders as preflight_bound_graders

DEFAULT_GRADER = "openai/gpt-4o-mini-2024-07-18"
"""The pinned snapshot of `gpt-4o-mini`, the judge the released evaluation script calls (the paper's text says
GPT-4o: bind `--model-role grader=openai/gpt-4o-2024-08-06` to follow the text)."""
JUDGE_OFF_ADVICE = "Pass -T judge=false to score MCQ accuracy only."
"""The way around a missing judge for `drivelmm_o1`; a task that cannot run without one passes its own advice."""
JUDGE_ATTEMPTS = 3
"""One call plus two retries for a reply that fails validation (API errors are retried by Inspect itself)."""


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
    rebuilt: list[str] = field(default_factory=list)
    """Why a reply read had to be rebuilt from Inspect's parts (no raw response, e.g. an older cache entry)."""

    @property
    def ok(self) -> bool:
        return self.parse is not None and self.parse.ok


@cache
def _judge_schema() -> JSONSchema:
    """`EvaluationScores` as a JSON schema, built once: `judge_config` runs for every judge call, and building the
    schema anew each time (0.5 ms, 1 ms under coverage) cost the judge meta-evaluation's runs about 4 s. One instance
    is shared by every config; Inspect's providers copy a response schema before they adapt it to their API."""
    return json_schema(EvaluationScores)


def judge_config() -> GenerateConfig:
    """Official judge settings: temperature 0, 500 tokens, strict `EvaluationScores` structured output."""
    return GenerateConfig(
        temperature=JUDGE_TEMPERATURE,
        max_tokens=JUDGE_MAX_TOKENS,
        response_schema=ResponseSchema(name=JUDGE_SCHEMA_NAME, json_schema=_judge_schema(), strict=True),
    )


def valid_rubric(reply: str) -> RubricParse | Invalid:
    """`parse_judge_reply`, or why the reply is rejected (the attempt is then retried)."""
    parsed = parse_judge_reply(reply)
    return parsed if parsed.ok else Invalid(f"invalid judge reply: {parsed.error}")


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
    messages: list[ChatMessage] = [
        ChatMessageSystem(content=JUDGE_SYSTEM_PROMPT),
        ChatMessageUser(content=judge_user_message(question, steps, final_answer, response)),
    ]
    result = await call_judge(
        model, messages, valid_rubric, config=judge_config(), attempts=attempts, cache=cache, breaker=breaker
    )
    return Judgement(
        judge=result.judge,
        parse=result.verdict,
        raw_replies=result.raw_replies,
        failure=result.failure,
        rebuilt=result.rebuilt,
    )
