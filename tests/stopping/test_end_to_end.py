"""Real runs on the SURDS demo with the chance model: a shadow run scores exactly as a normal run, and the replay of
a stopped run's log reproduces its live decision (one rule on one run, a paired rule against another)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import get_model

from drive_evals._registry import BENCHMARKS, surds
from drive_evals.cli import main
from drive_evals.headline import headline_lines
from drive_evals.report.compare import build_view
from drive_evals.report.runs import load_runs
from drive_evals.report.tables import estimate
from drive_evals.stopping.replay import replay
from drive_evals.stopping.rule import StopPlan, parse_plan

pytestmark = pytest.mark.slow
SURDS = next(b for b in BENCHMARKS if b.key == "surds")
QUIET: dict[str, Any] = {"display": "none", "max_samples": 4}


def task_with_rule(plan: StopPlan) -> Task:
    return surds(data="demo", stop=plan.spec, stop_min_clusters=plan.min_clusters, stop_shadow=plan.shadow)


def run(log_dir: Path, plan: StopPlan | None, seed: int = 0) -> EvalLog:
    """SURDS on the demo with the rule given as the task parameters `-T stop=...` would give it."""
    task = surds(data="demo") if plan is None else task_with_rule(plan)
    (log,) = inspect_eval(task, model="chance/random", model_args={"seed": seed}, log_dir=str(log_dir), **QUIET)
    assert log.status == "success", log.error
    return log


def sample_scores(log: EvalLog) -> dict[str, Any]:
    full = read_eval_log(log.location)
    return {str(s.id): s.scores["surds_scorer"].value for s in full.samples or [] if s.scores}


def stop_record(log: EvalLog) -> dict[str, Any]:
    assert log.results is not None and log.results.early_stopping is not None
    return dict(log.results.early_stopping.metadata)


def test_shadow_scores_as_a_normal_run_and_replays_agree(tmp_path: Path) -> None:
    normal = run(tmp_path, None)
    shadow_plan = parse_plan("precision:0.2", min_clusters=3, shadow=True)
    shadow = run(tmp_path, shadow_plan)
    assert sample_scores(shadow) == sample_scores(normal)
    assert normal.results is not None and shadow.results is not None
    metrics = {n: m.value for s in normal.results.scores for n, m in s.metrics.items()}
    assert {n: m.value for s in shadow.results.scores for n, m in s.metrics.items()} == metrics
    record = stop_record(shadow)
    assert record["samples_skipped"] == 0 and record["stopped_at"] is not None

    plan = parse_plan("precision:0.2", min_clusters=3)
    assert plan is not None
    stopped = run(tmp_path, plan)
    live = stop_record(stopped)
    live_stop = live["stopped_at"]
    assert live["samples_skipped"] > 0 and live["clusters_not_run"] > 0
    replayed = replay(stopped.location, plan).stop
    assert replayed is not None
    assert (replayed.clusters, replayed.decision, replayed.estimate, replayed.low, replayed.high) == tuple(
        live["stopped_at"][k] for k in ("clusters", "decision", "estimate", "low", "high")
    )
    assert shadow_plan is not None and replay(shadow.location, shadow_plan).stop == replay(normal.location, plan).stop

    paired = parse_plan(f"vs:{normal.location}", min_clusters=3)
    assert paired is not None
    other = run(tmp_path, paired, seed=1)
    live = stop_record(other)
    stop = replay(other.location, paired).stop
    assert (
        live["stopped_at"] is not None
        and stop is not None
        and stop.__dict__
        == live["stopped_at"]
        | {
            "samples_paid": stop.samples_paid  # the live count includes the samples in flight
        }
    )
    assert live["reference_headline"] == pytest.approx(metrics["overall"])

    assert main(["replay", other.location, normal.location, "--stop", "vs", "--min-clusters", "3"]) == 0

    # the report: the stopped run is marked, its headline is the rule's interval, and it is compared with no run
    runs, _ = load_runs(tmp_path, BENCHMARKS)
    by_log = {Path(r.log_path).name: r for r in runs}
    shown = by_log[Path(stopped.location).name]
    assert shown.stopped and shown.partial is not None and "stopped early" in shown.partial
    cell = estimate(shown, "overall")
    assert (cell.value, cell.interval) == (live_stop["estimate"], (live_stop["low"], live_stop["high"]))
    assert estimate(shown, "yaw").interval is None
    view = build_view(SURDS, runs)
    assert all(shown is not c.a and shown is not c.b for c in view.comparisons) and shown.label in view.flags
    printed = "\n".join(headline_lines(shown))
    assert "partial run: stopped early" in printed and "with probability >= 95%" in printed


def test_two_models_of_one_task_each_have_their_own_sequence(tmp_path: Path) -> None:
    """Inspect gives every model of `--model a,b` the same Task and manager; each run must still see only its own
    samples: its record equals that of the same model run alone."""
    plan = parse_plan("precision:0.2", min_clusters=3)
    assert plan is not None
    models = [get_model("chance/random", seed=seed, memoize=False) for seed in (1, 2)]
    together = inspect_eval(
        task_with_rule(plan), model=models, log_dir=str(tmp_path / "together"), max_tasks=2, **QUIET
    )  # at once
    alone = [
        inspect_eval(task_with_rule(plan), model=model, log_dir=str(tmp_path / "alone"), **QUIET)[0] for model in models
    ]
    trajectories = [[look["estimate"] for look in stop_record(log)["trajectory"]] for log in together]
    assert trajectories == [[look["estimate"] for look in stop_record(log)["trajectory"]] for log in alone]
