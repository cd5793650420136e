"""The reply exactly as the provider returned it in its text channel, for every benchmark; why it stopped.

The official SURDS scorer and the official DriveLMM-o1 judge and MCQ rules read the model's raw output
(`message.content`). Inspect's `ModelOutput` is not that text: on the OpenAI-compatible path (`openai/`,
`openai-api/`, `vllm/`, ...) it moves the first `<think>...</think>` block into a reasoning part, wherever the
block stood, and strips the rest; a rebuild from those parts cannot know where the block was. The provider's raw
response is on the `ModelEvent` (`event.call.response`), which the transcript drops unless `--log-model-api` is
set. So `generate_reply` routes the generation's `ModelEvent` through a small sink that reads the text channel out
of the raw response before handing the event on to the transcript exactly as Inspect would.

The text channel is what each API returns as the message's text: OpenAI chat `choices[0].message.content`,
Responses `output_text` parts, Anthropic `text` blocks, Gemini parts without `thought`. Reasoning returned in a
provider's own channel (OpenAI reasoning items, a `reasoning_content` field, Anthropic thinking blocks, Gemini
thought parts) is not text and stays out (docs/reasoning-models.md).

Inspect's `--cache` keeps the parsed `ModelOutput` only, so when a call is cached its raw text is kept beside
it (`RAW_CACHE_SUBDIR`, keyed by the cached message's id) and a cache hit reads it back. Where no raw text exists
(a hit on an entry cached without drive_evals, a provider with no recognised response shape, a log written before
this module stored replies) the reply is rebuilt from Inspect's parts (`rebuilt_text`) and the sample says so
(`REPLY_REBUILT_KEY` in its score metadata); the log metric `replies_rebuilt` counts those samples, and
`drive-evals report` shows the count.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from inspect_ai.event import ModelEvent

# Private, but inspect_ai is pinned: the transcript methods `_record_model_interaction` calls when no sink is
# installed, and the sink hook Inspect's own agent bridge uses (tests/test_replies.py pins both).
from inspect_ai.log._transcript import transcript
from inspect_ai.model import ContentReasoning, ContentText, ModelOutput
from inspect_ai.model._model import ModelEventSink, _model_event_sink, use_model_event_sink

# Private, but the very parser that split the reply: used only to recognise a visible text that still holds its
# own think block, so that block is not put back a second time by `rebuilt_text`.
from inspect_ai.model._reasoning import parse_content_with_reasoning
from inspect_ai.scorer import Metric, SampleScore, Value, metric
from inspect_ai.solver import Generate, Solver, TaskState, solver

from drive_evals.data import cache_dir
from drive_evals.recovered_store import keep_recovered_stores
from drive_evals.unanswered import check_answering, stop_unanswered

keep_recovered_stores()  # the store this module writes must survive Inspect's crash recovery (eval-retry)

ReplySource = Literal["provider", "rebuilt"]
PROVIDER: ReplySource = "provider"
"""The reply is the provider's text, byte for byte: read from its raw response, or Inspect's output where Inspect
split nothing off it (an in-process provider such as `chance/` or `mockllm/` has no raw response)."""
REBUILT: ReplySource = "rebuilt"
"""No raw response was available: the reply was rebuilt from Inspect's parts (`rebuilt_text`)."""
REPLY_REBUILT_KEY = "reply_rebuilt"
"""Score.metadata key present only when some reply of the sample was rebuilt: why, per prompt number."""
REPLIES_REBUILT = "replies_rebuilt"
"""Log metric: the samples with a rebuilt reply (their score may differ from the official scorer's)."""
REBUILT_STORE_KEY = "reply_rebuilt"
"""Store key of the per-prompt reasons a reply was rebuilt (None: the provider's text), written by the solver."""
REPLY_STORE_KEY = "reply_text"
"""Store key of a one-prompt sample's reply as the provider returned it (DriveLMM-o1), which the scorer reads."""

THINK_TAG_SOURCE = "think"
"""`ContentReasoning.internal` of reasoning that Inspect parsed out of `<think>` tags in the reply text."""
TOKEN_LIMIT_STOP = "max_tokens"
"""Inspect's stop reason for a completion cut by the output token limit (OpenAI `finish_reason: length`,
Anthropic `stop_reason: max_tokens`, Gemini `MAX_TOKENS`, Responses `incomplete: max_output_tokens`), also
under `--batch`."""

RAW_CACHE_SUBDIR = "replies"
"""Folder under the drive_evals cache (`DRIVE_EVALS_CACHE`) holding the raw text of each reply Inspect cached."""
_MESSAGE_ID = re.compile(r"[A-Za-z0-9_-]{1,200}")
"""What a message id must look like to name a file (Inspect's ids are short uuids)."""

NO_CALL = "no raw response (a cache hit without its raw text, or a provider that does not record its API call)"
UNKNOWN_SHAPE = "raw response in a shape drive_evals does not read"


@dataclass(frozen=True)
class Reply:
    """One generation's reply text and where it came from (`why` says why it was rebuilt)."""

    text: str
    source: ReplySource
    why: str | None = None


