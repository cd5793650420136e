"""`--batch` through the fake server's batch APIs: both tasks, both providers, the judge batched too.

Each run is compared with the same run made with direct calls: the scores must be identical, every model and judge
request must have gone through a batch job (none direct), and the number of batch jobs is what the batcher's
settings give. Polling is kept to a fraction of a second through `BatchConfig` (Inspect's default tick is 15 s).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fakeserver import FakeModelServer
from fakeserver.drive import drive_policy
from fakeserver.offline import refuse_other_hosts

from .batch_runs import MODELS, compare
from .harness import (
    POLICY,
    TASKS,
    differences,
    every_sample_scored,
)


@pytest.mark.slow
@pytest.mark.parametrize("provider", sorted(MODELS))
def test_batch_run_scores_as_the_direct_run(provider: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    refuse_other_hosts(monkeypatch)
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path))  # restored after the test; `compare` sets its own
    with FakeModelServer(drive_policy(POLICY)) as server:
        for name, value in server.client_env().items():
            monkeypatch.setenv(name, value)
        result = compare(server, provider, tmp_path)
    direct, batched, jobs = result.direct, result.batched, result.jobs
    direct_requests, batch_requests = result.direct_requests, result.batch_requests

    assert set(batched) == set(direct) == set(TASKS)
    for task, log in batched.items():
        assert every_sample_scored(log) == [], task
        assert differences(log, direct[task]) == [], f"{provider} {task}: batch run differs from the direct run"
    # every request of the batch run (model and judge, judge retries included) was answered inside a batch job
    assert batch_requests == direct_requests == sum(len(job.results) for job in jobs)
    assert len(jobs) < batch_requests, "requests were gathered into jobs"
    apis = {job.api for job in jobs}
    assert apis == {provider, "openai"}, "the model's provider and the judge's (OpenAI) both ran batch jobs"
