"""Checksum manifests of local data directories: written once by `drive-evals manifest write`, verified on load.

This module knows files and digests only, nothing of a benchmark: the command is `drive_evals/cli/manifest.py`.

A header check proves a file is an image of the right size, not that its bytes are the ones published: a
corrupt or replaced image still decodes and is silently scored. The manifest, `drive_evals.sha256` at the data
root, lists the sha256 of each file in `sha256sum` format (`<hex>  <path relative to the root>`), so
`sha256sum -c drive_evals.sha256` run in the root checks it too. When it is present, a task hashes only the
files the run uses (streamed, in a few threads) and reports every file that is missing from the manifest, gone,
or different, before any model call.

SURDS: the manifest sits at the snapshot root (beside `validation/`) and covers `validation/metadata.jsonl` and the
images. DriveLMM-o1: it sits at the nuScenes root and covers the camera (and LiDAR) files of the test records;
`--drivelmm-o1 TEST_JSON` writes exactly those, since a whole nuScenes root is hundreds of gigabytes.
"""

from __future__ import annotations

import hashlib
import os
import string
import tempfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from drive_evals.data import inside
from drive_evals.errors import DataValidationError

MANIFEST_NAME = "drive_evals.sha256"
CHUNK_BYTES = 1 << 20
"""Streaming read size: a file is never held in memory whole."""
HASH_WORKERS = 4
"""Threads overlap reading with hashing (hashlib releases the GIL on large updates): reads dominate on a cold disk
or a network filesystem; from the page cache 1,850 files of 200 KB hash in about 0.25 s either way."""
DIGEST_CHARS = 64
HEX_DIGITS = frozenset(string.hexdigits)
SHOWN_DIGEST_CHARS = 12
"""How much of each digest a mismatch message shows: enough to tell them apart."""


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()


def hash_files(root: Path, files: Sequence[str]) -> dict[str, str]:
    """sha256 of each file (paths relative to `root`), hashed in parallel."""
    with ThreadPoolExecutor(HASH_WORKERS) as pool:
        return dict(zip(files, pool.map(lambda name: sha256_file(root / name), files), strict=True))


def manifest_path(root: Path) -> Path:
    return root / MANIFEST_NAME


def read_manifest(root: Path) -> dict[str, str] | None:
    """Relative path -> sha256 from the root's manifest; None when there is no manifest."""
    path = manifest_path(root)
    if not path.is_file():
        return None
    entries: dict[str, str] = {}
    problems: list[str] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        digest, separator, name = line.partition("  ")
        name = name.removeprefix("./")  # as `find . | xargs sha256sum` writes them
        if not separator or len(digest) != DIGEST_CHARS or not set(digest) <= HEX_DIGITS or not name:
            problems.append(f"{path}:{number}: expected '<64 hex digits>  <relative path>', got {line[:120]!r}")
        elif name in entries:
            problems.append(f"{path}:{number}: {name!r} is listed twice")
        else:
            entries[name] = digest.lower()
    if problems:
        raise DataValidationError(str(path), problems)
    return entries


def verify_manifest(root: Path, files: Iterable[str]) -> int:
    """Check `files` (relative to `root`) against the root's manifest, if there is one; return how many were hashed.

    Raises one `DataValidationError` naming every file that is not listed, missing, or has another digest.
    """
    entries = read_manifest(root)
    if entries is None:
        return 0
    wanted = list(dict.fromkeys(files))
    problems = [f"{name}: not listed in {MANIFEST_NAME}" for name in wanted if name not in entries]
    listed = [name for name in wanted if name in entries]
    present = [name for name in listed if (root / name).is_file()]
    problems += [f"{name}: listed in {MANIFEST_NAME} but missing" for name in listed if name not in present]
    for name, actual in hash_files(root, present).items():
        if actual != entries[name]:
            expected = entries[name][:SHOWN_DIGEST_CHARS]
            problems.append(f"{name}: sha256 {actual[:SHOWN_DIGEST_CHARS]}… differs from the manifest's {expected}…")
    if problems:
        raise DataValidationError(f"{manifest_path(root)} (rewrite it only if the data changed on purpose)", problems)
    return len(present)


def all_files(root: Path) -> list[str]:
    """Every regular file under `root` except the manifest, as sorted POSIX paths relative to `root`."""
    names = []
    for directory, _, filenames in os.walk(root):
        for filename in filenames:
            relative = (Path(directory) / filename).relative_to(root).as_posix()
            if relative != MANIFEST_NAME:
                names.append(relative)
    return sorted(names)


def write_manifest(root: Path, files: Sequence[str] | None = None) -> Path:
    """Hash `files` (default: every file under `root`) into the root's manifest, written atomically."""
    names = sorted(dict.fromkeys(files)) if files is not None else all_files(root)
    problems = [f"{name}: not a file inside {root}" for name in names if not _inside_file(root, name)]
    if problems:
        raise DataValidationError(str(root), problems)
    digests = hash_files(root, names)
    text = "".join(f"{digests[name]}  {name}\n" for name in names)
    handle, temporary = tempfile.mkstemp(dir=root, prefix=f".{MANIFEST_NAME}-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, manifest_path(root))
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return manifest_path(root)


def _inside_file(root: Path, name: str) -> bool:
    path = inside(root, name)
    return path is not None and path.is_file()
