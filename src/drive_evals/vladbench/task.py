"""`drive_evals/vladbench`: VLADBench (arXiv 2503.21505, ICCV 2025), 28 driving-knowledge tasks scored by rules."""

from __future__ import annotations

from typing import cast

from inspect_ai import Task
from inspect_ai.model import GenerateConfig

from drive_evals.kit import SampleColumns, SuiteArgs, SuiteTask, choice, make_task, open_data, suite_task
from drive_evals.vladbench.dataset import load_vladbench
from drive_evals.vladbench.metrics import CORRECT_KEY, IOU_KEY, MISSING_UNIT_KEYS, OBEY_KEY, PAIRED_KEY, TOTAL
from drive_evals.vladbench.prompts import PROMPTS, PromptVariant
from drive_evals.vladbench.rules import BOX_FORMATS, OBEY_SEMICOLONS
from drive_evals.vladbench.scorer import vladbench_scorer
from drive_evals.vladbench.taxonomy import parse_tasks

HF_DATASET = "depth2world/VLADBench"
HF_REVISION = "1895f22252f9a702fed95334c8e3b60280b4c626"
"""The revision that uploaded `VLADBench.tsv` (commit `1895f22` "Upload VLADBench.tsv")."""
TEMPERATURE = 0.0
"""VLMEvalKit's and the authors' Qwen2-VL script decode greedily by default."""
MAX_TOKENS = 128
"""The authors' `max_new_tokens` (qwen2vl_all.py); every question asks for a short answer."""
VLADBENCH_TASK = SuiteTask("vladbench", scorer=vladbench_scorer)
TASK_VERSION = 3
"""Bumped by any change that can move a reported number; see CHANGELOG.md."""


@suite_task(VLADBENCH_TASK, data=HF_DATASET, revision=HF_REVISION)
def vladbench(
    suite: SuiteArgs,
    tasks: str | list[str] | None = None,
    box_format: str = "norm1000",
    obey_semicolons: str = "vlmevalkit",
    prompt: str = "vlmevalkit",
) -> Task:
    """VLADBench: 11,193 questions over 3,137 scenes in 28 tasks, scored as VLMEvalKit scores them.

    Args:
        data: `depth2world/VLADBench` (Hugging Face, default), a local directory holding `VLADBench.tsv` and the
            images (the dataset repository's layout; without the TSV, the authors' per-task annotation JSON), or
            `demo` (synthetic data shipped with the package).
        revision: Hub revision (default: the commit that uploaded the TSV); the resolved commit is logged.
        tasks: Task, aspect or domain names, as a list or comma-separated (default all 28); the official
            spellings (`Vehicle_Bahavior`) and the corrected ones are both accepted.
        box_format: How box answers are read: `norm1000` (VLMEvalKit's convention for the models it knows,
            [x1, y1, x2, y2] on a 0-1000 grid) or `pixel` (image pixels, as the question states the size).
        obey_semicolons: `vlmevalkit` (the default) or `strip`: the authors' obey check, which drops `;` from the
            question (options with `;` then count as followed).
        prompt: `vlmevalkit` (the question verbatim, after the images) or `authors` (the authors' Qwen2-VL script:
            the country sentence first, `;` dropped, boxes of box-to-class questions on the 0-1000 grid; needs
            the annotation JSON layout or a TSV `country` column). Frames are sent as images either way.
        blind: The no-vision control: every image replaced by uniform grey of the same size, same sample ids.
        shard: `i/n` runs part i of n (counted from 1), split by scene; `drive-evals merge-shards` joins the logs.
    """
    selected = parse_tasks(tasks)
    choice("box_format", box_format, BOX_FORMATS)
    choice("obey_semicolons", obey_semicolons, OBEY_SEMICOLONS)
    variant = cast(PromptVariant, choice("prompt", prompt, PROMPTS))
    built = load_vladbench(open_data(suite), selected, suite.blind, suite.shard, variant)
    return make_task(
        suite,
        dataset=built.dataset,
        version=TASK_VERSION,
        scorer=vladbench_scorer(box_format=box_format, obey_semicolons=obey_semicolons),
        config=GenerateConfig(temperature=TEMPERATURE, max_tokens=MAX_TOKENS),
        kept=MISSING_UNIT_KEYS,
        metadata=built.summary,
        headline=TOTAL,
        columns=SampleColumns("VLADBench questions", [CORRECT_KEY, OBEY_KEY], trailing=[IOU_KEY, PAIRED_KEY]),
    )
