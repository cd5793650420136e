"""Policies: what the fake model answers. A test passes any `(FakeRequest) -> str` callable."""

from __future__ import annotations

from collections.abc import Callable

from .records import FakeRequest

Policy = Callable[[FakeRequest], str]


def fixed_text(text: str) -> Policy:
    """Answer every request with `text`."""

    def policy(request: FakeRequest) -> str:
        return text

    return policy


def echo(request: FakeRequest) -> str:
    """Answer with the last user message's text parts, one a line, so a test can see what was sent."""
    return "\n".join(request.texts)
