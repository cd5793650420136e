"""OpenAI Chat Completions (`POST /v1/chat/completions`), as the `openai` SDK sends and parses it."""

from __future__ import annotations

import json
import time
from typing import Any

from .dialect import ChatWording, SseEvent, chat_messages, masked_key, prompt_tokens, text_chunks
from .records import (
    ApiName,
    BadRequest,
    FakeRequest,
    RequestConfig,
    UserTurn,
    decode_data_uri,
    estimate_tokens,
    fake_request,
    require,
)

WORDING = ChatWording(
    system_roles=("system", "developer"),
    no_model="you must provide a model parameter",
    no_messages="'messages' must be a non-empty array",
    no_role="each message needs a 'role'",
)
STREAM_CHUNK_CHARS = 16
STREAM_DONE = "[DONE]"
ERROR_TYPES = {400: "invalid_request_error", 401: "invalid_request_error", 404: "invalid_request_error"}
RATE_LIMIT_ERROR = ("requests", "rate_limit_exceeded")


class OpenAIChat:
    """Chat Completions request parsing and response bodies."""

    api: ApiName = "openai"
    missing_key_status = 401
    invalid_key_status = 401

    def parse(self, body: dict[str, Any]) -> FakeRequest:
        model, system, user_content = chat_messages(body, WORDING)
        config = RequestConfig(
            temperature=body.get("temperature"),
            max_tokens=body.get("max_completion_tokens", body.get("max_tokens")),
            response_format=body.get("response_format"),
            stream=bool(body.get("stream", False)),
        )
        return fake_request(self.api, model, system, _user_turn(user_content), config, body)

    def response_body(
        self, request: FakeRequest, text: str | None, response_id: str, cut: bool = False, thought: str | None = None
    ) -> dict[str, Any]:
        choices = [] if text is None else [_choice(text, _finish_reason(cut))]
        return {
            **_envelope(request, response_id, "chat.completion"),
            "choices": choices,
            "usage": _usage(request, text),
        }

    def stream_events(
        self, request: FakeRequest, text: str | None, response_id: str, cut: bool = False, thought: str | None = None
    ) -> list[SseEvent]:
        def chunk(choices: list[dict[str, Any]], **extra: Any) -> SseEvent:
            body = {**_envelope(request, response_id, "chat.completion.chunk"), "choices": choices, **extra}
            return SseEvent(None, json.dumps(body))

        events = []
        if text is not None:
            events.append(chunk([_delta({"role": "assistant", "content": ""})]))
            parts = text_chunks(text, STREAM_CHUNK_CHARS)
            events.extend(chunk([_delta({"content": part})]) for part in parts)
            events.append(chunk([_delta({}, finish_reason=_finish_reason(cut))]))
        if (request.raw.get("stream_options") or {}).get("include_usage"):
            events.append(chunk([], usage=_usage(request, text)))
        events.append(SseEvent(None, STREAM_DONE))
        return events

    def invalid_key_message(self, key: str) -> str:
        return (
            f"Incorrect API key provided: {masked_key(key)}. "
            "You can find your API key at https://platform.openai.com/account/api-keys."
        )

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        if status == 429:
            error_type, code = RATE_LIMIT_ERROR
        else:
            error_type, code = ERROR_TYPES.get(status, "server_error"), None
        return {"error": {"message": message, "type": error_type, "param": None, "code": code}}


def _user_turn(content: Any) -> UserTurn:
    turn = UserTurn()
    if isinstance(content, str):
        turn.add_text(content)
        return turn
    for part in content or []:
        require(isinstance(part, dict), "content parts must be objects")
        if part.get("type") == "text":
            require(isinstance(part.get("text"), str), "text parts need a 'text' string")
            turn.add_text(part["text"])
        elif part.get("type") == "image_url":
            url = (part.get("image_url") or {}).get("url")
            if not isinstance(url, str):
                raise BadRequest("image_url parts need an 'image_url.url'")
            try:
                turn.add_image(decode_data_uri(url))
            except BadRequest as ex:
                raise BadRequest(f"Invalid image in 'image_url': {ex}") from ex
    return turn


def _envelope(request: FakeRequest, response_id: str, kind: str) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{response_id}",
        "object": kind,
        "created": int(time.time()),
        "model": request.model,
        "system_fingerprint": "fp_fakeserver",
    }


def _finish_reason(cut: bool) -> str:
    return "length" if cut else "stop"


def _choice(text: str, finish_reason: str) -> dict[str, Any]:
    return {
        "index": 0,
        "message": {"role": "assistant", "content": text, "refusal": None},
        "finish_reason": finish_reason,
        "logprobs": None,
    }


def _delta(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    return {"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}


def _usage(request: FakeRequest, text: str | None) -> dict[str, int]:
    prompt = prompt_tokens(request)
    completion = estimate_tokens(text or "")
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
