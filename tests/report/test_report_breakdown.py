"""Every number of the breakdown CSVs, recomputed here from the logs' samples and the demo source data.

Levels are assigned again by code written for the test, from the demo's `metadata.jsonl` and `DriveLMMo1_TEST.json`
(not from the facts the task stored), so a wrong fact, a wrong bin edge or a wrong estimator all fail here.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog, write_eval_log

from drive_evals._registry import BENCHMARKS
from drive_evals.data import demo_dir
from drive_evals.report import write_report
from drive_evals.stats.paired import paired_difference
from drive_evals.surds.units import CENTERNESS_SUBSET
from report.test_report_tables import BOUND_TOLERANCE, interval, read_csv

pytestmark = pytest.mark.slow  # reads the session's `inspect` subprocess runs (report_run)

MIN_UNITS, MIN_CLUSTERS = 20, 5
CLASSES = {
    "vehicle.car": "car",
    "vehicle.truck": "truck",
    "vehicle.bus.rigid": "bus",
    "vehicle.motorcycle": "motorcycle",
    "human.pedestrian.adult": "pedestrian",
    "human.pedestrian.child": "pedestrian",
    "movable_object.trafficcone": "traffic cone",
    "movable_object.barrier": "barrier",
}
"""The nuScenes categories the demo uses, grouped as the nuScenes detection benchmark groups them."""
OPTION = re.compile(r"([A-F])\)\s*(.+)")
Sample = tuple[dict[str, Any], dict[str, Any], str | None, str | None]
"""(score value, sample metadata, score reason, score answer)"""


def _bin(value: float, edges: list[float], names: list[str], upper_inclusive: bool) -> str:
    index = sum((value > e) if upper_inclusive else (value >= e) for e in edges)
    return names[index]


def surds_levels(metadata: dict[str, Any], records: dict[str, dict[str, Any]]) -> dict[str, str]:
    record = records[metadata["image"]]
    parts = metadata["unit_id"].split("-")
    objects = (
        [int(parts[-2]), int(parts[-1])] if metadata["subset"] in {"distance", "left_right", "front_behind"} else [0]
    )
    levels = {"camera": metadata["image"].split("/")[1]}
    names = sorted(CLASSES[record["categories"][i]] for i in objects)
    if len(objects) == 1:
        levels["object category"] = names[0]
        depth = record["depths"][0]
        levels["object depth"] = "< 7 m" if depth < 7 else ("> 15 m" if depth > 15 else "7-15 m")
        x0, y0, x1, y1 = record["bboxes2D"][0]
        share = abs(x1 - x0) * abs(y1 - y0) / (1600 * 900)
        levels["box area"] = _bin(share, [0.005, 0.02, 0.08], ["< 0.5%", "0.5-2%", "2-8%", ">= 8%"], False)
    else:
        a, b = objects
        levels["pair categories"] = " + ".join(names)
        depth_gap = abs(record["depths"][a] - record["depths"][b])
        levels["pair depth gap"] = _bin(depth_gap, [0.5, 1, 2], ["< 0.5 m", "0.5-1 m", "1-2 m", ">= 2 m"], False)
        x_gap = abs(record["xy2Ds"][a][0] - record["xy2Ds"][b][0])
        levels["pair x gap"] = _bin(
            x_gap, [100, 200, 400], ["< 100 px", "100-200 px", "200-400 px", ">= 400 px"], False
        )
        gap = abs(record["distances"][a] - record["distances"][b])
        levels["pair distance gap"] = _bin(gap, [1, 2, 4], ["<= 1 m", "1-2 m", "2-4 m", "> 4 m"], True)
    return levels


def surds_outcome(value: dict[str, Any], reason: str | None) -> str:
    if value["score"] > 0:
        return "correct"
    labels = {"invalid_response_format": "invalid format", "no_response": "no response"}
    return labels.get(reason, (reason or "").replace("_", " ")) if reason else "wrong"


def drivelmm_o1_levels(metadata: dict[str, Any], records: dict[str, dict[str, Any]]) -> dict[str, str]:
    images = records[metadata["idx"]]["image"]
    singapore = all("+0800__" in path for path in images)
    return {"question number": f"Q{metadata['idx'].rsplit('_', 1)[1]}", "city": "Singapore" if singapore else "Boston"}


def drivelmm_o1_outcomes(
    value: dict[str, Any], metadata: dict[str, Any], reason: str | None, answer: str | None
) -> dict[str, str]:
    outcomes = {"judge outcome": "judged" if value["judged"] == 1.0 else "judge failed"}
    if metadata["mcq"]:
        if value["mcq_counted"] != 1.0:
            outcomes["MCQ outcome"] = "not counted (not judged)"
        elif value["mcq_correct"] == 1.0:
            outcomes["MCQ outcome"] = "correct"
        else:
            readable = OPTION.search(answer or "") or "none of the " in (answer or "").lower()
            outcomes["MCQ outcome"] = "wrong" if readable else "unreadable answer"
    return outcomes


def samples(log: EvalLog, scorer: str) -> list[Sample]:
    assert log.samples is not None
    return [
        (s.scores[scorer].value, s.metadata, s.scores[scorer].reason, s.scores[scorer].answer)  # type: ignore[misc]
        for s in log.samples
        if s.scores and scorer in s.scores
    ]


def estimate(
    values: list[float], clusters: list[str], groups: list[str] | None, continuous: bool = False
) -> dict[str, Any]:
    if groups is None:
        mean = sum(values) / len(values)
    else:
        means = [sum(v for v, g in zip(values, groups, strict=True) if g == k) / groups.count(k) for k in set(groups)]
        mean = sum(means) / len(means)
    units, count = len(values), len(set(clusters))
    low, high = interval(mean, values, clusters, groups, continuous) or (math.nan, math.nan)
    return {"estimate": mean, "ci_low": low, "ci_high": high, "units": units, "clusters": count,
            "reliable": units >= MIN_UNITS and count >= MIN_CLUSTERS}  # fmt: skip


def expected_surds(
    units: list[Sample], records: dict[str, dict[str, Any]], outcomes: set[str]
) -> dict[tuple[str, ...], Any]:
    rows: dict[tuple[str, ...], Any] = {}
    levelled = [(v, m, surds_levels(m, records), surds_outcome(v, r)) for v, m, r, _ in units]
    for dimension in {d for _, _, levels, _ in levelled for d in levels}:
        for level in {levels[dimension] for _, _, levels, _ in levelled if dimension in levels}:
            chosen = [(v, m) for v, m, levels, _ in levelled if levels.get(dimension) == level]
            values, images, subsets = (
                [v["score"] for v, _ in chosen],
                [m["image"] for _, m in chosen],
                [m["subset"] for _, m in chosen],
            )
            rows[(dimension, level, "overall")] = estimate(values, images, subsets)
            for subset in set(subsets):
                picked = [(v["score"], m["image"]) for v, m in chosen if m["subset"] == subset]
                rows[(dimension, level, subset)] = estimate(
                    [p[0] for p in picked], [p[1] for p in picked], None, continuous=subset == CENTERNESS_SUBSET
                )
    for level in outcomes:
        shares = [(1.0 if outcome == level else 0.0, m) for _, m, _, outcome in levelled]
        rows[("outcome", level, "share")] = estimate([s for s, _ in shares], [m["image"] for _, m in shares], None)
        for subset in {m["subset"] for _, m in shares}:
            picked = [(s, m["image"]) for s, m in shares if m["subset"] == subset]
            rows[("outcome", level, f"share: {subset}")] = estimate(
                [p[0] for p in picked], [p[1] for p in picked], None
            )
    return rows


def expected_drivelmm_o1(
    units: list[Sample], records: dict[str, dict[str, Any]], outcomes: dict[str, set[str]]
) -> dict[tuple[str, ...], Any]:
    rows: dict[tuple[str, ...], Any] = {}
    levelled = [(v, m, drivelmm_o1_levels(m, records), drivelmm_o1_outcomes(v, m, r, a)) for v, m, r, a in units]
    for dimension in ("question number", "city"):
        for level in {levels[dimension] for _, _, levels, _ in levelled}:
            chosen = [(v, m) for v, m, levels, _ in levelled if levels[dimension] == level]
            scored = [(v["reasoning_score"], m["frame"]) for v, m in chosen if not math.isnan(v["reasoning_score"])]
            if scored:
                rows[(dimension, level, "reasoning_score")] = estimate(
                    [s[0] for s in scored], [s[1] for s in scored], None, continuous=True
                )
            mcq = [(v["mcq_correct"], m["frame"]) for v, m in chosen if v["mcq_counted"] == 1.0]
            if mcq:
                rows[(dimension, level, "mcq_accuracy")] = estimate([s[0] for s in mcq], [s[1] for s in mcq], None)
    for dimension, levels in outcomes.items():
        having = [(found[dimension], m["frame"]) for _, m, _, found in levelled if dimension in found]
        for level in levels:
            rows[(dimension, level, "share")] = estimate(
                [1.0 if o == level else 0.0 for o, _ in having], [f for _, f in having], None
            )
    return rows


def check_rows(csv_rows: list[dict[str, str]], expected: dict[str, dict[tuple[str, ...], Any]]) -> None:
    found = {(row["model"], row["dimension"], row["level"], row["metric"]): row for row in csv_rows}
    wanted = {(model, *key): value for model, rows in expected.items() for key, value in rows.items()}
    assert set(found) == set(wanted), set(found) ^ set(wanted)
    for key, row in found.items():
        want = wanted[key]
        for column in ("estimate", "ci_low", "ci_high"):
            assert float(row[column]) == pytest.approx(want[column], abs=BOUND_TOLERANCE, nan_ok=True), (key, column)
        assert (int(row["units"]), int(row["clusters"])) == (want["units"], want["clusters"]), key
        assert row["reliable"] == str(want["reliable"]), key


def _by_model(out: Path, benchmark: str, logs: dict[str, EvalLog]) -> dict[str, EvalLog]:
    return {r["model"]: logs[r["log"]] for r in read_csv(out / f"{benchmark}-scores.csv") if r["log"]}


def _surds_records() -> dict[str, dict[str, Any]]:
    lines = (demo_dir("surds") / "validation" / "metadata.jsonl").read_text(encoding="utf-8").splitlines()
    return {record["file_name"]: record for record in map(json.loads, filter(None, lines))}


def _drivelmm_o1_records() -> dict[str, dict[str, Any]]:
    records = json.loads((demo_dir("drivelmm_o1") / "DriveLMMo1_TEST.json").read_text(encoding="utf-8"))
    return {record["idx"]: record for record in records}


def test_surds_breakdown_matches_the_samples(report_run: Any, logs: dict[str, EvalLog]) -> None:
    runs = {model: samples(log, "surds_scorer") for model, log in _by_model(report_run.out_dir, "surds", logs).items()}
    outcomes = {surds_outcome(v, r) for units in runs.values() for v, _, r, _ in units}
    records = _surds_records()
    expected = {model: expected_surds(units, records, outcomes) for model, units in runs.items()}
    rows = read_csv(report_run.out_dir / "surds-breakdown.csv")
    assert list(rows[0]) == ["model", "dimension", "level", "metric", "estimate", "ci_low", "ci_high", "units",
                             "clusters", "reliable"]  # fmt: skip
    check_rows(rows, expected)
    oracle = {(r["dimension"], r["level"], r["metric"]): r for r in rows if r["model"] == "oracle/demo"}
    assert float(oracle[("outcome", "correct", "share")]["estimate"]) == 1.0
    assert float(oracle[("outcome", "wrong", "share")]["estimate"]) == 0.0, "a level another run had shows as 0"
    assert {r["reliable"] for r in rows} == {"True", "False"}, "the demo has both sparse and full levels"


def test_drivelmm_o1_breakdown_matches_the_samples(report_run: Any, logs: dict[str, EvalLog]) -> None:
    by_model = _by_model(report_run.out_dir, "drivelmm_o1", logs)
    runs = {model: samples(log, "drivelmm_o1_scorer") for model, log in by_model.items()}
    records = _drivelmm_o1_records()
    outcomes: dict[str, set[str]] = defaultdict(set)
    for units in runs.values():
        for v, m, r, a in units:
            for dimension, level in drivelmm_o1_outcomes(v, m, r, a).items():
                outcomes[dimension].add(level)
    expected = {model: expected_drivelmm_o1(units, records, outcomes) for model, units in runs.items()}
    check_rows(read_csv(report_run.out_dir / "drivelmm_o1-breakdown.csv"), expected)


def _units_at(
    log: EvalLog, scorer: str, benchmark: str
) -> dict[str, tuple[dict[str, Any], dict[str, Any], dict[str, str]]]:
    records = _surds_records() if benchmark == "surds" else _drivelmm_o1_records()
    assign = surds_levels if benchmark == "surds" else drivelmm_o1_levels
    assert log.samples is not None
    return {
        str(s.id): (s.scores[scorer].value, s.metadata, assign(s.metadata, records))  # type: ignore[misc]
        for s in log.samples
        if s.scores and scorer in s.scores
    }


@pytest.mark.parametrize(
    ("benchmark", "scorer", "cluster", "metrics"),
    [
        ("surds", "surds_scorer", "image", ("overall",)),
        ("drivelmm_o1", "drivelmm_o1_scorer", "frame", ("reasoning_score", "mcq_accuracy")),
    ],
)
def test_paired_differences_by_level(
    report_run: Any, logs: dict[str, EvalLog], benchmark: str, scorer: str, cluster: str, metrics: tuple[str, ...]
) -> None:
    """Every level with enough common units is compared for each pair the main table compares, and only those."""
    by_model = _by_model(report_run.out_dir, benchmark, logs)
    pairs = list(dict.fromkeys((r["a"], r["b"]) for r in read_csv(report_run.out_dir / f"{benchmark}-paired.csv")))
    found = {
        (r["a"], r["b"], r["dimension"], r["level"], r["metric"]): r
        for r in read_csv(report_run.out_dir / f"{benchmark}-breakdown-paired.csv")
    }
    wanted = set()
    for a_label, b_label in pairs:
        a, b = (_units_at(by_model[label], scorer, benchmark) for label in (a_label, b_label))
        common = sorted(set(a) & set(b))
        for dimension in {d for sample_id in common for d in a[sample_id][2]}:
            for level in {a[i][2][dimension] for i in common if dimension in a[i][2]}:
                at = [i for i in common if a[i][2].get(dimension) == level]
                for metric in metrics:
                    picked = [
                        i
                        for i in at
                        if metric != "mcq_accuracy" or a[i][0]["mcq_counted"] == b[i][0]["mcq_counted"] == 1.0
                    ]
                    key = {"overall": "score", "mcq_accuracy": "mcq_correct"}.get(metric, metric)
                    picked = [i for i in picked if not (math.isnan(a[i][0][key]) or math.isnan(b[i][0][key]))]
                    clusters = [a[i][1][cluster] for i in picked]
                    if len(picked) < MIN_UNITS or len(set(clusters)) < MIN_CLUSTERS:
                        continue
                    wanted.add((a_label, b_label, dimension, level, metric))
                    groups = [a[i][1]["subset"] for i in picked] if metric == "overall" else None
                    result = paired_difference(
                        [a[i][0][key] for i in picked], [b[i][0][key] for i in picked], clusters, groups
                    )
                    row = found[(a_label, b_label, dimension, level, metric)]
                    assert (int(row["units"]), int(row["clusters"])) == (len(picked), len(set(clusters)))
                    for column, value in (("difference", result.estimate), ("ci_low", result.ci_low),
                                          ("ci_high", result.ci_high), ("p_value", result.p_value)):  # fmt: skip
                        assert float(row[column]) == pytest.approx(value, abs=1e-12, nan_ok=True), (row, column)
    assert set(found) == wanted
    if benchmark == "surds":
        assert wanted, "the demo has levels large enough to compare the oracle with chance"


def test_breakdown_section_in_the_report(report_run: Any) -> None:
    report = (report_run.out_dir / "report.md").read_text(encoding="utf-8")
    for title, dimensions in (("SURDS", ("camera", "object depth", "pair x gap", "outcome")),
                              ("DriveLMM-o1", ("question number", "city", "MCQ outcome"))):  # fmt: skip
        section = report.split(f"\n## {title}: where models fail\n", 1)[1].split("\n## ", 1)[0]
        assert "### Breakdown dimensions" in section and "### Paired differences by level" in section
        for dimension in dimensions:
            assert f"| {dimension} |" in section


def test_old_logs_give_what_their_metadata_has(tmp_path: Path, logs: dict[str, EvalLog]) -> None:
    """A SURDS log written before the breakdown facts existed: camera, box area and outcome, and a note on the rest."""
    new = next(log for log in logs.values() if log.eval.task == "drive_evals/surds" and log.eval.model == "oracle/demo")
    old = copy.deepcopy(new)
    assert old.samples is not None
    for sample in old.samples:
        del sample.metadata["breakdown"]
    (tmp_path / "logs").mkdir()
    write_eval_log(old, str(tmp_path / "logs" / "old.eval"))
    write_eval_log(new, str(tmp_path / "logs" / "new.eval"))
    write_report(tmp_path / "logs", tmp_path / "out", BENCHMARKS)
    rows = read_csv(tmp_path / "out" / "surds-breakdown.csv")
    dimensions: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        dimensions[row["model"]].add(row["dimension"])
    assert len(dimensions) == 2, "two runs of one model, told apart by their log ids"
    assert sorted(map(len, dimensions.values())) == [3, 9]
    assert {"camera", "box area", "outcome"} in dimensions.values()
    report = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "no units with `object category`, `object depth`" in report
