"""Which runs may be compared, their labels, and the paired comparisons between them.

Two runs are compared unit by unit only when they ran the same task version and read the same data, the same sample
set and the same task design (record order, subsets, image mode, judge...): otherwise a sample id can name a
different unit, or the score means something else. Runs outside the largest comparable group are flagged with what
differs.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from itertools import combinations

from drive_evals.benchmark import Benchmark, UnitMetric
from drive_evals.report.runs import GENERATE_PREFIX, SAMPLE_SET, Run, Unit, unit_credits, unit_value
from drive_evals.stats.clustered import equal_group_mean
from drive_evals.stats.paired import PairedDifference, holm_adjust, paired_difference, scaled_paired_difference

BLIND_SUFFIX = " [blind]"


@dataclass(frozen=True)
class Comparison:
    """A - B for one metric on the units both runs answered; `p_holm` is adjusted over the pairs of that metric."""

    a: Run
    b: Run
    metric: str
    mean_a: float
    mean_b: float
    result: PairedDifference
    p_holm: float = math.nan


@dataclass
class BenchmarkView:
    """Everything a benchmark's section shows, derived from its runs."""

    benchmark: Benchmark
    runs: list[Run]
    flags: dict[str, str]
    """Run label -> why it is not comparable with the main group."""
    differing: list[str]
    common: dict[str, str]
    comparisons: list[Comparison]
    blind_gaps: list[Comparison]
    notes: list[str] = field(default_factory=list)


def build_view(benchmark: Benchmark, runs: list[Run]) -> BenchmarkView:
    """Label the runs, group them by comparability, and compare every two comparable models and each blind run."""
    assign_labels(runs)
    normal = [run for run in runs if not run.blind and not run.stopped]  # a stopped run is not a full run
    groups: dict[tuple[tuple[str, str], ...], list[Run]] = defaultdict(list)
    for run in normal:
        groups[run.comparability_key()].append(run)
    main_key = max(groups, key=lambda key: (len(groups[key]), -min(runs.index(r) for r in groups[key])), default=())
    flags = {run.label: _difference(run, main_key) for run in runs if run.comparability_key() != main_key}
    settings = [run.settings() for run in runs]
    names = sorted({name for s in settings for name in s})
    differing = [name for name in names if len({s.get(name, "") for s in settings}) > 1]
    common = {name: settings[0][name] for name in names if name not in differing} if settings else {}
    view = BenchmarkView(benchmark, _ordered(benchmark, runs), flags, differing, common, [], [])
    for members in groups.values():
        for a, b in combinations(sorted(members, key=view.runs.index), 2):
            view.comparisons.extend(_compare(benchmark, a, b, view.notes))
    view.comparisons = _with_holm(view.comparisons)
    for blind in (run for run in runs if run.blind):
        partner = next((run for run in normal if _same_setup(run, blind)), None)
        if partner is None:
            view.notes.append(f"{blind.label}: no normal run of the same model and settings to compare with.")
            continue
        view.blind_gaps.extend(_compare(benchmark, partner, blind, view.notes))
    view.blind_gaps = _with_holm(view.blind_gaps)
    return view


def assign_labels(runs: list[Run]) -> None:
    """The model name, plus just enough of what differs (model args, then settings, then the log id) to tell apart
    runs of the same model."""
    by_base: dict[str, list[Run]] = defaultdict(list)
    for run in runs:
        by_base[run.model + (BLIND_SUFFIX if run.blind else "")].append(run)
    for base, members in by_base.items():
        details = [_identity(run) for run in members]
        chosen: list[str] = []
        for key in dict.fromkeys(key for detail in details for key in detail):
            if len({_label(base, detail, chosen) for detail in details}) == len(members):
                break
            if len({detail.get(key) for detail in details}) > 1:
                chosen.append(key)
        labels = [_label(base, detail, chosen) for detail in details]
        seen: dict[str, int] = defaultdict(int)
        for run, text in zip(members, labels, strict=True):
            seen[text] += 1
            run.label = text if labels.count(text) == 1 else _replicate(text, seen[text])


def _replicate(text: str, number: int) -> str:
    """Identical runs (same model, args and settings) numbered in the order they were made: `m (run 2)`, or
    `m (seed=1, run 2)`; the Runs table maps each to its log."""
    return f"{text[:-1]}, run {number})" if text.endswith(")") else f"{text} (run {number})"


def _label(base: str, detail: dict[str, str], keys: list[str]) -> str:
    shown = ", ".join(f"{key}={detail.get(key, '-')}" for key in keys)
    return f"{base} ({shown})" if shown else base


def _identity(run: Run) -> dict[str, str]:
    """What can tell two runs of one model apart, most telling first; the sample-set hash last (least readable)."""
    settings = run.settings()
    sample_set = settings.pop(SAMPLE_SET)
    generation = {key: value for key, value in settings.items() if key.startswith(GENERATE_PREFIX)}
    model = {key: str(value) for key, value in sorted(run.model_args.items())}
    return {**model, **generation, **settings, SAMPLE_SET: sample_set}


