"""Measure the chance baseline on a SURDS data source over several seeds, beside its expected values.

    python tools/measure_chance.py --data demo --seeds 20

Expected values are those of the official random baseline (the protocol's reference numbers): yaw 1/16, depth
1/3, the three pair tasks 1/9, xy2d a small mean centerness. Each seed is one `chance/random -M seed=N` run.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile

from inspect_ai import eval as inspect_eval

from drive_evals.surds.task import surds


def _one_in(options: int) -> str:
    return f"1/{options} = {1 / options:.3f}"


EXPECTED = {
    "yaw": _one_in(16),
    "xy2d": "≈0.01-0.02",
    "depth": _one_in(3),
    "distance": _one_in(9),
    "left_right": _one_in(9),
    "front_behind": _one_in(9),
    "overall": "≈0.12",
}
"""What the official random baseline scores by construction (xy2d: a small mean centerness; overall: their mean)."""


HEADER = ["| metric | measured (mean ± sd over {seeds} seeds) | expected (protocol) |", "|---|---|---|"]


def measure(data: str, seeds: int, log_dir: str) -> dict[str, list[float]]:
    """Each metric's value in seeds 0..seeds-1 (one `chance/random -M seed=N` SURDS run each)."""
    runs: dict[str, list[float]] = {name: [] for name in EXPECTED}
    for seed in range(seeds):
        [log] = inspect_eval(
            surds(data=data), model="chance/random", model_args={"seed": seed}, log_dir=log_dir, display="none"
        )
        assert log.results is not None
        metrics = log.results.scores[0].metrics
        for name in EXPECTED:
            runs[name].append(metrics[name].value)
    return runs


def table(runs: dict[str, list[float]]) -> list[str]:
    """The Markdown table the SURDS docs show, line by line."""
    seeds = len(next(iter(runs.values())))
    lines = [HEADER[0].format(seeds=seeds), HEADER[1]]
    for name, values in runs.items():
        spread = statistics.stdev(values) if len(values) > 1 else 0.0
        lines.append(f"| {name} | {statistics.mean(values):.3f} ± {spread:.3f} | {EXPECTED[name]} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="demo")
    parser.add_argument("--seeds", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as log_dir:
        runs = measure(args.data, args.seeds, log_dir)
    print(f"chance/random on data={args.data}, {args.seeds} seeds")
    print("\n".join(table(runs)))


if __name__ == "__main__":
    main()
