"""The committed order: fixed by the cluster names and the seed alone, pinned so a change cannot slip in."""

from __future__ import annotations

from drive_evals.stopping.order import committed_order, in_committed_order

CLUSTERS = [f"frame-{i:02d}" for i in range(8)]


def test_the_order_is_pinned() -> None:
    assert committed_order(CLUSTERS, 0) == [
        "frame-04", "frame-01", "frame-05", "frame-02", "frame-00", "frame-03", "frame-07", "frame-06"
    ]  # fmt: skip
    assert committed_order(CLUSTERS, 1) != committed_order(CLUSTERS, 0)


def test_the_order_does_not_depend_on_the_dataset_order() -> None:
    assert committed_order(reversed(CLUSTERS), 5) == committed_order(CLUSTERS * 2, 5)


def test_samples_regroup_by_cluster_keeping_their_order() -> None:
    samples = [("a", "q1"), ("b", "q2"), ("a", "q3"), ("c", "q4"), ("b", "q5")]
    ordered = in_committed_order(samples, lambda s: s[0], seed=3)
    order = committed_order("abc", 3)
    assert [s[0] for s in ordered] == sorted((s[0] for s in samples), key=order.index)
    assert [s[1] for s in ordered if s[0] == "a"] == ["q1", "q3"]
