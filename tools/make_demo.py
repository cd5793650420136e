"""Generate the synthetic demo datasets in `src/drive_evals/demo/`, in the official on-disk formats.

Why: tests, CI and first-time users need data that is laid out exactly like the real SURDS snapshot
(`bonbon-rj/SURDS_eval`) and the real DriveLMM-o1 test file plus nuScenes keyframes, without network access,
registration or the nuScenes licence. Every image, point cloud and text here is synthetic and drawn by this script.

Run `python tools/make_demo.py [--out DIR]`. The output is deterministic: scene content is written out in the tables
below and every random choice comes from the fixed seeds `BACKGROUND_SEED` and `LIDAR_SEED`.

SURDS (`surds/validation/`): 33 images over six cameras; 10 records with 2 or 3 objects give P = 16 object pairs and
23 single-object records feed the yaw, xy2d and depth tasks. Objects are placed by their image column and depth;
`xyz3Ds`, `xy2Ds` and `bboxes2D` come from a pinhole camera (focal 1266 px, centre (800, 450), mounted 1.5 m above a
flat ground) and each object is drawn filling its box, so the metadata agrees with the picture. Yaw convention: the
heading measured from the camera's forward axis towards its right (clockwise seen from above), in radians in
(-pi, pi]; `yaw_descs` is its compass sector with the camera facing North (0 = North, pi/2 = East). The table covers
the protocol's edge cases: pairs with and without `Almost the same` distance (|diff| <= 1), left/right
(|x diff| < 100, one pair at exactly 100) and front/behind (|depth diff| < 0.5, one pair at exactly 0.5); depths
below 7, between 7 and 15 and above 15 m (one at 3.4 m, where the gold depth range's lower bound is clamped to 1);
diagonal and cardinal yaw labels; descriptions with capitals; boxes clipped at the image border, as nuScenes boxes
are; objects hidden in part behind nearer ones.

DriveLMM-o1 (`drivelmm_o1/`): `DriveLMMo1_TEST.json` with 24 records over 3 frames (3 nuScenes logs), and a
nuScenes root `nuscenes/samples/` with six 1600x900 JPEG keyframes and one LIDAR_TOP `.pcd.bin` per frame. Each
camera image carries its name in the top-left corner, a border and a 200x200 centre patch in its colour from
`CAMERA_COLOURS`, so a test can tell which camera landed in which grid cell. Questions 2, 3, 4, 5 and 8 are
multiple-choice by the official number rule. The one record where the question text and the number rule disagree
is `DISAGREEMENT_IDX` (`bc61c4eaa2962626a39655f0de6e07cb_2e606e8dc2174f9231d0beeb5ec0fa4c_8`, frame 3,
question 8: a free-text question and answer under a multiple-choice number).

DriveBench (`drivebench/`): written by `demo_drivebench.py` beside this script; its docstring describes it.
"""

import argparse
import hashlib
import json
import math
import random
import shutil
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from drive_evals._registry import BENCHMARKS

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the per-benchmark generators beside this file
from demo_drivebench import write_drivebench
from demo_vladbench import write_vladbench

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO_ROOT / "src" / "drive_evals" / "demo"

BACKGROUND_SEED = 2024
LIDAR_SEED = 7

IMAGE_W, IMAGE_H = 1600, 900
FOCAL_PX = 1266.0
CX, CY = 800.0, 450.0
CAMERA_HEIGHT_M = 1.5
MIN_CORNER_DEPTH_M = 0.5
WEBP_QUALITY = 70
JPEG_QUALITY = 60
# A slight blur: drawn edges look less synthetic (like a camera lens) and the files get about 20% smaller.
SOFTEN_RADIUS_PX = 1.0

RGB = tuple[int, int, int]
Box = tuple[float, float, float, float]
Point = tuple[float, float]
Vec3 = tuple[float, float, float]

# Object sizes (width, length, height) in metres, as typical nuScenes boxes of each category.
CATEGORY_DIMS: dict[str, Vec3] = {
    "vehicle.car": (1.9, 4.6, 1.6),
    "vehicle.truck": (2.5, 7.5, 3.2),
    "vehicle.bus.rigid": (2.9, 11.0, 3.4),
    "vehicle.motorcycle": (0.8, 2.1, 1.5),
    "human.pedestrian.adult": (0.7, 0.7, 1.75),
    "human.pedestrian.child": (0.5, 0.5, 1.2),
    "movable_object.trafficcone": (0.4, 0.4, 0.7),
    "movable_object.barrier": (2.0, 0.5, 1.0),
}

PALETTE: dict[str, RGB] = {
    "white": (236, 236, 232),
    "black": (28, 28, 32),
    "silver": (178, 182, 188),
    "grey": (112, 116, 122),
    "red": (192, 32, 36),
    "blue": (36, 72, 176),
    "green": (40, 132, 64),
    "yellow": (238, 196, 28),
    "orange": (242, 118, 20),
    "brown": (116, 74, 42),
    "pink": (236, 128, 170),
    "purple": (118, 58, 150),
}

SKIES: tuple[tuple[RGB, RGB], ...] = (((96, 150, 214), (196, 218, 238)), ((150, 160, 172), (212, 216, 220)))
ROAD_RGB: RGB = (78, 80, 84)
SIDEWALK_RGB: RGB = (152, 150, 142)
MARKING_RGB: RGB = (232, 232, 224)
SKYLINE_RGB: tuple[RGB, ...] = ((150, 156, 166), (134, 140, 152), (164, 166, 170))
FACADE_RGB: tuple[RGB, ...] = ((196, 172, 140), (168, 92, 70), (206, 200, 186), (140, 146, 156), (226, 214, 180))
WINDOW_RGB: RGB = (52, 64, 82)
GLASS_RGB: RGB = (60, 78, 98)
TYRE_RGB: RGB = (22, 22, 24)
SKIN_RGB: RGB = (214, 168, 132)
TROUSERS_RGB: RGB = (48, 50, 70)

ROAD_HALF_WIDTH_M = 7.0
LANE_WIDTH_M = 3.5
FACADE_OFFSET_M = 14.0
FAR_Z_M = 400.0
NEAR_Z_M = 0.5
# Windows (along the facade, up) only on near buildings: far, dense windows cost many bytes and are barely visible.
WINDOW_MAX_Z_M = 25.0
WINDOW_PITCH_M = (3.5, 4.0)
WINDOW_SIZE_M = (1.8, 2.0)
WINDOW_SILL_M = 1.2

YAW_LABELS = ("North", "Northeast", "East", "Southeast", "South", "Southwest", "West", "Northwest")
SECTOR_DEG = 45.0
MIN_SECTOR_MARGIN_DEG = 5.0


# ---------------------------------------------------------------------------------------------------------------
# Geometry and drawing shared by both datasets
# ---------------------------------------------------------------------------------------------------------------


def project(p: Vec3) -> Point:
    """Pinhole projection of a camera-frame point (x right, y down, z forward) to pixels."""
    x, y, z = p
    return CX + FOCAL_PX * x / z, CY + FOCAL_PX * y / z


