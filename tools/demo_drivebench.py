"""The DriveBench demo (`src/drive_evals/demo/drivebench/`), in the official on-disk layout; called by make_demo.py.

Layout (`docs/DATA_PREPAER.md` of `worldbench/drivebench`): `drivebench-test.json` (a JSON array of question
records whose `image_path` lists the six cameras as `data/nuscenes/samples/CAM_*/<nuScenes file name>`),
`nuscenes/samples/CAM_*/` with the clean keyframes, `corruption/<Folder>/CAM_*/` with two corruptions (Fog and
BitError) under the same file names, and `visual_description.json` in the official repository's schema (pixel
coordinates in the 1600x900 frame) for the judge's object descriptions.

Two frames in two scenes (one Boston log, one Singapore log), 15 questions: every question template of the real
file, a perception MCQ whose gold is A (the official parser's article-"a" flaw shows on it), a planning question
naming objects in two cameras (two images, the multi-camera sentence). Images are 400x225 JPEGs (the official
inference squashes every image to 224x224 anyway), each showing its camera's name on a colour of its own.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from PIL import Image, ImageDraw

CAMERAS = ("CAM_FRONT", "CAM_FRONT_LEFT", "CAM_FRONT_RIGHT", "CAM_BACK", "CAM_BACK_LEFT", "CAM_BACK_RIGHT")
CAMERA_COLOURS = {
    "CAM_FRONT": (70, 110, 160),
    "CAM_FRONT_LEFT": (90, 140, 90),
    "CAM_FRONT_RIGHT": (150, 120, 70),
    "CAM_BACK": (130, 80, 130),
    "CAM_BACK_LEFT": (70, 140, 140),
    "CAM_BACK_RIGHT": (150, 80, 80),
}
SIZE = (400, 225)
FULL = (1600, 900)
"""The nuScenes image size the normalised object coordinates refer to."""
JPEG_QUALITY = 60
CORRUPTIONS = ("Fog", "BitError")
SEED = 35
FOG_GREY, FOG_ALPHA = (205, 205, 210), 0.6
BIT_ERROR_STRIPES = 12

PERCEPTION_VQA = (
    "What are the important objects in the current scene? Those objects will be considered for the future reasoning "
    "and driving decision."
)
PREDICTION_VQA = (
    "What object should the ego vehicle notice first when the ego vehicle is getting to the next possible location? "
    "What is the state of the object that is first noticed by the ego vehicle and what action should the ego vehicle "
    "take? What object should the ego vehicle notice second when the ego vehicle is getting to the next possible "
    "location? What is the state of the object perceived by the ego vehicle as second and what action should the ego "
    "vehicle take? What object should the ego vehicle notice third? What is the state of the object perceived by the "
    "ego vehicle as third and what action should the ego vehicle take?"
)
SAFE_ACTIONS = "In this scenario, what are safe actions to take for the ego vehicle?"
SELECT = "Please select the correct answer from the following options:"

DemoObject = tuple[str, float, float, str, str | None, str]
# (scene token, frame token, log name, timestamp, objects: id -> (camera, x px, y px, category, status, description))
FRAMES: tuple[tuple[str, str, str, int, dict[str, DemoObject]], ...] = (
    (
        "da41ecbc644b4915b84bb732e35ebf8c",
        "7e4c3282bc2a4402b5d1d6705f9eb844",
        "n008-2018-08-30-15-52-26-0400",
        1535658934012637,
        {
            "c1": ("CAM_BACK", 811.7, 520.0, "Vehicle", "Moving", "Gray sedan."),
            "c2": ("CAM_FRONT", 781.8, 493.3, "Vehicle", "Stationary", "Gray sedan."),
            "c3": ("CAM_FRONT", 969.3, 519.2, "Vehicle", "Stationary", "Black SUV."),
        },
    ),
    (
        "3a1850241080418b88dcee97c7d17ed7",
        "c2b4f6a9e1d84b37a0f5d6e2c9b81a43",
        "n015-2018-07-24-11-22-45+0800",
        1532402927612460,
        {
            "c1": ("CAM_FRONT_LEFT", 420.0, 510.0, "Pedestrian", "Moving", "Man in a red jacket."),
            "c2": ("CAM_BACK_RIGHT", 1210.0, 540.0, "Vehicle", "Moving", "White bus."),
            "c3": ("CAM_FRONT", 800.0, 480.0, "Traffic element", None, "Red traffic light."),
        },
    ),
)


def ref(objects: dict[str, DemoObject], key: str) -> str:
    """`<c1,CAM_BACK,0.5073,0.5778>`: the question's reference, coordinates normalised by 1600x900."""
    camera, x, y = objects[key][:3]
    return f"<{key},{camera},{x / FULL[0]:.4f},{y / FULL[1]:.4f}>"


