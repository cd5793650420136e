"""Shared pytest fixtures. Fixtures for other parts of the suite may join this file."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest
from fakeserver import FakeModelServer
from inspect_ai.model import ModelAPI
from tenacity import wait_none

LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}
PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


@pytest.fixture
def fake_model_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeModelServer]:
    """A running fake OpenAI/Anthropic server that the provider env vars point at.

    Name resolution of any other host fails, so a misconfigured client cannot reach a real API from a test.
    """
    resolve = socket.getaddrinfo

    def resolve_loopback_only(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in LOOPBACK_HOSTS:
            raise OSError(f"tests may only reach the fake model server on 127.0.0.1, not {host!r}")
        return resolve(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve_loopback_only)
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
