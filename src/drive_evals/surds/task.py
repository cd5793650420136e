"""`drive_evals/surds`: SURDS (arXiv 2411.13112), fine-grained spatial reasoning in nuScenes driving images."""

from __future__ import annotations

from inspect_ai import Task
from inspect_ai.model import GenerateConfig

from drive_evals.kit import SampleColumns, SuiteArgs, SuiteTask, choice, make_task, open_data, suite_task
from drive_evals.surds.dataset import RECORD_ORDERS, load_surds, parse_subsets
from drive_evals.surds.metrics import MISSING_UNIT_KEYS, OVERALL, SCORE_KEY, VALID_KEY
from drive_evals.surds.scorer import surds_scorer
from drive_evals.surds.solver import answer_each_prompt

HF_DATASET = "bonbon-rj/SURDS_eval"
"""The official evaluation set; `modelscope:evalscope/SURDS_eval` is its mirror."""

TEMPERATURE = 0.0
"""Neither the official code nor evalscope sets one; greedy decoding makes runs repeatable."""
MAX_TOKENS = 4096
"""Room for the `<think>` section the prompts ask for before the `<answer>` (official prompts: ~730 characters)."""

SURDS_TASK = SuiteTask("surds", scorer=surds_scorer)
TASK_VERSION = 5
"""Bumped by any change that can move a reported number; see CHANGELOG.md."""


@suite_task(SURDS_TASK, data=HF_DATASET)
def surds(suite: SuiteArgs, subsets: str | list[str] | None = None, record_order: str = "metadata") -> Task:
    """SURDS: 5,550 units (9,250 prompts) in six subsets, scored by the official rules.

    Args:
        data: `bonbon-rj/SURDS_eval` (Hugging Face, default), `modelscope:evalscope/SURDS_eval`, a local directory
            holding `validation/metadata.jsonl` and the images, or `demo` (synthetic data shipped with the package).
        revision: Hub revision (branch, tag or commit) to download; the resolved commit is recorded in the log.
        subsets: Subsets to run, as a list or comma-separated (default all six: yaw, xy2d, depth, distance,
            left_right, front_behind).
        record_order: `metadata` (line order of metadata.jsonl, evalscope parity) or `sorted` (by file name, the
            order of the official script's pinned `datasets` version). It decides which images are sampled.
            `sorted` also reads the file as that script does where evalscope differs: a repeated image keeps its
            last line, and a record with no objects stays in the single-object pool (docs/data-validation.md).
        blind: The no-vision control: every image replaced by uniform grey of the same size; the same sample ids,
            so a blind run pairs with a normal one (see README, Validity diagnostics).
        shard: `i/n` runs part i of n (counted from 1: `1/2` and `2/2`), split by image, to run n processes in
            parallel; `drive-evals merge-shards` joins their logs into one run (docs/performance.md, Shards).
    """
    selected = parse_subsets(subsets)
    choice("record_order", record_order, RECORD_ORDERS)
    built = load_surds(open_data(suite), selected, record_order, suite.blind, suite.shard)
    return make_task(
        suite,
        dataset=built.dataset,
        version=TASK_VERSION,
        solver=[answer_each_prompt()],
        generate=False,  # each unit's prompts are sent by `answer_each_prompt`
        scorer=surds_scorer(),
        config=GenerateConfig(temperature=TEMPERATURE, max_tokens=MAX_TOKENS),
        kept=MISSING_UNIT_KEYS,
        metadata=built.summary,
        headline=OVERALL,
        columns=SampleColumns("SURDS units", [SCORE_KEY, VALID_KEY]),
    )
