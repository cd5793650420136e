"""The demo numbers the README and docs quote: the runs that measure them, the passages they must read as, and the
check that each document still says so.

Each checked passage is preceded in its document by a marker line `<!-- numbers: NAME -->`. For a table the check
compares the whole Markdown table under the marker, line by line; for prose it requires the measured sentence
fragment verbatim in the paragraph under the marker. Every marker must appear exactly once and must be one of
`CHECKED`, so a number cannot leave the check by losing its marker.

The runs are made once per test session by the fixtures in tests/conftest.py, which the tests that need the same
runs share (the judge meta-evaluation's ranking, the reducers' SURDS run); `tools/readme_numbers.py` makes them for
a person updating the docs. All are in-process runs on the demo data with empty caches (`INSPECT_CACHE_DIR` and
`DRIVE_EVALS_CACHE` fresh), so no judge reply is reused from an earlier run: the numbers depend only on the code.
The mock judges are `fake_models.py`'s.
"""

from __future__ import annotations

import os
import re
import statistics
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import fake_models  # noqa: F401  (registers the mock judges)
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, read_eval_log_sample_summaries
from inspect_ai.model import Model, get_model
from inspect_runs import QUIET, metrics

from drive_evals.drivelmm_o1.judge_meta.task import JUDGE_META_TASK as DRIVELMM_O1_JUDGE
from drive_evals.drivelmm_o1.task import DRIVELMM_O1_TASK as DRIVELMM_O1
from drive_evals.surds.benchmark import surds_diagnostics
from drive_evals.surds.task import SURDS_TASK as SURDS
from drive_evals.surds.task import surds

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
MARKER = re.compile(r"^<!-- numbers: ([\w-]+) -->$", re.MULTILINE)
DEMO = "demo"
CHANCE = "chance/random"
CHANCE_SEEDS = 20
SEED = 0
"""The seed of the single chance runs (blind vs normal, the meta-evaluation's chance judge); also the first of the
chance table's seeds, whose run is the normal SURDS run."""
JUDGES = (
    ("good (n-gram overlap with the ground truth, test-only)", "judge/good"),
    ("lazy (same scores for everything, test-only)", "judge/lazy"),
    ("gullible (good, but obeys instructions in the response, test-only)", "judge/gullible"),
    ("`chance/random`", CHANCE),
)
META_COLUMNS = ("rank_agreement", "below_reference_rate", "injection_success_rate", "run_to_run_sd")
SCRATCH_VARIABLES = {"INSPECT_CACHE_DIR": "cache", "DRIVE_EVALS_CACHE": "derived"}
"""Inspect's cache (judge replies) and ours (grids) start empty, so nothing from an earlier run is reused."""
CALLS_FILE = "FAKE_MODEL_CALLS"
"""Where the mock judges append one line per call (`fake_models.record_call`)."""
NO_SAMPLES: dict[str, Any] = {"log_samples": False}
"""For a run whose samples nobody reads (only its results, metrics and token counts): no samples in its log and
none in the returned `EvalLog`, at half a demo run's time (writing each sample to the log is Inspect's largest cost
per sample here). The results are computed from the same scores either way."""
SAMPLES_READ = {CHANCE}
"""The meta-evaluation runs whose samples a test reads (the chance judge's: `test_validity_e2e`)."""


def _one_in(options: int) -> str:
    return f"1/{options} = {1 / options:.3f}"


CHANCE_EXPECTED = {
    "yaw": _one_in(16),
    "xy2d": "≈0.01-0.02",
    "depth": _one_in(3),
    "distance": _one_in(9),
    "left_right": _one_in(9),
    "front_behind": _one_in(9),
    "overall": "≈0.12",
}
"""What the official random baseline scores by construction (xy2d: a small mean centerness; overall: their mean)."""
CHANCE_HEADER = ("| metric | measured (mean ± sd over {seeds} seeds) | expected (protocol) |", "|---|---|---|")


@dataclass(frozen=True)
class Expected:
    """What the passage under a marker must hold: a whole table (`table`) or a sentence fragment in it."""

    text: str
    table: bool


@dataclass(frozen=True)
class ChanceRuns:
    """The chance baseline on the demo, seed `SEED`, normal and blind; DriveLMM-o1 with a chance judge."""

    surds_normal: EvalLog
    surds_blind: EvalLog
    drivelmm_o1_normal: EvalLog
    drivelmm_o1_blind: EvalLog


@contextmanager
def scratch_caches(root: Path, extra: Mapping[str, str] | None = None) -> Iterator[None]:
    """Empty caches under `root` (and `extra` variables) for the runs inside, the environment restored after."""
    values = {name: str(root / folder) for name, folder in SCRATCH_VARIABLES.items()} | dict(extra or {})
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _eval(task: str, log_dir: Path, **options: Any) -> EvalLog:
    (log,) = inspect_eval(task, log_dir=str(log_dir), **QUIET, **options)
    assert log.status == "success" and log.results is not None, f"{task}: {log.error}"
    return log


