"""A single-node Slurm cluster on 127.0.0.1 for one test: munged, slurmctld and slurmd, all under a temporary
directory, with their own key, socket, ports and state, stopped when the test ends.

Needs Debian's `slurm-wlm` and `munge` (`bash .ci/slurm` installs them); `SlurmCluster.missing()` says why the
cluster cannot start, for a skip reason. The daemons run as the current user (root in CI), so jobs do too.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from waiting import wait_for

DAEMONS = ("munged", "mungekey", "slurmctld", "slurmd", "sbatch", "squeue", "sinfo")
NODE = "localhost"
START_TIMEOUT_SECONDS = 120
CLUSTER_MEMORY_MB = 1000
"""The node's memory as Slurm sees it: a job asking for more (--mem) is refused at submission."""
"""Only a bound: the daemons are up within seconds even on a loaded machine."""
STOP_SECONDS = 10

SLURM_CONF = """\
ClusterName=drive-evals-test
SlurmctldHost={node}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={d_port}
SlurmUser={user}
SlurmdUser={user}
AuthType=auth/munge
AuthInfo=socket={root}/munge.socket
StateSaveLocation={root}/state
SlurmdSpoolDir={root}/spool
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd.pid
SlurmctldLogFile={root}/slurmctld.log
SlurmdLogFile={root}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmdParameters=config_overrides
NodeName={node} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={memory} State=UNKNOWN
PartitionName=debug Nodes={node} Default=YES MaxTime=INFINITE State=UP
"""
"""No cgroups, accounting or MPI: the least a node needs to run batch jobs; `config_overrides` accepts the CPU
count given here whatever the machine has."""


def _free_ports(count: int) -> list[int]:
    """`count` distinct free ports: each probe stays bound until all are chosen (one probe at a time could get the
    same port back twice, and slurmctld then failed with "Address already in use" while slurmd answered sinfo)."""
    with ExitStack() as probes:
        sockets = [probes.enter_context(socket.socket()) for _ in range(count)]
        for probe in sockets:
            probe.bind(("127.0.0.1", 0))
        return [int(probe.getsockname()[1]) for probe in sockets]


def _which(name: str) -> str | None:
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin")


def missing() -> list[str]:
    """The programs the cluster needs that are not installed."""
    return [name for name in DAEMONS if _which(name) is None]


@contextmanager
def slurm_cluster(root: Path, cpus: int = 2) -> Iterator[dict[str, str]]:
    """Start the cluster in `root` (a fresh directory); yields the environment a Slurm client needs."""
    for sub in ("state", "spool"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    root.chmod(0o755)  # munged wants its socket's directory searchable by all
    user = subprocess.run(["id", "-un"], capture_output=True, text=True, check=True).stdout.strip()
    conf = root / "slurm.conf"
    ctld_port, d_port = _free_ports(2)
    conf.write_text(
        SLURM_CONF.format(
            node=NODE, ctld_port=ctld_port, d_port=d_port, user=user, root=root, cpus=cpus, memory=CLUSTER_MEMORY_MB
        ),
        encoding="utf-8",
    )
    env = {**os.environ, "SLURM_CONF": str(conf)}
    key = root / "munge.key"
    subprocess.run([str(_which("mungekey")), "--create", f"--keyfile={key}"], check=True, capture_output=True)
    munged = [str(_which("munged")), "--foreground", "--force", f"--socket={root / 'munge.socket'}"]
    munged += [f"--key-file={key}", f"--pid-file={root / 'munged.pid'}", f"--seed-file={root / 'munged.seed'}"]
    munged += [f"--log-file={root / 'munged.log'}"]
    commands = [
        munged,
        [str(_which("slurmctld")), "-D", "-i"],
        [str(_which("slurmd")), "-D", "-N", NODE],
    ]
    daemons: list[subprocess.Popen[bytes]] = []
    try:
        for command in commands:
            name = Path(command[0]).name
            with (root / f"{name}.out").open("wb") as output:
                daemons.append(subprocess.Popen(command, env=env, stdout=output, stderr=subprocess.STDOUT))
            if name == "munged":
                wait_for(lambda: (root / "munge.socket").exists(), START_TIMEOUT_SECONDS, "munged's socket")
        wait_for(lambda: _node_idle(env), START_TIMEOUT_SECONDS, "the Slurm node to be idle", poll=0.5)
        yield env
    finally:
        for daemon in reversed(daemons):
            daemon.terminate()
        for daemon in reversed(daemons):
            try:
                daemon.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                daemon.kill()
                daemon.wait()


def _node_idle(env: dict[str, str]) -> bool:
    result = subprocess.run(
        [str(_which("sinfo")), "--noheader", "--format=%T"], env=env, capture_output=True, text=True
    )
    return result.returncode == 0 and result.stdout.strip() == "idle"


def jobs_left(env: dict[str, str]) -> int:
    """Jobs still queued or running (a merge job held by an unmet dependency counts)."""
    result = subprocess.run([str(_which("squeue")), "--noheader"], env=env, capture_output=True, text=True)
    return len(result.stdout.splitlines()) if result.returncode == 0 else -1


def wait_for_jobs(env: dict[str, str], timeout: float) -> None:
    wait_for(lambda: jobs_left(env) == 0, timeout, "every Slurm job to end", poll=1.0)
