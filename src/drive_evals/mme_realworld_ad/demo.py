"""Synthetic MME-RealWorld AD demo data in the hosted forms: `python -m drive_evals.mme_realworld_ad.demo [OUT]`.

The licence forbids redistributing the real set, so the demo is drawn here. One folder holds every form side by
side, as the hosted repositories lay them out (protocol 1.1-1.2): the official `MME_RealWorld.json` and
`MME_RealWorld_CN.json` with `AutonomousDriving/nuScenes/*.jpg`; the Base64 JSON chunks `MME-RealWorld/` and
`MME-RealWorld-CN/`; the Lite TSV `mme_realworld_lite.tsv`; and the lmms-eval parquet of each edition under its
repository's name (`MME-RealWorld-Lmms-eval/data/`, written only when pyarrow is installed). Every form carries the
same JPEG bytes, so a test can check that each form sends the model the same image. EN: two questions for each of
the 15 sub-categories over 24 images (some shared, as questions share images in the real set), plus two records of
another domain that the loaders must skip; CN and Lite: one per sub-category. Output is deterministic (seed
`SEED`).
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import random
import sys
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from drive_evals.mme_realworld_ad.sources import CHUNK_DIRS, OFFICIAL_JSON, PARQUET_REPOS, TSV_FILES
from drive_evals.mme_realworld_ad.taxonomy import DOMAIN, EDITIONS, SUBCATEGORIES, Edition

SEED = 45
WIDTH, HEIGHT = 256, 144
"""nuScenes CAM_FRONT frames are 1600x900; the demo keeps their aspect ratio, small."""
JPEG_QUALITY = 70
LETTERS = "ABCDE"
E_OPTION = {"en": "All the above answers are wrong.", "cn": "以上答案都不对。"}

# sub-category -> (question, four candidate answers; the first is right before the options are rotated)
QUESTIONS: dict[str, tuple[str, tuple[str, str, str, str]]] = {
    "Objects_Identify": ("This image shows the front view of the ego car. "
                         "What are objects to the front of the ego car?",
                         ("There are many cars and one truck.", "There are many pedestrians and one bus.",
                          "There is one bicycle and two barriers.", "There are two trailers.")),
    "Object_Count": ("How many cars are visible in the front view of the ego car?", ("3", "1", "5", "7")),
    "Attribute_Motion_MultiPedestrians": ("What are the pedestrians in front of the ego car doing?",
                                          ("They are crossing the road.", "They are standing still.",
                                           "They are riding bicycles.", "They are boarding a bus.")),
    "Attribute_Motion_MultiVehicles": ("What is the motion of the vehicles ahead?",
                                       ("They are moving forward.", "They are parked.", "They are reversing.",
                                        "They are turning left.")),
    "Attribute_Motion_Pedestrain": ("What is the status of the pedestrian on the right?",
                                    ("Walking", "Standing", "Sitting", "Running")),
    "Attribute_Motion_Vehicle": ("What is the status of the truck ahead?",
                                 ("Moving", "Parked", "Stopped at a light", "Reversing")),
    "Attribute_Visual_TrafficSignal": ("What colour is the traffic light ahead?", ("Red", "Green", "Yellow", "Off")),
    "Attention_TrafficSignal": ("Which traffic signal should the ego car pay attention to?",
                                ("The red light ahead", "The speed limit sign", "The stop sign", "None")),
    "Prediction_Intention_Ego": ("What should the ego car do next?",
                                 ("Slow down and stop", "Speed up", "Turn right", "Change to the left lane")),
    "Prediction_Intention_Pedestrian": ("What will the pedestrian on the left do next?",
                                        ("Cross the road", "Wait at the kerb", "Turn back", "Enter a car")),
    "Prediction_Intention_Vehicle": ("What will the car ahead do next?",
                                     ("Keep going straight", "Turn left", "Stop", "Change lanes")),
    "Relation_Interaction_Ego2Pedestrain": ("How should the ego car interact with the pedestrian ahead?",
                                            ("Yield to the pedestrian", "Overtake the pedestrian", "Honk", "Ignore")),
    "Relation_Interaction_Ego2TrafficSignal": ("How does the traffic light affect the ego car?",
                                               ("The ego car must stop", "The ego car may go", "It does not apply",
                                                "The ego car must turn")),
    "Relation_Interaction_Ego2Vehicle": ("How does the car ahead affect the ego car?",
                                         ("The ego car must keep its distance", "The ego car may overtake",
                                          "It does not affect the ego car", "The ego car must stop")),
    "Relation_Interaction_Other2Other": ("What is the relation between the truck and the car ahead?",
                                         ("The car follows the truck", "The truck follows the car",
                                          "They are side by side", "They are far apart")),
}  # fmt: skip
SHARED_IMAGE_EVERY = 5
"""Every fifth EN question reuses the previous question's image."""