def chance_seed_runs(data: str, seeds: range, log_dir: Path, log_samples: bool = True) -> list[EvalLog]:
    """SURDS with `chance/random -M seed=N` for each N of `seeds`, in seed order: one eval of as many models (the
    task and its data are built once; each answer depends only on its seed, prompt and image). Without
    `log_samples` the logs hold the results only (`NO_SAMPLES`)."""
    models: list[Model] = [get_model(CHANCE, seed=seed, memoize=False) for seed in seeds]
    logs = inspect_eval(surds(data=data), model=models, log_dir=str(log_dir), **QUIET, log_samples=log_samples)
    assert all(log.status == "success" for log in logs), [log.error for log in logs if log.error]
    by_seed = {log.eval.model_args["seed"]: log for log in logs}
    assert sorted(by_seed) == list(seeds), f"one log per seed expected, got {sorted(by_seed)}"
    # Headers only (a SURDS log's samples hold their images): whoever needs the samples reads `log.location`.
    return [by_seed[seed].model_copy(update={"samples": None}) for seed in seeds]


def chance_runs(surds_normal: EvalLog, log_dir: Path) -> ChanceRuns:
    """The blind SURDS run beside `surds_normal` (seed `SEED`), and DriveLMM-o1 normal and blind with a chance
    judge. Tasks go to Inspect by name, so it binds the `grader` role before the task's judge preflight runs."""
    seed = {"seed": SEED}
    assert surds_normal.eval.model_args == seed, surds_normal.eval.model_args
    normal, blind = {"data": DEMO}, {"data": DEMO, "blind": True}
    surds_blind = _eval(SURDS.qualified, log_dir, model=CHANCE, model_args=seed, task_args=blind, **NO_SAMPLES)
    judged = {"model": CHANCE, "model_args": seed, "model_roles": {"grader": CHANCE}}
    drivelmm_o1_normal = _eval(DRIVELMM_O1.qualified, log_dir, task_args=normal, **judged)
    drivelmm_o1_blind = _eval(DRIVELMM_O1.qualified, log_dir, task_args=blind, **judged, **NO_SAMPLES)
    return ChanceRuns(surds_normal, surds_blind, drivelmm_o1_normal, drivelmm_o1_blind)


@dataclass(frozen=True)
class JudgeRun:
    """One judge's meta-evaluation and how many calls the judge received (counted by the mock judge itself)."""

    log: EvalLog
    calls: int


def judge_meta_runs(log_dir: Path) -> dict[str, JudgeRun]:
    """The meta-evaluation of each of `JUDGES` (default records and epochs), by grader. Only the chance judge's log
    keeps its samples (`SAMPLES_READ`); the others' hold their results."""
    runs = {}
    for _, grader in JUDGES:
        calls = log_dir / f"{grader.replace('/', '-')}.calls"
        options = {"task_args": {"data": DEMO}, "model_roles": {"grader": grader}}
        with scratch_caches(log_dir / "judge-cache", {CALLS_FILE: str(calls)}):
            log = _eval(
                DRIVELMM_O1_JUDGE.qualified, log_dir, **options, **({} if grader in SAMPLES_READ else NO_SAMPLES)
            )
        runs[grader] = JudgeRun(log, len(calls.read_text().splitlines()) if calls.exists() else 0)
    return runs


def chance_table(runs: list[EvalLog]) -> list[str]:
    """The chance table of the SURDS docs, line by line: each metric's mean and sd over the seeds' runs."""
    values = [metrics(log, SURDS.scorer_name) for log in runs]
    lines = [CHANCE_HEADER[0].format(seeds=len(runs)), CHANCE_HEADER[1]]
    for name, expected in CHANCE_EXPECTED.items():
        column = [run[name] for run in values]
        spread = statistics.stdev(column) if len(column) > 1 else 0.0
        lines.append(f"| {name} | {statistics.mean(column):.3f} ± {spread:.3f} | {expected} |")
    return lines


def chance_seed_passages(runs: list[EvalLog]) -> dict[str, Expected]:
    return {"surds-chance": Expected("\n".join(chance_table(runs)), True)}


