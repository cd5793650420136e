"""The common data slips are one line each, not a list of every missing file (drive_evals.data_hints)."""

from __future__ import annotations

from pathlib import Path

import pytest

from drive_evals.data import demo_dir
from drive_evals.data_hints import missing_folders
from drive_evals.drivebench.dataset import check_images, resolve_roots
from drive_evals.drivebench.records import load_records as load_drivebench
from drive_evals.drivebench.settings import parse_settings
from drive_evals.drivelmm_o1.dataset import DEMO_NUSCENES, check_files
from drive_evals.drivelmm_o1.records import TEST_FILE, load_records
from drive_evals.errors import DataValidationError

RELATIVES = ["samples/CAM_FRONT/a.jpg", "samples/CAM_BACK/b.jpg", "sweeps/LIDAR_TOP/c.bin", "bare.jpg"]


def test_a_root_one_level_too_deep_names_its_parent(tmp_path: Path) -> None:
    (tmp_path / "samples" / "CAM_FRONT").mkdir(parents=True)
    slips = missing_folders(tmp_path / "samples", RELATIVES, "nuscenes_root")
    assert set(slips) == {"samples", "sweeps"}
    assert slips["samples"].endswith(f"pass the folder that holds it, nuscenes_root={tmp_path}")


def test_a_missing_folder_names_what_the_root_holds(tmp_path: Path) -> None:
    (tmp_path / "BitError").mkdir()
    (tmp_path / "fog").mkdir()
    slips = missing_folders(tmp_path, ["Fog/CAM_FRONT/a.jpg", "BitError/CAM_FRONT/a.jpg"], "corruption_root")
    assert slips == {"Fog": f"corruption_root={tmp_path} has no Fog/ folder (the name is case-sensitive)"}
    (tmp_path / "fog").rmdir()
    assert missing_folders(tmp_path, ["Fog/x/a.jpg"], "corruption_root")["Fog"].endswith("it holds: BitError/")


def test_drivelmm_o1_samples_folder_as_root_is_one_problem() -> None:
    root = demo_dir("drivelmm_o1") / DEMO_NUSCENES
    records = load_records(demo_dir("drivelmm_o1") / TEST_FILE)
    with pytest.raises(DataValidationError) as raised:
        check_files(records, root / "samples", lidar=False)
    assert raised.value.problems == [
        f"nuscenes_root={root / 'samples'} is the samples/ folder itself: pass the folder that holds it, "
        f"nuscenes_root={root}"
    ]
    assert check_files(records, root, lidar=False), "the right root passes"


def test_drivebench_missing_corruption_folder_is_one_problem(tmp_path: Path) -> None:
    demo = demo_dir("drivebench")
    (tmp_path / "BitError").symlink_to(demo / "corruption" / "BitError")
    records = load_drivebench(demo / "drivebench-test.json")
    settings = parse_settings("clean,fog")
    roots = resolve_roots("demo", settings, None, str(tmp_path))
    with pytest.raises(DataValidationError) as raised:
        check_images(records, settings, roots)
    assert raised.value.problems == [f"corruption_root={tmp_path} has no Fog/ folder; it holds: BitError/"]