def questions(frame: int) -> list[tuple[str, list[int], str, str]]:
    """(question_type, tag, question, answer) of one demo frame, in file order."""
    objects = FRAMES[frame][4]
    c1, c2, c3 = (ref(objects, key) for key in ("c1", "c2", "c3"))
    if frame == 0:
        return [
            (
                "perception",
                [2],
                PERCEPTION_VQA,
                "There is a gray sedan to the back of the ego vehicle, a gray sedan to the front of the ego vehicle, "
                f"and a black SUV to the front of the ego vehicle. The IDs of these objects are {c1}, {c2}, and {c3}.",
            ),
            (
                "perception",
                [0],
                f"What is the moving status of object {c1}? {SELECT} A. Going ahead. B. Turn left. C. Turn right.",
                "A",
            ),
            (
                "prediction",
                [3],
                PREDICTION_VQA,
                "Firstly, notice that black suv at front camera. The object is stationary, so the ego vehicle should "
                "continue ahead at the same speed. Secondly, notice that gray sedan at front camera. The object is "
                "stationary, so the ego vehicle should continue ahead at the same speed. Thirdly, notice that gray "
                "sedan at back camera. The object is moving ahead, so the ego vehicle should continue ahead at the "
                "same speed.",
            ),
            ("prediction", [0], f"Is {c1} a traffic sign or a road barrier?", "No."),
            (
                "planning",
                [1],
                f"What actions could the ego vehicle take based on {c1}? Why take this action and what's the "
                "probability?",
                "The action is to keep going at the same speed. The reason is that there is no safety issue, and the "
                "probability is high.",
            ),
            ("planning", [1], f"What actions taken by the ego vehicle can lead to a collision with {c1}?", "Back up."),
            ("planning", [1], SAFE_ACTIONS, "Keep going at the same speed, accelerate, and continue ahead."),
            (
                "behavior",
                [0],
                f"Predict the behavior of the ego vehicle. {SELECT} A. The ego vehicle is going straight. The ego "
                "vehicle is not moving. B. The ego vehicle is steering to the right. The ego vehicle is driving "
                "fast. C. The ego vehicle is slightly steering to the left. The ego vehicle is driving fast. D. The "
                "ego vehicle is steering to the left. The ego vehicle is driving with normal speed.",
                "C",
            ),
        ]
    return [
        (
            "perception",
            [2],
            PERCEPTION_VQA,
            "There is a man in a red jacket to the front left of the ego vehicle, a white bus to the back right of "
            f"the ego vehicle, and a red traffic light to the front of the ego vehicle. The IDs of these objects are "
            f"{c1}, {c2}, and {c3}.",
        ),
        (
            "perception",
            [0],
            f"What is the moving status of object {c2}? {SELECT} A. Turn left. B. Going ahead. C. Turn right.",
            "B",
        ),
        ("prediction", [0], f"Is {c1} a traffic sign or a road barrier?", "No."),
        (
            "planning",
            [1],
            f"What actions could the ego vehicle take based on {c3}? Why take this action and what's the probability?",
            "The action is to stop. The reason is that the traffic light is red, and the probability is high.",
        ),
        (
            "planning",
            [1],
            f"What actions taken by the ego vehicle can lead to a collision with {c1} and {c2}?",
            "Turn left while the pedestrian crosses, or back up into the bus.",
        ),
        ("planning", [1], SAFE_ACTIONS, "Brake gently to a stop, and wait for the light."),
        (
            "behavior",
            [0],
            f"Predict the behavior of the ego vehicle. {SELECT} A. The ego vehicle is slowing down. The ego vehicle "
            "is going straight. B. The ego vehicle is steering to the right. The ego vehicle is driving fast. C. The "
            "ego vehicle is going straight. The ego vehicle is driving fast. D. The ego vehicle is steering to the "
            "left. The ego vehicle is driving slowly.",
            "A",
        ),
    ]


