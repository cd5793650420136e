"""What the console prints at the end of a run agrees with the report, and docs/console.md shows what the code prints.

The captures in docs/console.md are tmux captures of real runs; the fast tests regenerate their text parts (Inspect's
metric panel, rendered by Inspect's own `task_scores`, and the headline lines) from in-process demo runs and find them
in each capture, in order. The live progress line is checked on a real `inspect eval` in the slow tier.
"""

from __future__ import annotations

import io
import math
import re
from pathlib import Path

import pytest
from inspect_ai._display.core.results import task_scores
from inspect_ai.log import EvalLog
from inspect_runs import eval_in_process, metrics, run_inspect
from rich.console import Console

from drive_evals._registry import BENCHMARKS
from drive_evals.benchmark import Benchmark
from drive_evals.cli import main
from drive_evals.headline import headline_lines
from drive_evals.precision import Z
from drive_evals.report.runs import run_of_log
from drive_evals.report.tables import estimate

DOC = Path(__file__).parents[1] / "docs" / "console.md"
SURDS, O1 = "drive_evals/surds", "drive_evals/drivelmm_o1"
DEMO = {"data": "demo"}
JUDGE = {"model_roles": {"grader": "chance/random"}}
CAPTURE = re.compile(r"<!-- capture: (\S+) (\S+) -->\n```text\n(.*?)```", re.S)
PROGRESS = re.compile(r"Samples:\s+(\d+)/\s*(\d+) \| (\w+):\s+(\S+)")


def captures() -> dict[tuple[str, str], str]:
    """(task, display mode) -> the capture's text, from docs/console.md."""
    return {(task, mode): text for task, mode, text in CAPTURE.findall(DOC.read_text(encoding="utf-8"))}


def printed_lines(log: EvalLog) -> list[str]:
    """The lines a run of `log` prints that do not change between runs: Inspect's metric panel, then the headline."""
    assert log.results is not None
    console = Console(width=120, no_color=True, record=True, file=io.StringIO())
    for row in task_scores(log.results.scores):
        console.print(row)
    panel = [line.rstrip() for line in console.export_text().splitlines() if line.strip()]
    run = run_of_log(log.location, BENCHMARKS)
    assert run is not None
    return [*panel, *headline_lines(run)]


def assert_in_order(expected: list[str], capture: str, where: str) -> None:
    lines = [line.rstrip() for line in capture.splitlines()]
    position = 0
    for line in expected:
        assert line in lines[position:], (
            f"{where}: `{line}` is not in docs/console.md's capture (after line {position})"
        )
        position = lines.index(line, position) + 1


CAPTURED = sorted({task for task, _ in captures()}, key=[b.key for b in BENCHMARKS].index)
"""The benchmarks docs/console.md shows a capture of (each in every display mode)."""


@pytest.fixture(scope="module")
def demo_logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EvalLog]:
    """A chance run of each captured benchmark's demo data (judged ones with the chance judge)."""
    root = tmp_path_factory.mktemp("console")
    return {
        b.task.qualified: eval_in_process(
            b.task.qualified, root / b.key, model="chance/random", task_args=DEMO, **(JUDGE if b.judged else {})
        )
        for b in BENCHMARKS
        if b.key in CAPTURED
    }


def test_the_captures_are_of_registry_benchmarks_in_every_display_mode() -> None:
    found = captures()
    assert {SURDS.split("/")[1], O1.split("/")[1]} <= set(CAPTURED)
    assert {(task, mode) for task in CAPTURED for mode in ("rich", "plain", "none")} == set(found)


@pytest.mark.parametrize("task", [f"drive_evals/{name}" for name in CAPTURED])
def test_the_docs_show_what_the_console_prints(demo_logs: dict[str, EvalLog], task: str) -> None:
    found = captures()
    name = task.split("/")[1]
    expected = printed_lines(demo_logs[task])
    for mode in ("rich", "plain"):
        assert_in_order(expected, found[(name, mode)], f"{name} {mode}")
    assert not set(expected) & {line.rstrip() for line in found[(name, "none")].splitlines()}, "none prints none"


def test_the_headline_comes_first(demo_logs: dict[str, EvalLog]) -> None:
    for task, headline in ((SURDS, "overall"), (O1, "reasoning_score")):
        results = demo_logs[task].results
        assert results is not None and next(iter(results.scores[0].metrics)) == headline


