"""Which rules each benchmark's headline supports, refused in one line before any call."""

from __future__ import annotations

import pytest

from drive_evals._registry import BENCHMARKS
from drive_evals.benchmark import JUDGE_ENABLED_KEY
from drive_evals.stopping.forms import headline_form, refusal
from drive_evals.stopping.statistic import HeadlineForm

BY_KEY = {benchmark.key: benchmark for benchmark in BENCHMARKS}


def test_every_benchmark_either_has_a_form_or_a_one_line_reason() -> None:
    for benchmark in BENCHMARKS:
        form = headline_form(benchmark)
        assert isinstance(form, HeadlineForm) or ("\n" not in form and benchmark.title in form)


def test_the_forms_follow_the_headlines_aggregation() -> None:
    surds, drivelmm, drivebench = (headline_form(BY_KEY[k]) for k in ("surds", "drivelmm_o1", "drivebench"))
    assert isinstance(surds, HeadlineForm) and surds.group_key == "subset" and surds.missing_values
    assert isinstance(drivelmm, HeadlineForm) and drivelmm.group_key is None and drivelmm.counted_key is None
    assert isinstance(drivebench, HeadlineForm) and drivebench.group_key == "task" and drivebench.counted_key


def test_a_ratio_of_sums_without_a_unit_form_is_refused() -> None:
    reason = refusal(BY_KEY["vladbench"], {}, epochs=1, live=True)
    assert reason is not None and "`total` is not a mean over units" in reason


@pytest.mark.parametrize(
    ("key", "metadata", "epochs", "live", "expected"),
    [
        ("drivelmm_o1", {JUDGE_ENABLED_KEY: False}, 1, True, "judge off"),
        ("surds", {}, 2, True, "--epochs 1"),
        ("drivebench", {JUDGE_ENABLED_KEY: False}, 1, True, "judge off"),
        ("drivebench", {}, 1, True, None),
        ("drivebench", {}, 1, False, None),
        ("surds", {}, 1, True, None),
        ("coda_lm", {}, 1, True, None),
        ("drivelmm_o1", {JUDGE_ENABLED_KEY: True}, 1, True, None),
    ],
)
def test_refusals(key: str, metadata: dict[str, object], epochs: int, live: bool, expected: str | None) -> None:
    reason = refusal(BY_KEY[key], metadata, epochs, live)
    assert reason is None if expected is None else (reason is not None and expected in reason)
