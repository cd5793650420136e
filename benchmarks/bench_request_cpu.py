"""Harness CPU per request at 16-256 connections, for drive_evals (SURDS) and for a control task, and the candidates.

The control (`control_task.py`: one image per sample, a scorer that only reads the answer) is the least an Inspect
task can cost; what SURDS costs above it is ours, what the control costs is Inspect's and the provider SDK's.

Each run is a subprocess against the fake server answering after L seconds, so requests really are in flight
together. Its CPU per request is a slope measured inside the run: the process's CPU time is read when a tenth of
its requests have been answered and again when nine tenths have been sent, and the difference is divided by the
requests sent and answered in between (their mean). Start-up (imports, dataset build), the ramp-up before the
first answers, the tail and the final log write are outside that window, so they cannot add their noise, which in
a short run is as large as the per-request CPU itself. Each cell is the median of `--repeats` runs, with their
range. Candidates are changed one at a time at 128 connections, each measured in `--pairs` interleaved pairs with
its own baseline (baseline, candidate, baseline, candidate, ...) so that a drift in the machine's load cancels;
an effect counts only when every pair's ratio lies beyond the baseline's own spread, on the same side.
The candidates: the live metric count, score and sample metadata size, the display, `--log-buffer`,
`--max-samples` above `--max-connections`, Inspect's default logging, and with `--judge` DriveLMM-o1's second
model client (the judge) against `-T judge=false`, on the first `--drivelmm-o1-frames` frames of the full-size data.
Results go to docs/performance-results.md with the load average.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import psutil
from bench_latency import JUDGE_ROLE, RECOMMENDED, LatencyServer, Workload, drivelmm_workload, surds_workload
from bench_surds_run import MODEL
from common import INSPECT_CACHE_ENV, report, table

CONNECTIONS = (16, 32, 64, 128, 256)
LATENCY_S = 2.0
"""Long enough that at ~30-50 requests a second dozens of requests are in flight together, as against a real
server."""
REQUESTS = 400
"""Requests a run (about; SURDS units have one or two prompts)."""
REPEATS = 2
PAIRS = 3
WINDOW = (0.1, 0.9)
"""The measured window opens when this share of a run's requests has been answered and closes when this share has
been sent: both sending and answering go on throughout, with about as many requests in flight at each end."""
MIN_WINDOW_REQUESTS = 50
"""A shorter window (too few requests for those in flight at once) is refused: raise `--requests`."""
POLL_SECONDS = 0.05
CANDIDATE_CONNECTIONS = 128
BASELINE = (*RECOMMENDED, "--display", "plain")
"""The documented recipe for fast servers; `--display plain` as a subprocess without a terminal would use."""
CONTROL_TASK = Path(__file__).with_name("control_task.py")
SURDS_METRICS = 27
"""`score_keys` giving the control as many live metrics (mean and stderr per key) as a SURDS log has: 54."""
METADATA_KB = 8
"""Padding for the metadata candidates: about what a SURDS score's metadata and sample metadata hold together."""
JUDGE_FRAMES = 60
"""DriveLMM-o1 frames for `--judge`: about 500 questions, each request the same full-resolution grid as in the whole
set (which takes 26-30 minutes of CPU to generate)."""
JUDGED, UNJUDGED = "drivelmm_o1", "drivelmm_o1, judge=false"


@dataclass(frozen=True)
class Candidate:
    """One change against a baseline: `-T` values and options added to the workload's command."""

    label: str
    workload: str
    task_args: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    replace_baseline: tuple[str, ...] | None = None
    """Options instead of BASELINE (for Inspect's defaults)."""
    baseline_workload: str | None = None
    """The workload the baseline runs, when not the candidate's (the judge: DriveLMM-o1 without it)."""


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
VERSUS_CONTROL = Candidate("SURDS itself, against the control task", "surds", baseline_workload="control")
"""What is ours, as a pair: the same options, one task against the other, interleaved."""
JUDGE_CANDIDATE = Candidate(
    "the judge, a second model client (`--model-role grader=...`), against `-T judge=false`",
    JUDGED,
    baseline_workload=UNJUDGED,
)


