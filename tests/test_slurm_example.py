"""examples/slurm/ on a single-node Slurm cluster started on 127.0.0.1: a job array of shards and a dependent merge
job give the log of an unsharded run; a failed array task, re-submitted alone, sends only its missing samples."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fakeserver import FakeModelServer
from fakeserver.drive import drive_policy
from inspect_ai.log import read_eval_log
from inspect_runs import TIMEOUT_SECONDS, eval_in_process
from slurm_cluster import CLUSTER_MEMORY_MB, missing, slurm_cluster, wait_for_jobs
from test_run_processes import JUDGE, MODEL, POLICY, FailOnce, _answered, _assert_same_run

from drive_evals.drivelmm_o1.task import drivelmm_o1

pytestmark = [
    pytest.mark.slow,  # a Slurm cluster and `inspect` subprocesses
    pytest.mark.skipif(
        bool(missing()),
        reason=f"needs Debian's slurm-wlm and munge (bash .ci/slurm installs them); missing: {', '.join(missing())}",
    ),
]

SUBMIT = Path(__file__).parents[1] / "examples" / "slurm" / "submit.sh"
SHARDS = 2
TASK = "drive_evals/drivelmm_o1"
OPTIONS = ["--model", MODEL, "--model-role", f"grader={JUDGE}", "-T", "data=demo", "--max-connections", "1"]
OPTIONS += ["--max-samples", "1", "--retry-attempts", "0"]
"""One sample at a time per shard, so the failing sample's shard has finished the others first; no retry, so the
failure ends the array task."""


def _submit(env: dict[str, str], log_dir: Path, array: str | None = None) -> None:
    run_env = {**env, **({"ARRAY": array} if array else {})}
    command = ["bash", str(SUBMIT), str(SHARDS), str(log_dir), TASK, *OPTIONS]
    result = subprocess.run(command, env=run_env, capture_output=True, text=True, timeout=TIMEOUT_SECONDS)
    assert result.returncode == 0, result.stdout + result.stderr
    wait_for_jobs(env, TIMEOUT_SECONDS)


def test_job_array_and_merge_job_give_the_unsharded_run(fake_model_server: FakeModelServer, tmp_path: Path) -> None:
    server = fake_model_server
    server.policy = drive_policy(POLICY)
    whole = eval_in_process(
        TASK, tmp_path / "whole", task_args={"data": "demo"}, model=MODEL, model_roles={"grader": JUDGE}
    )
    unsharded = _answered(server)

    [*_, last] = drivelmm_o1(data="demo", judge=False, shard=f"{SHARDS}/{SHARDS}").dataset
    assert isinstance(last.input, list)
    server.policy = failing = FailOnce(drive_policy(POLICY), last.input[-1].text)
    before = _answered(server)
    log_dir = tmp_path / "run"
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"  # `inspect`, `drive-evals`
    extra = {"PATH": path, "INSPECT_CACHE_DIR": str(tmp_path / "cache"), "XDG_DATA_HOME": str(tmp_path / "data")}
    # the test node has 1,000 MB; sbatch reads this as --mem and it overrides the scripts' #SBATCH --mem defaults
    extra["SBATCH_MEM_PER_NODE"] = f"{CLUSTER_MEMORY_MB // (SHARDS + 1)}M"
    with slurm_cluster(tmp_path / "slurm") as cluster_env:
        env = {**cluster_env, **server.client_env(), **extra}
        _submit(env, log_dir)
        assert not failing.armed, "shard 2's last sample failed"
        assert not (log_dir / "merged.eval").exists(), "the merge job never ran: a shard had failed"

        _submit(env, log_dir, array=str(SHARDS))  # the failed array task alone, as examples/slurm/README.md says
        merged_path = log_dir / "merged.eval"
        assert merged_path.exists(), sorted(p.name for p in log_dir.iterdir())

    assert _answered(server) - before == unsharded, "every prompt answered as often as unsharded: none twice"
    _assert_same_run(read_eval_log(str(merged_path)), whole)