# Each reader takes a raw response body and returns its text channel, or None when the body is not its shape.
TextReader = Callable[[dict[str, Any]], str | None]


def _joined(parts: Sequence[str]) -> str:
    """Several text parts of one message form one text: a stream of them is their concatenation."""
    return "".join(parts)


def openai_chat_text(body: dict[str, Any]) -> str | None:
    """OpenAI Chat Completions and compatible servers: `choices[0].message.content` (a refusal if no content)."""
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    message = choices[0].get("message")
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    if isinstance(content, list):  # a few compatible servers send parts
        return _joined([p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)])
    if isinstance(content, str):
        return content
    refusal = message.get("refusal")
    return refusal if isinstance(refusal, str) else ""


def openai_responses_text(body: dict[str, Any]) -> str | None:
    """OpenAI Responses: the `output_text` (or `refusal`) parts of `message` items; `reasoning` items stay out."""
    output = body.get("output")
    if body.get("object") != "response" or not isinstance(output, list):
        return None
    texts = []
    for item in output:
        if isinstance(item, dict) and item.get("type") == "message":
            for part in item.get("content") or []:
                if isinstance(part, dict) and part.get("type") == "output_text":
                    texts.append(str(part.get("text", "")))
                elif isinstance(part, dict) and part.get("type") == "refusal":
                    texts.append(str(part.get("refusal", "")))
    return _joined(texts)


