"""A full SURDS run (9,250 requests) against an instant local OpenAI-compatible server: drive_evals vs evalscope.

The server (the tests' fake server, `instant_server.py`) runs in this process and answers at once; each harness
runs as a subprocess with the same concurrency, so its wall time, CPU time (user + system) and peak resident
memory are its own. In the same run it measures the floor: the CPU per request of only reading the image,
base64-encoding it and serialising the request body, the unavoidable work of any harness. Peak RSS is also
recorded when 10%, 50% and 100% of the requests have been served, to show memory does not grow with the run.

Run: `python benchmarks/bench_surds_run.py [--connections N] [--skip-evalscope]`.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from common import INSPECT_CACHE_ENV, MIB, Measurement, ensure_evalscope, measure, report, table
from fullsize_data import ensure_surds
from instant_server import InstantServer, marks_text, memory_marks

CONNECTIONS = 16
MODEL = "bench-model"
SURDS_PROMPTS = 9250
SURDS_UNITS = 5550
TEMPERATURE = 0.0
MAX_TOKENS = 4096
"""drive_evals' SURDS defaults, passed to evalscope too so both send the same requests."""
CPU_TARGET = 3.0
WALL_TARGET = 1.5
RSS_TARGET_MIB = 1024
LEAN_OPTIONS = ("--no-log-realtime", "--no-log-images")
"""The options the documentation recommends for full runs (see docs/performance.md)."""
LOAD_BEFORE = " ".join(f"{x:.1f}" for x in os.getloadavg())


def surds_requests(root: Path) -> list[tuple[str, Path]]:
    """(prompt, image path) of every request a full run makes, from drive_evals' own build."""
    from drive_evals.data import LocalSnapshot
    from drive_evals.surds.dataset import load_surds
    from drive_evals.surds.records import IMAGE_ROOT
    from drive_evals.surds.units import SUBSETS

    built = load_surds(LocalSnapshot(root, "local"), list(SUBSETS), "metadata")
    return [
        (prompt, root / IMAGE_ROOT / sample.metadata["image"])
        for sample in built.dataset
        if sample.metadata
        for prompt in sample.metadata["prompts"]
    ]


def floor_cpu_per_request(requests: list[tuple[str, Path]]) -> float:
    """CPU seconds per request to read the image, base64-encode it and serialise the Chat Completions body."""
    started = time.process_time()
    for prompt, path in requests:
        data = base64.b64encode(path.read_bytes()).decode()
        body = {
            "model": MODEL,
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": prompt},
                        {"type": "image_url", "image_url": {"url": f"data:image/webp;base64,{data}"}},
                    ],
                }
            ],
            "temperature": TEMPERATURE,
            "max_tokens": MAX_TOKENS,
        }
        json.dumps(body).encode()
    return (time.process_time() - started) / len(requests)


