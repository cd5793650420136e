"""Bytes per 1,000 samples of what `inspect view` loads before it can list a log: the header and the reductions.

    python benchmarks/log_header_size.py LOG [LOG ...]

`inspect view` serves a log's header with its `reductions` (every sample's reduced score: value, answer,
explanation, metadata) to fill the log list and the sample list, so their size grows with the sample count. Prints,
per log, the serialised header, the reductions and the per-sample score fields, scaled to 1,000 samples.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from inspect_ai.log import read_eval_log

PER = 1000


def measure(path: Path) -> dict[str, float]:
    log = read_eval_log(str(path), header_only=True)
    samples = sum(len(r.samples) for r in log.reductions or []) or 1
    fields: Counter[str] = Counter()
    for reduction in log.reductions or []:
        for score in reduction.samples:
            for name, value in score.model_dump().items():
                fields[name] += len(json.dumps(value, default=str))
    scale = PER / samples
    return {
        "samples": samples,
        "header_bytes_per_1000": len(log.model_dump_json()) * scale,
        "reductions_bytes_per_1000": len(json.dumps([r.model_dump() for r in log.reductions or []])) * scale,
        **{f"score_{name}_per_1000": size * scale for name, size in fields.items()},
    }


def main() -> None:
    for name in sys.argv[1:]:
        result = measure(Path(name))
        print(f"{Path(name).name}: {int(result['samples'])} samples")
        for key, value in result.items():
            if key != "samples":
                print(f"  {key}: {value / 1000:,.1f} kB")


if __name__ == "__main__":
    main()
