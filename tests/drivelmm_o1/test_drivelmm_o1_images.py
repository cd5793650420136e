"""The 2x3 multiview grid: camera placement, sizes, and the on-disk cache (hits, rebuilds, concurrency)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from PIL import Image

from drive_evals.drivelmm_o1 import images
from drive_evals.drivelmm_o1.images import (
    CAMERA_ORDER,
    DEFAULT_CELL_SIZE,
    build_grids,
    ensure_grid,
    grid_cache_path,
    save_atomically,
    stitch_grid,
    stitch_grid_files,
)

# One solid colour per camera, in CAMERA_ORDER.
COLOURS = [(220, 30, 30), (30, 200, 30), (30, 30, 220), (230, 230, 40), (200, 40, 200), (40, 210, 210)]
SOURCE_SIZE = (160, 90)
CELL = (80, 45)
JPEG_TOLERANCE = 12


def write_views(
    folder: Path, colours: Sequence[tuple[int, int, int]] = COLOURS, size: tuple[int, int] = SOURCE_SIZE
) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for camera, colour in zip(CAMERA_ORDER, colours, strict=True):
        path = folder / f"{camera}.jpg"
        Image.new("RGB", size, colour).save(path, quality=95)
        paths.append(path)
    return paths


def cell_centre_colours(grid: Image.Image, cell: tuple[int, int]) -> list[tuple[int, ...]]:
    width, height = cell
    rgb = grid.convert("RGB")
    return [rgb.getpixel(((i % 3) * width + width // 2, (i // 3) * height + height // 2)) for i in range(6)]  # type: ignore[misc]


def assert_cells(grid: Image.Image, cell: tuple[int, int], colours: Sequence[tuple[int, int, int]]) -> None:
    for camera, got, want in zip(CAMERA_ORDER, cell_centre_colours(grid, cell), colours, strict=True):
        assert max(abs(a - b) for a, b in zip(got, want, strict=True)) <= JPEG_TOLERANCE, camera


def test_each_camera_lands_in_its_cell() -> None:
    views = [Image.new("RGB", SOURCE_SIZE, colour) for colour in COLOURS]
    grid = stitch_grid(views, CELL)
    assert grid.size == (3 * CELL[0], 2 * CELL[1])
    assert cell_centre_colours(grid, CELL) == COLOURS


def test_default_grid_is_2400_by_900() -> None:
    grid = stitch_grid([Image.new("RGB", (16, 9), colour) for colour in COLOURS])
    assert DEFAULT_CELL_SIZE == (800, 450)
    assert grid.size == (2400, 900)


def test_views_are_stretched_to_the_cell_and_converted_to_rgb() -> None:
    views = [Image.new("L", (50, 50), 128)] + [Image.new("RGBA", (300, 100), (*c, 255)) for c in COLOURS[1:]]
    grid = stitch_grid(views, CELL)
    assert grid.mode == "RGB"
    assert cell_centre_colours(grid, CELL)[0] == (128, 128, 128)
    # a cell's corners belong to its own view: nothing from a neighbour bleeds in
    assert grid.getpixel((CELL[0] - 1, CELL[1] - 1)) == (128, 128, 128)
    assert grid.getpixel((CELL[0], 0)) == COLOURS[1]


@pytest.mark.parametrize("count", [0, 5, 7])
def test_needs_six_views(count: int) -> None:
    with pytest.raises(ValueError, match="expected 6 views"):
        stitch_grid([Image.new("RGB", (4, 4))] * count, CELL)


@pytest.mark.parametrize("cell", [(0, 45), (80, -1)])
def test_cell_size_must_be_positive(cell: tuple[int, int]) -> None:
    with pytest.raises(ValueError, match="positive"):
        stitch_grid([Image.new("RGB", (4, 4))] * 6, cell)


def test_stitch_files(tmp_path: Path) -> None:
    assert_cells(stitch_grid_files(write_views(tmp_path / "src"), CELL), CELL, COLOURS)


def test_build_grids_writes_one_jpeg_per_frame(tmp_path: Path) -> None:
    frames = {"frame_a": write_views(tmp_path / "a"), "frame_b": write_views(tmp_path / "b", COLOURS[::-1])}
    grids = build_grids(frames, tmp_path / "cache", CELL, workers=2)
    assert set(grids) == {"frame_a", "frame_b"}
    assert grids["frame_a"] != grids["frame_b"]
    for key, colours in (("frame_a", COLOURS), ("frame_b", COLOURS[::-1])):
        with Image.open(grids[key]) as grid:
            assert grid.format == "JPEG"
            assert grid.size == (240, 90)
            assert_cells(grid, CELL, colours)


def test_identical_frames_share_a_file(tmp_path: Path) -> None:
    views = write_views(tmp_path / "src")
    grids = build_grids({"one": views, "two": views}, tmp_path / "cache", CELL)
    assert grids["one"] == grids["two"]
    assert len(list((tmp_path / "cache").iterdir())) == 1


def test_warm_cache_does_not_decode_or_rewrite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    frames = {"frame": write_views(tmp_path / "src")}
    first = build_grids(frames, tmp_path / "cache", CELL)["frame"]
    written = first.stat().st_mtime_ns

    def no_decoding(*args: object, **kwargs: object) -> Image.Image:
        raise AssertionError("a warm cache must not open images")

    monkeypatch.setattr(images.Image, "open", no_decoding)
    calls: list[tuple[int, int]] = []
    assert build_grids(frames, tmp_path / "cache", CELL, progress=lambda *c: calls.append(c))["frame"] == first
    assert ensure_grid(frames["frame"], tmp_path / "cache", CELL) == first
    assert first.stat().st_mtime_ns == written
    assert calls == []


def test_changed_source_is_rebuilt(tmp_path: Path) -> None:
    views = write_views(tmp_path / "src")
    cache = tmp_path / "cache"
    before = build_grids({"frame": views}, cache, CELL)["frame"]
    Image.new("RGB", SOURCE_SIZE, (255, 255, 255)).save(views[4], quality=95)
    stat = views[4].stat()
    os.utime(views[4], ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))  # coarse clocks: force a new mtime
    after = build_grids({"frame": views}, cache, CELL)["frame"]
    assert after != before
    with Image.open(after) as grid:
        assert_cells(grid, CELL, [*COLOURS[:4], (255, 255, 255), COLOURS[5]])


def test_cache_key_covers_cell_size_and_paths(tmp_path: Path) -> None:
    views = write_views(tmp_path / "src")
    cache = tmp_path / "cache"
    assert grid_cache_path(views, cache, CELL) == grid_cache_path(list(views), cache, CELL)
    assert grid_cache_path(views, cache, CELL) != grid_cache_path(views, cache, (40, 45))
    assert grid_cache_path(views, cache, CELL) != grid_cache_path(views[::-1], cache, CELL)
    assert grid_cache_path(views, cache, CELL).parent == cache
    assert grid_cache_path(views, cache, CELL).name.startswith("grid-")


def test_progress_counts_built_grids(tmp_path: Path) -> None:
    frames = {f"frame_{i}": write_views(tmp_path / str(i), COLOURS[i:] + COLOURS[:i]) for i in range(3)}
    calls: list[tuple[int, int]] = []
    build_grids(frames, tmp_path / "cache", CELL, workers=2, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 3), (2, 3), (3, 3)]


def test_concurrent_builds_agree_and_leave_no_temporary_files(tmp_path: Path) -> None:
    frames = {f"frame_{i}": write_views(tmp_path / str(i), COLOURS[i:] + COLOURS[:i]) for i in range(4)}
    cache = tmp_path / "cache"
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: build_grids(frames, cache, CELL, workers=2), range(4)))
    assert all(result == results[0] for result in results)
    assert sorted(cache.iterdir()) == sorted(results[0].values())
    for i, path in enumerate(results[0].values()):
        with Image.open(path) as grid:
            assert_cells(grid, CELL, COLOURS[i:] + COLOURS[:i])


def test_missing_source_names_the_file(tmp_path: Path) -> None:
    views = write_views(tmp_path / "src")
    views[2].unlink()
    with pytest.raises(FileNotFoundError, match="CAM_FRONT_RIGHT"):
        build_grids({"frame": views}, tmp_path / "cache", CELL)


def test_unreadable_source_leaves_no_cache_entry(tmp_path: Path) -> None:
    views = write_views(tmp_path / "src")
    views[1].write_bytes(b"not an image")
    cache = tmp_path / "cache"
    with pytest.raises(OSError, match="CAM_FRONT"):
        build_grids({"frame": views}, cache, CELL)
    assert not cache.exists() or list(cache.iterdir()) == []


def test_failed_save_removes_the_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "cache" / "out.jpg"
    with pytest.raises(KeyError):
        save_atomically(Image.new("RGB", (4, 4)), target, "NO-SUCH-FORMAT")
    assert list(target.parent.iterdir()) == []


def test_saved_file_is_readable_by_others(tmp_path: Path) -> None:
    target = tmp_path / "out.png"
    save_atomically(Image.new("RGB", (4, 4)), target, "PNG")
    assert target.stat().st_mode & 0o777 == 0o644
