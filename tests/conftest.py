"""Shared pytest fixtures. Fixtures for other parts of the suite may join this file."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import doc_numbers
import pytest
from doc_numbers import ChanceRuns, JudgeRun
from fakeserver import FakeModelServer
from fakeserver.offline import PROXY_VARS, refuse_other_hosts
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, ModelAPI
from inspect_ai.model._providers.mockllm import MockLLM
from tenacity import wait_none

TESTS = Path(__file__).parent
XDIST_GROUPS = {
    ("reliability", "reference"): "reliability-runs",
    ("report", "report_run"): "report-runs",
    ("", "surds_chance_log"): "chance-runs",
    ("", "judge_meta_logs"): "judge-meta-runs",
    ("", "drivelmm_o1_run"): "reducer-runs",
    ("", "regenerated"): "demo-regeneration",
    ("fakeserver", "hung_runs"): "hung-runs",
}
"""(folder whose conftest or module defines it, "" for all of tests/; session or module fixture that pays for whole
runs, or waits out hangs) -> the xdist group of every test there using it, directly or through another fixture
(`fault_runs` uses `reference`; `chance_logs` and `chance_seed_logs` use `surds_chance_log`). Under `--dist loadgroup`
each group runs on one worker, so each such fixture runs once per session instead of once per worker. pytest-xdist
3.8 marks a group by rewriting `item._nodeid`, which pytest 9.2 no longer reads (its `nodeid` comes from a structured
id): the dev extra keeps pytest below 9.2 so that the groups form."""


SLOW_TIER_FIRST = (
    "reliability-runs",
    "chance-runs",
    "report-runs",
    "judge-meta-runs",
    "test_run_processes.py",
    "test_slurm_example.py",
    "test_metrics_epochs.py",
    "hung-runs",
    "reliability/test_rel_secrets.py",
    "reliability/test_rel_batch_resume.py",
)
"""The slow tier's long work units, longest first: an xdist group, or a test file (relative to tests/) whose slow
tests are not in a group. Under `--dist loadgroup` the tests are handed out in this order, then all others in
collection order, so each worker takes the next unit when it runs short and the short tests fill the end. Without
it, xdist hands out the groups by their number of tests (the report's 17 first, the judge meta-evaluation's 2 after
the quick groups) and then the other tests in collection order, which put the three shard tests and the Slurm
example (27-42 s each) last, on one worker, while the other idled (`0639887` under load: 53 s). The seconds each
takes are in the slow tier's `--durations`; a name missing here only costs time, and tests/test_xdist_groups.py
checks that each name still is a group or a test file."""


def _slow_tier_rank(item: pytest.Item) -> int:
    group = item.get_closest_marker("xdist_group")
    if group is not None:
        name = group.args[0]
    else:
        name = item.path.relative_to(TESTS).as_posix() if item.path.is_relative_to(TESTS) else ""
    return SLOW_TIER_FIRST.index(name) if name in SLOW_TIER_FIRST else len(SLOW_TIER_FIRST)


class _LongestFirst:
    """Orders each worker's collection (which the controller's scheduler hands out in order) under loadgroup."""

    @pytest.hookimpl(trylast=True)  # after the groups are marked and the other tier deselected
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        if config.getoption("loadgroup", False):  # what xdist tells a worker of `--dist loadgroup`
            items.sort(key=_slow_tier_rank)


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("dist", "no") == "loadgroup":
        # xdist would otherwise hand out the groups by their number of tests, before any other test.
        config.option.loadscopereorder = False
    config.pluginmanager.register(_LongestFirst(), "drive-evals-slow-tier-first")


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups (its hook would otherwise run first)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        groups = {
            group
            for (folder, fixture), group in XDIST_GROUPS.items()
            if fixture in getattr(item, "fixturenames", ()) and item.path.is_relative_to(TESTS / folder)
        }
        if len(groups) > 1:  # its worker would pay again for the runs of every group but one
            raise pytest.UsageError(f"{item.nodeid} uses the session runs of several xdist groups: {sorted(groups)}")
        for group in groups:
            item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture
def fake_model_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeModelServer]:
    """A running fake OpenAI/Anthropic server that the provider env vars point at.

    Name resolution of any other host fails, so a misconfigured client cannot reach a real API from a test.
    """
    refuse_other_hosts(monkeypatch)
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
    with FakeModelServer() as server:
        for name, value in server.client_env().items():
            monkeypatch.setenv(name, value)
        yield server


@pytest.fixture
def fast_inspect_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retry at once instead of Inspect's backoff (3 s plus jitter, doubling), for in-process models only."""
    monkeypatch.setattr(ModelAPI, "retry_wait", lambda self: wait_none())


