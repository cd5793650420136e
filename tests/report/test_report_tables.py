"""Every number of the report's tables, recomputed here from the logs' samples with code written for the test.

The logs come from real `inspect` runs on the demo data (see conftest): two chance replicates and the oracle on
SURDS, two chance replicates on DriveLMM-o1 judged by the chance judge, and one run of each benchmark that differs
in record order and subsets (SURDS) or judge (DriveLMM-o1).
"""

from __future__ import annotations

import csv
import math
import re
from collections import defaultdict
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np
import pytest
from betting_reference import reference_bounds
from inspect_ai.log import EvalLog

from drive_evals.report.tables import DEMO_MARK
from drive_evals.stats.betting import COARSE_STEPS, FINE_STEPS
from drive_evals.stats.clustered import bell_mccaffrey_df
from drive_evals.stats.intervals import MIN_SCORE_CLUSTERS, binomial_interval, score_interval, stratified_stderr
from drive_evals.stats.paired import paired_difference
from drive_evals.surds.units import CENTERNESS_SUBSET

BOUND_TOLERANCE = 1.0 / (COARSE_STEPS * FINE_STEPS)
Z95 = NormalDist().inv_cdf(0.975)
WHOLE_RANGE = 0.0005
"""The betting interval's bounds are rounded outward to its fine grid; Korn-Graubard's are exact."""

pytestmark = pytest.mark.slow  # reads the session's `inspect` subprocess runs (report_run)

SUBSETS = ("yaw", "xy2d", "depth", "distance", "left_right", "front_behind")
CRITERIA = (
    "faithfulness_step",
    "informativeness_step",
    "risk_assessment_accuracy",
    "traffic_rule_adherence",
    "scene_awareness_object_understanding",
    "repetition_token",
    "hallucination",
    "semantic_coverage_step",
    "commonsense",
    "missing_step",
    "relevance",
    "missing_details",
)
CRITERION_LABELS = (
    "Faithfulness",
    "Informativeness",
    "Risk",
    "Rule",
    "Scene",
    "Repetition",
    "Hallucination",
    "Coverage",
    "Commonsense",
    "Missing step",
    "Relevance",
    "Missing details",
)
SURDS_SCORER = "surds_scorer"
DRIVELMM_O1_SCORER = "drivelmm_o1_scorer"
CELL = re.compile(r"^(-?[\d.]+) \[(-?[\d.]+), (-?[\d.]+)\](†?)$")
NO_CI_CELL = re.compile(r"^(-?[\d.]+) \(no CI\)(†?)$")
"""An estimate cell: `12.5 [3.1, 21.9]`, with † when the standard error was computed from samples."""
PIPE = re.compile(r"(?<!\\)\|")
"""A Markdown cell separator (an escaped `\\|` inside a cell is not one)."""
DISPLAY_TOLERANCE = 0.05 + 1e-9
"""Half a unit of the last printed digit (x100, one decimal)."""


def cluster_se(values: list[float], clusters: list[str], groups: list[str] | None = None) -> float:
    """Clustered standard error of a mean (or of the equal mean over groups), G/(G-1) small-sample factor."""
    x = np.array(values, dtype=float)
    labels = groups or [""] * len(values)
    names = sorted(set(labels))
    weights, residuals = np.zeros(len(x)), np.zeros(len(x))
    for name in names:
        mask = np.array([label == name for label in labels])
        weights[mask] = 1 / (len(names) * mask.sum())
        residuals[mask] = x[mask] - x[mask].mean()
    totals: dict[str, float] = defaultdict(float)
    for weight, residual, cluster in zip(weights, residuals, clusters, strict=True):
        totals[cluster] += weight * residual
    g = len(totals)
    return 0.0 if g < 2 else math.sqrt(sum(t * t for t in totals.values()) * g / (g - 1))


