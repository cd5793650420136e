"""Synthetic VLADBench demo data in the official layout: `VLADBench.tsv` at the root, loose images beside it.

The layout is VLMEvalKit's reading of the Hugging Face snapshot (`depth2world/VLADBench`): one TSV row per
question with the columns `index, image, question, answer, category1, category2, category3, dindex, dimension`,
images at `<Domain>/<Aspect>/<Task>/<file>` and frame sequences at `<Domain>/<Aspect>/<Task>/<sequence>/<frame>`
(a Python-list string in `image`). One sample (two for a few tasks) of every one of the 28 tasks, with the question
shapes of the released annotation (the wording of docs/vladbench.md's examples): option lists, box questions,
relation and speed questions asked without and then with tips, yes/no and descriptive judgement questions. One
row names its image by another row's `index`, as VLMEvalKit's TSVs may. Images are small drawings, not photographs.
"""

# ruff: noqa: E501  (question texts in the released wording, kept whole so they read as data)
from __future__ import annotations

import csv
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image, ImageDraw

WIDTH, HEIGHT = 384, 204
"""Demo image size (the released images are 1920x1020 and similar; the aspect ratio is kept)."""
FRAMES = 3
COLUMNS = ("index", "image", "question", "answer", "category1", "category2", "category3", "dindex", "dimension")
NOTE = "Note that no explantion is needed."  # sic, as in the released questions

General = tuple[str, Sequence[str], str]
"""(question stem, options, answer)."""


@dataclass
class DemoSample:
    """One same-vision sample: its questions (text, answer) and whether it is a frame sequence."""

    questions: list[tuple[str, str]]
    sequence: bool = False
    boxes: list[tuple[int, int, int, int]] = field(default_factory=list)


def options_question(stem: str, options: Sequence[str]) -> str:
    quoted = ", ".join(f"'{option}'" for option in options)
    return f"{stem} Choose the most appropriate one from the following answers: [{quoted}]. {NOTE}"


def yes_no(stem: str) -> str:
    return f"{stem} Answer 'yes' or 'no', note no explaination needed."


def general(*items: General) -> DemoSample:
    return DemoSample([(options_question(stem, options), answer) for stem, options, answer in items])


LIGHTS = ["Straight Red Light", "Straight Green Light", "Left Turn Green Light", "Straight and Left Turn Green Light"]
BOX = (221, 40, 350, 180)
SMALL_BOX = (30, 90, 90, 150)


def grounding(object_name: str, options: Sequence[str], yes_no_item: bool) -> DemoSample:
    """A box question, a box->class question and a red-box question (or a yes/no run-over question)."""
    locate = (
        f"The width and height of the image are {WIDTH} and {HEIGHT}. Where is the {object_name} located in the "
        "image? The output format should be [top-left X, top-left Y, bottom-right X, bottom-right Y]."
    )
    classify = (
        f"The width and height of the image are {WIDTH} and {HEIGHT}. What is the object located at the bounding box "
        f"[{BOX[0]}, {BOX[1]}, {BOX[2]}, {BOX[3]}] in the image? The format of the box is [top-left X, top-left Y, "
        f"bottom-right X, bottom-right Y]. Please select the appropriate one from the following phrases: "
        f"[{', '.join(repr(o) for o in options)}]. {NOTE}"
    )
    third = (
        (
            yes_no(
                f"The object within the red box in the image is {object_name}. Can the ego vehicle run over this object while driving?"
            ),
            "no",
        )
        if yes_no_item
        else (
            f"What is the object within the red box in the image? Please select the appropriate one from the "
            f"following phrases: [{', '.join(repr(o) for o in reversed(options))}]. {NOTE}",
            object_name,
        )
    )
    return DemoSample([(locate, str(list(BOX))), (classify, object_name), third], boxes=[BOX])


RELATION_INTRO = (
    "In the image, lanes are indicated by red lines, with the closest red numbers representing lane numbers. "
    "Traffic signs are depicted within blue boxes, with the nearest blue numbers indicating traffic sign numbers."
)
RELATION_TAIL = (
    "If there are no corresponding lanes, treat the lane for the traffic sign as -1. If there are multiple "
    "corresponding lanes, separate them with the '/' symbol, such as 2/3/4. Note that only answer the lane number "
    "and no expaination is needed."
)