def box_corners(centre: Vec3, dims: Vec3, yaw: float) -> list[Vec3]:
    """Corners of an upright 3D box whose length axis points along `yaw` (clockwise from camera forward)."""
    width, length, height = dims
    fx, fz = math.sin(yaw), math.cos(yaw)
    cx, cy, cz = centre
    return [
        (cx + a * fx + b * fz, cy + c, cz + a * fz - b * fx)
        for a in (-length / 2, length / 2)
        for b in (-width / 2, width / 2)
        for c in (-height / 2, height / 2)
    ]


def projected_box(centre: Vec3, dims: Vec3, yaw: float) -> Box | None:
    """Image box of the projected 3D box, or None when part of the box is behind the camera."""
    corners = box_corners(centre, dims, yaw)
    if min(c[2] for c in corners) < MIN_CORNER_DEPTH_M:
        return None
    points = [project(c) for c in corners]
    us, vs = [p[0] for p in points], [p[1] for p in points]
    return min(us), min(vs), max(us), max(vs)


def ground_point(x: float, z: float, height: float = 0.0) -> Point:
    """Pixel of a point `height` metres above the ground plane."""
    return project((x, CAMERA_HEIGHT_M - height, z))


def vertical_quad(x: float, z0: float, z1: float, h0: float, h1: float) -> list[Point]:
    """A wall patch in the plane x = const, parallel to the road, between depths z0..z1 and heights h0..h1."""
    return [ground_point(x, z0, h0), ground_point(x, z1, h0), ground_point(x, z1, h1), ground_point(x, z0, h1)]


def ground_quad(x0: float, x1: float, z0: float, z1: float) -> list[Point]:
    """A flat patch of the ground plane."""
    return [ground_point(x0, z0), ground_point(x1, z0), ground_point(x1, z1), ground_point(x0, z1)]


def draw_street(rng: random.Random) -> Image.Image:
    """A plausible street seen by a level camera: sky, skyline, facades with windows, road and lane markings."""
    image = Image.new("RGB", (IMAGE_W, IMAGE_H), SIDEWALK_RGB)
    draw = ImageDraw.Draw(image)
    top, horizon = rng.choice(SKIES)
    for row in range(int(CY) + 1):
        t = row / CY
        draw.line(
            [(0, row), (IMAGE_W, row)], fill=tuple(round(a + (b - a) * t) for a, b in zip(top, horizon, strict=True))
        )
    x = 0.0
    while x < IMAGE_W:
        width, height = rng.uniform(40, 140), rng.uniform(15, 80)
        draw.rectangle([x, CY - height, x + width, CY + 2], fill=rng.choice(SKYLINE_RGB))
        x += width
    shift = rng.choice((-LANE_WIDTH_M / 2, 0.0, LANE_WIDTH_M / 2))
    draw.polygon(ground_quad(shift - ROAD_HALF_WIDTH_M, shift + ROAD_HALF_WIDTH_M, NEAR_Z_M, FAR_Z_M), ROAD_RGB)
    for side in (-1, 1):
        facade_x = shift + side * FACADE_OFFSET_M
        buildings = []
        z = rng.uniform(3.0, 8.0)
        while z < 110.0:
            length = rng.uniform(8.0, 20.0)
            if rng.random() > 0.15:
                buildings.append((z, z + length, rng.uniform(6.0, 24.0), rng.choice(FACADE_RGB)))
            z += length
        for z0, z1, height, colour in reversed(buildings):
            draw.polygon(vertical_quad(facade_x, z0, z1, 0.0, height), colour)
            if z0 < WINDOW_MAX_Z_M:
                (pitch_z, pitch_h), (size_z, size_h) = WINDOW_PITCH_M, WINDOW_SIZE_M
                for floor in range(int((height - WINDOW_SILL_M - size_h) / pitch_h) + 1):
                    h0 = WINDOW_SILL_M + floor * pitch_h
                    for col in range(int((z1 - z0) / pitch_z)):
                        za = z0 + (pitch_z - size_z) / 2 + col * pitch_z
                        draw.polygon(vertical_quad(facade_x, za, za + size_z, h0, h0 + size_h), WINDOW_RGB)
    for edge in (-1, 1):
        lx = shift + edge * (ROAD_HALF_WIDTH_M - 0.3)
        draw.polygon(ground_quad(lx - 0.08, lx + 0.08, NEAR_Z_M, FAR_Z_M), MARKING_RGB)
    draw.polygon(ground_quad(shift - 0.08, shift + 0.08, NEAR_Z_M, FAR_Z_M), PALETTE["yellow"])
    for lane in (-1, 1):
        lx = shift + lane * LANE_WIDTH_M
        for dash in range(12):
            z0 = 2.0 + dash * 9.0
            draw.polygon(ground_quad(lx - 0.08, lx + 0.08, z0, z0 + 3.0), MARKING_RGB)
    return image


def _at(box: Box, fx: float, fy: float) -> Point:
    """The point at fractions (fx, fy) of a box."""
    x0, y0, x1, y1 = box
    return x0 + fx * (x1 - x0), y0 + fy * (y1 - y0)


def _rect(box: Box, fx0: float, fy0: float, fx1: float, fy1: float) -> list[Point]:
    """A sub-rectangle of a box, in fractions of the box."""
    return [_at(box, fx0, fy0), _at(box, fx1, fy1)]


def _wheels(draw: ImageDraw.ImageDraw, box: Box, centres: Sequence[float], size: float) -> None:
    """Tyres along the bottom of a vehicle box (centres and size in fractions of its width)."""
    x0, _, x1, y1 = box
    radius = min(size * (x1 - x0), 0.16 * (y1 - box[1]))
    for fx in centres:
        cx = x0 + fx * (x1 - x0)
        draw.ellipse([cx - radius, y1 - 2 * radius, cx + radius, y1], fill=TYRE_RGB)


def draw_car(draw: ImageDraw.ImageDraw, box: Box, colour: RGB) -> None:
    """Car: body, cabin with glass, lights, two wheels."""
    draw.polygon([_at(box, 0.18, 0.42), _at(box, 0.27, 0.0), _at(box, 0.73, 0.0), _at(box, 0.82, 0.42)], colour)
    draw.polygon([_at(box, 0.24, 0.4), _at(box, 0.3, 0.08), _at(box, 0.7, 0.08), _at(box, 0.76, 0.4)], GLASS_RGB)
    draw.rectangle(_rect(box, 0.0, 0.38, 1.0, 0.88), fill=colour)
    draw.rectangle(_rect(box, 0.03, 0.48, 0.13, 0.58), fill=PALETTE["red"])
    draw.rectangle(_rect(box, 0.87, 0.48, 0.97, 0.58), fill=PALETTE["red"])
    _wheels(draw, box, (0.17, 0.83), 0.1)


def draw_truck(draw: ImageDraw.ImageDraw, box: Box, colour: RGB) -> None:
    """Truck: tall cargo box, a cab with a windscreen, wheels."""
    draw.rectangle(_rect(box, 0.0, 0.0, 1.0, 0.84), fill=colour)
    draw.rectangle(_rect(box, 0.08, 0.06, 0.92, 0.3), fill=GLASS_RGB)
    draw.rectangle(_rect(box, 0.0, 0.62, 1.0, 0.66), fill=TYRE_RGB)
    _wheels(draw, box, (0.15, 0.85), 0.11)


