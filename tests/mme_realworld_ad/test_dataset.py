"""The hosted forms read alike, every data problem is named in one pass, and the demo is what the generator writes."""

from __future__ import annotations

import filecmp
import json
import shutil
import tarfile
from pathlib import Path

import pytest

from drive_evals.data import LocalSnapshot, demo_dir
from drive_evals.errors import DataValidationError, ParameterError
from drive_evals.mme_realworld_ad.dataset import CHOICES_KEY, IMAGE_KEY, L2_KEY, TASK_KEY, load_ad
from drive_evals.mme_realworld_ad.demo import write_demo
from drive_evals.mme_realworld_ad.records import ImageCache
from drive_evals.mme_realworld_ad.taxonomy import SUBCATEGORIES, parse_subsets

DEMO = demo_dir("mme_realworld_ad")
FORMS = {"en": ("official", "vlmevalkit", "lmms_eval"), "cn": ("official", "vlmevalkit", "lmms_eval"),
         "lite": ("vlmevalkit", "lmms_eval")}  # fmt: skip


def _load(root: Path, edition: str = "en", layout: str = "auto", cache: Path | None = None, **kw: object):  # type: ignore[no-untyped-def]
    images = ImageCache(cache) if cache else None
    return load_ad(LocalSnapshot(root, "local"), edition, parse_subsets(kw.pop("subsets", None), edition),  # type: ignore[arg-type]
                   layout, images=images, **kw)  # type: ignore[arg-type]  # fmt: skip


def _content(data) -> list[tuple[object, ...]]:  # type: ignore[no-untyped-def]
    rows = []
    for sample in data.dataset:
        image, text = sample.input[0].content
        rows.append((sample.metadata[TASK_KEY], sample.metadata[L2_KEY], text.text, sample.target,
                     tuple(sample.metadata[CHOICES_KEY]), Path(image.image).read_bytes()))  # fmt: skip
    return sorted(rows)


@pytest.mark.parametrize("edition", list(FORMS))
def test_every_hosted_form_gives_the_same_questions_and_the_same_image_bytes(edition: str, tmp_path: Path) -> None:
    readings = {layout: _content(_load(DEMO, edition, layout, tmp_path)) for layout in FORMS[edition]}
    first = next(iter(readings.values()))
    assert len(first) == {"en": 30, "cn": 15, "lite": 15}[edition]
    assert all(reading == first for reading in readings.values())
    names = {s.name for s in SUBCATEGORIES[edition]}  # type: ignore[index]
    assert {row[1] for row in first} == names  # every sub-category, no other


def test_other_domains_are_skipped_and_ids_follow_the_official_question_ids(tmp_path: Path) -> None:
    data = _load(DEMO, "en", "official", tmp_path)
    ids = [str(sample.id) for sample in data.dataset]
    assert all(i.split("/")[1] == "Autonomous_Driving" for i in ids)
    assert data.summary["items"] == {"Perception": 14, "Reasoning": 16}
    assert data.summary["images"] < len(ids)  # questions share images: clusters are images, not questions
    assert data.warnings.count("count_differs") == 2  # 14 and 16, not 3660 and 1344


def test_subsets_take_official_and_corrected_spellings_and_task_names(tmp_path: Path) -> None:
    assert parse_subsets("Attribute_Motion_Pedestrain", "en") == ("Attribute_Motion_Pedestrain",)
    assert parse_subsets("attribute_motion_pedestrian", "en") == ("Attribute_Motion_Pedestrain",)
    assert parse_subsets(["Attribute_Motion_Pedestrain"], "cn") == ("Attribute_Motion_Pedestrian",)
    assert len(parse_subsets("Reasoning", "lite")) == 8
    with pytest.raises(ParameterError, match="Objects_Identfy"):
        parse_subsets("Objects_Identfy", "en")
    data = _load(DEMO, "en", "official", tmp_path, subsets="Object_Count,Relation_Interaction_Ego2Pedestrain")
    assert {s.metadata[L2_KEY] for s in data.dataset} == {"Object_Count", "Relation_Interaction_Ego2Pedestrain"}
    assert not data.warnings.count("count_differs")  # a selection is not the full set


def _official_copy(tmp_path: Path) -> tuple[Path, list[dict[str, object]]]:
    root = tmp_path / "copy"
    shutil.copytree(DEMO / "AutonomousDriving", root / "AutonomousDriving")
    records = json.loads((DEMO / "MME_RealWorld.json").read_text(encoding="utf-8"))
    return root, records


def _write(root: Path, records: list[dict[str, object]]) -> None:
    (root / "MME_RealWorld.json").write_text(json.dumps(records), encoding="utf-8")