@dataclass(frozen=True)
class Run:
    """One measured run: its whole cost, and the CPU and requests of its measured window."""

    requests: int
    cpu_s: float
    wall_s: float
    window_cpu_s: float
    window_requests: float

    @property
    def ms(self) -> float:
        """CPU per request in the window."""
        return 1000 * self.window_cpu_s / self.window_requests


def control_workload(requests: int) -> Workload:
    surds = surds_workload()
    images = surds.data_root
    samples = 2 * requests  # more than any run asks for, within the 5,919 images
    task_args = [f"{CONTROL_TASK}@control", "--model", f"openai-api/fake/{MODEL}", "-T", f"images={images}"]
    return Workload("control", samples, samples, [*task_args, "-T", f"samples={samples}"], {}, images)


def judge_workloads(frames: int) -> dict[str, Workload]:
    """DriveLMM-o1 with its judge, and the same without it: `-T judge=false` and no `grader` role at all."""
    judged = drivelmm_workload(frames)
    role = judged.task_args.index("--model-role")
    unjudged = [*judged.task_args[:role], *judged.task_args[role + 2 :], "-T", "judge=false"]
    return {JUDGED: judged, UNJUDGED: replace(judged, task_args=unjudged, requests=judged.units)}


def units_for(workload: Workload, requests: int) -> int:
    """The fewest units (from the dataset's start, as `--limit` takes them) that make `requests` requests."""
    units = 1
    while units < workload.units and workload.requests_for(units) < requests:
        units += 1
    return units


def tree_cpu(root: psutil.Process) -> float:
    """CPU seconds (user + system) of a process and its children, live and reaped."""
    times = root.cpu_times()
    total = times.user + times.system + times.children_user + times.children_system
    for child in root.children(recursive=True):
        try:
            child_times = child.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += child_times.user + child_times.system
    return total


def _reaped_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(workload: Workload, connections: int, units: int, latency: float, extra: Sequence[str]) -> Run:
    """One `inspect eval` run, its CPU read at the two ends of the window (polling the server's counts)."""
    expected = workload.requests_for(units)
    opens, closes = WINDOW[0] * expected, WINDOW[1] * expected
    work = Path(tempfile.mkdtemp(prefix="request-cpu-"))
    command = [sys.executable, "-m", "inspect_ai", "eval", *workload.task_args, "--limit", str(units)]
    command += ["--max-connections", str(connections), "--log-dir", str(work / "logs"), *extra]
    output = work / "output.txt"
    try:
        with LatencyServer(latency) as server, output.open("w") as sink:
            env = {**os.environ, **server.client_env(), **workload.env, INSPECT_CACHE_ENV: str(work / "cache")}
            before, started = _reaped_cpu(), time.perf_counter()
            process = subprocess.Popen(command, env=env, cwd=work, stdout=sink, stderr=subprocess.STDOUT)
            root = psutil.Process(process.pid)
            start: tuple[float, int, int] | None = None
            end: tuple[float, int, int] | None = None
            while process.poll() is None:
                sent, answered = server.received, server.answered
                try:
                    cpu = tree_cpu(root)
                except psutil.NoSuchProcess:  # exited between poll() and here
                    break
                if start is None and answered >= opens:
                    start = (cpu, sent, answered)
                if start is not None and end is None and sent >= closes:
                    end = (cpu, sent, answered)
                time.sleep(POLL_SECONDS)
            process.wait()
            wall, cpu_s = time.perf_counter() - started, _reaped_cpu() - before
            received = server.received
        if process.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed:\n{output.read_text()[-3000:]}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if start is None or end is None:
        raise RuntimeError(f"{' '.join(command)}: the window never closed ({received} of {expected} requests)")
    window = ((end[1] - start[1]) + (end[2] - start[2])) / 2
    if window < MIN_WINDOW_REQUESTS:
        raise RuntimeError(
            f"{workload.title} at {connections} connections: a window of {window:.0f} requests (at least "
            f"{MIN_WINDOW_REQUESTS}): too few requests for those in flight at once; raise --requests"
        )
    return Run(received, cpu_s, wall, end[0] - start[0], window)