def draw_bus(draw: ImageDraw.ImageDraw, box: Box, colour: RGB) -> None:
    """Bus: long body with a band of windows split by pillars, wheels."""
    draw.rectangle(_rect(box, 0.0, 0.0, 1.0, 0.9), fill=colour)
    draw.rectangle(_rect(box, 0.04, 0.12, 0.96, 0.46), fill=GLASS_RGB)
    for k in range(1, 6):
        draw.rectangle(_rect(box, k / 6 - 0.01, 0.12, k / 6 + 0.01, 0.46), fill=colour)
    _wheels(draw, box, (0.14, 0.86), 0.08)


def draw_motorcycle(draw: ImageDraw.ImageDraw, box: Box, colour: RGB) -> None:
    """Motorcycle with its rider: two wheels, body, rider in a dark jacket and helmet."""
    draw.polygon([_at(box, 0.2, 0.7), _at(box, 0.35, 0.5), _at(box, 0.8, 0.52), _at(box, 0.75, 0.78)], colour)
    draw.rectangle(_rect(box, 0.38, 0.16, 0.64, 0.55), fill=TROUSERS_RGB)
    draw.ellipse(_rect(box, 0.4, 0.0, 0.62, 0.18), fill=colour)
    x0, y0, x1, y1 = box
    radius = min(0.22 * (x1 - x0), 0.18 * (y1 - y0))
    for fx in (0.22, 0.78):
        cx = x0 + fx * (x1 - x0)
        draw.ellipse([cx - radius, y1 - 2 * radius, cx + radius, y1], fill=TYRE_RGB)


def draw_person(draw: ImageDraw.ImageDraw, box: Box, colour: RGB) -> None:
    """Pedestrian: head, torso and arms in the clothes colour, dark trousers."""
    draw.ellipse(_rect(box, 0.32, 0.0, 0.68, 0.14), fill=SKIN_RGB)
    draw.rectangle(_rect(box, 0.2, 0.14, 0.8, 0.56), fill=colour)
    draw.rectangle(_rect(box, 0.06, 0.16, 0.2, 0.5), fill=colour)
    draw.rectangle(_rect(box, 0.8, 0.16, 0.94, 0.5), fill=colour)
    draw.rectangle(_rect(box, 0.24, 0.56, 0.47, 1.0), fill=TROUSERS_RGB)
    draw.rectangle(_rect(box, 0.53, 0.56, 0.76, 1.0), fill=TROUSERS_RGB)


def draw_cone(draw: ImageDraw.ImageDraw, box: Box, colour: RGB) -> None:
    """Traffic cone: base, body, white reflective band."""
    draw.polygon([_at(box, 0.08, 0.9), _at(box, 0.42, 0.0), _at(box, 0.58, 0.0), _at(box, 0.92, 0.9)], colour)
    draw.polygon([_at(box, 0.25, 0.45), _at(box, 0.33, 0.25), _at(box, 0.67, 0.25), _at(box, 0.75, 0.45)], "white")
    draw.rectangle(_rect(box, 0.0, 0.88, 1.0, 1.0), fill=colour)


def draw_barrier(draw: ImageDraw.ImageDraw, box: Box, colour: RGB) -> None:
    """Barrier: a striped panel on two legs."""
    for k in range(6):
        draw.rectangle(_rect(box, k / 6, 0.0, (k + 1) / 6, 0.55), fill=colour if k % 2 == 0 else "white")
    draw.rectangle(_rect(box, 0.1, 0.55, 0.22, 1.0), fill=TYRE_RGB)
    draw.rectangle(_rect(box, 0.78, 0.55, 0.9, 1.0), fill=TYRE_RGB)


SHAPES: dict[str, Callable[[ImageDraw.ImageDraw, Box, RGB], None]] = {
    "vehicle.car": draw_car,
    "vehicle.truck": draw_truck,
    "vehicle.bus.rigid": draw_bus,
    "vehicle.motorcycle": draw_motorcycle,
    "human.pedestrian.adult": draw_person,
    "human.pedestrian.child": draw_person,
    "movable_object.trafficcone": draw_cone,
    "movable_object.barrier": draw_barrier,
}


def keyed_rng(*key: object) -> random.Random:
    """A generator seeded from a readable key, so one image can be re-rendered alone (tests do)."""
    return random.Random(":".join(str(k) for k in (BACKGROUND_SEED, *key)))


# ---------------------------------------------------------------------------------------------------------------
# SURDS
# ---------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SurdsObject:
    """One annotated object, placed by the image column of its centre and its depth."""

    desc: str
    category: str
    colour: str
    u: int
    depth: float
    yaw_deg: float


@dataclass(frozen=True)
class SurdsImage:
    """One SURDS image (one metadata line)."""

    number: int
    camera: str
    objects: tuple[SurdsObject, ...]

    @property
    def stem(self) -> str:
        return f"nuscenes_{self.number:04d}_{self.camera}"

    @property
    def file_name(self) -> str:
        return f"image/{self.camera}/{self.stem}.webp"


Obj = SurdsObject
ADULT, CHILD = "human.pedestrian.adult", "human.pedestrian.child"
CAR, TRUCK, BUS, MOTO = "vehicle.car", "vehicle.truck", "vehicle.bus.rigid", "vehicle.motorcycle"
CONE, BARRIER = "movable_object.trafficcone", "movable_object.barrier"

