"""Early stopping (issue 47): does the confidence sequence hold at every look, how early does it decide, what width
does it cost. Simulated populations of clusters, each taken in a uniformly random order, as a run takes them.

1. Error: the share of runs in which the sequence *ever* (at any cluster) excludes the full-benchmark value, at 5,
   20, 100 and 500 clusters; it must be at most alpha = 0.05. Shapes: binary units in clusters of 1-15 units (an
   unequal SURDS-like subset), judge scores near 1 with a heavy tail of poor frames in frames of 1-15 questions
   (DriveLMM-o1's hardest shape in bench_coverage.py), and SURDS-like paired binary units (two models on 1-4 units
   an image, the paired form of `vs:LOG`).
2. Decisions: for the paired shape with a true difference of 0.5, 1, 2 and 4 times the fixed-n minimum detectable
   difference (80% power at alpha 0.05 over all N clusters: 2.80 x the clustered standard error at no
   difference), the share of clusters paid before the sequence excludes 0 (median over runs; a run that never
   excludes it pays 100%) and how often it decides the wrong way.
3. Width: the sequence's width beside the fixed-n betting interval the report prints for the same clusters
   (`stats.betting`), after 10%, 25%, 50% and 90% of the clusters, when no rule stops the run.

    python benchmarks/bench_stopping.py            # the tables into docs/statistics.md ("Early stopping")
    python benchmarks/bench_stopping.py --no-write # print only
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402
import numpy.typing as npt  # noqa: E402

from drive_evals.stats.betting import betting_interval  # noqa: E402
from drive_evals.stats.sequence import HORIZON_SHARE, MIN_HORIZON, ConfidenceSequence, OneSided  # noqa: E402

DOC = Path(__file__).resolve().parents[1] / "docs" / "statistics.md"
BEGIN, END = "<!-- bench_stopping: begin -->", "<!-- bench_stopping: end -->"
ALPHA = 0.05
SEED = 47
CLUSTER_COUNTS = (5, 20, 100, 500)
ERROR_RUNS = 4000
"""Runs a cell: an error rate of 0.05 is measured with a standard error of 0.0034."""
DECISION_COUNTS = (100, 500)
MDD_MULTIPLES = (0.5, 1.0, 2.0, 4.0)
DECISION_RUNS = 400
MIN_CLUSTERS = 10
"""`stop_min_clusters` in the decision runs (the task default)."""
HORIZON_SHARES = (0.1, HORIZON_SHARE, 0.5, 1.0)
"""Bet sizes compared (the share of the clusters the bets are sized for; 1.0 is the fixed-n plug-in)."""
WIDTH_COUNTS = (100, 500)
WIDTH_SHARES = (0.1, 0.25, 0.5, 0.9)
WIDTH_RUNS = 100
Z_POWER = 1.959964 + 0.841621
"""z_{0.975} + z_{0.80}: the fixed-n minimum detectable difference in standard errors."""

FloatArray = npt.NDArray[np.float64]


def _logistic(x: FloatArray) -> FloatArray:
    return np.asarray(1.0 / (1.0 + np.exp(-x)), dtype=np.float64)


def _logit(p: float) -> float:
    return float(np.log(p / (1 - p)))


@dataclass(frozen=True)
class Population:
    """A benchmark's clusters as the sequence sees them: values in [0, 1], their per-cluster ranges, the truth."""

    x: FloatArray
    floors: FloatArray
    ceilings: FloatArray
    truth: float
    """The population mean of x (the full-benchmark value on the sequence's scale)."""


def single(values: FloatArray, clusters: npt.NDArray[np.int64], count: int) -> Population:
    """The headline `mean over units` as a sum of cluster values, scaled by the largest cluster's weight."""
    weight = np.bincount(clusters, minlength=count) / values.size
    share = np.bincount(clusters, weights=values, minlength=count) / values.size
    scale = weight.max()
    x = share / scale
    return Population(x, np.zeros(count), weight / scale, float(x.mean()))


def paired(a: FloatArray, b: FloatArray, clusters: npt.NDArray[np.int64], count: int) -> Population:
    """A's cluster values minus B's (B known for every cluster, as a finished run), mapped from [-1, 1] to [0, 1]."""
    weight = np.bincount(clusters, minlength=count) / a.size
    share_a = np.bincount(clusters, weights=a, minlength=count) / a.size
    share_b = np.bincount(clusters, weights=b, minlength=count) / a.size
    scale = weight.max()
    x = ((share_a - share_b) / scale + 1) / 2
    return Population(x, (1 - share_b / scale) / 2, (1 + (weight - share_b) / scale) / 2, float(x.mean()))


Draw = Callable[[np.random.Generator, int], Population]


def binary_unequal(rng: np.random.Generator, count: int) -> Population:
    sizes = rng.integers(1, 16, count)
    index = np.repeat(np.arange(count), sizes)
    p = _logistic(_logit(0.4) + rng.standard_normal(count))
    return single((rng.random(index.size) < p[index]).astype(np.float64), index, count)


