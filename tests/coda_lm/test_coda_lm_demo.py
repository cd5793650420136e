"""The shipped CODA-LM demo is what `python -m drive_evals.coda_lm.demo` writes, byte for byte, in the official
layouts (per-image JSON with the README's keys, `test/images/NNNN.jpg`, the llava parquet's columns)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drive_evals.coda_lm.demo import write_demo
from drive_evals.data import demo_dir

DEMO = demo_dir("coda_lm")


def files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_regeneration_gives_the_same_bytes(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")  # the parquet is written only with it
    write_demo(tmp_path / "demo")
    assert files(tmp_path / "demo") == files(DEMO)
    for relative in files(DEMO):
        assert (tmp_path / "demo" / relative).read_bytes() == (DEMO / relative).read_bytes(), relative


def test_annotation_schema() -> None:
    doc = json.loads((DEMO / "CODA-LM" / "Test" / "test_0140.json").read_text(encoding="utf-8"))
    assert set(doc) == {"general_perception", "region_perception", "driving_suggestion"}
    assert {"traffic signs", "other objects", "description and explanation"} <= set(doc["general_perception"])
    region = doc["region_perception"]["1"]
    assert (
        set(region) == {"description and explanation", "box", "category_name"} and region["category_name"] == "suitcace"
    )


def test_parquet_columns() -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    table = pq.read_table(DEMO / "llava" / "English" / "Test-00000-of-00001.parquet")
    assert table.column_names == ["id", "image", "conversations"] and table.num_rows == 21
    row = table.slice(0, 1).to_pylist()[0]
    assert set(row["image"]) == {"bytes", "path"} and [t["from"] for t in row["conversations"]] == ["human", "gpt"]
