"""What `drive-evals run` spends before its first request and after its last answer: forked shards against new ones.

`drive-evals run` forks its shard processes once it has imported Inspect and the benchmarks
(drive_evals/cli/shard_start.py); `DRIVE_EVALS_FORK=0` starts each as a new `python -m inspect_ai` process, as on
platforms without fork. Both run the same SURDS units against the fake server answering after L seconds, in
interleaved pairs; the script reports, per way of starting: the seconds from the command's start to the server's
first request (start-up), from its last answer to the command's end (merge, headline, exit), the wall time and the
CPU time of the command and its processes. Results go to docs/performance-results.md.

Run: `python benchmarks/bench_run_startup.py [--pairs 3] [--units 200] [--connections 64]`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench_latency import LatencyServer, run_command, surds_workload
from common import INSPECT_CACHE_ENV, measure, report, table

from drive_evals.cli.run_processes import usable_cores
from drive_evals.cli.shard_start import FORK_ENV

LATENCY_S = 1.0
WAYS = {"forked from the command": "1", "new processes (`DRIVE_EVALS_FORK=0`)": "0"}
"""How the shard processes start, and the `DRIVE_EVALS_FORK` value that chooses it."""
RECOMMENDED = ["--no-log-realtime", "--no-log-images"]


@dataclass(frozen=True)
class Timing:
    start_up_s: float
    """Command start to the server's first request."""
    tail_s: float
    """The server's last answer to the command's end."""
    wall_s: float
    cpu_s: float


def timed_run(units: int, connections: int, processes: int, fork: str) -> Timing:
    workload = surds_workload()
    with LatencyServer(LATENCY_S) as server, tempfile.TemporaryDirectory(prefix="run-startup-") as tmp:
        work = Path(tmp)
        command = run_command(workload, work, connections, RECOMMENDED, processes, units)
        env = {**server.client_env(), INSPECT_CACHE_ENV: str(work / "cache"), FORK_ENV: fork}
        started = time.monotonic()
        result = measure(command, env=env, cwd=work)
        ended = time.monotonic()  # the server's clock (measure polls the process every 0.2 s)
        if result.returncode != 0:
            raise RuntimeError(f"drive-evals run failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
        first, last = server.first_and_last()
        return Timing(first - started, ended - last, result.wall_s, result.cpu_s)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--pairs", type=int, default=3, help="interleaved (forked, new processes) pairs")
    parser.add_argument("--units", type=int, default=200, help="SURDS units a run (--limit)")
    parser.add_argument("--connections", type=int, default=64)
    args = parser.parse_args()
    processes = usable_cores()
    load_before = " ".join(f"{x:.1f}" for x in os.getloadavg())
    timings: dict[str, list[Timing]] = {way: [] for way in WAYS}
    for pair in range(args.pairs):
        for way, fork in WAYS.items():
            timings[way].append(timed_run(args.units, args.connections, processes, fork))
            print(f"pair {pair + 1}, {way}: {timings[way][-1]}", flush=True)

    def cell(values: list[float]) -> str:
        return f"{statistics.median(values):.1f} s ({min(values):.1f}-{max(values):.1f})"

    rows = [
        [way, *(cell([getattr(t, field) for t in runs]) for field in ("start_up_s", "tail_s", "wall_s", "cpu_s"))]
        for way, runs in timings.items()
    ]
    header = ["shard processes", "start-up (to the first request)", "after the last answer", "wall", "CPU"]
    notes = [
        f"- `drive-evals run --processes {processes}` on {args.units} SURDS units (subsets depth, distance), "
        f"{args.connections} connections, the fake server answering after L = {LATENCY_S:g} s, "
        f"`{' '.join(RECOMMENDED)}`; cells: the median of {args.pairs} runs (their range), run in interleaved pairs.",
        f"- load average before / after: {load_before} / {' '.join(f'{x:.1f}' for x in os.getloadavg())}.",
    ]
    command = " ".join(["python", *sys.argv])
    report("Start-up and end of `drive-evals run`: forked against new processes", command, table(header, rows), notes)


if __name__ == "__main__":
    main()
