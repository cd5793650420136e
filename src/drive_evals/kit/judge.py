"""The judge pipeline every judged benchmark uses: one call, retried until its reply parses, read raw.

A benchmark brings its messages, its generation settings (schema included) and a parse function; `call_judge`
does the rest the same way for every benchmark:

- **Raw reply.** The parse function and the replies kept on failure get the judge's text as the provider returned
  it (`message.content` on the OpenAI path, `<think>` blocks included where they stood), which is what the official
  scripts read; Inspect's `output.completion` has the first think block moved out (`drive_evals.replies`). Where no
  raw text exists the reply is rebuilt, and `JudgeResult.rebuilt` says why.
- **Retries.** A reply the parse function rejects is asked again, each attempt under its own cache scope (the
  attempt number), so a retry never gets the cached bad reply back while a re-run gets every good reply free.
  API errors are retried by Inspect first; one that still reaches here is a failed attempt.
- **Breaker.** Each call's outcome goes to the task's `JudgeBreaker`; once it trips no further call is made.
- **Batch and timeout.** The eval's `--batch` reaches the judge (Inspect hands it to the model under test only),
  unless the judge was bound with its own `batch`; a judge bound with its own `timeout` keeps it.
- **Preflight.** `preflight_graders` resolves the judge while the task is built (`judge_guard`).

Usage (a judge that writes `Rating: [[N]]`)::

    def read_rating(text: str) -> int | Invalid:
        match = re.search(r"Rating: \\[\\[(\\d+)\\]\\]", text)
        return int(match.group(1)) if match else Invalid("no 'Rating: [[N]]' in the judge's reply")

    result = await call_judge(model, messages, read_rating, config=GenerateConfig(temperature=0), attempts=3)
    if result.verdict is None:  # no attempt parsed: score `grader_failed`, keep result.failure and raw_replies
        ...
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from inspect_ai.model import BatchConfig, CachePolicy, ChatMessage, ChatMessageUser, GenerateConfig, Model
from inspect_ai.model._generate_config import active_generate_config
from inspect_ai.util import LimitExceededError

from drive_evals.judge_guard import (
    DEFAULT_JUDGE_ERROR_LIMIT,
    JudgeBreaker,
    graders,
    plain_reason,
    preflight_graders,
    stop_when_judge_down,
)
from drive_evals.replies import NO_CALL, fallback_reply, raw_text_sink

__all__ = [
    "ATTEMPT_SCOPE",
    "DEFAULT_JUDGE_ERROR_LIMIT",
    "NO_VERDICT",
    "RAW_REPLY_CHARS",
    "Invalid",
    "JudgeBreaker",
    "JudgeResult",
    "call_judge",
    "graders",
    "judge_generate_config",
    "preflight_graders",
    "stop_when_judge_down",
]

V = TypeVar("V")

ATTEMPT_SCOPE = "drive_evals_judge_attempt"
"""Default cache scope key of the attempt number (a benchmark with older caches passes its own)."""
RAW_REPLY_CHARS = 4000
"""Raw judge replies are kept up to this length (a runaway reply is cut, with a marker)."""
NO_VERDICT = "no verdict in the judge's reply"
"""The failure reason when a parse function returns None instead of an `Invalid` with its own reason."""


@dataclass(frozen=True)
class Invalid:
    """What a parse function returns for a reply it rejects: a short, loggable reason (the attempt is retried)."""

    reason: str


@dataclass
class JudgeResult(Generic[V]):
    """What one judge said about one item, after validation and retries."""

    judge: str
    verdict: V | None = None
    """The parsed verdict of the first reply that parsed; None when no attempt did."""
    raw_replies: list[str] = field(default_factory=list)
    """Every reply read, raw, in order (each cut at `RAW_REPLY_CHARS`)."""
    failure: str | None = None
    """Why there is no verdict (the last parse's reason, the API error or the breaker's stop); None on success."""
    rebuilt: list[str] = field(default_factory=list)
    """Why a reply read had to be rebuilt from Inspect's parts (no raw response); empty when all were raw."""


def judge_generate_config(model: Model, config: GenerateConfig) -> GenerateConfig:
    """`config` with the eval's `--batch` and the judge's own `timeout` where the judge was bound with them.

    Inspect hands `--batch` to the model under test only (a role model inherits connections, retries, timeout and
    cache, not batch), so without this a `--batch` run pays full price for every judge call; a judge bound with
    its own `batch` (`--model-role 'grader={model: ..., batch: false}'`) keeps it. A judge bound with its own
    `timeout` keeps it too: Inspect would replace it by the run's (the task default too).
    """
    batch: bool | int | BatchConfig | None = None
    if config.batch is None and model.config.batch is None:
        batch = active_generate_config().batch
    return config.merge(GenerateConfig(batch=batch, timeout=model.config.timeout))


def _kept(reply: str) -> str:
    return reply if len(reply) <= RAW_REPLY_CHARS else reply[:RAW_REPLY_CHARS] + f"… [{len(reply)} chars]"


async def call_judge(
    model: Model,
    messages: str | Sequence[ChatMessage],
    parse: Callable[[str], V | Invalid | None],
    *,
    config: GenerateConfig,
    attempts: int,
    scope: str = ATTEMPT_SCOPE,
    cache: bool = True,
    breaker: JudgeBreaker | None = None,
) -> JudgeResult[V]:
    """Ask one judge about one item until `parse` accepts its raw reply, at most `attempts` calls; never raises on
    what the judge says (only a sample limit propagates).

    `messages` is the judge's input (a string is one user message); `config` the benchmark's judge settings,
    completed by `judge_generate_config`; `parse` reads the raw reply text and returns the verdict, or `Invalid`
    (or None) to retry; `scope` names the cache scope of the attempt number; `cache=False` calls every time;
    `breaker` is the task's breaker (shared with its `stop_when_judge_down` solver).
    """
    result: JudgeResult[V] = JudgeResult(judge=str(model))
    inputs: list[ChatMessage] = [ChatMessageUser(content=messages)] if isinstance(messages, str) else list(messages)
    settings = judge_generate_config(model, config)
    for attempt in range(attempts):
        if breaker is not None and breaker.stopped is not None:
            result.failure = breaker.stopped
            break
        policy = CachePolicy(expiry=None, per_epoch=False, scopes={scope: str(attempt)}) if cache else False
        try:
            with raw_text_sink() as sink:
                output = await model.generate(inputs, config=settings, cache=policy)
        except LimitExceededError:
            raise
        except Exception as error:  # an error Inspect does not retry (e.g. a broken body): one failed attempt
            result.failure = f"judge call failed: {type(error).__name__}: {plain_reason(error)}"
            if breaker is not None:
                breaker.record(result.judge, error)
            continue
        if breaker is not None:
            breaker.record(result.judge, None)
        # Several events complete when Inspect retries; the last successful one produced `output`.
        reply = sink.reply or fallback_reply(output, NO_CALL)
        if reply.why is not None:
            result.rebuilt.append(reply.why)
        result.raw_replies.append(_kept(reply.text))
        parsed = parse(reply.text)
        if parsed is not None and not isinstance(parsed, Invalid):
            result.verdict = parsed
            result.failure = None
            return result
        result.failure = parsed.reason if isinstance(parsed, Invalid) else NO_VERDICT
    return result
