"""Bad data fails the task before any model call, with one error that names the record and the file.

Each case breaks a copy of the demo data in one way and builds the task as Inspect does; one subprocess run
shows that the real command line stops before a single request reaches the (fake) model server.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from fakeserver import FakeModelServer
from PIL import Image

from drive_evals.data import demo_dir
from drive_evals.drivelmm_o1.records import TEST_FILE
from drive_evals.drivelmm_o1.task import drivelmm_o1
from drive_evals.errors import DataValidationError, ParameterError
from drive_evals.manifest import MANIFEST_NAME, write_manifest
from drive_evals.surds.records import METADATA_FILE
from drive_evals.surds.task import surds

from .harness import OPENAI_MODEL, TASKS, cli_env, run_cli

Breaker = Callable[[Path], tuple[str, ...]]
"""Breaks a data copy in place; returns the texts the error must contain (record and file)."""


def surds_copy(tmp_path: Path) -> Path:
    root = tmp_path / "surds"
    shutil.copytree(demo_dir("surds"), root)
    return root


def metadata_lines(root: Path) -> list[str]:
    return (root / METADATA_FILE).read_text().splitlines()


def first_image(root: Path) -> tuple[int, str]:
    """(line number, file_name) of the first metadata line: its image is used by the demo units."""
    return 1, json.loads(metadata_lines(root)[0])["file_name"]


def truncate(root: Path) -> tuple[str, ...]:
    line, name = first_image(root)
    path = root / "validation" / name
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    return f"{METADATA_FILE}:{line}", name, "not a readable image"


def corrupt(root: Path) -> tuple[str, ...]:
    line, name = first_image(root)
    (root / "validation" / name).write_bytes(b"RIFF\x00\x00\x00\x00WEBPnot an image at all")
    return f"{METADATA_FILE}:{line}", name, "not a readable image"


def resize(root: Path) -> tuple[str, ...]:
    line, name = first_image(root)
    Image.new("RGB", (800, 450), "grey").save(root / "validation" / name, "WEBP")
    return f"{METADATA_FILE}:{line}", name, "image is 800x450, expected 1600x900"


def delete(root: Path) -> tuple[str, ...]:
    line, name = first_image(root)
    (root / "validation" / name).unlink()
    return f"{METADATA_FILE}:{line}", name, "image not found"


def escape(root: Path) -> tuple[str, ...]:
    lines = metadata_lines(root)
    record = json.loads(lines[0])
    record["file_name"] = "../../../outside.webp"
    (root / METADATA_FILE).write_text("\n".join([json.dumps(record), *lines[1:]]) + "\n")
    return f"{METADATA_FILE}:1", "../../../outside.webp", "escapes the data directory"


def malformed_line(root: Path) -> tuple[str, ...]:
    lines = metadata_lines(root)
    lines[2] = lines[2][: len(lines[2]) // 2]
    (root / METADATA_FILE).write_text("\n".join(lines) + "\n")
    return f"{METADATA_FILE}:3", "invalid JSON"


def altered(root: Path) -> tuple[str, ...]:
    """Valid, right size, decodes: only the checksum manifest can tell the bytes changed."""
    write_manifest(root)
    _, name = first_image(root)
    Image.new("RGB", (1600, 900), "grey").save(root / "validation" / name, "WEBP")
    return MANIFEST_NAME, f"validation/{name}", "differs from the manifest"


@pytest.mark.parametrize(
    "breaker", [truncate, corrupt, resize, delete, escape, malformed_line, altered], ids=lambda b: b.__name__
)
def test_surds_bad_data_is_one_clear_error(tmp_path: Path, breaker: Breaker) -> None:
    root = surds_copy(tmp_path)
    expected = breaker(root)
    with pytest.raises(DataValidationError) as caught:
        surds(data=str(root))
    message = str(caught.value)
    assert all(text in message for text in expected), message


def test_surds_broken_line_and_corrupt_images_are_reported_together(tmp_path: Path) -> None:
    """Before (main at 2c3e92f): the broken line alone; the images only once it was fixed."""
    root = surds_copy(tmp_path)
    line_texts = malformed_line(root)
    names = [json.loads(line)["file_name"] for line in metadata_lines(root)[3:]]
    broken = list(dict.fromkeys(names))[:2]
    for name in broken:
        (root / "validation" / name).write_bytes(b"RIFF\x00\x00\x00\x00WEBPnot an image at all")
    with pytest.raises(DataValidationError) as caught:
        surds(data=str(root))
    message = str(caught.value)
    assert all(text in message for text in line_texts), message
    assert all(message.count(f"file_name {name!r}: not a readable image") == 1 for name in broken), message
    assert message.startswith("3 problem(s)"), message


def test_surds_empty_selection(tmp_path: Path) -> None:
    for subsets in ("", " , "):
        with pytest.raises(ParameterError, match="no subset selected"):
            surds(data="demo", subsets=subsets)
    root = surds_copy(tmp_path)
    singles = [line for line in metadata_lines(root) if len(json.loads(line)["descs"]) == 1]
    (root / METADATA_FILE).write_text("\n".join(singles) + "\n")
    with pytest.raises(DataValidationError, match="subset 'distance' has no units in these"):
        surds(data=str(root), subsets="distance")


def test_surds_manifest_covers_only_the_files_a_run_uses(tmp_path: Path) -> None:
    root = surds_copy(tmp_path)
    write_manifest(root)
    assert surds(data=str(root), subsets="depth").dataset
    unused = root / "validation" / "unused.webp"
    unused.write_bytes(b"anything")
    assert surds(data=str(root), subsets="depth").dataset, "a file the run does not use is not hashed"


# --- DriveLMM-o1 ------------------------------------------------------------------------------------------------


def drivelmm_o1_copy(tmp_path: Path) -> tuple[Path, Path]:
    """(test file, nuScenes root) copies of the demo."""
    shutil.copytree(demo_dir("drivelmm_o1"), tmp_path / "o1")
    return tmp_path / "o1" / TEST_FILE, tmp_path / "o1" / "nuscenes"


def drivelmm_o1_records(test_file: Path) -> list[dict[str, object]]:
    records = json.loads(test_file.read_text(encoding="utf-8"))
    assert isinstance(records, list)
    return records


def first_camera(test_file: Path) -> tuple[str, str]:
    record = drivelmm_o1_records(test_file)[0]
    images = record["image"]
    assert isinstance(images, list)
    return str(record["idx"]), str(images[0])


def drivelmm_o1_truncate(test_file: Path, root: Path) -> tuple[str, ...]:
    idx, name = first_camera(test_file)
    path = root / name
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    return idx, name, "truncated JPEG"


def drivelmm_o1_delete(test_file: Path, root: Path) -> tuple[str, ...]:
    idx, name = first_camera(test_file)
    (root / name).unlink()
    return idx, name, "not found"


def drivelmm_o1_escape(test_file: Path, root: Path) -> tuple[str, ...]:
    records = drivelmm_o1_records(test_file)
    records[0]["image"] = ["../../CAM_FRONT_LEFT/escape.jpg", *records[0]["image"][1:]]  # type: ignore[index]
    test_file.write_text(json.dumps(records), encoding="utf-8")
    return str(records[0]["idx"]), "../../CAM_FRONT_LEFT/escape.jpg", "escapes the nuScenes root"


def drivelmm_o1_camera_mixup(test_file: Path, root: Path) -> tuple[str, ...]:
    records = drivelmm_o1_records(test_file)
    images = records[0]["image"]
    assert isinstance(images, list)
    records[0]["image"] = [images[1], *images[1:]]
    test_file.write_text(json.dumps(records), encoding="utf-8")
    return str(records[0]["idx"]), "field 'image'", "the order cannot be restored"


def drivelmm_o1_malformed(test_file: Path, root: Path) -> tuple[str, ...]:
    records = drivelmm_o1_records(test_file)
    del records[1]["question"]
    test_file.write_text(json.dumps(records), encoding="utf-8")
    return "record 1", str(records[1]["idx"]), "field 'question'"


def drivelmm_o1_altered(test_file: Path, root: Path) -> tuple[str, ...]:
    from drive_evals.drivelmm_o1.benchmark import nuscenes_files

    write_manifest(root, nuscenes_files(test_file))
    _, name = first_camera(test_file)
    Image.new("RGB", (1600, 900), "grey").save(root / name, "JPEG")
    return MANIFEST_NAME, name, "differs from the manifest"


@pytest.mark.parametrize(
    "breaker",
    [
        drivelmm_o1_truncate,
        drivelmm_o1_delete,
        drivelmm_o1_escape,
        drivelmm_o1_camera_mixup,
        drivelmm_o1_malformed,
        drivelmm_o1_altered,
    ],
    ids=lambda b: b.__name__,
)
def test_drivelmm_o1_bad_data_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, breaker: Callable[[Path, Path], tuple[str, ...]]
) -> None:
    monkeypatch.setenv("DRIVE_EVALS_CACHE", str(tmp_path / "derived"))
    test_file, root = drivelmm_o1_copy(tmp_path)
    expected = breaker(test_file, root)
    with pytest.raises(DataValidationError) as caught:
        drivelmm_o1(data=str(test_file), nuscenes_root=str(root), judge=False)
    message = str(caught.value)
    assert all(text in message for text in expected), message


@pytest.mark.slow  # `inspect` subprocesses
@pytest.mark.parametrize("task", TASKS)
def test_bad_data_stops_the_command_line_before_any_request(tmp_path: Path, task: str) -> None:
    """`inspect eval` on broken data: the error names the record and the file, and the server sees nothing."""
    if task == TASKS[0]:
        data = surds_copy(tmp_path)
        expected, task_args = malformed_line(data), ["-T", f"data={data}"]
    else:
        test_file, root = drivelmm_o1_copy(tmp_path)
        expected, task_args = (
            drivelmm_o1_truncate(test_file, root),
            ["-T", f"data={test_file}", "-T", f"nuscenes_root={root}"],
        )
    with FakeModelServer() as server:
        args = ["eval", task, "--model", OPENAI_MODEL, *task_args]
        run = run_cli([*args, "--log-dir", str(tmp_path / "logs")], cli_env(server, tmp_path), tmp_path)
        assert server.requests == [] and server.rejections == []
    # Inspect prints the message with rich, wrapped at the terminal width (80 columns here), folding long paths
    output = "".join((run.stdout + run.stderr).split())
    assert all("".join(text.split()) in output for text in expected), output[-3000:]
