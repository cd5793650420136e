"""nuScenes LIDAR_TOP sweeps as bird's-eye-view images (an optional extra view; the official protocol ignores LiDAR).

A `.pcd.bin` file is a flat little-endian float32 array, five values per point: x, y, z (metres, sensor frame),
intensity (0-255) and ring index. The LIDAR_TOP sensor frame has x to the right, y forward and z up;
`lidar_to_ego_axes` turns it into the vehicle convention (x forward, y left) that `render_bev` draws. The
sensor's small mounting offset and yaw are not applied (they live in nuScenes' calibration tables), so the image
is centred on the sensor.

The image: the sensor at the centre, x forward pointing up, y left pointing left, `range_m` metres to each edge
(default 50 m) at `resolution_m` metres per pixel (default 0.1 m, so 1000x1000 px), points coloured by height or
intensity (the higher value wins where points overlap), range rings every 10 m, a vehicle marker and a label.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from PIL import Image, ImageDraw

from drive_evals.errors import ParameterError
from drive_evals.params import positive

from .images import cache_file_path, save_atomically

FLOATS_PER_POINT = 5
BYTES_PER_POINT = FLOATS_PER_POINT * np.dtype(np.float32).itemsize
X, Y, Z, INTENSITY = 0, 1, 2, 3
"""Column indices of a point array."""

DEFAULT_RANGE_M = 50.0
DEFAULT_RESOLUTION_M = 0.1
MAX_IMAGE_SIDE_PX = 8192
"""Refuse range/resolution pairs that would allocate an absurdly large image."""

HEIGHT_LIMITS_M = (-2.5, 2.0)
"""Colour scale for z in the sensor frame; the sensor sits about 1.8 m above the road, so the road is near -1.8 m."""
INTENSITY_MAX = 255.0
"""Intensities are shown on a log scale up to this (most returns are weak; a linear scale hides them)."""

RING_SPACING_M = 10.0
EGO_LENGTH_M = 4.1
EGO_WIDTH_M = 1.7
"""Approximate size of the nuScenes data-collection car, for the vehicle marker."""

BACKGROUND = (0, 0, 0)
RING_COLOUR = (70, 70, 70)
MARKER_COLOUR = (255, 255, 255)
LABEL_COLOUR = (230, 230, 230)
LABEL_MARGIN_PX = 8

# Blue (low) -> cyan -> green -> yellow -> red (high), sampled at evenly spaced positions.
_COLOUR_ANCHORS = np.array([[40, 60, 255], [0, 220, 255], [40, 230, 60], [255, 230, 0], [255, 40, 30]], dtype=float)

BEV_FORMAT_VERSION = 1
"""Bump when the rendering changes, so old cache entries are not reused."""

ColourBy = Literal["height", "intensity"]
Points = NDArray[np.float32]


def load_points(path: Path) -> Points:
    """The points of a nuScenes `.pcd.bin` file as an (N, 5) float32 array; raises if the size is not N x 20 bytes."""
    size = path.stat().st_size
    if size % BYTES_PER_POINT:
        raise ValueError(
            f"{path}: {size} bytes is not a multiple of {BYTES_PER_POINT} "
            f"({FLOATS_PER_POINT} float32 per point); not a nuScenes .pcd.bin point cloud"
        )
    return np.fromfile(path, dtype="<f4").reshape(-1, FLOATS_PER_POINT)


def lidar_to_ego_axes(points: Points) -> Points:
    """A copy with LIDAR_TOP axes (x right, y forward) turned into vehicle axes (x forward, y left)."""
    turned = points.copy()
    turned[:, X] = points[:, Y]
    turned[:, Y] = -points[:, X]
    return turned


def render_bev(
    points: Points,
    range_m: float = DEFAULT_RANGE_M,
    resolution_m: float = DEFAULT_RESOLUTION_M,
    colour_by: ColourBy = "height",
    title: str = "",
) -> Image.Image:
    """A bird's-eye-view RGB image of points given in vehicle axes (columns x forward, y left, z up, intensity)."""
    if points.ndim != 2 or points.shape[1] <= INTENSITY:
        raise ValueError(f"points must be an (N, >=4) array of x, y, z, intensity; got shape {points.shape}")
    side = _image_side(range_m, resolution_m)
    image = Image.new("RGB", (side, side), BACKGROUND)
    _draw_rings(ImageDraw.Draw(image), side, range_m, resolution_m)
    pixels = np.array(image)
    _draw_points(pixels, points, resolution_m, colour_by)
    image = Image.fromarray(pixels)
    draw = ImageDraw.Draw(image)
    _draw_ego(draw, side, resolution_m)
    _draw_label(draw, range_m, resolution_m, colour_by, title)
    return image


