"""The Inspect manager: updated in the committed order only, whole clusters skipped after a stop, samples in flight
at the stop reported and kept out of the sequence whatever their scores."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from inspect_ai.dataset import Sample
from inspect_ai.scorer import SampleScore, Score

from drive_evals.errors import ParameterError
from drive_evals.stopping.manager import ClusteredStopping
from drive_evals.stopping.order import committed_order
from drive_evals.stopping.rule import parse_plan
from drive_evals.stopping.statistic import HeadlineForm

FORM = HeadlineForm(scorer="s", value_key="score", cluster_key="image", group_key=None)
CLUSTERS = [f"img{i:02d}" for i in range(30)]
ORDER = committed_order(CLUSTERS, 0)
SAMPLES = [Sample(input="q", id=f"{c}-{k}", metadata={"image": c}) for c in ORDER for k in (1, 2)]


def manager(shadow: bool = False) -> ClusteredStopping:
    plan = parse_plan("above:0.01", min_clusters=2, shadow=shadow)
    assert plan is not None
    stopping = ClusteredStopping(plan, FORM, ORDER)
    asyncio.run(stopping.start_task(None, SAMPLES, epochs=1))  # type: ignore[arg-type]
    return stopping


def complete(stopping: ClusteredStopping, cluster: str, value: float) -> None:
    for k in (1, 2):
        sample_id = f"{cluster}-{k}"
        score = SampleScore(
            score=Score(value={"score": value}), sample_id=sample_id, sample_metadata={"image": cluster}
        )
        asyncio.run(stopping.complete_sample(sample_id, 1, {"s": score}))


def schedule(stopping: ClusteredStopping, cluster: str) -> list[Any]:
    return [asyncio.run(stopping.schedule_sample(f"{cluster}-{k}", 1)) for k in (1, 2)]


def stopped_run(in_flight_value: float, shadow: bool = False) -> tuple[ClusteredStopping, dict[str, Any]]:
    stopping = manager(shadow)
    for cluster in ORDER[:3]:
        assert schedule(stopping, cluster) == [None, None]
    complete(stopping, ORDER[1], 1.0)  # finishes first, but counts only after ORDER[0]
    assert stopping.tracker is not None and stopping.tracker.looks == []
    complete(stopping, ORDER[0], 1.0)
    assert [look.cluster for look in stopping.tracker.looks] == ORDER[:2]
    later = schedule(stopping, ORDER[3])
    complete(stopping, ORDER[2], in_flight_value)  # in flight at the stop
    if not shadow:
        assert all(stop is not None and stop.metadata["cluster"] == ORDER[3] for stop in later)
    return stopping, asyncio.run(stopping.complete_task())


def test_the_stop_skips_what_has_not_started_and_reports_what_was_running() -> None:
    _, record = stopped_run(in_flight_value=0.0)
    assert record["decision"] == "above 0.01"
    assert record["stopped_at"]["clusters"] == 2
    assert record["in_flight"] == [f"{ORDER[2]}-1", f"{ORDER[2]}-2"]
    assert record["samples_skipped"] == 2 and record["clusters_not_run"] == 27
    assert len(record["trajectory"]) == 2
    assert "27 of 30 images were not run" in record["guarantee"]


def test_the_samples_in_flight_do_not_move_anything() -> None:
    assert stopped_run(in_flight_value=0.0)[1] == stopped_run(in_flight_value=1.0)[1]


def test_shadow_runs_everything_and_records_the_stop() -> None:
    stopping, _ = stopped_run(in_flight_value=0.0, shadow=True)
    for cluster in ORDER[4:]:
        assert schedule(stopping, cluster) == [None, None]
    for cluster in ORDER[3:]:
        complete(stopping, cluster, 0.0)
    record: dict[str, Any] = asyncio.run(stopping.complete_task())
    assert record["samples_skipped"] == 0 and record["clusters_not_run"] == 0
    assert record["stopped_at"]["clusters"] == 2 and len(record["trajectory"]) == 30
    assert record["full_run_decision"] == "above 0.01" and record["agrees_with_full_run"] is True


def test_epochs_and_a_dataset_out_of_order_are_refused() -> None:
    plan = parse_plan("above:0.5")
    assert plan is not None
    with pytest.raises(ParameterError, match="--epochs 1"):
        asyncio.run(ClusteredStopping(plan, FORM, ORDER).start_task(None, SAMPLES, epochs=2))  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="committed cluster order"):
        asyncio.run(ClusteredStopping(plan, FORM, ORDER).start_task(None, SAMPLES[::-1], epochs=1))  # type: ignore[arg-type]


def test_a_score_outside_the_range_is_clipped_and_counted() -> None:
    stopping = manager()
    for cluster in ORDER[:2]:
        schedule(stopping, cluster)
    complete(stopping, ORDER[0], 1.5)  # a judge out of its range, counted as given officially
    complete(stopping, ORDER[1], -0.5)
    record: dict[str, Any] = asyncio.run(stopping.complete_task())
    assert record["clipped_to_range"] == 4
    assert all(0 <= look["low"] <= look["high"] <= 1 for look in record["trajectory"])