def relation(element: str, answers: Sequence[str]) -> DemoSample:
    """Each question without tips, then the same questions with descriptive tips (the order the pairing needs)."""
    tips = f" No.0 {element} is Straight Sign, No.1 {element} is Left Turn Sign, No.0 lane is Left Turn Lane."
    plain = [
        f"{RELATION_INTRO} Analyze which lane corresponds to No.{i} {element}. {RELATION_TAIL}"
        for i in range(len(answers))
    ]
    tipped = [
        f"{RELATION_INTRO}{tips} Analyze which lane corresponds to No.{i} {element}. {RELATION_TAIL}"
        for i in range(len(answers))
    ]
    return DemoSample(list(zip(plain + tipped, [*answers, *answers], strict=True)))


def speeds(answers: Sequence[str]) -> DemoSample:
    def ask(lane: int, tip: str) -> str:
        return (
            f"In the image, lanes are indicated by blue boxes, with the closest blue numbers representing the lane "
            f"numbers.{tip} Based on the traffic signs in the image, please analyze the low-speed limit and high-speed "
            f"limit for No.{lane} Lane. The response format should be '[X,Y]', where X is the low-speed limit and Y is "
            "the high-speed limit. If there is no corresponding speed limit, mark it as 0, such as [0,80], [60,0]. For "
            "Emergency Lane, the speed limit is [0,0]. Note that no explaination needed."
        )

    plain = [ask(i, "") for i in range(len(answers))]
    tipped = [ask(i, " The sign above No.0 Lane shows 60 and 80.") for i in range(len(answers))]
    return DemoSample(list(zip(plain + tipped, [*answers, *answers], strict=True)))


def lane_change(answers: Sequence[str]) -> DemoSample:
    def ask(source: int, target: int, tip: str) -> str:
        return (
            "In the image, lanes are represented by red lines, with the closest red number indicating the lane number. "
            "Road markings are represented by blue lines, with the closest blue number indicating the marking number."
            f"{tip} Analyze the relationship of lane changes. Legally, can the vehicle in No.{source} Lane change lanes "
            f"to No.{target} Lane in the image? Choose one answer from the following list: ['True','False']. Note that "
            "no explaination needed."
        )

    pairs = [(0, 1), (1, 0)][: len(answers)]
    plain = [ask(s, t, "") for s, t in pairs]
    tipped = [ask(s, t, " No.0 marking is a dashed white line.") for s, t in pairs]
    return DemoSample(list(zip(plain + tipped, [*answers, *answers], strict=True)))


def judge(subject: str, answer: str, reasons: Sequence[str], reason: str, sequence: bool = True) -> DemoSample:
    where = (
        "Based on the given autonomous driving image sequence, at the moment of the last image,"
        if sequence
        else "Based on the image,"
    )
    return DemoSample(
        [
            (yes_no(f"{where} does the {subject} in the image have the intention to cut in?"), answer),
            (
                f"{where} the {subject} within the red box in the image has the intention to cut in. Choose the most "
                f"appropriate reason from the following phrases:[{', '.join(repr(r) for r in reasons)}]. Note no "
                "explaination needed.",
                reason,
            ),
        ],
        sequence=sequence,
    )


RISKS = [
    "There is a construction area on the left side of the roadway; the autonomous vehicle should proceed with caution and drive slowly.",
    "The road ahead is clear; the vehicle can keep its speed.",
]
"""Risk_Prediction options hold `;` (docs/vladbench.md, Fidelity: obey and `;`)."""

