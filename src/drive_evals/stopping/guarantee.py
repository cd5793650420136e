"""What a run with a stop rule records (`results.early_stopping.metadata`) and the sentence that says what it
guarantees. The console headline, the report and `drive-evals replay` print from this record."""

from __future__ import annotations

from typing import Any

from pydantic import JsonValue

from drive_evals.stopping.rule import FULL, UNDECIDED
from drive_evals.stopping.tracker import Look, Stop, Tracker

IN_FLIGHT_LISTED = 50
"""Sample ids in flight at the stop listed in the log (all are counted)."""


def singular(cluster_key: str) -> str:
    """`frame`, `image_id` -> `frame`, `image`: what one of the run's clusters is called."""
    return cluster_key.removesuffix("_id")


def noun(cluster_key: str) -> str:
    """`frame` -> `frames`: what the run's clusters are called."""
    return f"{singular(cluster_key)}s"


def guarantee(alpha: float, seed: int, cluster_key: str, not_run: int, total: int) -> str:
    """The sentence under every stopped (or shadow) run."""
    clusters = noun(cluster_key)
    return (
        f"with probability >= {1 - alpha:.0%} over the random {singular(cluster_key)} order (seed {seed}), every "
        f"interval shown during this run contained the full-benchmark score; {not_run} of {total} {clusters} were "
        "not run"
    )


def agrees(plan_kind: str, stop: Stop, final: Look, final_decision: str | None) -> bool | None:
    """Whether the stop's decision matches the full run: for `precision`, the full run's value lies in the
    stop's interval; otherwise the full run supports the same decision. None when the full run decides nothing."""
    if plan_kind == "precision":
        return bool(stop.low <= final.estimate <= stop.high)
    if final_decision is None or final_decision in (UNDECIDED, FULL):
        return None
    return final_decision == stop.decision


def summary(
    tracker: Tracker,
    samples: int,
    started: int,
    skipped: int,
    in_flight: list[str],
    waiting_for: list[str],
    clipped: int,
    started_clusters: int,
) -> dict[str, JsonValue]:
    plan, population = tracker.plan, tracker.population
    stop = tracker.stop
    final = tracker.looks[-1] if tracker.looks else None
    not_run = population.size - started_clusters
    record: dict[str, Any] = {
        **plan.as_metadata(),
        "clusters": population.size,
        "cluster_key": population.cluster_key,
        "samples": samples,
        "samples_started": started,
        "samples_skipped": skipped,
        "clusters_not_run": not_run,
        "decision": stop.decision if stop else None,
        "stopped_at": None if stop is None else stop.__dict__,
        "in_flight_count": len(in_flight),
        "in_flight": in_flight[:IN_FLIGHT_LISTED],
        "waiting_for": waiting_for[:IN_FLIGHT_LISTED],
        "clipped_to_range": clipped,
        "final": None if final is None else final.__dict__,
        "reference_headline": population.reference_headline(),
        "guarantee": guarantee(plan.alpha, plan.seed, population.cluster_key, not_run, population.size),
        "trajectory": tracker.trajectory(),
    }
    if tracker.done and final is not None:
        final_decision = plan.decide(final.low, final.high, final.clusters, population.size)
        record["full_run_decision"] = final_decision
        record["agrees_with_full_run"] = None if stop is None else agrees(plan.kind, stop, final, final_decision)
    return record


def stop_note(record: dict[str, Any]) -> str:
    """One line on a run's stop rule for the report and the end-of-run headline."""
    at = record.get("stopped_at") or {}
    clusters = noun(str(record.get("cluster_key", "cluster")))
    where = f"after {at.get('clusters')} of {record.get('clusters')} {clusters}" if at else "no stop"
    if record.get("shadow"):
        agreement = {True: "agrees with", False: "DISAGREES with", None: "nothing to compare with"}
        said = agreement[record.get("agrees_with_full_run")]
        decision = record.get("decision")
        return f"shadow stop rule {record.get('rule')}: would have stopped {where} ({decision}); {said} the full run"
    rule, seed = record.get("rule"), record.get("seed")
    return f"stop rule {rule} (seed {seed}): {record.get('decision')} {where}; {record.get('guarantee')}"
