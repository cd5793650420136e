"""`-T data=` (and the nuScenes folders) one per benchmark, so that one comparison eval-set reads a local copy each."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log
from inspect_runs import TIMEOUT_SECONDS

from drive_evals._registry import BENCHMARKS as REGISTERED
from drive_evals.data import demo_dir
from drive_evals.errors import ParameterError
from drive_evals.kit import per_task, resolve_data

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = tuple(benchmark.key for benchmark in REGISTERED)
NUSCENES = ("drivelmm_o1", "drivebench")


def test_a_mapping_gives_each_task_its_own_value_and_names_what_is_wrong() -> None:
    folders = {"surds": "/data/surds", "vladbench": "/data/vladbench"}
    assert resolve_data("vladbench", folders) == "/data/vladbench" and resolve_data("surds", "demo") == "demo"
    assert per_task("drivebench", "nuscenes_root", None) is None
    with pytest.raises(ParameterError, match=r"data: no value for drivebench \(the mapping names surds, vladbench\)"):
        resolve_data("drivebench", folders)
    with pytest.raises(ParameterError, match=r"nuscenes_root: no value for drivelmm_o1 \(the mapping names drivelm\)"):
        per_task("drivelmm_o1", "nuscenes_root", {"drivelm": "/x"})


@pytest.mark.slow  # the README's recipe end to end, every benchmark on a chance model: about a minute
def test_the_comparison_recipe_runs_offline_on_separate_local_folders(tmp_path: Path) -> None:
    """examples/compare/run.sh (the README's eval-set) with a task config naming one local copy per benchmark, and
    each nuScenes benchmark's own nuScenes folder: every log read its own, and says so in its metadata."""
    data = tmp_path / "data"
    for name in BENCHMARKS:
        shutil.copytree(demo_dir(name), data / name)
    lines = ["data:", *(f"  {name}: {data / name}" for name in BENCHMARKS)]
    lines += ["nuscenes_root:", *(f"  {name}: {data / name / 'nuscenes'}" for name in NUSCENES)]
    (tmp_path / "tasks.yaml").write_text("\n".join(lines) + "\n")
    (tmp_path / "models.txt").write_text("{model: chance/random, model_args: {seed: 1}}\n")
    env = {
        **os.environ,
        "OFFLINE": "1",
        "MODELS": str(tmp_path / "models.txt"),
        "TASKS": str(tmp_path / "tasks.yaml"),
        "LOG_ROOT": str(tmp_path / "logs"),
        "REPORT_DIR": str(tmp_path / "report"),
    }
    command = ["bash", str(ROOT / "examples" / "compare" / "run.sh"), "--display", "none"]
    result = subprocess.run(command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=TIMEOUT_SECONDS)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    read = {}
    for info in list_eval_logs(str(tmp_path / "logs")):
        log = read_eval_log(info, header_only=True)
        assert log.status == "success", info.name
        read[log.eval.task.split("/")[-1]] = (log.eval.metadata or {})["data"]["path"]
    assert read == {name: str(data / name) for name in BENCHMARKS}
    assert (tmp_path / "report" / "report.md").is_file()
