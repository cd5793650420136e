"""Samples Inspect recovers after a crash keep their store: the raw replies, truncation flags and rebuilt markers.

A run killed with samples finished but not yet flushed to its log (the default `--log-buffer` holds several; a
`--batch` run finishes many at once) leaves them in Inspect's sample buffer. `inspect eval-retry` recovers them from
there and keeps them, but Inspect 0.3.285 rebuilds each one without its store (`log/_recover/_reconstruct.py`,
`reconstruct_eval_sample` sets no `store`), so the retry's log holds a scored sample whose store is empty: what the
scorer read (the reply as the provider returned it, both replies of a SURDS pair, the truncation flags) is gone,
and an `inspect score` of that log reads something else. The sample's events still hold every change made to the
store (`StoreEvent`s), and Inspect's public `store_from_events` replays them: this module wraps the recovery so the
rebuilt sample gets that store back (the direct run's, key for key: tests/reliability/test_rel_batch_resume.py).

Installed when `drive_evals.replies` is imported, which every benchmark's scorer does; Inspect imports the suite
through its entry point (`init_hooks`, at the start of `eval-retry`) before it recovers anything.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import inspect_ai.log._recover._api as recovery_api
from inspect_ai.log import EvalSample
from inspect_ai.log._recover._reconstruct import reconstruct_events
from inspect_ai.util import store_from_events

_WRAPPED = "_drive_evals_keeps_store"


def _keeping_store(reconstruct: Callable[..., EvalSample]) -> Callable[..., EvalSample]:
    @functools.wraps(reconstruct)
    def reconstruct_with_store(summary: Any, sample_data: Any, *args: Any, **kwargs: Any) -> EvalSample:
        sample = reconstruct(summary, sample_data, *args, **kwargs)
        if not sample.store:
            events = sample.events or reconstruct_events(sample_data)  # events left out of the log: replay anyway
            sample.store = dict(store_from_events(events).items())
        return sample

    setattr(reconstruct_with_store, _WRAPPED, True)
    return reconstruct_with_store


def keep_recovered_stores() -> None:
    """Wrap Inspect's buffer recovery (once) so every recovered sample has its store."""
    current = recovery_api.reconstruct_eval_sample
    if not getattr(current, _WRAPPED, False):
        recovery_api.reconstruct_eval_sample = _keeping_store(current)
