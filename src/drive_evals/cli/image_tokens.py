"""How many input tokens an image costs, by each provider's published rule (for `drive-evals estimate`).

Each rule is the provider's documented arithmetic on the image's pixel size, named and sourced so the estimate
says which one it used. The providers resize on their side, so the size this suite sends (1600x900 SURDS frames,
the 2400x900 DriveLMM-o1 grid, six 1600x900 views) is all a rule needs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

Size = tuple[int, int]

OPENAI_FIT_PX = 2048
OPENAI_SHORT_SIDE_PX = 768
OPENAI_TILE_PX = 512
OPENAI_BASE_TOKENS = 85
OPENAI_TILE_TOKENS = 170
OPENAI_MINI_BASE_TOKENS = 2833
"""gpt-4o-mini bills images at a higher token count (same dollar price per image as gpt-4o at its lower rate)."""
OPENAI_MINI_TILE_TOKENS = 5667

ANTHROPIC_PIXELS_PER_TOKEN = 750
ANTHROPIC_LONG_EDGE_PX = 1568
ANTHROPIC_MAX_PIXELS = 1092 * 1092
"""The largest square the documentation lists as sent unresized (about 1.19 MP, ~1,590 tokens): larger images are
scaled down, aspect ratio kept, to within the ~1,600-token limit."""

GEMINI_SMALL_PX = 384
GEMINI_TILE_PX = 768
GEMINI_TOKENS_PER_TILE = 258

QWEN_PATCH_PX = 28
"""A 14-px ViT patch merged 2x2: one language-model token per 28x28 pixels."""
QWEN_MIN_PIXELS = 4 * 28 * 28
QWEN_MAX_PIXELS = 16384 * 28 * 28
"""12,845,056: `max_pixels` of the Qwen2.5-VL processor config (preprocessor_config.json) when nothing is set."""
QWEN_CARD_MAX_PIXELS = 1280 * 28 * 28
"""The model card's example setting (`max_pixels = 1280*28*28`, a 256-1280 token range per image)."""


@dataclass(frozen=True)
class ImageRule:
    """A named, sourced way to turn an image size into input tokens."""

    name: str
    summary: str
    source: str
    tokens: Callable[[Size, str], int]
    """(width, height), OpenAI `detail` ("auto", "low", "high") -> tokens."""


def openai_tiles(
    size: Size, detail: str = "auto", base: int = OPENAI_BASE_TOKENS, tile: int = OPENAI_TILE_TOKENS
) -> int:
    """Fit in 2048x2048, scale the short side down to 768, then `base + tile` per 512-px tile; `low` = `base`."""
    if detail == "low":
        return base
    width, height = float(size[0]), float(size[1])
    if max(width, height) > OPENAI_FIT_PX:
        scale = OPENAI_FIT_PX / max(width, height)
        width, height = width * scale, height * scale
    if min(width, height) > OPENAI_SHORT_SIDE_PX:
        scale = OPENAI_SHORT_SIDE_PX / min(width, height)
        width, height = width * scale, height * scale
    tiles = math.ceil(width / OPENAI_TILE_PX) * math.ceil(height / OPENAI_TILE_PX)
    return base + tile * tiles


def openai_mini_tiles(size: Size, detail: str = "auto") -> int:
    return openai_tiles(size, detail, OPENAI_MINI_BASE_TOKENS, OPENAI_MINI_TILE_TOKENS)


def anthropic_resized(size: Size) -> tuple[float, float]:
    """The size Claude sees: scaled down (aspect kept) to a 1568-px long edge and ~1.19 MP."""
    width, height = size
    scale = min(1.0, ANTHROPIC_LONG_EDGE_PX / max(width, height), math.sqrt(ANTHROPIC_MAX_PIXELS / (width * height)))
    return width * scale, height * scale


def anthropic_pixels(size: Size, detail: str = "auto") -> int:
    """tokens = width * height / 750 of the resized image (rounded up)."""
    width, height = anthropic_resized(size)
    return math.ceil(round(width) * round(height) / ANTHROPIC_PIXELS_PER_TOKEN)


def gemini_tiles(size: Size, detail: str = "auto") -> int:
    """258 tokens when both sides are at most 384 px, else 258 per 768x768 tile."""
    width, height = size
    if width <= GEMINI_SMALL_PX and height <= GEMINI_SMALL_PX:
        return GEMINI_TOKENS_PER_TILE
    return math.ceil(width / GEMINI_TILE_PX) * math.ceil(height / GEMINI_TILE_PX) * GEMINI_TOKENS_PER_TILE