# Line order: by image number. A plain sort by file_name (camera folder first) gives another order, as on the real
# file, so the protocol's two record orders select different images.
SURDS_IMAGES: tuple[SurdsImage, ...] = (
    SurdsImage(
        1,
        "CAM_FRONT",
        (Obj("white car", CAR, "white", 620, 14.0, 2), Obj("adult wearing blue clothes", ADULT, "blue", 1180, 9.3, 95)),
    ),
    SurdsImage(1, "CAM_BACK", (Obj("silver car", CAR, "silver", 900, 12.5, 178),)),
    SurdsImage(2, "CAM_FRONT_LEFT", (Obj("adult wearing black clothes", ADULT, "black", 420, 6.2, -88),)),
    SurdsImage(
        2,
        "CAM_FRONT_RIGHT",
        (
            Obj("black SUV", CAR, "black", 500, 18.0, -140),
            Obj("adult wearing red clothes", ADULT, "red", 560, 11.0, 40),
        ),
    ),
    SurdsImage(3, "CAM_FRONT", (Obj("White VW van", CAR, "white", 760, 24.0, 50),)),
    SurdsImage(
        3,
        "CAM_BACK",
        (
            Obj("silver car", CAR, "silver", 400, 20.0, 180),
            Obj("red truck", TRUCK, "red", 1150, 20.3, 3),
            Obj("child wearing yellow clothes", CHILD, "yellow", 820, 8.0, -60),
        ),
    ),
    SurdsImage(3, "CAM_BACK_LEFT", (Obj("orange traffic cone", CONE, "orange", 1000, 5.5, 0),)),
    SurdsImage(4, "CAM_FRONT", (Obj("blue bus", BUS, "blue", 700, 32.0, -178),)),
    SurdsImage(
        4,
        "CAM_FRONT_LEFT",
        (Obj("grey car", CAR, "grey", 300, 9.0, 87), Obj("white truck", TRUCK, "white", 1150, 9.4, 178)),
    ),
    SurdsImage(4, "CAM_BACK_RIGHT", (Obj("adult wearing green clothes", ADULT, "green", 1300, 4.5, 170),)),
    SurdsImage(5, "CAM_FRONT", (Obj("red car", CAR, "red", 560, 10.5, -3),)),
    SurdsImage(
        5,
        "CAM_BACK",
        (
            Obj("black car", CAR, "black", 700, 16.0, 1),
            Obj("adult wearing white clothes", ADULT, "white", 800, 12.0, -95),
        ),
    ),
    SurdsImage(
        6, "CAM_FRONT", (Obj("white car", CAR, "white", 450, 12.0, -1), Obj("silver car", CAR, "silver", 1150, 12.5, 1))
    ),
    SurdsImage(6, "CAM_FRONT_RIGHT", (Obj("black motorcycle", MOTO, "black", 980, 8.2, 135),)),
    SurdsImage(7, "CAM_FRONT_LEFT", (Obj("adult wearing grey clothes", ADULT, "grey", 1100, 15.6, -45),)),
    SurdsImage(
        7,
        "CAM_BACK_RIGHT",
        (
            Obj("Red Toyota hatchback", CAR, "red", 300, 20.0, 0),
            Obj("adult wearing orange clothes", ADULT, "orange", 380, 7.5, -135),
            Obj("blue car", CAR, "blue", 1200, 25.0, 180),
        ),
    ),
    SurdsImage(7, "CAM_BACK_LEFT", (Obj("red and white barrier", BARRIER, "red", 600, 7.2, 90),)),
    SurdsImage(8, "CAM_FRONT", (Obj("green car", CAR, "green", 850, 40.0, 10),)),
    SurdsImage(8, "CAM_BACK", (Obj("child wearing pink clothes", CHILD, "pink", 300, 6.8, 100),)),
    SurdsImage(9, "CAM_FRONT", (Obj("adult wearing brown clothes", ADULT, "brown", 700, 13.3, -92),)),
    SurdsImage(
        9,
        "CAM_FRONT_RIGHT",
        (Obj("white bus", BUS, "white", 500, 28.0, 0), Obj("grey car", CAR, "grey", 1300, 27.6, 180)),
    ),
    SurdsImage(10, "CAM_FRONT_LEFT", (Obj("silver car", CAR, "silver", 900, 21.0, 135),)),
    SurdsImage(
        10,
        "CAM_BACK",
        (
            Obj("orange traffic cone", CONE, "orange", 500, 6.0, 0),
            Obj("adult wearing purple clothes", ADULT, "purple", 1050, 6.4, 80),
        ),
    ),
    SurdsImage(11, "CAM_FRONT", (Obj("black truck", TRUCK, "black", 1050, 19.0, -178),)),
    SurdsImage(11, "CAM_BACK_LEFT", (Obj("white car", CAR, "white", 250, 11.2, -130),)),
    SurdsImage(
        12,
        "CAM_FRONT",
        (
            Obj("child wearing green clothes", CHILD, "green", 700, 9.0, 0),
            Obj("black motorcycle", MOTO, "black", 760, 17.0, 0),
            Obj("adult wearing brown clothes", ADULT, "brown", 1350, 8.8, -90),
        ),
    ),
    SurdsImage(12, "CAM_FRONT_RIGHT", (Obj("adult wearing yellow clothes", ADULT, "yellow", 1450, 9.8, 0),)),
    SurdsImage(13, "CAM_FRONT_LEFT", (Obj("red car", CAR, "red", 1200, 8.6, 50),)),
    SurdsImage(13, "CAM_BACK", (Obj("grey truck", TRUCK, "grey", 820, 35.0, 0),)),
    SurdsImage(14, "CAM_FRONT", (Obj("adult wearing red clothes", ADULT, "red", 600, 3.4, 135),)),
    SurdsImage(15, "CAM_FRONT_RIGHT", (Obj("yellow taxi", CAR, "yellow", 800, 17.5, -95),)),
    SurdsImage(16, "CAM_FRONT", (Obj("silver car", CAR, "silver", 650, 5.9, 0),)),
    SurdsImage(16, "CAM_BACK", (Obj("adult wearing white clothes", ADULT, "white", 950, 12.2, 60),)),
)


def wrap_degrees(angle: float) -> float:
    """An angle in (-180, 180], without a negative zero (it would be written as -0.0)."""
    return -((180.0 - angle) % 360.0 - 180.0) + 0.0


def yaw_label(yaw: float) -> str:
    """Compass sector of a heading (0 = North = camera forward, clockwise)."""
    return YAW_LABELS[round(math.degrees(yaw) / SECTOR_DEG) % len(YAW_LABELS)]


def surds_object_geometry(obj: SurdsObject) -> tuple[Vec3, Box]:
    """Camera-frame centre (rounded as stored) and the unclipped image box of an object standing on the ground."""
    dims = CATEGORY_DIMS[obj.category]
    x = round((obj.u - CX) * obj.depth / FOCAL_PX, 3)
    centre = (x, round(CAMERA_HEIGHT_M - dims[2] / 2, 3), obj.depth)
    box = projected_box(centre, dims, math.radians(obj.yaw_deg))
    if box is None:
        raise ValueError(f"{obj.desc}: too close, part of its box is behind the camera")
    return centre, box


def clip_box(box: Box) -> Box:
    """An image box clipped to the image, as nuScenes-derived boxes are."""
    x0, y0, x1, y1 = box
    return max(0.0, x0), max(0.0, y0), min(IMAGE_W - 1.0, x1), min(IMAGE_H - 1.0, y1)


def surds_record(image: SurdsImage) -> dict[str, object]:
    """The metadata line of one image, with the fields in the official order."""
    record: dict[str, list[object]] = {
        k: []
        for k in ("descs", "xy2Ds", "xyz3Ds", "bboxes2D", "categories", "yaws", "yaw_descs", "depths", "distances")
    }
    for obj in image.objects:
        offset = (obj.yaw_deg + SECTOR_DEG / 2) % SECTOR_DEG
        if min(offset, SECTOR_DEG - offset) < MIN_SECTOR_MARGIN_DEG:
            raise ValueError(f"{obj.desc}: yaw {obj.yaw_deg} is too close to a sector boundary")
        centre, box = surds_object_geometry(obj)
        u, v = project(centre)
        xy = [round(u), round(v)]
        if not (0 <= xy[0] < IMAGE_W and 0 <= xy[1] < IMAGE_H):
            raise ValueError(f"{obj.desc}: centre {xy} is outside the image")
        yaw = round(math.radians(wrap_degrees(obj.yaw_deg)), 4)
        record["descs"].append(obj.desc)
        record["xy2Ds"].append(xy)
        record["xyz3Ds"].append(list(centre))
        record["bboxes2D"].append([round(c, 1) for c in clip_box(box)])
        record["categories"].append(obj.category)
        record["yaws"].append(yaw)
        record["yaw_descs"].append(yaw_label(yaw))
        record["depths"].append(centre[2])
        record["distances"].append(round(math.dist((0.0, 0.0, 0.0), centre), 3))
    return {"file_name": image.file_name, **record}


def surds_background(image: SurdsImage) -> Image.Image:
    """The street an image's objects are drawn on (tests compare the object boxes against it)."""
    return draw_street(keyed_rng("surds", image.stem))