def file_name(frame: int, camera: str) -> str:
    _, _, log, timestamp, _ = FRAMES[frame]
    return f"{log}__{camera}__{timestamp + 12_500 * CAMERAS.index(camera)}.jpg"


def records() -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for frame, (scene, token, _, _, _) in enumerate(FRAMES):
        paths = {camera: f"data/nuscenes/samples/{camera}/{file_name(frame, camera)}" for camera in CAMERAS}
        for question_type, tag, question, answer in questions(frame):
            out.append(
                {
                    "scene_token": scene,
                    "frame_token": token,
                    "question": question,
                    "answer": answer,
                    "tag": tag,
                    "question_type": question_type,
                    "image_path": paths,
                }
            )
    return out


def visual_description() -> dict[str, object]:
    """The official `data/visual_description.json` schema for the demo frames."""
    scenes: dict[str, object] = {}
    for scene, token, _, _, objects in FRAMES:
        infos = {
            f"<{key},{camera},{x},{y}>": {
                "Category": category,
                "Status": status,
                "Visual_description": description,
                "2d_bbox": [round(x - 60, 1), round(y - 50, 1), round(x + 60, 1), round(y + 50, 1)],
            }
            for key, (camera, x, y, category, status, description) in objects.items()
        }
        scenes[scene] = {
            "scene_description": "A synthetic demo scene.",
            "key_frames": {token: {"key_object_infos": infos}},
        }
    return scenes


def render(frame: int, camera: str) -> Image.Image:
    """The camera's colour, its name, and a box at each annotated object of this camera."""
    image = Image.new("RGB", SIZE, CAMERA_COLOURS[camera])
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, SIZE[1] * 0.6, SIZE[0], SIZE[1]), fill=(80, 80, 80))  # the road
    draw.text((8, 8), f"{camera} frame {frame + 1}", fill=(255, 255, 255))
    scale = SIZE[0] / FULL[0]
    for key, (cam, x, y, _, _, _) in FRAMES[frame][4].items():
        if cam == camera:
            box = ((x - 60) * scale, (y - 50) * scale, (x + 60) * scale, (y + 50) * scale)
            draw.rectangle(box, fill=(230, 230, 230), outline=(0, 0, 0))
            draw.text((box[0] + 4, box[1] + 4), key, fill=(0, 0, 0))
    return image


def corrupt(image: Image.Image, folder: str, rng: random.Random) -> Image.Image:
    """A recognisable stand-in for the authors' corruption (their generator is not released)."""
    if folder == "Fog":
        return Image.blend(image, Image.new("RGB", SIZE, FOG_GREY), FOG_ALPHA)
    noisy = image.copy()
    draw = ImageDraw.Draw(noisy)
    for _ in range(BIT_ERROR_STRIPES):
        top = rng.randrange(SIZE[1] - 6)
        colour = (rng.randrange(256), rng.randrange(256), rng.randrange(256))
        draw.rectangle((rng.randrange(SIZE[0] // 2), top, SIZE[0], top + rng.randrange(2, 6)), fill=colour)
    return noisy


def write_drivebench(out: Path) -> None:
    """Write the question file, the clean and corrupted images, and the visual descriptions under `out`."""
    rng = random.Random(SEED)
    for frame in range(len(FRAMES)):
        for camera in CAMERAS:
            clean = render(frame, camera)
            targets = [(out / "nuscenes" / "samples" / camera / file_name(frame, camera), clean)]
            targets += [
                (out / "corruption" / folder / camera / file_name(frame, camera), corrupt(clean, folder, rng))
                for folder in CORRUPTIONS
            ]
            for path, image in targets:
                path.parent.mkdir(parents=True, exist_ok=True)
                image.save(path, "JPEG", quality=JPEG_QUALITY, optimize=True)
    text = json.dumps(records(), indent=4, ensure_ascii=False) + "\n"
    (out / "drivebench-test.json").write_text(text, encoding="utf-8")
    described = json.dumps(visual_description(), indent=4, ensure_ascii=False) + "\n"
    (out / "visual_description.json").write_text(described, encoding="utf-8")