def cr2_se(values: list[float], clusters: list[str], groups: list[str] | None = None) -> float:
    """CR2 in matrix form: per cluster (I - H_cc)^(-1/2) on its residuals, weighted by the contrast, H the
    projection on the group dummies."""
    labels = groups or [""] * len(values)
    names, cluster_names = sorted(set(labels)), sorted(set(clusters))
    x = np.array([[float(g == n) for n in names] for g in labels])
    y = np.array(values)
    hat = x @ np.linalg.inv(x.T @ x) @ x.T
    contrast = np.full(len(names), 1 / len(names)) @ np.linalg.inv(x.T @ x) @ x.T
    residuals = y - hat @ y
    sums = []
    for cluster in cluster_names:
        rows = [i for i, c in enumerate(clusters) if c == cluster]
        block = np.eye(len(rows)) - hat[np.ix_(rows, rows)]
        eigenvalues, vectors = np.linalg.eigh(block)
        inverse_root = vectors @ np.diag([1 / math.sqrt(e) if e > 1e-12 else 0.0 for e in eigenvalues]) @ vectors.T
        sums.append(float(contrast[rows] @ inverse_root @ residuals[rows]))
    return math.sqrt(sum(total * total for total in sums))


def interval(
    mean: float, values: list[float], clusters: list[str], groups: list[str] | None, continuous: bool
) -> tuple[float, float] | None:
    """Korn-Graubard on the CR2 SE (n Kish's where the SE is 0); where a value lies strictly between 0 and 1 or the
    metric declares scores (judge scores, xy2d centerness), and the mean is not over groups, the betting interval,
    found by bisection on the paper's capital (the report's bounds lie on a grid, within BOUND_TOLERANCE); either
    floored at Clopper-Pearson on the units taken as independent; none below MIN_SCORE_CLUSTERS clusters."""
    labels = groups or [""] * len(values)
    if len(set(clusters)) < MIN_SCORE_CLUSTERS:
        return None
    sizes = [labels.count(label) for label in set(labels)]
    kish = len(sizes) ** 2 / sum(1 / size for size in sizes)  # 1 / sum of squared weights 1 / (K n_group)
    if (continuous or any(v not in (0.0, 1.0) for v in values)) and groups is None:
        bounds = reference_bounds(values, list(clusters))
    else:
        found = score_interval(
            mean, cr2_se(values, clusters, groups), kish, len(set(clusters)), df=bell_mccaffrey_df(labels, clusters)
        )
        assert found is not None
        bounds = found
    # never narrower than Clopper-Pearson on the units taken as independent (a mean over subsets: on the n that
    # its stratified binomial SE gives)
    floor = binomial_interval(mean, kish, None if len(set(labels)) == 1 else stratified_stderr(values, labels))
    return min(bounds[0], floor[0]), max(bounds[1], floor[1])


def logged_se(
    values: list[float], clusters: list[str], groups: list[str] | None, bounds: tuple[float, float] | None
) -> float | None:
    """The `*_stderr` a task logs (docs/console.md): the CR2 SE raised to half the interval's width / 1.96; none
    where the interval is missing or covers [0, 1]."""
    if bounds is None or (bounds[0] <= WHOLE_RANGE and bounds[1] >= 1 - WHOLE_RANGE):
        return None
    return max(cr2_se(values, clusters, groups), (bounds[1] - bounds[0]) / (2 * Z95))


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def markdown_table(report: str, section: str, title: str) -> dict[str, dict[str, str]]:
    """Rows of one Markdown table, by model label (demo and flag marks stripped), as column -> cell."""
    part = report.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    lines = part.split(f"\n### {title}\n", 1)[1].split("\n### ", 1)[0].strip().splitlines()
    table = [line for line in lines if line.startswith("|")]
    header = [cell.strip() for cell in PIPE.split(table[0].strip()[1:-1])]
    rows = {}
    for line in table[2:]:
        cells = [cell.strip() for cell in PIPE.split(line.strip()[1:-1])]
        rows[cells[0].removesuffix(DEMO_MARK).removesuffix(" ⚠")] = dict(zip(header, cells, strict=True))
    return rows


