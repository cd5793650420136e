"""Harness CPU per request at 16-256 connections, for drive_evals (SURDS) and for a control task, and the candidates.

The control (`control_task.py`: one image per sample, a scorer that only reads the answer) is the least an Inspect
task can cost; what SURDS costs above it is ours, what the control costs is Inspect's and the provider SDK's.
Each run is a subprocess against the fake server answering after L seconds (so requests really are in flight
together); its CPU time, less that of a start-up run of the same task (`--limit` of one unit: imports, dataset
build, log), divided by the requests, is the CPU per request. Candidates are then changed one at a time at one
connection count, against the baseline of the same table: the live metric count, score and sample metadata size,
the display, `--log-buffer`, `--max-samples` above `--max-connections`, Inspect's default logging.
CPU time, not wall time, is the measure: it is steadier on a shared machine. Results go to
docs/performance-results.md with the load average.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from bench_latency import RECOMMENDED, LatencyServer, Workload, surds_workload
from bench_surds_run import MODEL
from common import INSPECT_CACHE_ENV, measure, report, table

CONNECTIONS = (16, 32, 64, 128, 256)
LATENCY_S = 2.0
"""Long enough that at ~30 requests a second dozens of requests are in flight together, as against a real server."""
REQUESTS = 600
"""Requests a run (about; SURDS units have one or two prompts)."""
CANDIDATE_CONNECTIONS = 128
BASELINE = (*RECOMMENDED, "--display", "plain")
"""The documented recipe for fast servers; `--display plain` as a subprocess without a terminal would use."""
CONTROL_TASK = Path(__file__).with_name("control_task.py")
SURDS_METRICS = 27
"""`score_keys` giving the control as many live metrics (mean and stderr per key) as a SURDS log has: 54."""
METADATA_KB = 8
"""Padding for the metadata candidates: about what a SURDS score's metadata and sample metadata hold together."""


@dataclass(frozen=True)
class Candidate:
    """One change against the baseline: `-T` values and options added to the workload's command."""

    label: str
    workload: str
    task_args: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    replace_baseline: tuple[str, ...] | None = None
    """Options instead of BASELINE (for Inspect's defaults)."""


CANDIDATES = (
    Candidate(
        f"{2 * SURDS_METRICS} live metrics (`-T score_keys={SURDS_METRICS}`)",
        "control",
        ("-T", f"score_keys={SURDS_METRICS}"),
    ),
    Candidate(f"`Score.metadata` of {METADATA_KB} KB", "control", ("-T", f"score_metadata_kb={METADATA_KB}")),
    Candidate(f"sample metadata of {METADATA_KB} KB", "control", ("-T", f"sample_metadata_kb={METADATA_KB}")),
    Candidate("`--display none`", "control", options=("--display", "none")),
    Candidate("`--display none`", "surds", options=("--display", "none")),
    Candidate("`--log-buffer 100`", "control", options=("--log-buffer", "100")),
    Candidate("`--log-buffer 100`", "surds", options=("--log-buffer", "100")),
    Candidate(
        f"`--max-samples {2 * CANDIDATE_CONNECTIONS}`",
        "surds",
        options=("--max-samples", str(2 * CANDIDATE_CONNECTIONS)),
    ),
    Candidate(
        "Inspect's default logging (realtime buffer, images)", "control", replace_baseline=("--display", "plain")
    ),
    Candidate("Inspect's default logging (realtime buffer, images)", "surds", replace_baseline=("--display", "plain")),
)


@dataclass
class Run:
    requests: int
    cpu_s: float
    wall_s: float
    notes: list[str] = field(default_factory=list)


def control_workload() -> Workload:
    surds = surds_workload()
    images = surds.data_root
    task_args = [f"{CONTROL_TASK}@control", "--model", f"openai-api/fake/{MODEL}", "-T", f"images={images}"]
    return Workload("control", REQUESTS * 2, REQUESTS * 2, [*task_args, "-T", f"samples={REQUESTS * 2}"], {}, images)