SAMPLES: dict[str, list[DemoSample]] = {
    "Traffic_Light": [
        general(
            (
                "In the image, the traffic lights are within the blue box.What is the state of the Arrow Light in the blue box?",
                LIGHTS,
                "Left Turn Green Light",
            ),
            (
                "What is the state of the round light in the blue box?",
                ["Red Light", "Green Light", "Yellow Light"],
                "Green Light",
            ),
        )
    ],
    "Pavement_Marking": [
        general(
            (
                "What does the marking in the blue box mean?",
                ["Straight Arrow", "Left Turn Arrow", "Straight and Left Turn Arrow"],
                "Straight and Left Turn Arrow",
            )
        )
    ],
    "Traffic_Sign": [general(("What is the sign in the blue box?", ["Speed Limit 60", "No Parking", "Stop"], "Stop"))],
    "Right_Of_Way": [
        general(
            (
                "Who has the right of way at this intersection?",
                ["Ego Vehicle", "Oncoming Vehicle", "Pedestrian"],
                "Pedestrian",
            )
        )
    ],
    "VRU_Recognition": [grounding("pedestrian", ["pedestrian", "cyclist", "motorcyclist"], yes_no_item=False)],
    "Vehicle_Recognition": [
        grounding(
            "construction vehicle",
            ["car", "truck", "bus", "construction vehicle", "sanitation vehicle"],
            yes_no_item=False,
        )
    ],
    "Vehicle_Status": [
        general(("What is the status of the vehicle in the red box?", ["Moving", "Parked", "Turning Left"], "Parked"))
    ],
    "Lane_Recognition": [
        general(
            (
                "What type of lane is the ego vehicle in?",
                ["left turn lane", "straight and left turn lane", "straight lane"],
                "straight and left turn lane",
            )
        )
    ],
    "Obstruction_Recognition": [grounding("debris", ["debris", "traffic cone", "suitcace"], yes_no_item=True)],
    "Light": [
        DemoSample(
            [
                (
                    "Based on the visual features in the image, estimate whether it is daytime, nighttime, or dawn&dusk. "
                    f"Chose an answer from the options: ['Daytime', 'dawn&dusk', 'Nighttime']. {NOTE}",
                    "daytime",
                ),
                (options_question("How bright is the scene?", ["Bright", "Dim", "Dark"]), "Bright"),
            ]
        )
    ],
    "Weather": [general(("What is the weather in the image?", ["Clear", "Rainy", "Snowy", "Foggy"], "Clear"))],
    "Sign_Sign_Relation": [relation("traffic sign", ["1", "-1"])],
    "Sign_Lane_Relation": [relation("traffic sign", ["0", "1/2"]), relation("traffic sign", ["2", "0/1"])],
    "Light_Lane_Relation": [relation("traffic light", ["1/2", "0"])],
    "Lane_Speed_Relation": [speeds(["[60,80]", "[80,100]"])],
    "Lane_Change_Relation": [lane_change(["True", "False"])],
    "VRU_Cutin": [
        judge(
            "Electric vehicle", "yes", ["Borrow Lane", "Traffic Efficiency", "Cannot Speculate"], "Traffic Efficiency"
        )
    ],
    "Vehicle_Cutin": [
        judge("white car", "yes", ["Borrow Lane", "Traffic Efficiency", "Avoid Obstacle"], "Avoid Obstacle")
    ],
    "VRU_Cross": [judge("pedestrian", "no", ["Crosswalk", "Jaywalking", "Cannot Speculate"], "Cannot Speculate")],
    "Long_Short_Parking": [
        general(
            (
                "Is the vehicle in the red box parked for a long or a short time?",
                ["Long-term Parking", "Short-term Parking"],
                "Short-term Parking",
            )
        )
    ],
    "Vehicle_Bahavior": [
        general(("What is the vehicle in the red box doing?", ["Reversing", "Overtaking", "Waiting"], "Waiting"))
    ],
    "VRU_Bahavior": [
        general(
            (
                "What is the pedestrian in the red box doing?",
                ["Crossing", "Waiting", "Walking along the road"],
                "Crossing",
            )
        )
    ],
    "Key_Obsturction_Detection": [
        DemoSample(
            [
                (
                    yes_no(
                        "In autonomous driving, a key obstacle is defined as an object that can have a direct or indirect "
                        "impact on the vehicle's ability to proceed straight or change lanes to the left or right. Based on "
                        "the image, is the cyclist within the red box key obstruction?"
                    ),
                    "yes",
                ),
                (yes_no("Based on the image, is the parked truck within the red box key obstruction?"), "no"),
            ]
        )
    ],
    "Spatial_Temporal_Reasoning": [
        DemoSample(
            [
                (
                    "In the given autonomous driving image sequence, at the moment of the final image, what is the speed "
                    "limit of the vehicle's current lane? Please choose the most appropriate answer from the following "
                    "options:['50', '70', '80', '40'], note that no explaination needed.",
                    "50",
                ),
                (
                    "In the given autonomous driving image sequence, at the moment of the final image, is the white "
                    "passenger car located to the right of our vehicle an oncoming vehicle? Answer 'yes'or'no', note that "
                    "no explaination needed.",
                    "yes",
                ),
            ],
            sequence=True,
        )
    ],
    "Risk_Prediction": [
        DemoSample(
            [
                (
                    yes_no(
                        "Based on the given sequence of images, assess whether there are any significant potential risks "
                        "present in the environment if the vehicle proceeds straight or changes lanes to the left or right."
                    ),
                    "yes",
                ),
                (
                    "Based on the given sequence of images, what is the main risk? Choose the most appropriate one from "
                    f"the following phrases: [{', '.join(repr(r) for r in RISKS)}]. Note no explaination needed.",
                    RISKS[0],
                ),
            ],
            sequence=True,
        )
    ],
    "Drive_Efficiency": [
        general(
            (
                "How should the ego vehicle improve its efficiency?",
                ["Change to the left lane", "Keep the lane", "Stop"],
                "Keep the lane",
            )
        )
    ],
    "Longitudinal": [
        DemoSample(
            [
                (
                    "Based on the given sequence of autonomous driving vehicle, the current environment is the road ahead "
                    "is clear, ego vehicle completes a left turn, enters the straight lane. Based on the assessment of "
                    "driving risk and traffic efficiency, what longitudinal decision should the vehicle make at this "
                    "moment? Select the appropriate answer from the following phrases: ['Accelerate', 'Stop', "
                    "'Decelerate', 'Decelerate to stop', 'Maintain speed']. No explantion needed.",
                    "Accelerate",
                )
            ],
            sequence=True,
        )
    ],
    "Lateral": [
        general(
            (
                "What lateral decision should the ego vehicle make?",
                ["Keep Lane", "Change Left", "Change Right"],
                "Keep Lane",
            )
        )
    ],
}