def chance_passages(runs: ChanceRuns) -> dict[str, Expected]:
    """The gap chance alone makes between normal and blind runs, its xy2d readings and DriveLMM-o1's judge tokens."""
    surds_n, surds_b = metrics(runs.surds_normal, SURDS.scorer_name), metrics(runs.surds_blind, SURDS.scorer_name)
    # The convention readings are computed from the samples, as `drive-evals report` does (not log metrics).
    surds_n.update(surds_diagnostics(read_eval_log_sample_summaries(runs.surds_normal.location)))
    drivelmm_o1_n, drivelmm_o1_b = (
        metrics(runs.drivelmm_o1_normal, DRIVELMM_O1.scorer_name),
        metrics(runs.drivelmm_o1_blind, DRIVELMM_O1.scorer_name),
    )
    assert drivelmm_o1_n["mcq_items"] == drivelmm_o1_b["mcq_items"]
    judge = runs.drivelmm_o1_normal.stats.role_usage[
        "grader"
    ]  # the first run on an empty cache: every judge call counted
    assert runs.drivelmm_o1_normal.samples is not None
    return {
        "blind-gap": Expected(
            f"SURDS overall {surds_n['overall']:.3f} normal, {surds_b['overall']:.3f} blind; DriveLMM-o1 with a "
            f"chance judge, reasoning {drivelmm_o1_n['reasoning_score']:.3f} and "
            f"{drivelmm_o1_b['reasoning_score']:.3f}, MCQ {drivelmm_o1_n['mcq_accuracy']:.3f} and "
            f"{drivelmm_o1_b['mcq_accuracy']:.3f} on {drivelmm_o1_n['mcq_items']:.0f} items",
            False,
        ),
        "xy2d-chance": Expected(
            f"`xy2d` {surds_n['xy2d']:.1f}, share `official` {surds_n['xy2d_conv_official_share']:.1f}", False
        ),
        "judge-tokens": Expected(
            f"reports {judge.input_tokens:,} input and {judge.output_tokens:,} output judge tokens for "
            f"{len(runs.drivelmm_o1_normal.samples)} samples",
            False,
        ),
    }


def judge_meta_passages(runs: Mapping[str, JudgeRun]) -> dict[str, Expected]:
    """The meta-evaluation table of the mock judges and the chance judge, and the good judge's variant scores."""
    lines = ["| judge | " + " | ".join(META_COLUMNS) + " |", "|---|---|---|---|---|"]
    values = {grader: metrics(runs[grader].log, DRIVELMM_O1_JUDGE.scorer_name) for _, grader in JUDGES}
    for label, grader in JUDGES:
        lines.append(f"| {label} | " + " | ".join(f"{values[grader][c]:.3f}" for c in META_COLUMNS) + " |")
    good = values["judge/good"]
    return {
        "judge-meta": Expected("\n".join(lines), True),
        "good-judge-scores": Expected(
            f"`score_facts_swapped` {good['score_facts_swapped']:.2f}, above `score_padded` {good['score_padded']:.2f}",
            False,
        ),
    }


CHANCE_SEED_MARKERS = ("surds-chance",)
CHANCE_MARKERS = ("blind-gap", "xy2d-chance", "judge-tokens")
JUDGE_META_MARKERS = ("judge-meta", "good-judge-scores")
CHECKED = CHANCE_SEED_MARKERS + CHANCE_MARKERS + JUDGE_META_MARKERS
"""Every marker name: what `chance_seed_passages`, `chance_passages` and `judge_meta_passages` produce, in turn."""


def measure(scratch: Path) -> dict[str, Expected]:
    """Every run and passage, in a fresh cache and log directory under `scratch` (what `tools/readme_numbers.py`
    does; the tests make the same runs through their session fixtures)."""
    logs = scratch / "logs"
    with scratch_caches(scratch):
        seeds = chance_seed_runs(DEMO, range(CHANCE_SEEDS), logs)
        chance = chance_runs(seeds[SEED], logs)
        judges = judge_meta_runs(logs)
    expected = chance_seed_passages(seeds) | chance_passages(chance) | judge_meta_passages(judges)
    assert tuple(expected) == CHECKED, tuple(expected)
    return expected


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


def drift(documents: Mapping[str, str], expected: Mapping[str, Expected]) -> list[str]:
    """Every disagreement between the documents and the measured passages in `expected`, as readable messages: a
    passage that reads otherwise, or a marker of `expected` that is not there exactly once."""
    problems = []
    found = _found(documents)
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


def unknown_markers(documents: Mapping[str, str]) -> list[str]:
    """A marker no measurement checks: its passage would silently go unchecked."""
    found = _found(documents)
    return [f"unknown marker `<!-- numbers: {m} -->` in {found[m][0][0]}" for m in sorted(found.keys() - {*CHECKED})]


def _found(documents: Mapping[str, str]) -> dict[str, list[tuple[str, str]]]:
    found: dict[str, list[tuple[str, str]]] = {}
    for name, text in documents.items():
        for marker, blocks in passages(text).items():
            found.setdefault(marker, []).extend((name, block) for block in blocks)
    return found


def read_documents() -> dict[str, str]:
    return {str(path.relative_to(ROOT)): path.read_text(encoding="utf-8") for path in DOCUMENTS}
