"""Gemini `generateContent` (`POST /v1/models/{model}:generateContent`), as the `google-genai` SDK sends and parses it.

The model and whether the call streams are in the URL, not the body, so one `GeminiGenerate` is made per request
from its path (`gemini_route`). Observed from Inspect 0.3.285's `google/` provider with google-genai 3.x:
- `:generateContent`, or `:streamGenerateContent?alt=sse` with `-M streaming=true` (`data:` events, no names);
  the API version in the path is `v1` (older SDKs used `v1beta`: both are served);
- the key in `x-goog-api-key`; the system prompt in `systemInstruction`; settings in `generationConfig`
  (`maxOutputTokens`, `temperature`; structured output as `responseMimeType: application/json` and
  `responseJsonSchema`);
- images as `inlineData` parts with URL-safe base64 `data` and a `mime_type` (the SDK keeps that key snake case).
A reply may carry the model's thinking: served as a `thought: true` part before the answer, as Gemini's thinking
models do with `includeThoughts`.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any

from .dialect import SseEvent, prompt_tokens, text_chunks
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

VERSION = r"(?:v1|v1beta)"
ROUTE = re.compile(rf"^/{VERSION}/models/(?P<model>[^/:]+):(?P<method>generateContent|streamGenerateContent)$")
BATCH_ROUTE = re.compile(rf"^/{VERSION}/models/(?P<model>[^/:]+):batchGenerateContent$")
UPLOAD_ROUTE = re.compile(rf"^/upload/{VERSION}/files$")
BATCH_GET_ROUTE = re.compile(rf"^/{VERSION}/batches/(?P<id>[^/:]+)$")
DOWNLOAD_ROUTE = re.compile(rf"^(?:/download)?/{VERSION}/files/(?P<id>[^/:]+):download$")
STREAM_METHOD = "streamGenerateContent"
STREAM_CHUNK_CHARS = 16
STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    502: "UNAVAILABLE",
    503: "UNAVAILABLE",
}
# Pillow format names of the image types Gemini accepts inline.
MIME_TYPE_FORMATS = {"image/jpeg": "JPEG", "image/png": "PNG", "image/webp": "WEBP"}
MODEL_ROLE = "model"


def gemini_route(path: str) -> GeminiGenerate | None:
    """The dialect for a Gemini generation URL (query string removed), or None for any other path."""
    match = ROUTE.match(path)
    if match is None:
        return None
    return GeminiGenerate(model=match["model"], stream=match["method"] == STREAM_METHOD)


class GeminiGenerate:
    """`generateContent` request parsing and response bodies for one model and call kind (both from the URL)."""

    api: ApiName = "gemini"
    # Google answers a request without a key with 403 and a key it does not know with 400 (not 401).
    missing_key_status = 403
    invalid_key_status = 400

    def __init__(self, model: str = "", stream: bool = False) -> None:
        self.model = model
        self.stream = stream

    def parse(self, body: dict[str, Any]) -> FakeRequest:
        contents = body.get("contents")
        if not isinstance(contents, list) or not contents:
            raise BadRequest("* GenerateContentRequest.contents: contents is not specified")
        last_user: dict[str, Any] | None = None
        for index, content in enumerate(contents):
            require(isinstance(content, dict), f"* GenerateContentRequest.contents[{index}]: must be an object")
            if content.get("role", "user") == "user":
                last_user = content
        system = _texts((_field(body, "systemInstruction") or {}).get("parts"))
        generation = _field(body, "generationConfig") or {}
        config = RequestConfig(
            temperature=generation.get("temperature"),
            max_tokens=_field(generation, "maxOutputTokens"),
            response_format=_response_format(generation),
            stream=self.stream,
        )
        user = _user_turn(last_user.get("parts") if last_user else None)
        return fake_request(self.api, self.model, system, user, config, body)

    def response_body(
        self, request: FakeRequest, text: str | None, response_id: str, cut: bool = False, thought: str | None = None
    ) -> dict[str, Any]:
        candidates = [] if text is None else [_candidate(_parts(thought, text), _finish_reason(cut))]
        return _response(request, response_id, candidates, _usage(request, text, thought))

    def stream_events(
        self, request: FakeRequest, text: str | None, response_id: str, cut: bool = False, thought: str | None = None
    ) -> list[SseEvent]:
        if text is None:
            return [SseEvent(None, json.dumps(_response(request, response_id, [], _usage(request, None, None))))]
        chunks: list[dict[str, Any]] = []
        if thought is not None:
            chunks.extend(
                _candidate([{"text": part, "thought": True}]) for part in text_chunks(thought, STREAM_CHUNK_CHARS)
            )
        chunks.extend(_candidate([{"text": part}]) for part in text_chunks(text, STREAM_CHUNK_CHARS))
        chunks[-1]["finishReason"] = _finish_reason(cut)
        # Only the last chunk carries the usage (the API sends running counts; the SDK keeps the last one).
        usages: list[dict[str, int] | None] = [None] * (len(chunks) - 1) + [_usage(request, text, thought)]
        return [
            SseEvent(None, json.dumps(_response(request, response_id, [chunk], usage)))
            for chunk, usage in zip(chunks, usages, strict=True)
        ]

    def invalid_key_message(self, key: str) -> str:
        return "API key not valid. Please pass a valid API key."

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        return {"error": {"code": status, "message": message, "status": STATUS_NAMES.get(status, "UNKNOWN")}}


def _field(message: dict[str, Any], name: str) -> Any:
    """A field by its JSON name or its proto name (`maxOutputTokens` or `max_output_tokens`): the API takes both,
    and batch request lines are the SDK's snake_case dump."""
    if name in message:
        return message[name]
    return message.get(re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower())


