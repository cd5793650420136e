"""The GPT score: one judge call per question with the official rubric, its `Total Score` read as officially.

The official judge (`evaluate/request.py`) sends one user message (the evaluator sentence, a newline, the filled
rubric) to the alias `gpt-3.5-turbo` at temperature 0 with max_tokens 3000, retries any failure forever, and
aborts the whole evaluation on a reply without `Total Score: <1-3 digits>` (D6). Here the judge is the `grader`
role (default: a pinned snapshot of that model), Inspect retries API errors, and a reply without a score is asked
again (each attempt under its own cache scope, so a retry never gets the cached bad reply back). After the last
attempt the question is left unjudged (`grader_failed`), counted in `judge_coverage` and kept out of the GPT
means (whose denominators are then the judged questions); a score above 100 is counted as given, as officially,
and flagged.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from inspect_ai.model import CachePolicy, ChatMessageUser, GenerateConfig, Model
from inspect_ai.util import LimitExceededError

from drive_evals.drivebench.prompts import JUDGE_MAX_TOKENS, JUDGE_TEMPERATURE, SCORE_PATTERN
from drive_evals.judge_guard import JudgeBreaker, plain_reason
from drive_evals.judge_guard import graders as bound_graders
from drive_evals.judge_guard import preflight_graders as preflight_bound_graders

DEFAULT_GRADER = "openai/gpt-3.5-turbo-0125"
"""The snapshot the official alias `gpt-3.5-turbo` has named since February 2024 (the toolkit is from 2025)."""
JUDGE_ATTEMPTS = 3
"""One call plus two retries for a reply without a readable score."""
ATTEMPT_SCOPE = "drivebench_judge_attempt"
JUDGE_OFF_ADVICE = "Pass -T judge=false to score MCQ accuracy (and the language metrics) only."
RAW_REPLY_CHARS = 4000
SCORE_MAX = 100
"""The rubric's scale; the official pattern reads up to 999 and nothing clamps it."""


def read_score(reply: str) -> int | None:
    """`extract_answer` on the stripped reply (`request.py` L106-114, L159): the first `Total Score: N`, or None."""
    match = SCORE_PATTERN.search(reply.strip())
    return int(match.group(1)) if match else None


def graders() -> list[Model]:
    """The models bound to the `grader` role (several form a panel), else the pinned default judge."""
    return bound_graders(DEFAULT_GRADER)


def preflight_graders() -> list[str]:
    """Resolve the judge while the task is built, so a missing key fails before any generation is paid for."""
    return preflight_bound_graders(DEFAULT_GRADER, JUDGE_OFF_ADVICE)


def judge_config() -> GenerateConfig:
    """The official judge payload's settings."""
    return GenerateConfig(temperature=JUDGE_TEMPERATURE, max_tokens=JUDGE_MAX_TOKENS)


@dataclass
class Judgement:
    """What one judge said about one reply."""

    judge: str
    score: int | None = None
    raw_replies: list[str] = field(default_factory=list)
    failure: str | None = None


async def judge_reply(
    model: Model, message: str, attempts: int, cache: bool = True, breaker: JudgeBreaker | None = None
) -> Judgement:
    """Ask one judge for the `Total Score`; never raises on what it says."""
    judgement = Judgement(judge=str(model))
    for attempt in range(attempts):
        if breaker is not None and breaker.stopped is not None:
            judgement.failure = breaker.stopped
            break
        policy = CachePolicy(expiry=None, per_epoch=False, scopes={ATTEMPT_SCOPE: str(attempt)}) if cache else False
        try:
            output = await model.generate([ChatMessageUser(content=message)], config=judge_config(), cache=policy)
        except LimitExceededError:
            raise
        except Exception as error:  # an error Inspect does not retry: one failed attempt
            judgement.failure = f"judge call failed: {type(error).__name__}: {plain_reason(error)}"
            if breaker is not None:
                breaker.record(judgement.judge, error)
            continue
        if breaker is not None:
            breaker.record(judgement.judge, None)
        reply = output.completion
        kept = reply if len(reply) <= RAW_REPLY_CHARS else reply[:RAW_REPLY_CHARS] + f"… [{len(reply)} chars]"
        judgement.raw_replies.append(kept)
        judgement.score = read_score(reply)
        if judgement.score is not None:
            judgement.failure = None
            return judgement
        judgement.failure = "no 'Total Score: N' in the judge's reply"
    return judgement
