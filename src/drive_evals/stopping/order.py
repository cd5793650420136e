"""The committed order: the run's clusters shuffled by `stop_seed`, fixed before any sample runs.

The guarantee is over this shuffle, so it must not depend on anything but the cluster names and the seed: the
clusters are sorted by name first (the dataset's own order may vary with `record_order`, shards, a local copy), then
shuffled by Python's Mersenne Twister, which is stable across platforms and versions for a given seed. The dataset
is reordered cluster by cluster in this order (units of a cluster keep their dataset order), so Inspect starts the
samples of earlier clusters first and a stop leaves whole clusters unrun.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TypeVar

Item = TypeVar("Item")


def committed_order(clusters: Iterable[Hashable], seed: int) -> list[str]:
    """The clusters' names in the committed order."""
    names = sorted({str(cluster) for cluster in clusters})
    random.Random(seed).shuffle(names)
    return names


def in_committed_order(items: Sequence[Item], cluster: Callable[[Item], Hashable], seed: int) -> list[Item]:
    """`items` regrouped cluster by cluster in the committed order, each cluster's items in their given order."""
    rank = {name: index for index, name in enumerate(committed_order((cluster(item) for item in items), seed))}
    return sorted(items, key=lambda item: rank[str(cluster(item))])  # sorted is stable: in-cluster order kept