def build_bev(
    path: Path,
    cache_dir: Path,
    range_m: float = DEFAULT_RANGE_M,
    resolution_m: float = DEFAULT_RESOLUTION_M,
    colour_by: ColourBy = "height",
) -> Path:
    """The cached PNG bird's-eye view of a `.pcd.bin` sweep, rendered first if it is not cached yet."""
    params = {
        "version": BEV_FORMAT_VERSION,
        "range_m": range_m,
        "resolution_m": resolution_m,
        "colour_by": colour_by,
    }
    target = cache_file_path(cache_dir, "bev", ".png", [path], params)
    if not target.exists():
        image = render_bev(lidar_to_ego_axes(load_points(path)), range_m, resolution_m, colour_by, path.name)
        save_atomically(image, target, "PNG")
    return target


def _image_side(range_m: float, resolution_m: float) -> int:
    if range_m <= 0 or resolution_m <= 0:
        raise ValueError(f"range and resolution must be positive, got {range_m} m and {resolution_m} m/px")
    side = round(2 * range_m / resolution_m)
    if not 1 <= side <= MAX_IMAGE_SIDE_PX:
        raise ValueError(
            f"{range_m} m at {resolution_m} m/px gives {side} px per side (min 1, max {MAX_IMAGE_SIDE_PX})"
        )
    return side


def check_lidar(range_m: object, resolution_m: object) -> tuple[float, float]:
    """The `lidar_range_m` and `lidar_resolution_m` task parameters, checked before anything is loaded."""
    checked = positive("lidar_range_m", range_m), positive("lidar_resolution_m", resolution_m)
    try:
        _image_side(*checked)
    except ValueError as error:
        raise ParameterError(f"lidar_range_m, lidar_resolution_m: {error}") from error
    return checked


def _draw_points(pixels: NDArray[np.uint8], points: Points, resolution_m: float, colour_by: ColourBy) -> None:
    """Colour the pixel under each point in place; where points share a pixel the highest value is shown."""
    side = pixels.shape[0]
    finite = np.isfinite(points[:, : INTENSITY + 1]).all(axis=1)
    points = points[finite]
    centre = side / 2
    rows = np.floor(centre - points[:, X].astype(np.float64) / resolution_m).astype(np.int64)
    columns = np.floor(centre - points[:, Y].astype(np.float64) / resolution_m).astype(np.int64)
    inside = (rows >= 0) & (rows < side) & (columns >= 0) & (columns < side)
    rows, columns = rows[inside], columns[inside]
    values = _colour_values(points[inside], colour_by)
    best = np.full((side, side), -1.0)
    np.maximum.at(best, (rows, columns), values)
    hit = best >= 0
    pixels[hit] = _colour_map(best[hit])


def _colour_values(points: Points, colour_by: ColourBy) -> NDArray[np.float64]:
    """Each point's colour position in [0, 1]."""
    if colour_by == "height":
        low, high = HEIGHT_LIMITS_M
        scaled = (points[:, Z].astype(np.float64) - low) / (high - low)
    else:
        intensity = np.clip(points[:, INTENSITY].astype(np.float64), 0.0, INTENSITY_MAX)
        scaled = np.log1p(intensity) / np.log1p(INTENSITY_MAX)
    return np.clip(scaled, 0.0, 1.0)


def _colour_map(values: NDArray[np.float64]) -> NDArray[np.uint8]:
    """Linear interpolation between `_COLOUR_ANCHORS`."""
    positions = np.linspace(0.0, 1.0, len(_COLOUR_ANCHORS))
    channels = [np.interp(values, positions, _COLOUR_ANCHORS[:, channel]) for channel in range(3)]
    return np.stack(channels, axis=-1).round().astype(np.uint8)


def _draw_rings(draw: ImageDraw.ImageDraw, side: int, range_m: float, resolution_m: float) -> None:
    centre = side / 2
    for ring in np.arange(RING_SPACING_M, range_m + 1e-9, RING_SPACING_M):
        radius = ring / resolution_m
        draw.ellipse((centre - radius, centre - radius, centre + radius, centre + radius), outline=RING_COLOUR)
        draw.text((centre + 3, centre - radius + 2), f"{ring:g} m", fill=RING_COLOUR)


def _draw_ego(draw: ImageDraw.ImageDraw, side: int, resolution_m: float) -> None:
    """A vehicle outline at the centre with a filled triangle at its front (up)."""
    centre = side / 2
    half_length = EGO_LENGTH_M / 2 / resolution_m
    half_width = EGO_WIDTH_M / 2 / resolution_m
    top, bottom = centre - half_length, centre + half_length
    draw.rectangle((centre - half_width, top, centre + half_width, bottom), outline=MARKER_COLOUR)
    nose = max(half_width, 1.0)
    draw.polygon([(centre, top - nose), (centre - half_width, top), (centre + half_width, top)], fill=MARKER_COLOUR)


def _draw_label(
    draw: ImageDraw.ImageDraw, range_m: float, resolution_m: float, colour_by: ColourBy, title: str
) -> None:
    description = (
        f"LiDAR bird's-eye view: forward is up, +/-{range_m:g} m, {resolution_m:g} m/px, "
        f"rings every {RING_SPACING_M:g} m, colour = {colour_by}"
    )
    text = f"{title}\n{description}" if title else description
    draw.multiline_text((LABEL_MARGIN_PX, LABEL_MARGIN_PX), text, fill=LABEL_COLOUR)
