"""Efficiency against a server that answers every request after exactly L seconds, at 16-256 connections.

A harness that adds nothing finishes N requests over C connections in N x L / C seconds (the floor); efficiency is
the floor divided by the wall time. It tells whether the harness keeps a fast server busy: at 1.0 the server sets
the pace, below it the harness does. Compared: drive_evals with Inspect's defaults, drive_evals with the flags
recommended for fast servers, and evalscope 1.14.1 (same server, same SURDS subsets, `--eval-batch-size` =
connections). Results go to docs/performance.md with the load average, since the machine may be shared.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench_surds_run import MAX_TOKENS, MODEL, TEMPERATURE
from common import INSPECT_CACHE_ENV, ensure_evalscope, measure, report, table
from fullsize_data import ensure_surds
from instant_server import FakeRequest, InstantServer, instant_policy

from drive_evals.data import LocalSnapshot
from drive_evals.surds.dataset import load_surds

LATENCIES = (0.25, 1.0, 2.0)
CONNECTIONS = (16, 64, 128, 256)
SUBSETS = ("depth", "distance")
"""Two subsets, so one run is a few thousand requests: the floor at 16 connections and 2 s stays minutes long."""
RECOMMENDED = ("--no-log-realtime", "--no-log-images")
HARNESSES = ("defaults", "recommended", "evalscope")


class LatencyServer(InstantServer):
    """The instant server, answering each request after `latency` seconds (each connection has its own thread)."""

    def __init__(self, latency: float) -> None:
        super().__init__()
        self.latency = latency
        self.policy = self._answer_late

    def _answer_late(self, request: FakeRequest) -> str:
        time.sleep(self.latency)
        return instant_policy(request)


@dataclass(frozen=True)
class Cell:
    wall_s: float
    requests: int
    cpu_s: float
    """CPU time of the harness processes (user + system)."""

    def efficiency(self, latency: float, connections: int) -> float:
        return self.requests * latency / connections / self.wall_s


def surds_command(root: Path, work: Path, connections: int, extra: list[str], shard: str | None) -> list[str]:
    command = [sys.executable, "-m", "inspect_ai", "eval", "drive_evals/surds", "--model", f"openai-api/fake/{MODEL}"]
    command += ["-T", f"data={root}", "-T", f"subsets={','.join(SUBSETS)}", "--max-connections", str(connections)]
    command += [*(["-T", f"shard={shard}"] if shard else []), "--log-dir", str(work / "logs"), "--display", "plain"]
    return [*command, *extra]


def in_parallel(commands: list[list[str]]) -> list[str]:
    """One shell command starting `commands` at once and failing if any fails (the recipe in docs/performance.md)."""
    starts = "".join(f'{shlex.join(command)} & pids="$pids $!"\n' for command in commands)
    return ["sh", "-c", starts + 'status=0; for pid in $pids; do wait "$pid" || status=1; done; exit $status']


def run_drive_evals(
    server: LatencyServer, root: Path, work: Path, connections: int, extra: list[str], shards: int
) -> Cell:
    """One process, or `shards` processes (`-T shard=i/n`) sharing the connections between them."""
    if shards == 1:
        command = surds_command(root, work, connections, extra, None)
    else:
        each = connections // shards
        command = in_parallel([surds_command(root, work, each, extra, f"{i}/{shards}") for i in range(1, shards + 1)])
    start = server.received
    result = measure(command, env={**server.client_env(), INSPECT_CACHE_ENV: str(work / "cache")}, cwd=work)
    if result.returncode != 0:
        raise RuntimeError(f"inspect eval failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return Cell(result.wall_s, server.received - start, result.cpu_s)


def run_evalscope(server: LatencyServer, root: Path, work: Path, connections: int) -> Cell:
    python = ensure_evalscope()
    dataset_args = {"surds": {"dataset_id": str(root), "subset_list": list(SUBSETS)}}
    command = [str(python.parent / "evalscope"), "eval", "--model", MODEL, "--api-url", server.openai_base_url]
    command += ["--api-key", "test-key", "--eval-type", "openai_api", "--datasets", "surds"]
    command += ["--dataset-args", json.dumps(dataset_args), "--eval-batch-size", str(connections)]
    command += ["--generation-config", json.dumps({"temperature": TEMPERATURE, "max_tokens": MAX_TOKENS})]
    command += ["--work-dir", str(work / "out"), "--no-timestamp"]
    start = server.received
    result = measure(command, cwd=work)
    if result.returncode != 0:
        raise RuntimeError(f"evalscope failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return Cell(result.wall_s, server.received - start, result.cpu_s)


def inspect_options(harness: str, extra: list[str]) -> list[str]:
    return [*(RECOMMENDED if harness == "recommended" else ()), *extra]


def run_cell(
    harness: str, latency: float, connections: int, root: Path, work: Path, extra: list[str], shards: int
) -> Cell:
    with LatencyServer(latency) as server:
        if harness == "evalscope":
            return run_evalscope(server, root, work, connections)
        return run_drive_evals(server, root, work, connections, inspect_options(harness, extra), shards)


def harness_name(harness: str, extra: list[str], shards: int) -> str:
    if harness == "evalscope":
        return "evalscope 1.14.1"
    options = inspect_options(harness, extra)
    name = f"drive_evals, `{' '.join(options)}`" if options else "drive_evals, Inspect defaults"
    return name + (f", {shards} shards in parallel (connections shared)" if shards > 1 else "")


def runs(harnesses: list[str], shard_counts: list[int]) -> list[tuple[str, int]]:
    """(harness, processes) to measure: evalscope once, each drive_evals harness at each shard count."""
    return [(h, n) for h in harnesses for n in ([1] if h == "evalscope" else shard_counts)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--latency", type=float, nargs="+", default=list(LATENCIES), help="seconds per answer")
    parser.add_argument("--connections", type=int, nargs="+", default=list(CONNECTIONS))
    parser.add_argument("--harness", choices=HARNESSES, nargs="+", default=list(HARNESSES))
    parser.add_argument(
        "--inspect-option", action="append", default=[], metavar="OPTION", help="extra `inspect eval` option (repeat)"
    )
    parser.add_argument(
        "--shards", type=int, nargs="+", default=[1], help="drive_evals processes run in parallel (-T shard=i/n)"
    )
    args = parser.parse_args()
    root = ensure_surds()
    samples = load_surds(LocalSnapshot(root, "local"), list(SUBSETS), "metadata").dataset
    prompts = sum(len((s.metadata or {})["prompts"]) for s in samples)
    load_before = " ".join(f"{x:.1f}" for x in os.getloadavg())
    rows = []
    cpu_notes: list[str] = []
    for latency in args.latency:
        for harness, shards in runs(args.harness, args.shards):
            cells: list[str] = []
            cpu: list[str] = []
            for connections in args.connections:
                work = Path(tempfile.mkdtemp(prefix="latency-"))
                own_cpu = time.process_time()
                try:
                    cell = run_cell(harness, latency, connections, root, work, args.inspect_option, shards)
                finally:
                    shutil.rmtree(work, ignore_errors=True)
                cpu.append(f"{cell.cpu_s:.0f} s / {time.process_time() - own_cpu:.0f} s")
                floor = cell.requests * latency / connections
                cells.append(
                    f"{cell.wall_s:.0f} s (floor {floor:.0f} s), **{cell.efficiency(latency, connections):.2f}**"
                )
                print(
                    f"L={latency:g} {harness} x{shards} C={connections}: {cells[-1]} ({cell.requests} requests)",
                    flush=True,
                )
            rows.append([f"{latency:g} s", harness_name(harness, args.inspect_option, shards), *cells])
            cpu_notes.append(f"{rows[-1][0]}, {rows[-1][1]}: {', '.join(cpu)}")
    body = table(["L", "harness", *(f"{c} connections" for c in args.connections)], rows)
    notes = [
        f"- SURDS subsets {', '.join(SUBSETS)}: {prompts} requests a run; each cell: wall time, the floor "
        "(requests x L / connections) and the efficiency (floor / wall).",
        "- the server is the tests' fake server in the benchmark's process, answering each request after L seconds "
        "(header-only image checks); every harness runs as a subprocess with `--display plain`.",
        "- CPU time, harness processes / benchmark process (the server and the polling), per connection count: "
        + "; ".join(cpu_notes)
        + ".",
        f"- load average before / after: {load_before} / {' '.join(f'{x:.1f}' for x in os.getloadavg())}.",
    ]
    report("Efficiency against a fixed-latency server", " ".join(["python", *sys.argv]), body, notes)


if __name__ == "__main__":
    main()
