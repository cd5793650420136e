"""Both tasks with and without `--batch` through the fake server; as a script it prints what docs/batch.md shows.

`PYTHONPATH=tests python -m reliability.batch_runs [openai|anthropic]` (from the repository root): the direct
run, the batch run (model and judge batched, nothing from the cache), whether their scores are identical, and the
batch jobs.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from fakeserver import FakeModelServer
from fakeserver.batches import FakeBatch
from fakeserver.drive import drive_policy
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import BatchConfig

from .harness import ANTHROPIC_MODEL, JUDGE, OPENAI_MODEL, POLICY, TASKS, differences

FAST_BATCH = BatchConfig(size=1000, send_delay=0.2, tick=0.05)
"""Send whatever has queued 0.2 s after the last send and poll every 0.05 s (Inspect's default tick is 15 s)."""
FAST_BATCH_CLI = '{"size": 1000, "send_delay": 0.2, "tick": 0.05}'
TASK_ARGS = {"data": "demo", "subsets": "depth,distance"}
LIMIT = 6
MODELS = {"openai": OPENAI_MODEL, "anthropic": ANTHROPIC_MODEL}


@dataclass
class BatchComparison:
    direct: dict[str, EvalLog]
    batched: dict[str, EvalLog]
    direct_requests: int
    batch_requests: int
    jobs: list[FakeBatch]


def run(model: str, log_dir: Path, batch: BatchConfig | None) -> dict[str, EvalLog]:
    logs = inspect_eval(
        list(TASKS),
        model=model,
        model_roles={"grader": JUDGE},
        task_args=TASK_ARGS,
        limit=LIMIT,
        log_dir=str(log_dir),
        display="none",
        max_retries=1,
        batch=batch,
    )
    return {log.eval.task: log for log in logs}


def compare(server: FakeModelServer, provider: str, tmp: Path) -> BatchComparison:
    """The direct run, then the batch run, on `server` (the provider variables must already point at it)."""
    os.environ["INSPECT_CACHE_DIR"] = str(tmp / "direct-cache")
    direct = run(MODELS[provider], tmp / "direct", None)
    direct_requests = len(server.requests)
    os.environ["INSPECT_CACHE_DIR"] = str(tmp / "batch-cache")  # nothing answered from the cache
    batched = run(MODELS[provider], tmp / "batch", FAST_BATCH)
    return BatchComparison(
        direct, batched, direct_requests, len(server.requests) - direct_requests, server.batch_store.batches
    )


def main() -> None:
    provider = sys.argv[1] if len(sys.argv) > 1 else "openai"
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer(drive_policy(POLICY)) as server:
        os.environ.update(server.client_env())
        result = compare(server, provider, Path(tmp))
        for task in TASKS:  # logs load their samples lazily: read them before the directory goes
            same = not differences(result.batched[task], result.direct[task])
            print(f"{task}: batch scores identical to direct: {same}")
    print(f"requests: direct {result.direct_requests}, batch {result.batch_requests}")
    jobs = Counter(job.api for job in result.jobs)
    sizes = [len(job.results) for job in result.jobs]
    print(f"batch jobs: {len(result.jobs)} ({dict(jobs)}), requests per job {sizes}")


if __name__ == "__main__":
    main()