def median_range(values: Sequence[float]) -> tuple[float, float, float]:
    return statistics.median(values), min(values), max(values)


def cell_text(runs: Sequence[Run]) -> str:
    middle, low, high = median_range([run.ms for run in runs])
    whole = statistics.median(run.cpu_s for run in runs)
    return (
        f"**{middle:.1f} ms** ({low:.1f}-{high:.1f}; {runs[0].requests} req, window {runs[0].window_requests:.0f}, "
        f"{whole:.0f} s CPU in all)"
    )


def verdict(ratios: Sequence[float], baseline: Sequence[float]) -> str:
    """`real` only when every pair's ratio lies beyond the baseline's relative spread, all on one side of 1."""
    if len(ratios) < 2:
        return "one pair: no verdict"
    middle, low, high = median_range(baseline)
    noise = (high - low) / middle
    if all(ratio > 1 + noise for ratio in ratios):
        return "**more CPU**"
    if all(ratio < 1 - noise for ratio in ratios):
        return "**less CPU**"
    return "no effect beyond the noise"


@dataclass(frozen=True)
class Compared:
    """A candidate's pairs: the medians of its baseline and candidate runs, and the table row."""

    baseline_ms: float
    candidate_ms: float
    row: list[str]


def measure_candidate(
    candidate: Candidate, workloads: dict[str, Workload], requests: int, latency: float, pairs: int
) -> Compared:
    """`pairs` interleaved (baseline, candidate) runs at CANDIDATE_CONNECTIONS."""
    workload = workloads[candidate.workload]
    base_workload = workloads[candidate.baseline_workload or candidate.workload]
    units = units_for(base_workload, requests)
    options = [*(candidate.replace_baseline or BASELINE), *candidate.task_args, *candidate.options]
    base_runs, runs = [], []
    for _ in range(pairs):
        base_runs.append(run_once(base_workload, CANDIDATE_CONNECTIONS, units, latency, BASELINE))
        runs.append(run_once(workload, CANDIDATE_CONNECTIONS, units, latency, options))
    ratios = [run.ms / base.ms for run, base in zip(runs, base_runs, strict=True)]
    base_ms, candidate_ms = ([run.ms for run in series] for series in (base_runs, runs))
    ratio, low, high = median_range(ratios)
    row = [
        candidate.workload
        if candidate.baseline_workload is None
        else f"{candidate.baseline_workload} -> {candidate.workload}",
        candidate.label,
        "{:.1f} ms ({:.1f}-{:.1f})".format(*median_range(base_ms)),
        "{:.1f} ms ({:.1f}-{:.1f})".format(*median_range(candidate_ms)),
        f"{ratio:.2f}x ({low:.2f}-{high:.2f})",
        verdict(ratios, base_ms),
    ]
    print(" | ".join(row), flush=True)
    return Compared(statistics.median(base_ms), statistics.median(candidate_ms), row)


