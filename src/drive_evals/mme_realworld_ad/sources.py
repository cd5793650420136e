"""Which hosted form a data root holds (`layout`), and the default hub source of each edition.

The official images come as a tarball (`AutonomousDriving.tar.gz`, 6.15 GB); where the JSON's image paths are not
extracted beside it, the members the run needs are extracted from the tarball into the cache, byte for byte. Hub
runs download the official JSON and that tarball (EN, CN) or the Lite TSV; the parquet and Base64 chunk forms hold
every domain in files whose names the hub lists, so they are read from a local copy (`hf download`, see
docs/mme_realworld_ad.md).
"""

from __future__ import annotations

import tarfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from drive_evals.kit import DataValidationError, Snapshot, cache_dir, inside
from drive_evals.mme_realworld_ad.records import (
    AdItem,
    ImageCache,
    Problems,
    read_chunks,
    read_official,
    read_parquet,
    read_tsv,
)
from drive_evals.mme_realworld_ad.taxonomy import Edition

Layout = Literal["auto", "official", "lmms_eval", "vlmevalkit"]
LAYOUTS: tuple[Layout, ...] = ("auto", "official", "lmms_eval", "vlmevalkit")
OFFICIAL_JSON = {"en": "MME_RealWorld.json", "cn": "MME_RealWorld_CN.json"}
ARCHIVES = {"en": "AutonomousDriving.tar.gz", "cn": "MME-HD-CN.tar.gz.part_aa"}
"""The image tarballs of the official repository (the CN one holds every domain's images [unverified])."""
CHUNK_DIRS = {"en": "MME-RealWorld", "cn": "MME-RealWorld-CN"}
TSV_FILES = {"en": ("MME-RealWorld.tsv",), "cn": ("MME-RealWorld-CN.tsv",),
             "lite": ("mme_realworld_lite.tsv", "MME-RealWorld-Lite.tsv")}  # fmt: skip
PARQUET_REPOS = {
    "en": "MME-RealWorld-Lmms-eval",
    "cn": "MME-RealWorld-CN-Lmms-eval",
    "lite": "MME-RealWorld-lite-lmms-eval",
}
"""The lmms-eval dataset repositories; a folder of that name under the data root is searched too (the demo)."""
HUB_DEFAULTS: dict[Edition, str] = {
    "en": "yifanzhang114/MME-RealWorld",
    "cn": "yifanzhang114/MME-RealWorld",
    "lite": "yifanzhang114/MME-RealWorld-Base64",
}
EXTRACTED_CACHE = "mme_realworld_ad/extracted"


@dataclass(frozen=True)
class Found:
    layout: str
    files: tuple[Path, ...]


def find_form(root: Path, edition: Edition, layout: Layout) -> Found | None:
    """The first form present under `root` for `edition`, in the order official, VLMEvalKit, lmms-eval."""
    candidates: list[Found] = []
    if edition in OFFICIAL_JSON and (root / OFFICIAL_JSON[edition]).is_file():
        candidates.append(Found("official", (root / OFFICIAL_JSON[edition],)))
    chunks = sorted((root / CHUNK_DIRS[edition]).glob("*.json")) if edition in CHUNK_DIRS else []
    if chunks:
        candidates.append(Found("vlmevalkit", tuple(chunks)))
    tsv = next((root / name for name in TSV_FILES[edition] if (root / name).is_file()), None)
    if tsv:
        candidates.append(Found("vlmevalkit", (tsv,)))
    parquet = sorted((root / "data").glob("*.parquet")) or sorted(
        (root / PARQUET_REPOS[edition] / "data").glob("*.parquet")
    )
    if parquet:
        candidates.append(Found("lmms_eval", tuple(parquet)))
    return next((c for c in candidates if layout in ("auto", c.layout)), None)


def hub_files(edition: Edition) -> list[str]:
    """What a hub run downloads first (the images follow from it)."""
    return [OFFICIAL_JSON[edition]] if edition in OFFICIAL_JSON else [TSV_FILES[edition][0]]


def read_form(found: Found, problems: Problems, images: ImageCache) -> list[AdItem]:
    if found.layout == "official":
        return read_official(found.files[0], problems)
    if found.layout == "lmms_eval":
        return read_parquet(list(found.files), problems, images)
    if found.files[0].suffix == ".tsv":
        return read_tsv(found.files[0], problems, images)
    return read_chunks(list(found.files), problems, images)


def official_images(snapshot: Snapshot, items: Sequence[AdItem], edition: Edition) -> dict[str, Path]:
    """Each official item's image path: beside the JSON if extracted there, else extracted from the tarball."""
    paths: dict[str, Path] = {}
    wanted: list[str] = []
    for item in items:
        path = inside(snapshot.root, item.image)
        if path is not None and path.is_file():
            paths[item.image] = path
        elif path is not None:
            wanted.append(item.image)
    snapshot.fetch(list(paths))  # present already: named so that the data root's manifest covers them
    if not wanted or edition not in ARCHIVES:
        return paths
    archive = snapshot.root / ARCHIVES[edition]
    if not archive.is_file():
        snapshot.fetch([ARCHIVES[edition]])
        archive = snapshot.root / ARCHIVES[edition]
    if archive.is_file():
        paths.update(extract_members(archive, set(wanted)))
    return paths


def extract_members(archive: Path, wanted: set[str]) -> dict[str, Path]:
    """The wanted members of a tarball (named with or without a leading `./`), copied byte for byte to the cache."""
    stat = archive.stat()  # another archive of the same name (a new revision) gets its own folder
    target = cache_dir() / EXTRACTED_CACHE / f"{archive.name}-{stat.st_size}-{stat.st_mtime_ns}"
    found: dict[str, Path] = {}
    for name in wanted:
        done = inside(target, name)
        if done is not None and done.is_file():
            found[name] = done
    missing = wanted - set(found)
    if not missing:
        return found
    try:
        with tarfile.open(archive, "r:*") as tar:
            for member in tar:
                name = member.name.removeprefix("./")
                destination = inside(target, name)
                if name not in missing or not member.isfile() or destination is None:
                    continue
                source = tar.extractfile(member)
                if source is None:
                    continue
                destination.parent.mkdir(parents=True, exist_ok=True)
                partial = destination.with_suffix(destination.suffix + ".partial")
                partial.write_bytes(source.read())
                partial.replace(destination)
                found[name] = destination
    except (tarfile.TarError, OSError) as error:
        raise DataValidationError(str(archive), [f"{archive}: not a readable tar archive ({error})"]) from error
    return found
