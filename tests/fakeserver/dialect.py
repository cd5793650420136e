"""The interface each fake API implements, so the HTTP server and its faults stay API-agnostic."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from .records import ApiName, BadRequest, FakeRequest, estimate_tokens, require

# Roughly what a small image costs in prompt tokens; only needs to be plausible.
IMAGE_TOKENS = 85


@dataclass(frozen=True)
class SseEvent:
    """One server-sent event: an optional `event:` name and its `data:` payload."""

    name: str | None
    data: str

    def encode(self) -> bytes:
        prefix = f"event: {self.name}\n" if self.name else ""
        return f"{prefix}data: {self.data}\n\n".encode()


class Dialect(Protocol):
    """Parsing and response shapes of one provider API."""

    api: ApiName
    missing_key_status: int
    """The HTTP status of a request without an API key."""
    invalid_key_status: int
    """The HTTP status of a request with a key the server does not accept."""

    def parse(self, body: dict[str, Any]) -> FakeRequest:
        """Normalise a generation request; raise `BadRequest` where the real API answers 400."""
        ...

    def response_body(
        self, request: FakeRequest, text: str | None, response_id: str, cut: bool = False, thought: str | None = None
    ) -> dict[str, Any]:
        """A complete non-streaming response; `text=None` gives a response with no output; `cut` reports that
        the text stopped at `max_tokens`; `thought` is the model's thinking (only Gemini and Responses serve it:
        the server refuses a thought for the other APIs before asking for a body)."""
        ...

    def stream_events(
        self, request: FakeRequest, text: str | None, response_id: str, cut: bool = False, thought: str | None = None
    ) -> list[SseEvent]:
        """The events of a streaming response, as the real API sends them."""
        ...

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """The API's JSON error body for an HTTP error status."""
        ...

    def invalid_key_message(self, key: str) -> str:
        """The API's 401 message for a key it does not accept."""
        ...


def prompt_tokens(request: FakeRequest) -> int:
    """Plausible prompt usage: text estimate plus a flat cost per image."""
    texts = [*request.texts, request.system or ""]
    return sum(estimate_tokens(text) for text in texts) + IMAGE_TOKENS * len(request.images)


def text_chunks(text: str, size: int) -> list[str]:
    """Split text into stream deltas, so clients must reassemble more than one delta."""
    return [text[start : start + size] for start in range(0, len(text), size)] or [""]


def masked_key(key: str) -> str:
    """A key as OpenAI echoes it in a 401: the first three and last four characters, the rest starred."""
    return key[:3] + "*" * max(0, len(key) - 7) + key[-4:] if len(key) > 7 else "*" * len(key)


def text_parts(content: Any) -> list[str]:
    """The text of a message's content: a plain string, or the `text` parts of a list (both APIs use `type: text`)."""
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [part["text"] for part in content if isinstance(part, dict) and part.get("type") == "text"]
    return []


@dataclass(frozen=True)
class ChatWording:
    """How a messages-list API (Chat Completions, Messages) names its system roles and words its 400s."""

    system_roles: tuple[str, ...]
    no_model: str
    no_messages: str
    no_role: str


def chat_messages(body: dict[str, Any], wording: ChatWording) -> tuple[str, list[str], Any]:
    """The model, the system texts in the messages and the last user message's content of a messages-list body;
    `BadRequest` worded as the API words it when one is missing."""
    model, messages = body.get("model"), body.get("messages")
    if not isinstance(model, str) or not model:
        raise BadRequest(wording.no_model)
    if not isinstance(messages, list) or not messages:
        raise BadRequest(wording.no_messages)
    system: list[str] = []
    last_user: dict[str, Any] | None = None
    for message in messages:
        require(isinstance(message, dict) and "role" in message, wording.no_role)
        if message["role"] in wording.system_roles:
            system.extend(text_parts(message.get("content")))
        elif message["role"] == "user":
            last_user = message
    return model, system, last_user["content"] if last_user else None
