"""The judge meta-evaluation's samples: which records, one sample per variant, everything the judge call needs."""

from __future__ import annotations

import pytest

from drive_evals.data import demo_dir
from drive_evals.drivelmm_o1.judge_meta.degrade import VARIANT_NAMES
from drive_evals.drivelmm_o1.judge_meta.task import select_records, variant_samples
from drive_evals.drivelmm_o1.records import TEST_FILE, load_records
from drive_evals.errors import ParameterError

RECORDS = load_records(demo_dir("drivelmm_o1") / TEST_FILE)


def test_records_are_spread_evenly_in_file_order() -> None:
    chosen = select_records(RECORDS, 4)
    assert [r.position for r in chosen] == [0, 6, 12, 18]
    assert select_records(RECORDS, 1000) == RECORDS
    with pytest.raises(ParameterError, match="records=0"):
        select_records(RECORDS, 0)


def test_one_sample_per_variant_with_what_the_judge_needs() -> None:
    record = RECORDS[1]
    samples = variant_samples(record)
    assert [s.id for s in samples] == [f"judge-0001-{name}" for name in VARIANT_NAMES]
    for sample in samples:
        meta = sample.metadata or {}
        assert sample.input == record.question.strip() == meta["question"]
        assert (meta["steps"], meta["final_answer"], meta["idx"]) == (record.steps, record.final_answer, record.idx)
        assert meta["response"] and meta["variant"] in VARIANT_NAMES
    reference = samples[0].metadata or {}
    assert reference["level"] == 0 and reference["requested_score"] is None
