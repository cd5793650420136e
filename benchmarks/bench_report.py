"""`drive-evals report` on a handful of small logs: wall and CPU of the whole command, this tree against another.

The logs are the offline demo's (the chance baseline as model and judge), made once and kept: one run of each
benchmark (4 logs), and four chance seeds of each (16 logs). Each cell is measured in fresh processes, in
`--pairs` interleaved (baseline, this tree) pairs so that both see the same load: the baseline is the source tree
given by `--baseline-src` (say, a checkout of main), run with this environment's packages; "one process" is this
tree with `DRIVE_EVALS_REPORT_PROCESSES=1` (every plot drawn in the command's own process). The ratio of the
medians is the result: wall times swing with the machine's load, ratios much less. Target: a few seconds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from common import INSPECT_CACHE_ENV, Measurement, measure, report, table
from fullsize_data import bench_dir

REPO_ROOT = Path(__file__).resolve().parents[1]
LOGS_VERSION = 1
"""Bump when the demo logs must be made again (a task version that changes what a log holds)."""
TASKS = ["drive_evals/surds", "drive_evals/drivelmm_o1", "drive_evals/drivebench", "drive_evals/vladbench"]
SEEDS = {4: [1], 16: [1, 2, 3, 4]}
"""Log count -> the chance seeds run for it (one log per benchmark and seed)."""
REPORT_CODE = "import sys; from drive_evals.command import entry; sys.argv[0] = 'drive-evals'; entry()"
"""`drive-evals` as its console script runs it, importable from PYTHONPATH (the baseline's source tree)."""


def demo_logs(count: int) -> Path:
    """The directory of `count` demo logs, made on first use (about 30 s a seed at load average 10)."""
    logs = bench_dir() / f"report-logs-v{LOGS_VERSION}" / str(count)
    if len(list(logs.glob("*.eval"))) == count:
        return logs
    for seed in SEEDS[count]:
        command = [sys.executable, "-m", "inspect_ai", "eval", *TASKS, "-T", "data=demo", "--display", "none"]
        command += ["--model", "chance/random", "-M", f"seed={seed}", "--model-role", "grader=chance/random"]
        command += ["--log-dir", str(logs), "--max-tasks", "4"]
        with tempfile.TemporaryDirectory() as cache:
            made = measure(command, env={INSPECT_CACHE_ENV: cache})
        if made.returncode != 0:
            raise RuntimeError(f"the demo run failed:\n{made.stdout[-3000:]}\n{made.stderr[-3000:]}")
    return logs


def timed_report(logs: Path, out: Path, source: Path, env: dict[str, str] | None = None) -> Measurement:
    environment = {"PYTHONPATH": str(source), **(env or {})}
    result = measure([sys.executable, "-c", REPORT_CODE, "report", str(logs), "--out", str(out)], env=environment)
    if result.returncode != 0:
        raise RuntimeError(f"drive-evals report ({source}) failed:\n{result.stderr[-3000:]}")
    return result


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} s ({min(values):.1f}-{max(values):.1f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--baseline-src", type=Path, help="a source tree to compare with (its src/ directory)")
    parser.add_argument("--pairs", type=int, default=3, help="interleaved pairs per cell (median, range)")
    parser.add_argument("--logs", default="4,16", help="log counts to measure: 4, 16 or both")
    args = parser.parse_args()
    here = REPO_ROOT / "src"
    load_before = " ".join(f"{x:.1f}" for x in os.getloadavg())
    rows, notes = [], []
    with tempfile.TemporaryDirectory() as work:
        for count in (int(part) for part in args.logs.split(",")):
            logs = demo_logs(count)
            cells: dict[str, list[Measurement]] = {"this tree": [], "this tree, one process": []}
            if args.baseline_src:
                cells["baseline"] = []
            for pair in range(args.pairs):
                out = Path(work) / f"{count}-{pair}"
                if args.baseline_src:
                    cells["baseline"].append(timed_report(logs, out / "baseline", args.baseline_src))
                cells["this tree"].append(timed_report(logs, out / "tree", here))
                one = {"DRIVE_EVALS_REPORT_PROCESSES": "1"}
                cells["this tree, one process"].append(timed_report(logs, out / "one", here, one))
            for name, runs in cells.items():
                walls, cpus = [r.wall_s for r in runs], [r.cpu_s for r in runs]
                rows.append([f"{count} logs, {name}", spread(walls), spread(cpus)])
            if args.baseline_src:
                ratio = statistics.median(r.wall_s for r in cells["baseline"]) / statistics.median(
                    r.wall_s for r in cells["this tree"]
                )
                notes.append(f"- {count} logs: this tree is {ratio:.1f}x faster than the baseline (wall, medians).")
    body = table(["`drive-evals report`", "wall", "CPU"], rows)
    notes += [
        f"- median of {args.pairs} interleaved fresh processes (range); baseline: `{args.baseline_src}`.",
        f"- load average before / after: {load_before} / {' '.join(f'{x:.1f}' for x in os.getloadavg())}.",
    ]
    report("drive-evals report on small logs", " ".join(["python", *sys.argv]), body, notes)


if __name__ == "__main__":
    main()
