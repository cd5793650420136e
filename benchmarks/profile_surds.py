"""Where a SURDS run's CPU goes: a py-spy profile of `inspect eval drive_evals/surds`, split by owner.

Samples a run of `--limit` units against the instant fake server and attributes every stack sample to the
innermost frame owned by a known component: drive_evals, the HTTP client (httpx/httpcore), the openai SDK,
Inspect's logging (transcript, realtime sample buffer, log file), Inspect's model layer, Inspect's other machinery,
or start-up imports. Needs `pip install py-spy`. Run: `python benchmarks/profile_surds.py [--limit N] [-- OPTIONS]`
(options after `--` go to `inspect eval`, e.g. `-- --no-log-realtime`).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from common import report, table
from fullsize_data import bench_dir, ensure_surds
from instant_server import InstantServer

LIMIT = 600
SAMPLE_RATE = 50
OWNERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "idle waits (worker threads, event loop)",
        ("Condition.wait (threading", "EpollSelector.select (selectors", "_worker (concurrent/futures/thread"),
    ),
    ("start-up imports", ("<frozen importlib",)),
    ("HTTP client (httpx, httpcore, sockets)", ("(httpx", "(httpcore", "(anyio/", "(asyncio/selector_events")),
    ("openai SDK (request building, response parsing)", ("(openai/",)),
    ("reading and base64-encoding images (the floor's work)", ("(inspect_ai/_util/images.py", "(base64")),
    (
        "Inspect logging (transcript, realtime buffer, log file)",
        (
            *("(inspect_ai/log/", "(inspect_ai/_eval/task/log.py", "(inspect_ai/event/", "_transcript.py"),
            *("(inspect_ai/_util/zipfile.py", "(inspect_ai/_util/atomic_write.py", "(inspect_ai/_util/json.py"),
            "(inspect_ai/_util/hash.py",
        ),
    ),
    ("Inspect metrics (live display, results)", ("(inspect_ai/_eval/task/results.py", "(inspect_ai/scorer/")),
    ("Inspect model layer (events, retries, usage)", ("(inspect_ai/model/",)),
    ("drive_evals (dataset, solver, scorer, metrics)", ("drive_evals/",)),
    ("Inspect other (scheduler, display, metrics)", ("(inspect_ai/",)),
)
"""Checked from the innermost frame outwards; the first frame that matches names the owner of the sample. py-spy
writes installed packages' paths from the package folder (`(openai/_base_client.py:2085)`)."""
OTHER = "other (interpreter, event loop, threads)"


def owner(stack: list[str]) -> str:
    for frame in reversed(stack):
        for name, patterns in OWNERS:
            if any(pattern in frame for pattern in patterns):
                return name
    return OTHER


def shares(raw: Path) -> tuple[Counter[str], int]:
    counts: Counter[str] = Counter()
    for line in raw.read_text(encoding="utf-8").splitlines():
        stack, _, number = line.rpartition(" ")
        if stack:
            counts[owner(stack.split(";"))] += int(number)
    return counts, sum(counts.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--limit", type=int, default=LIMIT, help=f"units to run (default {LIMIT})")
    parser.add_argument("options", nargs="*", help="extra `inspect eval` options (after --)")
    args = parser.parse_args()
    if shutil.which("py-spy") is None:
        raise SystemExit("needs py-spy: pip install py-spy")
    root = ensure_surds()
    work = Path(tempfile.mkdtemp(prefix="surds-profile-"))
    raw = bench_dir() / "profiles" / ("surds" + "".join(args.options).replace("-", "_") + ".txt")
    raw.parent.mkdir(parents=True, exist_ok=True)
    try:
        with InstantServer() as server:
            command = [
                *("py-spy", "record", "--format", "raw", "--rate", str(SAMPLE_RATE), "--output", str(raw), "--"),
                *(sys.executable, "-m", "inspect_ai", "eval", "drive_evals/surds", "--limit", str(args.limit)),
                *("--model", "openai-api/fake/bench-model", "-T", f"data={root}", "--max-connections", "16"),
                *("--log-dir", str(work / "logs"), "--display", "plain", *args.options),
            ]
            environment = {**os.environ, **server.client_env()}
            subprocess.run(command, env=environment, cwd=work, check=True, capture_output=True)
            requests = server.received
        counts, total = shares(raw)
        rows = [[name, f"{count / total:.1%}"] for name, count in counts.most_common()]
        body = table(["owner of the innermost known frame", "share of CPU samples"], rows)
        notes = [
            f"- {requests} requests, {total} samples at {SAMPLE_RATE} Hz (py-spy); the raw profile (collapsed stacks, "
            f"for speedscope or flamegraph.pl) is kept in `profiles/{raw.name}` under the bench directory "
            "(`DRIVE_EVALS_BENCH_DIR`, default `~/.cache/drive_evals/bench`)."
        ]
        command_text = " ".join(["python benchmarks/profile_surds.py", f"--limit {args.limit}", *args.options])
        report(f"Where the CPU of a SURDS run goes ({args.limit} units)", command_text, body, notes)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