def run_inspect(
    server: InstantServer, root: Path, work: Path, connections: int, extra: list[str] | None = None
) -> tuple[Measurement, Path]:
    log_dir = work / "logs"
    command = [
        sys.executable,
        "-m",
        "inspect_ai",
        "eval",
        "drive_evals/surds",
        "--model",
        f"openai-api/fake/{MODEL}",
        "-T",
        f"data={root}",
        "--max-connections",
        str(connections),
        "--log-dir",
        str(log_dir),
        "--display",
        "plain",
        *(extra or []),
    ]
    mark = memory_marks(server, server.received, SURDS_PROMPTS)
    environment = {**server.client_env(), INSPECT_CACHE_ENV: str(work / "inspect-cache")}
    result = measure(command, env=environment, cwd=work, mark=mark)
    if result.returncode != 0:
        raise RuntimeError(f"inspect eval failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    logs = list(log_dir.glob("*.eval"))
    if len(logs) != 1:
        raise RuntimeError(f"expected one log in {log_dir}, found {logs}")
    return result, logs[0]


def run_evalscope(server: InstantServer, root: Path, work: Path, connections: int) -> tuple[Measurement, Path]:
    python = ensure_evalscope()
    out = work / "evalscope"
    command = [
        str(python.parent / "evalscope"),
        "eval",
        "--model",
        MODEL,
        "--api-url",
        server.openai_base_url,
        "--api-key",
        "test-key",
        "--eval-type",
        "openai_api",
        "--datasets",
        "surds",
        "--dataset-args",
        json.dumps({"surds": {"dataset_id": str(root)}}),
        "--generation-config",
        json.dumps({"temperature": TEMPERATURE, "max_tokens": MAX_TOKENS}),
        "--eval-batch-size",
        str(connections),
        "--work-dir",
        str(out),
        "--no-timestamp",
    ]
    result = measure(command, cwd=work)
    if result.returncode != 0:
        raise RuntimeError(f"evalscope failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result, out


def directory_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else path.stat().st_size


def row(name: str, result: Measurement, served: int, output: str) -> list[object]:
    return [
        name,
        f"{result.wall_s:.0f} s",
        f"{result.cpu_s:.0f} s",
        f"{result.cpu_s / served * 1000:.1f} ms",
        f"{result.peak_rss_mib:.0f} MiB",
        output,
        served,
    ]


def log_cell(log: Path) -> str:
    size = log.stat().st_size
    return f"{size / MIB:.0f} MiB ({size / SURDS_UNITS / 1024:.1f} KB/sample)"


def verdict(met: bool) -> str:
    return "met" if met else "MISSED"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--connections", type=int, default=CONNECTIONS, help=f"concurrency (default {CONNECTIONS})")
    parser.add_argument("--skip-evalscope", action="store_true", help="measure drive_evals only")
    parser.add_argument("--skip-lean", action="store_true", help=f"skip the run with {' '.join(LEAN_OPTIONS)}")
    args = parser.parse_args()
    root = ensure_surds()
    requests = surds_requests(root)
    floor = floor_cpu_per_request(requests)
    work = Path(tempfile.mkdtemp(prefix="surds-run-"))
    try:
        with InstantServer() as server:
            ours, log = run_inspect(server, root, work / "inspect", args.connections)
            served = server.received
            rows = [row("drive_evals, Inspect defaults", ours, served, log_cell(log))]
            fastest = ours.wall_s
            if not args.skip_lean:
                lean, lean_log = run_inspect(server, root, work / "lean", args.connections, list(LEAN_OPTIONS))
                name = f"drive_evals, `{' '.join(LEAN_OPTIONS)}`"
                rows.append(row(name, lean, server.received - served, log_cell(lean_log)))
                fastest = min(fastest, lean.wall_s)
            before = server.received
            if not args.skip_evalscope:
                theirs, out = run_evalscope(server, root, work / "evalscope-run", args.connections)
                outputs = f"{directory_bytes(out) / MIB:.0f} MiB (outputs)"
                rows.append(row("evalscope 1.14.1", theirs, server.received - before, outputs))
        per_request = ours.cpu_s / served
        notes = [
            f"- floor (read the image, base64, serialise the request; same run): **{floor * 1000:.2f} ms CPU per "
            f"request**; drive_evals with Inspect defaults uses **{per_request / floor:.0f}x** the floor "
            f"(target within {CPU_TARGET:g}x: **{verdict(per_request <= CPU_TARGET * floor)}**).",
            "- peak RSS of the default drive_evals run when 10% / 50% / 100% of the requests were served: "
            + marks_text(ours.marks)
            + f" (target under {RSS_TARGET_MIB} MiB and flat: **{verdict(ours.peak_rss_mib < RSS_TARGET_MIB)}**)"
            + (f"; with `{' '.join(LEAN_OPTIONS)}`: {marks_text(lean.marks)}." if not args.skip_lean else "."),
        ]
        if not args.skip_evalscope:
            ratio = theirs.wall_s / fastest
            theirs_per_request = theirs.cpu_s / (server.received - before)
            notes.insert(
                0,
                f"- evalscope wall / fastest drive_evals wall: **{ratio:.2f}x**; evalscope / drive_evals (defaults) "
                f"CPU per request: **{theirs_per_request / per_request:.2f}x** (target: drive_evals at least "
                f"{WALL_TARGET:g}x faster end to end: **{verdict(ratio >= WALL_TARGET)}**).",
            )
        body = table(["harness", "wall", "CPU (user+sys)", "CPU per request", "peak RSS", "log size", "requests"], rows)
        notes.append(
            f"- {args.connections} concurrent connections each (`--max-connections` / `--eval-batch-size`), "
            "`--display plain`; the fake server answers every request at once, checking only each image's header, in "
            "the benchmark's process. Load average before / after: "
            f"{LOAD_BEFORE} / {' '.join(f'{x:.1f}' for x in os.getloadavg())}."
        )
        report("SURDS full run against an instant server", " ".join(["python", *sys.argv]), body, notes)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
