"""Deterministic fault injection, so tests can show that clients survive what real provider APIs do.

A fault is decided per prompt attempt: the n-th request that carries a given prompt key. Draws come from an
RNG seeded with (seed, prompt key, attempt), so a schedule does not depend on how concurrent requests
interleave.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

SERVER_ERROR_STATUSES = (500, 502, 503)
RATE_LIMIT_STATUS = 429
# Far longer than any attempt timeout a test sets, so a hang is never mistaken for a slow answer; the server ends
# hanging handlers when it stops, so a long hang costs a test nothing beyond its attempt timeout.
DEFAULT_HANG_SECONDS = 600.0


class Fault(StrEnum):
    """What the server does instead of answering normally."""

    SERVER_ERROR = "server_error"
    """A 5xx (one of `FaultPlan.server_error_statuses`) with the API's JSON error body."""
    RATE_LIMIT = "rate_limit"
    """A 429 with a `Retry-After` header and the API's JSON error body."""
    CONNECTION_RESET = "connection_reset"
    """The connection is reset after the request is read, without any response."""
    HANG = "hang"
    """No response for `FaultPlan.hang_seconds`, then the connection is closed."""
    TRUNCATED_JSON = "truncated_json"
    """HTTP 200 whose body (or event stream) stops halfway through the JSON."""
    INVALID_JSON = "invalid_json"
    """HTTP 200 whose body (or one stream event) is not JSON at all."""
    EMPTY_CHOICES = "empty_choices"
    """HTTP 200 with no output: OpenAI `choices: []`, Anthropic `content: []`."""


@dataclass(frozen=True)
class InjectedFault:
    """A record of one fault served; `status` is None when no HTTP response was sent."""

    key: str
    attempt: int
    fault: Fault
    status: int | None


@dataclass(frozen=True)
class FaultPlan:
    """When to inject which fault.

    `script[i]` is served on attempt i + 1 of every prompt (None answers normally); later attempts draw from
    `rates`, for example `{Fault.SERVER_ERROR: 0.2, Fault.RATE_LIMIT: 0.1, Fault.HANG: 0.05}`. Drawn faults
    stop after `max_consecutive` faults in a row for one prompt, so runs are guaranteed to finish.
    """

    rates: Mapping[Fault, float] = field(default_factory=dict)
    script: Sequence[Fault | None] = ()
    seed: int = 0
    max_consecutive: int | None = None
    server_error_statuses: Sequence[int] = SERVER_ERROR_STATUSES
    retry_after_seconds: float = 0
    hang_seconds: float = DEFAULT_HANG_SECONDS

    def __post_init__(self) -> None:
        if any(rate < 0 for rate in self.rates.values()) or sum(self.rates.values()) > 1:
            raise ValueError(f"fault rates must be non-negative and sum to at most 1: {dict(self.rates)}")
        if not self.server_error_statuses or any(not 500 <= s <= 599 for s in self.server_error_statuses):
            raise ValueError(f"server_error_statuses must be 5xx codes: {self.server_error_statuses}")
        if self.max_consecutive is not None and self.max_consecutive < 0:
            raise ValueError("max_consecutive must be non-negative")

    def decide(self, key: str, attempt: int, consecutive_faults: int) -> InjectedFault | None:
        """The fault for attempt `attempt` (1-based) of prompt `key`, or None to answer normally."""
        rng = random.Random(f"{self.seed}:{key}:{attempt}")
        if attempt <= len(self.script):
            fault = self.script[attempt - 1]
        elif self.max_consecutive is not None and consecutive_faults >= self.max_consecutive:
            fault = None
        else:
            fault = self._draw(rng.random())
        if fault is None:
            return None
        return InjectedFault(key=key, attempt=attempt, fault=fault, status=self._status(fault, rng))

    def _draw(self, value: float) -> Fault | None:
        threshold = 0.0
        for fault, rate in self.rates.items():
            threshold += rate
            if value < threshold:
                return fault
        return None

    def _status(self, fault: Fault, rng: random.Random) -> int | None:
        if fault is Fault.SERVER_ERROR:
            return rng.choice(list(self.server_error_statuses))
        if fault is Fault.RATE_LIMIT:
            return RATE_LIMIT_STATUS
        if fault in (Fault.CONNECTION_RESET, Fault.HANG):
            return None
        return 200
