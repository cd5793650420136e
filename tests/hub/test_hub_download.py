"""The real Hugging Face download path against a local hub: only the needed files, a pinned commit, clear errors."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from fakehub import COMMIT, FakeHub, serve
from inspect_runs import RUNNER, TIMEOUT_SECONDS, only_log, run_inspect

from drive_evals.data import demo_dir
from drive_evals.surds.records import METADATA_FILE, load_metadata
from drive_evals.surds.units import build_units

pytestmark = pytest.mark.slow  # `inspect` and Python subprocesses against the fake hub

REPO = "someone/SURDS_fake"
LOOKALIKE = "mydata/SURDS_eval"
"""A `data` value that reads as a local path and as a hub id; no such directory exists in the test's folder."""
SHORT_ERROR_LINES = 8
"""The one message, with Inspect's blank lines around it; before: 57 lines of doubled retry warnings first."""


def hub_env(tmp_path: Path, hub: FakeHub) -> dict[str, str]:
    return {"HF_ENDPOINT": hub.url, "HF_HOME": str(tmp_path / "hf"), "HF_HUB_DISABLE_TELEMETRY": "1"}


def needed_images(subsets: set[str]) -> set[str]:
    units = build_units(load_metadata(demo_dir("surds")))
    return {f"validation/{u.image}" for name, us in units.items() if name in subsets for u in us}


def test_downloads_only_metadata_and_needed_images(tmp_path: Path) -> None:
    with serve(FakeHub(REPO, demo_dir("surds"))) as hub:
        log_dir = tmp_path / "logs"
        args = ["eval", "drive_evals/surds", "--model", "chance/random", "-T", f"data={REPO}", "-T", "subsets=distance"]
        run_inspect(args, log_dir, hub_env(tmp_path, hub))
        log = only_log(log_dir)
        assert log.status == "success"
        assert set(hub.downloads) == {METADATA_FILE} | needed_images({"distance"})
        assert all(count == 1 for count in hub.downloads.values())
        assert log.eval.metadata is not None
        assert log.eval.metadata["data"] == {
            "source": "huggingface",
            "repo_id": REPO,
            "revision": None,
            "commit": COMMIT,
        }
        # a second run is served from the local cache: nothing is downloaded again
        run_inspect(args, tmp_path / "logs2", hub_env(tmp_path, hub))
        assert all(count == 1 for count in hub.downloads.values())


def test_unreachable_file_names_the_dataset_and_offline_route(tmp_path: Path) -> None:
    with serve(FakeHub(REPO, tmp_path / "empty")) as hub:
        (tmp_path / "empty").mkdir()
        env = {**os.environ, **hub_env(tmp_path, hub)}
        code = "from drive_evals.surds.task import surds; surds(data='someone/SURDS_fake')"
        result = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=TIMEOUT_SECONDS
        )
        assert result.returncode != 0
        assert "DataSourceError" in result.stderr
        assert "someone/SURDS_fake" in result.stderr and "-T data=DIR" in result.stderr
        assert METADATA_FILE in result.stderr


def closed_port() -> int:
    """A loopback port nothing listens on: a connection there is refused at once, like an unreachable hub."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def lookalike_error(tmp_path: Path, endpoint: str) -> str:
    """`inspect eval ... -T data=mydata/SURDS_eval` from a folder without that directory; returns stderr."""
    env = {**os.environ, "HF_ENDPOINT": endpoint, "HF_HOME": str(tmp_path / "hf"), "NO_COLOR": "1"}
    env.pop("HF_HUB_OFFLINE", None)
    args = ["eval", "drive_evals/surds", "--model", "chance/random", "-T", f"data={LOOKALIKE}", "--display", "none"]
    result = subprocess.run(
        [sys.executable, str(RUNNER), *args, "--log-dir", str(tmp_path / "logs")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=TIMEOUT_SECONDS,
    )
    assert result.returncode == 1 and not result.stdout, result.stdout + result.stderr
    assert "Retr" not in result.stderr, "no retries: they cost about 25 s offline"
    assert len(result.stderr.strip().splitlines()) <= SHORT_ERROR_LINES, result.stderr
    return " ".join(result.stderr.split())


def test_lookalike_path_with_the_hub_unreachable_names_both_readings(tmp_path: Path) -> None:
    endpoint = f"http://127.0.0.1:{closed_port()}"
    message = lookalike_error(tmp_path, endpoint)
    assert f"There is no local directory {LOOKALIKE} ({tmp_path / LOOKALIKE})." in message
    assert f"The Hugging Face hub ({endpoint}) cannot be reached to read '{LOOKALIKE}' as a dataset id" in message
    assert message.count("ConnectError") == 1 and "-T data=DIR" in message


def test_lookalike_path_with_no_such_dataset_names_both_readings(tmp_path: Path) -> None:
    """The hub answers, but has no such dataset: the local reading is named before the hub's answer."""
    with serve(FakeHub(REPO, demo_dir("surds"))) as hub:
        message = lookalike_error(tmp_path, hub.url)
    assert message.startswith(f"There is no local directory {LOOKALIKE} ({tmp_path / LOOKALIKE}).")
    assert f"Could not download validation/metadata.jsonl from the Hugging Face dataset '{LOOKALIKE}'" in message


def test_drivelmm_o1_test_file_from_the_hub(tmp_path: Path) -> None:
    with serve(FakeHub("someone/DriveLMMo1_fake", demo_dir("drivelmm_o1"))) as hub:
        log_dir = tmp_path / "logs"
        root = demo_dir("drivelmm_o1") / "nuscenes"
        args = [
            "eval",
            "drive_evals/drivelmm_o1",
            "--model",
            "chance/random",
            "-T",
            "data=someone/DriveLMMo1_fake",
            "-T",
            f"nuscenes_root={root}",
            "-T",
            "judge=false",
        ]
        run_inspect(args, log_dir, hub_env(tmp_path, hub))
        assert set(hub.downloads) == {"DriveLMMo1_TEST.json"}
        meta = only_log(log_dir).eval.metadata or {}
        assert meta["data"]["commit"] == COMMIT and meta["nuscenes_root"] == str(root)


@pytest.mark.network
@pytest.mark.skipif(
    not os.environ.get("DRIVE_EVALS_NETWORK_TESTS"), reason="set DRIVE_EVALS_NETWORK_TESTS=1 to reach the real hub"
)
def test_real_hub_metadata(tmp_path: Path) -> None:
    from drive_evals.data import open_snapshot

    snapshot = open_snapshot("bonbon-rj/SURDS_eval", "surds")
    snapshot.fetch([METADATA_FILE])
    records = load_metadata(snapshot.root)
    assert len(records) == 5919
    assert sum(len(u) for u in build_units(records).values()) == 5550
