"""A killed `--batch` run resumed with `inspect eval-retry`: every sample scored, and exactly the counted requests
paid twice (docs/batch.md quotes these numbers).

Each run is killed with some batch jobs returned and others in flight (see `batch_resume`). What is paid twice is
the in-flight requests, plus, without `--cache`, the returned replies of samples that had not finished: a DriveLMM-o1
answer whose judge call was still in flight. A SURDS pair asks both prompts at once, so both share a job and the
unit is finished (and kept by eval-retry) when that job returns.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fakeserver import FakeModelServer
from fakeserver.drive import drive_policy
from fakeserver.offline import refuse_other_hosts
from inspect_ai.log import list_eval_logs, read_eval_log

from .batch_resume import MODELS, POLICY, SCENARIOS, UNFLUSHED, ResumeCost, kill_and_resume, kill_and_retry
from .harness import check, cli_env, run_cli

pytestmark = pytest.mark.slow  # kills and resumes `inspect` subprocesses (about 45 s a scenario)

EXPECTED = {
    # 32 prompts in 8 jobs: 2 returned (4 units finished), 6 in flight; the retry asks the 24 in-flight prompts
    "surds": ResumeCost(32, returned=8, in_flight=24, finished_samples=4, resumed=24, paid_twice=24,
                        in_flight_paid_twice=24, returned_paid_twice=0),
    "surds-cache": ResumeCost(32, returned=8, in_flight=24, finished_samples=4, resumed=24, paid_twice=24,
                              in_flight_paid_twice=24, returned_paid_twice=0),
    # 16 answers in 4 jobs, 2 returned; their 8 judge calls in flight: no sample finished, the retry asks all 16
    # answers again (8 of them returned) and 16 judge calls (8 of them in flight)
    "drivelmm_o1": ResumeCost(24, returned=8, in_flight=16, finished_samples=0, resumed=32, paid_twice=24,
                              in_flight_paid_twice=16, returned_paid_twice=8),
    # with --cache the 8 returned answers come from the cache: only the 16 in-flight requests are paid twice
    "drivelmm_o1-cache": ResumeCost(24, returned=8, in_flight=16, finished_samples=0, resumed=24, paid_twice=16,
                                    in_flight_paid_twice=16, returned_paid_twice=0),
}  # fmt: skip
CASES = [("openai", name) for name in SCENARIOS] + [("anthropic", "surds"), ("anthropic", "drivelmm_o1-cache")]
"""Every scenario on OpenAI's batch API; on Anthropic's, the default SURDS run and the recommended DriveLMM-o1 one
(the batcher's logic is Inspect's own, shared by both providers)."""


@pytest.mark.parametrize(("provider", "scenario"), CASES)
def test_killed_batch_run_pays_twice_only_what_is_counted(
    provider: str, scenario: str, tmp_path: Path, derived_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    refuse_other_hosts(monkeypatch)
    with FakeModelServer(drive_policy(POLICY)) as server:
        cost = kill_and_resume(
            server, SCENARIOS[scenario], MODELS[provider], tmp_path, DRIVE_EVALS_CACHE=str(derived_cache)
        )
    assert cost == EXPECTED[scenario]
    # what the counts mean, whatever the scenario: nothing beyond the in-flight requests and the returned replies
    # of unfinished samples is paid twice
    assert cost.paid_twice == cost.in_flight_paid_twice + cost.returned_paid_twice
    assert cost.in_flight_paid_twice == cost.in_flight


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_samples_recovered_from_the_sample_buffer_keep_their_store(
    provider: str, tmp_path: Path, derived_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed with 4 finished units in Inspect's sample buffer only, the retry recovers them from there: their store
    (raw replies, truncation flags, rebuilt markers) is the one a run that was never killed logs, key for key."""
    refuse_other_hosts(monkeypatch)
    model = MODELS[provider]
    with FakeModelServer(drive_policy(POLICY)) as server:
        killed_dir, direct_dir = tmp_path / "killed", tmp_path / "direct"
        killed_dir.mkdir()
        direct_dir.mkdir()
        cost, resumed = kill_and_retry(server, UNFLUSHED, model, killed_dir, DRIVE_EVALS_CACHE=str(derived_cache))
        env = cli_env(server, direct_dir, DRIVE_EVALS_CACHE=str(derived_cache))
        args = ["eval", *UNFLUSHED.args(direct_dir), "--model", model, "--log-dir", str(direct_dir / "logs")]
        check(run_cli(args, env, direct_dir), f"{provider} direct run")
    assert cost.finished_samples == 4  # recovered from the buffer, not run again
    (direct_info,) = list_eval_logs(str(direct_dir / "logs"))
    direct = {sample.id: sample.store for sample in read_eval_log(direct_info).samples or []}
    stores = {sample.id: sample.store for sample in resumed.samples or []}
    assert len(stores) == len(direct) == 16 and all(direct.values())
    assert stores == direct
