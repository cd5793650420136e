"""Efficiency against a server that answers every request after exactly L seconds, at 16-256 connections.

A harness that adds nothing finishes N requests over C connections in N x L / C seconds (the floor); efficiency is
the floor divided by the wall time. It tells whether the harness keeps a fast server busy: at 1.0 the server sets
the pace, below it the harness does. The floor over the serving span (first request to last answer) is reported
too: it leaves out start-up, which a full run amortises. Compared: drive_evals with Inspect's defaults, drive_evals
with the flags recommended for fast servers, `drive-evals run --processes N` with those flags (`--harness run`),
and evalscope 1.14.1 (same server, same SURDS subsets, `--eval-batch-size` = connections). `--task drivelmm_o1`
runs DriveLMM-o1 with its judge on the same server (drive_evals only). Results go to docs/performance-results.md
with the load average, since the machine may be shared.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from bench_drivelmm import CACHE_ENV, frame_views
from bench_surds_run import MAX_TOKENS, MODEL, TEMPERATURE
from common import INSPECT_CACHE_ENV, ensure_evalscope, measure, report, table
from fullsize_data import DRIVELMM_O1_FRAMES, bench_dir, ensure_drivelmm, ensure_surds
from instant_server import FakeRequest, InstantServer, instant_policy

from drive_evals.data import LocalSnapshot
from drive_evals.drivelmm_o1.images import build_grids
from drive_evals.surds.dataset import load_surds

LATENCIES = (0.25, 1.0, 2.0)
CONNECTIONS = (16, 64, 128, 256)
SUBSETS = ("depth", "distance")
"""Two subsets, so one run is a few thousand requests: the floor at 16 connections and 2 s stays minutes long."""
FLOOR_TARGET_S = 20.0
"""Each cell runs enough units for a floor of about this many seconds (never more than the two subsets hold)."""
MAX_REQUESTS = 1500
"""...and at most about this many requests: where the harness, not the server, sets the pace (low L, many
connections), more requests only lengthen the run. `--max-requests 0` runs every unit in every cell."""
RECOMMENDED = ("--no-log-realtime", "--no-log-images")
HARNESSES = ("defaults", "recommended", "run", "evalscope")
"""`run`: `drive-evals run --processes N` (N from `--shards`, else every core) with the recommended flags."""
JUDGE_ROLE = "grader=openai-api/fake/bench-judge"
"""DriveLMM-o1's judge on the same fixed-latency server as the model."""


class LatencyServer(InstantServer):
    """The instant server, answering each request after `latency` seconds (each connection has its own thread).

    It notes when the first request arrived and the last answer was ready: the serving span, which leaves out the
    harness's start-up (imports, dataset build) and shut-down, as a long run would amortise them.
    """

    def __init__(self, latency: float) -> None:
        super().__init__()
        self.latency = latency
        self.policy = self._answer_late
        self._span_lock = threading.Lock()
        self._first: float | None = None
        self._last: float | None = None
        self._answered = 0

    def _answer_late(self, request: FakeRequest) -> str:
        with self._span_lock:
            if self._first is None:
                self._first = time.monotonic()
        time.sleep(self.latency)
        answer = instant_policy(request)
        with self._span_lock:
            self._last = time.monotonic()
            self._answered += 1
        return answer

    @property
    def answered(self) -> int:
        """Requests answered so far (each after `latency`)."""
        with self._span_lock:
            return self._answered

    def first_and_last(self) -> tuple[float, float]:
        """`time.monotonic()` at the first request's arrival and at the last answer."""
        with self._span_lock:
            if self._first is None or self._last is None:
                raise RuntimeError("no request was answered")
            return self._first, self._last

    @property
    def span_s(self) -> float:
        """Seconds from the first request's arrival to the last answer (0 before any answer)."""
        with self._span_lock:
            return (self._last - self._first) if self._first is not None and self._last is not None else 0.0