def check_cell(cell: str, mean: float, bounds: tuple[float, float] | None, from_samples: bool) -> None:
    match = CELL.match(cell) if bounds is not None else NO_CI_CELL.match(cell)
    assert match, (cell, bounds)
    for shown, expected in zip(match.groups()[:-1], (mean, *(bounds or ())), strict=True):
        assert abs(float(shown) - expected * 100) <= DISPLAY_TOLERANCE, (cell, mean, bounds)
    assert (match.groups()[-1] == "†") == from_samples, cell


def scores(log: EvalLog, scorer: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    assert log.samples is not None
    return [(s.scores[scorer].value, s.metadata) for s in log.samples if s.scores and scorer in s.scores]  # type: ignore[misc]


def by_log(rows: list[dict[str, str]]) -> dict[str, dict[str, str]]:
    return {row["log"]: row for row in rows if row["source"] == "log"}


def test_surds_tables_match_the_samples(report_run: Any, logs: dict[str, EvalLog]) -> None:
    csv_rows = by_log(read_csv(report_run.out_dir / "surds-scores.csv"))
    report = (report_run.out_dir / "report.md").read_text(encoding="utf-8")
    table = markdown_table(report, "SURDS", "Scores")
    validity = markdown_table(report, "SURDS", "Valid-response rate")
    surds_logs = {name: log for name, log in logs.items() if log.eval.task == "drive_evals/surds"}
    assert set(csv_rows) == set(surds_logs) and len(surds_logs) == 4
    for name, log in surds_logs.items():
        row, units = csv_rows[name], scores(log, SURDS_SCORER)
        md = table[row["model"]]
        subset_means = {}
        for subset in {meta["subset"] for _, meta in units}:
            values = [v["score"] for v, meta in units if meta["subset"] == subset]
            images = [meta["image"] for _, meta in units if meta["subset"] == subset]
            mean, se = sum(values) / len(values), cluster_se(values, images)
            subset_means[subset] = mean
            bounds = interval(mean, values, images, None, continuous=subset == CENTERNESS_SUBSET)
            check_csv(row, subset, mean, se, bounds, len(values), from_samples=False)
            check_cell(md[subset], mean, bounds, from_samples=False)
            valid = [v["valid"] for v, meta in units if meta["subset"] == subset]
            assert float(row[f"{subset}_valid_rate"]) == pytest.approx(sum(valid) / len(valid))
            assert float(validity[row["model"]][subset]) == pytest.approx(100 * sum(valid) / len(valid), abs=0.05)
        overall = sum(subset_means.values()) / len(subset_means)
        values, images = [v["score"] for v, _ in units], [m["image"] for _, m in units]
        subsets = [m["subset"] for _, m in units]
        bounds = interval(overall, values, images, subsets, continuous=False)
        overall_se = logged_se(values, images, subsets, bounds) or cluster_se(values, images, subsets)

        check_csv(row, "overall", overall, overall_se, bounds, len(units), from_samples=False)
        check_cell(md["overall"], overall, bounds, from_samples=False)
        assert int(row["units"]) == len(units) == int(md["units"])
        for subset in set(SUBSETS) - set(subset_means):
            assert md[subset] == "—" and row[subset] in {"", "nan"}
        assert row["data"] == "demo"


def check_csv(
    row: dict[str, str],
    metric: str,
    mean: float,
    se: float,
    bounds: tuple[float, float] | None,
    n: int,
    from_samples: bool,
    se_tolerance: float = 1e-9,
) -> None:
    low, high = bounds or (math.nan, math.nan)
    assert float(row[metric]) == pytest.approx(mean, abs=1e-9), metric
    assert float(row[f"{metric}_stderr"]) == pytest.approx(se, abs=se_tolerance), metric
    assert float(row[f"{metric}_ci_low"]) == pytest.approx(low, abs=BOUND_TOLERANCE, nan_ok=True), metric
    assert float(row[f"{metric}_ci_high"]) == pytest.approx(high, abs=BOUND_TOLERANCE, nan_ok=True), metric
    assert int(row[f"{metric}_n"]) == n, metric
    assert row[f"{metric}_stderr_from_samples"] == str(from_samples), metric


def test_drivelmm_o1_tables_match_the_samples(report_run: Any, logs: dict[str, EvalLog]) -> None:
    csv_rows = by_log(read_csv(report_run.out_dir / "drivelmm_o1-scores.csv"))
    report = (report_run.out_dir / "report.md").read_text(encoding="utf-8")
    headline = markdown_table(report, "DriveLMM-o1", "Headline")
    criteria = markdown_table(report, "DriveLMM-o1", "Rubric criteria")
    drivelmm_o1_logs = {name: log for name, log in logs.items() if log.eval.task == "drive_evals/drivelmm_o1"}
    assert set(csv_rows) == set(drivelmm_o1_logs) and len(drivelmm_o1_logs) == 3
    for name, log in drivelmm_o1_logs.items():
        row, units = csv_rows[name], scores(log, DRIVELMM_O1_SCORER)
        frames = [meta["frame"] for _, meta in units]

        for metric, key, where, logged_se_expected in [
            ("reasoning_score", "reasoning_score", None, True),
            ("judge_overall", "judge_overall", None, True),
            ("mcq_accuracy", "mcq_correct", lambda v: v["mcq_counted"] == 1.0, True),
            *((c, c, None, False) for c in CRITERIA),
        ]:
            values, clusters = present(units, frames, key, where)
            mean = sum(values) / len(values)
            bounds = interval(mean, values, clusters, None, continuous=metric != "mcq_accuracy")
            logged = logged_se(values, clusters, None, bounds) if logged_se_expected else None
            se = cluster_se(values, clusters) if logged is None else logged
            # † only where an SE could have been logged: a task logs none where the interval says nothing
            from_samples = not logged_se_expected and logged_se(values, clusters, None, bounds) is not None
            check_csv(row, metric, mean, se, bounds, len(values), from_samples, se_tolerance=BOUND_TOLERANCE)
            cells = headline if metric in {"reasoning_score", "judge_overall", "mcq_accuracy"} else criteria
            column = metric if cells is headline else next(h for h in cells[row["model"]] if _label_of(h) == metric)
            check_cell(cells[row["model"]][column], mean, bounds, from_samples=from_samples)
        coverage = sum(v["judged"] == 1.0 for v, _ in units) / len(units)
        counted = sum(v["mcq_counted"] == 1.0 for v, _ in units)
        assert float(row["judge_coverage"]) == pytest.approx(coverage)
        assert float(headline[row["model"]]["judge_coverage"]) == pytest.approx(100 * coverage, abs=0.05)
        assert float(row["mcq_items"]) == counted == int(headline[row["model"]]["mcq_items"])
        assert int(row["units"]) == len(units) == int(headline[row["model"]]["units"])
        roles = log.eval.model_roles or {}
        assert row["judge"] == roles["grader"].model  # type: ignore[union-attr]


def present(
    units: list[tuple[dict[str, Any], dict[str, Any]]], frames: list[str], key: str, where: Any
) -> tuple[list[float], list[str]]:
    """Values of `key` that are not NaN (and pass `where`), with their frames."""
    pairs = [
        (v[key], frame)
        for (v, _), frame in zip(units, frames, strict=True)
        if not math.isnan(v[key]) and (where is None or where(v))
    ]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def _label_of(header: str) -> str:
    """Criteria columns carry short labels; map them back through the rubric order."""
    return dict(zip(CRITERION_LABELS, CRITERIA, strict=True)).get(header, "")


def test_paper_rows_are_labelled_beside_ours(report_run: Any) -> None:
    report = (report_run.out_dir / "report.md").read_text(encoding="utf-8")
    surds = markdown_table(report, "SURDS", "Scores")
    assert surds["paper: GPT-4o"]["overall"] == "13.30"
    assert surds["paper: Gemini-2.0-flash"]["overall"] == "35.71"
    headline = markdown_table(report, "DriveLMM-o1", "Headline")
    assert headline["paper: GPT-4o"]["judge_overall"] == "72.52"
    assert headline["paper: GPT-4o"]["mcq_accuracy"] == "57.84"
    assert headline["paper: DriveLMM-o1 (InternVL2.5-8B + LoRA)"]["mcq_accuracy"] == "62.36"
    criteria = markdown_table(report, "DriveLMM-o1", "Rubric criteria")
    assert criteria["paper: Qwen-2.5-VL-7B"]["Risk"] == "46.44"
    assert criteria["paper: GPT-4o"]["Missing details"] == "71.43"
    rows = read_csv(report_run.out_dir / "surds-scores.csv")
    paper = [row for row in rows if row["source"] != "log"]
    assert {row["model"] for row in paper} >= {"GPT-4o", "Gemini-2.0-flash"}
    assert all("paper" in row["source"] for row in paper)


def test_labels_tell_replicates_apart_and_incomparable_runs_are_flagged(report_run: Any) -> None:
    surds = {row["model"]: row for row in read_csv(report_run.out_dir / "surds-scores.csv") if row["source"] == "log"}
    assert set(surds) == {"oracle/demo", *(f"chance/random (seed={seed})" for seed in (1, 2, 3))}
    odd = surds["chance/random (seed=3)"]
    assert odd["comparable"] == "False"
    assert "record_order=sorted (main group: metadata)" in odd["not_comparable_because"]
    assert "subsets=yaw,depth" in odd["not_comparable_because"]
    assert all(surds[label]["comparable"] == "True" for label in surds if label != "chance/random (seed=3)")
    o1 = {
        row["model"]: row for row in read_csv(report_run.out_dir / "drivelmm_o1-scores.csv") if row["source"] == "log"
    }
    assert "judge=grader/valid (main group: chance/random)" in o1["chance/random (seed=3)"]["not_comparable_because"]
    report = (report_run.out_dir / "report.md").read_text(encoding="utf-8")
    assert "| chance/random (seed=3) ⚠ · demo data |" in report
    for benchmark in ("surds", "drivelmm_o1"):
        pairs = read_csv(report_run.out_dir / f"{benchmark}-paired.csv")
        assert pairs and not any("seed=3" in row["a"] + row["b"] for row in pairs)


def test_paired_comparisons_match_the_samples(report_run: Any, logs: dict[str, EvalLog]) -> None:
    for benchmark, scorer, cluster in [("surds", SURDS_SCORER, "image"), ("drivelmm_o1", DRIVELMM_O1_SCORER, "frame")]:
        log_of = {r["model"]: r["log"] for r in read_csv(report_run.out_dir / f"{benchmark}-scores.csv") if r["log"]}
        pairs = read_csv(report_run.out_dir / f"{benchmark}-paired.csv")
        labels = {row["model"] for row in read_csv(report_run.out_dir / f"{benchmark}-scores.csv") if row["log"]}
        comparable = len(labels) - 1
        assert len(pairs) == comparable * (comparable - 1) // 2 * (7 if benchmark == "surds" else 2)
        for row in pairs:
            a, b = (_by_id(logs[log_of[row[side]]], scorer) for side in ("a", "b"))
            ids = sorted(set(a) & set(b))
            value_a, value_b, clusters, groups = [], [], [], []
            for sample_id in ids:
                picked = [_pick(row["metric"], *side[sample_id]) for side in (a, b)]
                if picked[0] is None or picked[1] is None:
                    continue
                value_a.append(picked[0])
                value_b.append(picked[1])
                clusters.append(a[sample_id][1][cluster])
                groups.append(a[sample_id][1].get("subset", ""))
            grouped = row["metric"] == "overall"
            diff = _equal_mean([x - y for x, y in zip(value_a, value_b, strict=True)], groups if grouped else None)
            assert int(row["units"]) == len(value_a) and int(row["clusters"]) == len(set(clusters))
            assert float(row["difference"]) == pytest.approx(diff, abs=1e-12)
            assert float(row["mean_a"]) - float(row["mean_b"]) == pytest.approx(diff, abs=1e-12)
            expected = paired_difference(value_a, value_b, clusters, groups if grouped else None)
            assert float(row["ci_low"]) == pytest.approx(expected.ci_low, abs=1e-12, nan_ok=True)
            assert float(row["ci_high"]) == pytest.approx(expected.ci_high, abs=1e-12, nan_ok=True)
            assert float(row["p_value"]) == pytest.approx(expected.p_value, abs=1e-12)


def test_the_oracle_beats_chance_clearly(report_run: Any) -> None:
    rows = read_csv(report_run.out_dir / "surds-paired.csv")
    oracle = [r for r in rows if r["a"] == "oracle/demo" and r["metric"] == "overall"]
    assert len(oracle) == 2
    for row in oracle:
        assert float(row["difference"]) > 0.5 and float(row["ci_low"]) > 0.5
        assert float(row["p_value"]) < 0.001 and row["p_exact"] == "False"


def _by_id(log: EvalLog, scorer: str) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    assert log.samples is not None
    return {str(s.id): (s.scores[scorer].value, s.metadata) for s in log.samples if s.scores}  # type: ignore[misc]


def _pick(metric: str, value: dict[str, Any], metadata: dict[str, Any]) -> float | None:
    if metric == "overall":
        return float(value["score"])
    if metric in SUBSETS:
        return float(value["score"]) if metadata["subset"] == metric else None
    if metric == "mcq_accuracy":
        return float(value["mcq_correct"]) if value["mcq_counted"] == 1.0 else None
    score = float(value[metric])
    return None if math.isnan(score) else score


def _equal_mean(values: list[float], groups: list[str] | None) -> float:
    if groups is None:
        return sum(values) / len(values)
    means = [np.mean([v for v, g in zip(values, groups, strict=True) if g == name]) for name in sorted(set(groups))]
    return float(np.mean(means))


def test_runs_table_and_transcript_commands(report_run: Any, logs: dict[str, EvalLog]) -> None:
    report = (report_run.out_dir / "report.md").read_text(encoding="utf-8")
    runs = markdown_table(report, "DriveLMM-o1", "Runs")
    assert {row["judge"] for row in runs.values()} == {"chance/random", "grader/valid"}
    assert {row["data"] for row in runs.values()} == {"demo"}
    for section in ("SURDS", "DriveLMM-o1"):
        transcripts = markdown_table(report, section, "Transcripts")
        for row in transcripts.values():
            assert row["command"] == f"inspect view --log-dir {report_run.log_dir}"
            assert (report_run.log_dir / row["then open"]).is_file()
    assert len(logs) == 7


def test_regenerate_command_and_settings_in_the_readme_notation(report_run: Any) -> None:
    report = (report_run.out_dir / "report.md").read_text(encoding="utf-8")
    assert f"Regenerate with `drive-evals report {report_run.log_dir} --out {report_run.out_dir}`." in report
    drivelmm_o1_runs = report.split("\n## DriveLMM-o1\n", 1)[1].split("\n### Runs\n", 1)[1]
    prefix = "Settings shared by every run: "
    line = next(line for line in drivelmm_o1_runs.splitlines() if line.startswith(prefix))
    shared = dict(item.split("=", 1) for item in line.removeprefix(prefix).rstrip(" .").split(", "))
    # the values that took effect (the LiDAR view's defaults even when it is off), as `-T name=value` takes them
    assert shared["cell_size"] == "800x450"
    assert (shared["lidar"], shared["lidar_range_m"], shared["lidar_resolution_m"]) == ("false", "50", "0.1")
    assert shared["gen.temperature"] == "0"
    assert "None" not in line
