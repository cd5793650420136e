"""Minimal reproduction, for Inspect upstream: harness CPU per request grows with the requests in flight.

Self-contained (Inspect and the standard library only): an OpenAI-compatible server on 127.0.0.1 answers every
chat completion after L seconds; a one-line task (`generate()` on a short text prompt, `match()` scorer) runs
against it through `openai-api/repro/m` at several `--max-connections`, as a subprocess, and the script prints
the subprocess's CPU time per request, less that of a one-sample run (start-up). A harness whose per-request
work does not depend on how many requests are in flight would print the same figure in every row.

Run: `python benchmarks/inspect_repro.py [--samples 600] [--latency 2] [--connections 16 64 256]`.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

TASK = """
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.scorer import match
from inspect_ai.solver import generate


@task
def repro(samples: int = 600) -> Task:
    return Task(
        dataset=[Sample(input=f"Say yes ({i}).", target="yes") for i in range(samples)],
        solver=generate(),
        scorer=match(),
    )
"""


class Handler(BaseHTTPRequestHandler):
    latency = 2.0

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        time.sleep(self.latency)
        reply = {
            "id": "repro",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "yes"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11},
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(task_file: Path, url: str, samples: int, connections: int, work: Path) -> float:
    """CPU seconds of one `inspect eval` subprocess."""
    env = {**os.environ, "REPRO_API_KEY": "none", "REPRO_BASE_URL": url}
    command = [sys.executable, "-m", "inspect_ai", "eval", f"{task_file}@repro", "-T", f"samples={samples}"]
    command += ["--model", "openai-api/repro/m", "--max-connections", str(connections), "--display", "plain"]
    command += ["--no-log-realtime", "--log-dir", str(work / f"logs-{connections}-{samples}")]
    before = children_cpu()
    subprocess.run(command, env=env, check=True, capture_output=True)
    return children_cpu() - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--samples", type=int, default=600)
    parser.add_argument("--latency", type=float, default=2.0)
    parser.add_argument("--connections", type=int, nargs="+", default=[16, 64, 256])
    args = parser.parse_args()
    Handler.latency = args.latency
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        task_file = work / "repro_task.py"
        task_file.write_text(TASK, encoding="utf-8")
        start_up = run(task_file, url, 1, 16, work)
        print(f"start-up (1 sample): {start_up:.2f} s CPU; load average {os.getloadavg()[0]:.1f}")
        for connections in args.connections:
            cpu = run(task_file, url, args.samples, connections, work)
            per_request = 1000 * (cpu - start_up) / (args.samples - 1)
            print(f"--max-connections {connections}: {cpu:.1f} s CPU, {per_request:.2f} ms a request")
    server.shutdown()


if __name__ == "__main__":
    main()