def _jpeg(rng: random.Random) -> bytes:
    sky, road = (rng.randrange(120, 200),) * 2 + (rng.randrange(180, 255),), (rng.randrange(60, 110),) * 3
    image = Image.new("RGB", (WIDTH, HEIGHT), sky)
    draw = ImageDraw.Draw(image)
    draw.polygon([(0, HEIGHT), (WIDTH, HEIGHT), (WIDTH // 2 + 20, HEIGHT // 2), (WIDTH // 2 - 20, HEIGHT // 2)], road)
    for _ in range(rng.randrange(2, 6)):
        x, y, w = rng.randrange(0, WIDTH - 40), rng.randrange(HEIGHT // 2, HEIGHT - 20), rng.randrange(12, 40)
        draw.rectangle([x, y, x + w, y + w // 2], fill=tuple(rng.randrange(256) for _ in range(3)))
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=JPEG_QUALITY)
    return buffer.getvalue()


def _items(edition: Edition, rng: random.Random) -> list[dict[str, Any]]:
    per_l2 = 2 if edition == "en" else 1
    items: list[dict[str, Any]] = []
    image = b""
    for sub in SUBCATEGORIES[edition]:
        question, answers = QUESTIONS.get(sub.name, QUESTIONS[next(k for k in QUESTIONS if k[:12] == sub.name[:12])])
        for copy in range(per_l2):
            number = len(items)
            if number % SHARED_IMAGE_EVERY != 1 or not image:
                image = _jpeg(rng)
            shift = rng.randrange(4)
            ordered = answers[shift:] + answers[:shift]
            texts = [*ordered, E_OPTION["cn" if edition == "cn" else "en"]]
            answer = LETTERS[ordered.index(answers[0])] if number % 7 != 3 else "E"  # some items answer E
            if answer == "E":
                texts[ordered.index(answers[0])] = answers[0] + " and one motorcycle"
            text = ("（中文）" if edition == "cn" else "") + question + ("" if copy == 0 else " (second view)")
            options = [f"({LETTERS[i]}) {t}" for i, t in enumerate(texts)]
            items.append({"task": sub.task, "l2": sub.name, "number": number, "question": text, "image": image,
                          "options": options, "answer": answer})  # fmt: skip
    return items


def _image_name(edition: Edition, item: dict[str, Any]) -> str:
    digest = hashlib.sha256(item["image"]).hexdigest()[:12]
    return f"AutonomousDriving/nuScenes/demo-{edition}__CAM_FRONT__{digest}.jpg"


def _official(out: Path, edition: Edition, items: list[dict[str, Any]]) -> None:
    records = []
    for item in items:
        name = _image_name(edition, item)
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_bytes(item["image"])
        records.append({
            "Question_id": f"{item['task']}/{DOMAIN}/{item['l2']}/{item['number']:04d}",
            "Question Type": "Multiple Choice", "Image": name, "Text": item["question"],
            "Answer choices": item["options"], "Ground truth": item["answer"], "Task": item["task"],
            "Subtask": DOMAIN, "Category": item["l2"], "Dataset": "nuScenes",
        })  # fmt: skip
    other = {
        "Question_id": "perception/monitoring/vehicle_counting/0000",
        "Question Type": "Multiple Choice",
        "Image": "Monitoring/none.jpg",
        "Text": "Not a driving question.",
        "Answer choices": ["(A) x"],
        "Ground truth": "A",
        "Task": "Perception",
        "Subtask": "Monitoring",
        "Category": "vehicle_counting",
    }
    (out / OFFICIAL_JSON[edition]).write_text(json.dumps([*records, other], ensure_ascii=False, indent=1), "utf-8")


def _rows(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"index": 1000 + item["number"], "question": item["question"], "multi-choice options": item["options"],
             "answer": item["answer"], "category": f"{item['task']}/{DOMAIN}", "l2-category": item["l2"],
             "image": base64.b64encode(item["image"]).decode("ascii")} for item in items]  # fmt: skip


OTHER_ROW = {"index": 1, "question": "Not a driving question.", "multi-choice options": ["(A) x"], "answer": "A",
             "category": "Perception/Monitoring", "l2-category": "vehicle_counting", "image": "aGVsbG8="}  # fmt: skip


def _chunks(out: Path, edition: Edition, rows: list[dict[str, Any]]) -> None:
    folder = out / CHUNK_DIRS[edition]
    folder.mkdir(parents=True, exist_ok=True)
    half = len(rows) // 2
    (folder / "MME-RealWorld_0.json").write_text(json.dumps([OTHER_ROW, *rows[:half]], ensure_ascii=False), "utf-8")
    (folder / "MME-RealWorld_1.json").write_text(json.dumps(rows[half:], ensure_ascii=False), "utf-8")


def _tsv(path: Path, rows: list[dict[str, Any]]) -> None:
    columns = ("index", "image", "question", "multi-choice options", "answer", "category", "l2-category")
    lines = ["\t".join(columns)]
    for row in [OTHER_ROW, *rows]:
        cells = {**row, "multi-choice options": repr(row["multi-choice options"])}  # the Lite TSV: a list literal
        lines.append("\t".join(str(cells[c]) for c in columns))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _parquet(out: Path, edition: Edition, rows: list[dict[str, Any]]) -> bool:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        return False
    table_rows = [{**row, "bytes": row["image"]} for row in [OTHER_ROW, *rows]]
    for row in table_rows:
        del row["image"]
    folder = out / PARQUET_REPOS[edition] / "data"
    folder.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(table_rows), folder / "train-00000-of-00001.parquet", compression="zstd")
    return True


def write_demo(out: Path) -> None:
    """Write every form of the three editions under `out` (deterministic)."""
    rng = random.Random(SEED)
    for edition in EDITIONS:
        items = _items(edition, rng)
        rows = _rows(items)
        if edition in OFFICIAL_JSON:
            _official(out, edition, items)
            _chunks(out, edition, rows)
        else:
            _tsv(out / TSV_FILES["lite"][0], rows)
        _parquet(out, edition, rows)


if __name__ == "__main__":
    from drive_evals.kit import demo_dir

    write_demo(Path(sys.argv[1]) if len(sys.argv) > 1 else demo_dir("mme_realworld_ad"))