def qwen_resized(size: Size, max_pixels: int = QWEN_MAX_PIXELS, min_pixels: int = QWEN_MIN_PIXELS) -> Size:
    """Qwen2.5-VL `smart_resize`: sides rounded to multiples of 28, then scaled into [min_pixels, max_pixels]."""
    width, height = size
    new_h = max(QWEN_PATCH_PX, round(height / QWEN_PATCH_PX) * QWEN_PATCH_PX)
    new_w = max(QWEN_PATCH_PX, round(width / QWEN_PATCH_PX) * QWEN_PATCH_PX)
    if new_h * new_w > max_pixels:
        beta = math.sqrt(height * width / max_pixels)
        new_h = math.floor(height / beta / QWEN_PATCH_PX) * QWEN_PATCH_PX
        new_w = math.floor(width / beta / QWEN_PATCH_PX) * QWEN_PATCH_PX
    elif new_h * new_w < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        new_h = math.ceil(height * beta / QWEN_PATCH_PX) * QWEN_PATCH_PX
        new_w = math.ceil(width * beta / QWEN_PATCH_PX) * QWEN_PATCH_PX
    return new_w, new_h


def qwen_patches(size: Size, max_pixels: int = QWEN_MAX_PIXELS) -> int:
    """One token per 28x28 patch of the resized image (the two vision start/end tokens are not counted)."""
    width, height = qwen_resized(size, max_pixels)
    return (width // QWEN_PATCH_PX) * (height // QWEN_PATCH_PX)


OPENAI_SOURCE = "OpenAI, Images and vision: calculating costs, https://platform.openai.com/docs/guides/images-vision"
RULES: dict[str, ImageRule] = {
    rule.name: rule
    for rule in [
        ImageRule(
            "openai-tiles",
            "GPT-4o-class: 85 + 170 per 512-px tile after fitting in 2048x2048 and scaling the short side to 768"
            " (detail=low: 85)",
            OPENAI_SOURCE,
            openai_tiles,
        ),
        ImageRule(
            "openai-tiles-4o-mini",
            "gpt-4o-mini: 2833 + 5667 per 512-px tile, same resizing (detail=low: 2833)",
            OPENAI_SOURCE,
            openai_mini_tiles,
        ),
        ImageRule(
            "anthropic-pixels",
            "Claude: width*height/750 after scaling down to a 1568-px long edge and ~1.19 MP (~1,600 tokens)",
            "Anthropic, Vision: evaluate image size, https://docs.anthropic.com/en/docs/build-with-claude/vision",
            anthropic_pixels,
        ),
        ImageRule(
            "gemini-tiles",
            "Gemini 2.x: 258 if both sides <= 384 px, else 258 per 768x768 tile",
            "Google, Understand and count tokens (images), https://ai.google.dev/gemini-api/docs/tokens",
            gemini_tiles,
        ),
        ImageRule(
            "qwen2.5-vl",
            f"Qwen2.5-VL: one token per 28x28 patch after smart_resize, max_pixels={QWEN_MAX_PIXELS} (processor"
            " default)",
            "Qwen2.5-VL model card and preprocessor_config.json, https://huggingface.co/Qwen/Qwen2.5-VL-7B-Instruct",
            lambda size, detail: qwen_patches(size),
        ),
        ImageRule(
            "qwen2.5-vl-card",
            f"Qwen2.5-VL: as qwen2.5-vl with the model card's example max_pixels={QWEN_CARD_MAX_PIXELS} (1280*28*28)",
            "Qwen2.5-VL model card, https://huggingface.co/Qwen/Qwen2.5-VL-7B-Instruct",
            lambda size, detail: qwen_patches(size, QWEN_CARD_MAX_PIXELS),
        ),
    ]
}

PROVIDER_RULES = {"openai": "openai-tiles", "azureai": "openai-tiles", "anthropic": "anthropic-pixels"}
GOOGLE_PROVIDERS = ("google", "vertex")


def rule_for_model(model: str) -> ImageRule | None:
    """The rule a model's provider documents, or None when the model name does not say (choose one explicitly)."""
    provider, _, name = model.partition("/")
    if provider in PROVIDER_RULES:
        if "gpt-4o-mini" in name:
            return RULES["openai-tiles-4o-mini"]
        return RULES[PROVIDER_RULES[provider]]
    if provider in GOOGLE_PROVIDERS and "gemini" in name:
        return RULES["gemini-tiles"]
    if "qwen2.5-vl" in model.lower() or "qwen2_5_vl" in model.lower():
        return RULES["qwen2.5-vl"]
    return None
