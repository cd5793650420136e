"""Which rules each benchmark's headline supports, read from what the benchmark declares (its headline unit metric).

- SURDS `overall`: the equal mean over subsets of unit scores, every unit counted (an errored one as 0): a sum over
  images with weights fixed by the planned units. Every rule holds, paired too.
- DriveLMM-o1 `reasoning_score`: the mean over the judged questions. Every rule holds; a question the judge could
  not score widens the interval by its weight (`statistic`), so `precision:W` is out of reach once the unjudged
  share exceeds 2W.
- DriveBench `gpt_score`: the equal mean over tasks of the officially scored questions' judge scores: as above; the
  benchmark says from the sample metadata which questions are officially scored (`Benchmark.stop_eligible`).
- VLADBench `total`: a ratio of sums with pair terms that no unit metric describes. It is nearly a sum over scenes
  with fixed weights, but its relation credit can exceed 1 (repeated ids count), so no scene has a bound: refused.

A headline is refused (one line, before any call) when it is not a declared unit metric, when it is a judge score
and the judge is off, and for epochs above 1 (Inspect starts epoch 2 of any sample only after epoch 1 of all, so
no cluster would complete before every cluster has started).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drive_evals.benchmark import JUDGE_ENABLED_KEY, Benchmark
from drive_evals.stopping.statistic import HeadlineForm


def headline_form(benchmark: Benchmark) -> HeadlineForm | str:
    """The headline's form, or the one-line reason no rule can hold for it."""
    metric = benchmark.unit_metric(benchmark.headline)
    if metric is None:
        return (
            f"{benchmark.title} `{benchmark.headline}` is not a mean over units (it is computed from the whole run), "
            "so no confidence sequence over its clusters is defined"
        )
    return HeadlineForm(
        scorer=benchmark.scorer,
        value_key=metric.value_key,
        cluster_key=benchmark.cluster_key,
        group_key=benchmark.group_key if metric.grouped or metric.subset else None,
        subset=metric.subset,
        counted_key=metric.counted_key,
        eligible=benchmark.stop_eligible,
        missing_values=benchmark.missing_values,
    )


def refusal(benchmark: Benchmark, task_metadata: Mapping[str, Any], epochs: int, live: bool) -> str | None:
    """Why no stopping rule holds for this run, or None."""
    form = headline_form(benchmark)
    if isinstance(form, str):
        return form
    metric = benchmark.unit_metric(benchmark.headline)
    judged = benchmark.judged or (metric is not None and metric.judged)
    if judged and task_metadata.get(JUDGE_ENABLED_KEY) is False:
        return f"{benchmark.title} `{benchmark.headline}` is a judge score and this run has the judge off"
    if epochs > 1:
        return (
            f"stop rules need --epochs 1 (this run has {epochs}): Inspect runs epoch 2 of every sample after epoch 1 "
            "of all, so no cluster would be complete before every cluster had started"
        )
    if live and form.counted_key is not None and form.eligible is None:  # a benchmark without `stop_eligible`
        return (
            f"{benchmark.title} counts a unit in `{benchmark.headline}` by its score (`{form.counted_key}`), so a live "
            "run cannot fix the weights before its first call; `drive-evals replay` can"
        )
    return None
