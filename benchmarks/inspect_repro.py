"""Minimal reproduction, for Inspect upstream: Inspect's CPU per request, against the same requests by its SDK alone.

Self-contained (Inspect, the openai SDK its provider uses, the standard library): an OpenAI-compatible server on
127.0.0.1 answers every chat completion after L seconds; a one-line task (`generate()` on a short text prompt,
`match()` scorer) runs against it through `openai-api/repro/m` at several `--max-connections`, as a subprocess, and
the script prints the subprocess's CPU time per request, less that of a one-sample run (start-up). Beside each row,
the same requests sent by the openai SDK alone (`asyncio`, as many requests in flight): what is above it is
Inspect's own work per request, which no task can avoid.

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

SDK_ONLY = """
import asyncio, sys
from openai import AsyncOpenAI

async def main(url: str, samples: int, connections: int) -> None:
    client = AsyncOpenAI(base_url=url, api_key="none", max_retries=0)
    slots = asyncio.Semaphore(connections)

    async def ask(i: int) -> None:
        async with slots:
            await client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": f"Say yes ({i})."}]
            )

    await asyncio.gather(*(ask(i) for i in range(samples)))

asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
"""
"""The same requests through the openai SDK alone: its CPU per request is the floor under Inspect's provider."""


class Server(ThreadingHTTPServer):
    request_queue_size = 1024
    """Listen backlog: a client opening hundreds of connections at once is not refused (the default is 5)."""
    daemon_threads = True


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
    return _cpu_of(command, env)


def run_sdk(url: str, samples: int, connections: int) -> float:
    """CPU seconds of one subprocess sending the same requests through the openai SDK alone."""
    return _cpu_of([sys.executable, "-c", SDK_ONLY, url, str(samples), str(connections)], dict(os.environ))


def _cpu_of(command: list[str], env: dict[str, str]) -> float:
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
    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        task_file = work / "repro_task.py"
        task_file.write_text(TASK, encoding="utf-8")
        start_up = run(task_file, url, 1, 16, work)
        sdk_start_up = run_sdk(url, 1, 16)
        print(f"start-up (1 sample): Inspect {start_up:.2f} s CPU, the SDK alone {sdk_start_up:.2f} s; ", end="")
        print(f"load average {os.getloadavg()[0]:.1f}")
        for connections in args.connections:
            cpu = run(task_file, url, args.samples, connections, work)
            per_request = 1000 * (cpu - start_up) / (args.samples - 1)
            sdk = 1000 * (run_sdk(url, args.samples, connections) - sdk_start_up) / (args.samples - 1)
            print(f"--max-connections {connections}: {cpu:.1f} s CPU, {per_request:.2f} ms a request", end="")
            print(f" (the SDK alone: {sdk:.2f} ms, {per_request / sdk:.1f}x)")
    server.shutdown()


if __name__ == "__main__":
    main()