def render_surds_image(image: SurdsImage) -> Image.Image:
    """Background plus objects, far to near so nearer objects cover farther ones."""
    canvas = surds_background(image)
    draw = ImageDraw.Draw(canvas)
    for obj in sorted(image.objects, key=lambda o: -o.depth):
        _, box = surds_object_geometry(obj)
        SHAPES[obj.category](draw, box, PALETTE[obj.colour])
    return canvas.filter(ImageFilter.GaussianBlur(SOFTEN_RADIUS_PX))


def write_surds(out: Path) -> None:
    """Write `validation/metadata.jsonl` and the WebP images of the SURDS demo."""
    root = out / "validation"
    lines = []
    for image in SURDS_IMAGES:
        path = root / image.file_name
        path.parent.mkdir(parents=True, exist_ok=True)
        render_surds_image(image).save(path, "WEBP", quality=WEBP_QUALITY, method=6)
        lines.append(json.dumps(surds_record(image)) + "\n")
    (root / "metadata.jsonl").write_text("".join(lines), encoding="utf-8")


# ---------------------------------------------------------------------------------------------------------------
# DriveLMM-o1
# ---------------------------------------------------------------------------------------------------------------

# nuScenes camera order of the records' `image` lists: the 2x3 grid read row by row.
CAMERAS = ("CAM_FRONT_LEFT", "CAM_FRONT", "CAM_FRONT_RIGHT", "CAM_BACK_RIGHT", "CAM_BACK", "CAM_BACK_LEFT")
CAMERA_COLOURS: dict[str, RGB] = {
    "CAM_FRONT_LEFT": (220, 40, 40),
    "CAM_FRONT": (40, 190, 60),
    "CAM_FRONT_RIGHT": (40, 80, 230),
    "CAM_BACK_RIGHT": (240, 200, 20),
    "CAM_BACK": (200, 40, 210),
    "CAM_BACK_LEFT": (20, 200, 210),
}
# Camera heading in the ego frame (degrees, counter-clockwise from forward), as mounted on the nuScenes car.
CAMERA_YAW_DEG = {
    "CAM_FRONT_LEFT": 55.0,
    "CAM_FRONT": 0.0,
    "CAM_FRONT_RIGHT": -55.0,
    "CAM_BACK_RIGHT": -110.0,
    "CAM_BACK": 180.0,
    "CAM_BACK_LEFT": 110.0,
}
# Capture time of each camera relative to the LIDAR_TOP sweep (microseconds): the cameras fire as the lidar sweeps.
CAMERA_OFFSET_US = {
    "CAM_FRONT_LEFT": -43107,
    "CAM_FRONT": -35491,
    "CAM_FRONT_RIGHT": -27539,
    "CAM_BACK_RIGHT": -19551,
    "CAM_BACK": -10549,
    "CAM_BACK_LEFT": -2527,
}
PATCH_HALF_PX = 100
BORDER_PX = 16
LABEL_FONT_PX = 72
LABEL_PAD_PX = 14
MCQ_NUMBERS = frozenset({2, 3, 4, 5, 8})
MCQ_INTRO = "Choose from the following answers only"
OPTION_LETTERS = "ABCDEF"
NONE_OF_THE_OPTIONS = "None of the options."

LIDAR_HEIGHT_M = 1.84
LIDAR_RINGS = 32
LIDAR_LOWEST_DEG, LIDAR_RING_STEP_DEG = -30.67, 1.33
LIDAR_MAX_RANGE_M = 70.0
LIDAR_POINTS_PER_RING = 80
LIDAR_POINTS_PER_OBJECT = 60

DISAGREEMENT_IDX = "bc61c4eaa2962626a39655f0de6e07cb_2e606e8dc2174f9231d0beeb5ec0fa4c_8"


@dataclass(frozen=True)
class SceneObject:
    """An object around the ego vehicle: ego frame x forward, y left (metres); heading counter-clockwise."""

    category: str
    colour: str
    x: float
    y: float
    heading_deg: float


@dataclass(frozen=True)
class QA:
    """One question of a frame; `steps` are rendered as the dataset's numbered list."""

    number: int
    question: str
    final_answer: str
    steps: tuple[str, ...]


@dataclass(frozen=True)
class Frame:
    """One nuScenes keyframe: a log, the lidar sweep time, the objects and the questions."""

    log: str
    lidar_us: int
    objects: tuple[SceneObject, ...]
    qas: tuple[QA, ...]

    def token(self, kind: str) -> str:
        """A stable 32-hex token, in the shape of the nuScenes tokens that make up `idx`."""
        return hashlib.md5(f"drive_evals-demo:{self.log}:{kind}".encode()).hexdigest()

    def camera_path(self, camera: str) -> str:
        return f"samples/{camera}/{self.log}__{camera}__{self.lidar_us + CAMERA_OFFSET_US[camera]}.jpg"

    @property
    def lidar_path(self) -> str:
        return f"samples/LIDAR_TOP/{self.log}__LIDAR_TOP__{self.lidar_us}.pcd.bin"


def mcq(number: int, stem: str, options: Sequence[str], answer: str, steps: tuple[str, ...], indent: str = "") -> QA:
    """A multiple-choice question in the dataset's layout; the final answer is the lettered correct option."""
    lines = [f"{indent}{letter}) {option}" for letter, option in zip(OPTION_LETTERS, options, strict=False)]
    letter = OPTION_LETTERS[list(options).index(answer)]
    return QA(number, f"{stem} {MCQ_INTRO}\n" + "\n".join(lines), f"{letter}) {answer}", steps)


REAL_INDENT = " " * 20  # the real file indents some option lines like this

FRAMES: tuple[Frame, ...] = (
    Frame(
        "n015-2018-07-24-11-22-45+0800",
        1532402927647951,
        (
            SceneObject(ADULT, "red", 11.0, -1.0, 90.0),
            SceneObject(CAR, "white", 20.0, 2.2, 0.0),
            SceneObject(BUS, "blue", 13.0, 7.5, 0.0),
            SceneObject(CONE, "orange", 7.0, -4.5, 0.0),
            SceneObject(TRUCK, "grey", -13.0, 0.2, 0.0),
            SceneObject(MOTO, "black", -5.0, -5.5, 0.0),
        ),
        (
            QA(
                1,
                "What are the important objects in the current scene? Describe their positions relative to the "
                "ego vehicle.",
                "A pedestrian is crossing the road about 11 meters ahead, a white car drives further ahead in the "
                "left lane, a bus is stopped at the front left, a traffic cone stands at the front right, a truck "
                "follows behind and a motorcycle rides at the rear right.",
                (
                    "**Scan the front view**: The top middle image shows a pedestrian in a red shirt on the road "
                    "ahead and a white car further down the left lane.",
                    "**Check the sides**: The top left image shows a blue bus stopped at the kerb, and the top right "
                    "image shows an orange traffic cone beside the lane.",
                    "**Check the rear**: The bottom middle image shows a truck following the ego vehicle, and the "
                    "bottom left image shows a motorcycle at the rear right.",
                    "**Summarise**: The crossing pedestrian is the most relevant object, followed by the vehicles "
                    "around the ego vehicle.",
                ),
            ),
            mcq(
                2,
                "What is the pedestrian in the top middle image doing?",
                (
                    "Standing on the sidewalk.",
                    "Crossing the road from right to left.",
                    "Waiting for a bus.",
                    "Crossing the road from left to right.",
                ),
                "Crossing the road from right to left.",
                (
                    "**Locate the pedestrian**: In the top middle image a pedestrian in a red shirt is on the road "
                    "about 11 meters ahead.",
                    "**Read the posture**: The pedestrian faces left and is already past the right edge of the lane.",
                    "**Conclude**: The pedestrian is crossing the road from right to left.",
                ),
            ),
            mcq(
                3,
                "What is the safest action for the ego vehicle to take now?",
                (
                    "Slow down and assess the situation.",
                    "Accelerate to pass before the pedestrian.",
                    "Change lane to the left.",
                    "Maintain the current speed.",
                ),
                "Slow down and assess the situation.",
                (
                    "**Identify the hazard**: The pedestrian in the top middle image is crossing the ego vehicle's "
                    "path.",
                    "**Check the surroundings**: The bus in the top left image occupies the left side and the truck "
                    "in the bottom middle image follows the ego vehicle.",
                    "**Decide**: Slowing down gives the pedestrian time to cross and lets the truck behind react "
                    "smoothly.",
                ),
            ),
            mcq(
                4,
                "Which object should the ego vehicle prioritise?",
                (
                    "The bus in the top left image.",
                    "The pedestrian in the top middle image.",
                    "The truck in the bottom middle image.",
                    "The traffic cone in the top right image.",
                ),
                "The pedestrian in the top middle image.",
                (
                    "**List the candidates**: A bus (top left image), a pedestrian (top middle image), a traffic cone "
                    "(top right image) and a truck (bottom middle image).",
                    "**Assess the risk**: Only the pedestrian is in the ego vehicle's path; the others are beside or "
                    "behind it.",
                    "**Conclude**: The pedestrian has the highest priority.",
                ),
                indent="    ",
            ),
            mcq(
                5,
                "What is the best way to avoid a collision with the pedestrian?",
                (
                    "Come to a complete stop.",
                    "Brake suddenly.",
                    "Speed up.",
                    "Change lane to right.",
                    "Change lane to left.",
                    NONE_OF_THE_OPTIONS,
                ),
                "Come to a complete stop.",
                (
                    "**Measure the gap**: The pedestrian in the top middle image is about 11 meters ahead, enough "
                    "room to stop smoothly.",
                    "**Rule out lane changes**: The bus in the top left image and the traffic cone in the top right "
                    "image leave no safe space beside the lane.",
                    "**Decide**: A controlled, complete stop avoids the pedestrian without surprising the truck "
                    "behind.",
                ),
                indent=REAL_INDENT,
            ),
            QA(
                6,
                "What will the pedestrian in the top middle image do in the next few seconds?",
                "The pedestrian will keep walking to the left and clear the ego vehicle's lane within a few seconds.",
                (
                    "**Observe the motion**: The pedestrian in the top middle image faces left and is mid-stride.",
                    "**Extrapolate**: At walking speed the pedestrian crosses one lane in about two to three seconds.",
                    "**Predict**: The pedestrian will continue to the left side of the road.",
                ),
            ),
            QA(
                7,
                "What should the ego vehicle do next, and why?",
                "The ego vehicle should slow down and yield to the crossing pedestrian, then continue once the lane "
                "is clear while keeping a safe gap to the white car ahead.",
                (
                    "**Identify the constraint**: The pedestrian in the top middle image is crossing the lane.",
                    "**Consider the traffic**: The white car ahead in the left lane and the truck behind (bottom "
                    "middle image) limit the room to manoeuvre.",
                    "**Plan**: Yield by slowing down, then resume at a safe following distance.",
                ),
            ),
            mcq(
                8,
                "Is the truck in the bottom middle image a risk if the ego vehicle brakes?",
                (
                    "Yes, it is close behind and needs room to stop.",
                    "No, it is parked.",
                    "No, it is in another lane.",
                    "Yes, it is crossing in front of the ego vehicle.",
                ),
                "Yes, it is close behind and needs room to stop.",
                (
                    "**Locate the truck**: The bottom middle image shows a truck about 13 meters behind, in the same "
                    "lane.",
                    "**Assess**: A heavy vehicle needs a longer distance to stop.",
                    "**Conclude**: Braking should be gradual so the truck can react.",
                ),
            ),
        ),
    ),
    Frame(
        "n008-2018-08-01-15-16-36-0400",
        1533151603547590,
        (
            SceneObject(CAR, "black", 11.0, 0.0, 0.0),
            SceneObject(TRUCK, "white", 20.0, 9.0, -90.0),
            SceneObject(ADULT, "blue", 8.0, -6.0, 0.0),
            SceneObject(BARRIER, "orange", 6.0, 5.0, 0.0),
            SceneObject(CAR, "silver", -10.0, 0.0, 0.0),
            SceneObject(CAR, "grey", -5.0, 5.0, 0.0),
        ),
        (
            QA(
                1,
                "What objects are in front of the ego vehicle, and where are they?",
                "A black SUV is stopped about 11 meters ahead in the same lane, a white delivery van crosses the "
                "intersection from the left, a pedestrian walks on the right sidewalk and a barrier stands on the "
                "left.",
                (
                    "**Front view**: The top middle image shows a black SUV ahead and a white van crossing from the "
                    "left.",
                    "**Front right**: The top right image shows a pedestrian in a blue jacket on the sidewalk.",
                    "**Front left**: The top left image shows a construction barrier next to the lane.",
                ),
            ),
            mcq(
                2,
                "What is the status of the black SUV in the top middle image?",
                (
                    "Moving away quickly.",
                    "Stopped at the intersection.",
                    "Reversing towards the ego vehicle.",
                    "Turning left.",
                ),
                "Stopped at the intersection.",
                (
                    "**Locate the SUV**: The black SUV in the top middle image is at the stop line of the "
                    "intersection.",
                    "**Check the context**: The white van is crossing in front of it.",
                    "**Conclude**: The SUV is stopped, waiting for the intersection to clear.",
                ),
            ),
            mcq(
                3,
                "What should the ego vehicle do at this intersection?",
                (
                    "Stop behind the SUV and wait for the intersection to clear.",
                    "Overtake the SUV on the left.",
                    "Turn right immediately.",
                    "Accelerate through the intersection.",
                ),
                "Stop behind the SUV and wait for the intersection to clear.",
                (
                    "**Identify the blocker**: The SUV in the top middle image is stopped in the ego lane.",
                    "**Check alternatives**: The barrier in the top left image blocks the left side and the van is "
                    "still crossing.",
                    "**Decide**: Stop behind the SUV and wait.",
                ),
            ),
            mcq(
                5,
                "Which lane change is safe right now?",
                (
                    "Change lane to the left.",
                    "Change lane to the right.",
                    "Move into the oncoming lane.",
                    "Merge behind the delivery van.",
                    "Pull onto the sidewalk.",
                    NONE_OF_THE_OPTIONS,
                ),
                NONE_OF_THE_OPTIONS,
                (
                    "**Left side**: The barrier in the top left image closes the left side.",
                    "**Right side**: The pedestrian in the top right image walks on the sidewalk next to the lane.",
                    "**Ahead**: The van in the top middle image is still crossing.",
                    "**Conclude**: No lane change is safe; the ego vehicle should stay in its lane.",
                ),
                indent=REAL_INDENT,
            ),
            QA(
                6,
                "What will the white delivery van in the top middle image do next?",
                "The van will continue across the intersection from left to right and leave the ego vehicle's path.",
                (
                    "**Observe**: The van in the top middle image is oriented across the road, moving to the right.",
                    "**Context**: The SUV ahead of the ego vehicle is stopped to let it pass.",
                    "**Predict**: The van will finish crossing the intersection.",
                ),
            ),
            mcq(
                8,
                "What is the pedestrian in the top right image most likely to do?",
                (
                    "Continue walking along the sidewalk.",
                    "Run into the road.",
                    "Get into the silver car.",
                    "Stand still in the road.",
                ),
                "Continue walking along the sidewalk.",
                (
                    "**Locate**: The pedestrian in the top right image is on the sidewalk, facing forward.",
                    "**Observe**: The pedestrian walks parallel to the road, away from the crossing.",
                    "**Predict**: The pedestrian will keep walking along the sidewalk.",
                ),
            ),
            QA(
                9,
                "How should the ego vehicle proceed once the SUV moves?",
                "It should follow the SUV through the intersection at a low speed, after checking that the van has "
                "cleared the crossing and that the pedestrian stays on the sidewalk.",
                (
                    "**Wait for the lead vehicle**: The SUV in the top middle image sets the pace.",
                    "**Check the crossing traffic**: The van must have cleared the intersection.",
                    "**Check vulnerable road users**: The pedestrian in the top right image must stay on the sidewalk.",
                ),
            ),
            QA(
                10,
                "What is behind the ego vehicle?",
                "A silver car follows in the same lane about 10 meters behind, and a grey car is parked at the rear "
                "left.",
                (
                    "**Rear view**: The bottom middle image shows a silver car in the same lane.",
                    "**Rear left**: The bottom right image shows a grey car parked at the kerb.",
                    "**Conclude**: Only the silver car is relevant when braking.",
                ),
            ),
        ),
    ),
    Frame(
        "n015-2018-10-08-15-36-50+0800",
        1538984233547259,
        (
            SceneObject(CAR, "red", 12.0, 0.0, 0.0),
            SceneObject(BUS, "green", 25.0, -3.5, 0.0),
            SceneObject(MOTO, "yellow", 6.0, -3.0, 0.0),
            SceneObject(CAR, "white", -7.0, -3.5, 0.0),
            SceneObject(ADULT, "green", 4.0, 9.0, 180.0),
            SceneObject(CONE, "orange", -4.0, 6.0, 0.0),
        ),
        (
            QA(
                1,
                "What are the key objects around the ego vehicle?",
                "A red car is ahead in the same lane, a bus travels in the right lane further ahead, a motorcycle "
                "rides close on the front right, a car approaches from behind in the right lane and a pedestrian "
                "walks on the left sidewalk.",
                (
                    "**Front view**: The top middle image shows a red car in the ego lane and a green bus in the "
                    "right lane.",
                    "**Front right**: The top right image shows a yellow motorcycle close to the ego vehicle.",
                    "**Sides and rear**: The top left image shows a pedestrian on the sidewalk; the bottom middle "
                    "image shows a white car approaching in the right lane.",
                ),
            ),
            mcq(
                2,
                "What is the red car in the top middle image doing?",
                ("Parking on the left.", "Braking ahead of the ego vehicle.", "Turning right.", "Reversing."),
                "Braking ahead of the ego vehicle.",
                (
                    "**Locate**: The red car in the top middle image is about 12 meters ahead in the ego lane.",
                    "**Observe**: Its brake lights are on.",
                    "**Conclude**: The red car is braking.",
                ),
            ),
            mcq(
                4,
                "Which object is closest to the ego vehicle's path on the right?",
                (
                    "The bus in the top middle image.",
                    "The pedestrian in the top left image.",
                    "The motorcycle in the top right image.",
                    "The traffic cone in the bottom right image.",
                ),
                "The motorcycle in the top right image.",
                (
                    "**Right side**: The top right image shows a motorcycle about 6 meters ahead, 3 meters to the "
                    "right.",
                    "**Compare**: The bus is farther ahead; the pedestrian and the cone are on the left.",
                    "**Conclude**: The motorcycle is the closest object on the right.",
                ),
            ),
            mcq(
                5,
                "What should the ego vehicle do about the motorcycle?",
                (
                    "Keep a safe lateral distance and hold the lane.",
                    "Move right to block it.",
                    "Sound the horn and accelerate.",
                    "Brake to a stop immediately.",
                ),
                "Keep a safe lateral distance and hold the lane.",
                (
                    "**Assess**: The motorcycle in the top right image rides in the adjacent lane.",
                    "**Risk**: Motorcycles can move sideways quickly.",
                    "**Decide**: Hold the lane and keep a safe lateral gap.",
                ),
                indent="  ",
            ),
            QA(
                6,
                "What will the motorcycle in the top right image do next?",
                "The motorcycle will likely keep riding in the right lane and may pass the ego vehicle.",
                (
                    "**Observe**: The motorcycle in the top right image faces forward in the right lane.",
                    "**Context**: The right lane ahead is open up to the bus.",
                    "**Predict**: It will continue forward and may pass the ego vehicle.",
                ),
            ),
            QA(
                7,
                "What should the ego vehicle do given the braking red car ahead?",
                "The ego vehicle should brake gently to keep a safe distance from the red car and stay in its lane.",
                (
                    "**Lead vehicle**: The red car in the top middle image is braking.",
                    "**Lane change check**: The motorcycle (top right image) and the white car behind (bottom "
                    "middle image) occupy the right lane.",
                    "**Plan**: Brake gently and stay in the lane.",
                ),
            ),
            QA(
                8,
                "Why is a lane change to the right unsafe at the moment?",
                "Because a motorcycle is riding at the front right and a car is approaching from behind in the right "
                "lane, so there is no safe gap.",
                (
                    "**Front right**: The top right image shows a motorcycle next to the ego vehicle.",
                    "**Rear**: The bottom middle image shows a white car approaching in the right lane.",
                    "**Conclude**: There is no gap for a lane change to the right.",
                ),
            ),
            QA(
                9,
                "What will the pedestrian in the top left image do?",
                "The pedestrian will keep walking along the left sidewalk towards the rear of the ego vehicle and is "
                "unlikely to enter the road.",
                (
                    "**Locate**: The top left image shows a pedestrian on the left sidewalk.",
                    "**Observe**: The pedestrian walks towards the rear of the ego vehicle, parallel to the road.",
                    "**Predict**: The pedestrian stays on the sidewalk.",
                ),
            ),
        ),
    ),
)


def render_steps(steps: Sequence[str]) -> str:
    """The dataset's step layout: a leading newline, then one numbered line per step."""
    return "\n" + "\n".join(f"{number}. {step}" for number, step in enumerate(steps, start=1))


def drivelmm_records() -> list[dict[str, object]]:
    """The records of `DriveLMMo1_TEST.json`, frame by frame."""
    records: list[dict[str, object]] = []
    for frame in FRAMES:
        key = f"{frame.token('scene')}_{frame.token('sample')}"
        for qa in frame.qas:
            records.append(
                {
                    "idx": f"{key}_{qa.number}",
                    "image": [frame.camera_path(camera) for camera in CAMERAS],
                    "question": qa.question,
                    "final_answer": qa.final_answer,
                    "steps": render_steps(qa.steps),
                    "lidar": frame.lidar_path,
                }
            )
    return records


def camera_frame(obj: SceneObject, camera: str) -> tuple[Vec3, float]:
    """An object's centre in a camera's frame and its heading there (clockwise from the camera's axis)."""
    yaw = math.radians(CAMERA_YAW_DEG[camera])
    forward = obj.x * math.cos(yaw) + obj.y * math.sin(yaw)
    right = obj.x * math.sin(yaw) - obj.y * math.cos(yaw)
    height = CATEGORY_DIMS[obj.category][2]
    return (right, CAMERA_HEIGHT_M - height / 2, forward), yaw - math.radians(obj.heading_deg)


def render_camera(frame: Frame, camera: str) -> Image.Image:
    """A keyframe of one camera: the objects it sees, then (sharp, after the blur) its name, border and patch."""
    canvas = draw_street(keyed_rng("drivelmm", frame.log, camera))
    draw = ImageDraw.Draw(canvas)
    placed = []
    for obj in frame.objects:
        centre, heading = camera_frame(obj, camera)
        box = projected_box(centre, CATEGORY_DIMS[obj.category], heading)
        if box is not None and box[0] < IMAGE_W and box[2] > 0:
            placed.append((centre[2], box, obj))
    for _, box, obj in sorted(placed, key=lambda p: -p[0]):
        SHAPES[obj.category](draw, box, PALETTE[obj.colour])
    canvas = canvas.filter(ImageFilter.GaussianBlur(SOFTEN_RADIUS_PX))
    draw = ImageDraw.Draw(canvas)
    colour = CAMERA_COLOURS[camera]
    draw.rectangle([0, 0, IMAGE_W - 1, IMAGE_H - 1], outline=colour, width=BORDER_PX)
    font = ImageFont.load_default(size=LABEL_FONT_PX)
    origin = (BORDER_PX + LABEL_PAD_PX, BORDER_PX + LABEL_PAD_PX)
    *_, right, bottom = draw.textbbox(origin, camera, font=font)
    draw.rectangle([BORDER_PX, BORDER_PX, right + LABEL_PAD_PX, bottom + LABEL_PAD_PX], fill=colour)
    draw.text(origin, camera, fill="black", font=font)
    draw.rectangle(
        [CX - PATCH_HALF_PX, CY - PATCH_HALF_PX, CX + PATCH_HALF_PX - 1, CY + PATCH_HALF_PX - 1], fill=colour
    )
    return canvas


def lidar_points(frame: Frame, seed: int) -> np.ndarray:
    """A LIDAR_TOP sweep (x right, y forward, z up; nuScenes sensor frame): ground rings plus points on the objects."""
    rng = np.random.default_rng(seed)
    elevations = LIDAR_LOWEST_DEG + LIDAR_RING_STEP_DEG * np.arange(LIDAR_RINGS)
    rows = []
    for ring, elevation in enumerate(elevations):
        if elevation >= 0:
            break
        distance = LIDAR_HEIGHT_M / math.tan(math.radians(-elevation))
        if distance > LIDAR_MAX_RANGE_M:
            continue
        azimuth = np.linspace(0, 2 * np.pi, LIDAR_POINTS_PER_RING, endpoint=False) + rng.uniform(0, 0.02)
        r = distance + rng.normal(0, 0.03, LIDAR_POINTS_PER_RING)
        ground = np.stack(
            [
                r * np.cos(azimuth),
                r * np.sin(azimuth),
                rng.normal(-LIDAR_HEIGHT_M, 0.02, LIDAR_POINTS_PER_RING),
                rng.uniform(1, 25, LIDAR_POINTS_PER_RING),
                np.full(LIDAR_POINTS_PER_RING, ring),
            ],
            axis=1,
        )
        rows.append(ground)
    for obj in frame.objects:
        width, length, height = CATEGORY_DIMS[obj.category]
        along = rng.uniform(-length / 2, length / 2, LIDAR_POINTS_PER_OBJECT)
        across = rng.choice([-width / 2, width / 2], LIDAR_POINTS_PER_OBJECT)
        up = rng.uniform(0.05, height, LIDAR_POINTS_PER_OBJECT)
        heading = math.radians(obj.heading_deg)
        ego_x = obj.x + along * math.cos(heading) - across * math.sin(heading)
        ego_y = obj.y + along * math.sin(heading) + across * math.cos(heading)
        x, y, z = -ego_y, ego_x, up - LIDAR_HEIGHT_M
        elevation = np.degrees(np.arctan2(z, np.hypot(x, y)))
        rings = np.clip(np.round((elevation - LIDAR_LOWEST_DEG) / LIDAR_RING_STEP_DEG), 0, LIDAR_RINGS - 1)
        rows.append(np.stack([x, y, z, rng.uniform(30, 120, LIDAR_POINTS_PER_OBJECT), rings], axis=1))
    return np.concatenate(rows).astype("<f4")


def write_drivelmm(out: Path) -> None:
    """Write `DriveLMMo1_TEST.json` and the nuScenes keyframes and sweeps it points to."""
    records = drivelmm_records()
    disagreements = [
        r["idx"]
        for r in records
        if (int(str(r["idx"]).rsplit("_", 1)[1]) in MCQ_NUMBERS) != (MCQ_INTRO in str(r["question"]))
    ]
    if disagreements != [DISAGREEMENT_IDX]:
        raise ValueError(f"number rule and question text disagree at {disagreements}, expected only {DISAGREEMENT_IDX}")
    root = out / "nuscenes"
    for number, frame in enumerate(FRAMES):
        for camera in CAMERAS:
            path = root / frame.camera_path(camera)
            path.parent.mkdir(parents=True, exist_ok=True)
            render_camera(frame, camera).save(path, "JPEG", quality=JPEG_QUALITY, optimize=True)
        lidar = root / frame.lidar_path
        lidar.parent.mkdir(parents=True, exist_ok=True)
        lidar.write_bytes(lidar_points(frame, LIDAR_SEED + number).tobytes())
    text = json.dumps(records, indent=4, ensure_ascii=False) + "\n"
    (out / "DriveLMMo1_TEST.json").write_text(text, encoding="utf-8")


TOOL_WRITERS: dict[str, Callable[[Path], None]] = {
    "surds": write_surds,
    "drivelmm_o1": write_drivelmm,
    "drivebench": write_drivebench,
    "vladbench": write_vladbench,
}
"""The demo makers that live here; a later benchmark's lives in its package, as its `Benchmark.demo`."""


def generate(out: Path) -> None:
    """Regenerate every registry benchmark's demo data under `out`, replacing earlier output so no stale file
    survives."""
    writers = [(b.key, b.demo or TOOL_WRITERS.get(b.key)) for b in BENCHMARKS]
    missing = [name for name, writer in writers if writer is None]
    if missing:
        raise SystemExit(f"no demo maker for {', '.join(missing)}: give its Benchmark a `demo` writer")
    for name, writer in writers:
        assert writer is not None
        target = out / name
        if target.exists():
            shutil.rmtree(target)
        writer(target)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output directory (default {DEFAULT_OUT})")
    generate(parser.parse_args(argv).out)


if __name__ == "__main__":
    main()
