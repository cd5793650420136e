"""Every metric read through Inspect's epoch reducers (`pytest_inspect_evals.metrics`): the scores and metadata of a
real in-process run, repeated over equal epochs under `mean` and `mode`, must give the metrics one epoch gives.

The metrics of one run are checked together, as a task registers them side by side: the helper's three evals cost
the same for one metric as for five (their time is Inspect's, per sample), so each run's check is made once
(`BatchedCheck`) and each metric's test reads its verdict. Only when the batch fails does a metric's test repeat the
check with that metric alone, so that the failing test is the metric's own, with the helper's message."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import pytest
import pytest_inspect_evals.metrics
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.scorer import Metric, SampleScore, Score
from inspect_runs import eval_in_process
from pytest_inspect_evals.metrics import assert_agreeing_epochs_change_nothing

from drive_evals.drivelmm_o1.judge_meta.metrics import judge_meta_metrics
from drive_evals.drivelmm_o1.metrics import drivelmm_o1_stderr, mcq_metrics, panel_agreement, reasoning_metrics
from drive_evals.replies import REPLIES_REBUILT, REPLY_REBUILT_KEY, replies_rebuilt
from drive_evals.surds.metrics import LOST_KEY, surds_lost, surds_scores, surds_stderr, surds_validity
from drive_evals.truncation import TRUNCATED_KEY, truncation

pytestmark = [
    pytest.mark.usefixtures("offline_mockllm"),  # the helper runs Inspect's plain mockllm/model
    pytest.mark.slow,  # three evals per run (or per metric) over every demo sample: minutes on a loaded machine
]
EPOCH_SPREAD = ("run_to_run_sd", "run_to_run_changed_rate")
"""Spread across epochs: undefined (NaN) for one epoch and 0 for equal epochs, by design."""

DEMO = {"data": "demo"}
Scored = tuple[list[Score], list[dict[str, Any]]]
"""Each sample's score and its metadata."""


@pytest.fixture(autouse=True)
def helper_evals_without_live_events(monkeypatch: pytest.MonkeyPatch) -> None:
    """The helper's evals (three a check, each over every sample) without live sample events (`log_realtime`, only
    for watching a run in `inspect view`): a third of their time, and the metrics they return are the same."""

    def quiet_eval(*args: Any, **kwargs: Any) -> Any:
        return inspect_eval(*args, **{**kwargs, "log_realtime": False})

    monkeypatch.setattr(pytest_inspect_evals.metrics, "inspect_eval", quiet_eval)


def scored(log: EvalLog, scorer: str) -> Scored:
    """Each sample's score from `scorer` and its metadata, as the run logged them."""
    samples = [sample for sample in log.samples or [] if sample.scores]
    return [sample.scores[scorer] for sample in samples], [sample.metadata for sample in samples]  # type: ignore[index]


@pytest.fixture(scope="module")
def surds_run(surds_chance_log: EvalLog) -> Scored:
    """The chance baseline's SURDS demo run, shared with the docs' numbers check."""
    return scored(read_eval_log(surds_chance_log.location), "surds_scorer")


@pytest.fixture(scope="module")
def drivelmm_o1_run(tmp_path_factory: pytest.TempPathFactory) -> Scored:
    tmp = tmp_path_factory.mktemp("o1")
    log = eval_in_process(
        "drive_evals/drivelmm_o1",
        tmp / "logs",
        {"INSPECT_CACHE_DIR": str(tmp / "cache"), "DRIVE_EVALS_CACHE": str(tmp / "derived")},
        model="chance/random",
        model_roles={"grader": ["grader/valid", "grader/low"]},
        task_args=DEMO,
    )
    return scored(log, "drivelmm_o1_scorer")


def logged_names(name: str, metric: Metric, run: Scored) -> set[str]:
    """The names the log gives the values of `metric` (registered as `name`) over `run`'s scores, one epoch, not
    reduced: a dict's keys, or the metric's own name."""
    scores, metadata = run
    samples = [SampleScore(score=s, sample_metadata=m) for s, m in zip(scores, metadata, strict=True)]
    measure: Any = metric  # Inspect's Metric type names the pre-SampleScore signature too
    value = measure(samples)
    return set(value) if isinstance(value, dict) else {name}


