"""A reply as VLMEvalKit's scorers see it: after its round trip through the xlsx prediction file.

VLMEvalKit writes the predictions with `pd.ExcelWriter(engine="xlsxwriter", strings_to_formulas=False)` and
`to_excel`, and `get_scores` reads them back with `pd.read_excel` at pandas' defaults (`vlmeval/smp/file.py`,
`dump_xlsx` and `load_xlsx`). What that does to a text, restated here so a run needs neither pandas nor an xlsx
file (tests/vladbench/test_vlad_readback.py checks it against the real round trip):

- xlsxwriter writes control characters other than tab and newline as the escape `_xHHHH_` (so a carriage return
  becomes `_x000D_`), the non-characters U+FFFE/U+FFFF as `_xFFFE_`/`_xFFFF_`, and a literal `_xHHHH_` with its
  underscore escaped (`_x005F_xHHHH_`); openpyxl reads none of the escapes back but deletes every `x005F_` of the
  text, so a control character comes back as its escape's literal text, and `_x005F_` or `ax005F_b` lose a part;
- a text longer than 32,767 UTF-16 units is cut there (Excel's cell limit);
- a cell that is empty or exactly one of pandas' default missing-value strings (`None`, `N/A`, `NA`, `null`, `nan`,
  ...: `NA_STRINGS`) comes back as NaN, which the option scorers read as the text `nan` and the box, relation and
  lane-speed scorers crash on (`rules.py` scores those 0 without obey credit: docs/vladbench.md, Fidelity).

Not restated: a reply that starts with a URL scheme (`http://`, `mailto:`, `file://`, ...), which xlsxwriter writes
as a hyperlink with rules of its own (a prefix dropped, over 2,079 characters not written, a control character in
it making the file unreadable for the whole run): such a reply is read as any other text.
"""

from __future__ import annotations

import re

NA_STRINGS = frozenset(
    [
        "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A",
        "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
    ]
)  # fmt: skip
"""pandas' default `na_values` (`pandas._libs.parsers.STR_NA_VALUES`, the same in pandas 2.x and 3.1)."""
CELL_MAX_UTF16 = 32767
_ESCAPE = re.compile(r"(_x[0-9a-fA-F]{4}_)")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f]")
OPENPYXL_DROPS = "x005F_"
"""openpyxl's shared-string reader: `text.replace('x005F_', '')`."""


def _utf16_cut(text: str, limit: int) -> str:
    if len(text) <= limit // 2:
        return text
    units = 0
    for i, char in enumerate(text):
        units += 2 if ord(char) > 0xFFFF else 1
        if units > limit:
            return text[:i]
    return text


def read_back(reply: str | None) -> str | None:
    """The reply as `pd.read_excel` returns it from VLMEvalKit's prediction file; None where that is NaN."""
    if reply is None:
        return None
    text = _ESCAPE.sub(r"_x005F\1", _utf16_cut(reply, CELL_MAX_UTF16))
    text = _CONTROL.sub(lambda match: f"_x{ord(match.group(0)):04X}_", text)
    text = text.replace("\ufffe", "_xFFFE_").replace("\uffff", "_xFFFF_").replace(OPENPYXL_DROPS, "")
    return None if text in NA_STRINGS else text
