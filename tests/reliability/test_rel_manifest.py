"""`drive-evals manifest write|verify`: sha256sum-compatible manifests, mismatches reported by file."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from drive_evals.cli import main
from drive_evals.data import demo_dir
from drive_evals.drivelmm_o1.benchmark import nuscenes_files
from drive_evals.drivelmm_o1.records import TEST_FILE
from drive_evals.errors import DataValidationError
from drive_evals.manifest import (
    MANIFEST_NAME,
    read_manifest,
    verify_manifest,
    write_manifest,
)
from drive_evals.surds.records import METADATA_FILE


@pytest.fixture
def surds_root(tmp_path: Path) -> Path:
    root = tmp_path / "surds"
    shutil.copytree(demo_dir("surds"), root)
    return root


def test_write_then_verify_from_the_command_line(surds_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["manifest", "write", str(surds_root)]) == 0
    entries = read_manifest(surds_root)
    assert entries is not None and METADATA_FILE in entries and MANIFEST_NAME not in entries
    assert len(entries) == sum(1 for path in surds_root.rglob("*") if path.is_file()) - 1
    assert main(["manifest", "verify", str(surds_root)]) == 0
    assert f"{len(entries)} files match" in capsys.readouterr().out


@pytest.mark.skipif(shutil.which("sha256sum") is None, reason="coreutils sha256sum not installed")
def test_manifest_is_sha256sum_format(surds_root: Path) -> None:
    write_manifest(surds_root)
    check = subprocess.run(["sha256sum", "--check", "--quiet", MANIFEST_NAME], cwd=surds_root, capture_output=True)
    assert check.returncode == 0, check.stdout + check.stderr
    written = subprocess.run(["sha256sum", f"./{METADATA_FILE}"], cwd=surds_root, capture_output=True, text=True)
    (surds_root / MANIFEST_NAME).write_text(written.stdout)
    assert verify_manifest(surds_root, [METADATA_FILE]) == 1, "a manifest written by sha256sum is read too"


def test_every_mismatch_is_named(surds_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_manifest(surds_root)
    images = sorted((surds_root / "validation" / "image").rglob("*.webp"))
    images[0].write_bytes(images[0].read_bytes() + b"\0")
    images[1].unlink()
    with pytest.raises(DataValidationError) as caught:
        verify_manifest(surds_root, [METADATA_FILE, *(p.relative_to(surds_root).as_posix() for p in images[:2])])
    message = str(caught.value)
    assert "2 problem(s)" in message
    assert f"{images[0].relative_to(surds_root).as_posix()}: sha256 " in message
    assert f"{images[1].relative_to(surds_root).as_posix()}: listed in {MANIFEST_NAME} but missing" in message
    assert main(["manifest", "verify", str(surds_root)]) == 1
    assert "2 problem(s)" in capsys.readouterr().err


def test_unlisted_and_malformed_entries(surds_root: Path) -> None:
    write_manifest(surds_root, [METADATA_FILE])
    with pytest.raises(DataValidationError, match=re.escape("validation/extra.webp: not listed")):
        verify_manifest(surds_root, ["validation/extra.webp"])
    manifest = surds_root / MANIFEST_NAME
    manifest.write_text(manifest.read_text() + "not-a-digest  some/file\n")
    with pytest.raises(DataValidationError, match=re.escape(f"{MANIFEST_NAME}:2: expected")):
        read_manifest(surds_root)


def test_write_refuses_files_outside_the_root(surds_root: Path) -> None:
    with pytest.raises(DataValidationError, match="not a file inside"):
        write_manifest(surds_root, ["../outside"])


def test_no_manifest_means_nothing_to_verify(surds_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert verify_manifest(surds_root, [METADATA_FILE]) == 0
    assert main(["manifest", "verify", str(surds_root)]) == 1
    assert f"no {MANIFEST_NAME}" in capsys.readouterr().err


def test_drivelmm_o1_manifest_lists_the_records_files(tmp_path: Path) -> None:
    data = tmp_path / "o1"
    shutil.copytree(demo_dir("drivelmm_o1"), data)
    root = data / "nuscenes"
    assert main(["manifest", "write", str(root), "--drivelmm-o1", str(data / TEST_FILE)]) == 0
    entries = read_manifest(root)
    assert entries is not None and sorted(entries) == sorted(nuscenes_files(data / TEST_FILE))
    assert any("/CAM_FRONT/" in name for name in entries) and any("LIDAR_TOP" in name for name in entries)
    assert verify_manifest(root, entries) == len(entries)
