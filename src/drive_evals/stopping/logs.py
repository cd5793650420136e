"""Units of a finished run, read from its log's sample summaries (no transcripts or images are loaded)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog, read_eval_log, read_eval_log_sample_summaries

from drive_evals.errors import ParameterError
from drive_evals.stopping.statistic import HeadlineForm, Unit, unit_of


@dataclass(frozen=True)
class FinishedRun:
    header: EvalLog
    units: dict[str, Unit]
    """The units of the headline by sample id, in the log's order."""
    clusters: dict[str, str]
    """Every sample's cluster (units of the headline or not), for the committed order."""
    skipped: frozenset[str] = frozenset()
    """Samples a stop rule skipped (in `units` with no value when they count towards the headline)."""

    @property
    def task(self) -> str:
        return self.header.eval.task

    @property
    def version(self) -> Any:
        return self.header.eval.task_version


def read_run(path: str | Path, form: HeadlineForm) -> FinishedRun:
    """The run's units; a log that is not a finished run is an error naming it."""
    try:
        header = read_eval_log(str(path), header_only=True)
    except (OSError, ValueError) as error:
        raise ParameterError(f"{path}: not a readable Inspect log ({error})") from None
    if header.status != "success":
        raise ParameterError(f"{path}: the run did not finish (status {header.status})")
    if header.eval.config.epochs not in (None, 1):
        raise ParameterError(f"{path}: a run of {header.eval.config.epochs} epochs; stop rules need one")
    units: dict[str, Unit] = {}
    clusters: dict[str, str] = {}
    for sample in read_eval_log_sample_summaries(str(path)):
        metadata = sample.metadata or {}
        score = (sample.scores or {}).get(form.scorer)
        value = score.value if score is not None and isinstance(score.value, dict) else None
        if score is None and sample.error is None:
            continue  # skipped by an earlier stop rule, or never scored: not a unit of this run
        clusters[str(sample.id)] = str(metadata.get(form.cluster_key, sample.id))
        unit = unit_of(form, str(sample.id), metadata, value)
        if unit is not None:
            units[unit.id] = unit
    skipped: set[str] = set()
    stopping = header.results.early_stopping if header.results else None
    for stop in stopping.early_stops if stopping else []:
        meta = stop.metadata or {}
        skipped.add(str(stop.id))
        clusters[str(stop.id)] = str(meta.get("cluster", stop.id))
        if meta.get("counted"):
            units[str(stop.id)] = Unit(str(stop.id), clusters[str(stop.id)], str(meta.get("group", "")), None)
    return FinishedRun(header, units, clusters, frozenset(skipped))
