"""The official form from a (local, fake) Hugging Face hub: the JSON first, then the image tarball, whose members
are extracted byte for byte; the commit in the log."""

from __future__ import annotations

import base64
import json
import shutil
import tarfile
from pathlib import Path

import pytest
from fakehub import COMMIT, FakeHub, serve
from inspect_runs import only_log, run_inspect

from drive_evals.data import demo_dir

pytestmark = pytest.mark.slow  # an `inspect` subprocess against the fake hub

REPO = "someone/MME-RealWorld_fake"


def test_downloads_the_json_and_the_tarball_and_reads_the_images_from_it(tmp_path: Path) -> None:
    demo = demo_dir("mme_realworld_ad")
    served = tmp_path / "served"
    served.mkdir()
    shutil.copy(demo / "MME_RealWorld.json", served)
    with tarfile.open(served / "AutonomousDriving.tar.gz", "w:gz") as tar:
        tar.add(demo / "AutonomousDriving", arcname="AutonomousDriving")
    with serve(FakeHub(REPO, served)) as hub:
        env = {"HF_ENDPOINT": hub.url, "HF_HOME": str(tmp_path / "hf"), "HF_HUB_DISABLE_TELEMETRY": "1",
               "DRIVE_EVALS_CACHE": str(tmp_path / "cache")}  # fmt: skip
        args = ["eval", "drive_evals/mme_realworld_ad", "--model", "chance/random", "-T", f"data={REPO}"]
        run_inspect([*args, "-T", "subsets=Object_Count"], tmp_path / "logs", env)
        assert dict(hub.downloads) == {"MME_RealWorld.json": 1, "AutonomousDriving.tar.gz": 1}
    log = only_log(tmp_path / "logs")
    assert log.status == "success" and log.eval.metadata is not None and log.samples
    assert log.eval.metadata["data"]["commit"] == COMMIT and log.eval.metadata["data"]["layout"] == "official"
    records = {r["Question_id"]: r for r in json.loads((demo / "MME_RealWorld.json").read_text(encoding="utf-8"))}
    assert len(log.samples) == 2
    for sample in log.samples:
        sent = next(p for p in sample.input[0].content if p.type == "image")  # type: ignore[union-attr]
        uri = sample.attachments.get(sent.image.removeprefix("attachment://"), sent.image)  # type: ignore[union-attr]
        record = records[str(sample.id)]
        assert record["Category"] == "Object_Count"
        assert uri.startswith("data:image/jpeg;base64,")  # the tarball member's bytes, as they were
        assert base64.b64decode(uri.partition(",")[2]) == (demo / record["Image"]).read_bytes()
