"""Where benchmark data comes from: a Hugging Face dataset, its ModelScope mirror, a local directory, or the demo.

A task's `data` parameter names the source. Hub sources download only the files a run needs (first the
annotation file, then the images the selected units use) and pin the resolved commit, which the task records in
the log. A local directory is used in place, for offline and air-gapped machines.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

from drive_evals.errors import DataSourceError, DataValidationError, ParameterError

DEMO = "demo"
MODELSCOPE_PREFIX = "modelscope:"
HF_PREFIX = "hf:"
_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")

DOWNLOAD_WORKERS = 8
"""Parallel file downloads from a hub: enough to hide per-file latency without tripping rate limits."""
HUB_PROBE_TIMEOUT_SECONDS = 10.0
"""How long the one request that checks the hub is reachable may take. Without it, an offline machine spends
about 25 s in huggingface_hub's five retries (logged twice each) before the first download gives up."""


def read_json(path: Path) -> Any:
    """The JSON document at `path`; a missing or unreadable file is a `DataValidationError` naming it."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as error:
        raise DataValidationError(str(path), [f"{path}: not found"]) from error
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise DataValidationError(str(path), [f"{path}: not valid JSON ({error})"]) from error


def demo_dir(benchmark: str) -> Path:
    """The synthetic demo dataset shipped inside the package for `benchmark`."""
    return Path(str(resources.files("drive_evals") / "demo" / benchmark))


def cache_dir() -> Path:
    """Where drive_evals keeps derived files (stitched grids, rendered LiDAR); `DRIVE_EVALS_CACHE` overrides it."""
    configured = os.environ.get("DRIVE_EVALS_CACHE")
    base = Path(configured) if configured else Path.home() / ".cache" / "drive_evals"
    return base.expanduser()


class Snapshot(Protocol):
    """A dataset snapshot on local disk, filled on demand with the files a run needs."""

    root: Path
    fetched: dict[str, None]
    """Every file `fetch` was asked for, in order: the task kit checks them against the root's manifest."""

    def fetch(self, files: Sequence[str]) -> None:
        """Make sure `files` (paths relative to the snapshot root) are on local disk, downloading if needed."""

    def provenance(self) -> dict[str, Any]:
        """What to record in the log so that the run can be reproduced."""


@dataclass
class LocalSnapshot:
    """A directory on disk (a local copy of the official snapshot, or the bundled demo)."""

    root: Path
    source: str
    fetched: dict[str, None] = field(default_factory=dict)

    def fetch(self, files: Sequence[str]) -> None:
        """Nothing to download: presence is checked by the benchmark's validation, which names missing files."""
        self.fetched.update(dict.fromkeys(files))

    def provenance(self) -> dict[str, Any]:
        return {"source": self.source, "path": str(self.root)}


@dataclass
class HubSnapshot:
    """A Hugging Face dataset repository, resolved to one commit on first download."""

    repo_id: str
    revision: str | None
    root: Path = field(default=Path())
    commit: str | None = None
    unused_local: Path | None = None
    """The local reading of the `data` value, a directory that does not exist (None when it said `hf:`)."""
    fetched: dict[str, None] = field(default_factory=dict)

    def fetch(self, files: Sequence[str]) -> None:
        from huggingface_hub import hf_hub_download
        from huggingface_hub.utils import tqdm

        self.fetched.update(dict.fromkeys(files))
        missing = [name for name in dict.fromkeys(files) if self.commit is None or not (self.root / name).is_file()]
        if not missing:
            return
        if self.commit is None:
            self._check_reachable(missing[0])

        def download(name: str) -> Path:
            return Path(hf_hub_download(self.repo_id, name, repo_type="dataset", revision=self.commit or self.revision))

        try:
            if self.commit is None:
                first = download(missing[0])
                self.root, self.commit = _snapshot_root(first, missing[0])
                missing = missing[1:]
            with ThreadPoolExecutor(DOWNLOAD_WORKERS) as pool:
                bar = tqdm(total=len(missing), desc=f"Downloading {self.repo_id}", unit="file", disable=not missing)
                for _ in pool.map(download, missing):
                    bar.update()
                bar.close()
        except Exception as error:
            raise DataSourceError(
                self._both_readings() + _offline_hint(self.repo_id, self.revision, missing, error)
            ) from error

    def _check_reachable(self, file: str) -> None:
        """One request for `file`'s metadata, no retries: any HTTP answer means the hub is there (the download then
        reports a missing repository or file); no answer at all fails now, in seconds, naming both readings."""
        from huggingface_hub import constants, hf_hub_url
        from huggingface_hub.utils import get_session

        if constants.HF_HUB_OFFLINE:
            return  # no request is made: the download reads the local cache and says what it lacks
        url = hf_hub_url(self.repo_id, file, repo_type="dataset", revision=self.revision)
        try:
            get_session().head(url, timeout=HUB_PROBE_TIMEOUT_SECONDS)
        except Exception as error:
            raise DataSourceError(
                f"{self._both_readings()}The Hugging Face hub ({constants.ENDPOINT}) cannot be reached to read "
                f"'{self.repo_id}' as a dataset id: {type(error).__name__}: {error}. "
                f"To work offline: copy the dataset to this machine (`hf download {self.repo_id} --repo-type dataset "
                "--local-dir DIR` where there is network) and pass `-T data=DIR`."
            ) from error

    def _both_readings(self) -> str:
        if self.unused_local is None:
            return ""
        return f"There is no local directory {self.unused_local} ({self.unused_local.absolute()}). "

    def provenance(self) -> dict[str, Any]:
        return {"source": "huggingface", "repo_id": self.repo_id, "revision": self.revision, "commit": self.commit}