def _same_setup(normal: Run, blind: Run) -> bool:
    return (normal.model, normal.model_args, normal.generate) == (blind.model, blind.model_args, blind.generate) and (
        normal.comparability_key() == blind.comparability_key()
    )


def _difference(run: Run, main_key: tuple[tuple[str, str], ...]) -> str:
    main = dict(main_key)
    differences = [(name, value) for name, value in run.comparability_key() if value != main.get(name)]
    return "; ".join(f"{name}={value} (main group: {main.get(name, '-')})" for name, value in differences)


def _ordered(benchmark: Benchmark, runs: list[Run]) -> list[Run]:
    """Normal runs by headline score (best first), each blind run right after its normal run."""

    def headline(run: Run) -> float:
        value = run.metrics.get(benchmark.headline, math.nan)
        return -math.inf if math.isnan(value) else value

    ordered = sorted((run for run in runs if not run.blind), key=lambda run: (-headline(run), run.label))
    for blind in sorted((run for run in runs if run.blind), key=lambda run: run.label):
        partner = next((i for i, run in enumerate(ordered) if _same_setup(run, blind)), len(ordered) - 1)
        ordered.insert(partner + 1, blind)
    return ordered


def _compare(benchmark: Benchmark, a: Run, b: Run, notes: list[str]) -> list[Comparison]:
    comparisons = []
    for name in benchmark.paired:
        if benchmark.credit_metric(name) is not None:
            comparisons.extend(_compare_credits(a, b, name))
            continue
        metric = benchmark.unit_metric(name)
        assert metric is not None, name
        values_a, values_b, clusters, groups, mismatched = paired_units(a, b, metric)
        if mismatched:
            notes.append(f"{a.label} vs {b.label}: {mismatched} unit(s) share an id but not an image/frame; excluded.")
        if not values_a:
            continue
        if not all(0.0 <= value <= 1.0 for value in values_a + values_b):  # no paired test holds outside [0, 1]
            notes.append(f"{a.label} vs {b.label}: {name} not compared: a unit value lies outside [0, 1] (a judge's "
                         "out-of-scale rating counted as given).")  # fmt: skip
            continue
        result = paired_difference(values_a, values_b, clusters, groups if metric.grouped else None)
        mean_a = equal_group_mean(values_a, groups if metric.grouped else [""] * len(groups), clusters).overall
        mean_b = equal_group_mean(values_b, groups if metric.grouped else [""] * len(groups), clusters).overall
        comparisons.append(Comparison(a, b, name, mean_a, mean_b, result))
    return comparisons


def _compare_credits(a: Run, b: Run, name: str) -> list[Comparison]:
    """A - B of a credit metric on the units both runs credited, in the same cluster: the paired test on the credits
    over their largest bound (none where either run's credits do not reproduce its logged value)."""
    credits_a, credits_b = unit_credits(a, name), unit_credits(b, name)
    if credits_a is None or credits_b is None:
        return []
    common = [i for i in sorted(credits_a.keys() & credits_b.keys()) if a.units[i].cluster == b.units[i].cluster]
    if not common:
        return []
    values_a, values_b = [credits_a[i][0] for i in common], [credits_b[i][0] for i in common]
    scale = max(max(credits_a[i][1], credits_b[i][1]) for i in common)
    result = scaled_paired_difference(values_a, values_b, [a.units[i].cluster for i in common], scale)
    return [Comparison(a, b, name, sum(values_a) / len(common), sum(values_b) / len(common), result)]


def paired_units(
    a: Run, b: Run, metric: UnitMetric, where: Callable[[Unit], bool] | None = None
) -> tuple[list[float], list[float], list[str], list[str], int]:
    """Values of both runs on the units both answered (by sample id, same cluster), with clusters and groups;
    `where` keeps only the units (of run A) it accepts (one breakdown level)."""
    values_a: list[float] = []
    values_b: list[float] = []
    clusters: list[str] = []
    groups: list[str] = []
    mismatched = 0
    for sample_id in sorted(set(a.units) & set(b.units)):
        unit_a, unit_b = a.units[sample_id], b.units[sample_id]
        if where is not None and not where(unit_a):
            continue
        value_a, value_b = unit_value(unit_a, metric), unit_value(unit_b, metric)
        if value_a is None or value_b is None:
            continue
        if (unit_a.cluster, unit_a.group) != (unit_b.cluster, unit_b.group):
            mismatched += 1
            continue
        values_a.append(value_a)
        values_b.append(value_b)
        clusters.append(unit_a.cluster)
        groups.append(unit_a.group)
    return values_a, values_b, clusters, groups, mismatched


def _with_holm(comparisons: list[Comparison]) -> list[Comparison]:
    by_metric: dict[str, list[int]] = defaultdict(list)
    for index, comparison in enumerate(comparisons):
        by_metric[comparison.metric].append(index)
    adjusted = list(comparisons)
    for indices in by_metric.values():
        for index, p in zip(indices, holm_adjust([comparisons[i].result.p_value for i in indices]), strict=True):
            adjusted[index] = replace(comparisons[index], p_holm=p)
    return adjusted
