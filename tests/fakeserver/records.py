"""What the fake servers record: one provider-neutral `FakeRequest` per generation request.

All the APIs are normalised into the same shape so a test can assert on the prompt the model actually received
(system text, the last user turn's text and images, their order) without caring which provider sent it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import json
import threading
from dataclasses import dataclass, field
from typing import Any, Literal

from PIL import Image, UnidentifiedImageError

ApiName = Literal["openai", "openai-responses", "anthropic", "gemini"]
PartKind = Literal["text", "image"]

# Length of the hex prompt key: long enough to never collide within a test run, short enough to read.
PROMPT_KEY_LENGTH = 16


class BadRequest(Exception):
    """A request the real API would refuse with HTTP 400; the message goes into the error body."""


@dataclass(frozen=True)
class DecodedImage:
    """An image as the server decoded it, so tests can check that the bytes arrived intact and unresized."""

    width: int
    height: int
    format: str
    sha256: str


@dataclass(frozen=True)
class RequestConfig:
    """The generation settings a client sent, as the API spelled them."""

    temperature: float | None
    max_tokens: int | None
    response_format: dict[str, Any] | None
    stream: bool


@dataclass(frozen=True)
class FakeRequest:
    """A generation request normalised across APIs.

    `texts`, `images` and `part_order` describe the last user message only: that is the prompt an eval
    builds per sample, while earlier turns are history.
    """

    api: ApiName
    model: str
    system: str | None
    texts: list[str]
    images: list[DecodedImage]
    part_order: list[PartKind]
    config: RequestConfig
    raw: dict[str, Any]

    @property
    def key(self) -> str:
        """The prompt key that `FakeModelServer.counts` is indexed by."""
        return prompt_key(self.system, self.texts, [image.sha256 for image in self.images])


@dataclass
class UserTurn:
    """The last user message's texts and images in the order sent, as a dialect reads them off a request."""

    texts: list[str] = field(default_factory=list)
    images: list[DecodedImage] = field(default_factory=list)
    order: list[PartKind] = field(default_factory=list)

    def add_text(self, text: str) -> None:
        self.texts.append(text)
        self.order.append("text")

    def add_image(self, image: DecodedImage) -> None:
        self.images.append(image)
        self.order.append("image")


def fake_request(
    api: ApiName, model: str, system: list[str], user: UserTurn, config: RequestConfig, raw: dict[str, Any]
) -> FakeRequest:
    """The normalised request: the system texts joined (None without any), the last user turn as read."""
    system_text = "\n".join(system) if system else None
    return FakeRequest(api, model, system_text, user.texts, user.images, user.order, config, raw)


def prompt_key(system: str | None, texts: list[str], image_sha256s: list[str]) -> str:
    """Identify a prompt independently of API and model, so retries of one prompt share a key."""
    canonical = json.dumps({"system": system, "texts": texts, "images": image_sha256s})
    return hashlib.sha256(canonical.encode()).hexdigest()[:PROMPT_KEY_LENGTH]


_DECODED: dict[str, DecodedImage] = {}
"""Images already decoded, by sha256 of their bytes (shared by all servers of the process)."""
_DECODED_LOCK = threading.Lock()


def decode_image(data_base64: str) -> DecodedImage:
    """Decode base64 image bytes fully with Pillow; raise `BadRequest` as the real APIs do on bad images.

    Decoded images are remembered by digest: a benchmark sends each image many times, and a full decode per
    request made the server, not the client under test, the bottleneck of whole-benchmark runs.
    """
    try:
        data = base64.b64decode(data_base64, validate=True)
    except (binascii.Error, ValueError) as ex:
        raise BadRequest(f"Invalid base64 image data: {ex}") from ex
    digest = hashlib.sha256(data).hexdigest()
    with _DECODED_LOCK:
        known = _DECODED.get(digest)
    if known is not None:
        return known
    try:
        with Image.open(io.BytesIO(data)) as image:
            image.load()
            decoded = DecodedImage(image.width, image.height, image.format or "unknown", digest)
    except (UnidentifiedImageError, OSError, ValueError) as ex:
        raise BadRequest(f"Could not process image ({type(ex).__name__}): not a decodable image") from ex
    with _DECODED_LOCK:
        _DECODED[digest] = decoded
    return decoded


def decode_data_uri(uri: str) -> DecodedImage:
    """Decode a `data:<media type>;base64,<data>` image URI (remote URLs cannot be fetched offline)."""
    header, separator, data = uri.partition(",")
    if not (separator and header.startswith("data:") and header.endswith(";base64")):
        raise BadRequest("Only base64 data URIs are accepted for images by this fake server")
    return decode_image(data)


CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """A rough token count (about four characters a token) so usage numbers are plausible and non-zero."""
    return max(1, len(text) // CHARS_PER_TOKEN)


def cut_to_limit(text: str, max_tokens: int | None) -> tuple[str, bool]:
    """The reply as a real API returns it under `max_tokens`: cut to the limit, and whether it was cut."""
    if max_tokens is None or estimate_tokens(text) <= max_tokens:
        return text, False
    return text[: max(max_tokens, 0) * CHARS_PER_TOKEN], True


def require(condition: bool, message: str) -> None:
    """Raise `BadRequest` unless `condition` holds, for terse request validation."""
    if not condition:
        raise BadRequest(message)
