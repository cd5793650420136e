"""The blind control (`-T blind=true`): the same requests with every image replaced by uniform grey.

A grey image of each original's size, rather than no image at all, keeps the request identical in shape (same
number of images, same size, so the same image tokens, cost and chat-template path) and avoids providers and
servers that reject or mis-template an image-less multimodal prompt. The only difference from a normal run is the
pixel content, so the gap between the two runs is what the pixels contribute. Sample ids and metadata are left
untouched, so blind and normal runs pair by sample id.
"""

from __future__ import annotations

import base64
import io
from functools import lru_cache

from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage, Content, ContentImage
from PIL import Image

GREY = (128, 128, 128)
"""Mid grey: no edges, no colour, nothing to localise; far from both black and white 'missing image' looks."""
BLIND_IMAGE_DESCRIPTION = "uniform grey RGB(128, 128, 128) PNG of each original image's size"
"""Recorded in the task metadata of a blind run."""


@lru_cache(maxsize=16)
def grey_image_uri(size: tuple[int, int]) -> str:
    """A uniform grey PNG of `size` (width, height) as a data URI (a few kilobytes: it compresses to nothing)."""
    buffer = io.BytesIO()
    Image.new("RGB", size, GREY).save(buffer, format="PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


@lru_cache(maxsize=4096)
def _image_size(path: str) -> tuple[int, int]:
    with Image.open(path) as image:
        return image.size


def blind_content(part: Content) -> Content:
    """An image part becomes a grey image of the same size (read from the file header); other parts are kept."""
    if not isinstance(part, ContentImage):
        return part
    return part.model_copy(update={"image": grey_image_uri(_image_size(part.image))})


def _blind_message(message: ChatMessage) -> ChatMessage:
    if isinstance(message.content, str):
        return message
    return message.model_copy(update={"content": [blind_content(part) for part in message.content]})


def blind_sample(sample: Sample) -> Sample:
    """The same sample (id, target, metadata, prompt text) with every input image replaced by grey."""
    if isinstance(sample.input, str):
        return sample
    return sample.model_copy(update={"input": [_blind_message(message) for message in sample.input]})
