"""`drive-evals manifest write|verify DIR`: the command around the checksum manifests of `drive_evals.manifest`.

A benchmark whose data root holds far more than a run reads (a whole nuScenes root is hundreds of gigabytes) says
which files a run uses (`Benchmark.manifest`: DriveLMM-o1's `--drivelmm-o1 TEST_JSON` lists only the nuScenes files
a test file names); the checksum logic knows none of that.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from drive_evals._registry import BENCHMARKS
from drive_evals.errors import DataValidationError
from drive_evals.manifest import MANIFEST_NAME, manifest_path, read_manifest, verify_manifest, write_manifest

WALKS = {benchmark.key: benchmark.manifest for benchmark in BENCHMARKS if benchmark.manifest is not None}
"""Benchmark -> its file list, for the benchmarks that have one."""


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
    write.add_argument(
        "root", metavar="DIR", type=Path, help="a benchmark's data root (a snapshot folder, or the nuScenes root)"
    )
    only = write.add_mutually_exclusive_group()
    for key, walk in WALKS.items():
        only.add_argument(walk.option, dest=key, metavar=walk.metavar, type=Path, help=walk.help)
    verify = actions.add_parser("verify", help="check every file DIR/" + MANIFEST_NAME + " lists")
    verify.add_argument("root", metavar="DIR", type=Path)
    parser.set_defaults(handler=run_manifest_command)


def run_manifest_command(args: argparse.Namespace) -> int:
    root = Path(args.root).expanduser().resolve()
    try:
        if args.action == "write":
            listed = ((walk, getattr(args, key)) for key, walk in WALKS.items())
            files = next((walk.files(listing) for walk, listing in listed if listing is not None), None)
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