TAXONOMY = {
    "Traffic_Knowledge_Understanding": {
        "Road_Traffic_Signals": ["Traffic_Light", "Pavement_Marking", "Traffic_Sign"],
        "Road_Passage_Provisions": ["Right_Of_Way"],
    },
    "General_Element_Recognition": {
        "Foreground": [
            "VRU_Recognition",
            "Vehicle_Recognition",
            "Vehicle_Status",
            "Lane_Recognition",
            "Obstruction_Recognition",
        ],
        "Background": ["Light", "Weather"],
    },
    "Traffic_Graph_Generation": {
        "Signal_Element_Relation": ["Sign_Sign_Relation", "Sign_Lane_Relation", "Light_Lane_Relation"],
        "Lane_Element_Relation": ["Lane_Speed_Relation", "Lane_Change_Relation"],
    },
    "Target_Attribute_Comprehension": {
        "Intention_Judgment": ["VRU_Cutin", "Vehicle_Cutin", "VRU_Cross", "Long_Short_Parking"],
        "Behavior_Understanding": ["Vehicle_Bahavior", "VRU_Bahavior"],
    },
    "Ego_Decision_Planning": {
        "Ego_Action_Reasoning": [
            "Key_Obsturction_Detection",
            "Spatial_Temporal_Reasoning",
            "Risk_Prediction",
            "Drive_Efficiency",
        ],
        "Meta_Action_Decision": ["Longitudinal", "Lateral"],
    },
}
"""The official taxonomy (written out here so the generator does not import the package it feeds)."""


