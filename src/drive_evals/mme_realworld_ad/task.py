"""`drive_evals/mme_realworld_ad`: MME-RealWorld's Autonomous_Driving domain (arXiv 2408.13257), AD perception and
AD reasoning scored as the official `eval_your_results.py` scores them, with a corrected reading beside."""

from __future__ import annotations

from dataclasses import replace
from typing import cast

from inspect_ai import Task
from inspect_ai.model import GenerateConfig

from drive_evals.kit import SampleColumns, SuiteArgs, SuiteTask, choice, make_task, open_data, suite_task
from drive_evals.mme_realworld_ad.dataset import load_ad
from drive_evals.mme_realworld_ad.metrics import CORRECTED_KEY, MISSING_UNIT_KEYS, OFFICIAL_KEY, PERCEPTION_METRIC
from drive_evals.mme_realworld_ad.prompts import PROMPTS, PromptVariant, check_prompt
from drive_evals.mme_realworld_ad.scorer import mme_realworld_ad_scorer
from drive_evals.mme_realworld_ad.sources import HUB_DEFAULTS, LAYOUTS, Layout
from drive_evals.mme_realworld_ad.taxonomy import EDITIONS, Edition, parse_subsets

TEMPERATURE = 0.0
"""Greedy, as lmms-eval (`mme_realworld.yaml`) and VLMEvalKit's API models; the paper states none."""
MAX_TOKENS = 64
"""The authors' LLaVA script's `max_new_tokens`; lmms-eval uses 16 (`--max-tokens 16` for parity)."""
MME_AD_TASK = SuiteTask("mme_realworld_ad", scorer=mme_realworld_ad_scorer)
TASK_VERSION = 1
"""Bumped by any change that can move a reported number; see CHANGELOG.md."""


@suite_task(MME_AD_TASK, data=HUB_DEFAULTS["en"])
def mme_realworld_ad(
    suite: SuiteArgs,
    edition: str = "en",
    subsets: str | list[str] | None = None,
    layout: str = "auto",
    prompt: str = "vlmevalkit",
) -> Task:
    """MME-RealWorld AD: 3,660 perception and 1,344 reasoning questions (EN), one driving image each.

    Args:
        data: A local copy (the official JSON with its images or tarball, the lmms-eval parquet, or VLMEvalKit's
            Base64 chunks or TSV), a Hugging Face id, or `demo`. Default: `yifanzhang114/MME-RealWorld`, for Lite
            `yifanzhang114/MME-RealWorld-Base64`.
        edition: `en` (default), `cn` (MME-RealWorld-CN, 700/800) or `lite` (350/400).
        subsets: Sub-categories, comma-separated or a list, in the official spellings (`Attribute_Motion_Pedestrain`)
            or corrected; `Perception`/`Reasoning` select a task's. Default all 15.
        layout: `auto` (the first form found: official, vlmevalkit, lmms_eval) or one of those.
        prompt: `vlmevalkit` (default; the authors' README format), `lmms_eval` or `llava_script`.
        shard: `i/n` runs part i of n (counted from 1), split by image; `drive-evals merge-shards` joins the logs.
    """
    chosen = cast(Edition, choice("edition", edition, EDITIONS))
    variant = cast(PromptVariant, choice("prompt", prompt, PROMPTS))
    check_prompt(variant, chosen == "cn")
    form, selected = cast(Layout, choice("layout", layout, LAYOUTS)), parse_subsets(subsets, chosen)
    if suite.data == HUB_DEFAULTS["en"]:  # the default source follows the edition (Lite has no official JSON)
        suite = replace(suite, data=HUB_DEFAULTS[chosen])
    built = load_ad(open_data(suite), chosen, selected, form, variant, suite.blind, suite.shard)
    return make_task(
        suite,
        dataset=built.dataset,
        version=TASK_VERSION,
        scorer=mme_realworld_ad_scorer(),
        config=GenerateConfig(temperature=TEMPERATURE, max_tokens=MAX_TOKENS),
        kept=MISSING_UNIT_KEYS,
        metadata=built.summary,
        data_warnings=built.warnings,
        headline=PERCEPTION_METRIC,
        columns=SampleColumns("MME-RealWorld AD questions", [OFFICIAL_KEY, CORRECTED_KEY]),
    )
