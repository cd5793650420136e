"""The blind control's image replacement: grey of the same size, everything else of the sample unchanged."""

from __future__ import annotations

import base64
import io
from pathlib import Path

from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText
from PIL import Image

from drive_evals.blind import GREY, blind_sample, grey_image_uri


def decode(uri: str) -> Image.Image:
    assert uri.startswith("data:image/png;base64,")
    return Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1])))


def test_grey_image_has_the_size_and_one_colour() -> None:
    image = decode(grey_image_uri((1600, 900)))
    assert image.size == (1600, 900)
    assert image.convert("RGB").getcolors() == [(1600 * 900, GREY)]


def test_blind_sample_replaces_only_the_images(tmp_path: Path) -> None:
    photo = tmp_path / "photo.png"
    Image.new("RGB", (320, 180), (200, 10, 10)).save(photo)
    sample = Sample(
        id="surds-xy2d-0001",
        input=[
            ChatMessageUser(
                content=[ContentText(text="Where is the car?"), ContentImage(image=str(photo), detail="high")]
            )
        ],
        target=["[1, 2]"],
        metadata={"image": "image/CAM_FRONT/x.webp"},
    )
    blind = blind_sample(sample)
    assert (blind.id, blind.target, blind.metadata) == (sample.id, sample.target, sample.metadata)
    assert not isinstance(blind.input, str)
    content = blind.input[0].content
    assert isinstance(content, list) and isinstance(content[0], ContentText) and isinstance(content[1], ContentImage)
    assert content[0].text == "Where is the car?"
    assert content[1].detail == "high"
    assert decode(content[1].image).size == (320, 180)
    assert isinstance(sample.input, list) and sample.input[0].content[1].image == str(photo), "original untouched"  # type: ignore[union-attr]


def test_text_only_samples_are_unchanged() -> None:
    sample = Sample(id="a", input="no image here")
    assert blind_sample(sample) is sample
