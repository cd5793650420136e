"""`drive_evals/mme_realworld_ad`: MME-RealWorld's Autonomous_Driving domain (arXiv 2408.13257), AD perception and
AD reasoning scored as the official `eval_your_results.py` scores them, with a corrected reading beside."""

from __future__ import annotations

from typing import cast

from inspect_ai import Task, task
from inspect_ai.log import HeadlineMetric
from inspect_ai.model import GenerateConfig

from drive_evals.benchmark import SuiteTask
from drive_evals.data import open_snapshot
from drive_evals.endpoints import check_task_endpoints
from drive_evals.errors import route_errors_to_stderr
from drive_evals.mme_realworld_ad.dataset import load_ad
from drive_evals.mme_realworld_ad.metrics import CORRECTED_KEY, MISSING_UNIT_KEYS, OFFICIAL_KEY, PERCEPTION_METRIC
from drive_evals.mme_realworld_ad.prompts import PROMPTS, PromptVariant, check_prompt
from drive_evals.mme_realworld_ad.scorer import mme_realworld_ad_scorer
from drive_evals.mme_realworld_ad.sources import HUB_DEFAULTS, LAYOUTS, Layout
from drive_evals.mme_realworld_ad.taxonomy import EDITIONS, Edition, parse_subsets
from drive_evals.params import choice, flag, optional_text, reject_unknown
from drive_evals.replies import generate_raw_reply
from drive_evals.shard import parse_shard
from drive_evals.started_samples import StartedSamples, record_start
from drive_evals.suite import register
from drive_evals.truncation import enable_end_of_run_warnings
from drive_evals.unanswered import CALL_TIMEOUT_SECONDS
from drive_evals.viewer import replicate_tags, sample_list_view

TEMPERATURE = 0.0
"""Greedy, as lmms-eval (`mme_realworld.yaml`) and VLMEvalKit's API models; the paper states none."""
MAX_TOKENS = 64
"""The authors' LLaVA script's `max_new_tokens`; lmms-eval uses 16 (`-T`-free: pass `--max-tokens 16` for parity)."""
MME_AD_TASK = SuiteTask("mme_realworld_ad", scorer="mme_realworld_ad_scorer")
TASK_VERSION = 1
"""Bumped by any change that can move a reported number; see CHANGELOG.md."""


@register(MME_AD_TASK)
@task
def mme_realworld_ad(
    data: str | None = None,
    revision: str | None = None,
    edition: str = "en",
    subsets: str | list[str] | None = None,
    layout: str = "auto",
    prompt: str = "vlmevalkit",
    blind: bool = False,
    shard: str | None = None,
    **kwargs: object,
) -> Task:
    """MME-RealWorld AD: 3,660 perception and 1,344 reasoning questions (EN), one driving image each.

    Args:
        data: A local copy (the official JSON with its images or tarball, the lmms-eval parquet, or VLMEvalKit's
            Base64 chunks or TSV), a Hugging Face id, or `demo`. Default: `yifanzhang114/MME-RealWorld` (EN, CN)
            or `yifanzhang114/MME-RealWorld-Base64` (Lite).
        revision: Hub revision; the resolved commit is logged.
        edition: `en` (default), `cn` (MME-RealWorld-CN, 700/800) or `lite` (350/400).
        subsets: Sub-categories, comma-separated or a list, in the official spellings (`Attribute_Motion_Pedestrain`)
            or corrected; `Perception`/`Reasoning` select a task's. Default all 15.
        layout: `auto` (the first form found: official, vlmevalkit, lmms_eval) or one of those.
        prompt: `vlmevalkit` (default; the authors' README format), `lmms_eval` or `llava_script`.
        blind: The no-vision control: the image replaced by uniform grey of its size.
        shard: `i/n` runs part i of n (from 1), split by image.
    """
    route_errors_to_stderr()
    reject_unknown(mme_realworld_ad, kwargs)
    chosen = cast(Edition, choice("edition", edition, EDITIONS))
    variant = cast(PromptVariant, choice("prompt", prompt, PROMPTS))
    check_prompt(variant, chosen == "cn")
    form = cast(Layout, choice("layout", layout, LAYOUTS))
    selected, part = parse_subsets(subsets, chosen), parse_shard(shard)
    source = optional_text("data", data) or HUB_DEFAULTS[chosen]
    enable_end_of_run_warnings()
    snapshot = open_snapshot(source, "mme_realworld_ad", optional_text("revision", revision))
    built = load_ad(snapshot, chosen, selected, form, variant, flag("blind", blind), part)
    check_task_endpoints(model_under_test=True)
    return Task(
        dataset=built.dataset,
        version=TASK_VERSION,
        solver=[record_start(StartedSamples(kept=MISSING_UNIT_KEYS)), generate_raw_reply()],
        scorer=mme_realworld_ad_scorer(),
        config=GenerateConfig(temperature=TEMPERATURE, max_tokens=MAX_TOKENS, timeout=CALL_TIMEOUT_SECONDS),
        metadata={"benchmark": MME_AD_TASK.name, **built.summary},
        headline_metric=HeadlineMetric(scorer=MME_AD_TASK.scorer, metric=PERCEPTION_METRIC),
        tags=replicate_tags(),
        viewer=sample_list_view("MME-RealWorld AD questions", MME_AD_TASK.scorer, [OFFICIAL_KEY, CORRECTED_KEY]),
    )
