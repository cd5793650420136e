"""VLADBench replies are scored as VLMEvalKit reads them back from its xlsx prediction file.

The official behaviour is the real round trip, run here: a prediction column written as `vlmeval/smp/file.py`'s
`dump_xlsx` writes it (pandas + xlsxwriter, `strings_to_formulas=False`) and read back as its `load_xlsx` reads it
(`pd.read_excel`, pandas' defaults, openpyxl), on seeded generated replies.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pandas as pd
import pytest
from pandas._libs.parsers import STR_NA_VALUES

from drive_evals.vladbench.readback import NA_STRINGS, read_back
from drive_evals.vladbench.rules import score_question

PIECES = (
    "The answer is", "B", "'left'", "[120, 40, 300, 220]", "No.3", "[30,60]", "yes", "no", "on", "none", "\r", "\r\n",
    "\n", "\t", "\x00", "\x01", "\x0b", "\x0c", "\x1f", "\x7f", "_x000D_", "_x005F_", "_xABCD_", "ax005F_b",
    "x005F_x005F_", "\ufffe", "\uffff",
    "é", "中文", "🚗", "=1+2", "123", " ", "  ", "see http://example.com/a", "-", "#", "'",
)  # fmt: skip


URL_SCHEME = re.compile(r"(ftp|http)s?://|mailto:|(in|ex)ternal:|file://")
"""xlsxwriter writes a text starting so as a hyperlink, by rules `read_back` does not restate (its docstring)."""


def replies(seed: int, size: int) -> list[str]:
    rng = random.Random(seed)
    out = sorted(NA_STRINGS) + [f" {na}" for na in sorted(NA_STRINGS)] + [na.lower() for na in sorted(NA_STRINGS)]
    out += ["x" * 40000, "🚗" * 20000]
    for _ in range(size):
        out.append("".join(rng.choice(PIECES) + rng.choice(("", " ")) for _ in range(rng.randint(1, 8))))
    return [text for text in out if not URL_SCHEME.match(text)]


def round_trip(texts: list[str], folder: Path) -> list[str | None]:
    """VLMEvalKit's `dump_xlsx` then `load_xlsx` of a prediction column."""
    path = folder / "model_VLADBench.xlsx"
    frame = pd.DataFrame({"index": range(len(texts)), "prediction": texts})
    with (
        pytest.warns(UserWarning),
        pd.ExcelWriter(  # xlsxwriter warns of the over-long cell
            path, engine="xlsxwriter", engine_kwargs={"options": {"strings_to_formulas": False}}
        ) as writer,
    ):
        frame.to_excel(writer, index=False)
    back = pd.read_excel(path)
    return [None if pd.isna(value) else str(value) for value in back["prediction"]]


def test_na_strings_are_pandas_defaults() -> None:
    assert frozenset(STR_NA_VALUES) == NA_STRINGS


def test_read_back_equals_the_xlsx_round_trip(tmp_path: Path) -> None:
    texts = replies(seed=43, size=1500)
    official = round_trip(texts, tmp_path)
    mine = [read_back(text) for text in texts]
    assert [i for i, (a, b) in enumerate(zip(mine, official, strict=True)) if a != b] == []
    assert official.count(None) >= len(NA_STRINGS)  # each NA string (and any generated one) came back missing
    assert any(value and "_x000D_" in value for value in official)


def test_none_reply_is_not_credited_for_on() -> None:
    """`None` reads back as NaN, the text `nan` for the option scorer: `on` (inside `none`) is not credited."""
    question = "Is the light on or off? ['on', 'off']"
    assert score_question("general", question, "on", None, "None").correct == 1.0  # the raw text would be
    assert score_question("general", question, "on", None, read_back("None")).correct == 0.0
