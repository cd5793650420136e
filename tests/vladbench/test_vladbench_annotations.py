"""The authors' layout (per-task annotation JSON) and the authors' prompt variant."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from inspect_ai.model import ContentText
from inspect_runs import eval_in_process, metrics

from drive_evals.data import LocalSnapshot, demo_dir
from drive_evals.data_warnings import DataWarnings
from drive_evals.errors import ParameterError
from drive_evals.vladbench.annotations import load_annotations
from drive_evals.vladbench.dataset import load_vladbench
from drive_evals.vladbench.prompts import authors_question, rescale_box_question
from drive_evals.vladbench.records import TSV_FILE, VladRecord, load_records
from drive_evals.vladbench.taxonomy import parse_tasks


def json_only(tmp_path: Path) -> Path:
    root = tmp_path / "vladbench"
    shutil.copytree(demo_dir("vladbench"), root)
    (root / TSV_FILE).unlink()
    return root


def test_the_annotation_json_holds_the_same_questions_as_the_tsv() -> None:
    root, tasks = demo_dir("vladbench"), parse_tasks(None)
    from_tsv = load_records(root / TSV_FILE, tasks, DataWarnings("t"))
    from_json = load_annotations(root, tasks, DataWarnings("t"))

    def key(r: VladRecord) -> tuple[str, str, str, str, tuple[str, ...], bool]:
        return (r.task, r.dindex, r.question, r.answer, r.images, r.sequence)

    assert sorted(map(key, from_json)) == sorted(map(key, from_tsv))
    assert all(r.country == "China" for r in from_json) and not any(r.country for r in from_tsv)


def test_a_folder_without_the_tsv_is_read_in_the_authors_layout(tmp_path: Path) -> None:
    built = load_vladbench(LocalSnapshot(json_only(tmp_path), "local"), parse_tasks("Light"), prompt="authors")
    assert built.summary["data"]["layout"] == "annotation JSON" and built.summary["prompt"] == "authors"
    first = built.dataset[0].input[0].content[-1]  # type: ignore[union-attr]
    assert isinstance(first, ContentText) and first.text.startswith("The image is from China. Based on the visual")


def test_authors_prompt_rewrites_box_questions_and_names_the_country() -> None:
    question = (
        "The width and height of the image are 1920 and 1020. What is the object located at the bounding box "
        "[1293, 0, 1916, 983] in the image? Options; here."
    )
    assert rescale_box_question(question) == (
        " What is the object located at the bounding box [673, 0, 997, 963] in the image? Options; here."
    )
    records = load_annotations(demo_dir("vladbench"), ["Risk_Prediction"], DataWarnings("t"))
    text = authors_question(records[1])
    assert text.startswith("The sequence is from China. Based on") and ";" not in text  # the option's `;` dropped


def test_authors_prompt_needs_the_country(tmp_path: Path) -> None:
    with pytest.raises(ParameterError, match="prompt=authors needs each question's country"):
        load_vladbench(LocalSnapshot(demo_dir("vladbench"), "demo"), parse_tasks("Light"), prompt="authors")


def test_authors_layout_end_to_end(tmp_path: Path) -> None:
    args = {"data": str(json_only(tmp_path)), "prompt": "authors", "obey_semicolons": "strip"}
    log = eval_in_process("drive_evals/vladbench", tmp_path / "logs", model="chance/random", task_args=args)
    assert 0.0 <= metrics(log, "vladbench_scorer")["total"] <= 1.0 and len(log.samples or []) == 61
