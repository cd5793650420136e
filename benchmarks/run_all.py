"""Run every benchmark in turn; each prints its table and appends it to docs/performance-results.md.

From a fresh clone: `pip install -e '.[dev]'`, then `python benchmarks/run_all.py`. The first run generates the
full-size data (about 10 minutes on 2 cores) and installs evalscope into its own virtual environment; later runs
reuse both. Pass benchmark names to run only some: `python benchmarks/run_all.py surds_build drivelmm`.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHMARKS = {
    "data": "fullsize_data.py",
    "surds_build": "bench_surds_build.py",
    "surds_run": "bench_surds_run.py",
    "drivelmm": "bench_drivelmm.py",
}


def main() -> None:
    names = sys.argv[1:] or list(BENCHMARKS)
    unknown = [name for name in names if name not in BENCHMARKS]
    if unknown:
        raise SystemExit(f"unknown benchmark(s) {unknown}; choose from {', '.join(BENCHMARKS)}")
    for name in names:
        started = time.perf_counter()
        print(f"== {name}", flush=True)
        subprocess.run([sys.executable, str(HERE / BENCHMARKS[name])], check=True)
        print(f"== {name}: {time.perf_counter() - started:.0f} s", flush=True)


if __name__ == "__main__":
    main()