class _AsyncioWithoutWaits:
    """`asyncio` as google-genai's client module sees it, except that `sleep` only yields to the event loop."""

    def __getattr__(self, name: str) -> Any:
        return getattr(asyncio, name)

    @staticmethod
    async def sleep(delay: float, result: Any = None) -> Any:
        return await asyncio.sleep(0, result)


@pytest.fixture
def fast_sdk_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retry at once instead of the SDKs' own waits: the OpenAI and Anthropic backoff (0.5 s, then 1 s, less jitter,
    or what a `retry-after` header asks) and google-genai's wait of 1 to 10 s (at random) before it reconnects after
    a dropped connection. The SDKs still decide whether and how often to retry; only their waits go. (Imported here:
    the SDKs would otherwise slow every pytest process's start, xdist's controller's too.)"""
    import anthropic._base_client
    import google.genai._api_client
    import openai._base_client

    def no_wait(self: object, remaining_retries: int, options: object, response_headers: object = None) -> float:
        return 0.0

    monkeypatch.setattr(openai._base_client.BaseClient, "_calculate_retry_timeout", no_wait)
    monkeypatch.setattr(anthropic._base_client.BaseClient, "_calculate_retry_timeout", no_wait)
    monkeypatch.setattr(google.genai._api_client, "asyncio", _AsyncioWithoutWaits())


@pytest.fixture
def offline_mockllm(monkeypatch: pytest.MonkeyPatch) -> None:
    """`mockllm/model` without tiktoken: it counts a reply's input tokens with tiktoken, whose encoding is a download
    (unreachable offline); a rough count serves, as no test reads mockllm's usage."""

    async def count_tokens(self: MockLLM, input: str | list[ChatMessage], config: object = None) -> int:
        text = input if isinstance(input, str) else " ".join(message.text for message in input)
        return max(1, len(text) // 4)

    monkeypatch.setattr(MockLLM, "count_tokens", count_tokens)


# --- the demo runs the docs' numbers come from (doc_numbers.py), made once a session for every test needing one ---


@pytest.fixture(scope="session")
def surds_chance_log(tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    """SURDS with the chance baseline on the demo, seed 0 (the header; samples at its `location`)."""
    root = tmp_path_factory.mktemp("surds-chance")
    with doc_numbers.scratch_caches(root):
        seed = range(doc_numbers.SEED, doc_numbers.SEED + 1)
        (log,) = doc_numbers.chance_seed_runs(doc_numbers.DEMO, seed, root / "logs")
    return log


@pytest.fixture(scope="session")
def chance_seed_logs(surds_chance_log: EvalLog, tmp_path_factory: pytest.TempPathFactory) -> list[EvalLog]:
    """The same with seeds 0..19 (headers; the logs of seeds 1..19 without samples): the docs' chance table."""
    root = tmp_path_factory.mktemp("chance-seeds")
    with doc_numbers.scratch_caches(root):
        seeds = range(1, doc_numbers.CHANCE_SEEDS)
        others = doc_numbers.chance_seed_runs(doc_numbers.DEMO, seeds, root / "logs", log_samples=False)
    return [surds_chance_log, *others]


@pytest.fixture(scope="session")
def chance_logs(surds_chance_log: EvalLog, tmp_path_factory: pytest.TempPathFactory) -> ChanceRuns:
    """The chance baseline's normal and blind demo runs of both benchmarks (DriveLMM-o1 with a chance judge)."""
    root = tmp_path_factory.mktemp("chance-runs")
    with doc_numbers.scratch_caches(root):
        return doc_numbers.chance_runs(surds_chance_log, root / "logs")


@pytest.fixture(scope="session")
def judge_meta_logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, JudgeRun]:
    """The judge meta-evaluation of the mock judges and the chance judge on the demo (default records and epochs)."""
    return doc_numbers.judge_meta_runs(tmp_path_factory.mktemp("judge-meta"))
