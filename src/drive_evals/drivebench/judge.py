"""The GPT score: one judge call per question with the official rubric, its `Total Score` read as officially.

The official judge (`evaluate/request.py`) sends one user message (the evaluator sentence, a newline, the filled
rubric) to the alias `gpt-3.5-turbo` at temperature 0 with max_tokens 3000, retries any failure forever, and
aborts the whole evaluation on a reply without `Total Score: <1-3 digits>` (D6); it reads the reply's raw
`message.content`, so a `Total Score:` inside a `<think>` block counts when it comes first. Here the judge is the
`grader` role (default: a pinned snapshot of that model) called through the shared pipeline (`kit.judge`: the raw
reply, retries under their own cache scope, the breaker, `--batch`, the judge's own timeout), and a reply without
a score is asked again. After the last attempt the question is left unjudged (`grader_failed`), counted in
`judge_coverage` and kept out of the GPT means (whose denominators are then the judged questions); a score above
100 is counted as given, as officially, and flagged.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from inspect_ai.model import GenerateConfig, Model

from drive_evals.drivebench.prompts import JUDGE_MAX_TOKENS, JUDGE_TEMPERATURE, SCORE_PATTERN
from drive_evals.kit.judge import Invalid, JudgeBreaker, call_judge
from drive_evals.kit.judge import graders as bound_graders
from drive_evals.kit.judge import preflight_graders as preflight_bound_graders

DEFAULT_GRADER = "openai/gpt-3.5-turbo-0125"
"""The snapshot the official alias `gpt-3.5-turbo` has named since February 2024 (the toolkit is from 2025)."""
JUDGE_ATTEMPTS = 3
"""One call plus two retries for a reply without a readable score."""
ATTEMPT_SCOPE = "drivebench_judge_attempt"
"""The cache scope of the attempt number (kept from before the shared pipeline, so existing caches still hit)."""
NO_SCORE = "no 'Total Score: N' in the judge's reply"
JUDGE_OFF_ADVICE = "Pass -T judge=false to score MCQ accuracy (and the language metrics) only."
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
    rebuilt: list[str] = field(default_factory=list)
    """Why a reply read had to be rebuilt from Inspect's parts (no raw response, e.g. an older cache entry)."""


def parse_score(reply: str) -> int | Invalid:
    """`read_score`, or why the reply has none (the attempt is then retried)."""
    score = read_score(reply)
    return Invalid(NO_SCORE) if score is None else score


async def judge_reply(
    model: Model, message: str, attempts: int, cache: bool = True, breaker: JudgeBreaker | None = None
) -> Judgement:
    """Ask one judge for the `Total Score` of its raw reply; never raises on what it says."""
    result = await call_judge(
        model,
        message,
        parse_score,
        config=judge_config(),
        attempts=attempts,
        scope=ATTEMPT_SCOPE,
        cache=cache,
        breaker=breaker,
    )
    return Judgement(
        judge=result.judge,
        score=result.verdict,
        raw_replies=result.raw_replies,
        failure=result.failure,
        rebuilt=result.rebuilt,
    )