def judge_heavy_tail(rng: np.random.Generator, count: int) -> Population:
    sizes = rng.integers(1, 16, count)
    index = np.repeat(np.arange(count), sizes)
    m = _logistic(_logit(0.97) + 1.5 * rng.standard_normal(count))[index]
    return single(np.round(rng.beta(m * 8.0, (1 - m) * 8.0), 2), index, count)


def paired_binary(shift: float) -> Draw:
    def draw(rng: np.random.Generator, count: int) -> Population:
        sizes = rng.integers(1, 5, count)
        index = np.repeat(np.arange(count), sizes)
        base = _logit(0.4) + rng.standard_normal(count)
        a = (rng.random(index.size) < _logistic(base[index] + shift)).astype(np.float64)
        b = (rng.random(index.size) < _logistic(base[index])).astype(np.float64)
        return paired(a, b, index, count)

    return draw


ERROR_SHAPES: dict[str, Draw] = {
    "binary units, 1-15 a cluster, 40% correct": binary_unequal,
    "judge scores near 1, heavy tail of poor frames, 1-15 a frame": judge_heavy_tail,
    "SURDS-like paired binary units, 1-4 an image, A +0.3 log-odds": paired_binary(0.3),
}


def draw_many(draw: Draw, rng: np.random.Generator, count: int, runs: int) -> Population:
    """`runs` populations, each in a random order (a row per run)."""
    rows = [draw(rng, count) for _ in range(runs)]
    order = np.argsort(rng.random((runs, count)), axis=1)

    def stack(name: str) -> FloatArray:
        return np.take_along_axis(np.stack([getattr(row, name) for row in rows]), order, axis=1)

    return Population(stack("x"), stack("floors"), stack("ceilings"), np.array([row.truth for row in rows]))  # type: ignore[arg-type]


def sides(population: Population, candidates: FloatArray, horizon: float | None = None) -> tuple[OneSided, OneSided]:
    return (
        OneSided(candidates, population.floors, population.ceilings, ALPHA / 2, +1, horizon),
        OneSided(candidates, population.floors, population.ceilings, ALPHA / 2, -1, horizon),
    )


def error_rate(draw: Draw, count: int, rng: np.random.Generator) -> float:
    """The share of runs in which either side ever rejects the truth."""
    population = draw_many(draw, rng, count, ERROR_RUNS)
    low, high = sides(population, np.asarray(population.truth))
    for step in range(count):
        low.update(population.x[:, step])
        high.update(population.x[:, step])
    return float((low.rejected | high.rejected).mean())


def shift_for(difference: float) -> float:
    """The log-odds shift whose expected paired difference (per unit) is `difference`."""
    base = _logit(0.4) + np.random.default_rng(0).standard_normal(200_000)
    lo, hi = 0.0, 6.0
    for _ in range(50):
        mid = (lo + hi) / 2
        if float((_logistic(base + mid) - _logistic(base)).mean()) < difference:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def fixed_mdd(count: int, rng: np.random.Generator, runs: int = 400) -> float:
    """2.80 x the mean clustered standard error of the paired mean difference at no difference, per unit."""
    errors = []
    for _ in range(runs):
        sizes = rng.integers(1, 5, count)
        index = np.repeat(np.arange(count), sizes)
        base = _logit(0.4) + rng.standard_normal(count)
        p = _logistic(base[index])
        d = (rng.random(index.size) < p).astype(np.float64) - (rng.random(index.size) < p).astype(np.float64)
        sums = np.bincount(index, weights=d - d.mean(), minlength=count)
        errors.append(np.sqrt(count / (count - 1) * (sums**2).sum()) / index.size)
    return Z_POWER * float(np.mean(errors))


def decisions(
    count: int, multiple: float, mdd: float, rng: np.random.Generator, horizon_share: float | None = None
) -> tuple[float, float, float, float]:
    """Median share of clusters paid to a decision, shares decided by 25% and 50%, and the wrong-way rate (the
    decision against the sign of the population's own difference, which a small expected difference can flip)."""
    population = draw_many(paired_binary(shift_for(multiple * mdd)), rng, count, DECISION_RUNS)
    zero = np.full(DECISION_RUNS, 0.5)  # no difference, on the [0, 1] scale
    horizon = None if horizon_share is None else max(MIN_HORIZON, horizon_share * count)
    better, worse = sides(population, zero, horizon)
    decided = np.full(DECISION_RUNS, count)
    wrong = np.zeros(DECISION_RUNS, dtype=np.bool_)
    for step in range(count):
        better.update(population.x[:, step])
        worse.update(population.x[:, step])
        if step + 1 >= MIN_CLUSTERS:
            now = (better.rejected | worse.rejected) & (decided == count)
            said_worse = worse.rejected & ~better.rejected
            wrong |= now & (said_worse != (np.asarray(population.truth) < 0.5))
            decided = np.where(now, step + 1, decided)
    share = decided / count
    return float(np.median(share)), float((share <= 0.25).mean()), float((share <= 0.5).mean()), float(wrong.mean())


