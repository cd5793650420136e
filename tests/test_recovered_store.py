"""A sample Inspect rebuilds from its sample buffer gets its store back from its events (`recovered_store.py`).

The end-to-end case (a killed `--batch` run resumed with `inspect eval-retry`, on OpenAI and Anthropic) is
tests/reliability/test_rel_batch_resume.py::test_samples_recovered_from_the_sample_buffer_keep_their_store.
"""

from __future__ import annotations

from typing import Any

import inspect_ai.log._recover._api as recovery_api
from inspect_ai._util.json import JsonChange
from inspect_ai.event import StoreEvent
from inspect_ai.log import EvalSample

import drive_evals.replies  # noqa: F401  (installs the wrapper, as every benchmark's import does)
from drive_evals.recovered_store import _keeping_store, keep_recovered_stores


def rebuilt_without_store(summary: Any, sample_data: Any, **kwargs: Any) -> EvalSample:
    """Inspect 0.3.285's recovery: the events are kept, the store is not."""
    changes = [
        JsonChange(op="add", path="/reply_text", value="<think>x</think>B"),
        JsonChange(op="add", path="/reply_rebuilt", value=[None]),
    ]
    return EvalSample(id=1, epoch=1, input="q", target="B", events=[StoreEvent(changes=changes)])


def test_store_is_replayed_from_the_events() -> None:
    sample = _keeping_store(rebuilt_without_store)(None, None)
    assert sample.store == {"reply_text": "<think>x</think>B", "reply_rebuilt": [None]}


def test_a_store_that_survived_is_left_as_it_is() -> None:
    def with_store(summary: Any, sample_data: Any, **kwargs: Any) -> EvalSample:
        sample = rebuilt_without_store(summary, sample_data)
        sample.store = {"reply_text": "kept"}
        return sample

    assert _keeping_store(with_store)(None, None).store == {"reply_text": "kept"}


def test_installed_once_on_import() -> None:
    installed = recovery_api.reconstruct_eval_sample
    keep_recovered_stores()
    assert recovery_api.reconstruct_eval_sample is installed
    assert getattr(installed, "_drive_evals_keeps_store", False)
