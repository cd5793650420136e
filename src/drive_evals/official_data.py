"""Whether a run read the official data: demo data, the official set, or a copy whose counts differ from it.

A partial run of the official data (`--limit`, `--sample-id`, `subsets=`) is the official data: the headline and
the report say "partial run" for it. What this checks is the data itself, by the counts each benchmark declares
(`Benchmark.official`) against its loader's summary, which counts the whole data the loader read, the same in every
shard. Counts, not a content hash: they are free (the loader has them), the same for the official files in any of
their formats (a Hugging Face parquet conversion, the JSON), and they catch what happens in practice (a subset
copied, a truncated download, another split). A copy of the official size whose contents differ is not caught.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from drive_evals.benchmark import Benchmark, OfficialCount
from drive_evals.data import DEMO

OFFICIAL_DATA_KEY = "official_data"
"""Task metadata key of the check's result: `{"status": ..., "differences": [...]}`."""

Status = Literal["demo", "official", "not official", "unchecked"]


def official_data(benchmark: Benchmark | None, metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The check for a run of `benchmark` whose task metadata is `metadata`: its status and, for a copy that is not
    the official set, each count that differs (`21 yaw units (official 925)`)."""
    data = metadata.get("data")
    if isinstance(data, Mapping) and data.get("source") == DEMO:
        return {"status": "demo", "differences": []}
    counts = benchmark.official(metadata) if benchmark is not None and benchmark.official is not None else []
    if not counts:
        return {"status": "unchecked", "differences": []}
    differences = [_difference(count) for count in counts if count.read not in count.official]
    status: Status = "not official" if differences else "official"
    return {"status": status, "differences": differences}


def _difference(count: OfficialCount) -> str:
    official = " or ".join(f"{n:,}" for n in count.official)
    return f"{count.read:,} {count.what} (official {official})"


def not_official(checked: Mapping[str, Any] | None) -> list[str] | None:
    """The differing counts of a check that found a copy other than the official set; None otherwise."""
    if not isinstance(checked, Mapping) or checked.get("status") != "not official":
        return None
    return [str(d) for d in checked.get("differences") or []]
