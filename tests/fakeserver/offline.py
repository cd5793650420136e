"""Keeping tests off the network: name resolution of anything but loopback fails while a patch is active."""

from __future__ import annotations

import socket
from typing import Any

import pytest

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
"""Unset for tests: a proxy would carry requests for 127.0.0.1 elsewhere."""


def refuse_other_hosts(patch: pytest.MonkeyPatch) -> None:
    """Make `socket.getaddrinfo` fail for every host but loopback, so a misconfigured client cannot reach a real API."""
    resolve = socket.getaddrinfo

    def resolve_loopback_only(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host not in LOOPBACK_HOSTS:
            raise OSError(f"tests may only reach the fake model server on 127.0.0.1, not {host!r}")
        return resolve(host, *args, **kwargs)

    patch.setattr(socket, "getaddrinfo", resolve_loopback_only)
