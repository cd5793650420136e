"""Anthropic Messages (`POST /v1/messages`, `/v1/messages/count_tokens`), as the `anthropic` SDK uses it.

Inspect's anthropic provider streams whenever `max_tokens >= 8192` or extended thinking is on, and its default
`max_tokens` for Claude 4 models is 32000: by default it streams, so the SSE event sequence matters as much
as the plain JSON body.
"""

from __future__ import annotations

import json
from typing import Any

from .dialect import ChatWording, SseEvent, chat_messages, prompt_tokens, text_chunks, text_parts
from .records import (
    ApiName,
    BadRequest,
    DecodedImage,
    FakeRequest,
    RequestConfig,
    UserTurn,
    decode_image,
    estimate_tokens,
    fake_request,
    require,
)

# Pillow format names of the media types the Messages API accepts.
MEDIA_TYPE_FORMATS = {"image/jpeg": "JPEG", "image/png": "PNG", "image/gif": "GIF", "image/webp": "WEBP"}
STREAM_CHUNK_CHARS = 16
THINKING_SPLIT = "\x1e<thinking block ends>\x1e"
"""A policy reply `thinking + THINKING_SPLIT + text` is served as a `thinking` block, then a `text` block."""
FAKE_SIGNATURE = "fake-signature"
WORDING = ChatWording(
    system_roles=("system",),
    no_model="model: Field required",
    no_messages="messages: at least one message is required",
    no_role="messages: each message needs a 'role'",
)
"""The top-level `system` field is read too (where the Messages API puts it)."""
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    404: "not_found_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}


class AnthropicMessages:
    """Messages request parsing and response bodies."""

    api: ApiName = "anthropic"
    missing_key_status = 401
    invalid_key_status = 401

    def parse(self, body: dict[str, Any]) -> FakeRequest:
        if not isinstance(body.get("max_tokens"), int):
            raise BadRequest("max_tokens: Field required")
        return self._parse(body)

    def count_tokens_body(self, body: dict[str, Any]) -> dict[str, Any]:
        """The `count_tokens` answer: the same prompt estimate that message usage reports."""
        return {"input_tokens": prompt_tokens(self._parse(body))}

    def response_body(
        self, request: FakeRequest, text: str | None, response_id: str, cut: bool = False, thought: str | None = None
    ) -> dict[str, Any]:
        content = [] if text is None else _blocks(text)
        return {
            **_message(request, response_id, content, stop_reason=_stop_reason(cut)),
            "usage": _usage(request, estimate_tokens(text or "")),
        }

    def stream_events(
        self, request: FakeRequest, text: str | None, response_id: str, cut: bool = False, thought: str | None = None
    ) -> list[SseEvent]:
        def event(name: str, **fields: Any) -> SseEvent:
            return SseEvent(name, json.dumps({"type": name, **fields}))

        start = {**_message(request, response_id, [], stop_reason=None), "usage": _usage(request, 1)}
        events = [event("message_start", message=start)]
        if text is not None and THINKING_SPLIT in text:
            # The whole thinking block in its start event: the SDK accumulates it as given.
            thinking, text = text.split(THINKING_SPLIT, 1)
            block = _blocks(thinking + THINKING_SPLIT)[0]
            events.append(event("content_block_start", index=0, content_block=block))
            events.append(event("content_block_stop", index=0))
            events.append(event("content_block_start", index=1, content_block={"type": "text", "text": ""}))
            events.extend(
                event("content_block_delta", index=1, delta={"type": "text_delta", "text": part})
                for part in text_chunks(text, STREAM_CHUNK_CHARS)
            )
            events.append(event("content_block_stop", index=1))
        elif text is not None:
            events.append(event("content_block_start", index=0, content_block={"type": "text", "text": ""}))
            events.append(event("ping"))
            events.extend(
                event("content_block_delta", index=0, delta={"type": "text_delta", "text": part})
                for part in text_chunks(text, STREAM_CHUNK_CHARS)
            )
            events.append(event("content_block_stop", index=0))
        events.append(
            event(
                "message_delta",
                delta={"stop_reason": _stop_reason(cut), "stop_sequence": None},
                usage={"output_tokens": estimate_tokens(text or "")},
            )
        )
        events.append(event("message_stop"))
        return events

    def invalid_key_message(self, key: str) -> str:
        return "invalid x-api-key"

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        error_type = ERROR_TYPES.get(status, "api_error")
        return {"type": "error", "error": {"type": error_type, "message": message}}

    def _parse(self, body: dict[str, Any]) -> FakeRequest:
        model, in_messages, user_content = chat_messages(body, WORDING)
        config = RequestConfig(
            temperature=body.get("temperature"),
            max_tokens=body.get("max_tokens"),
            response_format=body.get("output_format"),
            stream=bool(body.get("stream", False)),
        )
        system = text_parts(body.get("system")) + in_messages
        return fake_request(self.api, model, system, _user_turn(user_content), config, body)


def _user_turn(content: Any) -> UserTurn:
    turn = UserTurn()
    if isinstance(content, str):
        turn.add_text(content)
        return turn
    for index, block in enumerate(content or []):
        require(isinstance(block, dict), "content blocks must be objects")
        if block.get("type") == "text":
            require(isinstance(block.get("text"), str), f"content.{index}.text: Field required")
            turn.add_text(block["text"])
        elif block.get("type") == "image":
            turn.add_image(_image(block.get("source") or {}, index))
    return turn


def _image(source: dict[str, Any], index: int) -> DecodedImage:
    where = f"content.{index}.image.source"
    require(source.get("type") == "base64", f"{where}: only base64 sources are accepted by this fake server")
    media_type = source.get("media_type")
    if not isinstance(media_type, str) or media_type not in MEDIA_TYPE_FORMATS:
        raise BadRequest(f"{where}.media_type: unsupported media type {media_type!r}")
    try:
        image = decode_image(str(source.get("data", "")))
    except BadRequest as ex:
        raise BadRequest(f"{where}: {ex}") from ex
    require(
        image.format == MEDIA_TYPE_FORMATS[media_type],
        f"{where}: Image does not match the provided media type {media_type}",
    )
    return image


def _blocks(text: str) -> list[dict[str, Any]]:
    """The content blocks of a reply: a thinking block first when the policy asked for one (`THINKING_SPLIT`)."""
    if THINKING_SPLIT not in text:
        return [{"type": "text", "text": text}]
    thinking, rest = text.split(THINKING_SPLIT, 1)
    return [
        {"type": "thinking", "thinking": thinking, "signature": FAKE_SIGNATURE},
        *([{"type": "text", "text": rest}] if rest else []),
    ]


def _stop_reason(cut: bool) -> str:
    return "max_tokens" if cut else "end_turn"


def _message(
    request: FakeRequest, response_id: str, content: list[dict[str, Any]], stop_reason: str | None
) -> dict[str, Any]:
    return {
        "id": f"msg_{response_id}",
        "type": "message",
        "role": "assistant",
        "model": request.model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
    }


def _usage(request: FakeRequest, output_tokens: int) -> dict[str, int]:
    return {
        "input_tokens": prompt_tokens(request),
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }
