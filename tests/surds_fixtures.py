"""Metadata lines for SURDS tests, built in the official schema."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any


def record(
    name: str,
    descs: Sequence[str],
    ks: Sequence[int],
    yaw: str = "North",
    camera: str = "CAM_FRONT",
) -> dict[str, Any]:
    """A record whose object o sits at x = 400 + 300 k_o with depth and distance 5 + 5 k_o (evalscope's fixture)."""
    return {
        "file_name": f"image/{camera}/{name}.webp",
        "descs": list(descs),
        "xy2Ds": [[400 + 300 * k, 450] for k in ks],
        "xyz3Ds": [[0.0, 0.0, 5.0 + 5 * k] for k in ks],
        "bboxes2D": [[350 + 300 * k, 400, 450 + 300 * k, 500] for k in ks],
        "categories": ["vehicle.car"] * len(ks),
        "yaws": [0.0] * len(ks),
        "yaw_descs": [yaw] * len(ks),
        "depths": [5.0 + 5 * k for k in ks],
        "distances": [5.0 + 5 * k for k in ks],
    }


def golden_lines() -> list[str]:
    """evalscope's three-record golden vector."""
    return [
        json.dumps(record("single-a", ["white car"], [0])),
        json.dumps(record("single-b", ["adult wearing blue clothes"], [1])),
        json.dumps(record("multi", ["white car", "adult wearing red clothes"], [0, 1])),
    ]
