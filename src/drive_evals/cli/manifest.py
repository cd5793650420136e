"""`drive-evals manifest write|verify DIR`: the command around the checksum manifests of `drive_evals.manifest`.

It knows which files each benchmark's data has (`--drivelmm-o1 TEST_JSON` lists only the nuScenes files a test
file names, since a whole nuScenes root is hundreds of gigabytes); the checksum logic knows none of that.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from drive_evals.errors import DataValidationError
from drive_evals.manifest import MANIFEST_NAME, manifest_path, read_manifest, verify_manifest, write_manifest


def drivelmm_o1_files(test_file: Path) -> list[str]:
    """The nuScenes files a DriveLMM-o1 test file names: six cameras per record and the LiDAR sweeps it gives."""
    from drive_evals.drivelmm_o1.dataset import lidar_relative  # lazy: `drive-evals --help` loads no benchmark
    from drive_evals.drivelmm_o1.records import load_records

    names: list[str] = []
    for record in load_records(test_file):
        names.extend(record.images)
        if record.lidar is not None:
            names.append(lidar_relative(record.lidar))
    return list(dict.fromkeys(names))


def add_manifest_command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`drive-evals manifest write|verify DIR`."""
    parser = subparsers.add_parser(
        "manifest",
        help="write or check the sha256 manifest of a local data directory",
        description=f"Write or verify {MANIFEST_NAME} at the root of a local data directory (sha256sum format). "
        "Tasks verify the files a run uses against it before any model call.",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    write = actions.add_parser("write", help="hash the data files into DIR/" + MANIFEST_NAME)
    write.add_argument("root", metavar="DIR", type=Path, help="SURDS snapshot root or nuScenes root")
    write.add_argument(
        "--drivelmm-o1",
        metavar="TEST_JSON",
        type=Path,
        help="list only the nuScenes files this DriveLMM-o1 test file names (cameras and LiDAR)",
    )
    verify = actions.add_parser("verify", help="check every file DIR/" + MANIFEST_NAME + " lists")
    verify.add_argument("root", metavar="DIR", type=Path)
    parser.set_defaults(handler=run_manifest_command)


def run_manifest_command(args: argparse.Namespace) -> int:
    root = Path(args.root).expanduser().resolve()
    try:
        if args.action == "write":
            files = drivelmm_o1_files(args.drivelmm_o1) if args.drivelmm_o1 else None
            written = write_manifest(root, files)
            print(f"wrote {written} ({len(read_manifest(root) or {})} files)")
        else:
            entries = read_manifest(root)
            if entries is None:
                print(f"drive-evals manifest: no {MANIFEST_NAME} in {root}", file=sys.stderr)
                return 1
            print(f"{verify_manifest(root, entries)} files match {manifest_path(root)}")
    except DataValidationError as error:
        print(f"drive-evals manifest: {error}", file=sys.stderr)
        return 1
    return 0
