"""OpenAI Responses (`POST /v1/responses`), as the `openai` SDK sends and parses it for Inspect's `openai/` provider.

Inspect 0.3.285 takes this path for o-series, gpt-5 and codex names, and for any name with `-M responses_api=true`.
It sends `input` items (`developer` and `user` messages with `input_text` and `input_image` parts), `store: false`,
`max_output_tokens`, a JSON schema in `text.format`; for reasoning names it first probes once with a plain string
`input` and `reasoning.summary` (answered like any request). It reads the `output` items: `reasoning` items become
Inspect reasoning, the `output_text` parts of `message` items its text (one text part per `output_text` part).
It streams (`response.*` server-sent events, the last one carrying the whole response) only with `-M
streaming=true` or an `on_stream` consumer.

A policy's `Reply.thought` is served as a `reasoning` item with that summary before the message. A reply text
holding `PART_SPLIT` is served as several `output_text` parts of one message, as a model's text can come: the
Responses text is their concatenation (the SDK's `output_text`), while Inspect's `completion` joins parts with
newlines, so the raw reply and Inspect's text differ there.
"""

from __future__ import annotations

import json
import time
from typing import Any

from .dialect import SseEvent, prompt_tokens, text_chunks, text_parts
from .openai_api import WORDING, OpenAIChat
from .records import (
    ApiName,
    BadRequest,
    DecodedImage,
    FakeRequest,
    PartKind,
    RequestConfig,
    decode_data_uri,
    estimate_tokens,
    require,
)

PART_SPLIT = "\x1e<output_text part ends>\x1e"
"""A policy reply `a + PART_SPLIT + b` is served as two `output_text` parts, `a` and `b`, of one message."""
STREAM_CHUNK_CHARS = 16
ENCRYPTED_REASONING = "reasoning.encrypted_content"
"""The `include` entry that asks for a reasoning item's opaque state (Inspect sends it with `store: false`)."""
FAKE_ENCRYPTED_CONTENT = "fake-encrypted-reasoning"


class OpenAIResponses:
    """Responses request parsing and response bodies."""

    api: ApiName = "openai-responses"
    missing_key_status = 401
    invalid_key_status = 401

    def parse(self, body: dict[str, Any]) -> FakeRequest:
        model = body.get("model")
        items = body.get("input")
        if not isinstance(model, str) or not model:
            raise BadRequest("Missing required parameter: 'model'.")
        if not isinstance(items, (str, list)) or not items:
            raise BadRequest("Missing required parameter: 'input'.")
        system = text_parts(body.get("instructions"))
        last_user: Any = items if isinstance(items, str) else None
        for item in [] if isinstance(items, str) else items:
            require(isinstance(item, dict) and "role" in item, "each input message needs a 'role'")
            kind = item.get("type", "message")
            require(kind == "message", f"input items of type {kind!r} are not served here")
            if item["role"] in WORDING.system_roles:
                system.extend(_input_texts(item.get("content")))
            elif item["role"] == "user":
                last_user = item.get("content")
        texts, images, order = _user_parts(last_user)
        text_config = body.get("text")
        return FakeRequest(
            api=self.api,
            model=model,
            system="\n".join(system) if system else None,
            texts=texts,
            images=images,
            part_order=order,
            config=RequestConfig(
                temperature=body.get("temperature"),
                max_tokens=body.get("max_output_tokens"),
                response_format=text_config.get("format") if isinstance(text_config, dict) else None,
                stream=bool(body.get("stream", False)),
            ),
            raw=body,
        )

    def response_body(
        self, request: FakeRequest, text: str | None, response_id: str, cut: bool = False, thought: str | None = None
    ) -> dict[str, Any]:
        return _response(request, response_id, _output(request, response_id, text, thought, cut), text, thought, cut)

    def stream_events(
        self, request: FakeRequest, text: str | None, response_id: str, cut: bool = False, thought: str | None = None
    ) -> list[SseEvent]:
        """`response.created`, the text as `response.output_text.delta` events, then the whole response in
        `response.completed` (`response.incomplete` when cut), which is what the SDK and Inspect read."""
        sequence = iter(range(1_000_000))

        def event(kind: str, **fields: Any) -> SseEvent:
            return SseEvent(kind, json.dumps({"type": kind, "sequence_number": next(sequence), **fields}))

        final = self.response_body(request, text, response_id, cut, thought)
        started = {**final, "status": "in_progress", "output": [], "usage": None, "incomplete_details": None}
        events = [event("response.created", response=started)]
        message_index = len(final["output"]) - 1
        for part_index, part in enumerate(text.split(PART_SPLIT) if text is not None else []):
            events.extend(
                event(
                    "response.output_text.delta",
                    item_id=_message_id(response_id),
                    output_index=message_index,
                    content_index=part_index,
                    delta=chunk,
                    logprobs=[],
                )
                for chunk in text_chunks(part, STREAM_CHUNK_CHARS)
            )
        events.append(event("response.incomplete" if cut else "response.completed", response=final))
        return events

    # The same account and error format as Chat Completions.
    invalid_key_message = OpenAIChat.invalid_key_message
    error_body = OpenAIChat.error_body