def judge_note(judge: Compared) -> str:
    """What one judge call costs: a judged sample's CPU (two requests) less an unjudged sample's (one)."""
    without, with_judge = judge.baseline_ms, judge.candidate_ms
    return (
        f"- the judge: a judged sample costs 2 x {with_judge:.1f} ms = {2 * with_judge:.1f} ms (the answer and one "
        f"judge call), an unjudged one {without:.1f} ms: a judge call adds **{2 * with_judge - without:.1f} ms** "
        "(a text request with the answer and a JSON reply to validate, by its own model client)."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--connections", type=int, nargs="+", default=list(CONNECTIONS))
    parser.add_argument("--latency", type=float, default=LATENCY_S, help="seconds per answer")
    parser.add_argument("--requests", type=int, default=REQUESTS, help="requests per run (about)")
    parser.add_argument("--repeats", type=int, default=REPEATS, help="runs per cell of the connections table")
    parser.add_argument("--pairs", type=int, default=PAIRS, help="(baseline, candidate) pairs per candidate")
    parser.add_argument("--no-table", action="store_true", help="skip the per-connection table")
    parser.add_argument(
        "--table-tasks", nargs="+", choices=("control", "surds"), default=["control", "surds"], help="rows of the table"
    )
    parser.add_argument("--no-candidates", action="store_true", help="skip the candidates")
    parser.add_argument(
        "--candidate-tasks",
        nargs="+",
        choices=("control", "surds"),
        default=["control", "surds"],
        help="only the candidates of these tasks (to run the candidates in parallel benchmark processes)",
    )
    parser.add_argument("--judge", action="store_true", help="add DriveLMM-o1's judge as a candidate")
    parser.add_argument("--versus-control", action="store_true", help="add SURDS against the control as a candidate")
    parser.add_argument("--drivelmm-o1-frames", type=int, default=JUDGE_FRAMES, help="DriveLMM-o1 frames for --judge")
    args = parser.parse_args()
    workloads = {"control": control_workload(args.requests), "surds": surds_workload()}
    if args.judge:
        workloads.update(judge_workloads(args.drivelmm_o1_frames))
    load_before = " ".join(f"{x:.1f}" for x in os.getloadavg())
    sections = []
    if not args.no_table:
        rows = []
        for name in args.table_tasks:
            cells = []
            for connections in args.connections:
                units = units_for(workloads[name], args.requests)
                runs = [
                    run_once(workloads[name], connections, units, args.latency, BASELINE) for _ in range(args.repeats)
                ]
                cells.append(cell_text(runs))
                print(f"{name} C={connections}: {cells[-1]}", flush=True)
            rows.append([name, *cells])
        sections.append(table(["task", *(f"{c} connections" for c in args.connections)], rows))
    chosen = [] if args.no_candidates else [c for c in CANDIDATES if c.workload in args.candidate_tasks]
    candidates = [
        *chosen,
        *([VERSUS_CONTROL] if args.versus_control else []),
        *([JUDGE_CANDIDATE] if args.judge else []),
    ]
    compared = [measure_candidate(c, workloads, args.requests, args.latency, args.pairs) for c in candidates]
    if compared:
        header = [
            "task",
            f"candidate at {CANDIDATE_CONNECTIONS} connections",
            "baseline",
            "with the candidate",
            f"ratio (median, range over {args.pairs} pairs)",
            "verdict",
        ]
        sections.append(table(header, [c.row for c in compared]))
    notes = [
        f"- L = {args.latency:g} s; about {args.requests} requests a run. CPU per request: the run's CPU between "
        f"the moment {WINDOW[0]:.0%} of its requests were answered and the moment {WINDOW[1]:.0%} were sent, over "
        "the mean of the requests sent and answered in between (the window); start-up, ramp-up, tail and final log "
        "write are outside it. Table cells: the median of "
        f"{args.repeats} runs (their range; requests of a run, of its window, and a run's whole CPU). Baseline "
        f"options: `{' '.join(BASELINE)}`.",
        "- control: `benchmarks/control_task.py` (one 1600x900 WebP a sample, a scorer that only reads the answer, "
        "2 live metrics); SURDS: subsets depth and distance on full-size data.",
    ]
    if compared:
        notes.insert(
            1,
            f"- candidates: {args.pairs} interleaved (baseline, candidate) pairs each; a verdict other than "
            "`no effect` needs every pair's ratio beyond the baseline runs' relative range, on the same side of 1.",
        )
    if args.judge:
        notes.append(judge_note(compared[-1]))
        notes.append(
            f"- DriveLMM-o1: the first {args.drivelmm_o1_frames} frames of the full-size data "
            f"({workloads[JUDGED].units} questions; six 1600x900 JPEG views a frame in the 2x3 grid, built and cached "
            "before timing); judge "
            f"`{JUDGE_ROLE}` on the same server, answering after the same L."
        )
    notes.append(f"- load average before / after: {load_before} / {' '.join(f'{x:.1f}' for x in os.getloadavg())}.")
    report("Harness CPU per request", " ".join(["python", *sys.argv]), "\n\n".join(sections), notes)


if __name__ == "__main__":
    main()