@dataclass
class BatchedCheck:
    """`assert_agreeing_epochs_change_nothing` for several metrics over one run's scores, made once for all of them,
    at the first test's `check` (inside the test, so under its fixtures: `offline_mockllm`, the quiet evals).

    The batch passes only if every metric reports something (the helper's check of one metric asserts that) and
    every metric's values (each under the name the log gives it, none shared, so that no metric hides another's) are
    unchanged by equal epochs under each reducer: what each metric's own check asserts.
    Each eval is seeded the same and computes the metrics in the same order over as many scores, so a metric that
    draws random numbers draws the same ones in the reference and the reduced runs, as it does alone."""

    metrics: Mapping[str, Callable[[], Metric]]
    run: Scored

    @cached_property
    def failed(self) -> AssertionError | None:
        """Why the batch failed (or could not stand for each metric's own check), or None when it passed."""
        named = {name: logged_names(name, make(), self.run) for name, make in self.metrics.items()}
        silent = [name for name, values in named.items() if not values]
        shared = {n for a in named for b in named if a < b for n in named[a] & named[b]}
        if silent or shared:  # the batch would not check each metric as its own check does: each test checks alone
            return AssertionError(f"metrics reporting nothing {silent}, names logged by two metrics {shared}")
        scores, metadata = self.run
        try:
            assert_agreeing_epochs_change_nothing([make() for make in self.metrics.values()], scores, metadata=metadata)
        except AssertionError as failure:
            return failure
        return None

    def check(self, name: str) -> None:
        """Passes when the batch passed; otherwise the check of metric `name` alone, with its own message."""
        if self.failed is not None:
            scores, metadata = self.run
            assert_agreeing_epochs_change_nothing([self.metrics[name]()], scores, metadata=metadata)


SURDS_METRICS = {
    "surds_scores": surds_scores,
    "surds_stderr": surds_stderr,
    "surds_validity": surds_validity,
}
DRIVELMM_O1_METRICS = {
    "reasoning_metrics": reasoning_metrics,
    "mcq_metrics": mcq_metrics,
    "drivelmm_o1_stderr": drivelmm_o1_stderr,
    "panel_agreement": panel_agreement,
}


@pytest.fixture(scope="module")
def surds_checked(surds_run: Scored) -> BatchedCheck:
    return BatchedCheck(SURDS_METRICS, surds_run)


@pytest.fixture(scope="module")
def drivelmm_o1_checked(drivelmm_o1_run: Scored) -> BatchedCheck:
    return BatchedCheck(DRIVELMM_O1_METRICS, drivelmm_o1_run)


@pytest.mark.parametrize("metric", SURDS_METRICS)
def test_surds_metrics_through_the_reducers(metric: str, surds_checked: BatchedCheck) -> None:
    surds_checked.check(metric)


def test_surds_lost_units_through_the_reducers(surds_run: Scored) -> None:
    """`lost_units` is logged only when a unit was lost: one is marked so, as a recovered pair without its store."""
    scores, metadata = surds_run
    lost = [score.model_copy(deep=True) for score in scores]
    assert isinstance(lost[0].value, dict)
    lost[0].value[LOST_KEY] = 1.0
    assert_agreeing_epochs_change_nothing([surds_lost()], lost, metadata=metadata)


def test_truncation_through_the_reducers(surds_run: Scored) -> None:
    """`truncated_rate` is logged only when some reply was cut (the demo's never are): one score is marked so."""
    scores, metadata = surds_run
    cut = [score.model_copy(deep=True) for score in scores]
    assert isinstance(cut[0].value, dict)
    cut[0].value[TRUNCATED_KEY] = 1.0
    assert_agreeing_epochs_change_nothing([truncation()], cut, metadata=metadata)


def test_replies_rebuilt_through_the_reducers(surds_run: Scored) -> None:
    """`replies_rebuilt` is logged only when some reply was rebuilt: one score's metadata is marked so."""
    scores, metadata = surds_run
    rebuilt = [score.model_copy(deep=True) for score in scores]
    rebuilt[0].metadata = {**(rebuilt[0].metadata or {}), REPLY_REBUILT_KEY: {"1": "no raw response"}}
    count: Any = replies_rebuilt()  # Inspect's Metric type names the pre-SampleScore signature too
    assert count([SampleScore(score=score) for score in rebuilt]) == {REPLIES_REBUILT: 1}
    assert_agreeing_epochs_change_nothing([replies_rebuilt()], rebuilt, metadata=metadata)


@pytest.mark.parametrize("metric", DRIVELMM_O1_METRICS)
def test_drivelmm_o1_metrics_through_the_reducers(metric: str, drivelmm_o1_checked: BatchedCheck) -> None:
    drivelmm_o1_checked.check(metric)


def test_judge_meta_metrics_through_the_reducers(tmp_path: Path) -> None:
    log = eval_in_process(
        "drive_evals/drivelmm_o1_judge",
        tmp_path / "logs",
        model_roles={"grader": "judge/good"},
        task_args={**DEMO, "records": 2},
    )
    scores, metadata = scored(log, "judge_meta_scorer")
    metrics: list[Metric] = [judge_meta_metrics()]
    assert_agreeing_epochs_change_nothing(metrics, scores, metadata=metadata, ignore=EPOCH_SPREAD)
