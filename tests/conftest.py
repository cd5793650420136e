"""Shared pytest fixtures. Fixtures for other parts of the suite may join this file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fakeserver import FakeModelServer
from fakeserver.offline import PROXY_VARS, refuse_other_hosts
from inspect_ai.model import ChatMessage, ModelAPI
from inspect_ai.model._providers.mockllm import MockLLM
from tenacity import wait_none

TESTS = Path(__file__).parent
XDIST_GROUPS = {("reliability", "reference"): "reliability-runs", ("report", "report_run"): "report-runs"}
"""(folder whose conftest defines it, session fixture that pays for whole eval runs) -> the xdist group of every
test there using it, directly or through another fixture (`fault_runs` uses `reference`). Under `--dist loadgroup`
each group should run on one worker, so each such fixture runs once per session instead of once per worker.
pytest-xdist 3.8 marks a group by rewriting `item._nodeid`, which pytest 9.2 no longer reads (its `nodeid` comes
from a structured id): the dev extra keeps pytest below 9.2 so that the groups form."""


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups (its hook would otherwise run first)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for (folder, fixture), group in XDIST_GROUPS.items():
            if fixture in getattr(item, "fixturenames", ()) and item.path.is_relative_to(TESTS / folder):
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


@pytest.fixture
def offline_mockllm(monkeypatch: pytest.MonkeyPatch) -> None:
    """`mockllm/model` without tiktoken: it counts a reply's input tokens with tiktoken, whose encoding is a download
    (unreachable offline); a rough count serves, as no test reads mockllm's usage."""

    async def count_tokens(self: MockLLM, input: str | list[ChatMessage], config: object = None) -> int:
        text = input if isinstance(input, str) else " ".join(message.text for message in input)
        return max(1, len(text) // 4)

    monkeypatch.setattr(MockLLM, "count_tokens", count_tokens)
