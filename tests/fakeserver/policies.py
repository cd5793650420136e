"""Policies: what the fake model answers. A test passes any `(FakeRequest) -> str` (or `-> str | Reply`) callable."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from .records import FakeRequest


@dataclass(frozen=True)
class Reply:
    """A reply with the model's thinking beside its text: Gemini serves `thought` as a `thought: true` part.

    Only the Gemini API has that channel here; the server refuses a `Reply` with a thought on the others (400).
    """

    text: str
    thought: str | None = None


Policy = Callable[[FakeRequest], str]
ThinkingPolicy = Callable[[FakeRequest], "str | Reply"]
"""A policy that may also think (answer with a `Reply`); what `FakeModelServer.policy` accepts."""


def as_reply(answer: str | Reply) -> Reply:
    """A policy's answer as a `Reply` (a plain string has no thought)."""
    return answer if isinstance(answer, Reply) else Reply(answer)


def fixed_text(text: str) -> Policy:
    """Answer every request with `text`."""

    def policy(request: FakeRequest) -> str:
        return text

    return policy


def echo(request: FakeRequest) -> str:
    """Answer with the last user message's text parts, one a line, so a test can see what was sent."""
    return "\n".join(request.texts)


class Gate:
    """Answers `open_for` requests by `policy`, then holds every further one until `released` is set (at most
    `hold_limit` seconds), then refuses it: a run stalls in a known state, mid-way, for a test to kill it there.

    Released after the kill, held requests fail (their client is gone) and later ones are answered by `policy`.
    """

    def __init__(self, policy: Policy, open_for: int, hold_limit: float) -> None:
        self.policy, self.open_for, self.hold_limit = policy, open_for, hold_limit
        self.passed = self.held = 0
        self.released = threading.Event()
        self._lock = threading.Lock()

    def __call__(self, request: FakeRequest) -> str:
        with self._lock:
            hold = not self.released.is_set() and self.passed >= self.open_for
            self.held += hold
            self.passed += not hold
        if hold:
            self.released.wait(self.hold_limit)
            raise ConnectionAbortedError("held until the client was killed")
        return self.policy(request)
