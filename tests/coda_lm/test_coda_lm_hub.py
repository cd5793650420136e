"""The real hubs (skipped offline): the Test annotations are 500 files with 1,123 regions, all filled; the
llava-format Test parquet gives the same 2,123 items. Run with DRIVE_EVALS_NETWORK_TESTS=1 and CODA2022_ROOT set."""

from __future__ import annotations

import os

import pytest

from drive_evals.coda_lm.dataset import annotation_files
from drive_evals.coda_lm.prompts import TASKS
from drive_evals.coda_lm.records import parse_record
from drive_evals.data import open_snapshot, read_json
from drive_evals.data_warnings import DataWarnings

NETWORK = pytest.mark.skipif(
    not os.environ.get("DRIVE_EVALS_NETWORK_TESTS"), reason="set DRIVE_EVALS_NETWORK_TESTS=1 to reach the real hub"
)


@pytest.mark.network
@NETWORK
def test_real_test_annotations() -> None:
    snapshot = open_snapshot("KaiChen1998/coda-lm", "coda_lm")
    root, names = annotation_files(snapshot, "KaiChen1998/coda-lm", None, "Test")
    provenance = snapshot.provenance()
    problems: list[str] = []
    warnings = DataWarnings("CODA-LM")
    records = [parse_record(n, read_json(root / n), list(TASKS), problems, warnings) for n in names]
    assert not problems and len(names) == 500 and provenance["commit"]
    assert sum(len(r.regions) for r in records if r) == 1123
    assert warnings.count("empty_reference") == 0 and warnings.count("unmapped_category") == 0