def test_a_limit_run_prints_no_surds_headline(tmp_path: Path) -> None:
    """`--limit 3` gives units of three subsets (the spread order's first three): `overall` (the mean of the six
    subsets) is not the headline, the log says which subsets are missing (NaN), and no standard error claims a
    precision."""
    log = eval_in_process(SURDS, tmp_path, model="chance/random", task_args=DEMO, limit=3)
    values = metrics(log, "surds_scorer")
    assert all(values[s] == 0.0 for s in ("yaw", "xy2d", "depth"))
    assert math.isnan(values["overall"]), "a headline over 3 of 6 subsets"
    assert all(math.isnan(values[s]) for s in ("distance", "left_right", "front_behind"))
    assert "overall_stderr" not in values
    run = run_of_log(log.location, BENCHMARKS)
    assert run is not None
    lines = headline_lines(run)
    assert "partial run: 3 of 96 samples" in lines[0]
    assert "not reported" in lines[1] and "no units of distance, left_right, front_behind" in lines[1]


def test_stderr_is_absent_where_the_report_prints_no_interval(demo_logs: dict[str, EvalLog], tmp_path: Path) -> None:
    """The 3-frame demo's judge scores print [0.0, 100.0] in the report: no `*_stderr` in the console. One sample
    (`--limit 1`, one frame): no standard error at all (each used to print 0.000)."""
    values = metrics(demo_logs[O1], "drivelmm_o1_scorer")
    assert "reasoning_score_stderr" not in values and "judge_overall_stderr" not in values
    run = run_of_log(demo_logs[O1].location, BENCHMARKS)
    assert run is not None and estimate(run, "reasoning_score").interval == (0.0, 1.0)
    one_frame = eval_in_process(O1, tmp_path, model="chance/random", task_args=DEMO, limit=1, **JUDGE)
    assert not [name for name in metrics(one_frame, "drivelmm_o1_scorer") if name.endswith("_stderr")]


def test_stderr_never_claims_more_precision_than_the_report(demo_logs: dict[str, EvalLog]) -> None:
    """Mean +/- 1.96 SE spans at least the report's 95% interval (the CR2 SE, raised to the interval's half-width)."""
    for task, metric in ((SURDS, "overall"), (O1, "mcq_accuracy")):
        log = demo_logs[task]
        run = run_of_log(log.location, BENCHMARKS)
        assert run is not None and log.results is not None
        interval = estimate(run, metric).interval
        assert interval is not None
        stderr = log.results.scores[0].metrics[f"{metric}_stderr"].value
        assert 2 * Z * stderr >= interval[1] - interval[0] - 1e-12, (task, stderr, interval)


@pytest.mark.slow
@pytest.mark.parametrize("benchmark", BENCHMARKS, ids=lambda b: b.key)
def test_the_live_progress_metric_is_never_contradicted(tmp_path: Path, benchmark: Benchmark) -> None:
    """The progress line's metric is `n/a` while samples run, or the final value: on main it ended on SURDS's 0.01
    (running units counted as missing replies, 0) and DriveLMM-o1's 0.58 (computed before the last samples)."""
    roles = ["--model-role", "grader=chance/random"] if benchmark.judged else []
    result = run_inspect(
        ["eval", benchmark.task.qualified, "--model", "chance/random", "-T", "data=demo", *roles], tmp_path / "logs"
    )
    rows = PROGRESS.findall(result.stdout)
    assert rows, result.stdout
    final = {line.split()[0]: line.split()[1] for line in result.stdout.splitlines() if len(line.split()) == 2}
    for done, planned, name, value in rows:
        assert value == "n/a" or (done == planned and f"{float(final[name]):.2f}" == value), (done, value, final)


def test_drive_evals_run_ends_on_the_merged_runs_headline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The shards run elsewhere (in this process here), `drive-evals run --merge-only` merges them and prints the
    merged run's headline, the same lines as an unsharded run's."""
    for index in (1, 2):
        shard = {**DEMO, "shard": f"{index}/2"}
        eval_in_process(SURDS, tmp_path / f"shard-{index}-of-2", model="chance/random", task_args=shard)
    args = ["run", SURDS, "--processes", "2", "--log-dir", str(tmp_path), "--merge-only"]
    assert main(args) == 0
    printed = capsys.readouterr().out.splitlines()
    run = run_of_log(str(tmp_path / "merged.eval"), BENCHMARKS)
    assert run is not None
    assert printed[-2:] == headline_lines(run) and printed[-1].startswith("  overall  8.3 ["), printed


def test_a_headline_line_without_a_number_says_why(
    demo_logs: dict[str, EvalLog], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A console line whose metric has no value (no sample of it drawn) reads "not reported" with a reason, never
    a bare dash (DriveBench `--limit 10 -T setting=clean,fog` printed `gpt_score —`)."""
    import drive_evals.headline as headline
    from drive_evals.report.tables import Estimate

    run = run_of_log(demo_logs[SURDS].location, BENCHMARKS)
    assert run is not None
    monkeypatch.setattr(headline, "estimate", lambda run, metric: Estimate(math.nan, math.nan, 0, False))
    [_, line] = headline_lines(run)
    assert "—" not in line and "not reported  no sample of it was scored; the equal mean of the 6 subsets" in line