@dataclass(frozen=True)
class Cell:
    wall_s: float
    requests: int
    cpu_s: float
    """CPU time of the harness processes (user + system)."""
    span_s: float
    """The server's serving span: first request in to last answer out."""

    def floor_s(self, latency: float, connections: int) -> float:
        return self.requests * latency / connections

    def efficiency(self, latency: float, connections: int) -> float:
        return self.floor_s(latency, connections) / self.wall_s

    def serving_efficiency(self, latency: float, connections: int) -> float:
        """The floor over the serving span: how busy the harness kept the server once it was running."""
        return self.floor_s(latency, connections) / self.span_s if self.span_s else 0.0


def cell_units(latency: float, connections: int, units: int, prompts_per_unit: float, max_requests: int) -> int:
    """Units for one cell: a floor of about `FLOOR_TARGET_S`, capped at `max_requests` requests (0: no cap)."""
    wanted = FLOOR_TARGET_S * connections / latency
    if max_requests:
        wanted = min(wanted, max_requests)
    return max(1, min(units, math.ceil(wanted / prompts_per_unit)))


@dataclass(frozen=True)
class Workload:
    """What a cell runs: a task on full-size data, as `inspect eval` arguments."""

    title: str
    units: int
    requests: int
    """Requests of all units (SURDS: one per prompt; DriveLMM-o1: the answer and one judge call)."""
    task_args: list[str]
    """The task, its models and its `-T` values."""
    env: dict[str, str]
    data_root: Path
    unit_requests: tuple[int, ...] = ()
    """Requests of each unit in dataset order, where units differ (SURDS: one or two prompts)."""

    @property
    def requests_per_unit(self) -> float:
        return self.requests / self.units

    def requests_for(self, units: int) -> int:
        """Requests of the first `units` units (what `--limit units` sends)."""
        return sum(self.unit_requests[:units]) if self.unit_requests else round(units * self.requests_per_unit)


def surds_workload() -> Workload:
    root = ensure_surds()
    samples = load_surds(LocalSnapshot(root, "local"), list(SUBSETS), "metadata").dataset
    prompts = tuple(len((s.metadata or {})["prompts"]) for s in samples)
    task_args = ["drive_evals/surds", "--model", f"openai-api/fake/{MODEL}", "-T", f"data={root}"]
    task_args += ["-T", f"subsets={','.join(SUBSETS)}"]
    return Workload(f"SURDS subsets {', '.join(SUBSETS)}", len(samples), sum(prompts), task_args, {}, root, prompts)


def drivelmm_workload(frame_count: int = DRIVELMM_O1_FRAMES) -> Workload:
    """DriveLMM-o1 with its judge on the same server; the grids are built once, before any cell is timed.

    `frame_count` below 539: the first frames of the full-size data only (fullsize_data.ensure_drivelmm).
    """
    layout = ensure_drivelmm(frames=frame_count)
    records, _, frames = frame_views(layout)
    cache = bench_dir() / "latency-cache"
    build_grids(frames, cache / "grids", workers=os.cpu_count() or 1)
    task_args = ["drive_evals/drivelmm_o1", "--model", f"openai-api/fake/{MODEL}", "--model-role", JUDGE_ROLE]
    task_args += ["-T", f"data={layout.test_file}", "-T", f"nuscenes_root={layout.nuscenes_root}"]
    title = "DriveLMM-o1 with its judge"
    return Workload(title, len(records), 2 * len(records), task_args, {CACHE_ENV: str(cache)}, layout.test_file)


WORKLOADS = {"surds": surds_workload, "drivelmm_o1": drivelmm_workload}


def inspect_command(
    workload: Workload, work: Path, connections: int, extra: list[str], shard: str | None, limit: int
) -> list[str]:
    command = [sys.executable, "-m", "inspect_ai", "eval", *workload.task_args, "--limit", str(limit)]
    command += ["--max-connections", str(connections), *(["-T", f"shard={shard}"] if shard else [])]
    command += ["--log-dir", str(work / "logs"), "--display", "plain"]
    return [*command, *extra]