def _input_texts(content: Any) -> list[str]:
    """The text of an input message: a string, or its `input_text` parts."""
    if isinstance(content, str):
        return [content]
    return [p["text"] for p in content or [] if isinstance(p, dict) and p.get("type") == "input_text"]


def _user_parts(content: Any) -> tuple[list[str], list[DecodedImage], list[PartKind]]:
    if isinstance(content, str):
        return [content], [], ["text"]
    texts: list[str] = []
    images: list[DecodedImage] = []
    order: list[PartKind] = []
    for part in content or []:
        require(isinstance(part, dict), "content parts must be objects")
        if part.get("type") == "input_text":
            require(isinstance(part.get("text"), str), "input_text parts need a 'text' string")
            texts.append(part["text"])
            order.append("text")
        elif part.get("type") == "input_image":
            url = part.get("image_url")
            if not isinstance(url, str):
                raise BadRequest("input_image parts need an 'image_url'")
            try:
                images.append(decode_data_uri(url))
            except BadRequest as ex:
                raise BadRequest(f"Invalid image in 'input_image': {ex}") from ex
            order.append("image")
    return texts, images, order


def _message_id(response_id: str) -> str:
    return f"msg_{response_id}"


def _output(
    request: FakeRequest, response_id: str, text: str | None, thought: str | None, cut: bool
) -> list[dict[str, Any]]:
    """The `output` items: a reasoning item for a thought, then the message (none when there is no text)."""
    items: list[dict[str, Any]] = []
    if thought is not None:
        encrypted = ENCRYPTED_REASONING in (request.raw.get("include") or [])
        items.append(
            {
                "id": f"rs_{response_id}",
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": thought}],
                "encrypted_content": FAKE_ENCRYPTED_CONTENT if encrypted else None,
            }
        )
    if text is not None:
        parts = [
            {"type": "output_text", "text": part, "annotations": [], "logprobs": []} for part in text.split(PART_SPLIT)
        ]
        items.append(
            {
                "id": _message_id(response_id),
                "type": "message",
                "status": "incomplete" if cut else "completed",
                "role": "assistant",
                "content": parts,
            }
        )
    return items


def _response(
    request: FakeRequest,
    response_id: str,
    output: list[dict[str, Any]],
    text: str | None,
    thought: str | None,
    cut: bool,
) -> dict[str, Any]:
    raw = request.raw
    prompt = prompt_tokens(request)
    reasoning = estimate_tokens(thought) if thought is not None else 0
    completion = estimate_tokens((text or "").replace(PART_SPLIT, "")) + reasoning
    return {
        "id": f"resp_{response_id}",
        "object": "response",
        "created_at": int(time.time()),
        "status": "incomplete" if cut else "completed",
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if cut else None,
        "instructions": raw.get("instructions"),
        "max_output_tokens": raw.get("max_output_tokens"),
        "model": request.model,
        "output": output,
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "reasoning": raw.get("reasoning") or {"effort": None, "summary": None},
        "store": raw.get("store", True),
        "temperature": raw.get("temperature", 1.0),
        "text": raw.get("text") or {"format": {"type": "text"}},
        "tool_choice": "auto",
        "tools": [],
        "top_p": raw.get("top_p", 1.0),
        "truncation": "disabled",
        "usage": {
            "input_tokens": prompt,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": completion,
            "output_tokens_details": {"reasoning_tokens": reasoning},
            "total_tokens": prompt + completion,
        },
        "user": None,
        "metadata": {},
    }