def widths(count: int, rng: np.random.Generator) -> list[float]:
    """Mean ratio of the sequence's width to the fixed-n betting interval's at each share of the clusters."""
    ratios: dict[float, list[float]] = {share: [] for share in WIDTH_SHARES}
    for _ in range(WIDTH_RUNS):
        sizes = rng.integers(1, 16, count)
        index = np.repeat(np.arange(count), sizes)
        m = _logistic(_logit(0.7) + 0.8 * rng.standard_normal(count))[index]
        values = np.round(rng.beta(m * 8.0, (1 - m) * 8.0), 2)
        population = single(values, index, count)
        order = rng.permutation(count)
        sequence = ConfidenceSequence(population.floors[order], population.ceilings[order], ALPHA)
        scale = np.bincount(index, minlength=count).max() / values.size * count  # x mean -> unit mean
        marks = {max(1, round(share * count)): share for share in WIDTH_SHARES}
        for step in range(count):
            sequence.update(population.x[order[step]], population.x[order[step]])
            if step + 1 in marks:
                low, high = sequence.bounds()
                seen = np.isin(index, order[: step + 1])
                f_low, f_high = betting_interval(list(values[seen]), list(index[seen]), 1 - ALPHA)
                ratios[marks[step + 1]].append((high - low) * scale / max(f_high - f_low, 1e-9))
    return [float(np.mean(ratios[share])) for share in WIDTH_SHARES]


def tables() -> list[str]:
    rng = np.random.default_rng(SEED)
    lines = [
        f"Error: the share of {ERROR_RUNS:,} runs a cell whose sequence ever excluded the full-benchmark value "
        f"(alpha = {ALPHA}; Monte Carlo SE 0.0034).",
        "",
        "| shape | " + " | ".join(f"N={n}" for n in CLUSTER_COUNTS) + " |",
        "|---|" + "---|" * len(CLUSTER_COUNTS),
    ]
    for name, draw in ERROR_SHAPES.items():
        lines.append(f"| {name} | " + " | ".join(f"{error_rate(draw, n, rng):.4f}" for n in CLUSTER_COUNTS) + " |")
    lines += [
        "",
        f"Decisions (`vs:LOG`, paired binary shape, {DECISION_RUNS} runs a cell, `stop_min_clusters={MIN_CLUSTERS}`): "
        "median share of the clusters paid before the sequence excluded 0; in brackets the share of runs decided "
        "by 25% and by 50% of the clusters, and the rate of wrong-way decisions.",
        "",
        "| clusters | fixed-n MDD | " + " | ".join(f"{m:g}x MDD" for m in MDD_MULTIPLES) + " |",
        "|---|---|" + "---|" * len(MDD_MULTIPLES),
    ]
    for count in DECISION_COUNTS:
        mdd = fixed_mdd(count, rng)
        cells = []
        for multiple in MDD_MULTIPLES:
            median, by_quarter, by_half, wrong = decisions(count, multiple, mdd, rng)
            cells.append(f"{median:.0%} ({by_quarter:.0%} / {by_half:.0%}; wrong {wrong:.1%})")
        lines.append(f"| {count} | {mdd:.4f} | " + " | ".join(cells) + " |")
    lines += [
        "",
        f"Tuning the bet size (500 clusters, {DECISION_RUNS} runs a cell): median share of the clusters paid at 2x and "
        f"4x the fixed-n MDD, with the bets sized for a look after this share of the clusters.",
        "",
        "| bets sized for | 2x MDD | 4x MDD |",
        "|---|---|---|",
    ]
    mdd = fixed_mdd(500, rng)
    for share in HORIZON_SHARES:
        cells = [f"{decisions(500, multiple, mdd, rng, share)[0]:.0%}" for multiple in (2.0, 4.0)]
        used = " (used)" if share == HORIZON_SHARE else ""
        lines.append(f"| {share:.0%} of the clusters{used} | " + " | ".join(cells) + " |")
    lines += [
        "",
        f"Width of the sequence / width of the fixed-n betting interval on the same clusters (judge scores, mean 0.7, "
        f"1-15 questions a frame; mean over {WIDTH_RUNS} runs):",
        "",
        "| clusters | " + " | ".join(f"after {share:.0%}" for share in WIDTH_SHARES) + " |",
        "|---|" + "---|" * len(WIDTH_SHARES),
    ]
    for count in WIDTH_COUNTS:
        lines.append(f"| {count} | " + " | ".join(f"{ratio:.2f}" for ratio in widths(count, rng)) + " |")
    return lines


def write(lines: list[str]) -> None:
    text = DOC.read_text()
    block = "\n".join([BEGIN, *lines, END])
    if BEGIN in text:
        text = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: block, text, flags=re.DOTALL)
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    DOC.write_text(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--no-write", action="store_true", help="print the tables without writing the doc")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    lines = tables()
    lines.append("")
    lines.append(f"({time.perf_counter() - start:.0f} s on one core; seed {SEED}.)")
    print("\n".join(lines))
    if not args.no_write:
        write(lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
