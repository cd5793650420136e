"""Write the synthetic CODA-LM demo (`src/drive_evals/demo/coda_lm/`) in the official layouts.

`python -m drive_evals.coda_lm.demo [--out DIR]`. Deterministic: every scene is drawn from the table below.

- `CODA-LM/Test/test_NNNN.json`: six images in the per-image annotation schema (README.md L77-104), with 1, 2, 0, 3,
  1 and 2 regions (like Test's images 0085 and 0161, one has none); the categories include `suitcace` (the data's
  own spelling, mapped) and `suitcase` (not in the official mapping: judged here, outside the official mean).
  `CODA-LM/Mini/` holds two of them under other ids, so split selection is exercised.
- `test/images/NNNN.jpg`: 1280x720 synthetic road scenes, each object drawn as a filled shape inside its box.
- `llava/English/Test-00000-of-00001.parquet` (when pyarrow is installed): the same Test items in the llava layout,
  region rows carrying the red box drawn as `convert2vqa.py` draws it; its id and path layout is this suite's
  reading of the unverified format (docs/coda_lm.md).
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

from PIL import Image, ImageDraw

from drive_evals.coda_lm.boxes import draw_box
from drive_evals.coda_lm.prompts import MODEL_PROMPTS

WIDTH, HEIGHT = 1280, 720
OBJECT_COLOURS = {"vehicle": (40, 60, 170), "cone": (240, 120, 20), "barrier": (230, 200, 40), "misc": (120, 80, 50)}
SCENES: dict[str, list[tuple[str, str, tuple[int, int, int, int], str]]] = {
    # image id -> regions: (category_name, shape colour, box [x, y, w, h], reference)
    "0007": [("construction_vehicle", "vehicle", (520, 300, 260, 170), "A yellow excavator works in the lane ahead.")],
    "0012": [
        ("traffic_cone", "cone", (300, 420, 40, 70), "An orange traffic cone narrows the right lane."),
        ("bollard", "barrier", (900, 380, 30, 110), "A bollard stands at the lane edge; keep clear of it."),
    ],
    "0085": [],
    "0140": [
        ("suitcace", "misc", (610, 470, 70, 50), "A suitcase lies on the road; the ego car must steer around it."),
        ("pedestrian", "vehicle", (200, 330, 50, 140), "A pedestrian crosses from the left; slow down."),
        ("suitcase", "misc", (1000, 480, 60, 45), "A second suitcase by the kerb."),
    ],
    "0161": [("dog", "misc", (700, 500, 80, 50), "A dog runs across the road ahead: brake.")],
    "0233": [
        ("car", "vehicle", (560, 360, 160, 100), "A car ahead in the ego lane brakes."),
        ("barrier", "barrier", (100, 400, 300, 60), "A barrier closes the left lane."),
    ],
}
MINI = {"0301": "0012", "0302": "0140"}
"""Mini ids -> the scene drawn for them (Mini is a subset of Val, whose ids differ from Test's)."""


def draw_scene(regions: list[tuple[str, str, tuple[int, int, int, int], str]]) -> Image.Image:
    image = Image.new("RGB", (WIDTH, HEIGHT), (150, 190, 230))
    draw = ImageDraw.Draw(image)
    draw.rectangle([0, HEIGHT // 2, WIDTH, HEIGHT], fill=(80, 82, 86))
    for x in range(0, WIDTH, 160):
        draw.rectangle([x, HEIGHT * 3 // 4, x + 80, HEIGHT * 3 // 4 + 8], fill=(235, 235, 225))
    for _, colour, (x, y, w, h), _ in regions:
        draw.rectangle([x + 3, y + 3, x + w - 3, y + h - 3], fill=OBJECT_COLOURS[colour])
    return image


def annotation(image_id: str, regions: list[tuple[str, str, tuple[int, int, int, int], str]]) -> dict[str, object]:
    """The official per-image schema, keys with their spaces as the README shows them."""
    summary = " ".join(reference for *_, reference in regions) or "The road ahead is clear of corner-case objects."
    return {
        "general_perception": {
            "vehicles": [{"description": "a vehicle ahead", "explanation": "it may brake"}],
            "vulnerable_road_users": [],
            "traffic signs": [],
            "traffic lights": [],
            "traffic cones": [],
            "barriers": [],
            "other objects": [],
            "description and explanation": summary,
        },
        "region_perception": {
            str(k): {"description and explanation": reference, "box": list(box), "category_name": category}
            for k, (category, _, box, reference) in enumerate(regions, start=1)
        },
        "driving_suggestion": f"Image {image_id}: slow down and keep a safe distance from every object ahead.",
    }


def _write_split(out: Path, split: str, ids: dict[str, str]) -> None:
    folder = out / "CODA-LM" / split
    folder.mkdir(parents=True, exist_ok=True)
    for image_id, scene in ids.items():
        regions = SCENES[scene]
        text = json.dumps(annotation(image_id, regions), indent=2) + "\n"
        (folder / f"test_{image_id}.json").write_text(text, encoding="utf-8")
        images = out / "test" / "images"
        images.mkdir(parents=True, exist_ok=True)
        draw_scene(regions).save(images / f"{image_id}.jpg")


def write_parquet(out: Path) -> bool:
    """The Test items in the llava layout; False (nothing written) without pyarrow."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return False
    rows = []
    images = out / "test" / "images"
    with tempfile.TemporaryDirectory() as scratch:
        for image_id, regions in SCENES.items():
            original = images / f"{image_id}.jpg"
            plain: dict[str, object] = {"bytes": original.read_bytes(), "path": f"{image_id}.jpg"}
            refs = annotation(image_id, regions)
            general = refs["general_perception"]["description and explanation"]  # type: ignore[index]
            for task, reference in (
                ("general_perception", general),
                ("driving_suggestion", refs["driving_suggestion"]),
            ):
                rows.append(_row(f"{task}_{image_id}", plain, MODEL_PROMPTS[task], str(reference)))  # type: ignore[index]
            for k, (_, _, box, reference) in enumerate(regions, start=1):
                boxed = Path(scratch) / f"{image_id}_object_{k}.jpg"
                draw_box(original, tuple(float(v) for v in box), boxed)  # type: ignore[arg-type]
                image: dict[str, object] = {"bytes": boxed.read_bytes(), "path": boxed.name}
                rows.append(_row(f"region_{image_id}_{k}", image, MODEL_PROMPTS["region_perception"], reference))
    target = out / "llava" / "English" / "Test-00000-of-00001.parquet"
    target.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), target)
    return True


def _row(row_id: str, image: dict[str, object], question: str, answer: str) -> dict[str, object]:
    turns = [{"from": "human", "value": f"<image>\n{question}"}, {"from": "gpt", "value": answer}]
    return {"id": row_id, "image": image, "conversations": turns}


def write_demo(out: Path) -> None:
    """Write the whole demo into `out` (replaced)."""
    if out.exists():
        shutil.rmtree(out)
    _write_split(out, "Test", {image_id: image_id for image_id in SCENES})
    _write_split(out, "Mini", MINI)
    write_parquet(out)


def main(argv: list[str] | None = None) -> None:
    default = Path(__file__).resolve().parents[1] / "demo" / "coda_lm"
    parser = argparse.ArgumentParser(description="Write the synthetic CODA-LM demo in the official layouts.")
    parser.add_argument("--out", type=Path, default=default, help=f"output directory (default {default})")
    write_demo(parser.parse_args(argv).out)


if __name__ == "__main__":
    main()