def _snapshot_root(downloaded: Path, relative: str) -> tuple[Path, str]:
    """Snapshot folder and commit from a file path in the hub cache (`.../snapshots/<commit>/<relative>`)."""
    root = downloaded
    for _ in Path(relative).parts:
        root = root.parent
    return root, root.name


def _offline_hint(repo_id: str, revision: str | None, files: Sequence[str], error: Exception) -> str:
    shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
    return (
        f"Could not download {shown} from the Hugging Face dataset '{repo_id}' (revision {revision or 'main'}): "
        f"{type(error).__name__}: {error}\n"
        "To work offline: copy the dataset to this machine (for example `hf download "
        f"{repo_id} --repo-type dataset --local-dir DIR` where there is network) and pass `-T data=DIR`, "
        "or set HF_HUB_OFFLINE=1 to use files already in the Hugging Face cache. "
        f"The mirror `-T data={MODELSCOPE_PREFIX}<id>` is another route."
    )


@dataclass
class ModelScopeSnapshot:
    """A ModelScope dataset repository (the mirror some regions reach more easily than Hugging Face)."""

    repo_id: str
    revision: str | None
    root: Path = field(default=Path())
    fetched: dict[str, None] = field(default_factory=dict)

    def fetch(self, files: Sequence[str]) -> None:
        self.fetched.update(dict.fromkeys(files))
        try:
            from modelscope import dataset_snapshot_download
        except ImportError as error:
            raise DataSourceError(
                "The ModelScope source needs the optional dependency: pip install 'drive_evals[modelscope]'"
            ) from error
        try:
            path = dataset_snapshot_download(self.repo_id, revision=self.revision, allow_patterns=list(files))
        except Exception as error:
            raise DataSourceError(
                f"Could not download {len(files)} file(s) from the ModelScope dataset '{self.repo_id}': "
                f"{type(error).__name__}: {error}. To work offline, copy the dataset to a directory and pass "
                "`-T data=DIR`."
            ) from error
        self.root = Path(path)

    def provenance(self) -> dict[str, Any]:
        return {"source": "modelscope", "repo_id": self.repo_id, "revision": self.revision}


def open_snapshot(data: str, benchmark: str, revision: str | None = None) -> Snapshot:
    """Resolve a `data` task parameter: `demo`, `modelscope:<id>`, `[hf:]<owner>/<name>` or a local directory."""
    if data == DEMO:
        return LocalSnapshot(demo_dir(benchmark), source="demo")
    if data.startswith(MODELSCOPE_PREFIX):
        return ModelScopeSnapshot(data.removeprefix(MODELSCOPE_PREFIX), revision)
    local = Path(data).expanduser()
    if local.is_dir():
        return LocalSnapshot(local.resolve(), source="local")
    repo_id = data.removeprefix(HF_PREFIX)
    if _REPO_ID.match(repo_id) and not local.exists():
        return HubSnapshot(repo_id, revision, unused_local=None if data.startswith(HF_PREFIX) else local)
    raise ParameterError(
        f"data={data!r} is not '{DEMO}', a '{MODELSCOPE_PREFIX}<owner>/<name>' id, a Hugging Face dataset id "
        "'<owner>/<name>', or an existing directory"
    )


def inside(root: Path, relative: str) -> Path | None:
    """`root / relative` if it stays inside `root` lexically (no `..` or absolute escapes), else None.

    The check is on the normalised path, not the resolved one: the Hugging Face cache stores snapshot files as
    symlinks into its blob store, which are legitimate members of the snapshot.
    """
    base = Path(os.path.normpath(root.absolute()))
    candidate = Path(os.path.normpath(base / relative))
    return candidate if candidate.is_relative_to(base) else None
