"""The question text each prompt variant sends.

`vlmevalkit` (default): the question verbatim (VLMEvalKit `VLADBench.build_prompt`).
`authors`: as the authors' released inference script builds it (Depth2World/VLADBench `qwen2vl_all.py`, for
Qwen2-VL): every `;` dropped from the question (it splits on `;` and joins the rest), a box in a box-to-class
question moved onto the 0-1000 grid with the image-size sentence removed, and a first sentence naming the country.
The strings and patterns below are that script's, quoted as protocol data.
"""

from __future__ import annotations

import re
from typing import Literal

from drive_evals.errors import ParameterError
from drive_evals.vladbench.records import VladRecord

PromptVariant = Literal["vlmevalkit", "authors"]
PROMPTS: tuple[PromptVariant, ...] = ("vlmevalkit", "authors")
IMAGE_COUNTRY = "The image is from {country}. "
SEQUENCE_COUNTRY = "The sequence is from {country}. "
BOX_REWRITE_MARKER = "located at the bounding box"
_SIZE = re.compile(r"(\d+) and (\d+)")
_SIZE_SENTENCE = re.compile(r"The width and height of the image are \d+ and \d+\.")
_BOX = re.compile(r"\[\d+, \d+, \d+, \d+\]")
GRID = 1000


def rescale_box_question(text: str) -> str:
    """The authors' rewrite of a box-to-class question for a model answering on a 0-1000 grid."""
    size = _SIZE.search(text)
    if size is None:
        return text
    width, height = float(size.group(1)), float(size.group(2))
    text = _SIZE_SENTENCE.sub("", text)
    box = _BOX.search(text)
    if box is None:
        return text
    x1, y1, x2, y2 = (int(value) for value in box.group()[1:-1].split(", "))
    scaled = [int(GRID * x1 / width), int(GRID * y1 / height), int(GRID * x2 / width), int(GRID * y2 / height)]
    return _BOX.sub(f"{scaled}", text)


def authors_question(record: VladRecord) -> str:
    text = record.question.replace(";", "")
    if BOX_REWRITE_MARKER in text:
        text = rescale_box_question(text)
    template = SEQUENCE_COUNTRY if record.sequence else IMAGE_COUNTRY
    return template.format(country=record.country) + text


def prompt_text(record: VladRecord, variant: PromptVariant) -> str:
    return authors_question(record) if variant == "authors" else record.question


def check_countries(records: list[VladRecord], variant: PromptVariant) -> None:
    """The authors' prompt names the country: every record needs one (the annotation JSON has it)."""
    if variant != "authors":
        return
    missing = [record.where for record in records if not record.country]
    if missing:
        raise ParameterError(
            f"prompt=authors needs each question's country, which {len(missing)} question(s) lack (first: "
            f"{missing[0]}): use the annotation JSON layout (`<Domain>/<Aspect>/<Task>_E.json`) or a TSV with a "
            "`country` column"
        )
