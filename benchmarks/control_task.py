"""A control for the CPU benchmarks: the least an Inspect task can do with one image per sample.

One user message (a 1600x900 image and a short question) per sample, one `generate()`, and a scorer that only
reads the completion. What such a run costs a request is Inspect's (and the provider SDK's) share; what a
drive_evals run costs above it is ours. Knobs, one at a time, for the candidates of `bench_request_cpu.py`:
`score_keys` (the scorer reports a dict of that many values, each with `mean` and `stderr`: 2 x score_keys live
metrics; a SURDS log has 54), `score_metadata_kb` and `sample_metadata_kb` (padding in `Score.metadata` and in
each sample's metadata).

Run: `inspect eval benchmarks/control_task.py@control -T images=DIR --model ...`.
"""

from __future__ import annotations

from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState, generate

QUESTION = "Is there a car in this image? Answer yes or no."
IMAGE_SUFFIXES = (".webp", ".jpg", ".jpeg", ".png")
KB = 1024


def _images(directory: Path, count: int) -> list[Path]:
    found = sorted(path for path in directory.rglob("*") if path.suffix.lower() in IMAGE_SUFFIXES)
    if len(found) < count:
        raise ValueError(f"images={directory}: {len(found)} images, {count} samples asked for")
    return found[:count]


@scorer(metrics=[{"*": [mean(), stderr()]}])  # each key of the dict value gets both
def reads_completion(keys: int, metadata_kb: int) -> Scorer:
    """1 for every key when the completion is not empty: the cheapest scorer that looks at the answer."""
    padding = "x" * (metadata_kb * KB)

    async def score(state: TaskState, target: Target) -> Score:
        value = float(bool(state.output.completion))
        values = {f"key{i}": value for i in range(keys)}
        return Score(value=values, metadata={"padding": padding} if padding else None)

    return score


@task
def control(
    images: str, samples: int = 1000, score_keys: int = 1, score_metadata_kb: int = 0, sample_metadata_kb: int = 0
) -> Task:
    """`samples` samples of one image each (the first files under `images`, in name order)."""
    padding = "x" * (sample_metadata_kb * KB)
    dataset = MemoryDataset(
        [
            Sample(
                id=f"control-{index:05d}",
                input=[ChatMessageUser(content=[ContentImage(image=str(path)), ContentText(text=QUESTION)])],
                target="yes",
                metadata={"image": path.name, **({"padding": padding} if padding else {})},
            )
            for index, path in enumerate(_images(Path(images), samples))
        ]
    )
    return Task(dataset=dataset, solver=generate(), scorer=reads_completion(score_keys, score_metadata_kb))
