"""The region-perception image: the original with one red rectangle, drawn as `convert2vqa.py` L74-80 draws it.

`Image.open(original)`, `ImageDraw.Draw(image).rectangle([x, y, x + w, y + h], outline="red", width=2)`, then
`image.save("<NNNN>_object_<k>.jpg")`: Pillow's default JPEG settings (quality 75 and 4:2:0 subsampling in the
Pillow versions this suite supports; the authors' Pillow version is unknown). One image per region, with only
that region's box; the coordinates are never in the text. Drawn once per (image file, box) and kept in the cache
(`DRIVE_EVALS_CACHE`), so a re-run or a resume sends the same bytes without redrawing.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from PIL import Image, ImageDraw, UnidentifiedImageError

from drive_evals.data import cache_dir

BOX_COLOUR = "red"
BOX_WIDTH = 2
"""`convert2vqa.py` L77: `outline='red', width=2` (Pillow draws the width inward from the rectangle's edge)."""
DRAWING_VERSION = 1
"""Part of the cache key: bump it when the drawing changes, so no old image is sent."""
CACHE_FOLDER = "coda_lm/boxes"
JPEG_END = b"\xff\xd9"
JPEG_TAIL_BYTES = 64


def image_problem(path: Path) -> str | None:
    """Why an image cannot be sent or drawn on (missing, not an image, cut short), or None."""
    if not path.is_file():
        return "not found"
    try:
        with Image.open(path) as image:  # reads the header only: checking 500 images stays quick
            image_format = image.format
    except (UnidentifiedImageError, OSError) as error:
        return f"not a readable image ({error})"
    if image_format == "JPEG":
        with path.open("rb") as handle:
            handle.seek(max(0, path.stat().st_size - JPEG_TAIL_BYTES))
            if not handle.read().rstrip(b"\x00").endswith(JPEG_END):
                return "a truncated JPEG (no end-of-image marker)"
    return None


def with_box(image: Image.Image, box: tuple[float, float, float, float]) -> Image.Image:
    """`image` with `box` (x, y, w, h) drawn on it in place: the rectangle ends at (x + w, y + h), included."""
    x, y, w, h = box
    ImageDraw.Draw(image).rectangle([x, y, x + w, y + h], outline=BOX_COLOUR, width=BOX_WIDTH)
    return image


def draw_box(original: Path, box: tuple[float, float, float, float], target: Path) -> None:
    """Draw `box` on `original` and save it to `target` (a `.jpg`) with Pillow's default settings."""
    with Image.open(original) as image:
        with_box(image, box).save(target)


def boxed_image(original: Path, box: tuple[float, float, float, float]) -> Path:
    """The cached boxed image of `box` on `original`; drawn on first use (atomically: parallel runs never read half
    a file)."""
    stat = original.stat()
    key = f"{DRAWING_VERSION}|{original.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{box!r}"
    target = cache_dir() / CACHE_FOLDER / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.jpg"
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f"{target.stem}.{os.getpid()}.tmp.jpg")
        draw_box(original, box, partial)
        partial.replace(target)
    return target