def render(rng: random.Random, boxes: Sequence[tuple[int, int, int, int]], frame: int = 0) -> Image.Image:
    """A road scene sketch: sky, road, lane lines, and a few coloured blocks (shifted per frame)."""
    image = Image.new("RGB", (WIDTH, HEIGHT), (rng.randrange(120, 200), rng.randrange(150, 210), 235))
    draw = ImageDraw.Draw(image)
    draw.polygon(
        [(0, HEIGHT), (WIDTH, HEIGHT), (WIDTH // 2 + 30, HEIGHT // 2), (WIDTH // 2 - 30, HEIGHT // 2)],
        fill=(80, 80, 85),
    )
    for x in (WIDTH // 2 - 60, WIDTH // 2 + 60):
        draw.line([(WIDTH // 2, HEIGHT // 2), (x * 2 - WIDTH // 2, HEIGHT)], fill=(240, 240, 240), width=2)
    for box in boxes or [SMALL_BOX]:
        shifted = (box[0] + 6 * frame, box[1], box[2] + 6 * frame, box[3])
        draw.rectangle(shifted, fill=tuple(rng.randrange(30, 230) for _ in range(3)), outline=(220, 20, 20), width=2)
    return image


COUNTRY = "China"


def annotation_sample(
    task: str, dindex: int, sample: DemoSample, names: Sequence[str], folder: str
) -> dict[str, object]:
    """The sample as the authors' `<Task>_E.json` holds it: `selector;question`, references (boxes as lists)."""
    if sample.sequence:
        selector, files = "[image_path]", [name.rsplit("/", 1)[1] for name in names]
        extra: dict[str, object] = {"image_path": files, "sequence": names[0][len(folder) + 1 :].split("/")[0]}
    else:
        selector, extra = names[0].rsplit("/", 1)[1], {"image_path": names[0].rsplit("/", 1)[1]}
    references: list[object] = [
        json.loads(a) if a.startswith("[") and "," in a and task.endswith("Recognition") else a
        for _, a in sample.questions
    ]
    return {
        **extra,
        "questions": [f"{selector};{question}" for question, _ in sample.questions],
        "reference": references,
        **({"dimension": [float(WIDTH), float(HEIGHT)]} if sample.boxes else {}),
        "venue": "demo",
        "country": COUNTRY,
        "id": f"{task}_{dindex}",
    }


def write_vladbench(out: Path) -> None:
    """Write the TSV, the per-task annotation JSON and the images under `out` (the `data=demo` folder)."""
    rows: list[dict[str, str]] = []
    for domain, aspects in TAXONOMY.items():
        for aspect, tasks in aspects.items():
            for task in tasks:
                folder = f"{domain}/{aspect}/{task}"
                annotations = []
                for dindex, sample in enumerate(SAMPLES[task]):
                    rng = random.Random(f"{task}/{dindex}")
                    if sample.sequence:
                        sequence = f"demo_sequence_{dindex:04d}"
                        names = [f"{folder}/{sequence}/frame_{frame:02d}.jpg" for frame in range(FRAMES)]
                        for frame, name in enumerate(names):
                            _save(render(rng, sample.boxes, frame), out / name)
                        cell = repr(names)
                    else:
                        cell = f"{folder}/demo_{task.lower()}_{dindex:04d}_front_camera.jpg"
                        names = [cell]
                        _save(render(rng, sample.boxes), out / cell)
                    annotations.append(annotation_sample(task, dindex, sample, names, folder))
                    first_row = str(len(rows))
                    for number, (question, answer) in enumerate(sample.questions):
                        # The second question of a single-image sample names the first row's index instead of the
                        # path, as VLMEvalKit's TSVs may (`ImageBaseDataset`); once, on the first such sample.
                        reference = number == 1 and not sample.sequence and task == "Traffic_Light"
                        rows.append(
                            {
                                "index": str(len(rows)),
                                "image": first_row if reference else cell,
                                "question": question,
                                "answer": answer,
                                "category1": domain,
                                "category2": aspect,
                                "category3": task,
                                "dindex": str(dindex),
                                "dimension": f"[{float(WIDTH)}, {float(HEIGHT)}]",
                            }
                        )
                text = json.dumps(annotations, ensure_ascii=False, indent=4)
                (out / f"{folder}_E.json").write_text(text + "\n", encoding="utf-8")
    out.mkdir(parents=True, exist_ok=True)
    with (out / "VLADBench.tsv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, delimiter="\t", lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def _save(image: Image.Image, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path, format="JPEG", quality=70)
