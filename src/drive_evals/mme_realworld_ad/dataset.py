"""MME-RealWorld AD data -> checked items -> Inspect samples (one per question, the image then the prompt text).

Every problem of the data (a missing field, an image that is absent or unreadable, a repeated id) is collected in
one pass over all items and raised together before any model call; what the official script tolerates is a
warning in the log (`records.check_item`, counts that differ from the paper's).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText
from PIL import Image, UnidentifiedImageError

from drive_evals.data import LocalSnapshot
from drive_evals.kit import (
    BLIND_IMAGE_DESCRIPTION,
    DataValidationError,
    DataWarnings,
    Shard,
    Snapshot,
    blind_sample,
    spread_samples,
)
from drive_evals.mme_realworld_ad.prompts import PromptVariant, prompt_text
from drive_evals.mme_realworld_ad.records import AdItem, ImageCache, Problems, check_item
from drive_evals.mme_realworld_ad.sources import Layout, find_form, hub_files, official_images, read_form
from drive_evals.mme_realworld_ad.taxonomy import SUBCATEGORIES, TASKS, Edition, expected_counts
from drive_evals.shard import SHARD_KEY

TASK_KEY, L2_KEY, IMAGE_KEY, CHOICES_KEY = "task", "l2", "image", "choices"
PLANNED_KEY = "subsets"
SHOWN_PROBLEMS = 20


@dataclass(frozen=True)
class AdData:
    dataset: MemoryDataset
    summary: dict[str, Any]
    warnings: DataWarnings


def item_to_sample(item: AdItem, image: Path, prompt: PromptVariant, edition: Edition) -> Sample:
    return Sample(
        id=item.id,
        input=[
            ChatMessageUser(
                content=[
                    ContentImage(image=str(image)),
                    ContentText(text=prompt_text(item.question, item.options, prompt, chinese=edition == "cn")),
                ]
            )
        ],
        target=item.answer,
        metadata={
            TASK_KEY: item.task,
            L2_KEY: item.l2,
            IMAGE_KEY: item.cluster,
            CHOICES_KEY: list(item.options),
            "question": item.question,
            "edition": edition,
        },
    )


def _image_problem(path: Path | None) -> str | None:
    if path is None:
        return "outside the data directory or not found (nor in the image archive)"
    try:
        with Image.open(path) as image:
            image.size  # noqa: B018 - the header read is the check
    except FileNotFoundError:
        return f"not found at {path}"
    except (UnidentifiedImageError, OSError) as error:
        return f"not a readable image ({error})"
    return None


def select(items: Sequence[AdItem], subsets: Sequence[str], edition: Edition, problems: Problems) -> list[AdItem]:
    """The items of the chosen sub-categories; with all chosen, an unknown sub-category or task is kept, warned."""
    known = {s.name for s in SUBCATEGORIES[edition]}
    everything = set(subsets) == known
    kept = []
    for item in items:
        if item.task not in TASKS or item.l2 not in known:
            problems.warnings.add("unknown_subcategory", "kept in a full run, scored in no perception/reasoning number"
                                  if item.task not in TASKS else "kept in a full run under its task",
                                  f"{item.where}: {item.task}/{item.l2}")  # fmt: skip
            if everything:
                kept.append(item)
        elif item.l2 in subsets:
            kept.append(item)
    return kept


def _check_counts(items: Sequence[AdItem], edition: Edition, warnings: DataWarnings) -> None:
    found = Counter(item.task for item in items)
    for task, expected in expected_counts(edition).items():
        if found[task] != expected:
            warnings.add("count_differs", "the paper's set has another size: numbers may not compare with it",
                         f"{task}: {found[task]} items, the {edition} set has {expected}")  # fmt: skip


def load_ad(
    snapshot: Snapshot,
    edition: Edition,
    subsets: Sequence[str],
    layout: Layout = "auto",
    prompt: PromptVariant = "vlmevalkit",
    blind: bool = False,
    shard: Shard | None = None,
    images: ImageCache | None = None,
) -> AdData:
    """The samples of the selected sub-categories, every data problem raised at once before any call."""
    warnings = DataWarnings("MME-RealWorld AD")
    problems = Problems(warnings)
    if not isinstance(snapshot, LocalSnapshot):
        snapshot.fetch(hub_files(edition))
    found = find_form(snapshot.root, edition, layout)
    if found is None:
        raise DataValidationError(str(snapshot.root), [f"no {edition} data in the {layout} layout here (see "
                                  "docs/mme_realworld_ad.md for the files each form holds)"])  # fmt: skip
    snapshot.fetch([str(path.relative_to(snapshot.root)) for path in found.files])  # listed for the manifest check
    selected = select(read_form(found, problems, images or ImageCache()), subsets, edition, problems)
    if found.layout == "official":  # only the selected items' images are extracted from the tarball
        paths = official_images(snapshot, selected, edition)
        image_of = {item.id: paths.get(item.image) for item in selected}
    else:
        image_of = {item.id: Path(item.image) if item.image else None for item in selected}
    for item in selected:
        check_item(item, problems)
    for key, count in Counter(item.id for item in selected).items():
        if count > 1:
            problems.error(key, "this id is used by more than one item")
    checked: dict[Path | None, str | None] = {}
    for item in selected:
        path = image_of.get(item.id)
        if path not in checked:
            checked[path] = _image_problem(path)
        problem = checked[path]
        if problem and item.image:
            problems.error(item.where, f"image {item.image[:80]!r}: {problem}")
    if problems.errors:
        raise DataValidationError(str(found.files[0]), problems.errors, limit=SHOWN_PROBLEMS)
    if set(subsets) == {s.name for s in SUBCATEGORIES[edition]}:
        _check_counts(selected, edition, warnings)
    clusters = shard.clusters((item.cluster for item in selected), "images") if shard else None
    kept = [item for item in selected if clusters is None or item.cluster in clusters]
    samples = [item_to_sample(item, image_of[item.id], prompt, edition) for item in kept]  # type: ignore[arg-type]
    if blind:
        samples = [blind_sample(sample) for sample in samples]
    samples = spread_samples(samples, L2_KEY, IMAGE_KEY)  # `--limit N`: every sub-category, distinct images first
    summary = {
        "items": {task: sum(1 for i in selected if i.task == task) for task in TASKS},
        "subcategories": {name: sum(1 for i in selected if i.l2 == name) for name in subsets},
        "images": len({item.cluster for item in selected}),
        PLANNED_KEY: list(subsets),
        "edition": edition,
        "data": {**snapshot.provenance(), "layout": found.layout, "files": [p.name for p in found.files]},
        "prompt": prompt,
        "blind": blind,
        "blind_image": BLIND_IMAGE_DESCRIPTION if blind else None,
        SHARD_KEY: str(shard) if shard else None,
    }
    return AdData(MemoryDataset(samples, name="mme_realworld_ad", shuffled=False), summary, warnings)