def _texts(parts: Any) -> list[str]:
    if not isinstance(parts, list):
        return []
    return [part["text"] for part in parts if isinstance(part, dict) and isinstance(part.get("text"), str)]


def _user_turn(parts: Any) -> UserTurn:
    turn = UserTurn()
    for index, part in enumerate(parts or []):
        require(isinstance(part, dict), f"* contents.parts[{index}]: must be an object")
        if isinstance(part.get("text"), str):
            turn.add_text(part["text"])
        elif (blob := _field(part, "inlineData")) is not None:
            turn.add_image(_inline_image(blob, index))
    return turn


def _inline_image(blob: Any, index: int) -> DecodedImage:
    where = f"* contents.parts[{index}].inline_data"
    require(isinstance(blob, dict), f"{where}: must be an object")
    mime_type = _field(blob, "mimeType")
    if mime_type not in MIME_TYPE_FORMATS:
        raise BadRequest(f"{where}.mime_type: unsupported MIME type {mime_type!r}")
    try:
        # JSON `bytes` fields are URL-safe base64 here (`-` and `_`); the standard alphabet is accepted too.
        data = base64.urlsafe_b64decode(str(blob.get("data", "")).replace("+", "-").replace("/", "_"))
    except (binascii.Error, ValueError) as ex:
        raise BadRequest(f"{where}.data: Invalid value (bytes): {ex}") from ex
    try:
        image = decode_image(base64.b64encode(data).decode())
    except BadRequest as ex:
        raise BadRequest(f"{where}: {ex}") from ex
    require(image.format == MIME_TYPE_FORMATS[mime_type], f"{where}: the image is not {mime_type}")
    return image


def _response_format(generation: dict[str, Any]) -> dict[str, Any] | None:
    """Structured-output settings as sent (MIME type and schema), or None without them."""
    keys = ("responseMimeType", "responseJsonSchema", "responseSchema")
    settings = {key: _field(generation, key) for key in keys if _field(generation, key) is not None}
    return settings or None


def _parts(thought: str | None, text: str) -> list[dict[str, Any]]:
    return ([{"text": thought, "thought": True}] if thought is not None else []) + [{"text": text}]


def _candidate(parts: list[dict[str, Any]], finish_reason: str | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": MODEL_ROLE, "parts": parts}, "index": 0}
    if finish_reason is not None:
        candidate["finishReason"] = finish_reason
    return candidate


def _finish_reason(cut: bool) -> str:
    return "MAX_TOKENS" if cut else "STOP"


def _response(
    request: FakeRequest, response_id: str, candidates: list[dict[str, Any]], usage: dict[str, int] | None
) -> dict[str, Any]:
    body: dict[str, Any] = {"candidates": candidates, "modelVersion": request.model, "responseId": response_id}
    if usage is not None:
        body["usageMetadata"] = usage
    return body


def _usage(request: FakeRequest, text: str | None, thought: str | None) -> dict[str, int]:
    prompt = prompt_tokens(request)
    candidates = estimate_tokens(text or "")
    thoughts = estimate_tokens(thought) if thought is not None else 0
    usage = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": candidates,
        "totalTokenCount": prompt + candidates + thoughts,
    }
    if thought is not None:
        usage["thoughtsTokenCount"] = thoughts
    return usage
