"""VLADBench from a (local, fake) Hugging Face hub: the pinned revision, only the needed files, the commit and the
TSV's MD5 in the log, a warning when the TSV is not the one VLMEvalKit expects."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakehub import COMMIT, FakeHub, serve
from inspect_runs import only_log, run_inspect

from drive_evals.data import demo_dir
from drive_evals.data_warnings import DataWarnings
from drive_evals.vladbench.dataset import md5_file
from drive_evals.vladbench.records import TSV_FILE, load_records
from drive_evals.vladbench.task import HF_REVISION

pytestmark = pytest.mark.slow  # an `inspect` subprocess against the fake hub

REPO = "someone/VLADBench_fake"
TASKS = ["Weather", "Longitudinal"]


def test_downloads_the_tsv_and_the_needed_images_at_the_pinned_revision(tmp_path: Path) -> None:
    needed = {
        name for r in load_records(demo_dir("vladbench") / TSV_FILE, TASKS, DataWarnings("t")) for name in r.images
    }
    with serve(FakeHub(REPO, demo_dir("vladbench"))) as hub:
        env = {"HF_ENDPOINT": hub.url, "HF_HOME": str(tmp_path / "hf"), "HF_HUB_DISABLE_TELEMETRY": "1"}
        args = ["eval", "drive_evals/vladbench", "--model", "chance/random", "-T", f"data={REPO}"]
        run_inspect([*args, "-T", f"tasks={','.join(TASKS)}"], tmp_path / "logs", env)
        assert set(hub.downloads) == {TSV_FILE} | needed and len(needed) == 4  # one image, three frames
    log = only_log(tmp_path / "logs")
    assert log.status == "success" and log.eval.metadata is not None
    data = log.eval.metadata["data"]
    assert (data["revision"], data["commit"]) == (HF_REVISION, COMMIT)
    assert data["tsv_md5"] == md5_file(demo_dir("vladbench") / TSV_FILE)
    assert log.eval.metadata["data_warnings"]["tsv_md5"]["count"] == 1  # the demo is not VLMEvalKit's TSV
