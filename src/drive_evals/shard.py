"""Split a run into disjoint shards by cluster, so that parallel processes share the machine's cores.

Shard `i/n` (counted from 1) keeps the clusters (SURDS: images; DriveLMM-o1: frames) whose rank in order of first
appearance is i - 1 modulo n. A cluster is never split, so the clustered standard errors of the merged shards are
those of an unsharded run; the rank comes from the full dataset, so the shards are disjoint, complete and the same
on every machine for the same data and parameters. `drive-evals merge-shards` joins the logs (drive_evals/cli/merge.py).
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

from drive_evals.errors import ParameterError
from drive_evals.params import fraction_part

SHARD_KEY = "shard"
"""Task metadata key: `i/n`, or None for an unsharded run."""
TOO_FEW_CLUSTERS = re.compile(r"shard=\d+/\d+: only (?P<clusters>\d+) (?P<what>\w+) to share between \d+ shards")
"""The error of a shard of a dataset with fewer clusters than shards, as `Shard.clusters` words it: `drive-evals run`
reads it in a shard's output to run the dataset in as many processes as it has clusters."""


@dataclass(frozen=True)
class Shard:
    """Part `index` of `count`, counted from 1."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def clusters(self, clusters: Iterable[Hashable], what: str) -> set[Hashable]:
        """The clusters of this shard, from all clusters in dataset order (repeats allowed); `what` names them."""
        ordered = list(dict.fromkeys(clusters))
        if len(ordered) < self.count:  # worded as TOO_FEW_CLUSTERS reads it
            raise ParameterError(f"shard={self}: only {len(ordered)} {what} to share between {self.count} shards")
        return {cluster for rank, cluster in enumerate(ordered) if rank % self.count == self.index - 1}


def parse_shard(value: object) -> Shard | None:
    """The `shard` task parameter: `i/n` or unset (no sharding)."""
    parsed = fraction_part(SHARD_KEY, value)
    return Shard(*parsed) if parsed else None


def clusters_if_too_few(output: str) -> tuple[int, str] | None:
    """The dataset's clusters and what they are (`3, "frames"`) if `output` (a shard's) holds the error of too few
    clusters for the shards."""
    found = list(TOO_FEW_CLUSTERS.finditer(output))
    return (int(found[-1]["clusters"]), found[-1]["what"]) if found else None
