"""The note on paired judge-score intervals from few frames (issue 38) stands under a paired table exactly when one
of its rows is such an interval: a judge score, an interval printed, fewer than 50 frames."""

from __future__ import annotations

import pytest

from drive_evals.benchmark import Benchmark
from drive_evals.drivelmm_o1.benchmark import DRIVELMM_O1
from drive_evals.report.breakdown import build_breakdown, paired_table
from drive_evals.report.compare import build_view
from drive_evals.report.judge_note import FULL_COVERAGE_CLUSTERS
from drive_evals.report.tables import comparisons_table
from drive_evals.surds.benchmark import SURDS
from report.synthetic import synthetic_run

NOTE = "cover about 93%"


def _notes(benchmark: Benchmark, clusters: int) -> tuple[list[str], list[str]]:
    """The notes under Paired comparisons and under Paired differences by level, for two runs of `clusters`."""
    view = build_view(benchmark, [synthetic_run(benchmark, 1, clusters), synthetic_run(benchmark, 2, clusters)])
    return comparisons_table("Paired comparisons", view.comparisons).notes, paired_table(build_breakdown(view)).notes


@pytest.mark.parametrize("clusters", [6, 20, FULL_COVERAGE_CLUSTERS - 1])
def test_note_under_judge_comparisons_from_fewer_than_50_frames(clusters: int) -> None:
    main, by_level = _notes(DRIVELMM_O1, clusters)
    assert sum(NOTE in note for note in main) == 1, main
    assert "fewer than 50 frames" in next(note for note in main if NOTE in note)
    # each level of `question number` holds one unit per frame: from 20 frames it is compared, and gets the note
    assert any(NOTE in note for note in by_level) == (clusters >= 20), by_level


@pytest.mark.parametrize("clusters", [3, 5, FULL_COVERAGE_CLUSTERS, 80])
def test_no_note_without_an_interval_or_from_50_frames(clusters: int) -> None:
    """Below 6 frames no paired interval is printed; from 50 the stress shape is covered at 0.944-0.951."""
    main, by_level = _notes(DRIVELMM_O1, clusters)
    assert not any(NOTE in note for note in main + by_level), main + by_level


def test_no_note_for_scores_no_judge_gave() -> None:
    """SURDS (0/1 scores and xy2d centerness) and DriveLMM-o1's MCQ accuracy alone carry no judge-score note."""
    main, by_level = _notes(SURDS, 20)
    assert not any(NOTE in note for note in main + by_level)
    view = build_view(DRIVELMM_O1, [synthetic_run(DRIVELMM_O1, 1, 20), synthetic_run(DRIVELMM_O1, 2, 20)])
    mcq = [c for c in view.comparisons if c.metric == "mcq_accuracy"]
    assert mcq and not any(NOTE in note for note in comparisons_table("Paired comparisons", mcq).notes)