def test_every_data_problem_is_named_in_one_error(tmp_path: Path) -> None:
    root, records = _official_copy(tmp_path)
    del records[0]["Text"]
    records[1]["Answer choices"] = "not a list"
    (root / str(records[2]["Image"])).write_bytes(b"not an image")
    records[3]["Image"] = "AutonomousDriving/nuScenes/missing.jpg"
    records[5]["Question_id"] = records[4]["Question_id"]
    _write(root, records)
    with pytest.raises(DataValidationError) as caught:
        _load(root, cache=tmp_path / "c")
    message = str(caught.value)
    assert "5 problem(s)" in message
    for needle in ("'Text' missing", "options missing", "not a readable image", "missing.jpg", "more than one item"):
        assert needle in message


def test_what_the_official_script_tolerates_is_a_warning_not_a_refusal(tmp_path: Path) -> None:
    root, records = _official_copy(tmp_path)
    records[0]["Ground truth"] = "F"
    records[1]["Answer choices"] = list(records[1]["Answer choices"])[:4]  # type: ignore[call-overload]
    records[2]["Answer choices"] = ["A " + str(o)[4:] for o in records[2]["Answer choices"]]  # type: ignore[attr-defined]
    _write(root, records)
    warnings = _load(root, cache=tmp_path / "c").warnings.summary()
    assert {"answer_not_a_letter", "not_five_options", "option_label"} <= set(warnings)


def test_images_are_extracted_from_the_official_tarball_byte_for_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DRIVE_EVALS_CACHE", str(tmp_path / "cache"))
    root = tmp_path / "hub"
    root.mkdir()
    shutil.copy(DEMO / "MME_RealWorld.json", root)
    with tarfile.open(root / "AutonomousDriving.tar.gz", "w:gz") as tar:
        tar.add(DEMO / "AutonomousDriving", arcname="./AutonomousDriving")
    data = _load(root)
    assert _content(data) == _content(_load(DEMO, cache=tmp_path / "c"))
    assert all("extracted" in sample.input[0].content[0].image for sample in data.dataset)


def test_a_localized_vlmevalkit_tsv_is_refused_for_its_reencoded_images(tmp_path: Path) -> None:
    (tmp_path / "mme_realworld_lite.tsv").write_text("index\timage_path\tquestion\n1\tx.jpg\tq\n", encoding="utf-8")
    with pytest.raises(DataValidationError, match="re-encoded"):
        _load(tmp_path, "lite", cache=tmp_path / "c")


def test_the_generated_tsv_form_with_its_choices_header_reads_like_the_list_form(tmp_path: Path) -> None:
    lines = (DEMO / "mme_realworld_lite.tsv").read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    column = header.index("multi-choice options")
    out = [lines[0]]
    for line in lines[1:]:
        cells = line.split("\t")
        options = eval(cells[column])
        cells[column] = '"' + "The choices are listed below:\n" + "\n".join(options) + '"'
        out.append("\t".join(cells))
    (tmp_path / "mme_realworld_lite.tsv").write_text("\n".join(out) + "\n", encoding="utf-8")
    assert _content(_load(tmp_path, "lite", cache=tmp_path / "c")) == _content(
        _load(DEMO, "lite", cache=tmp_path / "c")
    )


def test_the_shipped_demo_is_what_the_generator_writes(tmp_path: Path) -> None:
    write_demo(tmp_path)
    shipped = sorted(p.relative_to(DEMO) for p in DEMO.rglob("*") if p.is_file())
    assert shipped == sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert all(filecmp.cmp(DEMO / p, tmp_path / p, shallow=False) for p in shipped)


def test_shards_split_by_image(tmp_path: Path) -> None:
    from drive_evals.shard import Shard

    parts = [_load(DEMO, cache=tmp_path / "c", shard=Shard(i, 3)) for i in (1, 2, 3)]
    images = [{s.metadata[IMAGE_KEY] for s in part.dataset} for part in parts]
    assert sum(len(part.dataset) for part in parts) == 30
    assert not (images[0] & images[1]) and not (images[1] & images[2]) and not (images[0] & images[2])


def test_a_manifest_catches_a_changed_image_before_any_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from drive_evals.manifest import write_manifest
    from drive_evals.mme_realworld_ad.task import mme_realworld_ad

    monkeypatch.setenv("DRIVE_EVALS_CACHE", str(tmp_path / "cache"))
    root, records = _official_copy(tmp_path)
    _write(root, records)
    write_manifest(root)
    assert len(mme_realworld_ad(data=str(root)).dataset) == 30  # the manifest holds: the task builds
    image = root / str(records[0]["Image"])
    image.write_bytes(image.read_bytes()[:-10] + b"\x00" * 10)  # still a readable JPEG header, other bytes
    with pytest.raises(DataValidationError, match=str(records[0]["Image"]).split("/")[-1]):
        mme_realworld_ad(data=str(root))