def run_once(workload: Workload, connections: int, units: int, latency: float, extra: list[str]) -> Run:
    work = Path(tempfile.mkdtemp(prefix="request-cpu-"))
    command = [sys.executable, "-m", "inspect_ai", "eval", *workload.task_args, "--limit", str(units)]
    command += ["--max-connections", str(connections), "--log-dir", str(work / "logs"), *extra]
    try:
        with LatencyServer(latency) as server:
            env = {**server.client_env(), **workload.env, INSPECT_CACHE_ENV: str(work / "cache")}
            result = measure(command, env=env, cwd=work)
            if result.returncode != 0:
                raise RuntimeError(f"{' '.join(command)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
            return Run(server.received, result.cpu_s, result.wall_s)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def per_request_ms(run: Run, start_up: Run) -> float:
    return 1000 * (run.cpu_s - start_up.cpu_s) / max(1, run.requests - start_up.requests)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--connections", type=int, nargs="+", default=list(CONNECTIONS))
    parser.add_argument("--latency", type=float, default=LATENCY_S, help="seconds per answer")
    parser.add_argument("--requests", type=int, default=REQUESTS, help="requests per run (about)")
    parser.add_argument("--no-candidates", action="store_true", help="only the per-connection table")
    args = parser.parse_args()
    workloads = {"control": control_workload(), "surds": surds_workload()}
    load_before = " ".join(f"{x:.1f}" for x in os.getloadavg())
    units = {name: max(1, round(args.requests / w.requests_per_unit)) for name, w in workloads.items()}
    start_up = {name: run_once(w, 16, 1, args.latency, list(BASELINE)) for name, w in workloads.items()}
    rows, baseline_at = [], {}
    for name, workload in workloads.items():
        cells = []
        for connections in args.connections:
            run = run_once(workload, connections, units[name], args.latency, list(BASELINE))
            ms = per_request_ms(run, start_up[name])
            baseline_at[(name, connections)] = ms
            cells.append(f"**{ms:.1f} ms** ({run.requests} req, {run.cpu_s:.0f} s CPU, {run.wall_s:.0f} s wall)")
            print(f"{name} C={connections}: {cells[-1]}", flush=True)
        rows.append([name, f"{start_up[name].cpu_s:.1f} s", *cells])
    body = table(["task", "start-up CPU", *(f"{c} connections" for c in args.connections)], rows)
    candidate_rows = []
    if not args.no_candidates:
        connections = CANDIDATE_CONNECTIONS
        for candidate in CANDIDATES:
            workload = workloads[candidate.workload]
            options = [*(candidate.replace_baseline or BASELINE), *candidate.task_args, *candidate.options]
            run = run_once(workload, connections, units[candidate.workload], args.latency, options)
            ms = per_request_ms(run, start_up[candidate.workload])
            base = baseline_at.get((candidate.workload, connections))
            ratio = f"{ms / base:.2f}x" if base else "-"
            candidate_rows.append(
                [candidate.workload, candidate.label, f"{base:.1f} ms" if base else "-", f"{ms:.1f} ms", ratio]
            )
            print(f"{candidate.workload} {candidate.label}: {ms:.1f} ms ({ratio})", flush=True)
        body += "\n\n" + table(
            ["task", f"candidate at {connections} connections", "baseline", "with the candidate", "ratio"],
            candidate_rows,
        )
    notes = [
        f"- L = {args.latency:g} s; about {args.requests} requests a run; CPU per request = (run CPU - start-up CPU) "
        "/ (requests - start-up requests), where the start-up run is the same task with `--limit 1` (imports, "
        "dataset build, log). Baseline options: `" + " ".join(BASELINE) + "`.",
        "- control: `benchmarks/control_task.py` (one 1600x900 WebP a sample, a scorer that only reads the answer, "
        "2 live metrics); SURDS: subsets depth and distance on full-size data.",
        f"- load average before / after: {load_before} / {' '.join(f'{x:.1f}' for x in os.getloadavg())}.",
    ]
    report("Harness CPU per request", " ".join(["python", *sys.argv]), body, notes)


if __name__ == "__main__":
    main()