def anthropic_text(body: dict[str, Any]) -> str | None:
    """Anthropic Messages: the `text` blocks; `thinking` and `redacted_thinking` blocks stay out."""
    content = body.get("content")
    if body.get("type") != "message" or not isinstance(content, list):
        return None
    return _joined([str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text"])


def gemini_text(body: dict[str, Any]) -> str | None:
    """Google Gemini: the first candidate's text parts that are not `thought` parts."""
    candidates = body.get("candidates")
    if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
        return None
    parts = (candidates[0].get("content") or {}).get("parts") or []
    return _joined(
        [
            str(p["text"])
            for p in parts
            if isinstance(p, dict) and isinstance(p.get("text"), str) and not p.get("thought")
        ]
    )


TEXT_READERS: tuple[TextReader, ...] = (openai_chat_text, openai_responses_text, anthropic_text, gemini_text)
"""Tried in order; the shapes do not overlap. A provider with another response shape adds its reader here."""


def provider_text(body: object) -> str | None:
    """The text channel of a raw response body, or None when no reader knows its shape."""
    if not isinstance(body, dict):
        return None
    for reader in TEXT_READERS:
        text = reader(body)
        if text is not None:
            return text
    return None


class RawTextSink:
    """Reads the raw text of each completed generation, then passes the event on unchanged.

    Forwarding goes to the sink installed before this one, if any, else to the transcript through the same
    two calls Inspect makes without a sink, so the log is what it would have been.
    """

    def __init__(self, inner: ModelEventSink | None) -> None:
        self.inner = inner
        self.reply: Reply | None = None

    def on_pending(self, event: ModelEvent) -> None:
        if self.inner is not None:
            self.inner.on_pending(event)
        else:
            transcript()._event(event)

    def on_complete(self, event: ModelEvent) -> None:
        # Read before forwarding: the transcript drops `call` when it processes the event.
        if event.error is None:
            self.reply = _reply_of(event)
        if self.inner is not None:
            self.inner.on_complete(event)
        else:
            transcript()._event_updated(event)


@contextmanager
def raw_text_sink() -> Iterator[RawTextSink]:
    """Within this block, the raw text of each completed generation is read into the sink's `reply`."""
    sink = RawTextSink(_model_event_sink.get())
    with use_model_event_sink(sink):
        yield sink


def _reply_of(event: ModelEvent) -> Reply:
    """The raw text of a completed generation: from its API call, or from the raw-text cache on a cache hit."""
    message_id = event.output.message.id if event.output.choices else None
    if event.cache == "read":
        cached = _cached_raw_text(message_id)
        return Reply(cached, PROVIDER) if cached is not None else fallback_reply(event.output, NO_CALL)
    call = event.call
    if call is None or call.error:
        return fallback_reply(event.output, NO_CALL)
    text = provider_text(call.response)
    if text is None:
        return fallback_reply(event.output, UNKNOWN_SHAPE)
    if event.cache == "write":
        _cache_raw_text(message_id, text)
    return Reply(text, PROVIDER)


def fallback_reply(output: ModelOutput, why: str) -> Reply:
    """Without a raw response: Inspect's text where it is the reply exactly, else the rebuild, marked with `why`."""
    content = output.message.content if output.choices else ""
    # One string, or one text part beside reasoning of the provider's own channel: nothing was split off.
    exact = isinstance(content, str) or (
        sum(isinstance(part, ContentText) for part in content) == 1
        and not any(isinstance(part, ContentReasoning) and part.internal == THINK_TAG_SOURCE for part in content)
    )
    return Reply(rebuilt_text(output), PROVIDER) if exact else Reply(rebuilt_text(output), REBUILT, why)


def _raw_text_path(message_id: str | None) -> Path | None:
    if message_id is None or not _MESSAGE_ID.fullmatch(message_id):
        return None
    return cache_dir() / RAW_CACHE_SUBDIR / f"{message_id}.txt"


def _cache_raw_text(message_id: str | None, text: str) -> None:
    """Keep the raw text of a reply Inspect is caching (atomically: a concurrent reader sees all or nothing)."""
    path = _raw_text_path(message_id)
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("wb", dir=path.parent, delete=False) as handle:
        handle.write(text.encode("utf-8", "surrogatepass"))
    os.replace(handle.name, path)


def _cached_raw_text(message_id: str | None) -> str | None:
    path = _raw_text_path(message_id)
    try:
        return path.read_bytes().decode("utf-8", "surrogatepass") if path is not None else None
    except OSError:
        return None


async def generate_reply(state: TaskState, generate: Generate) -> tuple[TaskState, Reply]:
    """`generate(state)`, and the reply as the provider returned it (rebuilt, and marked so, only if it cannot be)."""
    check_answering(str(state.model))  # gave no answer before in this process: fail now, not after the bound again
    try:
        with raw_text_sink() as sink:
            state = await generate(state)
    except Exception as error:
        stop_unanswered(str(state.model), error)  # a dead model: one line, instead of Inspect's RetryError
        raise
    # Several events complete when Inspect retries; the last successful one produced `state.output`.
    return state, sink.reply or fallback_reply(state.output, NO_CALL)


def rebuilt_text(output: ModelOutput) -> str:
    """The reply rebuilt from Inspect's parts: `<think>` blocks Inspect split off, in order, then the visible text.

    Only a fallback (see the module docstring): Inspect moved the block from wherever it stood and stripped the
    white space around it, so the rebuild can differ from the raw text. Text parts are joined with a newline, as
    `ModelOutput.completion` joins them.
    """
    if not output.choices:
        return ""
    content = output.message.content
    if isinstance(content, str):
        return content
    parts: list[str] = []
    # Tag-derived reasoning not yet written out. A visible text that still holds the same block (Inspect keeps
    # the whole reply when nothing remains beside the block) is written instead of it.
    pending: list[str] = []
    for part in content:
        if isinstance(part, ContentReasoning) and part.internal == THINK_TAG_SOURCE:
            pending.append(part.reasoning)
        elif isinstance(part, ContentText):
            rest, capsule = parse_content_with_reasoning(part.text)
            if pending and capsule is not None and not rest and capsule.reasoning == pending[-1]:
                pending.pop()
            parts.extend(f"<think>\n{reasoning}\n</think>" for reasoning in pending)
            pending = []
            parts.append(part.text)
    parts.extend(f"<think>\n{reasoning}\n</think>" for reasoning in pending)
    return "\n".join(parts)


def rebuilt_note(whys: Sequence[str | None]) -> dict[str, dict[str, str]]:
    """Score.metadata entry naming each rebuilt reply (by prompt number) and why; empty when none was rebuilt."""
    rebuilt = {str(index + 1): why for index, why in enumerate(whys) if why is not None}
    return {REPLY_REBUILT_KEY: rebuilt} if rebuilt else {}


def rebuilt_count(metadata: Mapping[str, Any] | None) -> int:
    """1 when a score's metadata names a rebuilt reply (`rebuilt_note`), else 0."""
    return 1 if (metadata or {}).get(REPLY_REBUILT_KEY) else 0


@metric
def replies_rebuilt() -> Metric:
    """`replies_rebuilt`: samples whose reply was rebuilt from Inspect's parts, logged only when there are some.

    Such a reply can differ from the raw text the official scorer reads (a moved `<think>` block, parts joined by
    newlines), so a non-zero count says some scores may not be the official ones; each sample's score metadata
    names its rebuilt replies and why. Read from the score metadata, not its value, so the viewer's sample list
    gains no column. With epochs, Inspect's reducers keep the first epoch's metadata: the count is of samples
    whose first epoch was rebuilt (`drive-evals report` counts every epoch).
    """

    def compute(scores: list[SampleScore]) -> Value:
        total = sum(rebuilt_count(score.score.metadata) for score in scores)
        return {REPLIES_REBUILT: total} if total else {}

    return compute


def stopped_at_token_limit(output: ModelOutput) -> bool:
    """Whether the completion was cut by the output token limit (`--max-tokens`)."""
    return bool(output.choices) and output.stop_reason == TOKEN_LIMIT_STOP


@solver
def generate_raw_reply() -> Solver:
    """`generate()`, keeping the reply as the provider returned it (the store's `REPLY_STORE_KEY`) for the scorer's
    rules and judges, and why it had to be rebuilt when it had (`REBUILT_STORE_KEY`)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state, reply = await generate_reply(state, generate)
        state.store.set(REPLY_STORE_KEY, reply.text)
        state.store.set(REBUILT_STORE_KEY, [reply.why])
        return state

    return solve
