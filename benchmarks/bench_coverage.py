"""Coverage of the report's 95% intervals, by simulation of both benchmarks' shapes at 2 to 200 clusters.

Each shape draws clusters (SURDS images, DriveLMM-o1 frames) with a difficulty of their own, so the units of a
cluster are correlated as in the real data; the true value is the population mean, computed once from a large
draw. A method covers when its interval contains the true value. Methods: the report's current ones (Korn-Graubard
bounds on an effective sample size from the CR2 standard error, t on Bell-McCaffrey degrees of freedom; for a
metric's scores between 0 and 1 the betting interval; either widened to Clopper-Pearson's on the units taken as
independent where it is narrower; for paired differences the inverted clustered score test, with
the sign-flip test joining it at 0) beside the alternatives considered and what the report printed before (estimate
+/- 1.96 clustered SE; for scores, a design effect of at least 1 and Hall's widening; a percentile cluster bootstrap
beside a sign-flip p-value; the inverted sign-flip test shown only where the runs differ in 6+ clusters), so the
table shows why the choice was made (docs/statistics.md). Then a power check of the paired test against the
`detectable (80%)` difference the report prints (`--no-power` skips it).

    python benchmarks/bench_coverage.py --workers 2   # the full table into docs/statistics.md (slow)
    python benchmarks/bench_coverage.py --others 0 --clusters 20 --shapes paired-effect --no-write   # one cell

tests/stats/test_coverage.py runs a small fixed-seed slice of the same simulation.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import math
import os
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# One BLAS thread per process, set before numpy loads its BLAS: the workers are the parallelism, and BLAS threads
# fighting them (or other jobs) for the cores made each sign-flip product at 200 clusters about 100 times slower.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import numpy as np  # noqa: E402
import numpy.typing as npt  # noqa: E402

from drive_evals.stats.clustered import bell_mccaffrey_df, cr2_stderr, equal_group_mean  # noqa: E402
from drive_evals.stats.distributions import t_quantile  # noqa: E402
from drive_evals.stats.intervals import (  # noqa: E402
    MIN_SCORE_CLUSTERS,
    ZERO_STDERR,
    credit_interval,
    kish_units,
    mean_interval,
    score_interval,
)
from drive_evals.stats.paired import (  # noqa: E402
    CONFIDENCE,
    SEED,
    inverted_interval,
    min_clusters,
    paired_difference,
    paired_tests,
    scaled_paired_difference,
)

DOC = Path(__file__).resolve().parents[1] / "docs" / "statistics.md"
BLOCK = "bench_coverage"
"""The block of docs/statistics.md the full table goes to; `--block` names another (the few-clusters table)."""
CLUSTER_COUNTS = (2, 3, 4, 5, 6, 9, 12, 15, 20, 50, 100, 200)
REPLICATIONS = 4000
"""Draws per cell for the report's methods: a coverage of 0.95 is then measured with a standard error of 0.0034,
so a cell below 0.94 is a real shortfall (2.9 standard errors), not noise."""
OTHER_REPLICATIONS = 200
"""Draws per cell for the methods the report does not use: enough to show where they fail (by 0.02 to 0.5)."""
METHOD_STREAM = 1
"""Seed suffix of the random stream the methods themselves draw from (bootstrap resamples, sign flips)."""
TRUTH_DRAWS = 400_000
"""Clusters drawn once to compute a shape's true value (its Monte Carlo error is below 0.001)."""
SUBSETS = 6
Z95 = 1.959963984540054
OLD_BOOTSTRAP_REPLICATES = 4000
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Sample:
    """One simulated data set: per-unit values of one model (b is None) or two, with clusters and groups."""

    a: FloatArray
    b: FloatArray | None
    clusters: npt.NDArray[np.int64]
    groups: npt.NDArray[np.int64]
    uppers: FloatArray | None = None
    """Per-unit upper bounds of credits (a ratio of sums linearised: VLADBench's `total`); None for values in [0, 1]."""


@dataclass(frozen=True)
class Shape:
    name: str
    describes: str
    paired: bool
    draw: Callable[[np.random.Generator, int], Sample]
    truth: Callable[[np.random.Generator], float]
    continuous: bool = False
    """The report's metric for this shape declares values between 0 and 1 (`UnitMetric.continuous`)."""


def _logistic(x: FloatArray) -> FloatArray:
    return np.asarray(1.0 / (1.0 + np.exp(-x)), dtype=np.float64)


def _logit(p: float) -> float:
    return math.log(p / (1 - p))


def _sizes(rng: np.random.Generator, clusters: int, low: int, high: int) -> npt.NDArray[np.int64]:
    return rng.integers(low, high + 1, size=clusters)


def binary_shape(name: str, describes: str, rate: float, spread: float, units: tuple[int, int]) -> Shape:
    """Binary outcomes; cluster c answers correctly with probability logistic(logit(rate) + spread z_c)."""

    def draw(rng: np.random.Generator, clusters: int) -> Sample:
        sizes = _sizes(rng, clusters, *units)
        p = _logistic(_logit(rate) + spread * rng.standard_normal(clusters))
        index = np.repeat(np.arange(clusters), sizes)
        values = (rng.random(index.size) < p[index]).astype(np.float64)
        return Sample(values, None, index, np.zeros(index.size, dtype=np.int64))

    def truth(rng: np.random.Generator) -> float:
        return float(_logistic(_logit(rate) + spread * rng.standard_normal(TRUTH_DRAWS)).mean())

    return Shape(name, describes, False, draw, truth)


SUBSET_RATES = (0.03, 0.35, 0.6, 0.5, 0.5, 0.97)
"""SURDS-like subset accuracies: some subsets near 0 (xy2d), some near 1."""


