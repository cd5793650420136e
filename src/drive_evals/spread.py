"""Sample order that makes every prefix a fair small run: `--limit N` (positional in Inspect) then covers every
subset and as many images or frames as it can, instead of the first subset's first images.

The order changes no sample id and no sample: a full run holds the same samples, and its metrics (means and
clustered standard errors over all samples) do not depend on their order.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from itertools import zip_longest
from typing import TypeVar

from inspect_ai.dataset import Sample

T = TypeVar("T")


def spread(items: Sequence[T], group: Callable[[T], Hashable], cluster: Callable[[T], Hashable]) -> list[T]:
    """`items` reordered: round-robin over groups (in order of first appearance); within a group, one item of each
    cluster before a second of any, each group starting at another cluster (`_rotated`), each cluster's round r
    taking its item (r + rank) mod size, so that the first round also varies the position within a cluster (not
    every frame's first question)."""
    groups: dict[Hashable, dict[Hashable, list[T]]] = {}
    for item in items:
        groups.setdefault(group(item), {}).setdefault(cluster(item), []).append(item)
    per_group = [
        _interleave(_rotated(list(clusters.values()), index, len(groups)))
        for index, clusters in enumerate(groups.values())
    ]
    return [item for round_ in zip_longest(*per_group) for item in round_ if item is not None]


def _rotated(clusters: list[list[T]], index: int, count: int) -> list[list[T]]:
    """Group `index` of `count` starts its clusters at its share of them, so that groups whose clusters are the same
    (SURDS subsets asking about the same images) start on different ones."""
    start = index * len(clusters) // count
    return clusters[start:] + clusters[:start]


def _interleave(clusters: list[list[T]]) -> list[T]:
    rounds = max((len(members) for members in clusters), default=0)
    return [
        members[(round_ + rank) % len(members)]
        for round_ in range(rounds)
        for rank, members in enumerate(clusters)
        if round_ < len(members)
    ]


def spread_samples(samples: Sequence[Sample], group_key: str, cluster_key: str) -> list[Sample]:
    """`spread` over samples by two metadata keys."""
    return spread(
        samples,
        group=lambda sample: (sample.metadata or {})[group_key],
        cluster=lambda sample: (sample.metadata or {})[cluster_key],
    )
