"""Recompute the demo numbers quoted in the README and docs, and check them against the text.

    python tools/readme_numbers.py            # print every checked block as it should read
    python tools/readme_numbers.py --check    # exit 1, with a diff, when a document has drifted

Each checked passage is preceded in its document by a marker line `<!-- numbers: NAME -->`. For a table the check
compares the whole Markdown table under the marker, line by line; for prose it requires the measured sentence
fragment verbatim in the paragraph under the marker. Every marker must appear exactly once and every marker must
be one this script knows, so a number cannot leave the check by losing its marker.

All runs are in-process on the demo data with an empty Inspect cache (`INSPECT_CACHE_DIR` set to a fresh directory
before anything runs), so judge replies are never reused from an earlier run: the numbers depend only on the code.
The mock judges are the test suite's (`tests/fake_models.py`).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
MARKER = re.compile(r"^<!-- numbers: ([\w-]+) -->$", re.MULTILINE)
CHANCE_SEEDS = 20
SEED = 0
"""The seed of the single chance runs (blind vs normal, the meta-evaluation's chance judge)."""
JUDGES = (
    ("good (n-gram overlap with the ground truth, test-only)", "judge/good"),
    ("lazy (same scores for everything, test-only)", "judge/lazy"),
    ("gullible (good, but obeys instructions in the response, test-only)", "judge/gullible"),
    ("`chance/random`", "chance/random"),
)
SCRATCH_VARIABLES = {"INSPECT_CACHE_DIR": "cache", "DRIVE_EVALS_CACHE": "derived"}
"""Inspect's cache (judge replies) and ours (grids) start empty, so nothing from an earlier run is reused."""
META_COLUMNS = ("rank_agreement", "below_reference_rate", "injection_success_rate", "run_to_run_sd")


@dataclass(frozen=True)
class Expected:
    """What the passage under a marker must hold: a whole table (`table`) or a sentence fragment in it."""

    text: str
    table: bool


SURDS_TASK, O1_TASK, JUDGE_TASK = "drive_evals/surds", "drive_evals/drivelmm_o1", "drive_evals/drivelmm_o1_judge"


def _eval_metrics(task: object, log_dir: str, scorer: str, **kwargs: object) -> tuple[dict[str, float], object]:
    from inspect_ai import eval as inspect_eval

    [log] = inspect_eval(task, log_dir=log_dir, display="none", **kwargs)  # type: ignore[arg-type]
    assert log.status == "success" and log.results is not None, log.error
    # A scorer whose metrics mix reduced and unreduced scores (SURDS's) has one results entry per view.
    found = [s for s in log.results.scores if s.name == scorer]
    return {name: metric.value for score in found for name, metric in score.metrics.items()}, log


def surds_chance(log_dir: str) -> dict[str, Expected]:
    import measure_chance

    runs = measure_chance.measure("demo", CHANCE_SEEDS, log_dir)
    return {"surds-chance": Expected("\n".join(measure_chance.table(runs)), True)}


def chance_runs(log_dir: str) -> dict[str, Expected]:
    """Chance on the demo, normal and blind (the gap chance alone makes), its xy2d readings and judge tokens.

    Tasks go to Inspect by name, so it binds the `grader` role before the task's judge preflight runs."""
    from inspect_ai.log import EvalLog

    chance = {"model": "chance/random", "model_args": {"seed": SEED}}
    o1 = {**chance, "model_roles": {"grader": "chance/random"}}
    normal, blind = {"data": "demo"}, {"data": "demo", "blind": True}
    from inspect_ai.log import read_eval_log_sample_summaries

    from drive_evals.report.benchmarks import surds_diagnostics

    surds_n, surds_log = _eval_metrics(SURDS_TASK, log_dir, "surds_scorer", task_args=normal, **chance)
    assert isinstance(surds_log, EvalLog)
    # The convention readings are computed from the samples, as `drive-evals report` does (not log metrics).
    surds_n.update(surds_diagnostics(read_eval_log_sample_summaries(surds_log.location)))
    surds_b, _ = _eval_metrics(SURDS_TASK, log_dir, "surds_scorer", task_args=blind, **chance)
    o1_n, o1_log = _eval_metrics(O1_TASK, log_dir, "drivelmm_o1_scorer", task_args=normal, **o1)
    o1_b, _ = _eval_metrics(O1_TASK, log_dir, "drivelmm_o1_scorer", task_args=blind, **o1)
    assert o1_n["mcq_items"] == o1_b["mcq_items"]
    assert isinstance(o1_log, EvalLog) and o1_log.samples is not None
    judge = o1_log.stats.role_usage["grader"]  # the first run on an empty cache: every judge call is counted
    return {
        "blind-gap": Expected(
            f"SURDS overall {surds_n['overall']:.3f} normal, {surds_b['overall']:.3f} blind; DriveLMM-o1 with a "
            f"chance judge, reasoning {o1_n['reasoning_score']:.3f} and {o1_b['reasoning_score']:.3f}, MCQ "
            f"{o1_n['mcq_accuracy']:.3f} and {o1_b['mcq_accuracy']:.3f} on {o1_n['mcq_items']:.0f} items",
            False,
        ),
        "xy2d-chance": Expected(
            f"`xy2d` {surds_n['xy2d']:.1f}, share `official` {surds_n['xy2d_conv_official_share']:.1f}", False
        ),
        "judge-tokens": Expected(
            f"reports {judge.input_tokens:,} input and {judge.output_tokens:,} output judge tokens for "
            f"{len(o1_log.samples)} samples",
            False,
        ),
    }


def judge_meta(log_dir: str) -> dict[str, Expected]:
    """The meta-evaluation of the mock judges and the chance judge (default records and epochs)."""
    lines = ["| judge | " + " | ".join(META_COLUMNS) + " |", "|---|---|---|---|---|"]
    runs = {}
    for label, grader in JUDGES:
        runs[grader], _ = _eval_metrics(
            JUDGE_TASK, log_dir, "judge_meta_scorer", task_args={"data": "demo"}, model_roles={"grader": grader}
        )
        lines.append(f"| {label} | " + " | ".join(f"{runs[grader][c]:.3f}" for c in META_COLUMNS) + " |")
    good = runs["judge/good"]
    return {
        "judge-meta": Expected("\n".join(lines), True),
        "good-judge-scores": Expected(
            f"`score_facts_swapped` {good['score_facts_swapped']:.2f}, above `score_padded` {good['score_padded']:.2f}",
            False,
        ),
    }


MEASUREMENTS: tuple[Callable[[str], dict[str, Expected]], ...] = (surds_chance, chance_runs, judge_meta)
CHECKED = ("surds-chance", "blind-gap", "xy2d-chance", "judge-tokens", "judge-meta", "good-judge-scores")
"""Every marker name, in the order the measurements produce them."""


def passages(text: str) -> dict[str, list[str]]:
    """Marker name -> the passages under each occurrence: the table, or the paragraph, right after the marker."""
    found: dict[str, list[str]] = {}
    for match in MARKER.finditer(text):
        rest = text[match.end() :].lstrip("\n")
        block = rest.split("\n\n", 1)[0]
        found.setdefault(match.group(1), []).append(block)
    return found


def table_lines(block: str) -> str:
    return "\n".join(line for line in block.splitlines() if line.startswith("|"))


def drift(documents: dict[str, str], expected: dict[str, Expected]) -> list[str]:
    """Every disagreement between the documents and the measured numbers, as readable messages."""
    problems = []
    found: dict[str, list[tuple[str, str]]] = {}
    for name, text in documents.items():
        for marker, blocks in passages(text).items():
            found.setdefault(marker, []).extend((name, block) for block in blocks)
    for marker in sorted(found.keys() - expected.keys()):
        problems.append(f"unknown marker `<!-- numbers: {marker} -->` in {found[marker][0][0]}")
    for marker, want in expected.items():
        places = found.get(marker, [])
        if len(places) != 1:
            problems.append(f"marker `<!-- numbers: {marker} -->` appears {len(places)} times, expected once")
            continue
        document, block = places[0]
        if want.table and table_lines(block) != want.text:
            problems.append(f"{document}, table `{marker}` reads:\n{table_lines(block)}\nmeasured:\n{want.text}")
        elif not want.table and want.text not in " ".join(block.split()):
            problems.append(f"{document}, passage `{marker}` does not say:\n  {want.text}\nit reads:\n  {block}")
    return problems


def measure() -> dict[str, Expected]:
    """Run every measurement in a fresh cache and log directory."""
    sys.path.insert(0, str(ROOT / "tests"))
    import fake_models  # noqa: F401  (registers the test-suite judges)

    saved = {name: os.environ.get(name) for name in SCRATCH_VARIABLES}
    expected: dict[str, Expected] = {}
    with tempfile.TemporaryDirectory() as scratch:
        os.environ.update({name: str(Path(scratch) / folder) for name, folder in SCRATCH_VARIABLES.items()})
        try:
            for measurement in MEASUREMENTS:
                expected.update(measurement(str(Path(scratch) / "logs")))
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
    assert tuple(expected) == CHECKED, tuple(expected)
    return expected


def read_documents() -> dict[str, str]:
    return {str(path.relative_to(ROOT)): path.read_text(encoding="utf-8") for path in DOCUMENTS}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the documents; exit 1 on drift")
    args = parser.parse_args()
    expected = measure()
    if not args.check:
        for name, want in expected.items():
            print(f"<!-- numbers: {name} -->\n{want.text}\n")
        return 0
    problems = drift(read_documents(), expected)
    print("\n\n".join(problems) if problems else f"all {len(expected)} checked passages match")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
