"""Metadata validation: every problem named by line and field, before anything is built."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from surds_fixtures import record

from drive_evals.errors import DataValidationError, ParameterError
from drive_evals.surds.dataset import check_images, parse_subsets
from drive_evals.surds.records import parse_metadata_lines
from drive_evals.surds.units import build_units


def problems(lines: list[str]) -> str:
    """The errors of reading the lines and building the units (anomalies in read values stop the build)."""
    with pytest.raises(DataValidationError) as caught:
        build_units(parse_metadata_lines(lines, source="meta.jsonl"))
    return str(caught.value)


def mutated(**changes: Any) -> str:
    base = record("bad", ["car", "bus"], [0, 1])
    base.update(changes)
    return json.dumps({k: v for k, v in base.items() if v is not ...})


SINGLE = json.dumps(record("ok", ["car"], [0]))
"""One pair needs one single-object record to draw."""


def test_unequal_lists() -> None:
    message = problems([SINGLE, mutated(depths=[1.0])])
    assert "meta.jsonl:2: field 'depths': object 1: no value: the list has 1 entries but 'descs' has 2" in message


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("depths", [1.0, "far"]),
        ("distances", [1.0, True]),
        ("xy2Ds", [[1, 2], [None]]),
    ],
)
def test_non_numbers(field: str, value: object) -> None:
    assert f"field '{field}': object 1" in problems([SINGLE, mutated(**{field: value})])


def test_missing_field_and_bad_json() -> None:
    with pytest.raises(DataValidationError) as caught:
        parse_metadata_lines([mutated(descs=...), "{not json", mutated(file_name=None), "[1, 2]"], "meta.jsonl")
    message = str(caught.value)
    assert "meta.jsonl:1: field 'descs': missing or not a list" in message
    assert "meta.jsonl:2: invalid JSON" in message
    assert "meta.jsonl:3: field 'file_name': expected a non-empty string" in message
    assert "meta.jsonl:4: expected a JSON object" in message
    assert message.startswith("4 problem(s)")


def test_bad_json_names_the_column_once() -> None:
    with pytest.raises(DataValidationError) as caught:
        parse_metadata_lines(['{"file_name": "a.jpg", "descs": ["unterminated'], "meta.jsonl")
    assert "meta.jsonl:1: invalid JSON (Unterminated string starting at: column 34)" in str(caught.value)


def test_nan_rejected() -> None:
    line = mutated().replace('"depths": [5.0', '"depths": [NaN')
    assert "field 'depths': object 0: expected a finite number, got nan" in problems([SINGLE, line])


def test_empty_file() -> None:
    with pytest.raises(DataValidationError, match="no records"):
        parse_metadata_lines(["", "  "])


def test_too_few_singles() -> None:
    lines = [mutated(), json.dumps(record("m2", ["a", "b"], [0, 1]))]
    with pytest.raises(DataValidationError, match="single-object pool has 0 records"):
        build_units(parse_metadata_lines(lines))


def test_subsets_parameter() -> None:
    assert parse_subsets("depth, yaw") == ["yaw", "depth"]
    assert parse_subsets(None)[0] == "yaw"
    with pytest.raises(ParameterError, match="valid subsets are yaw, xy2d"):
        parse_subsets("yaw,height")
    with pytest.raises(ParameterError, match="no subset selected"):
        parse_subsets(" , ")


def test_images_checked_and_escapes_rejected(tmp_path: Path) -> None:
    from PIL import Image

    image_dir = tmp_path / "validation" / "image" / "CAM_FRONT"
    image_dir.mkdir(parents=True)
    Image.new("RGB", (1600, 900)).save(image_dir / "good.webp")
    Image.new("RGB", (800, 450)).save(image_dir / "small.webp")
    (image_dir / "broken.webp").write_bytes(b"RIFF....WEBPVP8 garbage")
    singles = [record(name, ["car"], [0]) for name in ("good", "small", "broken", "missing")]
    escape = record("x", ["van"], [0])
    escape["file_name"] = "../../outside.webp"
    multis = [record("m", ["a", "b", "c"], [0, 1, 2]), record("n", ["a", "b"], [0, 1]), record("o", ["a", "b"], [0, 1])]
    lines = [json.dumps(r) for r in [*singles, escape, *multis]]
    records = parse_metadata_lines(lines)
    units = build_units(records)["xy2d"]
    with pytest.raises(DataValidationError) as caught:
        check_images(tmp_path, units, records)
    message = str(caught.value)
    assert "small.webp'" in message and "800x450" in message
    assert "broken.webp'" in message and "not a readable image" in message
    assert "missing.webp'" in message and "image not found" in message
    assert "escapes the data directory" in message
    assert "good.webp" not in message


@pytest.mark.parametrize(
    ("mode", "options"),
    [("RGB", {"quality": 60}), ("RGB", {"lossless": True}), ("RGBA", {"quality": 60}), ("RGB", {"exif": b"Exif\0\0"})],
)
def test_webp_size_reads_the_header_like_pillow(tmp_path: Path, mode: str, options: dict[str, Any]) -> None:
    from PIL import Image

    from drive_evals.surds.dataset import webp_size

    path = tmp_path / "x.webp"
    Image.new(mode, (1600, 900)).save(path, "WEBP", **options)
    with Image.open(path) as image:
        assert webp_size(path) == image.size == (1600, 900)
    path.write_bytes(path.read_bytes()[:-10])
    assert webp_size(path) is None, "a truncated file is left to Pillow"
    jpeg = tmp_path / "x.jpg"
    Image.new("RGB", (16, 9)).save(jpeg)
    assert webp_size(jpeg) is None