def overall_draw(
    rng: np.random.Generator, clusters: int, shifts: tuple[float, float] | None
) -> tuple[FloatArray, FloatArray | None, npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Each image has a unit in each subset with probability 0.6 (every subset with at least one unit)."""
    while True:
        present = rng.random((clusters, SUBSETS)) < 0.6
        if present.any(axis=0).all():
            break
    cluster_index, group_index = np.nonzero(present)
    effect = rng.standard_normal(clusters)[cluster_index]
    base = np.array([_logit(r) for r in SUBSET_RATES])[group_index] + 1.0 * effect
    if shifts is None:
        return (rng.random(base.size) < _logistic(base)).astype(np.float64), None, cluster_index, group_index
    a = (rng.random(base.size) < _logistic(base + shifts[0])).astype(np.float64)
    b = (rng.random(base.size) < _logistic(base + shifts[1])).astype(np.float64)
    return a, b, cluster_index, group_index


def overall_truth(rng: np.random.Generator, shift: float) -> float:
    effect = rng.standard_normal(TRUTH_DRAWS)
    return float(np.mean([_logistic(_logit(r) + shift + effect).mean() for r in SUBSET_RATES]))


def surds_overall() -> Shape:
    def draw(rng: np.random.Generator, clusters: int) -> Sample:
        a, _, c, g = overall_draw(rng, clusters, None)
        return Sample(a, None, c, g)

    return Shape(
        "surds-overall",
        "equal mean of six subsets (rates 3-97%), images shared across subsets",
        False,
        draw,
        lambda rng: overall_truth(rng, 0.0),
    )


CENTERNESS = (4.0, 2.0)
"""Beta parameters of an xy2d centerness where the point falls in the box (mean 2/3), in steps of 0.01."""


def surds_overall_centerness() -> Shape:
    """SURDS `overall` whose first subset (3% in the box, as xy2d) is scored by centerness: a mean over subsets that
    holds scores between 0 and 1, for which the report keeps Korn-Graubard's interval."""

    def draw(rng: np.random.Generator, clusters: int) -> Sample:
        a, _, c, g = overall_draw(rng, clusters, None)
        xy2d = g == 0
        a[xy2d] *= np.round(rng.beta(*CENTERNESS, size=int(xy2d.sum())), 2)
        return Sample(a, None, c, g)

    def truth(rng: np.random.Generator) -> float:
        effect = rng.standard_normal(TRUTH_DRAWS)
        means = [float(_logistic(_logit(r) + effect).mean()) for r in SUBSET_RATES]
        means[0] *= CENTERNESS[0] / sum(CENTERNESS)
        return float(np.mean(means))

    return Shape(
        "surds-overall-centerness", "the same, its 3% subset scored by centerness in [0, 1]", False, draw, truth
    )


def judge_shape(
    name: str,
    describes: str,
    mean: float,
    spread: float,
    questions: tuple[int, int] = (3, 6),
    concentration: float = 8.0,
) -> Shape:
    """DriveLMM-o1 judge scores: per question a Beta draw around the frame's quality, in steps of 0.01; the larger
    `concentration`, the closer a frame's questions lie to its quality."""

    def draw(rng: np.random.Generator, clusters: int) -> Sample:
        sizes = _sizes(rng, clusters, *questions)
        quality = _logistic(_logit(mean) + spread * rng.standard_normal(clusters))
        index = np.repeat(np.arange(clusters), sizes)
        m = quality[index]
        values = np.round(rng.beta(m * concentration, (1 - m) * concentration), 2)
        return Sample(values, None, index, np.zeros(index.size, dtype=np.int64))

    def truth(rng: np.random.Generator) -> float:
        return float(_logistic(_logit(mean) + spread * rng.standard_normal(TRUTH_DRAWS)).mean())

    return Shape(name, describes, False, draw, truth, continuous=True)


def poor_frames_shape(name: str, describes: str, good: float, poor: float, share: float) -> Shape:
    """Judge scores whose frames are either good or poor (a `share` of them), 8-9 questions a frame, each a Beta
    draw (concentration 20) around its frame's quality in steps of 0.01: a frame-level tail in frames of many
    questions, where a bound on each question's variance says little about the frames."""
    concentration = 20.0

    def draw(rng: np.random.Generator, clusters: int) -> Sample:
        sizes = _sizes(rng, clusters, 8, 9)
        quality = np.where(rng.random(clusters) < share, poor, good)
        index = np.repeat(np.arange(clusters), sizes)
        m = quality[index]
        values = np.round(rng.beta(m * concentration, (1 - m) * concentration), 2)
        return Sample(values, None, index, np.zeros(index.size, dtype=np.int64))

    def truth(rng: np.random.Generator) -> float:
        return share * poor + (1 - share) * good

    return Shape(name, describes, False, draw, truth, continuous=True)


def paired_binary(name: str, describes: str, rate: float, shift: float, units: tuple[int, int]) -> Shape:
    """Two models on the same clusters: both see cluster difficulty z_c; A's log-odds are `shift` higher."""
    spread = 1.0

    def draw(rng: np.random.Generator, clusters: int) -> Sample:
        sizes = _sizes(rng, clusters, *units)
        base = _logit(rate) + spread * rng.standard_normal(clusters)
        index = np.repeat(np.arange(clusters), sizes)
        a = (rng.random(index.size) < _logistic(base[index] + shift)).astype(np.float64)
        b = (rng.random(index.size) < _logistic(base[index])).astype(np.float64)
        return Sample(a, b, index, np.zeros(index.size, dtype=np.int64))

    def truth(rng: np.random.Generator) -> float:
        base = _logit(rate) + spread * rng.standard_normal(TRUTH_DRAWS)
        return float((_logistic(base + shift) - _logistic(base)).mean())

    return Shape(name, describes, True, draw, truth)


def paired_overall(shift: float) -> Shape:
    def draw(rng: np.random.Generator, clusters: int) -> Sample:
        a, b, c, g = overall_draw(rng, clusters, (shift, 0.0))
        return Sample(a, b, c, g)

    def truth(rng: np.random.Generator) -> float:
        return overall_truth(np.random.default_rng(1), shift) - overall_truth(np.random.default_rng(1), 0.0)

    effect = "equally good" if shift == 0 else f"A +{shift} log-odds"
    return Shape(f"paired-overall{'' if shift == 0 else '-effect'}", f"SURDS overall, {effect}", True, draw, truth)


def paired_judge(name: str, describes: str, mean: float, spread: float, shift: float) -> Shape:
    """Two models' judge scores on the same frames (3-6 questions each): A's frame quality `shift` log-odds higher."""
    concentration = 8.0

    def draw(rng: np.random.Generator, clusters: int) -> Sample:
        sizes = _sizes(rng, clusters, 3, 6)
        base = _logit(mean) + spread * rng.standard_normal(clusters)
        index = np.repeat(np.arange(clusters), sizes)

        def scores(offset: float) -> FloatArray:
            m = _logistic(base[index] + offset)
            return np.asarray(np.round(rng.beta(m * concentration, (1 - m) * concentration), 2), dtype=np.float64)

        return Sample(scores(shift), scores(0.0), index, np.zeros(index.size, dtype=np.int64))

    def truth(rng: np.random.Generator) -> float:
        base = _logit(mean) + spread * rng.standard_normal(TRUTH_DRAWS)
        return float((_logistic(base + shift) - _logistic(base)).mean())

    return Shape(name, f"{describes}, A +{shift} log-odds", True, draw, truth)


VLADBENCH_TASKS = ("Weather", "Vehicle_Recognition", "VRU_Cutin", "Sign_Sign_Relation")
"""One task of each composite VLADBench scorer: general (0, 0.8, 0.2), grounding (0.3, 0.5, 0.2: a box question's IoU
weighs n / boxes), judge (0.7, 0.1, 0.2: yes/no and descriptive questions weighed apart), relation (tip pairs)."""
VLADBENCH_LOCATE = "Where is the car located in the image? The output format should be [x1, y1, x2, y2]."
VLADBENCH_CLASSIFY = "What is the object in the red box? ['car', 'bus']. Note that no explantion is needed."
VLADBENCH_TRUTH_SCENES = 40_000


def _vladbench_rows(
    rng: np.random.Generator, scenes: int, shifts: tuple[float, ...]
) -> tuple[list[list[tuple[dict[str, float], dict[str, object]]]], npt.NDArray[np.int64]]:
    """Scenes (the clusters: one official `dindex` sample of one task) of 2-6 questions, each scene with a
    difficulty of its own; per model (one a shift in `shifts`, in log-odds) its score values and sample metadata.
    A grounding scene opens with its box question and a judge scene alternates descriptive and yes/no questions, so
    every task's official score is defined, as the data checks require of a full run."""
    tasks = rng.integers(0, len(VLADBENCH_TASKS), size=scenes)
    sizes = rng.integers(2, 7, size=scenes)
    difficulty = rng.standard_normal(scenes)
    runs: list[list[tuple[dict[str, float], dict[str, object]]]] = [[] for _ in shifts]
    cluster_of: list[int] = []
    number = 0
    for scene in range(scenes):
        task = VLADBENCH_TASKS[int(tasks[scene])]
        for position in range(int(sizes[scene])):
            number += 1
            question = VLADBENCH_LOCATE if task == "Vehicle_Recognition" and position == 0 else VLADBENCH_CLASSIFY
            answer = ("yes" if rng.random() < 0.5 else "no") if task == "VRU_Cutin" and position % 2 else "car"
            metadata = {"task": task, "row": number, "dindex": str(scene), "question": question, "answer": answer}
            uniform = rng.random(3)
            for run, shift in zip(runs, shifts, strict=True):
                p = float(_logistic(np.array(_logit(0.5) + 1.2 * difficulty[scene] + shift)))
                value = {
                    "correct": float(uniform[0] < p),
                    "obey": float(uniform[1] < 0.6 + 0.3 * p),
                    "iou": float(np.clip(p + 0.3 * (uniform[2] - 0.5), 0.0, 1.0)),
                    "paired": 1.0,
                }
                run.append((value, metadata))
            cluster_of.append(scene)
    return runs, np.asarray(cluster_of, dtype=np.int64)


def _credits(rows: list[tuple[dict[str, float], dict[str, object]]]) -> tuple[FloatArray, FloatArray]:
    from drive_evals.vladbench.credits import question_credits

    credits = question_credits(rows)
    assert all(credit is not None for credit in credits), "every task has its box and yes/no questions"
    values = np.array([c.value for c in credits if c is not None], dtype=np.float64)
    uppers = np.array([c.upper for c in credits if c is not None], dtype=np.float64)
    return values, uppers


def _vladbench_total(rows: list[tuple[dict[str, float], dict[str, object]]]) -> float:
    from drive_evals.vladbench.metrics import TOTAL, official_scores, task_results

    return official_scores(task_results(rows))[TOTAL]


def vladbench_shape(shift: float = 0.0, paired: bool = False) -> Shape:
    """VLADBench's official `total` over scenes of four composite tasks: the truth is the official total of a
    draw of VLADBENCH_TRUTH_SCENES scenes (a ratio of sums: its population value), each draw's credits are the
    real `vladbench.credits.question_credits`."""
    shifts = (shift, 0.0) if paired else (0.0,)

    def draw(rng: np.random.Generator, clusters: int) -> Sample:
        runs, index = _vladbench_rows(rng, clusters, shifts)
        (a, uppers), *rest = [_credits(rows) for rows in runs]
        b = None
        if rest:
            b, b_uppers = rest[0]
            uppers = np.maximum(uppers, b_uppers)
        return Sample(a, b, index, np.zeros(index.size, dtype=np.int64), uppers)

    def truth(rng: np.random.Generator) -> float:
        runs, _ = _vladbench_rows(rng, VLADBENCH_TRUTH_SCENES, shifts)
        totals = [_vladbench_total(rows) for rows in runs]
        return totals[0] - totals[1] if paired else totals[0]

    if paired:
        return Shape("paired-vladbench-total", f"VLADBench total, A +{shift} log-odds", True, draw, truth)
    return Shape("vladbench-total", "VLADBench total: four composite tasks, 2-6 questions a scene", False, draw, truth)


SHAPES = (
    binary_shape("surds-subset", "SURDS subset, 1-4 units an image, 40% correct", 0.4, 1.0, (1, 4)),
    binary_shape("surds-rare", "SURDS subset at 3% correct (estimates often 0)", 0.03, 1.0, (1, 4)),
    binary_shape("surds-near-one", "97% correct (estimates often 1)", 0.97, 1.0, (1, 4)),
    surds_overall(),
    surds_overall_centerness(),
    judge_shape("drivelmm-judge", "DriveLMM-o1 judge score, 3-6 questions a frame, mean 0.7", 0.7, 0.8),
    judge_shape("drivelmm-judge-high", "judge score with mean 0.95", 0.95, 0.8),
    judge_shape("drivelmm-judge-harsh", "judge score near 1 with a heavy tail of poor frames, mean 0.93", 0.97, 1.5),
    judge_shape("drivelmm-judge-harsh-unequal", "the same with 1-15 questions a frame", 0.97, 1.5, (1, 15)),
    judge_shape(
        "drivelmm-judge-clustered", "judge score near 1, frames far apart, questions close", 0.95, 1.5, (3, 6), 60.0
    ),
    poor_frames_shape("drivelmm-judge-poor-frames", "5% of frames poor (0.3), 8-9 questions a frame", 0.95, 0.3, 0.05),
    binary_shape("drivelmm-mcq", "DriveLMM-o1 MCQ correct, 3-6 questions a frame, 60%", 0.6, 1.0, (3, 6)),
    paired_binary("paired-chance", "two equally good models, 4 units an image", 0.3, 0.0, (4, 4)),
    paired_binary("paired-effect", "A +0.5 log-odds, 1-4 units an image", 0.4, 0.5, (1, 4)),
    paired_binary("paired-rare", "two models at 3% and +1 log-odds, 1-4 units", 0.03, 1.0, (1, 4)),
    paired_overall(0.0),
    paired_overall(0.5),
    paired_judge("paired-judge", "DriveLMM-o1 judge scores", 0.7, 0.8, 0.3),
    paired_judge("paired-judge-harsh", "judge scores near 1 with a heavy tail of poor frames", 0.97, 1.5, 0.5),
    vladbench_shape(),
    vladbench_shape(0.5, paired=True),
)
SHAPES_BY_NAME = {shape.name: shape for shape in SHAPES}
POWER_RATE, POWER_UNITS = 0.4, (1, 4)
"""The power check's shape: `paired-effect`'s (40% correct, 1-4 units an image) at larger effects."""
POWER_SHIFTS = (0.5, 1.0, 1.5, 2.0, 3.0, 4.5)
POWER_CLUSTERS = (6, 7, 8, 9, 10, 12, 15, 20, 50)
POWER_REPLICATIONS = 400
POWER_FLOOR = 0.75
"""Below this measured power (0.8 less 2.5 Monte Carlo standard errors at 400 draws) a stated difference at or
below the truth is an overstatement: bold in the table."""
KORN_GRAUBARD = "korn-graubard CR2, t(BM df), no binomial floor (report for 0/1 values before)"
FLOOR_HALL_BEFORE = "korn-graubard CR2, t(BM df); for scores a design effect of at least 1 and Hall's widening (before)"
FRAME_CAP = "korn-graubard CR2, t(BM df); for scores n_eff at most the clusters' Kish n (a bound on clusters)"
REPORT_SCORE = "korn-graubard CR2, t(BM df); for scores the betting interval; at least Clopper-Pearson (report)"
FEWER_CLUSTERS = "the report's, below its 3 clusters (not printed)"
"""The report's method where it prints none (2 clusters): what it would cover there."""
NO_SKEWNESS = 1e-9
"""A skewness this small leaves Hall's transformation the identity (its inverse divides by the skewness)."""
REPORT_PAIRED = "score test inverted, sign-flip at 0 (report)"


@dataclass
class Tally:
    """Per method: replications with an interval, those covering the truth, and interval/p-value disagreements."""

    shown: int = 0
    covered: int = 0
    disagree: int = 0
    total: int = 0
    width: float = 0.0
    """Sum of the shown intervals' widths."""
    above: int = 0
    """Shown intervals lying wholly above the truth (the other misses lie below it)."""

    def add(self, interval: tuple[float, float] | None, truth: float, disagrees: bool = False) -> None:
        self.total += 1
        self.disagree += disagrees
        if interval is not None and not math.isnan(interval[0]):
            self.shown += 1
            self.covered += interval[0] - 1e-12 <= truth <= interval[1] + 1e-12
            self.width += interval[1] - interval[0]
            self.above += truth < interval[0] - 1e-12

    @property
    def coverage(self) -> float:
        return self.covered / self.shown if self.shown else math.nan

    @property
    def mean_width(self) -> float:
        return self.width / self.shown if self.shown else math.nan

    def tails(self) -> str:
        """Mean width, then the shares of draws with the interval above and below the truth, in percent."""
        if not self.shown:
            return "none"
        below = self.shown - self.covered - self.above
        return f"{self.mean_width:.3f} · {self.above / self.shown:.1%}/{below / self.shown:.1%}".replace("%", "")


REPORT_TOTAL = "betting interval on the per-question credits (report)"
REPORT_PAIRED_TOTAL = "score test inverted on the credits over their largest bound, sign-flip at 0 (report)"
REPORT_TOTALS = (REPORT_TOTAL, REPORT_PAIRED_TOTAL)


def single_methods(sample: Sample, shape: Shape, report_only: bool = False) -> dict[str, tuple[float, float] | None]:
    values, clusters = sample.a.tolist(), sample.clusters.tolist()
    if sample.uppers is not None:  # a ratio of sums: only the report's method applies
        return {REPORT_TOTAL: credit_interval(values, sample.uppers.tolist(), clusters)}
    grouped = equal_group_mean(values, sample.groups.tolist(), clusters)
    estimate, se, g = grouped.overall, grouped.overall_stderr, len(set(clusters))
    cr2 = cr2_stderr(values, sample.groups.tolist(), clusters)
    df = bell_mccaffrey_df(sample.groups.tolist(), clusters)
    # the interval the report widens runs on every draw too: the two rows then compare on the same draws
    report = {
        KORN_GRAUBARD: score_interval(estimate, cr2, len(values), g, df=df),
        FLOOR_HALL_BEFORE: _floor_and_hall(sample, shape, estimate, cr2, df),
        FRAME_CAP: _frame_cap(sample, shape, estimate, cr2, df),
        REPORT_SCORE: mean_interval(estimate, values, sample.groups.tolist(), clusters, shape.continuous),
    }
    if g < MIN_SCORE_CLUSTERS:
        report[FEWER_CLUSTERS] = mean_interval(
            estimate, values, sample.groups.tolist(), clusters, shape.continuous, min_clusters=2
        )
    if report_only:
        return report
    return {
        "wald-z (before)": (max(0.0, estimate - Z95 * se), min(1.0, estimate + Z95 * se)),
        "wilson-t CR2": _wilson_t(estimate, cr2, len(values), g),
        "korn-graubard CR1": score_interval(estimate, se, len(values), g),
        "korn-graubard CR2, t(G-1)": score_interval(estimate, cr2, len(values), g),
        **report,
    }


def _floor_and_hall(sample: Sample, shape: Shape, estimate: float, cr2: float, df: float) -> tuple[float, float] | None:
    """What the report printed for scores between 0 and 1 before the betting interval: Korn-Graubard's interval with
    a design effect of at least 1 (the SE floored at the binomial one of Kish's n), widened to also hold Hall's
    (1992) skewness-corrected t interval."""
    values, groups, clusters = sample.a.tolist(), sample.groups.tolist(), sample.clusters.tolist()
    g = len(set(clusters))
    continuous = shape.continuous or any(v not in (0.0, 1.0) for v in values)
    if not continuous:
        return score_interval(estimate, cr2, kish_units(groups), g, df=df)
    units, p = kish_units(groups), min(1.0, max(0.0, estimate))
    floored = max(cr2, math.sqrt(p * (1 - p) / units))
    bounds = score_interval(estimate, floored, units, g, df=df)
    if bounds is None or cr2 <= ZERO_STDERR:
        return bounds
    degrees = g - 1 if math.isnan(df) else min(df, g - 1)
    low, high = _hall_interval(estimate, cr2, _skewness(sample), degrees)
    return min(bounds[0], low), max(bounds[1], high)


def _frame_cap(sample: Sample, shape: Shape, estimate: float, cr2: float, df: float) -> tuple[float, float] | None:
    """The other bound on clusters considered: for scores between 0 and 1, Korn-Graubard's interval with n_eff at most
    the clusters' Kish n 1 / sum of their squared weight shares (G for equal frames), as if each frame were one 0/1
    outcome."""
    groups = sample.groups
    g = len(set(sample.clusters.tolist()))
    if not (shape.continuous or any(v not in (0.0, 1.0) for v in sample.a.tolist())):
        return score_interval(estimate, cr2, kish_units(groups.tolist()), g, df=df)
    weights = 1.0 / (np.unique(groups).size * np.bincount(groups)[groups])
    shares = np.bincount(sample.clusters, weights=weights)
    units, p = 1.0 / float((shares**2).sum()), min(1.0, max(0.0, estimate))
    return score_interval(estimate, max(cr2, math.sqrt(p * (1 - p) / units)), units, g, df=df)


def _skewness(sample: Sample) -> float:
    """The estimate's skewness from the cubes of its clusters' residual sums, with the small-sample factor
    sqrt(G (G - 1)) / (G - 2) of G equal clusters; 0 below 3 clusters."""
    weights = 1.0 / (np.unique(sample.groups).size * np.bincount(sample.groups)[sample.groups])
    means = np.bincount(sample.groups, weights=sample.a) / np.bincount(sample.groups)
    sums = np.bincount(sample.clusters, weights=weights * (sample.a - means[sample.groups]))
    sums = sums[np.bincount(sample.clusters) > 0]
    count, variance = sums.size, float((sums**2).sum())
    if count < 3 or variance <= ZERO_STDERR * ZERO_STDERR:
        return 0.0
    return float((sums**3).sum()) / variance**1.5 * math.sqrt(count * (count - 1)) / (count - 2)


def _hall_interval(estimate: float, stderr: float, skewness: float, df: float) -> tuple[float, float]:
    """Hall's skewness-corrected t interval, clipped to [0, 1]: g(T) = T + λ/6 + λT^2/3 + λ^2 T^3/27 is closer to
    Student's t than T = (estimate - truth) / SE, and g is increasing, so the bounds invert it in closed form."""
    quantile = t_quantile(1 - (1 - CONFIDENCE) / 2, df)

    def inverse(x: float) -> float:
        if abs(skewness) <= NO_SKEWNESS:
            return x
        inner = 1.0 + skewness * (x - skewness / 6.0)
        return 3.0 / skewness * (math.copysign(abs(inner) ** (1 / 3), inner) - 1.0)

    return max(0.0, estimate - stderr * inverse(quantile)), min(1.0, estimate - stderr * inverse(-quantile))


def _wilson_t(p: float, se: float, n: int, g: int) -> tuple[float, float] | None:
    """Wilson's score interval on the effective n p(1 - p) / SE^2 with a t_{G-1} quantile: the runner-up."""
    if g < 2:
        return None
    effective = n if se <= 0 or p * (1 - p) <= 0 else p * (1 - p) / se**2
    q = t_quantile(0.975, g - 1)
    q2n = q * q / effective
    centre, half = (p + q2n / 2) / (1 + q2n), q * math.sqrt(p * (1 - p) / effective + q2n / (4 * effective)) / (1 + q2n)
    return max(0.0, centre - half), min(1.0, centre + half)


def paired_methods(
    sample: Sample, rng: np.random.Generator, report_only: bool = False
) -> dict[str, tuple[tuple[float, float] | None, bool]]:
    """Each paired method's interval and whether it disagrees with its own p-value about 0."""
    assert sample.b is not None
    if sample.uppers is not None:
        scale = float(sample.uppers.max())
        total = scaled_paired_difference(sample.a.tolist(), sample.b.tolist(), sample.clusters.tolist(), scale)
        return {REPORT_PAIRED_TOTAL: _with_agreement((total.ci_low, total.ci_high), total.p_value)}
    groups = sample.groups.tolist() if sample.groups.max() > 0 else None
    result = paired_difference(sample.a.tolist(), sample.b.tolist(), sample.clusters.tolist(), groups)
    Outcome = tuple[tuple[float, float] | None, bool]
    report: dict[str, Outcome] = {REPORT_PAIRED: _with_agreement((result.ci_low, result.ci_high), result.p_value)}
    if report_only:
        return report
    tests = paired_tests(sample.a.tolist(), sample.b.tolist(), sample.clusters.tolist(), groups)
    differing = len(set(sample.clusters[sample.a != sample.b].tolist()))
    sign_flip: Outcome = (
        None,
        False,
    )  # the report's method until issue 18 was closed: shown only with 6+ differing clusters
    if tests.clusters >= min_clusters() and differing >= min_clusters():
        sign_flip = _with_agreement(inverted_interval(tests.flips.p_value, tests.estimate), tests.flips.p_value(0.0))
    old = _percentile_bootstrap(sample, rng)
    old_p = _unstudentized_sign_flip_p(sample, rng)
    excludes = old[0] > 0 or old[1] < 0
    return {
        **report,
        "sign-flip inverted, 6+ differing clusters (before)": sign_flip,
        "percentile bootstrap (before)": (old, excludes != (old_p < 0.05)),
    }


def _with_agreement(interval: tuple[float, float], p_value: float) -> tuple[tuple[float, float], bool]:
    return interval, (interval[0] > 0 or interval[1] < 0) != (p_value < 0.05)


def _cluster_shares(sample: Sample) -> tuple[FloatArray, FloatArray]:
    """Per cluster (rows: groups) the sums of differences and unit counts."""
    assert sample.b is not None
    shape = (int(sample.groups.max()) + 1, int(sample.clusters.max()) + 1)
    sums, counts = np.zeros(shape), np.zeros(shape)
    np.add.at(sums, (sample.groups, sample.clusters), sample.a - sample.b)
    np.add.at(counts, (sample.groups, sample.clusters), 1.0)
    return sums, counts


def _percentile_bootstrap(sample: Sample, rng: np.random.Generator) -> tuple[float, float]:
    """What the report printed before: resample whole clusters, take the 2.5% and 97.5% percentiles."""
    sums, counts = _cluster_shares(sample)
    g = sums.shape[1]
    draws = rng.multinomial(g, np.full(g, 1.0 / g), size=OLD_BOOTSTRAP_REPLICATES).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = (draws @ sums.T) / (draws @ counts.T)
    estimates = means.mean(axis=1)
    estimates = estimates[~np.isnan(estimates)]
    low, high = np.percentile(estimates, [2.5, 97.5])
    return float(low), float(high)


def _unstudentized_sign_flip_p(sample: Sample, rng: np.random.Generator, draws: int = 10_000) -> float:
    sums, counts = _cluster_shares(sample)
    shares = (sums / counts.sum(axis=1)[:, None]).sum(axis=0) / sums.shape[0]
    g = shares.size
    if 2**g <= draws:
        signs = 1 - 2 * ((np.arange(2**g)[:, None] >> np.arange(g)) & 1)
    else:
        signs = rng.choice([-1.0, 1.0], size=(draws, g))
    threshold = abs(shares.sum()) * (1 - 1e-12) - 1e-12
    return float(np.mean(np.abs(signs @ shares) >= threshold))


def simulate(
    shape: Shape, clusters: int, replications: int, seed: int = SEED, others: int | None = None
) -> dict[str, Tally]:
    """Coverage of every method on `replications` fixed-seed draws of `shape` at `clusters` clusters.

    The report's method runs on every draw; the other methods (shown to say why the report's was chosen, and
    wrong by far more than Monte Carlo noise where they fail) on the first `others` draws only (all when None).
    The data and the methods' own random draws come from separate streams, so a cell's data, and the report's
    result on it, do not depend on `others`.
    """
    name_key = sum(map(ord, shape.name))
    rng = np.random.default_rng([seed, clusters, name_key])
    method_rng = np.random.default_rng([seed, clusters, name_key, METHOD_STREAM])
    truth = shape.truth(np.random.default_rng(1))
    tallies: dict[str, Tally] = {}
    for index in range(replications):
        sample = shape.draw(rng, clusters)
        report_only = others is not None and index >= others
        if shape.paired:
            for method, (interval, disagrees) in paired_methods(sample, method_rng, report_only).items():
                tallies.setdefault(method, Tally()).add(interval, truth, disagrees)
        else:
            for method, single in single_methods(sample, shape, report_only).items():
                tallies.setdefault(method, Tally()).add(single, truth)
    return tallies


def _simulate_cell(
    cell: tuple[str, int, int, int | None, int],
) -> tuple[tuple[str, int], dict[str, Tally], float]:
    """One (shape, clusters) cell, in a worker process: shapes hold closures, so they are looked up by name."""
    name, clusters, replications, others, seed = cell
    started = time.monotonic()
    tallies = simulate(SHAPES_BY_NAME[name], clusters, replications, seed, others)
    return (name, clusters), tallies, time.monotonic() - started


def monte_carlo_se(replications: int, coverage: float = CONFIDENCE) -> float:
    """Standard error of a coverage measured on `replications` independent draws."""
    return math.sqrt(coverage * (1 - coverage) / replications)


def table(results: dict[tuple[str, int], dict[str, Tally]], counts: tuple[int, ...]) -> list[str]:
    """Rows shape x method, columns cluster counts: coverage (share with an interval where not all)."""
    lines = [
        "| shape | method | " + " | ".join(f"G={g}" for g in counts) + " |",
        "|---|---|" + "---|" * len(counts),
    ]
    for shape in SHAPES:
        methods = list(dict.fromkeys(m for (name, _), t in results.items() if name == shape.name for m in t))
        for method in methods:
            cells = []
            for g in counts:
                tally = results[(shape.name, g)].get(method)
                if tally is None:  # a method measured only at some cluster counts (FEWER_CLUSTERS)
                    cells.append("")
                    continue
                if tally.shown == 0:
                    cells.append("none")
                    continue
                cell = f"{tally.coverage:.3f}"
                if tally.shown < tally.total:
                    cell += f" ({tally.shown / tally.total:.0%} shown)"
                if tally.disagree:
                    cell += f" ✗{tally.disagree / tally.total:.0%}"
                cells.append(f"**{cell}**" if tally.coverage < CONFIDENCE - 0.01 else cell)
            lines.append(f"| {shape.name} | {method} | " + " | ".join(cells) + " |")
    return lines


def width_table(results: dict[tuple[str, int], dict[str, Tally]], counts: tuple[int, ...]) -> list[str]:
    """The score shapes' mean interval width and one-sided misses, the report's against Korn-Graubard's on the SE
    alone, the interval printed before and the frame cap: a 95% interval should miss about 2.5% on each side."""
    lines = [
        "| shape | method | " + " | ".join(f"G={g}" for g in counts) + " |",
        "|---|---|" + "---|" * len(counts),
    ]
    for shape in SHAPES:
        for method in (KORN_GRAUBARD, FLOOR_HALL_BEFORE, FRAME_CAP, REPORT_SCORE, FEWER_CLUSTERS, REPORT_TOTAL):
            if not shape.paired and all((shape.name, g) in results for g in counts):
                tallies = [results[(shape.name, g)].get(method) for g in counts]
                if any(tallies):
                    cells = ["" if tally is None else tally.tails() for tally in tallies]
                    lines.append(f"| {shape.name} | {method} | " + " | ".join(cells) + " |")
    return lines


def power(clusters: int, shift: float, replications: int, seed: int = SEED) -> tuple[float, float, float]:
    """The report's test on `POWER_SHAPE` with A `shift` log-odds ahead: (true difference, share of draws with
    p < 0.05, median `detectable (80%)` printed, NaN where none is)."""
    shape = paired_binary("power", "", POWER_RATE, shift, POWER_UNITS)
    rng = np.random.default_rng([seed, clusters, round(shift * 1000)])
    rejected, detectable = 0, []
    for _ in range(replications):
        sample = shape.draw(rng, clusters)
        assert sample.b is not None
        result = paired_difference(sample.a.tolist(), sample.b.tolist(), sample.clusters.tolist())
        rejected += result.p_value < 1 - CONFIDENCE
        detectable.append(result.detectable)
    stated = np.asarray(detectable)[~np.isnan(detectable)]
    median = float(np.median(stated)) if stated.size else math.nan
    return shape.truth(np.random.default_rng(1)), rejected / replications, median


def _power_cell(cell: tuple[int, float, int]) -> tuple[tuple[int, float], tuple[float, float, float]]:
    clusters, shift, replications = cell
    return (clusters, shift), power(clusters, shift, replications)


def power_table(results: dict[tuple[int, float], tuple[float, float, float]]) -> list[str]:
    """Rows: cluster counts; columns: true differences; cells: power (median stated detectable difference). Where
    the stated difference is at or below the true one, the power should be 0.8 or more."""
    shifts = sorted({shift for _, shift in results})
    counts = sorted({g for g, _ in results})
    truths = [results[(counts[0], shift)][0] for shift in shifts]
    lines = [
        "| clusters | " + " | ".join(f"D = {truth:.3f}" for truth in truths) + " |",
        "|---|" + "---|" * len(shifts),
    ]
    for g in counts:
        cells = []
        for shift in shifts:
            truth, share, median = results[(g, shift)]
            cell = f"{share:.2f} ({'none' if math.isnan(median) else f'{median:.3f}'})"
            cells.append(f"**{cell}**" if median <= truth and share < POWER_FLOOR else cell)
        lines.append(f"| {g} | " + " | ".join(cells) + " |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replications", type=int, default=REPLICATIONS, help="draws per cell, report's methods")
    parser.add_argument(
        "--others", type=int, default=OTHER_REPLICATIONS, help="draws per cell for the methods the report does not use"
    )
    parser.add_argument("--clusters", type=int, nargs="+", default=list(CLUSTER_COUNTS))
    parser.add_argument("--shapes", nargs="+", default=[s.name for s in SHAPES])
    parser.add_argument("--workers", type=int, default=1, help="processes, one cell each at a time")
    parser.add_argument("--no-write", action="store_true", help=f"print the table, do not write {DOC.name}")
    parser.add_argument(
        "--block", default=BLOCK, help=f"the {DOC.name} block to write, between `<!-- BLOCK: begin -->` and its end"
    )
    parser.add_argument("--no-power", dest="power", action="store_false", help="skip the power check")
    parser.add_argument(
        "--seed", type=int, default=SEED, help="another seed: a check that a cell is not one seed's luck"
    )
    args = parser.parse_args(argv)
    started = time.monotonic()
    chosen = [s for s in SHAPES if s.name in args.shapes]
    others = min(args.others, args.replications)
    # The slowest cells (paired, many clusters) first, so that the workers finish together.
    cells = sorted(
        ((s.name, g, args.replications, others, args.seed) for s in chosen for g in args.clusters),
        key=lambda cell: (not SHAPES_BY_NAME[cell[0]].paired, -cell[1]),
    )
    results: dict[tuple[str, int], dict[str, Tally]] = {}
    with concurrent.futures.ProcessPoolExecutor(args.workers) as pool:
        for key, tallies, seconds in pool.map(_simulate_cell, cells):
            results[key] = tallies
            report = next((tallies[m] for m in (REPORT_SCORE, REPORT_PAIRED, *REPORT_TOTALS) if m in tallies), Tally())
            print(
                f"{key[0]} G={key[1]}: report {report.coverage:.4f} over {report.shown} intervals, {seconds:.0f} s "
                f"(done at {time.monotonic() - started:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
    lines = table(results, tuple(args.clusters))
    command = "python benchmarks/bench_coverage.py"
    for option, value, default in (
        ("--replications", args.replications, REPLICATIONS),
        ("--others", others, OTHER_REPLICATIONS),
        ("--workers", args.workers, 1),
        ("--seed", args.seed, SEED),
    ):
        if value != default:
            command += f" {option} {value}"
    if tuple(args.clusters) != CLUSTER_COUNTS:
        command += " --clusters " + " ".join(map(str, args.clusters))
    if len(chosen) != len(SHAPES):
        command += " --shapes " + " ".join(s.name for s in chosen)
    if args.block != BLOCK:
        command += f" --block {args.block}"
    if not args.power:
        command += " --no-power"
    other_methods = (
        f"the other methods on the first {others} of them (standard error {monte_carlo_se(others):.3f})"
        if others
        else "no other method"
    )
    footer = [
        "",
        f"The report's methods (report) on {args.replications} replications per cell (a coverage of 0.95 is then "
        f"measured with a Monte Carlo standard error of {monte_carlo_se(args.replications):.4f}), {other_methods}; "
        f"seed {args.seed}; {time.monotonic() - started:.0f} s; `{command}`. "
        "Bold: below 0.94. ✗: share of replications where the interval and the p-value disagree about 0. "
        "(n% shown): share of replications with an interval (none is printed where the method cannot hold).",
    ]
    if any(not s.paired for s in chosen):
        footer += [
            "",
            "Mean width of the score intervals on the same draws, then the percentage of draws where the interval "
            "lies above the truth / below it (about 2.5 each for a 95% interval): Korn-Graubard's interval, the one "
            "printed before for scores between 0 and 1, the other bound on clusters considered, the report's "
            "(the binary shapes' first three rows are equal), and at 2 clusters the report's method where it prints "
            "none.",
            "",
            *width_table(results, tuple(args.clusters)),
        ]
    if args.power:
        power_started = time.monotonic()
        power_cells = [(g, shift, POWER_REPLICATIONS) for g in POWER_CLUSTERS for shift in POWER_SHIFTS]
        with concurrent.futures.ProcessPoolExecutor(args.workers) as pool:
            powers = dict(pool.map(_power_cell, power_cells))
        footer += [
            "",
            f"Power of the report's paired test ({POWER_REPLICATIONS} replications a cell; "
            f"`paired-effect`'s shape at {', '.join(map(str, POWER_SHIFTS))} log-odds): share of replications with "
            "p < 0.05 at the true difference D, and in brackets the median `detectable (80%)` the report printed. "
            f"Bold: the printed difference is at or below D while the power is under {POWER_FLOOR}, an overstatement. "
            f"{time.monotonic() - power_started:.0f} s.",
            "",
            *power_table(powers),
        ]
    text = "\n".join(lines + footer)
    print(text)
    if not args.no_write:
        begin, end = f"<!-- {args.block}: begin -->", f"<!-- {args.block}: end -->"
        doc = DOC.read_text(encoding="utf-8")
        if begin not in doc:
            raise SystemExit(f"{DOC}: no `{begin}` block")
        block = f"{begin}\n{text}\n{end}"
        DOC.write_text(re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: block, doc, flags=re.S))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