def in_parallel(commands: list[list[str]]) -> list[str]:
    """One shell command starting `commands` at once and failing if any fails (the recipe in docs/performance.md)."""
    starts = "".join(f'{shlex.join(command)} & pids="$pids $!"\n' for command in commands)
    return ["sh", "-c", starts + 'status=0; for pid in $pids; do wait "$pid" || status=1; done; exit $status']


def run_command(
    workload: Workload, work: Path, connections: int, extra: list[str], processes: int, units: int
) -> list[str]:
    """`drive-evals run`: `processes` shard processes, the connections and `--limit` split between them."""
    command = [sys.executable, "-m", "drive_evals.cli", "run", *workload.task_args, "--processes", str(processes)]
    command += ["--log-dir", str(work / "logs"), "--limit", str(units), "--max-connections", str(connections)]
    return [*command, "--display", "plain", *extra]


def run_drive_evals(
    server: LatencyServer,
    workload: Workload,
    work: Path,
    connections: int,
    extra: list[str],
    shards: int,
    units: int,
    one_command: bool = False,
) -> Cell:
    """One process, or `shards` processes (`-T shard=i/n`, each `units / shards`) sharing the connections: by the
    shell recipe, or with `one_command` by `drive-evals run`."""
    if one_command:
        command = run_command(workload, work, connections, extra, shards, units)
    elif shards == 1:
        command = inspect_command(workload, work, connections, extra, None, units)
    else:
        each, limit = connections // shards, math.ceil(units / shards)
        command = in_parallel(
            [inspect_command(workload, work, each, extra, f"{i}/{shards}", limit) for i in range(1, shards + 1)]
        )
    start = server.received
    env = {**server.client_env(), **workload.env, INSPECT_CACHE_ENV: str(work / "cache")}
    result = measure(command, env=env, cwd=work)
    if result.returncode != 0:
        raise RuntimeError(f"inspect eval failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return Cell(result.wall_s, server.received - start, result.cpu_s, server.span_s)


def run_evalscope(server: LatencyServer, root: Path, work: Path, connections: int, units: int) -> Cell:
    python = ensure_evalscope()
    dataset_args = {"surds": {"dataset_id": str(root), "subset_list": list(SUBSETS)}}
    command = [str(python.parent / "evalscope"), "eval", "--model", MODEL, "--api-url", server.openai_base_url]
    command += ["--api-key", "test-key", "--eval-type", "openai_api", "--datasets", "surds"]
    command += ["--dataset-args", json.dumps(dataset_args), "--eval-batch-size", str(connections)]
    command += ["--generation-config", json.dumps({"temperature": TEMPERATURE, "max_tokens": MAX_TOKENS})]
    command += ["--work-dir", str(work / "out"), "--no-timestamp"]
    command += ["--limit", str(math.ceil(units / len(SUBSETS)))]  # evalscope's limit is per subset
    start = server.received
    result = measure(command, cwd=work)
    if result.returncode != 0:
        raise RuntimeError(f"evalscope failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return Cell(result.wall_s, server.received - start, result.cpu_s, server.span_s)


def inspect_options(harness: str, extra: list[str]) -> list[str]:
    return [*(RECOMMENDED if harness in ("recommended", "run") else ()), *extra]


def run_cell(
    harness: str,
    latency: float,
    connections: int,
    workload: Workload,
    work: Path,
    extra: list[str],
    shards: int,
    units: int,
) -> Cell:
    with LatencyServer(latency) as server:
        if harness == "evalscope":
            return run_evalscope(server, workload.data_root, work, connections, units)
        options = inspect_options(harness, extra)
        return run_drive_evals(server, workload, work, connections, options, shards, units, harness == "run")


def harness_name(harness: str, extra: list[str], shards: int) -> str:
    if harness == "evalscope":
        return "evalscope 1.14.1"
    options = inspect_options(harness, extra)
    if harness == "run":
        return f"`drive-evals run --processes {shards}`, `{' '.join(options)}`"
    name = f"drive_evals, `{' '.join(options)}`" if options else "drive_evals, Inspect defaults"
    return name + (f", {shards} shards in parallel (connections shared)" if shards > 1 else "")


def runs(harnesses: list[str], shard_counts: list[int] | None) -> list[tuple[str, int]]:
    """(harness, processes) to measure: evalscope once, each drive_evals harness at each shard count (by default
    one process, and every core for `drive-evals run`)."""

    def counts(harness: str) -> list[int]:
        if harness == "evalscope":
            return [1]
        return shard_counts or [run_processes_default() if harness == "run" else 1]

    return [(h, n) for h in harnesses for n in counts(h)]


def run_processes_default() -> int:
    """What `drive-evals run` chooses here, at 16 connections or more: one process per usable core."""
    from drive_evals.cli.run_processes import usable_cores

    return usable_cores()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--latency", type=float, nargs="+", default=list(LATENCIES), help="seconds per answer")
    parser.add_argument("--connections", type=int, nargs="+", default=list(CONNECTIONS))
    parser.add_argument("--harness", choices=HARNESSES, nargs="+", default=list(HARNESSES))
    parser.add_argument(
        "--inspect-option", action="append", default=[], metavar="OPTION", help="extra `inspect eval` option (repeat)"
    )
    parser.add_argument(
        "--shards",
        type=int,
        nargs="+",
        help="drive_evals processes run in parallel (-T shard=i/n; default 1, and every core for `--harness run`)",
    )
    parser.add_argument(
        "--max-requests", type=int, default=MAX_REQUESTS, help="requests per cell at most (0: every unit)"
    )
    parser.add_argument("--task", choices=sorted(WORKLOADS), default="surds")
    args = parser.parse_args()
    if args.task != "surds" and "evalscope" in args.harness:
        parser.error("the evalscope comparison runs SURDS only: pass --harness defaults recommended")
    workload = WORKLOADS[args.task]()
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
                units = cell_units(latency, connections, workload.units, workload.requests_per_unit, args.max_requests)
                try:
                    cell = run_cell(harness, latency, connections, workload, work, args.inspect_option, shards, units)
                finally:
                    shutil.rmtree(work, ignore_errors=True)
                cpu.append(f"{cell.cpu_s:.0f} s / {time.process_time() - own_cpu:.0f} s")
                cells.append(
                    f"{cell.requests} req, floor {cell.floor_s(latency, connections):.0f} s: wall {cell.wall_s:.0f} s "
                    f"**{cell.efficiency(latency, connections):.2f}**, serving {cell.span_s:.0f} s "
                    f"**{cell.serving_efficiency(latency, connections):.2f}**"
                )
                print(
                    f"L={latency:g} {harness} x{shards} C={connections}: {cells[-1]} ({cell.requests} requests)",
                    flush=True,
                )
            rows.append([f"{latency:g} s", harness_name(harness, args.inspect_option, shards), *cells])
            cpu_notes.append(f"{rows[-1][0]}, {rows[-1][1]}: {', '.join(cpu)}")
    body = table(["L", "harness", *(f"{c} connections" for c in args.connections)], rows)
    notes = [
        f"- {workload.title} ({workload.requests} requests in all); each cell runs enough of them for a floor of "
        f"about {FLOOR_TARGET_S:g} s, at most {args.max_requests or workload.requests} (`--limit` in both harnesses; "
        "evalscope's is per subset). Each cell: the requests served, the floor (requests x L / connections), the "
        "wall time with the efficiency floor / wall (start-up included), and the serving span (the server's first "
        "request to its last answer) with the efficiency floor / span, which a long run approaches.",
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
