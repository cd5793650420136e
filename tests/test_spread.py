"""`--limit N` is a fair small run: the first N samples cover every SURDS subset and many images, DriveLMM-o1 both
question kinds and many frames; the order changes no sample id.

Before (main at 2c3e92f): SURDS `--limit 12` ran yaw units only (`overall` then printed as 0.000 with a 0.000
stderr), DriveLMM-o1 `--limit 8` one frame."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from inspect_runs import eval_in_process

from drive_evals.drivelmm_o1.task import drivelmm_o1
from drive_evals.spread import spread
from drive_evals.surds.task import surds
from drive_evals.surds.units import SUBSETS


def test_surds_limit_covers_every_subset_and_distinct_images(tmp_path: Path) -> None:
    log = eval_in_process("drive_evals/surds", tmp_path, model="chance/random", task_args={"data": "demo"}, limit=12)
    samples = log.samples or []
    assert {s.metadata["subset"] for s in samples} == set(SUBSETS)
    assert len({s.metadata["image"] for s in samples}) >= 6
    assert {str(s.id) for s in surds(data="demo").dataset} >= {str(s.id) for s in samples}


def test_drivelmm_o1_limit_spans_frames_and_both_kinds(tmp_path: Path) -> None:
    dataset = list(drivelmm_o1(data="demo", judge=False).dataset)
    first = dataset[:8]
    frames = {s.metadata["frame"] for s in dataset if s.metadata}
    assert {s.metadata["frame"] for s in first if s.metadata} == frames, "the demo's three frames"
    assert {s.metadata["mcq"] for s in first if s.metadata} == {True, False}


def test_ids_are_the_same_set_as_before() -> None:
    """Reordering only: the demo's ids, in the loader's old order (by subset, then unit number), are all there."""
    ids = [str(s.id) for s in surds(data="demo").dataset]
    assert len(ids) == len(set(ids))
    by_subset = sorted(ids, key=lambda i: (SUBSETS.index(i.split("-")[1]), i))
    assert [i for i in by_subset if "-yaw-" in i] == sorted(i for i in ids if "-yaw-" in i)


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 5)), max_size=60))
def test_spread_is_a_permutation_that_rotates_groups(items: list[tuple[int, int]]) -> None:
    labelled = [(*item, n) for n, item in enumerate(items)]
    ordered = spread(labelled, group=lambda x: x[0], cluster=lambda x: x[1])
    assert sorted(ordered) == sorted(labelled)
    groups = list(dict.fromkeys(x[0] for x in labelled))
    prefix = ordered[: len(groups)]
    assert {x[0] for x in prefix} == set(groups), "the first len(groups) items hold one of each group"
