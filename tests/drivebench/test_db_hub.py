"""DriveBench's question file through the real Hugging Face download code, against the local fake hub."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakehub import COMMIT, FakeHub, serve
from inspect_runs import only_log, run_inspect

from drive_evals.data import demo_dir
from drive_evals.drivebench.dataset import HF_REVISION

pytestmark = pytest.mark.slow  # an `inspect` subprocess against the fake hub


def test_question_file_from_the_hub(tmp_path: Path) -> None:
    with serve(FakeHub("someone/arena_fake", demo_dir("drivebench"))) as hub:
        root = demo_dir("drivebench") / "nuscenes"
        args = ["eval", "drive_evals/drivebench", "--model", "chance/random", "-T", "data=someone/arena_fake"]
        args += ["-T", f"nuscenes_root={root}", "-T", "judge=false"]
        env = {"HF_ENDPOINT": hub.url, "HF_HOME": str(tmp_path / "hf"), "HF_HUB_DISABLE_TELEMETRY": "1"}
        run_inspect(args, tmp_path / "logs", {**env, "DRIVE_EVALS_CACHE": str(tmp_path / "derived")})
        assert set(hub.downloads) == {"drivebench-test.json"}, "only the question file: images are local"
    log = only_log(tmp_path / "logs")
    meta = log.eval.metadata or {}
    assert meta["data"]["commit"] == COMMIT and meta["data"]["revision"] == HF_REVISION
    assert log.samples is not None and len(log.samples) == meta["records"] == 15
