"""LiDAR bird's-eye views: file reading, geometry (forward is up), colouring and the on-disk cache."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from drive_evals.drivelmm_o1.lidar import (
    BACKGROUND,
    BYTES_PER_POINT,
    HEIGHT_LIMITS_M,
    build_bev,
    lidar_to_ego_axes,
    load_points,
    render_bev,
)

CENTRE = 500  # default: +/-50 m at 0.1 m/px -> 1000 px, centre pixel 500
NEAR = 14.95  # metres: the middle of the pixel 150 px from the centre (row or column 350 / 650)
LOW, HIGH = HEIGHT_LIMITS_M


def cloud(*points: tuple[float, float, float, float]) -> np.ndarray:
    """x, y, z, intensity rows plus a zero ring column, as float32."""
    rows = np.array(points, dtype=np.float32).reshape(-1, 4)
    return np.hstack([rows, np.zeros((len(rows), 1), dtype=np.float32)])


def pixel(image: Image.Image, row: int, column: int) -> tuple[int, int, int]:
    value = image.getpixel((column, row))
    assert isinstance(value, tuple)
    return value[0], value[1], value[2]


def test_point_ahead_lands_above_centre_and_left_lands_left() -> None:
    image = render_bev(cloud((NEAR, -0.05, 0.0, 50.0), (0.05, NEAR, 0.0, 50.0), (-15.05, -25.05, 0.0, 50.0)))
    assert image.size == (1000, 1000)
    assert pixel(image, CENTRE - 150, CENTRE) != BACKGROUND  # x = +15 m: 150 px up
    assert pixel(image, CENTRE - 1, CENTRE - 150) != BACKGROUND  # y = +15 m (left): 150 px left
    assert pixel(image, CENTRE + 150, CENTRE + 250) != BACKGROUND  # behind and to the right
    assert pixel(image, CENTRE + 150, CENTRE) == BACKGROUND  # nothing behind on the axis


def test_range_and_resolution_set_the_size() -> None:
    image = render_bev(cloud((4.75, 0.25, 0.0, 1.0)), range_m=20.0, resolution_m=0.5)
    assert image.size == (80, 80)
    assert pixel(image, 40 - 10, 40 - 1) != BACKGROUND


def test_height_colouring_runs_blue_to_red() -> None:
    image = render_bev(cloud((NEAR, NEAR, LOW, 0.0), (NEAR, -NEAR - 0.1, HIGH, 0.0)))
    low, high = pixel(image, CENTRE - 150, CENTRE - 150), pixel(image, CENTRE - 150, CENTRE + 150)
    assert low[2] > low[0]
    assert high[0] > high[2]


def test_intensity_colouring() -> None:
    points = cloud((NEAR, NEAR, HIGH, 0.0), (NEAR, -NEAR - 0.1, LOW, 255.0))
    image = render_bev(points, colour_by="intensity")
    weak, strong = pixel(image, CENTRE - 150, CENTRE - 150), pixel(image, CENTRE - 150, CENTRE + 150)
    assert weak[2] > weak[0]
    assert strong[0] > strong[2]


def test_highest_point_wins_a_shared_pixel() -> None:
    alone = render_bev(cloud((NEAR, NEAR, HIGH, 0.0)))
    shared = render_bev(cloud((NEAR, NEAR, LOW, 0.0), (NEAR + 0.02, NEAR, HIGH, 0.0), (NEAR, NEAR - 0.02, 0.0, 0.0)))
    assert pixel(alone, CENTRE - 150, CENTRE - 150) != BACKGROUND
    assert pixel(shared, CENTRE - 150, CENTRE - 150) == pixel(alone, CENTRE - 150, CENTRE - 150)


def test_far_and_non_finite_points_are_ignored() -> None:
    points = cloud((500.0, 0.0, 0.0, 1.0), (-60.0, 60.0, 0.0, 1.0), (np.nan, 0.0, 0.0, 1.0), (np.inf, 1.0, 0.0, 1.0))
    empty = render_bev(np.zeros((0, 5), dtype=np.float32))
    assert np.array_equal(np.asarray(render_bev(points)), np.asarray(empty)), "no ignored point may be drawn"


def test_marker_and_label_are_drawn() -> None:
    image = render_bev(np.zeros((0, 5), dtype=np.float32), title="sweep.pcd.bin")
    assert pixel(image, CENTRE - 23, CENTRE) != BACKGROUND  # the filled nose of the vehicle marker
    assert any(pixel(image, CENTRE, column) != BACKGROUND for column in range(CENTRE - 10, CENTRE - 6))
    label_area = np.asarray(image)[:40, :300]
    assert label_area.any()


@pytest.mark.parametrize(
    ("range_m", "resolution_m", "message"), [(0, 0.1, "positive"), (50, 0, "positive"), (1000, 0.1, "max")]
)
def test_bad_geometry(range_m: float, resolution_m: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        render_bev(cloud((1.0, 1.0, 1.0, 1.0)), range_m, resolution_m)


def test_bad_point_shape() -> None:
    with pytest.raises(ValueError, match="x, y, z, intensity"):
        render_bev(np.zeros((4, 3), dtype=np.float32))


def test_load_points(tmp_path: Path) -> None:
    points = cloud((1.0, 2.0, 3.0, 4.0), (5.0, 6.0, 7.0, 8.0))
    points[:, 4] = [10, 31]
    path = tmp_path / "sweep.pcd.bin"
    points.astype("<f4").tofile(path)
    loaded = load_points(path)
    assert loaded.dtype == np.float32
    np.testing.assert_array_equal(loaded, points)


@pytest.mark.parametrize("size", [1, BYTES_PER_POINT - 1, BYTES_PER_POINT + 4])
def test_bad_file_size_names_the_file(tmp_path: Path, size: int) -> None:
    path = tmp_path / "broken.pcd.bin"
    path.write_bytes(b"\0" * size)
    with pytest.raises(ValueError, match=r"broken\.pcd\.bin.*not a multiple of 20"):
        load_points(path)


def test_lidar_axes_turn_forward_up() -> None:
    ahead_in_sensor_frame = cloud((0.05, NEAR, 0.0, 1.0))  # LIDAR_TOP: y forward
    right_in_sensor_frame = cloud((15.0, 0.0, 0.0, 1.0))  # LIDAR_TOP: x right
    expected_ahead = np.array([NEAR, -0.05], dtype=np.float32)
    np.testing.assert_array_equal(lidar_to_ego_axes(ahead_in_sensor_frame)[0, :2], expected_ahead)
    np.testing.assert_array_equal(lidar_to_ego_axes(right_in_sensor_frame)[0, :2], [0.0, -15.0])
    image = render_bev(lidar_to_ego_axes(ahead_in_sensor_frame))
    assert pixel(image, CENTRE - 150, CENTRE) != BACKGROUND


def test_build_bev_is_cached(tmp_path: Path) -> None:
    path = tmp_path / "sweep.pcd.bin"
    cloud((0.05, NEAR, 0.0, 1.0)).tofile(path)
    cache = tmp_path / "cache"
    first = build_bev(path, cache)
    written = first.stat().st_mtime_ns
    assert build_bev(path, cache) == first
    assert first.stat().st_mtime_ns == written
    with Image.open(first) as image:
        assert image.format == "PNG"
        assert pixel(image.convert("RGB"), CENTRE - 150, CENTRE) != BACKGROUND
    assert build_bev(path, cache, colour_by="intensity") != first
    assert build_bev(path, cache, range_m=30.0) != first

    cloud((0.0, 20.0, 0.0, 1.0)).tofile(path)
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert build_bev(path, cache) != first
